package projections

import (
	"fmt"

	"github.com/referto/referto/events"
)

// WorkbookImport is one club workbook imported into the tournament
// (events.WorkbookImported), with the seq that recorded it.
type WorkbookImport struct {
	Seq uint64 `json:"seq"`
	events.WorkbookImported
}

// ImportedFrom returns the import the whole tournament came from, or nil
// when it was played on the ledger (or only its entry list came from a
// workbook).
func (t *Tournament) ImportedFrom() *WorkbookImport {
	for i := range t.Workbooks {
		if t.Workbooks[i].Scope == events.WorkbookTournament {
			return &t.Workbooks[i]
		}
	}
	return nil
}

// applyWorkbook folds the facts a club workbook brings (docs/workbook.md).
func (t *Tournament) applyWorkbook(env events.Envelope, ev events.Event, ch *Changes) error {
	switch e := ev.(type) {
	case events.OrganizerDeclared:
		t.Organizer, t.Venue = e.Organizer, e.Venue
	case events.WorkbookImported:
		if e.Scope == events.WorkbookTournament && t.ImportedFrom() != nil {
			return fmt.Errorf("a second workbook imported as the whole tournament")
		}
		t.Workbooks = append(t.Workbooks, WorkbookImport{Seq: env.Seq, WorkbookImported: e})
	case events.ClassificationImported:
		pub := &events.ClassificationPublished{Final: e.Final, Checkpoint: e.Checkpoint}
		for _, r := range e.Rows {
			row := events.ClassificationRow{Rank: r.Rank, Player: r.Player, Name: r.Name, Phase: events.PhaseQualifying, Total: r.Total}
			if p := t.Players[r.Player]; p != nil {
				row.Status = p.Status
				if row.Name == "" {
					row.Name = p.Name
				}
			}
			pub.Rows = append(pub.Rows, row)
		}
		imp := e
		t.Published, t.Imported = pub, &imp
		t.Publications = append(t.Publications, Publication{Seq: env.Seq, At: env.At, Final: e.Final})
	default:
		return fmt.Errorf("no fold for %T", ev)
	}
	return nil
}

// LocalIDs numbers the players as a club workbook's entry list does: the
// ids an imported workbook gave them, and for everyone else 1, 2, … in
// registration order, past the highest id taken.
func (t *Tournament) LocalIDs() map[string]int {
	ids := map[string]int{}
	taken := map[int]bool{}
	for _, wb := range t.Workbooks {
		for _, p := range wb.Players {
			if _, ok := t.Players[p.Player]; ok && !taken[p.ID] {
				ids[p.Player], taken[p.ID] = p.ID, true
			}
		}
	}
	next := 1
	for _, id := range t.Order {
		if _, ok := ids[id]; ok {
			continue
		}
		for taken[next] {
			next++
		}
		ids[id], taken[next] = next, true
	}
	return ids
}
