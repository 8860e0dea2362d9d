package scoring

import (
	"errors"
	"fmt"
	"slices"

	"github.com/referto/referto/events"
)

// Seat is one player's line of a table report (JSON names are the public payload contract).
type Seat struct {
	Player               string            `json:"player"`
	Turn                 int               `json:"turn"`
	TablePoints          int               `json:"table_points"`
	OffObjectivePoints   int               `json:"off_objective_points,omitempty"`
	ObjectiveTerritories int               `json:"objective_territories,omitempty"`
	Territories          int               `json:"territories,omitempty"`
	Armies               int               `json:"armies,omitempty"`
	ObjectiveArmies      int               `json:"objective_armies,omitempty"`
	Cards                int               `json:"cards,omitempty"`
	Status               events.SeatStatus `json:"status"`
	EliminatedOrder      int               `json:"eliminated_order,omitempty"`
}

// Table is a table report as the scorer sees it.
type Table struct {
	Players []Seat
	// Winner names the winner. It may be empty: the winner is then derived from
	// placement. It is required when Risiko is set. Without Risiko, Score places by
	// table points and does not use it; Validate checks it is not behind anyone.
	Winner string
	// Risiko reports that Winner completed the secret objective.
	Risiko bool
	// Penalties are table-points penalties by player (docs/rules.md#10-sanctions), subtracted from
	// the recorded table points before placement.
	Penalties map[string]int
	// Rolls are die rolls recorded for the final step of a tie-break chain, by player.
	// They are optional; a tie that needs them and lacks them is reported as
	// [Result.Unresolved].
	Rolls map[string]int
}

// DefaultBonus is the winner bonus, in table points, of tp_bonus and wins in
// rur-2015 art. 1. Rules.Bonus is used as given (0 is a valid bonus); the
// rulesets fill it in.
const DefaultBonus = 50

// CampionatoWithdrawalPenalty is the classification penalty, in hundredths, that
// campionato-2003 ("Se un giocatore si ritira … perderà 150 che non potranno essere
// scartati") takes from the final total of a player who withdrew from a game. Score
// gives that game 10 points under conv2003; the caller records this penalty and passes
// it to [Rank], which never discards penalties.
const CampionatoWithdrawalPenalty int64 = 150_00

// Edition selects the ledger's reading of the rules by the edition a
// tournament was recorded under (events.Ruleset.Edition), so that an old log
// replays as it was decided. The zero value is the current reading.
type Edition int

const (
	// EditionCurrent is the reading new tournaments are decided by.
	EditionCurrent Edition = 0
	// Edition1 is the first reading: conv2003 places a withdrawn player by
	// his table points, standard gives a fifth 1, and the rur-2015
	// standings chain compares the whole sorted list of scores, then the
	// rounds they were obtained in.
	Edition1 Edition = 1
	// Edition2 is the second reading: as the current one, except that the
	// rur-2015 standings chain compares only the best single score and the
	// round it was obtained in, and leaves whatever is still level to a die.
	Edition2 Edition = 2
)

// Rules selects placement and scoring.
type Rules struct {
	// Edition is the reading of the rules (the zero value: the current one).
	Edition Edition
	// Formula is one of events.Formulas (docs/rules.md#5-scoring-formulas).
	Formula events.Formula
	// TieChain is one of events.TieChains; "" means events.TieChainRUR.
	TieChain events.TieChain
	// TieAtTop is one of events.TieAtTops; "" means events.TieAtTopChain.
	// events.TieAtTopSplitBonus only changes formulas that have a winner bonus
	// (tp_bonus, wins); the others break a tie at the top through the chain.
	TieAtTop events.TieAtTop
	// Bonus is the winner bonus in table points for tp_bonus and wins, used as
	// given: 0 means no bonus.
	Bonus int
}

// Result is one player's outcome of one table. Scores are integer hundredths of a
// tournament point.
type Result struct {
	Player string
	// Place is 1-based; shared places repeat the number.
	Place int
	// Score is in hundredths of a tournament point.
	Score int64
	// Win reports that the player won the table: placed first alone, not out of the
	// game by elimination or disqualification, and scored as the winner by the formula.
	Win bool
	// Out reports that the player was eliminated, withdrew or was disqualified.
	Out bool
	// OthersOut counts the other players at this table who were out.
	OthersOut int
	// TablePoints are the player's table points after penalties.
	TablePoints int
	// Unresolved reports that the player's place depends on a die roll that is not
	// recorded; the place given is provisional (seat order).
	Unresolved bool
	// Level reports a player who shares his place (split_bonus, maialino) with
	// another whom neither the tie chain nor the recorded die rolls separate:
	// their order within the place is the report's. It matters only where the
	// table's winner goes through to the next phase.
	Level bool
}

// Errors returned by Score. They are wrapped with the offending value.
var (
	ErrUnknownFormula  = errors.New("scoring: unknown formula")
	ErrUnknownTieChain = errors.New("scoring: unknown tie chain")
	ErrUnknownTieAtTop = errors.New("scoring: unknown tie-at-top mode")
	ErrUnknownStatus   = errors.New("scoring: unknown status")
	ErrNoPlayers       = errors.New("scoring: table has no players")
	ErrRisikoWinner    = errors.New("scoring: risiko needs a winner seated at the table who finished the game")
)

// tieMode says how a formula wants ties in table points handled.
type tieMode int

const (
	tieByChain    tieMode = iota // every tie goes through the chain
	tieSplitAtTop                // split_bonus applies to a tie at the top
	tieShared                    // ties share the place (maialino)
)

// formula is one scoring formula of docs/rules.md#5-scoring-formulas.
type formula struct {
	ties  tieMode
	score func(c *tableContext, out []Result)
	// withdrawnLeave reports that a player who withdraws leaves the game: he
	// is placed after everyone still in it, and the winner and every gap are
	// computed among those (campionato-2003, the rulebook of conv2003: "dal
	// momento del ritiro tutti i suoi territori diverranno neutrali"). Under
	// every other formula a withdrawn player is placed by his recorded table
	// points (rur-2015 art. 31: "gli saranno assegnati quelli relativi alla
	// posizione ottenuta"). The formula carries it, not the ruleset: the
	// same sentence of campionato-2003 gives the 10 points that are a row of
	// conv2003's table, and the campionato-2003 ruleset resolves its scoring
	// to conv2003 (docs/rules.md#42-pinned-campionato-2003-a-withdrawn-player-leaves-the-game).
	withdrawnLeave bool
}

// formulas maps the formula ids to their implementations, one per file.
var formulas = map[events.Formula]formula{
	events.FormulaTPBonus:   {tieSplitAtTop, scoreTPBonus, false},
	events.FormulaWins:      {tieSplitAtTop, scoreWins, false},
	events.FormulaConv150:   {tieByChain, scoreConv150, false},
	events.FormulaConv200:   {tieByChain, scoreConv200, false},
	events.FormulaConv2003:  {tieByChain, scoreConv2003, true},
	events.FormulaStandard:  {tieByChain, scoreStandard, false},
	events.FormulaFaentino:  {tieByChain, scoreFaentino, false},
	events.FormulaSpartaco:  {tieByChain, scoreSpartaco, false},
	events.FormulaMaialino:  {tieShared, scoreMaialino, false},
	events.FormulaVeronese:  {tieByChain, scoreVeronese, false},
	events.FormulaTriestino: {tieByChain, scoreTriestino, false},
	events.FormulaMedals:    {tieByChain, scoreMedals, false},
	events.FormulaCirki:     {tieByChain, scoreCirki, false},
}

// Score places the players of one table and converts to tournament points. Results are
// in placement order.
//
// Score does not validate the report (see [Validate]); it only refuses what it cannot
// score: an unknown formula, tie chain, tie-at-top mode or status, an empty table, and
// a risiko whose winner is not seated or did not finish. Whatever else it is given, it
// returns one Result per seat.
func Score(r Rules, t Table) ([]Result, error) {
	f, ok := formulas[r.Formula]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownFormula, r.Formula)
	}
	chain, err := chainFor(r.TieChain)
	if err != nil {
		return nil, err
	}
	mode := f.ties
	switch r.TieAtTop {
	case "", events.TieAtTopChain:
		if mode == tieSplitAtTop {
			mode = tieByChain
		}
	case events.TieAtTopSplitBonus:
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownTieAtTop, r.TieAtTop)
	}
	if len(t.Players) == 0 {
		return nil, ErrNoPlayers
	}
	for _, s := range t.Players {
		if !slices.Contains(events.SeatStatuses(), s.Status) {
			return nil, fmt.Errorf("%w %q for player %q", ErrUnknownStatus, s.Status, s.Player)
		}
	}
	c, err := place(t, chain, mode, f.withdrawnLeave && r.Edition != Edition1, r.Edition)
	if err != nil {
		return nil, err
	}
	c.bonus = r.Bonus
	c.edition = r.Edition
	out := make([]Result, len(c.seats))
	for i, p := range c.seats {
		out[i] = Result{
			Player:      p.Player,
			Place:       p.place,
			Out:         p.Status.Out(),
			OthersOut:   c.outCount - boolInt(p.Status.Out()),
			TablePoints: p.tp,
			Unresolved:  p.unresolved,
			Level:       p.level,
			Win:         c.isWinner(i),
		}
	}
	f.score(c, out)
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// hundredths converts whole tournament points to hundredths.
func hundredths(points int) int64 { return int64(points) * 100 }
