package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/eventlog"
)

// raceClients is how many clients race in every race.
const raceClients = 16

// attempt is one racing request and what came of it.
type attempt struct {
	race    string // which race
	key     string // its Idempotency-Key: the command_id of its events if accepted
	kind    string // "result" or "draw"
	round   int
	table   int     // for a result
	ifMatch *uint64 // the If-Match it carried

	status int
	seq    uint64 // the accepted command's last event
	code   string // the problem's code when refused
	rule   string
	err    error
}

// racer sends concurrent requests to one or more nodes (client i to node
// i mod n) with its own connection pool, every request bounded by the
// test's deadline and its own timeout.
type racer struct {
	nodes  []*stack
	ctx    context.Context
	client *http.Client
}

// sync waits until every node's projections hold the whole log, so that a
// race starts from one state everywhere.
func (rc *racer) sync(t *testing.T) {
	t.Helper()
	last := rc.nodes[0].logSize()
	for _, n := range rc.nodes {
		if err := n.node.Runner.WaitFor(rc.ctx, last); err != nil {
			t.Fatal(err)
		}
	}
}

func (rc *racer) post(client int, a *attempt, token string, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		a.err = err
		return
	}
	req, err := http.NewRequestWithContext(rc.ctx, "POST", rc.nodes[client%len(rc.nodes)].srv.URL+"/v1/tournaments/race/commands", bytes.NewReader(b))
	if err != nil {
		a.err = err
		return
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", a.key)
	if a.ifMatch != nil {
		req.Header.Set("If-Match", fmt.Sprintf(`"%d"`, *a.ifMatch))
	}
	res, err := rc.client.Do(req)
	if err != nil {
		a.err = err
		return
	}
	defer res.Body.Close()
	rb, err := io.ReadAll(res.Body)
	if err != nil {
		a.err = err
		return
	}
	a.status = res.StatusCode
	if a.status == http.StatusCreated {
		var o struct {
			Seq uint64 `json:"seq"`
		}
		a.err = json.Unmarshal(rb, &o)
		a.seq = o.Seq
		return
	}
	var p problem.Problem
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		a.err = fmt.Errorf("refused with %d as %q, not a problem: %s", a.status, ct, rb)
	} else if err := json.Unmarshal(rb, &p); err != nil {
		a.err = fmt.Errorf("refused with %d: %v: %s", a.status, err, rb)
	}
	a.code, a.rule = string(p.Code), p.Rule
}

// race fires every attempt at once (each client waits at one barrier) and
// returns when all have answered.
func (rc *racer) race(attempts []*attempt, send func(i int, a *attempt)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, a := range attempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			send(i, a)
		}()
	}
	close(start)
	wg.Wait()
}

// TestRacingCommandsHaveOneWinner runs 20 rounds of a tournament in which
// every table result and every draw is raced by 16 clients, as four
// arbiters at one venue would: the same If-Match (exactly one wins, the
// rest 412), the same table (exactly one result, the rest 409), and the
// next round's draw against the current round's last result (the draw
// wins only once every table has its result; a draw too early is refused
// by docs/rules.md#8-table-formation, one too late by 409). Nothing else may answer (no 500), and
// the log read back must show every accepted command exactly once, each
// precondition holding where it was appended, and no refused one.
func TestRacingCommandsHaveOneWinner(t *testing.T) {
	runRaces(t, []*stack{newStack(t)})
}

// TestRacingCommandsAcrossTwoNodes runs the same races through two nodes
// sharing one NATS server (two referto serve --nats on one cluster): there
// only JetStream's expected-sequence check stands between the racers, and
// the loser must catch up and be refused as it would be on one node.
func TestRacingCommandsAcrossTwoNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and two nodes")
	}
	runRaces(t, startTwoNodes(t))
}

// startTwoNodes starts two nodes sharing one NATS server.
func startTwoNodes(t *testing.T) []*stack {
	t.Helper()
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: t.TempDir(), Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	var nodes []*stack
	for range 2 {
		s := &stack{t: t, dir: t.TempDir(), opts: node.NodeOptions{NATS: ns.ClientURL()}}
		s.start()
		t.Cleanup(s.stop)
		nodes = append(nodes, s)
	}
	return nodes
}

// TestAnotherNodeDecidesOnWhatWasAcknowledged: a client's command is
// acknowledged by one node, and its next command, which depends on the
// first, goes to another node sharing the log, whose projections may not
// have caught up yet. That node must not refuse it on its stale state: a
// withdrawal of the player just registered is not "player not found", and
// an If-Match naming the seq just acknowledged is not 412 (the node
// catches up before refusing). An If-Match the log has not reached is
// still 412.
func TestAnotherNodeDecidesOnWhatWasAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and two nodes")
	}
	nodes := startTwoNodes(t)
	a, b := nodes[0], nodes[1]
	arb := a.create("x", "rtu")
	const n = 300
	refused := 0
	for i := range n {
		r := a.must(201, "POST", "/v1/tournaments/x/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P"}`, i))
		seq := uint64(r.json(t)["seq"].(float64))
		var headers []string
		if i%2 == 1 {
			headers = []string{"If-Match", fmt.Sprintf(`"%d"`, seq)}
		}
		r = b.do("POST", "/v1/tournaments/x/commands", arb, fmt.Sprintf(`{"type":"Withdraw","player":"p%d","scope":"tournament","reason":"force_majeure"}`, i), headers...)
		if r.status != 201 {
			refused++
			if refused <= 3 {
				t.Errorf("withdrawal of p%d (registered at seq %d on the other node, headers %q): %d %s", i, seq, headers, r.status, r.body)
			}
		}
	}
	if refused > 0 {
		t.Errorf("%d of %d commands refused on a state older than what the client was acknowledged", refused, n)
	}
	size := a.logSize()
	b.must(412, "POST", "/v1/tournaments/x/commands", arb, `{"type":"RegisterPlayer","player":"q","name":"Q"}`, "If-Match", `"100000"`)
	if a.logSize() != size {
		t.Error("a refused command changed the log")
	}
}

// runRaces plays the races through nodes (all on one log); nodes[0] serves
// the setup and the reads.
func runRaces(t *testing.T, nodes []*stack) {
	rounds := 20
	if testing.Short() {
		rounds = 4
	}
	s := nodes[0]
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rc := &racer{nodes: nodes, ctx: ctx, client: &http.Client{Timeout: time.Minute,
		Transport: &http.Transport{MaxIdleConnsPerHost: raceClients}}}
	defer rc.client.CloseIdleConnections()

	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": "race", "name": "Race", "ruleset": "master",
		"params": map[string]any{"qualifying_rounds": rounds, "knockout": "none"}})
	arbiters := []string{s.appoint("race", "arbiter"), s.appoint("race", "arbiter"), s.appoint("race", "arbiter"), s.appoint("race", "arbiter")}
	auditor := s.appoint("race", "auditor")
	cmds := "/v1/tournaments/race/commands"
	for i := 1; i <= 15; i++ {
		s.must(201, "POST", cmds, arbiters[i%4], fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"Giocatore %d"}`, i, i))
	}

	var all []*attempt
	// A retry storm: 16 clients send one command with one Idempotency-Key.
	// It is recorded once and every client gets the same outcome.
	storm := make([]*attempt, raceClients)
	for i := range storm {
		storm[i] = &attempt{race: "same key", key: "register-p16", kind: "register"}
	}
	rc.sync(t)
	rc.race(storm, func(i int, a *attempt) {
		rc.post(i, a, arbiters[0], map[string]any{"type": "RegisterPlayer", "player": "p16", "name": "Giocatore 16"})
	})
	for _, a := range storm {
		if a.err != nil || a.status != 201 || a.seq != storm[0].seq {
			t.Fatalf("same key: %d seq %d (first seq %d), err %v", a.status, a.seq, storm[0].seq, a.err)
		}
	}
	all = append(all, storm[0])
	rc.sync(t)
	s.must(201, "POST", cmds, arbiters[0], `{"type":"CloseRegistration"}`)
	s.must(201, "POST", cmds, arbiters[0], `{"type":"DrawTables","round":1}`)

	sm, err := sim.New(sim.Options{Withdrawal: 1e-12}) // game withdrawals are not what is raced here
	if err != nil {
		t.Fatal(err)
	}
	report := func(round, table int, seats []string, client int) map[string]any {
		rng := rand.New(rand.NewPCG(uint64(round*100+table), uint64(client)))
		rep := sm.Report(rng, round, table, seats)
		b, _ := json.Marshal(struct {
			Type string `json:"type"`
			commands.RecordResult
		}{"RecordResult", rep})
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	stats := map[string]map[int]int{} // race → status → count
	count := func(race string, as []*attempt) {
		if stats[race] == nil {
			stats[race] = map[int]int{}
		}
		for _, a := range as {
			stats[race][a.status]++
		}
	}
	// winners checks that exactly want attempts won, and that every loser
	// was refused as one of refusals (status → code).
	winners := func(what string, as []*attempt, want int, refusals map[int]string) []*attempt {
		t.Helper()
		var won []*attempt
		for _, a := range as {
			switch {
			case a.err != nil:
				t.Errorf("%s: %s %s: %v", what, a.kind, a.key, a.err)
			case a.status == 201:
				won = append(won, a)
			case refusals[a.status] == "" || refusals[a.status] != a.code:
				t.Errorf("%s: %s %s refused with %d %s, want one of %v", what, a.kind, a.key, a.status, a.code, refusals)
			}
		}
		if want >= 0 && len(won) != want {
			t.Errorf("%s: %d winners, want %d", what, len(won), want)
		}
		return won
	}
	races := 0
	for r := 1; r <= rounds && !t.Failed(); r++ {
		rc.sync(t)
		seats := s.tableSeats("race", r)
		if len(seats) != 4 {
			t.Fatalf("round %d has %d tables, want 4", r, len(seats))
		}

		// Race 1: one If-Match for all, results for tables 1 and 2.
		seq := uint64(s.must(200, "GET", "/v1/tournaments/race", "", nil).json(t)["seq"].(float64))
		as := make([]*attempt, raceClients)
		for i := range as {
			as[i] = &attempt{race: "if-match", key: fmt.Sprintf("r%d-ifmatch-%d", r, i), kind: "result", round: r, table: 1 + i%2, ifMatch: &seq}
		}
		rc.race(as, func(i int, a *attempt) { rc.post(i, a, arbiters[i%4], report(r, a.table, seats[a.table], i)) })
		count("if-match", as)
		all = append(all, as...)
		won := winners(fmt.Sprintf("round %d if-match", r), as, 1, map[int]string{412: "precondition_failed"})
		races++
		if len(won) != 1 {
			continue
		}
		if won[0].seq != seq+1 {
			t.Errorf("round %d: the If-Match winner is seq %d, want %d", r, won[0].seq, seq+1)
		}
		open := 3 - won[0].table // the other of tables 1 and 2

		// Race 2: tables open and 3, eight clients each.
		rc.sync(t)
		as = make([]*attempt, raceClients)
		for i := range as {
			tb := open
			if i >= raceClients/2 {
				tb = 3
			}
			as[i] = &attempt{race: "same table", key: fmt.Sprintf("r%d-table-%d", r, i), kind: "result", round: r, table: tb}
		}
		rc.race(as, func(i int, a *attempt) { rc.post(i, a, arbiters[i%4], report(r, a.table, seats[a.table], i)) })
		count("same table", as)
		all = append(all, as...)
		for _, tb := range []int{open, 3} {
			var mine []*attempt
			for _, a := range as {
				if a.table == tb {
					mine = append(mine, a)
				}
			}
			winners(fmt.Sprintf("round %d table %d", r, tb), mine, 1, map[int]string{409: "conflict"})
			races++
		}

		// Race 3: table 4's result against the next round's draw (the last
		// round has no next one: all clients race for table 4).
		rc.sync(t)
		as = make([]*attempt, raceClients)
		for i := range as {
			if i < raceClients/2 || r == rounds {
				as[i] = &attempt{race: "draw vs result", key: fmt.Sprintf("r%d-last-%d", r, i), kind: "result", round: r, table: 4}
			} else {
				as[i] = &attempt{race: "draw vs result", key: fmt.Sprintf("r%d-draw-%d", r, i), kind: "draw", round: r + 1}
			}
		}
		rc.race(as, func(i int, a *attempt) {
			if a.kind == "draw" {
				rc.post(i, a, arbiters[i%4], map[string]any{"type": "DrawTables", "round": a.round})
			} else {
				rc.post(i, a, arbiters[i%4], report(r, 4, seats[4], i))
			}
		})
		count("draw vs result", as)
		all = append(all, as...)
		var results, draws []*attempt
		for _, a := range as {
			if a.kind == "draw" {
				draws = append(draws, a)
			} else {
				results = append(results, a)
			}
		}
		resWon := winners(fmt.Sprintf("round %d table 4", r), results, 1, map[int]string{409: "conflict"})
		races++
		if r == rounds {
			continue
		}
		drawWon := winners(fmt.Sprintf("round %d draw of %d", r, r+1), draws, -1, map[int]string{409: "conflict", 422: "rule_violation"})
		races++
		if len(drawWon) > 1 {
			t.Errorf("round %d: %d draws of round %d won", r, len(drawWon), r+1)
		}
		for _, d := range draws {
			if d.status == 422 && d.rule != "docs/rules.md#8-table-formation" {
				t.Errorf("round %d: draw refused by %q, want docs/rules.md#8-table-formation (a table without a result)", r, d.rule)
			}
			if len(resWon) == 1 && len(drawWon) == 1 && d.status == 201 && d.seq <= resWon[0].seq {
				t.Errorf("round %d: the draw (seq %d) was accepted before the last result (seq %d)", r, d.seq, resWon[0].seq)
			}
		}
		if len(drawWon) == 0 {
			// Every draw came too early; the arbiter draws again.
			rc.sync(t)
			s.must(201, "POST", cmds, arbiters[0], fmt.Sprintf(`{"type":"DrawTables","round":%d}`, r+1))
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("%d races of %d clients on %d node(s) over %d rounds; statuses by race: %v", races, raceClients, len(nodes), rounds, stats)

	// Read the whole log back, page by page, and replay it.
	var log []events.Envelope
	for from := uint64(1); from != 0; {
		var page struct {
			Events []events.Envelope `json:"events"`
			Next   uint64            `json:"next"`
		}
		r := s.must(200, "GET", fmt.Sprintf("/v1/tournaments/race/events?from=%d&limit=50", from), auditor, nil)
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		log = append(log, page.Events...)
		from = page.Next
	}
	checkRaceLog(t, log, all, rounds)
}

// checkRaceLog replays the log: seqs contiguous from 1; every draw is of
// the next round and only once the round before has every result; every
// result is for a table of the current round that has none yet; every
// accepted attempt is in the log once, at the seq it was told, and no
// refused one is.
func checkRaceLog(t *testing.T, log []events.Envelope, all []*attempt, rounds int) {
	t.Helper()
	type key struct{ round, table int }
	var drawn []map[int]bool // round-1 → tables
	results := map[key]uint64{}
	byCommand := map[string][]uint64{}
	for i, env := range log {
		if env.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i+1, env.Seq)
		}
		if seqs := byCommand[env.CommandID]; len(seqs) == 0 || seqs[len(seqs)-1] != env.Seq-1 {
			byCommand[env.CommandID] = append(seqs, env.Seq) // a commit's events are contiguous
		} else {
			byCommand[env.CommandID][len(seqs)-1] = env.Seq
		}
		ev, err := events.Decode(env)
		if err != nil {
			t.Fatalf("seq %d: %v", env.Seq, err)
		}
		switch e := ev.(type) {
		case events.TablesDrawn:
			if e.Round != len(drawn)+1 {
				t.Errorf("seq %d draws round %d after %d rounds", env.Seq, e.Round, len(drawn))
			}
			if len(drawn) > 0 {
				for tb := range drawn[len(drawn)-1] {
					if _, ok := results[key{len(drawn), tb}]; !ok {
						t.Errorf("seq %d draws round %d while table %d of round %d has no result", env.Seq, e.Round, tb, len(drawn))
					}
				}
			}
			tables := map[int]bool{}
			for _, tb := range e.Tables {
				tables[tb.Table] = true
			}
			drawn = append(drawn, tables)
		case events.ResultRecorded:
			k := key{e.Round, e.Table}
			switch {
			case e.Round != len(drawn):
				t.Errorf("seq %d records a result of round %d when round %d is the current one", env.Seq, e.Round, len(drawn))
			case !drawn[e.Round-1][e.Table]:
				t.Errorf("seq %d records table %d, not in the draw of round %d", env.Seq, e.Table, e.Round)
			}
			if prev, ok := results[k]; ok {
				t.Errorf("seq %d records round %d table %d again (first at seq %d)", env.Seq, e.Round, e.Table, prev)
			}
			results[k] = env.Seq
		case events.ResultAmended:
			t.Errorf("seq %d amends a result: nothing was contested", env.Seq)
		}
	}
	if len(drawn) != rounds || len(results) != 4*rounds {
		t.Errorf("the log has %d rounds and %d results, want %d and %d", len(drawn), len(results), rounds, 4*rounds)
	}
	won := 0
	for _, a := range all {
		seqs := byCommand[a.key]
		switch {
		case a.status == 201 && (len(seqs) != 1 || seqs[0] != a.seq):
			t.Errorf("accepted %s %s (seq %d) is in the log at %v", a.kind, a.key, a.seq, seqs)
		case a.status != 201 && len(seqs) != 0:
			t.Errorf("refused %s %s (%d) is in the log at %v", a.kind, a.key, a.status, seqs)
		}
		if a.status == 201 {
			won++
		}
	}
	t.Logf("log of %d events replayed: %d accepted attempts each once at its seq, %d refused ones absent", len(log), won, len(all)-won)
}
