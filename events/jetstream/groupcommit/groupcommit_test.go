package groupcommit

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/events/jetstream"
)

// atomicStream starts an embedded server (fsync per write) with a stream G
// on subjects g.> that takes atomic batches, all stopped when t ends.
func atomicStream(t *testing.T) (context.Context, *nats.Conn, natsjs.JetStream, natsjs.Stream) {
	t.Helper()
	ns, err := jetstream.StartServer(jetstream.ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	js, err := natsjs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.CreateStream(ctx, natsjs.StreamConfig{Name: "G", Subjects: []string{"g.>"}, Storage: natsjs.FileStorage,
		Duplicates: time.Minute, AllowAtomicPublish: true})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, nc, js, stream
}

// TestGroupCommitSequences runs the group commit under concurrent
// appends, each expecting its subject's last sequence to be the one the
// previous append returned: a sequence told wrong fails the next append of
// that subject, and the stream must hold every message where it was told.
func TestGroupCommitSequences(t *testing.T) {
	ctx, nc, js, stream := atomicStream(t)
	gc := New(ctx, nc, js)
	const clients, each = 8, 40
	seqs := make([][]uint64, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last uint64
			for i := range each {
				m := &nats.Msg{Subject: fmt.Sprintf("g.%d", c), Data: fmt.Appendf(nil, "%d-%d", c, i), Header: nats.Header{}}
				m.Header.Set(natsjs.MsgIDHeader, fmt.Sprintf("%d-%d", c, i))
				m.Header.Set(natsjs.ExpectedLastSubjSeqHeader, strconv.FormatUint(last, 10))
				seq, err := gc.Append(m)
				if err != nil {
					t.Errorf("client %d, append %d: %v", c, i, err)
					return
				}
				seqs[c], last = append(seqs[c], seq), seq
			}
		}()
	}
	wg.Wait()
	gc.Stop()
	if t.Failed() {
		return
	}
	if b, m := gc.Stats(); m != clients*each || b >= m {
		t.Errorf("%d messages in %d batches: want %d, some of them grouped", m, b, clients*each)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != clients*each {
		t.Errorf("the stream holds %d messages, want %d", info.State.Msgs, clients*each)
	}
	for c := range clients {
		for i, seq := range seqs[c] {
			raw, err := stream.GetMsg(ctx, seq)
			if err != nil {
				t.Fatalf("client %d, append %d at %d: %v", c, i, seq, err)
			}
			if want := fmt.Sprintf("%d-%d", c, i); string(raw.Data) != want || raw.Subject != fmt.Sprintf("g.%d", c) {
				t.Errorf("seq %d holds %s %q, want g.%d %q", seq, raw.Subject, raw.Data, c, want)
			}
		}
	}
}

// TestGroupCommitFailsTheWholeBatch: one refused message fails every
// message of its batch, and none of them is stored.
func TestGroupCommitFailsTheWholeBatch(t *testing.T) {
	ctx, nc, js, stream := atomicStream(t)
	gc := New(ctx, nc, js)
	defer gc.Stop()
	group := func(expected ...uint64) []*groupedMsg {
		var g []*groupedMsg
		for i, e := range expected {
			m := &nats.Msg{Subject: fmt.Sprintf("g.%d", i), Header: nats.Header{}}
			m.Header.Set(natsjs.ExpectedLastSubjSeqHeader, strconv.FormatUint(e, 10))
			g = append(g, &groupedMsg{m: m})
		}
		return g
	}
	bad := group(0, 7, 0) // g.1 has no message 7
	gc.store(bad)
	for i, x := range bad {
		if x.err == nil || x.seq != 0 {
			t.Errorf("message %d of a refused batch: seq %d, err %v; want an error", i, x.seq, x.err)
		}
	}
	good := group(0, 0, 0)
	gc.store(good)
	for i, x := range good {
		if x.err != nil || x.seq != uint64(i+1) {
			t.Errorf("message %d: seq %d, err %v; want seq %d (nothing of the refused batch stored)", i, x.seq, x.err, i+1)
		}
	}
	if info, err := stream.Info(ctx); err != nil || info.State.Msgs != 3 {
		t.Errorf("stream: %+v, %v; want 3 messages", info.State, err)
	}
}
