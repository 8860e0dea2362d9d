package workbook

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the round dates are Italian days, whatever the server's zone files
	"unicode"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/unicode/norm"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// ErrOwnCheck reports a workbook Export wrote that its own validation
// refuses: a fault of the writer, never sent.
var ErrOwnCheck = errors.New("workbook: the workbook written fails the national tool's check")

// ruleExport is where what an export needs is stated.
const ruleExport = "docs/workbook.md#export"

// italy is the zone a round's date is read in: the day it was drawn in
// Italy.
var italy = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Rome")
	if err != nil {
		return time.UTC
	}
	return loc
}()

// Export writes the tournament as the club workbook the national tool
// publishes from (docs/workbook.md#export), and checks it with Validate
// before returning it: a workbook that would fail is never returned. It
// returns the file's name, which the national tool accepts, and its bytes.
// A tournament that lacks what the national tool needs (its organizer, its
// type, a round) is refused with a *commands.RuleError that says which.
func Export(t *projections.Tournament) (string, []byte, error) {
	x, err := describe(t)
	if err != nil {
		return "", nil, err
	}
	data, err := x.encode()
	if err != nil {
		return "", nil, err
	}
	w, err := Read(x.fileName, data)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrOwnCheck, err)
	}
	if errs := Errors(Validate(w)); len(errs) > 0 {
		var msgs []string
		for _, p := range errs {
			msgs = append(msgs, p.Where()+": "+p.En)
		}
		return "", nil, fmt.Errorf("%w: %s", ErrOwnCheck, strings.Join(msgs, "; "))
	}
	return x.fileName, data, nil
}

// export is a tournament described as the workbook's cells.
type export struct {
	fileName string
	card     Card
	entries  []exportEntry
	rounds   [][]exportTable
	ranked   []exportStanding
}

type exportEntry struct {
	id                        int
	first, last, club, region string
	plays                     bool
	nationalID                int
}

type exportTable struct {
	seats []exportSeat
}

type exportSeat struct {
	id         int
	name, club string
	score      float64
}

type exportStanding struct {
	pos, id     int
	first, last string
	points      float64
}

func refuse(format string, args ...any) error {
	return &commands.RuleError{Rule: ruleExport, Msg: fmt.Sprintf(format, args...)}
}

// describe reads what the workbook says of t.
func describe(t *projections.Tournament) (*export, error) {
	imp := t.ImportedFrom()
	x := &export{card: Card{Venue: t.Venue, Organizer: t.Organizer, Name: t.Name}}
	if strings.TrimSpace(t.Organizer) == "" {
		return nil, refuse("tournament %s records no organizer: the national ranking names a tournament by its organizing club, as it spells clubs (CITY [Name]); set it with AmendOrganizer", t.ID)
	}
	if len(t.Rounds) == 0 {
		return nil, refuse("tournament %s has drawn no round: the national tool needs at least one round sheet", t.ID)
	}
	switch text, ok := typeText(t.Type); {
	case imp != nil && imp.TypeText != "":
		x.card.TypeText = imp.TypeText
	case ok:
		x.card.TypeText = text
	default:
		return nil, refuse("tournament %s records no tournament_type: the national tool needs one of %s", t.ID, strings.Join(TypeTexts(), ", "))
	}
	final := t.Published != nil && t.Published.Final
	switch {
	case imp != nil:
		x.card.Rounds, x.card.Notes = max(imp.Rounds, len(t.Rounds)), imp.Notes
	case final:
		x.card.Rounds = len(t.Rounds)
	default:
		x.card.Rounds = max(len(t.Rounds), commands.PlannedRounds(t))
	}
	for i, r := range t.Rounds {
		d := r.DrawnAt.In(italy)
		if imp != nil && i < len(imp.RoundDates) {
			d, _ = time.Parse(time.DateOnly, imp.RoundDates[i])
		}
		y, m, dd := d.Date()
		x.card.Dates = append(x.card.Dates, Dated{Date: time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)})
	}
	if x.card.Rounds > maxRounds {
		return nil, refuse("tournament %s plays %d rounds; the workbook holds at most %d", t.ID, x.card.Rounds, maxRounds)
	}
	ids := t.LocalIDs()
	names := map[string][2]string{}
	if imp != nil {
		for _, p := range imp.Players {
			names[p.Player] = [2]string{p.FirstName, p.LastName}
		}
	}
	for _, wb := range t.Workbooks {
		for _, p := range wb.Players {
			names[p.Player] = [2]string{p.FirstName, p.LastName}
		}
	}
	played := map[string]bool{}
	for _, r := range t.Rounds {
		for _, tb := range r.Tables {
			for _, p := range tb.Players {
				played[p] = true
			}
		}
	}
	nameOf := func(id string) (string, string) {
		if n, ok := names[id]; ok {
			return n[0], n[1]
		}
		p := t.Players[id]
		first, last, _ := strings.Cut(strings.TrimSpace(p.Name), " ")
		return first, strings.TrimSpace(last)
	}
	for _, id := range t.Order {
		p := t.Players[id]
		if p.Status == events.StatusRefused {
			continue
		}
		first, last := nameOf(id)
		e := exportEntry{id: ids[id], first: first, last: last, club: p.Club, region: p.Region, plays: played[id]}
		if n, err := strconv.Atoi(p.NationalID); err == nil && n > 0 {
			e.nationalID = n
		}
		x.entries = append(x.entries, e)
	}
	written := map[[3]string]string{}
	if imp != nil {
		for _, s := range imp.Scores {
			written[[3]string{itoa(s.Round), itoa(s.Table), s.Player}] = s.Score
		}
	}
	for _, r := range t.Rounds {
		var tables []exportTable
		for _, tb := range r.Tables {
			scores := tableScores(tb)
			var et exportTable
			for _, p := range tb.Players {
				score := scores[p]
				if w, ok := written[[3]string{itoa(r.Number), itoa(tb.Number), p}]; ok {
					if f, err := strconv.ParseFloat(w, 64); err == nil && math.Trunc(f) == math.Trunc(score) {
						score = f
					}
				}
				et.seats = append(et.seats, exportSeat{id: ids[p], name: t.Players[p].Name, club: t.Players[p].Club, score: score})
			}
			tables = append(tables, et)
		}
		x.rounds = append(x.rounds, tables)
	}
	switch {
	case t.Imported != nil:
		for _, row := range t.Imported.Rows {
			f, _ := strconv.ParseFloat(row.Points, 64)
			first, last := nameOf(row.Player)
			x.ranked = append(x.ranked, exportStanding{pos: row.Rank, id: ids[row.Player], first: first, last: last, points: f})
		}
	case t.Published != nil:
		pos := 0
		for _, row := range t.Published.Rows {
			if !played[row.Player] {
				continue
			}
			pos++
			first, last := nameOf(row.Player)
			x.ranked = append(x.ranked, exportStanding{pos: pos, id: ids[row.Player], first: first, last: last, points: float64(row.Total) / 100})
		}
	case x.card.Rounds == len(t.Rounds):
		if tt, _ := typeOfText(x.card.TypeText); tt.standings {
			return nil, refuse("tournament %s has played its last round and published no classification: the national tool needs its standings (publish the final classification first)", t.ID)
		}
	}
	x.fileName = FileName(x.card.Dates[0].Date, t.Organizer, t.Name)
	return x, nil
}

// tableScores are the scores a round sheet writes for a table, as its
// organizer types them: the table points the report recorded, 100 for a
// RisiKo! (GestioneTorneo's manual), and where the report's placing names a
// sole winner whom the table points leave level with another, one tenth
// more to him: the decimal organizers add so that the workbook's winner,
// the highest score, is the report's. A table without a report scores 0,
// as a drawn round is written.
func tableScores(tb *projections.Table) map[string]float64 {
	out := map[string]float64{}
	rep := tb.Report
	if rep == nil {
		return out
	}
	winner := ""
	for _, res := range tb.Results {
		if res.Win {
			winner = res.Player
		}
	}
	if rep.Risiko && rep.Winner != "" {
		winner = rep.Winner
	}
	for _, s := range rep.Players {
		out[s.Player] = float64(s.TablePoints)
		if s.Status == events.SeatEliminated {
			out[s.Player] = 0
		}
	}
	if winner == "" {
		return out
	}
	if rep.Risiko {
		out[winner] = 100
	}
	for p, v := range out {
		if p != winner && v >= out[winner] {
			out[winner] = math.Trunc(v) + 0.1
		}
	}
	return out
}

// FileName is a name the national tool accepts for a tournament's
// workbook: the first round's date, the organizer and the name, in ASCII
// letters, digits, hyphens and underscores (no apostrophe, the first rule
// of its validation).
func FileName(first time.Time, organizer, name string) string {
	var b strings.Builder
	b.WriteString(first.Format("20060102"))
	under := false
	for _, r := range norm.NFD.String(" " + organizer + " " + name) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-'):
			if under {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under = false
		default:
			under = true
		}
	}
	name = b.String()
	if len(name) > 120 {
		name = name[:120]
	}
	return name + ".xlsx"
}

// encode writes the workbook's cells with excelize.
func (x *export) encode() ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	e := &encoder{f: f}
	dateStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptr("dd/mm/yyyy")})
	e.fail(err)
	e.fail(f.SetSheetName("Sheet1", SheetCard))
	c := SheetCard
	e.str(c, "C1", "SCHEDA DATI TORNEO")
	for i, label := range []string{"Sede Torneo", "Organizzatore", "Nome Torneo", "Tipologia di Torneo", "Numero Turni Previsti", "Note"} {
		e.str(c, ref(2, i+2), label)
	}
	e.str(c, "D2", x.card.Venue)
	e.str(c, "D3", x.card.Organizer)
	e.str(c, "D4", x.card.Name)
	e.str(c, "D5", x.card.TypeText)
	e.fail(f.SetCellInt(c, "D6", int64(x.card.Rounds)))
	e.str(c, "D7", x.card.Notes)
	for i, d := range x.card.Dates {
		row := firstDateRow + i
		e.fail(f.SetCellInt(c, ref(1, row), int64(i+1)))
		e.str(c, ref(2, row), "Data Turno "+itoa(i+1))
		e.fail(f.SetCellValue(c, ref(3, row), d.Date))
		e.fail(f.SetCellStyle(c, ref(3, row), ref(3, row), dateStyle))
	}
	e.fail(f.SetColWidth(c, "C", "D", 28))

	s := SheetEntries
	_, err = f.NewSheet(s)
	e.fail(err)
	e.str(s, "A1", "Elenco Partecipanti")
	for i, h := range []string{"ID", "Nome", "Cognome", "Nickname", "Club", "Partecipa Torneo", "Regione", "Data di Nascita (gg/mm/aaaa)", "ID NAZIONALE"} {
		e.str(s, ref(i, 3), h)
	}
	for i, en := range x.entries {
		row := firstEntryRow + i
		e.fail(f.SetCellInt(s, ref(0, row), int64(en.id)))
		e.str(s, ref(1, row), en.first)
		e.str(s, ref(2, row), en.last)
		e.str(s, ref(4, row), en.club)
		e.str(s, ref(5, row), map[bool]string{true: "SI", false: "NO"}[en.plays])
		e.str(s, ref(6, row), en.region)
		if en.nationalID > 0 {
			e.fail(f.SetCellInt(s, ref(8, row), int64(en.nationalID)))
		}
	}
	e.fail(f.SetColWidth(s, "B", "I", 18))

	for n, tables := range x.rounds {
		sh := RoundSheet(n + 1)
		_, err = f.NewSheet(sh)
		e.fail(err)
		for k, tb := range tables {
			head, players := 2*k+1, 2*k+2
			e.str(sh, ref(0, head), "Tavolo N°"+itoa(k+1))
			e.fail(f.MergeCell(sh, ref(0, head), ref(3*len(tb.seats)-1, head)))
			for j, seat := range tb.seats {
				e.fail(f.SetCellInt(sh, ref(3*j, players), int64(seat.id)))
				e.str(sh, ref(3*j+1, players), strings.TrimSpace(seat.name+"\n"+seat.club))
				e.fail(f.SetCellFloat(sh, ref(3*j+2, players), seat.score, -1, 64))
			}
		}
		for j := range seatsPerTable {
			id, name, score := colName(3*j), colName(3*j+1), colName(3*j+2)
			e.fail(f.SetColVisible(sh, id, false))
			e.fail(f.SetColWidth(sh, name, name, 24))
			e.fail(f.SetColWidth(sh, score, score, 7))
		}
	}

	if len(x.ranked) > 0 {
		st := SheetStandings
		_, err = f.NewSheet(st)
		e.fail(err)
		for i, h := range []string{"Pos.", "Nome", "Cognome", "pt_tot", "id"} {
			e.str(st, ref(i, 1), h)
		}
		for i, r := range x.ranked {
			row := i + 2
			e.str(st, ref(0, row), itoa(r.pos))
			e.str(st, ref(1, row), r.first)
			e.str(st, ref(2, row), r.last)
			e.fail(f.SetCellFloat(st, ref(3, row), r.points, -1, 64))
			e.str(st, ref(4, row), itoa(r.id))
		}
	}
	if e.err != nil {
		return nil, e.err
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encoder keeps the first error of a run of excelize calls.
type encoder struct {
	f   *excelize.File
	err error
}

func (e *encoder) fail(err error) {
	if e.err == nil && err != nil {
		e.err = err
	}
}

func (e *encoder) str(sheet, cell, v string) {
	if v != "" {
		e.fail(e.f.SetCellStr(sheet, cell, v))
	}
}

func colName(col int) string {
	n, _ := excelize.ColumnNumberToName(col + 1)
	return n
}

func ptr[T any](v T) *T { return &v }
