package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/events"
)

// The fault-injection suite: real referto processes (hub and venue), real
// files of the venue's data directory damaged as a disk or a crash damages
// them, then the venue started on them, then referto repair. For every kind
// of damage it shows that the venue names the first damaged event and the
// remedy (in /readyz, in its log, in every refused command and on every
// page), serves no shorter log as healthy and appends nothing over the
// damage, and that the repair brings every acknowledged command back,
// byte for byte at its seq, so that the next command gets the next seq.

// damageWorld is a hub and the pristine data directory of its venue "v":
// two tournaments whose commands interleave in the venue's stream, every
// one acknowledged, all of it sourced and cosigned by the hub.
type damageWorld struct {
	tournaments     []string
	base            string
	hubAPI, witness string
	// killed is the venue's directory after a SIGKILL (no JetStream index
	// written); stopped after a clean stop (index written).
	killed, stopped string
	// oldBackup holds the first half of the commands, fullBackup all.
	oldBackup, fullBackup string
	exports               map[string][]byte // by tournament: the log as acknowledged
	acked                 map[string]uint64 // by tournament: the last seq answered 201
	// msgs is the stream as acknowledged: by stream sequence, the
	// tournament and first event of each commit.
	msgs map[uint64]streamMsg
}

type streamMsg struct {
	t     string
	first uint64
}

// newDamageWorld makes the world; with generated > 0 the venue's log
// begins with a synthetic tournament "bench" of about that many events
// (referto generate), enough for JetStream to store the log in several
// blocks.
func newDamageWorld(t *testing.T, generated int) *damageWorld {
	t.Helper()
	ctx := context.Background()
	w := &damageWorld{tournaments: []string{"alfa", "beta"}, base: t.TempDir(), exports: map[string][]byte{}, acked: map[string]uint64{}, msgs: map[uint64]streamMsg{}}
	leaf := fmt.Sprintf("127.0.0.1:%d", freeTCPPort(t))
	h := startSub(t, "hub", filepath.Join(w.base, "hub"), "--leaf", leaf)
	hc := admin(h.url)
	w.hubAPI = h.url
	venueDir := filepath.Join(w.base, "venue")
	if generated > 0 {
		if out, errOut, code := runReferto(t, "generate", "--data", venueDir, "--events", strconv.Itoa(generated), "--rounds", "2"); code != 0 {
			t.Fatalf("generate: exit %d\n%s\n%s", code, out, errOut)
		}
		w.tournaments = append(w.tournaments, "bench")
	}
	pw, err := hc.IssueVenueLink(ctx, "v", "")
	if err != nil {
		t.Fatal(err)
	}
	v := startChild(t, venueDir, "--hub", fmt.Sprintf("nats://v:%s@%s", pw, leaf), "--venue", "v")
	vc := admin(v.url)
	k, err := vc.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := hc.RegisterVenue(ctx, "v", k.Checkpoint); err != nil {
		t.Fatal(err)
	}
	hk, err := hc.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.witness = hk.Witness
	send := func(tn, body string) {
		t.Helper()
		var o client.Outcome
		var err error
		if strings.HasPrefix(body, `{"id"`) {
			var nt client.NewTournament
			json.Unmarshal([]byte(body), &nt)
			o, err = vc.CreateTournament(ctx, "", nt)
		} else {
			o, err = vc.CommandJSON(ctx, tn, "", []byte(body))
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", tn, body, err)
		}
		w.acked[tn] = max(w.acked[tn], o.Seq)
	}
	for _, tn := range w.tournaments[:2] {
		send(tn, fmt.Sprintf(`{"id":%q,"name":"Torneo %s","ruleset":"rtu"}`, tn, tn))
	}
	for i := 1; i <= 24; i++ {
		for _, tn := range w.tournaments[:2] {
			send(tn, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"Giocatore %d di %s","club":"Club %d"}`, i, i, tn, i%3))
		}
		if i == 12 {
			w.oldBackup = filepath.Join(w.base, "old.tar")
			w.backup(t, v.url, w.oldBackup)
		}
	}
	for _, tn := range w.tournaments {
		until(t, 3*time.Minute, "the hub cosigned "+tn+" as the venue acknowledged it", func() (bool, string) { return converged(t, hc, vc, tn) })
		w.exports[tn] = exportOf(t, v.url, tn)
		if tn == "bench" {
			sum, err := vc.Tournament(ctx, tn)
			if err != nil {
				t.Fatal(err)
			}
			w.acked[tn] = sum.Seq
		}
	}
	w.fullBackup = filepath.Join(w.base, "full.tar")
	w.backup(t, v.url, w.fullBackup)
	v.kill()
	w.killed = filepath.Join(w.base, "killed")
	copyDir(t, venueDir, w.killed)
	w.msgs = blockCommits(t, w.killed)
	if generated == 0 && len(w.msgs) != 2+2*24 {
		t.Fatalf("the venue's blocks hold %d commits, want %d", len(w.msgs), 2+2*24)
	}
	// Started on a copy and stopped cleanly, it writes JetStream's index.
	w.stopped = filepath.Join(w.base, "stopped")
	copyDir(t, venueDir, w.stopped)
	s := startChild(t, w.stopped)
	if _, err := s.terminate(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(msgDir(t, w.stopped), "index.db")); err != nil {
		t.Fatalf("a clean stop wrote no JetStream index: %v", err)
	}
	return w
}

func (w *damageWorld) backup(t *testing.T, url, out string) {
	t.Helper()
	var o bytes.Buffer
	if err := run(context.Background(), []string{"backup", "--url", url, "--token", testAdmin, "--out", out}, func(string) string { return "" }, &o, &o); err != nil {
		t.Fatalf("backup: %v\n%s", err, o.String())
	}
}

// msgDir is the directory of the venue's JetStream message blocks.
func msgDir(t *testing.T, dir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "nats", "jetstream", "*", "streams", "REFERTO", "msgs"))
	if err != nil || len(m) != 1 {
		t.Fatalf("no JetStream message directory in %s: %v %v", dir, m, err)
	}
	return m[0]
}

// blkRecord is one record of a JetStream message block (nats-server's
// filestore: record length with the headers bit, sequence, timestamp,
// subject length, subject, headers, data, checksum).
type blkRecord struct {
	off, len   int
	seq        uint64
	subj       int // subject length
	hasHeaders bool
}

const blkHeaderBit = 1 << 31

func blkRecords(b []byte) []blkRecord {
	var out []blkRecord
	for off := 0; off+22 <= len(b); {
		rl := binary.LittleEndian.Uint32(b[off:])
		r := blkRecord{off: off, len: int(rl &^ blkHeaderBit), seq: binary.LittleEndian.Uint64(b[off+4:]),
			subj: int(binary.LittleEndian.Uint16(b[off+20:])), hasHeaders: rl&blkHeaderBit != 0}
		if r.len < 22 || off+r.len > len(b) {
			break
		}
		out = append(out, r)
		off += r.len
	}
	return out
}

// blocks are the venue's message block files, in order.
func blocks(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(msgDir(t, dir), "*.blk"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no message block in %s: %v", dir, err)
	}
	index := func(f string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".blk"))
		return n
	}
	slices.SortFunc(m, func(a, b string) int { return index(a) - index(b) })
	return m
}

// blockCommits reads the venue's blocks: by stream sequence, each commit's
// tournament and first event.
func blockCommits(t *testing.T, dir string) map[uint64]streamMsg {
	t.Helper()
	out := map[uint64]streamMsg{}
	for _, f := range blocks(t, dir) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range blkRecords(b) {
			subj := string(b[r.off+22 : r.off+22+r.subj])
			data := b[r.off+22+r.subj : r.off+r.len-8]
			if r.hasHeaders {
				hl := int(binary.LittleEndian.Uint32(data))
				data = data[4+hl:]
			}
			line, _, _ := bytes.Cut(data, []byte("\n"))
			var env events.Envelope
			if err := json.Unmarshal(line, &env); err != nil {
				t.Fatalf("stream sequence %d: %v", r.seq, err)
			}
			out[r.seq] = streamMsg{t: strings.TrimPrefix(subj, "referto.t."), first: env.Seq}
		}
	}
	return out
}

// flip changes one byte of the record of stream sequence seq, at an offset
// within it chosen by where, and returns seq.
func flip(t *testing.T, dir string, seq uint64, where func(blkRecord) int) uint64 {
	t.Helper()
	for _, f := range blocks(t, dir) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range blkRecords(b) {
			if r.seq == seq {
				b[r.off+where(r)] ^= 0x20
				if err := os.WriteFile(f, b, 0o600); err != nil {
					t.Fatal(err)
				}
				return seq
			}
		}
	}
	t.Fatalf("no record of stream sequence %d", seq)
	return 0
}

// The places a byte is flipped in a record.
var (
	inBody   = func(r blkRecord) int { return r.len - 8 - 12 }      // in the commit's JSON, before the checksum
	inHeader = func(r blkRecord) int { return 22 + r.subj + 4 + 2 } // in "NATS/1.0", the headers' first line
	inLength = func(r blkRecord) int { return 1 }                   // the record length's second byte
)

// present lists the stream sequences the venue's blocks hold now.
func present(t *testing.T, dir string) map[uint64]bool {
	t.Helper()
	out := map[uint64]bool{}
	for _, f := range blocks(t, dir) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range blkRecords(b) {
			out[r.seq] = true
		}
	}
	return out
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v\n%s", from, err, out)
	}
	os.Remove(filepath.Join(to, "serve.json"))
}

// runReferto runs the referto binary to its end and returns its output and
// exit code.
func runReferto(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "REFERTO_ADMIN_TOKEN="+testAdmin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("referto %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// readiness is what /readyz says of the damage.
type readiness struct {
	Ready       bool     `json:"ready"`
	NotReady    []string `json:"not_ready"`
	Halted      string   `json:"halted"`
	Projections struct {
		Ready bool `json:"ready"`
	} `json:"projections"`
	Damage []struct {
		Tournament   string `json:"tournament"`
		Seq          uint64 `json:"seq"`
		Acknowledged uint64 `json:"acknowledged"`
		What         string `json:"what"`
		Remedy       string `json:"remedy"`
	} `json:"damage"`
}

func readyz(t *testing.T, url string) readiness {
	t.Helper()
	res, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r readiness
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Ready != (res.StatusCode == 200) {
		t.Errorf("/readyz: ready %v with status %d", r.Ready, res.StatusCode)
	}
	return r
}

// expectDamage is, for each tournament, the first event the venue must
// name damaged: the first of its events in a commit the log lost
// (nats-server dropped it, or every later one of its block) or in the one
// changed.
func (w *damageWorld) expectDamage(t *testing.T, dir string, changed uint64) map[string]uint64 {
	t.Helper()
	have := present(t, dir)
	want := map[string]uint64{}
	for s, m := range w.msgs {
		if !have[s] || s == changed {
			if cur, ok := want[m.t]; !ok || m.first < cur {
				want[m.t] = m.first
			}
		}
	}
	return want
}

// damagedVenue is the venue started on a damaged copy of the world.
type damagedVenue struct {
	c   *child
	dir string
}

// checkDamaged starts the venue on dir and checks that it says, for every
// tournament of want, that its log is damaged at that event and what to
// do, refuses its commands and its export, and shows it on its pages.
// When the stream lost its end (halted), every command is refused: a new
// one would be stored where a lost one was; otherwise the intact
// tournaments take commands as before, and accepted says which did.
func (w *damageWorld) checkDamaged(t *testing.T, dir string, want map[string]uint64, halted bool) (accepted map[string]uint64) {
	t.Helper()
	c := launch(t, "serve", dir)
	defer c.kill()
	ctx := context.Background()
	var r readiness
	until(t, 2*time.Minute, "/readyz names the damage, the projections caught up", func() (bool, string) {
		r = readyz(t, c.url)
		return len(r.Damage) == len(want) && r.Projections.Ready, fmt.Sprintf("%+v", r)
	})
	if r.Ready || (r.Halted != "") != halted {
		t.Errorf("a venue with a damaged log: ready %v, halted %q (want %v)", r.Ready, r.Halted, halted)
	}
	accepted = map[string]uint64{}
	for _, d := range r.Damage {
		if d.Seq != want[d.Tournament] {
			t.Errorf("/readyz: %s damaged at event %d, want %d (%s)", d.Tournament, d.Seq, want[d.Tournament], d.What)
		}
		if d.Acknowledged != w.acked[d.Tournament] || !strings.Contains(d.Remedy, "referto repair --data "+dir) {
			t.Errorf("/readyz: %s: acknowledged %d (want %d), remedy %q", d.Tournament, d.Acknowledged, w.acked[d.Tournament], d.Remedy)
		}
	}
	vc := admin(c.url)
	vc.RetryUnavailable = 0
	for _, tn := range w.tournaments {
		_, err := vc.CommandJSON(ctx, tn, "after-the-damage", []byte(`{"type":"RegisterPlayer","player":"late","name":"Ritardatario"}`))
		p, isProblem := problem(err)
		if seq, damaged := want[tn]; damaged {
			if !isProblem || p.Status != 503 || p.Code != "log_damaged" || !strings.Contains(p.Detail, fmt.Sprintf("damaged at event %d", seq)) ||
				!strings.Contains(p.Detail, "referto repair") {
				t.Errorf("a command on %s, damaged: %v, want 503 log_damaged naming event %d and the repair", tn, err, seq)
			}
			if res, err := vc.Send(ctx, "GET", "/v1/tournaments/"+tn+"/export", nil, nil); err != nil || res.StatusCode != 503 {
				t.Errorf("export of %s, damaged: %v %v, want 503", tn, res.Status, err)
			} else {
				res.Body.Close()
			}
		} else if halted {
			if !isProblem || p.Status != 503 || p.Code != "log_damaged" || !strings.Contains(p.Detail, "every command is refused") {
				t.Errorf("a command on %s, intact in a stream that lost its end: %v, want 503 log_damaged", tn, err)
			}
		} else if err != nil {
			t.Errorf("a command on %s, intact: %v", tn, err)
		} else {
			accepted[tn] = 1
		}
		res, err := http.Get(c.url + "/ui/t/" + tn + "/")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for dt, seq := range want {
			if banner := fmt.Sprintf("Il registro del torneo %s è danneggiato dall&#39;evento %d", dt, seq); !bytes.Contains(page, []byte(banner)) {
				t.Errorf("the page of %s does not show %q", tn, banner)
			}
		}
	}
	// A backup of it would not restore: none is taken.
	if res, err := vc.Send(ctx, "GET", "/v1/admin/backup", nil, nil); err != nil || res.StatusCode != 503 {
		t.Errorf("a backup of a damaged log: %v %v, want 503", res.Status, err)
	} else {
		res.Body.Close()
	}
	until(t, 10*time.Second, "the log says what is damaged and what to do", func() (bool, string) {
		l := c.log()
		return strings.Contains(l, `"msg":"log damaged"`) && strings.Contains(l, "referto repair"), l
	})
	if _, err := c.terminate(); err != nil {
		t.Error(err)
	}
	return accepted
}

// checkRepaired starts the venue on dir, repaired, and checks that it
// serves every tournament's log as acknowledged, byte for byte (with the
// extra commands an intact tournament took meanwhile after it), and takes
// the next command at the next seq: none acknowledged twice.
func (w *damageWorld) checkRepaired(t *testing.T, dir string, extra map[string]uint64) {
	t.Helper()
	c := startChild(t, dir)
	defer c.kill()
	vc := admin(c.url)
	for _, tn := range w.tournaments {
		if got := exportOf(t, c.url, tn); !bytes.HasPrefix(got, w.exports[tn]) || extra[tn] == 0 && len(got) != len(w.exports[tn]) {
			t.Errorf("%s after the repair: %d bytes, not the %d acknowledged", tn, len(got), len(w.exports[tn]))
		}
		if tn == "bench" {
			continue // generated with its registration closed
		}
		o, err := vc.CommandJSON(context.Background(), tn, "after-the-repair", []byte(`{"type":"RegisterPlayer","player":"repaired","name":"Dopo la riparazione"}`))
		if want := w.acked[tn] + extra[tn] + 1; err != nil || o.Seq != want {
			t.Errorf("the next command of %s: seq %d, %v; want %d", tn, o.Seq, err, want)
		}
	}
	if _, err := c.terminate(); err != nil {
		t.Error(err)
	}
}

// repair runs referto repair on dir with args and checks it succeeds.
func (w *damageWorld) repair(t *testing.T, dir string, args ...string) {
	t.Helper()
	out, errOut, code := runReferto(t, append([]string{"repair", "--data", dir}, args...)...)
	if code != 0 || !strings.Contains(out, "repaired") {
		t.Fatalf("repair %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	t.Logf("repair %v:\n%s", args, out)
}

// TestLogDamageIsNamedAndRepaired is the suite: for each kind of damage to
// the venue's log files, the venue names the first damaged event and the
// remedy and appends nothing; referto repair brings back every
// acknowledged command from the hub's copy or a backup.
func TestLogDamageIsNamedAndRepaired(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes: a hub, a venue, damaged files, referto repair")
	}
	w := newDamageWorld(t, 0)
	// A commit of alfa in the middle of the stream, and the last commit.
	var middle, last uint64
	for s, m := range w.msgs {
		last = max(last, s)
		if m.t == "alfa" && m.first == 12 {
			middle = s
		}
	}
	cases := []struct {
		name    string
		from    string // the pristine directory damaged
		noIndex bool
		damage  func(t *testing.T, dir string) uint64 // the stream sequence changed, 0 when none
		repair  []string
	}{
		{name: "torn tail after SIGKILL", from: w.killed, damage: func(t *testing.T, dir string) uint64 {
			bs := blocks(t, dir)
			f := bs[len(bs)-1]
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(f, fi.Size()-200); err != nil {
				t.Fatal(err)
			}
			return 0
		}, repair: []string{"--hub", w.hubAPI, "--witness", w.witness}},
		{name: "flipped byte in a body", from: w.stopped, damage: func(t *testing.T, dir string) uint64 { return flip(t, dir, middle, inBody) },
			repair: []string{"--hub", w.hubAPI, "--witness", w.witness}},
		{name: "flipped byte in a body, no index", from: w.stopped, noIndex: true, damage: func(t *testing.T, dir string) uint64 { return flip(t, dir, middle, inBody) },
			repair: []string{"--hub", w.hubAPI}},
		{name: "flipped byte in a header", from: w.stopped, damage: func(t *testing.T, dir string) uint64 { return flip(t, dir, middle, inHeader) },
			repair: []string{"--hub", w.hubAPI, "--witness", w.witness}},
		{name: "flipped byte in a header, no index", from: w.stopped, noIndex: true, damage: func(t *testing.T, dir string) uint64 { return flip(t, dir, middle, inHeader) },
			repair: []string{"--backup", w.fullBackup}},
		{name: "flipped byte in a length", from: w.stopped, damage: func(t *testing.T, dir string) uint64 { return flip(t, dir, middle, inLength) },
			repair: []string{"--backup", w.oldBackup, "--hub", w.hubAPI}},
		{name: "flipped byte in a length, no index", from: w.killed, noIndex: true, damage: func(t *testing.T, dir string) uint64 { return flip(t, dir, middle, inLength) },
			repair: []string{"--hub", w.hubAPI, "--witness", w.witness}},
		{name: "the last commit's body, no index", from: w.killed, noIndex: true, damage: func(t *testing.T, dir string) uint64 { return flip(t, dir, last, inBody) },
			repair: []string{"--backup", w.fullBackup}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(w.base, fmt.Sprintf("case-%d", i))
			copyDir(t, tc.from, dir)
			changed := tc.damage(t, dir)
			if tc.noIndex {
				os.Remove(filepath.Join(msgDir(t, dir), "index.db"))
			}
			accepted := w.checkDamagedAt(t, dir, changed, tc.noIndex || tc.from == w.killed)
			w.repair(t, dir, tc.repair...)
			w.checkRepaired(t, dir, accepted)
		})
	}
	// A backup of half the commands cannot bring back the others: the
	// repair says which event is missing and replaces nothing; with the
	// hub's copy it can.
	t.Run("an old backup alone", func(t *testing.T) {
		dir := filepath.Join(w.base, "old-backup-alone")
		copyDir(t, w.stopped, dir)
		flip(t, dir, middle, inLength)
		out, errOut, code := runReferto(t, "repair", "--data", dir, "--backup", w.oldBackup)
		if code != 1 || !strings.Contains(errOut, "cannot be repaired") || !strings.Contains(errOut, "it is missing: the log ends at event") {
			t.Errorf("repair from a backup of half the commands: exit %d\n%s\n%s", code, out, errOut)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "nats.*")); len(m) > 0 {
			t.Errorf("a failed repair left %v", m)
		}
		w.repair(t, dir, "--backup", w.oldBackup, "--hub", w.hubAPI)
		w.checkRepaired(t, dir, nil)
	})
}

// checkDamagedAt starts the venue on the damaged dir once, to let
// nats-server recover its blocks (dropping what it cannot read), works out
// what the venue must name, and checks it does. noIndex says the blocks
// were left without JetStream's index.
func (w *damageWorld) checkDamagedAt(t *testing.T, dir string, changed uint64, noIndex bool) map[string]uint64 {
	t.Helper()
	// What nats-server keeps of the blocks is known once it has opened
	// them: the first start, which checkDamaged's is.
	c := launch(t, "serve", dir)
	until(t, 60*time.Second, "/readyz names some damage", func() (bool, string) {
		r := readyz(t, c.url)
		return len(r.Damage) > 0, fmt.Sprintf("%+v", r)
	})
	if _, err := c.terminate(); err != nil {
		t.Fatal(err)
	}
	// Deleting the projections hides nothing: the record of acknowledged
	// heads is apart from them, and the damage is named without their
	// leaf hashes, by the links of the events after it.
	if err := os.RemoveAll(filepath.Join(dir, "projections")); err != nil {
		t.Fatal(err)
	}
	want := w.expectDamage(t, dir, changed)
	if len(want) == 0 {
		t.Fatal("the damage lost nothing")
	}
	// The stream lost its end when its last commit is gone and, without
	// an index to say where its sequence stood, nats-server starts it
	// again after the last one it has: a new command would take a lost
	// one's sequence.
	var last uint64
	for s := range w.msgs {
		last = max(last, s)
	}
	halted := !present(t, dir)[last] && noIndex
	t.Logf("expected damage: %v, halted %v", want, halted)
	return w.checkDamaged(t, dir, want, halted)
}

// TestADeletedBlockIsNamedAndRepaired: the venue's log spans several
// JetStream blocks (a generated tournament of 14,000 events first); its
// first block is deleted, with and without JetStream's index. The venue
// names the first event of each tournament the block held, the others take
// commands on, and the repair brings the block's messages back from the
// hub's copy.
func TestADeletedBlockIsNamedAndRepaired(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes: a hub, a venue, a generated log of several blocks, referto repair")
	}
	w := newDamageWorld(t, 14000)
	if n := len(blocks(t, w.stopped)); n < 2 {
		t.Fatalf("the log is in %d block, want several", n)
	}
	for i, noIndex := range []bool{false, true} {
		t.Run(fmt.Sprintf("index %v", !noIndex), func(t *testing.T) {
			dir := filepath.Join(w.base, fmt.Sprintf("deleted-%d", i))
			copyDir(t, w.stopped, dir)
			if err := os.Remove(blocks(t, dir)[0]); err != nil {
				t.Fatal(err)
			}
			if noIndex {
				os.Remove(filepath.Join(msgDir(t, dir), "index.db"))
			}
			accepted := w.checkDamagedAt(t, dir, 0, noIndex)
			w.repair(t, dir, "--hub", w.hubAPI, "--witness", w.witness)
			w.checkRepaired(t, dir, accepted)
		})
	}
}

// TestServeTwiceOnOneDirectory: a second referto serve on a data directory
// one already serves stops before writing anything there, naming the
// first one's pid, and the first one's administrator's token still works.
func TestServeTwiceOnOneDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes")
	}
	dir := t.TempDir()
	first := startChild(t, dir)
	token := filepath.Join(dir, "keys", "admin-token.sha256")
	before, err := os.ReadFile(token)
	if err != nil {
		// The first serve took its token from the environment: the file
		// a second one would make must not appear either.
		before = nil
	}
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	second := exec.CommandContext(ctx, bin, "serve", "--data", dir, "--addr", "127.0.0.1:0")
	second.Env = append(os.Environ(), "REFERTO_ADMIN_TOKEN=") // a second serve would make a new token
	out, err := second.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("the second serve: %v, want exit status 1\n%s", err, out)
	}
	if want := fmt.Sprintf("data directory %s in use by referto (pid %d)", dir, first.cmd.Process.Pid); !strings.Contains(string(out), want) {
		t.Errorf("the second serve says %q, want %q", out, want)
	}
	if strings.Contains(string(out), "panic") || strings.Contains(string(out), "admin token") {
		t.Errorf("the second serve went further than the lock:\n%s", out)
	}
	after, _ := os.ReadFile(token)
	if !bytes.Equal(before, after) {
		t.Errorf("the administrator's token hash changed under the running server: %q, was %q", after, before)
	}
	if _, err := admin(first.url).CreateTournament(context.Background(), "", client.NewTournament{ID: "ancora", Name: "Ancora", Ruleset: "rtu"}); err != nil {
		t.Errorf("the first server after the second tried: %v", err)
	}
}

// TestAMissingKeyStopsTheStart: a data directory whose log holds commits
// and whose signing key is missing, or unreadable, does not start: the
// cause is said, exit 1, and no new key is made. A new key is made only for
// an empty log.
func TestAMissingKeyStopsTheStart(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes")
	}
	dir := t.TempDir()
	c := startChild(t, dir)
	if _, err := admin(c.url).CreateTournament(context.Background(), "", client.NewTournament{ID: "chiavi", Name: "Chiavi", Ruleset: "rtu"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.terminate(); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "keys", "checkpoint.key")
	good, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		damage     func() error
	}{
		{"missing", "signing key " + key + " is missing, but the log holds commits signed with it", func() error { return os.Remove(key) }},
		{"garbage", "cannot be used", func() error { return os.WriteFile(key, []byte("not a key\n"), 0o600) }},
		{"cut short", "cannot be used", func() error { return os.WriteFile(key, good[:len(good)/2], 0o600) }},
		{"unreadable", "cannot be used", func() error { // a directory where the file was: read fails, for root too
			if err := os.Remove(key); err != nil {
				return err
			}
			return os.Mkdir(key, 0o700)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.damage(); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runReferto(t, "serve", "--data", dir, "--addr", "127.0.0.1:0")
			if code != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "restore") || strings.Contains(errOut, "panic") {
				t.Errorf("serve with the key %s: exit %d, %q; want exit 1 saying %q and to restore it", tc.name, code, errOut, tc.want)
			}
			if b, _ := os.ReadFile(key); tc.name == "missing" && b != nil {
				t.Errorf("a new key was made for a log that has commits")
			}
			os.RemoveAll(key)
			if err := os.WriteFile(key, good, 0o600); err != nil {
				t.Fatal(err)
			}
		})
	}
	startChild(t, dir).terminate()
}

// TestADamagedProjectionStoreIsRebuilt: the projection store's files
// damaged (the MANIFEST missing or emptied, a table missing or cut short,
// a marker file missing) do not stop the start: the store is moved aside,
// kept, and rebuilt from the log, which is intact, and the venue serves
// what it served before. Nothing asks for a repair.
func TestADamagedProjectionStoreIsRebuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes")
	}
	base := t.TempDir()
	pristine := filepath.Join(base, "pristine")
	c := startChild(t, pristine)
	ac := admin(c.url)
	if _, err := ac.CreateTournament(context.Background(), "", client.NewTournament{ID: "vista", Name: "Vista", Ruleset: "rtu"}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		if _, err := ac.CommandJSON(context.Background(), "vista", "", []byte(fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d"}`, i, i))); err != nil {
			t.Fatal(err)
		}
	}
	want := exportOf(t, c.url, "vista")
	if _, err := c.terminate(); err != nil {
		t.Fatal(err)
	}
	glob := func(dir, pattern string) string {
		t.Helper()
		m, _ := filepath.Glob(filepath.Join(dir, "projections", pattern))
		if len(m) == 0 {
			t.Fatalf("no %s in the projection store", pattern)
		}
		return m[0]
	}
	for i, tc := range []struct {
		name   string
		damage func(dir string) error
	}{
		{"MANIFEST missing", func(dir string) error { return os.Remove(glob(dir, "MANIFEST-*")) }},
		{"MANIFEST emptied", func(dir string) error { return os.Truncate(glob(dir, "MANIFEST-*"), 0) }},
		{"a table missing", func(dir string) error { return os.Remove(glob(dir, "*.sst")) }},
		{"a table cut short", func(dir string) error { return os.Truncate(glob(dir, "*.sst"), 100) }},
		{"the format marker missing", func(dir string) error { return os.Remove(glob(dir, "marker.format-version.*")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(base, fmt.Sprintf("case-%d", i))
			copyDir(t, pristine, dir)
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			c := startChild(t, dir)
			defer c.kill()
			if got := exportOf(t, c.url, "vista"); !bytes.Equal(got, want) {
				t.Errorf("after the rebuild: %d bytes of log, want %d", len(got), len(want))
			}
			if r := readyz(t, c.url); !r.Ready || len(r.Damage) > 0 {
				t.Errorf("/readyz after the rebuild: %+v", r)
			}
			if aside, _ := filepath.Glob(filepath.Join(dir, "projections.corrupt-*")); len(aside) != 1 {
				t.Errorf("the damaged store was not kept aside: %v", aside)
			}
			if !strings.Contains(c.log(), "rebuilding from the log") {
				t.Errorf("the log does not say the store was rebuilt:\n%s", c.log())
			}
			if _, err := admin(c.url).CommandJSON(context.Background(), "vista", "", []byte(`{"type":"RegisterPlayer","player":"p11","name":"Giocatore 11"}`)); err != nil {
				t.Errorf("a command after the rebuild: %v", err)
			}
		})
	}
}
