package workbook

import (
	"strings"

	"github.com/referto/referto/events"
)

// The sheets the national tool reads, and the suffix of a round sheet's
// name ("1° Turno", with U+00B0 DEGREE SIGN).
const (
	SheetCard      = "TORNEO"
	SheetEntries   = "Iscritti"
	SheetStandings = "Classifica Ridotta"
	RoundSuffix    = "\u00b0 Turno"
)

// RoundSheet is the name of round n's sheet.
func RoundSheet(n int) string { return itoa(n) + RoundSuffix }

// MediaType is the media type of an .xlsx workbook.
const MediaType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// Ghost is the id of GestioneTorneo's filler seat at tables "col morto",
// which sits at tables without being in the entry list.
const Ghost = -1

// Entry-list rows start at row 4; the card's round dates at D8, for at
// most 30 rounds.
const (
	firstEntryRow = 4
	firstDateRow  = 8
	maxRounds     = 30
	seatsPerTable = 5
)

// publishingType is one of the national tool's tournament types: the text
// TORNEO!D5 holds, whether it publishes standings, and the ranking's type
// it is counted as (empty when the ranking has none).
type publishingType struct {
	text      string
	standings bool
	ranking   events.TournamentType
}

// publishingTypes are the national tool's tournament types, in its order.
var publishingTypes = []publishingType{
	{"Campionato Nazionale", true, ""},
	{"Raduno Nazionale", true, events.TypeRadunoNazionale},
	{"Torneo Master", true, events.TypeMaster},
	{"Torneo Open", true, events.TypeOpen},
	{"Torneo Interclub", true, events.TypeInterclub},
	{"Campionato Periodico", true, events.TypeCampionato},
	{"Torneo a Squadre", false, ""},
	{"Torneo 2VS2", false, ""},
	{"Torneo a Inviti", true, ""},
	{"Amichevoli", false, ""},
}

// typeOfText finds the tournament type whose text TORNEO!D5 holds, as the
// national tool matches it: trimmed, in any letter case.
func typeOfText(text string) (publishingType, bool) {
	for _, t := range publishingTypes {
		if strings.EqualFold(strings.TrimSpace(text), t.text) {
			return t, true
		}
	}
	return publishingType{}, false
}

// typeText is the text TORNEO!D5 holds for a ranking's tournament type.
func typeText(k events.TournamentType) (string, bool) {
	for _, t := range publishingTypes {
		if k != "" && t.ranking == k {
			return t.text, true
		}
	}
	return "", false
}

// TypeTexts lists the texts TORNEO!D5 may hold.
func TypeTexts() []string {
	out := make([]string, len(publishingTypes))
	for i, t := range publishingTypes {
		out[i] = t.text
	}
	return out
}
