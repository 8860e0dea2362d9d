package projections_test

import (
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestReplayUsesTheRecordedRuleset folds a log whose TournamentCreated
// carries a ruleset no current preset has (as a log written by an older
// referto, or with organizer overrides would): the scores follow the
// recorded ruleset, never the code's defaults.
func TestReplayUsesTheRecordedRuleset(t *testing.T) {
	rs, _ := events.Preset("rur-2015")
	rs.Bonus = 77 // no preset says 77
	report := events.ResultRecorded{Round: 1, Table: 1, ClosedBy: "time", Players: []events.SeatReport{
		{Player: "a", Turn: 1, TablePoints: 40, Status: "finished"}, {Player: "b", Turn: 2, TablePoints: 30, Status: "finished"},
		{Player: "c", Turn: 3, TablePoints: 20, Status: "finished"}, {Player: "d", Turn: 4, TablePoints: 10, Status: "finished"}}}
	evs := []events.Event{events.TournamentCreated{Tournament: "t1", Name: "Old", Ruleset: rs}}
	for _, p := range []string{"a", "b", "c", "d"} {
		evs = append(evs, events.PlayerRegistered{Player: p, Name: p})
	}
	evs = append(evs, events.RegistrationClosed{},
		events.TablesDrawn{Round: 1, Phase: "qualifying", Algorithm: "manual", Version: 1, Tables: []events.DrawnTable{{Table: 1, Players: []string{"a", "b", "c", "d"}}}},
		report)
	envs, _ := events.Seal("t1", 1, time.Unix(0, 0), events.Actor{}, "k", evs)
	st, err := projections.Fold("t1", envs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Standings().Rows[0]; got.Player != "a" || got.Total != 11700 {
		t.Errorf("winner row %+v: want a with 40 + 77 = 117", got)
	}

	// An amendment before the draw is what later events are scored under.
	rs2 := rs
	rs2.Scoring, rs2.TieChain = "cirki", "rur"
	evs2 := append(append([]events.Event{}, evs[:6]...), events.RulesetAmended{Ruleset: rs2})
	evs2 = append(evs2, evs[6:]...)
	envs2, _ := events.Seal("t1", 1, time.Unix(0, 0), events.Actor{}, "k", evs2)
	st2, err := projections.Fold("t1", envs2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := st2.Standings().Rows[0]; got.Total != 300 {
		t.Errorf("after amending to cirki, winner row %+v: want 3 points", got)
	}
}

func TestPointsRenderWithAtMostTwoDecimals(t *testing.T) {
	for v, want := range map[projections.Points]string{0: "0", 16200: "162", 11250: "112.5", 6107: "61.07", -150: "-1.5", -15000: "-150", 5: "0.05", -5: "-0.05"} {
		if got := v.String(); got != want {
			t.Errorf("Points(%d) = %s, want %s", int64(v), got, want)
		}
		var back projections.Points
		if err := back.UnmarshalJSON([]byte(want)); err != nil || back != v {
			t.Errorf("parse %s = %d, %v", want, int64(back), err)
		}
	}
}
