package backup

import (
	"bytes"
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
