package commands

import (
	"cmp"
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// rulebook is where the rules the decisions refer to are written: the
// article of a preset's own rulebook, or docs/rules.md where the rulebook
// does not write the rule down. A tournament cites its own ruleset's
// articles only (docs/rules.md#citations); the sanction regime it plays
// under cites that regime's (ladder.go).
type rulebook struct {
	// draw is the table-formation rule.
	draw string
	// armyLimit is the most armies a player may have on the board
	// (Ruleset.ArmyLimit).
	armyLimit string
	// closings are the ways a game may end (Ruleset.Closings).
	closings string
	// annulment is what follows a game that cannot be played out under
	// the annulment rule "none".
	annulment string
	// registration is the entry list: validated by the arbiters before
	// game 1, and refused only with a reason.
	registration string
	// frozen forbids changing the ruleset once the tournament is under way.
	frozen string
	// contest is how a contestation is judged: immediately, and only
	// while its direct effects persist.
	contest string
	// risikoClaim is what follows a RisiKo! declared and not complete.
	risikoClaim string
	// repechage is who takes the place of a qualifier who renounces.
	repechage string
	// risiko, when set, is the rule that writes a RisiKo! in table points
	// (risikoTablePoints): the winner's line may say so.
	risiko string
	// minors, when set, is the rule that reserves the tournament to adults
	// unless the organizer grants a waiver; the other rulebooks say nothing
	// of minors.
	minors string
}

// rulebooks are the presets' own rulebooks, by preset.
var rulebooks = map[events.PresetID]rulebook{
	events.PresetRUR2015: {draw: "rur-2015 art. 8", armyLimit: "rur-2015 art. 30", annulment: "rur-2015 art. 34",
		registration: "rur-2015 art. 11", contest: "rur-2015 art. 20", risikoClaim: "rur-2015 art. 36", repechage: "rur-2015 art. 8",
		minors: "rur-2015 art. 1"},
	events.PresetCampionato2003: {draw: "campionato-2003 §formazione tavoli", armyLimit: "campionato-2003 §numero massimo di armate",
		frozen: "campionato-2003 §premessa", risikoClaim: "campionato-2003 §finale di partita", risiko: "campionato-2003 §finale di partita"},
	events.PresetMaster: {armyLimit: "master §posizionamento di un numero di armate superiore al limite massimo consentito",
		annulment: "master §annullamento della partita", registration: "master §arbitri o commissione arbitrale",
		contest: "master §gestione delle controversie", risikoClaim: "master §casistica"},
	events.PresetCirki2001: {draw: "cirki-2001 §1", armyLimit: "cirki-2001 §4", closings: "cirki-2001 §12", frozen: "cirki-2001 §15"},
	events.PresetRTU:       {armyLimit: "rtu §casistica", risikoClaim: "rtu §casistica"},
}

// docsRules is docs/rules.md, for the rules a preset's rulebook leaves out.
var docsRules = rulebook{
	draw:         "docs/rules.md#8-table-formation",
	armyLimit:    "docs/rules.md#31-pinned-board-bounds",
	closings:     "docs/rules.md#3-table-report-referto",
	annulment:    "docs/rules.md#121-pinned-rur-2015-and-master-have-no-such-remedy",
	registration: "docs/rules.md#11-check-in-and-lateness",
	frozen:       "docs/rules.md#21-pinned-the-ruleset-is-frozen-at-the-first-draw",
	contest:      "docs/rules.md#13-contestation",
	risikoClaim:  "docs/rules.md#3-table-report-referto",
	repechage:    "docs/rules.md#9-withdrawal-renunciation-repechage",
}

// rulebookOf returns where each rule of the ruleset's preset is written.
func rulebookOf(rs events.Ruleset) rulebook {
	b := rulebooks[rs.Preset]
	return rulebook{
		draw:         cmp.Or(b.draw, docsRules.draw),
		armyLimit:    cmp.Or(b.armyLimit, docsRules.armyLimit),
		closings:     cmp.Or(b.closings, docsRules.closings),
		annulment:    cmp.Or(b.annulment, docsRules.annulment),
		registration: cmp.Or(b.registration, docsRules.registration),
		frozen:       cmp.Or(b.frozen, docsRules.frozen),
		contest:      cmp.Or(b.contest, docsRules.contest),
		risikoClaim:  cmp.Or(b.risikoClaim, docsRules.risikoClaim),
		repechage:    cmp.Or(b.repechage, docsRules.repechage),
		risiko:       b.risiko,
		minors:       b.minors,
	}
}

// ownRule returns the first of rules the ruleset's own rulebook writes (a
// citation of its preset), or docs where none is.
func ownRule(rs events.Ruleset, docs string, rules ...string) string {
	for _, r := range rules {
		if strings.HasPrefix(r, string(rs.Preset)+" ") {
			return r
		}
	}
	return docs
}

// dieRule is where the die that ends the ruleset's standings tie-break is
// written (projections.TiebreakRules).
func dieRule(rs events.Ruleset) string {
	_, die := projections.TiebreakRules(rs)
	return die
}
