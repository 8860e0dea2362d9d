package commands

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/board"
	"github.com/referto/referto/projections/scoring"
)

// SeatInput is one player's line of a RecordResult payload. The figures
// may be omitted when the objective and the territories held are given:
// the ledger then computes them from the board.
type SeatInput struct {
	Player               string            `json:"player"`
	Turn                 int               `json:"turn"`
	TablePoints          *int              `json:"table_points"`
	OffObjectivePoints   *int              `json:"off_objective_points"`
	ObjectiveTerritories *int              `json:"objective_territories"`
	Territories          *int              `json:"territories"`
	Armies               int               `json:"armies"`
	ObjectiveArmies      int               `json:"objective_armies"`
	Cards                int               `json:"cards"`
	Status               events.SeatStatus `json:"status"`
	EliminatedOrder      int               `json:"eliminated_order"`
	Objective            int               `json:"objective"`
	TerritoriesHeld      []string          `json:"territories_held"`
	// Withdrawal, on a withdrawn line, is why the player left the game
	// (events.WithdrawalReasons) when no withdrawal from it was recorded
	// before the report: the report then records it, and what it entails
	// (withdrawalExpels) is appended with the report.
	Withdrawal string `json:"withdrawal,omitempty"`
}

// RecordResult records a table report (docs/rules.md#3-table-report-referto).
type RecordResult struct {
	typed
	Round    int            `json:"round"`
	Table    int            `json:"table"`
	ClosedBy events.Closing `json:"closed_by"`
	Winner   string         `json:"winner,omitempty"`
	Risiko   bool           `json:"risiko,omitempty"`
	Players  []SeatInput    `json:"players"`
	Rolls    map[string]int `json:"rolls,omitempty"`
	// Proposal, instead of the report, records the report players of the
	// table proposed (ProposeResult): the arbiter's one action.
	Proposal string `json:"proposal,omitempty"`
}

func (*RecordResult) CommandType() string { return "RecordResult" }

// Check verifies what needs no state: ids, bounds (so that no figure can
// overflow a sum) and the shape of board-checked lines. The rules of the
// report (docs/rules.md#3-table-report-referto) are checked by Decide, all problems at once.
func (c *RecordResult) Check() error {
	errs := []error{checkRound(c.Round), checkTable(c.Table)}
	if c.Proposal != "" {
		errs = append(errs, checkID("proposal", c.Proposal))
		if len(c.Players) > 0 || c.ClosedBy != "" || c.Winner != "" || c.Risiko || len(c.Rolls) > 0 {
			errs = append(errs, fieldErr("proposal", "records the proposal's report as it stands: leave out closed_by, winner, risiko, players and rolls"))
		}
		return errors.Join(errs...)
	}
	if c.Winner != "" {
		errs = append(errs, checkID("winner", c.Winner))
	}
	if len(c.Players) == 0 {
		errs = append(errs, fieldErr("players", "required: one line per seated player"),
			fieldErr("proposal", "or, instead of the report, the id of the players' proposal to record"))
	}
	for i, p := range c.Players {
		f := func(name string) string { return fmt.Sprintf("players[%d].%s", i, name) }
		errs = append(errs, checkID(f("player"), p.Player))
		for _, name := range slices.Sorted(maps.Keys(bounded(p))) {
			if v := bounded(p)[name]; v > 10_000 || v < -10_000 {
				errs = append(errs, fieldErr(f(name), "must be between 0 and 10000"))
			}
		}
		held := p.TerritoriesHeld != nil || p.Objective != 0
		if p.TablePoints == nil && !held {
			errs = append(errs, fieldErr(f("table_points"), "required unless the objective and territories_held are given"))
		}
		if held && (p.Objective == 0 || len(p.TerritoriesHeld) > board.TerritoryCount) {
			errs = append(errs, fieldErr(f("objective"), "a board-checked line gives the objective card id and at most %d territories held", board.TerritoryCount))
		}
		switch {
		case p.Withdrawal == "":
		case !slices.Contains(events.WithdrawalReasons(), p.Withdrawal):
			errs = append(errs, fieldErr(f("withdrawal"), "must be %s, not %q", events.JoinOr(events.WithdrawalReasons()), p.Withdrawal))
		case p.Status != events.SeatWithdrawn:
			errs = append(errs, fieldErr(f("withdrawal"), "says why a withdrawn player left the game; this player is %s", p.Status))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(c.Rolls)) {
		if r := c.Rolls[p]; r < 1 || r > 6 || !events.ValidID(p) {
			errs = append(errs, fieldErr("rolls."+p, "a die roll of a seated player, 1 to 6"))
		}
	}
	return errors.Join(errs...)
}

// bounded lists a line's figures by field name.
func bounded(p SeatInput) map[string]int {
	return map[string]int{"table_points": or(p.TablePoints, 0), "off_objective_points": or(p.OffObjectivePoints, 0),
		"objective_territories": or(p.ObjectiveTerritories, 0), "territories": or(p.Territories, 0), "turn": p.Turn,
		"armies": p.Armies, "objective_armies": p.ObjectiveArmies, "cards": p.Cards, "eliminated_order": p.EliminatedOrder,
		"objective": p.Objective}
}

func (c *RecordResult) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if c.Proposal != "" {
		return c.recordProposal(t)
	}
	tb, err := openTable(t, c.Round, c.Table)
	if err != nil {
		return nil, err
	}
	ev, err := c.report(t, tb)
	if err != nil {
		return nil, err
	}
	return withConsequences(t, ev, nil)
}

// withConsequences returns the report with what its lines entail, appended
// in the same commit: a withdrawal the report records (a withdrawn line's
// withdrawal) that expels under the ruleset (withdrawalExpels) appends the
// expulsion and the repechage it calls for, as Withdraw does. A player
// already expelled is not expelled again, nor, in a correction (prev, the
// report it replaces), one whose line says what it said before.
func withConsequences(t *projections.Tournament, report events.Event, prev *events.ResultRecorded) ([]events.Event, error) {
	ev, ok := report.(events.ResultRecorded)
	if a, amended := report.(events.ResultAmended); amended {
		ev, ok = a.ResultRecorded, true
	}
	out := []events.Event{report}
	if !ok {
		return out, nil
	}
	k := 0
	for _, p := range ev.Players {
		if p.Withdrawal == "" || t.Expelled(p.Player) {
			continue
		}
		if prev != nil && slices.ContainsFunc(prev.Players, func(q events.SeatReport) bool { return q.Player == p.Player && q.Withdrawal == p.Withdrawal }) {
			continue
		}
		rule, why := withdrawalExpels(t.Ruleset, "game", p.Withdrawal)
		if rule == "" {
			continue
		}
		out = append(out, events.SanctionImposed{Sanction: nextSanctionID(t, k), Player: p.Player, Round: ev.Round, Table: ev.Table,
			Kind: events.SanctionExpulsion, Article: rule, Automatic: true, Reason: why + " (table report)"})
		k++
		more, err := vacate(t, p.Player)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// amend is a report given as a correction: it replaces the table's report
// (or records a missing one) by ruling.
func (c *RecordResult) amend(t *projections.Tournament, contestation string) ([]events.Event, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	tb := t.Round(c.Round).Table(c.Table)
	if tb == nil {
		return nil, notFound("table %d of round %d", c.Table, c.Round)
	}
	ev, err := c.report(t, tb)
	if err != nil {
		return nil, err
	}
	return withConsequences(t, events.ResultAmended{ResultRecorded: ev, Contestation: contestation}, tb.Report)
}

// report validates the payload against a table and builds the report.
func (c *RecordResult) report(t *projections.Tournament, tb *projections.Table) (events.ResultRecorded, error) {
	var reported []string
	for _, p := range c.Players {
		reported = append(reported, p.Player)
	}
	if !samePlayers(tb.Players, reported) {
		return events.ResultRecorded{}, fieldErr("players", "table %d of round %d seats %s; the report names %s",
			c.Table, c.Round, strings.Join(tb.Players, ", "), strings.Join(reported, ", "))
	}
	ev := events.ResultRecorded{Round: c.Round, Table: c.Table, ClosedBy: c.ClosedBy, Winner: c.Winner, Risiko: c.Risiko, Rolls: c.Rolls}
	setName, err := c.boardCheck(t, &ev)
	if err != nil {
		return events.ResultRecorded{}, err
	}
	ev.ObjectiveSet = setName
	errs := boardBounds(t.Ruleset, ev)
	if !slices.Contains(events.Closings(), c.ClosedBy) {
		errs = append(errs, fieldErr("closed_by", "must be %s, not %q", events.JoinOr(events.Closings()), c.ClosedBy))
	} else if !slices.Contains(t.Ruleset.Closings, c.ClosedBy) {
		rule := rulebookOf(t.Ruleset).closings
		errs = append(errs, &FieldError{Field: "closed_by", Rule: rule, Msg: fmt.Sprintf("this ruleset ends games only by %s, not %s", events.Join(t.Ruleset.Closings, " or "), c.ClosedBy)})
	} else if c.Risiko != c.ClosedBy.Risiko() {
		errs = append(errs, &FieldError{Field: "risiko", Rule: "docs/rules.md#3-table-report-referto", Msg: fmt.Sprintf("a game closes by objective exactly when the winner made risiko (closed_by %q, risiko %v)", c.ClosedBy, c.Risiko)})
	}
	for i, p := range ev.Players {
		if slices.Contains(tb.Withdrew, p.Player) && !p.Status.Out() {
			errs = append(errs, &FieldError{Field: fmt.Sprintf("players[%d].status", i), Rule: withdrawalRule(t.Ruleset),
				Msg: fmt.Sprintf("%s withdrew from this game (recorded earlier); the report must say withdrawn, not %s", p.Player, p.Status)})
		}
		errs = append(errs, leftTheGame(t, tb, c.Round, i, p)...)
		if tb.TurnOrder != nil && (p.Turn < 1 || p.Turn > len(tb.TurnOrder) || tb.TurnOrder[p.Turn-1] != p.Player) {
			errs = append(errs, fieldErr(fmt.Sprintf("players[%d].turn", i), "%s plays %s in the recorded turn order (%s)",
				p.Player, ordinal(slices.Index(tb.TurnOrder, p.Player)+1), strings.Join(tb.TurnOrder, ", ")))
		}
	}
	st := t.ScoringTable(c.Round, &ev)
	if err := scoring.Validate(t.Rules(), st); err != nil {
		errs = append(errs, fromScoring(err))
	}
	if err := errors.Join(errs...); err != nil {
		return ev, err // the report as far as it goes: a proposal keeps one breaking only board bounds
	}
	res, err := scoring.Score(t.Rules(), st)
	if err != nil {
		return events.ResultRecorded{}, fieldErr("players", "%v", err)
	}
	// A tie the whole chain cannot break ends in a die roll at the table,
	// which the report must carry; without it the order would be the order
	// the lines were typed in.
	// Where the table's placement decides who goes on (a knockout round, or
	// game 1 of rtu's direct elimination), a shared place (split_bonus,
	// maialino) still needs its order: the chain's, then the die's (rtu:
	// "questi i criteri solitamente usati per stabilire il vincitore della
	// partita: … lancio del dado").
	decides := placementDecides(t, c.Round)
	var tied []string
	for _, r := range res {
		if r.Unresolved || decides && r.Level {
			tied = append(tied, r.Player)
		}
	}
	if len(tied) > 0 {
		return events.ResultRecorded{}, &FieldError{Field: "rolls", Rule: "docs/rules.md#4-placement-at-a-table", Msg: fmt.Sprintf("%s are level on every step of the %s tie chain: record the die roll at the table in rolls, e.g. {%q: 5, %q: 2}",
			strings.Join(tied, ", "), t.Ruleset.TieChain, tied[0], tied[1%len(tied)])}
	}
	if c.Winner != "" && !c.Risiko {
		var first []string
		for _, r := range res {
			if r.Place == 1 {
				first = append(first, r.Player)
			}
		}
		if !slices.Contains(first, c.Winner) {
			return events.ResultRecorded{}, ruleErr("docs/rules.md#4-placement-at-a-table", "the placement rules put %s first, not %s (tie chain %s)", strings.Join(first, " and "), c.Winner, t.Ruleset.TieChain)
		}
	}
	return ev, nil
}

// leftTheGame checks a line that says the player left the game, withdrawn
// or disqualified, against what the ledger knows of why
// (docs/rules.md#9-withdrawal-renunciation-repechage,
// docs/rules.md#103-pinned-disqualification-depends-on-the-rulebook): the
// reason decides whether he is expelled, so the line never stands alone.
//
//   - withdrawn: his withdrawal from this game was recorded (Withdraw), or
//     the line says why he left (withdrawal), which the report then records
//     with its consequences; not both.
//   - disqualified: a disqualification from this game is in force: it is
//     the arbiters' sanction (ImposeSanction), which names its offence where
//     the regime needs one, and expels where the rulebook says so.
func leftTheGame(t *projections.Tournament, tb *projections.Table, round, i int, p events.SeatReport) []error {
	f := func(name string) string { return fmt.Sprintf("players[%d].%s", i, name) }
	switch p.Status {
	case events.SeatWithdrawn:
		recorded := slices.Contains(tb.Withdrew, p.Player)
		switch {
		case recorded && p.Withdrawal != "":
			return []error{&FieldError{Field: f("withdrawal"), Rule: withdrawalRule(t.Ruleset), Msg: fmt.Sprintf(
				"%s's withdrawal from this game is recorded already (Withdraw), with its reason: leave withdrawal out of his line", p.Player)}}
		case !recorded && p.Withdrawal == "":
			return []error{&FieldError{Field: f("withdrawal"), Rule: withdrawalRule(t.Ruleset), Msg: fmt.Sprintf(
				"%s is reported withdrawn: say why he left the game, withdrawal %s (%s), or record his withdrawal first (Withdraw, scope game)",
				p.Player, events.JoinOr(events.WithdrawalReasons()), withdrawalConsequence(t.Ruleset))}}
		}
	case events.SeatDisqualified:
		for _, s := range t.Sanctions {
			if !s.Revoked && s.Kind == events.SanctionDisqualification && s.Player == p.Player && s.Round == round && s.Table == tb.Number {
				return nil
			}
		}
		how := fmt.Sprintf("ImposeSanction, kind disqualification, round %d, table %d", round, tb.Number)
		if t.Ruleset.DisqualifiedAsWithdrawn() {
			how += ", offence " + events.JoinOr(events.Offences())
		}
		return []error{&FieldError{Field: f("status"), Rule: disqualificationRule(t.Ruleset), Msg: fmt.Sprintf(
			"%s is reported disqualified, and no disqualification from this game is in force: it is the arbiters' sanction, which says whether he is also expelled; impose it first (%s)",
			p.Player, how)}}
	}
	return nil
}

// withdrawalConsequence says which reasons for leaving a game expel under
// the ruleset.
func withdrawalConsequence(rs events.Ruleset) string {
	switch reg := regimeOf(rs); {
	case reg.leavingExpels:
		return "anything but " + events.WithdrawalForceMajeure + " expels him from the tournament"
	case reg.refusalExpels:
		return events.WithdrawalRulingRefused + " expels him from the tournament"
	}
	return "none expels him from the tournament by itself"
}

// disqualificationRule is the article that says what a disqualification
// from a game does under the ruleset's regime.
func disqualificationRule(rs events.Ruleset) string { return regimeOf(rs).disqualification }

// placementDecides reports whether the placement at the tables of round
// decides who goes on or where they are classified: a knockout round, or the
// single qualifying game of rtu's direct elimination, whose table winners go
// to the semifinals.
func placementDecides(t *projections.Tournament, round int) bool {
	r := t.Round(round)
	if r == nil {
		return false
	}
	return r.Phase != events.PhaseQualifying || formatOf(t.Ruleset).direct
}

// boardCheck fills ev.Players from the payload, computing or checking the
// figures of board-checked lines. It returns the objective set used, if any.
func (c *RecordResult) boardCheck(t *projections.Tournament, ev *events.ResultRecorded) (string, error) {
	holdings := map[string]board.Holding{}
	index := map[string]int{}
	for i, p := range c.Players {
		index[p.Player] = i
		if p.Objective != 0 {
			holdings[p.Player] = board.Holding{Objective: p.Objective, Territories: p.TerritoriesHeld}
		}
	}
	var computed map[string]board.Computed
	setName := ""
	if len(holdings) > 0 {
		m, set, err := objectiveSet(t.Ruleset)
		if err != nil {
			return "", err
		}
		setName = set.ID
		if computed, err = set.CheckTable(m, holdings); err != nil {
			return "", boardErr(err, index)
		}
	}
	var errs []error
	for i, p := range c.Players {
		s := events.SeatReport{Player: p.Player, Turn: p.Turn, Armies: p.Armies, ObjectiveArmies: p.ObjectiveArmies,
			Cards: p.Cards, Status: p.Status, EliminatedOrder: p.EliminatedOrder, Objective: p.Objective,
			TerritoriesHeld: slices.Clone(p.TerritoriesHeld), Withdrawal: p.Withdrawal}
		if comp, ok := computed[p.Player]; ok {
			if c.Risiko && c.Winner == p.Player && !comp.Complete {
				errs = append(errs, &FieldError{Field: fmt.Sprintf("players[%d].territories_held", i), Rule: rulebookOf(t.Ruleset).risikoClaim,
					Msg: fmt.Sprintf("risiko claims objective %d complete, but %s does not hold %s", p.Objective, p.Player, missing(comp, p.Objective, t.Ruleset))})
			}
			// Stated figures must agree with the board; omitted ones are the board's.
			stated := board.Reported{TablePoints: or(p.TablePoints, comp.TablePoints), OffObjectivePoints: or(p.OffObjectivePoints, comp.OffObjectivePoints),
				ObjectiveTerritories: or(p.ObjectiveTerritories, comp.ObjectiveTerritories), Territories: or(p.Territories, comp.Territories)}
			// A ruleset that writes a RisiKo! in table points lets the
			// winner's line say so over the objective the board finds
			// complete (campionato-2003: "viene conteggiato in PUNTI TAVOLO
			// con un punteggio eguale a 100").
			writtenRisiko := c.Risiko && c.Winner == p.Player && comp.Complete && rulebookOf(t.Ruleset).risiko != "" && stated.TablePoints == risikoTablePoints
			if writtenRisiko {
				stated.TablePoints = comp.TablePoints
			}
			if err := comp.Check(stated); err != nil {
				errs = append(errs, fieldErr(fmt.Sprintf("players[%d].table_points", i), "%v", err))
			}
			s.TablePoints, s.OffObjectivePoints, s.ObjectiveTerritories, s.Territories =
				comp.TablePoints, comp.OffObjectivePoints, comp.ObjectiveTerritories, comp.Territories
			if writtenRisiko {
				s.TablePoints = risikoTablePoints
			}
		} else {
			s.TablePoints, s.OffObjectivePoints = or(p.TablePoints, 0), or(p.OffObjectivePoints, 0)
			s.ObjectiveTerritories, s.Territories = or(p.ObjectiveTerritories, 0), or(p.Territories, 0)
		}
		ev.Players = append(ev.Players, s)
	}
	return setName, errors.Join(errs...)
}

// boardBounds refuses figures the board cannot produce (docs/rules.md#31-pinned-board-bounds),
// each problem naming its bound and where the bound comes from:
//
//   - table points at most the points of the most valuable objective of the
//     tournament's set (table points count only objective territories), or
//     of the whole board when the ruleset names no set; a RisiKo! winner's
//     line may give the figure his ruleset writes a RisiKo! as
//     (campionato-2003: "viene conteggiato in PUNTI TAVOLO con un punteggio
//     eguale a 100"), counted at what his objective is worth;
//   - table points at most [board.MostNeighbours] times the objective
//     territories, where the line gives them (a number above 0; a line that
//     leaves them out reads 0): no territory is worth more;
//   - table points and off-objective points together at most the whole
//     board's, [board.BoardPoints]: they are one sum over the territories held;
//   - objective territories at most the territories held, which must then be
//     given: the objective territories a player holds are some of the
//     territories he holds;
//   - table-wide, each territory having one owner: the table points of the
//     table add up to at most [board.BoardPoints], and so do its table points
//     plus off-objective points; its territories add up to at most
//     [board.TerritoryCount];
//   - armies at most the ruleset's army limit, where it sets one.
//
// The board and the objectives are the reference data embedded in
// projections/board (data/map.json, data/objectives.json).
func boardBounds(rs events.Ruleset, ev events.ResultRecorded) []error {
	const rule = "docs/rules.md#31-pinned-board-bounds"
	var errs []error
	bound := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{bound: true, Field: field, Rule: rule, Msg: fmt.Sprintf(format, args...)})
	}
	most, source := board.BoardPoints, "what the whole board is worth (projections/board/data/map.json; the ruleset names no objective set)"
	if o, set, ok := mostValuable(rs); ok {
		most, source = o.Points, fmt.Sprintf("the most any objective of set %s is worth (objective %d; projections/board/data/objectives.json)", set, o.ID)
	}
	risikoRule := rulebookOf(rs).risiko
	territories, tableTP, tableAll := 0, 0, 0
	for i, p := range ev.Players {
		f := func(name string) string { return fmt.Sprintf("players[%d].%s", i, name) }
		// What the line's table points stand for on the board.
		counted, over := p.TablePoints, true
		switch {
		case ev.Risiko && p.Player == ev.Winner && risikoRule != "" && p.TablePoints == risikoTablePoints:
			counted, over = most, false
		case p.TablePoints > most && ev.Risiko && p.Player == ev.Winner && risikoRule != "":
			errs = append(errs, &FieldError{bound: true, Field: f("table_points"), Rule: risikoRule,
				Msg: fmt.Sprintf("%d table points is more than the board can give: at most %d, %s; a RisiKo! is written as %d", p.TablePoints, most, source, risikoTablePoints)})
			counted = most
		case p.TablePoints > most:
			bound(f("table_points"), "%d table points is more than the board can give: at most %d, %s", p.TablePoints, most, source)
			counted = most
		default:
			over = false
		}
		// No territory gives more than MostNeighbours, a RisiKo! written
		// as 100 counted at what it stands for.
		if !over && p.ObjectiveTerritories > 0 && counted > board.MostNeighbours*p.ObjectiveTerritories {
			what := fmt.Sprintf("%d table points", p.TablePoints)
			if counted != p.TablePoints {
				what = fmt.Sprintf("a RisiKo! (counted at %d table points)", counted)
			}
			bound(f("table_points"), "%s from %s: no territory is worth more than %d, so they give at most %d (projections/board/data/map.json)",
				what, plural(p.ObjectiveTerritories, "objective territory", "objective territories"), board.MostNeighbours, board.MostNeighbours*p.ObjectiveTerritories)
		}
		if counted <= most && counted+p.OffObjectivePoints > board.BoardPoints {
			bound(f("off_objective_points"), "%d table points and %d off-objective points make %d; every territory of the board together is worth %d (projections/board/data/map.json)",
				counted, p.OffObjectivePoints, counted+p.OffObjectivePoints, board.BoardPoints)
		}
		if held := eliminatedHolds(p); p.Status == events.SeatEliminated && len(held) > 0 {
			// An eliminated player has lost all his territories, and the
			// armies on them.
			for _, h := range held {
				bound(f(h.field), "%d %s, and %s was eliminated: an eliminated player has lost all his territories and the armies on them (docs/rules.md#1-glossary)", h.n, h.what, p.Player)
			}
			continue
		}
		switch {
		case p.ObjectiveTerritories > 0 && p.Territories == 0:
			bound(f("territories"), "%d objective territories held, and no territories: give the territories held, of which the objective territories are some (projections/board/data/map.json)", p.ObjectiveTerritories)
		case p.ObjectiveTerritories > p.Territories:
			bound(f("objective_territories"), "%d objective territories is more than the %d territories held: the objective territories a player holds are some of the territories he holds (projections/board/data/map.json)", p.ObjectiveTerritories, p.Territories)
		}
		if rs.ArmyLimit > 0 && p.Armies > rs.ArmyLimit {
			rule := rulebookOf(rs).armyLimit
			errs = append(errs, &FieldError{bound: true, Field: f("armies"), Rule: rule,
				Msg: fmt.Sprintf("%d armies is more than the ruleset's limit of %d a player may have on the board (army_limit)", p.Armies, rs.ArmyLimit)})
		}
		territories += p.Territories
		tableTP += counted
		tableAll += counted + p.OffObjectivePoints
	}
	// Each territory has one owner, so the table shares one board.
	switch {
	case tableTP > board.BoardPoints:
		bound("players", "the players' table points add up to %d; each territory has one owner, and the whole board is worth %d (projections/board/data/map.json, sum_of_neighbor_counts)", tableTP, board.BoardPoints)
	case tableAll > board.BoardPoints:
		bound("players", "the players' table points and off-objective points add up to %d; each territory has one owner, and the whole board is worth %d (projections/board/data/map.json, sum_of_neighbor_counts)", tableAll, board.BoardPoints)
	}
	if territories > board.TerritoryCount {
		bound("players", "the players hold %d territories in all; the board has %d (projections/board/data/map.json)", territories, board.TerritoryCount)
	}
	return errs
}

// holding is a figure of a line that only a player still on the board has.
type holding struct {
	field, what string
	n           int
}

// eliminatedHolds lists what a line says the player holds on the board:
// territories, objective territories, off-objective points, armies.
func eliminatedHolds(p events.SeatReport) []holding {
	var out []holding
	for _, h := range []holding{{"territories", "territories", p.Territories}, {"objective_territories", "objective territories", p.ObjectiveTerritories},
		{"off_objective_points", "off-objective points", p.OffObjectivePoints}, {"armies", "armies", p.Armies},
		{"objective_armies", "armies on objective territories", p.ObjectiveArmies}} {
		if h.n > 0 {
			out = append(out, h)
		}
	}
	return out
}

// risikoTablePoints is the figure a ruleset that writes a RisiKo! in table
// points writes it as (campionato-2003: "viene conteggiato in PUNTI TAVOLO
// con un punteggio eguale a 100"); the scorer counts a RisiKo! so under
// every formula.
const risikoTablePoints = 100

// mostValuable returns the most valuable objective of the ruleset's set and
// the set's id; ok is false when the ruleset names no set it can load.
func mostValuable(rs events.Ruleset) (board.Objective, string, bool) {
	if rs.Objectives.ID == board.DefaultObjectiveSetID && len(rs.Objectives.Inline) == 0 {
		o, err := board.DefaultMostValuable()
		return o, rs.Objectives.ID, err == nil
	}
	_, set, err := objectiveSet(rs)
	if err != nil {
		return board.Objective{}, "", false
	}
	o, ok := set.MostValuable()
	return o, set.ID, ok
}

// plural renders n with the singular or the plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func or(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// objectiveSet loads the board and the tournament's objective set.
func objectiveSet(rs events.Ruleset) (*board.Map, *board.ObjectiveSet, error) {
	m, err := board.Default()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(rs.Objectives.Inline) > 0:
		set, err := board.ParseObjectiveSet(m, rs.Objectives.Inline)
		return m, set, err
	case rs.Objectives.ID == board.DefaultObjectiveSetID:
		set, err := board.DefaultObjectives(m)
		return m, set, err
	case rs.Objectives.ID == "":
		return nil, nil, ruleErr("docs/rules.md#3-table-report-referto", "the ruleset names no objective set: report the figures, or amend the ruleset's objectives")
	}
	return nil, nil, ruleErr("docs/rules.md#3-table-report-referto", "unknown objective set %q", rs.Objectives.ID)
}

// boardErr names the payload line a board error is about.
func boardErr(err error, index map[string]int) error {
	msg := err.Error()
	for _, p := range slices.Sorted(maps.Keys(index)) {
		i := index[p]
		if strings.Contains(msg, `"`+p+`"`) || strings.Contains(msg, " "+p+" ") || strings.Contains(msg, " "+p+":") || strings.HasSuffix(msg, " "+p) {
			return fieldErr(fmt.Sprintf("players[%d].territories_held", i), "%v", err)
		}
	}
	return fieldErr("players", "%v", err)
}

// fromScoring converts the scorer's field errors, keeping each rule.
func fromScoring(err error) error {
	return mapLeaves(err, func(e error) error {
		var fe *scoring.FieldError
		if !errors.As(e, &fe) {
			return e
		}
		return &FieldError{Field: fe.Field, Msg: fe.Msg, Rule: fe.Rule}
	})
}

func ordinal(n int) string {
	switch n {
	case 0:
		return "nowhere"
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return fmt.Sprintf("%dth", n)
}

// missing lists the objective territories a board-checked line does not hold.
func missing(comp board.Computed, objective int, rs events.Ruleset) string {
	_, set, err := objectiveSet(rs)
	if err != nil {
		return "all of it"
	}
	obj, ok := set.Objective(objective)
	if !ok {
		return "its territories"
	}
	held := map[string]bool{}
	for _, tp := range comp.ObjectiveSum {
		held[tp.Territory] = true
	}
	var out []string
	for _, id := range obj.Territories {
		if !held[id] {
			out = append(out, id)
		}
	}
	return strings.Join(out, ", ")
}
