package workbook

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// DefaultRuleset is the ruleset an imported tournament is recorded under
// unless the import names another: rtu, whose tp_bonus formula with the
// bonus split between tied winners is GestioneTorneo's "punti tavolo +
// bonus" (docs/workbook.md#import).
const DefaultRuleset = events.PresetRTU

// ErrImport reports a workbook that cannot be imported: the national
// tool's errors, or what the ledger's rules refuse of it; Plan.Problems
// lists them.
var ErrImport = errors.New("workbook: cannot be imported")

// Options says how a workbook is imported.
type Options struct {
	// Tournament is the tournament's id; the default is Slug of the
	// national tool's id of the tournament.
	Tournament string
	// Ruleset is the preset the tournament is created under (default
	// DefaultRuleset) and Params its overrides; the import sets what the
	// file decides (the rounds, the table sizes, no knockout, no
	// objective set, the rur tie chain: docs/workbook.md#import).
	Ruleset events.PresetID
	Params  json.RawMessage
	// Season is the season the tournament is ranked in; the default is
	// the year of its last round, as the national tool files it.
	Season string
	// EntryList imports the entry list alone, into Into.
	EntryList bool
	// Into is the state of the tournament the workbook is imported into:
	// an open tournament for an entry list, one that has recorded no
	// player for a whole workbook; nil creates the tournament.
	Into *projections.Tournament
}

// Step is one command of an import and the idempotency key it is sent
// under: the same file gives the same keys, so an import run again after
// a crash resumes where it stopped.
type Step struct {
	Command commands.Command
	Key     string
	// Create marks the tournament's creation (POST /v1/tournaments).
	Create bool
	// Sheet and Cell are where in the file the command comes from (a row
	// of Iscritti, a round sheet, a table's row), so that a refusal names
	// them; empty for what the card as a whole makes.
	Sheet, Cell string
	// Items, for a command that lists rows or seats of the file (the
	// import's record of the entry list, a table's report), is the cell
	// of each in the command's order: a refusal of its players[i] names
	// Items[i].
	Items []string
}

// Plan is a workbook turned into the commands that record it.
type Plan struct {
	Tournament string
	Steps      []Step
	// Problems are everything the national tool would refuse or question,
	// and what the ledger cannot record; an error among them stops the
	// import before anything is sent.
	Problems []Problem
	// NationalID and Counts are the tournament as the national tool sees
	// it.
	NationalID string
	Counts     Counts
	// Disagreements are the file's standings against the ruleset's, as
	// Rehearse found them.
	Disagreements []events.Disagreement
}

// PlayerID is the ledger's id of the player of entry-list id n.
func PlayerID(n int) string { return "p" + strconv.Itoa(n) }

// Slug turns the national tool's id of a tournament ("20250315 - ROMA [Il
// Gufo]") into a ledger id (20250315-roma-il-gufo).
func Slug(nationalID string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(FileName(time.Time{}, nationalID, "")) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	s := strings.TrimPrefix(strings.TrimSuffix(b.String(), "-xlsx"), "00010101-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	return s
}

// rulesetParams are the ruleset's parameters the file decides.
func rulesetParams(extra json.RawMessage, rounds int, sizes []int) (json.RawMessage, error) {
	params := map[string]any{}
	if len(extra) > 0 && string(extra) != "null" {
		if err := json.Unmarshal(extra, &params); err != nil {
			return nil, fmt.Errorf("%w: params must be a JSON object: %v", ErrImport, err)
		}
	}
	params["qualifying_rounds"] = rounds
	params["knockout"] = events.KnockoutNone
	params["table_sizes"] = sizes
	params["small_table_max"] = 0
	params["objectives"] = ""
	params["tie_chain"] = events.TieChainRUR
	params["discards"] = 0
	return json.Marshal(params)
}

// importProblem is a problem of the ledger's, not of the national tool's.
func importProblem(sheet, cell, it, en string) Problem {
	return Problem{Severity: Error, Sheet: sheet, Cell: cell, Code: "import", It: it, En: en}
}

// PlanImport turns a workbook into the commands that record it: the
// tournament (with its organizer and venue), the import's record, the
// entry list, each round as a hand-made draw and its table reports, and
// the file's standings published as imported. Or, with EntryList, the
// record and the registrations alone. The plan's Problems say why it
// cannot be run, if it cannot (ErrImport).
func PlanImport(w *Workbook, o Options) (*Plan, error) {
	p := &Plan{Problems: Validate(w), NationalID: w.NationalID(), Counts: w.Counts()}
	if o.EntryList {
		if o.Into == nil {
			return p, fmt.Errorf("%w: an entry list is imported into a tournament", ErrImport)
		}
		p.Problems = slices.DeleteFunc(p.Problems, func(q Problem) bool { return q.Sheet != SheetEntries && q.Code != codeFileName })
	}
	p.Tournament = cmp.Or(o.Tournament, Slug(p.NationalID))
	if o.Into != nil {
		p.Tournament = o.Into.ID
	}
	if !events.ValidID(p.Tournament) {
		p.Problems = append(p.Problems, importProblem("", "", fmt.Sprintf("l'id del torneo %q non è valido: indicarne uno ([a-z0-9-])", p.Tournament),
			fmt.Sprintf("tournament id %q is not valid: give one ([a-z0-9-])", p.Tournament)))
	}
	p.checkLedger(w, o)
	if len(Errors(p.Problems)) > 0 {
		return p, fmt.Errorf("%w: %d errors", ErrImport, len(Errors(p.Problems)))
	}
	key := func() string {
		return fmt.Sprintf("wb-%s-%s-%d", p.Tournament, w.SHA256[:16], len(p.Steps)+1)
	}
	add := func(cmd commands.Command, sheet, cell string) {
		p.Steps = append(p.Steps, Step{Command: cmd, Key: key(), Sheet: sheet, Cell: cell})
	}
	rec := &commands.RecordWorkbookImport{FileName: w.FileName, SHA256: w.SHA256, Scope: events.WorkbookEntryList}
	var recCells []string
	for _, e := range w.Entries.Rows {
		if registered(o.Into, e) {
			continue
		}
		rec.Players = append(rec.Players, events.WorkbookPlayer{ID: e.ID, Player: PlayerID(e.ID), FirstName: e.FirstName, LastName: e.LastName})
		recCells = append(recCells, ref(0, e.Row))
	}
	addRec := func() {
		add(rec, SheetEntries, "")
		p.Steps[len(p.Steps)-1].Items = recCells
	}
	if o.EntryList {
		addRec()
		p.registrations(w, o.Into, add)
		return p, nil
	}
	c := w.Card
	rec.Scope, rec.TypeText, rec.Rounds, rec.Notes = events.WorkbookTournament, strings.TrimSpace(c.TypeText), c.Rounds, strings.TrimSpace(c.Notes)
	for _, d := range c.Dates[:len(w.Rounds)] {
		rec.RoundDates = append(rec.RoundDates, d.Date.Format(time.DateOnly))
	}
	for _, r := range w.Rounds {
		for k, tb := range r.Tables {
			for _, s := range tb.Seats {
				if s.ID != Ghost && s.Score != math.Trunc(s.Score) {
					rec.Scores = append(rec.Scores, events.WrittenScore{Round: r.Number, Table: k + 1, Player: PlayerID(s.ID), Score: s.Written})
				}
			}
		}
	}
	params, err := rulesetParams(o.Params, c.Rounds, tableSizes(w))
	if err != nil {
		return p, err
	}
	typ, _ := typeOfText(c.TypeText)
	if o.Into == nil {
		season := cmp.Or(o.Season, c.Dates[len(w.Rounds)-1].Date.Format("2006"))
		p.Steps = append(p.Steps, Step{Create: true, Key: key(), Sheet: SheetCard, Command: &commands.CreateTournament{ID: p.Tournament, Name: strings.TrimSpace(c.Name),
			Ruleset: cmp.Or(o.Ruleset, DefaultRuleset), Params: params, Season: season, Type: typ.ranking,
			Organizer: strings.TrimSpace(c.Organizer), Venue: strings.TrimSpace(c.Venue)}})
	} else {
		add(&commands.AmendRuleset{Params: params, Reason: "imported from " + w.FileName}, SheetCard, "")
		add(&commands.AmendOrganizer{Organizer: strings.TrimSpace(c.Organizer), Venue: strings.TrimSpace(c.Venue), Reason: "imported from " + w.FileName}, SheetCard, "D3")
	}
	addRec()
	p.registrations(w, nil, add)
	add(&commands.CloseRegistration{}, SheetEntries, "")
	for _, r := range w.Rounds {
		p.round(w, r, add)
	}
	if w.Standings != nil && len(w.Standings.Rows) > 0 {
		pub := &commands.PublishClassification{Final: w.Concluded()}
		for _, s := range w.Standings.Rows {
			pub.Standings = append(pub.Standings, commands.StandingRow{Rank: s.Pos, Player: PlayerID(s.ID), Points: s.Points})
		}
		add(pub, SheetStandings, "")
		if pub.Final {
			add(&commands.CloseTournament{Reason: "imported from " + w.FileName}, "", "")
		}
	}
	return p, nil
}

// registrations registers the entry list's players, but for those the
// tournament imported into has already (registered).
func (p *Plan) registrations(w *Workbook, into *projections.Tournament, add func(commands.Command, string, string)) {
	for _, e := range w.Entries.Rows {
		if registered(into, e) {
			continue
		}
		reg := &commands.RegisterPlayer{Player: PlayerID(e.ID), Name: e.Name(), Club: e.Club, Region: e.Region}
		if e.NationalID > 0 {
			reg.NationalID = strconv.Itoa(e.NationalID)
		}
		add(reg, SheetEntries, ref(0, e.Row))
	}
}

// registered reports whether the tournament imported into has entry e
// already, as the same person (the same ID and name): the arbiter's list
// sent again with the late entries added registers only those.
func registered(into *projections.Tournament, e *Entry) bool {
	if into == nil {
		return false
	}
	pl, ok := into.Players[PlayerID(e.ID)]
	return ok && strings.EqualFold(strings.Join(strings.Fields(pl.Name), " "), strings.Join(strings.Fields(e.Name()), " "))
}

// round adds a round's call (when someone registered does not play it),
// its hand-made draw and its table reports.
func (p *Plan) round(w *Workbook, r *Round, add func(commands.Command, string, string)) {
	seated := map[int]bool{}
	var tables []events.DrawnTable
	for k, tb := range r.Tables {
		dt := events.DrawnTable{Table: k + 1}
		for _, s := range tb.Seats {
			if s.ID != Ghost {
				seated[s.ID] = true
				dt.Players = append(dt.Players, PlayerID(s.ID))
			}
		}
		tables = append(tables, dt)
	}
	if len(seated) < len(w.Entries.Rows) {
		for _, e := range w.Entries.Rows {
			add(&commands.CheckIn{Round: r.Number, Player: PlayerID(e.ID), Absent: !seated[e.ID]}, r.Sheet, "")
		}
	}
	add(&commands.DrawTables{Round: r.Number, Tables: tables}, r.Sheet, "")
	for k, tb := range r.Tables {
		res := &commands.RecordResult{Round: r.Number, Table: k + 1, ClosedBy: events.ClosingTime}
		top, tops := math.Inf(-1), 0
		for _, s := range tb.Seats {
			if s.ID == Ghost {
				continue
			}
			switch {
			case s.Score > top:
				top, tops, res.Winner = s.Score, 1, PlayerID(s.ID)
			case s.Score == top:
				tops++
			}
		}
		if tops > 1 {
			res.Winner = "" // level at the top: the file names no single winner
		}
		turn := 0
		var cells []string
		for _, s := range tb.Seats {
			if s.ID == Ghost {
				continue
			}
			turn++
			tp := int(math.Trunc(s.Score))
			res.Players = append(res.Players, commands.SeatInput{Player: PlayerID(s.ID), Turn: turn, TablePoints: &tp, Status: events.SeatFinished})
			cells = append(cells, s.IDCell)
		}
		add(res, r.Sheet, ref(0, tb.Row))
		p.Steps[len(p.Steps)-1].Items = cells
	}
}

// tableSizes are the table sizes the file seats, the most frequent first.
func tableSizes(w *Workbook) []int {
	count := map[int]int{}
	for _, r := range w.Rounds {
		for _, tb := range r.Tables {
			n := 0
			for _, s := range tb.Seats {
				if s.ID != Ghost {
					n++
				}
			}
			count[n]++
		}
	}
	var sizes []int
	for n := range count {
		sizes = append(sizes, n)
	}
	slices.SortFunc(sizes, func(a, b int) int { return cmp.Or(count[b]-count[a], b-a) })
	return sizes
}

// checkLedger adds what the ledger's rules refuse of a workbook the
// national tool may accept (docs/workbook.md#import).
func (p *Plan) checkLedger(w *Workbook, o Options) {
	add := func(sheet, cell, it, en string) { p.Problems = append(p.Problems, importProblem(sheet, cell, it, en)) }
	if w.Entries == nil {
		return
	}
	if into := o.Into; into != nil {
		// What the tournament imported into already holds: the same file
		// again (a page sent twice), a closed entry list, players where a
		// whole tournament is to come.
		for _, imp := range into.Workbooks {
			if imp.SHA256 == w.SHA256 && (imp.Scope == events.WorkbookTournament || o.EntryList) {
				add("", "", fmt.Sprintf("questo file (%s) è già stato importato nel torneo, all'evento %d: non c'è altro da registrare", imp.FileName, imp.Seq),
					fmt.Sprintf("this file (%s) was imported into the tournament already, at event %d: there is nothing more to record", imp.FileName, imp.Seq))
				return
			}
		}
		switch {
		case into.Closed:
			add("", "", "il torneo è chiuso: non si importa più nulla", "the tournament is closed: nothing more is imported")
			return
		case into.RegistrationClosed:
			add(SheetEntries, "", "le iscrizioni del torneo sono chiuse: la lista iscritti non si importa più", "the tournament's registration is closed: the entry list is not imported any more")
			return
		case !o.EntryList && len(into.Players) > 0:
			add("", "", fmt.Sprintf("il torneo ha già %d iscritti: un file intero (turni e classifica) si importa solo in un torneo senza iscritti; qui si può importare solo la lista iscritti", len(into.Players)),
				fmt.Sprintf("the tournament has %d players already: a whole workbook (rounds and standings) is imported only into a tournament with none; here only its entry list can be", len(into.Players)))
			return
		}
	}
	already := 0
	for _, e := range w.Entries.Rows {
		if e.ID < 1 {
			add(SheetEntries, ref(0, e.Row), fmt.Sprintf("ID %d: il registro accetta ID da 1 in su", e.ID), fmt.Sprintf("ID %d: the ledger takes ids from 1 up", e.ID))
		}
		if o.Into == nil {
			continue
		}
		switch pl, taken := o.Into.Players[PlayerID(e.ID)]; {
		case registered(o.Into, e):
			already++
		case taken:
			add(SheetEntries, ref(0, e.Row), fmt.Sprintf("ID %d (%s): il torneo ha già un iscritto con questo ID (%s)", e.ID, e.Name(), pl.Name),
				fmt.Sprintf("ID %d (%s): the tournament has a player with this ID already (%s)", e.ID, e.Name(), pl.Name))
		}
	}
	if already > 0 && already == len(w.Entries.Rows) {
		add(SheetEntries, "", fmt.Sprintf("nessun giocatore nuovo: quelli del file (%d) sono già tutti iscritti al torneo, non c'è nulla da registrare", already),
			fmt.Sprintf("all %d players of the file are in the tournament's entry list already: there is nothing to record", already))
	}
	if o.EntryList || w.Card == nil {
		return
	}
	if w.Card.Rounds > 20 {
		add(SheetCard, "D6", fmt.Sprintf("%d turni previsti: il registro ne gioca al più 20", w.Card.Rounds),
			fmt.Sprintf("%d rounds declared: the ledger plays at most 20", w.Card.Rounds))
	}
	if len(w.Rounds) == 0 || len(w.Card.Dates) < len(w.Rounds) {
		return // the national tool's own errors say why
	}
	for i, r := range w.Rounds {
		if r.Number != i+1 {
			add(r.Sheet, "", fmt.Sprintf("manca la scheda del turno %d: i turni si importano in ordine, 1, 2, …", i+1),
				fmt.Sprintf("there is no sheet of round %d: rounds are imported in order, 1, 2, …", i+1))
			return
		}
		seen := map[int]string{}
		for _, tb := range r.Tables {
			n := 0
			for _, s := range tb.Seats {
				if s.ID == Ghost {
					continue
				}
				n++
				if prev, dup := seen[s.ID]; dup {
					add(r.Sheet, s.IDCell, fmt.Sprintf("il giocatore con ID %d siede anche in %s", s.ID, prev),
						fmt.Sprintf("player ID %d is seated in %s too", s.ID, prev))
				}
				seen[s.ID] = s.IDCell
				if s.Score < 0 || s.Score >= 165 {
					add(r.Sheet, s.ScoreCell, fmt.Sprintf("punteggio %s: il registro accetta punti tavolo da 0 a 164", s.Written),
						fmt.Sprintf("score %s: the ledger takes table points from 0 to 164", s.Written))
				}
			}
			if n < 3 || n > 5 {
				add(r.Sheet, ref(0, tb.Row), fmt.Sprintf("tavolo %d con %d giocatori: il registro siede da 3 a 5 giocatori", tb.Number, n),
					fmt.Sprintf("table %d seats %d players: the ledger seats 3 to 5", tb.Number, n))
			}
		}
	}
}

// Rehearse decides every step of the plan, in order, on a state of its own
// (a copy of from, or a new tournament when from is nil), as the ledger
// would, and folds the events: a refusal is found before anything is
// submitted. It returns the state reached and sets the plan's
// Disagreements.
func (p *Plan) Rehearse(from *projections.Tournament, now time.Time) (*projections.Tournament, error) {
	st := projections.New(p.Tournament)
	if from != nil {
		st = from.Clone()
	}
	actor := events.Actor{ID: events.RoleAdmin, Role: events.RoleAdmin}
	for i, s := range p.Steps {
		evs, err := commands.Decide(st, s.Command, commands.Input{Now: now, Actor: actor, Seed: s.Key})
		if err != nil {
			it, en := stepWords(s.Command)
			msg := strings.TrimPrefix(err.Error(), "commands: ")
			p.Problems = append(p.Problems, importProblem(s.Sheet, s.cellOf(err), fmt.Sprintf("il registro non accetta %s: %s", it, msg),
				fmt.Sprintf("the ledger refuses %s: %s", en, msg)))
			return st, fmt.Errorf("%w: step %d (%s) would be refused: %w", ErrImport, i+1, s.Command.CommandType(), err)
		}
		envs, err := events.Seal(p.Tournament, st.Seq+1, now, actor, s.Key, evs)
		if err != nil {
			return st, err
		}
		for j, env := range envs {
			if err := st.Apply(env, evs[j], nil); err != nil {
				return st, err
			}
		}
	}
	if st.Imported != nil {
		p.Disagreements = st.Imported.Disagreements
	}
	return st, nil
}

// itemRE is a refused field of a command's players[i].
var itemRE = regexp.MustCompile(`^players\[(\d+)\]`)

// cellOf is the cell a refusal of the step names: the cell of the item
// (Items) its first refused field is about, else the step's.
func (s Step) cellOf(err error) string {
	var fe *commands.FieldError
	if errors.As(err, &fe) {
		if m := itemRE.FindStringSubmatch(fe.Field); m != nil {
			if i, _ := strconv.Atoi(m[1]); i < len(s.Items) {
				return s.Items[i]
			}
		}
	}
	return s.Cell
}

// stepWords names what a step records, in Italian and English, for a
// refusal of it.
func stepWords(c commands.Command) (it, en string) {
	switch c := c.(type) {
	case *commands.RegisterPlayer:
		return "l'iscrizione di " + c.Name, "the registration of " + c.Name
	case *commands.CheckIn:
		return fmt.Sprintf("l'appello del turno %d", c.Round), fmt.Sprintf("the call of round %d", c.Round)
	case *commands.DrawTables:
		return fmt.Sprintf("i tavoli del turno %d", c.Round), fmt.Sprintf("the tables of round %d", c.Round)
	case *commands.RecordResult:
		return fmt.Sprintf("il referto del tavolo %d del turno %d", c.Table, c.Round), fmt.Sprintf("the report of table %d of round %d", c.Table, c.Round)
	case *commands.PublishClassification:
		return "la classifica del file", "the file's standings"
	case *commands.RecordWorkbookImport:
		return "la lista iscritti del file", "the file's entry list"
	}
	return "il comando " + c.CommandType(), "command " + c.CommandType()
}
