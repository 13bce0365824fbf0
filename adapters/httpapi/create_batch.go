package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// MaxBatchItems is the most alarms one POST /v1/alarms/batch takes.
const MaxBatchItems = 1000

// DefaultMaxBatchBodyBytes bounds the body of a batch: a thousand alarms of a few
// kilobytes each. Alarms with large payloads go in smaller batches; a body over it is a
// 413 saying the limit.
const DefaultMaxBatchBodyBytes = 16 << 20

// batchRequest is the body of POST /v1/alarms/batch. Items stay raw until each is
// decoded on its own, so one malformed item fails only itself.
type batchRequest struct {
	Alarms []json.RawMessage `json:"alarms"`
}

// decodeBatch reads a batch body as jsonio.DecodeObject would, answering the same
// errors, in one validating pass and one light split of the items rather than decoding
// the body twice (docs/benchmarks.md, "HTTP create").
func decodeBatch(body []byte) (batchRequest, error) {
	var req batchRequest
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return req, jsonio.DecodeObject(body, &req) // the unusual body: its exact error
	}
	if err := jsonio.CheckFields(trimmed, &req); err != nil {
		return req, err
	}
	var alarms []byte
	jsonio.EachMember(trimmed, func(name string, value []byte) bool {
		alarms = value // a repeated member: the last wins, as in encoding/json
		return true
	})
	switch {
	case alarms == nil || string(alarms) == "null":
		return req, nil
	case alarms[0] != '[':
		return req, jsonio.DecodeObject(body, &req) // not an array: encoding/json's type error
	}
	jsonio.EachElement(alarms, func(item []byte) { req.Alarms = append(req.Alarms, item) })
	return req, nil
}

// createAlarmBatch serves POST /v1/alarms/batch: up to MaxBatchItems alarms, each
// validated and idempotent on its own, the valid ones written in one transaction. The
// answer is 200 whenever the call was understood, with one result per item in request
// order: {"alarm": ..., "deduped": ...} (with "replaced": true when the item replaced its
// key's alarm) or {"error": {...}} with the codes and fields of POST /v1/alarms.
func (a *api) createAlarmBatch(w http.ResponseWriter, r *http.Request, owner string) {
	body, err := a.readBodyLimit(w, r, a.maxBatchBody)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	req, err := decodeBatch(body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if len(req.Alarms) == 0 || len(req.Alarms) > MaxBatchItems {
		a.writeError(w, r, invalidArgument("alarms", fmt.Sprintf("must hold between 1 and %d alarms, got %d", MaxBatchItems, len(req.Alarms))))
		return
	}
	ctx, span := a.startCreate(r)
	itemErrs := make([]error, len(req.Alarms))
	specs := make([]domain.Spec, 0, len(req.Alarms))
	at := make([]int, 0, len(req.Alarms)) // specs[j] is item at[j]
	for i, raw := range req.Alarms {
		var item createRequest
		if len(raw) == 0 || raw[0] != '{' {
			itemErrs[i] = badRequest("", "each item must be a JSON object")
			continue
		}
		// The whole body was decoded once already: each item is valid JSON.
		if err := jsonio.DecodeValidObject(raw, &item); err != nil {
			itemErrs[i] = err
			continue
		}
		spec, err := item.spec(owner)
		if err != nil {
			itemErrs[i] = err
			continue
		}
		span.adopt(&spec)
		specs, at = append(specs, spec), append(at, i)
	}
	var buf bytes.Buffer
	// An answer is about the size of the request plus the fields the server adds:
	// sized once, the buffer is not grown step by step.
	buf.Grow(len(body) + 512*len(req.Alarms))
	buf.WriteString(`{"results":[`)
	results := make([]func(*bytes.Buffer) error, len(req.Alarms))
	for i, err := range itemErrs {
		if err != nil {
			results[i] = a.itemError(r, err)
		}
	}
	if len(specs) > 0 {
		rs, err := a.creator.CreateBatch(ctx, specs)
		if err != nil {
			span.end("", len(req.Alarms), err)
			a.writeError(w, r, err)
			return
		}
		for j, res := range rs {
			if res.Err != nil {
				results[at[j]] = a.itemError(r, res.Err)
				continue
			}
			results[at[j]] = func(b *bytes.Buffer) error { return appendCreated(b, res) }
		}
	}
	span.end("", len(req.Alarms), nil)
	for i, write := range results {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := write(&buf); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	buf.WriteString("]}\n")
	writeBody(w, http.StatusOK, buf.Bytes())
}

// itemError is one item's {"error": {...}}, as writeError would answer it alone; what
// the client is not told is logged.
func (a *api) itemError(r *http.Request, err error) func(*bytes.Buffer) error {
	ae := toAPIError(err)
	if ae.Status >= 500 {
		a.log.Error("batch item failed", requestFields(r, zap.Error(err))...)
	}
	return func(b *bytes.Buffer) error {
		b.WriteString(`{"error":`)
		if err := jsonio.Append(b, ae); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	}
}
