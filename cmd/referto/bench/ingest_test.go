package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
)

// Durable ingest, one benchmark per side so that a CPU profile holds one
// of them only; each op is one command (one publish) from 8 concurrent
// clients, each on its own tournament (its own subject), fsync per write:
//
//	go test -run '^$' -bench Ingest -benchtime 2000x -count 3 ./cmd/referto/bench/ | tee new.txt
//
// BenchmarkIngestReferto sends RegisterPlayer over HTTP; BenchmarkIngestRaw
// publishes the commit it stores to JetStream synchronously, on the same
// embedded server with the same sync policy; BenchmarkIngestGuarded
// publishes it with what the ledger needs of JetStream (a message id per
// command, the expected last sequence of the tournament's subject, an
// ordered consumer following the stream as the projections do), without
// any of referto's own code. BenchmarkIngestFloor is the least any
// implementation of the ledger's guarantees pays: the same HTTP request,
// answered once the guarded publish is acknowledged and a head is
// recorded in a record of acknowledged heads (node.Heads, its fdatasync
// shared as the ledger's is), with nothing decided, folded or indexed.

const ingestClients = 8

func BenchmarkIngestReferto(b *testing.B) {
	r := newIngest(b)
	before := r.scrape()
	b.ResetTimer()
	l, err := runLoad(b.N, ingestClients, registering(func(c int) *client.Client { return r.arbs[c] }))
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	report(b, l)
	// The server's split of each command's time, from /metrics.
	after := r.scrape()
	b.ReportMetric(apitest.MeanMillis(before, after, "referto_command_duration_seconds"), "command-ms")
	for _, p := range apitest.Phases {
		b.ReportMetric(apitest.MeanMillis(before, after, apitest.PhaseName(p)), p+"-ms")
	}
}

func BenchmarkIngestRaw(b *testing.B) {
	r := newIngest(b)
	b.ResetTimer()
	l, err := runLoad(b.N, ingestClients, func(c, i int) error {
		_, err := r.js.PublishMsg(context.Background(), &nats.Msg{Subject: fmt.Sprintf("rawbench.%d", c), Data: r.msg})
		return err
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	report(b, l)
}

func BenchmarkIngestGuarded(b *testing.B) {
	r := newIngest(b)
	b.ResetTimer()
	l, err := runLoad(b.N, ingestClients, func(c, i int) error {
		a, err := r.js.PublishMsg(context.Background(), &nats.Msg{Subject: fmt.Sprintf("rawguard.%d", c), Data: r.msg},
			natsjs.WithMsgID(strconv.Itoa(i)), natsjs.WithExpectLastSequencePerSubject(r.guardLast[c]))
		if err == nil {
			r.guardLast[c] = a.Sequence
		}
		return err
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	report(b, l)
}

func BenchmarkIngestFloor(b *testing.B) {
	r := newIngest(b)
	heads, _, err := node.OpenHeads(filepath.Join(b.TempDir(), "heads.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { heads.Close() })
	var mu sync.Mutex
	size := make([]uint64, ingestClients) // per client: the events its tournament holds
	leaf := make([]byte, 32)              // a Merkle root and last leaf stand-in
	m := mux.NewRouter()
	m.HandleFunc("/v1/tournaments/{t}/commands", func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<16))
		if err == nil {
			_, err = commands.Parse(body)
		}
		c, cerr := strconv.Atoi(strings.TrimPrefix(mux.Vars(req)["t"], "bench-"))
		if err != nil || cerr != nil || c < 0 || c >= ingestClients {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		expected := r.guardLast[c]
		id := fmt.Sprintf("%d-%d", c, size[c]+1) // as the ledger makes one when the request has no key
		mu.Unlock()
		if k := req.Header.Get("Idempotency-Key"); k != "" {
			id = k
		}
		a, err := r.js.PublishMsg(req.Context(), &nats.Msg{Subject: fmt.Sprintf("rawguard.%d", c), Data: r.msg},
			natsjs.WithMsgID(id), natsjs.WithExpectLastSequencePerSubject(expected))
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		mu.Lock()
		r.guardLast[c] = a.Sequence
		size[c]++
		head := ledger.AckedHead{Tournament: mux.Vars(req)["t"], Size: size[c], StreamSeq: a.Sequence, Root: leaf, Last: leaf}
		mu.Unlock()
		if err := heads.Record(head); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprintf(w, `{"seq":%d}`, head.Size)
	}).Methods(http.MethodPost)
	arb := &client.Client{Base: listen(b, m), Token: benchAdmin,
		HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: ingestClients}}}
	b.ResetTimer()
	ld, err := runLoad(b.N, ingestClients, registering(func(int) *client.Client { return arb }))
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	report(b, ld)
}

// registering is the ingest load: client c's i-th operation registers a
// player on tournament bench-c, through arb(c).
func registering(arb func(c int) *client.Client) func(c, i int) error {
	return func(c, i int) error {
		reg := &commands.RegisterPlayer{Player: fmt.Sprintf("p%d-%d", c, i), Name: fmt.Sprintf("Mario Rossi %d", i),
			Club: "Bologna – Asinelli", Region: "Emilia-Romagna"}
		_, err := arb(c).Command(context.Background(), fmt.Sprintf("bench-%d", c), "", reg)
		return err
	}
}

// ingest is a node with its API, a tournament and its arbiter per client,
// and the raw streams beside the ledger's.
type ingest struct {
	admin     *client.Client
	arbs      []*client.Client // one per client, on its own tournament
	js        natsjs.JetStream
	msg       []byte   // the stored commit of one RegisterPlayer
	guardLast []uint64 // per client: the last stream sequence of its subject
}

func newIngest(b *testing.B) *ingest {
	b.Helper()
	ctx := context.Background()
	node, url := serve(b, b.TempDir())
	r := &ingest{admin: &client.Client{Base: url, Token: benchAdmin,
		HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: ingestClients}}}}
	for c := range ingestClients {
		t := fmt.Sprintf("bench-%d", c)
		if _, err := r.admin.CreateTournament(ctx, "", client.NewTournament{ID: t, Name: "Bench", Ruleset: "rtu"}); err != nil {
			b.Fatalf("create %s: %v", t, err)
		}
		off, err := r.admin.AppointOfficial(ctx, t, client.Official{Name: "A", Role: events.RoleArbiter})
		if err != nil {
			b.Fatalf("appoint: %v", err)
		}
		r.arbs = append(r.arbs, r.admin.As(off.Token))
	}
	envs, err := events.Seal("bench-0", 1000, time.Now(), events.Actor{ID: "o1", Role: "arbiter"}, "0123456789abcdef0123456789abcdef",
		[]events.Event{events.PlayerRegistered{Player: "p0-1-1000", Name: "Mario Rossi 1000", Club: "Bologna – Asinelli", Region: "Emilia-Romagna"}})
	if err != nil {
		b.Fatal(err)
	}
	r.msg, _ = events.EncodeCommit(envs)
	if r.js, err = natsjs.New(node.Conn); err != nil {
		b.Fatal(err)
	}
	if _, err := r.js.CreateStream(ctx, natsjs.StreamConfig{Name: "RAWBENCH", Subjects: []string{"rawbench.>"}, Storage: natsjs.FileStorage}); err != nil {
		b.Fatal(err)
	}
	if _, err := r.js.CreateStream(ctx, natsjs.StreamConfig{Name: "RAWGUARD", Subjects: []string{"rawguard.>"}, Storage: natsjs.FileStorage,
		DenyDelete: true, DenyPurge: true, Duplicates: 2 * time.Minute}); err != nil {
		b.Fatal(err)
	}
	follower, err := r.js.OrderedConsumer(ctx, "RAWGUARD", natsjs.OrderedConsumerConfig{})
	if err != nil {
		b.Fatal(err)
	}
	follow, err := follower.Messages(natsjs.PullMaxMessages(1024))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(follow.Stop)
	go func() {
		for {
			if _, err := follow.Next(); err != nil {
				return
			}
		}
	}()
	r.guardLast = make([]uint64, ingestClients)
	return r
}

// scrape reads the sums and counts of the node's histograms from /metrics
// (apitest.MetricSums; empty when unreadable).
func (r *ingest) scrape() map[string]float64 {
	text, err := r.admin.Metrics(context.Background())
	if err != nil {
		return map[string]float64{}
	}
	return apitest.MetricSums(text)
}
