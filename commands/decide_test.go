package commands_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestDecide runs the given/when/then files in testdata/: each file drives
// one or more tournaments through commands, exactly as the HTTP API would
// (Decide, then fold), without storage. Regenerate with -rewrite.
//
//	new preset=rur-2015 [params={...}]   a fresh tournament "t"
//	register n=16 [clubs=4] [regions=2]  players p01..p16, clubs c1..c4
//	do                                    commands, one JSON per line; prints errors only
//	when [role=appeals]                   one command (by an arbiter unless role says); prints its events or its refusal
//	play round=1 [seed=s]                 a simulated report for every open table
//	tables round=1                        the tables and their placement
//	standings                             rank, player, total, ties
//	players                               statuses
//	replay-draws                          re-runs every recorded draw from its event
//	as-recorded-before-editions           refolds the log without its rules edition (edition 1)
//	as-recorded-under-edition edition=2   refolds the log under an earlier rules edition
func TestDecide(t *testing.T) {
	datadriven.Walk(t, "testdata/decide", func(t *testing.T, path string) {
		h := &harness{t: t}
		datadriven.RunTest(t, path, h.run)
	})
}

type harness struct {
	t     *testing.T
	st    *projections.Tournament
	envs  []events.Envelope
	nseed int
	role  string // of the official issuing the command; "" for an arbiter
	as    string // who issues it (when role=player, the player); "" for o1
	in    commands.Input
}

// firstCreated is the ruleset a creation records.
func firstCreated(evs []events.Event) (events.Ruleset, bool) {
	for _, ev := range evs {
		if c, ok := ev.(events.TournamentCreated); ok {
			return c.Ruleset, true
		}
	}
	return events.Ruleset{}, false
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "new":
		preset, params := "rur-2015", ""
		d.MaybeScanArgs(t, "preset", &preset)
		d.MaybeScanArgs(t, "params", &params)
		return h.create(preset, params)
	case "register":
		n, clubs, regions := 0, 0, 0
		d.ScanArgs(t, "n", &n)
		d.MaybeScanArgs(t, "clubs", &clubs)
		d.MaybeScanArgs(t, "regions", &regions)
		for i := 1; i <= n; i++ {
			club, region := "", ""
			if clubs > 0 {
				club = fmt.Sprintf("c%d", (i-1)%clubs+1)
			}
			if regions > 0 {
				region = fmt.Sprintf("r%d", (i-1)%regions+1)
			}
			if out := h.do(fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"Player %d","club":%q,"region":%q,"rank":%d}`, i, i, club, region, i)); out != "" {
				return out
			}
		}
		return "ok"
	case "do":
		d.MaybeScanArgs(t, "role", &h.role)
		d.MaybeScanArgs(t, "as", &h.as)
		defer func() { h.role, h.as = "", "" }()
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if res := h.do(line); res != "" {
				out = append(out, res)
			}
		}
		if len(out) == 0 {
			return "ok"
		}
		return strings.Join(out, "\n")
	case "when":
		c, err := commands.Parse([]byte(d.Input))
		if err != nil {
			return "error: " + describe(err)
		}
		h.role = events.RoleArbiter
		d.MaybeScanArgs(t, "role", &h.role)
		d.MaybeScanArgs(t, "as", &h.as)
		defer func() { h.role, h.as = "", "" }()
		return h.apply(c, true)
	case "play":
		round, seed := 0, "play"
		d.ScanArgs(t, "round", &round)
		d.MaybeScanArgs(t, "seed", &seed)
		opts := sim.Options{}
		if h.st.Ruleset.Preset == "cirki-2001" {
			opts.Risiko = 1
		}
		sm, err := sim.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(len(seed)), uint64(round)))
		if h.st.Round(round) == nil {
			return fmt.Sprintf("round %d is not drawn", round)
		}
		_, out := h.play(sm, rng, round)
		return out
	case "tables":
		round := 0
		d.ScanArgs(t, "round", &round)
		r := h.st.Round(round)
		if r == nil {
			return "not drawn"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "round %d (%s) %s v%d seed %q\n", r.Number, r.Phase, r.Algorithm, r.Version, r.Seed)
		for _, u := range r.Unmet {
			fmt.Fprintf(&b, "unmet %s at table %d: %s\n", u.Constraint, u.Table, strings.Join(u.Players, " "))
		}
		if len(r.ReservesSeated) > 0 {
			fmt.Fprintf(&b, "reserves seated: %s\n", strings.Join(r.ReservesSeated, " "))
		}
		for _, tb := range r.Tables {
			var seats []string
			for _, p := range tb.Players {
				seats = append(seats, p+"("+h.st.Players[p].Club+")")
			}
			fmt.Fprintf(&b, "table %d: %s", tb.Number, strings.Join(seats, " "))
			if tb.Results != nil {
				var pl []string
				for _, res := range tb.Results {
					pl = append(pl, fmt.Sprintf("%s %d %s", res.Player, res.Place, projections.Points(res.Score)))
				}
				fmt.Fprintf(&b, " → %s", strings.Join(pl, ", "))
			}
			b.WriteString("\n")
		}
		return b.String()
	case "standings":
		var b strings.Builder
		for _, row := range h.st.Standings().Rows {
			fmt.Fprintf(&b, "%d %s %s", row.Rank, row.Player, row.Total)
			if row.Penalties != 0 {
				fmt.Fprintf(&b, " (penalties %s)", row.Penalties)
			}
			if row.Status != events.StatusActive {
				fmt.Fprintf(&b, " [%s]", row.Status)
			}
			if row.TieUnresolved {
				fmt.Fprintf(&b, " tie_unresolved(group %d)", row.TieGroup)
			}
			b.WriteString("\n")
		}
		return b.String()
	case "classification":
		cl := h.st.Classification()
		// The flusher stores both from one ranking of the field.
		if st, both := h.st.Rankings(); !reflect.DeepEqual(both, cl) || !reflect.DeepEqual(st, h.st.Standings()) {
			t.Errorf("%s: Rankings differs from Standings and Classification", d.Pos)
		}
		var b strings.Builder
		for _, r := range cl.Rows {
			fmt.Fprintf(&b, "%d %s %s %s", r.Rank, r.Player, r.Phase, r.Total)
			if r.Place > 0 {
				fmt.Fprintf(&b, " (place %d)", r.Place)
			}
			if r.Status != events.StatusActive {
				fmt.Fprintf(&b, " [%s]", r.Status)
			}
			if r.TieUnresolved {
				fmt.Fprintf(&b, " tie_unresolved(group %d)", r.TieGroup)
			}
			b.WriteString("\n")
		}
		if len(cl.Expelled) > 0 {
			fmt.Fprintf(&b, "expelled: %s\n", strings.Join(cl.Expelled, " "))
		}
		if len(cl.Open) > 0 {
			fmt.Fprintf(&b, "open: %s\n", strings.Join(cl.Open, "; "))
		}
		return b.String()
	case "roll-ties":
		n, out := h.rollTies()
		if out != "" {
			return out
		}
		return fmt.Sprintf("%d rolls", n)
	case "ties":
		groups, sigs := h.st.TiesAwaitingRoll()
		var b strings.Builder
		for _, g := range groups {
			for _, p := range g {
				fmt.Fprintf(&b, "%s(%s) ", p, sigs[p])
			}
			b.WriteString("\n")
		}
		return b.String()
	case "sanctions":
		var b strings.Builder
		for _, s := range h.st.Sanctions {
			fmt.Fprintf(&b, "%s %s r%d t%d %s", s.Sanction, s.Player, s.Round, s.Table, s.Kind)
			if s.Amount != 0 {
				fmt.Fprintf(&b, " %d", s.Amount)
			}
			if s.Offence != "" {
				fmt.Fprintf(&b, " [%s]", s.Offence)
			}
			if s.Automatic {
				fmt.Fprintf(&b, " (automatic, cause %s)", s.Cause)
			}
			if s.Revoked {
				b.WriteString(" REVOKED")
			}
			b.WriteString("\n")
		}
		return b.String()
	case "players":
		var b strings.Builder
		for _, id := range h.st.Order {
			p := h.st.Players[id]
			fmt.Fprintf(&b, "%s %s", id, p.Status)
			var rounds []int
			for r := range h.st.CheckIns {
				rounds = append(rounds, r)
			}
			sort.Ints(rounds)
			for _, r := range rounds {
				if c, ok := h.st.CheckIns[r][id]; ok {
					fmt.Fprintf(&b, " r%d:%dmin", r, c.MinutesLate)
					if !c.Admitted {
						b.WriteString(":barred")
					}
				}
			}
			b.WriteString("\n")
		}
		return b.String()
	case "as-recorded-before-editions", "as-recorded-under-edition":
		// Fold the log again as an older referto recorded it: its
		// TournamentCreated carries no rules edition (edition 1), or the
		// edition given. Later directives read that state; decisions still
		// go through Decide.
		edition := 0
		if d.Cmd == "as-recorded-under-edition" {
			d.ScanArgs(t, "edition", &edition)
		}
		if err := h.recordedAs(edition); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("edition %d", h.st.Ruleset.RulesEdition())
	case "replay-draws":
		var b strings.Builder
		for _, env := range h.envs {
			if env.Type != events.TypeTablesDrawn {
				continue
			}
			ev, _ := events.Decode(env)
			e := ev.(events.TablesDrawn)
			if err := commands.ReplayDraw(e); err != nil {
				fmt.Fprintf(&b, "round %d: %v\n", e.Round, err)
			} else {
				fmt.Fprintf(&b, "round %d (%s): reproduced\n", e.Round, e.Algorithm)
			}
		}
		return b.String()
	}
	t.Fatalf("unknown directive %q", d.Cmd)
	return ""
}

// recordedAs folds the log again as a referto of an earlier rules edition
// recorded it: its TournamentCreated carries that edition, or none (0,
// before editions existed: edition 1).
func (h *harness) recordedAs(edition int) error {
	created := map[string]any{}
	if err := json.Unmarshal(h.envs[0].Data, &created); err != nil {
		return err
	}
	rs := created["ruleset"].(map[string]any)
	delete(rs, "edition")
	if edition > 0 {
		rs["edition"] = edition
	}
	envs := slices.Clone(h.envs)
	envs[0].Data, _ = json.Marshal(created)
	st, err := projections.Fold("t", envs, 0)
	if err != nil {
		return err
	}
	h.st, h.envs = st, envs
	return nil
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// do applies one command given as JSON, returning "" or its refusal.
func (h *harness) do(line string) string {
	c, err := commands.Parse([]byte(line))
	if err != nil {
		return "error: " + describe(err)
	}
	if out := h.apply(c, false); out != "ok" {
		return out
	}
	return ""
}

// create starts a fresh tournament "t" under preset and params.
func (h *harness) create(preset, params string) string {
	h.st, h.envs = projections.New("t"), nil
	c, err := commands.ParseAs[commands.CreateTournament]([]byte(fmt.Sprintf(`{"id":"t","name":"T","ruleset":%q,"params":%s}`, preset, orNull(params))))
	if err != nil {
		return "error: " + describe(err)
	}
	return h.apply(c, false)
}

// decide decides c against the state, as the official the harness acts
// for, without folding; fold appends what it returned.
func (h *harness) decide(c commands.Command) ([]events.Event, error) {
	h.nseed++
	role := h.role
	if role == "" {
		role = events.RoleArbiter
	}
	h.in = commands.Input{Now: time.Date(2026, 3, 7, 14, 0, 0, 0, time.UTC).Add(time.Duration(h.st.Seq) * time.Minute),
		Actor: events.Actor{ID: cmp.Or(h.as, "o1"), Role: role}, Seed: fmt.Sprintf("seed-%d", h.nseed)}
	return commands.Decide(h.st, c, h.in)
}

// fold seals the events of the last decision and applies them.
func (h *harness) fold(evs []events.Event) []events.Envelope {
	h.t.Helper()
	envs, err := events.Seal("t", h.st.Seq+1, h.in.Now, h.in.Actor, fmt.Sprintf("k%d", h.nseed), evs)
	if err != nil {
		h.t.Fatal(err)
	}
	for i, env := range envs {
		if err := h.st.Apply(env, evs[i], nil); err != nil {
			h.t.Fatalf("fold %s: %v", env.Type, err)
		}
	}
	h.envs = append(h.envs, envs...)
	return envs
}

// apply decides c against the state and folds the events; verbose prints
// them. Whatever the decision cites must be the tournament's own rulebook
// (foreignCitation).
func (h *harness) apply(c commands.Command, verbose bool) string {
	h.t.Helper()
	evs, err := h.decide(c)
	rs := h.st.Ruleset
	if created, ok := firstCreated(evs); ok {
		rs = created
	}
	if f := foreignCitation(rs, citations(evs, err)); f != "" {
		h.t.Errorf("%s under %s cites %q, another ruleset's article", c.CommandType(), rs.Preset, f)
	}
	if err != nil {
		return "error: " + describe(err)
	}
	envs := h.fold(evs)
	if !verbose {
		return "ok"
	}
	var b strings.Builder
	for _, env := range envs {
		fmt.Fprintf(&b, "%d %s %s\n", env.Seq, env.Type, compact(env.Data))
	}
	return b.String()
}

func compact(b json.RawMessage) string {
	var v any
	_ = json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return string(out)
}

// leafErrors flattens an error tree built with errors.Join into its leaves.
func leafErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, x := range j.Unwrap() {
			out = append(out, leafErrors(x)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// describe renders a refusal as "<code> [rule] field: message", one line per problem.
func describe(err error) string {
	var re *commands.RuleError
	var lines []string
	for _, e := range leafErrors(err) {
		var fe *commands.FieldError
		switch {
		case errors.As(e, &fe):
			s := "invalid " + fe.Field
			if fe.Rule != "" {
				s += " [" + fe.Rule + "]"
			}
			lines = append(lines, s+": "+fe.Msg)
		case errors.As(e, &re):
			lines = append(lines, "rule_violation ["+re.Rule+"]: "+re.Msg)
		case errors.Is(e, events.ErrConflict):
			lines = append(lines, "conflict: "+strings.TrimPrefix(e.Error(), "events: conflict: "))
		case errors.Is(e, commands.ErrForbidden):
			lines = append(lines, "forbidden: "+strings.TrimPrefix(e.Error(), "commands: forbidden: "))
		case errors.Is(e, commands.ErrNotFound):
			lines = append(lines, "not_found: "+strings.TrimPrefix(e.Error(), "commands: not found: "))
		default:
			lines = append(lines, "other: "+e.Error())
		}
	}
	return strings.Join(lines, "\n")
}

// play reports every open table of round with the simulator (with die
// rolls when the table ties), and returns "ok", or the first table refused
// and why.
// rollTies resolves every tie awaiting a roll, as the arbiters would:
// distinct faces, in player order, repeated until no tie is left. It
// returns the rolls recorded, or the refusal of one.
func (h *harness) rollTies() (int, string) {
	n := 0
	for range 20 {
		groups, _ := h.st.TiesAwaitingRoll()
		if len(groups) == 0 {
			break
		}
		for _, g := range groups {
			rolls := make([]int, len(g))
			for i := range g {
				rolls[i] = 6 - i%6
			}
			js, _ := json.Marshal(map[string]any{"type": "RecordTieBreakRoll", "players": g, "rolls": rolls})
			if out := h.do(string(js)); out != "" {
				return n, out
			}
			n++
		}
	}
	return n, ""
}

func (h *harness) play(sm *sim.Simulator, rng *rand.Rand, round int) (int, string) {
	for _, tb := range h.st.Round(round).Tables {
		if tb.Report != nil || tb.Annulled != nil {
			continue
		}
		rep := sm.Report(rng, round, tb.Number, tb.Players)
		out := h.apply(&rep, false)
		if strings.Contains(out, "invalid rolls") {
			rep.Rolls = sim.Rolls(rng, tb.Players)
			out = h.apply(&rep, false)
		}
		if out != "ok" {
			return tb.Number, out
		}
	}
	return 0, "ok"
}
