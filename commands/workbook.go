package commands

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// The commands a club workbook brings (docs/workbook.md): the organizing
// club and venue, the record of an import, and (PublishClassification's
// standings) a classification published from an imported file.

// ruleWorkbook is where the workbook's rules are stated.
const ruleWorkbook = "docs/workbook.md"

// maxOrganizer bounds the organizer and the venue, in characters.
const maxOrganizer = 200

// AmendOrganizer sets the organizing club and the venue before the first
// draw: the organizer is part of the tournament's id in the national
// ranking, with the date of its first round.
type AmendOrganizer struct {
	typed
	Organizer string `json:"organizer"`
	Venue     string `json:"venue,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

func (*AmendOrganizer) CommandType() string { return "AmendOrganizer" }

func (c *AmendOrganizer) Check() error {
	return errors.Join(checkText("organizer", c.Organizer, maxOrganizer, true), checkText("venue", c.Venue, maxOrganizer, false),
		checkText("reason", c.Reason, maxReason, false))
}

func (c *AmendOrganizer) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if t.TablesDrawn() {
		return nil, ruleErr(ruleWorkbook, "the organizer and the venue may not change once tables have been drawn: the national ranking's id of the tournament is its organizer and the date of its first round")
	}
	return []events.Event{events.OrganizerDeclared{Organizer: clean(c.Organizer), Venue: clean(c.Venue), Reason: clean(c.Reason)}}, nil
}

// organizerOf is the OrganizerDeclared a creation appends, or nil.
func organizerOf(organizer, venue string) []events.Event {
	if strings.TrimSpace(organizer) == "" && strings.TrimSpace(venue) == "" {
		return nil
	}
	return []events.Event{events.OrganizerDeclared{Organizer: clean(organizer), Venue: clean(venue)}}
}

// RecordWorkbookImport records that a club workbook is being imported:
// its SHA-256 and file name, how its entry-list ids map to players, and
// the card's facts (docs/workbook.md). A whole tournament's import comes
// before anything else is recorded of the tournament; an entry list's
// while registration is open and before the first draw. The registrations,
// draws, reports and classification that follow are ordinary commands.
type RecordWorkbookImport struct {
	typed
	FileName   string                  `json:"file_name"`
	SHA256     string                  `json:"sha256"`
	Scope      string                  `json:"scope"`
	Players    []events.WorkbookPlayer `json:"players,omitempty"`
	TypeText   string                  `json:"type_text,omitempty"`
	Rounds     int                     `json:"rounds,omitempty"`
	Notes      string                  `json:"notes,omitempty"`
	RoundDates []string                `json:"round_dates,omitempty"`
	Scores     []events.WrittenScore   `json:"scores,omitempty"`
}

func (*RecordWorkbookImport) CommandType() string { return "RecordWorkbookImport" }

func (c *RecordWorkbookImport) Check() error {
	errs := []error{checkText("file_name", c.FileName, 255, true), checkText("type_text", c.TypeText, maxName, false),
		checkText("notes", c.Notes, maxReason, false)}
	if strings.ContainsAny(c.FileName, "/\\") {
		errs = append(errs, fieldErr("file_name", "the file's name, without its directory"))
	}
	if len(c.SHA256) != 64 || strings.Trim(c.SHA256, "0123456789abcdef") != "" {
		errs = append(errs, fieldErr("sha256", "the file's SHA-256, 64 lowercase hexadecimal digits"))
	}
	if c.Scope != events.WorkbookTournament && c.Scope != events.WorkbookEntryList {
		errs = append(errs, fieldErr("scope", "must be %s or %s, not %q", events.WorkbookTournament, events.WorkbookEntryList, c.Scope))
	}
	if c.Scope == events.WorkbookEntryList && (c.TypeText != "" || c.Rounds != 0 || c.Notes != "" || len(c.RoundDates) > 0 || len(c.Scores) > 0) {
		errs = append(errs, fieldErr("scope", "an entry list's import records its players only"))
	}
	if c.Rounds < 0 || c.Rounds > 30 {
		errs = append(errs, fieldErr("rounds", "the declared rounds, 1 to 30 (TORNEO!D6)"))
	}
	ids, players := map[int]bool{}, map[string]bool{}
	for i, p := range c.Players {
		f := func(name string) string { return fmt.Sprintf("players[%d].%s", i, name) }
		errs = append(errs, checkID(f("player"), p.Player), checkText(f("first_name"), p.FirstName, maxName, true),
			checkText(f("last_name"), p.LastName, maxName, false))
		if p.ID < 1 || ids[p.ID] {
			errs = append(errs, fieldErr(f("id"), "the entry list's id, positive and listed once"))
		}
		if players[p.Player] {
			errs = append(errs, fieldErr(f("player"), "%s listed twice", p.Player))
		}
		ids[p.ID], players[p.Player] = true, true
	}
	for i, d := range c.RoundDates {
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			errs = append(errs, fieldErr(fmt.Sprintf("round_dates[%d]", i), "a date, YYYY-MM-DD, not %q", d))
		}
	}
	for i, s := range c.Scores {
		f := func(name string) string { return fmt.Sprintf("scores[%d].%s", i, name) }
		errs = append(errs, checkRound(s.Round), checkTable(s.Table), checkID(f("player"), s.Player))
		if _, err := strconv.ParseFloat(s.Score, 64); err != nil || len(s.Score) > 32 {
			errs = append(errs, fieldErr(f("score"), "a number as the file writes it, not %q", s.Score))
		}
	}
	return errors.Join(errs...)
}

func (c *RecordWorkbookImport) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if t.ImportedFrom() != nil {
		return nil, conflict("tournament %s was imported from %s already (seq %d)", t.ID, t.ImportedFrom().FileName, t.ImportedFrom().Seq)
	}
	switch {
	case c.Scope == events.WorkbookTournament && (len(t.Order) > 0 || t.TablesDrawn()):
		return nil, ruleErr(ruleWorkbook, "a whole tournament is imported into a tournament that has recorded no player yet; import the entry list alone (scope %s) into this one", events.WorkbookEntryList)
	case t.TablesDrawn():
		return nil, ruleErr(ruleWorkbook, "the entry list is imported before the first draw")
	case t.RegistrationClosed:
		return nil, ruleErr("rur-2015 art. 11", "registration is closed: the arbiters have validated the entry list")
	}
	for i, p := range c.Players {
		if _, taken := t.Players[p.Player]; taken {
			return nil, fieldErr(fmt.Sprintf("players[%d].player", i), "%s is already in the entry list of %s", p.Player, t.ID)
		}
	}
	return []events.Event{events.WorkbookImported{FileName: clean(c.FileName), SHA256: c.SHA256, Scope: c.Scope, Players: c.Players,
		TypeText: clean(c.TypeText), Rounds: c.Rounds, Notes: clean(c.Notes), RoundDates: c.RoundDates, Scores: c.Scores}}, nil
}

// StandingRow is one row of a workbook's published standings
// (Classifica Ridotta): the position, the player, the points as written.
type StandingRow struct {
	Rank   int    `json:"rank"`
	Player string `json:"player"`
	Points string `json:"points"`
}

// checkStandings checks the rows of PublishClassification's standings.
func checkStandings(rows []StandingRow) error {
	var errs []error
	seen := map[string]bool{}
	for i, r := range rows {
		f := func(name string) string { return fmt.Sprintf("standings[%d].%s", i, name) }
		errs = append(errs, checkID(f("player"), r.Player))
		if seen[r.Player] {
			errs = append(errs, fieldErr(f("player"), "%s listed twice", r.Player))
		}
		seen[r.Player] = true
		if r.Rank < 1 || r.Rank > len(rows) {
			errs = append(errs, fieldErr(f("rank"), "a position from 1 to %d, the rows' number", len(rows)))
		}
		if _, ok := hundredths(r.Points); !ok {
			errs = append(errs, fieldErr(f("points"), "a number as the file writes it (a decimal point, not a comma), not %q", r.Points))
		}
	}
	return errors.Join(errs...)
}

// hundredths reads points as written into hundredths of a point.
func hundredths(points string) (int64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(points), 64)
	if err != nil || len(points) > 32 || math.IsNaN(f) || math.Abs(f) > 1e12 {
		return 0, false
	}
	return int64(math.Round(f * 100)), true
}

// importClassification publishes an imported workbook's standings as the
// file has them (docs/workbook.md): the historical record, marked as
// imported, with every row the ruleset's computation from the file's games
// disagrees on.
func (c *PublishClassification) importClassification(t *projections.Tournament) ([]events.Event, error) {
	if t.ImportedFrom() == nil {
		return nil, ruleErr(ruleWorkbook, "standings are published as a file has them only in a tournament imported from a workbook; publish the classification the ledger derives instead")
	}
	cl := t.Classification()
	if len(cl.Open) > 0 {
		return nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "tables without a result: %s", strings.Join(cl.Open, "; "))
	}
	ev := events.ClassificationImported{Final: c.Final, Checkpoint: c.Checkpoint}
	for i, r := range c.Standings {
		p, ok := t.Players[r.Player]
		if !ok {
			return nil, fieldErr(fmt.Sprintf("standings[%d].player", i), "%s is not in the entry list", r.Player)
		}
		total, _ := hundredths(r.Points)
		ev.Rows = append(ev.Rows, events.ImportedRow{Rank: r.Rank, Player: r.Player, Name: p.Name, Points: strings.TrimSpace(r.Points), Total: total})
	}
	ev.Disagreements = Disagreements(t, ev.Rows)
	return []events.Event{ev}, nil
}

// Disagreements compares a workbook's standings with the classification
// the ruleset derives from the tournament's games, player by player, in
// the file's order then the derived one's: every player whose rank or
// total differs, or whom only one of them lists. Players who played no
// game are left out of the derived side, as the national ranking's
// standings list only those who played. Verify derives them again.
func Disagreements(t *projections.Tournament, rows []events.ImportedRow) []events.Disagreement {
	played := map[string]bool{}
	for _, r := range t.Rounds {
		for _, tb := range r.Tables {
			for _, p := range tb.Players {
				played[p] = true
			}
		}
	}
	derived := map[string]projections.ClassificationRow{}
	var order []string
	for _, r := range t.Classification().Rows {
		if played[r.Player] {
			derived[r.Player] = r
			order = append(order, r.Player)
		}
	}
	var out []events.Disagreement
	inFile := map[string]bool{}
	for _, r := range rows {
		inFile[r.Player] = true
		d := events.Disagreement{Player: r.Player, FileRank: r.Rank, FilePoints: r.Points}
		if dr, ok := derived[r.Player]; ok {
			d.Rank, d.Total, d.TieUnsolved = dr.Rank, int64(dr.Total), dr.TieUnresolved
			if dr.Rank == r.Rank && int64(dr.Total) == r.Total && !dr.TieUnresolved {
				continue
			}
		}
		out = append(out, d)
	}
	for _, p := range order {
		if !inFile[p] {
			dr := derived[p]
			out = append(out, events.Disagreement{Player: p, Rank: dr.Rank, Total: int64(dr.Total), TieUnsolved: dr.TieUnresolved})
		}
	}
	return out
}

// PlannedRounds is the number of rounds the tournament's format plays: its
// qualifying rounds and a round for each knockout phase.
func PlannedRounds(t *projections.Tournament) int {
	return t.Ruleset.QualifyingRounds + len(knockoutPhases(t))
}
