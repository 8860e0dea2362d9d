package ranking

import (
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// SourceWorkbook marks a tournament whose classification comes from an
// imported club workbook.
const SourceWorkbook = "workbook"

// Placing is one row of a published classification, as the ranking reads it.
type Placing struct {
	Place  int    `json:"place"`
	Player string `json:"player"`
	Name   string `json:"name"`
	// NationalID is the id registration gave, before the registry's links.
	NationalID string `json:"national_id,omitempty"`
}

// Tournament is what the ranking reads of one tournament's verified log.
type Tournament struct {
	ID     string                `json:"id"`
	Name   string                `json:"name,omitempty"`
	Season string                `json:"season"`
	Type   events.TournamentType `json:"tournament_type"`
	// Date is the day (YYYY-MM-DD, UTC) its last final classification was
	// published.
	Date string `json:"date"`
	// Tables is the most tables of any round drawn; Rounds the rounds drawn.
	Tables int `json:"tables"`
	Rounds int `json:"rounds"`
	// Final is set when a final classification was published; Seq is the
	// seq of the publication its placings come from.
	Final    bool      `json:"final"`
	Seq      uint64    `json:"seq,omitempty"`
	Placings []Placing `json:"placings,omitempty"`
	// Source is SourceWorkbook when the classification was imported from a
	// club workbook (docs/workbook.md), "" when the ledger derived it.
	Source string `json:"source,omitempty"`
	// Withheld, when set, says why the tournament's log is not one to
	// count yet (a hub's that it has not verified, Because(WhyHeld, …)):
	// the ranking lists it with that reason, and none of its placings.
	Withheld *Why `json:"withheld,omitempty"`
}

// FromState reads a tournament's season facts and its last published final
// classification from its folded state: tables and rounds from the draws,
// placings from the publication, national ids from the registrations.
func FromState(st *projections.Tournament) Tournament {
	t := Tournament{ID: st.ID, Name: st.Name, Season: st.Season, Type: st.Type, Rounds: len(st.Rounds)}
	for _, r := range st.Rounds {
		t.Tables = max(t.Tables, len(r.Tables))
	}
	for i := len(st.Publications) - 1; i >= 0; i-- {
		if p := st.Publications[i]; p.Final {
			t.Final, t.Seq, t.Date = true, p.Seq, p.At.UTC().Format("2006-01-02")
			break
		}
	}
	if imp := st.ImportedFrom(); imp != nil && st.Imported != nil {
		// The file's classification: its date is the last round's, as
		// the national tool files it, not the day it was imported.
		t.Source = SourceWorkbook
		if n := len(imp.RoundDates); n > 0 && t.Final {
			t.Date = imp.RoundDates[n-1]
		}
	}
	if !t.Final || st.Published == nil || !st.Published.Final {
		// The last publication is provisional: its rows are no final
		// classification, and the final one before it was superseded.
		t.Final = false
		return t
	}
	for _, row := range st.Published.Rows {
		p := Placing{Place: row.Rank, Player: row.Player, Name: row.Name}
		if pl := st.Players[row.Player]; pl != nil {
			p.NationalID = pl.NationalID
			if p.Name == "" {
				p.Name = pl.Name
			}
		}
		t.Placings = append(t.Placings, p)
	}
	return t
}
