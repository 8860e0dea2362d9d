package api

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/jetstream"
)

// The routes a command comes through, as bound into its fingerprint.
const (
	routeCreate   = "POST /v1/tournaments"
	routeAppoint  = "POST /v1/tournaments/{t}/officials"
	routeCommands = "POST /v1/tournaments/{t}/commands"
)

// errKeyReused refuses an Idempotency-Key sent with a request other than
// the one it was first used for (draft-ietf-httpapi-idempotency-key-header:
// 422). It is a keyReusedError.
var errKeyReused = errors.New("api: idempotency key reused")

// keyReusedError names the key and the seq of the command it stands for.
type keyReusedError struct {
	key string
	seq uint64 // the last seq of the command the key stands for
}

func (e *keyReusedError) Error() string {
	return fmt.Sprintf("%s: Idempotency-Key %q already stands for another request, the command recorded at seq %d: "+
		"the route, the official or the body differ; send a new key for a new command", errKeyReused, e.key, e.seq)
}

func (e *keyReusedError) Unwrap() error { return errKeyReused }

// fingerprint binds a request to its idempotency key: the SHA-256 of the
// route, the tournament, the official and role acting, and the body in a
// canonical form (whitespace removed, object members sorted by name,
// strings in their shortest escaping; numbers as sent). Two requests
// replay each other exactly when their fingerprints are equal. The body
// has been parsed already, so it is valid JSON.
func fingerprint(route, tournament string, actor events.Actor, body []byte) (string, error) {
	canon := jsontext.Value(append([]byte(nil), body...))
	if err := canon.Format(jsontext.ReorderRawObjects(true)); err != nil {
		return "", errors.Join(errBadRequest, err)
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
// (jetstream.RequestHeader) since the fingerprint exists; on an older one
// the log still says who acted and, by its first event, through which
// route, and those must agree (its body cannot be compared).
func sameRequest(m jetstream.Msg, c events.Commit, sub submission) error {
	first, last := c.Envelopes[0], c.Envelopes[len(c.Envelopes)-1]
	same := m.Request == sub.request
	if m.Request == "" {
		same = first.Actor == sub.actor && routeOf(first.Type) == sub.route
	}
	if !same {
		return &keyReusedError{key: sub.key, seq: last.Seq}
	}
	return nil
}

// routeOf is the route a commit starting with an event of type typ came
// through.
func routeOf(typ string) string {
	switch typ {
	case events.TypeTournamentCreated:
		return routeCreate
	case events.TypeOfficialAppointed:
		return routeAppoint
	}
	return routeCommands
}
