package hub

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/fault"
)

// A venue that lost part of its log reads it back from the hub (referto
// repair): every message of a tournament the hub sourced from it, each
// with its stream sequence in the venue's stream, so that the venue's log
// is rebuilt message for message where it was (the hub's sources resume
// where they stopped), and the hub's last cosigned checkpoint of it. The
// venue proves it is the venue with its checkpoint key, the one the hub
// registered: no official's token is needed, and no one else reads a
// tournament the hub does not serve.

// ErrProof refuses a venue-log request whose proof is not the venue's.
var ErrProof = fault.Mark(errors.New("hub: proof"), fault.Forbidden)

// venueLogContext begins the text a venue signs to read its log back.
const venueLogContext = "referto venue-log"

// proofWindow is how far the time a proof names may be from the hub's.
const proofWindow = 10 * time.Minute

// VenueLogProof is the proof a venue sends to read back its log of
// tournament t at time now: a note signed with its checkpoint key.
func VenueLogProof(t string, now time.Time, s note.Signer) ([]byte, error) {
	return note.Sign(&note.Note{Text: fmt.Sprintf("%s %s %d\n", venueLogContext, t, now.Unix())}, s)
}

// VenueMessage is one message of a venue's log as the hub holds it.
type VenueMessage struct {
	// StreamSeq is its stream sequence in the venue's stream.
	StreamSeq uint64 `json:"stream_seq"`
	MsgID     string `json:"msg_id,omitempty"`
	Request   string `json:"request,omitempty"`
	Seal      string `json:"seal,omitempty"`
	Data      []byte `json:"data"`
}

// VenueLog checks that proof is tournament t's venue's (VenueLogProof,
// signed with the key the hub registered for it, within ten minutes of
// the hub's clock) and returns the last checkpoint of t the hub cosigned
// ("" when none) and scan, which calls fn with every message of t the hub
// holds, in order.
func (h *Hub) VenueLog(t string, proof []byte) (cosigned string, scan func(ctx context.Context, fn func(VenueMessage) error) error, err error) {
	h.mu.Lock()
	tr := h.st.Tournaments[t]
	var key, venue string
	if tr != nil {
		venue, cosigned = tr.Venue, tr.Cosigned
		if v := h.st.Venues[tr.Venue]; v != nil {
			key = v.Key
		}
	}
	h.mu.Unlock()
	if key == "" {
		return "", nil, fmt.Errorf("%w: tournament %s has no venue whose key the hub registered", ErrProof, t)
	}
	v, err := checkpoint.NewVerifier(key)
	if err != nil {
		return "", nil, err
	}
	n, err := note.Open(proof, note.VerifierList(v))
	if err != nil {
		return "", nil, fmt.Errorf("%w: not signed with venue %s's key: %v", ErrProof, venue, err)
	}
	f := strings.Fields(strings.TrimPrefix(n.Text, venueLogContext))
	if !strings.HasPrefix(n.Text, venueLogContext+" ") || len(f) != 2 || f[0] != t {
		return "", nil, fmt.Errorf("%w: the signed text is not a request for tournament %s's log", ErrProof, t)
	}
	at, err := strconv.ParseInt(f[1], 10, 64)
	if d := h.o.Clock().Sub(time.Unix(at, 0)); err != nil || d > proofWindow || d < -proofWindow {
		return "", nil, fmt.Errorf("%w: the proof's time is more than %v from the hub's", ErrProof, proofWindow)
	}
	scan = func(ctx context.Context, fn func(VenueMessage) error) error {
		return h.o.Log.ScanSourced(ctx, t, func(origin uint64, m events.StoredCommit) error {
			return fn(VenueMessage{StreamSeq: origin, MsgID: m.MsgID, Request: m.Request, Seal: m.Seal, Data: m.Data})
		})
	}
	return cosigned, scan, nil
}
