package projections

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/fault"
)

// The read side: every read of a tournament, whoever presents it (the JSON
// API, the web pages), goes through one Reader, which chooses where it
// comes from — the Store's read models, the runner's folds in Memory, or
// the Log folded up to an event for a past state — and makes sure it is
// one the caller may see now: after every command this node acknowledged
// for the tournament (read-your-writes), and at a hub only once the
// tournament is served there.

// ErrNotFound: the tournament, round or event named is not there to read.
var ErrNotFound = fault.New(fault.NotFound, "projections: not found")

// NoEventError refuses a past state asked after an event the tournament
// does not have.
type NoEventError struct {
	Tournament string
	Seq        uint64
}

// Code is fault.Invalid.
func (e *NoEventError) Code() fault.Code { return fault.Invalid }

func (e *NoEventError) Error() string {
	return fmt.Sprintf("tournament %s has no event %d", e.Tournament, e.Seq)
}

// Log is the log the reads fold past states from and read stored events
// of (eventlog.Log).
type Log interface {
	Get(ctx context.Context, streamSeq uint64) (events.StoredCommit, error)
	Scan(ctx context.Context, from, until uint64, tournament string, fn func(events.StoredCommit) error) error
}

// Store is the read models the runner keeps current (store.Store).
type Store interface {
	Tournaments() ([]string, error)
	Summary(t string) ([]byte, bool, error)
	Players(t string) ([]json.RawMessage, error)
	Round(t string, r int) ([]byte, bool, error)
	Tables(t string, r int) ([]json.RawMessage, error)
	Commits(t string, from uint64, limit int) ([]CommitRef, error)
	LastCommit(t string) (CommitRef, bool, error)
	// NodeGetter reads the stored nodes of t's Merkle tree.
	NodeGetter(t string) checkpoint.NodeGetter
}

// Memory is every tournament's state as the runner holds it (store.Runner).
type Memory interface {
	// Read calls fn with t's state under the runner's read lock; false when
	// t does not exist. fn must not keep what it is given.
	Read(t string, fn func(*Tournament)) bool
	// Stale reports rankings the runner has not stored yet.
	Stale(t string) bool
	// Ranking is t's stored standings (or classification) as JSON.
	Ranking(t string, classification bool) ([]byte, bool, error)
}

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// Log, Store and Memory are where reads come from. Required.
	Log    Log
	Store  Store
	Memory Memory
	// Acked, when set, returns once the state holds every command this
	// node acknowledged for tournament t ("" for any tournament), or says
	// why it cannot wait (ledger.Ledger.AwaitAcked).
	Acked func(ctx context.Context, t string) error
	// Served, when set, is nil for a tournament that may be read here, or
	// why not (a hub's: hub.Hub.Served).
	Served func(t string) error
	// Inspect, when set, is called after a read of t's log failed: it
	// returns the damage it found there, as an error, or nil.
	Inspect func(ctx context.Context, t string) error
	// NextPhase, when set, is who would qualify for t's next knockout
	// phase if it were drawn now, or why that cannot be told, or nil when
	// there is nothing to tell: it is decided by the command side
	// (commands.NextPhase), and added to every TournamentView.
	NextPhase func(t *Tournament) *NextPhase
	// Folds bounds the past states folded from the log at once (the
	// default is 2), Exports the exports read from it (the default is 8),
	// apart so that a flood of anonymous past states never keeps an
	// auditor's export waiting. FoldWait is how long one more of either
	// waits for a slot before it is refused (events.ErrUnavailable); the
	// default is a second.
	Folds    int
	Exports  int
	FoldWait time.Duration
}

// Reader serves every read of the tournaments.
type Reader struct {
	opts           ReaderOptions
	folds, exports *Slots

	mu    sync.Mutex
	views map[string]*stateView
}

// maxStateViews bounds the tournaments whose current TournamentView is
// kept: one more drops another's, made again when next read.
const maxStateViews = 64

// NewReader returns a Reader over opts' sources.
func NewReader(opts ReaderOptions) (*Reader, error) {
	if opts.Log == nil || opts.Store == nil || opts.Memory == nil {
		return nil, errors.New("projections: a Reader needs Log, Store and Memory")
	}
	if opts.Folds <= 0 {
		opts.Folds = 2
	}
	if opts.Exports <= 0 {
		opts.Exports = 8
	}
	if opts.FoldWait <= 0 {
		opts.FoldWait = time.Second
	}
	return &Reader{opts: opts, folds: NewSlots(opts.Folds, opts.FoldWait), exports: NewSlots(opts.Exports, opts.FoldWait),
		views: map[string]*stateView{}}, nil
}

// Served is nil when tournament t may be read here, else why not.
func (r *Reader) Served(t string) error {
	if r.opts.Served == nil || t == "" {
		return nil
	}
	return r.opts.Served(t)
}

// Fresh returns once a read of tournament t ("" for none in particular)
// may be made: t is served here, and the state holds every command this
// node acknowledged for it; else it says why not.
func (r *Reader) Fresh(ctx context.Context, t string) error {
	if err := r.Served(t); err != nil {
		return err
	}
	if r.opts.Acked == nil {
		return nil
	}
	return r.opts.Acked(ctx, t)
}

// Tournaments lists the summaries of the tournaments served here.
func (r *Reader) Tournaments() ([]json.RawMessage, error) {
	ids, err := r.opts.Store.Tournaments()
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, 0, len(ids))
	for _, id := range ids {
		if r.Served(id) != nil {
			continue // held or quarantined at a hub
		}
		b, ok, err := r.opts.Store.Summary(id)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, b)
		}
	}
	return out, nil
}

// Summary is tournament t's summary (Summary) as stored.
func (r *Reader) Summary(t string) ([]byte, error) {
	b, ok, err := r.opts.Store.Summary(t)
	if err == nil && !ok {
		err = fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	return b, err
}

// Players is tournament t's entry list (PlayerRow) as stored.
func (r *Reader) Players(t string) ([]json.RawMessage, error) {
	if _, err := r.Summary(t); err != nil {
		return nil, err
	}
	rows, err := r.opts.Store.Players(t)
	if rows == nil {
		rows = []json.RawMessage{}
	}
	return rows, err
}

// Tables is round's header of tournament t, as stored, with its tables
// under "tables".
func (r *Reader) Tables(t string, round int) (map[string]json.RawMessage, error) {
	head, ok, err := r.opts.Store.Round(t, round)
	if err == nil && !ok {
		err = fmt.Errorf("%w: round %d of %s has not been drawn", ErrNotFound, round, t)
	}
	if err != nil {
		return nil, err
	}
	tables, err := r.opts.Store.Tables(t, round)
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(head, &out); err != nil {
		return nil, err
	}
	out["tables"], err = json.Marshal(tables)
	return out, err
}

// EventPage is a page of a tournament's events, as stored: each envelope
// and its stored line.
type EventPage struct {
	Envelopes []events.Envelope
	Lines     [][]byte
}

// Events reads at most limit of tournament t's events from seq from on,
// from the log.
func (r *Reader) Events(ctx context.Context, t string, from, limit uint64) (EventPage, error) {
	var page EventPage
	if _, err := r.Summary(t); err != nil {
		return page, err
	}
	refs, err := r.opts.Store.Commits(t, from, int(limit))
	if err != nil {
		return page, err
	}
	for _, ref := range refs {
		c, err := r.commit(ctx, t, ref)
		if err != nil {
			return page, err
		}
		for i, env := range c.Envelopes {
			if env.Seq >= from && uint64(len(page.Envelopes)) < limit {
				page.Envelopes = append(page.Envelopes, env)
				page.Lines = append(page.Lines, c.Lines[i])
			}
		}
	}
	return page, nil
}

// commit reads the commit ref of tournament t from the log; a failed
// read names the damage found there when there is some.
func (r *Reader) commit(ctx context.Context, t string, ref CommitRef) (events.Commit, error) {
	m, err := r.opts.Log.Get(ctx, ref.StreamSeq)
	var c events.Commit
	if err == nil {
		c, err = events.DecodeCommit(m.Data)
	}
	if err != nil {
		return c, r.damaged(ctx, t, err)
	}
	return c, nil
}

// damaged is err, a failed read of t's log, or the damage found there
// that explains it.
func (r *Reader) damaged(ctx context.Context, t string, err error) error {
	if r.opts.Inspect == nil || ctx.Err() != nil || errors.Is(err, events.ErrUnavailable) {
		return err
	}
	if derr := r.opts.Inspect(ctx, t); derr != nil {
		return derr
	}
	return err
}

// StandingsJSON is tournament t's standings (Standings) as JSON, as they
// stand.
func (r *Reader) StandingsJSON(t string) ([]byte, error) {
	return r.ranking(t, false, func(st *Tournament) any { return st.Standings() })
}

// ClassificationJSON is tournament t's classification (Classification) as
// JSON, as it stands.
func (r *Reader) ClassificationJSON(t string) ([]byte, error) {
	return r.ranking(t, true, func(st *Tournament) any { return st.Classification() })
}

// Standings is tournament t's standings as they stand: StandingsJSON's,
// as a page shows them.
func (r *Reader) Standings(t string) (Standings, error) {
	var out Standings
	err := r.rankingOf(t, false, &out, func(st *Tournament) { out = st.Standings() })
	return out, err
}

// Classification is tournament t's classification as it stands:
// ClassificationJSON's, as a page shows it.
func (r *Reader) Classification(t string) (Classification, error) {
	var out Classification
	err := r.rankingOf(t, true, &out, func(st *Tournament) { out = st.Classification() })
	return out, err
}

// rankingOf reads what ranking serves into out: the stored one, decoded,
// or, while the runner has not stored it yet, the one fresh makes of its
// fold (no JSON made to be read back).
func (r *Reader) rankingOf(t string, classification bool, out any, fresh func(*Tournament)) error {
	if r.opts.Memory.Stale(t) && r.opts.Memory.Read(t, fresh) {
		return nil
	}
	b, ok, err := r.opts.Memory.Ranking(t, classification)
	if err == nil && !ok {
		err = fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// ranking is the standings or the classification: as stored, or, while
// the runner has not yet stored them (it defers those costly views while
// commands keep coming), computed from its fold, so that a read after an
// acknowledged command sees it.
func (r *Reader) ranking(t string, classification bool, fresh func(*Tournament) any) ([]byte, error) {
	var b []byte
	var err error
	if !r.opts.Memory.Stale(t) || !r.opts.Memory.Read(t, func(st *Tournament) { b, err = json.Marshal(fresh(st)) }) {
		var ok bool
		b, ok, err = r.opts.Memory.Ranking(t, classification)
		if err == nil && !ok {
			err = fmt.Errorf("%w: tournament %s", ErrNotFound, t)
		}
	}
	return b, err
}

// Seq is the seq of tournament t's state; false when t does not exist.
func (r *Reader) Seq(t string) (uint64, bool) {
	var seq uint64
	ok := r.opts.Memory.Read(t, func(st *Tournament) { seq = st.Seq })
	return seq, ok
}

// Read calls fn with tournament t's state as it stands, under the
// runner's read lock: fn must not keep it nor anything it holds. false
// when t does not exist.
func (r *Reader) Read(t string, fn func(*Tournament)) bool {
	return r.opts.Memory.Read(t, fn)
}

// Clone is a copy of tournament t's state as it stands, the caller's.
func (r *Reader) Clone(t string) (*Tournament, error) {
	var st *Tournament
	if !r.opts.Memory.Read(t, func(cur *Tournament) { st = cur.Clone() }) {
		return nil, fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	return st, nil
}

// Season calls fn, under the runner's read lock, with the state of each
// tournament of season, served here or not (fn must not keep it), and
// lists every tournament held, of any season.
func (r *Reader) Season(season string, fn func(*Tournament)) ([]string, error) {
	ids, err := r.opts.Store.Tournaments()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		r.opts.Memory.Read(id, func(st *Tournament) {
			if st.Season == season {
				fn(st)
			}
		})
	}
	return ids, nil
}

// OfficialRow is an appointed official as the officials' list shows him:
// never his token's hash.
type OfficialRow struct {
	Official  string `json:"official"`
	Name      string `json:"name"`
	Role      string `json:"role"`
	Appointed uint64 `json:"appointed"`
}

// Officials lists tournament t's appointed officials in the order of
// appointment.
func (r *Reader) Officials(t string) ([]OfficialRow, error) {
	out := []OfficialRow{}
	if !r.opts.Memory.Read(t, func(st *Tournament) {
		for _, o := range st.Officials {
			out = append(out, OfficialRow{Official: o.ID, Name: o.Name, Role: o.Role, Appointed: o.Appointed})
		}
	}) {
		return nil, fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	slices.SortFunc(out, func(a, b OfficialRow) int { return cmp.Compare(a.Appointed, b.Appointed) })
	return out, nil
}

// At folds tournament t's log up to and including event seq: a past
// state, which the caller owns. The reads that use it are public, so at
// most Folds of them run at once.
func (r *Reader) At(ctx context.Context, t string, seq uint64) (*Tournament, error) {
	release, err := r.folds.Take(ctx, "past states being folded from the log")
	if err != nil {
		return nil, err
	}
	defer release()
	first, err := r.opts.Store.Commits(t, 1, 1)
	if err != nil {
		return nil, err
	}
	upto, err := r.opts.Store.Commits(t, seq, 1)
	if err != nil {
		return nil, err
	}
	if len(first) == 0 {
		return nil, fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	if len(upto) == 0 || upto[0].First > seq {
		return nil, &NoEventError{Tournament: t, Seq: seq}
	}
	var envs []events.Envelope
	err = r.opts.Log.Scan(ctx, first[0].StreamSeq, upto[0].StreamSeq, t, func(m events.StoredCommit) error {
		c, err := events.DecodeCommit(m.Data)
		if err != nil {
			return err
		}
		envs = append(envs, c.Envelopes...)
		return nil
	})
	var st *Tournament
	if err == nil {
		st, err = Fold(t, envs, seq)
	}
	if err != nil {
		return nil, r.damaged(ctx, t, err)
	}
	return st, nil
}

// StandingsAt is tournament t's standings as they stood right after
// event seq.
func (r *Reader) StandingsAt(ctx context.Context, t string, seq uint64) (Standings, error) {
	st, err := r.At(ctx, t, seq)
	if err != nil {
		return Standings{}, err
	}
	return st.Standings(), nil
}

// State is tournament t's whole state as it stands, made once per seq and
// shared by every reader of that seq, who must not modify it.
func (r *Reader) State(t string) (*TournamentView, error) {
	v, err := r.current(t)
	if err != nil {
		return nil, err
	}
	return v.view, v.err
}

// StateJSON is State as JSON, encoded at most once per seq.
func (r *Reader) StateJSON(t string) ([]byte, error) {
	v, err := r.current(t)
	if err != nil {
		return nil, err
	}
	return v.encoded()
}

// StateAt is tournament t's whole state as it stood right after event
// seq, folded from the log.
func (r *Reader) StateAt(ctx context.Context, t string, seq uint64) (*TournamentView, error) {
	st, err := r.At(ctx, t, seq)
	if err != nil {
		return nil, err
	}
	v := r.view(st)
	return &v, nil
}

// view is st's TournamentView with its next phase.
func (r *Reader) view(st *Tournament) TournamentView {
	v := st.StateView()
	if r.opts.NextPhase != nil {
		v.Next = r.opts.NextPhase(st)
	}
	return v
}

// stateView is a tournament's TournamentView at seq, made once, and its
// JSON, encoded once when first asked.
type stateView struct {
	seq  uint64
	once sync.Once
	view *TournamentView
	err  error

	encode sync.Once
	json   []byte
	jsErr  error
}

func (v *stateView) encoded() ([]byte, error) {
	v.encode.Do(func() {
		if v.err != nil {
			v.jsErr = v.err
			return
		}
		v.json, v.jsErr = json.Marshal(v.view)
	})
	return v.json, v.jsErr
}

// current is tournament t's stateView as it stands, made at most once per
// seq.
func (r *Reader) current(t string) (*stateView, error) {
	seq, ok := r.Seq(t)
	if !ok {
		return nil, fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	r.mu.Lock()
	v := r.views[t]
	if v == nil || v.seq != seq {
		if _, held := r.views[t]; !held && len(r.views) >= maxStateViews {
			for other := range r.views {
				delete(r.views, other)
				break
			}
		}
		v = &stateView{seq: seq}
		r.views[t] = v
	}
	r.mu.Unlock()
	v.once.Do(func() {
		if !r.opts.Memory.Read(t, func(st *Tournament) {
			view := r.view(st)
			v.view = &view
		}) {
			v.err = fmt.Errorf("%w: tournament %s", ErrNotFound, t)
		}
	})
	return v, nil
}

// Slots bounds the reads of a log made at once.
type Slots struct {
	sem  chan struct{}
	wait time.Duration
}

// NewSlots returns n slots, for which one more read waits up to wait.
func NewSlots(n int, wait time.Duration) *Slots {
	return &Slots{sem: make(chan struct{}, n), wait: wait}
}

// Take takes a slot, waiting for one as long as the Slots say: past that
// the read is refused (events.ErrUnavailable), what naming what is busy.
// release gives the slot back.
func (s *Slots) Take(ctx context.Context, what string) (release func(), err error) {
	wait := time.NewTimer(s.wait)
	defer wait.Stop()
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem }, nil
	case <-wait.C:
	case <-ctx.Done():
	}
	return nil, fmt.Errorf("%w: too many %s at once (at most %d); try again", events.ErrUnavailable, what, cap(s.sem))
}
