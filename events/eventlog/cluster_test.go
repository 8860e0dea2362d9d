package eventlog_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/events/eventlog/eventlogtest"
)

// TestR3ClusterKeepsEveryAcknowledgedAppend appends to an R3 stream on a
// three-node cluster, stops one node mid-way, keeps appending, and checks
// that every acknowledged commit is in the stream exactly once, in order.
func TestR3ClusterKeepsEveryAcknowledgedAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test: skipped in -short mode")
	}
	c := eventlogtest.StartCluster(t, 3)
	nc, err := nats.Connect(c.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	l, err := eventlog.Open(ctx, nc, eventlog.Options{Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}

	acked := map[uint64]string{} // stream seq → body
	var expected uint64
	appendN := func(from, n int) {
		for i := from; i < from+n; i++ {
			body := fmt.Sprintf("commit %d\n", i)
			for attempt := 0; ; attempt++ {
				actx, acancel := context.WithTimeout(ctx, 5*time.Second)
				a, err := l.Append(actx, "t1", expected, fmt.Sprintf("t1/%d", i), []byte(body))
				acancel()
				if err == nil {
					if a.Duplicate {
						t.Logf("commit %d acknowledged as a duplicate of %d (a lost ack retried)", i, a.StreamSeq)
					}
					acked[a.StreamSeq] = body
					expected = a.StreamSeq
					break
				}
				// While the cluster re-elects, appends may be unavailable, or
				// a retried append whose first ack was lost conflicts: catch
				// up and retry, as the API does.
				if !errors.Is(err, events.ErrUnavailable) && !errors.Is(err, events.ErrConflict) || attempt > 100 {
					t.Fatalf("append %d: %v", i, err)
				}
				if last, err := l.LastSubjectSeq(ctx, "t1"); err == nil {
					expected = last
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	appendN(0, 100)
	// Stop a node that is not the stream leader (the loss of the leader is
	// api's TestClusterFaultsUnderLoad); the stream keeps its quorum of two.
	leader := c.StreamLeader("REFERTO")
	stop := (leader + 1) % 3
	c.Stop(stop)
	t.Logf("stopped node %d (stream leader is node %d)", stop, leader)
	appendN(100, 100)

	last, err := l.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var prev uint64
	err = l.Scan(ctx, 1, last, "t1", func(m events.StoredCommit) error {
		if m.StreamSeq <= prev {
			return fmt.Errorf("stream sequence %d after %d", m.StreamSeq, prev)
		}
		prev = m.StreamSeq
		seen[string(m.Data)]++
		if want, ok := acked[m.StreamSeq]; ok && want != string(m.Data) {
			return fmt.Errorf("stream sequence %d holds %q, acknowledged %q", m.StreamSeq, m.Data, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for seq, body := range acked {
		if seen[body] != 1 {
			t.Errorf("acknowledged commit at %d (%q) is in the stream %d times", seq, body, seen[body])
		}
	}
	if len(acked) != 200 {
		t.Errorf("%d commits acknowledged, want 200", len(acked))
	}
	// A stale expectation on the replicated stream is the same conflict.
	if _, err := l.Append(ctx, "t1", 1, "t1/stale", []byte("stale\n")); !errors.Is(err, events.ErrConflict) {
		t.Errorf("stale append on R3: got %v, want ErrConflict", err)
	}
}
