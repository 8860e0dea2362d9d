package commands

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Repechage (rur-2015 art. 8). When a qualifier renounces a phase, withdraws
// or is expelled, their place goes, in order:
//
//   - to the others at the table they qualified from, in placement order
//     (the second, then the third, the fourth);
//   - then to the best second of the other tables of that round, then the
//     best third, then the best fourth, "best" by the standings after the
//     qualifying rounds ("si dovrà tenere conto della classifica parziale
//     dopo le prime due partite");
//   - a direct qualifier (a bye) has no table: the chain starts at the best
//     second of the round they skipped;
//   - for a phase drawn from the standings and already drawn, the next
//     eligible player in the standings takes the seat; at a final drawn
//     beside a finalina the next of the same group moves up (the 5th from
//     the finalina) and the next in the standings takes the finalina's
//     seat (moveUp).
//
// Every candidate considered is listed in order with why they were passed over.

// recordedRepechage returns the repechage already recorded for x in phase.
func recordedRepechage(t *projections.Tournament, phase events.Phase, x string) (events.Repechaged, bool) {
	for i := len(t.Repechages) - 1; i >= 0; i-- {
		if r := t.Repechages[i]; r.Phase == phase && r.Replaces == x {
			return r, true
		}
	}
	return events.Repechaged{}, false
}

// skipReason says why candidate c cannot take a place in phase, or "".
func skipReason(t *projections.Tournament, c string, phase events.Phase, taken map[string]bool) string {
	p := t.Players[c]
	switch {
	case p == nil:
		return "not registered"
	case p.Status == events.StatusExpelled:
		return "expelled"
	case p.Status == events.StatusWithdrawn:
		return "withdrew from the tournament"
	case p.Status != events.StatusActive:
		return string(p.Status)
	}
	if r, ok := t.Renounced[c]; ok && phaseIndex(t, r) <= phaseIndex(t, phase) {
		return "renounced the " + describePhase(r)
	}
	if taken[c] {
		return "already qualified for the " + describePhase(phase)
	}
	for _, r := range t.Repechages {
		if r.Phase == phase && r.Player == c {
			return "already repechaged for the " + describePhase(phase)
		}
	}
	return ""
}

// chooseRepechage walks the chain for x's place in phase. from is the round
// the place was won in (nil when the phase is drawn from the standings).
// It reports false when the chain needs results not recorded yet.
func chooseRepechage(t *projections.Tournament, phase events.Phase, x string, from *projections.Round, taken map[string]bool, leaving ...string) (events.Repechaged, bool) {
	out := events.Repechaged{Phase: phase, Replaces: x, Rule: repechageRule(t.Ruleset)}
	order, _ := standingsOrder(t)
	pos := map[string]int{}
	for i, id := range order {
		pos[id] = i
	}
	try := func(c, from string) bool {
		if slices.Contains(leaving, c) {
			return false // the player whose place is being filled
		}
		reason := skipReason(t, c, phase, taken)
		out.Candidates = append(out.Candidates, events.RepechageCandidate{Player: c, From: from, Skipped: reason})
		if reason == "" {
			out.Player = c
			return true
		}
		return false
	}
	if from == nil {
		// The next in the standings after the cut: players holding a place
		// already were never candidates and are not listed.
		for i, c := range order {
			if c == x || taken[c] {
				continue
			}
			if try(c, fmt.Sprintf("%s in the standings", ordinal(i+1))) {
				return out, true
			}
		}
		return out, true
	}
	own := from.Seat(x)
	if own != nil && !wonTable(from, x) {
		own = nil // a bye or a standings qualifier: no table of their own
	}
	if own != nil {
		if own.Report == nil {
			return out, false
		}
		for _, res := range own.Results {
			if res.Player != x && try(res.Player, fmt.Sprintf("%s at %s table %d", ordinal(res.Place), describePhase(from.Phase), own.Number)) {
				return out, true
			}
		}
	}
	for _, tb := range from.Tables {
		if tb != own && tb.Report == nil && tb.Annulled == nil {
			return out, false
		}
	}
	for k := 2; k <= 5; k++ {
		var ks []struct {
			player string
			table  int
		}
		for _, tb := range from.Tables {
			if tb == own {
				continue
			}
			for _, res := range tb.Results {
				if res.Place == k {
					ks = append(ks, struct {
						player string
						table  int
					}{res.Player, tb.Number})
					break
				}
			}
		}
		slices.SortStableFunc(ks, func(a, b struct {
			player string
			table  int
		}) int {
			return pos[a.player] - pos[b.player]
		})
		for _, c := range ks {
			if try(c.player, fmt.Sprintf("best %s of the other %s tables (%s at table %d, %s in the standings)",
				ordinal(k), describePhase(from.Phase), ordinal(k), c.table, ordinal(pos[c.player]+1))) {
				return out, true
			}
		}
	}
	return out, true // nobody left: recorded with no substitute
}

// previousRound is the round whose results qualify players for phase:
// the round of the phase before it, or for direct elimination the game
// the player won; nil when the phase is drawn from the standings.
func previousRound(t *projections.Tournament, phase events.Phase, player string) *projections.Round {
	i := phaseIndex(t, phase)
	if i > 0 {
		prev := t.Round(phaseRound(t, phase) - 1)
		if prev != nil && prev.Phase == events.PhaseSecondChance && phase == events.PhaseSemifinal && prev.Seat(player) == nil {
			// direct-second-chance: a game-1 winner qualified from round 1.
			return t.Round(1)
		}
		return prev
	}
	if i == 0 && formatOf(t.Ruleset).direct {
		return t.Round(t.Ruleset.QualifyingRounds)
	}
	return nil
}

// rootOf follows recorded repechages back to the qualifier whose place x
// holds: a substitute who renounces in turn continues that place's chain.
func rootOf(t *projections.Tournament, phase events.Phase, x string) string {
	for range 64 {
		found := false
		for _, r := range t.Repechages {
			if r.Phase == phase && r.Player == x && r.Replaces != "" {
				x, found = r.Replaces, true
				break
			}
		}
		if !found {
			return x
		}
	}
	return x
}

// replaceQualifier decides what happens to x's place in phase when x
// renounces it, withdraws or is expelled: the effect to record and any
// repechage to append.
func replaceQualifier(t *projections.Tournament, phase events.Phase, x string) (string, []events.Event, error) {
	round := phaseRound(t, phase)
	if r := t.Round(round); r != nil {
		// The phase is drawn: replace x at their table if it has not played.
		tb := r.Seat(x)
		if tb == nil {
			return "recorded", nil, nil
		}
		if phase == events.PhaseFinal || phase == events.PhaseFinalina {
			phase = r.Label(tb.Number) // the final's round seats the finalina too
		}
		if tb.Report != nil {
			return "", nil, conflict("%s already played table %d of the %s", x, tb.Number, describePhase(phase))
		}
		taken := map[string]bool{}
		for _, other := range r.Tables {
			for _, p := range other.Players {
				taken[p] = true
			}
		}
		root := rootOf(t, phase, x)
		from := previousRound(t, phase, root)
		if from == nil && phase == events.PhaseFinal && slices.Contains(slices.Collect(maps.Values(r.Labels)), events.PhaseFinalina) {
			return "repechage", moveUp(t, r, tb, root, x), nil
		}
		rep, decided := chooseRepechage(t, phase, root, from, taken, x)
		if !decided {
			return "", nil, ruleErr(repechageRule(t.Ruleset), "the repechage for %s needs every result of the round before", x)
		}
		rep.Replaces, rep.Round, rep.Table = x, round, tb.Number
		return "repechage", []events.Event{rep}, nil
	}
	if !anyKnockoutDrawn(t) {
		if qualifiesByCut(t, x) {
			return "cut_recomputed", nil, nil
		}
		return "recorded", nil, nil
	}
	// The phase is not drawn yet: does x hold one of its places, as a
	// qualifier or as a substitute for one?
	root := rootOf(t, phase, x)
	prev := previousRound(t, phase, root)
	if prev == nil || (!slices.Contains(prev.Byes, root) && !wonTable(prev, root)) {
		return "recorded", nil, nil
	}
	if _, done := recordedRepechage(t, phase, x); done {
		return "recorded", nil, nil
	}
	rep, decided := chooseRepechage(t, phase, root, prev, currentQualifiers(t, prev), x)
	if !decided {
		return "repechage_at_draw", nil, nil
	}
	rep.Replaces = x
	return "repechage", []events.Event{rep}, nil
}

// moveUp fills x's seat at a final drawn from the standings beside a
// finalina (rtu final4+8: "una finale (fra i primi 4 della classifica) ed
// eventualmente anche una finalina per il quinto posto (fra i classificati
// dal 5° all'8° posto)"). As rur-2015 art. 8 does for its phases, the next
// of the same group moves up: the best placed player of the finalina takes
// the final's seat, and the finalina seat he leaves goes to the next in the
// standings not seated at either table. Each step is its own Repechaged
// event, with every candidate considered and why each was passed over; the
// players of the final were never candidates and are not listed. A player
// whose finalina has been played cannot move up.
func moveUp(t *projections.Tournament, r *projections.Round, tb *projections.Table, root, x string) []events.Event {
	rule := repechageRule(t.Ruleset)
	order, _ := standingsOrder(t)
	atFinal := map[string]bool{}
	atFinalina := map[string]*projections.Table{}
	for _, other := range r.Tables {
		for _, p := range other.Players {
			if r.Label(other.Number) == events.PhaseFinalina {
				atFinalina[p] = other
			} else {
				atFinal[p] = true
			}
		}
	}
	up := events.Repechaged{Phase: events.PhaseFinal, Replaces: x, Round: r.Number, Table: tb.Number, Rule: rule}
	for i, c := range order {
		if c == root || c == x || atFinal[c] {
			continue
		}
		from := fmt.Sprintf("%s in the standings", ordinal(i+1))
		reason := skipReason(t, c, events.PhaseFinal, nil)
		if ft := atFinalina[c]; ft != nil {
			from += fmt.Sprintf(", at finalina table %d", ft.Number)
			if reason == "" && ft.Report != nil {
				reason = fmt.Sprintf("played finalina table %d", ft.Number)
			}
		}
		up.Candidates = append(up.Candidates, events.RepechageCandidate{Player: c, From: from, Skipped: reason})
		if reason == "" {
			up.Player = c
			break
		}
	}
	out := []events.Event{up}
	ft := atFinalina[up.Player]
	if ft == nil {
		return out
	}
	down := events.Repechaged{Phase: events.PhaseFinalina, Replaces: up.Player, Round: r.Number, Table: ft.Number, Rule: rule}
	for i, c := range order {
		if c == root || c == x || atFinal[c] || atFinalina[c] != nil {
			continue
		}
		reason := skipReason(t, c, events.PhaseFinalina, nil)
		down.Candidates = append(down.Candidates, events.RepechageCandidate{Player: c, From: fmt.Sprintf("%s in the standings", ordinal(i+1)), Skipped: reason})
		if reason == "" {
			down.Player = c
			break
		}
	}
	return append(out, down)
}

func anyKnockoutDrawn(t *projections.Tournament) bool {
	return len(t.Rounds) > t.Ruleset.QualifyingRounds
}

// qualifiesByCut reports whether x is within the cut of the first knockout
// phase as the standings stand.
func qualifiesByCut(t *projections.Tournament, x string) bool {
	order, _ := standingsOrder(t)
	cut := formatOf(t.Ruleset).cut(t)
	i := slices.Index(order, x)
	return i >= 0 && i < cut
}

// wonTable reports whether x won their table in round r.
func wonTable(r *projections.Round, x string) bool {
	return slices.Contains(tableWinners(r), x)
}

// currentQualifiers are the players already holding a place out of round r.
func currentQualifiers(t *projections.Tournament, r *projections.Round) map[string]bool {
	taken := map[string]bool{}
	for _, p := range r.Byes {
		taken[p] = true
	}
	for _, p := range tableWinners(r) {
		taken[p] = true
	}
	for _, rep := range t.Repechages {
		if rep.Player != "" {
			taken[rep.Player] = true
		}
	}
	return taken
}

// nextPhase is the first knockout phase not played yet, or "".
func nextPhase(t *projections.Tournament) events.Phase {
	phases := knockoutPhases(t)
	for i, ph := range phases {
		r := t.Round(t.Ruleset.QualifyingRounds + 1 + i)
		if r == nil || !r.Complete() {
			return ph
		}
	}
	return ""
}

// Renounce records that a player declines a knockout phase (docs/rules.md#9-withdrawal-renunciation-repechage):
// the cut is recomputed before the knockout starts, otherwise the repechage
// chain of rur-2015 art. 8 runs in the same commit.
type Renounce struct {
	typed
	Player string       `json:"player"`
	Phase  events.Phase `json:"phase"`
	Reason string       `json:"reason,omitempty"`
}

func (*Renounce) CommandType() string { return "Renounce" }

func (c *Renounce) Check() error {
	var errs []error
	errs = append(errs, checkID("player", c.Player), checkText("reason", c.Reason, maxReason, false))
	if c.Phase == "" {
		errs = append(errs, fieldErr("phase", "required: the knockout phase declined"))
	}
	return joinErrs(errs)
}

func (c *Renounce) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if len(t.Rounds) == 0 {
		return nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "the knockout phases are known once game 1 is drawn")
	}
	if phaseIndex(t, c.Phase) < 0 {
		return nil, fieldErr("phase", "%q is not a knockout phase of this tournament (%v)", c.Phase, knockoutPhases(t))
	}
	p, ok := t.Players[c.Player]
	if !ok {
		return nil, notFound("player %s", c.Player)
	}
	if p.Status != events.StatusActive {
		return nil, ruleErr("docs/rules.md#9-withdrawal-renunciation-repechage", "%s is %s", c.Player, p.Status)
	}
	if r, done := t.Renounced[c.Player]; done {
		return nil, conflict("%s already renounced the %s", c.Player, describePhase(r))
	}
	effect, more, err := replaceQualifier(t, c.Phase, c.Player)
	if err != nil {
		return nil, err
	}
	if why := nobodyLeft(t, c.Phase, c.Player, effect, more); why != "" {
		return nil, ruleErr(repechageRule(t.Ruleset), "%s: the renunciation of %s is refused, nothing is recorded. If %s will not play, he keeps his seat: record his withdrawal from his game of the %s once it is drawn (Withdraw, scope game), and the table plays on without him (docs/rules.md#92-pinned-a-renunciation-nobody-can-fill-is-refused)",
			why, c.Player, c.Player, describePhase(c.Phase))
	}
	return append([]events.Event{events.Renounced{Player: c.Player, Phase: c.Phase, Effect: effect, Reason: clean(c.Reason)}}, more...), nil
}

// nobodyLeft says why nobody can take x's place in phase after his
// renunciation, or "": a repechage decided now that finds no candidate, or,
// before the knockout starts, a cut that has no one left beyond it. A
// renunciation asks for a substitute (rur-2015 art. 8: "al suo posto
// subentrerà"); none left, it would leave the phase short of a player,
// which no rulebook provides (rur-2015 art. 1: "Ai Raduni sono previsti
// solamente tavoli da 4 giocatori"), so it is refused.
func nobodyLeft(t *projections.Tournament, phase events.Phase, x, effect string, more []events.Event) string {
	for _, ev := range more {
		if r, ok := ev.(events.Repechaged); ok && r.Player == "" {
			return fmt.Sprintf("nobody is left to take %s's place in the %s (%s)", r.Replaces, describePhase(r.Phase), candidatesText(r.Candidates))
		}
	}
	if effect != "cut_recomputed" {
		return ""
	}
	cut := formatOf(t.Ruleset).cut(t)
	order, _ := standingsOrder(t)
	left := 0
	for _, id := range order {
		if id != x && eligible(t, id, phase) {
			left++
		}
	}
	if left >= cut {
		return ""
	}
	return fmt.Sprintf("nobody is left to take %s's place in the %s: it takes the first %d of the standings, and only %d players besides him may play it", x, describePhase(phase), cut, left)
}

// candidatesText lists the candidates a repechage considered and why each
// was passed over.
func candidatesText(cs []events.RepechageCandidate) string {
	if len(cs) == 0 {
		return "no candidate: every player who could take it holds a place already"
	}
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s, %s: %s", c.Player, c.From, cmp.Or(c.Skipped, "available")))
	}
	return "candidates " + strings.Join(out, "; ")
}

// Repechage performs a repechage the ledger could not decide when the
// renunciation was recorded (the results it needed were not in yet).
type Repechage struct {
	typed
	Phase    events.Phase `json:"phase"`
	Replaces string       `json:"replaces"`
}

func (*Repechage) CommandType() string { return "Repechage" }

func (c *Repechage) Check() error {
	errs := []error{checkID("replaces", c.Replaces)}
	if c.Phase == "" {
		errs = append(errs, fieldErr("phase", "required"))
	}
	return joinErrs(errs)
}

func (c *Repechage) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if phaseIndex(t, c.Phase) < 0 {
		return nil, fieldErr("phase", "%q is not a knockout phase of this tournament", c.Phase)
	}
	if eligible(t, c.Replaces, c.Phase) {
		return nil, ruleErr(repechageRule(t.Ruleset), "%s still holds their place in the %s", c.Replaces, describePhase(c.Phase))
	}
	if _, done := recordedRepechage(t, c.Phase, c.Replaces); done {
		return nil, conflict("the repechage for %s is already recorded", c.Replaces)
	}
	_, more, err := replaceQualifier(t, c.Phase, c.Replaces)
	if err != nil {
		return nil, err
	}
	if len(more) == 0 {
		return nil, ruleErr(repechageRule(t.Ruleset), "no repechage can be decided for %s now (not a qualifier, or results missing)", c.Replaces)
	}
	// A repechage that finds nobody would record nothing the draw does
	// not find by itself: say so rather than append it.
	if why := nobodyLeft(t, c.Phase, c.Replaces, "", more); why != "" {
		return nil, ruleErr(repechageRule(t.Ruleset), "%s: nothing to record; the %s is drawn without him", why, describePhase(c.Phase))
	}
	return more, nil
}
