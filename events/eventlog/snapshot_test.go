package eventlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestSnapshotIsTheStreamAtItsRequest snapshots a stream while commits keep
// being appended, restores the snapshot on another server and finds every
// message up to the snapshot's last sequence, as it was, and none after.
func TestSnapshotIsTheStreamAtItsRequest(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	// Incompressible payloads: the snapshot comes in many chunks.
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		payload := make([]byte, 2000)
		for j := range payload {
			payload[j] = 'a' + byte(rnd.IntN(26))
		}
		payload = append(payload, '\n')
		tn := fmt.Sprintf("t%d", i%5)
		last, err := l.LastSubjectSeq(ctx, tn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(ctx, tn, last, fmt.Sprintf("%s/k%d", tn, i), payload); err != nil {
			t.Fatal(err)
		}
	}
	// Appends go on while the snapshot is taken.
	var appended atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var last uint64
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			a, err := l.Append(ctx, "live", last, fmt.Sprintf("live/k%d", i), []byte("live\n"))
			if err != nil {
				t.Error(err)
				return
			}
			last = a.StreamSeq
			appended.Add(1)
		}
	}()
	var info SnapshotInfo
	var snap bytes.Buffer
	chunks := 0
	err := l.Snapshot(ctx, func(i SnapshotInfo) error { info = i; return nil }, func(b []byte) error {
		if chunks == 0 {
			// Hold the snapshot until commits were appended after it began.
			for n := appended.Load(); appended.Load() < n+20; {
				time.Sleep(time.Millisecond)
			}
		}
		chunks++
		snap.Write(b)
		return nil
	})
	close(stop)
	<-stopped
	if err != nil {
		t.Fatal(err)
	}
	st, err := info.StreamState()
	if err != nil {
		t.Fatal(err)
	}
	now, err := l.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.FirstSeq != 1 || st.Msgs != st.LastSeq || st.LastSeq < 1000 || now < st.LastSeq+20 || chunks < 10 {
		t.Fatalf("snapshot state %+v (%d chunks), stream now at %d: want 1..N with N ≥ 1000 and ≥ 20 appended since", st, chunks, now)
	}

	// Restored elsewhere: messages 1..LastSeq exactly as stored.
	ns, err := StartServer(ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// A cut snapshot is refused.
	if _, err := RestoreSnapshot(ctx, nc, info, bytes.NewReader(snap.Bytes()[:snap.Len()/2])); err == nil {
		t.Fatal("a snapshot cut in half restored")
	}
	ns2, err := StartServer(ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns2.Shutdown(); ns2.WaitForShutdown() }()
	nc2, err := nats.Connect("", nats.InProcessServer(ns2))
	if err != nil {
		t.Fatal(err)
	}
	defer nc2.Close()
	got, err := RestoreSnapshot(ctx, nc2, info, bytes.NewReader(snap.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got != st {
		t.Fatalf("restored state %+v, the snapshot's %+v", got, st)
	}
	r, err := Open(ctx, nc2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if last, err := r.LastSeq(ctx); err != nil || last != st.LastSeq {
		t.Fatalf("restored stream ends at %d (%v), want %d", last, err, st.LastSeq)
	}
	for seq := uint64(1); seq <= st.LastSeq; seq++ {
		want, err := l.Get(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		have, err := r.Get(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		if have.Tournament != want.Tournament || have.MsgID != want.MsgID || !have.Time.Equal(want.Time) || !bytes.Equal(have.Data, want.Data) {
			t.Fatalf("stream sequence %d restored as %+v, was %+v", seq, have, want)
		}
	}
}

// TestSnapshotRefusalsAreJetStreamAPIErrors: what JetStream answers when
// it refuses a snapshot or a restore is nats.go's APIError, so that a
// caller matches it by the library's error codes.
func TestSnapshotRefusalsAreJetStreamAPIErrors(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	if _, err := l.Append(ctx, "t1", 0, "t1/k1", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	var info SnapshotInfo
	if err := l.Snapshot(ctx, func(i SnapshotInfo) error { info = i; return nil }, func([]byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The stream exists: JetStream will not restore over it.
	_, err := RestoreSnapshot(ctx, l.nc, info, bytes.NewReader(nil))
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode == 0 {
		t.Errorf("restore over an existing stream: %v, want a JetStream API error", err)
	}
	js, err := jetstream.New(l.nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, l.opts.Stream); err != nil {
		t.Fatal(err)
	}
	err = l.Snapshot(ctx, func(SnapshotInfo) error { return nil }, func([]byte) error { return nil })
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("snapshot of a deleted stream: %v, want jetstream.ErrStreamNotFound", err)
	}
}
