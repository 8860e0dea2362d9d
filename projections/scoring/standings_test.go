package scoring

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// g builds a game: player, round, score in hundredths, place.
func g(player string, round int, score int64, place int) Game {
	return Game{Player: player, Round: round, Table: 1, Place: place, Score: score, Win: place == 1}
}

// won marks a game won with others out at the table; lost marks it lost by
// elimination or withdrawal.
func won(x Game, othersOut int) Game { x.Win, x.Place, x.OthersOut = true, 1, othersOut; return x }
func lost(x Game) Game               { x.Eliminated, x.Win = true, false; return x }

// ranking renders rows as "A:total B:total? …" in rank order, "?" = unresolved.
func ranking(rows []Row) string {
	var parts []string
	for i, r := range rows {
		s := fmt.Sprintf("%s:%d", r.Player, r.Total)
		if r.TieUnresolved {
			s += "?"
		}
		if r.Rank != i+1 {
			s += fmt.Sprintf("(rank %d)", r.Rank)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// TestRank proves docs/rules.md#6-standings and its pinned readings. Each case: given rules, players,
// games, penalties and rolls, when the standings are computed, then the rows are as
// written (player:total in rank order, "?" = tie unresolved).
func TestRank(t *testing.T) {
	rur := StandingsRules{Formula: "tp_bonus", Tiebreak: "rur"}
	cirki := StandingsRules{Formula: "cirki", Tiebreak: "cirki"}
	cases := []struct {
		name      string
		rules     StandingsRules
		players   []string
		games     []Game
		penalties map[string]int64
		rolls     []Roll
		want      string
	}{
		{
			name:    "total is the sum of the game scores, ranked descending",
			rules:   rur,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 5000, 2), g("A", 2, 3000, 3), g("B", 1, 11000, 1), g("B", 2, 100, 4)},
			want:    "B:11100 A:8000",
		},
		{
			name:    "a player with no games still gets a row, total 0",
			rules:   rur,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, -1400, 2)},
			want:    "B:0 A:-1400",
		},
		{
			name:    "discards drop the worst game scores",
			rules:   StandingsRules{Formula: "conv150", Discards: 2},
			players: []string{"A", "B"},
			games: []Game{g("A", 1, 15000, 1), g("A", 2, 1000, 4), g("A", 3, 4000, 4), g("A", 4, 9000, 2),
				g("B", 1, 9900, 2), g("B", 2, 9800, 2), g("B", 3, 9700, 2), g("B", 4, 9600, 2)},
			want: "A:24000 B:19700",
		},
		{
			// docs/rules.md#62-pinned-the-best-results-count: with the rounds counted given,
			// a round not played is the result discarded first.
			name:    "the best rounds − discards results count: a missed round is the one discarded",
			rules:   StandingsRules{Formula: "tp_bonus", Discards: 1, Rounds: 3},
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 8000, 1), g("A", 2, 8000, 1), g("B", 1, 9000, 1), g("B", 2, 1000, 3), g("B", 3, 5000, 2)},
			want:    "A:16000 B:14000",
		},
		{
			name:    "without the rounds counted, the worst played game is discarded whatever was missed (editions 1 and 2)",
			rules:   StandingsRules{Formula: "tp_bonus", Discards: 1},
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 8000, 1), g("A", 2, 8000, 1), g("B", 1, 9000, 1), g("B", 2, 1000, 3), g("B", 3, 5000, 2)},
			want:    "B:14000 A:8000",
		},
		{
			name:      "classification penalties are subtracted and never discarded",
			rules:     StandingsRules{Formula: "tp_bonus", Discards: 1},
			players:   []string{"A", "B"},
			games:     []Game{g("A", 1, 10000, 1), g("A", 2, 2000, 3), g("B", 1, 9000, 1), g("B", 2, 1000, 3)},
			penalties: map[string]int64{"A": 2500},
			want:      "B:9000 A:7500",
		},
		{
			name:      "campionato withdrawal: the game's 10 may be discarded, the −150 never (pinned)",
			rules:     StandingsRules{Formula: "conv2003", Discards: 1},
			players:   []string{"A"},
			games:     []Game{g("A", 1, 20010, 1), lost(g("A", 2, 1000, 2)), g("A", 3, 9000, 2)},
			penalties: map[string]int64{"A": CampionatoWithdrawalPenalty},
			want:      "A:14010",
		},
		{
			name:    "rur-2015: the higher single score (\"il singolo punteggio più alto\")",
			rules:   rur,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 6000, 2), g("A", 2, 6000, 2), g("B", 1, 2000, 3), g("B", 2, 10000, 1)},
			want:    "B:12000 A:12000",
		},
		{
			name:    "rur-2015: then the highest score obtained in the earlier round",
			rules:   rur,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 2000, 3), g("A", 2, 10000, 1), g("B", 1, 10000, 1), g("B", 2, 2000, 3)},
			want:    "B:12000 A:12000",
		},
		{
			// docs/rules.md#61-pinned-rur-2015-art-1-literally: the best scores are equal and
			// A obtained his first, which decides: the second-best scores are compared only
			// while the steps before are equal in the same round, so B's 60 against A's 50
			// does not count.
			name:    "rur-2015: the best score obtained first wins, the second-best are not compared",
			rules:   rur,
			players: []string{"B", "A"},
			games: []Game{g("A", 1, 10000, 1), g("A", 2, 5000, 2), g("A", 3, 2000, 3),
				g("B", 1, 6000, 2), g("B", 2, 10000, 1), g("B", 3, 1000, 3)},
			want: "A:17000 B:17000",
		},
		{
			// docs/rules.md#61-pinned-rur-2015-art-1-literally: "se tutti i punteggi fossero
			// uguali ed ottenuti nello stesso ordine": the same scores in another order are
			// told apart by the earlier round at the first step that differs (B's 50 in
			// round 2, A's in round 3), without a die.
			name:    "rur-2015: equal best scores in the same round, then the next score and its round",
			rules:   rur,
			players: []string{"A", "B"},
			games: []Game{g("A", 1, 10000, 1), g("A", 2, 2000, 3), g("A", 3, 5000, 2),
				g("B", 1, 10000, 1), g("B", 2, 5000, 2), g("B", 3, 2000, 3)},
			want: "B:17000 A:17000",
		},
		{
			name:    "rur-2015: equal best scores in the same round, then the higher next score (100, 40, 10 over 100, 30, 20)",
			rules:   rur,
			players: []string{"B", "A"},
			games: []Game{g("A", 1, 10000, 1), g("A", 2, 4000, 2), g("A", 3, 1000, 4),
				g("B", 1, 10000, 1), g("B", 2, 3000, 2), g("B", 3, 2000, 3)},
			want: "A:15000 B:15000",
		},
		{
			name:    "edition 2: equal best scores in the same round went to the die, whatever the others",
			rules:   StandingsRules{Edition: Edition2, Formula: "tp_bonus", Tiebreak: "rur"},
			players: []string{"A", "B"},
			games: []Game{g("A", 1, 10000, 1), g("A", 2, 2000, 3), g("A", 3, 5000, 2),
				g("B", 1, 10000, 1), g("B", 2, 5000, 2), g("B", 3, 2000, 3)},
			want: "A:17000? B:17000?",
		},
		{
			name:    "rur-2015: identical scores in the same order stay unresolved",
			rules:   rur,
			players: []string{"A", "B", "C"},
			games:   []Game{g("A", 1, 10000, 1), g("A", 2, 2000, 3), g("B", 1, 10000, 1), g("B", 2, 2000, 3), g("C", 1, 1, 4)},
			want:    "A:12000? B:12000? C:1",
		},
		{
			name:    "rur-2015: a recorded roll covering the tied players resolves, highest wins",
			rules:   rur,
			players: []string{"A", "B", "C"},
			games:   []Game{g("A", 1, 10000, 1), g("B", 1, 10000, 1), g("C", 1, 1, 4)},
			rolls:   []Roll{{Players: []string{"A", "B"}, Rolls: []int{2, 6}}},
			want:    "B:10000 A:10000 C:1",
		},
		{
			name:    "rur-2015: equal rolls stay unresolved",
			rules:   rur,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 10000, 1), g("B", 1, 10000, 1)},
			rolls:   []Roll{{Players: []string{"A", "B"}, Rolls: []int{4, 4}}},
			want:    "A:10000? B:10000?",
		},
		{
			name:    "rur-2015: a re-roll after equal rolls resolves",
			rules:   rur,
			players: []string{"A", "B", "C"},
			games:   []Game{g("A", 1, 10000, 1), g("B", 1, 10000, 1), g("C", 1, 10000, 1)},
			rolls: []Roll{
				{Players: []string{"A", "B", "C"}, Rolls: []int{4, 4, 6}},
				{Players: []string{"B", "A"}, Rolls: []int{5, 1}},
			},
			want: "C:10000 B:10000 A:10000",
		},
		{
			name:    "rur-2015: a roll that does not cover every tied player does not resolve",
			rules:   rur,
			players: []string{"A", "B", "C"},
			games:   []Game{g("A", 1, 10000, 1), g("B", 1, 10000, 1), g("C", 1, 10000, 1)},
			rolls:   []Roll{{Players: []string{"A", "B"}, Rolls: []int{1, 6}}},
			want:    "A:10000? B:10000? C:10000?",
		},
		{
			// A's third win is discarded from his total but still counts as a win.
			name:    "the chain looks at every game, discarded or not",
			rules:   StandingsRules{Formula: "cirki", Tiebreak: "cirki", Discards: 1},
			players: []string{"B", "A"},
			games: []Game{won(g("A", 1, 300, 1), 0), won(g("A", 2, 300, 1), 0), won(g("A", 3, 300, 1), 0),
				won(g("B", 1, 300, 1), 0), won(g("B", 2, 300, 1), 0), g("B", 3, 0, 4)},
			want: "A:600 B:600",
		},
		{
			name:    "cirki-2001: more wins",
			rules:   cirki,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 100, 2), g("A", 2, 100, 2), g("A", 3, 100, 2), won(g("B", 1, 300, 1), 0)},
			want:    "B:300 A:300",
		},
		{
			name:    "cirki-2001: then more games played",
			rules:   cirki,
			players: []string{"A", "B"},
			games: []Game{won(g("A", 1, 300, 1), 0), lost(g("A", 2, 0, 4)),
				won(g("B", 1, 300, 1), 0), lost(g("B", 2, 0, 4)), lost(g("B", 3, 0, 4))},
			want: "B:300 A:300",
		},
		{
			name:    "cirki-2001: then fewer eliminations or withdrawals",
			rules:   cirki,
			players: []string{"B", "A"},
			games: []Game{won(g("A", 1, 300, 1), 0), g("A", 2, 100, 2), g("A", 3, 100, 3),
				won(g("B", 1, 300, 1), 0), g("B", 2, 100, 2), lost(g("B", 3, 0, 4))},
			penalties: map[string]int64{"A": 100},
			want:      "A:400 B:400",
		},
		{
			name:    "cirki-2001: then more others out at tables the player won",
			rules:   cirki,
			players: []string{"A", "B"},
			games: []Game{won(g("A", 1, 300, 1), 1), g("A", 2, 100, 3),
				won(g("B", 1, 300, 1), 2), g("B", 2, 100, 3)},
			want: "B:400 A:400",
		},
		{
			name:    "cirki-2001: the rur-2015 chain is not appended (vector standings-cirki-0)",
			rules:   cirki,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 100, 2), won(g("A", 2, 300, 1), 0), won(g("B", 1, 300, 1), 0), g("B", 2, 100, 2)},
			want:    "A:400? B:400?",
		},
		{
			name:    "cirki-2001: then the die roll",
			rules:   cirki,
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 100, 2), won(g("A", 2, 300, 1), 0), won(g("B", 1, 300, 1), 0), g("B", 2, 100, 2)},
			rolls:   []Roll{{Players: []string{"A", "B"}, Rolls: []int{1, 3}}},
			want:    "B:400 A:400",
		},
		{
			name:    "wins: ranked by wins, then total",
			rules:   StandingsRules{Formula: "wins", Tiebreak: "rur"},
			players: []string{"A", "B", "C"},
			games: []Game{g("A", 1, 9000, 2), g("A", 2, 9000, 2),
				g("B", 1, 5100, 1), g("B", 2, 100, 4), g("C", 1, 5200, 1), g("C", 2, 0, 4)},
			want: "C:5200 B:5200 A:18000",
		},
		{
			name:    "wins: remaining ties go through the chain",
			rules:   StandingsRules{Formula: "wins", Tiebreak: "rur"},
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 6000, 1), g("A", 2, 4000, 2), g("B", 1, 7000, 1), g("B", 2, 3000, 2)},
			want:    "B:10000 A:10000",
		},
		{
			name:    "triestino: ranked by wins, then total",
			rules:   StandingsRules{Formula: "triestino", Tiebreak: "rur"},
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 15000, 2), g("A", 2, 14000, 2), g("B", 1, 10100, 1), g("B", 2, 0, 4)},
			want:    "B:10100 A:29000",
		},
		{
			name:      "medals: 1st places, then 2nd, 3rd, 4th; the total plays no part",
			rules:     StandingsRules{Formula: "medals", Tiebreak: "rur"},
			players:   []string{"A", "B", "C", "D"},
			games:     []Game{g("A", 1, 0, 2), g("A", 2, 0, 2), g("B", 1, 0, 1), g("B", 2, 0, 4), g("C", 1, 0, 2), g("C", 2, 0, 3), g("D", 1, 0, 1), g("D", 2, 0, 3)},
			penalties: map[string]int64{"D": 5000},
			want:      "D:-5000 B:0 A:0 C:0",
		},
		{
			name:    "medals: equal medals through the chain, then unresolved",
			rules:   StandingsRules{Formula: "medals", Tiebreak: "rur"},
			players: []string{"A", "B"},
			games:   []Game{g("A", 1, 0, 1), g("A", 2, 0, 3), g("B", 1, 0, 3), g("B", 2, 0, 1)},
			want:    "A:0? B:0?",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ranking(Rank(tc.rules, tc.players, tc.games, tc.penalties, tc.rolls))
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestRankRows: given games out of order, discards and games of an unranked player,
// then each row lists its games in round order and the discarded rounds, and players
// not listed get no row.
func TestRankRows(t *testing.T) {
	rows := Rank(StandingsRules{Formula: "conv150", Discards: 2}, []string{"A", "A"},
		[]Game{g("A", 3, 500, 4), g("X", 1, 99999, 1), g("A", 1, 500, 4), g("A", 2, 9000, 2), g("A", 4, 15000, 1)},
		nil, nil)
	if len(rows) != 1 {
		t.Fatalf("got %d rows, want 1: %+v", len(rows), rows)
	}
	var rounds []int
	for _, x := range rows[0].Games {
		rounds = append(rounds, x.Round)
	}
	if !slices.Equal(rounds, []int{1, 2, 3, 4}) {
		t.Errorf("games in rounds %v, want 1 2 3 4", rounds)
	}
	if !slices.Equal(rows[0].Discarded, []int{1, 3}) || rows[0].Total != 24000 {
		t.Errorf("discarded %v total %d, want [1 3] 24000", rows[0].Discarded, rows[0].Total)
	}
}

// TestRankTolerates: given nonsense (no players, nil maps, malformed rolls, negative
// discards, duplicate games), then Rank returns a row per distinct player and does not
// panic.
func TestRankTolerates(t *testing.T) {
	if rows := Rank(StandingsRules{}, nil, nil, nil, nil); len(rows) != 0 {
		t.Errorf("no players: got %d rows", len(rows))
	}
	rows := Rank(StandingsRules{Formula: "??", Tiebreak: "??", Discards: -3}, []string{"A", "B", ""},
		[]Game{g("A", 1, 1, 1), g("A", 1, 1, 1), g("B", 1, 2, 0), g("B", -4, 0, 99)},
		map[string]int64{"nobody": 5},
		[]Roll{{Players: []string{"A"}}, {Rolls: []int{1, 2}}, {}})
	if len(rows) != 3 || rows[0].Player != "B" || rows[1].Player != "A" {
		t.Errorf("got %s", ranking(rows))
	}
}
