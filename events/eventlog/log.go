package eventlog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/referto/referto/events"
)

// SubjectPrefix is the subject of tournament T's events minus T.
const SubjectPrefix = "referto.t."

// The season registry's log at a national hub: a stream of its own (the
// hub's REFERTO stream only sources its venues' streams and takes no
// appends), whose one subject is RegistryPrefix + events.RegistryID.
const (
	RegistryStream = "REGISTRY"
	RegistryPrefix = "referto.registry."
	// RegistrySubjects is every subject of it, which a venue's leaf link
	// never carries (LeafRemoteOptions), as TournamentSubjects.
	RegistrySubjects = RegistryPrefix + ">"
)

// Options configures the log.
type Options struct {
	// Stream is the JetStream stream name; the default is "REFERTO".
	Stream string
	// Replicas is the stream's replication factor; the default is 1. With
	// an existing stream of another factor the stream is scaled.
	Replicas int
	// Duplicates is JetStream's duplicate window for Nats-Msg-Id; the
	// default is 2 minutes. Idempotency beyond it is the command index's job.
	Duplicates time.Duration
	// SetupTimeout bounds waiting for JetStream to become available at Open
	// (a cluster electing its meta leader); the default is 30 seconds.
	SetupTimeout time.Duration
	// Sourced makes a new stream listen on no subject: it only holds what
	// JetStream sources into it from other domains (a hub's copy of its
	// venues' logs, AddSource). Nothing can be appended to it.
	Sourced bool
	// Prefix is the subject of a log's id minus the id: the stream listens
	// on Prefix + "*". The default is SubjectPrefix (a tournament's id);
	// the season registry's log is opened with RegistryPrefix and
	// RegistryStream.
	Prefix string
	// Existing opens only a stream that is there: a missing one is
	// events.ErrNoLog, and nothing is created (a backup asks whether a
	// data directory holds a hub's season registry). The default creates
	// it.
	Existing bool
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *Options) EnsureDefaults() {
	if o.Stream == "" {
		o.Stream = "REFERTO"
	}
	if o.Prefix == "" {
		o.Prefix = SubjectPrefix
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.Duplicates == 0 {
		o.Duplicates = 2 * time.Minute
	}
	if o.SetupTimeout == 0 {
		o.SetupTimeout = 30 * time.Second
	}
}

// Validate reports every problem at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Replicas < 1 || o.Replicas > 5 {
		errs = append(errs, fmt.Errorf("jetstream: Replicas %d must be between 1 and 5", o.Replicas))
	}
	if o.Duplicates < 0 {
		errs = append(errs, errors.New("jetstream: Duplicates must not be negative"))
	}
	if strings.ContainsAny(o.Stream, ". *>") {
		errs = append(errs, fmt.Errorf("jetstream: bad stream name %q", o.Stream))
	}
	if !strings.HasSuffix(o.Prefix, ".") || strings.ContainsAny(o.Prefix, " *>") {
		errs = append(errs, fmt.Errorf("jetstream: bad subject prefix %q: tokens ending with a dot", o.Prefix))
	}
	return errors.Join(errs...)
}

// Log is the append-only referto stream.
type Log struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	opts   Options
	// sourcing serializes the read-modify-write of the stream's sources
	// (AddSource, RestartSources): two at once would each write back a
	// list without the other's change.
	sourcing sync.Mutex
}

// Open creates the stream, or checks and adopts an existing one. It waits up
// to SetupTimeout for JetStream to become available.
func Open(ctx context.Context, nc *nats.Conn, o Options) (*Log, error) {
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	want := jetstream.StreamConfig{
		Name:              o.Stream,
		Description:       "referto ledger: one message per accepted command, subject per tournament",
		Subjects:          []string{o.Prefix + "*"},
		Storage:           jetstream.FileStorage,
		Replicas:          o.Replicas,
		Retention:         jetstream.LimitsPolicy,
		Discard:           jetstream.DiscardNew,
		MaxMsgs:           -1,
		MaxBytes:          -1,
		MaxMsgsPerSubject: -1,
		MaxAge:            0,
		Duplicates:        o.Duplicates,
		DenyDelete:        true,
		DenyPurge:         true,
		AllowRollup:       false,
		// Direct gets may be answered by any replica, including one that
		// has not yet stored a message the leader acknowledged: an
		// idempotent replay right after its append then finds no message.
		// Reads go through the stream leader, which has every acknowledged
		// message.
		AllowDirect: false,
	}
	if o.Sourced {
		want.Subjects = nil
		want.Description = "referto hub: the venues' ledgers, sourced from their JetStream domains"
	}
	ctx, cancel := context.WithTimeout(ctx, o.SetupTimeout)
	defer cancel()
	var stream jetstream.Stream
	for {
		stream, err = ensureStream(ctx, js, want, !o.Existing)
		if err == nil || !transient(err) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: stream %s: %v", events.ErrUnavailable, o.Stream, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err != nil {
		return nil, err
	}
	return &Log{nc: nc, js: js, stream: stream, opts: o}, nil
}

func ensureStream(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig, create bool) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, want.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if !create {
			return nil, fmt.Errorf("%w: stream %s: %w", events.ErrNoLog, want.Name, err)
		}
		return js.CreateStream(ctx, want)
	}
	if err != nil {
		return nil, err
	}
	have := s.CachedInfo().Config
	var problems []string
	if !have.DenyDelete || !have.DenyPurge || have.AllowRollup {
		problems = append(problems, "it allows delete, purge or rollup")
	}
	if have.MaxAge != 0 || have.MaxMsgs > 0 || have.MaxBytes > 0 || have.MaxMsgsPerSubject > 0 {
		problems = append(problems, "it has age or size limits that would drop events")
	}
	if have.PersistMode == jetstream.AsyncPersistMode {
		problems = append(problems, "its persist_mode is async, which silently overrides per-write fsync")
	}
	if have.Storage != jetstream.FileStorage {
		problems = append(problems, "it is not file-backed")
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("jetstream: refusing existing stream %s: %s", want.Name, strings.Join(problems, "; "))
	}
	if have.Replicas != want.Replicas || have.Duplicates != want.Duplicates || have.AllowDirect != want.AllowDirect {
		upd := have
		upd.Replicas, upd.Duplicates, upd.AllowDirect = want.Replicas, want.Duplicates, want.AllowDirect
		return js.UpdateStream(ctx, upd)
	}
	return s, nil
}

// jsErrCodeClusterNoPeers is the server's "no peers" error (10005), which
// nats.go does not export: nats-server names it.
var jsErrCodeClusterNoPeers = jetstream.ErrorCode(server.ApiErrors[server.JSClusterNoPeersErrF].ErrCode)

// jsErrCodeDuplicateInProcess is the server's "duplicate message id is in
// process" (10158): a clustered stream's leader has proposed a message
// under this id and not yet stored it, or proposed it and lost it in a
// leader change, in which case it forgets the id only with its duplicate
// window. nats.go does not export it: nats-server names it.
var jsErrCodeDuplicateInProcess = jetstream.ErrorCode(server.ApiErrors[server.JSStreamDuplicateMessageConflict].ErrCode)

// transient reports errors worth retrying while a server or cluster starts.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		// 10005: a cluster still forming has not heard from enough peers
		// to place the replicas yet.
		return apiErr.Code == 503 || apiErr.Code == 500 || apiErr.ErrorCode == jetstream.JSErrCodeJetStreamNotEnabled ||
			apiErr.ErrorCode == jsErrCodeClusterNoPeers
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount)
}

// Subject is the subject of a tournament's events.
func Subject(tournament string) string { return SubjectPrefix + tournament }

// MsgIDHeader is the JetStream deduplication header.
const MsgIDHeader = jetstream.MsgIDHeader

// RequestHeader carries, on a commit appended for a client's request, the
// fingerprint of that request (its route, actor and canonical body, as the
// API computes it). It is stored with the message, so it lasts as long as
// the log, through restarts, rebuilds of the projections and backups: an
// idempotency key found again, by the command index or by JetStream's
// duplicate window, is compared with the request it was first used for.
// Commits appended before it existed do not carry it.
const RequestHeader = "Referto-Request"

// SealHeader carries, on a commit of a log with one writer (the season
// registry's), what that writer alone can compute over the body (an HMAC
// under its key): a message on the log's subject without it was not
// written by it.
const SealHeader = "Referto-Seal"

// Append stores one commit for the tournament if the tournament's last
// message is still at stream sequence expected (0: no message yet). It
// returns only after JetStream acknowledged the write, which the embedded
// server does after fsync. A mismatch is events.ErrConflict; an unreachable
// or failing store is events.ErrUnavailable (the outcome is then unknown:
// retry with the same msgID).
func (l *Log) Append(ctx context.Context, tournament string, expected uint64, msgID string, body []byte) (events.Appended, error) {
	return l.AppendRequest(ctx, tournament, expected, msgID, "", body)
}

// AppendRequest is Append for a commit made for a client's request: request
// is the request's fingerprint, stored in the RequestHeader ("" stores none).
// When msgID is a duplicate, nothing is stored and the Appended names the
// original, whose fingerprint Get returns.
func (l *Log) AppendRequest(ctx context.Context, tournament string, expected uint64, msgID, request string, body []byte) (events.Appended, error) {
	return l.AppendSealed(ctx, tournament, expected, msgID, request, "", body)
}

// AppendSealed is AppendRequest with the writer's seal of the body, stored
// in SealHeader ("" stores none).
func (l *Log) AppendSealed(ctx context.Context, tournament string, expected uint64, msgID, request, seal string, body []byte) (events.Appended, error) {
	if err := events.CheckID("tournament", tournament); err != nil {
		return events.Appended{}, err
	}
	m := &nats.Msg{Subject: l.opts.Prefix + tournament, Data: body, Header: nats.Header{}}
	if request != "" {
		m.Header.Set(RequestHeader, request)
	}
	if seal != "" {
		m.Header.Set(SealHeader, seal)
	}
	opts := []jetstream.PublishOpt{jetstream.WithExpectLastSequencePerSubject(expected)}
	if msgID != "" {
		opts = append(opts, jetstream.WithMsgID(msgID))
	}
	ack, err := l.js.PublishMsg(ctx, m, opts...)
	if err != nil {
		return events.Appended{}, classify(err, tournament, expected)
	}
	return events.Appended{StreamSeq: ack.Sequence, Duplicate: ack.Duplicate}, nil
}

// classify maps JetStream errors onto the log's sentinels.
func classify(err error, tournament string, expected uint64) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		switch {
		// "The expected last subject sequence did not match": 10071 carries
		// the actual sequence, 10164 is the constant form a clustered
		// stream may return. Both are one conflict to referto.
		case apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant:
			return fmt.Errorf("%w: tournament %s moved past stream sequence %d: %s", events.ErrConflict, tournament, expected, apiErr.Description)
		case apiErr.ErrorCode == jsErrCodeDuplicateInProcess:
			// An earlier attempt under this message id is still being
			// stored, or was lost in a leader change: its outcome is not
			// known yet. A retry with the same id finds it stored (a
			// duplicate) or, after the duplicate window, not.
			return fmt.Errorf("%w: an earlier attempt of this command is still in process in the log, its outcome not yet known: %s", events.ErrUnavailable, apiErr.Description)
		case apiErr.Code >= 500:
			return fmt.Errorf("%w: %s", events.ErrUnavailable, apiErr.Description)
		}
		return fmt.Errorf("jetstream: append to %s: %w", tournament, err)
	}
	if unavailable(err) {
		return fmt.Errorf("%w: %v", events.ErrUnavailable, err)
	}
	return fmt.Errorf("jetstream: append to %s: %w", tournament, err)
}

func unavailable(err error) bool {
	// A cluster electing a leader or catching a node up answers API
	// requests with 503 ("JetStream system temporarily unavailable").
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.Code == 503 {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrConnectionClosed) ||
		errors.Is(err, nats.ErrDisconnected) || errors.Is(err, nats.ErrConnectionDraining) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabled)
}

func tournamentOf(subject string) string {
	return strings.TrimPrefix(subject, SubjectPrefix)
}

// idOf is the log id a subject of this stream names.
func (l *Log) idOf(subject string) string { return strings.TrimPrefix(subject, l.opts.Prefix) }

// Get reads the message at a stream sequence.
func (l *Log) Get(ctx context.Context, streamSeq uint64) (events.StoredCommit, error) {
	raw, err := l.stream.GetMsg(ctx, streamSeq)
	if err != nil {
		if unavailable(err) {
			return events.StoredCommit{}, fmt.Errorf("%w: %v", events.ErrUnavailable, err)
		}
		return events.StoredCommit{}, fmt.Errorf("jetstream: get %d: %w", streamSeq, err)
	}
	return events.StoredCommit{StreamSeq: raw.Sequence, Tournament: l.idOf(raw.Subject), MsgID: raw.Header.Get(MsgIDHeader),
		Request: raw.Header.Get(RequestHeader), Seal: raw.Header.Get(SealHeader), Time: raw.Time, Data: raw.Data}, nil
}

// LastSubjectSeq returns the stream sequence of the tournament's last
// message, 0 when it has none.
func (l *Log) LastSubjectSeq(ctx context.Context, tournament string) (uint64, error) {
	raw, err := l.stream.GetLastMsgForSubject(ctx, l.opts.Prefix+tournament)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		if unavailable(err) {
			return 0, fmt.Errorf("%w: %v", events.ErrUnavailable, err)
		}
		return 0, fmt.Errorf("jetstream: last of %s: %w", tournament, err)
	}
	return raw.Sequence, nil
}

// LastSeq returns the stream's last sequence (0 when empty); a stream that
// does not exist is events.ErrNoLog.
func (l *Log) LastSeq(ctx context.Context) (uint64, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		if unavailable(err) || transient(err) {
			return 0, fmt.Errorf("%w: %v", events.ErrUnavailable, err)
		}
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return 0, fmt.Errorf("%w: stream %s: %w", events.ErrNoLog, l.opts.Stream, err)
		}
		return 0, fmt.Errorf("jetstream: stream info: %w", err)
	}
	return info.State.LastSeq, nil
}

// Follow delivers every message from stream sequence from (1 = the start)
// onwards, in order, including messages appended later, until ctx is done
// or fn returns an error. tournament restricts delivery to one tournament
// ("" = all). It reads through one consumer, never a consumer per command
// (a new one only when its server goes away), and deletes it when it
// returns: a read that ends leaves no consumer for
// JetStream's inactivity threshold (5 minutes) to remove, so that short
// reads one after the other (past states, exports) never reach the
// stream's consumer limit (1,000 by default).
func (l *Log) Follow(ctx context.Context, from uint64, tournament string, fn func(events.StoredCommit) error) error {
	return l.follow(ctx, from, tournament, func(m events.StoredCommit, _ nats.Header, _ uint64) error { return fn(m) })
}

// follow is Follow, handing fn the message's headers too, and how many
// messages the log held after it when it was delivered (pending).
//
// It reads through one consumer at a time, made as nats.go's ordered
// consumer makes them (ephemeral, in memory, one replica, no acks), but
// owns their making: on a cluster that has just lost a node, nats.go's
// ordered consumer asks for a new consumer with a 10 s timeout, and when
// the lost node led the meta group that first request goes unanswered,
// so the projections (and every command, which waits for them) stood
// still for 12 s or more although a quorum was up. Here each attempt
// waits at most followCreateTimeout and the next follows within a second
// or two, so the follow goes on as soon as a meta leader is elected.
//
// A consumer that stops delivering (its server went away: no heartbeat,
// no responders, deleted), that skips a delivery, or that was read over a
// connection that has since reconnected (a message in flight then is lost
// without a gap to show it until the next one comes), is replaced by a new
// one from the stream sequence after the last one delivered: nothing is
// delivered twice and nothing is skipped. A closed connection, or an
// error asking for a consumer that waiting does not mend, ends the follow
// with that error.
func (l *Log) follow(ctx context.Context, from uint64, tournament string, fn func(m events.StoredCommit, h nats.Header, pending uint64) error) error {
	var deleting sync.WaitGroup
	defer deleting.Wait()
	next, pause := max(from, 1), followPause
	for {
		cons, it, err := l.followFrom(ctx, next, tournament, &pause)
		if err != nil {
			return err
		}
		opened := time.Now()
		err = l.deliver(ctx, it, &next, fn)
		if ctx.Err() != nil || !errors.Is(err, errFollowAgain) {
			l.deleteConsumer(ctx, cons, it)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		// The consumer's server may be gone: the next consumer does not
		// wait for the deletion, which gives up within seconds.
		it.Stop()
		deleting.Go(func() { l.deleteConsumer(ctx, cons, nil) })
		// Consumers that fail as soon as they are made are made again
		// no faster than failed requests for them are.
		if time.Since(opened) < followCreateTimeout {
			if !sleep(ctx, pause) {
				return ctx.Err()
			}
			pause = min(2*pause, followCreateTimeout)
		} else {
			pause = followPause
		}
	}
}

// followCreateTimeout bounds each attempt to make a follow's consumer;
// followPause is the first pause after a failed one, doubled up to
// followCreateTimeout.
const (
	followCreateTimeout = 2 * time.Second
	followPause         = 250 * time.Millisecond
)

// errFollowAgain ends a consumer's delivery that a new consumer resumes.
var errFollowAgain = errors.New("jetstream: follow again")

// followFrom makes a consumer delivering from stream sequence next and
// opens its messages, trying again while the error is one that waiting
// mends (no quorum, no meta leader, a timeout), spaced by *pause, until ctx
// is done: a cluster without quorum is asked about once in four seconds.
// Every attempt asks for the same consumer by name, so an attempt that
// timed out after the server made it leaves no second consumer behind.
func (l *Log) followFrom(ctx context.Context, next uint64, tournament string, pause *time.Duration) (jetstream.Consumer, jetstream.MessagesContext, error) {
	cfg := jetstream.ConsumerConfig{
		Name:              nuid.Next(),
		DeliverPolicy:     jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:       next,
		AckPolicy:         jetstream.AckNonePolicy,
		InactiveThreshold: 5 * time.Minute,
		Replicas:          1,
		MemoryStorage:     true,
	}
	if tournament != "" {
		cfg.FilterSubject = l.opts.Prefix + tournament
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, followCreateTimeout)
		cons, err := l.js.CreateConsumer(cctx, l.opts.Stream, cfg)
		cancel()
		if err == nil {
			// A short heartbeat tells within two seconds that the
			// consumer's server went away.
			var it jetstream.MessagesContext
			it, err = cons.Messages(jetstream.PullMaxMessages(1024), jetstream.PullExpiry(5*time.Second),
				jetstream.PullHeartbeat(time.Second), jetstream.WithMessagesErrOnMissingHeartbeat(true))
			if err == nil {
				return cons, it, nil
			}
			l.deleteConsumer(ctx, cons, nil)
		}
		switch {
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		case l.nc.IsClosed(), !transient(err) && !unavailable(err):
			return nil, nil, fmt.Errorf("jetstream: follow: %w", err)
		}
		if !sleep(ctx, *pause) {
			return nil, nil, ctx.Err()
		}
		*pause = min(2**pause, followCreateTimeout)
	}
}

// sleep waits d, or less when ctx is done first: then it reports false.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// deliver hands fn each message it delivers, in order, advancing next past
// it. It returns fn's error, the iterator's when the connection is closed
// for good, or errFollowAgain when the consumer stopped delivering,
// skipped a delivery, or the connection reconnected.
func (l *Log) deliver(ctx context.Context, it jetstream.MessagesContext, next *uint64, fn func(m events.StoredCommit, h nats.Header, pending uint64) error) error {
	// A CONNECTED once the listener is registered is a reconnect.
	reconnected := l.nc.StatusChanged(nats.CONNECTED)
	defer l.nc.RemoveStatusListener(reconnected)
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			it.Stop()
		case _, ok := <-reconnected:
			if ok {
				it.Stop()
			}
		case <-stopped:
		}
	}()
	var delivered uint64
	for {
		m, err := it.Next()
		if err != nil {
			if l.nc.IsClosed() {
				return fmt.Errorf("jetstream: follow: %w", err)
			}
			return fmt.Errorf("%w: %w", errFollowAgain, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return fmt.Errorf("jetstream: message metadata: %w", err)
		}
		if md.Sequence.Consumer != delivered+1 {
			return fmt.Errorf("%w: delivery %d after %d", errFollowAgain, md.Sequence.Consumer, delivered)
		}
		delivered = md.Sequence.Consumer
		if md.Sequence.Stream < *next {
			continue
		}
		msg := events.StoredCommit{
			StreamSeq:  md.Sequence.Stream,
			Tournament: l.idOf(m.Subject()),
			MsgID:      m.Headers().Get(MsgIDHeader),
			Request:    m.Headers().Get(RequestHeader),
			Seal:       m.Headers().Get(SealHeader),
			Time:       md.Timestamp,
			Data:       m.Data(),
		}
		if err := fn(msg, m.Headers(), md.NumPending); err != nil {
			return err
		}
		*next = md.Sequence.Stream + 1
	}
}

// deleteConsumer stops it (when there is one) and deletes cons. The
// follow's context may be done: the deletion gets a few seconds of its
// own. A consumer it cannot delete (the connection is gone, its server
// is down) is left to the inactivity threshold.
func (l *Log) deleteConsumer(ctx context.Context, cons jetstream.Consumer, it jetstream.MessagesContext) {
	if it != nil {
		it.Stop()
	}
	info := cons.CachedInfo()
	if info == nil {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), followCreateTimeout)
	defer cancel()
	_ = l.js.DeleteConsumer(dctx, l.opts.Stream, info.Name)
}

// Consumers is how many consumers the stream has: what Follow leaves
// behind is none once it returned.
func (l *Log) Consumers(ctx context.Context) (int, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("jetstream: stream info: %w", err)
	}
	return info.State.Consumers, nil
}

// Scan delivers the messages from stream sequence from up to and including
// until, then returns nil. until is typically LastSeq or LastSubjectSeq
// read just before. Messages the log lost (a damaged store, whose stream
// sequence counter is past its last message) are not waited for: the scan
// ends with the last message stored.
func (l *Log) Scan(ctx context.Context, from, until uint64, tournament string, fn func(events.StoredCommit) error) error {
	if until == 0 || until < from {
		return nil
	}
	// The first message at or after from: none (or one past until), and
	// there is nothing to wait for.
	filter := l.opts.Prefix + "*"
	if tournament != "" {
		filter = l.opts.Prefix + tournament
	}
	first, err := l.stream.GetMsg(ctx, max(from, 1), jetstream.WithGetMsgSubject(filter))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		if unavailable(err) {
			return fmt.Errorf("%w: %v", events.ErrUnavailable, err)
		}
		return fmt.Errorf("jetstream: scan from %d: %w", from, err)
	}
	if first.Sequence > until {
		return nil
	}
	done := errors.New("done")
	err = l.follow(ctx, first.Sequence, tournament, func(m events.StoredCommit, _ nats.Header, pending uint64) error {
		if m.StreamSeq > until {
			return done
		}
		if err := fn(m); err != nil {
			return err
		}
		if m.StreamSeq >= until || pending == 0 {
			return done
		}
		return nil
	})
	if errors.Is(err, done) {
		return nil
	}
	return err
}

// LastStored returns the stream sequence of the log's last message (0 when
// it holds none): LastSeq but for a damaged store, whose sequence counter
// may be past the messages it lost.
func (l *Log) LastStored(ctx context.Context) (uint64, error) {
	raw, err := l.stream.GetLastMsgForSubject(ctx, l.opts.Prefix+"*")
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		if unavailable(err) {
			return 0, fmt.Errorf("%w: %v", events.ErrUnavailable, err)
		}
		return 0, fmt.Errorf("jetstream: last message: %w", err)
	}
	return raw.Sequence, nil
}

// Stream returns the stream name.
func (l *Log) Stream() string { return l.opts.Stream }

// Replicas returns the configured replication factor.
func (l *Log) Replicas() int { return l.opts.Replicas }
