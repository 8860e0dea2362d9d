package ledger

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/store"
)

// TestTheDuplicateWindowKeepsTheBinding covers the paths where the command
// index does not decide: a command another node appended under a key (the
// key reaches JetStream's duplicate window before this node's index), and
// commits stored before requests carried a fingerprint.
func TestTheDuplicateWindowKeepsTheBinding(t *testing.T) {
	node := startNode(t, t.TempDir())
	defer node.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := node.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	create := &commands.CreateTournament{ID: "bo", Name: "Bologna", Ruleset: "rtu"}
	if _, err := node.Ledger.Submit(ctx, Submission{Tournament: "bo", Command: create, Actor: events.Actor{ID: "admin", Role: events.RoleAdmin},
		Key: "create", Route: RouteCreate}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := node.Runner.WaitFor(ctx, 1); err != nil {
		t.Fatal(err)
	}
	arbiter := events.Actor{ID: "o9", Role: events.RoleArbiter}
	// Two nodes decide two registrations on the same state under one key.
	decided := func(body string) (string, []byte, uint64) {
		t.Helper()
		cmd, err := commands.Parse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		var commit []byte
		var expected uint64
		node.Runner.ReadHead("bo", func(tt *projections.Tournament, h checkpoint.Head) {
			expected = tt.LastStreamSeq
			_, commit, err = DecideCommit(tt, h, cmd, commands.Input{Now: time.Now(), Actor: arbiter}, "K", node.Keys.Signer)
		})
		if err != nil {
			t.Fatal(err)
		}
		fp, err := Fingerprint(RouteCommands, "bo", arbiter, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return fp, commit, expected
	}
	theirs, theirCommit, expected := decided(`{"type":"RegisterPlayer","player":"p1","name":"Uno"}`)
	mine, myCommit, _ := decided(`{"type":"RegisterPlayer","player":"p2","name":"Due"}`)
	first, err := node.Log.AppendRequest(ctx, "bo", expected, MsgID("bo", "K"), theirs, theirCommit)
	if err != nil || first.Duplicate {
		t.Fatalf("the other node's append: %+v %v", first, err)
	}
	// This node appends on the state it decided on. JetStream checks the
	// expected sequence before the message id: a conflict, after which
	// Submit finds the key in the index (TestSubmitFindsItsOriginalAfterAConflict;
	// over HTTP, api's TestRacingOneKeyWithDifferentBodies).
	loop := Loop{Clock: time.Now, Observer: nopObserver{}}
	mySub := tournamentStream{l: node.Ledger, sub: Submission{Tournament: "bo", Key: "K", Route: RouteCommands, Actor: arbiter, Request: mine}}
	if _, err := loop.appendRetrying(ctx, mySub, expected, myCommit); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("the second append on the old state: %v, want a conflict", err)
	}
	// With the expected sequence right, the message id decides: JetStream
	// answers with the other node's commit, and that must not replay.
	ack, err := loop.appendRetrying(ctx, mySub, first.StreamSeq, myCommit)
	if err != nil || !ack.Duplicate || ack.StreamSeq != first.StreamSeq {
		t.Fatalf("the second append: %+v %v, want a duplicate of stream sequence %d", ack, err, first.StreamSeq)
	}
	sub := Submission{Tournament: "bo", Key: "K", Route: RouteCommands, Actor: arbiter, Request: mine}
	_, err = node.Ledger.replayed(ctx, ack.StreamSeq, sub)
	var ku *KeyReusedError
	if !errors.As(err, &ku) || ku.Seq != 2 || ku.Key != "K" {
		t.Errorf("another request under the key: %v, want a KeyReusedError naming K and seq 2", err)
	}
	sub.Request = theirs
	if o, err := node.Ledger.replayed(ctx, ack.StreamSeq, sub); err != nil || !o.Replayed || o.Seq != 2 {
		t.Errorf("the same request under the key: %+v %v, want seq 2 replayed", o, err)
	}

	// A commit stored before fingerprints (no header): who acted and the
	// route still count; the body cannot be compared, and replays.
	if err := node.Runner.WaitFor(ctx, first.StreamSeq); err != nil {
		t.Fatal(err)
	}
	_, legacyCommit, expected := decided(`{"type":"RegisterPlayer","player":"p3","name":"Tre"}`)
	old, err := node.Log.Append(ctx, "bo", expected, MsgID("bo", "K-old"), legacyCommit)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what   string
		sub    Submission
		reused bool
	}{
		{"same official and route", Submission{Route: RouteCommands, Actor: arbiter, Request: mine}, false},
		{"another official", Submission{Route: RouteCommands, Actor: events.Actor{ID: "o8", Role: events.RoleArbiter}, Request: mine}, true},
		{"another role", Submission{Route: RouteCommands, Actor: events.Actor{ID: "o9", Role: events.RoleAppeals}, Request: mine}, true},
		{"another route", Submission{Route: RouteAppoint, Actor: arbiter, Request: mine}, true},
	} {
		tc.sub.Tournament, tc.sub.Key = "bo", "K-old"
		_, err := node.Ledger.replayed(ctx, old.StreamSeq, tc.sub)
		if got := errors.Is(err, ErrKeyReused); got != tc.reused || (!tc.reused && err != nil) {
			t.Errorf("legacy commit, %s: %v, want reused %v", tc.what, err, tc.reused)
		}
	}
}

// testNode is what a ledger runs on in a node: a log on an embedded
// JetStream, the projection store and its runner, and checkpoint keys.
type testNode struct {
	Ledger *Ledger
	Log    *eventlog.Log
	Runner *store.Runner
	Keys   *checkpoint.Keys
	close  []func()
}

// startNode wires a ledger over a real log and store kept in dir.
func startNode(t *testing.T, dir string) *testNode {
	t.Helper()
	n := &testNode{}
	ok := false
	defer func() {
		if !ok {
			n.Close()
		}
	}()
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: filepath.Join(dir, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	n.close = append(n.close, func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	n.close = append(n.close, nc.Close)
	if n.Log, err = eventlog.Open(context.Background(), nc, eventlog.Options{}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "projections"), nil)
	if err != nil {
		t.Fatal(err)
	}
	n.close = append(n.close, func() { st.Close() })
	if n.Keys, err = checkpoint.LoadOrCreateKeys(filepath.Join(dir, "keys"), "referto", nil); err != nil {
		t.Fatal(err)
	}
	n.Runner = store.NewRunner(n.Log, st, store.RunnerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = n.Runner.Run(ctx) }()
	n.close = append(n.close, func() { cancel(); <-done })
	if n.Ledger, err = New(Options{Log: n.Log, State: n.Runner, Index: st, Signer: n.Keys.Signer}); err != nil {
		t.Fatal(err)
	}
	ok = true
	return n
}

// Close stops the runner, then closes the store, the connection and the
// server.
func (n *testNode) Close() {
	for i := len(n.close) - 1; i >= 0; i-- {
		n.close[i]()
	}
	n.close = nil
}

// TestFingerprintCanonicalizesTheBody: what JSON does not distinguish
// (whitespace, member order, string escapes) is the same request; any
// other difference, and another route, tournament or official, is not.
func TestFingerprintCanonicalizesTheBody(t *testing.T) {
	arb := events.Actor{ID: "o1", Role: events.RoleArbiter}
	base := `{"type":"RegisterPlayer","player":"p1","name":"Né","rank":1}`
	fp := func(route, tournament string, actor events.Actor, body string) string {
		t.Helper()
		f, err := Fingerprint(route, tournament, actor, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := fp(RouteCommands, "bo", arb, base)
	for _, same := range []string{
		"{ \"rank\": 1,\n\t\"name\": \"N\\u00e9\", \"player\": \"p\\u0031\", \"type\": \"RegisterPlayer\" }",
		`{"name":"Né","player":"p1","rank":1,"type":"RegisterPlayer"}`,
	} {
		if got := fp(RouteCommands, "bo", arb, same); got != want {
			t.Errorf("%s: another fingerprint than %s", same, base)
		}
	}
	for _, other := range []string{
		`{"type":"RegisterPlayer","player":"p1","name":"Ne","rank":1}`,
		`{"type":"RegisterPlayer","player":"p1","name":"Né","rank":1.0}`,
		`{"type":"RegisterPlayer","player":"p1","name":"Né"}`,
		`{"type":"RegisterPlayer","player":"p1","name":"Né","rank":1,"club":null}`,
	} {
		if got := fp(RouteCommands, "bo", arb, other); got == want {
			t.Errorf("%s: the fingerprint of %s", other, base)
		}
	}
	for what, got := range map[string]string{
		"route":      fp(RouteAppoint, "bo", arb, base),
		"tournament": fp(RouteCommands, "mi", arb, base),
		"official":   fp(RouteCommands, "bo", events.Actor{ID: "o2", Role: events.RoleArbiter}, base),
		"role":       fp(RouteCommands, "bo", events.Actor{ID: "o1", Role: events.RoleAppeals}, base),
		// Length-prefixed parts: moving bytes between them is another request.
		"boundary": fp(RouteCommands, "b", events.Actor{ID: "oo1", Role: events.RoleArbiter}, base),
	} {
		if got == want {
			t.Errorf("another %s, the same fingerprint", what)
		}
	}
}
