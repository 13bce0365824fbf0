package webui

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/chronoshq/chronos/ports"
)

// backup writes a copy of the store to the node's --backup-dir (the admin API's POST
// /admin/v1/store/backup), and says where and how big.
func (u *UI) backup(w http.ResponseWriter, r *http.Request, v viewer) {
	b, err := u.backups.Backup(r.Context(), v.Token.ID)
	var msg string
	switch {
	case err == nil:
		msg = fmt.Sprintf("Backup written and checked: %s (%s) in %s, in %d ms.", b.File, byteSize(b.Bytes), u.backups.BackupSetup().Dir, b.Took.Milliseconds())
	case errors.Is(err, ports.ErrUnsupported), errors.Is(err, ports.ErrBusy):
		msg = "Not backed up: " + err.Error()
	default:
		u.storeFailed(w, r, err)
		return
	}
	u.redirectWithFlash(w, r, Prefix+"settings", msg)
}

// byteSize is n in the largest binary unit under it, for people.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
