package eventlog_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, l, _ := startR3(ctx, t)

	acked := map[uint64]string{} // stream seq → body
	var expected uint64
	appendN := func(from, n int) {
		for i := from; i < from+n; i++ {
			body := fmt.Sprintf("commit %d\n", i)
			a := appendRetrying(ctx, t, l, &expected, fmt.Sprintf("t1/%d", i), body)
			if a.Duplicate {
				t.Logf("commit %d acknowledged as a duplicate of %d (a lost ack retried)", i, a.StreamSeq)
			}
			acked[a.StreamSeq] = body
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

// TestAFollowGoesOnWhenItsConsumersNodeStops: on an R3 stream, the node
// that hosts a follow's consumer is stopped; the follow goes on through a
// new consumer on the nodes left and delivers every commit once, in order.
func TestAFollowGoesOnWhenItsConsumersNodeStops(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test: skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, l, nc := startR3(ctx, t)
	var last uint64
	appendN := func(from, n int) {
		for i := from; i < from+n; i++ {
			appendRetrying(ctx, t, l, &last, fmt.Sprintf("t1/%d", i), fmt.Sprintf("commit %d\n", i))
		}
	}
	appendN(0, 5)
	seen := make(chan string, 100)
	go func() {
		_ = l.Follow(ctx, 1, "", func(m events.StoredCommit) error { seen <- string(m.Data); return nil })
	}()
	var got []string
	receive := func(n int) {
		t.Helper()
		for len(got) < n {
			select {
			case d := <-seen:
				got = append(got, d)
			case <-ctx.Done():
				t.Fatalf("the follow delivered %q, want %d commits", got, n)
			}
		}
	}
	receive(5)

	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, "REFERTO")
	if err != nil {
		t.Fatal(err)
	}
	host := -1
	for info := range stream.ListConsumers(ctx).Info() {
		if info.Cluster != nil {
			fmt.Sscanf(info.Cluster.Leader, "n%d", &host)
		}
	}
	if host < 0 {
		t.Fatal("no node hosts the follow's consumer")
	}
	c.Stop(host)
	stopped := time.Now()
	appendN(5, 5)
	receive(10)
	took := time.Since(stopped)
	t.Logf("stopped node %d, which hosted the follow's consumer; the follow delivered the next 5 commits %v later", host, took.Round(time.Millisecond))
	// A command waits for the projections up to its timeout (10 s by
	// default): a follow that takes longer refuses commands while a
	// quorum is up. nats.go's ordered consumer took 11 s in one run of
	// three here, its first request for a new consumer unanswered.
	if took > 8*time.Second {
		t.Errorf("the follow stood still for %v after its consumer's node stopped", took.Round(time.Millisecond))
	}
	for i, d := range got {
		if want := fmt.Sprintf("commit %d\n", i); d != want {
			t.Fatalf("the follow delivered %q, want commits 0..9 once each, in order", got)
		}
	}
}

// startR3 starts a three-node cluster and opens the log on an R3 stream
// over a connection that reconnects at once to the nodes left.
func startR3(ctx context.Context, t *testing.T) (*eventlogtest.Cluster, *eventlog.Log, *nats.Conn) {
	t.Helper()
	c := eventlogtest.StartCluster(t, 3)
	nc, err := nats.Connect(c.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	l, err := eventlog.Open(ctx, nc, eventlog.Options{Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	return c, l, nc
}

// appendRetrying appends body to tournament t1 at *expected under key, and
// moves *expected to it. While the cluster re-elects, an append may be
// unavailable, or a retried append whose first ack was lost conflicts: it
// catches up and retries, as the API does.
func appendRetrying(ctx context.Context, t *testing.T, l *eventlog.Log, expected *uint64, key, body string) events.Appended {
	t.Helper()
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		a, err := l.Append(actx, "t1", *expected, key, []byte(body))
		cancel()
		if err == nil {
			*expected = a.StreamSeq
			return a
		}
		if !errors.Is(err, events.ErrUnavailable) && !errors.Is(err, events.ErrConflict) || attempt > 100 {
			t.Fatalf("append %s: %v", key, err)
		}
		if last, err := l.LastSubjectSeq(ctx, "t1"); err == nil {
			*expected = last
		}
		time.Sleep(100 * time.Millisecond)
	}
}
