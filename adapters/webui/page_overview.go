package webui

import (
	"html/template"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/domain"
)

type overviewData struct {
	O        domain.Overview
	Statuses []statusCount
	Total    int64
	Wakes    template.HTML // chart: wakes per second
	Lag      template.HTML // chart: lag percentiles
	Last     Point         // the latest sample
}

type statusCount struct {
	Status domain.Status
	Count  int64
}

func (u *UI) overviewData(r *http.Request) (overviewData, error) {
	o, err := u.cluster.Overview(r.Context())
	if err != nil {
		return overviewData{}, err
	}
	d := overviewData{O: o}
	for _, s := range domain.Statuses {
		d.Statuses = append(d.Statuses, statusCount{s, o.ByStatus[s]})
		d.Total += o.ByStatus[s]
	}
	pts := u.sampler.Points()
	var delivered, failed, p50, p99 []float64
	for _, p := range pts {
		delivered = append(delivered, p.Delivered)
		failed = append(failed, p.Failed)
		p50 = append(p50, p.LagP50)
		p99 = append(p99, p.LagP99)
	}
	if len(pts) > 0 {
		d.Last = pts[len(pts)-1]
	}
	span := time.Duration(SamplePoints) * SampleInterval
	d.Wakes = lineChart("Wakes per second, last 15 minutes", "/s", span, SamplePoints,
		chartLine{"delivered", "ok", delivered}, chartLine{"failed", "bad", failed})
	d.Lag = lineChart("Wake lag, worst node, last 15 minutes", " ms", span, SamplePoints,
		chartLine{"p50", "ok", p50}, chartLine{"p99", "warn", p99})
	return d, nil
}

// overviewPage serves the cluster at a glance.
func (u *UI) overviewPage(w http.ResponseWriter, r *http.Request, v viewer) {
	d, err := u.overviewData(r)
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	u.render(w, r, http.StatusOK, "overview", page{Title: "Overview", Nav: "overview", Viewer: &v, Data: d})
}

// overviewFragment serves the live part of the overview, which the page's script
// fetches every few seconds.
func (u *UI) overviewFragment(w http.ResponseWriter, r *http.Request, _ viewer) {
	d, err := u.overviewData(r)
	if err != nil {
		http.Error(w, "the store did not answer", http.StatusServiceUnavailable)
		return
	}
	u.renderFragment(w, "overview", "live", d)
}
