package events_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"p001", true}, {"raduno-bo-2026", true}, {"a", true}, {strings.Repeat("a", 64), true},
		{"", false}, {"-a", false}, {"A1", false}, {"x.>", false}, {"*", false}, {">", false},
		{"a b", false}, {"a_b", false}, {strings.Repeat("a", 65), false}, {"è", false}, {"a.b", false},
	} {
		if got := events.ValidID(tc.id); got != tc.want {
			t.Errorf("ValidID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// allEvents holds one value of every event type the codec knows.
func allEvents(t *testing.T) []events.Event {
	t.Helper()
	rs, ok := events.Preset("rtu")
	if !ok {
		t.Fatal("rtu preset missing")
	}
	return []events.Event{
		events.TournamentCreated{Tournament: "t1", Name: "Torneo", Ruleset: rs},
		events.RulesetAmended{Ruleset: rs, Reason: "r"},
		events.OfficialAppointed{Official: "o1", Name: "A", Role: events.RoleArbiter, TokenSHA256: strings.Repeat("ab", 32)},
		events.PlayerRegistered{Player: "p1", Name: "Mario", Club: "C", Region: "R", Rank: 3, Minor: true, Waiver: "w"},
		events.RegistrationRefused{Player: "p2", Name: "X", Reason: "r"},
		events.RegistrationClosed{},
		events.ReserveDesignated{Player: "r1", Name: "Riserva"},
		events.PlayerCheckedIn{Round: 1, Player: "p1", MinutesLate: 25, Admitted: false, Rule: "campionato-2003 §ritardi"},
		events.ReserveSubstituted{Round: 1, Table: 2, Absent: "p1", Reserve: "r1"},
		events.TablesDrawn{Round: 1, Phase: "qualifying", Algorithm: "rur-game1", Version: 1, Seed: "s",
			Inputs: events.DrawInputs{Entrants: []events.DrawEntrant{{Player: "p1", Club: "c"}}, Sizes: []int{4}},
			Tables: []events.DrawnTable{{Table: 1, Players: []string{"p1", "p2", "p3", "p4"}}},
			Unmet:  []events.UnmetConstraint{{Constraint: "same_club", Table: 1, Players: []string{"p1", "p2"}, Detail: "d"}}},
		events.TurnOrderSet{Round: 1, Table: 1, Order: []string{"p2", "p1", "p3", "p4"}},
		events.ResultRecorded{Round: 1, Table: 1, ClosedBy: "closing_roll", Winner: "p1",
			Players: []events.SeatReport{{Player: "p1", Turn: 1, TablePoints: 62, Status: "finished", TerritoriesHeld: []string{"alaska"}}}},
		events.TieBreakRolled{Players: []string{"p1", "p2"}, Rolls: []int{5, 2}},
		events.SanctionImposed{Sanction: "s1", Player: "p1", Round: 1, Kind: "card_loss", Article: "a", Automatic: true},
		events.Renounced{Player: "p1", Phase: "semifinal", Effect: "repechage"},
		events.Repechaged{Phase: "semifinal", Replaces: "p1", Player: "p2", Rule: "rur-2015 art. 8",
			Candidates: []events.RepechageCandidate{{Player: "p3", From: "2nd", Skipped: "renounced"}, {Player: "p2", From: "3rd"}}},
		events.PlayerWithdrew{Player: "p1", Scope: "tournament", Reason: "force_majeure"},
		events.SanctionRevoked{Sanction: "s1", Ruling: "r"},
		events.GameAnnulled{Round: 1, Table: 2, Culprit: "p1", Reason: "board overturned"},
		events.ClassificationPublished{Final: true, Rows: []events.ClassificationRow{{Rank: 1, Player: "p1", Phase: "final", Total: 100}}},
		events.TournamentClosed{},
		events.ContestationFiled{Contestation: "c1", Against: 12, Claim: "wrong table points", Admissible: true, Rule: "docs/rules.md#13-contestation"},
		events.ContestationRuled{Contestation: "c1", Admissible: true, Upheld: true, Ruling: "amended", Corrections: 1},
		events.ResultAmended{ResultRecorded: events.ResultRecorded{Round: 1, Table: 1, ClosedBy: "time",
			Players: []events.SeatReport{{Player: "p1", Turn: 1, TablePoints: 10, Status: "finished"}}}, Contestation: "c1"},
	}
}

func TestCodecRoundTrip(t *testing.T) {
	evs := allEvents(t)
	envs, err := events.Seal("t1", 1, time.Date(2026, 3, 1, 14, 15, 0, 0, time.FixedZone("CET", 3600)), events.Actor{ID: "o1", Role: "arbiter"}, "cmd-1", evs)
	if err != nil {
		t.Fatal(err)
	}
	body, err := events.EncodeCommit(envs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := events.DecodeCommit(body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(c.Envelopes), len(evs); got != want {
		t.Fatalf("decoded %d envelopes, want %d", got, want)
	}
	for i, env := range c.Envelopes {
		if env.At.Location() != time.UTC {
			t.Errorf("event %d: time not UTC: %v", i, env.At)
		}
		if env.Seq != uint64(i+1) || env.ID != events.EventID("t1", uint64(i+1)) {
			t.Errorf("event %d: seq %d id %s", i, env.Seq, env.ID)
		}
		ev, err := events.Decode(env)
		if err != nil {
			t.Fatalf("decode %s: %v", env.Type, err)
		}
		got, _ := json.Marshal(ev)
		want, _ := json.Marshal(evs[i])
		if string(got) != string(want) {
			t.Errorf("%s: round trip got %s, want %s", env.Type, got, want)
		}
		// Re-encoding the decoded envelope reproduces the stored line: the
		// line is the Merkle leaf, so it must be canonical.
		line, _ := json.Marshal(env)
		if string(line) != string(c.Lines[i]) {
			t.Errorf("%s: re-encoded line differs:\n got %s\nwant %s", env.Type, line, c.Lines[i])
		}
	}
}

func TestDecodeUnknownTypeOrVersionIsAnError(t *testing.T) {
	env := events.Envelope{ID: "t1/1", Tournament: "t1", Seq: 1, Type: "PlayerRegistered", V: 99, Data: json.RawMessage(`{}`)}
	if _, err := events.Decode(env); !errors.Is(err, events.ErrUnknownEvent) {
		t.Errorf("unknown version: got %v, want ErrUnknownEvent", err)
	}
	env.Type, env.V = "PlayerTeleported", 1
	if _, err := events.Decode(env); !errors.Is(err, events.ErrUnknownEvent) {
		t.Errorf("unknown type: got %v, want ErrUnknownEvent", err)
	}
}

func TestDecodeIsStrict(t *testing.T) {
	for name, data := range map[string]string{
		"unknown field": `{"player":"p1","name":"M","teleported":true}`,
		"wrong type":    `{"player":1,"name":"M"}`,
		"trailing":      `{"player":"p1","name":"M"} {}`,
		// Two readings of one line: which name counts is not guessed.
		"duplicate member": `{"player":"p1","name":"M","name":"N"}`,
		// Names match exactly, as the encoder writes them.
		"case-variant name": `{"Player":"p1","name":"M"}`,
	} {
		env := events.Envelope{ID: "t1/1", Tournament: "t1", Seq: 1, Type: events.TypePlayerRegistered, V: 1, Data: json.RawMessage(data)}
		if _, err := events.Decode(env); !errors.Is(err, events.ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
}

// The projections never read what a draw records to be re-run: for them a
// draw's inputs are read as JSON and left empty; everything else about the
// event is decoded, and refused, as Decode does.
func TestDecodeForFoldLeavesTheDrawInputs(t *testing.T) {
	drawn := events.TablesDrawn{Round: 2, Phase: "qualifying", Algorithm: "random", Version: 1, Seed: "s",
		Inputs: events.DrawInputs{Entrants: []events.DrawEntrant{{Player: "p1", Club: "c"}, {Player: "p2"}}, Sizes: []int{4},
			Past: []events.DrawGame{{Round: 1, Table: 1, Players: []string{"p1", "p2"}, Places: []int{1, 2}, Scores: []int64{100, 50}}}},
		Tables:         []events.DrawnTable{{Table: 1, Players: []string{"p2", "p1"}}},
		ReservesSeated: []string{"r1"}}
	data, err := json.Marshal(drawn)
	if err != nil {
		t.Fatal(err)
	}
	env := events.Envelope{ID: "t1/9", Tournament: "t1", Seq: 9, Type: events.TypeTablesDrawn, V: 1, Data: data}
	full, err := events.Decode(env)
	if err != nil {
		t.Fatal(err)
	}
	fold, err := events.DecodeForFold(env)
	if err != nil {
		t.Fatal(err)
	}
	want := full.(events.TablesDrawn)
	if len(want.Inputs.Past) != 1 || len(want.Inputs.Entrants) != 2 {
		t.Fatalf("Decode lost the inputs: %+v", want.Inputs)
	}
	want.Inputs = events.DrawInputs{}
	if !reflect.DeepEqual(fold, want) {
		t.Fatalf("DecodeForFold: %#v\nwant %#v", fold, want)
	}
	// Other events decode exactly as Decode decodes them.
	reg := events.Envelope{ID: "t1/1", Tournament: "t1", Seq: 1, Type: events.TypePlayerRegistered, V: 1, Data: json.RawMessage(`{"player":"p1","name":"M"}`)}
	a, errA := events.Decode(reg)
	b, errB := events.DecodeForFold(reg)
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("PlayerRegistered: Decode %#v %v, DecodeForFold %#v %v", a, errA, b, errB)
	}

	withInputs := func(inputs string) events.Envelope {
		e := env
		e.Data = json.RawMessage(`{"round":2,"phase":"qualifying","algorithm":"random","version":1,"seed":"s","inputs":` + inputs + `,"tables":[{"table":1,"players":["p2","p1"]}]}`)
		return e
	}
	// Inputs of the wrong shape are the business of whoever re-runs the draw.
	if _, err := events.Decode(withInputs(`{"entrants":5}`)); !errors.Is(err, events.ErrCorrupt) {
		t.Errorf("Decode of inputs of the wrong shape: %v, want ErrCorrupt", err)
	}
	if _, err := events.DecodeForFold(withInputs(`{"entrants":5}`)); err != nil {
		t.Errorf("DecodeForFold of inputs of the wrong shape: %v", err)
	}
	// Anything that is not JSON, and every other field, is refused as ever.
	for name, e := range map[string]events.Envelope{
		"inputs not JSON":   withInputs(`{"entrants":[}`),
		"no inputs value":   withInputs(``),
		"unknown member":    {ID: "t1/9", Tournament: "t1", Seq: 9, Type: events.TypeTablesDrawn, V: 1, Data: json.RawMessage(`{"round":2,"inputs":{},"teleported":true}`)},
		"wrong type":        {ID: "t1/9", Tournament: "t1", Seq: 9, Type: events.TypeTablesDrawn, V: 1, Data: json.RawMessage(`{"round":"2","inputs":{}}`)},
		"duplicate inputs":  {ID: "t1/9", Tournament: "t1", Seq: 9, Type: events.TypeTablesDrawn, V: 1, Data: json.RawMessage(`{"round":2,"inputs":{},"inputs":{}}`)},
		"duplicate in them": withInputs(`{"sizes":[4],"sizes":[5]}`),
	} {
		if _, err := events.DecodeForFold(e); !errors.Is(err, events.ErrCorrupt) {
			t.Errorf("%s: DecodeForFold: %v, want ErrCorrupt", name, err)
		}
	}
}

func TestDecodeCommitRejectsCorruption(t *testing.T) {
	envs, _ := events.Seal("t1", 5, time.Unix(0, 0), events.Actor{ID: "a", Role: "admin"}, "k", allEvents(t)[:3])
	good, _ := events.EncodeCommit(envs)
	lines := strings.SplitAfter(string(good), "\n")
	for name, body := range map[string]string{
		"empty":              "",
		"no final newline":   strings.TrimSuffix(string(good), "\n"),
		"gap in seqs":        lines[0] + lines[2],
		"reordered":          lines[1] + lines[0] + lines[2],
		"other tournament":   strings.Replace(string(good), `"tournament":"t1","seq":6`, `"tournament":"t2","seq":6`, 1),
		"id does not match":  strings.Replace(string(good), `"id":"t1/5"`, `"id":"t1/9"`, 1),
		"unknown field":      strings.Replace(string(good), `"v":1,`, `"v":1,"x":0,`, 1),
		"not json":           "garbage\n",
		"bad tournament id":  strings.ReplaceAll(string(good), `"t1`, `"T.>`),
		"two commands mixed": lines[0] + strings.Replace(lines[1], `"command_id":"k"`, `"command_id":"other"`, 1),
	} {
		if _, err := events.DecodeCommit([]byte(body)); !errors.Is(err, events.ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
}

// TestChainLinksEveryLine: each event names the leaf hash of the one before
// it, across commits, and a commit whose lines do not link is corrupt.
func TestChainLinksEveryLine(t *testing.T) {
	envs, _ := events.Seal("t1", 5, time.Unix(0, 0), events.Actor{ID: "a", Role: "admin"}, "k", allEvents(t)[:3])
	before := checkpoint.LeafHash([]byte("line 4"))
	if err := events.Chain(envs, before); err != nil {
		t.Fatal(err)
	}
	body, _ := events.EncodeCommit(envs)
	c, err := events.DecodeCommit(body)
	if err != nil {
		t.Fatal(err)
	}
	if envs[0].Prev != events.LinkTo(before) || envs[0].Prev != base64.StdEncoding.EncodeToString(before) {
		t.Errorf("first link %q", envs[0].Prev)
	}
	for i := 1; i < len(envs); i++ {
		if envs[i].Prev != events.Link(c.Lines[i-1]) {
			t.Errorf("event %d is not linked to the line before it", i)
		}
	}
	if events.LinkTo(nil) != "" {
		t.Error("the first event of a log links to something")
	}
	lines := strings.SplitAfter(string(body), "\n")
	for name, b := range map[string]string{
		"a changed byte in a line":      strings.Replace(lines[0], `"seq":5,`, `"seq":5, `, 1) + lines[1] + lines[2],
		"a changed link":                lines[0] + strings.Replace(lines[1], `"prev":"`, `"prev":"A`, 1) + lines[2],
		"an unlinked line among linked": lines[0] + regexp.MustCompile(`"prev":"[^"]*",`).ReplaceAllString(lines[1], "") + lines[2],
	} {
		if _, err := events.DecodeCommit([]byte(b)); !errors.Is(err, events.ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
}

// TestChainCommitIsChainThenEncode: the body ChainCommit encodes once is
// the body Chain then EncodeCommit make, links included, for a commit of
// one event and of several, first in its log or not.
func TestChainCommitIsChainThenEncode(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		last []byte
	}{{"one event, first of the log", 1, nil}, {"one event", 1, checkpoint.LeafHash([]byte("line 4"))}, {"three events", 3, checkpoint.LeafHash([]byte("line 4"))}} {
		seal := func() []events.Envelope {
			envs, err := events.Seal("t1", 5, time.Unix(0, 0), events.Actor{ID: "a", Role: "admin"}, "k", allEvents(t)[:tc.n])
			if err != nil {
				t.Fatal(err)
			}
			return envs
		}
		want := seal()
		if err := events.Chain(want, tc.last); err != nil {
			t.Fatal(err)
		}
		wantBody, err := events.EncodeCommit(want)
		if err != nil {
			t.Fatal(err)
		}
		got := seal()
		gotBody, err := events.ChainCommit(got, tc.last)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotBody, wantBody) {
			t.Errorf("%s: ChainCommit body\n%s\nwant\n%s", tc.name, gotBody, wantBody)
		}
		for i := range got {
			if got[i].Prev != want[i].Prev {
				t.Errorf("%s: event %d links to %q, want %q", tc.name, i, got[i].Prev, want[i].Prev)
			}
		}
	}
}

func TestPresetsResolveAndValidate(t *testing.T) {
	for _, id := range events.Presets() {
		rs, err := events.Resolve(id, nil)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if rs.Preset != id {
			t.Errorf("%s: preset recorded as %q", id, rs.Preset)
		}
	}
	// docs/rules.md#2-rulesets, column by column.
	rur, _ := events.Resolve("rur-2015", nil)
	if rur.Scoring != "tp_bonus" || rur.Bonus != 50 || len(rur.TableSizes) != 1 || rur.TableSizes[0] != 4 || rur.QualifyingRounds != 2 || rur.Knockout != "rur" {
		t.Errorf("rur-2015 = %+v", rur)
	}
	c03, _ := events.Resolve("campionato-2003", nil)
	if c03.Scoring != "conv2003" || c03.QualifyingRounds != 3 || c03.SmallTableMax != 11 || c03.LatePenaltyAfter != 10 || c03.LateRefuseAfter != 20 || c03.WithdrawalMalus != 150 {
		t.Errorf("campionato-2003 = %+v", c03)
	}
	cirki, _ := events.Resolve("cirki-2001", nil)
	if cirki.Scoring != "cirki" || cirki.Tiebreak != "cirki" {
		t.Errorf("cirki-2001 = %+v", cirki)
	}
	rtu, _ := events.Resolve("rtu", nil)
	if rtu.TieAtTop != "split_bonus" {
		t.Errorf("rtu = %+v", rtu)
	}
	// docs/rules.md#10-sanctions: the presets of the rur sanction regime (rur-2015,
	// and rtu, whose regime is rur) equate the disqualified player to a withdrawn one
	// (rur-2015 art. 29); §13: the arbiters rule under every preset.
	for _, id := range events.Presets() {
		rs, _ := events.Resolve(id, nil)
		if want := rs.Sanctions == "rur"; rs.DisqualifiedAsWithdrawn() != want || rs.Disqualified == "" {
			t.Errorf("%s: disqualified %q under sanctions %s, want withdrawn exactly under the rur regime, and a value recorded", id, rs.Disqualified, rs.Sanctions)
		}
		if id == "rtu" && !rs.DisqualifiedAsWithdrawn() {
			t.Errorf("rtu: disqualified %q, want withdrawn (its regime is rur)", rs.Disqualified)
		}
		if !rs.ArbitersRule() {
			t.Errorf("%s: rulings %q, want arbiters", id, rs.Rulings)
		}
	}
}

// TestParametersAnOldLogLacks: a ruleset recorded before disqualified and
// rulings existed still validates (and so can be amended) and reads as the
// rules it was played under; a tournament choosing them must say a value.
func TestParametersAnOldLogLacks(t *testing.T) {
	old, _ := events.Resolve("rur-2015", nil)
	old.Disqualified, old.Rulings = "", ""
	if err := old.Validate(); err != nil {
		t.Errorf("an old log's ruleset: %v", err)
	}
	if old.DisqualifiedAsWithdrawn() || old.ArbitersRule() {
		t.Error("an old log's ruleset reads as disqualified: withdrawn or rulings: arbiters")
	}
	amended, err := old.Amend(json.RawMessage(`{"bonus":40}`))
	if err != nil || amended.Disqualified != "" || amended.Rulings != "" {
		t.Errorf("amending an old ruleset: %+v, %v", amended, err)
	}
	for params, ok := range map[string]bool{
		`{"disqualified":"last","rulings":"appeals"}`: true, `{"disqualified":"withdrawn"}`: true,
		`{"disqualified":""}`: false, `{"rulings":""}`: false, `{"disqualified":"expelled"}`: false, `{"rulings":"players"}`: false,
	} {
		if _, err := events.Resolve("master", json.RawMessage(params)); (err == nil) != ok {
			t.Errorf("params %s: error %v, want accepted %v", params, err, ok)
		}
	}
	// The rur regime applies rur-2015 art. 29: "Il giocatore squalificato è
	// equiparato al giocatore ritirato". A disqualified player placed last
	// needs another regime.
	for preset, params := range map[events.PresetID]string{
		"rtu": `{"disqualified":"last"}`, "rur-2015": `{"disqualified":"game"}`, "master": `{"sanctions":"rur"}`,
	} {
		if _, err := events.Resolve(preset, json.RawMessage(params)); err == nil || !strings.Contains(err.Error(), "params.disqualified: must be withdrawn under the rur sanction regime") {
			t.Errorf("%s %s: error %v, want disqualified refused under the rur regime", preset, params, err)
		}
	}
	if _, err := events.Resolve("rtu", json.RawMessage(`{"sanctions":"arbiter","disqualified":"last"}`)); err != nil {
		t.Errorf("rtu, arbiter regime, disqualified last: %v", err)
	}
}

func TestResolveParams(t *testing.T) {
	rs, err := events.Resolve("rtu", json.RawMessage(`{"scoring":"conv150","discards":1,"table_sizes":[5,4],"objectives":{"id":"mine","objectives":[]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if rs.Scoring != "conv150" || rs.Discards != 1 || rs.TableSizes[0] != 5 || len(rs.Objectives.Inline) == 0 {
		t.Errorf("got %+v", rs)
	}
	// The resolved ruleset survives the log: encode and decode it.
	b, _ := json.Marshal(rs)
	var back events.Ruleset
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b) != string(b2) {
		t.Errorf("ruleset does not round-trip:\n%s\n%s", b, b2)
	}

	if _, err := events.Resolve("nope", nil); !errors.Is(err, events.ErrUnknownRuleset) {
		t.Errorf("unknown preset: %v", err)
	}
	_, err = events.Resolve("rtu", json.RawMessage(`{"discards":7,"foo":1,"bonus":"x","table_sizes":[4,4,9]}`))
	var names []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var pe *events.ParamError
		if errors.As(e, &pe) {
			names = append(names, pe.Param)
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				if errors.As(x, &pe) {
					names = append(names, pe.Param)
				}
			}
		}
	}
	for _, want := range []string{"foo", "bonus", "discards", "table_sizes[1]", "table_sizes[2]"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("errors %v do not name %s", names, want)
		}
	}
	if _, err := events.Resolve("rtu", json.RawMessage(`{"preset":"rur-2015"}`)); err == nil {
		t.Error("overriding the preset id was accepted")
	}
}

// TestDrawInputsEqual: what verify compares a re-decided draw's inputs with.
// Empty and absent lists are the same; any field of any game differs.
func TestDrawInputsEqual(t *testing.T) {
	mk := func() events.DrawInputs {
		return events.DrawInputs{
			Entrants: []events.DrawEntrant{{Player: "p1", Club: "c"}, {Player: "p2", Region: "r", Rank: 3}},
			Sizes:    []int{4},
			Past:     []events.DrawGame{{Round: 1, Table: 1, Players: []string{"p1", "p2"}, Places: []int{1, 2}, Scores: []int64{100, 50}}},
			Bands:    [][]string{{"p1"}, {"p2"}},
		}
	}
	if a, b := mk(), mk(); !a.Equal(b) {
		t.Error("equal inputs differ")
	}
	a, b := mk(), mk()
	a.Bands, b.Bands = nil, [][]string{}
	if !a.Equal(b) {
		t.Error("no bands and an empty list of bands differ")
	}
	for name, change := range map[string]func(*events.DrawInputs){
		"an entrant's club":  func(d *events.DrawInputs) { d.Entrants[0].Club = "x" },
		"an entrant's rank":  func(d *events.DrawInputs) { d.Entrants[1].Rank = 4 },
		"a size":             func(d *events.DrawInputs) { d.Sizes = []int{4, 5} },
		"small tables":       func(d *events.DrawInputs) { d.SmallTableMax = 11 },
		"a game's table":     func(d *events.DrawInputs) { d.Past[0].Table = 2 },
		"a game's player":    func(d *events.DrawInputs) { d.Past[0].Players[1] = "p3" },
		"a place":            func(d *events.DrawInputs) { d.Past[0].Places[0] = 2 },
		"a score":            func(d *events.DrawInputs) { d.Past[0].Scores[1] = 51 },
		"a game missing":     func(d *events.DrawInputs) { d.Past = nil },
		"a band":             func(d *events.DrawInputs) { d.Bands[1] = []string{"p3"} },
		"the manual's model": func(d *events.DrawInputs) { d.ManualAs = "bands" },
	} {
		a, b := mk(), mk()
		change(&b)
		if a.Equal(b) || b.Equal(a) {
			t.Errorf("%s changed: still equal", name)
		}
	}
}

// TestDecodeReadsWhatEncodingJSONRead: a lone surrogate escape or invalid
// UTF-8 in a stored line (a field kept as the client sent it may hold one)
// decodes as encoding/json decoded it when the line was written, to U+FFFD:
// a line the ledger stored never stops the projections.
func TestDecodeReadsWhatEncodingJSONRead(t *testing.T) {
	for name, data := range map[string]string{
		"lone surrogate escape": `{"player":"p1","name":"M\ud800"}`,
		"invalid UTF-8":         "{\"player\":\"p1\",\"name\":\"M\xff\"}",
	} {
		env := events.Envelope{ID: "t1/1", Tournament: "t1", Seq: 1, Type: events.TypePlayerRegistered, V: 1, Data: json.RawMessage(data)}
		ev, err := events.Decode(env)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var v1 events.PlayerRegistered
		if err := json.Unmarshal([]byte(data), &v1); err != nil {
			t.Fatal(err)
		}
		if got := ev.(events.PlayerRegistered); got != v1 || got.Name != "M\uFFFD" {
			t.Errorf("%s: decoded %+v, encoding/json read %+v", name, got, v1)
		}
	}
}
