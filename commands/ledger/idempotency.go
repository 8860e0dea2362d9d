package ledger

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
)

// The routes a command comes through, as bound into its request's
// fingerprint (Submission.Route). They are spelled as the HTTP API's routes
// because fingerprints stored in the log were made with these very bytes:
// another front end (the command line, a hub) submits under the route whose
// command it sends, so that a retry through either replays.
const (
	// RouteCreate creates a tournament.
	RouteCreate = "POST /v1/tournaments"
	// RouteAppoint appoints an official.
	RouteAppoint = "POST /v1/tournaments/{t}/officials"
	// RouteCommands is every other command.
	RouteCommands = "POST /v1/tournaments/{t}/commands"
)

// MsgID is the log's message id of a command (Nats-Msg-Id): the
// idempotency key scoped to its tournament, so that one key used for two
// tournaments never deduplicates one command against the other.
func MsgID(tournament, key string) string { return tournament + "/" + key }

// CreationMsgID is the log's message id of a tournament's creation: the
// key of POST /v1/tournaments is the administrator's, not scoped by the id
// in its body, so that one key sent to create two tournaments is refused,
// not taken twice. "_" is in no tournament id, so it meets no MsgID.
func CreationMsgID(key string) string { return "_create/" + key }

// msgID is the log's message id of sub's command.
func (sub Submission) msgID() string {
	if sub.Route == RouteCreate {
		return CreationMsgID(sub.Key)
	}
	return MsgID(sub.Tournament, sub.Key)
}

// ErrKeyReused refuses an idempotency key submitted with a request other
// than the one it was first used for (draft-ietf-httpapi-idempotency-key-header:
// 422). It is a *KeyReusedError.
var ErrKeyReused = fault.New(KeyReused, "ledger: idempotency key reused")

// KeyReusedError names the key and the seq of the command it stands for.
type KeyReusedError struct {
	Key string
	Seq uint64 // the last seq of the command the key stands for
}

func (e *KeyReusedError) Error() string {
	return fmt.Sprintf("%s: Idempotency-Key %q already stands for another request, the command recorded at seq %d: "+
		"the route, the official or the body differ; send a new key for a new command", ErrKeyReused, e.Key, e.Seq)
}

func (e *KeyReusedError) Unwrap() error { return ErrKeyReused }

// Fingerprint binds a request to its idempotency key: the SHA-256 of the
// route, the tournament, the official and role acting, and the body in a
// canonical form (whitespace removed, object members sorted by name,
// strings in their shortest escaping; numbers as sent). Two requests
// replay each other exactly when their fingerprints are equal. body must
// be valid JSON (it has been parsed already); an error says it is not.
func Fingerprint(route, tournament string, actor events.Actor, body []byte) (string, error) {
	canon := jsontext.Value(append([]byte(nil), body...))
	if err := canon.Format(jsontext.ReorderRawObjects(true)); err != nil {
		return "", err
	}
	h := sha256.New()
	var n [8]byte
	for _, part := range [][]byte{[]byte(route), []byte(tournament), []byte(actor.ID), []byte(actor.Role), canon} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// sameRequest checks that the commit m, which sub's idempotency key already
// stands for, was made for the request sub is: a retry, to be answered
// with the stored outcome. A commit carries its request's fingerprint
// (eventlog.RequestHeader) since the fingerprint exists; on an older one
// the log still says who acted and, by its first event, through which
// route, and those must agree (its body cannot be compared).
func sameRequest(m events.StoredCommit, c events.Commit, sub Submission) error {
	first, last := c.Envelopes[0], c.Envelopes[len(c.Envelopes)-1]
	same := m.Request == sub.Request
	if m.Request == "" {
		same = first.Actor == sub.Actor && routeOf(first.Type) == sub.Route
	}
	if !same {
		return &KeyReusedError{Key: sub.Key, Seq: last.Seq}
	}
	return nil
}

// routeOf is the route a commit starting with an event of type typ came
// through.
func routeOf(typ string) string {
	switch typ {
	case events.TypeTournamentCreated:
		return RouteCreate
	case events.TypeOfficialAppointed:
		return RouteAppoint
	}
	return RouteCommands
}
