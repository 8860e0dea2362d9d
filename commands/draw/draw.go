package draw

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Entrant is a player available to be seated.
type Entrant struct {
	Player string
	Club   string
	Region string
	Rank   int // national historical rank supplied at registration (campionato-2003 round 1); 0 = unranked
}

// Past is one earlier game of a player, used by seeded and composed draws.
type Past struct {
	Player string
	Round  int
	Table  int
	Place  int   // place at the table, 1-based
	Score  int64 // tournament points in hundredths
}

// Request is everything a draw depends on. The same Request always gives the same Result.
type Request struct {
	Algorithm string    // one of the Alg constants
	Round     int       // 1-based round being drawn
	Entrants  []Entrant // in any order: every algorithm sorts them by player id first
	// Sizes are the table sizes in preference order, e.g. [4] (rur-2015), [4,5] (cirki-2001,
	// campionato-2003). See Plan.
	Sizes []int
	// SmallTableMax, when > 0, allows tables of 3 only if len(Entrants) < SmallTableMax
	// (campionato-2003: 11). See Plan.
	SmallTableMax int
	Seed          string     // any string; hashed with SHA-256 into the PRNG state
	Past          []Past     // earlier games (rur-game2 composition, seeded-2003 seeding)
	Bands         [][]string // AlgBands: the players of each band; one player of each band per table

	// Tables are the arbiter's hand-made tables, used by AlgManual only.
	Tables []Table
	// ManualAs names the algorithm whose soft constraints a manual draw is checked against
	// (AlgRURGame2 adds the place mix, AlgBands the band composition and band_club). Empty
	// means AlgRandom's: same club, same region. Used by AlgManual and CheckManual only.
	ManualAs string
	// Rule is the article of the tournament's own ruleset the draw follows, cited in its
	// unmet constraints and refusals in place of the article the algorithm is written after
	// (rules): a band draw is the Raduno's (rur-2015 art. 8), and a master or rtu knockout
	// drawn by bands cites its own rulebook. AlgBands and AlgManual cite it from version 2;
	// a request that names no rule is drawn by version 1, which cites the algorithm's own
	// article under every ruleset.
	Rule string
}

// Algorithm ids. They are recorded in the TablesDrawn event and must never change.
const (
	AlgRandom     = "random"      // random tables, avoiding same club then same region where possible
	AlgRURGame1   = "rur-game1"   // rur-2015 game 1
	AlgRURGame2   = "rur-game2"   // rur-2015 game 2: each table a 1st, 2nd, 3rd and 4th of game 1 as far as possible
	AlgSeeded2003 = "seeded-2003" // campionato-2003: round 1 by historical rank, later rounds by previous score
	AlgBands      = "bands"       // knockout: one player per band at each table, bands drawn at random
	AlgManual     = "manual"      // tables given by the arbiter, validated only
)

// Constraint kinds reported in Unmet.
const (
	ConstraintSameClub   = "same_club"   // two or more players of one club at a table
	ConstraintSameRegion = "same_region" // two or more players of one region, not all of one club, at a table
	ConstraintPlaceMix   = "place_mix"   // rur-game2: the table is not one 1st, 2nd, 3rd, 4th of the previous round
	ConstraintBandClub   = "band_club"   // bands: two or more players of one club at a knockout table
	ConstraintBandMix    = "band_mix"    // bands (manual only): the table is not one player of each band
	// ConstraintRematch names two players who sat together in an earlier
	// round (Past) meeting again. No rulebook forbids it: the search avoids
	// rematches at the lowest priority but never reports them as unmet.
	ConstraintRematch = "rematch"
)

// Errors. They are wrapped with the players, tables and rule involved; classify them with errors.Is.
var (
	ErrUnknownAlgorithm = errors.New("draw: unknown algorithm")
	ErrUnknownVersion   = errors.New("draw: unknown algorithm version")
	ErrSizes            = errors.New("draw: players cannot be seated at the allowed table sizes")
	ErrInput            = errors.New("draw: invalid input")
)

// Table is one drawn table.
type Table struct {
	Table   int      `json:"table"`   // 1-based table number
	Players []string `json:"players"` // seating order as drawn (turn order is decided at the table, not here)
}

// Unmet is a constraint the draw could not satisfy (recorded in the TablesDrawn event).
type Unmet struct {
	Constraint string   `json:"constraint"` // one of the Constraint constants
	Table      int      `json:"table"`
	Players    []string `json:"players"`
	Detail     string   `json:"detail"`
}

// Result is a draw: the tables and what they could not satisfy.
type Result struct {
	Algorithm string  `json:"algorithm"`
	Version   int     `json:"version"`
	Seed      string  `json:"seed"`
	Tables    []Table `json:"tables"`
	Unmet     []Unmet `json:"unmet,omitempty"`
}

// impl is one version of one algorithm. It gets a validated request with entrants sorted by
// player id.
type impl func(req *request) ([]Table, error)

type algorithm struct {
	current  int
	versions map[int]impl
	// ruled is the first version that cites Request.Rule in place of the algorithm's own
	// article; 0 when none does. A request that names no rule is drawn by the version
	// before it.
	ruled int
}

// algorithms is the closed table of algorithms and their versions. A version, once recorded
// in a log, is never removed or changed: a change in output adds a version. Version 2 of
// AlgBands and AlgManual is version 1 citing the request's rule (Request.Rule).
var algorithms = map[string]algorithm{
	AlgRandom:     {current: 1, versions: map[int]impl{1: randomV1}},
	AlgRURGame1:   {current: 1, versions: map[int]impl{1: randomV1}},
	AlgRURGame2:   {current: 1, versions: map[int]impl{1: game2V1}},
	AlgSeeded2003: {current: 1, versions: map[int]impl{1: seededV1}},
	AlgBands:      {current: 2, versions: map[int]impl{1: bandsV1, 2: bandsV1}, ruled: 2},
	AlgManual:     {current: 2, versions: map[int]impl{1: manualV1, 2: manualV1}, ruled: 2},
	AlgGroups:     {current: 1, versions: map[int]impl{1: groupsV1}},
}

// rules are the articles each algorithm implements, cited in errors and Unmet details
// where the request names no rule of its own (Request.Rule).
var rules = map[string]string{
	AlgRURGame1:   "rur-2015 art. 8",
	AlgRURGame2:   "rur-2015 art. 8",
	AlgSeeded2003: "campionato-2003 §formazione tavoli",
	AlgBands:      "rur-2015 art. 8",
}

// sizeRules is cited when the players cannot be seated.
var sizeRules = map[string]string{
	AlgRURGame1:   "rur-2015 art. 1",
	AlgRURGame2:   "rur-2015 art. 1",
	AlgSeeded2003: "campionato-2003 §formazione tavoli",
}

// Version returns the current version of an algorithm, the one Draw runs and records for a
// request that names its rule (Request.Rule); one that names none is drawn by the version
// before the first that cites it.
func Version(alg string) (int, error) {
	a, ok := algorithms[alg]
	if !ok {
		return 0, fmt.Errorf("%w %q", ErrUnknownAlgorithm, alg)
	}
	return a.current, nil
}

// Draw runs the current version of req.Algorithm.
//
// Errors: ErrUnknownAlgorithm; ErrSizes when no combination of the allowed sizes seats
// everyone (the message says how many players, which sizes, and how many reserves to designate
// or players to withdraw); ErrInput for a malformed request (the message names the player,
// band or table).
func Draw(req Request) (Result, error) {
	v, err := drawnVersion(req)
	if err != nil {
		return Result{}, err
	}
	return Replay(req, v)
}

// drawnVersion is the version Draw runs for req: the current one, or for a request that
// names no rule the version before the first that cites it.
func drawnVersion(req Request) (int, error) {
	v, err := Version(req.Algorithm)
	if a := algorithms[req.Algorithm]; err == nil && req.Rule == "" && a.ruled > 0 {
		v = a.ruled - 1
	}
	return v, err
}

// Replay re-runs a recorded draw with the recorded version of its algorithm.
func Replay(req Request, version int) (Result, error) {
	a, ok := algorithms[req.Algorithm]
	if !ok {
		return Result{}, fmt.Errorf("%w %q", ErrUnknownAlgorithm, req.Algorithm)
	}
	run, ok := a.versions[version]
	if !ok {
		return Result{}, fmt.Errorf("%w: %s version %d (known: %v)", ErrUnknownVersion, req.Algorithm, version, knownVersions(a))
	}
	r, err := prepare(req)
	if err != nil {
		return Result{}, err
	}
	r.ruled = a.ruled > 0 && version >= a.ruled
	tables, err := run(r)
	if err != nil {
		return Result{}, err
	}
	kind := req.Algorithm
	if kind == AlgManual {
		kind = r.manualAs
	}
	return Result{
		Algorithm: req.Algorithm,
		Version:   version,
		Seed:      req.Seed,
		Tables:    tables,
		Unmet:     unmet(r, kind, tables),
	}, nil
}

func knownVersions(a algorithm) []int {
	var vs []int
	for v := range a.versions {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs
}

// request is a validated Request with entrants sorted by player id.
type request struct {
	Request
	entrants []Entrant      // sorted by player id
	index    map[string]int // player id → index in entrants
	manualAs string         // resolved ManualAs (AlgRandom when empty)
	// ruled: the Unmet details cite Rule in place of the algorithm's own article (a
	// version from algorithm.ruled on, or CheckManual with a rule).
	ruled bool
	// pastIdx[k] is the index in entrants of Past[k].Player, -1 when that player is not an
	// entrant: the one map lookup per past game, shared by metBefore, previousPlaces and
	// lastTwoScores.
	pastIdx []int32
}

// lowRounds is how many rounds, 1…lowRounds, prepare tracks per entrant in one bit each
// when it looks for a player with two games in a round.
const lowRounds = 64

// sortedEntrants returns a copy of es sorted by player id. It sorts their indices and copies
// each entrant once: sorting the entrants themselves moves their strings at every swap, each
// move a write the garbage collector may have to watch. The sort makes the same comparisons
// and the same swaps on either slice, so the order is the same, entrants with the same id
// included.
func sortedEntrants(es []Entrant) []Entrant {
	order := make([]int32, len(es))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(es[a].Player, es[b].Player) })
	out := make([]Entrant, len(es))
	for k, i := range order {
		out[k] = es[i]
	}
	return out
}

// prepare validates the parts of a request every algorithm relies on.
func prepare(req Request) (*request, error) {
	if req.Round < 1 {
		return nil, fmt.Errorf("%w: round %d, rounds start at 1", ErrInput, req.Round)
	}
	if len(req.Entrants) == 0 {
		return nil, fmt.Errorf("%w: no entrants to seat in round %d", ErrInput, req.Round)
	}
	r := &request{Request: req, entrants: sortedEntrants(req.Entrants), index: make(map[string]int, len(req.Entrants))}
	for i, e := range r.entrants {
		if e.Player == "" {
			return nil, fmt.Errorf("%w: an entrant has no player id", ErrInput)
		}
		if i > 0 && r.entrants[i-1].Player == e.Player {
			return nil, fmt.Errorf("%w: player %s entered twice", ErrInput, e.Player)
		}
		if e.Rank < 0 {
			return nil, fmt.Errorf("%w: player %s has rank %d (0 = unranked, ranks start at 1)", ErrInput, e.Player, e.Rank)
		}
		r.index[e.Player] = i
	}
	// A player with two games in one round: an entrant's rounds 1…lowRounds are bits of
	// played[i]; any other (player, round) pair, a player who is not an entrant or a round
	// beyond lowRounds, goes to a map. The same pair always lands in the same place, so the
	// first repeated pair is found at the same past game as with one map of every pair.
	type key struct {
		player string
		round  int
	}
	var other map[key]bool
	played := make([]uint64, len(r.entrants))
	r.pastIdx = make([]int32, len(req.Past))
	for k := range req.Past {
		p := &req.Past[k]
		if p.Player == "" {
			return nil, fmt.Errorf("%w: a past game of round %d has no player id", ErrInput, p.Round)
		}
		if p.Round < 1 || p.Round >= req.Round {
			return nil, fmt.Errorf("%w: past game of player %s in round %d is not before round %d", ErrInput, p.Player, p.Round, req.Round)
		}
		if p.Place < 0 {
			return nil, fmt.Errorf("%w: past game of player %s in round %d has place %d", ErrInput, p.Player, p.Round, p.Place)
		}
		i, ok := r.index[p.Player]
		if !ok {
			i = -1
		}
		r.pastIdx[k] = int32(i)
		var twice bool
		if ok && p.Round <= lowRounds {
			bit := uint64(1) << (p.Round - 1)
			twice = played[i]&bit != 0
			played[i] |= bit
		} else {
			if other == nil {
				other = map[key]bool{}
			}
			twice = other[key{p.Player, p.Round}]
			other[key{p.Player, p.Round}] = true
		}
		if twice {
			return nil, fmt.Errorf("%w: player %s has two games in round %d", ErrInput, p.Player, p.Round)
		}
	}
	r.manualAs = AlgRandom
	if req.Algorithm == AlgManual || req.ManualAs != "" {
		if req.ManualAs != "" {
			r.manualAs = req.ManualAs
		}
		if _, ok := algorithms[r.manualAs]; !ok || r.manualAs == AlgManual {
			return nil, fmt.Errorf("%w: manual draw checked as %q", ErrUnknownAlgorithm, req.ManualAs)
		}
	}
	// Knockout tables take their size from the bands or groups; every other draw needs the sizes.
	bands := req.Algorithm == AlgBands || req.Algorithm == AlgGroups || (req.Algorithm == AlgManual && (r.manualAs == AlgBands || r.manualAs == AlgGroups))
	if len(req.Sizes) > 0 || !bands {
		if err := validSizes(req.Sizes, req.SmallTableMax); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// plan is Plan with the algorithm's size rule cited in the error.
func (r *request) plan() ([]int, error) {
	sizes, err := Plan(len(r.entrants), r.Sizes, r.SmallTableMax)
	if err != nil && errors.Is(err, ErrSizes) {
		return nil, fmt.Errorf("%w%s", err, citeSizes(r.Algorithm))
	}
	return sizes, err
}

// citeSizes is " (rule)" for the algorithm's table-size rule, or "".
func citeSizes(alg string) string {
	if rule := sizeRules[alg]; rule != "" {
		return " (" + rule + ")"
	}
	return ""
}

// cite is " (rule)" for the Unmet details of a draw whose constraints are algorithm alg's:
// its own article (rules), or the request's rule in its place (Request.Rule, from the
// version that cites it); "" when the algorithm cites none.
func (r *request) cite(alg string) string {
	rule := rules[alg]
	if rule != "" && r.ruled {
		rule = r.Rule
	}
	if rule == "" {
		return ""
	}
	return " (" + rule + ")"
}

// citeRefusal is " (rule)" for a refusal of a request whose constraints are algorithm
// alg's: the request's rule, or else the algorithm's own article where the algorithm is one
// ruleset's; a band draw is every knockout's, so it cites only the rule the request names.
// A refusal is never recorded, so every version cites the same.
func (r *request) citeRefusal(alg string) string {
	rule := r.Rule
	if rule == "" && alg != AlgBands {
		rule = rules[alg]
	}
	if rule == "" {
		return ""
	}
	return " (" + rule + ")"
}
