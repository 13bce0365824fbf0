package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ReplicationLagger is a read replica that can tell how far behind its primary it is.
type ReplicationLagger interface {
	ReplicationLag(ctx context.Context) (time.Duration, error)
}

// replicaLagTimeout bounds the query a scrape makes of the replica: a replica that does
// not answer must not hold the scrape.
const replicaLagTimeout = 2 * time.Second

// WatchReplicaLag exports chronos_store_replica_lag_seconds, read from replica at every
// scrape (one query). Call it once, before serving, on a node with a read replica.
func (m *Metrics) WatchReplicaLag(replica ReplicationLagger) {
	m.registry.MustRegister(&replicaLagCollector{replica: replica, desc: prometheus.NewDesc("chronos_store_replica_lag_seconds",
		"How far the read replica (--store-replica) is behind the primary: 0 when it has replayed all it received, else the age of the last transaction it replayed. Missing while it does not answer.",
		nil, nil)})
}

type replicaLagCollector struct {
	replica ReplicationLagger
	desc    *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c *replicaLagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector. A replica that does not answer fails this
// metric alone (the handler logs it and serves the rest), rather than reading 0.
func (c *replicaLagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), replicaLagTimeout)
	defer cancel()
	lag, err := c.replica.ReplicationLag(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, lag.Seconds())
}
