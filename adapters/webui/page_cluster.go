package webui

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

type failedData struct {
	Failed  []domain.Alarm
	More    string // link to every failed alarm when there are more
	Skipped []domain.Alarm
}

// skippedScan bounds how many cron series the failed page reads to find the ones that
// skipped an occurrence (no index selects them; see docs/dashboard.md).
const skippedScan = 500

// failedPage serves failed once alarms and cron series whose last delivery failed.
func (u *UI) failedPage(w http.ResponseWriter, r *http.Request, v viewer) {
	failed, next, err := u.alarms.List(r.Context(), ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusFailed, Limit: 50})
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	d := failedData{Failed: failed}
	if next != "" {
		d.More = Prefix + "alarms?status=failed"
	}
	series, _, err := u.alarms.List(r.Context(), ports.ListFilter{Scope: ports.AnyOwner, Kind: domain.KindCron, Status: domain.StatusActive, Limit: skippedScan})
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	for _, a := range series {
		if a.LastError != "" {
			d.Skipped = append(d.Skipped, a)
		}
	}
	u.render(w, r, http.StatusOK, "failed", page{Title: "Failed", Nav: "failed", Viewer: &v, Data: d})
}

type nodeRow struct {
	domain.WorkerHealth
	Rate, FailRate float64 // wakes per second at the last sample
}

// nodesPage serves the registered nodes.
func (u *UI) nodesPage(w http.ResponseWriter, r *http.Request, v viewer) {
	ws, err := u.cluster.Workers(r.Context())
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	rows := make([]nodeRow, len(ws))
	for i, x := range ws {
		rows[i].WorkerHealth = x
		rows[i].Rate, rows[i].FailRate = u.sampler.NodeRate(x.ID)
	}
	u.render(w, r, http.StatusOK, "nodes", page{Title: "Nodes", Nav: "nodes", Viewer: &v, Data: rows})
}

type settingsData struct {
	Retention domain.RetentionStatus
	Backup    domain.BackupSetup
}

// settingsPage serves the pause gate and retention.
func (u *UI) settingsPage(w http.ResponseWriter, r *http.Request, v viewer) {
	retention, err := u.retention.Retention(r.Context())
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	u.render(w, r, http.StatusOK, "settings", page{Title: "Settings", Nav: "settings", Viewer: &v,
		Data: settingsData{Retention: retention, Backup: u.backups.BackupSetup()}})
}

// dispatchAction pauses or resumes dispatch for the cluster.
func (u *UI) dispatchAction(w http.ResponseWriter, r *http.Request, v viewer) {
	var err error
	msg := "Dispatch paused: no node claims alarms until it is resumed."
	pause := mux.Vars(r)["action"] == "pause"
	if pause && !u.confirmed(w, r, v, "Pause dispatch", askData{
		Question: "Pause dispatch for the whole cluster? No node claims alarms until someone resumes it.",
		Button:   "Yes, pause dispatch", Back: Prefix + "settings",
	}) {
		return
	}
	if pause {
		_, err = u.dispatch.PauseDispatch(r.Context(), v.Token.ID)
	} else {
		_, err = u.dispatch.ResumeDispatch(r.Context(), v.Token.ID)
		msg = "Dispatch resumed."
	}
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	u.redirectWithFlash(w, r, Prefix+"settings", msg)
}

// runRetention runs a retention pass now on this node.
func (u *UI) runRetention(w http.ResponseWriter, r *http.Request, v viewer) {
	run, err := u.retention.RunRetention(r.Context(), v.Token.ID)
	var msg string
	switch {
	case err == nil:
		msg = "Retention ran: " + itoa(run.AlarmsDeleted) + " alarms and " + itoa(run.EventsDeleted) + " events deleted."
	case isInvalid(err, &msg):
	case isBusy(err):
		msg = "Not run: another node is running retention right now."
	default:
		u.storeFailed(w, r, err)
		return
	}
	u.redirectWithFlash(w, r, Prefix+"settings", msg)
}
