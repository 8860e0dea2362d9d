package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// The decide-and-append loop, tested without NATS or Pebble: the Log, State
// and Index the Ledger consumes are fakes built from function fields, whose
// defaults (newWorld) keep an in-memory log whose commits are folded as
// they are appended, as a runner that never lags would. A test replaces the
// one function whose behaviour it is about.

type fakeLog struct {
	appendRequest  func(ctx context.Context, t string, expected uint64, id, request string, body []byte) (events.Appended, error)
	get            func(ctx context.Context, seq uint64) (events.StoredCommit, error)
	lastSubjectSeq func(ctx context.Context, t string) (uint64, error)
}

func (f *fakeLog) AppendRequest(ctx context.Context, t string, expected uint64, id, request string, body []byte) (events.Appended, error) {
	return f.appendRequest(ctx, t, expected, id, request, body)
}
func (f *fakeLog) Get(ctx context.Context, seq uint64) (events.StoredCommit, error) {
	return f.get(ctx, seq)
}
func (f *fakeLog) LastSubjectSeq(ctx context.Context, t string) (uint64, error) {
	return f.lastSubjectSeq(ctx, t)
}

type fakeState struct {
	ready    func() bool
	lag      func() uint64
	applied  func() uint64
	readHead func(t string, fn func(*projections.Tournament, checkpoint.Head)) bool
	waitFor  func(ctx context.Context, seq uint64) error
}

func (f *fakeState) Ready() bool     { return f.ready() }
func (f *fakeState) Lag() uint64     { return f.lag() }
func (f *fakeState) Applied() uint64 { return f.applied() }
func (f *fakeState) ReadHead(t string, fn func(*projections.Tournament, checkpoint.Head)) bool {
	return f.readHead(t, fn)
}
func (f *fakeState) WaitFor(ctx context.Context, seq uint64) error { return f.waitFor(ctx, seq) }

type fakeIndex struct {
	command  func(t, key string) (projections.CommitRef, bool, error)
	creation func(key string) (projections.CommitRef, bool, error)
}

func (f *fakeIndex) Command(t, key string) (projections.CommitRef, bool, error) {
	return f.command(t, key)
}
func (f *fakeIndex) Creation(key string) (projections.CommitRef, bool, error) { return f.creation(key) }

type fakeObserver struct {
	mu      sync.Mutex
	appends []error // each append's error
	retries int
	splits  []ledger.Split
}

func (o *fakeObserver) Appended(_ time.Duration, _ events.Appended, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.appends = append(o.appends, err)
}
func (o *fakeObserver) Retried() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.retries++
}
func (o *fakeObserver) Applied(int, time.Duration) {}
func (o *fakeObserver) Split(sp ledger.Split) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.splits = append(o.splits, sp)
}

// world is an in-memory log, the state folded from it and the command
// index, behind the fakes' default functions.
type world struct {
	t      *testing.T
	signer note.Signer

	mu     sync.Mutex
	msgs   []events.StoredCommit // stream sequence i+1 at i
	states map[string]*projections.Tournament
	trees  map[string]*checkpoint.Tree
	index  map[string]projections.CommitRef // by tournament/key
	ids    map[string]uint64                // message ids seen: the duplicate window

	log   *fakeLog
	state *fakeState
	idx   *fakeIndex
	obs   *fakeObserver
}

func newWorld(t *testing.T) *world {
	t.Helper()
	skey, _, err := note.GenerateKey(nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, signer: signer, states: map[string]*projections.Tournament{}, trees: map[string]*checkpoint.Tree{},
		index: map[string]projections.CommitRef{}, ids: map[string]uint64{}, obs: &fakeObserver{}}
	w.log = &fakeLog{appendRequest: w.append, get: w.get, lastSubjectSeq: w.lastSubjectSeq}
	w.state = &fakeState{
		ready:    func() bool { return true },
		lag:      func() uint64 { return 0 },
		applied:  w.applied,
		readHead: w.readHead,
		waitFor:  w.waitFor,
	}
	w.idx = &fakeIndex{command: w.command, creation: func(key string) (projections.CommitRef, bool, error) { return w.command("_create", key) }}
	return w
}

// ledger returns a Ledger over the world's fakes as they are now (a test
// edits their functions before); edit adjusts its options.
func (w *world) ledger(edit ...func(*ledger.Options)) *ledger.Ledger {
	w.t.Helper()
	log, state, idx := *w.log, *w.state, *w.idx
	o := ledger.Options{Log: &log, State: &state, Index: &idx, Signer: w.signer, Observer: w.obs,
		Clock: func() time.Time { return time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC) }, CommandTimeout: 2 * time.Second}
	for _, e := range edit {
		e(&o)
	}
	l, err := ledger.New(o)
	if err != nil {
		w.t.Fatal(err)
	}
	return l
}

// append is the log's append: JetStream's expected-sequence check first,
// then its duplicate window; a stored commit is folded at once.
func (w *world) append(_ context.Context, t string, expected uint64, id, request string, body []byte) (events.Appended, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if last := w.lastLocked(t); last != expected {
		return events.Appended{}, fmt.Errorf("%w: %s is at stream sequence %d, not %d", events.ErrConflict, t, last, expected)
	}
	if seq, ok := w.ids[id]; ok {
		return events.Appended{StreamSeq: seq, Duplicate: true}, nil
	}
	c, err := events.DecodeCommit(body)
	if err != nil {
		return events.Appended{}, err
	}
	seq := uint64(len(w.msgs) + 1)
	w.msgs = append(w.msgs, events.StoredCommit{StreamSeq: seq, Tournament: t, MsgID: id, Request: request, Data: body})
	w.ids[id] = seq
	st, tree := w.states[t], w.trees[t]
	if st == nil {
		st, tree = projections.New(t), checkpoint.NewTree()
		w.states[t], w.trees[t] = st, tree
	}
	for i, env := range c.Envelopes {
		ev, err := events.Decode(env)
		if err == nil {
			err = st.Apply(env, ev, nil)
		}
		if err == nil {
			err = tree.Append(c.Lines[i], nil)
		}
		if err != nil {
			w.t.Fatalf("fold of %s: %v", env.Type, err)
		}
	}
	st.LastStreamSeq = seq
	first, last := c.Envelopes[0], c.Envelopes[len(c.Envelopes)-1]
	w.index[t+"/"+first.CommandID] = projections.CommitRef{Tournament: t, StreamSeq: seq, First: first.Seq, Last: last.Seq, CommandID: first.CommandID}
	if first.Type == events.TypeTournamentCreated {
		w.index["_create/"+first.CommandID] = projections.CommitRef{StreamSeq: seq}
	}
	return events.Appended{StreamSeq: seq}, nil
}

func (w *world) lastLocked(t string) uint64 {
	if st := w.states[t]; st != nil {
		return st.LastStreamSeq
	}
	return 0
}

func (w *world) get(_ context.Context, seq uint64) (events.StoredCommit, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if seq == 0 || seq > uint64(len(w.msgs)) {
		return events.StoredCommit{}, fmt.Errorf("no message %d", seq)
	}
	return w.msgs[seq-1], nil
}

func (w *world) lastSubjectSeq(_ context.Context, t string) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastLocked(t), nil
}

func (w *world) applied() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return uint64(len(w.msgs))
}

func (w *world) readHead(t string, fn func(*projections.Tournament, checkpoint.Head)) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.states[t]
	if st == nil {
		return false
	}
	fn(st, w.trees[t].Head())
	return true
}

// waitFor: the world applies what it stores at once; a sequence it has not
// stored never comes.
func (w *world) waitFor(ctx context.Context, seq uint64) error {
	if w.applied() >= seq {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (w *world) command(t, key string) (projections.CommitRef, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ref, ok := w.index[t+"/"+key]
	return ref, ok, nil
}

// size is how many commits the log holds.
func (w *world) size() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.msgs)
}

var (
	admin   = events.Actor{ID: "admin", Role: events.RoleAdmin}
	arbiter = events.Actor{ID: "o1", Role: events.RoleArbiter}
)

// register is the submission of RegisterPlayer p under key.
func register(t *testing.T, p, key string) ledger.Submission {
	t.Helper()
	body := fmt.Sprintf(`{"type":"RegisterPlayer","player":%q,"name":"Giocatore %s"}`, p, p)
	cmd, err := commands.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := ledger.Fingerprint(ledger.RouteCommands, "bo", arbiter, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return ledger.Submission{Tournament: "bo", Command: cmd, Actor: arbiter, Key: key, Route: ledger.RouteCommands, Request: fp}
}

// created is a world holding tournament bo (seq 1).
func created(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	sub := ledger.Submission{Tournament: "bo", Command: &commands.CreateTournament{ID: "bo", Name: "Bologna", Ruleset: "rtu"},
		Actor: admin, Key: "create", Route: ledger.RouteCreate, Request: "sha256:create"}
	if _, err := w.ledger().Submit(context.Background(), sub); err != nil {
		t.Fatalf("create: %v", err)
	}
	w.obs = &fakeObserver{} // the ledgers of the test observe from here
	return w
}

// appendAsAnotherNode decides sub on the world's state and appends it as
// another node sharing the log would.
func (w *world) appendAsAnotherNode(sub ledger.Submission) {
	w.t.Helper()
	var body []byte
	var expected uint64
	var err error
	w.readHead(sub.Tournament, func(st *projections.Tournament, h checkpoint.Head) {
		expected = st.LastStreamSeq
		_, body, err = ledger.DecideCommit(st, h, sub.Command, commands.Input{Now: time.Now().UTC(), Actor: sub.Actor}, sub.Key, w.signer)
	})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.append(context.Background(), sub.Tournament, expected, ledger.MsgID(sub.Tournament, sub.Key), sub.Request, body); err != nil {
		w.t.Fatal(err)
	}
}

// TestSubmitDecidesAgainAfterAConflict: another node appends to the
// tournament between this node's decision and its append; the append
// conflicts, the ledger catches up and decides again on the newer state.
func TestSubmitDecidesAgainAfterAConflict(t *testing.T) {
	w := created(t)
	appends := 0
	w.log.appendRequest = func(ctx context.Context, tt string, expected uint64, id, request string, body []byte) (events.Appended, error) {
		if appends++; appends == 1 {
			w.appendAsAnotherNode(register(t, "p1", "theirs"))
		}
		return w.append(ctx, tt, expected, id, request, body)
	}
	o, err := w.ledger().Submit(context.Background(), register(t, "p2", "mine"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Replayed || o.Seq != 3 || len(o.Events) != 1 || o.Events[0].CommandID != "mine" {
		t.Errorf("outcome %+v, want seq 3: decided after the other node's seq 2", o)
	}
	if appends != 2 || w.obs.retries != 1 || w.size() != 3 {
		t.Errorf("%d appends, %d retries, %d commits; want 2, 1 and 3", appends, w.obs.retries, w.size())
	}
	if len(w.obs.appends) != 2 || !errors.Is(w.obs.appends[0], events.ErrConflict) || w.obs.appends[1] != nil {
		t.Errorf("appends observed %v, want a conflict then a success", w.obs.appends)
	}
}

// TestSubmitGivesUpAfterRetries: a tournament that moves on at every
// attempt is refused with the conflict once Retries are spent.
func TestSubmitGivesUpAfterRetries(t *testing.T) {
	w := created(t)
	n := 0
	w.log.appendRequest = func(ctx context.Context, tt string, expected uint64, id, request string, body []byte) (events.Appended, error) {
		n++
		w.appendAsAnotherNode(register(t, fmt.Sprintf("q%d", n), fmt.Sprintf("theirs-%d", n)))
		return w.append(ctx, tt, expected, id, request, body)
	}
	_, err := w.ledger(func(o *ledger.Options) { o.Retries = 2 }).Submit(context.Background(), register(t, "p1", "mine"))
	if !errors.Is(err, events.ErrConflict) || n != 3 || w.obs.retries != 2 {
		t.Errorf("%v after %d appends and %d retries; want a conflict after 3 and 2", err, n, w.obs.retries)
	}
}

// TestSubmitFindsItsOriginalAfterAConflict: the command was stored already
// under its key (an earlier attempt, through another node) when this
// attempt appends; the conflict leads to the index, which holds the
// original: its outcome is replayed, nothing is appended twice.
func TestSubmitFindsItsOriginalAfterAConflict(t *testing.T) {
	w := created(t)
	sub := register(t, "p1", "K")
	w.log.appendRequest = func(ctx context.Context, tt string, expected uint64, id, request string, body []byte) (events.Appended, error) {
		w.appendAsAnotherNode(sub) // the original lands first
		return w.append(ctx, tt, expected, id, request, body)
	}
	o, err := w.ledger().Submit(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Replayed || o.Seq != 2 || w.size() != 2 || w.obs.retries != 0 {
		t.Errorf("outcome %+v with %d commits, %d retries; want seq 2 replayed, the command stored once, no retry", o, w.size(), w.obs.retries)
	}
}

// TestSubmitBindsTheKeyToItsRequest: a key already standing for a command
// replays it for the same request and refuses any other (the HTTP 422),
// naming the key and the seq, with nothing appended.
func TestSubmitBindsTheKeyToItsRequest(t *testing.T) {
	w := created(t)
	l := w.ledger()
	if _, err := l.Submit(context.Background(), register(t, "p1", "K")); err != nil {
		t.Fatal(err)
	}
	o, err := l.Submit(context.Background(), register(t, "p1", "K"))
	if err != nil || !o.Replayed || o.Seq != 2 {
		t.Errorf("the same request again: %+v %v, want seq 2 replayed", o, err)
	}
	_, err = l.Submit(context.Background(), register(t, "p2", "K"))
	var ku *ledger.KeyReusedError
	if !errors.As(err, &ku) || !errors.Is(err, ledger.ErrKeyReused) || ku.Key != "K" || ku.Seq != 2 {
		t.Errorf("another request under the key: %v, want a KeyReusedError naming K and seq 2", err)
	}
	if w.size() != 2 {
		t.Errorf("%d commits, want 2", w.size())
	}
}

// TestSubmitChecksIfMatch: a condition the tournament does not meet is
// refused before anything is appended, and a command that meets it but
// loses a race is refused rather than decided again.
func TestSubmitChecksIfMatch(t *testing.T) {
	w := created(t)
	l := w.ledger()
	sub := register(t, "p1", "K1")
	sub.IfMatch = &ledger.IfMatch{Seqs: []uint64{5, 7}}
	_, err := l.Submit(context.Background(), sub)
	if !errors.Is(err, ledger.ErrPrecondition) || w.size() != 1 {
		t.Errorf("If-Match \"5\", \"7\" at seq 1: %v with %d commits, want a precondition failure and nothing appended", err, w.size())
	}

	sub = register(t, "p2", "K2")
	sub.IfMatch = &ledger.IfMatch{Seqs: []uint64{1}}
	raced := false
	w.log.appendRequest = func(ctx context.Context, tt string, expected uint64, id, request string, body []byte) (events.Appended, error) {
		if !raced {
			raced = true
			w.appendAsAnotherNode(register(t, "p3", "theirs"))
		}
		return w.append(ctx, tt, expected, id, request, body)
	}
	l = w.ledger()
	_, err = l.Submit(context.Background(), sub)
	if !errors.Is(err, ledger.ErrPrecondition) || w.obs.retries != 0 || w.size() != 2 {
		t.Errorf("If-Match \"1\" losing a race: %v, %d retries, %d commits; want a precondition failure, no retry, only the winner's commit", err, w.obs.retries, w.size())
	}

	sub = register(t, "p4", "K3")
	sub.IfMatch = &ledger.IfMatch{Any: true}
	if o, err := l.Submit(context.Background(), sub); err != nil || o.Seq != 3 {
		t.Errorf("If-Match *: %+v %v, want seq 3", o, err)
	}
}

// TestSubmitRefusesWhileTheDiskIsBelowItsReserve: the disk guard refuses
// commands as unavailable with nothing appended, reports itself through
// Disk, and lets commands through once space returns.
func TestSubmitRefusesWhileTheDiskIsBelowItsReserve(t *testing.T) {
	w := created(t)
	free := uint64(10 << 20)
	l := w.ledger(func(o *ledger.Options) {
		o.DiskReserve = 64 << 20
		o.Disk = func() (ledger.DiskState, error) { return ledger.DiskState{Free: free}, nil }
	})
	_, err := l.Submit(context.Background(), register(t, "p1", "K"))
	if !errors.Is(err, events.ErrUnavailable) || w.size() != 1 {
		t.Errorf("10 MiB free of a 64 MiB reserve: %v with %d commits, want unavailable and nothing appended", err, w.size())
	}
	if d, ok := l.Disk(); !ok || d.Accepting || d.Free != free || d.Reserve != 64<<20 {
		t.Errorf("Disk() = %+v, %v; want the guard on and refusing", d, ok)
	}
	free = 1 << 30
	if _, err := l.Submit(context.Background(), register(t, "p1", "K")); err != nil || w.size() != 2 {
		t.Errorf("with room again: %v with %d commits, want accepted", err, w.size())
	}
	if d, _ := l.Disk(); !d.Accepting {
		t.Errorf("Disk() = %+v, want accepting", d)
	}
}

// TestSubmitRetriesAnUnavailableLog: appends that fail as unavailable (a
// NATS node going away) are retried with the same message id until one is
// stored.
func TestSubmitRetriesAnUnavailableLog(t *testing.T) {
	w := created(t)
	var ids []string
	w.log.appendRequest = func(ctx context.Context, tt string, expected uint64, id, request string, body []byte) (events.Appended, error) {
		if ids = append(ids, id); len(ids) <= 2 {
			return events.Appended{}, fmt.Errorf("%w: no responders", events.ErrUnavailable)
		}
		return w.append(ctx, tt, expected, id, request, body)
	}
	o, err := w.ledger().Submit(context.Background(), register(t, "p1", "K"))
	if err != nil || o.Seq != 2 || w.size() != 2 {
		t.Fatalf("%+v %v with %d commits, want seq 2 stored once", o, err, w.size())
	}
	if len(ids) != 3 || ids[0] != "bo/K" || ids[1] != ids[0] || ids[2] != ids[0] || w.obs.retries != 0 {
		t.Errorf("append ids %v, %d retries; want bo/K three times, and no decision again", ids, w.obs.retries)
	}
}

// TestSubmitRefusesUntilTheStateIsReady: while the state catches up with
// the log, commands are refused as unavailable.
func TestSubmitRefusesUntilTheStateIsReady(t *testing.T) {
	w := created(t)
	w.state.ready = func() bool { return false }
	w.state.lag = func() uint64 { return 42 }
	_, err := w.ledger().Submit(context.Background(), register(t, "p1", "K"))
	if !errors.Is(err, events.ErrUnavailable) || w.size() != 1 {
		t.Errorf("%v with %d commits, want unavailable and nothing appended", err, w.size())
	}
}

// TestAwaitAckedWaitsForAnsweredCommands: once Submit has answered a
// command, AwaitAcked of its tournament (or of all) waits until the state
// holds it; another tournament's reads do not wait.
func TestAwaitAckedWaitsForAnsweredCommands(t *testing.T) {
	w := created(t)
	held := make(chan struct{})
	w.state.applied = func() uint64 { return 1 } // the state lags behind the log
	w.state.waitFor = func(ctx context.Context, seq uint64) error {
		if seq <= 1 {
			return nil
		}
		select {
		case <-held:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	l := w.ledger()
	if _, err := l.Submit(context.Background(), register(t, "p1", "K")); err != nil {
		t.Fatal(err)
	}
	if err := l.AwaitAcked(context.Background(), "mi"); err != nil {
		t.Errorf("another tournament: %v, want no wait", err)
	}
	for _, tt := range []string{"bo", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		err := l.AwaitAcked(ctx, tt)
		cancel()
		if !errors.Is(err, events.ErrUnavailable) {
			t.Errorf("AwaitAcked(%q) before the state holds seq 2: %v, want unavailable once ctx ends", tt, err)
		}
	}
	close(held)
	if err := l.AwaitAcked(context.Background(), "bo"); err != nil {
		t.Errorf("once the state holds it: %v", err)
	}
}

// TestOptionsValidateReportsEveryProblem: one error names every missing
// or negative option, and a disk guard without its reserve.
func TestOptionsValidateReportsEveryProblem(t *testing.T) {
	o := ledger.Options{Retries: -1, Disk: func() (ledger.DiskState, error) { return ledger.DiskState{}, nil }}
	o.EnsureDefaults()
	err := o.Validate()
	for _, want := range []string{"Log", "State", "Index", "Signer", "Retries", "DiskReserve"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %s", err, want)
		}
	}
}

// creation is the submission creating tournament id under key.
func creation(id, key string) ledger.Submission {
	return ledger.Submission{Tournament: id, Command: &commands.CreateTournament{ID: id, Name: id, Ruleset: "rtu"},
		Actor: admin, Key: key, Route: ledger.RouteCreate, Request: "sha256:create " + id}
}

// TestACreationKeyIsNotScopedByTheTournament: the key of a creation stands
// for it whichever tournament another request under it would create: the
// same creation replays, the creation of another tournament is refused
// naming the first one's seq, and only one tournament exists.
func TestACreationKeyIsNotScopedByTheTournament(t *testing.T) {
	w := created(t) // bo, under key "create", at stream sequence 1
	l := w.ledger()
	o, err := l.Submit(context.Background(), ledger.Submission{Tournament: "bo", Command: &commands.CreateTournament{ID: "bo", Name: "Bologna", Ruleset: "rtu"},
		Actor: admin, Key: "create", Route: ledger.RouteCreate, Request: "sha256:create"})
	if err != nil || !o.Replayed || o.Seq != 1 {
		t.Errorf("the same creation again: %+v %v, want seq 1 replayed", o, err)
	}
	_, err = l.Submit(context.Background(), creation("mo", "create"))
	var ku *ledger.KeyReusedError
	if !errors.As(err, &ku) || ku.Key != "create" || ku.Seq != 1 {
		t.Errorf("another tournament created under the key: %v, want a KeyReusedError naming seq 1", err)
	}
	if w.size() != 1 {
		t.Errorf("%d commits, want the one creation", w.size())
	}
}

// appoint is the submission of AppointOfficial name under key: accepted in
// any state, so that only its key keeps it from being appended twice.
func appoint(name, key string) ledger.Submission {
	cmd := &commands.AppointOfficial{Name: name, Role: events.RoleArbiter, TokenSHA256: fmt.Sprintf("%064x", len(name))}
	return ledger.Submission{Tournament: "bo", Command: cmd, Actor: admin, Key: key, Route: ledger.RouteAppoint, Request: "sha256:appoint " + name}
}

// TestTheNextCommandWaitsForTheIndex: a command is answered before the
// projections have applied it (and indexed its key), but its tournament
// stays locked until they have: the same command retried at once, after
// the log's duplicate window has forgotten it, finds its key in the index
// and replays, never appended twice. A creation's key stands across
// tournaments, whose locks are others: another tournament created under it
// is refused once the projections hold the first.
func TestTheNextCommandWaitsForTheIndex(t *testing.T) {
	w := created(t)
	// From here the projections apply the log only as far as released,
	// and the duplicate window forgets each message id once it is stored.
	var released atomic.Uint64
	released.Store(1)
	applied := func() uint64 { return min(w.applied(), released.Load()) }
	w.state.applied = applied
	w.state.waitFor = func(ctx context.Context, seq uint64) error {
		for applied() < seq {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
		return nil
	}
	var retried atomic.Bool // the retry has been sent
	indexed := func(t, key string) (projections.CommitRef, bool, error) {
		ref, ok, err := w.command(t, key)
		if ok && ref.StreamSeq > released.Load() {
			return projections.CommitRef{}, false, err
		}
		return ref, ok, err
	}
	w.idx.command = func(tt, key string) (projections.CommitRef, bool, error) {
		if retried.Load() && released.Load() < w.applied() {
			t.Errorf("the index was read for %s/%s before the projections applied the command before it", tt, key)
		}
		return indexed(tt, key)
	}
	w.idx.creation = func(key string) (projections.CommitRef, bool, error) { return indexed("_create", key) }
	w.log.appendRequest = func(ctx context.Context, tt string, expected uint64, id, request string, body []byte) (events.Appended, error) {
		ack, err := w.append(ctx, tt, expected, id, request, body)
		w.mu.Lock()
		clear(w.ids)
		w.mu.Unlock()
		return ack, err
	}
	l := w.ledger()
	ctx := context.Background()
	// release lets the projections apply everything once the retry has
	// been sent (and, most likely, is waiting for the lock).
	release := func() {
		go func() {
			time.Sleep(20 * time.Millisecond)
			released.Store(w.applied())
		}()
	}
	if o, err := l.Submit(ctx, appoint("Anna", "K")); err != nil || o.Seq != 2 {
		t.Fatalf("appoint Anna: %+v %v", o, err)
	}
	retried.Store(true)
	release()
	if o, err := l.Submit(ctx, appoint("Anna", "K")); err != nil || !o.Replayed || o.Seq != 2 {
		t.Errorf("the same request again: %+v %v, want seq 2 replayed", o, err)
	}
	retried.Store(false)
	if o, err := l.Submit(ctx, creation("mo", "C")); err != nil || o.Replayed {
		t.Fatalf("create mo: %+v %v", o, err)
	}
	release()
	var ku *ledger.KeyReusedError
	if _, err := l.Submit(ctx, creation("fe", "C")); !errors.As(err, &ku) || ku.Key != "C" {
		t.Errorf("another tournament created under the key: %v, want a KeyReusedError", err)
	}
	if w.size() != 3 {
		t.Errorf("%d commits, want 3: the creation of bo, Anna once, mo", w.size())
	}
}
