package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	cpebble "github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections/pebble"
)

// bench measures referto against the storage underneath it on this
// machine, in one run: each referto figure beside the raw JetStream or
// Pebble (or SHA-256) figure for the same work, interleaved round by round
// (A B, then B A, …) so that drift in the machine falls on both, with the
// medians and their ratio.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rounds := fs.Int("rounds", 3, "rounds of each pair")
	ingest := fs.Int("ingest", 2000, "commands (and raw publishes) per ingest round")
	clients := fs.Int("clients", 8, "concurrent clients, each on its own tournament")
	nEvents := fs.Int("events", 100_000, "events of the log rebuilt and verified; --scale measures a tenth and a hundredth too")
	scale := fs.Bool("scale", false, "also rebuild and verify logs of a tenth and a hundredth of --events (the scale curve)")
	players := fs.Int("players", 1000, "players of the tournament whose standings are read")
	rate := fs.Int("rate", 1000, "standings requests per second")
	readFor := fs.Duration("read-for", 30*time.Second, "how long to read at --rate")
	short := fs.Bool("short", false, "seconds, not minutes: small sizes, so that CI keeps the benchmarks from rotting (figures meaningless)")
	dir := fs.String("dir", "", "where to keep the generated logs between runs (default: a temporary directory, removed)")
	only := fs.String("only", "ingest,rebuild,verify,reads", "the pairs to run, comma-separated")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the whole run to this file (go tool pprof -sample_index=alloc_space)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *short {
		*rounds, *ingest, *nEvents, *players, *readFor, *rate = 2, 200, 3000, 60, 2*time.Second, 200
	}
	if *rounds < 1 || *ingest < 10 || *clients < 1 || *nEvents < 1000 || *players < 16 || *rate < 1 || *readFor <= 0 {
		fmt.Fprintln(stderr, "bench needs --rounds ≥ 1, --ingest ≥ 10, --clients ≥ 1, --events ≥ 1000, --players ≥ 16, --rate ≥ 1, --read-for > 0")
		return errUsage
	}
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "referto-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	run := map[string]bool{}
	for _, p := range strings.Split(*only, ",") {
		switch p = strings.TrimSpace(p); p {
		case "ingest", "rebuild", "verify", "reads":
			run[p] = true
		default:
			fmt.Fprintf(stderr, "bench: --only: unknown pair %q (ingest, rebuild, verify, reads)\n", p)
			return errUsage
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		defer func() {
			runtime.GC() // the profile counts what was allocated up to the last collection
			f, err := os.Create(*memProfile)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(stderr, "bench: heap profile: %v\n", err)
			}
		}()
	}
	b := &bencher{ctx: ctx, out: stdout, stderr: stderr, rounds: *rounds, work: work}
	fmt.Fprintf(stdout, "referto bench: %d rounds per pair, interleaved; medians\n\n", *rounds)

	if run["ingest"] {
		if err := b.ingest(*ingest, *clients); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
	}
	sizes := []int{*nEvents}
	if *scale {
		sizes = []int{*nEvents / 100, *nEvents / 10, *nEvents}
	}
	for _, n := range sizes {
		if n < 1000 || !run["rebuild"] && !run["verify"] {
			continue
		}
		data, err := b.generated(fmt.Sprintf("log-%d", n), n, 20)
		if err != nil {
			return fmt.Errorf("generate %d events: %w", n, err)
		}
		if run["rebuild"] {
			if err := b.rebuild(data, n); err != nil {
				return fmt.Errorf("rebuild: %w", err)
			}
		}
		if run["verify"] {
			if err := b.verify(data, n); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
		}
	}
	if !run["reads"] {
		b.print()
		return nil
	}
	// About one registration, three check-ins and three quarters of a
	// report per player over three rounds.
	data, err := b.generated(fmt.Sprintf("reads-%d", *players), *players*5+20, 3)
	if err != nil {
		return fmt.Errorf("generate the read tournament: %w", err)
	}
	if err := b.reads(data, *rate, *readFor); err != nil {
		return fmt.Errorf("reads: %w", err)
	}
	b.print()
	return nil
}

// bencher runs the pairs and collects their figures.
type bencher struct {
	ctx    context.Context
	out    io.Writer
	stderr io.Writer
	rounds int
	work   string
	rows   []benchRow
}

// benchRow is one line of the final table.
type benchRow struct {
	what, referto, raw, ratio, target string
}

func (b *bencher) add(r benchRow) {
	b.rows = append(b.rows, r)
	fmt.Fprintf(b.out, "  %s: referto %s, raw %s, ratio %s\n", r.what, r.referto, r.raw, r.ratio)
}

func (b *bencher) print() {
	fmt.Fprintln(b.out)
	w := tabwriter.NewWriter(b.out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "measure\treferto\traw\tratio\ttarget")
	for _, r := range b.rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.what, r.referto, r.raw, r.ratio, r.target)
	}
	w.Flush()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// interleave runs a and b rounds times, alternating which goes first.
func (b *bencher) interleave(a, c func() error) error {
	for i := range b.rounds {
		first, second := a, c
		if i%2 == 1 {
			first, second = c, a
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}
	return nil
}

// load is a closed-loop load of n operations from k clients: the rate and
// the 50th and 99th percentile latencies.
// cpu is the CPU time of the whole process per operation, in µs (0 where
// it cannot be read): with the embedded server, JetStream's share too.
type load struct{ rate, p50, p99, cpu float64 }

func runLoad(n, k int, op func(client, i int) error) (load, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	cpu0, cpuOK := cpuTime()
	start := time.Now()
	for c := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := op(c, i); err != nil {
					failed.Store(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	l, err := finish(lat, time.Since(start), &failed)
	if cpu1, ok := cpuTime(); ok && cpuOK {
		l.cpu = float64((cpu1 - cpu0).Microseconds()) / float64(n)
	}
	return l, err
}

// send does one request of a load, reads the answer through and wants
// status want.
func send(hc *http.Client, req *http.Request, want int) error {
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: status %d, want %d", req.Method, req.URL.Path, res.StatusCode, want)
	}
	return nil
}

// finish is a load's figures, or the error one of its operations failed
// with.
func finish(lat []time.Duration, el time.Duration, failed *atomic.Value) (load, error) {
	if err, _ := failed.Load().(error); err != nil {
		return load{}, err
	}
	return summarize(lat, el), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// summarize is the rate and percentiles of latencies measured over el.
func summarize(lat []time.Duration, el time.Duration) load {
	slices.Sort(lat)
	n := len(lat)
	return load{rate: float64(n) / el.Seconds(), p50: ms(lat[n/2]), p99: ms(lat[n*99/100])}
}

// ingest: RegisterPlayer over HTTP, k clients on k tournaments, fsync per
// write, against raw synchronous publishes of the same stored message size
// to the same embedded server with the same sync policy and concurrency.
func (b *bencher) ingest(n, k int) error {
	fmt.Fprintf(b.out, "durable ingest: %d commands per round, %d clients on %d tournaments, fsync per write\n", n, k, k)
	data, err := os.MkdirTemp(b.work, "ingest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(data)
	node, url, stop, err := b.serve(data)
	if err != nil {
		return err
	}
	defer stop()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: k}}
	tokens := make([]string, k)
	for c := range k {
		t := fmt.Sprintf("bench-%d", c)
		if code, m, err := call(hc, "POST", url+"/v1/tournaments", benchAdmin, fmt.Sprintf(`{"id":%q,"name":"Bench","ruleset":"rtu"}`, t)); err != nil || code != 201 {
			return fmt.Errorf("create %s: %d %v %v", t, code, m, err)
		}
		code, m, err := call(hc, "POST", url+"/v1/tournaments/"+t+"/officials", benchAdmin, `{"name":"A","role":"arbiter"}`)
		if err != nil || code != 201 {
			return fmt.Errorf("appoint: %d %v %v", code, m, err)
		}
		tokens[c], _ = m["token"].(string)
	}
	round := 0
	body := func(c, i int) string {
		return fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d-%d-%d","name":"Mario Rossi %d","club":"Bologna – Asinelli","region":"Emilia-Romagna"}`, round, c, i, i)
	}
	post := func(c, i int) error {
		req, _ := http.NewRequest("POST", fmt.Sprintf("%s/v1/tournaments/bench-%d/commands", url, c), strings.NewReader(body(c, i)))
		req.Header.Set("Authorization", "Bearer "+tokens[c])
		return send(hc, req, http.StatusCreated)
	}
	// The raw message: the stored commit of one such RegisterPlayer.
	envs, err := events.Seal("bench-0", 1000, time.Now(), events.Actor{ID: "o1", Role: "arbiter"}, "0123456789abcdef0123456789abcdef",
		[]events.Event{events.PlayerRegistered{Player: "p0-1-1000", Name: "Mario Rossi 1000", Club: "Bologna – Asinelli", Region: "Emilia-Romagna"}})
	if err != nil {
		return err
	}
	msg, _ := events.EncodeCommit(envs)
	js, err := natsjs.New(node.Conn)
	if err != nil {
		return err
	}
	if _, err := js.CreateStream(b.ctx, natsjs.StreamConfig{Name: "RAWBENCH", Subjects: []string{"rawbench.>"}, Storage: natsjs.FileStorage}); err != nil {
		return err
	}
	// The second baseline: JetStream doing what the ledger needs of it
	// (the message id of each command, the expected last sequence of its
	// tournament's subject, a consumer following the stream as the
	// projections do), without any of referto's own code.
	// The third: the same with group commit, through JetStream's atomic
	// batch publish, the one way JetStream has to store several messages
	// under one fsync (groupCommit).
	for _, name := range []string{"RAWGUARD", "RAWBATCH"} {
		if _, err := js.CreateStream(b.ctx, natsjs.StreamConfig{Name: name, Subjects: []string{strings.ToLower(name) + ".>"}, Storage: natsjs.FileStorage,
			DenyDelete: true, DenyPurge: true, Duplicates: 2 * time.Minute, AllowAtomicPublish: name == "RAWBATCH"}); err != nil {
			return err
		}
		follower, err := js.OrderedConsumer(b.ctx, name, natsjs.OrderedConsumerConfig{})
		if err != nil {
			return err
		}
		follow, err := follower.Messages(natsjs.PullMaxMessages(1024))
		if err != nil {
			return err
		}
		defer follow.Stop()
		go func() {
			for {
				if _, err := follow.Next(); err != nil {
					return
				}
			}
		}()
	}
	gc := newGroupCommit(b.ctx, node.Conn, js)
	defer gc.stop()
	guardLast := make([]uint64, k) // per client: the last stream sequence of its subject
	batchLast := make([]uint64, k)
	guardRound := 0
	var ref, raw, guard, grouped []load
	var perPublish []float64 // messages per publish (single ones included), per round
	err = b.interleave(func() error {
		round++
		before := scrape(hc, url)
		l, err := runLoad(n, k, post)
		ref = append(ref, l)
		after := scrape(hc, url)
		mean := func(name string) float64 {
			c := after[name+"_count"] - before[name+"_count"]
			if c == 0 {
				return 0
			}
			return 1000 * (after[name+"_sum"] - before[name+"_sum"]) / c
		}
		fmt.Fprintf(b.out, "  referto round %d: %.0f/s; mean command %.2f ms, of which JetStream append %.2f ms; CPU %.0f µs per command\n", round, l.rate,
			mean("referto_command_duration_seconds"), mean("referto_jetstream_append_duration_seconds"), l.cpu)
		return err
	}, func() error {
		l, err := runLoad(n, k, func(c, i int) error {
			_, err := js.PublishMsg(b.ctx, &nats.Msg{Subject: fmt.Sprintf("rawbench.%d", c), Data: msg})
			return err
		})
		raw = append(raw, l)
		if err != nil {
			return err
		}
		guardRound++
		l, err = runLoad(n, k, func(c, i int) error {
			a, err := js.PublishMsg(b.ctx, &nats.Msg{Subject: fmt.Sprintf("rawguard.%d", c), Data: msg},
				natsjs.WithMsgID(fmt.Sprintf("%d-%d", guardRound, i)), natsjs.WithExpectLastSequencePerSubject(guardLast[c]))
			if err == nil {
				guardLast[c] = a.Sequence
			}
			return err
		})
		guard = append(guard, l)
		if err != nil {
			return err
		}
		batches, msgs := gc.batches.Load(), gc.msgs.Load()
		l, err = runLoad(n, k, func(c, i int) error {
			m := &nats.Msg{Subject: fmt.Sprintf("rawbatch.%d", c), Data: msg, Header: nats.Header{}}
			m.Header.Set(natsjs.MsgIDHeader, fmt.Sprintf("%d-%d", guardRound, i))
			m.Header.Set(natsjs.ExpectedLastSubjSeqHeader, strconv.FormatUint(batchLast[c], 10))
			seq, err := gc.append(m)
			if err == nil {
				batchLast[c] = seq
			}
			return err
		})
		grouped = append(grouped, l)
		perPublish = append(perPublish, float64(gc.msgs.Load()-msgs)/float64(max(1, gc.batches.Load()-batches)))
		fmt.Fprintf(b.out, "  raw round %d: %.0f/s, CPU %.0f µs per publish; with the ledger's guarantees %.0f/s, %.0f µs; by atomic batch %.0f/s, %.0f µs, %.1f messages per publish\n",
			guardRound, raw[len(raw)-1].rate, raw[len(raw)-1].cpu, guard[len(guard)-1].rate, guard[len(guard)-1].cpu, l.rate, l.cpu, perPublish[len(perPublish)-1])
		return err
	})
	if err != nil {
		return err
	}
	pick := func(ls []load, f func(load) float64) float64 {
		var xs []float64
		for _, l := range ls {
			xs = append(xs, f(l))
		}
		return median(xs)
	}
	rr, rw := pick(ref, func(l load) float64 { return l.rate }), pick(raw, func(l load) float64 { return l.rate })
	p99r, p99w := pick(ref, func(l load) float64 { return l.p99 }), pick(raw, func(l load) float64 { return l.p99 })
	b.add(benchRow{what: "durable ingest, commands/s", referto: fmt.Sprintf("%.0f/s", rr), raw: fmt.Sprintf("%.0f/s", rw),
		ratio: fmt.Sprintf("%.2f", rr/rw), target: "≥ 0.80"})
	b.add(benchRow{what: "durable ingest, p50", referto: fmt.Sprintf("%.2f ms", pick(ref, func(l load) float64 { return l.p50 })),
		raw: fmt.Sprintf("%.2f ms", pick(raw, func(l load) float64 { return l.p50 })), ratio: "", target: ""})
	b.add(benchRow{what: "durable ingest, p99", referto: fmt.Sprintf("%.2f ms", p99r), raw: fmt.Sprintf("%.2f ms", p99w),
		ratio: fmt.Sprintf("%+.2f ms", p99r-p99w), target: "≤ raw + 1 ms"})
	rg, p99g := pick(guard, func(l load) float64 { return l.rate }), pick(guard, func(l load) float64 { return l.p99 })
	b.add(benchRow{what: "  against JetStream with the ledger's guarantees", referto: fmt.Sprintf("%.0f/s, p99 %.2f ms", rr, p99r),
		raw: fmt.Sprintf("%.0f/s, p99 %.2f ms (%.2f of raw)", rg, p99g, rg/rw), ratio: fmt.Sprintf("%.2f, %+.2f ms", rr/rg, p99r-p99g), target: "(no target)"})
	rb, p99b := pick(grouped, func(l load) float64 { return l.rate }), pick(grouped, func(l load) float64 { return l.p99 })
	b.add(benchRow{what: "  the same guarantees, group commit by atomic batch", referto: fmt.Sprintf("%.0f/s, p99 %.2f ms", rr, p99r),
		raw: fmt.Sprintf("%.0f/s, p99 %.2f ms (%.2f of raw), %.1f messages per publish", rb, p99b, rb/rw, median(perPublish)), ratio: fmt.Sprintf("%.2f, %+.2f ms", rr/rb, p99r-p99b), target: "(no target)"})
	if cr, cw := pick(ref, func(l load) float64 { return l.cpu }), pick(raw, func(l load) float64 { return l.cpu }); cr > 0 && cw > 0 {
		b.add(benchRow{what: "  CPU per command (raw: per plain publish), whole bench process", referto: fmt.Sprintf("%.0f µs", cr), raw: fmt.Sprintf("%.0f µs", cw),
			ratio: fmt.Sprintf("%.1f×", cr/cw), target: "(no target)"})
	}
	return nil
}

// groupCommit appends messages with group commit: the appends that arrive
// while one batch is being stored go together in the next, as one atomic
// batch (ADR-50); a lone message is published as usual. It is the baseline
// for what group commit would give the ledger, which appends one message
// at a time, and it measures throughput only: one refused message (a
// duplicate id, a wrong expected sequence) fails its whole batch, where the
// ledger would need each command's own answer.
//
// nats-server 2.15.2 commits a batch to a single server's stream with one
// fsync (stream.go, coalesceSync), but first stages it in a file store
// made for that batch (jetstream_batching.go, newBatchStore): two
// synchronous metadata writes, each with a directory fsync, and an fsync
// of the staged messages. At 8 clients, about 4 messages per batch, that
// costs more than the fsyncs the batch saves.
//
// No append may come during or after stop.
type groupCommit struct {
	ctx           context.Context
	nc            *nats.Conn
	js            natsjs.JetStream
	queue         chan *groupedMsg
	done          chan struct{}
	prefix        string // of this committer's batch ids
	batches, msgs atomic.Int64
}

type groupedMsg struct {
	m      *nats.Msg
	seq    uint64
	err    error
	stored chan struct{}
}

func newGroupCommit(ctx context.Context, nc *nats.Conn, js natsjs.JetStream) *groupCommit {
	// Batch ids are unique among the batches a stream has open, whatever
	// else publishes to it.
	g := &groupCommit{ctx: ctx, nc: nc, js: js, queue: make(chan *groupedMsg, 1024), done: make(chan struct{}),
		prefix: strconv.FormatInt(time.Now().UnixNano(), 36) + "-"}
	go g.run()
	return g
}

func (g *groupCommit) stop() { close(g.queue); <-g.done }

// append stores m and returns its stream sequence.
func (g *groupCommit) append(m *nats.Msg) (uint64, error) {
	x := &groupedMsg{m: m, stored: make(chan struct{})}
	g.queue <- x
	<-x.stored
	return x.seq, x.err
}

// maxGroup is a batch's most messages (JetStream allows 1,000).
const maxGroup = 64

func (g *groupCommit) run() {
	defer close(g.done)
	group := make([]*groupedMsg, 0, maxGroup)
	for x := range g.queue {
		group = append(group[:0], x)
	more:
		for len(group) < maxGroup {
			select {
			case y, ok := <-g.queue:
				if !ok {
					break more
				}
				group = append(group, y)
			default:
				break more
			}
		}
		g.store(group)
		for _, y := range group {
			close(y.stored)
		}
	}
}

// store publishes a group and sets each message's sequence, or the error
// that failed them all.
func (g *groupCommit) store(group []*groupedMsg) {
	g.batches.Add(1)
	g.msgs.Add(int64(len(group)))
	if len(group) == 1 {
		ack, err := g.js.PublishMsg(g.ctx, group[0].m)
		if err == nil {
			group[0].seq = ack.Sequence
		}
		group[0].err = err
		return
	}
	id := g.prefix + strconv.FormatInt(g.batches.Load(), 10)
	var reply *nats.Msg
	var err error
	for i, x := range group {
		x.m.Header.Set("Nats-Batch-Id", id)
		x.m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		if i < len(group)-1 {
			if err = g.nc.PublishMsg(x.m); err != nil {
				break
			}
			continue
		}
		x.m.Header.Set("Nats-Batch-Commit", "1")
		// The server does not answer a commit whose write failed.
		ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
		reply, err = g.nc.RequestMsgWithContext(ctx, x.m)
		cancel()
	}
	var ack struct {
		Seq   uint64           `json:"seq"`
		Count int              `json:"count"`
		Error *natsjs.APIError `json:"error"`
	}
	switch {
	case err != nil:
	case json.Unmarshal(reply.Data, &ack) != nil:
		err = fmt.Errorf("batch %s: bad ack %q", id, reply.Data)
	case ack.Error != nil:
		err = fmt.Errorf("batch %s: %w", id, ack.Error)
	case ack.Count != len(group) || ack.Seq < uint64(len(group)):
		err = fmt.Errorf("batch %s of %d: ack %q", id, len(group), reply.Data)
	}
	for i, x := range group {
		if x.err = err; err == nil {
			x.seq = ack.Seq - uint64(len(group)-1-i)
		}
	}
}

// scrape reads the sums and counts of the node's histograms from /metrics,
// summed over their labels (empty when unreadable).
func scrape(hc *http.Client, url string) map[string]float64 {
	out := map[string]float64{}
	res, err := hc.Get(url + "/metrics")
	if err != nil {
		return out
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		name, _, _ = strings.Cut(name, "{")
		if !strings.HasSuffix(name, "_sum") && !strings.HasSuffix(name, "_count") {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(rest, &v); err == nil {
			out[name] += v
		}
	}
	return out
}

// benchAdmin is the administrator token of the nodes bench starts.
const benchAdmin = "bench-admin"

// serve starts a node on data, waits until it is ready and serves it on
// 127.0.0.1 until stop.
func (b *bencher) serve(data string) (*ledger.Node, string, func(), error) {
	node, handler, err := startNode(b.ctx, ledger.NodeOptions{Data: data, Logger: slog.New(slog.DiscardHandler)}, api.TokenHash(benchAdmin))
	if err != nil {
		return nil, "", nil, err
	}
	if err := node.Runner.WaitReady(b.ctx); err != nil {
		node.Close()
		return nil, "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		node.Close()
		return nil, "", nil, err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return node, "http://" + l.Addr().String(), func() { _ = srv.Close(); node.Close() }, nil
}

// generated returns a data directory holding a generated tournament "bench"
// of about n events over the given rounds, generating it once per --dir
// (name.done beside it says it is whole).
func (b *bencher) generated(name string, n, rounds int) (string, error) {
	data, done := filepath.Join(b.work, name), filepath.Join(b.work, name+".done")
	if _, err := os.Stat(done); err == nil {
		return data, nil
	}
	_ = os.RemoveAll(data)
	fmt.Fprintf(b.out, "generating %s (about %d events)…\n", name, n)
	if err := generate(b.ctx, []string{"--data", data, "--events", fmt.Sprint(n), "--rounds", fmt.Sprint(rounds)}, io.Discard, b.stderr); err != nil {
		return "", err
	}
	return data, os.WriteFile(done, nil, 0o600)
}

// rebuild: the projections of the whole log rebuilt into an empty store,
// against a raw pipeline reading the same stream with an ordered consumer
// and writing one Pebble batch per 1,000 messages.
func (b *bencher) rebuild(data string, n int) error {
	fmt.Fprintf(b.out, "rebuild: %d events\n", n)
	lg, closeAll, err := openData(b.ctx, data)
	if err != nil {
		return err
	}
	defer closeAll()
	last, err := lg.LastSeq(b.ctx)
	if err != nil {
		return err
	}
	var ref, raw []float64
	i := 0
	err = b.interleave(func() error {
		i++
		dir := filepath.Join(b.work, fmt.Sprintf("rebuild-%d-%d", n, i))
		// Into an empty store: one left by an interrupted run would
		// already hold the views.
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		st, err := pebble.Open(dir, nil)
		if err != nil {
			return err
		}
		defer st.Close()
		start := time.Now()
		r := pebble.NewRunner(lg, st, pebble.RunnerOptions{})
		rctx, cancel := context.WithCancel(b.ctx)
		done := make(chan error, 1)
		go func() { done <- r.Run(rctx) }()
		werr := r.WaitFor(b.ctx, last)
		el := time.Since(start)
		cancel()
		<-done // the runner returns once the snapshot taken on catching up is written
		whole := time.Since(start)
		if werr != nil {
			return werr
		}
		m := st.Metrics()
		tot := m.Total()
		fmt.Fprintf(b.out, "  referto: views %.1f s, with the closing snapshot %.1f s; Pebble: %d MB into the WAL, %d MB flushed, %d MB compacted\n",
			el.Seconds(), whole.Seconds(), m.WAL.BytesIn>>20, tot.TableBytesFlushed>>20, tot.TableBytesCompacted>>20)
		ref = append(ref, float64(n)/el.Seconds())
		return nil
	}, func() error {
		i++
		dir := filepath.Join(b.work, fmt.Sprintf("raw-%d-%d", n, i))
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db, err := cpebble.Open(dir, &cpebble.Options{Logger: quietPebble{}})
		if err != nil {
			return err
		}
		defer db.Close()
		start := time.Now()
		batch := db.NewBatch()
		key := make([]byte, 8)
		err = lg.Scan(b.ctx, 1, last, "", func(m jetstream.Msg) error {
			for j := range key {
				key[j] = byte(m.StreamSeq >> (56 - 8*j))
			}
			if err := batch.Set(key, m.Data, nil); err != nil {
				return err
			}
			if m.StreamSeq%1000 == 0 {
				if err := batch.Commit(cpebble.NoSync); err != nil {
					return err
				}
				batch = db.NewBatch()
			}
			return nil
		})
		if err == nil {
			err = batch.Commit(cpebble.NoSync)
		}
		if err != nil {
			return err
		}
		raw = append(raw, float64(n)/time.Since(start).Seconds())
		return nil
	})
	if err != nil {
		return err
	}
	mr, mw := median(ref), median(raw)
	b.add(benchRow{what: fmt.Sprintf("rebuild %d events, events/s", n), referto: fmt.Sprintf("%.0f/s (%.1f s)", mr, float64(n)/mr),
		raw: fmt.Sprintf("%.0f/s (%.1f s)", mw, float64(n)/mw), ratio: fmt.Sprintf("%.2f", mr/mw), target: "≥ 0.50"})
	return nil
}

// verify: referto verify of the exported log (Merkle root, signature,
// re-derivation) against a raw SHA-256 over the same bytes.
func (b *bencher) verify(data string, n int) error {
	fmt.Fprintf(b.out, "verify: %d events\n", n)
	logPath := filepath.Join(b.work, fmt.Sprintf("verify-%d.ndjson", n))
	if _, err := os.Stat(logPath); err != nil {
		if err := export(b.ctx, []string{"--data", data, "--tournament", "bench", "--out", logPath}, func(string) string { return "" }, io.Discard, io.Discard); err != nil {
			return err
		}
	}
	info, err := os.Stat(logPath)
	if err != nil {
		return err
	}
	mb := float64(info.Size()) / (1 << 20)
	key := ledger.Layout{Dir: data}.CheckpointPub()
	var ref, raw []float64
	err = b.interleave(func() error {
		start := time.Now()
		var out strings.Builder
		if err := verifyCmd(b.ctx, []string{"--log", logPath, "--key", key}, &out, io.Discard); err != nil {
			return fmt.Errorf("%w\n%s", err, out.String())
		}
		ref = append(ref, time.Since(start).Seconds())
		return nil
	}, func() error {
		start := time.Now()
		f, err := os.Open(logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, bufio.NewReaderSize(f, 1<<20)); err != nil {
			return err
		}
		raw = append(raw, time.Since(start).Seconds())
		return nil
	})
	if err != nil {
		return err
	}
	mr, mw := median(ref), median(raw)
	b.add(benchRow{what: fmt.Sprintf("verify %d events (%.0f MB)", n, mb), referto: fmt.Sprintf("%.2f s, %.0f MB/s", mr, mb/mr),
		raw: fmt.Sprintf("sha256 %.2f s, %.0f MB/s", mw, mb/mw), ratio: fmt.Sprintf("%.3f", mw/mr), target: "≤ 5 s at 1M"})
	return nil
}

// verifyCmd is the verify subcommand, as the CLI runs it.
var verifyCmd = verify

// reads: GET standings of a tournament at a fixed rate (open loop: a
// request is sent on schedule whether or not the previous one answered),
// against raw Pebble reads of the same stored standings at the same rate.
func (b *bencher) reads(data string, rate int, d time.Duration) error {
	node, url, stop, err := b.serve(data)
	if err != nil {
		return err
	}
	defer stop()
	var sz struct {
		Rows []json.RawMessage `json:"rows"`
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}
	res, err := hc.Get(url + "/v1/tournaments/bench/standings")
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	_ = json.Unmarshal(body, &sz)
	fmt.Fprintf(b.out, "reads: standings of %d players (%d KB), %d req/s for %v\n", len(sz.Rows), len(body)>>10, rate, d)
	get := func() error {
		req, _ := http.NewRequest("GET", url+"/v1/tournaments/bench/standings", nil)
		return send(hc, req, http.StatusOK)
	}
	rawGet := func() error {
		_, ok, err := node.Store.Standings("bench")
		if err == nil && !ok {
			err = errors.New("no stored standings")
		}
		return err
	}
	var ref, raw []load
	if err := b.interleave(func() error {
		l, err := openLoop(rate, d/time.Duration(b.rounds), get)
		ref = append(ref, l)
		return err
	}, func() error {
		l, err := openLoop(rate, d/time.Duration(b.rounds), rawGet)
		raw = append(raw, l)
		return err
	}); err != nil {
		return err
	}
	pick := func(ls []load, f func(load) float64) float64 {
		var xs []float64
		for _, l := range ls {
			xs = append(xs, f(l))
		}
		return median(xs)
	}
	b.add(benchRow{what: fmt.Sprintf("standings reads at %d/s, p50", rate), referto: fmt.Sprintf("%.2f ms", pick(ref, func(l load) float64 { return l.p50 })),
		raw: fmt.Sprintf("%.3f ms", pick(raw, func(l load) float64 { return l.p50 })), ratio: "", target: ""})
	b.add(benchRow{what: fmt.Sprintf("standings reads at %d/s, p99", rate), referto: fmt.Sprintf("%.2f ms", pick(ref, func(l load) float64 { return l.p99 })),
		raw: fmt.Sprintf("%.3f ms", pick(raw, func(l load) float64 { return l.p99 })), ratio: "", target: "≤ 5 ms"})
	return nil
}

// openLoop sends op at rate per second for d, each on its own goroutine
// (at most 1,024 in flight), and returns the achieved rate and latencies.
func openLoop(rate int, d time.Duration, op func() error) (load, error) {
	n := int(d.Seconds() * float64(rate))
	if n < 1 {
		n = 1
	}
	lat := make([]time.Duration, n)
	sem := make(chan struct{}, 1024)
	var wg sync.WaitGroup
	var failed atomic.Value
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// Latency from when the request was due, so a stalled
			// server cannot hide its queue (coordinated omission).
			due := start.Add(time.Duration(i) * interval)
			if err := op(); err != nil {
				failed.Store(err)
			}
			lat[i] = time.Since(due)
		}()
	}
	wg.Wait()
	return finish(lat, time.Since(start), &failed)
}

// quietPebble keeps the raw pipeline's Pebble from printing its progress.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any)              {}
func (quietPebble) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (quietPebble) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
