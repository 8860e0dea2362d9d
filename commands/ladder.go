package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/scoring"
)

// sanctionRegime checks a sanction against the rules of its regime and
// returns it with the escalations it triggers, all appended in one commit.
type sanctionRegime interface {
	impose(t *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error)
	// due reports whether an automatic escalation is still justified when
	// the sanctions in revoked no longer count.
	due(t *projections.Tournament, s *projections.Sanction, revoked map[string]bool) bool
}

// noLadder is embedded by regimes without automatic escalations.
type noLadder struct{}

func (noLadder) due(*projections.Tournament, *projections.Sanction, map[string]bool) bool {
	return true
}

// regime is one sanction regime of docs/rules.md#10-sanctions: its
// sanctions and the articles it decides a player's leaving a game by.
type regime struct {
	sanctionRegime
	// disqualification is the article that says what a disqualification
	// from a game does under the regime.
	disqualification string
	// withdrawal is the article a withdrawal from a game follows.
	withdrawal string
	// refusalExpels: leaving because a ruling was not accepted expels from
	// the tournament (rur-2015 art. 31: "Qualora il ritiro fosse motivato
	// dalla mancata accettazione di una decisione arbitrale il giocatore
	// invece verrà espulso dal torneo"; master, "Ritiro dal gioco"). The
	// regimes whose rulebook has no such article (campionato-2003: "solo 10
	// punti", "perderà 150"; cirki-2001 §15, the arbiter's authority) expel
	// nobody by themselves: an expulsion is the arbiters' own sanction.
	refusalExpels bool
	// leavingExpels: leaving a game for anything but force majeure expels
	// from the tournament too (master: "Qualora il ritiro non fosse per
	// cause di forza maggiore ma motivato dalla mancata accettazione di una
	// decisione arbitrale o senza motivo, il giocatore verrà espulso dal
	// torneo").
	leavingExpels bool
}

// regimes are the sanction regimes, by the ruleset's "sanctions" value.
var regimes = map[events.Regime]regime{
	events.RegimeRUR:    {sanctionRegime: rurRegime{}, disqualification: "rur-2015 art. 29", withdrawal: ruleArt31, refusalExpels: true},
	events.Regime2003:   {sanctionRegime: bounds2003{}, disqualification: rule2003, withdrawal: rule2003Withdraw},
	events.RegimeMaster: {sanctionRegime: masterLadder{}, disqualification: ruleMaster, withdrawal: ruleMasterWithdraw, refusalExpels: true, leavingExpels: true},
	events.RegimeArbiter: {sanctionRegime: arbiterOnly{}, disqualification: "docs/rules.md#103-pinned-disqualification-depends-on-the-rulebook",
		withdrawal: "docs/rules.md#9-withdrawal-renunciation-repechage"},
}

// regimeOf returns the sanction regime of a ruleset: one the ledger does
// not know leaves the sanctions to the arbiter.
func regimeOf(rs events.Ruleset) regime {
	if r, ok := regimes[rs.Sanctions]; ok {
		return r
	}
	return regimes[events.RegimeArbiter]
}

// arbiterOnly (cirki-2001 §15): the arbiter's authority decides; nothing
// beyond the general checks.
type arbiterOnly struct{ noLadder }

func (arbiterOnly) impose(_ *projections.Tournament, _ *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	return []events.Event{s}, nil
}

// bounds2003 (campionato-2003 "PENALITA'"): "una penalità da un minimo da
// –10 punti ad un massimo di –150 punti per la classifica generale ed
// invece da - 7 punti a - 25 per i punti tavolo".
type bounds2003 struct{ noLadder }

const rule2003 = "campionato-2003 §penalità"

func (bounds2003) impose(_ *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	switch {
	case c.Kind == events.SanctionClassificationPoints && (c.Amount < 10 || c.Amount > 150):
		return nil, ruleErr(rule2003, "a classification penalty is 10 to 150 points, not %d", c.Amount)
	case c.Kind == events.SanctionTablePoints && (c.Amount < 7 || c.Amount > 25):
		return nil, ruleErr(rule2003, "a table-points penalty is 7 to 25 points, not %d", c.Amount)
	}
	return []events.Event{s}, nil
}

// rurRegime (rur-2015 art. 16-19 and 29-34): the arbiters sanction at their
// discretion, except where the sanction names an offence (events.Offences)
// whose article fixes what follows. The offence is a field of the command
// from a fixed list, never read from the free-text article (docs/rules.md#10-sanctions).
type rurRegime struct{}

const ruleArt33 = "rur-2015 art. 33"

// offenceRule is what one article of rur-2015 provides.
type offenceRule struct {
	// kinds are the sanctions the article provides (without a ladder).
	kinds []events.SanctionKind
	// ladder, when set, are the sanctions due at the player's 1st, 2nd and
	// 3rd offence under the article, counted over the whole tournament
	// (or, with perGame, in one game); the last step repeats.
	ladder [][]events.SanctionKind
	// perGame counts the ladder's offences in one game (the same round and
	// table) instead of over the tournament.
	perGame bool
	// expels: a disqualification under the article (the last step of a
	// ladder) also expels from the tournament, appended in the same commit.
	expels bool
	// says is the sentence of the article that decides it.
	says string
}

// rurOffences are the offences of events.Offences under the rur regime.
var rurOffences = map[string]offenceRule{
	"rur-2015 art. 19": {kinds: []events.SanctionKind{events.SanctionTablePoints, events.SanctionDisqualification}, expels: true,
		says: "squalifica: comporta l'esclusione dalla partita in corso e l'espulsione dal torneo"},
	// Art. 29 (armies beyond the allowance): the excess armies, or twice
	// them, are removed and "Il giocatore può continuare regolarmente il
	// proprio turno di gioco"; "Nel caso in cui il giocatore dovesse ripetere
	// dolosamente l'irregolarità, al terzo tentativo, verrà automaticamente
	// squalificato dalla partita in corso": a ladder counted in the game in
	// progress (docs/rules.md#104-pinned-rur-2015-art-29-counts-in-the-game).
	// The disqualification does not expel: "Il giocatore squalificato è
	// equiparato al giocatore ritirato (vedi art. 31)".
	"rur-2015 art. 29": {ladder: [][]events.SanctionKind{{events.SanctionArmyLoss}, {events.SanctionArmyLoss}, {events.SanctionDisqualification}}, perGame: true,
		says: "al terzo tentativo, verrà automaticamente squalificato dalla partita in corso"},
	"rur-2015 art. 32": {kinds: []events.SanctionKind{events.SanctionDisqualification}, expels: true,
		says: "verrà immediatamente squalificato dalla partita in corso ed espulso dal torneo"},
	ruleArt33: {ladder: [][]events.SanctionKind{{events.SanctionReminder}, {events.SanctionCardLoss, events.SanctionArmyLoss}, {events.SanctionDisqualification}}, expels: true,
		says: "terza volta: esclusione. […] Il giocatore escluso sarà anche espulso dal torneo"},
	"rur-2015 art. 34": {kinds: []events.SanctionKind{events.SanctionDisqualification, events.SanctionExpulsion}, expels: true,
		says: "Sarà eliminato dal torneo il giocatore che interrompe una partita"},
}

func (rurRegime) impose(t *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	if c.Offence == "" {
		if c.Kind == events.SanctionDisqualification && t.Ruleset.DisqualifiedAsWithdrawn() {
			return nil, &FieldError{Field: "offence", Rule: "rur-2015 art. 29", Msg: fmt.Sprintf(
				"a disqualification names its offence, one of %s: the disqualified player \"è equiparato al giocatore ritirato\" and stays in the tournament (art. 29) unless the article also expels (art. 19, 32, 33, 34)",
				strings.Join(events.Offences(), ", "))}
		}
		return []events.Event{s}, nil
	}
	rule, ok := rurOffences[c.Offence]
	if !ok {
		return nil, fieldErr("offence", "%s has no rule in the rur regime", c.Offence)
	}
	allowed := rule.kinds
	if rule.ladder != nil {
		if c.Table == 0 {
			msg := "the offence is committed at a game (\"tra i giocatori impegnati nella partita\"): name the table"
			if rule.perGame {
				msg = "the ladder counts the offences of one game (\"squalificato dalla partita in corso\"): name the table"
			}
			return nil, &FieldError{Field: "table", Rule: c.Offence, Msg: msg}
		}
		game := gameOf{}
		where := "counted over the whole tournament"
		if rule.perGame {
			game = gameOf{round: c.Round, table: c.Table}
			where = fmt.Sprintf("counted in this game (round %d, table %d)", c.Round, c.Table)
		}
		n := 1 + offenceCount(t, c.Player, c.Offence, game, "", nil)
		allowed = rule.ladder[min(n, len(rule.ladder))-1]
		if !slices.Contains(allowed, c.Kind) {
			return nil, ruleErr(c.Offence, "this is offence %d of %s under the article, %s: it is sanctioned with %s, not %s",
				n, c.Player, where, events.Join(allowed, " or "), c.Kind)
		}
	} else if !slices.Contains(allowed, c.Kind) {
		return nil, ruleErr(c.Offence, "the article provides %s, not %s", events.Join(allowed, " or "), c.Kind)
	}
	out := []events.Event{s}
	if c.Kind == events.SanctionDisqualification && rule.expels {
		out = append(out, events.SanctionImposed{Sanction: nextSanctionID(t, 1), Player: c.Player, Round: c.Round, Table: c.Table,
			Kind: events.SanctionExpulsion, Article: c.Offence, Reason: rule.says, Automatic: true, Cause: s.Sanction})
	}
	return out, nil
}

// gameOf names the game a per-game ladder counts in; the zero value
// counts over the whole tournament.
type gameOf struct{ round, table int }

// offenceCount counts the player's sanctions in force that name offence
// (escalations name none), in game when it names one, up to and excluding
// the sanction upto ("" for all), leaving out those in revoked.
func offenceCount(t *projections.Tournament, player, offence string, game gameOf, upto string, revoked map[string]bool) int {
	n := 0
	for _, x := range t.Sanctions {
		if upto != "" && x.Sanction == upto {
			break
		}
		if game != (gameOf{}) && (x.Round != game.round || x.Table != game.table) {
			continue
		}
		if x.Player == player && x.Offence == offence && !x.Revoked && !revoked[x.Sanction] {
			n++
		}
	}
	return n
}

// due: the expulsion of a ladder's last step stands while its cause is
// still that step once the revoked sanctions no longer count; the
// expulsion going with any other disqualification stands with it.
func (rurRegime) due(t *projections.Tournament, s *projections.Sanction, revoked map[string]bool) bool {
	for _, x := range t.Sanctions {
		if x.Sanction != s.Cause {
			continue
		}
		rule := rurOffences[x.Offence]
		if rule.ladder == nil {
			return true
		}
		game := gameOf{}
		if rule.perGame {
			game = gameOf{round: x.Round, table: x.Table}
		}
		return 1+offenceCount(t, x.Player, x.Offence, game, x.Sanction, revoked) >= len(rule.ladder)
	}
	return true
}

// masterLadder (Tornei Master, "Richiamo", "Ammonizione", "Penalità"):
// the third reminder becomes a warning; warnings last the whole tournament;
// the second warning carries a penalty in table or classification points;
// the third expels. A classification penalty is at most 25% of the points
// available in that round; in knockout games disqualification is the only
// sanction allowed.
type masterLadder struct{}

const ruleMaster = "master §penalità"

func (masterLadder) impose(t *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	if r := t.Round(c.Round); r != nil && r.Phase != events.PhaseQualifying && c.Kind != events.SanctionDisqualification {
		return nil, ruleErr(ruleMaster, "in knockout games (the %s) disqualification is the only sanction", describePhase(r.Phase))
	}
	// "penalità in punti classifica: cioé riduzione di punti dalla
	// classifica nel turno corrente, sino al massimo al 25% dei punti
	// disponibili": cumulative per player and round (docs/rules.md#10-sanctions), so a
	// penalty beyond what the earlier ones left is refused, not trimmed:
	// the amount is the arbiters' to decide ("a discrezione degli Arbitri").
	var used int64
	for _, x := range t.Sanctions {
		if !x.Revoked && x.Player == c.Player && x.Round == c.Round && x.Kind == events.SanctionClassificationPoints {
			used += int64(x.Amount) * 100
		}
	}
	capOf := func(amount int) error {
		available := maxRoundPoints(t)
		limit := available / 4
		switch {
		case int64(amount)*100 <= limit-used:
			return nil
		case used == 0:
			return ruleErr(ruleMaster, "a classification penalty is at most 25%% of the points available in the round (%s of %s under %s), not %d",
				projections.Points(limit), projections.Points(available), t.Ruleset.Scoring, amount)
		}
		return ruleErr(ruleMaster, "classification penalties of one player in one round add up to at most 25%% of the points available (%s of %s under %s): %s has %s in round %d already, so at most %s more, not %d",
			projections.Points(limit), projections.Points(available), t.Ruleset.Scoring, c.Player, projections.Points(used), c.Round, projections.Points(max(0, limit-used)), amount)
	}
	if c.Kind == events.SanctionClassificationPoints {
		if err := capOf(c.Amount); err != nil {
			return nil, err
		}
	}
	out := []events.Event{s}
	count := func(kind events.SanctionKind) int {
		n := 0
		for _, x := range t.Sanctions {
			if !x.Revoked && x.Player == c.Player && x.Kind == kind {
				n++
			}
		}
		return n
	}
	k := 1
	next := func(kind events.SanctionKind, article, reason string, amount int) events.SanctionImposed {
		e := events.SanctionImposed{Sanction: nextSanctionID(t, k), Player: c.Player, Round: c.Round, Table: c.Table,
			Kind: kind, Amount: amount, Article: article, Reason: reason, Automatic: true, Cause: s.Sanction}
		k++
		return e
	}
	warning := c.Kind == events.SanctionWarning
	if c.Kind == events.SanctionReminder && (count(events.SanctionReminder)+1)%3 == 0 {
		w := next(events.SanctionWarning, ruleMaster+" (richiamo)", fmt.Sprintf("reminder %d: every third reminder is a warning", count(events.SanctionReminder)+1), 0)
		out = append(out, w)
		s = w
		warning = true
	}
	if warning {
		switch warnings := count(events.SanctionWarning) + 1; warnings {
		case 2:
			if c.Penalty == nil {
				return nil, &FieldError{Field: "penalty", Rule: ruleMaster, Msg: fmt.Sprintf("this is %s's second warning, which carries a penalty: give penalty.kind (table_points or classification_points) and penalty.amount", c.Player)}
			}
			if c.Penalty.Kind == events.SanctionClassificationPoints {
				if err := capOf(c.Penalty.Amount); err != nil {
					return nil, err
				}
			}
			pen := next(c.Penalty.Kind, ruleMaster+" (ammonizione)", "second warning", c.Penalty.Amount)
			pen.Cause = s.Sanction
			out = append(out, pen)
		case 3:
			exp := next(events.SanctionExpulsion, ruleMaster+" (ammonizione)", "third warning", 0)
			exp.Cause = s.Sanction
			out = append(out, exp)
		}
	}
	return out, nil
}

// due recounts the ladder up to an escalation's cause: a warning from a
// reminder needs that reminder to be a third one; a penalty needs its
// warning to be the second; an expulsion, the third.
func (masterLadder) due(t *projections.Tournament, s *projections.Sanction, revoked map[string]bool) bool {
	reminders, warnings := 0, 0
	for _, x := range t.Sanctions {
		if x.Player != s.Player || x.Revoked || revoked[x.Sanction] {
			continue
		}
		switch x.Kind {
		case events.SanctionReminder:
			reminders++
		case events.SanctionWarning:
			warnings++
		}
		if x.Sanction != s.Cause {
			continue
		}
		switch {
		case s.Kind == events.SanctionWarning:
			return x.Kind == events.SanctionReminder && reminders%3 == 0
		case s.Kind == events.SanctionExpulsion:
			return x.Kind == events.SanctionWarning && warnings == 3
		default: // the penalty of a second warning
			return x.Kind == events.SanctionWarning && warnings == 2
		}
	}
	return false
}

// maxRoundPoints is the most one player can score in one game under the
// tournament's scoring rules, in hundredths: the "points available in that
// round" of the master 25% cap (the reading docs/rules.md#101-pinned-master-the-25-cap-is-cumulative
// pins). It is what the scorer gives
// a RisiKo! winner whose opponents scored nothing, at the largest table the
// ruleset allows (triestino shares 400 on a table of 4, 500 on one of 5); no
// game without a RisiKo! scores more under any formula. The winner's bonus is
// the ruleset's.
func maxRoundPoints(t *projections.Tournament) int64 {
	var most int64
	for _, n := range t.Ruleset.TableSizes {
		seats := make([]scoring.Seat, n)
		for i := range seats {
			seats[i] = scoring.Seat{Player: fmt.Sprintf("s%d", i), Turn: i + 1, Status: events.SeatFinished}
		}
		res, err := scoring.Score(t.Rules(), scoring.Table{Players: seats, Winner: "s0", Risiko: true})
		if err != nil {
			continue
		}
		for _, r := range res {
			most = max(most, r.Score)
		}
	}
	return most
}
