package commands

import (
	"cmp"

	"github.com/referto/referto/events"
)

// rulebook is where the rules the decisions refer to are written: the
// article of a preset's own rulebook, or docs/rules.md where the rulebook
// does not write the rule down.
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
	events.PresetRUR2015: {draw: "rur-2015 art. 8", armyLimit: "rur-2015 art. 30", annulment: "rur-2015 art. 34", minors: "rur-2015 art. 1"},
	events.PresetCampionato2003: {draw: "campionato-2003 §formazione tavoli",
		armyLimit: "campionato-2003 §numero massimo di armate", risiko: "campionato-2003 §finale di partita"},
	events.PresetMaster: {armyLimit: "master §posizionamento di un numero di armate superiore al limite massimo consentito",
		annulment: "master §annullamento della partita"},
	events.PresetCirki2001: {draw: "cirki-2001 §1", armyLimit: "cirki-2001 §4", closings: "cirki-2001 §12"},
	events.PresetRTU:       {armyLimit: "rtu §casistica"},
}

// docsRules is docs/rules.md, for the rules a preset's rulebook leaves out.
var docsRules = rulebook{
	draw:      "docs/rules.md#8-table-formation",
	armyLimit: "docs/rules.md#31-pinned-board-bounds",
	closings:  "docs/rules.md#3-table-report-referto",
	annulment: "docs/rules.md#121-pinned-rur-2015-and-master-have-no-such-remedy",
}

// rulebookOf returns where each rule of the ruleset's preset is written.
func rulebookOf(rs events.Ruleset) rulebook {
	b := rulebooks[rs.Preset]
	return rulebook{
		draw:      cmp.Or(b.draw, docsRules.draw),
		armyLimit: cmp.Or(b.armyLimit, docsRules.armyLimit),
		closings:  cmp.Or(b.closings, docsRules.closings),
		annulment: cmp.Or(b.annulment, docsRules.annulment),
		risiko:    b.risiko,
		minors:    b.minors,
	}
}
