package replay

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in       string
		from, to uint64
		ok       bool
	}{
		{"2..5", 2, 5, true},
		{"0..1", 0, 1, true},
		{"5..2", 0, 0, false},
		{"3..3", 0, 0, false},
		{"a..3", 0, 0, false},
		{"3", 0, 0, false},
		{"3..", 0, 0, false},
	} {
		from, to, ok := ParseRange(tc.in)
		if ok != tc.ok || ok && (from != tc.from || to != tc.to) {
			t.Errorf("ParseRange(%q) = %d, %d, %v; want %d, %d, %v", tc.in, from, to, ok, tc.from, tc.to, tc.ok)
		}
	}
}

// TestQueryAnswers: a query is answered by the view it asks for: the
// difference between two events, a what-if, else the tournament at an
// event.
func TestQueryAnswers(t *testing.T) {
	log := export(t, "q", 6)
	for _, tc := range []struct {
		name string
		q    Query
		want string
	}{
		{"the tournament at an event", Query{At: 3, Top: 5}, `q "T" (rtu) after event 3:`},
		{"at the end", Query{Top: 5}, "after event 7:"},
		{"a difference", Query{From: 2, To: 4}, "events 3..4:"},
		{"a what-if", Query{At: 3, WhatIf: true}, "what if, after event 3,"},
	} {
		show, err := tc.q.Answer(NewScanner(bytes.NewReader(log), nil))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var out bytes.Buffer
		show(&out)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: printed\n%s\nwant %q", tc.name, out.String(), tc.want)
		}
	}
}

// TestScanDirReadsTheTournamentWithProgress: a stopped directory's
// tournament reads as its export, with progress made for the tournament's
// last stream sequence, done and the log closed at the end.
func TestScanDirReadsTheTournamentWithProgress(t *testing.T) {
	log := export(t, "sd", 4)
	closed := false
	d := fakeDir{dir: t.TempDir(), log: fakeLog{t: "sd", commits: commitsOf(log)}, closed: &closed}
	p := &ticks{}
	sc, stop, err := ScanDir(context.Background(), d, "sd", func(n uint64) Progress { p.total = int(n); return p })
	if err != nil {
		t.Fatal(err)
	}
	st, err := Fold(sc, 0)
	stop()
	if err != nil || st.ID != "sd" || st.Seq != 5 {
		t.Fatalf("folded %v, %v; want sd at event 5", st, err)
	}
	if p.n != 5 || p.total != 5 || p.done != 1 || !closed {
		t.Errorf("progress %+v, log closed %v; want 5 ticks of 5, done once, the log closed", *p, closed)
	}
}
