package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/referto/referto/events"
)

// A draw's recorded inputs, left undecoded by the scan, are the inputs the
// state gives when they are those bytes, or decode to those values; other
// inputs differ, and inputs that do not decode make the line no event.
func TestRecordedInputs(t *testing.T) {
	inputs := events.DrawInputs{Entrants: []events.DrawEntrant{{Player: "p1", Club: "Pisa & Lucca"}, {Player: "p2"}}, Sizes: []int{4},
		Past: []events.DrawGame{{Round: 1, Table: 1, Players: []string{"p1", "p2"}, Places: []int{1, 2}, Scores: []int64{100, 0}}}}
	drawn := events.TablesDrawn{Round: 2, Phase: "qualifying", Algorithm: "random", Version: 1, Seed: "s", Inputs: inputs,
		Tables: []events.DrawnTable{{Table: 1, Players: []string{"p2", "p1"}}}}
	data, err := json.Marshal(drawn)
	if err != nil {
		t.Fatal(err)
	}
	envOf := func(data []byte) events.Envelope {
		return events.Envelope{ID: "t1/9", Tournament: "t1", Seq: 9, Type: events.TypeTablesDrawn, V: 1, Data: data}
	}
	check := func(name string, data []byte, again events.DrawInputs, want bool, wantErr bool) {
		t.Helper()
		ev, err := events.DecodeForFold(envOf(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ri := recordedInputs{env: envOf(data)}
		if got := ri.equal(again); got != want {
			t.Errorf("%s: equal %v, want %v", name, got, want)
		}
		d, err := ri.draw(ev.(events.TablesDrawn))
		if (err != nil) != wantErr || err != nil && !errors.Is(err, events.ErrCorrupt) {
			t.Errorf("%s: draw: %v, want an error %v", name, err, wantErr)
		}
		if want && !reflect.DeepEqual(d.Inputs, again) && !d.Inputs.Equal(again) {
			t.Errorf("%s: the draw's inputs %+v, want %+v", name, d.Inputs, again)
		}
	}
	// The ledger's own bytes: equal without decoding the line.
	ri := recordedInputs{env: envOf(data)}
	if !ri.equal(inputs) || ri.err != nil {
		t.Fatal("the ledger's encoding of the same inputs")
	}
	if !reflect.DeepEqual(ri.inputs, inputs) {
		t.Fatalf("inputs %+v", ri.inputs)
	}
	check("the ledger's bytes", data, inputs, true, false)
	// The same values written otherwise (spaces, members in another order).
	other := bytes.Replace(data, []byte(`"inputs":{`), []byte(`"inputs" : { `), 1)
	other = bytes.Replace(other, []byte(`"sizes":[4],`), nil, 1)
	other = bytes.Replace(other, []byte(`"inputs" : { `), []byte(`"inputs" : { "sizes": [ 4 ], `), 1)
	if bytes.Equal(other, data) || events.Member(other, "inputs") == nil {
		t.Fatalf("no other encoding: %s", other)
	}
	check("the same inputs written otherwise", other, inputs, true, false)
	// Other inputs.
	changed := inputs
	changed.Past = []events.DrawGame{{Round: 1, Table: 1, Players: []string{"p1", "p2"}, Places: []int{2, 1}, Scores: []int64{0, 100}}}
	check("other inputs", data, changed, false, false)
	// Inputs that do not decode: the line is no event, whatever the state gives.
	bad := bytes.Replace(data, []byte(`"sizes":[4]`), []byte(`"sizes":["4"]`), 1)
	check("inputs that do not decode", bad, inputs, false, true)
	ri = recordedInputs{env: envOf(bad)}
	if _, err := ri.draw(drawn); err == nil || !strings.Contains(err.Error(), "sizes") {
		t.Errorf("a draw not compared: %v, want the line's decoding error", err)
	}

	for data, want := range map[string]string{
		`{"round":2,"inputs":{"sizes":[4]},"tables":[]}`:  `{"sizes":[4]}`,
		`{"inputs" :	{ "sizes" : [4] } }`:                 `{ "sizes" : [4] }`,
		`{"round":2,"inputs":"x","inputs":{}}`:            `"x"`,
		`{"round":2}`:                                     ``,
		`[1,2]`:                                           ``,
		`{"round":2,"inputs":{"sizes":[4]`:                ``,
		`{"tables":[{"inputs":1}],"inputs":[{"a":"}"}]} `: `[{"a":"}"}]`,
		`{"round":2,"inputs":12,"tables":[]}`:             `12`,
	} {
		if got := string(events.Member([]byte(data), "inputs")); got != want {
			t.Errorf("Member(%s) = %q, want %q", data, got, want)
		}
		if want != "" && !events.MemberIs([]byte(data), "inputs", []byte(want)) {
			t.Errorf("MemberIs(%s, %s) is false", data, want)
		}
	}
}

// appendInputsJSON writes what encoding/json writes (what the ledger
// stored); a field added to the inputs must be added to it too, or every
// draw's inputs would be decoded again (correct, only slower).
func TestAppendInputsJSONIsEncodingJSON(t *testing.T) {
	for typ, fields := range map[reflect.Type]int{
		reflect.TypeFor[events.DrawInputs]():  7,
		reflect.TypeFor[events.DrawEntrant](): 4,
		reflect.TypeFor[events.DrawGame]():    5,
	} {
		if typ.NumField() != fields {
			t.Errorf("%s has %d fields, appendInputsJSON writes %d: write the new ones", typ, typ.NumField(), fields)
		}
	}
	for _, in := range []events.DrawInputs{
		{},
		{Entrants: []events.DrawEntrant{}, Sizes: []int{}, Past: []events.DrawGame{}, Bands: [][]string{}},
		{Entrants: []events.DrawEntrant{{Player: "p1", Club: "Pisa & Lucca <1>", Region: "Toscana", Rank: 3}, {Player: "p2", Rank: -1}},
			Sizes: []int{4, 5}, SmallTableMax: 10,
			Past: []events.DrawGame{{Round: 1, Table: 2, Players: []string{"p1", "p2"}, Places: []int{1, 2}, Scores: []int64{15000, -250}},
				{Round: 1, Table: 3}},
			Bands: [][]string{{"p1", "p2"}, nil, {}}, ManualAs: "rur-game1"},
		{Entrants: []events.DrawEntrant{{Player: "p1"}}, Bands: [][]string{{"p1"}}, ManualAs: "bands", Rule: "master §fasi finali"},
		{Entrants: []events.DrawEntrant{{Player: "Niccolò \"il\" Rossi\t\u2028\x01", Club: "C\\D", Region: "Valle d'Aosta/Vallée d'Aoste"}, {Player: "bad \xff utf-8"}}},
	} {
		want, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendInputsJSON([]byte("x"), in)[1:]; !bytes.Equal(got, want) {
			t.Errorf("appendInputsJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	}
}
