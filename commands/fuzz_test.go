package commands_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/sim"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// fuzzState is a rur-2015 tournament with round 1 drawn: table 1 seats
// p01–p04, table 2 p05–p08, and a turn order set at table 2.
func fuzzState(t testing.TB) *projections.Tournament {
	rs, _ := events.Preset("rur-2015")
	evs := []events.Event{events.TournamentCreated{Tournament: "t", Name: "T", Ruleset: rs}}
	for _, p := range []string{"p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08"} {
		evs = append(evs, events.PlayerRegistered{Player: p, Name: p})
	}
	evs = append(evs, events.RegistrationClosed{},
		events.TablesDrawn{Round: 1, Phase: "qualifying", Algorithm: "manual", Version: 1, Tables: []events.DrawnTable{
			{Table: 1, Players: []string{"p01", "p02", "p03", "p04"}}, {Table: 2, Players: []string{"p05", "p06", "p07", "p08"}}}},
		events.TurnOrderSet{Round: 1, Table: 2, Order: []string{"p08", "p07", "p06", "p05"}})
	envs, err := events.Seal("t", 1, time.Unix(0, 0), events.Actor{ID: "o1", Role: "arbiter"}, "k", evs)
	if err != nil {
		t.Fatal(err)
	}
	st, err := projections.Fold("t", envs, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// FuzzRecordResult feeds arbitrary payloads through Parse and Decide: no
// panic; every refusal is a field error naming its field, a rule error
// citing its rule, a conflict or a not-found; every accepted report folds.
func FuzzRecordResult(f *testing.F) {
	sm, err := sim.New(sim.Options{BoardChecked: 0.5})
	if err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 8 {
		rep := sm.Report(rng, 1, 1+i%2, []string{"p01", "p02", "p03", "p04"})
		if i%2 == 1 {
			rep = sm.Report(rng, 1, 2, []string{"p05", "p06", "p07", "p08"})
		}
		b, _ := json.Marshal(struct {
			Type string `json:"type"`
			commands.RecordResult
		}{"RecordResult", rep})
		f.Add(b)
	}
	f.Add([]byte(`{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[]}`))
	f.Add([]byte(`{"type":"RecordResult","round":1,"table":1,"closed_by":"objective","risiko":true,"winner":"p01","players":[{"player":"p01","turn":1,"objective":1,"territories_held":["alaska","alaska"],"status":"finished"}]}`))
	base := fuzzState(f)
	in := commands.Input{Now: time.Unix(100, 0), Actor: events.Actor{ID: "o1", Role: "arbiter"}, Seed: "fuzz"}
	f.Fuzz(func(t *testing.T, body []byte) {
		st := base.Clone()
		c, err := commands.Parse(body)
		if err == nil {
			var evs []events.Event
			evs, err = commands.Decide(st, c, in)
			if err == nil {
				envs, serr := events.Seal("t", st.Seq+1, in.Now, in.Actor, "f", evs)
				if serr != nil {
					t.Fatalf("seal: %v", serr)
				}
				for i, env := range envs {
					if ferr := st.Apply(env, evs[i], nil); ferr != nil {
						t.Fatalf("Decide accepted %s but the fold refuses it: %v", body, ferr)
					}
				}
				return
			}
		}
		checkRefusal(t, err)
	})
}

// checkRefusal asserts that err is one of the classified refusals.
func checkRefusal(t *testing.T, err error) {
	t.Helper()
	var walk func(error) bool
	walk = func(e error) bool {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				if !walk(x) {
					return false
				}
			}
			return len(j.Unwrap()) > 0
		}
		var fe *commands.FieldError
		var re *commands.RuleError
		switch {
		case errors.As(e, &fe):
			return fe.Msg != "" && (fe.Field != "" || fe.Msg != "")
		case errors.As(e, &re):
			return re.Rule != "" && re.Msg != ""
		case errors.Is(e, commands.ErrConflict), errors.Is(e, commands.ErrNotFound):
			return true
		}
		return false
	}
	if !walk(err) {
		t.Fatalf("unclassified refusal %T: %v", err, err)
	}
}
