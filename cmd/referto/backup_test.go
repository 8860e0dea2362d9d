package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// bkJSON GETs a JSON document with the test administrator's token and
// decodes it for comparison.
func bkJSON(t *testing.T, url, path string) any {
	t.Helper()
	var v any
	if err := (&client.Client{Base: url, Token: testAdmin}).Get(context.Background(), path, &v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return v
}

func readManifest(t *testing.T, file string) backup.Manifest {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := backup.Read(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.Manifest
}

func (m manifestView) tournament(t *testing.T, id string) backup.Tournament {
	t.Helper()
	for _, x := range m.Tournaments {
		if x.ID == id {
			return x
		}
	}
	t.Fatalf("the manifest lists no tournament %s: %+v", id, m.Tournaments)
	return backup.Tournament{}
}

type manifestView struct{ backup.Manifest }

// TestBackupWhileServingRestoresTheSameLedger backs up a demo Raduno from
// the server running on it while another tournament takes registrations,
// restores the backup into a new directory and serves it: the restored
// node serves what the original served at the backup's instant, exactly
// the registrations acknowledged before it, and an export of it verifies
// with the original server's key.
func TestBackupWhileServingRestoresTheSameLedger(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	data, restored, file := filepath.Join(dir, "data"), filepath.Join(dir, "restored"), filepath.Join(dir, "backup.tar")
	mustCLI(t, "demo", "--data", data, "--players", "48", "--seed", "3")
	adminHash := []byte(api.TokenHash(testAdmin) + "\n")
	if err := os.WriteFile(filepath.Join(data, "keys", "admin-token.sha256"), adminHash, 0o600); err != nil {
		t.Fatal(err)
	}
	orig := startChild(t, data)
	if si, ok := (node.Layout{Dir: data}).Announced(); !ok || si.URL != orig.url {
		t.Fatalf("serve.json: %+v, %v; want the URL %s", si, ok, orig.url)
	}

	// A second tournament takes a registration after another, before,
	// during and after the backup.
	ctx := context.Background()
	admin := &client.Client{Base: orig.url, Token: testAdmin}
	if _, err := admin.CreateTournament(ctx, "", client.NewTournament{ID: "live", Name: "Torneo dal vivo", Ruleset: "rur-2015"}); err != nil {
		t.Fatalf("create: %v", err)
	}
	var mu sync.Mutex
	seqOf := map[string]uint64{} // player → the seq of its acknowledged registration
	acked := func() int { mu.Lock(); defer mu.Unlock(); return len(seqOf) }
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := fmt.Sprintf("p%03d", i)
			o, err := admin.Command(ctx, "live", "reg-"+p, &commands.RegisterPlayer{Player: p, Name: fmt.Sprint("Giocatore ", i)})
			if err != nil {
				t.Errorf("register %s: %v", p, err)
				return
			}
			mu.Lock()
			seqOf[p] = o.Seq
			mu.Unlock()
		}
	}()
	waitAcked := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); acked() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("only %d registrations acknowledged", acked())
			}
		}
	}
	waitAcked(10)
	snapshotOf := func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]bool{}
		for p := range seqOf {
			out[p] = true
		}
		return out
	}
	before := snapshotOf()
	// Standings and players of the demo: the tournament is over, so what
	// the server serves now is what it served at the backup's instant.
	demoWant := map[string]any{}
	for _, path := range []string{"/players", "/standings", "/classification", ""} {
		demoWant[path] = bkJSON(t, orig.url, "/v1/tournaments/raduno-demo"+path)
	}

	start := time.Now()
	out := mustCLI(t, "backup", "--data", data, "--out", file, "--token", testAdmin)
	took := time.Since(start)
	if !strings.Contains(out, "from the server at "+orig.url) {
		t.Errorf("the backup was not asked of the running server: %s", out)
	}
	during := snapshotOf()
	waitAcked(len(during) + 10)
	close(stop)
	<-stopped
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file mode %v, want 0600: it holds the signing key", fi.Mode().Perm())
	}
	t.Logf("backup of the demo while serving: %d bytes in %v, %d registrations acknowledged during it", fi.Size(), took, len(during)-len(before))

	m := manifestView{readManifest(t, file)}
	live := m.tournament(t, "live")
	demo := m.tournament(t, "raduno-demo")
	// The backup is the log at one instant: every registration acknowledged
	// before the backup began is in it, none acknowledged after it ended.
	mu.Lock()
	var inBackup []string
	for p, seq := range seqOf {
		if seq <= live.Events {
			inBackup = append(inBackup, p)
		}
		if before[p] && seq > live.Events {
			t.Errorf("%s, acknowledged (seq %d) before the backup began, is not in it (%d events)", p, seq, live.Events)
		}
		if !during[p] && seq <= live.Events {
			t.Errorf("%s, acknowledged (seq %d) after the backup ended, is in it (%d events)", p, seq, live.Events)
		}
	}
	mu.Unlock()
	slices.Sort(inBackup)
	liveStandings := bkJSON(t, orig.url, fmt.Sprintf("/v1/tournaments/live/standings?at=%d", live.Events))

	if d, err := orig.terminate(); err != nil {
		t.Fatalf("stop the original: %v (%v)", err, d)
	}
	if _, err := os.Stat(node.Layout{Dir: data}.ServeInfo()); !os.IsNotExist(err) {
		t.Errorf("serve.json is still there after a clean stop: %v", err)
	}

	out = mustCLI(t, "restore", "--in", file, "--data", restored)
	if !strings.Contains(out, "the Merkle roots of 2 tournaments") {
		t.Errorf("restore said %q", out)
	}
	for _, k := range []struct {
		name string
		mode os.FileMode
	}{{"checkpoint.key", 0o600}, {"checkpoint.pub", 0}, {"admin-token.sha256", 0o600}} {
		got, err := os.ReadFile(filepath.Join(restored, "keys", k.name))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(data, "keys", k.name))
		if !bytes.Equal(got, want) {
			t.Errorf("keys/%s restored differs from the original", k.name)
		}
		fi, _ := os.Stat(filepath.Join(restored, "keys", k.name))
		wfi, _ := os.Stat(filepath.Join(data, "keys", k.name))
		if want := wfi.Mode().Perm(); fi.Mode().Perm() != want || k.mode != 0 && want != k.mode {
			t.Errorf("keys/%s mode %v, the original's %v", k.name, fi.Mode().Perm(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(restored, "projections")); !os.IsNotExist(err) {
		t.Errorf("restore made projections (%v): they are rebuilt at first start", err)
	}

	// The restored node serves what the original served at the backup.
	rest := startChild(t, restored)
	for path, want := range demoWant {
		if got := bkJSON(t, rest.url, "/v1/tournaments/raduno-demo"+path); !reflect.DeepEqual(got, want) {
			t.Errorf("raduno-demo%s differs after the restore", path)
		}
	}
	if got := bkJSON(t, rest.url, "/v1/tournaments/live/standings"); !reflect.DeepEqual(got, liveStandings) {
		t.Errorf("live standings: restored %v\nthe original's at event %d: %v", got, live.Events, liveStandings)
	}
	again := admin.As(testAdmin)
	again.Base = rest.url
	players, err := again.Players(ctx, "live")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range players.Players {
		got = append(got, p.Player)
	}
	slices.Sort(got)
	if !slices.Equal(got, inBackup) {
		t.Errorf("restored players %v, want the %d acknowledged up to event %d: %v", got, len(inBackup), live.Events, inBackup)
	}
	// The restored node takes commands where the backup left off.
	if o, err := again.Command(ctx, "live", "", &commands.RegisterPlayer{Player: "q001", Name: "Dopo"}); err != nil || o.Seq != live.Events+1 {
		t.Errorf("a command on the restored node: seq %d %v, want seq %d", o.Seq, err, live.Events+1)
	}
	if _, err := rest.terminate(); err != nil {
		t.Fatal(err)
	}

	// An export of the restored data verifies with the original's key.
	key := filepath.Join(data, "keys", "checkpoint.pub")
	for _, tc := range []struct {
		id     string
		events uint64
	}{{"raduno-demo", demo.Events}, {"live", live.Events + 1}} {
		log := filepath.Join(dir, tc.id+".ndjson")
		mustCLI(t, "export", "--data", restored, "--tournament", tc.id, "--out", log)
		if out := mustCLI(t, "verify", "--log", log, "--key", key); !strings.Contains(out, fmt.Sprintf("verdict: OK (%d events", tc.events)) {
			t.Errorf("verify %s: %s", tc.id, out)
		}
	}
}

// TestBackupOfAStoppedDirectory backs up a directory no server runs on and
// restores it: every message comes back at its stream sequence with its
// subject, message id, time and bytes.
func TestBackupOfAStoppedDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole tournament")
	}
	dir := t.TempDir()
	data, restored, file := filepath.Join(dir, "data"), filepath.Join(dir, "restored"), filepath.Join(dir, "b.tar")
	mustCLI(t, "demo", "--data", data, "--players", "24", "--seed", "5")
	// A serve.json left by a server that was killed points nowhere.
	if err := os.WriteFile(node.Layout{Dir: data}.ServeInfo(), []byte(`{"url":"http://127.0.0.1:1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustCLI(t, "backup", "--data", data, "--out", file); !strings.Contains(out, "directly from "+data) {
		t.Errorf("backup said %q", out)
	}
	mustCLI(t, "restore", "--in", file, "--data", restored)
	if a, b := streamOf(t, data), streamOf(t, restored); !reflect.DeepEqual(a, b) {
		t.Errorf("the restored stream differs: %d messages, the original %d", len(b), len(a))
	} else if len(a) == 0 {
		t.Error("empty stream")
	}
}

// streamOf reads every message of a data directory's stream.
func streamOf(t *testing.T, dir string) []events.StoredCommit {
	t.Helper()
	ctx := context.Background()
	lg, closeAll, err := node.OpenLog(ctx, node.Layout{Dir: dir}, node.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	last, err := lg.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []events.StoredCommit
	if err := lg.Scan(ctx, 1, last, "", func(m events.StoredCommit) error {
		m.Time = m.Time.UTC()
		out = append(out, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRestoreRefusesWhatItCannotTrust: a target that is not empty, a file
// cut short or damaged anywhere, and a log that does not have the Merkle
// roots of the manifest are all refused, leaving nothing behind.
func TestRestoreRefusesWhatItCannotTrust(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole tournament")
	}
	dir := t.TempDir()
	data, file := filepath.Join(dir, "data"), filepath.Join(dir, "b.tar")
	mustCLI(t, "demo", "--data", data, "--players", "24", "--seed", "5")
	mustCLI(t, "backup", "--data", data, "--out", file)
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	// Not into a directory with something in it.
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "nats"), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := cli(t, "restore", "--in", file, "--data", full); err == nil || !strings.Contains(out+err.Error(), "is not empty") {
		t.Errorf("restore into a non-empty directory: %v %s", err, out)
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 || entries[0].Name() != "nats" {
		t.Errorf("the non-empty directory was touched: %v", entries)
	}
	// An empty one is fine.
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "restore", "--in", file, "--data", empty)

	part, partData := entryOf(t, whole, "stream/REFERTO.snapshot.000001")
	_, keyData := entryOf(t, whole, "keys/checkpoint.key")
	manifest, manifestData := entryOf(t, whole, "manifest.json")
	flip := func(at int) []byte {
		b := bytes.Clone(whole)
		b[at] ^= 0x20
		return b
	}
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "cut short"},
		{"cut in the keys", whole[:700], "cut short"},
		{"cut in the snapshot", whole[:part+len(partData)/2], "cut short"},
		{"cut before the manifest", whole[:part+len(partData)+(512-len(partData)%512)%512], "cut short"},
		{"cut in the manifest", whole[:manifest+len(manifestData)/2], "cut short"},
		{"last byte missing", whole[:len(whole)-1], "cut short"},
		{"a byte changed in the snapshot", flip(part + len(partData)/2), "damaged"},
		{"a byte changed in the signing key", flip(bytes.Index(whole, keyData) + 20), "keys/checkpoint.key is damaged"},
		{"not a backup", []byte(strings.Repeat("referto\n", 400)), "not a complete referto backup"},
		{"roots that are not the log's", rewriteManifest(t, whole, func(m *backup.Manifest) { m.Tournaments[0].Root[0] ^= 1 }), "the Merkle root of the"},
		{"a sequence the log does not end at", rewriteManifest(t, whole, func(m *backup.Manifest) { m.Tournaments[0].LastStreamSeq-- }), "up to stream sequence"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			bad, target := filepath.Join(sub, "bad.tar"), filepath.Join(sub, "restored")
			if err := os.WriteFile(bad, tc.file, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := cli(t, "restore", "--in", bad, "--data", target)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("restore: %v, want an error saying %q\n%s", err, tc.want, out)
			}
			if entries, _ := os.ReadDir(sub); len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

// entryOf returns the offset of an entry's contents in a tar and the
// contents.
func entryOf(t *testing.T, whole []byte, name string) (int, []byte) {
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
			at := bytes.Index(whole, b)
			if at < 0 {
				t.Fatalf("%s not found", name)
			}
			return at, b
		}
	}
}

// rewriteManifest returns the backup with its manifest changed, every
// checksum left intact: what only the restored log can contradict.
func rewriteManifest(t *testing.T, whole []byte, change func(*backup.Manifest)) []byte {
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
		if hdr.Name == "manifest.json" {
			var m backup.Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			change(&m)
			b, _ = json.Marshal(m)
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

// TestAKilledRestoreLeavesNoKeyBehind: a restore killed (SIGKILL) while it
// works leaves its staging directory beside the target, with a copy of the
// signing key; the next restore into that target removes it, says so, and
// restores.
func TestAKilledRestoreLeavesNoKeyBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole tournament, and a process killed")
	}
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, restored, file := filepath.Join(dir, "data"), filepath.Join(dir, "restored"), filepath.Join(dir, "b.tar")
	mustCLI(t, "demo", "--data", data, "--players", "140", "--seed", "7")
	mustCLI(t, "backup", "--data", data, "--out", file)
	staging := func() []string {
		found, _ := filepath.Glob(filepath.Join(dir, ".restored.restoring-*"))
		return found
	}
	// Killed once its staging directory holds the signing key (a
	// restore that outran the test is undone and tried again).
	var left []string
	for attempt := 0; attempt < 5 && left == nil; attempt++ {
		cmd := exec.Command(bin, "restore", "--in", file, "--data", restored)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if s := staging(); len(s) == 1 {
				if _, err := os.Stat(filepath.Join(s[0], "keys", checkpoint.SignerFile)); err == nil {
					_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
					left = s
					break
				}
			}
			if _, err := os.Stat(restored); err == nil && len(staging()) == 0 {
				break // done before it was killed
			}
			time.Sleep(time.Millisecond)
		}
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if left == nil {
			if err := os.RemoveAll(restored); err != nil {
				t.Fatal(err)
			}
		}
	}
	if left == nil {
		t.Fatal("every restore finished before it could be killed")
	}
	if s := staging(); len(s) != 1 || s[0] != left[0] {
		t.Fatalf("after the kill: staging %v, want %v left", s, left)
	}
	out := mustCLI(t, "restore", "--in", file, "--data", restored)
	if !strings.Contains(out, "removed "+left[0]) {
		t.Errorf("the next restore did not say it removed %s:\n%s", left[0], out)
	}
	if s := staging(); len(s) != 0 {
		t.Errorf("after the next restore: %v left", s)
	}
	if a, b := streamOf(t, data), streamOf(t, restored); !reflect.DeepEqual(a, b) || len(a) == 0 {
		t.Errorf("the restored stream: %d messages, the original %d", len(b), len(a))
	}
}

// TestADataDirectoryIsItsOwnersAlone: every directory and file referto
// serve creates in a new data directory (the embedded JetStream's, the
// projections', the keys, serve.json), and every one a restore creates, is
// its owner's alone.
func TestADataDirectoryIsItsOwnersAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary: skipped in -short mode")
	}
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	data, restored, file := filepath.Join(base, "data"), filepath.Join(base, "restored"), filepath.Join(base, "b.tar")
	c := startChild(t, data)
	ctx := context.Background()
	admin := &client.Client{Base: c.url, Token: testAdmin}
	if _, err := admin.CreateTournament(ctx, "", client.NewTournament{ID: "t1", Name: "T", Ruleset: "rtu"}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Command(ctx, "t1", "", &commands.RegisterPlayer{Player: "p1", Name: "Anna"}); err != nil {
		t.Fatal(err)
	}
	wide := func(dir string) []string {
		t.Helper()
		var open []string
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if fi.Mode().Perm()&0o077 != 0 {
				open = append(open, fmt.Sprintf("%s %v", path, fi.Mode().Perm()))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return open
	}
	// While it serves (serve.json is there), and after it stopped.
	if open := wide(data); len(open) > 0 {
		t.Errorf("open to others while serve runs:\n%s", strings.Join(open, "\n"))
	}
	if _, err := c.terminate(); err != nil {
		t.Fatal(err)
	}
	if open := wide(data); len(open) > 0 {
		t.Errorf("open to others:\n%s", strings.Join(open, "\n"))
	}
	for _, args := range [][]string{{"backup", "--data", data, "--out", file}, {"restore", "--in", file, "--data", restored}} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if open := wide(restored); len(open) > 0 {
		t.Errorf("open to others after a restore:\n%s", strings.Join(open, "\n"))
	}
}
