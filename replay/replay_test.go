package replay

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// export builds a linked log of a tournament with n registrations, one
// command per event, as the server stores it.
func export(t *testing.T, id string, n int) []byte {
	t.Helper()
	rs, _ := events.Preset("rtu")
	evs := []events.Event{events.TournamentCreated{Tournament: id, Name: "T", Ruleset: rs}}
	for i := range n {
		evs = append(evs, events.PlayerRegistered{Player: fmt.Sprintf("p%04d", i), Name: "P"})
	}
	var out []byte
	var last []byte
	for i, ev := range evs {
		envs, err := events.Seal(id, uint64(i+1), time.Unix(1700000000, 0), events.Actor{ID: "o1", Role: events.RoleArbiter}, fmt.Sprint(i), []events.Event{ev})
		if err == nil {
			err = events.Chain(envs, last)
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := events.EncodeCommit(envs)
		c, _ := events.DecodeCommit(body)
		last = checkpoint.LeafHash(c.Lines[0])
		out = append(out, body...)
	}
	return out
}

func TestScannerReadsStrictly(t *testing.T) {
	log := export(t, "bo", 5)
	lines := bytes.SplitAfter(log, []byte("\n"))
	sc := NewScanner(bytes.NewReader(log), nil)
	n := 0
	for sc.Scan() {
		n++
		if sc.Line() != n || sc.Envelope().Seq != uint64(n) || !bytes.Equal(append(bytes.Clone(sc.Bytes()), '\n'), lines[n-1]) {
			t.Fatalf("line %d: seq %d, bytes %q", sc.Line(), sc.Envelope().Seq, sc.Bytes())
		}
		if ev, err := sc.Event(); err != nil || ev == nil {
			t.Fatalf("line %d: event %v, %v", n, ev, err)
		}
	}
	if err := sc.Err(); err != nil || n != 6 || sc.Tournament() != "bo" {
		t.Fatalf("read %d lines of %q: %v", n, sc.Tournament(), err)
	}

	other := bytes.SplitAfter(export(t, "mi", 5), []byte("\n"))
	for _, tc := range []struct {
		name string
		log  []byte
		line int
		want string
	}{
		{"empty", nil, 0, "empty"},
		{"truncated", log[:len(log)-1], 6, "not newline-terminated"},
		{"an event removed", bytes.Join(append(append([][]byte{}, lines[:2]...), lines[3:]...), nil), 3, "seq 4 where 3 was due"},
		{"two events swapped", bytes.Join([][]byte{lines[0], lines[2], lines[1]}, nil), 2, "seq 3 where 2 was due"},
		{"another tournament's event", bytes.Join([][]byte{lines[0], lines[1], other[2]}, nil), 3, "tournament mi in the log of bo"},
		{"not JSON", bytes.Join([][]byte{lines[0], []byte("{\n")}, nil), 2, "corrupt"},
	} {
		sc := NewScanner(bytes.NewReader(tc.log), nil)
		for sc.Scan() {
		}
		err := sc.Err()
		var le *LineError
		switch {
		case err == nil || !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case tc.line > 0 && (!errors.As(err, &le) || le.Line != tc.line):
			t.Errorf("%s: %v, want line %d", tc.name, err, tc.line)
		}
	}
}

// TestScannerStopsEarly: a fold that stops at an early event leaves no
// reader behind, however much of the log was still to come.
func TestScannerStopsEarly(t *testing.T) {
	log := export(t, "bo", 20000)
	before := runtime.NumGoroutine()
	for range 5 {
		st, err := Fold(NewScanner(bytes.NewReader(log), nil), 3)
		if err != nil || st.Seq != 3 {
			t.Fatalf("fold to 3: %v", err)
		}
	}
	// A scan that stops on a bad line releases its readers by itself.
	lines := bytes.SplitAfter(log, []byte("\n"))
	lines[2] = bytes.SplitAfter(export(t, "mi", 2), []byte("\n"))[2]
	for range 5 {
		sc := NewScanner(bytes.NewReader(bytes.Join(lines, nil)), nil)
		for sc.Scan() {
		}
		if sc.Err() == nil {
			t.Fatal("a foreign event was read")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines left behind", g-before)
	}
	if _, err := Fold(NewScanner(bytes.NewReader(log), nil), 20002); err == nil || !strings.Contains(err.Error(), "ends at event 20001") {
		t.Errorf("fold past the end: %v", err)
	}
	st, err := Fold(NewScanner(bytes.NewReader(log), nil), 0)
	if err != nil || st.Seq != 20001 || len(st.Players) != 20000 {
		t.Errorf("fold to the end: %v", err)
	}
}

// TestFirstNamesTheOffendingLine: a line found at fault beats any range;
// ranges, each a claim that the fault lies within, are intersected; a range
// of one line is that line.
func TestFirstNamesTheOffendingLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		checks []Check
		line   int
		upto   int
	}{
		{"an exact line beats ranges", []Check{{Line: 1, Upto: 50}, {Line: 30}, {Line: 12}, {Line: 10, Upto: 20}}, 12, 0},
		{"ranges intersect", []Check{{Line: 1, Upto: 50}, {Line: 20, Upto: 90}, {Line: 1, Upto: 40}}, 20, 40},
		{"a one-line range is the line", []Check{{Line: 1, Upto: 50}, {Line: 44, Upto: 44}}, 44, 0},
		{"nothing but the log", []Check{{What: "signature"}}, 0, 0},
	} {
		r := &Report{Checks: append([]Check{{OK: true, Line: 3}}, tc.checks...)}
		c, bad := r.First()
		if !bad || c.Line != tc.line || c.Upto != tc.upto {
			t.Errorf("%s: %+v, want %d..%d", tc.name, c, tc.line, tc.upto)
		}
	}
	if _, bad := (&Report{Checks: []Check{{OK: true}}}).First(); bad {
		t.Error("a report without failures names a line")
	}
}
