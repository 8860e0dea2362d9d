package commands

import (
	"errors"
	"slices"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Withdraw records a withdrawal (docs/rules.md#9-withdrawal-renunciation-repechage). From a game: the table
// report must then list the player as withdrawn, placed by their table
// points (rur-2015 art. 31). From the tournament: the player is drawn no
// more, and a qualifier's place goes to repechage. A withdrawal because a
// ruling was not accepted is an expulsion (rur-2015 art. 31), and under
// the master regime so is leaving a game without force majeure.
type Withdraw struct {
	typed
	Player string `json:"player"`
	Scope  string `json:"scope"`
	Reason string `json:"reason"`
	Round  int    `json:"round,omitempty"`
	Table  int    `json:"table,omitempty"`
	Detail string `json:"detail,omitempty"`
}

func (*Withdraw) CommandType() string { return "Withdraw" }

func (c *Withdraw) Check() error {
	errs := []error{checkID("player", c.Player), checkText("detail", c.Detail, maxReason, false)}
	if c.Scope != "game" && c.Scope != "tournament" {
		errs = append(errs, fieldErr("scope", "must be game or tournament, not %q", c.Scope))
	}
	if !slices.Contains(events.WithdrawalReasons(), c.Reason) {
		errs = append(errs, fieldErr("reason", "must be %s, not %q", events.JoinOr(events.WithdrawalReasons()), c.Reason))
	}
	if c.Scope == "game" && c.Round == 0 {
		errs = append(errs, fieldErr("round", "a withdrawal from a game names its round"))
	}
	return errors.Join(errs...)
}

const (
	ruleArt31          = "rur-2015 art. 31"
	ruleMasterWithdraw = "master §ritiro dal gioco"
	// rule2003Withdraw is campionato-2003's withdrawal from a game: "Se un
	// giocatore si ritira dalla partita in corso totalizzerà classifica
	// generale per quella partita solo 10 punti", in the paragraph on
	// interrupted games.
	rule2003Withdraw = "campionato-2003 §interruzioni partita"
)

// withdrawalExpels says whether leaving (the game or the tournament, scope)
// for reason expels, citing the rule and why; "" when it does not. Refusing
// a ruling expels where the regime's rulebook says so (rur-2015 art. 31:
// "Qualora il ritiro fosse motivato dalla mancata accettazione di una
// decisione arbitrale il giocatore invece verrà espulso dal torneo"; master
// alike); campionato-2003 and cirki-2001 have no such article, so there the
// reason is recorded and an expulsion is the arbiters' own sanction. Under
// the master regime leaving a game for anything but force majeure expels
// too ("Qualora il ritiro non fosse per cause di forza maggiore ma motivato
// dalla mancata accettazione di una decisione arbitrale o senza motivo, il
// giocatore verrà espulso dal torneo"); leaving the tournament between
// games is no "ritiro dal gioco". Withdraw and a table report's withdrawn
// line (its withdrawal) both read it.
func withdrawalExpels(rs events.Ruleset, scope, reason string) (rule, why string) {
	reg := regimeOf(rs)
	switch {
	case reason == events.WithdrawalRulingRefused && reg.refusalExpels:
		return reg.withdrawal, "withdrew because a ruling was not accepted"
	case reg.leavingExpels && scope == "game" && reason != events.WithdrawalForceMajeure:
		return reg.withdrawal, "left the game without force majeure (\"senza motivo\")"
	}
	return "", ""
}

// withdrawalRule is the article a ruleset's withdrawals from a game follow.
func withdrawalRule(rs events.Ruleset) string { return regimeOf(rs).withdrawal }

func (c *Withdraw) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	p, ok := t.Players[c.Player]
	if !ok {
		return nil, notFound("player %s", c.Player)
	}
	if !p.Status.MayPlay() {
		return nil, conflict("%s is already %s", c.Player, p.Status)
	}
	ev := events.PlayerWithdrew{Player: c.Player, Scope: c.Scope, Reason: c.Reason, Detail: clean(c.Detail)}
	if c.Scope == "game" {
		r := t.Round(c.Round)
		if r == nil {
			return nil, notFound("round %d has not been drawn", c.Round)
		}
		tb := r.Seat(c.Player)
		if tb == nil || (c.Table != 0 && tb.Number != c.Table) {
			return nil, fieldErr("table", "%s is not seated at that table in round %d", c.Player, c.Round)
		}
		if tb.Report != nil {
			return nil, conflict("table %d of round %d already has a result", tb.Number, c.Round)
		}
		if slices.Contains(tb.Withdrew, c.Player) {
			return nil, conflict("%s already withdrew from table %d", c.Player, tb.Number)
		}
		ev.Round, ev.Table = c.Round, tb.Number
	}
	out := []events.Event{ev}
	rule, why := withdrawalExpels(t.Ruleset, c.Scope, c.Reason)
	if rule != "" {
		s := events.SanctionImposed{Sanction: nextSanctionID(t, 0), Player: c.Player, Round: max(c.Round, len(t.Rounds)),
			Table: ev.Table, Kind: events.SanctionExpulsion, Article: rule, Automatic: true, Reason: why}
		if s.Round == 0 {
			s.Round = 1
		}
		out = append(out, s)
	}
	if c.Scope == "tournament" || rule != "" {
		more, err := vacate(t, c.Player)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// AnnulGame declares a table's game void, by the ruleset's annulment rule
// (docs/rules.md#12-annulled-game, events.Ruleset.Annulment):
//
//   - next_round (campionato-2003 "interruzioni partita"): the game is void;
//     the culprit, if any, is out of it with 0 points and the arbitration
//     committee may expel him (expel); the other players score what they
//     score in the next round, or in the previous one if this was the last;
//   - none (rur-2015 art. 34, master "Annullamento della partita"): there is
//     no such remedy. The culprit, who must be named, "sarà eliminato
//     (master: squalificato) dal torneo": he is disqualified from the game
//     (0 points, placed last) and expelled, both in this commit; the others
//     "possono proseguire la partita o riprenderla dall'inizio", so the table
//     stays open for the ordinary report of that game. Without a culprit
//     there is nothing to decide: the game goes on or restarts.
type AnnulGame struct {
	typed
	Round   int    `json:"round"`
	Table   int    `json:"table"`
	Culprit string `json:"culprit,omitempty"`
	Expel   bool   `json:"expel,omitempty"`
	Reason  string `json:"reason"`
}

func (*AnnulGame) CommandType() string { return "AnnulGame" }

func (c *AnnulGame) Check() error {
	errs := []error{checkRound(c.Round), checkTable(c.Table), checkText("reason", c.Reason, maxReason, true)}
	if c.Culprit != "" {
		errs = append(errs, checkID("culprit", c.Culprit))
	}
	if c.Expel && c.Culprit == "" {
		errs = append(errs, fieldErr("expel", "only a culprit can be expelled"))
	}
	return errors.Join(errs...)
}

const ruleAnnul = "campionato-2003 §interruzioni partita"

func (c *AnnulGame) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	r := t.Round(c.Round)
	if r == nil {
		return nil, notFound("round %d has not been drawn", c.Round)
	}
	tb := r.Table(c.Table)
	if tb == nil {
		return nil, notFound("table %d is not in the draw of round %d", c.Table, c.Round)
	}
	if tb.Annulled != nil {
		return nil, conflict("table %d of round %d is already annulled", c.Table, c.Round)
	}
	if c.Culprit != "" && !slices.Contains(tb.Players, c.Culprit) {
		return nil, fieldErr("culprit", "%s is not seated at table %d", c.Culprit, c.Table)
	}
	if t.Ruleset.AnnulmentRule() != events.AnnulNextRound {
		return c.expelCulprit(t)
	}
	if r.Phase != events.PhaseQualifying {
		return nil, ruleErr(ruleAnnul, "a knockout game has no next round to take a score from: it is resumed or replayed; record its result")
	}
	out := []events.Event{events.GameAnnulled{Round: c.Round, Table: c.Table, Culprit: c.Culprit, Reason: clean(c.Reason)}}
	if c.Expel {
		out = append(out, events.SanctionImposed{Sanction: nextSanctionID(t, 0), Player: c.Culprit, Round: c.Round, Table: c.Table,
			Kind: events.SanctionExpulsion, Article: ruleAnnul, Reason: clean(c.Reason)})
		more, err := vacate(t, c.Culprit)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// annulArticle is the article of the annulment rule "none" the ruleset plays.
func annulArticle(rs events.Ruleset) string {
	return rulebookOf(rs).annulment
}

// expelCulprit is AnnulGame under the annulment rule "none": the culprit is
// disqualified from the game and expelled from the tournament; nothing is
// annulled.
func (c *AnnulGame) expelCulprit(t *projections.Tournament) ([]events.Event, error) {
	rule := annulArticle(t.Ruleset)
	if c.Culprit == "" {
		return nil, ruleErr(rule, "this ruleset does not annul a game (the next-round score is campionato-2003's remedy): "+
			"the players continue the game or restart it from the beginning; record its result")
	}
	if p := t.Players[c.Culprit]; p == nil || p.Status == events.StatusExpelled {
		return nil, conflict("%s is already expelled", c.Culprit)
	}
	reason := clean(c.Reason)
	dq := events.SanctionImposed{Sanction: nextSanctionID(t, 0), Player: c.Culprit, Round: c.Round, Table: c.Table,
		Kind: events.SanctionDisqualification, Article: rule, Reason: reason, Automatic: true}
	if slices.Contains(events.Offences(), rule) {
		dq.Offence = rule
	}
	out := []events.Event{dq,
		// Caused by the disqualification: the two stand or fall together,
		// and the culprit is out of the game with 0 points.
		events.SanctionImposed{Sanction: nextSanctionID(t, 1), Player: c.Culprit, Round: c.Round, Table: c.Table,
			Kind: events.SanctionExpulsion, Article: rule, Reason: reason, Automatic: true, Cause: dq.Sanction},
	}
	more, err := vacate(t, c.Culprit)
	if err != nil {
		return nil, err
	}
	return append(out, more...), nil
}
