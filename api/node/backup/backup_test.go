package backup

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/store"
)

// TestWriteIsTheLogAtTheSnapshot takes a backup of a node with two
// tournaments whose commits interleave, and checks the manifest against
// the projections, every cut of the file against Read, and commitUpTo
// against a scan of the commits.
func TestWriteIsTheLogAtTheSnapshot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nd := readyNode(ctx, t)
	admin := events.Actor{ID: "admin", Role: events.RoleAdmin}
	n := 0
	submit := func(tournament string, cmd commands.Command, route string) {
		t.Helper()
		n++
		if _, err := nd.Ledger.Submit(ctx, ledger.Submission{Tournament: tournament, Command: cmd, Actor: admin, Key: fmt.Sprint(n), Route: route}); err != nil {
			t.Fatalf("%s %s: %v", tournament, cmd.CommandType(), err)
		}
	}
	for _, id := range []string{"a", "b"} {
		submit(id, &commands.CreateTournament{ID: id, Name: "Torneo " + id, Ruleset: "rur-2015"}, ledger.RouteCreate)
	}
	for i := 1; i <= 30; i++ {
		submit("a", &commands.RegisterPlayer{Player: fmt.Sprintf("p%02d", i), Name: fmt.Sprint("P ", i)}, ledger.RouteCommands)
		if i%3 == 0 {
			submit("b", &commands.RegisterPlayer{Player: fmt.Sprintf("p%02d", i), Name: fmt.Sprint("P ", i)}, ledger.RouteCommands)
		}
	}
	last, err := nd.Log.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := nd.Runner.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	checkCommitUpTo(t, nd.Store, last)

	var whole bytes.Buffer
	m, err := Write(ctx, &whole, Source{Log: nd.Log, Store: nd.Store, Runner: nd.Runner, KeysDir: nd.Layout.Keys()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(bytes.NewReader(whole.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.LastSeq != m.LastSeq || m.LastSeq != last || m.Msgs != last || m.FirstSeq != 1 {
		t.Errorf("manifest: sequences %d..%d (%d), read back to %d; want 1..%d", m.FirstSeq, m.LastSeq, m.Msgs, b.Manifest.LastSeq, last)
	}
	if len(m.Tournaments) != 2 {
		t.Fatalf("manifest tournaments: %+v", m.Tournaments)
	}
	for _, mt := range m.Tournaments {
		ref, _, err := nd.Store.LastCommit(mt.ID)
		if err != nil {
			t.Fatal(err)
		}
		root, err := checkpoint.RootAt(ref.Last, nd.Store.NodeGetter(mt.ID))
		if err != nil {
			t.Fatal(err)
		}
		if mt.Events != ref.Last || mt.LastStreamSeq != ref.StreamSeq || !bytes.Equal(mt.Root, root) {
			t.Errorf("manifest %s: %d events up to %d, want %d up to %d with the projections' root", mt.ID, mt.Events, mt.LastStreamSeq, ref.Last, ref.StreamSeq)
		}
	}
	var names []string
	for _, k := range b.Keys {
		names = append(names, k.Name)
		if k.Name == "checkpoint.key" && k.Mode != 0o600 {
			t.Errorf("checkpoint.key mode %v in the backup", k.Mode)
		}
	}
	if strings.Join(names, " ") != "checkpoint.key checkpoint.pub" {
		t.Errorf("keys in the backup: %v", names)
	}
	if pub, ok := b.Key(checkpoint.VerifierFile); !ok || !strings.HasPrefix(string(pub), "referto+") {
		t.Errorf("Key(%s): %q, %v", checkpoint.VerifierFile, pub, ok)
	}

	// Any cut before the manifest's last byte is refused as ErrDamaged
	// (the padding and end blocks after it carry nothing).
	end := bytes.LastIndex(whole.Bytes(), []byte("\n}\n")) + 3
	for n := 0; n < end; n += 1 + n/50 {
		if _, err := Read(bytes.NewReader(whole.Bytes()[:n]), nil); !errors.Is(err, ErrDamaged) {
			t.Fatalf("cut at %d of %d: %v, want ErrDamaged", n, whole.Len(), err)
		}
	}
	// A snapshot consumer that fails is told apart from a damaged file.
	boom := errors.New("boom")
	if _, err := Read(bytes.NewReader(whole.Bytes()), func(eventlog.SnapshotInfo, io.Reader) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("consumer failure: %v", err)
	}
}

// checkCommitUpTo: for every stream sequence, commitUpTo finds the commit
// a scan of the tournament's commits finds.
func checkCommitUpTo(t *testing.T, st *store.Store, last uint64) {
	t.Helper()
	for _, id := range []string{"a", "b"} {
		all, err := st.Commits(id, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for seq := uint64(0); seq <= last; seq++ {
			var want projections.CommitRef
			found := false
			for _, c := range all {
				if c.StreamSeq <= seq {
					want, found = c, true
				}
			}
			got, ok, err := commitUpTo(st, id, seq)
			if err != nil || ok != found || got != want {
				t.Errorf("commitUpTo(%s, %d) = %+v, %v, %v; want %+v, %v", id, seq, got, ok, err, want, found)
			}
		}
	}
}

// TestCreateAndRestore: a file Create kept restores into a new directory
// whose log holds every commit at its stream sequence, byte for byte; a
// file check refuses is not kept, and a directory with something in it is
// not restored into.
func TestCreateAndRestore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := readyNode(ctx, t)
	admin := events.Actor{ID: "admin", Role: events.RoleAdmin}
	if _, err := n.Ledger.Submit(ctx, ledger.Submission{Tournament: "r", Command: &commands.CreateTournament{ID: "r", Name: "R", Ruleset: "rtu"},
		Actor: admin, Key: "k", Route: ledger.RouteCreate}); err != nil {
		t.Fatal(err)
	}
	// A hub's witness key travels with the checkpoint keys.
	if _, err := checkpoint.LoadOrCreateWitness(n.Layout.Keys(), "hub.test", rand.Reader); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fill := func(w io.Writer) error {
		_, err := Write(ctx, w, Source{Log: n.Log, Store: n.Store, Runner: n.Runner, KeysDir: n.Layout.Keys()})
		return err
	}
	refused := errors.New("not this one")
	if _, _, err := Create(dir+"/no.tar", fill, func(*Archive) error { return refused }); !errors.Is(err, refused) {
		t.Errorf("a refused file: %v", err)
	}
	file := dir + "/b.tar"
	if _, size, err := Create(file, fill, nil); err != nil || size == 0 {
		t.Fatalf("create: %d bytes, %v", size, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("beside the backup: %v", entries)
	}
	full := dir + "/full"
	if err := os.MkdirAll(full+"/x", 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, file, full); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("restore into a directory with something in it: %v", err)
	}
	b, err := Restore(ctx, file, dir+"/restored")
	if err != nil {
		t.Fatal(err)
	}
	lg, closeLog, err := node.OpenLog(ctx, node.Layout{Dir: dir + "/restored"}, node.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	got, err := lg.Get(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := n.Log.Get(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.LastSeq != 1 || !bytes.Equal(got.Data, want.Data) || got.Tournament != "r" {
		t.Errorf("restored: manifest to %d, message 1 %q; want %q", b.Manifest.LastSeq, got.Data, want.Data)
	}
	for _, name := range []string{checkpoint.WitnessSignerFile, checkpoint.WitnessVerifierFile} {
		was, _ := os.ReadFile(filepath.Join(n.Layout.Keys(), name))
		is, err := os.ReadFile(filepath.Join(dir, "restored", "keys", name))
		if err != nil || !bytes.Equal(is, was) {
			t.Errorf("restored %s: %v (same bytes: %v)", name, err, bytes.Equal(is, was))
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "restored", "keys", checkpoint.WitnessSignerFile)); err == nil && fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("the restored witness key is readable by others: %v", fi.Mode())
	}
}

// stoppedDir is a data directory with one tournament and no server on it.
func stoppedDir(ctx context.Context, t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	n, err := node.StartNode(ctx, node.NodeOptions{Data: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Ledger.Submit(ctx, ledger.Submission{Tournament: "r", Command: &commands.CreateTournament{ID: "r", Name: "R", Ruleset: "rtu"},
		Actor: events.Actor{ID: "admin", Role: events.RoleAdmin}, Key: "k", Route: ledger.RouteCreate}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTakeAsksTheServerElseReadsTheDirectory: a backup is asked of the
// server a directory's serve.json names; one left behind where nobody
// answers is passed over, with a note, for the directory read directly;
// any other failure to ask is the error; and a server whose backup does
// not carry the directory's key is refused.
func TestTakeAsksTheServerElseReadsTheDirectory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data, other := stoppedDir(ctx, t), stoppedDir(ctx, t)
	layout := node.Layout{Dir: data}
	out := filepath.Join(t.TempDir(), "b.tar")
	asked := ""
	ask := func(err error, dir string) func(context.Context, string, io.Writer) error {
		return func(ctx context.Context, url string, w io.Writer) error {
			asked = url
			if err != nil {
				return err
			}
			return WriteDir(ctx, dir, w) // what the server at url would send
		}
	}

	// No serve.json: the directory, read directly.
	b, _, from, err := Take(ctx, out, TakeOptions{Data: data, Ask: ask(errors.New("not asked"), data)})
	if err != nil || from != "" || asked != "" || len(b.Manifest.Tournaments) != 1 {
		t.Fatalf("no server: from %q (asked %q), %v; want the directory read directly", from, asked, err)
	}

	// The server serve.json names.
	if err := os.WriteFile(layout.ServeInfo(), []byte(`{"url":"http://127.0.0.1:1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, from, err := Take(ctx, out, TakeOptions{Data: data, Ask: ask(nil, data)}); err != nil || from != "http://127.0.0.1:1" {
		t.Errorf("a server announced: from %q, %v; want it asked", from, err)
	}

	// Nobody answers there: the directory, with a note.
	var notes bytes.Buffer
	refused := fmt.Errorf("backup: dial: %w", syscall.ECONNREFUSED)
	if _, _, from, err := Take(ctx, out, TakeOptions{Data: data, Ask: ask(refused, data), Notes: &notes}); err != nil || from != "" || !strings.Contains(notes.String(), "nobody answers at http://127.0.0.1:1") {
		t.Errorf("serve.json left behind: from %q, %v, notes %q; want the directory read directly, said", from, err, notes.String())
	}
	// ... but not when the URL was given: that server is the one asked.
	if _, _, _, err := Take(ctx, out, TakeOptions{Data: data, URL: "http://127.0.0.1:2", Ask: ask(refused, data)}); !errors.Is(err, syscall.ECONNREFUSED) || asked != "http://127.0.0.1:2" {
		t.Errorf("--url where nobody answers: %v (asked %q); want the refusal", err, asked)
	}
	failed := errors.New("401")
	if _, _, _, err := Take(ctx, out, TakeOptions{Data: data, Ask: ask(failed, data)}); !errors.Is(err, failed) {
		t.Errorf("a server that refuses: %v, want its refusal", err)
	}

	// The server announced runs on another directory.
	if _, _, _, err := Take(ctx, out, TakeOptions{Data: data, Ask: ask(nil, other)}); err == nil || !strings.Contains(err.Error(), "does not run on "+data) {
		t.Errorf("another directory's backup: %v, want it refused", err)
	}
}

// readyNode starts a node on a new data directory, closed when the test
// ends, once its projections are ready.
func readyNode(ctx context.Context, t *testing.T) *node.Node {
	t.Helper()
	n, err := node.StartNode(ctx, node.NodeOptions{Data: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	if err := n.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return n
}
