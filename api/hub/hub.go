package hub

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
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
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/replay"
)

// ErrHeld and ErrQuarantined say why the hub does not serve a tournament.
var (
	ErrHeld        = fault.Mark(errors.New("hub: held"), fault.Forbidden)
	ErrQuarantined = fault.Mark(errors.New("hub: quarantined"), fault.Forbidden)
	// ErrVenue reports a venue registration or decision the hub cannot
	// take as sent (a bad name, key or reason).
	ErrVenue = fault.New(fault.Invalid, "hub: venue")
	// ErrNoVenue: no such venue, or no such tournament of it.
	ErrNoVenue = fault.New(fault.NotFound, "hub: no such venue")
	// ErrDecision: a decision the state of the venue contradicts (a key
	// another venue has, a flag or quarantine that is not there).
	ErrDecision = fault.New(fault.Conflict, "hub: decision refused")
)

// Store is what the hub reads of its projections: how many events of a
// tournament have arrived and been applied.
type Store interface {
	LastCommit(t string) (projections.CommitRef, bool, error)
}

// Options configures a Hub.
type Options struct {
	// Log is the hub's stream (eventlog.Options.Sourced). Required.
	Log *eventlog.Log
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
	// Random makes the venues' leaf link passwords; the default is
	// crypto/rand.
	Random io.Reader
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
	// learned are the tournaments whose venue the hub asked, since it
	// started, for the last cosignature of it the venue holds (learn).
	learned map[string]bool
	// aside are the tournaments the hub's projections set aside since it
	// started (SetAside): they apply them again only at the next start.
	aside map[string]bool
	// witness checks the hub's own cosignatures.
	witness note.Verifier
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
	if o.Random == nil {
		o.Random = rand.Reader
	}
	wv, err := checkpoint.NewWitnessVerifier(o.Witness.VerifierKey)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	st, err := loadState(o.StatePath)
	if err != nil {
		return nil, fmt.Errorf("hub: state %s: %w", o.StatePath, err)
	}
	return &Hub{o: o, st: st, reachable: map[string]bool{}, beyond: map[string]time.Time{}, verifying: map[string]uint64{},
		learned: map[string]bool{}, aside: map[string]bool{}, witness: wv}, nil
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
	key = strings.TrimSpace(key)
	h.mu.Lock()
	defer h.mu.Unlock()
	if other := h.keyHolder(key); other != "" && other != venue {
		return fmt.Errorf("%w: the key is venue %s's: two venues may not register one key", ErrDecision, other)
	}
	v := h.venue(venue)
	if v.Key != "" && v.Key != key {
		return fmt.Errorf("%w: %s already has another key registered: a new key is the administrator's decision (POST /v1/venues/%s/decisions)", ErrDecision, venue, venue)
	}
	v.Key = key
	h.o.Logger.Info("venue registered", "venue", venue)
	return h.st.save(h.o.StatePath)
}

// keyHolder is the venue whose key, current or replaced by a decision, key
// is ("" when none); h.mu held.
func (h *Hub) keyHolder(key string) string {
	for _, name := range sortedKeys(h.st.Venues) {
		v := h.st.Venues[name]
		if v.Key == key {
			return name
		}
		for _, d := range v.Decisions {
			if d.Previous == key {
				return name
			}
		}
	}
	return ""
}

// Venues lists what the hub knows of its venues and their tournaments.
func (h *Hub) Venues() ([]Venue, []Tournament) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var vs []Venue
	for _, k := range sortedKeys(h.st.Venues) {
		v := *h.st.Venues[k]
		v.Linked, v.Link = v.Link != "", ""
		vs = append(vs, v)
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
	case tr.Status == Quarantined && tr.Line > 0:
		return fmt.Errorf("%w: tournament %s of venue %s failed verification at line %d: %s", ErrQuarantined, t, tr.Venue, tr.Line, tr.Problem)
	case tr.Status == Quarantined && tr.Seq > 0:
		return fmt.Errorf("%w: tournament %s of venue %s, at stream sequence %d of the hub's copy: %s", ErrQuarantined, t, tr.Venue, tr.Seq, tr.Problem)
	case tr.Status == Quarantined:
		return fmt.Errorf("%w: tournament %s of venue %s: %s", ErrQuarantined, t, tr.Venue, tr.Problem)
	case v != nil && v.Fork != nil:
		return fmt.Errorf("%w: venue %s rewrote tournament %s after the hub cosigned it (GET /v1/venues has the evidence)", ErrQuarantined, tr.Venue, v.Fork.Tournament)
	case v == nil || v.Key == "":
		return fmt.Errorf("%w: tournament %s: venue %s's key is not registered (POST /v1/venues)", ErrHeld, t, tr.Venue)
	case tr.Status != Verified && tr.Size > 0:
		return fmt.Errorf("%w: tournament %s: until a checkpoint of venue %s that extends the one of %d events the hub cosigned is verified%s", ErrHeld, t, tr.Venue, tr.Size, because(tr.Problem))
	case tr.Status != Verified:
		return fmt.Errorf("%w: tournament %s: no checkpoint of venue %s verified yet", ErrHeld, t, tr.Venue)
	}
	// Events past the verified checkpoint are served only while one
	// covering them is on its way, and never once the projections could
	// not apply what followed them.
	ref, ok, err := h.o.Store.LastCommit(t)
	if err == nil && h.aside[t] && ref.Last != tr.Size {
		return fmt.Errorf("%w: tournament %s: the hub's projections hold %d events, the last checkpoint venue %s had verified %d, and %s", ErrHeld, t, ref.Last, tr.Venue, tr.Size, tr.Problem)
	}
	if err == nil && ok && ref.Last > tr.Size {
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

func because(problem string) string {
	if problem == "" {
		return ""
	}
	return " (" + problem + ")"
}

// Cosigned returns the last checkpoint of t the hub cosigned and verified
// its copy against.
func (h *Hub) Cosigned(t string) (signed string, size uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tr, ok := h.st.Tournaments[t]
	if !ok || tr.Cosigned == "" || tr.Status != Verified {
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
	var key string
	v := h.st.Venues[venue]
	if v != nil {
		key = v.Key
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
	h.mu.Unlock()
	if cerr != nil {
		return 403, []byte(cerr.Error())
	}
	// Before it cosigns again, the hub learns back from the venue the
	// last cosignature it gave: a hub restored from an older backup must
	// not cosign another root at a size it cosigned.
	if err := h.learn(ctx, venue, t, verifier); err != nil {
		return 503, []byte(err.Error())
	}
	h.mu.Lock()
	prev := *h.st.Tournaments[t]
	fork := v.Fork
	h.mu.Unlock()
	if fork != nil {
		return 422, fmt.Appendf(nil, "venue %s is flagged: it rewrote tournament %s after the hub cosigned it", venue, fork.Tournament)
	}
	if prev.Status == Quarantined {
		return 422, fmt.Appendf(nil, "tournament %s is quarantined at the hub: %s", t, prev.Problem)
	}
	// A stale offer, a fork, or the checkpoint cosigned already (a venue
	// offers it again every few seconds) is answered from the state.
	if status, body, answered := h.consistent(venue, t, prev, cp, req, verifier); answered {
		return status, body
	}
	if err := h.o.Log.AddSource(ctx, venue, "", t); err != nil {
		return 503, []byte(err.Error())
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
	// The hub's own record, signed by the venue's key then (a key the
	// administrator since replaced included).
	old, _, err := checkpoint.OpenUnverified([]byte(prev.Cosigned))
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
	if cp.Size == old.Size && prev.Status == Verified {
		return 200, cosignatureLines(prev.Cosigned, req.Signed), true
	}
	// A larger checkpoint, or the one cosigned before the hub learned it
	// back (learn): its copy is verified first.
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
	case tr.Size != size || tr.Status != Verified:
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
	if tr.Status != Quarantined && (tr.Size < size || (tr.Size == size && tr.Status == Held)) {
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

// learn asks venue, once per tournament since the hub started, for the
// last checkpoint of t the hub cosigned that the venue holds (the venue
// keeps each cosignature it receives, where a restore of the hub cannot
// roll it back). One larger than the hub's own record, with the venue's
// signature and the hub's cosignature, becomes its record: the hub was
// restored from an older backup, and from now on checks every checkpoint
// of t against what it really cosigned, verifying its copy again before
// it serves t. One of the record's size with another root is evidence
// that the hub cosigned two histories. An answer the hub cannot check
// (no signature of the venue's key, no cosignature of its own) is passed
// over; no answer is an error, and the offer waits.
func (h *Hub) learn(ctx context.Context, venue, t string, verifier note.Verifier) error {
	h.mu.Lock()
	done := h.learned[t]
	h.mu.Unlock()
	if done {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := h.o.Conn.RequestWithContext(rctx, CosignedSubject(venue), []byte(t))
	if err != nil {
		return fmt.Errorf("the hub asks venue %s for the last cosignature of %s it holds before it cosigns again: %v", venue, t, err)
	}
	held := resp.Data
	h.mu.Lock()
	defer h.mu.Unlock()
	h.learned[t] = true
	if len(held) == 0 {
		return nil
	}
	cp, err := checkpoint.Open(held, verifier)
	if err == nil && cp.Origin != checkpoint.Origin(t) {
		err = fmt.Errorf("a checkpoint of %s", cp.Origin)
	}
	if err == nil {
		err = checkpoint.CheckCosigned(held, h.witness)
	}
	if err != nil {
		h.o.Logger.Warn("venue's cosigned checkpoint passed over", "venue", venue, "tournament", t, "err", err)
		return nil
	}
	tr := h.st.Tournaments[t]
	var mine checkpoint.Checkpoint
	if tr.Cosigned != "" {
		mine, _, _ = checkpoint.OpenUnverified([]byte(tr.Cosigned))
	}
	switch {
	case cp.Size > tr.Size:
		h.o.Logger.Warn("hub learned back its cosignature from the venue", "venue", venue, "tournament", t, "size", cp.Size, "its record", tr.Size)
		tr.Problem = fmt.Sprintf("the hub learned back from venue %s its cosignature of %d events, which its own record (%d events) had lost: its copy is verified again", venue, cp.Size, tr.Size)
		tr.Size, tr.Cosigned = cp.Size, string(held)
		if tr.Status == Verified {
			tr.Status = Held
		}
		return h.st.save(h.o.StatePath)
	case cp.Size == tr.Size && !bytes.Equal(cp.Root, mine.Root):
		v := h.venue(venue)
		v.Fork = &Fork{Tournament: t, Cosigned: tr.Cosigned, Offered: string(held),
			Detail: fmt.Sprintf("the hub cosigned two checkpoints of %d events with different roots", cp.Size)}
		tr.Status, tr.Problem = Quarantined, "two histories cosigned: "+v.Fork.Detail
		h.o.Logger.Error("two histories cosigned", "venue", venue, "tournament", t, "size", cp.Size)
		return h.st.save(h.o.StatePath)
	}
	return nil
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

// SetAside records that the hub's projections could not apply the commit
// of tournament t at stream sequence seq of its copy (why), kept as the
// evidence; they skip t until the hub starts again. A tournament never
// cosigned is quarantined (its quarantine cannot be lifted before the
// next start: Decide). One the hub verified and cosigned stays served as
// far as it was cosigned, never past it: what arrived after a cosigned
// checkpoint and cannot be applied (a venue's log replaced after it lost
// its disk, say) proves nothing against what was verified, and must not
// take it down.
func (h *Hub) SetAside(t string, seq uint64, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.aside[t] = true
	tr := h.st.Tournaments[t]
	if tr == nil {
		return
	}
	problem := "the hub cannot apply its events: " + why
	if tr.Status == Verified {
		tr.Seq, tr.Problem = seq, problem
		h.o.Logger.Error("tournament served only as far as cosigned", "tournament", t, "size", tr.Size, "stream_seq", seq, "problem", why)
	} else {
		tr.Status, tr.Line, tr.Seq, tr.Problem = Quarantined, 0, seq, problem
		h.o.Logger.Error("tournament quarantined", "tournament", t, "stream_seq", seq, "problem", why)
	}
	_ = h.st.save(h.o.StatePath)
}

// linkHash is how a venue's link password is kept: its hex SHA-256 (the
// password is 128 random bits, not something a person chose).
func linkHash(password string) string {
	s := sha256.Sum256([]byte(password))
	return hex.EncodeToString(s[:])
}

// IssueLink makes a new password for venue's leaf link (the venue is
// known from then on) and records the decision: the venue's server
// connects as nats://VENUE:PASSWORD@HUB. The password is returned once;
// the hub keeps its hash, and the one it replaces no longer admits the
// venue.
func (h *Hub) IssueLink(venue, reason string) (string, Decision, error) {
	if !eventlog.ValidVenue(venue, Domain) {
		return "", Decision{}, fmt.Errorf("%w: %q cannot name a venue (a JetStream domain: no dots, spaces or wildcards, not %q)", ErrVenue, venue, Domain)
	}
	if err := checkReason(reason, false); err != nil {
		return "", Decision{}, err
	}
	b := make([]byte, 16)
	if _, err := io.ReadFull(h.o.Random, b); err != nil {
		return "", Decision{}, fmt.Errorf("hub: link password: %w", err)
	}
	password := hex.EncodeToString(b)
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.venue(venue)
	v.Link = linkHash(password)
	d := Decision{At: h.o.Clock().UTC(), Decision: DecideLink, Reason: strings.TrimSpace(reason)}
	v.Decisions = append(v.Decisions, d)
	if err := h.st.save(h.o.StatePath); err != nil {
		return "", Decision{}, err
	}
	h.o.Logger.Info("leaf link issued", "venue", venue)
	return password, d, nil
}

// CheckLeaf reports whether password is the one issued for venue's leaf
// link (eventlog.LeafListenOptions.Venues).
func (h *Hub) CheckLeaf(venue, password string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.st.Venues[venue]
	return v != nil && v.Link != "" && subtle.ConstantTimeCompare([]byte(linkHash(password)), []byte(v.Link)) == 1
}

// DecisionRequest is an administrator's decision about a venue as sent:
// its kind, the tournament (DecideLiftQuarantine), the new key
// (DecideKey) and why.
type DecisionRequest struct {
	Decision   DecisionKind `json:"decision"`
	Tournament string       `json:"tournament,omitempty"`
	Key        string       `json:"key,omitempty"`
	Reason     string       `json:"reason"`
}

// maxReason is the longest reason a decision records, in bytes.
const maxReason = 1000

func checkReason(reason string, required bool) error {
	switch r := strings.TrimSpace(reason); {
	case required && r == "":
		return fmt.Errorf("%w: reason: say why: the decision is recorded with it", ErrVenue)
	case len(r) > maxReason:
		return fmt.Errorf("%w: reason: at most %d bytes", ErrVenue, maxReason)
	}
	return nil
}

// Decide records an administrator's decision about venue and acts on it:
// a new key (DecideKey), the venue's flag lifted (DecideLiftFlag), a
// tournament's quarantine lifted (DecideLiftQuarantine). What it sets
// aside is kept in the decision, which GET /v1/venues shows; a lifted
// tournament is held until a checkpoint of it is verified again.
func (h *Hub) Decide(venue string, req DecisionRequest) (Decision, error) {
	if err := checkReason(req.Reason, true); err != nil {
		return Decision{}, err
	}
	d := Decision{At: h.o.Clock().UTC(), Decision: req.Decision, Reason: strings.TrimSpace(req.Reason)}
	key := strings.TrimSpace(req.Key)
	if req.Decision == DecideKey {
		if _, err := checkpoint.NewVerifier(key); err != nil {
			return Decision{}, fmt.Errorf("%w: key: %v", ErrVenue, err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.st.Venues[venue]
	if v == nil {
		return Decision{}, fmt.Errorf("%w: %s", ErrNoVenue, venue)
	}
	switch req.Decision {
	case DecideKey:
		if other := h.keyHolder(key); other != "" {
			return Decision{}, fmt.Errorf("%w: the key is venue %s's, now or before: two venues may not register one key, nor a venue a key it gave up", ErrDecision, other)
		}
		d.Key, d.Previous = key, v.Key
		v.Key = key
	case DecideLiftFlag:
		if v.Fork == nil {
			return Decision{}, fmt.Errorf("%w: venue %s is not flagged", ErrDecision, venue)
		}
		d.Fork, d.Tournament = v.Fork, v.Fork.Tournament
		if tr := h.st.Tournaments[v.Fork.Tournament]; tr != nil && tr.Status == Quarantined {
			d.Quarantine = &Quarantine{Problem: tr.Problem, Line: tr.Line, Seq: tr.Seq, Size: tr.Size, Cosigned: tr.Cosigned}
			tr.Status, tr.Problem, tr.Line, tr.Seq = Held, "", 0, 0
		}
		v.Fork = nil
	case DecideLiftQuarantine:
		tr := h.st.Tournaments[req.Tournament]
		switch {
		case tr == nil || tr.Venue != venue:
			return Decision{}, fmt.Errorf("%w: venue %s has no tournament %q at the hub", ErrNoVenue, venue, req.Tournament)
		case tr.Status != Quarantined:
			return Decision{}, fmt.Errorf("%w: tournament %s is not quarantined", ErrDecision, req.Tournament)
		case v.Fork != nil && v.Fork.Tournament == req.Tournament:
			return Decision{}, fmt.Errorf("%w: venue %s is flagged for rewriting %s: lift the flag (%s)", ErrDecision, venue, req.Tournament, DecideLiftFlag)
		case h.aside[req.Tournament]:
			return Decision{}, fmt.Errorf("%w: the hub's projections set %s aside since it started and apply it again only at its next start: restart the hub, then decide", ErrDecision, req.Tournament)
		}
		d.Tournament = req.Tournament
		d.Quarantine = &Quarantine{Problem: tr.Problem, Line: tr.Line, Seq: tr.Seq, Size: tr.Size, Cosigned: tr.Cosigned}
		tr.Status, tr.Problem, tr.Line, tr.Seq = Held, "", 0, 0
	default:
		return Decision{}, fmt.Errorf("%w: decision: %q is none of %s, %s, %s", ErrVenue, req.Decision, DecideKey, DecideLiftFlag, DecideLiftQuarantine)
	}
	v.Decisions = append(v.Decisions, d)
	if err := h.st.save(h.o.StatePath); err != nil {
		return Decision{}, err
	}
	h.o.Logger.Warn("administrator's decision", "venue", venue, "decision", d.Decision, "tournament", d.Tournament, "reason", d.Reason)
	return d, nil
}

// verifyPrefix verifies the first size events of t in lg with replay's
// verifier, against the signed checkpoint of exactly them.
func verifyPrefix(ctx context.Context, lg *eventlog.Log, t string, size uint64, signed []byte, v note.Verifier) *replay.Report {
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
func countLines(ctx context.Context, lg *eventlog.Log, t string) (uint64, error) {
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
