package hub

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
)

// noStore: the hub's verification reads its log, not its projections.
type noStore struct{}

func (noStore) LastCommit(string) (projections.CommitRef, bool, error) {
	return projections.CommitRef{}, false, nil
}

func openLog(t *testing.T, o eventlog.ServerOptions, sourced bool) (*eventlog.Log, *nats.Conn) {
	t.Helper()
	n := startNode(t, t.TempDir(), o, sourced)
	return n.log, n.nc
}

// commits builds tournament id's log of n registrations, one commit each,
// linked as the ledger links them; name names the players (another name,
// another log).
func commits(t *testing.T, id string, n int, name string) [][]byte {
	t.Helper()
	names := make([]string, n-1)
	for i := range names {
		names[i] = name
	}
	return history(t, id, names...)
}

// tree is a Merkle tree of lines with its nodes, for roots and proofs.
type tree struct {
	t     *checkpoint.Tree
	nodes map[checkpoint.NodeID][]byte
}

func treeOf(bodies [][]byte) *tree {
	tr := &tree{t: checkpoint.NewTree(), nodes: map[checkpoint.NodeID][]byte{}}
	for _, b := range bodies {
		_ = tr.t.Append(bytes.TrimSuffix(b, []byte("\n")), func(id checkpoint.NodeID, h []byte) { tr.nodes[id] = h })
	}
	return tr
}

func (tr *tree) get(ids []checkpoint.NodeID) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		out[i] = tr.nodes[id]
	}
	return out, nil
}

func TestWitness(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	hubLog, hubNC := openLog(t, eventlog.ServerOptions{Name: "hub", Domain: "hub", LeafListen: &eventlog.LeafListenOptions{Port: port}}, true)
	venueLog, venueNC := openLog(t, eventlog.ServerOptions{Name: "v1", Domain: "v1",
		LeafRemote: &eventlog.LeafRemoteOptions{URL: fmt.Sprintf("nats://127.0.0.1:%d", port)}}, false)
	// The venue answers the hub's question of what it cosigned last:
	// nothing.
	if _, err := venueNC.Subscribe(CosignedSubject("v1"), func(m *nats.Msg) { m.Respond(nil) }); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w, err := checkpoint.LoadOrCreateWitness(dir, "hub-witness", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Log: hubLog, Store: noStore{}, Conn: hubNC, Witness: w, StatePath: filepath.Join(dir, "hub.json")})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := checkpoint.LoadOrCreateKeys(filepath.Join(dir, "venue"), "v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	appendAll := func(tour string, bodies [][]byte) {
		t.Helper()
		for _, b := range bodies {
			last, err := venueLog.LastSubjectSeq(ctx, tour)
			if err == nil {
				_, err = venueLog.Append(ctx, tour, last, "", b)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	signed := func(tour string, tr *tree, size uint64) []byte {
		t.Helper()
		root, err := checkpoint.RootAt(size, tr.get)
		if err != nil {
			t.Fatal(err)
		}
		n, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(tour), Size: size, Root: root}, keys.Signer)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(n)
	}
	// submit submits, retrying while the hub's copy is still arriving.
	submit := func(old uint64, proof [][]byte, cp []byte) (int, string) {
		t.Helper()
		for range 100 {
			status, body := h.addCheckpoint(ctx, "v1", formatAddCheckpoint(old, proof, cp))
			if status != 503 {
				return status, string(body)
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the hub's copy never arrived")
		return 0, ""
	}
	log := commits(t, "t1", 6, "P")
	appendAll("t1", log[:3])
	tr := treeOf(log)

	if status, body := submit(0, nil, signed("t1", tr, 3)); status != 404 {
		t.Fatalf("unregistered venue: %d %s, want 404", status, body)
	}
	if err := h.Register("v1", keys.VerifierKey); err != nil {
		t.Fatal(err)
	}
	h.sync(ctx, "v1", []string{"t1"})
	if err := h.Served("t1"); err == nil || !strings.Contains(err.Error(), "no checkpoint") {
		t.Errorf("Served(t1) before a checkpoint = %v, want held", err)
	}
	status, body := submit(0, nil, signed("t1", tr, 3))
	if status != 200 {
		t.Fatalf("first checkpoint: %d %s", status, body)
	}
	cosigned, size, _ := h.Cosigned("t1")
	wv, _ := checkpoint.NewWitnessVerifier(w.VerifierKey)
	if err := checkpoint.CheckCosigned([]byte(cosigned), wv); err != nil || size != 3 {
		t.Errorf("cosigned size %d: %v", size, err)
	}
	if _, err := checkpoint.Open([]byte(cosigned), keys.Verifier); err != nil {
		t.Errorf("the cosigned checkpoint lost the venue's signature: %v", err)
	}
	if err := h.Served("t1"); err != nil {
		t.Errorf("Served(t1) after cosigning: %v", err)
	}
	// A stale "old": 409 with the size the hub cosigned.
	appendAll("t1", log[3:5])
	if status, body := submit(0, nil, signed("t1", tr, 5)); status != 409 || body != "3" {
		t.Errorf("stale old: %d %q, want 409 \"3\"", status, body)
	}
	proof, _ := checkpoint.ConsistencyProof(3, 5, tr.get)
	if status, body := submit(3, proof, signed("t1", tr, 5)); status != 200 {
		t.Fatalf("consistent checkpoint: %d %s", status, body)
	}

	// A log that does not verify: quarantined with its first bad line.
	bad := commits(t, "t2", 5, "P")
	bad[2] = bytes.Replace(bad[2], []byte(`"name":"P"`), []byte(`"name":"Q"`), 1)
	appendAll("t2", bad)
	h.sync(ctx, "v1", []string{"t2"})
	badTree := treeOf(bad)
	status, body = submit(0, nil, signed("t2", badTree, 5))
	if status != 422 {
		t.Fatalf("altered log: %d %s, want 422", status, body)
	}
	if err := h.Served("t2"); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("Served(t2) = %v, want quarantined at line 3", err)
	}

	// A rewrite after a cosigned checkpoint: refused with both checkpoints.
	other := treeOf(commits(t, "t1", 6, "R"))
	proof, _ = checkpoint.ConsistencyProof(5, 6, other.get)
	offered := signed("t1", other, 6)
	status, body = submit(5, proof, offered)
	if status != 422 {
		t.Fatalf("forked checkpoint: %d %s, want 422", status, body)
	}
	vs, _ := h.Venues()
	if len(vs) != 1 || vs[0].Fork == nil || vs[0].Fork.Offered != string(offered) || vs[0].Fork.Cosigned == "" {
		t.Fatalf("venues = %+v, want v1 flagged with the evidence", vs)
	}
	if err := h.Served("t1"); err == nil {
		t.Error("the hub still serves a tournament its venue rewrote")
	}

	// Another venue's tournament of the same id is refused, by name.
	h.sync(ctx, "v2", []string{"t1"})
	vs, _ = h.Venues()
	if len(vs) != 2 || !strings.Contains(vs[1].Problem, "tournament id t1 is venue v1's") {
		t.Errorf("venues = %+v, want v2 refused t1", vs)
	}
	// The state survives a restart of the hub.
	h2, err := New(Options{Log: hubLog, Store: noStore{}, Conn: hubNC, Witness: w, StatePath: filepath.Join(dir, "hub.json")})
	if err != nil {
		t.Fatal(err)
	}
	if vs2, ts2 := h2.Venues(); len(vs2) != 2 || len(ts2) != 2 || vs2[0].Fork == nil {
		t.Errorf("after a restart: %+v %+v", vs2, ts2)
	}
}

// TestUnverifiedEventsAreHeldAfterTheGrace: events past the last verified
// checkpoint are served for Grace, then held until one covers them.
func TestUnverifiedEventsAreHeldAfterTheGrace(t *testing.T) {
	now := time.Unix(1700000000, 0)
	arrived := uint64(5)
	dir := t.TempDir()
	w, err := checkpoint.LoadOrCreateWitness(dir, "hub", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Log: &eventlog.Log{}, Store: storeAt{&arrived}, Conn: &nats.Conn{}, Witness: w,
		StatePath: filepath.Join(dir, "hub.json"), Grace: 30 * time.Second, Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	h.st.Venues["v"] = &Venue{Name: "v", Key: "k"}
	h.st.Tournaments["t"] = &Tournament{ID: "t", Venue: "v", Status: Verified, Size: 5}
	for _, step := range []struct {
		advance time.Duration
		arrived uint64
		held    bool
	}{
		{0, 5, false},                // all verified
		{0, 7, false},                // two more arrive: served while a checkpoint is due
		{29 * time.Second, 7, false}, // within the grace
		{2 * time.Second, 7, true},   // past it: held
		{0, 5, false},                // (a checkpoint covering them verified)
	} {
		now = now.Add(step.advance)
		arrived = step.arrived
		err := h.Served("t")
		if held := errors.Is(err, ErrHeld); held != step.held {
			t.Errorf("at %v with %d arrived: Served = %v, want held %v", now.Unix()-1700000000, arrived, err, step.held)
		}
	}
}

// storeAt says the projections hold *n events of every tournament.
type storeAt struct{ n *uint64 }

func (s storeAt) LastCommit(string) (projections.CommitRef, bool, error) {
	return projections.CommitRef{Last: *s.n}, *s.n > 0, nil
}

// TestAdministratorsDecisions: a venue's leaf link admits it only with the
// password last issued; a new key, a lifted flag or quarantine is a
// decision recorded with its reason and the evidence it set aside, kept
// across a restart of the hub; no two venues register one key; what the
// projections cannot apply past a cosigned checkpoint never takes down
// what was cosigned, while it quarantines a tournament never verified.
func TestAdministratorsDecisions(t *testing.T) {
	dir := t.TempDir()
	w, err := checkpoint.LoadOrCreateWitness(dir, "hub", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	arrived := uint64(5)
	open := func() *Hub {
		t.Helper()
		h, err := New(Options{Log: &eventlog.Log{}, Store: storeAt{&arrived}, Conn: &nats.Conn{}, Witness: w, StatePath: filepath.Join(dir, "hub.json")})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := open()
	key := func(name string) string {
		t.Helper()
		k, err := checkpoint.LoadOrCreateKeys(filepath.Join(dir, name), name, nil)
		if err != nil {
			t.Fatal(err)
		}
		return k.VerifierKey
	}
	roma, roma2, napoli := key("roma"), key("roma2"), key("napoli")

	first, _, err := h.IssueLink("roma", "")
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := h.IssueLink("roma", "the first one was mailed in clear")
	if err != nil {
		t.Fatal(err)
	}
	if h.CheckLeaf("roma", first) || !h.CheckLeaf("roma", second) || h.CheckLeaf("napoli", second) || h.CheckLeaf("roma", "") {
		t.Error("the leaf link admits what it should not, or not the password last issued")
	}
	if _, _, err := h.IssueLink("a.b", ""); !errors.Is(err, ErrVenue) {
		t.Errorf("a link for venue a.b: %v, want ErrVenue", err)
	}
	if err := h.Register("roma", roma); err != nil {
		t.Fatal(err)
	}
	if err := h.Register("napoli", roma); !errors.Is(err, ErrDecision) || !strings.Contains(err.Error(), "roma") {
		t.Errorf("napoli registering roma's key: %v, want refused naming roma", err)
	}
	if err := h.Register("roma", roma2); !errors.Is(err, ErrDecision) || !strings.Contains(err.Error(), "decisions") {
		t.Errorf("a second key by registration: %v, want refused, pointing to a decision", err)
	}
	if _, err := h.Decide("roma", DecisionRequest{Decision: DecideKey, Key: roma2}); !errors.Is(err, ErrVenue) {
		t.Errorf("a decision without a reason: %v, want ErrVenue", err)
	}
	d, err := h.Decide("roma", DecisionRequest{Decision: DecideKey, Key: roma2, Reason: "the venue's laptop was stolen"})
	if err != nil || d.Previous != roma || d.Key != roma2 {
		t.Fatalf("new key: %+v, %v", d, err)
	}
	if err := h.Register("napoli", roma); !errors.Is(err, ErrDecision) {
		t.Errorf("napoli registering the key roma gave up: %v, want refused", err)
	}
	if err := h.Register("napoli", napoli); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Decide("roma", DecisionRequest{Decision: DecideKey, Key: napoli, Reason: "x"}); !errors.Is(err, ErrDecision) {
		t.Errorf("roma taking napoli's key: %v, want refused", err)
	}
	if _, err := h.Decide("milano", DecisionRequest{Decision: DecideLiftFlag, Reason: "x"}); !errors.Is(err, ErrNoVenue) {
		t.Errorf("a decision about an unknown venue: %v, want ErrNoVenue", err)
	}
	if _, err := h.Decide("roma", DecisionRequest{Decision: DecideLiftFlag, Reason: "x"}); !errors.Is(err, ErrDecision) {
		t.Errorf("lifting a flag not there: %v, want ErrDecision", err)
	}

	// What the projections cannot apply past a cosigned checkpoint.
	h.mu.Lock()
	h.st.Tournaments["cosigned"] = &Tournament{ID: "cosigned", Venue: "roma", Status: Verified, Size: 5, Cosigned: "note"}
	h.st.Tournaments["unverified"] = &Tournament{ID: "unverified", Venue: "roma", Status: Held}
	h.mu.Unlock()
	h.SetAside("cosigned", 41, "event 6 is not linked to event 5")
	h.SetAside("unverified", 42, "event 2 is not linked to event 1")
	if err := h.Served("cosigned"); err != nil {
		t.Errorf("a cosigned tournament after its copy could not be applied past it: %v, want served", err)
	}
	arrived = 6
	if err := h.Served("cosigned"); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "event 6 is not linked") {
		t.Errorf("with an event past the cosigned checkpoint applied: %v, want held with why", err)
	}
	arrived = 5
	if err := h.Served("unverified"); !errors.Is(err, ErrQuarantined) || !strings.Contains(err.Error(), "stream sequence 42") {
		t.Errorf("a tournament never verified: %v, want quarantined at stream sequence 42", err)
	}
	if _, err := h.Decide("roma", DecisionRequest{Decision: DecideLiftQuarantine, Tournament: "unverified", Reason: "x"}); !errors.Is(err, ErrDecision) || !strings.Contains(err.Error(), "restart") {
		t.Errorf("lifting a quarantine the projections still hold: %v, want refused until a restart", err)
	}

	// A restart: the decisions, the state and the link are kept.
	h = open()
	if !h.CheckLeaf("roma", second) {
		t.Error("the link's password after a restart")
	}
	d, err = h.Decide("roma", DecisionRequest{Decision: DecideLiftQuarantine, Tournament: "unverified", Reason: "an impostor's messages, the link now needs a password"})
	if err != nil || d.Quarantine == nil || d.Quarantine.Seq != 42 || !strings.Contains(d.Quarantine.Problem, "event 2") {
		t.Fatalf("lifting the quarantine: %+v, %v", d, err)
	}
	if err := h.Served("unverified"); !errors.Is(err, ErrHeld) {
		t.Errorf("a lifted tournament: %v, want held until verified again", err)
	}
	if _, err := h.Decide("roma", DecisionRequest{Decision: "forgive", Reason: "x"}); !errors.Is(err, ErrVenue) {
		t.Errorf("an unknown decision: %v, want ErrVenue", err)
	}
	vs, _ := h.Venues()
	var kinds []DecisionKind
	for _, v := range vs {
		if v.Name == "roma" {
			for _, d := range v.Decisions {
				kinds = append(kinds, d.Decision)
			}
			if v.Link != "" || !v.Linked {
				t.Errorf("GET /v1/venues shows the link's hash, or not that it has one: %+v", v)
			}
		}
	}
	if fmt.Sprint(kinds) != "[link link key lift_quarantine]" {
		t.Errorf("roma's decisions: %v", kinds)
	}
}
