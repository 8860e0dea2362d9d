package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/sim"
)

// BenchmarkEventDay is a Raduno's Saturday morning in a hall: 140 players,
// round 1 drawn at 35 tables, N live pages open on phones and screens while
// 4 arbiters record the 35 table reports. Each page behaves as the pages'
// own live.js does: it follows GET /v1/tournaments/{t}/stream and, on each
// new seq, reads itself again with X-Live: 1 (one read at a time, the
// latest seq after it); a stream that ends is opened again after the retry
// it said, and a refused one (an error status) after a pause that doubles
// each time, with a read of the page meanwhile. The pages are, in this order, 2 venue
// screens, the players' own pages (up to 140) and spectators on the
// standings and the round's tables, half each. Each arbiter records its
// reports one after the other, eventDayPause apart.
//
// Reported per run (the whole stack in this process: embedded NATS,
// Pebble, HTTP on 127.0.0.1, and the load generator):
//
//   - cmd-p50-ms, cmd-p99-ms: an arbiter's RecordResult, sent to answered;
//   - cmd-failed: reports not accepted (the ledger answered otherwise);
//   - shown-p50-ms, shown-p99-ms, shown-max-ms: from a result's answer to
//     the arbiter until a page's read of itself shows its seq or a later
//     one, over every result on every page;
//   - missed: results some page had not shown 30 s after the last answer;
//   - refused: pages whose stream was refused at least once;
//   - reads/op: the pages' reads of themselves;
//   - cpu-s/op: the CPU time the process (server and load generator)
//     spent on the run, which the machine's load does not inflate;
//   - peak-heap-MB, peak-rss-MB: the most the process's live heap and
//     resident memory held during the run (sampled every 20 ms).
//
// Run it with:
//
//	go test -run '^$' -bench EventDay -benchtime 1x -timeout 30m ./api/
func BenchmarkEventDay(b *testing.B) {
	if testing.Short() {
		b.Skip("a Raduno's round with hundreds of live pages over the real stack: seconds per run")
	}
	for _, pages := range []int{0, 100, 256, 400} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			var all eventDayFigures
			for i := range b.N {
				b.StopTimer()
				d := newEventDay(b, uint64(i))
				b.StartTimer()
				all.add(d.run(pages))
				b.StopTimer()
				d.s.stop()
			}
			all.report(b)
		})
	}
}

// eventDayPause is how long an arbiter takes between two reports.
const eventDayPause = 500 * time.Millisecond

// eventDay is a drawn Raduno round on a running stack, with the tokens its
// pages and arbiters use.
type eventDay struct {
	b        *testing.B
	s        *stack
	tour     string
	arbiters []string
	players  []playerLink // the players' personal tokens
	reports  []commands.RecordResult
}

type playerLink struct {
	Player string `json:"player"`
	Token  string `json:"token"`
}

func newEventDay(b *testing.B, seed uint64) *eventDay {
	b.Helper()
	s := &stack{t: b, dir: b.TempDir()}
	s.start()
	d := &eventDay{b: b, s: s, tour: "raduno"}
	arb := benchCreateRuleset(b, s, d.tour, "rur-2015")
	d.arbiters = []string{arb, s.appoint(d.tour, "arbiter"), s.appoint(d.tour, "arbiter"), s.appoint(d.tour, "arbiter")}
	cmds := "/v1/tournaments/" + d.tour + "/commands"
	for i := 1; i <= 140; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%03d","name":"Giocatore %d","club":"Club %d","region":"R%d"}`, i, i, i%23, i%7))
	}
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	s.must(201, "POST", cmds, arb, `{"type":"DrawTables","round":1,"seed":"raduno-1"}`)
	var tokens struct {
		Tokens []playerLink `json:"tokens"`
	}
	if err := json.Unmarshal(s.must(201, "POST", "/v1/tournaments/"+d.tour+"/player-tokens", arb, `{}`).body, &tokens); err != nil {
		b.Fatal(err)
	}
	d.players = tokens.Tokens
	if len(d.players) != 140 {
		b.Fatalf("%d personal links, want 140", len(d.players))
	}
	sm, err := sim.New(sim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 140))
	seats := s.tableSeats(d.tour, 1)
	for n := 1; n <= len(seats); n++ {
		rep := sm.Report(rng, 1, n, seats[n])
		var players []string
		for _, p := range rep.Players {
			players = append(players, p.Player)
		}
		rep.Rolls = sim.Rolls(rng, players) // a tie the chain cannot break asks for them
		d.reports = append(d.reports, rep)
	}
	if len(d.reports) != 35 {
		b.Fatalf("%d tables, want 35", len(d.reports))
	}
	return d
}

// eventDayFigures are one or more runs' measurements.
type eventDayFigures struct {
	commands, shown   []time.Duration
	missed, refused   int
	failed, reads     int
	peakHeap, peakRSS uint64
	cpu               time.Duration
	runs              int
}

func (f *eventDayFigures) add(g eventDayFigures) {
	f.commands = append(f.commands, g.commands...)
	f.shown = append(f.shown, g.shown...)
	f.missed += g.missed
	f.refused += g.refused
	f.failed += g.failed
	f.reads += g.reads
	f.peakHeap, f.peakRSS = max(f.peakHeap, g.peakHeap), max(f.peakRSS, g.peakRSS)
	f.cpu += g.cpu
	f.runs++
}

func (f *eventDayFigures) report(b *testing.B) {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(quantile(f.commands, 0.50)), "cmd-p50-ms")
	b.ReportMetric(ms(quantile(f.commands, 0.99)), "cmd-p99-ms")
	if len(f.shown) > 0 {
		b.ReportMetric(ms(quantile(f.shown, 0.50)), "shown-p50-ms")
		b.ReportMetric(ms(quantile(f.shown, 0.99)), "shown-p99-ms")
		b.ReportMetric(ms(quantile(f.shown, 1)), "shown-max-ms")
	}
	b.ReportMetric(float64(f.missed)/float64(f.runs), "missed")
	b.ReportMetric(float64(f.refused)/float64(f.runs), "refused")
	b.ReportMetric(float64(f.failed)/float64(f.runs), "cmd-failed")
	b.ReportMetric(float64(f.reads)/float64(f.runs), "reads/op")
	b.ReportMetric(float64(f.cpu)/float64(time.Second)/float64(f.runs), "cpu-s/op")
	b.ReportMetric(float64(f.peakHeap)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(f.peakRSS)/(1<<20), "peak-rss-MB")
	b.ReportMetric(0, "ns/op") // a run's wall time is the arbiters' pace, not a figure
}

// quantile is the q-quantile of ds (nearest rank); 0 when there are none.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// livePage is one open page: what its reads of itself showed, and when.
type livePage struct {
	path, token string
	mu          sync.Mutex
	shown       []shownAt
	refused     bool
	reads       int
}

type shownAt struct {
	seq uint64
	at  time.Time
}

// acked is a result the ledger answered: its seq and when.
type acked struct {
	seq uint64
	at  time.Time
}

func (d *eventDay) run(n int) eventDayFigures {
	b, base := d.b, d.s.srv.URL
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * (n + 8), IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	cpu0 := processCPU()
	sampled := make(chan [2]uint64, 1)
	stopSampling := make(chan struct{})
	go sampleMemory(stopSampling, sampled)

	pages := make([]*livePage, n)
	t := "/ui/t/" + d.tour
	for i := range pages {
		switch {
		case i < 2:
			pages[i] = &livePage{path: t + "/screen"}
		case i < 2+len(d.players):
			pages[i] = &livePage{path: t + "/me", token: d.players[i-2].Token}
		case i%2 == 0:
			pages[i] = &livePage{path: t + "/standings"}
		default:
			pages[i] = &livePage{path: t + "/rounds/1"}
		}
	}
	var wg sync.WaitGroup
	for _, p := range pages {
		wg.Go(func() { p.follow(ctx, client, base, "/v1/tournaments/"+d.tour+"/stream") })
	}

	var mu sync.Mutex
	var results []acked
	var cmdTimes []time.Duration
	failed := 0
	var arbiters sync.WaitGroup
	for a, token := range d.arbiters {
		arbiters.Go(func() {
			for i := a; i < len(d.reports); i += len(d.arbiters) {
				body, _ := json.Marshal(struct {
					Type string `json:"type"`
					commands.RecordResult
				}{"RecordResult", d.reports[i]})
				start := time.Now()
				status, answer := post(client, base+"/v1/tournaments/"+d.tour+"/commands", token, body)
				took := time.Since(start)
				var out struct {
					Seq uint64 `json:"seq"`
				}
				_ = json.Unmarshal(answer, &out)
				mu.Lock()
				cmdTimes = append(cmdTimes, took)
				if status == http.StatusCreated {
					results = append(results, acked{seq: out.Seq, at: time.Now()})
				} else {
					failed++
					b.Logf("table %d: %d %s", d.reports[i].Table, status, answer)
				}
				mu.Unlock()
				time.Sleep(eventDayPause)
			}
		})
	}
	arbiters.Wait()
	var last uint64
	for _, r := range results {
		last = max(last, r.seq)
	}
	// Every page shows the last result, or 30 s have passed.
	deadline := time.Now().Add(30 * time.Second)
	for n > 0 && time.Now().Before(deadline) && slices.ContainsFunc(pages, func(p *livePage) bool { return p.last() < last }) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	close(stopSampling)
	mem := <-sampled

	f := eventDayFigures{commands: cmdTimes, failed: failed, peakHeap: mem[0], peakRSS: mem[1], cpu: processCPU() - cpu0}
	for _, p := range pages {
		p.mu.Lock()
		if p.refused {
			f.refused++
		}
		f.reads += p.reads
		for _, r := range results {
			i := slices.IndexFunc(p.shown, func(s shownAt) bool { return s.seq >= r.seq })
			if i < 0 {
				f.missed++
				continue
			}
			f.shown = append(f.shown, max(p.shown[i].at.Sub(r.at), 0))
		}
		p.mu.Unlock()
	}
	return f
}

func (p *livePage) last() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.shown) == 0 {
		return 0
	}
	return p.shown[len(p.shown)-1].seq
}

// follow is live.js: the stream, and a read of the page on each new seq.
func (p *livePage) follow(ctx context.Context, client *http.Client, base, stream string) {
	kick := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
				p.read(ctx, client, base)
			}
		}
	}()
	defer func() { <-done }()
	refresh := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	backoff := 2 * time.Second
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+stream, nil)
		req.Header.Set("Accept", "text/event-stream")
		res, err := client.Do(req)
		if err == nil && res.StatusCode != http.StatusOK {
			res.Body.Close()
			p.mu.Lock()
			p.refused = true
			p.mu.Unlock()
			refresh()
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 30*time.Second)
			continue
		}
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
			continue
		}
		backoff = 2 * time.Second
		var seen string
		retry := 3 * time.Second // an EventSource's own, until the server says
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "data: "); ok && v != seen {
				seen = v
				refresh()
			}
			if v, ok := strings.CutPrefix(line, "retry: "); ok {
				if ms, err := strconv.Atoi(v); err == nil {
					retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
		res.Body.Close()
		select {
		case <-ctx.Done():
		case <-time.After(retry):
		}
	}
}

// read reads the page again as live.js does and notes the seq it shows.
func (p *livePage) read(ctx context.Context, client *http.Client, base string) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+p.path, nil)
	req.Header.Set("X-Live", "1")
	if p.token != "" {
		req.AddCookie(&http.Cookie{Name: "referto_token", Value: p.token})
	}
	res, err := client.Do(req)
	if err != nil {
		return
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	at := time.Now()
	if err != nil || res.StatusCode != http.StatusOK {
		return
	}
	_, rest, ok := bytes.Cut(body, []byte(`data-seq="`))
	if !ok {
		return
	}
	end := bytes.IndexByte(rest, '"')
	seq, err := strconv.ParseUint(string(rest[:max(end, 0)]), 10, 64)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.reads++
	if len(p.shown) == 0 || seq > p.shown[len(p.shown)-1].seq {
		p.shown = append(p.shown, shownAt{seq: seq, at: at})
	}
	p.mu.Unlock()
}

func post(client *http.Client, url, token string, body []byte) (int, []byte) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// sampleMemory sends, once stop is closed, the most the live heap and the
// process's resident memory held while it ran.
func sampleMemory(stop <-chan struct{}, out chan<- [2]uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var heap, rss uint64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(sample)
		heap = max(heap, sample[0].Value.Uint64())
		rss = max(rss, residentBytes())
		select {
		case <-stop:
			out <- [2]uint64{heap, rss}
			return
		case <-tick.C:
		}
	}
}

// processCPU is the CPU time the process has spent, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// residentBytes is the process's resident memory (Linux), 0 elsewhere.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}
