package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/scoring"
)

// Knockout formats (docs/rules.md#7-formats-and-the-rur-knockout). rur-2015 art. 1 and 8 give the Raduno:
// quarterfinals when more than 130 played game 1, semifinals of 16 seeded
// by bands, a final of the four semifinal winners. The rtu formats: the top
// 4 to a final (with the 5th-8th at a "finalina"); with fewer than 32
// entrants the top 1 straight to the final and three semifinals of ranks
// 2-12, or the top 2 and two semifinals of ranks 3-10; direct elimination
// with and without a second chance (rtu "formule punteggio").

// ruleKnockout cites the format of a ruleset.
func ruleKnockout(rs events.Ruleset) string {
	if rs.Knockout == "rur" {
		return "rur-2015 art. 8"
	}
	if rs.Knockout == "semis16" {
		return "master §fasi finali"
	}
	return "rtu §formule torneo"
}

// quarterThreshold: quarterfinals are played when more than this many
// players played game 1 (rur-2015 art. 1).
const quarterThreshold = 130

// entrants counts the players seated in game 1, reserves included (docs/rules.md#7-formats-and-the-rur-knockout).
func entrantsOf(t *projections.Tournament) int {
	r := t.Round(1)
	if r == nil {
		return 0
	}
	n := 0
	for _, tb := range r.Tables {
		n += len(tb.Players)
	}
	return n
}

// knockoutPhases lists the phases after the qualifying rounds, in order.
// The rur-2015 list depends on the entrants, known once game 1 is drawn.
func knockoutPhases(t *projections.Tournament) []string {
	switch t.Ruleset.Knockout {
	case "rur":
		if entrantsOf(t) > quarterThreshold {
			return []string{projections.PhaseQuarterfinal, projections.PhaseSemifinal, projections.PhaseFinal}
		}
		return []string{projections.PhaseSemifinal, projections.PhaseFinal}
	case "semis16", "final-lt32-1", "final-lt32-2", "direct":
		return []string{projections.PhaseSemifinal, projections.PhaseFinal}
	case "direct-second-chance":
		return []string{projections.PhaseSecondChance, projections.PhaseSemifinal, projections.PhaseFinal}
	case "final4", "final4+8":
		return []string{projections.PhaseFinal}
	}
	return nil
}

// phaseIndex is the position of a knockout phase, or -1.
func phaseIndex(t *projections.Tournament, phase string) int {
	if phase == projections.PhaseFinalina {
		phase = projections.PhaseFinal
	}
	return slices.Index(knockoutPhases(t), phase)
}

// phaseRound returns the round number a knockout phase is played in.
func phaseRound(t *projections.Tournament, phase string) int {
	i := phaseIndex(t, phase)
	if i < 0 {
		return 0
	}
	return t.Ruleset.QualifyingRounds + 1 + i
}

// eligible reports whether a player may play a knockout phase: active, and
// not having renounced that phase or an earlier one.
func eligible(t *projections.Tournament, p, phase string) bool {
	pl := t.Players[p]
	if pl == nil || pl.Status != projections.StatusActive {
		return false
	}
	if r, ok := t.Renounced[p]; ok && phaseIndex(t, r) <= phaseIndex(t, phase) {
		return false
	}
	return true
}

// standingsOrder is the qualifying standings, best first, with each row.
func standingsOrder(t *projections.Tournament) ([]string, map[string]scoring.Row) {
	rows := t.StandingRows()
	order := make([]string, len(rows))
	byPlayer := make(map[string]scoring.Row, len(rows))
	for i, r := range rows {
		order[i], byPlayer[r.Player] = r.Player, r
	}
	return order, byPlayer
}

// plan is how a knockout round is composed.
type plan struct {
	phase  string
	rule   string
	seeds  []string   // qualifiers in seed order
	byes   []string   // qualified past this phase
	bands  [][]string // draw by bands (one of each per table)
	groups [][]string // fixed tables (final, finalina)
	random []string   // drawn at random at the ruleset's table sizes
	// sizes, when set, replace the ruleset's table sizes for random;
	// fits, when set, tells whether a number of tables is allowed (a manual
	// draw's too).
	sizes  []int
	fits   func(tables int) bool
	labels map[string]string
	// repechages decided at this draw, to append before TablesDrawn.
	repechages []events.Repechaged
	// taken are the places already held, shared by every qualifiers call.
	taken map[string]bool
}

// planKnockout composes knockout round `round`.
func planKnockout(t *projections.Tournament, round int) (*plan, error) {
	rs := t.Ruleset
	phases := knockoutPhases(t)
	i := round - rs.QualifyingRounds - 1
	if len(phases) == 0 {
		return nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "the ruleset has %d qualifying rounds and no knockout phase", rs.QualifyingRounds)
	}
	if i >= len(phases) {
		return nil, ruleErr(ruleKnockout(rs), "the %s was the last phase: there is no round %d", phases[len(phases)-1], round)
	}
	p := &plan{phase: phases[i], rule: ruleKnockout(rs)}
	order, rows := standingsOrder(t)
	pick := func(n int, phase string, skip []string) []string {
		var out []string
		for _, id := range order {
			if len(out) == n {
				break
			}
			if eligible(t, id, phase) && !slices.Contains(skip, id) {
				out = append(out, id)
			}
		}
		return out
	}
	need := func(got []string, n int, what string) error {
		if len(got) < n {
			return ruleErr(p.rule, "%s needs %d qualifiers; only %d are available", what, n, len(got))
		}
		return nil
	}
	prev := t.Round(round - 1)
	switch {
	case rs.Knockout == "rur" && p.phase == projections.PhaseQuarterfinal:
		// Ranks 1-10 straight to the semifinals, 11-34 play six quarterfinal
		// tables, one per band of six.
		p.byes = pick(10, projections.PhaseSemifinal, nil)
		p.seeds = pick(24, projections.PhaseSemifinal, p.byes)
		if err := need(append(slices.Clone(p.byes), p.seeds...), 34, "the quarterfinals"); err != nil {
			return nil, err
		}
		p.bands = chunk(p.seeds, 6, 6, 6, 6)
		if err := checkCut(t, rows, append(slices.Clone(p.byes), p.seeds...), 10, 16, 22, 28, 34); err != nil {
			return nil, err
		}
	case rs.Knockout == "rur" && p.phase == projections.PhaseSemifinal && prev != nil && prev.Phase == projections.PhaseQuarterfinal:
		// Seeds 1-10 are the direct semifinalists; 11-16 the quarterfinal
		// winners ordered by their three games.
		direct, err := p.qualifiers(t, prev.Byes, prev)
		if err != nil {
			return nil, err
		}
		winners, err := p.qualifiers(t, tableWinners(prev), prev)
		if err != nil {
			return nil, err
		}
		ordered, err := orderByGames(t, winners, prev.Number)
		if err != nil {
			return nil, err
		}
		p.seeds = append(direct, ordered...)
		p.bands = chunk(p.seeds, 4, 4, 4, 4)
	case p.phase == projections.PhaseSemifinal && (rs.Knockout == "rur" || rs.Knockout == "semis16"):
		p.seeds = pick(16, projections.PhaseSemifinal, nil)
		if err := need(p.seeds, 16, "the semifinals"); err != nil {
			return nil, err
		}
		p.bands = chunk(p.seeds, 4, 4, 4, 4)
		if err := checkCut(t, rows, p.seeds, 4, 8, 12, 16); err != nil {
			return nil, err
		}
	case p.phase == projections.PhaseSemifinal && rs.Knockout == "final-lt32-1":
		p.byes = pick(1, projections.PhaseFinal, nil)
		p.seeds = pick(11, projections.PhaseSemifinal, p.byes)
		if err := need(append(slices.Clone(p.byes), p.seeds...), 12, "three semifinals and a bye"); err != nil {
			return nil, err
		}
		p.bands = chunk(p.seeds, 3, 3, 3, 2)
		if err := checkCut(t, rows, append(slices.Clone(p.byes), p.seeds...), 1, 4, 7, 10, 12); err != nil {
			return nil, err
		}
	case p.phase == projections.PhaseSemifinal && rs.Knockout == "final-lt32-2":
		p.byes = pick(2, projections.PhaseFinal, nil)
		p.seeds = pick(8, projections.PhaseSemifinal, p.byes)
		if err := need(append(slices.Clone(p.byes), p.seeds...), 10, "two semifinals and two byes"); err != nil {
			return nil, err
		}
		p.bands = chunk(p.seeds, 2, 2, 2, 2)
		if err := checkCut(t, rows, append(slices.Clone(p.byes), p.seeds...), 2, 4, 6, 8, 10); err != nil {
			return nil, err
		}
	case p.phase == projections.PhaseSecondChance:
		// Everyone who did not win in game 1 plays again.
		winners := tableWinners(prev)
		for _, tb := range prev.Tables {
			for _, id := range tb.Players {
				if !slices.Contains(winners, id) && eligible(t, id, p.phase) {
					p.random = append(p.random, id)
				}
			}
		}
		p.seeds = p.random
		if editionAtLeast(t, 2) {
			var err error
			if p.sizes, p.fits, err = feederSizes(t, round, len(p.random)); err != nil {
				return nil, err
			}
		}
	case p.phase == projections.PhaseSemifinal: // direct elimination
		var winners []string
		for r := 1; r < round; r++ {
			q, err := p.qualifiers(t, tableWinners(t.Round(r)), t.Round(r))
			if err != nil {
				return nil, err
			}
			winners = append(winners, q...)
		}
		p.random, p.seeds = winners, winners
		if editionAtLeast(t, 2) {
			// The fewest tables, so that the final seats at most 5.
			p.sizes = fewestTablesFirst(rs.TableSizes)
			p.fits = func(tables int) bool { return tables <= maxSemifinalTables }
			if most := maxSemifinalists(rs); len(winners) > most {
				return nil, ruleErr(p.rule, "%d players qualified for the semifinals, and the semifinals seat at most %d tables (%d players), so that the final has at most %d: %s",
					len(winners), maxSemifinalTables, most, maxSemifinalTables, ruleSemifinals)
			}
		}
	case p.phase == projections.PhaseFinal && (rs.Knockout == "final4" || rs.Knockout == "final4+8"):
		n := 4
		if rs.Knockout == "final4+8" {
			n = 8
		}
		p.seeds = pick(n, projections.PhaseFinal, nil)
		if err := need(p.seeds, n, "the final"); err != nil {
			return nil, err
		}
		p.groups = [][]string{p.seeds[:4]}
		bounds := []int{4}
		if n == 8 {
			p.groups = append(p.groups, p.seeds[4:8])
			p.labels = map[string]string{"2": projections.PhaseFinalina}
			bounds = append(bounds, 8)
		}
		if err := checkCut(t, rows, p.seeds, bounds...); err != nil {
			return nil, err
		}
	case p.phase == projections.PhaseFinal:
		byes, err := p.qualifiers(t, prev.Byes, prev)
		if err != nil {
			return nil, err
		}
		winners, err := p.qualifiers(t, tableWinners(prev), prev)
		if err != nil {
			return nil, err
		}
		p.seeds = append(byes, winners...)
		if len(p.seeds) < 2 || len(p.seeds) > 5 {
			return nil, ruleErr(p.rule, "the final seats 2 to 5 players; %d qualified", len(p.seeds))
		}
		p.groups = [][]string{p.seeds}
	default:
		return nil, ruleErr(p.rule, "no plan for the %s of knockout %q", p.phase, rs.Knockout)
	}
	return p, nil
}

// Direct elimination (rtu, "eliminazione diretta senza seconda chance":
// "prima partita di qualificazione: 16 tavoli da 4 giocatori (nell'ipotesi
// massima 25 tavoli da 5 giocatori) - seconda partita le semifinali: 4
// tavoli da 4 giocatori (nell'ipotesi massima 5 tavoli da 5 giocatori) -
// terza partita la finale: 1 tavolo con i 4 vincitori delle semifinali
// (nell'ipotesi massima 1 tavolo da 5 giocatori)"; with a second chance the
// same semifinals and final after "1 tavolo da 4 giocatori e 13 tavoli da 5
// ... 14 vincitori" and "11 tavoli da 5 ... altri 11 vincitori" at most).
// Every table before the semifinals sends its winner to them, so those
// rounds are seated to leave at most 5 semifinal tables: at the ruleset's
// preferred sizes while that fits, else at the fewest tables; and the
// semifinals at the fewest tables. These are edition 2 readings: edition 1
// seated every round at the preferred sizes (docs/rules.md#73-pinned-direct-elimination-reaches-a-final).

// maxSemifinalTables is the most semifinal tables of direct elimination:
// the final seats their winners, at most 5.
const maxSemifinalTables = 5

const ruleSemifinals = "rtu: \"seconda partita le semifinali: 4 tavoli da 4 giocatori (nell'ipotesi massima 5 tavoli da 5 giocatori) - terza partita la finale: 1 tavolo con i 4 vincitori delle semifinali (nell'ipotesi massima 1 tavolo da 5 giocatori)\""

// editionAtLeast reports whether the tournament was created under edition
// n of the rules' reading or a later one (docs/rules.md#22-editions-of-the-reading).
func editionAtLeast(t *projections.Tournament, n int) bool {
	return t.Ruleset.RulesEdition() >= n
}

// maxSemifinalists is how many players the semifinals of direct
// elimination seat at most: 5 tables of the largest size.
func maxSemifinalists(rs events.Ruleset) int {
	largest := 0
	for _, n := range rs.TableSizes {
		largest = max(largest, n)
	}
	return maxSemifinalTables * largest
}

// directElimination reports whether the ruleset's knockout is rtu's direct
// elimination, with or without a second chance.
func directElimination(rs events.Ruleset) bool {
	return rs.Knockout == "direct" || rs.Knockout == "direct-second-chance"
}

// fewestTablesFirst orders table sizes largest first: draw.Plan then seats
// the players at the fewest tables (24 at 5, 5, 5, 5, 4).
func fewestTablesFirst(sizes []int) []int {
	out := slices.Clone(sizes)
	slices.SortFunc(out, func(a, b int) int { return b - a })
	return out
}

// tablesFor is how many tables draw.Plan seats n players at, or false.
func tablesFor(t *projections.Tournament, n int, sizes []int) (int, bool) {
	plan, err := draw.Plan(n, sizes, t.Ruleset.SmallTableMax)
	return len(plan), err == nil
}

// feederSizes are the table sizes for round `round`, n players, under
// direct elimination, when its table winners go to the semifinals: the
// ruleset's preferred sizes if the semifinals can still seat every winner
// at 5 tables at most, counting the winners of the rounds before and the
// fewest tables the second chance can follow with; else the fewest tables.
// fits tells whether a number of tables (a manual draw's) leaves the
// semifinals seatable; nil when any does. The draw is refused when even
// the fewest tables leave too many semifinalists. Other rounds and
// rulesets get the ruleset's sizes.
func feederSizes(t *projections.Tournament, round, n int) (sizes []int, fits func(int) bool, err error) {
	rs := t.Ruleset
	pref := rs.TableSizes
	if !directElimination(rs) || round >= phaseRound(t, projections.PhaseSemifinal) || n == 0 {
		return pref, nil, nil
	}
	most := maxSemifinalists(rs)
	before := 0
	for r := 1; r < round; r++ {
		before += len(tableWinners(t.Round(r)))
	}
	fewest := fewestTablesFirst(pref)
	// after is the fewest winners the rounds between this one and the
	// semifinals add: the second chance, played by this round's losers.
	after := func(tables int) int {
		if rs.Knockout == "direct-second-chance" && round == rs.QualifyingRounds {
			k, _ := tablesFor(t, n-tables, fewest)
			return k
		}
		return 0
	}
	fits = func(tables int) bool { return before+tables+after(tables) <= most }
	least, ok := tablesFor(t, n, fewest)
	if !ok {
		return pref, fits, nil // the draw names the sizes that cannot seat them
	}
	if tables, ok := tablesFor(t, n, pref); ok && fits(tables) {
		return pref, fits, nil
	}
	if fits(least) {
		return fewest, fits, nil
	}
	msg := fmt.Sprintf("%d players sit at %d tables at least in round %d", n, least, round)
	if before > 0 {
		msg += fmt.Sprintf(", after %d table winners", before)
	}
	if a := after(least); a > 0 {
		msg += fmt.Sprintf(", and the second chance adds %d more at least", a)
	}
	return nil, nil, ruleErr(ruleKnockout(rs), "%s: more than %d players would reach the semifinals, which seat at most %d tables (%s); %s",
		msg, most, maxSemifinalTables, ruleSemifinals, directRange(rs))
}

// directRange is rtu's range of entrants for the direct elimination format.
func directRange(rs events.Ruleset) string {
	if rs.Knockout == "direct-second-chance" {
		return "rtu's direct elimination with a second chance \"presuppone un minimo di 37 iscritti ed un massimo di 69 iscritti\""
	}
	return "rtu's direct elimination without a second chance \"presuppone un minimo di 64 iscritti ed un massimo 125 iscritti\""
}

// qualifiers resolves the players qualified from round `from` for the plan's
// phase: each one still eligible, or who replaces them by repechage, as
// recorded, or decided now (and then appended to the plan's repechages).
// One set of taken places serves every call of a plan, so that no player
// is chosen twice.
func (p *plan) qualifiers(t *projections.Tournament, players []string, from *projections.Round) ([]string, error) {
	var out []string
	if p.taken == nil {
		p.taken = currentQualifiers(t, from)
	}
	taken := p.taken
	for _, id := range players {
		taken[id] = true
	}
	for _, id := range players {
		x := id
		for range 64 { // a chain of substitutes who also withdrew
			if eligible(t, x, p.phase) {
				out = append(out, x)
				break
			}
			sub, recorded := recordedRepechage(t, p.phase, x)
			if !recorded {
				for _, r := range p.repechages {
					if r.Replaces == x {
						sub, recorded = r, true
					}
				}
			}
			if !recorded {
				var decided bool
				sub, decided = chooseRepechage(t, p.phase, id, from, taken, x)
				if !decided {
					return nil, ruleErr(p.rule, "the repechage for %s needs every result of round %d", x, from.Number)
				}
				sub.Replaces = x
				p.repechages = append(p.repechages, sub)
			}
			if sub.Player == "" {
				break // nobody left to repechage: the table plays short
			}
			taken[sub.Player] = true
			x = sub.Player
		}
	}
	return out, nil
}

// tableWinners lists the winner of each table of a round, in table order.
func tableWinners(r *projections.Round) []string {
	var out []string
	if r == nil {
		return nil
	}
	for _, tb := range r.Tables {
		if len(tb.Results) > 0 && tb.Annulled == nil {
			out = append(out, tb.Results[0].Player)
		}
	}
	return out
}

// orderByGames orders qualifiers by the total of their qualifying games
// plus their game in round ko (rur-2015 art. 8: "calcolate tenendo conto
// dei punteggi totali ottenuti nelle loro tre partite giocate").
func orderByGames(t *projections.Tournament, players []string, ko int) ([]string, error) {
	games := t.Games()
	if r := t.Round(ko); r != nil {
		for _, tb := range r.Tables {
			for _, res := range tb.Results {
				games = append(games, scoring.Game{Player: res.Player, Round: ko, Table: tb.Number, Place: res.Place, Score: res.Score, Win: res.Win})
			}
		}
	}
	rows := scoring.Rank(scoring.StandingsRules{Edition: t.ScoringEdition(), Tiebreak: t.Ruleset.Tiebreak}, players, games, t.ClassificationPenalties(), rollsOf(t))
	var out []string
	for i, r := range rows {
		out = append(out, r.Player)
		if r.TieUnresolved && i > 0 && rows[i-1].TieGroup == r.TieGroup {
			return nil, ruleErr("rur-2015 art. 1", "%s and %s are tied on their three games: record the die roll before the draw", rows[i-1].Player, r.Player)
		}
	}
	return out, nil
}

func rollsOf(t *projections.Tournament) []scoring.Roll {
	var out []scoring.Roll
	for _, r := range t.Rolls {
		out = append(out, scoring.Roll{Players: r.Players, Rolls: r.Rolls})
	}
	return out
}

// chunk splits seeds into bands of the given sizes (a short list leaves
// the last bands short).
func chunk(seeds []string, sizes ...int) [][]string {
	var out [][]string
	for _, n := range sizes {
		if len(seeds) == 0 {
			break
		}
		n = min(n, len(seeds))
		out = append(out, slices.Clone(seeds[:n]))
		seeds = seeds[n:]
	}
	return out
}

// checkCut refuses a draw whose cut or band boundaries split players still
// tied in the standings: the die roll (rur-2015 art. 1) comes first. A
// boundary after picked[b-1] matters when someone tied with that player,
// still in contention, falls on the other side of it.
func checkCut(t *projections.Tournament, rows map[string]scoring.Row, picked []string, bounds ...int) error {
	order, _ := standingsOrder(t)
	for _, b := range bounds {
		if b < 1 || b > len(picked) {
			continue
		}
		g := rows[picked[b-1]].TieGroup
		if g == 0 {
			continue
		}
		var tied []string
		split := false
		for _, id := range order {
			if rows[id].TieGroup != g {
				continue
			}
			tied = append(tied, id)
			contending := slices.Contains(picked[b:], id) || !slices.Contains(picked, id) && t.Players[id].Status == projections.StatusActive
			if contending {
				split = true
			}
		}
		if split {
			return ruleErr("rur-2015 art. 1", "the boundary after seed %d falls inside the tie of %s: record the die roll before the draw", b, strings.Join(tied, ", "))
		}
	}
	return nil
}

// decideKnockout draws a knockout round from its plan.
func (c *DrawTables) decideKnockout(t *projections.Tournament, in Input) ([]events.Event, error) {
	p, err := planKnockout(t, c.Round)
	if err != nil {
		return nil, err
	}
	req := draw.Request{Round: c.Round}
	switch {
	case p.bands != nil:
		req.Algorithm, req.Bands = draw.AlgBands, p.bands
	case p.groups != nil:
		req.Algorithm, req.Bands = draw.AlgGroups, p.groups
	default:
		req.Algorithm, req.Sizes, req.SmallTableMax = draw.AlgRandom, t.Ruleset.TableSizes, t.Ruleset.SmallTableMax
		if p.sizes != nil {
			req.Sizes = p.sizes
		}
	}
	if p.fits != nil && len(c.Tables) > 0 && !p.fits(len(c.Tables)) {
		msg := fmt.Sprintf("%d tables in the %s send more winners to the semifinals than %d tables seat", len(c.Tables), describePhase(p.phase), maxSemifinalTables)
		if p.phase == projections.PhaseSemifinal {
			msg = fmt.Sprintf("the semifinals sit at %d tables at most, not %d: the final seats their winners", maxSemifinalTables, len(c.Tables))
		}
		return nil, &FieldError{Field: "tables", Rule: p.rule, Msg: msg + ": " + ruleSemifinals}
	}
	var seated []string
	for _, g := range append(slices.Clone(p.bands), p.groups...) {
		seated = append(seated, g...)
	}
	seated = append(seated, p.random...)
	if len(seated) == 0 {
		return nil, ruleErr(p.rule, "nobody qualified for the %s", p.phase)
	}
	if editionAtLeast(t, 2) {
		if err := knockoutCall(t, c.Round, append(slices.Clone(seated), p.byes...)); err != nil {
			return nil, err
		}
	}
	req.Entrants = entrants(t, seated)
	evs, err := c.run(t, in, req, p.phase, nil)
	if err != nil {
		return nil, err
	}
	drawn := evs[0].(events.TablesDrawn)
	drawn.Seeds, drawn.Byes, drawn.Labels = p.seeds, p.byes, p.labels
	out := make([]events.Event, 0, len(p.repechages)+1)
	for _, r := range p.repechages {
		out = append(out, r)
	}
	return append(out, drawn), nil
}

// knockoutCall: once the call of a knockout round has started, its draw
// waits until every entrant of the round (the players qualified for the
// phase, byes included) is checked in or marked absent
// (docs/rules.md#111-pinned-the-call-of-a-round-is-optional); one marked absent has renounced
// with his check-in (absentFromKnockout) and is no entrant any more. This is
// edition 2's reading: edition 1 drew knockout rounds without the call.
func knockoutCall(t *projections.Tournament, round int, entrants []string) error {
	called := t.CheckIns[round]
	if len(called) == 0 {
		return nil
	}
	var missing, absent []string
	for _, id := range entrants {
		switch ci, ok := called[id]; {
		case !ok:
			missing = append(missing, id)
		case !ci.Admitted:
			absent = append(absent, id)
		}
	}
	if len(missing) > 0 {
		return callIncomplete(round, missing)
	}
	if len(absent) > 0 {
		return ruleErr("docs/rules.md#11-check-in-and-lateness", "%s did not answer the call of round %d and still hold a place: record the renunciation (Renounce) first", strings.Join(absent, ", "), round)
	}
	return nil
}

// describePhase renders a phase for messages.
func describePhase(p string) string {
	return strings.ReplaceAll(p, "_", " ")
}

// NextQualifiers returns the next knockout phase and who would qualify for
// it if it were drawn now (seeds, then byes): the cut as the standings
// stand. It is what a what-if compares. An error says why no cut can be
// told (no knockout, a tie at a boundary, results missing).
func NextQualifiers(t *projections.Tournament) (string, []string, error) {
	if len(knockoutPhases(t)) == 0 {
		return "", nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "the ruleset has no knockout phase")
	}
	round := max(len(t.Rounds)+1, t.Ruleset.QualifyingRounds+1)
	if r := t.Round(round - 1); r != nil && round-1 > t.Ruleset.QualifyingRounds && !r.Complete() {
		round--
	}
	p, err := planKnockout(t, round)
	if err != nil {
		return "", nil, err
	}
	return p.phase, append(slices.Clone(p.seeds), p.byes...), nil
}
