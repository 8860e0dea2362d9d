package replay

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
)

// fakeLog is a log of one tournament's commits, one a stream sequence.
type fakeLog struct {
	t       string
	commits [][]byte
}

func (f fakeLog) LastSubjectSeq(_ context.Context, t string) (uint64, error) {
	if t != f.t {
		return 0, nil
	}
	return uint64(len(f.commits)), nil
}

func (f fakeLog) Scan(_ context.Context, from, until uint64, t string, fn func(jetstream.Msg) error) error {
	for i := from; i <= until; i++ {
		if err := fn(jetstream.Msg{StreamSeq: i, Tournament: t, Data: f.commits[i-1]}); err != nil {
			return err
		}
	}
	return nil
}

func commitsOf(log []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.SplitAfter(log, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestExportIsTheStoredLog: the bytes as stored, the checkpoint of them,
// one progress tick per event; an anchor the log does not pass through,
// or one past its end, refuses it; a commit that does not split is
// corruption naming its stream sequence.
func TestExportIsTheStoredLog(t *testing.T) {
	ctx := context.Background()
	log := export(t, "ex", 6)
	lg := fakeLog{t: "ex", commits: commitsOf(log)}
	var out bytes.Buffer
	ticks := 0
	cp, err := Export(ctx, lg, "ex", &out, ExportOptions{Progress: func(n int) { ticks += n }})
	if err != nil {
		t.Fatal(err)
	}
	tree := checkpoint.NewTree()
	for _, c := range lg.commits {
		if err := tree.Append(c[:len(c)-1], nil); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out.Bytes(), log) || cp.Size != 7 || !bytes.Equal(cp.Root, tree.Root()) || cp.Origin != checkpoint.Origin("ex") || ticks != 7 {
		t.Errorf("export: %d bytes of %d, checkpoint %+v, %d ticks; want the log, 7 events and its root", out.Len(), len(log), cp, ticks)
	}

	head := checkpoint.NewTree()
	for _, c := range lg.commits[:3] {
		_ = head.Append(c[:len(c)-1], nil)
	}
	for _, tc := range []struct {
		name   string
		anchor Anchor
		want   string
	}{
		{"passes through", Anchor{Size: 3, Root: head.Root()}, ""},
		{"another root", Anchor{Size: 3, Root: tree.Root()}, "do not have the Merkle root"},
		{"past the end", Anchor{Size: 9, Root: tree.Root()}, "events are missing"},
	} {
		_, err := Export(ctx, lg, "ex", discard{}, ExportOptions{Anchor: &tc.anchor})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("anchor %s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Export(ctx, lg, "other", discard{}, ExportOptions{}); err == nil || !strings.Contains(err.Error(), "no tournament other") {
		t.Errorf("a tournament not in the log: %v", err)
	}
	cut := fakeLog{t: "ex", commits: [][]byte{lg.commits[0], lg.commits[1][:10]}}
	if _, err := Export(ctx, cut, "ex", discard{}, ExportOptions{}); !errors.Is(err, events.ErrCorrupt) || !strings.Contains(err.Error(), "stream sequence 2") {
		t.Errorf("a commit cut short: %v, want corruption at stream sequence 2", err)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// TestReceiveKeepsOnlyAWholeTransfer: the announced count and the
// checkpoint's root, or an error; lines longer than the read buffer too.
func TestReceiveKeepsOnlyAWholeTransfer(t *testing.T) {
	log := export(t, "rx", 4)
	signed := signedCheckpoint(t, "rx", log)
	var got bytes.Buffer
	if n, err := Receive(bytes.NewReader(log), &got, signed, "5"); err != nil || n != 5 || !bytes.Equal(got.Bytes(), log) {
		t.Fatalf("a whole transfer: %d, %v (%d bytes of %d)", n, err, got.Len(), len(log))
	}
	lines := commitsOf(log)
	for _, tc := range []struct {
		name, announced, want string
		body                  []byte
	}{
		{"a line short", "5", "received 4 events", bytes.Join(lines[:4], nil)},
		{"cut mid-line", "5", "inside line 5", log[:len(log)-5]},
		{"a line changed", "5", "root of the server's checkpoint", bytes.Replace(log, []byte(`"P"`), []byte(`"Q"`), 1)},
		{"another count announced", "6", "the server announced 6", log},
	} {
		if _, err := Receive(bytes.NewReader(tc.body), discard{}, signed, tc.announced); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A line longer than the 1 MiB buffer arrives whole.
	long := append(bytes.Repeat([]byte("x"), 3<<20), '\n')
	if n, err := Receive(bytes.NewReader(long), &got, signedCheckpoint(t, "rx", long), "1"); err != nil || n != 1 {
		t.Errorf("a 3 MiB line: %d, %v", n, err)
	}
}

func signedCheckpoint(t *testing.T, id string, log []byte) []byte {
	t.Helper()
	tree := checkpoint.NewTree()
	for _, l := range commitsOf(log) {
		_ = tree.Append(l[:len(l)-1], nil)
	}
	keys, err := checkpoint.LoadOrCreateKeys(t.TempDir(), "referto", nil)
	if err != nil {
		t.Fatal(err)
	}
	note, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(id), Size: tree.Size(), Root: tree.Root()}, keys.Signer)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(note)
}

// TestParseCorrections: the three ways a ruling's corrections are written
// down, and what is none of them.
func TestParseCorrections(t *testing.T) {
	a, b := `{"type":"RecordResult","round":1}`, `{"type":"RevokeSanction","sanction":2}`
	for _, in := range []string{"[" + a + "," + b + "]", `{"corrections":[` + a + "," + b + "]}", a + "\n\n" + b + "\n"} {
		got, err := ParseCorrections([]byte(in))
		if err != nil || len(got) != 2 || string(got[0]) != a || string(got[1]) != b {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
	if _, err := ParseCorrections([]byte("{nope\n")); err == nil {
		t.Error("garbage accepted")
	}
}
