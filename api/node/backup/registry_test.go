package backup

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/eventlog"
)

// hubNode is a node holding tournament a (players p1 and p2 registered
// with national ids 100001 and 100002, p3 without one) and, as at a
// national hub, a season registry in which p3 is linked, 100002 merged
// into 100001 and 100001 disqualified for May, followed on the
// registry's subject by a message the hub did not write.
func hubNode(ctx context.Context, t *testing.T) (*node.Node, *registry.Keeper) {
	t.Helper()
	n := readyNode(ctx, t)
	admin := events.Actor{ID: "admin", Role: events.RoleAdmin}
	for i, cmd := range []commands.Command{
		&commands.CreateTournament{ID: "a", Name: "A", Ruleset: "rtu"},
		&commands.RegisterPlayer{Player: "p1", Name: "P 1", NationalID: "100001"},
		&commands.RegisterPlayer{Player: "p2", Name: "P 2", NationalID: "100002"},
		&commands.RegisterPlayer{Player: "p3", Name: "P 3"},
	} {
		route := ledger.RouteCommands
		if i == 0 {
			route = ledger.RouteCreate
		}
		if _, err := n.Ledger.Submit(ctx, ledger.Submission{Tournament: "a", Command: cmd, Actor: admin, Key: fmt.Sprint(i), Route: route}); err != nil {
			t.Fatal(err)
		}
	}
	// The registry's roster reads the projections: they hold tournament a
	// once they have applied the log's last commit.
	last, err := n.Log.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Runner.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Open(ctx, registry.Options{Conn: n.Conn, Keys: n.Keys, Roster: registry.NewRoster(n.Store, n.Runner)})
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range []string{
		`{"type":"LinkNationalID","tournament":"a","player":"p3","national_id":"100003"}`,
		`{"type":"MergePlayers","from":"100002","into":"100001","reason":"one person"}`,
		`{"type":"RecordDisqualification","national_id":"100001","from":"2024-05-01","to":"2024-05-31","reason":"art. 5"}`,
	} {
		cmd, err := commands.ParseRegistry([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reg.Submit(ctx, registry.Submission{Command: cmd, Actor: admin, Key: fmt.Sprint("r", i), Request: body}); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
	}
	if _, err := n.Conn.Request(eventlog.RegistryPrefix+events.RegistryID, []byte(`{"not":"the hub's"}`+"\n"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	return n, reg
}

// hubBackup is a backup of hubNode's node with its registry, as bytes.
func hubBackup(ctx context.Context, t *testing.T) (*node.Node, *registry.Keeper, []byte) {
	t.Helper()
	n, reg := hubNode(ctx, t)
	var whole bytes.Buffer
	state := func() ([]byte, error) { return []byte(hubStateFile), nil }
	if _, err := Write(ctx, &whole, Source{Log: n.Log, Store: n.Store, Runner: n.Runner, Registry: reg, KeysDir: n.Layout.Keys(), HubState: state}); err != nil {
		t.Fatal(err)
	}
	return n, reg, whole.Bytes()
}

// hubStateFile stands for a hub's state file (hub.Hub.State).
const hubStateFile = `{"venues":{"roma":{"key":"roma+1234abcd+AQ"}}}`

// onJetStream calls fn with a connection to an embedded JetStream on the
// store of data directory dir, no server running on it.
func onJetStream(t *testing.T, dir string, fn func(nc *nats.Conn)) {
	t.Helper()
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: node.Layout{Dir: dir}.NATS()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fn(nc)
}

// registryMessages is every message of the registry's stream on nc, as
// stored; none without one.
func registryMessages(ctx context.Context, t *testing.T, nc *nats.Conn) []events.StoredCommit {
	t.Helper()
	lg, err := eventlog.Open(ctx, nc, eventlog.Options{Stream: eventlog.RegistryStream, Prefix: eventlog.RegistryPrefix, Existing: true})
	if errors.Is(err, events.ErrNoLog) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	last, err := lg.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []events.StoredCommit
	if err := lg.Scan(ctx, 1, last, "", func(m events.StoredCommit) error { out = append(out, m); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAHubsBackupRestoresItsRegistryByteForByte: a backup of a node with a
// season registry is FormatRegistry and carries the registry's stream,
// its manifest the stream's state and the head the registry had folded;
// restored, every message of that stream is back at its sequence, byte
// for byte (the one the hub did not write too), and the registry opened on
// it folds to the same head and the same registry.
func TestAHubsBackupRestoresItsRegistryByteForByte(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, reg, whole := hubBackup(ctx, t)
	b, err := Read(bytes.NewReader(whole), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := b.Manifest
	if string(b.HubState) != hubStateFile {
		t.Errorf("the hub's state in its backup: %q, want %q", b.HubState, hubStateFile)
	}
	live, err := registry.Fold(ctx, n.Conn, n.Keys)
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != FormatRegistry || m.Registry == nil || b.RegistryInfo == nil {
		t.Fatalf("a hub's backup: format %q, registry %+v", m.Format, m.Registry)
	}
	r := m.Registry
	if r.Stream != eventlog.RegistryStream || r.FirstSeq != 1 || r.LastSeq != 4 || r.Msgs != 4 || r.Events != 3 ||
		!bytes.Equal(r.Root, live.Root) || !bytes.Equal(r.Last, live.Last) || r.Unfolded != "" || r.Snapshot.Parts == 0 {
		t.Errorf("the manifest's registry %+v; want stream %s, sequences 1..4, the 3 events folded with root %x", r, eventlog.RegistryStream, live.Root)
	}
	if m.Files["stream/"+eventlog.RegistryStream+".json"] == "" || len(m.Tournaments) != 1 {
		t.Errorf("the manifest's files %v, tournaments %+v", m.Files, m.Tournaments)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "hub.tar")
	if err := os.WriteFile(file, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(dir, "restored")
	if _, err := Restore(ctx, file, restored); err != nil {
		t.Fatal(err)
	}
	want := registryMessages(ctx, t, n.Conn)
	onJetStream(t, restored, func(nc *nats.Conn) {
		if got := registryMessages(ctx, t, nc); len(want) != 4 || !reflect.DeepEqual(got, want) {
			t.Errorf("the restored registry's stream:\n%+v\nwant\n%+v", got, want)
		}
	})

	// Started on the restored directory, the registry is the one backed up.
	again, err := node.StartNode(ctx, node.NodeOptions{Data: restored})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	reg2, err := registry.Open(ctx, registry.Options{Conn: again.Conn, Keys: again.Keys, Roster: registry.NewRoster(again.Store, again.Runner), Existing: true})
	if err != nil {
		t.Fatal(err)
	}
	folded, n2, err := reg2.Registry()
	if err != nil {
		t.Fatal(err)
	}
	was, size, _ := reg.Registry()
	if n2 != size || !reflect.DeepEqual(folded, was) || folded.Resolve("100002") != "100001" {
		t.Errorf("the restored registry: %d events %+v; want %d, %+v", n2, folded, size, was)
	}
	if cp2, _, _ := reg2.Checkpoint(); !strings.Contains(cp2, fmt.Sprintf("\n%d\n", size)) {
		t.Errorf("the restored registry's checkpoint:\n%s", cp2)
	}
}

// TestABackupWithoutARegistryIsFormat1: a node with no registry (a venue)
// writes a backup as before there was one to back up (Format, no
// registry's entry, no registry in the manifest), which restores with no
// registry stream; and a hub's backup rewritten as an older referto wrote
// it (its registry's entries and its state dropped, the manifest Format without them)
// still reads and restores, the registry left out.
func TestABackupWithoutARegistryIsFormat1(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	venue, err := node.StartNode(ctx, node.NodeOptions{Data: stoppedDir(ctx, t)})
	if err != nil {
		t.Fatal(err)
	}
	defer venue.Close()
	if err := venue.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	m, err := Write(ctx, &plain, Source{Log: venue.Log, Store: venue.Store, Runner: venue.Runner, KeysDir: venue.Layout.Keys()})
	if err != nil {
		t.Fatal(err)
	}
	names := entryNames(t, plain.Bytes())
	if m.Format != Format || m.Registry != nil || strings.Join(names, " ") != "keys/checkpoint.key keys/checkpoint.pub stream/REFERTO.json stream/REFERTO.snapshot.000001 manifest.json" {
		t.Errorf("a venue's backup: format %q, registry %+v, entries %v", m.Format, m.Registry, names)
	}
	if _, mj := entry(t, plain.Bytes(), "manifest.json"); bytes.Contains(mj, []byte(`"registry"`)) {
		t.Errorf("a venue's manifest names a registry:\n%s", mj)
	}

	_, _, hub := hubBackup(ctx, t)
	older := rewrite(t, hub, func(name string) bool {
		return strings.HasPrefix(name, "stream/"+eventlog.RegistryStream+".") || name == HubStateEntry
	}, func(m *Manifest) {
		m.Format, m.Registry = Format, nil
		delete(m.Files, "stream/"+eventlog.RegistryStream+".json")
		delete(m.Files, HubStateEntry)
	})
	for _, c := range []struct {
		name string
		file []byte
	}{{"a venue's", plain.Bytes()}, {"a hub's, written without its registry", older}} {
		t.Run(c.name, func(t *testing.T) {
			b, err := Read(bytes.NewReader(c.file), nil)
			if err != nil || b.Manifest.Format != Format || b.RegistryInfo != nil {
				t.Fatalf("read: %v", err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "b.tar"), c.file, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Restore(ctx, filepath.Join(dir, "b.tar"), filepath.Join(dir, "restored")); err != nil {
				t.Fatal(err)
			}
			lg, closeLog, err := node.OpenLog(ctx, node.Layout{Dir: filepath.Join(dir, "restored")}, node.LogOptions{})
			if err != nil {
				t.Fatal(err)
			}
			last, err := lg.LastSeq(ctx)
			closeLog()
			if err != nil || last != b.Manifest.LastSeq || last == 0 {
				t.Errorf("the restored log ends at %d (%v), want %d", last, err, b.Manifest.LastSeq)
			}
			onJetStream(t, filepath.Join(dir, "restored"), func(nc *nats.Conn) {
				if msgs := registryMessages(ctx, t, nc); msgs != nil {
					t.Errorf("a registry restored from a backup without one: %d messages", len(msgs))
				}
			})
		})
	}
}

// TestATamperedRegistryIsRefused: a hub's backup whose registry part was
// changed, dropped or described otherwise is refused: by Read when a
// checksum or the format says so, by Restore when only the restored
// registry can contradict the manifest; and nothing is left behind.
func TestATamperedRegistryIsRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, whole := hubBackup(ctx, t)
	part := "stream/" + eventlog.RegistryStream + ".snapshot.000001"
	at, data := entry(t, whole, part)
	flipped := bytes.Clone(whole)
	flipped[at+len(data)/2] ^= 0x20
	isRegistry := func(name string) bool { return strings.HasPrefix(name, "stream/"+eventlog.RegistryStream+".") }
	stateAt, state := entry(t, whole, HubStateEntry)
	stateFlipped := bytes.Clone(whole)
	stateFlipped[stateAt+len(state)/2] ^= 0x20
	keep := func(string) bool { return false }
	for _, c := range []struct {
		name    string
		file    []byte
		damaged bool // Read refuses it
		want    string
	}{
		{"a byte changed in the registry's snapshot", flipped, true, "the snapshot of REGISTRY"},
		{"a byte changed in the hub's state", stateFlipped, true, "hub.json is damaged"},
		{"the hub's state dropped", rewrite(t, whole, func(name string) bool { return name == HubStateEntry }, func(*Manifest) {}), true, "the manifest lists 5"},
		{"the hub's state kept, the manifest Format", rewrite(t, whole, func(name string) bool { return isRegistry(name) }, func(m *Manifest) { m.Format, m.Registry = Format, nil }), true, "with a hub's state"},
		{"the registry's snapshot dropped", rewrite(t, whole, func(name string) bool { return name == part }, func(*Manifest) {}), true, "the snapshot of REGISTRY"},
		{"the registry's entries dropped, the manifest still FormatRegistry", rewrite(t, whole, isRegistry, func(*Manifest) {}), true, "without the season registry's snapshot"},
		{"the registry's entries kept, the manifest Format", rewrite(t, whole, keep, func(m *Manifest) { m.Format = Format }), true, "with a season registry"},
		{"the manifest's registry dropped", rewrite(t, whole, keep, func(m *Manifest) { m.Registry = nil }), true, "without the season registry's snapshot"},
		{"another sequence in the manifest", rewrite(t, whole, keep, func(m *Manifest) { m.Registry.LastSeq-- }), true, "the snapshot of REGISTRY holds sequences"},
		{"another root in the manifest", rewrite(t, whole, keep, func(m *Manifest) { m.Registry.Root[0] ^= 1 }), false, "Merkle root"},
		{"another last line in the manifest", rewrite(t, whole, keep, func(m *Manifest) { m.Registry.Last[0] ^= 1 }), false, "the restored season registry holds 3 events"},
		{"fewer events in the manifest", rewrite(t, whole, keep, func(m *Manifest) { m.Registry.Events-- }), false, "the restored season registry holds 3 events"},
		{"a registry that did not fold, says the manifest", rewrite(t, whole, keep, func(m *Manifest) { m.Registry.Unfolded = "line 2: bad link" }), false, "the hub's did not"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(c.file), nil)
			if c.damaged != (err != nil) || (err != nil && (!errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want))) {
				t.Errorf("read: %v; want refused (%v) saying %q", err, c.damaged, c.want)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "b.tar"), c.file, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Restore(ctx, filepath.Join(dir, "b.tar"), filepath.Join(dir, "restored")); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("restore: %v, want an error saying %q", err, c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// TestWriteDirTakesAHubsRegistry: a stopped hub's data directory is backed
// up with its registry, a stopped venue's without one (and is not given
// one by the backup).
func TestWriteDirTakesAHubsRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, _ := hubNode(ctx, t)
	hubDir := n.Layout.Dir
	n.Close()
	venueDir := stoppedDir(ctx, t)
	for _, c := range []struct {
		dir    string
		events uint64
	}{{hubDir, 3}, {venueDir, 0}} {
		var buf bytes.Buffer
		if err := WriteDir(ctx, c.dir, &buf); err != nil {
			t.Fatal(err)
		}
		b, err := Read(&buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := b.Manifest.Registry; (r != nil) != (c.events > 0) || (r != nil && r.Events != c.events) {
			t.Errorf("%s: the manifest's registry %+v, want %d events", c.dir, r, c.events)
		}
	}
	onJetStream(t, venueDir, func(nc *nats.Conn) {
		if _, err := eventlog.Open(ctx, nc, eventlog.Options{Stream: eventlog.RegistryStream, Prefix: eventlog.RegistryPrefix, Existing: true}); !errors.Is(err, events.ErrNoLog) {
			t.Errorf("the venue's directory after its backup: %v, want no registry stream", err)
		}
	})
}

// entryNames lists a tar's entries in order.
func entryNames(t *testing.T, whole []byte) []string {
	t.Helper()
	var names []string
	tr := tar.NewReader(bytes.NewReader(whole))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
	}
}

// entry returns the offset of an entry's contents in a tar and the
// contents.
func entry(t *testing.T, whole []byte, name string) (int, []byte) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(whole))
	for {
		hdr, err := tr.Next()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if hdr.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return bytes.Index(whole, b), b
		}
	}
}

// rewrite returns the backup without the entries drop names and with its
// manifest changed, every other checksum left as it was.
func rewrite(t *testing.T, whole []byte, drop func(string) bool, change func(*Manifest)) []byte {
	t.Helper()
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	tr := tar.NewReader(bytes.NewReader(whole))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if drop(hdr.Name) {
			continue
		}
		if hdr.Name == "manifest.json" {
			var m Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			change(&m)
			b, _ = json.MarshalIndent(m, "", "  ")
			hdr.Size = int64(len(b))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestAnEmptyHubRestores: a hub just started, which holds no tournament
// and has recorded nothing in its registry (both streams made at its
// first start, empty), is backed up with both, and restores: an empty
// stream's first sequence is not held against it.
func TestAnEmptyHubRestores(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := readyNode(ctx, t)
	reg, err := registry.Open(ctx, registry.Options{Conn: n.Conn, Keys: n.Keys, Roster: registry.NewRoster(n.Store, n.Runner)})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "hub.tar")
	b, _, err := Create(file, func(w io.Writer) error {
		_, err := Write(ctx, w, Source{Log: n.Log, Store: n.Store, Runner: n.Runner, Registry: reg, KeysDir: n.Layout.Keys()})
		return err
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := b.Manifest.Registry; r == nil || r.Msgs != 0 || r.Events != 0 || r.Unfolded != "" || b.Manifest.Msgs != 0 {
		t.Fatalf("the manifest: %d commits, registry %+v", b.Manifest.Msgs, r)
	}
	if _, err := Restore(ctx, file, filepath.Join(dir, "restored")); err != nil {
		t.Fatal(err)
	}
	onJetStream(t, filepath.Join(dir, "restored"), func(nc *nats.Conn) {
		if _, err := eventlog.Open(ctx, nc, eventlog.Options{Stream: eventlog.RegistryStream, Prefix: eventlog.RegistryPrefix, Existing: true}); err != nil {
			t.Errorf("the restored registry's stream: %v", err)
		}
	})
}
