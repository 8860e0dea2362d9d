package node_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
)

// BenchmarkAcknowledgedHead measures what the record of acknowledged heads
// adds to a command: an append to the embedded JetStream as the ledger
// makes it (expected last subject sequence, message id, fsync before the
// acknowledgement), then the head's record (its own fsync, before the 201).
// Each client alternates commands with and without the record, so that
// both see the same disk (a shared machine's fsync latency drifts by a
// factor of several within minutes); the metrics are the mean time of a
// command without the record (append-µs), with it (append+head-µs), and of
// the record alone within it (head-µs). With 8 clients on 8 tournaments
// the records share fsyncs:
//
//	go test -run '^$' -bench AcknowledgedHead -benchtime 4000x -count 3 ./api/node/
func BenchmarkAcknowledgedHead(b *testing.B) {
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { benchAppend(b, clients) })
	}
}

// body is the stored commit of one RegisterPlayer, about the size of one.
var body = []byte(`{"id":"bench/1","tournament":"bench","seq":1,"type":"PlayerRegistered","v":1,"at":"2026-11-21T09:00:00Z","actor":{"id":"o1","role":"arbiter"},"command_id":"k1","prev":"zmqiNiEvAvNFl1stP3g/BpbgeUQGAOHUUDRcTha0zFI=","data":{"player":"p1","name":"Mario Rossi","club":"Bologna – Asinelli","region":"Emilia-Romagna"}}` + "\n")

// embeddedLog is the log on an embedded JetStream in dir, fsyncing every
// write, or every sync when not 0.
func embeddedLog(b *testing.B, dir string, sync time.Duration) (*eventlog.Log, *nats.Conn) {
	b.Helper()
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: filepath.Join(dir, "nats"), SyncInterval: sync})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	lg, err := eventlog.Open(context.Background(), nc, eventlog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return lg, nc
}

func benchAppend(b *testing.B, clients int) {
	dir := b.TempDir()
	lg, _ := embeddedLog(b, dir, 0)
	h, _, err := node.OpenHeads(filepath.Join(dir, "heads.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	var plain, recorded, record atomic.Int64 // nanoseconds
	var n atomic.Int64                       // commands with the record
	run(b, clients, func(c, i int, last *uint64, tree *checkpoint.Tree) error {
		t := fmt.Sprintf("t%d", c)
		start := time.Now()
		ack, err := lg.AppendRequest(context.Background(), t, *last, fmt.Sprintf("%s/k%d", t, i), "sha256:x", body)
		if err != nil {
			return err
		}
		*last = ack.StreamSeq
		if err := tree.Append(body[:len(body)-1], nil); err != nil {
			return err
		}
		if i%2 == 0 {
			plain.Add(int64(time.Since(start)))
			return nil
		}
		hd := tree.Head()
		appended := time.Now()
		if err := h.Record(ledger.AckedHead{Tournament: t, Size: hd.Size, StreamSeq: ack.StreamSeq, Root: hd.Root, Last: hd.Last}); err != nil {
			return err
		}
		record.Add(int64(time.Since(appended)))
		recorded.Add(int64(time.Since(start)))
		n.Add(1)
		return nil
	})
	if k := n.Load(); k > 0 && int64(b.N)-k > 0 {
		b.ReportMetric(float64(plain.Load())/float64(int64(b.N)-k)/1e3, "append-µs")
		b.ReportMetric(float64(recorded.Load())/float64(k)/1e3, "append+head-µs")
		b.ReportMetric(float64(record.Load())/float64(k)/1e3, "head-µs")
	}
}

// run shares b.N operations among clients goroutines, each on its own
// tournament with its own last stream sequence and Merkle tree.
func run(b *testing.B, clients int, op func(client, i int, last *uint64, tree *checkpoint.Tree) error) {
	var next atomic.Int64
	errs := make(chan error, clients)
	b.ReportAllocs()
	b.ResetTimer()
	for c := range clients {
		go func() {
			var last uint64
			tree := checkpoint.NewTree()
			for {
				i := int(next.Add(1))
				if i > b.N {
					errs <- nil
					return
				}
				if err := op(c, i, &last, tree); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			b.Error(err)
		}
	}
	b.StopTimer()
}

// BenchmarkCheckLog measures the check of a whole log against its
// acknowledged heads that a venue makes at every start (CheckLog), on a
// log of 100,000 one-event commits over 10 tournaments, against reading
// the same log with a scan that does nothing:
//
//	go test -run '^$' -bench CheckLog -benchtime 3x ./api/node/
func BenchmarkCheckLog(b *testing.B) {
	const commits, tournaments = 100_000, 10
	ctx := context.Background()
	lg, nc := embeddedLog(b, b.TempDir(), time.Minute)
	js, err := natsjs.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	heads := map[string]ledger.AckedHead{}
	trees := map[string]*checkpoint.Tree{}
	var acks []natsjs.PubAckFuture
	for i := range commits {
		t := fmt.Sprintf("t%d", i%tournaments)
		f, err := js.PublishAsync(eventlog.Subject(t), body)
		if err != nil {
			b.Fatal(err)
		}
		acks = append(acks, f)
		if trees[t] == nil {
			trees[t] = checkpoint.NewTree()
		}
		if err := trees[t].Append(body[:len(body)-1], nil); err != nil {
			b.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	for i, f := range acks {
		t := fmt.Sprintf("t%d", i%tournaments)
		ack, err := f.Ok(), error(nil)
		select {
		case a := <-ack:
			h := trees[t].Head()
			heads[t] = ledger.AckedHead{Tournament: t, Size: h.Size, StreamSeq: a.Sequence, Root: h.Root, Last: h.Last}
		case err = <-f.Err():
			b.Fatal(err)
		}
	}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			last, _ := lg.LastSeq(ctx)
			if err := lg.Scan(ctx, 1, last, "", func(events.StoredCommit) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, damage, err := ledger.CheckLog(ctx, lg, heads, ledger.CheckOptions{}); err != nil || len(damage) > 0 {
				b.Fatal(err, damage)
			}
		}
	})
}
