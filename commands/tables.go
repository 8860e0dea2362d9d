package commands

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// DrawTables forms the tables of the next round (docs/rules.md#8-table-formation): by the
// ruleset's algorithm with a recorded seed, or by hand when Tables is given.
type DrawTables struct {
	typed
	Round int `json:"round"`
	// Seed makes the draw reproducible; the server generates and records
	// one when it is absent.
	Seed string `json:"seed,omitempty"`
	// Tables, when given, is a manual draw.
	Tables []events.DrawnTable `json:"tables,omitempty"`
}

func (*DrawTables) CommandType() string { return "DrawTables" }

func (c *DrawTables) Check() error {
	errs := []error{checkRound(c.Round), checkText("seed", c.Seed, 200, false)}
	for i, tb := range c.Tables {
		if tb.Table != i+1 {
			errs = append(errs, fieldErr(fmt.Sprintf("tables[%d].table", i), "tables are numbered 1, 2, … in order; want %d", i+1))
		}
		for j, p := range tb.Players {
			errs = append(errs, checkID(fmt.Sprintf("tables[%d].players[%d]", i, j), p))
		}
	}
	return errors.Join(errs...)
}

// drawRule cites the table-formation rule of a ruleset.
func drawRule(rs events.Ruleset) string {
	return rulebookOf(rs).draw
}

func (c *DrawTables) decide(t *projections.Tournament, in Input) ([]events.Event, error) {
	if err := nextRound(t, c.Round, "draw"); err != nil {
		return nil, err
	}
	if c.Round == 1 && !t.RegistrationClosed {
		return nil, ruleErr(rulebookOf(t.Ruleset).registration, "close the registration (validate the entry list) before drawing game 1")
	}
	if prev := t.Round(c.Round - 1); prev != nil && !prev.Complete() {
		var open []string
		for _, tb := range prev.Tables {
			if tb.Report == nil {
				open = append(open, fmt.Sprint(tb.Number))
			}
		}
		return nil, ruleErr("docs/rules.md#8-table-formation", "round %d still has tables without a result: %s", prev.Number, strings.Join(open, ", "))
	}
	if c.Round > t.Ruleset.QualifyingRounds {
		return c.decideKnockout(t, in)
	}
	return c.decideQualifying(t, in)
}

// qualifyingDraws are the draw algorithms of the qualifying rounds, by the
// ruleset's draw method and the round.
var qualifyingDraws = map[events.DrawMethod]func(round int) string{
	events.DrawRUR: func(round int) string {
		if round == 1 {
			return draw.AlgRURGame1
		}
		return draw.AlgRURGame2
	},
	events.DrawSeeded2003: func(int) string { return draw.AlgSeeded2003 },
	events.DrawRandom:     func(int) string { return draw.AlgRandom },
}

// qualifyingAlgorithm picks the draw algorithm of a qualifying round: a
// method the ledger does not know draws at random.
func qualifyingAlgorithm(rs events.Ruleset, round int) string {
	if alg, ok := qualifyingDraws[rs.Draw]; ok {
		return alg(round)
	}
	return draw.AlgRandom
}

func (c *DrawTables) decideQualifying(t *projections.Tournament, in Input) ([]events.Event, error) {
	rs := t.Ruleset
	if missing := notCalled(t, c.Round); len(missing) > 0 {
		return nil, callIncomplete(c.Round, missing)
	}
	players, pool := participants(t, c.Round)
	alg := qualifyingAlgorithm(rs, c.Round)
	var seated []string // reserves the draw seats
	if len(c.Tables) > 0 {
		// A manual draw may seat any available reserve.
		for _, tb := range c.Tables {
			for _, p := range tb.Players {
				if slices.Contains(pool, p) {
					seated = append(seated, p)
				}
			}
		}
	} else {
		var err error
		if seated, err = reservesNeeded(len(players), pool, rs); err != nil {
			msg := strings.TrimPrefix(err.Error(), draw.ErrSizes.Error()+": ")
			if absent := absentReserves(t, c.Round); len(absent) > 0 {
				msg += fmt.Sprintf("; reserves not checked in for round %d: %s", c.Round, strings.Join(absent, ", "))
			}
			return nil, ruleErr(drawRule(rs), "%s", msg)
		}
	}
	players = append(players, seated...)
	if f := formatOf(rs); c.Round == 1 && len(players) < f.leastEntrants && editionAtLeast(t, 3) {
		// rtu's direct elimination cannot reach its final below its minimum.
		return nil, ruleErr(f.ruleOf(rs), "%d entrants for game 1: %s", len(players), f.entrants)
	}
	sizes := rs.TableSizes
	if editionAtLeast(t, 2) {
		// Direct elimination: every table sends its winner to the
		// semifinals, which seat at most 5 tables.
		var fits func(int) bool
		var err error
		if sizes, fits, err = feederSizes(t, c.Round, len(players)); err != nil {
			return nil, err
		}
		if fits != nil && len(c.Tables) > 0 && !fits(len(c.Tables)) {
			return nil, &FieldError{Field: "tables", Rule: ruleKnockout(rs), Msg: fmt.Sprintf("%d tables in round %d send more winners to the semifinals than %d tables seat: %s",
				len(c.Tables), c.Round, maxSemifinalTables, ruleSemifinals)}
		}
	}
	req := draw.Request{Algorithm: alg, Round: c.Round, Sizes: sizes, SmallTableMax: rs.SmallTableMax,
		Entrants: entrants(t, players), Past: past(t)}
	return c.run(t, in, req, events.PhaseQualifying, seated)
}

// run executes the draw (or validates the manual one) and records it.
func (c *DrawTables) run(t *projections.Tournament, in Input, req draw.Request, phase events.Phase, seated []string) ([]events.Event, error) {
	rs := t.Ruleset
	if len(c.Tables) > 0 {
		req.ManualAs, req.Algorithm = req.Algorithm, draw.AlgManual
		for _, tb := range c.Tables {
			req.Tables = append(req.Tables, draw.Table{Table: tb.Table, Players: slices.Clone(tb.Players)})
		}
	} else {
		req.Seed = c.Seed
		if req.Seed == "" {
			req.Seed = in.Seed
		}
		if req.Seed == "" {
			return nil, fieldErr("seed", "required: the server supplies one when the payload has none")
		}
	}
	run := draw.Draw
	if in.Draw != nil {
		run = in.Draw
	}
	res, err := run(req)
	switch {
	case errors.Is(err, draw.ErrSizes):
		return nil, ruleErr(drawRule(rs), "%s", strings.TrimPrefix(err.Error(), draw.ErrSizes.Error()+": "))
	case errors.Is(err, draw.ErrInput) && len(c.Tables) > 0:
		return nil, fieldErr("tables", "%s", strings.TrimPrefix(err.Error(), draw.ErrInput.Error()+": "))
	case err != nil:
		return nil, err
	}
	ev := events.TablesDrawn{Round: c.Round, Phase: phase, Algorithm: res.Algorithm, Version: res.Version, Seed: res.Seed,
		Inputs: inputsOf(req), ReservesSeated: seated}
	for _, tb := range res.Tables {
		ev.Tables = append(ev.Tables, events.DrawnTable{Table: tb.Table, Players: tb.Players})
	}
	for _, u := range res.Unmet {
		ev.Unmet = append(ev.Unmet, events.UnmetConstraint{Constraint: u.Constraint, Table: u.Table, Players: u.Players, Detail: u.Detail})
	}
	return []events.Event{ev}, nil
}

// participants returns who a qualifying round seats: active players checked
// in and admitted for the round (all active players when nobody checked in),
// with pending substitutions applied, and the reserves available to
// complete tables, in designation order.
func participants(t *projections.Tournament, round int) (players, pool []string) {
	checked := t.CheckIns[round]
	present := func(id string) bool {
		if len(checked) == 0 {
			return true
		}
		c, ok := checked[id]
		return ok && c.Admitted
	}
	subs := t.Pending[round]
	used := map[string]bool{}
	for _, id := range t.Order {
		p := t.Players[id]
		if p.Status != events.StatusActive {
			continue
		}
		if r, ok := subs[id]; ok {
			players = append(players, r)
			used[r] = true
			continue
		}
		if present(id) {
			players = append(players, id)
		}
	}
	for _, id := range t.Reserves {
		if t.Players[id].Status == events.StatusReserve && !used[id] && present(id) {
			pool = append(pool, id)
		}
	}
	return players, pool
}

// notCalled lists the active players with no check-in for a round in which
// others checked in: drawing without them would drop them silently.
func notCalled(t *projections.Tournament, round int) []string {
	called := t.CheckIns[round]
	if len(called) == 0 {
		return nil
	}
	var out []string
	for _, id := range t.Order {
		if _, ok := called[id]; !ok && t.Players[id].Status == events.StatusActive {
			if _, replaced := t.Pending[round][id]; !replaced {
				out = append(out, id)
			}
		}
	}
	return out
}

// callIncomplete refuses a draw whose call is not over.
func callIncomplete(round int, missing []string) error {
	shown := missing
	if len(shown) > 10 {
		shown = append(slices.Clone(shown[:10]), fmt.Sprintf("and %d more", len(missing)-10))
	}
	return ruleErr("docs/rules.md#11-check-in-and-lateness", "the call of round %d is incomplete: check in or mark absent %s", round, strings.Join(shown, ", "))
}

// absentReserves lists unseated reserves who did not check in for a round
// in which others did.
func absentReserves(t *projections.Tournament, round int) []string {
	var out []string
	if len(t.CheckIns[round]) == 0 {
		return nil
	}
	for _, id := range t.Reserves {
		if _, in := t.CheckIns[round][id]; !in && t.Players[id].Status == events.StatusReserve {
			out = append(out, id)
		}
	}
	return out
}

// reservesNeeded returns the fewest reserves from pool that make n players
// seatable at the ruleset's table sizes.
func reservesNeeded(n int, pool []string, rs events.Ruleset) ([]string, error) {
	_, first := draw.Plan(n, rs.TableSizes, rs.SmallTableMax)
	if first == nil {
		return nil, nil
	}
	for k := 1; k <= len(pool); k++ {
		if _, err := draw.Plan(n+k, rs.TableSizes, rs.SmallTableMax); err == nil {
			return slices.Clone(pool[:k]), nil
		}
	}
	if len(pool) > 0 {
		return nil, fmt.Errorf("%w (the %d available reserves are not enough)", first, len(pool))
	}
	return nil, first
}

func entrants(t *projections.Tournament, ids []string) []draw.Entrant {
	out := make([]draw.Entrant, 0, len(ids))
	for _, id := range ids {
		p := t.Players[id]
		out = append(out, draw.Entrant{Player: id, Club: p.Club, Region: p.Region, Rank: p.Rank})
	}
	return out
}

// past lists every scored game so far, round by round, table by table, in placement order.
func past(t *projections.Tournament) []draw.Past {
	n := 0
	for _, r := range t.Rounds {
		for _, tb := range r.Tables {
			n += len(tb.Results)
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]draw.Past, 0, n)
	for _, r := range t.Rounds {
		for _, tb := range r.Tables {
			for i := range tb.Results {
				res := &tb.Results[i]
				out = append(out, draw.Past{Player: res.Player, Round: r.Number, Table: tb.Number, Place: res.Place, Score: res.Score})
			}
		}
	}
	return out
}

// inputsOf records a draw request in its event. Each run of past games with one round and
// table is one DrawGame; the players, places and scores of all the games share three arrays.
func inputsOf(req draw.Request) events.DrawInputs {
	in := events.DrawInputs{Sizes: slices.Clone(req.Sizes), SmallTableMax: req.SmallTableMax, Bands: req.Bands, ManualAs: req.ManualAs, Rule: req.Rule}
	if len(req.Entrants) > 0 {
		in.Entrants = make([]events.DrawEntrant, len(req.Entrants))
		for i := range req.Entrants {
			e := &req.Entrants[i]
			in.Entrants[i] = events.DrawEntrant{Player: e.Player, Club: e.Club, Region: e.Region, Rank: e.Rank}
		}
	}
	ps := req.Past
	if len(ps) == 0 {
		return in
	}
	games := 1
	for k := 1; k < len(ps); k++ {
		if ps[k].Round != ps[k-1].Round || ps[k].Table != ps[k-1].Table {
			games++
		}
	}
	in.Past = make([]events.DrawGame, 0, games)
	players, places, scores := make([]string, len(ps)), make([]int, len(ps)), make([]int64, len(ps))
	for k := 0; k < len(ps); {
		round, table := ps[k].Round, ps[k].Table
		j := k
		for ; j < len(ps) && ps[j].Round == round && ps[j].Table == table; j++ {
			players[j], places[j], scores[j] = ps[j].Player, ps[j].Place, ps[j].Score
		}
		in.Past = append(in.Past, events.DrawGame{Round: round, Table: table, Players: players[k:j:j], Places: places[k:j:j], Scores: scores[k:j:j]})
		k = j
	}
	return in
}

// RequestOf rebuilds the draw request a TablesDrawn event recorded, so that
// replay can re-run the draw and compare the tables.
func RequestOf(e events.TablesDrawn) draw.Request {
	req := draw.Request{Algorithm: e.Algorithm, Round: e.Round, Sizes: e.Inputs.Sizes, SmallTableMax: e.Inputs.SmallTableMax,
		Seed: e.Seed, Bands: e.Inputs.Bands, ManualAs: e.Inputs.ManualAs, Rule: e.Inputs.Rule}
	for _, en := range e.Inputs.Entrants {
		req.Entrants = append(req.Entrants, draw.Entrant{Player: en.Player, Club: en.Club, Region: en.Region, Rank: en.Rank})
	}
	for _, g := range e.Inputs.Past {
		for i, p := range g.Players {
			var place int
			var score int64
			if i < len(g.Places) && i < len(g.Scores) {
				place, score = g.Places[i], g.Scores[i]
			}
			req.Past = append(req.Past, draw.Past{Player: p, Round: g.Round, Table: g.Table, Place: place, Score: score})
		}
	}
	if e.Algorithm == draw.AlgManual {
		for _, tb := range e.Tables {
			req.Tables = append(req.Tables, draw.Table{Table: tb.Table, Players: tb.Players})
		}
	}
	return req
}

// RecordedDraw is the result a recorded draw event holds: what draw.Draw
// returned when the draw was decided.
func RecordedDraw(e events.TablesDrawn) draw.Result {
	res := draw.Result{Algorithm: e.Algorithm, Version: e.Version, Seed: e.Seed}
	for _, tb := range e.Tables {
		res.Tables = append(res.Tables, draw.Table{Table: tb.Table, Players: slices.Clone(tb.Players)})
	}
	for _, u := range e.Unmet {
		res.Unmet = append(res.Unmet, draw.Unmet{Constraint: u.Constraint, Table: u.Table, Players: slices.Clone(u.Players), Detail: u.Detail})
	}
	return res
}

// ReplayDraw re-runs a recorded draw and reports whether it reproduces the
// recorded tables.
func ReplayDraw(e events.TablesDrawn) error {
	res, err := draw.Replay(RequestOf(e), e.Version)
	if err != nil {
		return err
	}
	if len(res.Tables) != len(e.Tables) {
		return fmt.Errorf("commands: replayed draw of round %d has %d tables, recorded %d", e.Round, len(res.Tables), len(e.Tables))
	}
	for i, tb := range res.Tables {
		if tb.Table != e.Tables[i].Table || !slices.Equal(tb.Players, e.Tables[i].Players) {
			return fmt.Errorf("commands: replayed draw of round %d differs at table %d: %v, recorded %v", e.Round, tb.Table, tb.Players, e.Tables[i].Players)
		}
	}
	return nil
}
