package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chronoshq/chronos/ports"
)

// WatchStoreSize exports chronos_store_bytes, read from store at every scrape (a stat
// of its files, no query). For a store whose database is on this host (SQLite); call
// it once, before serving.
func (m *Metrics) WatchStoreSize(store ports.DiskSizer) {
	m.registry.MustRegister(&storeSizeCollector{store: store, desc: prometheus.NewDesc("chronos_store_bytes",
		"Bytes the store's database takes on this host's disk now: the SQLite file and its write-ahead log (-wal).",
		nil, nil)})
}

type storeSizeCollector struct {
	store ports.DiskSizer
	desc  *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c *storeSizeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector. A size that cannot be read fails this metric
// alone (the handler logs it and serves the rest), rather than reading 0.
func (c *storeSizeCollector) Collect(ch chan<- prometheus.Metric) {
	n, err := c.store.DiskBytes()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n))
}
