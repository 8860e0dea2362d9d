package projections_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// given folds events into a new tournament "t1", failing the test on error.
func given(t *testing.T, evs ...events.Event) *projections.Tournament {
	t.Helper()
	envs, err := events.Seal("t1", 1, time.Unix(1700000000, 0), events.Actor{ID: "o1", Role: "arbiter"}, "c", evs)
	if err != nil {
		t.Fatal(err)
	}
	st, err := projections.Fold("t1", envs, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func created() events.Event {
	rs, _ := events.Preset("rur-2015")
	return events.TournamentCreated{Tournament: "t1", Name: "Raduno", Ruleset: rs}
}

func TestFoldRegistration(t *testing.T) {
	st := given(t, created(),
		events.PlayerRegistered{Player: "p1", Name: "Mario", Club: "Bologna"},
		events.PlayerRegistered{Player: "p2", Name: "Luigi"},
		events.RegistrationRefused{Player: "p2", Reason: "threats at the last Raduno"},
		events.RegistrationRefused{Player: "p3", Name: "Wario", Reason: "banned"},
		events.RegistrationClosed{},
	)
	if got, want := st.Seq, uint64(6); got != want {
		t.Errorf("Seq = %d, want %d", got, want)
	}
	if got := st.ActivePlayers(); len(got) != 1 || got[0] != "p1" {
		t.Errorf("active players = %v, want [p1]", got)
	}
	if p := st.Players["p2"]; p.Status != events.StatusRefused || p.Reason == "" {
		t.Errorf("p2 = %+v, want refused with reason", p)
	}
	if p := st.Players["p3"]; p == nil || p.Name != "Wario" || p.Status != events.StatusRefused {
		t.Errorf("refused applicant p3 = %+v", p)
	}
	if !st.RegistrationClosed {
		t.Error("registration not closed")
	}
	if got := st.SummaryView().Players; got != 1 {
		t.Errorf("summary counts %d players, want 1 (refused are not entries)", got)
	}
	// A state read from its snapshot counts its refused players again,
	// before its next event and after.
	var buf bytes.Buffer
	if err := st.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	st, err := projections.ReadSnapshot(&buf, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.SummaryView().Players; got != 1 {
		t.Errorf("read from its snapshot, the summary counts %d players, want 1", got)
	}
	envs, err := events.Seal("t1", 7, time.Unix(1700000000, 0), events.Actor{ID: "o1", Role: "arbiter"}, "d",
		[]events.Event{events.RegistrationRefused{Player: "p4", Name: "Waluigi", Reason: "banned"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(envs[0], events.RegistrationRefused{Player: "p4", Name: "Waluigi", Reason: "banned"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := st.SummaryView().Players; got != 1 {
		t.Errorf("after another refusal, the summary counts %d players, want 1", got)
	}
}

func TestFoldRefusesWhatCannotFollow(t *testing.T) {
	rs, _ := events.Preset("rtu")
	at := time.Unix(0, 0)
	actor := events.Actor{ID: "a", Role: "admin"}
	for name, tc := range map[string]struct {
		first uint64
		evs   []events.Event
	}{
		"no creation first":       {1, []events.Event{events.PlayerRegistered{Player: "p1", Name: "M"}}},
		"created twice":           {1, []events.Event{created(), events.TournamentCreated{Tournament: "t1", Ruleset: rs}}},
		"gap in seqs":             {2, []events.Event{created()}},
		"creates another":         {1, []events.Event{events.TournamentCreated{Tournament: "t9", Ruleset: rs}}},
		"player registered twice": {1, []events.Event{created(), events.PlayerRegistered{Player: "p1", Name: "M"}, events.PlayerRegistered{Player: "p1", Name: "M"}}},
	} {
		envs, _ := events.Seal("t1", tc.first, at, actor, "c", tc.evs)
		if _, err := projections.Fold("t1", envs, 0); !errors.Is(err, projections.ErrFold) {
			t.Errorf("%s: got %v, want ErrFold", name, err)
		}
	}
}

func TestFoldUpTo(t *testing.T) {
	envs, _ := events.Seal("t1", 1, time.Unix(0, 0), events.Actor{}, "c", []events.Event{created(),
		events.PlayerRegistered{Player: "p1", Name: "A"}, events.PlayerRegistered{Player: "p2", Name: "B"}})
	st, err := projections.Fold("t1", envs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if st.Seq != 2 || len(st.Players) != 1 {
		t.Errorf("Fold up to 2: seq %d, %d players", st.Seq, len(st.Players))
	}
}

func TestCloneIsDeep(t *testing.T) {
	st := given(t, created(), events.PlayerRegistered{Player: "p1", Name: "A"})
	c := st.Clone()
	c.Players["p1"].Status = events.StatusExpelled
	c.Order[0] = "zz"
	c.Ruleset.TableSizes[0] = 5
	if st.Players["p1"].Status != events.StatusActive || st.Order[0] != "p1" || st.Ruleset.TableSizes[0] != 4 {
		t.Error("modifying the clone changed the original")
	}
}
