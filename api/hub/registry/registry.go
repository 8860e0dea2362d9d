package registry

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections/ranking"
)

// Options configures a Registry.
type Options struct {
	// Conn is the hub's NATS connection. Required.
	Conn *nats.Conn
	// Keys are the hub's checkpoint keys (the ones its GET /v1/keys
	// serves): they sign the registry's checkpoints, and seal each of its
	// commits (an HMAC under a secret derived from them), so that a
	// message on the registry's subject the hub did not write is known
	// for what it is. Required.
	Keys *checkpoint.Keys
	// Roster is what the hub holds of its tournaments, which links and
	// merges are checked against (NewRoster). Required.
	Roster commands.Roster
	// Clock is the time stamped on events; the default is time.Now.
	Clock func() time.Time
	// Replicas is the stream's replication factor; the default is 1.
	Replicas int
	// CommandTimeout bounds one command; the default is 10 seconds.
	CommandTimeout time.Duration
	// Logger receives what the registry does; nil discards.
	Logger *slog.Logger
	// Existing opens only a registry whose stream is there (a backup of a
	// data directory that may be a venue's): without it, Open is
	// events.ErrNoLog and creates nothing. The default creates the stream
	// on a hub's first start.
	Existing bool
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *Options) EnsureDefaults() {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.CommandTimeout == 0 {
		o.CommandTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports every problem at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Conn == nil {
		errs = append(errs, errors.New("registry: Conn is required"))
	}
	if o.Keys == nil || o.Keys.Signer == nil {
		errs = append(errs, errors.New("registry: Keys are required"))
	}
	if o.Roster == nil {
		errs = append(errs, errors.New("registry: Roster is required"))
	}
	if o.CommandTimeout < 0 {
		errs = append(errs, errors.New("registry: CommandTimeout must not be negative"))
	}
	return errors.Join(errs...)
}

// Submission is one registry command on its way into the log.
type Submission struct {
	Command commands.RegistryCommand
	Actor   events.Actor
	// Key is the idempotency key, the envelope's command_id; Request the
	// fingerprint of the request (ledger.Fingerprint) it is bound to.
	Key     string
	Request string
}

// Keeper is a hub's season registry: its log and the log folded. The
// hub's process is the log's one writer, so the fold it keeps is current.
// It is safe for concurrent use.
type Keeper struct {
	o      Options
	lg     *eventlog.Log
	secret []byte // seals the commits (Options.Keys)

	mu      sync.Mutex // held from decision to fold; guards what follows
	log     *ranking.RegistryLog
	last    uint64            // stream sequence of the last commit folded
	commits map[string]commit // by command id: what idempotency replays
	broken  error             // why the log does not fold, when it does not
	foreign int               // messages on the subject the hub did not write, ignored
}

// sealPurpose derives the secret the registry's commits are sealed with
// (checkpoint.Keys.Secret).
const sealPurpose = "season-registry-seal"

// seal is the hex HMAC-SHA256 of a commit's body under r's secret.
func (r *Keeper) seal(body []byte) string {
	m := hmac.New(sha256.New, r.secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// sealed reports whether m carries r's seal of its body: a message the
// hub wrote.
func (r *Keeper) sealed(m events.StoredCommit) bool {
	return hmac.Equal([]byte(m.Seal), []byte(r.seal(m.Data)))
}

// commit is a command the log holds, at stream sequence streamSeq.
type commit struct {
	streamSeq uint64
	request   string
	envs      []events.Envelope
}

// retries is how many times a command is decided again after losing a
// race for the log (a message the hub did not write, an append whose
// answer was lost).
const retries = 8

// Open opens (creating it the first time) the registry's stream and folds
// its log. A log that does not fold is kept as it is, set aside: the
// registry then refuses commands and reads (events.ErrUnavailable, with
// why) while the hub serves the rest.
func Open(ctx context.Context, o Options) (*Keeper, error) {
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r, err := open(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := r.catchUp(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// open opens the registry's stream, folding nothing yet.
func open(ctx context.Context, o Options) (*Keeper, error) {
	lg, err := eventlog.Open(ctx, o.Conn, eventlog.Options{Stream: eventlog.RegistryStream, Prefix: eventlog.RegistryPrefix,
		Replicas: o.Replicas, Existing: o.Existing})
	if err != nil {
		return nil, err
	}
	secret, err := o.Keys.Secret(sealPurpose)
	if err != nil {
		return nil, err
	}
	return &Keeper{o: o, lg: lg, secret: secret, log: ranking.NewRegistryLog(), commits: map[string]commit{}}, nil
}

// catchUp folds what the log holds past the last commit folded; r.mu
// held, or r not shared yet.
func (r *Keeper) catchUp(ctx context.Context) error {
	if r.broken != nil {
		return nil
	}
	last, err := r.lg.LastSubjectSeq(ctx, events.RegistryID)
	if err != nil || last <= r.last {
		return err
	}
	return r.lg.Scan(ctx, r.last+1, last, events.RegistryID, func(m events.StoredCommit) error {
		r.fold(m)
		return nil
	})
}

// fold applies one stored commit; one that does not fold sets the log
// aside (r.broken). A message the hub did not seal is none of its
// commits: it is passed over, and said so in the hub's log. (A venue's
// leaf link does not carry the registry's subject, but a venue that
// configured its server otherwise could publish on it: what it publishes
// is never read as the registry's.)
func (r *Keeper) fold(m events.StoredCommit) {
	if r.broken != nil {
		return
	}
	if !r.sealed(m) {
		r.last = m.StreamSeq
		r.foreign++
		r.o.Logger.Warn("a message on the season registry's subject that the hub did not write is passed over", "stream_seq", m.StreamSeq, "bytes", len(m.Data))
		return
	}
	c, err := events.DecodeCommit(m.Data)
	for i := 0; err == nil && i < len(c.Lines); i++ {
		_, err = r.log.Append(c.Lines[i])
	}
	if err != nil {
		r.broken = fmt.Errorf("stream sequence %d: %w", m.StreamSeq, err)
		r.o.Logger.Error("the season registry's log does not fold: commands and reads of it are refused", "err", r.broken)
		return
	}
	r.last = m.StreamSeq
	r.commits[c.Envelopes[0].CommandID] = commit{streamSeq: m.StreamSeq, request: m.Request, envs: c.Envelopes}
}

// usable is nil when the log folds, else why not; r.mu held.
func (r *Keeper) usable() error {
	if r.broken != nil {
		return fmt.Errorf("%w: the season registry's log does not fold (%v): see the hub's log", events.ErrUnavailable, r.broken)
	}
	return nil
}

// Submit decides sub's command against the registry and appends its event
// to the log through the append loop every command goes through
// (ledger.Loop), then folds it. A key that already stands for this
// request is answered with the stored outcome (Replayed); one that stands
// for another request is a *ledger.KeyReusedError. The command's refusals
// are commands.DecideRegistry's.
func (r *Keeper) Submit(ctx context.Context, sub Submission) (ledger.Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.CommandTimeout)
	defer cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	loop := ledger.Loop{Clock: r.o.Clock, Retries: retries}
	o, stored, err := loop.Append(ctx, registryStream{r: r, sub: sub},
		ledger.Command{Stream: events.RegistryID, Actor: sub.Actor, Key: sub.Key}, nil)
	if err != nil || stored.StreamSeq == 0 {
		return o, err
	}
	r.fold(events.StoredCommit{StreamSeq: stored.StreamSeq, Request: sub.Request, Seal: r.seal(stored.Body), Data: stored.Body})
	if err := r.usable(); err != nil {
		return ledger.Outcome{}, err
	}
	r.o.Logger.Info("registry", "type", o.Events[0].Type, "seq", o.Events[0].Seq, "actor", sub.Actor.ID)
	return o, nil
}

// registryStream is a registry command on its way through the append loop,
// decided on the keeper's fold: the hub is the log's one writer, and folds
// each commit it appends. r.mu is held.
type registryStream struct {
	r   *Keeper
	sub Submission
}

// Find looks for the command's key among the commits folded.
func (s registryStream) Find(context.Context) (uint64, bool, error) {
	if err := s.r.usable(); err != nil {
		return 0, false, err
	}
	c, ok := s.r.commits[s.sub.Key]
	return c.streamSeq, ok, nil
}

// Replay answers with the commit the command's key stands for, once
// folded.
func (s registryStream) Replay(ctx context.Context, _ uint64) (ledger.Outcome, error) {
	if err := s.r.catchUp(ctx); err != nil {
		return ledger.Outcome{}, err
	}
	if err := s.r.usable(); err != nil {
		return ledger.Outcome{}, err
	}
	c, ok := s.r.commits[s.sub.Key]
	if !ok {
		return ledger.Outcome{}, fmt.Errorf("%w: the log took the command as a duplicate of one it does not hold", events.ErrUnavailable)
	}
	return replayed(c, s.sub)
}

// Decide decides the command on the registry as folded.
func (s registryStream) Decide(time.Time) ([]events.Event, checkpoint.Head, uint64, error) {
	if err := s.r.usable(); err != nil {
		return nil, checkpoint.Head{}, 0, err
	}
	evs, err := commands.DecideRegistry(s.r.log.Registry(), s.r.o.Roster, s.sub.Command)
	return evs, s.r.log.Head(), s.r.last, err
}

// Append appends the commit sealed with the hub's secret.
func (s registryStream) Append(ctx context.Context, expected uint64, body []byte) (events.Appended, error) {
	return s.r.lg.AppendSealed(ctx, events.RegistryID, expected, ledger.MsgID(events.RegistryID, s.sub.Key), s.sub.Request, s.r.seal(body), body)
}

// CatchUp folds what the log holds past the last commit folded.
func (s registryStream) CatchUp(ctx context.Context) error { return s.r.catchUp(ctx) }

// replayed is the stored outcome of the commit sub's key stands for, or a
// *ledger.KeyReusedError when it was made for another request.
func replayed(c commit, sub Submission) (ledger.Outcome, error) {
	seq := c.envs[len(c.envs)-1].Seq
	if c.request != sub.Request {
		return ledger.Outcome{}, &ledger.KeyReusedError{Key: sub.Key, Seq: seq}
	}
	return ledger.Outcome{Seq: seq, Events: c.envs, Replayed: true}, nil
}

// Registry returns a copy of the registry as folded, and how many events
// its log holds.
func (r *Keeper) Registry() (*ranking.Registry, uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return nil, 0, err
	}
	return r.log.Registry().Clone(), r.log.Head().Size, nil
}

// Checkpoint is the registry log's checkpoint as it is now, signed.
func (r *Keeper) Checkpoint() (string, uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return "", 0, err
	}
	cp := r.log.Checkpoint()
	signed, err := checkpoint.Sign(cp, r.o.Keys.Signer)
	return signed, cp.Size, err
}

// Export writes the registry's log, one event a line exactly as stored, as
// it is when Export is called, and returns the signed checkpoint of
// exactly those lines and how many there are. It calls begin with them
// before the first line is written.
func (r *Keeper) Export(ctx context.Context, w io.Writer, begin func(signed string, events uint64)) error {
	r.mu.Lock()
	err := r.usable()
	cp, last := r.log.Checkpoint(), r.last
	r.mu.Unlock()
	if err != nil {
		return err
	}
	signed, err := checkpoint.Sign(cp, r.o.Keys.Signer)
	if err != nil {
		return err
	}
	begin(signed, cp.Size)
	return r.lg.Scan(ctx, 1, last, events.RegistryID, func(m events.StoredCommit) error {
		if !r.sealed(m) {
			return nil // passed over by the fold too
		}
		_, err := w.Write(m.Data)
		return err
	})
}

// Head is where the registry's log stands, as a backup records it and a
// restore checks it (api/node/backup).
type Head struct {
	// Events is how many events the log holds: the seq of its last.
	Events uint64
	// Root is their Merkle root, what the registry's checkpoints sign;
	// Last the hash of the last line, what the next one links to.
	Root, Last []byte
	// Unfolded, when the log does not fold, says why (the registry is
	// set aside); Events, Root and Last are then empty.
	Unfolded string
}

// head is the log's Head as folded; r.mu held, or r not shared.
func (r *Keeper) head() Head {
	if r.broken != nil {
		return Head{Unfolded: r.broken.Error()}
	}
	h := r.log.Head()
	return Head{Events: h.Size, Root: h.Root, Last: h.Last}
}

// Snapshot takes a JetStream snapshot of the registry's stream
// (eventlog.Log.Snapshot: begin, then chunk with each piece) and gives
// begin the Head of the log folded up to the snapshot's instant: no
// command is recorded from the moment the head is read until JetStream
// has started the snapshot. A log that does not fold is snapshotted all
// the same, its Head saying why: a backup keeps what the hub holds.
func (r *Keeper) Snapshot(ctx context.Context, begin func(eventlog.SnapshotInfo, Head) error, chunk func([]byte) error) error {
	r.mu.Lock()
	locked := true
	unlock := func() {
		if locked {
			locked = false
			r.mu.Unlock()
		}
	}
	defer unlock()
	if err := r.catchUp(ctx); err != nil {
		return err
	}
	h := r.head()
	return r.lg.Snapshot(ctx, func(info eventlog.SnapshotInfo) error {
		unlock() // the snapshot's messages are fixed: commands may go on
		return begin(info, h)
	}, chunk)
}

// Fold folds the registry's log as the JetStream of nc holds it, with no
// hub running, and returns its Head: a restored backup is checked with it.
// keys are the hub's, whose seal tells its commits apart. Without a
// registry stream it is events.ErrNoLog.
func Fold(ctx context.Context, nc *nats.Conn, keys *checkpoint.Keys) (Head, error) {
	if keys == nil || keys.Signer == nil {
		return Head{}, errors.New("registry: Fold needs the hub's keys")
	}
	o := Options{Conn: nc, Keys: keys, Existing: true}
	o.EnsureDefaults()
	r, err := open(ctx, o)
	if err != nil {
		return Head{}, err
	}
	if err := r.catchUp(ctx); err != nil {
		return Head{}, err
	}
	return r.head(), nil
}
