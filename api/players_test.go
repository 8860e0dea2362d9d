package api_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
)

// selfService is a tournament of eight players drawn at two tables, with
// every player's personal link.
type selfService struct {
	s      *stack
	tour   string
	arb    string
	tables map[int][]string
	links  map[string]string // player → token
}

func newSelfService(t *testing.T, s *stack, tour string, params map[string]any) *selfService {
	t.Helper()
	body := map[string]any{"id": tour, "name": "Torneo " + tour, "ruleset": "rtu"}
	if params != nil {
		body["params"] = params
	}
	s.must(201, "POST", "/v1/tournaments", adminToken, body)
	f := &selfService{s: s, tour: tour, arb: s.appoint(tour, "arbiter"), links: map[string]string{}}
	for i := 1; i <= 8; i++ {
		f.cmd(f.arb, 201, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d"}`, i, i))
	}
	f.cmd(f.arb, 201, `{"type":"CloseRegistration"}`)
	f.cmd(f.arb, 201, `{"type":"DrawTables","round":1,"seed":"self"}`)
	f.tables = s.tableSeats(tour, 1)
	var issued struct {
		Tokens []struct {
			Player, Token, Link string
		} `json:"tokens"`
	}
	if err := json.Unmarshal(s.must(201, "POST", "/v1/tournaments/"+tour+"/player-tokens", f.arb, `{}`).body, &issued); err != nil || len(issued.Tokens) != 8 {
		t.Fatalf("links: %v %+v", err, issued)
	}
	for _, l := range issued.Tokens {
		if !strings.HasPrefix(l.Token, tour+".") || l.Link != "/ui/join?k="+l.Token {
			t.Errorf("link of %s: %+v", l.Player, l)
		}
		f.links[l.Player] = l.Token
	}
	return f
}

func (f *selfService) cmd(token string, want int, body string) resp {
	f.s.t.Helper()
	return f.s.must(want, "POST", "/v1/tournaments/"+f.tour+"/commands", token, body)
}

// report is a valid report of table n, proposed by player.
func (f *selfService) report(typ, player string, n int, points ...int) string {
	var lines []string
	for i, p := range f.tables[n] {
		tp := []int{60, 50, 40, 14}[min(i, 3)] // 164, what the whole board is worth
		if i < len(points) {
			tp = points[i]
		}
		lines = append(lines, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, i+1, tp))
	}
	who := ""
	if player != "" {
		who = fmt.Sprintf(`"player":%q,`, player)
	}
	return fmt.Sprintf(`{"type":%q,%s"round":1,"table":%d,"closed_by":"time","players":[%s]}`, typ, who, n, strings.Join(lines, ","))
}

func eventTypes(t *testing.T, r resp) []string {
	t.Helper()
	var a struct {
		Events []struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range a.Events {
		out = append(out, e.Type)
	}
	return out
}

// TestPlayerLinksActOnlyAtTheirOwnTable: a player's personal link reads
// what anyone reads, not the officials' log; writes proposals,
// confirmations and disputes only for its own player, at the table he sits
// at, in the round being played, and nothing else; is refused in another
// tournament; and stops working once revoked.
func TestPlayerLinksActOnlyAtTheirOwnTable(t *testing.T) {
	s := newStack(t)
	f := newSelfService(t, s, "bo", nil)
	other := newSelfService(t, s, "mi", nil)
	t1, t2 := f.tables[1], f.tables[2]
	a, b, c := f.links[t1[0]], f.links[t1[1]], f.links[t2[0]]
	cmds := "/v1/tournaments/bo/commands"

	me := s.must(200, "GET", "/v1/me", a, nil).json(t)
	if me["role"] != "player" || me["tournament"] != "bo" || me["official"] != t1[0] || me["name"] == "" {
		t.Errorf("/v1/me of a personal link: %v", me)
	}
	if got := fmt.Sprint(me["commands"]); got != "[ProposeResult ConfirmProposal DisputeProposal]" {
		t.Errorf("a personal link may send %s", got)
	}

	size := s.logSize()
	for _, c := range []struct {
		what, token, body string
		status            int
	}{
		{"for another player of his table", a, f.report("ProposeResult", t1[1], 1), 403},
		{"for a table he does not sit at", a, f.report("ProposeResult", t1[0], 2), 403},
		{"as a player of another table", c, f.report("ProposeResult", t1[0], 1), 403},
		{"a result", a, f.report("RecordResult", "", 1), 403},
		{"a draw", a, `{"type":"DrawTables","round":2}`, 403},
		{"a registration", a, `{"type":"RegisterPlayer","player":"p9","name":"Nove"}`, 403},
		{"a contestation", a, `{"type":"FileContestation","against":3,"claim":"no"}`, 403},
		{"a revocation", a, fmt.Sprintf(`{"type":"RevokePlayerToken","player":%q}`, t1[1]), 403},
	} {
		if r := s.do("POST", cmds, c.token, c.body); r.status != c.status {
			t.Errorf("a personal link sends %s: %d, want %d: %s", c.what, r.status, c.status, r.body)
		}
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/tournaments/mi/commands", other.report("ProposeResult", t1[0], 1)},
		{"GET", "/v1/tournaments/bo/events", ""},
		{"GET", "/v1/tournaments/mi/events", ""},
		{"GET", "/v1/tournaments/bo/export", ""},
		{"GET", "/v1/tournaments/bo/player-tokens", ""},
		{"POST", "/v1/tournaments/bo/player-tokens", "{}"},
	} {
		if r := s.do(c.method, c.path, a, nilIfEmpty(c.body)); r.status != 403 {
			t.Errorf("a personal link: %s %s: %d, want 403: %s", c.method, c.path, r.status, r.body)
		}
	}
	if s.logSize() != size {
		t.Fatal("a refused request changed the log")
	}

	// His own table: a proposal, which he cannot confirm himself; the
	// others confirm, each for himself only.
	r := f.cmd(a, 201, f.report("ProposeResult", t1[0], 1))
	if got := eventTypes(t, r); !slices.Equal(got, []string{"ResultProposed"}) {
		t.Fatalf("proposal: %v", got)
	}
	var proposed struct {
		Events []struct {
			Actor struct{ ID, Role string } `json:"actor"`
			Data  struct {
				Proposal string `json:"proposal"`
			} `json:"data"`
		} `json:"events"`
	}
	json.Unmarshal(r.body, &proposed)
	id := proposed.Events[0].Data.Proposal
	if act := proposed.Events[0].Actor; act.ID != t1[0] || act.Role != "player" {
		t.Errorf("the proposal's actor is %+v, want the player", act)
	}
	confirm := func(token, player string) resp {
		return s.do("POST", cmds, token, fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, player, id))
	}
	if r := confirm(a, t1[0]); r.status != 409 {
		t.Errorf("the proposer confirms: %d %s", r.status, r.body)
	}
	if r := confirm(b, t1[2]); r.status != 403 {
		t.Errorf("a player confirms for another: %d %s", r.status, r.body)
	}
	if r := confirm(c, t2[0]); r.status != 403 {
		t.Errorf("a player of another table confirms: %d %s", r.status, r.body)
	}
	for _, p := range t1[1:] {
		f.cmd(f.links[p], 201, fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, p, id))
	}
	if r := confirm(b, t1[1]); r.status != 409 {
		t.Errorf("a second confirmation: %d %s", r.status, r.body)
	}

	// Revoked, the link is unknown at once; a new one works.
	f.cmd(f.arb, 201, fmt.Sprintf(`{"type":"RevokePlayerToken","player":%q,"reason":"phone lost"}`, t1[0]))
	s.must(401, "GET", "/v1/me", a, nil)
	if r := s.do("POST", cmds, a, f.report("ProposeResult", t1[0], 1)); r.status != 401 {
		t.Errorf("a revoked link proposes: %d", r.status)
	}
	s.must(201, "POST", "/v1/tournaments/bo/player-tokens", f.arb, fmt.Sprintf(`{"players":[%q]}`, t1[0]))
	var links struct {
		Tokens []struct{ Player, Token string } `json:"tokens"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/bo/player-tokens", f.arb, nil).body, &links)
	for _, l := range links.Tokens {
		if l.Player == t1[0] {
			if l.Token == a {
				t.Error("the revoked token is shown again")
			}
			s.must(200, "GET", "/v1/me", l.Token, nil)
		}
	}
}

// TestArbiterRecordsAConfirmedProposalInOneAction: four players of a table
// propose and confirm from their own links; the table is ready; the
// arbiter's RecordResult naming the proposal records it, and the recorded
// result names the proposal it came from.
func TestArbiterRecordsAConfirmedProposalInOneAction(t *testing.T) {
	s := newStack(t)
	f := newSelfService(t, s, "bo", nil)
	t1 := f.tables[1]
	r := f.cmd(f.links[t1[2]], 201, f.report("ProposeResult", t1[2], 1))
	id := firstData(t, r, "proposal")
	for _, p := range []string{t1[0], t1[1], t1[3]} {
		r := f.cmd(f.links[p], 201, fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, p, id))
		if got := eventTypes(t, r); !slices.Equal(got, []string{"ProposalConfirmed"}) {
			t.Errorf("under self_report arbiter a confirmation appends %v", got)
		}
	}
	state := s.must(200, "GET", "/v1/tournaments/bo/state", "", nil).body
	if !strings.Contains(string(state), `"confirmed":{`) {
		t.Errorf("the state shows no confirmations: %.300s", state)
	}
	r = f.cmd(f.arb, 201, fmt.Sprintf(`{"type":"RecordResult","round":1,"table":1,"proposal":%q}`, id))
	if got := firstData(t, r, "proposal"); got != id {
		t.Errorf("the recorded result names proposal %q, want %q", got, id)
	}
	// The table's result is the proposal's report, scored.
	var tables struct {
		Tables []struct {
			Table  int `json:"table"`
			Result *struct {
				Proposal string `json:"proposal"`
				Players  []struct {
					Player      string `json:"player"`
					TablePoints int    `json:"table_points"`
				} `json:"players"`
			} `json:"result"`
		} `json:"tables"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/bo/rounds/1/tables", "", nil).body, &tables)
	if res := tables.Tables[0].Result; res == nil || res.Proposal != id || res.Players[0].TablePoints != 60 {
		t.Errorf("table 1's result: %+v", res)
	}
	// A proposal for a recorded table is a conflict; a second record too.
	s.must(409, "POST", "/v1/tournaments/bo/commands", f.links[t1[0]], f.report("ProposeResult", t1[0], 1))
	s.must(409, "POST", "/v1/tournaments/bo/commands", f.arb, fmt.Sprintf(`{"type":"RecordResult","round":1,"table":1,"proposal":%q}`, id))
}

// TestDisputedProposalFlagsTheTable: a dispute (with its reason) stops the
// confirmations and flags the table; the arbiter may still record the
// report he judges right; a new proposal replaces the disputed one.
func TestDisputedProposalFlagsTheTable(t *testing.T) {
	s := newStack(t)
	f := newSelfService(t, s, "bo", nil)
	t2 := f.tables[2]
	id := firstData(t, f.cmd(f.links[t2[0]], 201, f.report("ProposeResult", t2[0], 2)), "proposal")
	s.must(400, "POST", "/v1/tournaments/bo/commands", f.links[t2[1]], fmt.Sprintf(`{"type":"DisputeProposal","player":%q,"proposal":%q}`, t2[1], id))
	f.cmd(f.links[t2[1]], 201, fmt.Sprintf(`{"type":"DisputeProposal","player":%q,"proposal":%q,"reason":"I had 52 table points"}`, t2[1], id))
	s.must(422, "POST", "/v1/tournaments/bo/commands", f.links[t2[2]], fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, t2[2], id))
	var st struct {
		Rounds []struct {
			Tables []struct {
				Proposals []struct {
					ID       string `json:"id"`
					Disputes []struct{ Player, Reason string }
				} `json:"proposals"`
			} `json:"tables"`
		} `json:"rounds"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/bo/state", "", nil).body, &st)
	ps := st.Rounds[0].Tables[1].Proposals
	if len(ps) != 1 || len(ps[0].Disputes) != 1 || ps[0].Disputes[0].Reason != "I had 52 table points" {
		t.Fatalf("table 2's proposals: %+v", ps)
	}
	// A new proposal replaces it; the old one can no longer be confirmed.
	id2 := firstData(t, f.cmd(f.links[t2[1]], 201, f.report("ProposeResult", t2[1], 2, 60, 52, 40, 12)), "proposal")
	if id2 == id {
		t.Fatal("the new proposal has the old one's id")
	}
	s.must(409, "POST", "/v1/tournaments/bo/commands", f.links[t2[2]], fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, t2[2], id))
	// The arbiter records a report of his own.
	f.cmd(f.arb, 201, f.report("RecordResult", "", 2, 60, 52, 40, 12))
}

// TestProposalBreakingBoardBoundsIsKeptFlagged: a proposal whose figures
// the board cannot produce is kept with its problems (the arbiter sees the
// table flagged) and can be neither confirmed nor recorded; any other
// problem refuses it whole.
func TestProposalBreakingBoardBoundsIsKeptFlagged(t *testing.T) {
	s := newStack(t)
	f := newSelfService(t, s, "bo", nil)
	t1 := f.tables[1]
	r := f.cmd(f.links[t1[0]], 201, f.report("ProposeResult", t1[0], 1, 9999, 50, 40, 30))
	var a struct {
		Events []struct {
			Data struct {
				Proposal string `json:"proposal"`
				Problems []struct{ Field, Rule string }
			} `json:"data"`
		} `json:"events"`
	}
	json.Unmarshal(r.body, &a)
	if len(a.Events) != 1 || len(a.Events[0].Data.Problems) == 0 || a.Events[0].Data.Problems[0].Field != "players[0].table_points" ||
		a.Events[0].Data.Problems[0].Rule != "docs/rules.md#31-pinned-board-bounds" {
		t.Fatalf("the flagged proposal: %s", r.body)
	}
	id := a.Events[0].Data.Proposal
	s.must(422, "POST", "/v1/tournaments/bo/commands", f.links[t1[1]], fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, t1[1], id))
	s.must(422, "POST", "/v1/tournaments/bo/commands", f.arb, fmt.Sprintf(`{"type":"RecordResult","round":1,"table":1,"proposal":%q}`, id))
	// Turn orders that are not a permutation: refused, nothing appended.
	size := s.logSize()
	bad := strings.Replace(f.report("ProposeResult", t1[0], 1), `"turn":2`, `"turn":1`, 1)
	s.must(400, "POST", "/v1/tournaments/bo/commands", f.links[t1[0]], bad)
	if s.logSize() != size {
		t.Error("a refused proposal was appended")
	}
}

// TestConfirmedProposalRecordsItself: under self_report: confirmed, the last
// confirmation records the report in the same commit, naming the proposal.
func TestConfirmedProposalRecordsItself(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	f := newSelfService(t, s, "bo", map[string]any{"self_report": "confirmed"})
	t1 := f.tables[1]
	id := firstData(t, f.cmd(f.links[t1[0]], 201, f.report("ProposeResult", t1[0], 1)), "proposal")
	var last resp
	for _, p := range t1[1:] {
		last = f.cmd(f.links[p], 201, fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, p, id))
	}
	if got := eventTypes(t, last); !slices.Equal(got, []string{"ProposalConfirmed", "ResultRecorded"}) {
		t.Fatalf("the last confirmation appended %v", got)
	}
	if !strings.Contains(string(last.body), `"proposal":"`+id+`"`) {
		t.Errorf("the recorded result does not name its proposal: %s", last.body)
	}
}

// TestAPlayersLinkProposesAFewTimes: one player's link proposes the report
// of its table at most commands.MaxProposals times; the next is refused,
// naming the rule, with the log unchanged, while another player of the
// table may still propose; the state keeps the table's latest proposal
// only, and how many each player made.
func TestAPlayersLinkProposesAFewTimes(t *testing.T) {
	s := newStack(t)
	f := newSelfService(t, s, "bo", nil)
	t1 := f.tables[1]
	var last string
	for i := range commands.MaxProposals {
		last = firstData(t, f.cmd(f.links[t1[0]], 201, f.report("ProposeResult", t1[0], 1, 60-i)), "proposal")
	}
	before := s.logSize()
	r := f.cmd(f.links[t1[0]], 422, f.report("ProposeResult", t1[0], 1, 41))
	var p struct{ Code, Rule, Detail string }
	json.Unmarshal(r.body, &p)
	if p.Code != "rule_violation" || p.Rule != "docs/rules.md#14-tables-report-themselves" || !strings.Contains(p.Detail, fmt.Sprintf("%d times", commands.MaxProposals)) {
		t.Errorf("the proposal past the bound: %s", r.body)
	}
	if after := s.logSize(); after != before {
		t.Errorf("the refused proposal moved the log from %d to %d", before, after)
	}
	// Another player of the table proposes; the replaced proposal cannot
	// be confirmed, and names its table.
	f.cmd(f.links[t1[1]], 201, f.report("ProposeResult", t1[1], 1))
	if r := f.cmd(f.links[t1[2]], 409, fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, t1[2], last)); !strings.Contains(string(r.body), "replaced by a later proposal for table 1") {
		t.Errorf("confirming a replaced proposal: %s", r.body)
	}
	var st struct {
		Rounds []struct {
			Tables []struct {
				Proposals []struct{ ID, By string } `json:"proposals"`
				Proposed  map[string]int            `json:"proposed"`
			} `json:"tables"`
		} `json:"rounds"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/bo/state", "", nil).body, &st)
	tb := st.Rounds[0].Tables[0]
	if len(tb.Proposals) != 1 || tb.Proposals[0].By != t1[1] || tb.Proposals[0].ID != fmt.Sprintf("r1t1-%d", commands.MaxProposals+1) ||
		tb.Proposed[t1[0]] != commands.MaxProposals || tb.Proposed[t1[1]] != 1 {
		t.Errorf("table 1 in the state: %+v", tb)
	}
}

// gate holds the projections: while shut, the runner waits once it has
// applied a commit, before it takes the next, until open is closed. With
// appends set it holds the commands instead, once the log has stored
// them: they stay in flight, unanswered.
type gate struct {
	*api.Metrics
	shut    atomic.Bool
	appends bool
	open    chan struct{}
	stored  chan uint64 // the stream sequences stored while shut
	// holding, when set, hears that the runner stopped after a commit.
	holding chan struct{}
}

func (g *gate) Applied(n int, merkle time.Duration) {
	g.Metrics.Applied(n, merkle)
	if g.shut.Load() && !g.appends {
		select {
		case g.holding <- struct{}{}:
		default:
		}
		<-g.open
	}
}

func (g *gate) Appended(d time.Duration, ack events.Appended, err error) {
	g.Metrics.Appended(d, ack, err)
	if err == nil && g.shut.Load() {
		select {
		case g.stored <- ack.StreamSeq:
		default:
		}
		if g.appends {
			<-g.open
		}
	}
}

// TestARevokedLinkIsRefusedFromTheRevocationOn: a link revoked by a
// command the log has stored is refused from then on, although the
// projections have not applied the revocation yet (nor has it been
// answered): authorization waits for them.
func TestARevokedLinkIsRefusedFromTheRevocationOn(t *testing.T) {
	t.Parallel()
	g := &gate{Metrics: api.NewMetrics(), open: make(chan struct{}), stored: make(chan uint64, 1)}
	s := &stack{t: t, dir: t.TempDir()}
	s.opts.Observer = g
	s.start()
	t.Cleanup(s.stop)
	f := newSelfService(t, s, "bo", nil)
	p := f.tables[1][0]
	// The projections stop at the next commit, the revocation's: the log
	// stores it, the projections hold it back.
	g.shut.Store(true)
	var opened sync.Once
	release := func() { opened.Do(func() { g.shut.Store(false); close(g.open) }) }
	defer release()
	revoked := make(chan resp, 1)
	go func() {
		revoked <- s.do("POST", "/v1/tournaments/bo/commands", f.arb, fmt.Sprintf(`{"type":"RevokePlayerToken","player":%q,"reason":"slip lost"}`, p))
	}()
	select {
	case <-g.stored:
	case r := <-revoked:
		t.Fatalf("the revocation was answered %d before the log stored it: %s", r.status, r.body)
	}
	done := make(chan resp, 1)
	go func() {
		done <- s.do("POST", "/v1/tournaments/bo/commands", f.links[p], f.report("ProposeResult", p, 1))
	}()
	select {
	case r := <-done:
		t.Fatalf("the revoked link was answered %d before the projections applied the revocation: %s", r.status, r.body)
	case r := <-revoked:
		t.Fatalf("the revocation was answered %d before the projections applied it: %s", r.status, r.body)
	case <-time.After(300 * time.Millisecond):
	}
	release()
	if r := <-revoked; r.status != 201 {
		t.Errorf("the revocation: %d %s, want 201", r.status, r.body)
	}
	if r := <-done; r.status != 401 {
		t.Errorf("the revoked link: %d %s, want 401", r.status, r.body)
	}
}

// TestLinksAreIssuedToEveryoneAcknowledged: links issued to every admitted
// player include a registration the log has stored although the
// projections have not applied it yet.
func TestLinksAreIssuedToEveryoneAcknowledged(t *testing.T) {
	t.Parallel()
	g := &gate{Metrics: api.NewMetrics(), open: make(chan struct{}), stored: make(chan uint64, 1), holding: make(chan struct{}, 1)}
	s := &stack{t: t, dir: t.TempDir()}
	s.opts.Observer = g
	s.start()
	t.Cleanup(s.stop)
	arb := s.create("bo", "rtu")
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"Giocatore 1"}`)
	// The projections stop at the next commit, another tournament's:
	// the registration after it is stored, and not applied.
	g.shut.Store(true)
	var opened sync.Once
	release := func() { opened.Do(func() { g.shut.Store(false); close(g.open) }) }
	defer release()
	answers := make(chan resp, 3)
	go func() {
		answers <- s.do("POST", "/v1/tournaments", adminToken, map[string]any{"id": "other", "name": "Torneo other", "ruleset": "rtu"})
	}()
	<-g.stored
	<-g.holding
	go func() {
		answers <- s.do("POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p2","name":"Giocatore 2"}`)
	}()
	<-g.stored
	issued := make(chan resp, 1)
	go func() { issued <- s.do("POST", "/v1/tournaments/bo/player-tokens", arb, `{}`) }()
	select {
	case r := <-issued:
		t.Fatalf("links issued (%d) while a registration the log stored was not applied: %s", r.status, r.body)
	case <-time.After(300 * time.Millisecond):
	}
	release()
	for range 2 {
		if r := <-answers; r.status != 201 {
			t.Fatalf("a command held back: %d %s", r.status, r.body)
		}
	}
	r := <-issued
	var links struct {
		Tokens []struct{ Player string } `json:"tokens"`
	}
	if err := json.Unmarshal(r.body, &links); err != nil || r.status != 201 {
		t.Fatalf("issue links: %d %s", r.status, r.body)
	}
	var got []string
	for _, tk := range links.Tokens {
		got = append(got, tk.Player)
	}
	if want := []string{"p1", "p2"}; !slices.Equal(got, want) {
		t.Errorf("links issued to %v, want %v", got, want)
	}
}
