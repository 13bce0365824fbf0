package main

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/postgres"
	"github.com/chronoshq/chronos/internal/storeurl"
)

// readReplica is the read replica serve opened (--store-replica); its zero value: none.
type readReplica struct{ store *postgres.Store }

// openReplica opens --store-replica read-only. It makes no connection: a replica that
// is down delays nothing, and the node reads the primary until it answers.
func openReplica(ctx context.Context, url string) (readReplica, error) {
	if url == "" {
		return readReplica{}, nil
	}
	s, err := postgres.OpenReplica(ctx, url, postgres.ReplicaOptions{})
	if err != nil {
		return readReplica{}, fmt.Errorf("cannot open --store-replica %s: %w", storeurl.Redact(url), rootCause(storeurl.RedactError(err, url)))
	}
	return readReplica{store: s}, nil
}

func (r readReplica) close() {
	if r.store != nil {
		_ = r.store.Close()
	}
}

// logState says once, at start, whether the read replica answers and how far behind
// it is; one that does not is no reason to refuse to start (the primary serves).
func (r readReplica) logState(url string, log *zap.Logger) {
	if r.store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lag, err := r.store.ReplicationLag(ctx)
	if err != nil {
		log.Warn("the read replica does not answer: admin lists and counts read the primary until it does",
			zap.String("store_replica", storeurl.Redact(url)), zap.Error(storeurl.RedactError(err, url)))
		return
	}
	log.Info("read replica open: admin lists, counts and histories are read from it",
		zap.String("store_replica", storeurl.Redact(url)), zap.Duration("lag", lag))
}
