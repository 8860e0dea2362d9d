package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// games1to3 are the tables of a Raduno of 16 (rur-2015) the test writes
// whole: game 1, game 2 and the semifinals, each table its players and
// their table points, the winner first. p01 and p05 win their table of game
// 1 (50 + 50 = 100), score 40 and 30 in game 2, and lose their semifinals
// with 10 and 20: 150 each, 100, 40, 10 against 100, 30, 20, both 100s in
// game 1.
var games1to3 = [3][4]string{
	{"p01:50 p02:40 p03:30 p04:20", "p05:50 p06:45 p07:25 p08:15", "p09:60 p10:35 p11:22 p12:12", "p13:70 p14:38 p15:28 p16:18"},
	{"p06:55 p01:40 p11:21 p16:11", "p02:65 p05:30 p12:14 p15:24", "p14:57 p09:33 p03:27 p08:9", "p10:52 p13:44 p07:19 p04:16"},
	{"p13:60 p09:30 p03:20 p04:5", "p02:55 p15:25 p01:10 p16:8", "p06:50 p10:35 p07:15 p12:12", "p14:45 p05:20 p11:18 p08:6"},
}

// TestRadunoOf16PublishesATieTheRulebookBreaks plays a Raduno of 16 over
// HTTP to its published classification. rur-2015 art. 1: "se tutti i
// punteggi fossero uguali ed ottenuti nello stesso ordine la classifica sarà
// determinata da un lancio del dado": the semifinal losers p01 (100, 40, 10)
// and p05 (100, 30, 20) are told apart by their second scores, so p01 ranks
// above p05, no tie awaits a die, and PublishClassification succeeds with no
// die rolled. On the way, a renunciation nobody can fill (a Raduno of 16 has
// no 17th) is refused with the rule and leaves the log unchanged, and the
// semifinals are drawn all the same (docs/rules.md#92-pinned-a-renunciation-nobody-can-fill-is-refused).
func TestRadunoOf16PublishesATieTheRulebookBreaks(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	const tour = "raduno-16"
	arb := s.create(tour, "rur-2015")
	cmds := "/v1/tournaments/" + tour + "/commands"
	for i := 1; i <= 16; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"Giocatore %d","club":"Club %d"}`, i, i, i%4))
	}
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)

	play := func(round int, tables [4]string) {
		t.Helper()
		var drawn []string
		for i, tb := range tables {
			var ps []string
			for _, f := range strings.Fields(tb) {
				ps = append(ps, fmt.Sprintf("%q", strings.Split(f, ":")[0]))
			}
			drawn = append(drawn, fmt.Sprintf(`{"table":%d,"players":[%s]}`, i+1, strings.Join(ps, ",")))
		}
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"DrawTables","round":%d,"tables":[%s]}`, round, strings.Join(drawn, ",")))
		for i, tb := range tables {
			s.must(201, "POST", cmds, arb, report(round, i+1, tb))
		}
	}
	play(1, games1to3[0])
	play(2, games1to3[1])

	// A renunciation nobody can fill: refused with the rule, nothing appended.
	before := s.logSize()
	r := s.must(422, "POST", cmds, arb, `{"type":"Renounce","player":"p01","phase":"semifinal"}`)
	if p := r.json(t); p["rule"] != "rur-2015 art. 8" || !strings.Contains(fmt.Sprint(p["detail"]), "nobody is left to take p01's place") {
		t.Errorf("renunciation refused with %v, want rur-2015 art. 8 naming why", p)
	}
	if after := s.logSize(); after != before {
		t.Errorf("the refused renunciation moved the log from %d to %d", before, after)
	}

	play(3, games1to3[2])
	s.must(201, "POST", cmds, arb, `{"type":"DrawTables","round":4,"seed":"finale"}`)
	s.must(201, "POST", cmds, arb, report(4, 1, "p13:60 p02:40 p06:30 p14:20"))

	var cl struct {
		Rows []struct {
			Rank          int     `json:"rank"`
			Player        string  `json:"player"`
			Phase         string  `json:"phase"`
			Total         float64 `json:"total"`
			TieUnresolved bool    `json:"tie_unresolved"`
			Settled       *struct {
				Rule   string `json:"rule"`
				Source string `json:"source"`
			} `json:"settled"`
		} `json:"rows"`
		Unresolved bool `json:"unresolved"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/tournaments/"+tour+"/classification", "", nil).body, &cl); err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, row := range cl.Rows {
		rank[row.Player] = i
		if row.TieUnresolved {
			t.Errorf("%s awaits a die roll the rulebook does not ask for", row.Player)
		}
	}
	a, b := cl.Rows[rank["p01"]], cl.Rows[rank["p05"]]
	if cl.Unresolved || a.Phase != "semifinal" || b.Phase != "semifinal" || a.Total != 150 || b.Total != 150 || a.Rank != b.Rank-1 {
		t.Fatalf("semifinal losers: p01 rank %d %s %v, p05 rank %d %s %v (unresolved %v); want p01 right above p05, 150 each",
			a.Rank, a.Phase, a.Total, b.Rank, b.Phase, b.Total, cl.Unresolved)
	}
	if b.Settled == nil || b.Settled.Rule != "scores" || b.Settled.Source != "rur-2015 art. 1" {
		t.Errorf("p05's row says it was settled by %+v, want the scores compared under rur-2015 art. 1", b.Settled)
	}

	s.must(201, "POST", cmds, arb, `{"type":"PublishClassification","final":true}`)
	var log struct {
		Events []struct {
			Type string `json:"type"`
		} `json:"events"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/tournaments/"+tour+"/events?limit=1000", arb, nil).body, &log); err != nil {
		t.Fatal(err)
	}
	var published bool
	for _, ev := range log.Events {
		switch ev.Type {
		case "TieBreakRolled":
			t.Errorf("a die was rolled: the rulebook asks for none")
		case "ClassificationPublished":
			published = true
		}
	}
	if !published {
		t.Errorf("no ClassificationPublished among %d events", len(log.Events))
	}
}

// report is a RecordResult of table points alone, the lines in turn order
// as "player:points", the first the winner.
func report(round, table int, lines string) string {
	var ps []string
	for i, f := range strings.Fields(lines) {
		p, tp, _ := strings.Cut(f, ":")
		ps = append(ps, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%s,"status":"finished"}`, p, i+1, tp))
	}
	return fmt.Sprintf(`{"type":"RecordResult","round":%d,"table":%d,"closed_by":"time","players":[%s]}`, round, table, strings.Join(ps, ","))
}
