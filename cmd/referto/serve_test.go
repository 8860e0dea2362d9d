package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/store"
)

// serveIn runs serve on dir in this process, on a loopback port, until
// ctx ends: its URL, and where its end is told.
func serveIn(ctx context.Context, t *testing.T, dir string) (string, chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", dir, "--addr", "127.0.0.1:0"},
			func(k string) string { return map[string]string{"REFERTO_ADMIN_TOKEN": testAdmin}[k] }, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url string
	for sc.Scan() {
		if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		t.Fatalf("serve did not print its address: %v", <-done)
	}
	return url, done
}

func TestServeInProcess(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	url, done := serveIn(ctx, t, dir)
	c := &client.Client{Base: url, Token: testAdmin}
	if err := c.Healthy(ctx); err != nil {
		t.Fatalf("healthz: %v", err)
	}
	// Commands wait for readiness (the projections caught up): poll it.
	for deadline := time.Now().Add(20 * time.Second); !c.Ready(ctx); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not ready within 20s")
		}
	}
	if _, err := c.CreateTournament(ctx, "", client.NewTournament{ID: "t1", Name: "T", Ruleset: "rtu"}); err != nil {
		t.Fatalf("create: %v", err)
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		// Wait for the server before t.TempDir is removed under it.
		t.Errorf("serve did not shut down within 5s")
		select {
		case <-done:
		case <-time.After(time.Minute):
		}
		return
	}
	t.Logf("in-process shutdown took %v", time.Since(start))
}

func TestServeConfiguration(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "--replicas", "9", "--sync", "sometimes", "--addr", "nope", "--log-level", "loud"}, func(string) string { return "" }, io.Discard, &stderr)
	if err == nil {
		t.Fatal("invalid configuration accepted")
	}
	for _, want := range []string{"--replicas", "--sync", "--addr", "--log-level"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("configuration errors do not mention %s:\n%s", want, stderr.String())
		}
	}
	// Environment variables stand in for flags.
	c, err := parseServe(nil, func(k string) string {
		return map[string]string{"REFERTO_DATA": "/d", "REFERTO_ADDR": "127.0.0.1:9", "REFERTO_SYNC": "2m"}[k]
	}, io.Discard)
	if err != nil || c.Data != "/d" || c.Addr != "127.0.0.1:9" || c.NodeOptions(nil).SyncInterval != 2*time.Minute {
		t.Errorf("from environment: %+v, %v", c, err)
	}
	// The disk reserve, with its unit; one too small to fit the stores' worst case is refused, saying the least.
	for arg, want := range map[string]uint64{"128MiB": 128 << 20, "1GiB": 1 << 30, "536870912": 512 << 20, "400 mib": 400 << 20} {
		if c, err := parseServe([]string{"--disk-reserve", arg}, func(string) string { return "" }, io.Discard); err != nil || c.NodeOptions(nil).DiskReserve != want {
			t.Errorf("--disk-reserve %s: %d %v, want %d", arg, c.NodeOptions(nil).DiskReserve, err, want)
		}
	}
	for arg, says := range map[string]string{"10MiB": "at least 50 MiB", "lots": "512MiB", "5PiB": "512MiB", "-1": "512MiB"} {
		var stderr bytes.Buffer
		if _, err := parseServe([]string{"--disk-reserve", arg}, func(string) string { return "" }, &stderr); err == nil || !strings.Contains(stderr.String(), says) {
			t.Errorf("--disk-reserve %s: %v %s, want an error saying %q", arg, err, stderr.String(), says)
		}
	}
	if c, err := parseServe(nil, func(k string) string { return map[string]string{"REFERTO_DISK_RESERVE": "256MiB"}[k] }, io.Discard); err != nil || c.NodeOptions(nil).DiskReserve != 256<<20 {
		t.Errorf("REFERTO_DISK_RESERVE: %d %v", c.NodeOptions(nil).DiskReserve, err)
	}
	// The address phones open: a URL, from the flag or the environment.
	if c, err := parseServe(nil, func(k string) string { return map[string]string{"REFERTO_PUBLIC_URL": "http://192.168.1.20:8080"}[k] }, io.Discard); err != nil || c.PublicURL != "http://192.168.1.20:8080" {
		t.Errorf("REFERTO_PUBLIC_URL: %q %v", c.PublicURL, err)
	}
	var bad bytes.Buffer
	if _, err := parseServe([]string{"--public-url", "192.168.1.20:8080"}, func(string) string { return "" }, &bad); err == nil || !strings.Contains(bad.String(), "--public-url") {
		t.Errorf("--public-url without a scheme: %v %s", err, bad.String())
	}
	if err := run(context.Background(), []string{"serve", "--help"}, func(string) string { return "" }, io.Discard, io.Discard); err != nil {
		t.Errorf("--help: %v", err)
	}
	if err := run(context.Background(), []string{"frobnicate"}, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}

func TestSIGTERMShutsDownWithinFiveSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary: skipped in -short mode")
	}
	dir := t.TempDir()
	c := startChild(t, dir)
	ctx := context.Background()
	if _, err := (&client.Client{Base: c.url, Token: testAdmin}).CreateTournament(ctx, "", client.NewTournament{ID: "t1", Name: "T", Ruleset: "rtu"}); err != nil {
		t.Fatalf("create: %v", err)
	}
	took, err := c.terminate()
	if err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, c.log())
	}
	if took > 5*time.Second {
		t.Errorf("shutdown took %v, want < 5s", took)
	}
	t.Logf("SIGTERM to exit: %v", took)
	c = startChild(t, dir)
	if s, err := (&client.Client{Base: c.url}).Tournament(ctx, "t1"); err != nil || s.Seq != 1 {
		t.Errorf("after restart: %+v %v", s, err)
	}
}

// TestSIGKILLMidLoadLosesNothing: 8 clients send commands, the server is
// killed with SIGKILL mid-load and restarted. Every command that got a 201
// is in the log exactly once with the seq it was acknowledged with, seqs are
// contiguous, retries of in-flight commands return one outcome each, and the
// projections equal a rebuild from scratch.
func TestSIGKILLMidLoadLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary: skipped in -short mode")
	}
	dir := t.TempDir()
	c := startChild(t, dir)
	ctx := context.Background()
	hc := &http.Client{Timeout: 10 * time.Second}
	admin := &client.Client{Base: c.url, Token: testAdmin, HTTP: hc}
	if _, err := admin.CreateTournament(ctx, "", client.NewTournament{ID: "crash", Name: "Crash", Ruleset: "rtu"}); err != nil {
		t.Fatalf("create: %v", err)
	}
	off, err := admin.AppointOfficial(ctx, "crash", client.Official{Name: "A", Role: events.RoleArbiter})
	if err != nil {
		t.Fatalf("appoint: %v", err)
	}
	arb := admin.As(off.Token)

	type sent struct {
		key, body string
		seq       uint64 // 0 when not acknowledged
	}
	var mu sync.Mutex
	var all []*sent
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for cl := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				s := &sent{key: fmt.Sprintf("c%d-%d", cl, i), body: fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d-%d","name":"Player %d/%d"}`, cl, i, cl, i)}
				mu.Lock()
				all = append(all, s)
				mu.Unlock()
				o, err := arb.CommandJSON(ctx, "crash", s.key, []byte(s.body))
				if p, ok := problem(err); ok {
					t.Errorf("%s: %v", s.key, p)
					return
				}
				if err != nil {
					return // the server died under us: this one is in flight
				}
				mu.Lock()
				s.seq = o.Seq
				mu.Unlock()
			}
		}()
	}
	// Let the load build up, then kill.
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		acked := 0
		for _, s := range all {
			if s.seq > 0 {
				acked++
			}
		}
		mu.Unlock()
		if acked >= 300 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.kill()
	close(stop)
	wg.Wait()

	acked, inflight := 0, 0
	for _, s := range all {
		if s.seq > 0 {
			acked++
		} else {
			inflight++
		}
	}
	t.Logf("killed with SIGKILL after %d acknowledged commands, %d in flight", acked, inflight)
	if acked < 50 {
		t.Fatalf("only %d commands acknowledged before the kill", acked)
	}

	c = startChild(t, dir)
	arb.Base = c.url
	logged := readLog(t, arb)
	for _, s := range all {
		if s.seq == 0 {
			continue
		}
		seqs := logged[s.key]
		if len(seqs) != 1 || seqs[0] != s.seq {
			t.Errorf("acknowledged %s at seq %v; the log has it at %v", s.key, s.seq, seqs)
		}
	}
	// Retrying in-flight commands with their key gives exactly one outcome
	// each: the original if it landed, else a new append.
	for _, s := range all {
		if s.seq > 0 {
			continue
		}
		o, err := arb.CommandJSON(ctx, "crash", s.key, []byte(s.body))
		if err != nil {
			t.Fatalf("retry %s: %v", s.key, err)
		}
		again, err := arb.CommandJSON(ctx, "crash", s.key, []byte(s.body))
		if err != nil || again.Seq != o.Seq {
			t.Errorf("second retry of %s: seq %d %v, first retry seq %d", s.key, again.Seq, err, o.Seq)
		}
	}
	logged = readLog(t, arb)
	for _, s := range all {
		if n := len(logged[s.key]); n != 1 {
			t.Errorf("%s is in the log %d times", s.key, n)
		}
	}
	if took, err := c.terminate(); err != nil || took > 5*time.Second {
		t.Errorf("clean stop after the crash test: %v after %v", err, took)
	}
	compareWithRebuild(t, dir)
}

// readLog pages through the tournament's events, checks that seqs are
// contiguous from 1, and returns the seqs of each command id.
func readLog(t *testing.T, c *client.Client) map[string][]uint64 {
	t.Helper()
	envs, err := c.AllEvents(context.Background(), "crash")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]uint64{}
	for i, env := range envs {
		if env.Seq != uint64(i+1) {
			t.Fatalf("seq %d follows %d", env.Seq, i)
		}
		out[env.CommandID] = append(out[env.CommandID], env.Seq)
	}
	return out
}

// compareWithRebuild rebuilds the projections of a stopped node's log into
// an empty directory and compares them byte for byte with the node's own.
func compareWithRebuild(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	lg, closeAll, err := node.OpenLog(ctx, node.Layout{Dir: dir}, node.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	last, err := lg.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dumpOf := func(path string, rebuild bool) []byte {
		st, err := store.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if rebuild {
			r := store.NewRunner(lg, st, store.RunnerOptions{})
			rctx, rcancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- r.Run(rctx) }()
			if err := r.WaitFor(ctx, last); err != nil {
				t.Fatal(err)
			}
			rcancel()
			<-done
		}
		var b bytes.Buffer
		if err := st.Dump(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	live := dumpOf(dir+"/projections", false)
	rebuilt := dumpOf(t.TempDir(), true)
	if !bytes.Equal(live, rebuilt) {
		t.Errorf("projections after the crash differ from a rebuild (%d vs %d bytes)", len(live), len(rebuilt))
	}
	t.Logf("projections equal a rebuild of %d stream messages (%d bytes)", last, len(live))
}

// TestAdminTokenIsPrintedOnceAndKeptHashed: without REFERTO_ADMIN_TOKEN the
// first start prints a new token once and keeps only its hash, readable by
// the owner alone; later starts reuse the hash and print nothing.
func TestAdminTokenIsPrintedOnceAndKeptHashed(t *testing.T) {
	layout := node.Layout{Dir: t.TempDir()}
	if err := os.MkdirAll(layout.Keys(), 0o700); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	hash, err := adminToken(layout, func(string) string { return "" }, &out)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(out.String()[strings.LastIndex(out.String(), " "):])
	if api.TokenHash(token) != hash {
		t.Fatalf("printed %q, kept hash %s", out.String(), hash)
	}
	path := filepath.Join(layout.Dir, "keys", "admin-token.sha256")
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("%s: mode %v, %v; want 0600", path, info.Mode().Perm(), err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), token) {
		t.Error("the token itself is on disk")
	}
	out.Reset()
	again, err := adminToken(layout, func(string) string { return "" }, &out)
	if err != nil || again != hash || out.Len() != 0 {
		t.Errorf("second start: %s %v, printed %q", again, err, out.String())
	}
}

// TestEverySubcommandSaysWhatItDoes: each subcommand's --help begins with
// a sentence saying what it does, then its flags; --version says which
// referto this is.
func TestEverySubcommandSaysWhatItDoes(t *testing.T) {
	for _, c := range subcommands {
		if c.run == nil {
			continue
		}
		var stderr bytes.Buffer
		if err := run(context.Background(), []string{c.name, "--help"}, func(string) string { return "" }, io.Discard, &stderr); err != nil {
			t.Errorf("%s --help: %v", c.name, err)
		}
		help := stderr.String()
		if !strings.HasPrefix(help, "usage: referto "+c.name) {
			t.Errorf("%s --help does not begin with its usage:\n%s", c.name, help)
		}
		s := sentences[c.name]
		if s == "" || !strings.HasSuffix(s, ".") {
			t.Errorf("%s has no sentence of its own: %q", c.name, s)
		}
		// A subcommand whose help is its own (backup, restore, import) says
		// what it does in its own words, a paragraph of sentences.
		own := !strings.Contains(help, "\n\nflags:\n")
		if (!own && !strings.Contains(help, s)) || (own && !regexp.MustCompile(`\n\n[A-Z][^\n]*(\n[^\n]+)*\.\n`).MatchString(help)) {
			t.Errorf("%s --help does not say what it does (%q):\n%s", c.name, s, help)
		}
	}
	for _, arg := range []string{"--version", "version"} {
		var stdout bytes.Buffer
		if err := run(context.Background(), []string{arg}, func(string) string { return "" }, &stdout, io.Discard); err != nil || !strings.HasPrefix(stdout.String(), "referto ") || !strings.Contains(stdout.String(), "go1.") {
			t.Errorf("%s: %v %q", arg, err, stdout.String())
		}
	}
}

// TestExportDataOfARunningServerSaysUseURL: export --data on a directory
// a running serve holds is refused before anything is opened, saying to
// ask the server (--url) instead.
func TestExportDataOfARunningServerSaysUseURL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server: skipped in -short mode")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	url, done := serveIn(ctx, t, dir)
	err := run(ctx, []string{"export", "--data", dir, "--tournament", "t1", "--out", filepath.Join(t.TempDir(), "t1.ndjson")},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "referto serve is running on "+dir) || !strings.Contains(err.Error(), "use --url "+url) {
		t.Errorf("export --data of a running server: %v", err)
	}
	cancel()
	<-done
}
