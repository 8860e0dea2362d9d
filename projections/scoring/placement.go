package scoring

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/referto/referto/events"
)

// placed is a seat with what placement computed for it.
type placed struct {
	Seat
	tp     int  // table points after penalties
	risiko bool // the risiko winner
	// risikoTP is what the risiko winner's table points count: 100, less his
	// table-points penalty (edition 1: 100 whatever the penalty).
	risikoTP   int
	place      int
	shared     int // how many players share this place (1 when alone)
	unresolved bool
	// level reports a player sharing his place with one the chain and the
	// rolls do not separate from him (orderShared).
	level bool
	// left reports a withdrawn player who left the game when he withdrew
	// (campionato-2003: his territories became neutral).
	left bool
}

// active reports whether the seat is still in the game at its end and placed by
// table points: finished, or withdrawn where the formula keeps a withdrawn player
// in the game (every formula but conv2003; see [formula.withdrawnLeave]).
func (p *placed) active() bool {
	return p.Status == events.SeatFinished || p.Status == events.SeatWithdrawn && !p.left
}

// tableContext is a placed table, the input of every formula.
type tableContext struct {
	seats    []*placed // placement order
	n        int       // seats at the table
	risiko   bool      // seats[0] made risiko
	outCount int       // seats out of the game
	bonus    int       // winner bonus in table points (tp_bonus, wins)
	edition  Edition   // the reading of the rules
}

// isWinner reports whether seats[i] won the table: placed first alone and still in
// the game (finished or withdrawn). Formulas may narrow it (conv2003).
func (c *tableContext) isWinner(i int) bool {
	p := c.seats[i]
	return p.place == 1 && p.shared == 1 && p.active()
}

// w is the winner's table points W of docs/rules.md#5-scoring-formulas: 100 after a
// risiko (campionato-2003 "Il raggiungimento dell'obbiettivo viene conteggiato … 100")
// less the winner's table-points penalty, otherwise the table points of the player
// placed first.
func (c *tableContext) w() int {
	return c.seats[0].effTP()
}

// gap is W − tp(p), never negative.
func (c *tableContext) gap(p *placed) int {
	return max(0, c.w()-p.effTP())
}

// secondTP is the table points of the player placed second (0 when there is none).
func (c *tableContext) secondTP() int {
	if len(c.seats) < 2 {
		return 0
	}
	return c.seats[1].effTP()
}

// effTP is the table points a formula uses: the risiko winner counts 100 (less
// his table-points penalty: it "lowers the player's table points", and he
// stays first; docs/rules.md#44-pinned-a-table-points-penalty-re-places-the-table), an
// eliminated or disqualified player, or a withdrawn one who left the game, 0;
// anyone else the points after penalties.
func (p *placed) effTP() int {
	switch {
	case p.risiko:
		return p.risikoTP
	case p.Status == events.SeatEliminated || p.Status == events.SeatDisqualified || p.left:
		return 0
	}
	return p.tp
}

// chain is a tie-break chain: cmp orders two active seats tied in table points
// (negative when a places higher). Every chain ends with the recorded die rolls
// (byRoll): the rtu list says so, and for rur-2015 and campionato-2003, whose lists end
// earlier, a roll is the only way left to separate players the list leaves tied.
type chain struct {
	cmp func(a, b *placed) int
}

// chains are the tie chains by the ruleset's name for them
// (docs/rules.md#4-placement-at-a-table); a ruleset that names none plays
// rur-2015's.
var chains = map[events.TieChain]chain{
	"":                  {cmp: cmpRUR},
	events.TieChainRUR:  {cmp: cmpRUR},
	events.TieChain2003: {cmp: cmp2003},
	events.TieChainRTU:  {cmp: cmpRTU},
}

// chainFor returns the tie chain named by id.
func chainFor(id events.TieChain) (chain, error) {
	if c, ok := chains[id]; ok {
		return c, nil
	}
	return chain{}, fmt.Errorf("%w %q", ErrUnknownTieChain, id)
}

// cmpRUR is the rur-2015 art. 1 chain (also master): off-objective points, then reverse
// turn order ("criterio del colore": the player later in turn order places higher).
func cmpRUR(a, b *placed) int {
	return cmpDesc(
		a.OffObjectivePoints, b.OffObjectivePoints,
		a.Turn, b.Turn,
	)
}

// cmp2003 is the campionato-2003 chain ("Finale di partita"): objective territories
// held, then territories held, then armies + 3 × cards.
func cmp2003(a, b *placed) int {
	return cmpDesc(
		a.ObjectiveTerritories, b.ObjectiveTerritories,
		a.Territories, b.Territories,
		a.Armies+3*a.Cards, b.Armies+3*b.Cards,
	)
}

// cmpRTU is the rtu list ("sdadata e casi di parità"): off-objective points, armies on
// objective territories, armies outside, cards, objective territories, other
// territories. The die roll that follows is applied by place.
func cmpRTU(a, b *placed) int {
	return cmpDesc(
		a.OffObjectivePoints, b.OffObjectivePoints,
		a.ObjectiveArmies, b.ObjectiveArmies,
		a.Armies-a.ObjectiveArmies, b.Armies-b.ObjectiveArmies,
		a.Cards, b.Cards,
		a.ObjectiveTerritories, b.ObjectiveTerritories,
		a.Territories-a.ObjectiveTerritories, b.Territories-b.ObjectiveTerritories,
	)
}

// cmpDesc compares pairs (a0, b0, a1, b1, …) in turn, the higher value first.
func cmpDesc(pairs ...int) int {
	for i := 0; i+1 < len(pairs); i += 2 {
		if c := cmp.Compare(pairs[i+1], pairs[i]); c != 0 {
			return c
		}
	}
	return 0
}

// place orders the seats of t (docs/rules.md#4-placement-at-a-table):
//
//   - the risiko winner (who must be seated and finished) first, whatever the table
//     points and penalties;
//   - finished and withdrawn players by table points after penalties, descending, ties
//     as mode says (the chain, a shared first place under split_bonus, shared places
//     under maialino); a tie the chain cannot break is broken by t.Rolls, highest
//     first, and is otherwise left unresolved in seat order;
//   - where withdrawn players leave the game (leave, campionato-2003), they come
//     after every player still in it, sharing one place;
//   - eliminated players after them, the last eliminated highest;
//   - disqualified players last, sharing the last place.
func place(t Table, ch chain, mode tieMode, leave bool, edition Edition) (*tableContext, error) {
	c := &tableContext{n: len(t.Players)}
	var top, active, left, elim, disq []*placed
	seats := make([]placed, len(t.Players))
	for i, s := range t.Players {
		p := &seats[i]
		*p = placed{Seat: s, tp: s.TablePoints - t.Penalties[s.Player], shared: 1, left: leave && s.Status == events.SeatWithdrawn}
		if s.Status.Out() {
			c.outCount++
		}
		switch {
		case t.Risiko && s.Player == t.Winner && top == nil && s.Status == events.SeatFinished:
			p.risiko, p.risikoTP = true, 100
			if edition != Edition1 {
				p.risikoTP -= t.Penalties[s.Player]
			}
			top = append(top, p)
		case p.active():
			active = append(active, p)
		case p.left:
			left = append(left, p)
		case s.Status == events.SeatEliminated:
			elim = append(elim, p)
		default:
			disq = append(disq, p)
		}
	}
	if t.Risiko && top == nil {
		return nil, fmt.Errorf("%w (winner %q)", ErrRisikoWinner, t.Winner)
	}
	c.risiko = t.Risiko

	slices.SortStableFunc(active, func(a, b *placed) int { return cmp.Compare(b.tp, a.tp) })
	slices.SortStableFunc(elim, func(a, b *placed) int { return cmp.Compare(b.EliminatedOrder, a.EliminatedOrder) })

	// Assign places to the active players group by group of equal table points.
	next := len(top) + 1
	for _, p := range top {
		p.place = 1
	}
	for i := 0; i < len(active); {
		j := i + 1
		for j < len(active) && active[j].tp == active[i].tp {
			j++
		}
		group := active[i:j]
		share := mode == tieShared || (mode == tieSplitAtTop && next == 1)
		if share || len(group) == 1 {
			if len(group) > 1 && edition != Edition1 {
				// The place and the bonus are shared; the order within
				// them is the chain's, then the rolls', so that a
				// knockout table has one winner who goes through
				// whatever order the lines were typed in.
				orderShared(group, ch, t.Rolls)
			}
			for _, p := range group {
				p.place, p.shared = next, len(group)
			}
		} else {
			breakTie(group, ch, t.Rolls)
			for k, p := range group {
				p.place = next + k
			}
		}
		next += len(group)
		i = j
	}
	for _, p := range left {
		p.place, p.shared = next, len(left)
	}
	next += len(left)
	for _, p := range elim {
		p.place = next
		next++
	}
	for _, p := range disq {
		p.place, p.shared = next, len(disq)
	}

	c.seats = slices.Concat(top, active, left, elim, disq)
	return c, nil
}

// breakTie orders a group tied in table points by the chain, then by the recorded die
// rolls; players the rolls do not separate (missing or equal rolls) are marked
// unresolved and keep seat order.
func breakTie(group []*placed, ch chain, rolls map[string]int) {
	slices.SortStableFunc(group, ch.cmp)
	for i := 0; i < len(group); {
		j := i + 1
		for j < len(group) && ch.cmp(group[i], group[j]) == 0 {
			j++
		}
		if j-i > 1 {
			byRoll(group[i:j], rolls)
		}
		i = j
	}
}

// orderShared orders a group sharing a place by the chain, then by the
// recorded die rolls; players neither separates are marked level. Nobody is
// unresolved: the shared place needs no roll, only a winner who goes on
// does.
func orderShared(group []*placed, ch chain, rolls map[string]int) {
	breakTie(group, ch, rolls)
	for _, p := range group {
		p.level, p.unresolved = p.unresolved, false
	}
}

// byRoll orders players the chain left tied by their recorded die rolls, highest
// first; players without a roll, or with equal rolls, are unresolved.
func byRoll(group []*placed, rolls map[string]int) {
	roll := func(p *placed) (int, bool) {
		v, ok := rolls[p.Player]
		return v, ok
	}
	for _, p := range group {
		if _, ok := roll(p); !ok {
			for _, q := range group {
				q.unresolved = true
			}
			return
		}
	}
	slices.SortStableFunc(group, func(a, b *placed) int {
		ra, _ := roll(a)
		rb, _ := roll(b)
		return cmp.Compare(rb, ra)
	})
	for i := range group {
		ri, _ := roll(group[i])
		if i > 0 {
			if rp, _ := roll(group[i-1]); rp == ri {
				group[i].unresolved, group[i-1].unresolved = true, true
			}
		}
	}
}
