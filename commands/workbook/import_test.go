package workbook_test

import (
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/commands/workbook/workbooktest"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/ranking"
)

var now = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

func read(t *testing.T, name string, data []byte) *workbook.Workbook {
	t.Helper()
	w, err := workbook.Read(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// A workbook made by hand from the layout imports with its standings
// reproduced: the ruleset's computation from its games agrees with every
// row, and the tournament keeps the national tool's id and counts.
func TestHandMadeWorkbookImportsWithItsStandingsReproduced(t *testing.T) {
	w := read(t, "Torneo di Primavera.xlsx", workbooktest.Primavera(t).Bytes())
	if errs := workbook.Errors(workbook.Validate(w)); len(errs) > 0 {
		t.Fatalf("the hand-made workbook fails validation: %v", errs)
	}
	p, err := workbook.PlanImport(w, workbook.Options{})
	if err != nil {
		t.Fatalf("plan: %v %v", err, p.Problems)
	}
	if got, want := p.Tournament, "20250315-roma-il-gufo"; got != want {
		t.Errorf("tournament id %q, want %q", got, want)
	}
	st, err := p.Rehearse(nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Disagreements) != 0 {
		t.Errorf("disagreements %+v, want none", p.Disagreements)
	}
	if st.Imported == nil || !st.Imported.Final || len(st.Imported.Rows) != 8 || !st.Closed {
		t.Fatalf("imported classification %+v closed %v", st.Imported, st.Closed)
	}
	if got, want := st.Organizer, "ROMA [Il Gufo]"; got != want {
		t.Errorf("organizer %q, want %q", got, want)
	}
	if st.Type != events.TypeOpen || st.Season != "2025" {
		t.Errorf("type %q season %q", st.Type, st.Season)
	}
	// The national ranking reads it as a workbook's, dated by its last round.
	if rt := ranking.FromState(st); rt.Source != ranking.SourceWorkbook || rt.Date != "2025-03-16" || !rt.Final || len(rt.Placings) != 8 {
		t.Errorf("the ranking reads %+v", rt)
	}
	name, data, err := workbook.Export(st)
	if err != nil {
		t.Fatal(err)
	}
	back := read(t, name, data)
	if errs := workbook.Errors(workbook.Validate(back)); len(errs) > 0 {
		t.Fatalf("exported workbook fails validation: %v", errs)
	}
	if got, want := back.NationalID(), w.NationalID(); got != want {
		t.Errorf("exported id %q, want %q", got, want)
	}
	if got, want := back.Counts(), w.Counts(); got != want {
		t.Errorf("exported counts %+v, want %+v", got, want)
	}
	t.Logf("%s: %+v", name, back.Counts())
}

// Where the file's standings and the ruleset's computation from its games
// disagree, the import says so row by row and keeps the file's as
// published: here a decimal names the sole winner of a table the ruleset
// sees as a tie at the top, whose bonus it splits. The decimal is recorded
// as written and exported back.
func TestImportKeepsTheFilesStandingsAndNamesEveryDisagreement(t *testing.T) {
	rows := workbooktest.PrimaveraStandings()
	rows[3].Points = 134 // p3: 40 + 44 + 50, the decimal's sole winner
	b := workbooktest.Primavera(t).Delete("Classifica Ridotta").Standings(rows...)
	b.Set("2\u00b0 Turno", "C4", 44.1)
	w := read(t, "primavera.xlsx", b.Bytes())
	p, err := workbook.PlanImport(w, workbook.Options{})
	if err != nil {
		t.Fatalf("%v %v", err, p.Problems)
	}
	st, err := p.Rehearse(nil, now)
	if err != nil {
		t.Fatal(err)
	}
	var who []string
	for _, d := range p.Disagreements {
		who = append(who, d.Player)
	}
	if got, want := strings.Join(who, ","), "p3,p7"; got != want {
		t.Errorf("disagreements on %s, want %s: %+v", got, want, p.Disagreements)
	}
	if got := st.Published.Rows[3]; got.Player != "p3" || got.Total != 13400 {
		t.Errorf("published row 4 %+v, want the file's p3 with 134", got)
	}
	_, data, err := workbook.Export(st)
	if err != nil {
		t.Fatal(err)
	}
	back := read(t, "back.xlsx", data)
	if got := back.Rounds[1].Tables[1].Seats[0].Written; got != "44.1" {
		t.Errorf("exported score %q, want the file's 44.1", got)
	}
}
