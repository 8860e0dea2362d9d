package commands_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// fuzzState is a rur-2015 tournament with round 1 drawn: table 1 seats
// p01–p04, table 2 p05–p08, and a turn order set at table 2.
func fuzzState(t testing.TB) *projections.Tournament {
	var evs []events.Event
	for _, p := range []string{"p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08"} {
		evs = append(evs, events.PlayerRegistered{Player: p, Name: p})
	}
	evs = append(evs, events.RegistrationClosed{},
		events.TablesDrawn{Round: 1, Phase: "qualifying", Algorithm: "manual", Version: 1, Tables: []events.DrawnTable{
			{Table: 1, Players: []string{"p01", "p02", "p03", "p04"}}, {Table: 2, Players: []string{"p05", "p06", "p07", "p08"}}}},
		events.TurnOrderSet{Round: 1, Table: 2, Order: []string{"p08", "p07", "p06", "p05"}})
	return given(t, "rur-2015", evs...)
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

// everyLeaf reports whether err is a non-empty errors.Join tree (or a
// single error) whose every leaf satisfies ok.
func everyLeaf(err error, ok func(error) bool) bool {
	if j, isJoin := err.(interface{ Unwrap() []error }); isJoin {
		for _, x := range j.Unwrap() {
			if !everyLeaf(x, ok) {
				return false
			}
		}
		return len(j.Unwrap()) > 0
	}
	return ok(err)
}

// checkRefusal asserts that err is one of the classified refusals.
func checkRefusal(t *testing.T, err error) {
	t.Helper()
	classified := func(e error) bool {
		var fe *commands.FieldError
		var re *commands.RuleError
		switch {
		case errors.As(e, &fe):
			return fe.Msg != ""
		case errors.As(e, &re):
			return re.Rule != "" && re.Msg != ""
		case errors.Is(e, events.ErrConflict), errors.Is(e, commands.ErrNotFound):
			return true
		}
		return false
	}
	if !everyLeaf(err, classified) {
		t.Fatalf("unclassified refusal %T: %v", err, err)
	}
}

// parseSeeds are one payload of every command type: the examples of
// api/openapi.yaml's command payloads, and the other types as the web UI sends them.
var parseSeeds = []string{
	`{"type":"RegisterPlayer","player":"p001","name":"Mario Rossi","club":"Bologna – Asinelli","region":"Emilia-Romagna","rank":12}`,
	`{"type":"CloseRegistration"}`,
	`{"type":"CheckIn","round":1,"player":"p001","minutes_late":0}`,
	`{"type":"DrawTables","round":1,"seed":"optional; generated and recorded when absent"}`,
	`{"type":"DrawTables","round":2,"tables":[{"table":1,"players":["p007","p002","p019","p044"]}]}`,
	`{"type":"RecordResult","round":1,"table":3,"closed_by":"closing_roll","winner":"p007","risiko":false,
	 "players":[
	  {"player":"p007","turn":1,"table_points":62,"off_objective_points":12,"objective_territories":9,"territories":14,"armies":40,"cards":2,"status":"finished"},
	  {"player":"p002","turn":2,"table_points":55,"off_objective_points":20,"objective_territories":8,"territories":12,"armies":35,"cards":1,"status":"finished"},
	  {"player":"p019","turn":3,"table_points":40,"off_objective_points":9,"objective_territories":6,"territories":11,"armies":30,"cards":3,"status":"withdrawn"},
	  {"player":"p044","turn":4,"table_points":0,"status":"eliminated","eliminated_order":1}]}`,
	`{"type":"Withdraw","player":"p010","scope":"tournament","reason":"force_majeure"}`,
	`{"type":"Renounce","player":"p003","phase":"semifinal"}`,
	`{"type":"ImposeSanction","player":"p010","round":2,"table":5,"kind":"classification_points","amount":20,"article":"campionato-2003 §penalità"}`,
	`{"type":"RecordTieBreakRoll","players":["p011","p023"],"rolls":[5,2]}`,
	`{"type":"FileContestation","against":42,"claim":"wrong table points for p019"}`,
	`{"type":"RuleContestation","contestation":"c1","upheld":true,"ruling":"amended","corrections":[{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p01","turn":1,"table_points":10,"status":"finished"}]}]}`,
	`{"type":"PublishClassification","final":true}`,
	`{"type":"AmendRuleset","params":{"bonus":40,"table_sizes":[4,5]},"reason":"deciso in riunione"}`,
	`{"type":"RefuseRegistration","player":"p099","name":"Niccolò D'Alì","reason":"iscrizione fuori termine"}`,
	`{"type":"DesignateReserve","player":"r01","name":"Riserva Uno","club":"Faenza"}`,
	`{"type":"SubstituteReserve","round":1,"absent":"p03","reserve":"r01"}`,
	`{"type":"SetTurnOrder","round":1,"table":1,"order":["p04","p03","p02","p01"]}`,
	`{"type":"Repechage","phase":"semifinal","replaces":"p003"}`,
	`{"type":"RevokeSanction","sanction":"s1","ruling":"sanzione revocata dal comitato"}`,
	`{"type":"AnnulGame","round":1,"table":2,"culprit":"p05","expel":true,"reason":"tavolo rovesciato"}`,
	`{"type":"CloseTournament","reason":"fine"}`,
	`{"type":"FileContestation","against":3,"claim":"ritardo non registrato","effect":"standings","by":"p02"}`,
	`{"type":"Withdraw","player":"p06","scope":"game","reason":"voluntary","round":1,"table":2,"detail":"malore"}`,
	`{"type":"CheckIn","round":2,"player":"p01","absent":true}`,
	// CreateTournament and AppointOfficial have routes of their own.
	`{"id":"raduno-bo-2026","name":"Raduno di Bologna","ruleset":"rur-2015","params":{"bonus":40,"objectives":{"name":"x","objectives":[]}}}`,
	`{"name":"Arbitro capo","role":"arbiter"}`,
	// Hostile shapes.
	`{"type":"RegisterPlayer","player":"p1","name":"A\u202eB\u0000"}`,
	`{"type":"RegisterPlayer","type":"CloseRegistration","player":"p1","name":"A","name":"B"}`,
	`{"type":"CheckIn","round":1e309,"player":"p1","minutes_late":9223372036854775808}`,
	`{"type":"RecordResult","round":-1,"table":-1,"players":[{},{},{}]}`,
	`{"type":"CloseRegistration"} trailing`,
	`[[[[[[[[[[]]]]]]]]]]`,
	`{"type":"FileContestation","against":-1,"claim":1}`,
	`{"type":"RegisterPlayer","player":"p1","name":"\ud840\udc0b \ud800x \udc00","club":"\\ud800"}`,
	``,
}

// FuzzParse feeds arbitrary payloads to the parser of every command type
// (Parse, and ParseAs for the two types that have routes of their own),
// then decides what it accepts against a tournament taking registrations
// and one with round 1 drawn: no panic; a parse error is field errors
// only (HTTP 400); an accepted payload re-encodes to one that parses the
// same; a refusal by Decide is classified (4xx); accepted events fold.
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	open := fuzzOpenState(f)
	drawn := fuzzState(f)
	in := commands.Input{Now: time.Unix(100, 0), Actor: events.Actor{ID: "o1", Role: "arbiter"}, Seed: "fuzz"}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := commands.Parse(body)
		checkParsed(t, body, c, err)
		if err == nil {
			for _, st := range []*projections.Tournament{open, drawn} {
				decideAndFold(t, body, st.Clone(), c, in)
			}
		}
		if c, err := commands.ParseAs[commands.CreateTournament](body); checkParsed(t, body, asCommand(c, err), err) {
			decideAndFold(t, body, projections.New(c.ID), c, in)
		}
		if c, err := commands.ParseAs[commands.AppointOfficial](body); checkParsed(t, body, asCommand(c, err), err) {
			c.TokenSHA256 = strings.Repeat("ab", 32)
			decideAndFold(t, body, drawn.Clone(), c, in)
		}
	})
}

// fuzzOpenState is a rtu tournament taking registrations, with p01–p03 and
// a reserve r01.
func fuzzOpenState(t testing.TB) *projections.Tournament {
	return given(t, "rtu", events.PlayerRegistered{Player: "p01", Name: "Mario Rossi"}, events.PlayerRegistered{Player: "p02", Name: "Niccolò D'Alì"},
		events.PlayerRegistered{Player: "p03", Name: "p03"}, events.ReserveDesignated{Player: "r01", Name: "Riserva"})
}

// checkParsed asserts what a parse returned: field errors only, or a
// command that re-encodes to a payload parsing to the same command. It
// reports whether the payload was accepted.
func checkParsed(t *testing.T, body []byte, c commands.Command, err error) bool {
	t.Helper()
	if err != nil {
		if c != nil {
			t.Fatalf("Parse returned a command and an error: %v", err)
		}
		fieldErr := func(e error) bool {
			fe, ok := e.(*commands.FieldError)
			return ok && fe.Msg != ""
		}
		if !everyLeaf(err, fieldErr) {
			t.Fatalf("a parse error that is not field errors (HTTP 400) %T: %v", err, err)
		}
		return false
	}
	if !utf8.Valid(body) {
		t.Fatalf("accepted invalid UTF-8 (decoded as U+FFFD): %q", body)
	}
	if !jsontext.Value(body).IsValid() {
		t.Fatalf("accepted what RFC 7493 refuses (a lone surrogate escape, decoded as U+FFFD?): %q", body)
	}
	again, err := commands.Encode(c)
	if err != nil {
		t.Fatalf("accepted %s does not re-encode: %v", c.CommandType(), err)
	}
	c2, err := reparse(c, again)
	if err != nil {
		t.Fatalf("accepted %q, but its re-encoding %s is refused: %v", body, again, err)
	}
	if third, _ := commands.Encode(c2); string(third) != string(again) {
		t.Fatalf("accepted %q re-encodes as %s, then as %s", body, again, third)
	}
	return true
}

// reparse parses an encoded command as its own type: through its own
// route's ParseAs, or Parse.
func reparse(c commands.Command, body []byte) (commands.Command, error) {
	switch c.(type) {
	case *commands.CreateTournament:
		return orNil(commands.ParseAs[commands.CreateTournament](body))
	case *commands.AppointOfficial:
		return orNil(commands.ParseAs[commands.AppointOfficial](body))
	case *commands.IssuePlayerTokens:
		return orNil(commands.ParseAs[commands.IssuePlayerTokens](body))
	}
	return commands.Parse(body)
}

// orNil is what ParseAs returned, as a Command and its error.
func orNil[P commands.Command](c P, err error) (commands.Command, error) {
	return asCommand(c, err), err
}

// asCommand is what ParseAs returned as a Command: nil, not a nil pointer,
// when it refused the payload.
func asCommand[P commands.Command](c P, err error) commands.Command {
	if err != nil {
		return nil
	}
	return c
}

// decideAndFold decides c against st: a refusal is classified, accepted
// events fold.
func decideAndFold(t *testing.T, body []byte, st *projections.Tournament, c commands.Command, in commands.Input) {
	t.Helper()
	evs, err := commands.Decide(st, c, in)
	if err != nil {
		checkRefusal(t, err)
		return
	}
	envs, err := events.Seal(st.ID, st.Seq+1, in.Now, in.Actor, "f", evs)
	if err != nil {
		t.Fatalf("seal: %v", err)
	}
	for i, env := range envs {
		if err := st.Apply(env, evs[i], nil); err != nil {
			t.Fatalf("Decide accepted %s but the fold refuses its %s: %v", body, env.Type, err)
		}
	}
}
