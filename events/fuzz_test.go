package events_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/referto/referto/events"
)

// fuzzCommit is a linked commit of every event type, as the server stores it.
func fuzzCommit(f *testing.F) []byte {
	// allEvents fails only without the rtu preset, which TestCodecRoundTrip
	// reports.
	evs := allEvents(&testing.T{})
	envs, err := events.Seal("t1", 7, time.Date(2026, 3, 7, 14, 15, 0, 0, time.UTC), events.Actor{ID: "o1", Role: events.RoleArbiter}, "cmd-1", evs)
	if err == nil {
		err = events.Chain(envs, []byte(strings.Repeat("h", 32)))
	}
	if err != nil {
		f.Fatal(err)
	}
	body, err := events.EncodeCommit(envs)
	if err != nil {
		f.Fatal(err)
	}
	return body
}

// checkCorrupt asserts that a decoder's refusal is classified: the stored
// bytes are corrupt, or the event is one this codec does not know.
func checkCorrupt(t *testing.T, err error, unknownToo bool) {
	t.Helper()
	switch {
	case errors.Is(err, events.ErrCorrupt):
	case unknownToo && errors.Is(err, events.ErrUnknownEvent):
	default:
		t.Fatalf("unclassified error %T: %v", err, err)
	}
}

// sameEnvelope compares envelopes, their data as JSON values (encoding
// compacts it and escapes <, > and &) and their times as instants.
func sameEnvelope(a, b events.Envelope) bool {
	if !sameJSON(a.Data, b.Data) {
		return false
	}
	if !a.At.Equal(b.At) {
		return false
	}
	a.Data, b.Data, a.At, b.At = nil, nil, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func sameJSON(a, b []byte) bool {
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	return da.Decode(&va) == nil && db.Decode(&vb) == nil && reflect.DeepEqual(va, vb)
}

// FuzzDecodeEnvelope: a stored line either decodes into an envelope that
// re-encodes to a line decoding to the same envelope (and whose event
// decodes the same way from both), or is refused as corrupt. Never a panic.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, line := range bytes.Split(fuzzCommit(f), []byte("\n")) {
		f.Add(line)
	}
	f.Add([]byte(`{"id":"t1/1","tournament":"t1","seq":1,"type":"PlayerRegistered","v":1,"at":"2026-03-07T14:15:00+01:00","actor":{"id":"o1","role":"arbiter"},"command_id":"k","data":{"player":"p1","name":"Mario"}}`))
	f.Add([]byte(`{"id":"t1/1","tournament":"t1","seq":1,"type":"X","v":1,"at":"2026-03-07T14:15:00Z","actor":{},"command_id":"","data":null}`))
	f.Add([]byte(`{"id":"t1/1","ID":"t1/2","tournament":"t1","seq":1,"seq":2}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Add([]byte(`{"data":{"player":"p1","name":"Mario"},"id":"t1/1","tournament":"t1","seq":1,"type":"PlayerRegistered","v":1,"at":"2026-03-07T14:15:00Z","actor":{"id":"o1","role":"arbiter"},"command_id":"k"}`))
	f.Add([]byte(`{"id":"t1/1","tournament":"t1","seq":1,"type":"PlayerRegistered","v":1,"at":"2026-03-07T14:15:00Z","actor":{"id":"o1","role":"arbiter"},"command_id":"k","data" : {"player":"p1","name":"Mario","nome":"x"}}`))
	// Draw inputs of the wrong shape: refused by DecodeLine, left alone by
	// DecodeLineForFold.
	f.Add([]byte(`{"id":"t1/9","tournament":"t1","seq":9,"type":"TablesDrawn","v":1,"at":"2026-03-07T14:15:00Z","actor":{"id":"o1","role":"arbiter"},"command_id":"k","data":{"round":1,"phase":"qualifying","algorithm":"random","version":1,"seed":"s","inputs":{"entrants":5},"tables":[{"table":1,"players":["p1"]}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkDecodeLine(t, line)
		env, err := events.DecodeEnvelope(line)
		if err != nil {
			checkCorrupt(t, err, false)
			return
		}
		if !events.ValidID(env.Tournament) || env.Seq == 0 || env.ID != events.EventID(env.Tournament, env.Seq) || env.Type == "" || env.V < 1 || len(env.Data) == 0 {
			t.Fatalf("accepted an envelope that breaks its own checks: %+v", env)
		}
		again, err := json.Marshal(&env)
		if err != nil {
			t.Fatalf("decoded envelope does not re-encode: %v", err)
		}
		env2, err := events.DecodeEnvelope(again)
		if err != nil {
			t.Fatalf("re-encoded line %s does not decode: %v", again, err)
		}
		if !sameEnvelope(env, env2) {
			t.Fatalf("re-encoding changed the envelope:\n%+v\n%+v", env, env2)
		}
		ev, err := events.Decode(env)
		ev2, err2 := events.Decode(env2)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("the event decodes from one encoding only: %v / %v", err, err2)
		}
		if err != nil {
			checkCorrupt(t, err, true)
			return
		}
		checkEvent(t, env, ev)
		if a, b := mustMarshal(t, ev), mustMarshal(t, ev2); !bytes.Equal(a, b) {
			t.Fatalf("re-encoding changed the event:\n%s\n%s", a, b)
		}
	})
}

// checkDecodeLine asserts that the single-pass DecodeLine returns what
// DecodeEnvelope then Decode return, errors included, and the same of
// DecodeLineForFold and DecodeForFold (checkDecodeLineForFold).
func checkDecodeLine(t *testing.T, line []byte) {
	t.Helper()
	_, ev, err := checkSinglePass(t, "DecodeLine", line, events.DecodeLine, events.Decode)
	checkDecodeLineForFold(t, line, ev, err)
}

// checkSinglePass asserts that decodeLine returns what DecodeEnvelope then
// decode return, errors included, and returns that.
func checkSinglePass(t *testing.T, name string, line []byte, decodeLine func([]byte) (events.Envelope, events.Event, error),
	decode func(events.Envelope) (events.Event, error)) (events.Envelope, events.Event, error) {
	t.Helper()
	env, ev, err := decodeLine(line)
	want, werr := events.DecodeEnvelope(line)
	var wev events.Event
	if werr == nil {
		wev, werr = decode(want)
	}
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("%s: %v; two steps: %v", name, err, werr)
	}
	if want.Seq == 0 {
		if env.Seq != 0 {
			t.Fatalf("%s returned an envelope the two steps refuse: %+v", name, env)
		}
	} else if !sameEnvelope(env, want) || !bytes.Equal(compact(t, env.Data), compact(t, want.Data)) {
		t.Fatalf("%s: %+v; two steps: %+v", name, env, want)
	}
	if !reflect.DeepEqual(ev, wev) {
		t.Fatalf("%s: %#v; two steps: %#v", name, ev, wev)
	}
	return want, ev, err
}

// checkDecodeLineForFold asserts that DecodeLineForFold returns what
// DecodeEnvelope then DecodeForFold return, errors included, and that it
// differs from DecodeLine (whose results are given) only in a draw's
// inputs: left empty, and not checked beyond being JSON.
func checkDecodeLineForFold(t *testing.T, line []byte, full events.Event, fullErr error) {
	t.Helper()
	want, ev, err := checkSinglePass(t, "DecodeLineForFold", line, events.DecodeLineForFold, events.DecodeForFold)
	drawn := want.Type == events.TypeTablesDrawn && want.V == 1
	switch {
	case fullErr == nil:
		if err != nil {
			t.Fatalf("DecodeLine accepts what DecodeLineForFold refuses: %v", err)
		}
		if d, ok := full.(events.TablesDrawn); ok {
			d.Inputs = events.DrawInputs{}
			full = d
		}
		if !reflect.DeepEqual(ev, full) {
			t.Fatalf("DecodeLineForFold: %#v; DecodeLine without the inputs: %#v", ev, full)
		}
	case err != nil:
		if err.Error() != fullErr.Error() {
			t.Fatalf("DecodeLineForFold: %v; DecodeLine: %v", err, fullErr)
		}
	case !drawn:
		t.Fatalf("DecodeLineForFold accepts a %s DecodeLine refuses (%v)", want.Type, fullErr)
	default:
		// Accepted for its inputs alone: with other inputs, the line is
		// a draw Decode reads.
		var members map[string]jsontext.Value
		if err := jsonv2.Unmarshal(want.Data, &members, jsontext.AllowInvalidUTF8(true)); err != nil {
			t.Fatalf("DecodeLineForFold accepts data that is no object: %v", err)
		}
		members["inputs"] = jsontext.Value(`{}`)
		data, err := jsonv2.Marshal(members, jsontext.AllowInvalidUTF8(true))
		if err != nil {
			t.Fatal(err)
		}
		other := want
		other.Data = data
		if _, err := events.Decode(other); err != nil {
			t.Fatalf("DecodeLineForFold accepts a draw DecodeLine refuses (%v) for more than its inputs: %v", fullErr, err)
		}
	}
}

// compact is data without its insignificant spaces (nil stays nil).
func compact(t *testing.T, data []byte) []byte {
	t.Helper()
	if data == nil {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return data
	}
	return b.Bytes()
}

// checkEvent asserts that a decoded event is of the envelope's type and
// version and re-encodes to data that decodes to an event encoding the
// same way. (Encodings are compared, not values: an empty list read from
// the log and an absent one are the same event.)
func checkEvent(t *testing.T, env events.Envelope, ev events.Event) {
	t.Helper()
	if ev == nil || ev.EventType() != env.Type || ev.EventVersion() != env.V {
		t.Fatalf("%s v%d decoded as %T", env.Type, env.V, ev)
	}
	data := mustMarshal(t, ev)
	env.Data = data
	back, err := events.Decode(env)
	if err != nil {
		t.Fatalf("re-encoded %s %s does not decode: %v", env.Type, data, err)
	}
	if again := mustMarshal(t, back); !bytes.Equal(again, data) {
		t.Fatalf("%s changed through re-encoding:\n%s\n%s", env.Type, data, again)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%T does not encode: %v", v, err)
	}
	return b
}

// FuzzDecode: the data of an envelope of any type and version decodes into
// that event, stably, or is refused as corrupt or unknown. The type comes
// from a small index so the fuzzer spends its time on the data.
func FuzzDecode(f *testing.F) {
	c, err := events.DecodeCommit(fuzzCommit(f))
	if err != nil {
		f.Fatal(err)
	}
	var types []string
	for i, env := range c.Envelopes {
		types = append(types, env.Type)
		f.Add(uint8(i), 1, []byte(env.Data))
	}
	f.Add(uint8(0), 2, []byte(`{}`))
	f.Add(uint8(3), 1, []byte(`{"player":"p1","name":"Mario","player":"p2"}`))
	f.Add(uint8(0), 1, []byte(`{"tournament":"t","name":"T","ruleset":{"preset":"rtu","objectives":{"name":"x"}}}`))
	f.Add(uint8(11), 1, []byte(`{"round":1e309}`))
	f.Add(uint8(200), 1, []byte(`null`))
	f.Fuzz(func(t *testing.T, typ uint8, v int, data []byte) {
		env := events.Envelope{ID: "t1/1", Tournament: "t1", Seq: 1, Type: "Unknown", V: v, Data: data}
		if int(typ) < len(types) {
			env.Type = types[typ]
		}
		ev, err := events.Decode(env)
		if err != nil {
			checkCorrupt(t, err, true)
			if errors.Is(err, events.ErrUnknownEvent) != !events.Known(env.Type, env.V) {
				t.Fatalf("%s v%d: Known says %v but Decode says %v", env.Type, env.V, events.Known(env.Type, env.V), err)
			}
			return
		}
		checkEvent(t, env, ev)
	})
}

// FuzzDecodeCommit: a commit body decodes into envelopes whose stored lines
// are exactly the body's lines, each decoding to its envelope, one
// tournament and one command with contiguous seqs; or it is corrupt.
func FuzzDecodeCommit(f *testing.F) {
	body := fuzzCommit(f)
	f.Add(body)
	lines := bytes.SplitAfter(body, []byte("\n"))
	f.Add(bytes.Join(lines[:2], nil))
	f.Add(lines[0])
	f.Add(bytes.Join([][]byte{lines[1], lines[0]}, nil))
	f.Add(bytes.TrimSuffix(body, []byte("\n")))
	// An event that does not decode before a line that breaks the commit:
	// the commit's error is the one reported.
	f.Add(append(bytes.Replace(lines[0], []byte(`"v":1`), []byte(`"v":9`), 1), bytes.TrimSuffix(lines[1], []byte("\n"))...))
	f.Add([]byte("\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := events.DecodeCommit(body)
		ce, evs, everr := events.DecodeCommitForFold(body)
		if err == nil && everr == nil {
			if len(ce.Envelopes) != len(c.Envelopes) || len(evs) != len(c.Envelopes) {
				t.Fatalf("DecodeCommitForFold: %d envelopes and %d events, DecodeCommit: %d", len(ce.Envelopes), len(evs), len(c.Envelopes))
			}
			for i := range c.Envelopes {
				ev, err := events.DecodeForFold(c.Envelopes[i])
				if err != nil || !sameEnvelope(ce.Envelopes[i], c.Envelopes[i]) || !reflect.DeepEqual(ev, evs[i]) {
					t.Fatalf("event %d: DecodeCommitForFold %+v %#v; DecodeCommit then DecodeForFold %+v %#v (%v)", i+1, ce.Envelopes[i], evs[i], c.Envelopes[i], ev, err)
				}
			}
		} else {
			// DecodeCommit's error, or else the first event's.
			want := err
			for i := 0; want == nil && i < len(c.Envelopes); i++ {
				_, want = events.DecodeForFold(c.Envelopes[i])
			}
			if everr == nil || want == nil || everr.Error() != want.Error() {
				t.Fatalf("DecodeCommitForFold: %v; DecodeCommit then DecodeForFold: %v", everr, want)
			}
		}
		if err != nil {
			checkCorrupt(t, err, false)
			return
		}
		if len(c.Envelopes) == 0 || len(c.Envelopes) != len(c.Lines) {
			t.Fatalf("%d envelopes, %d lines", len(c.Envelopes), len(c.Lines))
		}
		var joined []byte
		for i, line := range c.Lines {
			joined = append(append(joined, line...), '\n')
			env, err := events.DecodeEnvelope(line)
			if err != nil {
				t.Fatalf("line %d of an accepted commit does not decode: %v", i+1, err)
			}
			if !sameEnvelope(env, c.Envelopes[i]) {
				t.Fatalf("line %d decodes to %+v, the commit holds %+v", i+1, env, c.Envelopes[i])
			}
			if i > 0 {
				prev := c.Envelopes[i-1]
				if env.Tournament != prev.Tournament || env.CommandID != prev.CommandID || env.Seq != prev.Seq+1 {
					t.Fatalf("line %d does not follow line %d in one command", i+1, i)
				}
			}
		}
		if !bytes.Equal(joined, body) {
			t.Fatalf("the lines are not the body:\n%q\n%q", joined, body)
		}
		// The commit re-encodes to a body that decodes to the same commit.
		again, err := events.EncodeCommit(c.Envelopes)
		if err != nil {
			t.Fatalf("an accepted commit does not re-encode: %v", err)
		}
		c2, err := events.DecodeCommit(again)
		if err != nil {
			// Links name the exact bytes of the line before, so a
			// re-encoded line (compacted data, another key order) may
			// break them; nothing else may.
			if strings.Contains(err.Error(), "is not linked to") {
				return
			}
			t.Fatalf("a re-encoded commit does not decode: %v\n%s", err, again)
		}
		for i := range c.Envelopes {
			if !sameEnvelope(c.Envelopes[i], c2.Envelopes[i]) {
				t.Fatalf("event %d changed through re-encoding", i+1)
			}
		}
	})
}

// TestDecodeLineReadsOnce: a line as the server stores it takes the single
// pass, whose data is the line's own bytes, not a copy; a line whose data
// comes before its type takes the two steps and decodes the same.
func TestDecodeLineReadsOnce(t *testing.T) {
	f := &testing.F{}
	body := fuzzCommit(f)
	for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		env, ev, err := events.DecodeLine(line)
		if err != nil || ev == nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		off := bytes.Index(line, env.Data)
		if off < 0 || &line[off] != &env.Data[0] {
			t.Errorf("line %d (%s): the data was copied, so the line was decoded in two steps", i+1, env.Type)
		}
		checkDecodeLine(t, line)
		// The same line with its data first.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		moved := []byte(`{"data":` + string(m["data"]))
		for _, k := range []string{"id", "tournament", "seq", "type", "v", "at", "actor", "command_id", "prev"} {
			if v, ok := m[k]; ok {
				moved = append(moved, `,"`+k+`":`+string(v)...)
			}
		}
		moved = append(moved, '}')
		env2, ev2, err := events.DecodeLine(moved)
		if err != nil || !reflect.DeepEqual(ev2, ev) || !sameEnvelope(env2, env) {
			t.Fatalf("line %d with its data first: %v\n%#v\n%#v", i+1, err, ev2, ev)
		}
		checkDecodeLine(t, moved)
	}
}
