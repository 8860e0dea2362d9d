package commands_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/replay"
)

// goldenTournament is one simulated tournament of TestDecideDrawsGolden.
type goldenTournament struct {
	preset, params        string
	players, clubs, regns int
	withdraw              int // players withdrawn from the tournament after each round
	// edition is the rules edition the tournament is recorded under
	// (docs/rules.md#22-editions-of-the-reading); 0: the current one.
	edition int
}

// goldenTournaments are recorded under edition 3, as the hashes were: a
// log recorded then draws the same forever. The last two are the current
// edition's, whose knockout draws name the tournament's own article.
var goldenTournaments = []goldenTournament{
	{preset: "rur-2015", players: 40, clubs: 6, regns: 3, edition: 3},
	{preset: "rur-2015", players: 132, clubs: 20, regns: 5, edition: 3},
	{preset: "campionato-2003", params: `{"qualifying_rounds":8}`, players: 123, clubs: 15, regns: 4, withdraw: 1, edition: 3},
	{preset: "cirki-2001", params: `{"qualifying_rounds":6}`, players: 57, clubs: 9, regns: 3, withdraw: 2, edition: 3},
	{preset: "rtu", params: `{"qualifying_rounds":10}`, players: 250, clubs: 40, regns: 8, withdraw: 1, edition: 3},
	{preset: "master", params: `{"qualifying_rounds":4}`, players: 64, clubs: 8, regns: 2, edition: 3},
	{preset: "rur-2015", players: 40, clubs: 6, regns: 3},
	{preset: "master", params: `{"qualifying_rounds":4}`, players: 64, clubs: 8, regns: 2},
}

// name is how the golden lines name the tournament.
func (g goldenTournament) name() string {
	if g.edition == 0 {
		return fmt.Sprintf("%s/%d/current", g.preset, g.players)
	}
	return fmt.Sprintf("%s/%d", g.preset, g.players)
}

// playTournament drives one tournament through commands.Decide and the fold, drawing and
// playing round after round until a draw is refused, and returns one line per draw: the
// round and the SHA-256 of the TablesDrawn event's JSON (tables, unmet, seed, recorded
// inputs), or the refusal.
func playTournament(t *testing.T, g goldenTournament) []string {
	_, lines := playGolden(t, g)
	return lines
}

// playGolden is playTournament, with the harness that played it.
func playGolden(t *testing.T, g goldenTournament) (*harness, []string) {
	h := registered(t, g)
	opts := sim.Options{}
	if g.preset == "cirki-2001" {
		opts.Risiko, opts.BoardChecked = 1, 1e-12 // cirki reports figures: no objective set
	}
	sm, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for round := 1; round <= 30; round++ {
		n := len(h.envs)
		if out := h.do(fmt.Sprintf(`{"type":"DrawTables","round":%d,"seed":"golden-%d"}`, round, round)); out != "" {
			return h, append(lines, fmt.Sprintf("round %d: %s", round, out))
		}
		for _, env := range h.envs[n:] {
			if env.Type == events.TypeTablesDrawn {
				sum := sha256.Sum256(env.Data)
				lines = append(lines, fmt.Sprintf("round %d: %s", round, hex.EncodeToString(sum[:])))
			}
		}
		rng := rand.New(rand.NewPCG(uint64(g.players), uint64(round)))
		if tb, out := h.play(sm, rng, round); out != "ok" {
			return h, append(lines, fmt.Sprintf("round %d table %d: %s", round, tb, out))
		}
		if _, out := h.rollTies(); out != "" {
			return h, append(lines, fmt.Sprintf("round %d rolls: %s", round, out))
		}
		for k := range g.withdraw {
			id := fmt.Sprintf("p%02d", (round*17+k*5)%g.players+1)
			if h.st.Players[id].Status != events.StatusActive {
				continue
			}
			if out := h.do(fmt.Sprintf(`{"type":"Withdraw","player":%q,"scope":"tournament","reason":"voluntary"}`, id)); out != "" {
				lines = append(lines, fmt.Sprintf("round %d withdraw %s: %s", round, id, out))
			}
		}
	}
	return h, lines
}

// TestBandDrawsOfEveryEditionVerify: a master tournament recorded under
// edition 3, whose semifinal draw cites rur-2015 art. 8 by version 1 of the
// band draw, and one of the current edition, whose draw names and cites
// master's own article by version 2, each verify: every draw decided again
// from the log before it and re-run gives what was recorded.
func TestBandDrawsOfEveryEditionVerify(t *testing.T) {
	for _, edition := range []int{3, 0} {
		g := goldenTournament{preset: "master", params: `{"qualifying_rounds":2}`, players: 32, clubs: 3, regns: 2, edition: edition}
		h, lines := playGolden(t, g)
		var semis *events.TablesDrawn
		for _, env := range h.envs {
			if ev, err := events.Decode(env); err == nil {
				if d, ok := ev.(events.TablesDrawn); ok && d.Phase == events.PhaseSemifinal {
					semis = &d
				}
			}
		}
		if semis == nil || len(semis.Unmet) == 0 {
			t.Fatalf("%s: no semifinal draw with unmet constraints: %v", g.name(), lines)
		}
		wantVersion, wantRule := 2, "(master §fasi finali)"
		if edition == 3 {
			wantVersion, wantRule = 1, "(rur-2015 art. 8)"
		}
		if semis.Version != wantVersion || !strings.HasSuffix(semis.Unmet[0].Detail, wantRule) {
			t.Errorf("%s: bands v%d citing %q, want v%d citing %s", g.name(), semis.Version, semis.Unmet[0].Detail, wantVersion, wantRule)
		}
		envs := slices.Clone(h.envs)
		if err := events.Chain(envs, nil); err != nil {
			t.Fatal(err)
		}
		log, err := events.EncodeCommit(envs)
		if err != nil {
			t.Fatal(err)
		}
		rep := replay.Verify(replay.NewScannerBytes(log, nil), replay.VerifyOptions{})
		drawsChecked := false
		for _, c := range rep.Checks {
			if strings.Contains(c.What, "draw") {
				drawsChecked = drawsChecked || c.OK
				if !c.OK {
					t.Errorf("%s: line %d: %s", g.name(), c.Line, c.What)
				}
			}
		}
		if !drawsChecked {
			t.Errorf("%s: verify reports no draw re-run: %+v", g.name(), rep.Checks)
		}
	}
}

// TestDecideDrawsGolden plays simulated tournaments of every preset through commands.Decide
// and requires the TablesDrawn events recorded in decide_golden_test.go, recorded with the
// code before past and inputsOf (and the draw's prepare and metBefore) were rewritten, under
// rules edition 3: the tables, unmet constraints and recorded inputs of every draw must not
// change. The current edition's tournaments are pinned beside them.
// REFERTO_DECIDE_GOLDEN=path rewrites that file from the current code instead.
func TestDecideDrawsGolden(t *testing.T) {
	var all []string
	for _, g := range goldenTournaments {
		name := g.name()
		for _, line := range playTournament(t, g) {
			all = append(all, name+" "+line)
		}
	}
	if out := os.Getenv("REFERTO_DECIDE_GOLDEN"); out != "" {
		var b strings.Builder
		b.WriteString("package commands_test\n\n// Code generated by TestDecideDrawsGolden with REFERTO_DECIDE_GOLDEN set; DO NOT EDIT.\n\n")
		b.WriteString("// decideGolden lists, per simulated tournament, every draw's SHA-256 of its TablesDrawn\n// JSON as the code gave it before past, inputsOf, prepare and metBefore were rewritten.\n")
		b.WriteString("var decideGolden = []string{\n")
		for _, l := range all {
			fmt.Fprintf(&b, "\t%q,\n", l)
		}
		b.WriteString("}\n")
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(all) != len(decideGolden) {
		t.Errorf("%d draws, recorded %d", len(all), len(decideGolden))
	}
	for i := range min(len(all), len(decideGolden)) {
		if all[i] != decideGolden[i] {
			t.Errorf("draw %d: %s, recorded %s", i, all[i], decideGolden[i])
		}
	}
}

// registered is a harness holding tournament "t" of g's ruleset with g's
// players registered and the registration closed.
func registered(t *testing.T, g goldenTournament) *harness {
	h := &harness{t: t, st: projections.New("t")}
	c, err := commands.ParseAs[commands.CreateTournament]([]byte(fmt.Sprintf(`{"id":"t","name":"T","ruleset":%q,"params":%s}`, g.preset, orNull(g.params))))
	if err != nil {
		t.Fatal(err)
	}
	if out := h.apply(c, false); out != "ok" {
		t.Fatal(out)
	}
	if g.edition > 0 {
		if err := h.recordedAs(g.edition); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= g.players; i++ {
		line := fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"Player %d","club":"c%d","region":"r%d","rank":%d}`, i, i, (i*7)%g.clubs, (i*3)%g.regns, (i*13)%(g.players+1))
		if out := h.do(line); out != "" {
			t.Fatal(out)
		}
	}
	if out := h.do(`{"type":"CloseRegistration"}`); out != "" {
		t.Fatal(out)
	}
	return h
}

// TestDrawRequestOwnsItsEntrantsAndPast: the request a draw gets (Input.Draw)
// shares its entrants and past games with nothing, so that replay.Verify
// may run the search on them while the fold changes the state.
func TestDrawRequestOwnsItsEntrantsAndPast(t *testing.T) {
	h := registered(t, goldenTournament{preset: "rtu", params: `{"qualifying_rounds":4}`, players: 24, clubs: 5, regns: 2})
	sm, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 2; round++ {
		if out := h.do(fmt.Sprintf(`{"type":"DrawTables","round":%d,"seed":"s%d"}`, round, round)); out != "" {
			t.Fatal(out)
		}
		if tb, out := h.play(sm, rand.New(rand.NewPCG(1, uint64(round))), round); out != "ok" {
			t.Fatalf("round %d table %d: %s", round, tb, out)
		}
	}
	decide := func(in *commands.Input) string {
		evs, err := commands.Decide(h.st, &commands.DrawTables{Round: 3, Seed: "s3"}, *in)
		if err != nil {
			t.Fatal(err)
		}
		return mustJSON(t, evs)
	}
	var req draw.Request
	in := commands.Input{Seed: "s3", Draw: func(r draw.Request) (draw.Result, error) {
		req = r
		return draw.Draw(r)
	}}
	state := mustJSON(t, h.st)
	first := decide(&in)
	if len(req.Past) == 0 || len(req.Entrants) == 0 {
		t.Fatalf("round 3 drew with %d entrants and %d past games", len(req.Entrants), len(req.Past))
	}
	for i := range req.Past {
		req.Past[i] = draw.Past{Player: "scribbled"}
	}
	for i := range req.Entrants {
		req.Entrants[i] = draw.Entrant{Player: "scribbled"}
	}
	if got := mustJSON(t, h.st); got != state {
		t.Fatal("changing the request's entrants and past changed the state")
	}
	if again := decide(&commands.Input{Seed: "s3"}); again != first {
		t.Fatalf("deciding again after changing the request:\n%s\n%s", again, first)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
