package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/replay"
)

// ErrHeld and ErrQuarantined say why the hub does not serve a tournament.
var (
	ErrHeld        = errors.New("hub: held")
	ErrQuarantined = errors.New("hub: quarantined")
	// ErrVenue reports a venue registration the hub cannot take.
	ErrVenue = errors.New("hub: venue")
)

// Store is what the hub reads of its projections: how many events of a
// tournament have arrived and been applied.
type Store interface {
	LastCommit(t string) (projections.CommitRef, bool, error)
}

// Options configures a Hub.
type Options struct {
	// Log is the hub's stream (jetstream.Options.Sourced). Required.
	Log *jetstream.Log
	// Store holds the hub's projections of it. Required.
	Store Store
	// Conn is the hub's NATS connection, where venues' checkpoints
	// arrive. Required.
	Conn *nats.Conn
	// Witness cosigns. Required.
	Witness *checkpoint.Witness
	// StatePath is the file of the hub's state (venues, keys, cosigned
	// checkpoints, quarantines). Required.
	StatePath string
	// Interval is how often the hub asks each venue which tournaments it
	// holds; the default is 2 seconds.
	Interval time.Duration
	// Logger receives what the hub does; nil discards.
	Logger *slog.Logger
	// Grace is how long events past a tournament's last verified
	// checkpoint may be served before a checkpoint covering them is
	// verified (a venue offers one every second while it changes); then
	// the tournament is held until one is. The default is 30 seconds.
	Grace time.Duration
	// Clock is the default time.Now.
	Clock func() time.Time
	// VerifyWait is how long a venue's offer waits for its verification
	// before it is answered 503 (the verification goes on; the venue's
	// next offer finds it done). The default is 5 seconds.
	VerifyWait time.Duration
}

// Hub is a running national hub.
type Hub struct {
	o  Options
	mu sync.Mutex
	st *state
	// reachable records the venues the last poll reached: one reached
	// again has its sources restarted.
	reachable map[string]bool
	// beyond is when events past a tournament's verified size were
	// first seen (Served).
	beyond map[string]time.Time
	// verifying are the tournaments being verified, with the size;
	// verifications counts those running (Run waits for them).
	verifying     map[string]uint64
	verifications sync.WaitGroup
}

// New loads the hub's state.
func New(o Options) (*Hub, error) {
	if o.Log == nil || o.Store == nil || o.Conn == nil || o.Witness == nil || o.StatePath == "" {
		return nil, errors.New("hub: Log, Store, Conn, Witness and StatePath are required")
	}
	if o.Interval == 0 {
		o.Interval = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Grace == 0 {
		o.Grace = 30 * time.Second
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.VerifyWait == 0 {
		o.VerifyWait = 5 * time.Second
	}
	st, err := loadState(o.StatePath)
	if err != nil {
		return nil, fmt.Errorf("hub: state %s: %w", o.StatePath, err)
	}
	return &Hub{o: o, st: st, reachable: map[string]bool{}, beyond: map[string]time.Time{}, verifying: map[string]uint64{}}, nil
}

// Run answers venues' checkpoints and polls the venues until ctx is done.
func (h *Hub) Run(ctx context.Context) error {
	// Offers are answered side by side, a few at a time: one venue's
	// long verification does not keep the others waiting.
	var wg sync.WaitGroup
	// Once ctx is done, which ends every verification.
	defer h.verifications.Wait()
	defer wg.Wait()
	slots := make(chan struct{}, 4)
	respond := func(m *nats.Msg, status int, body []byte) {
		reply := nats.NewMsg(m.Reply)
		reply.Header.Set(StatusHeader, strconv.Itoa(status))
		reply.Data = body
		_ = m.RespondMsg(reply)
	}
	sub, err := h.o.Conn.Subscribe(AddCheckpointSubject, func(m *nats.Msg) {
		select {
		case slots <- struct{}{}:
		default:
			respond(m, 503, []byte("the hub is busy: offer it again"))
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			status, body := h.addCheckpoint(ctx, m.Header.Get(VenueHeader), m.Data)
			respond(m, status, body)
		}()
	})
	if err != nil {
		return fmt.Errorf("hub: subscribe: %w", err)
	}
	defer sub.Unsubscribe()
	t := time.NewTicker(h.o.Interval)
	defer t.Stop()
	for {
		h.poll(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Register records a venue's checkpoint verifier key, as its GET /v1/keys
// serves it.
func (h *Hub) Register(venue, key string) error {
	if err := events.CheckID("venue", venue); err != nil {
		return fmt.Errorf("%w: %v", ErrVenue, err)
	}
	if _, err := checkpoint.NewVerifier(key); err != nil {
		return fmt.Errorf("%w: key: %v", ErrVenue, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.venue(venue)
	if v.Key != "" && v.Key != strings.TrimSpace(key) {
		return fmt.Errorf("%w: %s already has another key registered", ErrVenue, venue)
	}
	v.Key = strings.TrimSpace(key)
	h.o.Logger.Info("venue registered", "venue", venue)
	return h.st.save(h.o.StatePath)
}

// Venues lists what the hub knows of its venues and their tournaments.
func (h *Hub) Venues() ([]Venue, []Tournament) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var vs []Venue
	for _, k := range sortedKeys(h.st.Venues) {
		vs = append(vs, *h.st.Venues[k])
	}
	var ts []Tournament
	for _, k := range sortedKeys(h.st.Tournaments) {
		tr := *h.st.Tournaments[k]
		if ref, ok, err := h.o.Store.LastCommit(k); err == nil && ok {
			tr.Arrived = ref.Last
		}
		ts = append(ts, tr)
	}
	return vs, ts
}

// Served is nil when the hub serves tournament t, else why not (ErrHeld,
// ErrQuarantined); a tournament it never heard of is served as absent.
func (h *Hub) Served(t string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	tr, ok := h.st.Tournaments[t]
	if !ok {
		return nil
	}
	v := h.st.Venues[tr.Venue]
	switch {
	case tr.Status == Quarantined:
		if tr.Line > 0 {
			return fmt.Errorf("%w: tournament %s of venue %s failed verification at line %d: %s", ErrQuarantined, t, tr.Venue, tr.Line, tr.Problem)
		}
		return fmt.Errorf("%w: tournament %s of venue %s: %s", ErrQuarantined, t, tr.Venue, tr.Problem)
	case v != nil && v.Fork != nil:
		return fmt.Errorf("%w: venue %s rewrote tournament %s after the hub cosigned it (GET /v1/venues has the evidence)", ErrQuarantined, tr.Venue, v.Fork.Tournament)
	case v == nil || v.Key == "":
		return fmt.Errorf("%w: tournament %s: venue %s's key is not registered (POST /v1/venues)", ErrHeld, t, tr.Venue)
	case tr.Status != Verified:
		return fmt.Errorf("%w: tournament %s: no checkpoint of venue %s verified yet", ErrHeld, t, tr.Venue)
	}
	// Events past the verified checkpoint are served only while one
	// covering them is on its way.
	if ref, ok, err := h.o.Store.LastCommit(t); err == nil && ok && ref.Last > tr.Size {
		since, seen := h.beyond[t]
		if !seen {
			h.beyond[t] = h.o.Clock()
		} else if wait := h.o.Clock().Sub(since); wait > h.o.Grace {
			return fmt.Errorf("%w: tournament %s: %d events arrived past the last checkpoint venue %s had verified (%d events) %v ago", ErrHeld, t, ref.Last-tr.Size, tr.Venue, tr.Size, wait.Round(time.Second))
		}
	} else {
		delete(h.beyond, t)
	}
	return nil
}

// Cosigned returns the last checkpoint of t the hub cosigned.
func (h *Hub) Cosigned(t string) (signed string, size uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tr, ok := h.st.Tournaments[t]
	if !ok || tr.Cosigned == "" {
		return "", 0, false
	}
	return tr.Cosigned, tr.Size, true
}

// venue returns the venue's record, creating it; h.mu held.
func (h *Hub) venue(name string) *Venue {
	v := h.st.Venues[name]
	if v == nil {
		v = &Venue{Name: name}
		h.st.Venues[name] = v
	}
	return v
}

// claim makes venue the owner of tournament t, unless another venue owns
// it; h.mu held. It reports whether the state changed.
func (h *Hub) claim(venue, t string) (changed bool, err error) {
	tr, ok := h.st.Tournaments[t]
	if ok && tr.Venue != venue {
		return false, fmt.Errorf("tournament id %s is venue %s's at this hub: tournament ids are unique per hub, rename it at venue %s", t, tr.Venue, venue)
	}
	if ok {
		return false, nil
	}
	h.st.Tournaments[t] = &Tournament{ID: t, Venue: venue, Status: Held}
	return true, nil
}

// poll asks every known venue which tournaments it holds, claims each for
// it and has the hub's stream source it.
func (h *Hub) poll(ctx context.Context) {
	h.mu.Lock()
	names := sortedKeys(h.st.Venues)
	h.mu.Unlock()
	for _, name := range names {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		remote, err := h.o.Log.RemoteTournaments(pctx, name, "")
		cancel()
		if err != nil {
			h.reachable[name] = false
			continue
		}
		if !h.reachable[name] {
			h.reachable[name] = true
			if err := h.o.Log.RestartSources(ctx, name); err != nil {
				h.o.Logger.Warn("restart sources", "venue", name, "err", err)
			}
		}
		h.sync(ctx, name, sortedKeys(remote))
	}
}

// sync claims the venue's tournaments and sources them.
func (h *Hub) sync(ctx context.Context, venue string, ts []string) {
	var problems []string
	var source []string
	h.mu.Lock()
	dirty := false
	for _, t := range ts {
		changed, err := h.claim(venue, t)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		dirty = dirty || changed
		source = append(source, t)
	}
	v := h.venue(venue)
	if p := strings.Join(problems, "; "); p != v.Problem {
		v.Problem, dirty = p, true
		if p != "" {
			h.o.Logger.Warn("venue not synced", "venue", venue, "problem", p)
		}
	}
	if dirty {
		if err := h.st.save(h.o.StatePath); err != nil {
			h.o.Logger.Error("save hub state", "err", err)
		}
	}
	h.mu.Unlock()
	for _, t := range source {
		if err := h.o.Log.AddSource(ctx, venue, "", t); err != nil {
			h.o.Logger.Warn("source", "venue", venue, "tournament", t, "err", err)
		}
	}
}

// addCheckpoint answers a venue's checkpoint: a status as tlog-witness's
// and the answer's body.
func (h *Hub) addCheckpoint(ctx context.Context, venue string, body []byte) (int, []byte) {
	if err := events.CheckID("venue", venue); err != nil {
		return 400, []byte(err.Error())
	}
	req, err := parseAddCheckpoint(body)
	if err != nil {
		return 400, []byte(err.Error())
	}
	h.mu.Lock()
	v := h.venue(venue)
	key := v.Key
	if key == "" {
		// The venue is known now: its tournaments are sourced and held.
		_ = h.st.save(h.o.StatePath)
	}
	h.mu.Unlock()
	if key == "" {
		return 404, fmt.Appendf(nil, "venue %s is not registered at the hub: its administrator registers the key of its GET /v1/keys (POST /v1/venues)", venue)
	}
	verifier, err := checkpoint.NewVerifier(key)
	if err != nil {
		return 500, []byte(err.Error())
	}
	cp, err := checkpoint.Open(req.Signed, verifier)
	if err != nil {
		return 403, []byte(err.Error())
	}
	t, ok := strings.CutPrefix(cp.Origin, "referto/")
	if !ok || events.CheckID("tournament", t) != nil {
		return 403, fmt.Appendf(nil, "origin %q is no referto tournament", cp.Origin)
	}
	h.mu.Lock()
	_, cerr := h.claim(venue, t)
	tr := h.st.Tournaments[t]
	var prev Tournament
	if tr != nil {
		prev = *tr
	}
	fork := v.Fork
	h.mu.Unlock()
	if cerr != nil {
		return 403, []byte(cerr.Error())
	}
	if fork != nil {
		return 422, fmt.Appendf(nil, "venue %s is flagged: it rewrote tournament %s after the hub cosigned it", venue, fork.Tournament)
	}
	if prev.Status == Quarantined {
		return 422, fmt.Appendf(nil, "tournament %s is quarantined at the hub: %s", t, prev.Problem)
	}
	if err := h.o.Log.AddSource(ctx, venue, "", t); err != nil {
		return 503, []byte(err.Error())
	}
	if status, body, answered := h.consistent(venue, t, prev, cp, req, verifier); answered {
		return status, body
	}
	return h.verifyAndWait(ctx, venue, t, cp.Size, req.Signed, verifier)
}

// consistent checks a venue's checkpoint cp of tournament t against prev,
// what the hub last cosigned of t: answered is set, with the answer, when
// the offer is stale (409), shows the venue rewrote its log (a fork, 422),
// or is the very checkpoint cosigned (200); otherwise cp extends it and
// must be verified.
func (h *Hub) consistent(venue, t string, prev Tournament, cp checkpoint.Checkpoint, req addCheckpoint, verifier note.Verifier) (status int, body []byte, answered bool) {
	if req.Old != prev.Size {
		return 409, []byte(strconv.FormatUint(prev.Size, 10)), true
	}
	if prev.Size == 0 {
		return 0, nil, false
	}
	old, err := checkpoint.Open([]byte(prev.Cosigned), verifier)
	if err != nil {
		return 500, []byte(err.Error()), true
	}
	if cp.Size < old.Size {
		status, body = h.forked(venue, t, prev.Cosigned, req.Signed, fmt.Sprintf("the venue signed a checkpoint of %d events after the hub cosigned one of %d: its log lost events", cp.Size, old.Size))
		return status, body, true
	}
	if err := checkpoint.VerifyConsistency(old.Size, cp.Size, req.Proof, old.Root, cp.Root); err != nil || (cp.Size == old.Size && !bytes.Equal(cp.Root, old.Root)) {
		status, body = h.forked(venue, t, prev.Cosigned, req.Signed, fmt.Sprintf("the checkpoint of %d events is not an extension of the one of %d events the hub cosigned", cp.Size, old.Size))
		return status, body, true
	}
	if cp.Size == old.Size {
		return 200, cosignatureLines(prev.Cosigned, req.Signed), true
	}
	return 0, nil, false
}

// verifyAndWait has the hub's copy of the first size events of t verified
// against the venue's checkpoint signed and cosigned (verifyAndCosign),
// and answers the offer: cosigned (200), quarantined (422), or, while its
// copy is syncing, another verification of t runs or this one outlasts
// VerifyWait, 503 (the venue's next offer finds it done).
func (h *Hub) verifyAndWait(ctx context.Context, venue, t string, size uint64, signed []byte, verifier note.Verifier) (int, []byte) {
	// The hub's own copy must hold what the checkpoint covers, and
	// verify as referto verify would. Both read the log, not the
	// projections (which set aside a log they cannot apply).
	n, err := countLines(ctx, h.o.Log, t)
	if err != nil {
		return 503, []byte(err.Error())
	}
	if n < size {
		return 503, fmt.Appendf(nil, "the hub holds %d of the %d events of %s so far: syncing", n, size, t)
	}
	// Verifying a long log takes a while: it runs beside the answers to
	// other venues, once per tournament at a time, and the venue's next
	// offer of the same checkpoint finds it cosigned (or quarantined).
	h.mu.Lock()
	if busy, ok := h.verifying[t]; ok {
		h.mu.Unlock()
		return 503, fmt.Appendf(nil, "verifying %s up to %d events", t, busy)
	}
	h.verifying[t] = size
	h.mu.Unlock()
	done := make(chan struct{})
	h.verifications.Add(1)
	go func() {
		defer h.verifications.Done()
		defer close(done)
		h.verifyAndCosign(ctx, venue, t, size, signed, verifier)
	}()
	select {
	case <-done:
	case <-time.After(h.o.VerifyWait):
		return 503, fmt.Appendf(nil, "verifying %s up to %d events", t, size)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	tr := h.st.Tournaments[t]
	switch {
	case tr.Status == Quarantined:
		return 422, fmt.Appendf(nil, "tournament %s fails verification at the hub, line %d: %s", t, tr.Line, tr.Problem)
	case tr.Size != size:
		return 503, fmt.Appendf(nil, "%s not cosigned at %d events", t, size)
	}
	return 200, cosignatureLines(tr.Cosigned, signed)
}

// verifyAndCosign verifies the first size events of t with replay's
// verifier and, when they verify, cosigns; else quarantines t.
func (h *Hub) verifyAndCosign(ctx context.Context, venue, t string, size uint64, signed []byte, verifier note.Verifier) {
	defer func() {
		h.mu.Lock()
		delete(h.verifying, t)
		h.mu.Unlock()
	}()
	start := h.o.Clock()
	rep := verifyPrefix(ctx, h.o.Log, t, size, signed, verifier)
	if ctx.Err() != nil {
		return
	}
	if !rep.OK() {
		c, _ := rep.First()
		h.Quarantine(t, c.Line, c.What)
		return
	}
	cosigned, err := checkpoint.Cosign(signed, verifier, h.o.Witness.Cosigner)
	if err != nil {
		h.o.Logger.Error("cosign", "tournament", t, "err", err)
		return
	}
	h.mu.Lock()
	tr := h.st.Tournaments[t]
	if tr.Status != Quarantined && tr.Size < size {
		tr.Status, tr.Size, tr.Cosigned, tr.Problem, tr.Line = Verified, size, cosigned, "", 0
		err = h.st.save(h.o.StatePath)
	}
	h.mu.Unlock()
	if err != nil {
		h.o.Logger.Error("save hub state", "err", err)
		return
	}
	h.o.Logger.Info("cosigned", "venue", venue, "tournament", t, "size", size, "verified_in", h.o.Clock().Sub(start).String())
}

// cosignatureLines is what cosigned has beyond signed: the cosignature.
func cosignatureLines(cosigned string, signed []byte) []byte {
	return []byte(strings.TrimPrefix(cosigned, string(signed)))
}

func (h *Hub) forked(venue, t, cosigned string, offered []byte, detail string) (int, []byte) {
	h.mu.Lock()
	v := h.venue(venue)
	v.Fork = &Fork{Tournament: t, Cosigned: cosigned, Offered: string(offered), Detail: detail}
	if tr := h.st.Tournaments[t]; tr != nil {
		tr.Status, tr.Problem = Quarantined, "venue "+venue+" rewrote its log after a cosigned checkpoint: "+detail
	}
	_ = h.st.save(h.o.StatePath)
	h.mu.Unlock()
	h.o.Logger.Error("venue forked its log", "venue", venue, "tournament", t, "detail", detail)
	return 422, fmt.Appendf(nil, "refused: %s\ncosigned before:\n%s\noffered now:\n%s", detail, cosigned, offered)
}

// Quarantine sets tournament t aside: never served, with why (line, when
// not 0, is the first bad line of its log).
func (h *Hub) Quarantine(t string, line int, what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if tr := h.st.Tournaments[t]; tr != nil {
		tr.Status, tr.Line, tr.Problem = Quarantined, line, what
	}
	_ = h.st.save(h.o.StatePath)
	h.o.Logger.Error("tournament quarantined", "tournament", t, "line", line, "problem", what)
}

// verifyPrefix verifies the first size events of t in lg with replay's
// verifier, against the signed checkpoint of exactly them.
func verifyPrefix(ctx context.Context, lg *jetstream.Log, t string, size uint64, signed []byte, v note.Verifier) *replay.Report {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		lw := &lineLimit{w: pw, left: size}
		_, err := replay.Export(ctx, lg, t, lw, replay.ExportOptions{})
		if errors.Is(err, errEnough) || lw.left == 0 {
			err = nil
		}
		pw.CloseWithError(err)
	}()
	rep := replay.Verify(replay.NewScanner(pr, nil), replay.VerifyOptions{Checkpoint: signed, Verifier: v})
	cancel()
	pr.Close()
	<-done
	return rep
}

var errEnough = errors.New("hub: enough lines")

// countLines counts the events of t in lg.
func countLines(ctx context.Context, lg *jetstream.Log, t string) (uint64, error) {
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil || last == 0 {
		return 0, err
	}
	var n uint64
	err = lg.Scan(ctx, 1, last, t, func(m events.StoredCommit) error {
		n += uint64(bytes.Count(m.Data, []byte{'\n'}))
		return nil
	})
	return n, err
}

// lineLimit passes on the first left lines written to it.
type lineLimit struct {
	w    io.Writer
	left uint64
}

func (l *lineLimit) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if l.left == 0 {
			return 0, errEnough
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			_, err := l.w.Write(p)
			return n, err
		}
		if _, err := l.w.Write(p[:i+1]); err != nil {
			return 0, err
		}
		p = p[i+1:]
		l.left--
	}
	return n, nil
}

// WitnessKey is the hub's cosignature/v1 verifier key, what verify
// --witness checks cosignatures with.
func (h *Hub) WitnessKey() string { return h.o.Witness.VerifierKey }

// State is the hub's state (its venues and their keys, the checkpoints it
// cosigned, its quarantines) as its file (Options.StatePath) holds it, read
// under the hub's lock: what a backup carries, so that a restored hub goes
// on witnessing from what it last cosigned.
func (h *Hub) State() ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st.encode()
}
