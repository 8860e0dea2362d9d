package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
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

func (f fakeLog) Scan(_ context.Context, from, until uint64, t string, fn func(events.StoredCommit) error) error {
	for i := from; i <= until; i++ {
		if err := fn(events.StoredCommit{StreamSeq: i, Tournament: t, Data: f.commits[i-1]}); err != nil {
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

// fakeDir is a stopped server's data directory: keys and projections
// directories on disk, a recorded head and a log in memory.
type fakeDir struct {
	dir    string
	head   *Anchor // nil: the projections have not seen the tournament
	log    fakeLog
	closed *bool
}

func (d fakeDir) String() string      { return d.dir }
func (d fakeDir) Keys() string        { return d.dir + "/keys" }
func (d fakeDir) Projections() string { return d.dir + "/projections" }
func (d fakeDir) RecordedHead(string) (uint64, []byte, bool, error) {
	if d.head == nil {
		return 0, nil, false, nil
	}
	return d.head.Size, d.head.Root, true, nil
}

func (d fakeDir) OpenLog(context.Context) (ExportLog, func(), error) {
	return d.log, func() { *d.closed = true }, nil
}

type ticks struct{ n, total, done int }

func (p *ticks) Add(n int) { p.n += n }
func (p *ticks) Done()     { p.done++ }

// TestExportDirSignsWithTheServersKeyAfterItsHead: an export of a stopped
// directory is signed with the directory's key, never a new one, only
// once the log has passed through the head its projections recorded, and
// says when there is no head to compare against.
func TestExportDirSignsWithTheServersKeyAfterItsHead(t *testing.T) {
	ctx := context.Background()
	log := export(t, "ex", 6)
	lg := fakeLog{t: "ex", commits: commitsOf(log)}
	tree := checkpoint.NewTree()
	for _, c := range lg.commits[:3] {
		_ = tree.Append(c[:len(c)-1], nil)
	}
	dir := t.TempDir()
	closed := false
	d := fakeDir{dir: dir, log: lg, closed: &closed}
	if _, _, err := ExportDir(ctx, d, "ex", discard{}, DirExportOptions{}); err == nil || !strings.Contains(err.Error(), "will not make a new one") {
		t.Errorf("no keys: %v, want a refusal to make one", err)
	}
	if _, err := os.Stat(d.Keys()); err == nil {
		t.Error("ExportDir made a key")
	}
	keys, err := checkpoint.LoadOrCreateKeys(d.Keys(), "referto", nil)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name        string
		projections bool
		head        *Anchor
		warning     string
		err         string
	}{
		{"no projections", false, nil, "has no projections", ""},
		{"the projections have not seen it", true, nil, "have not seen ex", ""},
		{"through the recorded head", true, &Anchor{Size: 3, Root: tree.Root()}, "", ""},
		{"another recorded head", true, &Anchor{Size: 3, Root: make([]byte, 32)}, "", "do not have the Merkle root"},
	} {
		if tc.projections {
			if err := os.MkdirAll(d.Projections(), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		d.head, closed = tc.head, false
		var out, warnings bytes.Buffer
		p := &ticks{}
		n, signed, err := ExportDir(ctx, d, "ex", &out, DirExportOptions{Warnings: &warnings,
			Progress: func(n uint64) Progress { p.total = int(n); return p }})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || signed != "" {
				t.Errorf("%s: %v, signed %q; want %q and nothing signed", tc.name, err, signed, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		cp, err := checkpoint.Open([]byte(signed), keys.Verifier)
		if err != nil || n != 7 || cp.Size != 7 || !bytes.Equal(out.Bytes(), log) {
			t.Errorf("%s: %d events, checkpoint %+v (%v); want the log's 7 events signed with the directory's key", tc.name, n, cp, err)
		}
		if got := warnings.String(); tc.warning == "" && got != "" || !strings.Contains(got, tc.warning) || tc.warning != "" && !strings.Contains(got, dir) {
			t.Errorf("%s: warnings %q, want %q naming %s", tc.name, got, tc.warning, dir)
		}
		if p.n != 7 || p.total != len(lg.commits) || p.done != 1 || !closed {
			t.Errorf("%s: progress %+v, log closed %v; want 7 ticks of %d, done once, the log closed", tc.name, *p, closed, len(lg.commits))
		}
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
