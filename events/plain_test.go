package events

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// plainEvents are events of every type with a plain decoder, every field
// set, strings that encoding/json escapes among them.
func plainEvents() []Event {
	seat := SeatReport{Player: "p1", Turn: 1, TablePoints: 62, OffObjectivePoints: 12, ObjectiveTerritories: 7, Territories: 14,
		Armies: 30, ObjectiveArmies: 9, Cards: 2, Status: SeatFinished, EliminatedOrder: 1, Withdrawal: WithdrawalVoluntary,
		Objective: 3, TerritoriesHeld: []string{"alaska", "kamchatka"}}
	return []Event{
		PlayerCheckedIn{Round: 2, Player: "p1", MinutesLate: 25, Admitted: true, Rule: "campionato-2003 §ritardi", Absent: true},
		PlayerCheckedIn{Round: 1, Player: "p2", MinutesLate: 0, Admitted: true},
		PlayerRegistered{Player: "p1", Name: "Niccolò D'Àrpino <&>", Club: "Forlì – \"Dadi\"", Region: "Emilia-Romagna", Rank: 3, Minor: true,
			Waiver: "w\n1", NationalID: "100640"},
		PlayerRegistered{Player: "p2", Name: "Mario Rossi"},
		ResultRecorded{Round: 1, Table: 3, ClosedBy: ClosingObjective, Winner: "p1", Risiko: true,
			Players: []SeatReport{seat, {Player: "p2", Turn: 2, TablePoints: -4, Status: SeatEliminated}}, ObjectiveSet: "rtu-16", Proposal: "x1"},
		ResultRecorded{Round: 1, Table: 1, ClosedBy: ClosingTime, Players: []SeatReport{{Player: "p3", Status: "other"}}},
		ClassificationPublished{Final: true, Rows: []ClassificationRow{{Rank: 1, Player: "p1", Name: "Mario", Phase: PhaseFinal, Total: 26100, Status: StatusActive},
			{Rank: 2, Player: "p2", Phase: PhaseQualifying, Total: -300, Status: StatusExpelled}}, Expelled: []string{"p2"},
			Checkpoint: "referto.example/t1\n12\nabc=\n\n— venue-01 AbCd+/=\n"},
		TieBreakRolled{Players: []string{"p1", "p2"}, Rolls: []int{5, 2}, Signatures: []string{"16200/2", "16200/2"}},
		TablesDrawn{Round: 2, Phase: PhaseQualifying, Algorithm: "rur-game2", Version: 1, Seed: "s",
			Inputs: DrawInputs{Entrants: []DrawEntrant{{Player: "p1", Club: "c", Region: "r", Rank: 2}}, Sizes: []int{4, 5}, SmallTableMax: 11,
				Past: []DrawGame{{Round: 1, Table: 1, Players: []string{"p1"}, Places: []int{1}, Scores: []int64{6200}}}, Bands: [][]string{{"p1"}}},
			Tables:         []DrawnTable{{Table: 1, Players: []string{"p1", "p2", "p3", "p4"}}},
			Unmet:          []UnmetConstraint{{Constraint: "same_club", Table: 1, Players: []string{"p1", "p2"}, Detail: "d"}},
			ReservesSeated: []string{"r1"}, Seeds: []string{"p1"}, Byes: []string{"p2"}},
	}
}

// TestPlainReadsTheLedgersLines: every line the ledger writes of an event
// with a plain decoder is read by it, whole, its envelope in the ledger's
// order, to what the two steps read.
func TestPlainReadsTheLedgersLines(t *testing.T) {
	envs, err := Seal("t1", 9, time.Date(2026, 3, 7, 14, 15, 0, 123456789, time.UTC), Actor{ID: "o1", Role: RoleArbiter}, "cmd-1", plainEvents())
	if err == nil {
		err = Chain(envs, []byte(strings.Repeat("h", 32)))
	}
	if err != nil {
		t.Fatal(err)
	}
	body, err := EncodeCommit(envs)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		for _, fold := range []bool{false, true} {
			want, err := DecodeEnvelope(line)
			if err != nil {
				t.Fatal(err)
			}
			wantEv, err := decode(want, fold)
			if err != nil {
				t.Fatal(err)
			}
			p := &plain{b: want.Data}
			ev, has, ok := plainEvent(p, want.Type, want.V, fold)
			if !has {
				if want.Type != TypeTablesDrawn || fold {
					t.Fatalf("line %d: no plain decoder for %s", i+1, want.Type)
				}
				continue
			}
			if !ok || p.i != len(want.Data) || !reflect.DeepEqual(ev, wantEv) {
				t.Fatalf("line %d (%s, fold %v): the plain decoder read %v, %#v; the strict decoder %#v", i+1, want.Type, fold, ok, ev, wantEv)
			}
			var l lineParts
			if !l.inOrder(&plain{b: line}, fold) {
				t.Fatalf("line %d (%s): not read in the ledger's order", i+1, want.Type)
			}
			env, ev, err, ok := plainLine(line, fold)
			if !ok || err != nil || !reflect.DeepEqual(ev, wantEv) || !bytes.Equal(env.Data, want.Data) {
				t.Fatalf("line %d (%s, fold %v): plainLine read %v, %v, %#v", i+1, want.Type, fold, ok, err, ev)
			}
			env.Data, want.Data = nil, nil
			if !reflect.DeepEqual(env, want) {
				t.Fatalf("line %d: plainLine read %#v; the strict decoder %#v", i+1, env, want)
			}
		}
	}
}

// FuzzPlainData: whatever a plain decoder accepts, the strict decoder
// accepts too and reads the same; whatever skip reads as a value is one
// JSON value with no name twice in an object; a member found plainly is
// the one the strict tokenizer finds.
func FuzzPlainData(f *testing.F) {
	type entry struct {
		typ  string
		fold bool
	}
	kinds := []entry{{TypeClassificationPublished, false}, {TypePlayerCheckedIn, false}, {TypePlayerRegistered, false},
		{TypeResultRecorded, false}, {TypeTablesDrawn, true}, {TypeTieBreakRolled, false}}
	for _, ev := range plainEvents() {
		data, err := json.Marshal(ev)
		if err != nil {
			f.Fatal(err)
		}
		for i, k := range kinds {
			if k.typ == ev.EventType() {
				f.Add(uint8(i), data)
			}
		}
	}
	f.Add(uint8(1), []byte(`{"round":1,"round":2}`))
	f.Add(uint8(0), []byte(`{"expelled":[],"rows":null,"checkpoint":"\u00e0\ud800"}`))
	f.Add(uint8(3), []byte(`{"round":-0,"table":01,"players":[{"turn":1e2}]}`))
	f.Add(uint8(4), []byte(`{"inputs":{"a":[1,-2.5e+3,true,null,{"b":"c","b":"d"}]},"round":1}`))
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		kind := kinds[int(k)%len(kinds)]
		p := &plain{b: data}
		if p.skip(0) && p.i == len(data) && !jsontext.Value(data).IsValid() {
			t.Fatalf("skip reads %q, which is no valid JSON value", data)
		}
		if v, ok := plainMember(data, "inputs"); ok && !bytes.Equal(v, strictMember(data, "inputs")) {
			t.Fatalf("the member inputs of %q read plainly is %q, strictly %q", data, v, strictMember(data, "inputs"))
		}
		// MemberIs vouches only for the member Member finds: not for a
		// number's first digits, nor for a member where there is none.
		if v := Member(data, "inputs"); v != nil {
			for _, w := range [][]byte{v, v[:len(v)-1]} {
				if jsontext.Value(w).IsValid() && MemberIs(data, "inputs", w) && !bytes.Equal(w, v) {
					t.Fatalf("MemberIs(%q, %q) is true; the member is %q", data, w, v)
				}
			}
		} else if MemberIs(data, "inputs", []byte("0")) || MemberIs(data, "inputs", []byte("{}")) {
			t.Fatalf("MemberIs(%q) is true; it has no member inputs", data)
		}
		p = &plain{b: data}
		ev, has, ok := plainEvent(p, kind.typ, 1, kind.fold)
		if !has {
			t.Fatalf("no plain decoder for %s", kind.typ)
		}
		if !ok || p.i != len(data) {
			return
		}
		want, err := decode(Envelope{ID: "t1/1", Tournament: "t1", Seq: 1, Type: kind.typ, V: 1, Data: data}, kind.fold)
		if err != nil {
			t.Fatalf("%s: the plain decoder reads %q, the strict decoder refuses it: %v", kind.typ, data, err)
		}
		if !reflect.DeepEqual(ev, want) {
			t.Fatalf("%s: %q read plainly as %#v, strictly as %#v", kind.typ, data, ev, want)
		}
	})
}

func TestMemberIs(t *testing.T) {
	for _, c := range []struct {
		data, value string
		want        bool
	}{
		{`{"inputs":1,"x":1}`, `1`, true},
		{`{"inputs":12,"x":1}`, `1`, false},
		{`{"inputs":12}`, `1`, false},
		{`{"x":[1],"inputs":{"a":1}}`, `{"a":1}`, true},
		{`{"x":[1],"inputs":{"a":1}}`, `{"a":2}`, false},
		{`{"x":1}`, `1`, false},
		{`{"x":1,"x":2,"inputs":1}`, `1`, false},
		{`{"inputs" : 1 }`, `1`, true},
		{`{"inputs" : 2 }`, `1`, false},
		{`[1]`, `1`, false},
	} {
		if got := MemberIs([]byte(c.data), "inputs", []byte(c.value)); got != c.want {
			t.Errorf("MemberIs(%s, %s) = %v, want %v", c.data, c.value, got, c.want)
		}
	}
}
