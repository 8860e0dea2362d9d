package backup

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The lines referto backup and restore end with: what the file holds, said
// in counts a person reads, the keys sorted by name.
func TestSummaries(t *testing.T) {
	b := &Archive{Keys: []KeyFile{{Name: "checkpoint.pub"}, {Name: "checkpoint.key"}}}
	b.Manifest = Manifest{Stream: "REFERTO", FirstSeq: 1, LastSeq: 9, Msgs: 9,
		Created: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC), Tournaments: []Tournament{{ID: "t1", Events: 12}}}
	for _, tc := range []struct {
		from string
		size int64
		want string
	}{
		{"", 512, "backup of stream REFERTO, sequences 1..9 (9 commits), 1 tournament (t1, 12 events), and the keys (checkpoint.key, checkpoint.pub) taken directly from d: b.tar, 512 bytes in 2s\n"},
		{"http://127.0.0.1:8080", 3 << 20, "backup of stream REFERTO, sequences 1..9 (9 commits), 1 tournament (t1, 12 events), and the keys (checkpoint.key, checkpoint.pub) taken from the server at http://127.0.0.1:8080: b.tar, 3.0 MiB in 2s\n"},
	} {
		var out bytes.Buffer
		b.PrintTaken(&out, "b.tar", tc.size, tc.from, "d", 2*time.Second)
		if got := out.String(); got != tc.want {
			t.Errorf("PrintTaken from %q:\n got %q\nwant %q", tc.from, got, tc.want)
		}
	}
	b.Manifest.Tournaments = append(b.Manifest.Tournaments, Tournament{ID: "t2", Events: 3})
	var out bytes.Buffer
	b.PrintRestored(&out, "b.tar", "new", time.Second)
	want := "restored stream REFERTO, sequences 1..9 (9 commits), and the keys (checkpoint.key, checkpoint.pub) from b.tar (taken 2025-03-01T10:00:00Z) into new in 1s\n" +
		"checked against the backup's manifest: stream sequences 1..9; the Merkle roots of 2 tournaments (15 events)\n" +
		"the projections are rebuilt from the log when referto serve first starts on it\n"
	if got := out.String(); got != want {
		t.Errorf("PrintRestored:\n got %q\nwant %q", got, want)
	}
}

// A hub's backup says what it holds of the season registry, and what the
// restore checked of it.
func TestSummariesOfAHub(t *testing.T) {
	b := &Archive{Keys: []KeyFile{{Name: "checkpoint.key"}}}
	b.Manifest = Manifest{Stream: "REFERTO", FirstSeq: 1, LastSeq: 9, Msgs: 9,
		Created: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC), Tournaments: []Tournament{{ID: "t1", Events: 12}},
		Registry: &RegistryCopy{Stream: "REGISTRY", FirstSeq: 1, LastSeq: 4, Msgs: 4, Events: 3}}
	var out bytes.Buffer
	b.PrintTaken(&out, "b.tar", 512, "", "d", 2*time.Second)
	want := "backup of stream REFERTO, sequences 1..9 (9 commits), 1 tournament (t1, 12 events), the season registry (stream REGISTRY, sequences 1..4, 3 events), and the keys (checkpoint.key) taken directly from d: b.tar, 512 bytes in 2s\n"
	if got := out.String(); got != want {
		t.Errorf("PrintTaken:\n got %q\nwant %q", got, want)
	}
	out.Reset()
	b.PrintRestored(&out, "b.tar", "new", time.Second)
	want = "restored stream REFERTO, sequences 1..9 (9 commits), the season registry (stream REGISTRY, sequences 1..4, 3 events), and the keys (checkpoint.key) from b.tar (taken 2025-03-01T10:00:00Z) into new in 1s\n" +
		"checked against the backup's manifest: stream sequences 1..9; the Merkle roots of 1 tournament (t1, 12 events); the season registry's sequences 1..4 and the Merkle root of its 3 events\n" +
		"the projections are rebuilt from the log when referto hub first starts on it\n"
	if got := out.String(); got != want {
		t.Errorf("PrintRestored:\n got %q\nwant %q", got, want)
	}
	b.Manifest.Registry = &RegistryCopy{Stream: "REGISTRY", FirstSeq: 1, LastSeq: 4, Msgs: 4, Unfolded: "stream sequence 2: bad link"}
	out.Reset()
	b.PrintRestored(&out, "b.tar", "new", time.Second)
	if got := out.String(); !strings.Contains(got, "set aside: its log does not fold") || !strings.Contains(got, "(its log does not fold, as at the hub)") {
		t.Errorf("PrintRestored of a registry set aside:\n%s", got)
	}
	// Its club workbooks, counted.
	b.Workbooks = []WorkbookFile{{Name: "a.xlsx"}, {Name: "b.xlsx"}}
	out.Reset()
	b.PrintTaken(&out, "b.tar", 512, "", "d", 2*time.Second)
	b.PrintRestored(&out, "b.tar", "new", time.Second)
	if got := out.String(); strings.Count(got, "does not fold), 2 club workbooks, and the keys") != 2 {
		t.Errorf("the summaries of a hub's backup with its workbooks:\n%s", got)
	}
}
