package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// adminBackup serves POST /admin/v1/store/backup: a copy of the store written to the
// node's --backup-dir under a name the node chooses. The request names nothing: a body,
// if any, must be an empty object, so that a client cannot believe it chose where the
// copy went (or write one anywhere else).
func (a *api) adminBackup(w http.ResponseWriter, r *http.Request, tok domain.Token) {
	var none struct{}
	if err := a.decodeOptionalBody(w, r, &none); err != nil {
		var refusal *jsonio.Error
		if errors.As(err, &refusal) && refusal.Field != "" {
			err = badRequest(refusal.Field, "the request takes no fields: the node writes the backup to its --backup-dir under a name it chooses")
		}
		a.writeError(w, r, err)
		return
	}
	// The answer waits for the copy, which on a large store outlasts the server's write
	// timeout; without the deadline the copy would be made and its answer lost.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	b, err := a.backups.Backup(r.Context(), tok.ID)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, struct {
		Backup backupView `json:"backup"`
	}{backupView{File: b.File, Bytes: b.Bytes, At: b.At.UTC().Format(time.RFC3339), TookMS: b.Took.Milliseconds()}})
}

type backupView struct {
	File   string `json:"file"`
	Bytes  int64  `json:"bytes"`
	At     string `json:"at"`
	TookMS int64  `json:"took_ms"`
}
