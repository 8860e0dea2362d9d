package scoring

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/referto/referto/events"
)

// Game is one player's scored game, the input of the standings.
type Game struct {
	Player      string
	Round       int
	Table       int
	Place       int
	Score       int64 // hundredths
	TablePoints int
	Win         bool
	// Eliminated reports that the player was out of that game by elimination,
	// withdrawal or disqualification.
	Eliminated bool
	// OthersOut counts the other players out of that game at the player's table.
	OthersOut int
	// Discarded marks a game a total leaves out because it was discarded
	// before: a knockout group counts a player's qualifying games as the
	// standings kept them. The chains still read its score, as they read
	// every game, discarded or not.
	Discarded bool
}

// StandingsRules selects how the standings are computed.
type StandingsRules struct {
	// Edition is the reading of the rules (the zero value: the current one).
	Edition Edition
	// Formula is the scoring formula of the games. wins and triestino rank by wins
	// first, medals by medal counts; every other formula by total.
	Formula events.Formula
	// Tiebreak is events.TiebreakCirki, or events.TiebreakRUR (also "" and
	// anything unknown).
	Tiebreak events.Tiebreak
	// Discards is how many of a player's worst game scores are dropped from his total.
	Discards int
	// Rounds, when positive, is how many rounds the tournament's total counts
	// (its qualifying rounds): a player's total is then his best Rounds −
	// Discards game scores, so that a round he did not play is the result
	// discarded first (rtu: "possono essere presi in considerazione solo i
	// due migliori risultati"; conv200 weighs "una eliminazione dal tavolo
	// ... (o anche di un'assenza)" as a result). Zero, as editions 1 and 2
	// read it: the Discards worst of the games he played are dropped.
	Rounds int
	// TieChain is the ruleset's table tie chain. Rank does not use it: the standings
	// chain is the one Tiebreak names.
	TieChain events.TieChain
	// Source and RollSource cite where the tournament's ruleset writes the
	// standings chain and the die that ends it, as an explanation of a
	// settled tie says (Explain). Empty: rur-2015 art. 1 for the rur chain
	// and its die, cirki-2001 §14 for the cirki chain.
	Source, RollSource string
}

// chainSource is where the standings chain is written.
func (r StandingsRules) chainSource() string {
	switch {
	case r.Source != "":
		return r.Source
	case r.Tiebreak == events.TiebreakCirki:
		return "cirki-2001 §14"
	}
	return "rur-2015 art. 1"
}

// rollSource is where the die that ends the standings chain is written.
func (r StandingsRules) rollSource() string { return cmp.Or(r.RollSource, "rur-2015 art. 1") }

// Roll is a recorded die roll between players tied in the standings
// (RecordTieBreakRoll): Rolls[i] is what Players[i] rolled.
type Roll struct {
	Players []string
	Rolls   []int
	// Signatures, when given, pin the roll to the tie it settled: one per
	// player, as Signature returned for their row then. A roll applies only
	// while every player's signature is unchanged, so a roll for a tie after
	// game 1 does not decide a new tie after game 2.
	Signatures []string
}

// Signature identifies where a row stands for a tie-break roll: its total
// and the number of games it counts.
func Signature(r Row) string {
	return fmt.Sprintf("%d/%d", r.Total, len(r.Games))
}

// Row is one player's line of the standings.
type Row struct {
	Player string
	// Rank is the 1-based position. Rows tied unresolved keep distinct ranks.
	Rank int
	// Total is in hundredths, after discards and classification penalties.
	Total int64
	// Games are the player's games in round order.
	Games []Game
	// Discarded lists the rounds whose score was discarded, in round order.
	Discarded []int
	// TieUnresolved reports that the player is tied with a neighbour and only a die
	// roll that is not recorded yet can separate them; final publication must wait.
	TieUnresolved bool
	// TieGroup is, for an unresolved row, the rank of the first row of its
	// tie: rows with the same TieGroup are tied with each other. 0 otherwise.
	TieGroup int
}

// standing is a row with the keys the comparisons use.
type standing struct {
	row     Row
	order   int   // position in the players argument
	wins    int   // games won
	elims   int   // games out of (eliminated, withdrawn, disqualified)
	outWon  int   // other players out at tables the player won
	medals  []int // medals[k] counts places k+1
	scores  []int64
	rounds  []int // rounds of scores, in the same order
	penalty int64
	// tieHead is the first standing of the unresolved tie this one is in.
	tieHead *standing
}

// Rank computes the standings (docs/rules.md#6-standings). players lists every ranked player (a
// player with no games still gets a row, total 0); games of anyone else are ignored.
// penalties are classification penalties in hundredths (positive numbers,
// subtracted; never discarded). rolls are the recorded standings die rolls.
//
// The order:
//
//   - primary: wins then total (wins, triestino), medal counts 1st, 2nd, 3rd, … (medals;
//     the total plays no part), total (every other formula);
//   - rur-2015 art. 1 (Tiebreak "rur"): the game scores from the highest down, each
//     step by the score and then by the earlier round it was obtained in
//     ([cmpRURStandings]);
//   - cirki-2001 §14 (Tiebreak "cirki"): more wins, more games played, fewer
//     eliminations or withdrawals, more other players eliminated or withdrawn at tables
//     the player won. The cirki ruleset names its own chain, so the rur-2015 chain is
//     not appended (vector standings-cirki-0: q06 and q07 stay unresolved although q06
//     scored his 300 in an earlier round);
//   - a die roll: the last Roll covering every player of the tie, highest first.
//
// The chains look at every game score, discarded or not. Players still tied are
// TieUnresolved and keep the order of players.
func Rank(r StandingsRules, players []string, games []Game, penalties map[string]int64, rolls []Roll) []Row {
	index := make(map[string]int, len(players))
	var st []*standing
	for _, p := range players {
		if _, dup := index[p]; dup {
			continue
		}
		index[p] = len(st)
		st = append(st, &standing{row: Row{Player: p}, order: len(st), penalty: penalties[p]})
	}
	for _, g := range games {
		if i, ok := index[g.Player]; ok {
			st[i].row.Games = append(st[i].row.Games, g)
		}
	}
	drop := func(played int) int { return r.Discards }
	if r.Rounds > 0 {
		// Rounds not played are discarded first.
		drop = func(played int) int { return max(played-max(r.Rounds-r.Discards, 0), 0) }
	}
	for _, s := range st {
		s.tally(drop(len(s.row.Games)))
	}

	primary := primaryFor(r.Formula)
	chain := cmpRURStandings
	switch {
	case r.Tiebreak == events.TiebreakCirki:
		chain = cmpCirki
	case r.Edition == Edition1:
		chain = cmpRURStandingsEdition1
	case r.Edition == Edition2:
		chain = cmpRURStandingsEdition2
	}
	full := func(a, b *standing) int {
		if c := primary(a, b); c != 0 {
			return c
		}
		return chain(a, b)
	}
	slices.SortStableFunc(st, full)
	ix := indexRolls(rolls)

	for i := 0; i < len(st); {
		j := i + 1
		for j < len(st) && full(st[i], st[j]) == 0 {
			j++
		}
		// Players who have not played yet are level, not tied: nothing
		// needs a die roll before there is a score to compare.
		if j-i > 1 && hasGames(st[i:j]) {
			resolveByRolls(st[i:j], ix, 0)
		}
		i = j
	}

	for i, s := range st {
		s.row.Rank = i + 1
	}
	rows := make([]Row, len(st))
	for i, s := range st {
		if s.tieHead != nil {
			s.row.TieGroup = s.tieHead.row.Rank
		}
		rows[i] = s.row
	}
	return rows
}

// tally sorts the games, applies the discards and computes the comparison keys.
func (s *standing) tally(discards int) {
	gs := s.row.Games
	slices.SortStableFunc(gs, func(a, b Game) int {
		return cmp.Or(cmp.Compare(a.Round, b.Round), cmp.Compare(a.Table, b.Table))
	})
	var total int64
	for _, g := range gs {
		total += g.Score
		if g.Win {
			s.wins++
			s.outWon += g.OthersOut
		}
		if g.Eliminated {
			s.elims++
		}
		if g.Place >= 1 && g.Place <= 64 {
			for len(s.medals) < g.Place {
				s.medals = append(s.medals, 0)
			}
			s.medals[g.Place-1]++
		}
	}

	// Scores sorted descending, equal scores earliest round first.
	idx := make([]int, len(gs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(gs[b].Score, gs[a].Score), cmp.Compare(gs[a].Round, gs[b].Round))
	})
	for _, i := range idx {
		s.scores = append(s.scores, gs[i].Score)
		s.rounds = append(s.rounds, gs[i].Round)
	}

	// Games discarded before are out of the total; the discards are the
	// worst of the others, the latest round first among equals.
	kept := idx
	if slices.ContainsFunc(gs, func(g Game) bool { return g.Discarded }) {
		kept = nil
		for _, i := range idx {
			if g := gs[i]; g.Discarded {
				total -= g.Score
				s.row.Discarded = append(s.row.Discarded, g.Round)
			} else {
				kept = append(kept, i)
			}
		}
	}
	d := min(max(discards, 0), len(kept))
	for k := len(kept) - d; k < len(kept); k++ {
		g := gs[kept[k]]
		total -= g.Score
		s.row.Discarded = append(s.row.Discarded, g.Round)
	}
	slices.Sort(s.row.Discarded)
	s.row.Total = total - s.penalty
}

// primaryFor returns the primary order of a formula (docs/rules.md#6-standings, §5).
func primaryFor(formula events.Formula) func(a, b *standing) int {
	switch formula {
	case events.FormulaWins, events.FormulaTriestino:
		return func(a, b *standing) int {
			return cmp.Or(cmp.Compare(b.wins, a.wins), cmp.Compare(b.row.Total, a.row.Total))
		}
	case events.FormulaMedals:
		return func(a, b *standing) int {
			for k := range max(len(a.medals), len(b.medals)) {
				if c := cmp.Compare(at(b.medals, k), at(a.medals, k)); c != 0 {
					return c
				}
			}
			return 0
		}
	}
	return func(a, b *standing) int { return cmp.Compare(b.row.Total, a.row.Total) }
}

func at(s []int, k int) int {
	if k < len(s) {
		return s[k]
	}
	return 0
}

// cmpRURStandings is the rur-2015 art. 1 chain (docs/rules.md#61-pinned-rur-2015-art-1-literally):
// "singolo punteggio più alto; in caso di stesso punteggio più alto sarà preferito chi lo
// ha ottenuto per primo; se tutti i punteggi fossero uguali ed ottenuti nello stesso
// ordine la classifica sarà determinata da un lancio del dado". The two players' game
// scores are compared from the highest down: at each step the higher score wins, and at
// an equal score the one obtained in the earlier round; the next-highest scores are
// compared only while both are equal and were obtained in the same round. A player
// without a k-th score is lower than one with it. Nothing is left to the die unless every
// score is equal and came in the same order: 100, 40, 10 ranks above 100, 30, 20 when
// both 100s came in the same round.
func cmpRURStandings(a, b *standing) int { return cmpScoresDown(a, b, true) }

// cmpScoresDown compares two players' scores from the highest down, a
// missing score lower than any, each step also by the round the score was
// obtained in when byRound.
func cmpScoresDown(a, b *standing, byRound bool) int {
	for k := range max(len(a.scores), len(b.scores)) {
		switch {
		case k >= len(a.scores):
			return 1
		case k >= len(b.scores):
			return -1
		}
		c := cmp.Compare(b.scores[k], a.scores[k])
		if byRound {
			c = cmp.Or(c, cmp.Compare(a.rounds[k], b.rounds[k]))
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// cmpRURStandingsEdition2 is the rur-2015 chain as edition 2 read it: the
// higher best single game score (a player without a game has none, lower
// than any), then the one who obtained it in the earlier round; whatever is
// still level went to the die.
func cmpRURStandingsEdition2(a, b *standing) int {
	switch {
	case len(a.scores) == 0 || len(b.scores) == 0:
		return cmp.Compare(len(b.scores), len(a.scores))
	}
	return cmp.Or(cmp.Compare(b.scores[0], a.scores[0]), cmp.Compare(a.rounds[0], b.rounds[0]))
}

// cmpRURStandingsEdition1 is the rur-2015 chain as edition 1 read it: the
// scores sorted descending compared score by score (a missing score lower
// than any), then the rounds they were obtained in, in the same order.
func cmpRURStandingsEdition1(a, b *standing) int {
	if c := cmpScoresDown(a, b, false); c != 0 {
		return c
	}
	for k := range min(len(a.rounds), len(b.rounds)) {
		if c := cmp.Compare(a.rounds[k], b.rounds[k]); c != 0 {
			return c
		}
	}
	return 0
}

// cmpCirki is the cirki-2001 §14 chain: "maggior numero di vittorie ottenute; maggior
// numero di partite disputate; minor numero di eliminazioni o ritiri; maggior numero di
// altri giocatori eliminati o ritirati al proprio tavolo durante le partite vinte".
func cmpCirki(a, b *standing) int {
	return cmp.Or(
		cmp.Compare(b.wins, a.wins),
		cmp.Compare(len(b.row.Games), len(a.row.Games)),
		cmp.Compare(a.elims, b.elims),
		cmp.Compare(b.outWon, a.outWon),
	)
}

// rollIndex holds the recorded rolls prepared once per ranking: each roll's
// values and signatures by player, and for each player the rolls naming them.
type rollIndex struct {
	values   []map[string]int
	sigs     []map[string]string
	byPlayer map[string][]int // roll indices, ascending
}

func indexRolls(rolls []Roll) *rollIndex {
	ix := &rollIndex{values: make([]map[string]int, len(rolls)), sigs: make([]map[string]string, len(rolls)), byPlayer: map[string][]int{}}
	for k, r := range rolls {
		// A malformed roll (players and values of different lengths) covers nobody.
		if len(r.Players) != len(r.Rolls) || len(r.Signatures) > 0 && len(r.Signatures) != len(r.Players) {
			continue
		}
		v := make(map[string]int, len(r.Players))
		var sig map[string]string
		if len(r.Signatures) > 0 {
			sig = make(map[string]string, len(r.Players))
		}
		for i, p := range r.Players {
			if _, dup := v[p]; dup {
				continue
			}
			v[p] = r.Rolls[i]
			if sig != nil {
				sig[p] = r.Signatures[i]
			}
			ix.byPlayer[p] = append(ix.byPlayer[p], k)
		}
		ix.values[k], ix.sigs[k] = v, sig
	}
	return ix
}

// covers reports whether roll k gives a value to every player of the group,
// each still standing where the roll found them.
func (ix *rollIndex) covers(k int, group []*standing) bool {
	v, sig := ix.values[k], ix.sigs[k]
	for _, s := range group {
		if _, ok := v[s.row.Player]; !ok {
			return false
		}
		if sig != nil && sig[s.row.Player] != Signature(s.row) {
			return false
		}
	}
	return true
}

// resolveByRolls orders a tied group by the last roll (from roll index
// `from` on) that covers every player of the group, highest first, and
// recurses into players with equal rolls using only later rolls. A group no
// roll covers is unresolved and keeps its order.
func resolveByRolls(group []*standing, ix *rollIndex, from int) {
	ri := -1
	cands := ix.byPlayer[group[0].row.Player]
	for c := len(cands) - 1; c >= 0 && cands[c] >= from; c-- {
		if ix.covers(cands[c], group) {
			ri = cands[c]
			break
		}
	}
	if ri < 0 {
		for _, s := range group {
			s.row.TieUnresolved, s.tieHead = true, group[0]
		}
		return
	}
	values := ix.values[ri]
	slices.SortStableFunc(group, func(a, b *standing) int {
		return cmp.Compare(values[b.row.Player], values[a.row.Player])
	})
	for i := 0; i < len(group); {
		j := i + 1
		for j < len(group) && values[group[j].row.Player] == values[group[i].row.Player] {
			j++
		}
		if j-i > 1 {
			resolveByRolls(group[i:j], ix, ri+1)
		}
		i = j
	}
}

func hasGames(group []*standing) bool {
	for _, s := range group {
		if len(s.row.Games) > 0 {
			return true
		}
	}
	return false
}
