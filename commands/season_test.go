package commands_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestSeasonFacts: a tournament records its season and type, a
// registration the player's national id; bad values are refused naming
// the field; without them the events are the bytes they always were.
func TestSeasonFacts(t *testing.T) {
	c, err := commands.ParseAs[commands.CreateTournament]([]byte(`{"id":"t","name":"T","ruleset":"rtu","season":"2024","tournament_type":"MASTER"}`))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := commands.Decide(projections.New("t"), c, in)
	if err != nil {
		t.Fatal(err)
	}
	if tc := evs[0].(events.TournamentCreated); tc.Season != "2024" || tc.Type != events.TypeMaster {
		t.Fatalf("recorded %+v", tc)
	}
	st := given(t, "rtu")
	reg, _ := commands.ParseAs[commands.RegisterPlayer]([]byte(`{"player":"p1","name":"Mario Rossi","national_id":"100001"}`))
	evs, err = commands.Decide(st, reg, in)
	if err != nil || evs[0].(events.PlayerRegistered).NationalID != "100001" {
		t.Fatalf("registration: %v %+v", err, evs)
	}
	create := func(b []byte) error { _, err := commands.ParseAs[commands.CreateTournament](b); return err }
	register := func(b []byte) error { _, err := commands.ParseAs[commands.RegisterPlayer](b); return err }
	for _, tc := range []struct {
		parse       func([]byte) error
		body, field string
	}{
		{create, `{"id":"t","name":"T","ruleset":"rtu","tournament_type":"FRIENDLY"}`, "tournament_type"},
		{create, `{"id":"t","name":"T","ruleset":"rtu","season":"Stagione 2024"}`, "season"},
		{register, `{"player":"p1","name":"M","national_id":"IT 1"}`, "national_id"},
	} {
		body, field := tc.body, tc.field
		var fe *commands.FieldError
		if err := tc.parse([]byte(body)); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: got %v, want a field error on %q", body, err, field)
		}
	}
	// An event without the new fields encodes as before they existed.
	rs, _ := events.Preset("rtu")
	for _, ev := range []events.Event{events.TournamentCreated{Tournament: "t", Name: "T", Ruleset: rs}, events.PlayerRegistered{Player: "p1", Name: "M"}} {
		b, _ := json.Marshal(ev)
		if s := string(b); strings.Contains(s, "season") || strings.Contains(s, "tournament_type") || strings.Contains(s, "national_id") {
			t.Errorf("%s encodes the new fields empty: %s", ev.EventType(), s)
		}
	}
	// A tournament folded from events that carry them has them.
	envs, _ := events.Seal("t", 1, in.Now, in.Actor, "c", []events.Event{events.TournamentCreated{Tournament: "t", Name: "T", Ruleset: rs, Season: "2024", Type: events.TypeOpen},
		events.PlayerRegistered{Player: "p1", Name: "M", NationalID: "100001"}})
	folded, err := projections.Fold("t", envs, 0)
	if err != nil || folded.Season != "2024" || folded.Type != events.TypeOpen || folded.Players["p1"].NationalID != "100001" {
		t.Errorf("folded %v: season %q type %q", err, folded.Season, folded.Type)
	}
}
