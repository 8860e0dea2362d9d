package workbook_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/commands/workbook/workbooktest"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
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

// What the tournament imported into already holds is said, in Italian and
// English, before anything is sent: the same file again (a page sent
// twice), a closed entry list, players where a whole tournament is to
// come; and a row the ledger refuses is named by its sheet and cell.
func TestImportRefusalsSayWhereAndWhy(t *testing.T) {
	data := workbooktest.Primavera(t).Bytes()
	entryList, err := workbook.PlanImport(read(t, "iscritti.xlsx", data), workbook.Options{Tournament: "mattina"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := entryList.Rehearse(nil, now)
	if err != nil {
		t.Fatal(err)
	}
	withPlayers := st.Clone()
	withPlayers.Closed, withPlayers.RegistrationClosed = false, false
	withPlayers.Workbooks = nil
	open := projections.New("open")
	open.Seq = 1
	closedEntries := open.Clone()
	closedEntries.RegistrationClosed = true

	long := strings.Repeat("Giovanni", 30)
	cases := []struct {
		name      string
		data      []byte
		o         workbook.Options
		where, it string
	}{
		{"the same file again", data, workbook.Options{EntryList: true, Into: st}, "", "è già stato importato nel torneo, all'evento 3"},
		{"a whole workbook into a tournament with players", workbooktest.Primavera(t).Set("TORNEO", "D7", "altro").Bytes(),
			workbook.Options{Into: withPlayers}, "", "il torneo ha già 8 iscritti"},
		{"an entry list once registration is closed", data, workbook.Options{EntryList: true, Into: closedEntries}, "Iscritti", "le iscrizioni del torneo sono chiuse"},
		{"an ID taken", workbooktest.New(t).Entries(workbooktest.Entry{ID: 3, First: "Luigi", Last: "Verdi", Plays: true}).Bytes(),
			workbook.Options{EntryList: true, Into: withPlayers}, "Iscritti!A4", "ID 3 (Luigi Verdi): il torneo ha già un iscritto con questo ID (Luca Ferrari)"},
		{"an entry list whose players are all registered", workbooktest.Primavera(t).Set("Iscritti", "E4", "altro club").Bytes(),
			workbook.Options{EntryList: true, Into: withPlayers}, "Iscritti", "nessun giocatore nuovo: quelli del file (8) sono già tutti iscritti al torneo"},
		{"a name the ledger refuses", workbooktest.Primavera(t).Set("Iscritti", "C6", long).Bytes(), workbook.Options{EntryList: true, Into: open},
			"Iscritti!A6", "il registro non accetta la lista iscritti del file: players[2].last_name: is 240 characters long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := workbook.PlanImport(read(t, "iscritti.xlsx", c.data), c.o)
			if err == nil {
				_, err = p.Rehearse(c.o.Into, now)
			}
			if !errors.Is(err, workbook.ErrImport) {
				t.Fatalf("import: %v, want it refused", err)
			}
			errs := workbook.Errors(p.Problems)
			if len(errs) != 1 || errs[0].Where() != c.where || !strings.Contains(errs[0].It, c.it) || errs[0].En == "" {
				t.Errorf("problems %s, want one at %q saying %q", list(errs), c.where, c.it)
			}
		})
	}
}

// The arbiter's list sent again with the late entries added at its end
// registers only those: a row whose ID the tournament has, as the same
// person, is passed over.
func TestAnEntryListSentAgainRegistersOnlyItsNewRows(t *testing.T) {
	open := projections.New("mattina")
	open.Seq = 1
	first, err := workbook.PlanImport(read(t, "iscritti.xlsx", workbooktest.Primavera(t).Bytes()), workbook.Options{EntryList: true, Into: open})
	if err != nil {
		t.Fatal(err)
	}
	st, err := first.Rehearse(open, now)
	if err != nil {
		t.Fatal(err)
	}
	later := workbooktest.Primavera(t).Set("Iscritti", "A12", 9).Set("Iscritti", "B12", "Luigi").Set("Iscritti", "C12", "Verdi").
		Set("Iscritti", "F12", "SI").Set("Iscritti", "I12", 2000).Set("Iscritti", "C5", "BIANCHI ")
	p, err := workbook.PlanImport(read(t, "iscritti.xlsx", later.Bytes()), workbook.Options{EntryList: true, Into: st})
	if err != nil {
		t.Fatalf("%v: %s", err, list(p.Problems))
	}
	var registered []string
	for _, s := range p.Steps {
		if reg, ok := s.Command.(*commands.RegisterPlayer); ok {
			registered = append(registered, reg.Player+" "+reg.Name)
		}
	}
	if got, want := strings.Join(registered, ","), "p9 Luigi Verdi"; got != want {
		t.Errorf("registered %q, want only the late entry %q", got, want)
	}
	if _, err := p.Rehearse(st, now); err != nil {
		t.Errorf("the late entries would be refused: %v", err)
	}
}
