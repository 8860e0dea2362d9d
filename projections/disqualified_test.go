package projections_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestDisqualificationFollowsTheRecordedRuleset folds the same rur-2015
// game, p02 disqualified after the report, twice: under the ruleset the
// preset records now (disqualified: withdrawn, rur-2015 art. 29: "Il
// giocatore squalificato è equiparato al giocatore ritirato") and from a
// TournamentCreated stored before the parameter existed, which has no
// "disqualified" key. The old log replays as it was published: p02 last
// with 0 and expelled; the new one places him by his table points and
// keeps him in the tournament.
func TestDisqualificationFollowsTheRecordedRuleset(t *testing.T) {
	rs, _ := events.Preset("rur-2015")
	if !rs.DisqualifiedAsWithdrawn() {
		t.Fatalf("rur-2015 preset: disqualified %q, want withdrawn", rs.Disqualified)
	}
	fold := func(created json.RawMessage) *projections.Tournament {
		t.Helper()
		evs := []events.Event{events.TournamentCreated{Tournament: "t1", Name: "Raduno", Ruleset: rs}}
		for _, p := range []string{"a", "b", "c", "d"} {
			evs = append(evs, events.PlayerRegistered{Player: p, Name: p})
		}
		evs = append(evs, events.RegistrationClosed{},
			events.TablesDrawn{Round: 1, Phase: "qualifying", Algorithm: "manual", Version: 1, Tables: []events.DrawnTable{{Table: 1, Players: []string{"a", "b", "c", "d"}}}},
			events.ResultRecorded{Round: 1, Table: 1, ClosedBy: "time", Players: []events.SeatReport{
				{Player: "a", Turn: 1, TablePoints: 60, Status: "finished"}, {Player: "b", Turn: 2, TablePoints: 70, Status: "finished"},
				{Player: "c", Turn: 3, TablePoints: 30, Status: "finished"}, {Player: "d", Turn: 4, TablePoints: 10, Status: "finished"}}},
			events.SanctionImposed{Sanction: "s1", Player: "b", Round: 1, Table: 1, Kind: "disqualification", Article: "rur-2015 art. 29"})
		envs, err := events.Seal("t1", 1, time.Unix(0, 0), events.Actor{ID: "o1", Role: events.RoleArbiter}, "k", evs)
		if err != nil {
			t.Fatal(err)
		}
		if created != nil {
			envs[0].Data = created
		}
		for i, env := range envs {
			if _, err := events.Decode(env); err != nil {
				t.Fatalf("event %d does not decode: %v", i+1, err)
			}
		}
		st, err := projections.Fold("t1", envs, 0)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	place := func(st *projections.Tournament, player string) (int, projections.Points) {
		for _, r := range st.Round(1).Table(1).Results {
			if r.Player == player {
				return r.Place, projections.Points(r.Score)
			}
		}
		t.Fatalf("%s has no result", player)
		return 0, 0
	}

	now := fold(nil)
	if pl, sc := place(now, "b"); pl != 1 || sc != 12000 || now.Players["b"].Status != events.StatusActive {
		t.Errorf("under the preset: b place %d score %s status %s, want 1st with 70 + 50 and active", pl, sc, now.Players["b"].Status)
	}

	// The TournamentCreated an older referto wrote: no disqualified, no rulings.
	var m map[string]any
	b, _ := json.Marshal(events.TournamentCreated{Tournament: "t1", Name: "Raduno", Ruleset: rs})
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	old := m["ruleset"].(map[string]any)
	delete(old, "disqualified")
	delete(old, "rulings")
	legacy, _ := json.Marshal(m)
	then := fold(legacy)
	if then.Ruleset.Disqualified != "" || then.Ruleset.ArbitersRule() {
		t.Fatalf("the old log's ruleset reads disqualified %q, arbiters rule %v", then.Ruleset.Disqualified, then.Ruleset.ArbitersRule())
	}
	if pl, sc := place(then, "b"); pl != 4 || sc != 0 || then.Players["b"].Status != events.StatusExpelled {
		t.Errorf("old log: b place %d score %s status %s, want last with 0 and expelled, as published then", pl, sc, then.Players["b"].Status)
	}
	if pl, sc := place(then, "a"); pl != 1 || sc != 11000 {
		t.Errorf("old log: a place %d score %s, want 1st with 60 + 50", pl, sc)
	}
}
