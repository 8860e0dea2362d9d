package scoring

import (
	"testing"

	"github.com/referto/referto/events"
)

// TestFormulas proves every formula of docs/rules.md#5-scoring-formulas and its pinned readings. Each case:
// given rules and a table, when it is scored, then placement and scores are as written
// (player:place:score in hundredths).
func TestFormulas(t *testing.T) {
	four := []Seat{fin("A", 1, 62), fin("B", 2, 55), fin("C", 3, 40), elim("D", 4, 1)}
	cases := []struct {
		name  string
		rules Rules
		table Table
		want  string
	}{
		// tp_bonus and wins.
		{"tp_bonus: winner tp + 50, others tp, eliminated 0", Rules{Formula: "tp_bonus", Bonus: 50}, Table{Players: four},
			"A:1:11200 B:2:5500 C:3:4000 D:4:0"},
		{"tp_bonus: bonus parameter", Rules{Formula: "tp_bonus", Bonus: 30}, Table{Players: four},
			"A:1:9200 B:2:5500 C:3:4000 D:4:0"},
		{"tp_bonus: risiko 150", Rules{Formula: "tp_bonus", Bonus: 50}, Table{Players: four, Winner: "C", Risiko: true},
			"C:1:15000 A:2:6200 B:3:5500 D:4:0"},
		{"wins: a table scores as tp_bonus", Rules{Formula: "wins", Bonus: 50}, Table{Players: four},
			"A:1:11200 B:2:5500 C:3:4000 D:4:0"},
		{"wins: risiko as tp_bonus", Rules{Formula: "wins", Bonus: 50}, Table{Players: four, Winner: "B", Risiko: true},
			"B:1:15000 A:2:6200 C:3:4000 D:4:0"},

		// Conversions.
		{"decimali pari al distacco are hundredths (pinned)", Rules{Formula: "conv150"}, Table{Players: four},
			"A:1:15007 B:2:9300 C:3:6000 D:4:1000"},
		{"conv clamp: a non-winner never below his place's minimum (pinned)", Rules{Formula: "conv150"},
			Table{Players: []Seat{fin("A", 1, 90), fin("B", 2, 20), fin("C", 3, 10), fin("D", 4, 0)}},
			"A:1:15070 B:2:8000 C:3:6000 D:4:4000"},
		{"conv clamp: except when eliminated (salvo annientamento, pinned)", Rules{Formula: "conv200"},
			Table{Players: []Seat{fin("A", 1, 90), elim("B", 2, 3), elim("C", 3, 2), elim("D", 4, 1)}},
			"A:1:20090 B:2:3000 C:3:2000 D:4:1000"},
		{"conv150: 5-player table 100/90 80/70 60/50 50/40", Rules{Formula: "conv150"},
			Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 45), fin("C", 3, 30), fin("D", 4, 5), fin("E", 5, 43)}},
			"A:1:15005 B:2:9500 E:3:7300 C:4:5000 D:5:4000"},
		{"conv150: risiko 151 − tp(second)/100, gap from W = 100", Rules{Formula: "conv150"},
			Table{Players: []Seat{fin("A", 1, 40), fin("B", 2, 95), fin("C", 3, 88), fin("D", 4, 70)}, Winner: "A", Risiko: true},
			"A:1:15005 B:2:9500 C:3:6800 D:4:4000"},
		{"conv200: winner 200 + gap2 hundredths", Rules{Formula: "conv200"}, Table{Players: four},
			"A:1:20007 B:2:9300 C:3:6000 D:4:1000"},
		{"conv200: risiko 201 − tp(second)/100", Rules{Formula: "conv200"}, Table{Players: four, Winner: "C", Risiko: true},
			"C:1:20038 A:2:8000 B:3:6000 D:4:1000"},
		{"conv2003: 4-table 100/80 80/60 60/40", Rules{Formula: "conv2003", TieChain: "2003"},
			Table{Players: []Seat{fin("A", 1, 70), fin("B", 2, 65), fin("C", 3, 50), fin("D", 4, 35)}},
			"A:1:20005 B:2:9500 C:3:6000 D:4:4000"},
		{"conv2003: 5-table 100/90 80/70 60/50 50/40", Rules{Formula: "conv2003", TieChain: "2003"},
			Table{Players: []Seat{fin("A", 1, 70), fin("B", 2, 65), fin("C", 3, 60), fin("D", 4, 55), fin("E", 5, 10)}},
			"A:1:20005 B:2:9500 C:3:7000 D:4:5000 E:5:4000"},
		{"conv2003: 3-table 100/70 80/50", Rules{Formula: "conv2003", TieChain: "2003"},
			Table{Players: []Seat{fin("A", 1, 70), fin("B", 2, 45), fin("C", 3, 10)}},
			"A:1:20025 B:2:7500 C:3:5000"},
		{"conv2003: risiko counts W = 100", Rules{Formula: "conv2003", TieChain: "2003"},
			Table{Players: []Seat{fin("A", 1, 30), fin("B", 2, 95), fin("C", 3, 10), elim("D", 4, 1)}, Winner: "A", Risiko: true},
			"A:1:20005 B:2:9500 C:3:6000 D:4:1000"},
		// campionato-2003: "dal momento del ritiro tutti i suoi territori
		// diverranno neutrali … totalizzerà classifica generale per quella
		// partita solo 10 punti": the withdrawn leave the game, whatever their
		// table points; B wins among those still in it, by 30 over D.
		{"campionato withdrawal: out of the game, 10 points, the winner among the others (pinned)", Rules{Formula: "conv2003", TieChain: "2003"},
			Table{Players: []Seat{wd("A", 1, 70), fin("B", 2, 65), wd("C", 3, 50), fin("D", 4, 35)}},
			"B:1:20030 D:2:8000 A:3:1000 C:3:1000"},

		// standard.
		{"standard: 12 7 5 3 + tp/100, k-th eliminated k", Rules{Formula: "standard"},
			Table{Players: []Seat{fin("A", 1, 62), fin("B", 2, 55), elim("C", 3, 2), elim("D", 4, 1)}},
			"A:1:1262 B:2:755 C:3:200 D:4:100"},
		{"standard: 4th 3, 5th 2 on a table of 5 (the reference vectors' reading)", Rules{Formula: "standard"},
			Table{Players: []Seat{fin("A", 1, 62), fin("B", 2, 55), fin("C", 3, 40), fin("D", 4, 30), fin("E", 5, 20)}},
			"A:1:1262 B:2:755 C:3:540 D:4:330 E:5:220"},
		{"standard: risiko 13 flat", Rules{Formula: "standard"}, Table{Players: four, Winner: "B", Risiko: true},
			"B:1:1300 A:2:762 C:3:540 D:4:100"},

		// faentino.
		{"faentino: 100, 50 within 15 (inclusive), 10 beyond, eliminated 0", Rules{Formula: "faentino"},
			Table{Players: []Seat{fin("A", 1, 60), fin("B", 2, 45), fin("C", 3, 44), elim("D", 4, 1)}},
			"A:1:10000 B:2:5000 C:3:1000 D:4:0"},
		{"faentino: risiko 110, gap from W = 100", Rules{Formula: "faentino"},
			Table{Players: []Seat{fin("A", 1, 30), fin("B", 2, 85), fin("C", 3, 84), elim("D", 4, 1)}, Winner: "A", Risiko: true},
			"A:1:11000 B:2:5000 C:3:1000 D:4:0"},

		// spartaco.
		{"spartaco: 100 + tp, 100 − gap, eliminated as tp = 0", Rules{Formula: "spartaco"}, Table{Players: four},
			"A:1:16200 B:2:9300 C:3:7800 D:4:3800"},
		{"spartaco: risiko subito means the losers score −14, eliminated too (pinned)", Rules{Formula: "spartaco"},
			Table{Players: four, Winner: "B", Risiko: true},
			"B:1:18600 A:2:-1400 C:3:-1400 D:4:-1400"},

		// maialino.
		{"maialino: tp/2 + 60 / 10 / 5", Rules{Formula: "maialino"},
			Table{Players: []Seat{fin("A", 1, 61), fin("B", 2, 55), fin("C", 3, 40), fin("D", 4, 30)}},
			"A:1:9050 B:2:3750 C:3:2500 D:4:1500"},
		{"maialino: risiko counts 100 (110)", Rules{Formula: "maialino"}, Table{Players: four, Winner: "C", Risiko: true},
			"C:1:11000 A:2:4100 B:3:3250 D:4:0"},
		{"maialino: two tied share the bonus of the place they tie at (pinned)", Rules{Formula: "maialino"},
			Table{Players: []Seat{fin("A", 1, 60), off(fin("B", 2, 50), 30), fin("C", 3, 50), fin("D", 4, 30)}},
			"A:1:9000 B:2:3000 C:2:3000 D:4:1500"},
		{"maialino: two tied first share 60, the next takes the place after the group (pinned)", Rules{Formula: "maialino"},
			Table{Players: []Seat{fin("A", 1, 60), fin("B", 2, 60), fin("C", 3, 50), fin("D", 4, 30)}},
			"B:1:6000 A:1:6000 C:3:3000 D:4:1500"},
		{"maialino: three tied first get 10 each (pinned)", Rules{Formula: "maialino"},
			Table{Players: []Seat{fin("A", 1, 60), fin("B", 2, 60), fin("C", 3, 60), fin("D", 4, 30)}},
			"C:1:4000 B:1:4000 A:1:4000 D:4:1500"},
		{"maialino: any other tie of three or more gets no bonus (pinned)", Rules{Formula: "maialino"},
			Table{Players: []Seat{fin("A", 1, 70), fin("B", 2, 60), fin("C", 3, 60), fin("D", 4, 60)}},
			"A:1:9500 D:2:3000 C:2:3000 B:2:3000"},
		{"maialino: four tied first get no bonus (pinned)", Rules{Formula: "maialino"},
			Table{Players: []Seat{fin("A", 1, 60), fin("B", 2, 60), fin("C", 3, 60), fin("D", 4, 60)}},
			"D:1:3000 C:1:3000 B:1:3000 A:1:3000"},

		// veronese.
		{"veronese: tp + 100 / 60 / 40 / 20, eliminated placed last with tp 0", Rules{Formula: "veronese"}, Table{Players: four},
			"A:1:16200 B:2:11500 C:3:8000 D:4:2000"},
		{"veronese: a fifth gets no bonus, risiko counts 100", Rules{Formula: "veronese"},
			Table{Players: []Seat{fin("A", 1, 62), fin("B", 2, 55), fin("C", 3, 40), fin("D", 4, 30), fin("E", 5, 20)}, Winner: "E", Risiko: true},
			"E:1:20000 A:2:12200 B:3:9500 C:4:6000 D:5:3000"},

		// triestino.
		{"triestino: share of 400 on a table of 4, rounded half up", Rules{Formula: "triestino"}, Table{Players: four},
			"A:1:15796 B:2:14013 C:3:10191 D:4:0"},
		{"triestino: share of 500 on a table of 5", Rules{Formula: "triestino"},
			Table{Players: []Seat{fin("A", 1, 40), fin("B", 2, 30), fin("C", 3, 20), fin("D", 4, 10), elim("E", 5, 1)}},
			"A:1:20000 B:2:15000 C:3:10000 D:4:5000 E:5:0"},
		{"triestino: half a hundredth rounds up", Rules{Formula: "triestino"},
			Table{Players: []Seat{fin("A", 1, 1), fin("B", 2, 50), fin("C", 3, 40), fin("D", 4, 37)}},
			"B:1:15625 C:2:12500 D:3:11563 A:4:313"},
		{"triestino: a table of 3 makes 300 (100 per seat)", Rules{Formula: "triestino"},
			Table{Players: []Seat{fin("A", 1, 30), fin("B", 2, 20), fin("C", 3, 10)}},
			"A:1:15000 B:2:10000 C:3:5000"},
		{"triestino: risiko counts 100, a disqualified player's points do not count", Rules{Formula: "triestino"},
			Table{Players: []Seat{fin("A", 1, 30), fin("B", 2, 60), fin("C", 3, 40), dq("D", 4, 90)}, Winner: "A", Risiko: true},
			"A:1:20000 B:2:12000 C:3:8000 D:4:0"},
		{"triestino: nobody scored, everybody 0", Rules{Formula: "triestino"},
			Table{Players: []Seat{fin("A", 1, 0), elim("B", 2, 2), elim("C", 3, 1)}},
			"A:1:0 B:2:0 C:3:0"},

		// medals and cirki.
		{"medals: a table gives places and no points", Rules{Formula: "medals"}, Table{Players: four},
			"A:1:0 B:2:0 C:3:0 D:4:0"},
		{"cirki: winner 3, losers 1, eliminated 0", Rules{Formula: "cirki"}, Table{Players: four},
			"A:1:300 B:2:100 C:3:100 D:4:0"},
		{"cirki: risiko 3", Rules{Formula: "cirki"}, Table{Players: four, Winner: "C", Risiko: true},
			"C:1:300 A:2:100 B:3:100 D:4:0"},
		{"cirki: a withdrawn loser scores 0, a withdrawn player placed first wins (vector cirki-147)", Rules{Formula: "cirki"},
			Table{Players: []Seat{wd("A", 1, 62), fin("B", 2, 55), wd("C", 3, 40), fin("D", 4, 10)}},
			"A:1:300 B:2:100 C:3:0 D:4:100"},

		// Edition 1, the reading an older log was decided by, replays as it was.
		{"edition 1: a campionato withdrawal placed by table points, 10 points, not the winner", Rules{Edition: Edition1, Formula: "conv2003", TieChain: "2003"},
			Table{Players: []Seat{wd("A", 1, 70), fin("B", 2, 65), wd("C", 3, 50), fin("D", 4, 35)}},
			"A:1:1000 B:2:9500 C:3:1000 D:4:4000"},
		{"edition 1: standard, a fifth scores 1", Rules{Edition: Edition1, Formula: "standard"},
			Table{Players: []Seat{fin("A", 1, 62), fin("B", 2, 55), fin("C", 3, 40), fin("D", 4, 30), fin("E", 5, 20)}},
			"A:1:1262 B:2:755 C:3:540 D:4:330 E:5:120"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := placing(mustScore(t, tc.rules, tc.table)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestDisqualifiedScoresZeroUnderEveryFormula: given a disqualified player with the
// most table points, under every formula, with and without a risiko, then he is placed
// last with 0 and is neither the winner nor counted as a finisher.
func TestDisqualifiedScoresZeroUnderEveryFormula(t *testing.T) {
	for _, f := range events.Formulas() {
		for _, risiko := range []bool{false, true} {
			tab := Table{Players: []Seat{fin("A", 1, 40), dq("Z", 2, 99), fin("B", 3, 30), elim("C", 4, 1)}}
			if risiko {
				tab.Winner, tab.Risiko = "B", true
			}
			rs := mustScore(t, Rules{Formula: f}, tab)
			last := rs[len(rs)-1]
			if last.Player != "Z" || last.Place != 4 || last.Score != 0 || last.Win || !last.Out {
				t.Errorf("%s risiko=%v: got %+v, want Z placed 4th with 0", f, risiko, last)
			}
		}
	}
}

// TestWithdrawnScoredByPlace: given a withdrawn player placed second by his table
// points, under every formula but conv2003 and cirki (0), then he scores what a
// finished player in his place scores (rur-2015 art. 31: "gli saranno assegnati
// quelli relativi alla posizione ottenuta"). Under conv2003 he left the game: placed
// after the players still in it, before the eliminated, with 10 points.
func TestWithdrawnScoredByPlace(t *testing.T) {
	for _, f := range events.Formulas() {
		seats := []Seat{fin("A", 1, 60), fin("B", 2, 50), fin("C", 3, 20), elim("D", 4, 1)}
		base := mustScore(t, Rules{Formula: f}, Table{Players: seats})
		seats[1].Status = events.SeatWithdrawn
		got := mustScore(t, Rules{Formula: f}, Table{Players: seats})
		want, at := base[1].Score, 1
		switch f {
		case "conv2003":
			want, at = 1000, 2
		case "cirki":
			want = 0
		}
		if got[at].Player != "B" || got[at].Place != at+1 || got[at].Score != want || !got[at].Out {
			t.Errorf("%s: got %+v, want B placed %d scoring %d", f, got[at], at+1, want)
		}
	}
}

// TestEveryFormulaIsImplemented: the formulas a ruleset may name
// (events.Formulas) are exactly those Score implements.
func TestEveryFormulaIsImplemented(t *testing.T) {
	for _, f := range events.Formulas() {
		if _, ok := formulas[f]; !ok {
			t.Errorf("formula %s has no implementation", f)
		}
	}
	if got, want := len(formulas), len(events.Formulas()); got != want {
		t.Errorf("%d formulas implemented, events lists %d", got, want)
	}
}
