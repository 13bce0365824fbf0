package httpapi

import (
	"bufio"
	"bytes"
	"errors"
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

// errTooManyItems refuses a batch at its first item over MaxBatchItems, before the rest
// of its body is read.
var errTooManyItems = invalidArgument("alarms", fmt.Sprintf("must hold between 1 and %d alarms, got more", MaxBatchItems))

// batchItems is a batch as its body is read: each item is validated into a spec as it
// comes (or refused on its own), and its bytes dropped, so that a request holds its
// specs and one item's JSON, never the whole body.
type batchItems struct {
	owner string
	span  createSpan
	errs  []error       // per item; nil for the valid ones
	specs []domain.Spec // the valid items'
	at    []int         // specs[j] is item at[j]
}

// add validates one item, as POST /v1/alarms would its body.
func (b *batchItems) add(raw []byte) error {
	if len(b.errs) == MaxBatchItems {
		return errTooManyItems
	}
	i := len(b.errs)
	b.errs = append(b.errs, nil)
	var item createRequest
	if raw[0] != '{' {
		b.errs[i] = badRequest("", "each item must be a JSON object")
		return nil
	}
	// The decoder read the item whole: it is valid JSON.
	if err := jsonio.DecodeValidObject(raw, &item); err != nil {
		b.errs[i] = err
		return nil
	}
	spec, err := item.spec(b.owner)
	if err != nil {
		b.errs[i] = err
		return nil
	}
	b.span.adopt(&spec)
	b.specs, b.at = append(b.specs, spec), append(b.at, i)
	return nil
}

// restart forgets the items read so far: the body names "alarms" again.
func (b *batchItems) restart() {
	b.errs, b.specs, b.at = b.errs[:0], b.specs[:0], b.at[:0]
}

// createAlarmBatch serves POST /v1/alarms/batch: up to MaxBatchItems alarms, each
// validated and idempotent on its own, the valid ones written in one transaction. The
// answer is 200 whenever the call was understood, with one result per item in request
// order: {"alarm": ..., "deduped": ...} (with "replaced": true when the item replaced its
// key's alarm) or {"error": {...}} with the codes and fields of POST /v1/alarms. The body
// is read item by item and the answer written item by item: neither is held whole.
func (a *api) createAlarmBatch(w http.ResponseWriter, r *http.Request, owner string) {
	if err := checkContentType(r); err != nil {
		a.writeError(w, r, err)
		return
	}
	ctx, span := a.startCreate(r)
	b := &batchItems{owner: owner, span: span}
	err := jsonio.EachItem(http.MaxBytesReader(w, r.Body, a.maxBatchBody), "alarms", a.maxBody, b.add, b.restart)
	if err == nil && len(b.errs) == 0 {
		err = invalidArgument("alarms", fmt.Sprintf("must hold between 1 and %d alarms, got 0", MaxBatchItems))
	}
	if err != nil {
		span.end("", len(b.errs), err)
		a.writeError(w, r, bodyError(err))
		return
	}
	results := make([]func(*bytes.Buffer) error, len(b.errs))
	for i, err := range b.errs {
		if err != nil {
			results[i] = a.itemError(r, err)
		}
	}
	if len(b.specs) > 0 {
		rs, err := a.creator.CreateBatch(ctx, b.specs)
		if err != nil {
			span.end("", len(b.errs), err)
			a.writeError(w, r, err)
			return
		}
		for j, res := range rs {
			if res.Err != nil {
				results[b.at[j]] = a.itemError(r, res.Err)
				continue
			}
			results[b.at[j]] = func(out *bytes.Buffer) error { return appendCreated(out, res) }
		}
	}
	span.end("", len(b.errs), nil)
	a.writeResults(w, r, results)
}

// batchAnswerBuffer is how much of a batch's answer is written to the client at once.
const batchAnswerBuffer = 64 << 10

// writeResults answers 200 with {"results": [...]}, writing each result as it is made.
// The status is sent first: a result that fails to encode (none can) cuts the answer
// short, and is logged.
func (a *api) writeResults(w http.ResponseWriter, r *http.Request, results []func(*bytes.Buffer) error) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	out := bufio.NewWriterSize(w, batchAnswerBuffer)
	out.WriteString(`{"results":[`)
	var one bytes.Buffer
	for i, write := range results {
		if i > 0 {
			out.WriteByte(',')
		}
		one.Reset()
		if err := write(&one); err != nil {
			a.log.Error("encoding a batch answer failed; the answer is cut short", requestFields(r, zap.Error(err))...)
			return
		}
		_, _ = out.Write(one.Bytes())
	}
	out.WriteString("]}\n")
	_ = out.Flush() // a client that hung up is no error of ours
}

// bodyError is a batch body's read failure as the API answers it: a body over the limit
// is a 413, another failure of the connection a 400 (readBodyLimit's answers).
func bodyError(err error) error {
	var ae *apiError
	var je *jsonio.Error
	var tooLarge *http.MaxBytesError
	var itemTooLarge *jsonio.ValueTooLargeError
	if errors.As(err, &ae) || errors.As(err, &je) || errors.As(err, &tooLarge) || errors.As(err, &itemTooLarge) {
		return err
	}
	return badRequest("", "reading the request body: "+err.Error())
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
