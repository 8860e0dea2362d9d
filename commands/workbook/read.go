package workbook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// Workbook is a club workbook as the national tool reads it: the card, the
// entry list, the round sheets and the published standings, each value
// with the cell it came from. Problems found while reading (what stops the
// national tool at once: a non-numeric id, a date of birth typed as text,
// …) are kept for Validate, which reports them with everything else.
type Workbook struct {
	FileName string
	SHA256   string
	// Data is the file's bytes.
	Data []byte
	// Sheets are the workbook's sheet names, in order.
	Sheets    []string
	Card      *Card
	Entries   *Entries
	Rounds    []*Round
	Standings *Standings

	read []Problem
}

// Card is the sheet TORNEO.
type Card struct {
	Venue, Organizer, Name, TypeText, Notes string
	// Rounds is D6 as a number (0 when missing or unreadable); RoundsText
	// is D6 as written.
	Rounds     int
	RoundsText string
	// Dates are the round dates of D8..D37 that are dates, in row order:
	// Dates[n-1] is round n's, as the national tool reads them (a gap
	// shifts the rest).
	Dates []Dated
}

// Dated is a date and the cell it is in.
type Dated struct {
	Cell string
	Date time.Time
}

// Entries is the sheet Iscritti.
type Entries struct {
	Rows []*Entry
}

// Entry is one row of the entry list.
type Entry struct {
	Row       int
	ID        int
	FirstName string
	LastName  string
	Club      string
	Region    string
	// Plays is column F, "Partecipa Torneo": SI.
	Plays bool
	// Birth is the date of birth (nil when blank); NationalID column I
	// (0 when none).
	Birth      *time.Time
	NationalID int
}

// Name is "Nome Cognome", as the round sheets show a player.
func (e *Entry) Name() string { return strings.TrimSpace(e.FirstName + " " + e.LastName) }

// anonymous reports the entry list's anonymous player (Anonimo Anonimo).
func (e *Entry) anonymous() bool {
	return strings.EqualFold(strings.TrimSpace(e.FirstName), "Anonimo") && strings.EqualFold(strings.TrimSpace(e.LastName), "Anonimo")
}

// Round is one round sheet.
type Round struct {
	Sheet string
	// Number is the round's number from the sheet's name; NumberOK is
	// false when the name does not start with one.
	Number   int
	NumberOK bool
	// Tables are the tables with at least one seat, numbered by position.
	Tables []*Table
}

// Table is one table of a round sheet: its position's number, the row of
// its players, and the seats in order.
type Table struct {
	Number int
	Row    int
	Seats  []Seat
}

// Seat is one player at a table: the entry-list id, the score as a number
// and as written, and the cells they are in.
type Seat struct {
	ID        int
	IDCell    string
	Score     float64
	Written   string
	ScoreCell string
}

// Standings is the sheet Classifica Ridotta.
type Standings struct {
	Rows []*Standing
}

// Standing is one row of the published standings: each field and whether
// it could be read, as the national tool reads them.
type Standing struct {
	Row            int
	Pos            int
	PosOK          bool
	Points         string
	PointsOK       bool
	ID             int
	IDOK           bool
	numericFormula string // the column of a formula with a number for a result
}

// ErrNotXLSX reports a file that is no .xlsx workbook; a legacy .xls
// (BIFF8) is named as such, since it only needs saving as .xlsx. Read's
// error is a *FileError that says so in Italian and English.
var ErrNotXLSX = errors.New("workbook: not an .xlsx workbook")

// FileError is a file that is no .xlsx workbook, said in Italian and
// English as a Problem is: what the file is, and what to do about it.
type FileError struct {
	It, En string
}

func (e *FileError) Error() string { return ErrNotXLSX.Error() + ": " + e.En }

// Is makes a FileError an ErrNotXLSX.
func (e *FileError) Is(target error) bool { return target == ErrNotXLSX }

// oleMagic starts a legacy .xls (and an encrypted .xlsx): an OLE2 file.
var oleMagic = []byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}

// MaxSize is the largest workbook read, in bytes; the national tool's
// templates are well under 1 MB.
const MaxSize = 16 << 20

// Read reads a club workbook named name from its bytes. Only a file that is
// no .xlsx at all is an error; everything else the national tool would
// refuse is kept for Validate.
func Read(name string, data []byte) (*Workbook, error) {
	sum := sha256.Sum256(data)
	w := &Workbook{FileName: name, SHA256: hex.EncodeToString(sum[:]), Data: data}
	if len(data) > MaxSize {
		return nil, &FileError{It: fmt.Sprintf("il file %s è di %d byte, più dei %d che un file di torneo può avere", name, len(data), MaxSize),
			En: fmt.Sprintf("%s is %d bytes, more than the %d a workbook may be", name, len(data), MaxSize)}
	}
	if bytes.HasPrefix(data, oleMagic) {
		return nil, &FileError{It: fmt.Sprintf("%s è un file Excel 97-2003 (.xls) o protetto da password: aprirlo in Excel o LibreOffice, salvarlo come .xlsx (Cartella di lavoro di Excel) senza password e riprovare", name),
			En: fmt.Sprintf("%s is a legacy Excel 97-2003 file (.xls) or a password-protected one: open it in Excel or LibreOffice and save it as .xlsx (Excel Workbook), then try again", name)}
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: 64 << 20, UnzipXMLSizeLimit: 32 << 20})
	if err != nil {
		return nil, &FileError{It: fmt.Sprintf("%s non è un file Excel .xlsx leggibile (%v): salvarlo da Excel o LibreOffice come .xlsx e riprovare", name, err),
			En: fmt.Sprintf("%s: %v", name, err)}
	}
	defer f.Close()
	r := &reader{f: f, w: w}
	if props, err := f.GetWorkbookProps(); err == nil && props.Date1904 != nil {
		r.date1904 = *props.Date1904
	}
	w.Sheets = f.GetSheetList()
	for _, s := range w.Sheets {
		switch {
		case s == SheetCard:
			w.Card = r.card()
		case s == SheetEntries:
			w.Entries = r.entries()
		case s == SheetStandings:
			w.Standings = r.standings()
		case strings.HasSuffix(s, RoundSuffix):
			w.Rounds = append(w.Rounds, r.round(s))
		}
	}
	slices.SortStableFunc(w.Rounds, func(a, b *Round) int { return a.Number - b.Number })
	return w, nil
}

// reader reads one workbook's cells.
type reader struct {
	f        *excelize.File
	w        *Workbook
	date1904 bool
}

// kind is what a cell holds, as the national tool tells cells apart.
type kind int

const (
	blank kind = iota
	number
	text
	formulaText   // a formula whose result is text
	formulaNumber // a formula whose result is a number
	other         // a boolean or an error value
)

// cell is one cell's content.
type cell struct {
	kind kind
	raw  string
	num  float64
}

// text is the cell as the national tool turns a cell into text: a text's
// text, a number's digits, a formula's text result, "" for anything else.
func (c cell) text() string {
	switch c.kind {
	case text, formulaText, number, formulaNumber:
		return c.raw
	}
	return ""
}

// numeric reports a number, or a formula whose result is one.
func (c cell) numeric() bool { return c.kind == number || c.kind == formulaNumber }

func (r *reader) cell(sheet, ref string) cell {
	raw, err := r.f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil || raw == "" {
		return cell{kind: blank}
	}
	typ, _ := r.f.GetCellType(sheet, ref)
	formula, _ := r.f.GetCellFormula(sheet, ref)
	switch typ {
	case excelize.CellTypeSharedString, excelize.CellTypeInlineString:
		return cell{kind: text, raw: raw}
	case excelize.CellTypeFormula:
		return cell{kind: formulaText, raw: raw}
	case excelize.CellTypeBool, excelize.CellTypeError, excelize.CellTypeDate:
		return cell{kind: other, raw: raw}
	}
	n, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return cell{kind: text, raw: raw}
	}
	if formula != "" {
		return cell{kind: formulaNumber, raw: raw, num: n}
	}
	return cell{kind: number, raw: raw, num: n}
}

func (r *reader) problem(p Problem) { r.w.read = append(r.w.read, p) }

func (r *reader) date(c cell) (time.Time, bool) {
	if !c.numeric() {
		return time.Time{}, false
	}
	t, err := excelize.ExcelDateToTime(c.num, r.date1904)
	if err != nil {
		return time.Time{}, false
	}
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), true
}

func (r *reader) card() *Card {
	s := SheetCard
	c := &Card{Venue: r.cell(s, "D2").text(), Organizer: r.cell(s, "D3").text(), Name: r.cell(s, "D4").text(),
		TypeText: r.cell(s, "D5").text(), Notes: r.cell(s, "D7").text()}
	d6 := r.cell(s, "D6")
	c.RoundsText = d6.text()
	if n, err := strconv.ParseFloat(strings.TrimSpace(d6.text()), 64); err == nil && n >= 0 && n < 1000 {
		c.Rounds = int(n)
	}
	for row := firstDateRow; row < firstDateRow+maxRounds; row++ {
		ref := ref(3, row)
		dc := r.cell(s, ref)
		if d, ok := r.date(dc); ok {
			c.Dates = append(c.Dates, Dated{Cell: ref, Date: d})
		} else if dc.kind != blank {
			r.problem(warn(SheetCard, ref, codeDateText, dc.text()))
		}
	}
	return c
}

func (r *reader) entries() *Entries {
	s := SheetEntries
	rows, _ := r.f.GetRows(s, excelize.Options{RawCellValue: true})
	out := &Entries{}
	for row := firstEntryRow; row <= len(rows); row++ {
		idc := r.cell(s, ref(0, row))
		first := strings.TrimSpace(r.cell(s, ref(1, row)).text())
		if idc.kind == blank {
			if first != "" {
				r.problem(warn(s, ref(0, row), codeEntryNoID, first))
			}
			continue
		}
		if first == "" {
			continue
		}
		e := &Entry{Row: row, FirstName: first, LastName: strings.TrimSpace(r.cell(s, ref(2, row)).text()),
			Club: strings.TrimSpace(r.cell(s, ref(4, row)).text()), Region: strings.TrimSpace(r.cell(s, ref(6, row)).text()),
			Plays: strings.EqualFold(strings.TrimSpace(r.cell(s, ref(5, row)).text()), "SI")}
		if !idc.numeric() {
			r.problem(fail(s, ref(0, row), codeIDNotNumeric, row, idc.text()))
			continue
		}
		e.ID = int(int16(idc.num))
		switch bc := r.cell(s, ref(7, row)); {
		case bc.kind == blank:
		case bc.numeric():
			if d, ok := r.date(bc); ok {
				e.Birth = &d
			}
		default:
			r.problem(fail(s, ref(7, row), codeBirthText, row))
		}
		if nc := r.cell(s, ref(8, row)); nc.numeric() && nc.num > 0 && nc.num < math.MaxInt32 {
			e.NationalID = int(nc.num)
		}
		out.Rows = append(out.Rows, e)
	}
	return out
}

// nonEmptyRows lists the rows of a sheet that hold anything, in order.
func (r *reader) nonEmptyRows(sheet string) []int {
	rows, _ := r.f.GetRows(sheet, excelize.Options{RawCellValue: true})
	var out []int
	for i, cols := range rows {
		if slices.ContainsFunc(cols, func(v string) bool { return strings.TrimSpace(v) != "" }) {
			out = append(out, i+1)
		}
	}
	return out
}

func (r *reader) round(sheet string) *Round {
	rd := &Round{Sheet: sheet}
	if n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(sheet, RoundSuffix))); err == nil {
		rd.Number, rd.NumberOK = n, true
	}
	rows := r.nonEmptyRows(sheet)
	// The national tool pairs the rows: a table's header (ignored), then
	// its players; the table's number is its position.
	for i := 1; i < len(rows); i += 2 {
		tb := &Table{Number: i/2 + 1, Row: rows[i]}
		for j := range seatsPerTable {
			idRef := ref(3*j, rows[i])
			idc := r.cell(sheet, idRef)
			if idc.kind == blank || idc.numeric() && int(idc.num) == 0 {
				continue
			}
			if !idc.numeric() {
				r.problem(fail(sheet, idRef, codeSeatIDNotNumeric, idc.text()))
				continue
			}
			seat := Seat{ID: int(int16(idc.num)), IDCell: idRef, ScoreCell: ref(3*j+2, rows[i])}
			switch sc := r.cell(sheet, seat.ScoreCell); {
			case sc.kind == blank:
				seat.Written = "0"
			case sc.numeric():
				seat.Score, seat.Written = sc.num, sc.raw
			default:
				r.problem(fail(sheet, seat.ScoreCell, codeScoreNotNumeric, sc.text()))
				continue
			}
			tb.Seats = append(tb.Seats, seat)
		}
		if len(tb.Seats) > 0 {
			rd.Tables = append(rd.Tables, tb)
		}
	}
	return rd
}

func (r *reader) standings() *Standings {
	s := SheetStandings
	out := &Standings{}
	rows := r.nonEmptyRows(s)
	for i, row := range rows {
		if i == 0 {
			continue // the header
		}
		st := &Standing{Row: row}
		pos, pts, id := r.cell(s, ref(0, row)), r.cell(s, ref(3, row)), r.cell(s, ref(4, row))
		for _, c := range []struct {
			c   cell
			col string
		}{{pos, "A"}, {pts, "D"}, {id, "E"}} {
			if c.c.kind == formulaNumber && st.numericFormula == "" {
				st.numericFormula = c.col
			}
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(pos.text()), 64); err == nil {
			st.Pos, st.PosOK = int(f), true
		}
		if p := strings.TrimSpace(pts.text()); p != "" {
			if _, err := strconv.ParseFloat(p, 64); err == nil {
				st.Points, st.PointsOK = p, true
			}
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(id.text()), 64); err == nil {
			st.ID, st.IDOK = int(f), true
		}
		if st.PosOK || st.PointsOK || st.IDOK || st.numericFormula != "" {
			out.Rows = append(out.Rows, st)
		}
	}
	return out
}

// ref is the A1 reference of a 0-based column and a 1-based row.
func ref(col, row int) string {
	name, _ := excelize.ColumnNumberToName(col + 1)
	return name + strconv.Itoa(row)
}

func itoa(n int) string { return strconv.Itoa(n) }
