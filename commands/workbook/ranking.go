package workbook

import (
	"strconv"

	"github.com/referto/referto/projections/ranking"
)

// Ranked is the tournament a valid workbook holds as the national ranking
// reads it (docs/workbook.md#at-the-national-hub): its id (Slug of the
// national tool's), season (the last round's year), type, tables (the most
// of any round), rounds, and, when round D6 was played and the type
// publishes standings, the file's placings with the national ids of its
// entry list. It is marked as a workbook's: no log of it was verified or
// cosigned.
func Ranked(w *Workbook) ranking.Tournament {
	t := ranking.Tournament{ID: Slug(w.NationalID()), Source: ranking.SourceWorkbook, Rounds: len(w.Rounds)}
	if w.Card != nil {
		t.Name = w.Card.Name
		typ, _ := typeOfText(w.Card.TypeText)
		t.Type = typ.ranking
		if n := len(w.Card.Dates); n > 0 {
			last := w.Card.Dates[min(n, len(w.Rounds))-1].Date
			t.Season, t.Date = last.Format("2006"), last.Format("2006-01-02")
		}
		t.Final = w.Concluded() && w.Standings != nil && (typ.standings || typ.text == "")
	}
	for _, r := range w.Rounds {
		t.Tables = max(t.Tables, len(r.Tables))
	}
	if !t.Final {
		return t
	}
	entries := map[int]*Entry{}
	if w.Entries != nil {
		for _, e := range w.Entries.Rows {
			entries[e.ID] = e
		}
	}
	for _, s := range w.Standings.Rows {
		p := ranking.Placing{Place: s.Pos, Player: PlayerID(s.ID)}
		if e := entries[s.ID]; e != nil {
			p.Name = e.Name()
			if e.NationalID > 0 {
				p.NationalID = strconv.Itoa(e.NationalID)
			}
		}
		t.Placings = append(t.Placings, p)
	}
	return t
}
