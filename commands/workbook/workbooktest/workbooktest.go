// Package workbooktest builds club workbooks by hand for tests, cell by
// cell from the layout docs/workbook.md restates (not by the package that
// writes them), so that a test can also break any cell. The real
// templates carry personal data: none is committed, every test builds
// its own.
package workbooktest

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// Book is a workbook being built.
type Book struct {
	F *excelize.File
	t testing.TB
}

// New returns an empty workbook with no sheet the national tool reads.
func New(t testing.TB) *Book {
	t.Helper()
	f := excelize.NewFile()
	t.Cleanup(func() { _ = f.Close() })
	if err := f.SetSheetName("Sheet1", "Log"); err != nil {
		t.Fatal(err)
	}
	return &Book{F: f, t: t}
}

// Set writes v into sheet!cell, creating the sheet if needed: a string is
// a text cell, an int or float a number, a time.Time a date.
func (b *Book) Set(sheet, cell string, v any) *Book {
	b.t.Helper()
	b.sheet(sheet)
	var err error
	switch x := v.(type) {
	case nil:
		err = b.F.SetCellValue(sheet, cell, nil)
	case string:
		err = b.F.SetCellStr(sheet, cell, x)
	case time.Time:
		err = b.F.SetCellValue(sheet, cell, x)
		if err == nil {
			style, _ := b.F.NewStyle(&excelize.Style{NumFmt: 14})
			err = b.F.SetCellStyle(sheet, cell, cell, style)
		}
	default:
		err = b.F.SetCellValue(sheet, cell, x)
	}
	if err != nil {
		b.t.Fatal(err)
	}
	return b
}

func (b *Book) sheet(name string) {
	if idx, _ := b.F.GetSheetIndex(name); idx < 0 {
		if _, err := b.F.NewSheet(name); err != nil {
			b.t.Fatal(err)
		}
	}
}

// Delete removes a sheet.
func (b *Book) Delete(name string) *Book {
	b.t.Helper()
	if err := b.F.DeleteSheet(name); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Rename renames a sheet.
func (b *Book) Rename(from, to string) *Book {
	b.t.Helper()
	if err := b.F.SetSheetName(from, to); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Card fills TORNEO: labels in C, values in D2..D6, a date per round from D8.
func (b *Book) Card(venue, organizer, name, typ string, rounds int, dates ...time.Time) *Book {
	b.t.Helper()
	s := "TORNEO"
	b.Set(s, "C1", "SCHEDA DATI TORNEO (V. 2025.2)")
	for i, l := range []string{"Sede Torneo", "Organizzatore", "Nome Torneo", "Tipologia di Torneo", "Numero Turni Previsti", "Note"} {
		b.Set(s, "C"+strconv.Itoa(i+2), l)
	}
	b.Set(s, "D2", venue).Set(s, "D3", organizer).Set(s, "D4", name).Set(s, "D5", typ).Set(s, "D6", rounds)
	for i, d := range dates {
		b.Set(s, "B"+strconv.Itoa(8+i), i+1).Set(s, "D"+strconv.Itoa(8+i), d)
	}
	return b
}

// Entry is one row of Iscritti.
type Entry struct {
	ID          int
	First, Last string
	Club        string
	Plays       bool
	Region      string
	Birth       time.Time // zero: blank
	National    int       // 0: blank
}

// Entries fills Iscritti: three header rows, then one row per entry from row 4.
func (b *Book) Entries(es ...Entry) *Book {
	b.t.Helper()
	s := "Iscritti"
	b.Set(s, "A1", "Elenco Partecipanti")
	for i, h := range []string{"ID", "Nome", "Cognome", "Nickname", "Club", "Partecipa Torneo", "Regione", "Data di Nascita (gg/mm/aaaa)", "ID NAZIONALE"} {
		col, _ := excelize.ColumnNumberToName(i + 1)
		b.Set(s, col+"3", h)
	}
	for i, e := range es {
		r := strconv.Itoa(4 + i)
		b.Set(s, "A"+r, e.ID).Set(s, "B"+r, e.First).Set(s, "C"+r, e.Last).Set(s, "E"+r, e.Club).Set(s, "G"+r, e.Region)
		b.Set(s, "F"+r, map[bool]string{true: "SI", false: "NO"}[e.Plays])
		if !e.Birth.IsZero() {
			b.Set(s, "H"+r, e.Birth)
		}
		if e.National > 0 {
			b.Set(s, "I"+r, e.National)
		}
	}
	return b
}

// Seat is a player at a table: his id and score.
type Seat struct {
	ID    int
	Score float64
}

// Round fills the sheet "N° Turno": for each table a header row "Tavolo
// N°k" merged over its seats, then the players row of (id, name, score)
// triplets.
func (b *Book) Round(n int, tables ...[]Seat) *Book {
	b.t.Helper()
	s := strconv.Itoa(n) + "\u00b0 Turno"
	b.sheet(s)
	for k, tb := range tables {
		head, row := strconv.Itoa(2*k+1), strconv.Itoa(2*k+2)
		b.Set(s, "A"+head, "Tavolo N°"+strconv.Itoa(k+1))
		end, _ := excelize.ColumnNumberToName(3 * len(tb))
		if err := b.F.MergeCell(s, "A"+head, end+head); err != nil {
			b.t.Fatal(err)
		}
		for j, seat := range tb {
			id, _ := excelize.ColumnNumberToName(3*j + 1)
			name, _ := excelize.ColumnNumberToName(3*j + 2)
			score, _ := excelize.ColumnNumberToName(3*j + 3)
			b.Set(s, id+row, seat.ID).Set(s, name+row, "Giocatore "+strconv.Itoa(seat.ID)).Set(s, score+row, seat.Score)
		}
	}
	return b
}

// Standing is one row of Classifica Ridotta; Formula, when set, makes its
// points a formula whose result is the number Points (as a spreadsheet
// that computed them leaves it).
type Standing struct {
	Pos     string
	Points  float64
	ID      string
	Formula string
}

// Standings fills Classifica Ridotta: its header row, then the rows, the
// position and the id as text and the points as a number. The sheet is
// written as a stream when a row has a formula, which keeps its numeric
// result numeric (and the sheet is then not to be edited further).
func (b *Book) Standings(rows ...Standing) *Book {
	b.t.Helper()
	s := "Classifica Ridotta"
	b.sheet(s)
	if !slices.ContainsFunc(rows, func(r Standing) bool { return r.Formula != "" }) {
		for i, h := range []string{"Pos.", "Nome", "Cognome", "pt_tot", "id"} {
			col, _ := excelize.ColumnNumberToName(i + 1)
			b.Set(s, col+"1", h)
		}
		for i, r := range rows {
			n := strconv.Itoa(i + 2)
			b.Set(s, "A"+n, r.Pos).Set(s, "B"+n, "Nome").Set(s, "C"+n, "Cognome").Set(s, "D"+n, r.Points).Set(s, "E"+n, r.ID)
		}
		return b
	}
	sw, err := b.F.NewStreamWriter(s)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := sw.SetRow("A1", []any{"Pos.", "Nome", "Cognome", "pt_tot", "id"}); err != nil {
		b.t.Fatal(err)
	}
	for i, r := range rows {
		points := any(r.Points)
		if r.Formula != "" {
			points = excelize.Cell{Formula: r.Formula, Value: r.Points}
		}
		if err := sw.SetRow("A"+strconv.Itoa(i+2), []any{r.Pos, "Nome", "Cognome", points, r.ID}); err != nil {
			b.t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// Bytes is the workbook as an .xlsx file.
func (b *Book) Bytes() []byte {
	b.t.Helper()
	var buf bytes.Buffer
	if _, err := b.F.WriteTo(&buf); err != nil {
		b.t.Fatal(err)
	}
	return buf.Bytes()
}

// Day is a date.
func Day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// Primavera is a small tournament made by hand: "Torneo di Primavera" of
// ROMA [Il Gufo], a Torneo Open of 2 rounds on 15 and 16 March 2025, eight
// players at two tables of four each round, and its standings as rtu's
// tp_bonus ranks them (a winner scores his table points and 50).
func Primavera(t testing.TB) *Book {
	t.Helper()
	b := New(t).Card("Circolo Il Gufo, Roma", "ROMA [Il Gufo]", "Torneo di Primavera", "Torneo Open", 2,
		Day(2025, 3, 15), Day(2025, 3, 16))
	names := [][2]string{{"Mario", "Rossi"}, {"Giulia", "Bianchi"}, {"Luca", "Ferrari"}, {"Sara", "Esposito"},
		{"Marco", "Russo"}, {"Elena", "Romano"}, {"Paolo", "Colombo"}, {"Anna Maria", "De Luca"}}
	var es []Entry
	for i, n := range names {
		es = append(es, Entry{ID: i + 1, First: n[0], Last: n[1], Club: "ROMA [Il Gufo]", Plays: true, Region: "LAZIO",
			Birth: Day(1980+i, time.Month(1+i), 10+i), National: 1000 + i})
	}
	b.Entries(es...)
	b.Round(1, []Seat{{1, 62}, {2, 55}, {3, 40}, {4, 0}}, []Seat{{5, 58}, {6, 47}, {7, 33}, {8, 21}})
	b.Round(2, []Seat{{1, 30}, {5, 41}, {2, 70}, {6, 17}}, []Seat{{3, 46}, {7, 44}, {4, 20}, {8, 10}})
	// 2: 55+120 = 175; 5: 108+41 = 149; 1: 112+30 = 142; 3: 40+96 = 136;
	// 7: 33+44 = 77; 6: 47+17 = 64; 8: 21+10 = 31; 4: 0+20 = 20.
	b.Standings(PrimaveraStandings()...)
	return b
}

// PrimaveraStandings are Primavera's standings.
func PrimaveraStandings() []Standing {
	return []Standing{{Pos: "1", Points: 175, ID: "2"}, {Pos: "2", Points: 149, ID: "5"}, {Pos: "3", Points: 142, ID: "1"},
		{Pos: "4", Points: 136, ID: "3"}, {Pos: "5", Points: 77, ID: "7"}, {Pos: "6", Points: 64, ID: "6"}, {Pos: "7", Points: 31, ID: "8"},
		{Pos: "8", Points: 20, ID: "4"}}
}
