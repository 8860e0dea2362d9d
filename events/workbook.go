package events

// Stored type names of the facts a club's workbook brings: who organized
// the tournament and where, the import of a workbook, and a classification
// published from one (docs/workbook.md).
const (
	TypeOrganizerDeclared      = "OrganizerDeclared"
	TypeWorkbookImported       = "WorkbookImported"
	TypeClassificationImported = "ClassificationImported"
)

// OrganizerDeclared records the organizing club, as the national ranking
// spells clubs ("CITY [Name]", e.g. "ROMA [Il Gufo]"), and the venue. It
// follows TournamentCreated in the creation's commit when the creation
// names them, or amends them before the first draw. The organizer and the
// first round's date make the national ranking's id of the tournament.
type OrganizerDeclared struct {
	Organizer string `json:"organizer"`
	Venue     string `json:"venue,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Scopes of a WorkbookImported.
const (
	// WorkbookTournament: the whole tournament comes from the workbook.
	WorkbookTournament = "tournament"
	// WorkbookEntryList: only its entry list, into an open tournament.
	WorkbookEntryList = "entry_list"
)

// WorkbookPlayer ties a row of the workbook's entry list (its local id) to
// the player it was registered as, with the first and last name as the
// file splits them.
type WorkbookPlayer struct {
	ID        int    `json:"id"`
	Player    string `json:"player"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name,omitempty"`
}

// WrittenScore is a table score as the workbook writes it where it is not
// a whole number of table points: a decimal the organizer added to break a
// tie at the top ("44.1"). The table report records the table points (44)
// and the winner the decimal names.
type WrittenScore struct {
	Round  int    `json:"round"`
	Table  int    `json:"table"`
	Player string `json:"player"`
	Score  string `json:"score"`
}

// WorkbookImported records that a club workbook was imported, so that an
// auditor can tie the log to the file it came from: its SHA-256 and file
// name, what of it was imported (Scope), how its entry-list ids map to
// players, and the card's facts the ledger has no other place for (the
// tournament type as written, the declared rounds, the notes, the date of
// each round). The commands that follow it (registrations, draws, table
// reports, the classification) are ordinary ones.
type WorkbookImported struct {
	FileName string           `json:"file_name"`
	SHA256   string           `json:"sha256"`
	Scope    string           `json:"scope"`
	Players  []WorkbookPlayer `json:"players,omitempty"`
	// TypeText is TORNEO!D5 as written ("Torneo Master"); Rounds is D6,
	// Notes D7; RoundDates the date of each round, YYYY-MM-DD, round 1
	// first. Only a whole tournament's import has them.
	TypeText   string         `json:"type_text,omitempty"`
	Rounds     int            `json:"rounds,omitempty"`
	Notes      string         `json:"notes,omitempty"`
	RoundDates []string       `json:"round_dates,omitempty"`
	Scores     []WrittenScore `json:"scores,omitempty"`
}

// ImportedRow is one row of a workbook's published standings (its sheet
// Classifica Ridotta): the position, the points as written, and the player
// the row's id was registered as. Total is the points in hundredths, as a
// ClassificationRow's.
type ImportedRow struct {
	Rank   int    `json:"rank"`
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Points string `json:"points"`
	Total  int64  `json:"total"`
}

// Disagreement is a player on whom the file's standings and the ruleset's
// computation from the file's games disagree: the file's rank and points
// (0 and "" when the file does not list him) beside the rank and total,
// in hundredths, the ruleset derives (0 when it does not rank him).
type Disagreement struct {
	Player      string `json:"player"`
	FileRank    int    `json:"file_rank,omitempty"`
	FilePoints  string `json:"file_points,omitempty"`
	Rank        int    `json:"rank,omitempty"`
	Total       int64  `json:"total"`
	TieUnsolved bool   `json:"tie_unresolved,omitempty"`
}

// ClassificationImported publishes the standings of an imported workbook
// as the file has them: the historical record, marked as imported, with
// every row on which the ruleset's computation from the file's games
// disagrees. Checkpoint is the signed checkpoint of the log before it, as
// a ClassificationPublished's.
type ClassificationImported struct {
	Final         bool           `json:"final"`
	Rows          []ImportedRow  `json:"rows"`
	Disagreements []Disagreement `json:"disagreements,omitempty"`
	Checkpoint    string         `json:"checkpoint,omitempty"`
}

func (OrganizerDeclared) EventType() string      { return TypeOrganizerDeclared }
func (WorkbookImported) EventType() string       { return TypeWorkbookImported }
func (ClassificationImported) EventType() string { return TypeClassificationImported }

func (OrganizerDeclared) EventVersion() int      { return 1 }
func (WorkbookImported) EventVersion() int       { return 1 }
func (ClassificationImported) EventVersion() int { return 1 }
