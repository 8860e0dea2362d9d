package commands

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// DesignateReserve makes a player a reserve (docs/rules.md#11-check-in-and-lateness): a registered
// player who has not played yet, or a new player registered as a reserve,
// also after registration closed.
type DesignateReserve struct {
	typed
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Club   string `json:"club,omitempty"`
	Region string `json:"region,omitempty"`
	Rank   int    `json:"rank,omitempty"`
}

func (*DesignateReserve) CommandType() string { return "DesignateReserve" }

func (c *DesignateReserve) Check() error {
	var errs []error
	errs = append(errs, checkID("player", c.Player), checkText("name", c.Name, maxName, false),
		checkText("club", c.Club, maxName, false), checkText("region", c.Region, maxName, false))
	if c.Rank < 0 || c.Rank > 1_000_000 {
		errs = append(errs, fieldErr("rank", "must be between 0 (unranked) and 1000000"))
	}
	return errors.Join(errs...)
}

func (c *DesignateReserve) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	p, ok := t.Players[c.Player]
	switch {
	case !ok && strings.TrimSpace(c.Name) == "":
		return nil, fieldErr("name", "required to register %s as a new reserve", c.Player)
	case ok && p.Reserve:
		return nil, conflict("%s is already a reserve", c.Player)
	case ok && p.Status != events.StatusActive:
		return nil, ruleErr("docs/rules.md#11-check-in-and-lateness", "%s is %s and cannot be a reserve", c.Player, p.Status)
	case ok && hasPlayed(t, c.Player):
		return nil, ruleErr("docs/rules.md#11-check-in-and-lateness", "%s has already been seated in a game and cannot become a reserve", c.Player)
	}
	ev := events.ReserveDesignated{Player: c.Player}
	if !ok {
		ev.Name, ev.Club, ev.Region, ev.Rank = clean(c.Name), clean(c.Club), clean(c.Region), c.Rank
	}
	return []events.Event{ev}, nil
}

func hasPlayed(t *projections.Tournament, player string) bool {
	for _, r := range t.Rounds {
		if r.Seat(player) != nil {
			return true
		}
	}
	return false
}

// CheckIn records a player's presence at the call of a round, with minutes
// of lateness (docs/rules.md#11-check-in-and-lateness), or their absence. It is taken before the
// round's draw; a player seated in the drawn round who arrives late is
// recorded too (the lateness penalty applies at the table).
type CheckIn struct {
	typed
	Round       int    `json:"round"`
	Player      string `json:"player"`
	MinutesLate int    `json:"minutes_late"`
	Absent      bool   `json:"absent,omitempty"`
}

func (*CheckIn) CommandType() string { return "CheckIn" }

func (c *CheckIn) Check() error {
	var errs []error
	errs = append(errs, checkID("player", c.Player), checkRound(c.Round))
	if c.MinutesLate < 0 || c.MinutesLate > 24*60 {
		errs = append(errs, fieldErr("minutes_late", "must be between 0 and 1440"))
	}
	return errors.Join(errs...)
}

// lateRule is the article the lateness thresholds come from.
const lateRule = "campionato-2003 §ritardi"

func (c *CheckIn) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	seatedLate, table := false, 0
	if r := t.Round(c.Round); r != nil && c.Round == len(t.Rounds) {
		tb := r.Seat(c.Player)
		if tb == nil || tb.Report != nil || c.Absent {
			return nil, conflict("round %d is already drawn: a late check-in is for a player seated at a table still playing", c.Round)
		}
		seatedLate, table = true, tb.Number
	} else if err := nextRound(t, c.Round, "check in for"); err != nil {
		return nil, err
	}
	p, ok := t.Players[c.Player]
	if !ok {
		return nil, notFound("player %s", c.Player)
	}
	if !p.Status.MayPlay() {
		return nil, ruleErr("docs/rules.md#9-withdrawal-renunciation-repechage", "%s is %s and cannot play", c.Player, p.Status)
	}
	if _, dup := t.CheckIns[c.Round][c.Player]; dup {
		return nil, conflict("%s already checked in for round %d", c.Player, c.Round)
	}
	rs := t.Ruleset
	ev := events.PlayerCheckedIn{Round: c.Round, Player: c.Player, MinutesLate: c.MinutesLate, Admitted: true}
	if c.Absent {
		ev.Admitted, ev.Absent, ev.MinutesLate = false, true, 0
		more, err := absentFromKnockout(t, c.Round, c.Player, fmt.Sprintf("absent at the call of round %d", c.Round))
		return append([]events.Event{ev}, more...), err
	}
	if rs.LateRefuseAfter > 0 && c.MinutesLate > rs.LateRefuseAfter {
		ev.Admitted, ev.Rule = false, lateRule
		if seatedLate {
			ev.Rule += ": seated but may not play; substitute a reserve or record the player absent from the game"
			return []events.Event{ev}, nil
		}
		more, err := absentFromKnockout(t, c.Round, c.Player, fmt.Sprintf("%d minutes late at the call of round %d: may not play", c.MinutesLate, c.Round))
		return append([]events.Event{ev}, more...), err
	}
	out := []events.Event{ev}
	if rs.LatePenaltyAfter > 0 && c.MinutesLate > rs.LatePenaltyAfter {
		// "per le prime tre volte dovrà lasciare la carta eventualmente
		// conquistata nel mazzo": the penalty is a card loss.
		out = append(out, events.SanctionImposed{Sanction: nextSanctionID(t, 0), Player: c.Player, Round: c.Round, Table: table,
			Kind: events.SanctionCardLoss, Article: lateRule, Automatic: true,
			Reason: fmt.Sprintf("%d minutes late: leaves the first three cards conquered in the deck", c.MinutesLate)})
	}
	return out, nil
}

// absentFromKnockout: a player who will not play a knockout round he is
// called for (absent, or too late to be admitted) renounces its phase, as
// if he had said so (docs/rules.md#111-pinned-the-call-of-a-round-is-optional): the Renounced event,
// and what a renunciation then does (the cut recomputed, or the repechage
// of rur-2015 art. 8), follow the check-in in the same commit. Nothing
// follows for a qualifying round, a reserve, or a player who renounced
// already.
func absentFromKnockout(t *projections.Tournament, round int, player, reason string) ([]events.Event, error) {
	phases := knockoutPhases(t)
	i := round - t.Ruleset.QualifyingRounds - 1
	if len(t.Rounds) == 0 || i < 0 || i >= len(phases) || t.Players[player].Status != events.StatusActive {
		return nil, nil
	}
	if _, done := t.Renounced[player]; done {
		return nil, nil
	}
	effect, more, err := replaceQualifier(t, phases[i], player)
	if err != nil {
		return nil, err
	}
	return append([]events.Event{events.Renounced{Player: player, Phase: phases[i], Effect: effect, Reason: reason}}, more...), nil
}

// nextSanctionID names the k-th sanction appended by one decision.
func nextSanctionID(t *projections.Tournament, k int) string {
	return fmt.Sprintf("s%d", len(t.Sanctions)+1+k)
}

// nextRound checks that round is the next one to be drawn.
func nextRound(t *projections.Tournament, round int, what string) error {
	switch next := len(t.Rounds) + 1; {
	case round < next:
		return conflict("round %d is already drawn: too late to %s it", round, what)
	case round > next:
		return ruleErr("docs/rules.md#8-table-formation", "round %d is not next: round %d has not been drawn", round, next)
	}
	return nil
}

func checkRound(r int) error {
	if r < 1 || r > 100 {
		return fieldErr("round", "must be between 1 and 100")
	}
	return nil
}

// SubstituteReserve seats a reserve in place of an entrant absent at the
// call (docs/rules.md#11-check-in-and-lateness): at their table if the round is drawn, otherwise in
// the coming draw.
type SubstituteReserve struct {
	typed
	Round   int    `json:"round"`
	Absent  string `json:"absent"`
	Reserve string `json:"reserve"`
}

func (*SubstituteReserve) CommandType() string { return "SubstituteReserve" }

func (c *SubstituteReserve) Check() error {
	return errors.Join(checkRound(c.Round), checkID("absent", c.Absent), checkID("reserve", c.Reserve))
}

func (c *SubstituteReserve) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	res, ok := t.Players[c.Reserve]
	if !ok {
		return nil, notFound("player %s", c.Reserve)
	}
	if res.Status != events.StatusReserve {
		return nil, ruleErr("docs/rules.md#11-check-in-and-lateness", "%s is not an unseated reserve", c.Reserve)
	}
	abs, ok := t.Players[c.Absent]
	if !ok {
		return nil, notFound("player %s", c.Absent)
	}
	if abs.Status != events.StatusActive {
		return nil, ruleErr("docs/rules.md#11-check-in-and-lateness", "%s is %s, not an entrant to replace", c.Absent, abs.Status)
	}
	for _, r := range t.Pending[c.Round] {
		if r == c.Reserve {
			return nil, conflict("%s already replaces someone in round %d", c.Reserve, c.Round)
		}
	}
	ev := events.ReserveSubstituted{Round: c.Round, Absent: c.Absent, Reserve: c.Reserve}
	if r := t.Round(c.Round); r != nil {
		tb := r.Seat(c.Absent)
		switch {
		case tb == nil:
			return nil, ruleErr("docs/rules.md#11-check-in-and-lateness", "%s is not seated in round %d", c.Absent, c.Round)
		case tb.Report != nil:
			return nil, conflict("table %d of round %d already has a result", tb.Number, c.Round)
		case c.Round != len(t.Rounds):
			return nil, ruleErr("docs/rules.md#11-check-in-and-lateness", "round %d is over", c.Round)
		}
		ev.Table = tb.Number
	} else if err := nextRound(t, c.Round, "substitute in"); err != nil {
		return nil, err
	} else if _, dup := t.Pending[c.Round][c.Absent]; dup {
		return nil, conflict("%s is already replaced in round %d", c.Absent, c.Round)
	}
	return []events.Event{ev}, nil
}

// SetTurnOrder records the turn order drawn at a table.
type SetTurnOrder struct {
	typed
	Round int      `json:"round"`
	Table int      `json:"table"`
	Order []string `json:"order"`
}

func (*SetTurnOrder) CommandType() string { return "SetTurnOrder" }

func (c *SetTurnOrder) Check() error {
	errs := []error{checkRound(c.Round), checkTable(c.Table)}
	if len(c.Order) == 0 {
		errs = append(errs, fieldErr("order", "required: the players in turn order"))
	}
	for i, p := range c.Order {
		errs = append(errs, checkID(fmt.Sprintf("order[%d]", i), p))
	}
	return errors.Join(errs...)
}

func checkTable(n int) error {
	if n < 1 || n > 10_000 {
		return fieldErr("table", "must be between 1 and 10000")
	}
	return nil
}

func (c *SetTurnOrder) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	tb, err := openTable(t, c.Round, c.Table)
	if err != nil {
		return nil, err
	}
	if !samePlayers(tb.Players, c.Order) {
		return nil, fieldErr("order", "must list each player of table %d exactly once: %s", c.Table, strings.Join(tb.Players, ", "))
	}
	return []events.Event{events.TurnOrderSet{Round: c.Round, Table: c.Table, Order: slices.Clone(c.Order)}}, nil
}

// openTable returns a drawn table that has no result yet.
func openTable(t *projections.Tournament, round, table int) (*projections.Table, error) {
	r := t.Round(round)
	if r == nil {
		return nil, notFound("round %d has not been drawn", round)
	}
	tb := r.Table(table)
	if tb == nil {
		return nil, notFound("table %d is not in the draw of round %d (%d tables)", table, round, len(r.Tables))
	}
	if tb.Report != nil {
		return nil, conflict("table %d of round %d already has a result (seq %d): corrections go through a contestation", table, round, tb.Reported)
	}
	if tb.Annulled != nil {
		// campionato-2003 "interruzioni partita": the game is void, and its
		// players score what they score in the next round; a report would
		// give the table a result the annulment denies.
		return nil, conflict("the game of table %d of round %d was annulled: it has no result; its players score the game of the next round (the previous one in the last)", table, round)
	}
	return tb, nil
}

func samePlayers(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// RecordTieBreakRoll records the die roll between players tied in the
// standings (rur-2015 art. 1). The players must be exactly one tie.
type RecordTieBreakRoll struct {
	typed
	Players []string `json:"players,omitempty"`
	Rolls   []int    `json:"rolls,omitempty"`
	// Ties records several ties' rolls at once, each as Players and Rolls
	// would: what the arbiters roll at one call (every tie at a cut), in one
	// commit and one decision. It is given instead of Players and Rolls.
	Ties []TieRoll `json:"ties,omitempty"`
}

// TieRoll is one tie's die rolls: Rolls[i] is what Players[i] rolled.
type TieRoll struct {
	Players []string `json:"players"`
	Rolls   []int    `json:"rolls"`
}

func (*RecordTieBreakRoll) CommandType() string { return "RecordTieBreakRoll" }

// ties returns the ties the command records, in the order given.
func (c *RecordTieBreakRoll) ties() []TieRoll {
	if len(c.Ties) > 0 {
		return c.Ties
	}
	return []TieRoll{{Players: c.Players, Rolls: c.Rolls}}
}

func (c *RecordTieBreakRoll) Check() error {
	if len(c.Ties) > 0 && (c.Players != nil || c.Rolls != nil) {
		return fieldErr("ties", "give either players and rolls, one tie, or ties, several: not both")
	}
	if c.Ties != nil && len(c.Ties) == 0 {
		return fieldErr("ties", "list at least one tie")
	}
	if len(c.Ties) > 1000 {
		return fieldErr("ties", "at most 1000 ties in one command, not %d", len(c.Ties))
	}
	var errs []error
	inTie := map[string]int{}
	for k, tie := range c.ties() {
		at := ""
		if len(c.Ties) > 0 {
			at = fmt.Sprintf("ties[%d].", k)
		}
		if len(tie.Players) < 2 {
			errs = append(errs, fieldErr(at+"players", "a roll is between at least two tied players"))
		}
		if len(tie.Rolls) != len(tie.Players) {
			errs = append(errs, fieldErr(at+"rolls", "one roll per player: %d players, %d rolls", len(tie.Players), len(tie.Rolls)))
		}
		for i, p := range tie.Players {
			if err := checkID(fmt.Sprintf("%splayers[%d]", at, i), p); err != nil {
				errs = append(errs, err)
			} else if j, seen := inTie[p]; seen && j == k {
				errs = append(errs, fieldErr(fmt.Sprintf("%splayers[%d]", at, i), "%s listed twice", p))
			} else if seen {
				errs = append(errs, fieldErr(fmt.Sprintf("%splayers[%d]", at, i), "%s is also in ties[%d]: a player is in one tie", p, j))
			}
			inTie[p] = k
		}
		for i, r := range tie.Rolls {
			if r < 1 || r > 6 {
				errs = append(errs, fieldErr(fmt.Sprintf("%srolls[%d]", at, i), "a die shows 1 to 6, not %d", r))
			}
		}
	}
	return errors.Join(errs...)
}

func (c *RecordTieBreakRoll) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	groups, sigs := t.TiesAwaitingRoll()
	var out []events.Event
	for k, tie := range c.ties() {
		i := slices.IndexFunc(groups, func(g []string) bool { return samePlayers(g, tie.Players) })
		if i < 0 {
			return nil, notATie(dieRule(t.Ruleset), tie.Players, groups, k, len(c.Ties) > 0)
		}
		ev := events.TieBreakRolled{Players: slices.Clone(tie.Players), Rolls: slices.Clone(tie.Rolls)}
		for _, p := range tie.Players {
			ev.Signatures = append(ev.Signatures, sigs[p])
		}
		out = append(out, ev)
	}
	return out, nil
}

// notATie refuses a roll whose players are not one tie awaiting a roll,
// listing the ties that are.
func notATie(rule string, players []string, groups [][]string, k int, several bool) error {
	var desc []string
	for _, g := range groups {
		desc = append(desc, strings.Join(g, "/"))
	}
	if len(desc) == 0 {
		return ruleErr(rule, "no tie in the standings needs a die roll")
	}
	which := strings.Join(players, ", ")
	if several {
		which = fmt.Sprintf("ties[%d] (%s)", k, which)
	}
	return ruleErr(rule, "%s are not one unresolved tie; ties awaiting a roll: %s", which, strings.Join(desc, "; "))
}
