package commands_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

var in = commands.Input{Now: time.Date(2026, 3, 7, 14, 15, 0, 0, time.UTC), Actor: events.Actor{ID: "o1", Role: events.RoleArbiter}}

// given folds events (a TournamentCreated for "t" is prepended) into a state.
func given(t testing.TB, preset events.PresetID, evs ...events.Event) *projections.Tournament {
	t.Helper()
	rs, _ := events.Preset(preset)
	all := append([]events.Event{events.TournamentCreated{Tournament: "t", Name: "T", Ruleset: rs}}, evs...)
	envs, err := events.Seal("t", 1, in.Now, in.Actor, "c", all)
	if err != nil {
		t.Fatal(err)
	}
	st, err := projections.Fold("t", envs, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func parse(t *testing.T, body string) commands.Command {
	t.Helper()
	c, err := commands.Parse([]byte(body))
	if err != nil {
		t.Fatalf("parse %s: %v", body, err)
	}
	return c
}

// then is what a decision must produce: events of these types, or an error
// that is (errors.Is) want, or a rule error citing rule.
type then struct {
	types []string
	is    error
	rule  string
	field string
}

func check(t *testing.T, name string, evs []events.Event, err error, want then) {
	t.Helper()
	var re *commands.RuleError
	var fe *commands.FieldError
	switch {
	case want.rule != "":
		if !errors.As(err, &re) || re.Rule != want.rule {
			t.Errorf("%s: got %v, want a refusal citing %s", name, err, want.rule)
		}
	case want.field != "":
		if !errors.As(err, &fe) || fe.Field != want.field {
			t.Errorf("%s: got %v, want a field error on %s", name, err, want.field)
		}
	case want.is != nil:
		if !errors.Is(err, want.is) {
			t.Errorf("%s: got %v, want %v", name, err, want.is)
		}
	default:
		if err != nil {
			t.Errorf("%s: refused: %v", name, err)
			return
		}
		var got []string
		for _, e := range evs {
			got = append(got, e.EventType())
		}
		if strings.Join(got, ",") != strings.Join(want.types, ",") {
			t.Errorf("%s: events %v, want %v", name, got, want.types)
		}
	}
}

func TestRegistrationDecisions(t *testing.T) {
	open := given(t, "rur-2015", events.PlayerRegistered{Player: "p1", Name: "Mario"})
	closed := given(t, "rur-2015", events.PlayerRegistered{Player: "p1", Name: "Mario"}, events.RegistrationClosed{})
	refused := given(t, "rur-2015", events.PlayerRegistered{Player: "p1", Name: "Mario"}, events.RegistrationRefused{Player: "p1", Reason: "r"})
	drawn := given(t, "rur-2015", events.PlayerRegistered{Player: "p1", Name: "Mario"})
	drawn.Rounds = append(drawn.Rounds, &projections.Round{Number: 1, Phase: "qualifying"})
	for _, tc := range []struct {
		name  string
		given *projections.Tournament
		when  string
		then  then
	}{
		{"register", open, `{"type":"RegisterPlayer","player":"p2","name":"Luigi"}`, then{types: []string{"PlayerRegistered"}}},
		{"register duplicate id", open, `{"type":"RegisterPlayer","player":"p1","name":"Other"}`, then{is: events.ErrConflict}},
		{"register refused id again", refused, `{"type":"RegisterPlayer","player":"p1","name":"Mario"}`, then{is: events.ErrConflict}},
		{"register a minor without waiver", open, `{"type":"RegisterPlayer","player":"p2","name":"Kid","minor":true}`, then{rule: "rur-2015 art. 1"}},
		{"register a minor with waiver", open, `{"type":"RegisterPlayer","player":"p2","name":"Kid","minor":true,"waiver":"club president"}`, then{types: []string{"PlayerRegistered"}}},
		{"register after closing", closed, `{"type":"RegisterPlayer","player":"p2","name":"Late"}`, then{rule: "rur-2015 art. 11"}},
		{"refuse registered", open, `{"type":"RefuseRegistration","player":"p1","reason":"threats"}`, then{types: []string{"RegistrationRefused"}}},
		{"refuse applicant", open, `{"type":"RefuseRegistration","player":"p9","name":"Wario","reason":"threats"}`, then{types: []string{"RegistrationRefused"}}},
		{"refuse applicant without name", open, `{"type":"RefuseRegistration","player":"p9","reason":"threats"}`, then{field: "name"}},
		{"refuse twice", refused, `{"type":"RefuseRegistration","player":"p1","reason":"again"}`, then{is: events.ErrConflict}},
		{"refuse after the draw", drawn, `{"type":"RefuseRegistration","player":"p1","reason":"late"}`, then{rule: "rur-2015 art. 11"}},
		{"close", open, `{"type":"CloseRegistration"}`, then{types: []string{"RegistrationClosed"}}},
		{"close twice", closed, `{"type":"CloseRegistration"}`, then{is: events.ErrConflict}},
		{"amend before the draw", open, `{"type":"AmendRuleset","params":{"bonus":60}}`, then{types: []string{"RulesetAmended"}}},
		{"amend after the draw", drawn, `{"type":"AmendRuleset","params":{"bonus":60}}`, then{rule: "docs/rules.md#21-pinned-the-ruleset-is-frozen-at-the-first-draw"}},
		{"amend with a bad value", open, `{"type":"AmendRuleset","params":{"tie_chain":"coin"}}`, then{field: "params.tie_chain"}},
	} {
		before, _ := json.Marshal(tc.given)
		evs, err := commands.Decide(tc.given, parse(t, tc.when), in)
		check(t, tc.name, evs, err, tc.then)
		if after, _ := json.Marshal(tc.given); string(after) != string(before) {
			t.Errorf("%s: Decide modified the state", tc.name)
		}
	}
}

func TestCreateTournamentDecisions(t *testing.T) {
	fresh := projections.New("t")
	exists := given(t, "rtu")
	for _, tc := range []struct {
		name  string
		given *projections.Tournament
		when  string
		then  then
	}{
		{"create", fresh, `{"id":"t","name":"T","ruleset":"rtu"}`, then{types: []string{"TournamentCreated"}}},
		{"create existing", exists, `{"id":"t","name":"T","ruleset":"rtu"}`, then{is: events.ErrConflict}},
		{"unknown ruleset", fresh, `{"id":"t","name":"T","ruleset":"risiko-1970"}`, then{rule: "docs/rules.md#2-rulesets"}},
		{"unknown param", fresh, `{"id":"t","name":"T","ruleset":"rtu","params":{"x":1}}`, then{field: "params.x"}},
	} {
		c, err := commands.ParseAs[commands.CreateTournament]([]byte(tc.when))
		if err != nil {
			t.Fatal(err)
		}
		evs, err := commands.Decide(tc.given, c, in)
		check(t, tc.name, evs, err, tc.then)
	}
	// The resolved ruleset, not the preset name, is what the log records.
	c, _ := commands.ParseAs[commands.CreateTournament]([]byte(`{"id":"t","name":"T","ruleset":"campionato-2003","params":{"qualifying_rounds":4}}`))
	evs, _ := commands.Decide(fresh, c, in)
	rs := evs[0].(events.TournamentCreated).Ruleset
	if rs.Scoring != "conv2003" || rs.QualifyingRounds != 4 || rs.LateRefuseAfter != 20 {
		t.Errorf("recorded ruleset %+v", rs)
	}
}

func TestCommandsOnMissingTournament(t *testing.T) {
	_, err := commands.Decide(projections.New("nope"), parse(t, `{"type":"CloseRegistration"}`), in)
	if !errors.Is(err, commands.ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
}

func TestParseNamesTheField(t *testing.T) {
	for body, field := range map[string]string{
		`{"type":"RegisterPlayer","player":"p1","name":"M","rank":"x"}`: "rank",
		`{"type":"RegisterPlayer","player":"p1","name":"M","extra":1}`:  "extra",
		`{"type":"Nope"}`:                      "type",
		`{}`:                                   "type",
		`{"type":"RegisterPlayer","name":"M"}`: "player",
		`{"type":"CreateTournament"}`:          "type",
		`{"type":"RegisterPlayer","player":"p1","name":"` + strings.Repeat("x", 201) + `"}`: "name",
	} {
		_, err := commands.Parse([]byte(body))
		var fe *commands.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("Parse(%.60s): got %v, want a field error on %q", body, err, field)
		}
	}
	for _, body := range []string{``, `{`, `[]`, `"x"`, `{"type":"CloseRegistration"}x`} {
		var fe *commands.FieldError
		if _, err := commands.Parse([]byte(body)); !errors.As(err, &fe) {
			t.Errorf("Parse(%q): got %v, want a field error", body, err)
		}
	}
}

func TestPermitted(t *testing.T) {
	for _, tc := range []struct {
		role, typ string
		want      bool
	}{
		{"admin", "RegisterPlayer", true}, {"arbiter", "RegisterPlayer", true}, {"appeals", "RegisterPlayer", false},
		{"auditor", "RegisterPlayer", false}, {"arbiter", "CreateTournament", false}, {"admin", "CreateTournament", true},
		{"arbiter", "Nope", false},
	} {
		if got := commands.Permitted(tc.role, tc.typ); got != tc.want {
			t.Errorf("Permitted(%s, %s) = %v, want %v", tc.role, tc.typ, got, tc.want)
		}
	}
}
