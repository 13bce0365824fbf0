package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/internal/pgtest"
)

// The replication notice speaks up on an asynchronous standby once an at-most-once alarm
// is active, and stays quiet on a synchronous one.
func TestReplicationNotice(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name        string
		synchronous bool
		want        string // "" for no notice
	}{
		{"asynchronous", false, "stream asynchronously and at-most-once alarms are active"},
		{"synchronous", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cluster := pgtest.NewCluster(t, c.synchronous)
			s := openStore(t, cluster.Primary.DirectURL("postgres"), Options{Migrate: true})
			if notice, err := s.ReplicationNotice(ctx); err != nil || notice != "" {
				t.Fatalf("without alarms: %q, %v; want no notice", notice, err)
			}
			now := time.Now().UTC()
			a := createOnce(t, s, now.Add(time.Hour), now)
			if _, err := s.pool.Exec(ctx, `UPDATE alarms SET delivery = 'at_most_once' WHERE id = $1`, a.ID); err != nil {
				t.Fatal(err)
			}
			notice, err := s.ReplicationNotice(ctx)
			if err != nil || (c.want == "") != (notice == "") || !strings.Contains(notice, c.want) {
				t.Fatalf("with an at-most-once alarm: %q, %v; want %q", notice, err, c.want)
			}
		})
	}
}
