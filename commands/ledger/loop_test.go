package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// The append loop, checked against the state folded from the log.
//
// sharedLog is one stream several nodes append to, with JetStream's checks
// (expected last subject sequence first, then the duplicate window). It
// folds every commit it stores from its stored bytes, as the projections
// would: the reference. Before storing a commit it checks the decision:
// the command of the commit's key, decided again on the reference state the
// append expected, must give the very bytes appended, and the If-Match
// condition must hold on it.
//
// lagState is one node's projections: they fold the shared log behind it,
// a random number of commits at a time, and only as far as a wait needs
// otherwise (so that another node's appends reach it late).

type sharedLog struct {
	t      *testing.T
	signer note.Signer
	now    time.Time

	mu   sync.Mutex
	msgs []events.StoredCommit
	ids  map[string]uint64
	ref  map[string]*folded
	subs map[string]Submission // by key: what each key was submitted as
}

type folded struct {
	t    *projections.Tournament
	tree *checkpoint.Tree
}

func (f *folded) fold(t *testing.T, m events.StoredCommit) {
	t.Helper()
	c, evs, err := events.DecodeCommitForFold(m.Data)
	if err != nil {
		t.Fatalf("stream sequence %d: %v", m.StreamSeq, err)
	}
	for i, env := range c.Envelopes {
		if err := f.t.Apply(env, evs[i], nil); err != nil {
			t.Fatalf("stream sequence %d: %v", m.StreamSeq, err)
		}
		if err := f.tree.Append(c.Lines[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	f.t.LastStreamSeq = m.StreamSeq
}

func (l *sharedLog) submitted(sub Submission) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.subs[sub.Key] = sub
}

func (l *sharedLog) AppendRequest(_ context.Context, t string, expected uint64, id, request string, body []byte) (events.Appended, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ref := l.ref[t]
	if ref == nil {
		ref = &folded{t: projections.New(t), tree: checkpoint.NewTree()}
		l.ref[t] = ref
	}
	if ref.t.LastStreamSeq != expected {
		return events.Appended{}, fmt.Errorf("%w: %s is at %d, not %d", events.ErrConflict, t, ref.t.LastStreamSeq, expected)
	}
	if seq, ok := l.ids[id]; ok {
		return events.Appended{StreamSeq: seq, Duplicate: true}, nil
	}
	c, err := events.DecodeCommit(body)
	if err != nil {
		l.t.Errorf("append of a corrupt commit: %v", err)
		return events.Appended{}, err
	}
	key := c.Envelopes[0].CommandID
	sub, ok := l.subs[key]
	if !ok {
		l.t.Errorf("append under key %s, never submitted", key)
	} else {
		if sub.IfMatch != nil && !sub.IfMatch.Matches(ref.t.Seq) {
			l.t.Errorf("key %s: appended on seq %d of the log, which If-Match %s does not match", key, ref.t.Seq, sub.IfMatch)
		}
		in := commands.Input{Now: l.now, Actor: sub.Actor, Seed: sub.Seed}
		_, want, err := DecideCommit(ref.t, ref.tree.Head(), sub.Command, in, key, l.signer)
		if err != nil {
			l.t.Errorf("key %s: appended %q, but on the state folded from the log it is refused: %v", key, body, err)
		} else if !bytes.Equal(body, want) {
			l.t.Errorf("key %s: appended\n%s\nbut on the state folded from the log it decides\n%s", key, body, want)
		}
	}
	m := events.StoredCommit{StreamSeq: uint64(len(l.msgs) + 1), Tournament: t, MsgID: id, Request: request, Data: body}
	l.msgs = append(l.msgs, m)
	l.ids[id] = m.StreamSeq
	ref.fold(l.t, m)
	return events.Appended{StreamSeq: m.StreamSeq}, nil
}

func (l *sharedLog) Get(_ context.Context, seq uint64) (events.StoredCommit, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq == 0 || seq > uint64(len(l.msgs)) {
		return events.StoredCommit{}, fmt.Errorf("no message %d", seq)
	}
	return l.msgs[seq-1], nil
}

func (l *sharedLog) LastSubjectSeq(_ context.Context, t string) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ref := l.ref[t]; ref != nil {
		return ref.t.LastStreamSeq, nil
	}
	return 0, nil
}

func (l *sharedLog) len() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return uint64(len(l.msgs))
}

// lagState is a node's projections over a sharedLog, and its command index.
type lagState struct {
	log *sharedLog

	mu      sync.Mutex
	rng     *rand.Rand
	applied uint64
	states  map[string]*folded
	index   map[string]projections.CommitRef // by tournament/key
}

func newLagState(log *sharedLog, seed uint64) *lagState {
	return &lagState{log: log, rng: rand.New(rand.NewPCG(seed, 1)), states: map[string]*folded{}, index: map[string]projections.CommitRef{}}
}

// pumpLocked folds the log up to stream sequence upTo.
func (s *lagState) pumpLocked(upTo uint64) {
	for s.applied < upTo {
		m, err := s.log.Get(context.Background(), s.applied+1)
		if err != nil {
			return
		}
		f := s.states[m.Tournament]
		if f == nil {
			f = &folded{t: projections.New(m.Tournament), tree: checkpoint.NewTree()}
			s.states[m.Tournament] = f
		}
		f.fold(s.log.t, m)
		c, _ := events.DecodeCommit(m.Data)
		s.index[m.Tournament+"/"+c.Envelopes[0].CommandID] = projections.CommitRef{Tournament: m.Tournament, StreamSeq: m.StreamSeq}
		if c.Envelopes[0].Type == events.TypeTournamentCreated {
			s.index["_create/"+c.Envelopes[0].CommandID] = projections.CommitRef{StreamSeq: m.StreamSeq}
		}
		s.applied = m.StreamSeq
	}
}

// drift folds a random few commits, as projections running behind do.
func (s *lagState) drift() {
	if n := s.rng.IntN(4); n > 0 {
		s.pumpLocked(s.applied + uint64(n))
	}
}

func (s *lagState) Ready() bool { return true }
func (s *lagState) Lag() uint64 { return 0 }
func (s *lagState) Applied() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied
}

func (s *lagState) ReadHead(t string, fn func(*projections.Tournament, checkpoint.Head)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drift()
	f := s.states[t]
	if f == nil {
		return false
	}
	fn(f.t, f.tree.Head())
	return true
}

func (s *lagState) WaitFor(ctx context.Context, seq uint64) error {
	for {
		s.mu.Lock()
		s.pumpLocked(seq)
		done := s.applied >= seq
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

func (s *lagState) Command(t, key string) (projections.CommitRef, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ref, ok := s.index[t+"/"+key]
	return ref, ok, nil
}

func (s *lagState) Creation(key string) (projections.CommitRef, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ref, ok := s.index["_create/"+key]
	return ref, ok, nil
}

// canonical is a state's encoding with maps sorted: equal states, equal
// bytes.
func canonical(t *testing.T, st *projections.Tournament) []byte {
	t.Helper()
	b, err := jsonv2.Marshal(st, jsonv2.Deterministic(true), jsonv2.FormatNilSliceAsNull(true), jsonv2.FormatNilMapAsNull(true))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testSigner(t *testing.T) note.Signer {
	t.Helper()
	skey, _, err := note.GenerateKey(nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

// randomCommand is one of the commands of a tournament's first round, many
// of them refused in the state they come to (a player registered twice, a
// check-in before the draw, a draw before registration closes).
func randomCommand(rng *rand.Rand) string {
	p := fmt.Sprintf("p%02d", 1+rng.IntN(40))
	switch n := rng.IntN(200); {
	case n < 110:
		return fmt.Sprintf(`{"type":"RegisterPlayer","player":%q,"name":"Giocatore %s"}`, p, p)
	case n < 111:
		return `{"type":"CloseRegistration"}`
	case n < 130:
		return `{"type":"DrawTables","round":1}`
	case n < 160:
		return fmt.Sprintf(`{"type":"CheckIn","round":1,"player":%q,"minutes_late":%d}`, p, rng.IntN(3))
	default:
		return fmt.Sprintf(`{"type":"Withdraw","player":%q,"scope":"tournament","reason":"voluntary"}`, p)
	}
}

// TestSubmitDecidesAsTheLog runs random command streams from several
// clients on several nodes (Ledgers sharing one log, each with its own
// projections running behind) on two tournaments, with retries of earlier
// keys and If-Match conditions on the seq a client last saw. Every commit
// appended must be the one the state folded from the log decides (sharedLog
// checks it as it stores it); every retry of an accepted key must be
// answered with its original outcome.
func TestSubmitDecidesAsTheLog(t *testing.T) {
	const nodes, clients, perClient = 3, 3, 60
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
			lg := &sharedLog{t: t, signer: testSigner(t), now: now, ids: map[string]uint64{}, ref: map[string]*folded{}, subs: map[string]Submission{}}
			var ledgers []*Ledger
			for n := range nodes {
				st := newLagState(lg, seed*100+uint64(n))
				l, err := New(Options{Log: lg, State: st, Index: st, Signer: lg.signer, Clock: func() time.Time { return now },
					CommandTimeout: 5 * time.Second, Retries: 64})
				if err != nil {
					t.Fatal(err)
				}
				ledgers = append(ledgers, l)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			admin := Submission{Actor: events.Actor{ID: "admin", Role: events.RoleAdmin}, Route: RouteCreate}
			for _, id := range []string{"bo", "mi"} {
				sub := admin
				sub.Tournament, sub.Key, sub.Request = id, "create-"+id, "create-"+id
				sub.Command = &commands.CreateTournament{ID: id, Name: id, Ruleset: "rtu"}
				lg.submitted(sub)
				if _, err := ledgers[0].Submit(ctx, sub); err != nil {
					t.Fatal(err)
				}
			}

			type accepted struct {
				seq  uint64
				body []byte
			}
			var mu sync.Mutex
			outcomes := map[string]accepted{} // by key, of accepted commands
			var wg sync.WaitGroup
			for n := range nodes {
				for c := range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(seed, uint64(n*clients+c)))
						var mine []Submission
						lastSeen := map[string]uint64{}
						for i := range perClient {
							var sub Submission
							if len(mine) > 0 && rng.IntN(6) == 0 {
								sub = mine[rng.IntN(len(mine))] // a retry, perhaps on another node
							} else {
								body := randomCommand(rng)
								cmd, err := commands.Parse([]byte(body))
								if err != nil {
									t.Error(err)
									return
								}
								tid := []string{"bo", "mi"}[rng.IntN(2)]
								arb := events.Actor{ID: "o1", Role: events.RoleArbiter}
								sub = Submission{Tournament: tid, Command: cmd, Actor: arb, Key: fmt.Sprintf("k-%d-%d-%d", n, c, i),
									Route: RouteCommands, Request: body, Seed: fmt.Sprintf("seed-%d-%d-%d", n, c, i)}
								if rng.IntN(4) == 0 {
									sub.IfMatch = &IfMatch{Seqs: []uint64{lastSeen[tid]}}
								}
								lg.submitted(sub)
								mine = append(mine, sub)
							}
							o, err := ledgers[rng.IntN(nodes)].Submit(ctx, sub)
							if ctx.Err() != nil {
								t.Error("out of time")
								return
							}
							switch {
							case err == nil:
								body, _ := events.EncodeCommit(o.Events)
								lastSeen[sub.Tournament] = max(lastSeen[sub.Tournament], o.Seq)
								mu.Lock()
								if prev, ok := outcomes[sub.Key]; ok && (prev.seq != o.Seq || !bytes.Equal(prev.body, body)) {
									t.Errorf("key %s answered with seq %d, then %d (replayed %v)", sub.Key, prev.seq, o.Seq, o.Replayed)
								} else if !ok && o.Replayed {
									t.Errorf("key %s replayed before it was accepted", sub.Key)
								}
								outcomes[sub.Key] = accepted{o.Seq, body}
								mu.Unlock()
							case ledgerFailed(err), errors.Is(err, ErrKeyReused):
								// Not a refusal of the command: the ledger failed it.
								t.Errorf("key %s: %v", sub.Key, err)
							}
						}
					}()
				}
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			if len(outcomes) < nodes*clients {
				t.Errorf("%d keys accepted: the stream checks little", len(outcomes))
			}
			t.Logf("%d commits, %d keys accepted", lg.len(), len(outcomes))
		})
	}
}

// TestFoldCommitFoldsAsTheProjections folds the same log both ways, on a
// real node (JetStream and Pebble): FoldCommit (what the generators of
// logs fold with) over every commit the log stored, and the projections.
// The states must be equal byte for byte, Merkle heads included, after a
// random command stream.
func TestFoldCommitFoldsAsTheProjections(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ids := []string{"bo", "mi", "to"}
	node := startNode(t, t.TempDir())
	defer node.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := node.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, err := node.Ledger.Submit(ctx, Submission{Tournament: id, Command: &commands.CreateTournament{ID: id, Name: id, Ruleset: "rtu"},
			Actor: events.Actor{ID: "admin", Role: events.RoleAdmin}, Key: "create-" + id, Route: RouteCreate}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for n, id := range ids {
		var cmds []string
		for i := range 24 { // a field to draw, then anything
			p := fmt.Sprintf("p%02d", 1+i%40)
			cmds = append(cmds, fmt.Sprintf(`{"type":"RegisterPlayer","player":%q,"name":"Giocatore %s"}`, p, p))
		}
		for range 60 {
			cmds = append(cmds, randomCommand(rng))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, body := range cmds {
				cmd, err := commands.Parse([]byte(body))
				if err != nil {
					t.Error(err)
					return
				}
				_, err = node.Ledger.Submit(ctx, Submission{Tournament: id, Command: cmd, Actor: events.Actor{ID: "o1", Role: events.RoleArbiter},
					Key: fmt.Sprint("k", n, "-", i), Route: RouteCommands, Request: body, Seed: fmt.Sprint("s", n, "-", i)})
				if ledgerFailed(err) {
					t.Errorf("%s: %v", body, err)
				}
			}
		}()
	}
	wg.Wait()
	if err := node.Ledger.AwaitAcked(ctx, ""); err != nil {
		t.Fatal(err)
	}
	last, err := node.Log.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	folds := map[string]*folded{}
	for _, id := range ids {
		folds[id] = &folded{t: projections.New(id), tree: checkpoint.NewTree()}
	}
	if err := node.Log.Scan(ctx, 1, last, "", func(m events.StoredCommit) error {
		f := folds[m.Tournament]
		if err := FoldCommit(f.t, f.tree, m.Data); err != nil {
			return err
		}
		f.t.LastStreamSeq = m.StreamSeq
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		f := folds[id]
		var want []byte
		var wantHead checkpoint.Head
		node.Runner.ReadHead(id, func(st *projections.Tournament, h checkpoint.Head) { want, wantHead = canonical(t, st), h })
		if got := canonical(t, f.t); !bytes.Equal(got, want) {
			t.Errorf("%s: FoldCommit's state\n%s\nthe projections'\n%s", id, got, want)
		}
		if got := f.tree.Head(); got.Size != wantHead.Size || !bytes.Equal(got.Root, wantHead.Root) || !bytes.Equal(got.Last, wantHead.Last) {
			t.Errorf("%s: FoldCommit's tree head %+v, the projections' %+v", id, got, wantHead)
		}
		if f.t.Seq < 20 {
			t.Errorf("%s: only %d events: the stream compares little", id, f.t.Seq)
		}
	}
}

// ledgerFailed says whether a submission failed in the ledger rather than
// by its decision: the log unavailable, or moving under every retry (a
// conflict the decision refuses is the command's own).
func ledgerFailed(err error) bool {
	return errors.Is(err, events.ErrUnavailable) || errors.Is(err, events.ErrConflict) && strings.Contains(err.Error(), "gave up after")
}
