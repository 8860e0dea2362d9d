package events

import "slices"

// Stored type names of the qualifying-round events.
const (
	TypeReserveDesignated  = "ReserveDesignated"
	TypePlayerCheckedIn    = "PlayerCheckedIn"
	TypeReserveSubstituted = "ReserveSubstituted"
	TypeTablesDrawn        = "TablesDrawn"
	TypeTurnOrderSet       = "TurnOrderSet"
	TypeResultRecorded     = "ResultRecorded"
	TypeTieBreakRolled     = "TieBreakRolled"
	TypeSanctionImposed    = "SanctionImposed"
)

// ReserveDesignated makes a player a reserve: a stand-by used to complete
// tables (docs/rules.md#11-check-in-and-lateness). A reserve not yet registered is registered by it.
type ReserveDesignated struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Club   string `json:"club,omitempty"`
	Region string `json:"region,omitempty"`
	Rank   int    `json:"rank,omitempty"`
}

// PlayerCheckedIn records a player's presence at the call of a round.
// Admitted is false when the lateness rule bars the player from the round
// (campionato-2003: more than 20 minutes); Rule then cites it.
type PlayerCheckedIn struct {
	Round       int    `json:"round"`
	Player      string `json:"player"`
	MinutesLate int    `json:"minutes_late"`
	Admitted    bool   `json:"admitted"`
	Rule        string `json:"rule,omitempty"`
	// Absent records a player marked absent at the call (not admitted).
	Absent bool `json:"absent,omitempty"`
}

// ReserveSubstituted seats a reserve in place of an entrant absent at the
// call (docs/rules.md#11-check-in-and-lateness). Table is 0 when the round is not drawn yet: the
// reserve then enters the draw instead of the absent player.
type ReserveSubstituted struct {
	Round   int    `json:"round"`
	Table   int    `json:"table,omitempty"`
	Absent  string `json:"absent"`
	Reserve string `json:"reserve"`
}

// DrawEntrant is one player as a draw saw them.
type DrawEntrant struct {
	Player string `json:"player"`
	Club   string `json:"club,omitempty"`
	Region string `json:"region,omitempty"`
	Rank   int    `json:"rank,omitempty"`
}

// DrawGame is one earlier game as a draw saw it: the players of a table
// with their places and scores, index by index. One record a table rather
// than a player keeps a late draw of a large tournament, which records
// every game so far, within a third of the size.
type DrawGame struct {
	Round   int      `json:"round"`
	Table   int      `json:"table"`
	Players []string `json:"players"`
	Places  []int    `json:"places"`
	Scores  []int64  `json:"scores"`
}

// DrawInputs is everything a draw algorithm read, recorded so that an
// auditor re-runs the draw from the event alone.
type DrawInputs struct {
	Entrants      []DrawEntrant `json:"entrants"`
	Sizes         []int         `json:"sizes"`
	SmallTableMax int           `json:"small_table_max,omitempty"`
	Past          []DrawGame    `json:"past,omitempty"`
	Bands         [][]string    `json:"bands,omitempty"`
	// ManualAs names the algorithm whose constraints a manual draw was
	// checked against.
	ManualAs string `json:"manual_as,omitempty"`
	// Rule is the article of the tournament's own ruleset the draw follows,
	// which its unmet constraints and refusals cite (a knockout draw from
	// rules edition 4). Absent: the algorithm cites its own article.
	Rule string `json:"rule,omitempty"`
}

// Equal reports whether two draws read the same inputs. An empty list and
// no list are the same (the JSON omits both).
func (a DrawInputs) Equal(b DrawInputs) bool {
	return slices.Equal(a.Entrants, b.Entrants) && slices.Equal(a.Sizes, b.Sizes) && a.SmallTableMax == b.SmallTableMax &&
		slices.EqualFunc(a.Past, b.Past, func(x, y DrawGame) bool {
			return x.Round == y.Round && x.Table == y.Table && slices.Equal(x.Players, y.Players) &&
				slices.Equal(x.Places, y.Places) && slices.Equal(x.Scores, y.Scores)
		}) &&
		slices.EqualFunc(a.Bands, b.Bands, slices.Equal) && a.ManualAs == b.ManualAs && a.Rule == b.Rule
}

// DrawnTable is one table of a draw, players in seating order.
type DrawnTable struct {
	Table   int      `json:"table"`
	Players []string `json:"players"`
}

// UnmetConstraint is a draw constraint that could not be satisfied.
type UnmetConstraint struct {
	Constraint string   `json:"constraint"`
	Table      int      `json:"table"`
	Players    []string `json:"players"`
	Detail     string   `json:"detail"`
}

// TablesDrawn records the tables of a round with the algorithm (id and
// version), seed and inputs that produced them (docs/rules.md#8-table-formation).
type TablesDrawn struct {
	Round     int               `json:"round"`
	Phase     Phase             `json:"phase"`
	Algorithm string            `json:"algorithm"`
	Version   int               `json:"version"`
	Seed      string            `json:"seed"`
	Inputs    DrawInputs        `json:"inputs"`
	Tables    []DrawnTable      `json:"tables"`
	Unmet     []UnmetConstraint `json:"unmet,omitempty"`
	// ReservesSeated lists reserves the draw seated to complete tables;
	// seated, they are entrants ranked like everyone else (docs/rules.md#7-formats-and-the-rur-knockout).
	ReservesSeated []string `json:"reserves_seated,omitempty"`
	// Seeds are the qualifiers of a knockout phase in seed order (seed 1
	// first); Byes are players qualified past this phase straight to the
	// next one (rur-2015: ranks 1-10 when quarterfinals are played).
	Seeds []string `json:"seeds,omitempty"`
	Byes  []string `json:"byes,omitempty"`
	// Labels names tables that play something other than the round's
	// phase, by table number: {"2": "finalina"} (rtu 5th-8th table).
	Labels map[string]Phase `json:"labels,omitempty"`
}

// TurnOrderSet records the turn order drawn at a table (primo di mano).
type TurnOrderSet struct {
	Round int      `json:"round"`
	Table int      `json:"table"`
	Order []string `json:"order"`
}

// SeatReport is one player's line of a table report (docs/rules.md#3-table-report-referto).
type SeatReport struct {
	Player               string     `json:"player"`
	Turn                 int        `json:"turn"`
	TablePoints          int        `json:"table_points"`
	OffObjectivePoints   int        `json:"off_objective_points,omitempty"`
	ObjectiveTerritories int        `json:"objective_territories,omitempty"`
	Territories          int        `json:"territories,omitempty"`
	Armies               int        `json:"armies,omitempty"`
	ObjectiveArmies      int        `json:"objective_armies,omitempty"`
	Cards                int        `json:"cards,omitempty"`
	Status               SeatStatus `json:"status"`
	EliminatedOrder      int        `json:"eliminated_order,omitempty"`
	// Withdrawal is why a withdrawn player left the game, one of
	// WithdrawalReasons, when the report says it: a withdrawal not recorded
	// before the report (Withdraw) is recorded by its line, and its
	// consequences (an expulsion) are appended with the report. Absent when
	// a PlayerWithdrew of that game says it, and from reports recorded
	// before the field existed.
	Withdrawal string `json:"withdrawal,omitempty"`
	// Objective and TerritoriesHeld, when given, were checked against the
	// board (the figures above are then the board's).
	Objective       int      `json:"objective,omitempty"`
	TerritoriesHeld []string `json:"territories_held,omitempty"`
}

// ResultRecorded is a table report (referto).
type ResultRecorded struct {
	Round    int          `json:"round"`
	Table    int          `json:"table"`
	ClosedBy Closing      `json:"closed_by"`
	Winner   string       `json:"winner,omitempty"`
	Risiko   bool         `json:"risiko,omitempty"`
	Players  []SeatReport `json:"players"`
	// ObjectiveSet names the objective set the report was checked
	// against, when any seat was board-checked.
	ObjectiveSet string `json:"objective_set,omitempty"`
	// Rolls are die rolls for the last step of the table's tie chain.
	Rolls map[string]int `json:"rolls,omitempty"`
	// Proposal names the players' proposed report (ResultProposed) this
	// result records, when it came from one.
	Proposal string `json:"proposal,omitempty"`
}

// TieBreakRolled records a die roll between players tied in the standings
// (rur-2015 art. 1): the highest roll ranks first.
type TieBreakRolled struct {
	Players []string `json:"players"`
	Rolls   []int    `json:"rolls"`
	// Signatures pin the roll to the tie it settles: each player's total
	// and games counted when it was rolled ("16200/2").
	Signatures []string `json:"signatures,omitempty"`
}

// SanctionImposed records a sanction (docs/rules.md#10-sanctions).
type SanctionImposed struct {
	Sanction string       `json:"sanction"`
	Player   string       `json:"player"`
	Round    int          `json:"round"`
	Table    int          `json:"table,omitempty"`
	Kind     SanctionKind `json:"kind"`
	// Amount is in table points (table_points) or tournament points
	// (classification_points), positive.
	Amount  int    `json:"amount,omitempty"`
	Article string `json:"article"`
	Reason  string `json:"reason,omitempty"`
	// Automatic marks a sanction the ledger imposed by rule (a lateness
	// penalty, a ladder escalation); Cause is the sanction that triggered
	// an escalation.
	Automatic bool   `json:"automatic,omitempty"`
	Cause     string `json:"cause,omitempty"`
	// Offence is the rule breach the arbiter named from the fixed list of
	// Offences, when he named one: the ladder the sanction climbs and
	// whether it also expels follow from it, never from the free-text
	// Article (docs/rules.md#10-sanctions). Absent from sanctions recorded before it
	// existed, and from automatic escalations.
	Offence string `json:"offence,omitempty"`
}

// Offences lists the rule breaches a sanction may name so that the ledger
// applies that rule's own consequences (docs/rules.md#10-sanctions): rur-2015 art. 19
// (grave infractions: "la squalifica … l'espulsione dal torneo"), art. 29
// (armies beyond the allowance: "Il giocatore squalificato è equiparato al
// giocatore ritirato"), art. 32 (showing the objective), art. 33 (the
// ladder for agreements, advice, threats, blasphemy), art. 34 (stopping a
// game).
func Offences() []string {
	return []string{"rur-2015 art. 19", "rur-2015 art. 29", "rur-2015 art. 32", "rur-2015 art. 33", "rur-2015 art. 34"}
}

func (ReserveDesignated) EventType() string  { return TypeReserveDesignated }
func (PlayerCheckedIn) EventType() string    { return TypePlayerCheckedIn }
func (ReserveSubstituted) EventType() string { return TypeReserveSubstituted }
func (TablesDrawn) EventType() string        { return TypeTablesDrawn }
func (TurnOrderSet) EventType() string       { return TypeTurnOrderSet }
func (ResultRecorded) EventType() string     { return TypeResultRecorded }
func (TieBreakRolled) EventType() string     { return TypeTieBreakRolled }
func (SanctionImposed) EventType() string    { return TypeSanctionImposed }

func (ReserveDesignated) EventVersion() int  { return 1 }
func (PlayerCheckedIn) EventVersion() int    { return 1 }
func (ReserveSubstituted) EventVersion() int { return 1 }
func (TablesDrawn) EventVersion() int        { return 1 }
func (TurnOrderSet) EventVersion() int       { return 1 }
func (ResultRecorded) EventVersion() int     { return 1 }
func (TieBreakRolled) EventVersion() int     { return 1 }
func (SanctionImposed) EventVersion() int    { return 1 }
