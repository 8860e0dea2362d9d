package hub

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
)

// fedNode is an embedded server on a store directory of the test's, with
// the log over it, stopped by stop (or when the test ends).
type fedNode struct {
	ns  *server.Server
	nc  *nats.Conn
	log *eventlog.Log
}

func startNode(t *testing.T, dir string, o eventlog.ServerOptions, sourced bool) *fedNode {
	t.Helper()
	o.StoreDir = dir
	ns, err := eventlog.StartServer(o)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	l, err := eventlog.Open(context.Background(), nc, eventlog.Options{Sourced: sourced})
	if err != nil {
		t.Fatal(err)
	}
	n := &fedNode{ns: ns, nc: nc, log: l}
	t.Cleanup(n.stop)
	return n
}

func (n *fedNode) stop() {
	if n.ns == nil {
		return
	}
	n.nc.Close()
	n.ns.Shutdown()
	n.ns.WaitForShutdown()
	n.ns = nil
}

// history is tournament id's log: its creation, then one registration a
// commit, player i named names[i]; two histories share the commits up to
// the first name in which they differ.
func history(t *testing.T, id string, names ...string) [][]byte {
	t.Helper()
	rs, _ := events.Preset("rtu")
	evs := []events.Event{events.TournamentCreated{Tournament: id, Name: "T", Ruleset: rs}}
	for i, name := range names {
		evs = append(evs, events.PlayerRegistered{Player: fmt.Sprintf("p%04d", i), Name: name})
	}
	var out [][]byte
	var last []byte
	for i, ev := range evs {
		envs, err := events.Seal(id, uint64(i+1), time.Unix(1700000000, 0), events.Actor{ID: "o1", Role: events.RoleArbiter}, fmt.Sprint(i), []events.Event{ev})
		if err == nil {
			err = events.Chain(envs, last)
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := events.EncodeCommit(envs)
		c, _ := events.DecodeCommit(body)
		last = checkpoint.LeafHash(c.Lines[0])
		out = append(out, body)
	}
	return out
}

// venueStore is a venue's projections as its witness Client reads them:
// one tournament, the commits appended so far.
type venueStore struct {
	mu   sync.Mutex
	id   string
	tree *tree
	size uint64
}

func (s *venueStore) set(bodies [][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tree, s.size = treeOf(bodies), uint64(len(bodies))
}

func (s *venueStore) Tournaments() ([]string, error) { return []string{s.id}, nil }

func (s *venueStore) LastCommit(string) (projections.CommitRef, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return projections.CommitRef{Tournament: s.id, Last: s.size}, s.size > 0, nil
}

func (s *venueStore) NodeGetter(string) checkpoint.NodeGetter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree.get
}

// TestARestoredHubNeverCosignsAnotherRoot: a hub cosigns a venue's
// tournament at 3 events, is backed up (its stream's store and its state,
// stopped), cosigns it at 6; the venue keeps that cosignature. Both lose
// what they held: a crash tears the venue's last message off its log,
// which then takes another sixth event (same key, same tournament), and
// the hub is restored from its backup, its copy sourced again from the
// venue's log as it now is. Offered
// the rewritten checkpoint of 6 events, the hub first learns back from
// the venue the cosignature of 6 events it gave, and refuses the other
// root at that size with both checkpoints as evidence, where it used to
// cosign it: two histories, both cosigned.
func TestARestoredHubNeverCosignsAnotherRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts embedded servers across a leaf link")
	}
	ctx := context.Background()
	base := t.TempDir()
	port := freePort(t)
	admit := func(venue, password string) bool { return venue == "v1" && password == "pw" }
	hubOpts := eventlog.ServerOptions{Name: "hub", Domain: Domain, LeafListen: &eventlog.LeafListenOptions{Port: port, Venues: admit}}
	venueOpts := eventlog.ServerOptions{Name: "v1", Domain: "v1",
		LeafRemote: &eventlog.LeafRemoteOptions{URL: fmt.Sprintf("nats://v1:pw@127.0.0.1:%d", port)}}
	hubStore, statePath := filepath.Join(base, "hub-nats"), filepath.Join(base, "hub.json")
	w, err := checkpoint.LoadOrCreateWitness(filepath.Join(base, "keys"), "hub", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := checkpoint.LoadOrCreateKeys(filepath.Join(base, "venue-keys"), "v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(base, "cosigned.json") // the venue's, beside its log

	// runHub runs a Hub on hub's log and the state file until stop.
	runHub := func(hub *fedNode) (*Hub, func()) {
		t.Helper()
		h, err := New(Options{Log: hub.log, Store: noStore{}, Conn: hub.nc, Witness: w, StatePath: statePath, Interval: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		hctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); h.Run(hctx) }()
		return h, func() { cancel(); <-done }
	}
	// runVenue runs the venue's witness Client, over its server, with the
	// cosignatures it keeps.
	runVenue := func(venue *fedNode, st *venueStore) func() {
		t.Helper()
		cs := &Cosignatures{Path: kept}
		if err := cs.Load(); err != nil {
			t.Fatal(err)
		}
		c := &Client{Venue: "v1", Conn: venue.nc, Store: st, Signer: keys.Signer, Interval: 100 * time.Millisecond, Cosigned: cs}
		return c.Start(ctx)
	}
	appendAll := func(venue *fedNode, bodies [][]byte) {
		t.Helper()
		for _, b := range bodies {
			last, err := venue.log.LastSubjectSeq(ctx, "t1")
			if err == nil {
				_, err = venue.log.Append(ctx, "t1", last, "", b)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	cosignedAt := func(h *Hub, size uint64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, n, ok := h.Cosigned("t1"); ok && n == size {
				return
			}
			if time.Now().After(deadline) {
				vs, ts := h.Venues()
				t.Fatalf("the hub did not cosign t1 at %d events: %+v %+v", size, vs, ts)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	genuine := history(t, "t1", "Anna", "Bruno", "Carla", "Dario", "Elena")
	hub := startNode(t, hubStore, hubOpts, true)
	venue := startNode(t, filepath.Join(base, "venue-nats"), venueOpts, false)
	h, stopHub := runHub(hub)
	if _, _, err := h.IssueLink("v1", ""); err != nil {
		t.Fatal(err)
	}
	if err := h.Register("v1", keys.VerifierKey); err != nil {
		t.Fatal(err)
	}
	// The state file now admits v1; the test's servers admit it by admit.
	st := &venueStore{id: "t1"}
	appendAll(venue, genuine[:3])
	st.set(genuine[:3])
	stopVenue := runVenue(venue, st)
	cosignedAt(h, 3)

	// The hub's backup: its stream's store and its state, stopped.
	stopHub()
	hub.stop()
	backup := filepath.Join(base, "backup")
	if err := os.CopyFS(filepath.Join(backup, "nats"), os.DirFS(hubStore)); err != nil {
		t.Fatal(err)
	}
	state, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	hub = startNode(t, hubStore, hubOpts, true)
	h, stopHub = runHub(hub)
	appendAll(venue, genuine[3:])
	st.set(genuine)
	cosignedAt(h, 6)
	n6, _, _ := h.Cosigned("t1")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readFile(t, kept), strings.Split(n6, "\n")[2]) {
		if time.Now().After(deadline) {
			t.Fatalf("the venue did not keep the cosignature of 6 events:\n%s", readFile(t, kept))
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopVenue()
	stopHub()
	hub.stop()
	venue.stop()

	// The venue's log loses its last message (its tail torn by a crash:
	// the end of JetStream's block cut) and goes on with another sixth
	// event; the hub is restored from its backup, and its copy of t1 goes
	// on from the venue's log as it is now.
	tearTail(t, filepath.Join(base, "venue-nats"))
	venue = startNode(t, filepath.Join(base, "venue-nats"), venueOpts, false)
	if n, err := venue.log.LastSubjectSeq(ctx, "t1"); err != nil || n != 5 {
		t.Fatalf("the venue's log after its tail was torn: last %d, %v; want 5", n, err)
	}
	rewritten := history(t, "t1", "Anna", "Bruno", "Carla", "Dario", "Ivo")
	appendAll(venue, rewritten[5:])
	st.set(rewritten)
	if err := os.RemoveAll(hubStore); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(hubStore, os.DirFS(filepath.Join(backup, "nats"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, state, 0o600); err != nil {
		t.Fatal(err)
	}
	hub = startNode(t, hubStore, hubOpts, true)
	h, stopHub = runHub(hub)
	defer stopHub()
	if _, n, _ := h.Cosigned("t1"); n != 3 {
		t.Fatalf("the restored hub's record: %d events cosigned, want the backup's 3", n)
	}
	defer runVenue(venue, st)()

	// The rewritten checkpoint of 6 events, offered as a venue that lost
	// its log would, from the size the restored hub says it cosigned.
	tr := treeOf(rewritten)
	root, _ := checkpoint.RootAt(6, tr.get)
	offered, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin("t1"), Size: 6, Root: root}, keys.Signer)
	if err != nil {
		t.Fatal(err)
	}
	proof, _ := checkpoint.ConsistencyProof(3, 6, tr.get)
	offer := func(old uint64, proof [][]byte) (int, string) {
		t.Helper()
		m := nats.NewMsg(AddCheckpointSubject)
		m.Header.Set(VenueHeader, "v1")
		m.Data = formatAddCheckpoint(old, proof, []byte(offered))
		for range 300 {
			resp, err := hub.nc.RequestMsg(m, 10*time.Second)
			if errors.Is(err, nats.ErrNoResponders) {
				time.Sleep(100 * time.Millisecond) // the hub is starting
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			status := resp.Header.Get(StatusHeader)
			if status != "503" {
				return atoi(status), string(resp.Data)
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the hub kept answering 503")
		return 0, ""
	}
	status, body := offer(3, proof)
	if status == 200 {
		t.Fatalf("the restored hub cosigned a second root at 6 events:\n%s%s\nafter:\n%s", offered, body, n6)
	}
	if status != 409 && status != 422 {
		t.Errorf("offered from 3: %d %q, want 409 \"6\" (the hub learned back its cosignature of 6 events) or 422 (the venue flagged)", status, body)
	}
	// The venue offers its log as it now is, from the 6 events it holds
	// cosigned: the hub flags it, with both checkpoints.
	deadline = time.Now().Add(30 * time.Second)
	for {
		vs, _ := h.Venues()
		if len(vs) == 1 && vs[0].Fork != nil {
			if vs[0].Fork.Cosigned != n6 || vs[0].Fork.Offered != offered {
				t.Errorf("the evidence: cosigned\n%s\noffered\n%s\nwant\n%s\nand\n%s", vs[0].Fork.Cosigned, vs[0].Fork.Offered, n6, offered)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("venue v1 not flagged: %+v", vs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, body := offer(6, nil); status != 422 {
		t.Errorf("offered from 6: %d %s, want 422", status, body)
	}
	if signed, n, ok := h.Cosigned("t1"); ok && (n != 6 || signed != n6) {
		t.Errorf("the hub serves t1 cosigned at %d events:\n%s", n, signed)
	}
}

// tearTail cuts the end of the last message block of the stopped server's
// store in dir, as a crash in the middle of a write leaves it.
func tearTail(t *testing.T, dir string) {
	t.Helper()
	blocks, err := filepath.Glob(filepath.Join(dir, "jetstream", "*", "streams", "REFERTO", "msgs", "*.blk"))
	if err != nil || len(blocks) == 0 {
		t.Fatalf("no message block in %s: %v", dir, err)
	}
	last := blocks[len(blocks)-1]
	fi, err := os.Stat(last)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(last, fi.Size()-40); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
