package projections

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/scoring"
)

// ErrFold reports an event that cannot follow the state it is applied to: a
// gap in seqs, an event for another tournament, an event before the
// tournament exists. The log is then corrupt or was decided wrongly; a
// projection stops rather than guessing.
var ErrFold = errors.New("projections: event does not fold")

// Tournament is the state of one tournament after its events up to Seq.
// It is JSON-serializable: the Pebble store snapshots it.
type Tournament struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Ruleset events.Ruleset `json:"ruleset"`
	// Season and Type are the national ranking's facts of the tournament
	// (docs/rules.md#15-the-national-ranking); empty when it was created
	// without them.
	Season string                `json:"season,omitempty"`
	Type   events.TournamentType `json:"tournament_type,omitempty"`
	// Seq is the per-tournament sequence of the last applied event.
	Seq uint64 `json:"seq"`
	// StandingsSeq is the seq of the last event that could change the
	// standings or the classification: what those views are "as of".
	StandingsSeq uint64 `json:"standings_seq"`
	// LastStreamSeq is the stream sequence of the last applied commit: the
	// value a command must expect at append.
	LastStreamSeq uint64    `json:"last_stream_seq"`
	Created       time.Time `json:"created"`
	Updated       time.Time `json:"updated"`
	// RegistrationClosed is set once the entry list is validated.
	RegistrationClosed bool `json:"registration_closed"`
	// Players by id; Order lists ids in registration order.
	Players   map[string]*Player   `json:"players"`
	Order     []string             `json:"order"`
	Officials map[string]*Official `json:"officials"`
	// Reserves lists reserve designations in order (docs/rules.md#11-check-in-and-lateness).
	Reserves []string `json:"reserves,omitempty"`
	// CheckIns holds the check-ins of rounds not drawn yet and of drawn
	// rounds, by round then player.
	CheckIns map[int]map[string]*CheckIn `json:"check_ins,omitempty"`
	// Pending are substitutions made before their round was drawn:
	// round → absent player → reserve.
	Pending map[int]map[string]string `json:"pending,omitempty"`
	// Rounds holds the drawn rounds, index 0 = round 1.
	Rounds []*Round `json:"rounds"`
	// Rolls are the standings die rolls recorded (rur-2015 art. 1).
	Rolls []events.TieBreakRolled `json:"rolls,omitempty"`
	// Sanctions in the order imposed.
	Sanctions []*Sanction `json:"sanctions,omitempty"`
	// Renounced maps a player to the knockout phase they declined (and
	// every later one).
	Renounced map[string]events.Phase `json:"renounced,omitempty"`
	// Repechages in the order recorded.
	Repechages []events.Repechaged `json:"repechages,omitempty"`
	// Acts are the renunciations, repechages, withdrawals and tie-break
	// rolls by seq, with the round each concerns: what a contestation
	// naming one of them judges its window by
	// (docs/rules.md#131-pinned-tournament-level-windows). A state read from
	// a snapshot written before the field existed lacks the earlier ones.
	Acts []Act `json:"acts,omitempty"`
	// Published is the last published classification; Publications lists
	// every publication.
	Published    *events.ClassificationPublished `json:"published,omitempty"`
	Publications []Publication                   `json:"publications,omitempty"`
	// Contestations in the order filed.
	Contestations []*Contestation `json:"contestations,omitempty"`
	// Times holds when each event was recorded, by seq (index seq-1), in
	// unix milliseconds: contestation windows in time are judged from the
	// recorded times of the events (docs/rules.md#13-contestation).
	Times []int64 `json:"times,omitempty"`
	// Closed is set by TournamentClosed.
	Closed bool `json:"closed,omitempty"`
	// PlayerTokens are the players' personal links, by player (hashes
	// only); ProposalCount counts the table reports players proposed.
	PlayerTokens  map[string]*PlayerToken `json:"player_tokens,omitempty"`
	ProposalCount int                     `json:"proposal_count,omitempty"`
	// Organizer and Venue are the organizing club, as the national ranking
	// spells clubs ("CITY [Name]"), and the venue (OrganizerDeclared).
	Organizer string `json:"organizer,omitempty"`
	Venue     string `json:"venue,omitempty"`
	// Workbooks are the club workbooks imported, in order; Imported is the
	// last publication when it is a workbook's standings
	// (ClassificationImported), which Published then states as rows.
	Workbooks []WorkbookImport               `json:"workbooks,omitempty"`
	Imported  *events.ClassificationImported `json:"imported,omitempty"`

	// refused counts the players whose registration was refused, kept by
	// Apply once it has counted them (refusedCounted), so that SummaryView
	// does not look at every player for every commit. Neither is stored:
	// a state read from a snapshot counts again at its next event.
	refused        int
	refusedCounted bool
}

// Act is one renunciation, repechage, withdrawal or tie-break roll, as a
// contestation locates it.
type Act struct {
	Seq  uint64 `json:"seq"`
	Type string `json:"type"`
	// Players are who the event concerns: the renouncer, the withdrawer,
	// the players of a roll; for a repechage the player replaced, the
	// substitute and every candidate considered.
	Players []string `json:"players"`
	// Phase is a renunciation's or a repechage's knockout phase.
	Phase events.Phase `json:"phase,omitempty"`
	// Round is the round the event concerns, when the fold knows it: a
	// repechage's at a drawn table, a withdrawal's (from a game: that
	// game's; from the tournament: the first round without every result
	// when he left).
	Round int `json:"round,omitempty"`
}

// openRound is the first round that does not have every result: the last
// drawn one while it is being played, else the next.
func (t *Tournament) openRound() int {
	if n := len(t.Rounds); n > 0 && !t.Rounds[n-1].Complete() {
		return n
	}
	return len(t.Rounds) + 1
}

// CheckIn is a player's presence at the call of a round.
type CheckIn struct {
	MinutesLate int    `json:"minutes_late"`
	Admitted    bool   `json:"admitted"`
	Absent      bool   `json:"absent,omitempty"`
	Rule        string `json:"rule,omitempty"`
	Seq         uint64 `json:"seq"`
}

// Sanction is an imposed sanction (docs/rules.md#10-sanctions).
type Sanction struct {
	events.SanctionImposed
	Seq     uint64    `json:"seq"`
	At      time.Time `json:"at"`
	Revoked bool      `json:"revoked,omitempty"`
}

// Publication is one ClassificationPublished.
type Publication struct {
	Seq   uint64    `json:"seq"`
	At    time.Time `json:"at"`
	Final bool      `json:"final"`
}

// Contestation is a filed contestation and, once ruled, its ruling.
type Contestation struct {
	events.ContestationFiled
	Seq   uint64                    `json:"seq"`
	At    time.Time                 `json:"at"`
	Ruled *events.ContestationRuled `json:"ruled,omitempty"`
}

// Player is one entry of the tournament.
type Player struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Club   string `json:"club,omitempty"`
	Region string `json:"region,omitempty"`
	Rank   int    `json:"rank,omitempty"`
	Minor  bool   `json:"minor,omitempty"`
	Waiver string `json:"waiver,omitempty"`
	// NationalID is the national ranking's id, as registration gave it.
	NationalID string              `json:"national_id,omitempty"`
	Status     events.PlayerStatus `json:"status"`
	// Reserve marks a player designated as a reserve; while unseated their
	// status is "reserve", once seated in a game "active".
	Reserve bool `json:"reserve,omitempty"`
	// Reason is why the player's status changed (a refusal's reason).
	Reason string `json:"reason,omitempty"`
	// Withdrawn is set when the player left the tournament.
	Withdrawn bool `json:"withdrawn,omitempty"`
	// Base is the status (active or reserve) to return to if an expulsion
	// or withdrawal is revoked; empty while it applies to no one.
	Base events.PlayerStatus `json:"base,omitempty"`
	// Registered is the seq of the registration event.
	Registered uint64 `json:"registered"`
}

// Official is an arbiter, appeals member or auditor of the tournament.
type Official struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Role        string `json:"role"`
	TokenSHA256 string `json:"token_sha256"`
	Appointed   uint64 `json:"appointed"`
}

// Round is one drawn round of games.
type Round struct {
	Number         int                      `json:"number"`
	Phase          events.Phase             `json:"phase"`
	Algorithm      string                   `json:"algorithm"`
	Version        int                      `json:"version"`
	Seed           string                   `json:"seed"`
	Unmet          []events.UnmetConstraint `json:"unmet,omitempty"`
	ReservesSeated []string                 `json:"reserves_seated,omitempty"`
	// Seeds, Byes and Labels as in events.TablesDrawn.
	Seeds  []string                `json:"seeds,omitempty"`
	Byes   []string                `json:"byes,omitempty"`
	Labels map[string]events.Phase `json:"labels,omitempty"`
	Tables []*Table                `json:"tables"`
	// Drawn is the seq of the TablesDrawn event, DrawnAt its time.
	Drawn   uint64    `json:"drawn"`
	DrawnAt time.Time `json:"drawn_at"`
}

// Table is one table of a round.
type Table struct {
	Number    int      `json:"number"`
	Players   []string `json:"players"`
	TurnOrder []string `json:"turn_order,omitempty"`
	// Report is the recorded table report, nil until recorded.
	Report *events.ResultRecorded `json:"report,omitempty"`
	// Reported is the seq of the report, ReportedAt its time; Amended the
	// seq of the last amendment by ruling.
	Reported   uint64    `json:"reported,omitempty"`
	ReportedAt time.Time `json:"reported_at,omitzero"`
	Amended    uint64    `json:"amended,omitempty"`
	// Results are the report scored under the ruleset, in placement order.
	Results []scoring.Result `json:"results,omitempty"`
	// Annulled is set when the game was declared void.
	Annulled *events.GameAnnulled `json:"annulled,omitempty"`
	// Withdrew lists players recorded as leaving this game before the report.
	Withdrew []string `json:"withdrew,omitempty"`
	// Proposals holds the table's latest proposal, a list of one (none
	// before the first): a later proposal replaces the earlier one, of
	// which the table keeps only how many each player made (Proposed),
	// so that a table's state stays the size of one report however often
	// its players propose.
	Proposals []*Proposal `json:"proposals,omitempty"`
	// Proposed counts the proposals each player of the table made.
	Proposed map[string]int `json:"proposed,omitempty"`
}

// Label is the table's own phase when it differs from the round's (the
// rtu "finalina"), else the round's phase.
func (r *Round) Label(table int) events.Phase {
	if l, ok := r.Labels[fmt.Sprint(table)]; ok {
		return l
	}
	return r.Phase
}

// Changes collects which read models an application touched, so that a
// store rewrites only those. A nil *Changes is allowed and ignored.
type Changes struct {
	Summary   bool
	Standings bool
	Players   map[string]bool
	Rounds    map[int]bool
	Tables    map[[2]int]bool
}

// Merge adds what o touched to c.
func (c *Changes) Merge(o *Changes) {
	if c == nil || o == nil {
		return
	}
	c.Summary = c.Summary || o.Summary
	c.Standings = c.Standings || o.Standings
	for p := range o.Players {
		c.player(p)
	}
	for r := range o.Rounds {
		c.round(r)
	}
	for k := range o.Tables {
		c.table(k[0], k[1])
	}
}

func (c *Changes) standings() {
	if c != nil {
		c.Standings = true
	}
}

func (c *Changes) round(r int) {
	if c == nil {
		return
	}
	if c.Rounds == nil {
		c.Rounds = map[int]bool{}
	}
	c.Rounds[r] = true
}

func (c *Changes) table(r, n int) {
	if c == nil {
		return
	}
	if c.Tables == nil {
		c.Tables = map[[2]int]bool{}
	}
	c.Tables[[2]int{r, n}] = true
}

func (c *Changes) summary() {
	if c != nil {
		c.Summary = true
	}
}

func (c *Changes) player(id string) {
	if c == nil {
		return
	}
	if c.Players == nil {
		c.Players = map[string]bool{}
	}
	c.Players[id] = true
}

// New returns the empty state that precedes a tournament's first event.
func New(id string) *Tournament {
	return &Tournament{ID: id, Players: map[string]*Player{}, Officials: map[string]*Official{}}
}

// Round returns drawn round n, or nil.
func (t *Tournament) Round(n int) *Round {
	if n < 1 || n > len(t.Rounds) {
		return nil
	}
	return t.Rounds[n-1]
}

// Table returns table n of the round, or nil.
func (r *Round) Table(n int) *Table {
	if r == nil || n < 1 || n > len(r.Tables) {
		return nil
	}
	return r.Tables[n-1]
}

// Complete reports whether every table of the round has a result or was annulled.
func (r *Round) Complete() bool {
	for _, tb := range r.Tables {
		if tb.Report == nil && tb.Annulled == nil {
			return false
		}
	}
	return true
}

// Seat returns the table the player sits at in round r, or nil.
func (r *Round) Seat(player string) *Table {
	for _, tb := range r.Tables {
		if slices.Contains(tb.Players, player) {
			return tb
		}
	}
	return nil
}

// Exists reports whether the tournament has been created.
func (t *Tournament) Exists() bool { return t != nil && t.Seq > 0 }

// Apply folds one event into the state. env must carry the next seq of this
// tournament. ch, if not nil, records the read models touched.
func (t *Tournament) Apply(env events.Envelope, ev events.Event, ch *Changes) error {
	if env.Tournament != t.ID {
		return fmt.Errorf("%w: event %s applied to tournament %s", ErrFold, env.ID, t.ID)
	}
	if env.Seq != t.Seq+1 {
		return fmt.Errorf("%w: event %s after seq %d of %s", ErrFold, env.ID, t.Seq, t.ID)
	}
	if _, created := ev.(events.TournamentCreated); created != (t.Seq == 0) {
		return fmt.Errorf("%w: %s at seq %d of %s", ErrFold, env.Type, env.Seq, t.ID)
	}
	if !t.refusedCounted {
		t.refused, t.refusedCounted = t.countRefused(), true
	}
	if err := t.apply(env, ev, ch); err != nil {
		t.refusedCounted = false // the event may be half applied
		return fmt.Errorf("%w: event %s (%s): %v", ErrFold, env.ID, env.Type, err)
	}
	if affectsStandings(ev) {
		t.StandingsSeq = env.Seq
		ch.standings()
	}
	t.Seq = env.Seq
	t.Updated = env.At
	t.Times = append(t.Times, env.At.UnixMilli())
	ch.summary()
	return nil
}

// EventTime is when event seq was recorded, to the millisecond.
func (t *Tournament) EventTime(seq uint64) (time.Time, bool) {
	if seq < 1 || seq > uint64(len(t.Times)) {
		return time.Time{}, false
	}
	return time.UnixMilli(t.Times[seq-1]).UTC(), true
}

func (t *Tournament) apply(env events.Envelope, ev events.Event, ch *Changes) error {
	switch e := ev.(type) {
	case events.TournamentCreated:
		if e.Tournament != t.ID {
			return fmt.Errorf("creates %q in the log of %q", e.Tournament, t.ID)
		}
		t.Name, t.Ruleset, t.Created = e.Name, e.Ruleset, env.At
		t.Season, t.Type = e.Season, e.Type
	case events.RulesetAmended:
		t.Ruleset = e.Ruleset
	case events.OfficialAppointed:
		if _, dup := t.Officials[e.Official]; dup {
			return fmt.Errorf("official %s appointed twice", e.Official)
		}
		t.Officials[e.Official] = &Official{ID: e.Official, Name: e.Name, Role: e.Role, TokenSHA256: e.TokenSHA256, Appointed: env.Seq}
	case events.PlayerRegistered:
		if _, dup := t.Players[e.Player]; dup {
			return fmt.Errorf("player %s registered twice", e.Player)
		}
		t.Order = append(t.Order, e.Player)
		t.Players[e.Player] = &Player{ID: e.Player, Name: e.Name, Club: e.Club, Region: e.Region, Rank: e.Rank,
			Minor: e.Minor, Waiver: e.Waiver, NationalID: e.NationalID, Status: events.StatusActive, Registered: env.Seq}
		ch.player(e.Player)
	case events.RegistrationRefused:
		p, ok := t.Players[e.Player]
		if ok && p.Status == events.StatusRefused {
			return fmt.Errorf("registration of %s refused twice", e.Player)
		}
		if !ok {
			p = &Player{ID: e.Player, Name: e.Name, Registered: env.Seq}
			t.Players[e.Player] = p
			t.Order = append(t.Order, e.Player)
		}
		p.Status, p.Reason = events.StatusRefused, e.Reason
		t.refused++ // refused stays refused: refreshStatus and DesignateReserve leave such a player alone
		ch.player(e.Player)
	case events.RegistrationClosed:
		t.RegistrationClosed = true
	default:
		return t.applyRound(env, ev, ch)
	}
	return nil
}

// affectsStandings reports whether an event can change the standings or the
// classification, so that the store recomputes them only then (a check-in,
// an appointment or a reminder cannot).
func affectsStandings(ev events.Event) bool {
	switch e := ev.(type) {
	case events.OfficialAppointed, events.PlayerCheckedIn, events.TurnOrderSet, events.RegistrationClosed,
		events.ContestationFiled, events.ContestationRuled, events.PlayerTokenIssued, events.PlayerTokenRevoked,
		events.ResultProposed, events.ProposalConfirmed, events.ProposalDisputed:
		return false
	case events.SanctionImposed:
		// A disqualification rescores its table, whether or not it expels.
		return e.Kind.Points() || e.Kind == events.SanctionExpulsion || e.Kind == events.SanctionDisqualification
	case events.PlayerWithdrew:
		return e.Scope == "tournament"
	}
	return true
}

// ActivePlayers returns the ids of active players in registration order.
func (t *Tournament) ActivePlayers() []string {
	var out []string
	for _, id := range t.Order {
		if t.Players[id].Status == events.StatusActive {
			out = append(out, id)
		}
	}
	return out
}

// Phase names where the tournament stands: registration, qualifying, a
// knockout phase, or closed.
func (t *Tournament) Phase() events.Phase {
	if len(t.Rounds) > 0 {
		return t.Rounds[len(t.Rounds)-1].Phase
	}
	return events.PhaseRegistration
}

// TablesDrawn reports whether any round has been drawn.
func (t *Tournament) TablesDrawn() bool { return len(t.Rounds) > 0 }

// Clone returns a deep copy (for what-if and tests). It goes through the
// snapshot encoding, so it copies exactly what a snapshot keeps.
func (t *Tournament) Clone() *Tournament {
	b, err := json.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("projections: clone %s: %v", t.ID, err)) // every field is plain data
	}
	c := New(t.ID)
	if err := json.Unmarshal(b, c); err != nil {
		panic(fmt.Sprintf("projections: clone %s: %v", t.ID, err))
	}
	return c
}

// Fold rebuilds a tournament from its envelopes (in seq order), stopping
// after seq upTo (0 = all). It is what replay and the ?at= views use.
func Fold(id string, envs []events.Envelope, upTo uint64) (*Tournament, error) {
	t := New(id)
	for _, env := range envs {
		if upTo > 0 && env.Seq > upTo {
			break
		}
		ev, err := events.Decode(env)
		if err != nil {
			return nil, err
		}
		if err := t.Apply(env, ev, nil); err != nil {
			return nil, err
		}
	}
	return t, nil
}
