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

// Knockout formats (docs/rules.md#7-formats-and-the-rur-knockout): one
// table from the ruleset's knockout id to what the format plays, each format
// in a file of its own with the article it follows (knockout_*.go). What
// they share is here: who is eligible, the plan of a round and its draw.

// knockoutFormat is one format of the phases after the qualifying rounds.
type knockoutFormat struct {
	// rules cite the format's article in each rulebook that describes it;
	// ruleOf picks the tournament's own.
	rules []string
	// phases lists the phases after the qualifying rounds, in order (none:
	// no knockout). The list may depend on the entrants, known once game 1
	// is drawn.
	phases func(t *projections.Tournament) []events.Phase
	// cut is how many of the qualifying standings hold a place in the first
	// phase; 0 when it is not drawn from the standings.
	cut func(t *projections.Tournament) int
	// plan composes the round of the draft's phase.
	plan func(d *draft) error
	// direct: every table winner of the rounds before the semifinals goes
	// to them (rtu's direct elimination), so placement there decides.
	direct bool
	// entrants quotes the range of entrants the format is made for, as a
	// refusal that cannot seat them says.
	entrants string
	// leastEntrants, when set, is the fewest entrants the format is made
	// for: game 1 is not drawn for fewer (rules edition 3).
	leastEntrants int
}

// knockouts maps every knockout id of events.Knockouts to its format. It is
// filled by init: the formats' plans reach back to it.
var knockouts map[events.Knockout]knockoutFormat

func init() {
	knockouts = map[events.Knockout]knockoutFormat{
		events.KnockoutNone:               noKnockout,
		events.KnockoutRUR:                rurKnockout,
		events.KnockoutSemis16:            semis16Knockout,
		events.KnockoutFinal4:             final4Knockout(4),
		events.KnockoutFinal4Plus8:        final4Knockout(8),
		events.KnockoutFinalLT32One:       lt32Knockout(lt32OneBye),
		events.KnockoutFinalLT32Two:       lt32Knockout(lt32TwoByes),
		events.KnockoutDirect:             directKnockout(false),
		events.KnockoutDirectSecondChance: directKnockout(true),
	}
}

// noKnockout: N games summed (rtu "none"), no phase after them.
var noKnockout = knockoutFormat{
	rules:  []string{ruleRTU},
	phases: func(*projections.Tournament) []events.Phase { return nil },
	cut:    func(*projections.Tournament) int { return 0 },
	plan:   func(d *draft) error { return d.noPlan() },
}

// formatOf returns the knockout format of a ruleset. An id no format has,
// which only a ruleset that skipped validation can hold (a forged log being
// verified), plays no knockout.
func formatOf(rs events.Ruleset) knockoutFormat {
	if f, ok := knockouts[rs.Knockout]; ok {
		return f
	}
	return noKnockout
}

// ruleOf cites the format as the ruleset's own rulebook describes it, or
// docs/rules.md where it does not.
func (f knockoutFormat) ruleOf(rs events.Ruleset) string {
	return ownRule(rs, "docs/rules.md#7-formats-and-the-rur-knockout", f.rules...)
}

// ruleKnockout cites the format of a ruleset.
func ruleKnockout(rs events.Ruleset) string { return formatOf(rs).ruleOf(rs) }

// ruleRTU cites rtu's formats.
const ruleRTU = "rtu §formule torneo"

// repechageRule cites the repechage of the ruleset: rur-2015 art. 8, and
// docs/rules.md, which applies it by analogy, under the other rulesets.
func repechageRule(rs events.Ruleset) string { return rulebookOf(rs).repechage }

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
func knockoutPhases(t *projections.Tournament) []events.Phase {
	return formatOf(t.Ruleset).phases(t)
}

// phaseIndex is the position of a knockout phase, or -1.
func phaseIndex(t *projections.Tournament, phase events.Phase) int {
	if phase == events.PhaseFinalina {
		phase = events.PhaseFinal
	}
	return slices.Index(knockoutPhases(t), phase)
}

// phaseRound returns the round number a knockout phase is played in.
func phaseRound(t *projections.Tournament, phase events.Phase) int {
	i := phaseIndex(t, phase)
	if i < 0 {
		return 0
	}
	return t.Ruleset.QualifyingRounds + 1 + i
}

// eligible reports whether a player may play a knockout phase: active, and
// not having renounced that phase or an earlier one.
func eligible(t *projections.Tournament, p string, phase events.Phase) bool {
	pl := t.Players[p]
	if pl == nil || pl.Status != events.StatusActive {
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
	phase  events.Phase
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
	labels map[string]events.Phase
	// repechages decided at this draw, to append before TablesDrawn.
	repechages []events.Repechaged
	// taken are the places already held, shared by every qualifiers call.
	taken map[string]bool
}

// draft is a knockout round being composed: its plan, and what a format
// reads to compose it.
type draft struct {
	*plan
	t     *projections.Tournament
	round int
	order []string               // the qualifying standings, best first
	rows  map[string]scoring.Row // each player's row of them
	prev  *projections.Round     // the round before
}

// pick returns the first n players of the standings eligible for phase,
// skip aside.
func (d *draft) pick(n int, phase events.Phase, skip []string) []string {
	var out []string
	for _, id := range d.order {
		if len(out) == n {
			break
		}
		if eligible(d.t, id, phase) && !slices.Contains(skip, id) {
			out = append(out, id)
		}
	}
	return out
}

// need refuses a phase drawn from the standings that has fewer than n
// qualifiers, unless it can still be played short: got holds every player
// of the standings still eligible (pick stops only when they run out, after
// withdrawals, expulsions or absences at the call), and least is the
// fewest that seat a table of 3 at each of the phase's tables
// (docs/rules.md#9-withdrawal-renunciation-repechage). A renunciation that
// would leave fewer is refused before (Renounce).
func (d *draft) need(got []string, n, least int, what string) error {
	if len(got) < least {
		return ruleErr(d.rule, "%s needs %d qualifiers, and %d to be played short with a table of 3 at each of its tables; only %d are available", what, n, least, len(got))
	}
	return nil
}

// cut refuses boundaries after the given seeds that fall inside a tie (checkCut).
func (d *draft) cut(picked []string, bounds ...int) error {
	return checkCut(d.t, d.rows, picked, bounds...)
}

// noPlan refuses a phase the format does not play.
func (d *draft) noPlan() error {
	return ruleErr(d.rule, "no plan for the %s of knockout %q", d.phase, d.t.Ruleset.Knockout)
}

// planKnockout composes knockout round `round`.
func planKnockout(t *projections.Tournament, round int) (*plan, error) {
	rs := t.Ruleset
	f := formatOf(rs)
	phases := f.phases(t)
	i := round - rs.QualifyingRounds - 1
	if len(phases) == 0 {
		return nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "the ruleset has %d qualifying rounds and no knockout phase", rs.QualifyingRounds)
	}
	if i >= len(phases) {
		return nil, ruleErr(f.ruleOf(rs), "the %s was the last phase: there is no round %d", phases[len(phases)-1], round)
	}
	d := &draft{plan: &plan{phase: phases[i], rule: f.ruleOf(rs)}, t: t, round: round, prev: t.Round(round - 1)}
	d.order, d.rows = standingsOrder(t)
	if err := f.plan(d); err != nil {
		return nil, err
	}
	return d.plan, nil
}

// finalOfWinners seats the final of a format whose earlier phase sends its
// byes and table winners there: 2 to 5 players at one table.
func finalOfWinners(d *draft) error {
	byes, err := d.qualifiers(d.t, d.prev.Byes, d.prev)
	if err != nil {
		return err
	}
	winners, err := d.qualifiers(d.t, tableWinners(d.prev), d.prev)
	if err != nil {
		return err
	}
	d.seeds = append(byes, winners...)
	if len(d.seeds) < 2 || len(d.seeds) > 5 {
		return ruleErr(d.rule, "the final seats 2 to 5 players; %d qualified", len(d.seeds))
	}
	d.groups = [][]string{d.seeds}
	return nil
}

// editionAtLeast reports whether the tournament was created under edition
// n of the rules' reading or a later one (docs/rules.md#22-editions-of-the-reading).
func editionAtLeast(t *projections.Tournament, n int) bool {
	return t.Ruleset.RulesEdition() >= n
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
			return nil, ruleErr(dieRule(t.Ruleset), "%s and %s are tied on their three games: record the die roll before the draw", rows[i-1].Player, r.Player)
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
			contending := slices.Contains(picked[b:], id) || !slices.Contains(picked, id) && t.Players[id].Status == events.StatusActive
			if contending {
				split = true
			}
		}
		if split {
			return ruleErr(dieRule(t.Ruleset), "the boundary after seed %d falls inside the tie of %s: record the die roll before the draw", b, strings.Join(tied, ", "))
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
		if editionAtLeast(t, 4) {
			// The draw cites the format's article of the tournament's own
			// rulebook: a master or rtu semifinal drawn by bands is no
			// Raduno's (edition 3 cited rur-2015 art. 8 under every ruleset).
			req.Rule = p.rule
		}
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
		if p.phase == events.PhaseSemifinal {
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
func describePhase(p events.Phase) string {
	return strings.ReplaceAll(string(p), "_", " ")
}

// NextQualifiers returns the next knockout phase and who would qualify for
// it if it were drawn now (seeds, then byes): the cut as the standings
// stand. It is what a what-if compares. An error says why no cut can be
// told (no knockout, a tie at a boundary, results missing).
func NextQualifiers(t *projections.Tournament) (events.Phase, []string, error) {
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

// NextPhase is the cut for tournament t's next knockout phase as the
// standings stand (NextQualifiers), what the tournament's whole state
// shows of it: when the cut cannot be told yet, why, once the qualifying
// rounds are played; nil when there is nothing to tell (no knockout,
// qualifying rounds still to play, the final played or the tournament
// closed).
func NextPhase(t *projections.Tournament) *projections.NextPhase {
	phase, players, err := NextQualifiers(t)
	if err == nil {
		return &projections.NextPhase{Phase: phase, Players: players}
	}
	if len(t.Rounds) >= t.Ruleset.QualifyingRounds && t.Ruleset.Knockout != events.KnockoutNone &&
		t.Phase() != events.PhaseFinal && t.Phase() != events.PhaseFinalina && !t.Closed {
		return &projections.NextPhase{Note: err.Error()}
	}
	return nil
}
