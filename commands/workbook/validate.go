package workbook

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Severity is how the national tool treats a problem: an error refuses
// the workbook; a warning asks the organizer to confirm.
type Severity string

// The severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Rule is where the national tool's checks (and the ledger's of a
// workbook) are stated: what a refusal of a workbook cites.
const Rule = "docs/workbook.md#validation"

// Problem is one thing the national tool would refuse or question, with
// the sheet and cell it is in (either may be empty), in Italian and
// English. Code names the rule (docs/workbook.md#validation).
type Problem struct {
	Severity Severity `json:"severity"`
	Sheet    string   `json:"sheet,omitempty"`
	Cell     string   `json:"cell,omitempty"`
	Code     string   `json:"code"`
	It       string   `json:"it"`
	En       string   `json:"en"`
}

// Where is "Sheet!Cell", "Sheet", or "".
func (p Problem) Where() string {
	switch {
	case p.Sheet != "" && p.Cell != "":
		return p.Sheet + "!" + p.Cell
	case p.Sheet != "":
		return p.Sheet
	}
	return p.Cell
}

// String is the problem on one line: severity, where, Italian / English.
func (p Problem) String() string {
	sev := "ERRORE/ERROR"
	if p.Severity == Warning {
		sev = "AVVISO/WARNING"
	}
	where := p.Where()
	if where == "" {
		where = "-"
	}
	return fmt.Sprintf("%s %s: %s / %s", sev, where, p.It, p.En)
}

// The rules' codes (docs/workbook.md#validation), each with its Italian and
// English text; %v are its arguments.
const (
	codeFileName          = "file_name"
	codeCardMissing       = "card_missing"
	codeOrganizerMissing  = "organizer_missing"
	codeNameMissing       = "name_missing"
	codeTypeInvalid       = "type_invalid"
	codeRoundsInvalid     = "rounds_invalid"
	codeDatesOrder        = "dates_order"
	codeDateText          = "date_text"
	codeEntriesMissing    = "entries_missing"
	codeEntriesEmpty      = "entries_empty"
	codeEntryNoID         = "entry_no_id"
	codeIDNotNumeric      = "id_not_numeric"
	codeIDDuplicate       = "id_duplicate"
	codeBirthText         = "birth_text"
	codeNameIncomplete    = "name_incomplete"
	codeAnonymous         = "anonymous"
	codeSamePerson        = "same_person"
	codeRoundsMissing     = "rounds_missing"
	codeRoundName         = "round_name"
	codeRoundEmpty        = "round_empty"
	codeSeatIDNotNumeric  = "seat_id_not_numeric"
	codeScoreNotNumeric   = "score_not_numeric"
	codeUnknownPlayer     = "unknown_player"
	codeRoundBeyond       = "round_beyond"
	codeRoundDate         = "round_date"
	codeRoundsTooMany     = "rounds_too_many"
	codeStandingsMissing  = "standings_missing"
	codeStandingsEmpty    = "standings_empty"
	codeStandingID        = "standing_id"
	codeStandingPos       = "standing_pos"
	codeStandingPosRange  = "standing_pos_range"
	codeStandingPoints    = "standing_points"
	codeStandingFormula   = "standing_formula"
	codeStandingUnknown   = "standing_unknown"
	codeStandingNotPlayed = "standing_not_played"
	codePlayedNotListed   = "played_not_listed"
	codeFinalRank         = "final_rank"
	codeFinalMissing      = "final_missing"
)

var texts = map[string][2]string{
	codeFileName:         {"Il nome del file %q contiene un apostrofo (')", "the file name %q contains an apostrophe (')"},
	codeCardMissing:      {"Sheet TORNEO assente", "sheet TORNEO is missing"},
	codeOrganizerMissing: {"Organizzatore non indicato", "no organizer (Organizzatore)"},
	codeNameMissing:      {"Nome del torneo non indicato", "no tournament name (Nome Torneo)"},
	codeTypeInvalid: {"Non è stata indicata una corretta tipologia di Torneo: %q (ammesse: %s)",
		"%q is not a tournament type (allowed: %s)"},
	codeRoundsInvalid: {"Numero Turni Previsti mancante o non valido: %q", "the number of rounds (Numero Turni Previsti) is missing or not a number: %q"},
	codeDatesOrder:    {"La data del turno in %s (%s) precede quella in %s (%s)", "the round date in %s (%s) is before the one in %s (%s)"},
	codeDateText: {"Data del turno scritta come testo (%q): il tool nazionale la ignora; impostarla nel formato gg/mm/aaaa",
		"round date typed as text (%q): the national tool ignores it; enter it as a date, dd/mm/yyyy"},
	codeEntriesMissing: {"Sheet Iscritti assente", "sheet Iscritti is missing"},
	codeEntriesEmpty:   {"Lista Iscritti vuota", "the entry list (Iscritti) is empty"},
	codeEntryNoID:      {"Riga con il giocatore %q senza ID: il tool nazionale la ignora", "a row with player %q has no ID: the national tool skips it"},
	codeIDNotNumeric: {"Riga n° %d della scheda Iscritti: Colonna ID con valore non numerico (%q)",
		"row %d of sheet Iscritti: the ID is not a number (%q)"},
	codeIDDuplicate: {"È presente l'ID %d duplicato sulla scheda Iscritti (anche in %s)", "ID %d is listed twice in Iscritti (also in %s)"},
	codeBirthText: {"Errore di formato della data di nascita a riga %d della scheda Iscritti: impostarla nel formato dd/mm/aaaa",
		"date of birth typed as text in row %d of Iscritti: enter it as a date, dd/mm/yyyy"},
	codeNameIncomplete: {"Il giocatore con ID %d non ha Nome e Cognome", "player with ID %d lacks a first or last name"},
	codeAnonymous: {"Il giocatore %q (ID %d) non ha né data di nascita né ID nazionale: sarà trattato come anonimo?",
		"player %q (ID %d) has neither a date of birth nor a national id: to be treated as anonymous?"},
	codeSamePerson: {"Sono presenti due giocatori con stessi dati anagrafici: ID %d e ID %d (%s)",
		"two players have the same name and date of birth: ID %d and ID %d (%s)"},
	codeRoundsMissing: {"Non è presente alcuna scheda turno: le schede dei turni devono chiamarsi 'N° Turno' (es. '1° Turno')",
		"no round sheet: round sheets must be named 'N° Turno' (e.g. '1° Turno')"},
	codeRoundName:        {"Inizio dello sheet %q non numerico", "the name of sheet %q does not start with a round number"},
	codeRoundEmpty:       {"La scheda %q non contiene alcun tavolo", "sheet %q holds no table"},
	codeSeatIDNotNumeric: {"Colonna ID con valore non numerico (%q)", "a seat's ID is not a number (%q)"},
	codeScoreNotNumeric:  {"Colonna Punteggio con valore non numerico (%q)", "a score is not a number (%q)"},
	codeUnknownPlayer:    {"Nella lista dei giocatori non è presente quello con indice %d", "no player with ID %d in the entry list (Iscritti)"},
	codeRoundBeyond: {"Il turno %d supera il Numero Turni Previsti (%d)",
		"round %d is beyond the number of rounds declared (%d)"},
	codeRoundDate: {"Data del turno %d mancante o formattata male", "the date of round %d is missing or not a date"},
	codeRoundsTooMany: {"Sono presenti %d schede turno, più del Numero Turni Previsti (%d)",
		"%d round sheets, more than the number of rounds declared (%d)"},
	codeStandingsMissing: {"L'ultimo turno è stato giocato ma la scheda Classifica Ridotta è assente",
		"the last round was played but sheet Classifica Ridotta is missing"},
	codeStandingsEmpty: {"La scheda Classifica Ridotta è vuota", "sheet Classifica Ridotta has no rows"},
	codeStandingID:     {"Riga %d della Classifica Ridotta: ID mancante", "row %d of Classifica Ridotta: no ID"},
	codeStandingPos:    {"Riga %d della Classifica Ridotta: posizione mancante", "row %d of Classifica Ridotta: no position"},
	codeStandingPosRange: {"Riga %d della Classifica Ridotta: posizione %d maggiore del numero di righe (%d)",
		"row %d of Classifica Ridotta: position %d is more than the %d rows"},
	codeStandingPoints: {"Riga %d della Classifica Ridotta: punti mancanti o non numerici (usare il punto decimale)",
		"row %d of Classifica Ridotta: points missing or not a number (use a decimal point)"},
	codeStandingFormula: {"Riga %d della Classifica Ridotta: la colonna %s contiene una formula numerica, che il tool nazionale non sa leggere: incollare i valori",
		"row %d of Classifica Ridotta: column %s holds a formula with a number for a result, which the national tool cannot read: paste the values"},
	codeStandingUnknown: {"Il giocatore con ID %d in Classifica Ridotta non è presente nella scheda Iscritti",
		"player ID %d of Classifica Ridotta is not in Iscritti"},
	codeStandingNotPlayed: {"Il giocatore con ID %d in Classifica Ridotta non risulta aver disputato alcuna partita",
		"player ID %d of Classifica Ridotta played no game"},
	codePlayedNotListed: {"Il giocatore con ID %d ha giocato ma non è in Classifica Ridotta: confermare la squalifica?",
		"player ID %d played but is not in Classifica Ridotta: disqualified?"},
	codeFinalRank: {"Il giocatore con ID %d è %d° al tavolo finale ma %d° in classifica",
		"player ID %d is placed %d at the final table but %d in the standings"},
	codeFinalMissing: {"Il giocatore con ID %d del tavolo finale non è in Classifica Ridotta", "player ID %d of the final table is not in Classifica Ridotta"},
}

func problem(sev Severity, sheet, cell, code string, args ...any) Problem {
	t := texts[code]
	return Problem{Severity: sev, Sheet: sheet, Cell: cell, Code: code, It: fmt.Sprintf(t[0], args...), En: fmt.Sprintf(t[1], args...)}
}

func fail(sheet, cell, code string, args ...any) Problem {
	return problem(Error, sheet, cell, code, args...)
}
func warn(sheet, cell, code string, args ...any) Problem {
	return problem(Warning, sheet, cell, code, args...)
}

// Errors keeps the errors of problems.
func Errors(problems []Problem) []Problem {
	var out []Problem
	for _, p := range problems {
		if p.Severity == Error {
			out = append(out, p)
		}
	}
	return out
}

// Validate checks the workbook as the national tool does before it
// publishes one (docs/workbook.md#validation), and reports every problem
// at once where the national tool stops at the first: the file name, the
// card, the entry list, the round sheets, the standings, and what they
// say of each other.
func Validate(w *Workbook) []Problem {
	v := &validation{w: w}
	if strings.Contains(w.FileName, "'") {
		v.add(fail("", "", codeFileName, w.FileName))
	}
	v.card()
	v.entries()
	v.rounds()
	v.standings()
	v.cross()
	v.add(w.read...)
	slices.SortStableFunc(v.out, func(a, b Problem) int { return sheetOrder(a.Sheet) - sheetOrder(b.Sheet) })
	return v.out
}

// sheetOrder orders problems as the national tool checks the sheets.
func sheetOrder(sheet string) int {
	switch {
	case sheet == "":
		return 0
	case sheet == SheetCard:
		return 1
	case sheet == SheetEntries:
		return 2
	case sheet == SheetStandings:
		return 4
	}
	return 3
}

type validation struct {
	w   *Workbook
	out []Problem
}

func (v *validation) add(p ...Problem) { v.out = append(v.out, p...) }

func (v *validation) card() {
	c := v.w.Card
	if c == nil {
		v.add(fail(SheetCard, "", codeCardMissing))
		return
	}
	s := SheetCard
	if strings.TrimSpace(c.Organizer) == "" {
		v.add(fail(s, "D3", codeOrganizerMissing))
	}
	if strings.TrimSpace(c.Name) == "" {
		v.add(fail(s, "D4", codeNameMissing))
	}
	if _, ok := typeOfText(c.TypeText); !ok {
		v.add(fail(s, "D5", codeTypeInvalid, c.TypeText, strings.Join(TypeTexts(), ", ")))
	}
	if c.Rounds <= 0 {
		v.add(fail(s, "D6", codeRoundsInvalid, c.RoundsText))
	}
	for i := 1; i < len(c.Dates); i++ {
		for j := range i {
			if c.Dates[i].Date.Before(c.Dates[j].Date) {
				v.add(fail(s, c.Dates[i].Cell, codeDatesOrder, c.Dates[i].Cell, day(c.Dates[i].Date), c.Dates[j].Cell, day(c.Dates[j].Date)))
			}
		}
	}
}

// day prints a date as the national tool does.
func day(t time.Time) string { return t.Format("02/01/2006") }

func (v *validation) entries() {
	e := v.w.Entries
	s := SheetEntries
	if e == nil {
		v.add(fail(s, "", codeEntriesMissing))
		return
	}
	if len(e.Rows) == 0 && !slices.ContainsFunc(v.w.read, func(p Problem) bool { return p.Sheet == s && p.Severity == Error }) {
		v.add(fail(s, "", codeEntriesEmpty))
		return
	}
	byID := map[int]*Entry{}
	for _, r := range e.Rows {
		if prev, dup := byID[r.ID]; dup {
			v.add(fail(s, ref(0, r.Row), codeIDDuplicate, r.ID, ref(0, prev.Row)))
			continue
		}
		byID[r.ID] = r
	}
	// The checks of who plays apply to those seated in the contiguous
	// rounds, or to everyone while nobody has played.
	played := v.w.participants()
	checked := func(r *Entry) bool { return len(played) == 0 || played[r.ID] }
	type person struct{ first, last, birth string }
	same := map[person]*Entry{}
	for _, r := range e.Rows {
		if byID[r.ID] != r || !checked(r) {
			continue
		}
		if r.FirstName == "" || r.LastName == "" {
			v.add(fail(s, ref(1, r.Row), codeNameIncomplete, r.ID))
		}
		if r.Birth == nil && r.NationalID == 0 && !r.anonymous() {
			v.add(warn(s, ref(7, r.Row), codeAnonymous, r.Name(), r.ID))
		}
		if r.anonymous() || r.ID == Ghost {
			continue
		}
		k := person{strings.ToLower(r.FirstName), strings.ToLower(r.LastName), ""}
		if r.Birth != nil {
			k.birth = day(*r.Birth)
		}
		if prev, ok := same[k]; ok {
			v.add(fail(s, ref(0, r.Row), codeSamePerson, prev.ID, r.ID, r.Name()))
			continue
		}
		same[k] = r
	}
}

func (v *validation) rounds() {
	if len(v.w.Rounds) == 0 {
		v.add(fail("", "", codeRoundsMissing))
		return
	}
	ids := v.w.entryIDs()
	for _, r := range v.w.Rounds {
		if !r.NumberOK {
			v.add(fail(r.Sheet, "", codeRoundName, r.Sheet))
			continue
		}
		if len(r.Tables) == 0 {
			v.add(fail(r.Sheet, "", codeRoundEmpty, r.Sheet))
		}
		for _, tb := range r.Tables {
			for _, seat := range tb.Seats {
				if seat.ID != Ghost && ids != nil && !ids[seat.ID] {
					v.add(fail(r.Sheet, seat.IDCell, codeUnknownPlayer, seat.ID))
				}
			}
		}
	}
}

func (v *validation) standings() {
	w := v.w
	st := w.Standings
	s := SheetStandings
	typ, _ := typeOfText(w.cardType())
	needs := typ.standings || w.Card == nil || typ.text == ""
	last := w.lastRound()
	if st == nil {
		if last != nil && needs {
			v.add(fail(s, "", codeStandingsMissing))
		}
		return
	}
	if len(st.Rows) == 0 {
		v.add(fail(s, "", codeStandingsEmpty))
		return
	}
	for _, r := range st.Rows {
		if r.numericFormula != "" {
			v.add(fail(s, r.numericFormula+itoa(r.Row), codeStandingFormula, r.Row, r.numericFormula))
			continue
		}
		if !r.IDOK {
			v.add(fail(s, ref(4, r.Row), codeStandingID, r.Row))
		}
		if !r.PosOK {
			v.add(fail(s, ref(0, r.Row), codeStandingPos, r.Row))
		} else if r.Pos > len(st.Rows) {
			v.add(fail(s, ref(0, r.Row), codeStandingPosRange, r.Row, r.Pos, len(st.Rows)))
		}
		if !r.PointsOK {
			v.add(fail(s, ref(3, r.Row), codeStandingPoints, r.Row))
		}
	}
	// A last round of one table is perhaps a final: its placing must be
	// the standings'.
	if last == nil || !needs || len(last.Tables) != 1 {
		return
	}
	pos := map[int]int{}
	for _, r := range st.Rows {
		if r.IDOK && r.PosOK {
			pos[r.ID] = r.Pos
		}
	}
	final := last.Tables[0]
	for _, seat := range final.Seats {
		rank := 1
		for _, o := range final.Seats {
			if o.Score > seat.Score {
				rank++
			}
		}
		p, ok := pos[seat.ID]
		switch {
		case !ok && seat.ID != Ghost:
			v.add(fail(last.Sheet, seat.IDCell, codeFinalMissing, seat.ID))
		case ok && p != rank:
			v.add(warn(last.Sheet, seat.IDCell, codeFinalRank, seat.ID, rank, p))
		}
	}
}

func (v *validation) cross() {
	w := v.w
	declared := 0
	var dates []Dated
	if w.Card != nil {
		declared, dates = w.Card.Rounds, w.Card.Dates
	}
	numbered := 0
	for _, r := range w.Rounds {
		if !r.NumberOK {
			continue
		}
		numbered++
		if declared > 0 && r.Number > declared {
			v.add(fail(r.Sheet, "", codeRoundBeyond, r.Number, declared))
		}
		if w.Card != nil && (r.Number < 1 || r.Number > len(dates)) {
			v.add(fail(SheetCard, ref(3, firstDateRow-1+max(r.Number, 1)), codeRoundDate, r.Number))
		}
	}
	if declared > 0 && len(w.Rounds) > declared {
		v.add(fail(SheetCard, "D6", codeRoundsTooMany, len(w.Rounds), declared))
	}
	if w.Standings == nil {
		return
	}
	ids := w.entryIDs()
	seated := w.seated()
	listed := map[int]bool{}
	for _, r := range w.Standings.Rows {
		if !r.IDOK {
			continue
		}
		listed[r.ID] = true
		switch {
		case ids != nil && !ids[r.ID]:
			v.add(fail(SheetStandings, ref(4, r.Row), codeStandingUnknown, r.ID))
		case !seated[r.ID]:
			v.add(fail(SheetStandings, ref(4, r.Row), codeStandingNotPlayed, r.ID))
		}
	}
	for _, id := range w.seatedOrder() {
		if id != Ghost && !listed[id] {
			v.add(warn(SheetStandings, "", codePlayedNotListed, id))
		}
	}
}

// entryIDs is the set of the entry list's ids (nil without the sheet).
func (w *Workbook) entryIDs() map[int]bool {
	if w.Entries == nil {
		return nil
	}
	ids := map[int]bool{}
	for _, e := range w.Entries.Rows {
		ids[e.ID] = true
	}
	return ids
}

// cardType is TORNEO!D5, or "".
func (w *Workbook) cardType() string {
	if w.Card == nil {
		return ""
	}
	return w.Card.TypeText
}

// round returns round sheet n, or nil.
func (w *Workbook) round(n int) *Round {
	for _, r := range w.Rounds {
		if r.NumberOK && r.Number == n {
			return r
		}
	}
	return nil
}

// lastRound is the sheet of the declared last round when it exists: the
// tournament is concluded.
func (w *Workbook) lastRound() *Round {
	if w.Card == nil || w.Card.Rounds <= 0 {
		return nil
	}
	return w.round(w.Card.Rounds)
}

// Concluded reports whether the declared last round's sheet exists.
func (w *Workbook) Concluded() bool { return w.lastRound() != nil }

// participants are the ids seated in rounds 1, 2, … up to the first
// missing round sheet, as the national tool counts them.
func (w *Workbook) participants() map[int]bool {
	out := map[int]bool{}
	for n := 1; ; n++ {
		r := w.round(n)
		if r == nil {
			return out
		}
		for _, tb := range r.Tables {
			for _, s := range tb.Seats {
				out[s.ID] = true
			}
		}
	}
}

// seated is every id seated in any round sheet.
func (w *Workbook) seated() map[int]bool {
	out := map[int]bool{}
	for _, id := range w.seatedOrder() {
		out[id] = true
	}
	return out
}

// seatedOrder lists every id seated in any round sheet, in the order first seen.
func (w *Workbook) seatedOrder() []int {
	var out []int
	seen := map[int]bool{}
	for _, r := range w.Rounds {
		for _, tb := range r.Tables {
			for _, s := range tb.Seats {
				if !seen[s.ID] {
					seen[s.ID] = true
					out = append(out, s.ID)
				}
			}
		}
	}
	return out
}

// NationalID is the tournament's id as the national tool derives it: the
// first round's date (yyyyMMdd), " - ", and the organizer, trimmed; "" when
// the card has no date.
func (w *Workbook) NationalID() string {
	if w.Card == nil || len(w.Card.Dates) == 0 {
		return ""
	}
	return strings.TrimSpace(w.Card.Dates[0].Date.Format("20060102") + " - " + w.Card.Organizer)
}

// Counts are the national tool's counts of a tournament.
type Counts struct {
	// Tables is every table with a player, across all round sheets.
	Tables int `json:"tables"`
	// Participants is the ids seated in the contiguous rounds from 1,
	// without the ghost.
	Participants int `json:"participants"`
	// Rounds is the declared number of rounds (TORNEO!D6).
	Rounds int `json:"rounds"`
}

// Counts counts the workbook as the national tool does.
func (w *Workbook) Counts() Counts {
	c := Counts{}
	for _, r := range w.Rounds {
		c.Tables += len(r.Tables)
	}
	p := w.participants()
	delete(p, Ghost)
	c.Participants = len(p)
	if w.Card != nil {
		c.Rounds = w.Card.Rounds
	}
	return c
}
