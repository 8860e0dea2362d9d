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
	"os/exec"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/projections"
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
// The server is the whole stack in this process (embedded NATS, Pebble,
// HTTP on 127.0.0.1); the pages run in a process of their own (see
// TestEventDayPages), as phones do, and so do the arbiters
// (TestEventDayCommands), as their browsers do. Reported per run:
//
//   - cmd-p50-ms, cmd-p99-ms: an arbiter's RecordResult, sent to answered;
//   - cmd-failed: reports not accepted (the ledger answered otherwise);
//   - shown-p50-ms, shown-p99-ms, shown-max-ms: from a result's answer to
//     the arbiter until a page's read of itself shows its seq or a later
//     one, over every result on every page; sent-shown-p50-ms and
//     sent-shown-p99-ms count from when the result was sent instead (an
//     answer that comes sooner does not make a page show it sooner);
//   - missed: results some page had not shown 30 s after the last answer;
//   - refused: pages whose stream was refused at least once;
//   - reads/op: the pages' reads of themselves;
//   - cpu-s/op: the CPU time the server's process spent on the run,
//     which the machine's load does not inflate; pages-cpu-s/op and
//     arbiters-cpu-s/op, the pages' and the arbiters' processes', which
//     share the machine's cores with it;
//   - lock_wait-ms, append-ms, record-ms: the server's own means, from
//     /metrics, of a command's wait for its tournament's lock, its
//     JetStream append and the record of its head, which the pages must
//     leave at their 0-page figures;
//   - peak-heap-MB, peak-rss-MB: the most the server process's live heap
//     and resident memory held during the run (sampled every 20 ms).
//
// Run it with:
//
//	go test -run '^$' -bench EventDay -benchtime 1x -timeout 30m ./api/
func BenchmarkEventDay(b *testing.B) {
	benchmarkEventDay(b, false, 0, 100, 256, 400)
}

// BenchmarkEventDaySelfReport is BenchmarkEventDay in a hall where the
// tables report themselves (self_report: confirmed): at each table one
// player proposes the report from his phone and the three others confirm
// it, the last confirmation recording it, 140 commands in all. The
// players' commands are sent by 4 lanes of tables, eventDayPause apart, at
// the arbiters' pace; each is a player's own link. Most of them change one
// table's players' pages and nobody's standings. Reported as
// BenchmarkEventDay reports, with cmd-* over every player's command,
// shown-* over every command accepted (a proposal and a confirmation are
// shown on the pages too, at their own table's phones first), and
// players-cpu-s/op for the process that sends them. A run whose tables do
// not all end with their result recorded fails.
//
//	go test -run '^$' -bench EventDaySelfReport -benchtime 1x -timeout 30m ./api/
func BenchmarkEventDaySelfReport(b *testing.B) {
	benchmarkEventDay(b, true, 0, 400)
}

func benchmarkEventDay(b *testing.B, self bool, pages ...int) {
	if testing.Short() {
		b.Skip("a Raduno's round with hundreds of live pages over the real stack: seconds per run")
	}
	for _, pages := range pages {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			var all eventDayFigures
			for i := range b.N {
				b.StopTimer()
				d := newEventDay(b, uint64(i), self)
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
	self     bool // the tables report themselves, the players from their phones
	arbiters []string
	players  []playerLink // the players' personal tokens
	reports  []commands.RecordResult
	seats    [][]string // the players of each report's table, in draw order
}

type playerLink struct {
	Player string `json:"player"`
	Token  string `json:"token"`
}

func newEventDay(b *testing.B, seed uint64, self bool) *eventDay {
	b.Helper()
	s := &stack{t: b, dir: b.TempDir()}
	s.start()
	d := &eventDay{b: b, s: s, tour: "raduno", self: self}
	// Straight to the server, not through the stack's recorder: the
	// server's memory is then its own, without the OpenAPI document the
	// recorder validates against.
	call := func(want int, method, path, token, body string, out any) {
		b.Helper()
		req, _ := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		got, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			b.Fatalf("%s %s: %d %s", method, path, res.StatusCode, got)
		}
		if out != nil {
			if err := json.Unmarshal(got, out); err != nil {
				b.Fatal(err)
			}
		}
	}
	params := ""
	if self {
		params = `,"params":{"self_report":"confirmed"}`
	}
	call(201, "POST", "/v1/tournaments", adminToken, `{"id":"raduno","name":"Raduno","ruleset":"rur-2015"`+params+`}`, nil)
	for range 4 {
		var official struct {
			Token string `json:"token"`
		}
		call(201, "POST", "/v1/tournaments/raduno/officials", adminToken, `{"name":"Arbitro","role":"arbiter"}`, &official)
		d.arbiters = append(d.arbiters, official.Token)
	}
	arb, cmds := d.arbiters[0], "/v1/tournaments/raduno/commands"
	for i := 1; i <= 140; i++ {
		call(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%03d","name":"Giocatore %d","club":"Club %d","region":"R%d"}`, i, i, i%23, i%7), nil)
	}
	call(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`, nil)
	call(201, "POST", cmds, arb, `{"type":"DrawTables","round":1,"seed":"raduno-1"}`, nil)
	var tokens struct {
		Tokens []playerLink `json:"tokens"`
	}
	call(201, "POST", "/v1/tournaments/raduno/player-tokens", arb, `{}`, &tokens)
	d.players = tokens.Tokens
	if len(d.players) != 140 {
		b.Fatalf("%d personal links, want 140", len(d.players))
	}
	var tables struct {
		Tables []struct {
			Table   int      `json:"table"`
			Players []string `json:"players"`
		} `json:"tables"`
	}
	call(200, "GET", "/v1/tournaments/raduno/rounds/1/tables", "", "", &tables)
	sm, err := sim.New(sim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 140))
	for _, tb := range tables.Tables {
		rep := sm.Report(rng, 1, tb.Table, tb.Players)
		rep.Rolls = sim.Rolls(rng, tb.Players) // a tie the chain cannot break asks for them
		d.reports = append(d.reports, rep)
		d.seats = append(d.seats, tb.Players)
	}
	if len(d.reports) != 35 {
		b.Fatalf("%d tables, want 35", len(d.reports))
	}
	return d
}

// commands are the run's commands, sent to url: the 4 arbiters each
// recording every fourth report; or, when the tables report themselves, 4
// lanes of tables, each table's first player proposing its report and the
// three others confirming it, each with his own link.
func (d *eventDay) commands(url string) commandsSpec {
	cs := commandsSpec{URL: url, Lanes: make([][]sendSpec, len(d.arbiters))}
	for i, r := range d.reports {
		lane := &cs.Lanes[i%len(cs.Lanes)]
		if !d.self {
			body, _ := json.Marshal(struct {
				Type string `json:"type"`
				commands.RecordResult
			}{"RecordResult", r})
			*lane = append(*lane, sendSpec{What: fmt.Sprintf("table %d: RecordResult", r.Table), Token: d.arbiters[i%len(d.arbiters)], Body: body})
			continue
		}
		seated := d.seats[i]
		proposer := seated[0]
		body, _ := json.Marshal(struct {
			Type string `json:"type"`
			commands.ProposeResult
		}{"ProposeResult", commands.ProposeResult{Player: proposer, Round: r.Round, Table: r.Table,
			ClosedBy: r.ClosedBy, Winner: r.Winner, Risiko: r.Risiko, Players: r.Players, Rolls: r.Rolls}})
		*lane = append(*lane, sendSpec{What: fmt.Sprintf("table %d: ProposeResult by %s", r.Table, proposer), Token: d.link(proposer), Body: body})
		proposal := projections.ProposalID(r.Round, r.Table, 1)
		for _, p := range seated[1:] {
			body, _ := json.Marshal(map[string]string{"type": "ConfirmProposal", "player": p, "proposal": proposal})
			*lane = append(*lane, sendSpec{What: fmt.Sprintf("table %d: ConfirmProposal by %s", r.Table, p), Token: d.link(p), Body: body})
		}
	}
	return cs
}

// metrics reads the sums and counts of the server's histograms
// (apitest.MetricSums).
func (d *eventDay) metrics() map[string]float64 {
	req, _ := http.NewRequest("GET", d.s.srv.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		d.b.Fatal(err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		d.b.Fatalf("GET /metrics: %d %s", res.StatusCode, text)
	}
	return apitest.MetricSums(text)
}

// link is player's personal token.
func (d *eventDay) link(player string) string {
	for _, l := range d.players {
		if l.Player == player {
			return l.Token
		}
	}
	d.b.Fatalf("no personal link for %s", player)
	return ""
}

// allRecorded fails the run unless every table of the round has its
// result: when the tables report themselves, the last confirmation records
// it, or the run measured something else.
func (d *eventDay) allRecorded() {
	res, err := http.Get(d.s.srv.URL + "/v1/tournaments/" + d.tour + "/rounds/1/tables")
	if err != nil {
		d.b.Fatal(err)
	}
	defer res.Body.Close()
	var tables struct {
		Tables []struct {
			Table  int             `json:"table"`
			Result json.RawMessage `json:"result"`
		} `json:"tables"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tables); err != nil {
		d.b.Fatal(err)
	}
	var open []int
	for _, tb := range tables.Tables {
		if len(tb.Result) == 0 || string(tb.Result) == "null" {
			open = append(open, tb.Table)
		}
	}
	if len(open) > 0 || len(tables.Tables) != len(d.reports) {
		d.b.Fatalf("%d tables, of which %v without a recorded result", len(tables.Tables), open)
	}
}

// eventDayFigures are one or more runs' measurements.
type eventDayFigures struct {
	commands, shown   []time.Duration
	sentShown         []time.Duration // shown, counted from the send
	missed, refused   int
	failed, reads     int
	peakHeap, peakRSS uint64
	cpu, pagesCPU     time.Duration
	sendersCPU        time.Duration
	self              bool // the players sent the commands
	// phases are the sums and counts of the server's histograms over the
	// runs (apitest.MetricSums): its split of each command's time.
	phases map[string]float64
	runs   int
}

func (f *eventDayFigures) add(g eventDayFigures) {
	f.commands = append(f.commands, g.commands...)
	f.shown = append(f.shown, g.shown...)
	f.sentShown = append(f.sentShown, g.sentShown...)
	f.missed += g.missed
	f.refused += g.refused
	f.failed += g.failed
	f.reads += g.reads
	f.peakHeap, f.peakRSS = max(f.peakHeap, g.peakHeap), max(f.peakRSS, g.peakRSS)
	f.cpu += g.cpu
	f.pagesCPU += g.pagesCPU
	f.sendersCPU += g.sendersCPU
	f.self = g.self
	if f.phases == nil {
		f.phases = map[string]float64{}
	}
	for name, v := range g.phases {
		f.phases[name] += v
	}
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
		b.ReportMetric(ms(quantile(f.sentShown, 0.50)), "sent-shown-p50-ms")
		b.ReportMetric(ms(quantile(f.sentShown, 0.99)), "sent-shown-p99-ms")
	}
	b.ReportMetric(float64(f.missed)/float64(f.runs), "missed")
	b.ReportMetric(float64(f.refused)/float64(f.runs), "refused")
	b.ReportMetric(float64(f.failed)/float64(f.runs), "cmd-failed")
	b.ReportMetric(float64(f.reads)/float64(f.runs), "reads/op")
	b.ReportMetric(f.cpu.Seconds()/float64(f.runs), "cpu-s/op")
	b.ReportMetric(f.pagesCPU.Seconds()/float64(f.runs), "pages-cpu-s/op")
	senders := "arbiters-cpu-s/op"
	if f.self {
		senders = "players-cpu-s/op"
	}
	b.ReportMetric(f.sendersCPU.Seconds()/float64(f.runs), senders)
	// The server's own split of a command's time: a command that waits
	// for a core behind the pages is slower here than at 0 pages.
	for _, p := range []string{"lock_wait", "append", "record"} {
		b.ReportMetric(apitest.MeanMillis(nil, f.phases, apitest.PhaseName(p)), p+"-ms")
	}
	b.ReportMetric(float64(f.peakHeap)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(f.peakRSS)/(1<<20), "peak-rss-MB")
	b.ReportMetric(0, "ns/op") // a run's wall time is the commands' pace, not a figure
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

// acked is a result the ledger answered: its seq and when (unix
// nanoseconds, which the pages' process reads on the same clock).
type acked struct {
	seq      uint64
	at, sent int64 // answered and sent, in Unix nanoseconds
}

func (d *eventDay) run(n int) eventDayFigures {
	b, base := d.b, d.s.srv.URL
	spec := pagesSpec{Base: base, Stream: "/v1/tournaments/" + d.tour + "/stream"}
	t := "/ui/t/" + d.tour
	for i := range n {
		switch {
		case i < 2:
			spec.Pages = append(spec.Pages, pageSpec{Path: t + "/screen"})
		case i < 2+len(d.players):
			spec.Pages = append(spec.Pages, pageSpec{Path: t + "/me", Token: d.players[i-2].Token})
		case i%2 == 0:
			spec.Pages = append(spec.Pages, pageSpec{Path: t + "/standings"})
		default:
			spec.Pages = append(spec.Pages, pageSpec{Path: t + "/rounds/1"})
		}
	}
	var pages *child
	if n > 0 {
		pages = startChild(b, "TestEventDayPages", pagesEnv, spec, "eventday-ready")
		defer pages.stop()
	}
	cs := d.commands(base + "/v1/tournaments/" + d.tour + "/commands")
	senders := startChild(b, "TestEventDayCommands", commandsEnv, cs, "eventday-commands-ready")
	defer senders.stop()

	metrics0 := d.metrics()
	cpu0 := processCPU()
	sampled := make(chan [2]uint64, 1)
	stopSampling := make(chan struct{})
	stop := sync.OnceFunc(func() { close(stopSampling) })
	defer stop()
	go sampleMemory(stopSampling, sampled)

	var answered commandsOutput
	senders.send(b, "go")
	if err := json.Unmarshal([]byte(senders.line("eventday-answers ")), &answered); err != nil {
		b.Fatalf("the commands' process: %v%s", err, senders.said())
	}
	f := eventDayFigures{sendersCPU: answered.CPU, self: d.self}
	var results []acked
	var last uint64
	for _, a := range answered.Answers {
		f.commands = append(f.commands, a.Took)
		if a.Status == http.StatusCreated {
			results = append(results, acked{seq: a.Seq, at: a.At, sent: a.At - int64(a.Took)})
			last = max(last, a.Seq)
		} else {
			f.failed++
			b.Logf("%s: %d %s", a.What, a.Status, a.Body)
		}
	}
	if d.self {
		d.allRecorded()
	}
	var shown pagesOutput
	if pages != nil {
		pages.send(b, strconv.FormatUint(last, 10))
		if err := json.Unmarshal([]byte(pages.line("eventday-shown ")), &shown); err != nil {
			b.Fatalf("the pages' process: %v%s", err, pages.said())
		}
	}
	cpu := processCPU() - cpu0
	f.phases = map[string]float64{}
	for name, v := range d.metrics() {
		f.phases[name] = v - metrics0[name]
	}
	stop()
	mem := <-sampled

	f.peakHeap, f.peakRSS, f.cpu, f.pagesCPU = mem[0], mem[1], cpu, shown.CPU
	for _, p := range shown.Pages {
		if p.Refused {
			f.refused++
		}
		f.reads += p.Reads
		for _, r := range results {
			i := slices.IndexFunc(p.Shown, func(s [2]int64) bool { return uint64(s[0]) >= r.seq })
			if i < 0 {
				f.missed++
				continue
			}
			f.shown = append(f.shown, max(time.Duration(p.Shown[i][1]-r.at), 0))
			f.sentShown = append(f.sentShown, max(time.Duration(p.Shown[i][1]-r.sent), 0))
		}
	}
	return f
}

// The pages and the commands run in processes of their own, as phones
// and the arbiters' browsers are apart from the server: the server's
// memory and CPU are then its own, and its goroutines do not queue behind
// theirs. The benchmark starts the test binary again for
// TestEventDayPages and TestEventDayCommands, each handed its spec in an
// environment variable, and waits for each to say it is ready (every page
// has read itself once); it then tells the commands to go, reads their
// answers, writes the last seq to the pages, and reads what each page
// showed.

// pagesEnv and commandsEnv name the environment variables that hand
// TestEventDayPages and TestEventDayCommands their specs.
const (
	pagesEnv    = "REFERTO_EVENTDAY_PAGES"
	commandsEnv = "REFERTO_EVENTDAY_COMMANDS"
)

type pagesSpec struct {
	Base, Stream string
	Pages        []pageSpec
}

type pageSpec struct{ Path, Token string }

// pagesOutput is what the pages' process reports: each page's reads, and
// the CPU time it spent from ready to the last seq shown.
type pagesOutput struct {
	CPU   time.Duration
	Pages []pageShown
}

// pageShown is what a page's reads showed: [seq, unix nanoseconds] of
// each read that showed a later seq than the one before.
type pageShown struct {
	Refused bool
	Reads   int
	Shown   [][2]int64
}

// commandsSpec is the commands of a run: each lane sends its own, one
// after the other, eventDayPause apart, to URL.
type commandsSpec struct {
	URL   string
	Lanes [][]sendSpec
}

// sendSpec is one command: what it is (for a refusal's message), the
// token it is sent with and its body.
type sendSpec struct {
	What  string
	Token string
	Body  json.RawMessage
}

// commandsOutput is what the commands' process reports: each command's
// answer, and the CPU time it spent sending them.
type commandsOutput struct {
	CPU     time.Duration
	Answers []answer
}

// answer is one command as its sender saw it: what it was, how long it
// took, the status and seq answered, when (unix nanoseconds), and the body
// of an answer other than 201.
type answer struct {
	What   string
	Took   time.Duration
	Status int
	Seq    uint64
	At     int64
	Body   string `json:",omitempty"`
}

// child is the test binary started again for one test of the benchmark's.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
	tail  []string // the last lines of its output that line passed over
}

// startChild starts test name with spec in the environment variable env
// and waits for the line ready.
func startChild(b *testing.B, name, env string, spec any, ready string) *child {
	b.Helper()
	js, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), env+"="+string(js))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	c.out.Buffer(nil, 64<<20)
	if c.line(ready) == "" {
		c.stop()
		b.Fatalf("%s did not get ready%s", name, c.said())
	}
	return c
}

// line reads the process's output up to the line that starts with prefix,
// and returns its rest ("" if the output ended first).
func (c *child) line(prefix string) string {
	for c.out.Scan() {
		if rest, ok := strings.CutPrefix(c.out.Text(), prefix); ok {
			return rest + " "
		}
		if c.tail = append(c.tail, c.out.Text()); len(c.tail) > 20 {
			c.tail = c.tail[1:]
		}
	}
	return ""
}

// said is the last lines of the process's output that were not what the
// benchmark waited for (a test's failure), for an error's message.
func (c *child) said() string {
	if len(c.tail) == 0 {
		return ""
	}
	return "; it said:\n" + strings.Join(c.tail, "\n")
}

// send writes a line to the process's standard input and closes it.
func (c *child) send(b *testing.B, line string) {
	b.Helper()
	if _, err := fmt.Fprintln(c.stdin, line); err != nil {
		b.Fatal(err)
	}
	c.stdin.Close()
}

// stop ends the process, by its pid, and waits for it.
func (c *child) stop() {
	c.stdin.Close()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// childSpec reads the spec the benchmark hands its child who in the
// environment variable env; run by anyone else, the child's test is
// skipped.
func childSpec(t *testing.T, env, who string, spec any) {
	t.Helper()
	js := os.Getenv(env)
	if js == "" {
		t.Skipf("the event-day benchmark's %s: it starts them itself", who)
	}
	if err := json.Unmarshal([]byte(js), spec); err != nil {
		t.Fatal(err)
	}
}

// TestEventDayCommands is the arbiters of BenchmarkEventDay, or the
// players of BenchmarkEventDaySelfReport, in a process of their own; it
// runs only when the benchmark starts it. Each lane sends its commands one
// after the other, eventDayPause apart, once the benchmark says go.
func TestEventDayCommands(t *testing.T) {
	var spec commandsSpec
	childSpec(t, commandsEnv, "commands", &spec)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	fmt.Println("eventday-commands-ready")
	var say string
	if _, err := fmt.Scanln(&say); err != nil || say != "go" {
		t.Fatalf("the benchmark said %q (%v), not go", say, err)
	}
	cpu0 := processCPU()
	var mu sync.Mutex
	var out commandsOutput
	var lanes sync.WaitGroup
	for _, lane := range spec.Lanes {
		lanes.Go(func() {
			for _, c := range lane {
				start := time.Now()
				status, body := post(client, spec.URL, c.Token, c.Body)
				took := time.Since(start)
				var seq struct {
					Seq uint64 `json:"seq"`
				}
				_ = json.Unmarshal(body, &seq)
				ans := answer{What: c.What, Took: took, Status: status, Seq: seq.Seq, At: time.Now().UnixNano()}
				if status != http.StatusCreated {
					ans.Body = string(body)
				}
				mu.Lock()
				out.Answers = append(out.Answers, ans)
				mu.Unlock()
				time.Sleep(eventDayPause)
			}
		})
	}
	lanes.Wait()
	out.CPU = processCPU() - cpu0
	b, _ := json.Marshal(out)
	fmt.Println("eventday-answers " + string(b))
}

// TestEventDayPages is the pages of BenchmarkEventDay, in a process of
// their own; it runs only when the benchmark starts it.
func TestEventDayPages(t *testing.T) {
	var spec pagesSpec
	childSpec(t, pagesEnv, "pages", &spec)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * (len(spec.Pages) + 8), IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pages := make([]*livePage, len(spec.Pages))
	var wg sync.WaitGroup
	for i, ps := range spec.Pages {
		pages[i] = &livePage{path: ps.Path, token: ps.Token}
		wg.Go(func() { pages[i].follow(ctx, client, spec.Base, spec.Stream) })
	}
	until := func(seq uint64, d time.Duration) {
		deadline := time.Now().Add(d)
		for time.Now().Before(deadline) && slices.ContainsFunc(pages, func(p *livePage) bool { return p.last() < seq }) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	until(1, time.Minute)
	fmt.Println("eventday-ready")
	cpu0 := processCPU()
	var last uint64
	if _, err := fmt.Scanln(&last); err != nil {
		t.Fatal(err)
	}
	until(last, 30*time.Second)
	out := pagesOutput{CPU: processCPU() - cpu0, Pages: make([]pageShown, len(pages))}
	cancel()
	wg.Wait()
	for i, p := range pages {
		p.mu.Lock()
		out.Pages[i] = pageShown{Refused: p.refused, Reads: p.reads}
		for _, s := range p.shown {
			out.Pages[i].Shown = append(out.Pages[i].Shown, [2]int64{int64(s.seq), s.at.UnixNano()})
		}
		p.mu.Unlock()
	}
	b, _ := json.Marshal(out)
	fmt.Println("eventday-shown " + string(b))
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
