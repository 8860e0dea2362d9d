package events

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/referto/referto/events/checkpoint"
)

// Roles an official (or the administrator) acts in.
const (
	RoleAdmin   = "admin"
	RoleArbiter = "arbiter"
	RoleAppeals = "appeals"
	RoleAuditor = "auditor"
	// RolePlayer is a registered player acting through his personal link:
	// bound to one tournament and one player, he may propose, confirm and
	// dispute the report of the table he sits at, and nothing else.
	RolePlayer = "player"
	// RoleSystem marks events the ledger appends on its own behalf, such as
	// an automatic repechage or a sanction escalation (recorded alongside
	// the official whose command triggered them).
	RoleSystem = "system"
)

// Actor is who caused an event: an official id and the role they acted in.
type Actor struct {
	ID   string `json:"id"`
	Role string `json:"role"`
}

// Envelope is one stored event. Its JSON encoding, exactly as stored, is the
// event's Merkle leaf and its line in an export; stored lines are never
// re-encoded, and new fields are optional (omitempty) so that every line
// ever stored still decodes.
type Envelope struct {
	ID         string    `json:"id"`
	Tournament string    `json:"tournament"`
	Seq        uint64    `json:"seq"`
	Type       string    `json:"type"`
	V          int       `json:"v"`
	At         time.Time `json:"at"`
	Actor      Actor     `json:"actor"`
	CommandID  string    `json:"command_id"`
	// Prev links the event to the one before it in its tournament: the
	// RFC 6962 leaf hash, base64, of that event's stored line (empty for
	// the first). A changed line breaks the link of the next one, so an
	// auditor finds the line itself, not just a root that differs. The
	// link is not a signature: a rewriter can relink, and only the signed
	// checkpoints catch that.
	Prev string          `json:"prev,omitempty"`
	Data json.RawMessage `json:"data"`
}

// EventID is the id of the event with the given per-tournament sequence.
func EventID(tournament string, seq uint64) string {
	return fmt.Sprintf("%s/%d", tournament, seq)
}

// Seal wraps decided events into envelopes numbered from first, with a
// common time, actor and command id. It is the single place where an Event
// becomes stored bytes.
func Seal(tournament string, first uint64, at time.Time, actor Actor, commandID string, evs []Event) ([]Envelope, error) {
	out := make([]Envelope, 0, len(evs))
	for i, ev := range evs {
		data, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("events: encode %s: %w", ev.EventType(), err)
		}
		seq := first + uint64(i)
		out = append(out, Envelope{
			ID:         EventID(tournament, seq),
			Tournament: tournament,
			Seq:        seq,
			Type:       ev.EventType(),
			V:          ev.EventVersion(),
			At:         at.UTC(),
			Actor:      actor,
			CommandID:  commandID,
			Data:       data,
		})
	}
	return out, nil
}

// Link is the Prev of the event after one stored as line.
func Link(line []byte) string { return LinkTo(checkpoint.LeafHash(line)) }

// LinkTo is the Prev of the event after the leaf of hash leafHash ("" for
// nil, the empty log).
func LinkTo(leafHash []byte) string {
	if leafHash == nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(leafHash)
}

// Chain links sealed envelopes to the log they extend: last is the leaf
// hash of the tournament's last stored line (checkpoint.Tree.Last; nil when
// envs start the log). Each envelope's Prev is set, in order.
func Chain(envs []Envelope, last []byte) error {
	_, err := ChainCommit(envs, last)
	return err
}

// ChainCommit is Chain and EncodeCommit in one pass: it links envs to the
// log they extend and returns their commit body, each envelope encoded
// once (the line a link hashes is the line stored).
func ChainCommit(envs []Envelope, last []byte) ([]byte, error) {
	var buf bytes.Buffer
	for i := range envs {
		envs[i].Prev = LinkTo(last)
		line, err := json.Marshal(&envs[i])
		if err != nil {
			return nil, fmt.Errorf("events: encode envelope %s: %w", envs[i].ID, err)
		}
		if i < len(envs)-1 {
			last = checkpoint.LeafHash(line)
		}
		if buf.Len() == 0 {
			buf.Grow(len(envs) * (len(line) + 1))
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// A commit is what one accepted command stores: one JetStream message whose
// body holds its events as newline-terminated JSON lines, in seq order. One
// message makes the events of a command atomic; one line per event makes
// every event's stored bytes addressable (Merkle leaf, export line).

// EncodeCommit renders envelopes as a commit body.
func EncodeCommit(envs []Envelope) ([]byte, error) {
	var buf bytes.Buffer
	for i := range envs {
		line, err := json.Marshal(&envs[i])
		if err != nil {
			return nil, fmt.Errorf("events: encode envelope %s: %w", envs[i].ID, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// Commit is a decoded commit: the envelopes and each one's stored line
// (without its newline), which is the event's Merkle leaf.
type Commit struct {
	Envelopes []Envelope
	Lines     [][]byte
}

// DecodeCommit parses and checks a commit body: at least one event, every
// line a strict envelope, one tournament, one command, contiguous seqs.
// Lines alias body.
func DecodeCommit(body []byte) (Commit, error) {
	c, _, err := decodeCommit(body, false)
	return c, err
}

// DecodeCommitForFold is DecodeCommit that also decodes each envelope's
// event as DecodeForFold does, reading each line once (DecodeLineForFold).
// Its error is DecodeCommit's, or else the first event's that does not
// decode.
func DecodeCommitForFold(body []byte) (Commit, []Event, error) {
	return decodeCommit(body, true)
}

func decodeCommit(body []byte, withEvents bool) (Commit, []Event, error) {
	var c Commit
	var evs []Event
	var evErr error // the first event that does not decode, reported once the commit itself is sound
	err := CommitLines(body, func(line []byte) error {
		var env Envelope
		var err error
		if withEvents {
			var ev Event
			env, ev, err = decodeLine(line, true)
			if err != nil && env.Seq != 0 {
				evErr = cmp.Or(evErr, err) // as Decode reports it
				err = nil
			}
			evs = append(evs, ev)
		} else {
			env, err = DecodeEnvelope(line)
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", len(c.Lines)+1, err)
		}
		if n := len(c.Envelopes); n > 0 {
			prev := c.Envelopes[n-1]
			if env.Tournament != prev.Tournament || env.CommandID != prev.CommandID || env.Seq != prev.Seq+1 {
				return fmt.Errorf("%w: event %s does not follow %s in one command", ErrCorrupt, env.ID, prev.ID)
			}
			if (env.Prev != "" || prev.Prev != "") && env.Prev != Link(c.Lines[n-1]) {
				return fmt.Errorf("%w: event %s is not linked to %s", ErrCorrupt, env.ID, prev.ID)
			}
		}
		c.Envelopes = append(c.Envelopes, env)
		c.Lines = append(c.Lines, line)
		return nil
	})
	if err != nil {
		return Commit{}, nil, err
	}
	if len(c.Envelopes) == 0 {
		return Commit{}, nil, fmt.Errorf("%w: empty commit", ErrCorrupt)
	}
	if evErr != nil {
		return Commit{}, nil, evErr
	}
	return c, evs, nil
}

// DecodeEnvelope parses one stored event line strictly: unknown fields,
// trailing data, a bad id or a missing type are corruption.
func DecodeEnvelope(line []byte) (Envelope, error) {
	var env Envelope
	if err := decodeStrict(line, &env); err != nil {
		return Envelope{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := checkEnvelope(env); err != nil {
		return Envelope{}, err
	}
	return env, nil
}

// checkEnvelope refuses an envelope that decoded but cannot be an event.
func checkEnvelope(env Envelope) error {
	switch {
	case !ValidID(env.Tournament):
		return fmt.Errorf("%w: bad tournament id %q", ErrCorrupt, env.Tournament)
	case env.Seq == 0:
		return fmt.Errorf("%w: event without seq", ErrCorrupt)
	case env.ID != EventID(env.Tournament, env.Seq):
		return fmt.Errorf("%w: event id %q does not match %s", ErrCorrupt, env.ID, EventID(env.Tournament, env.Seq))
	case env.Type == "" || env.V < 1:
		return fmt.Errorf("%w: event %s without type or version", ErrCorrupt, env.ID)
	case len(env.Data) == 0:
		return fmt.Errorf("%w: event %s without data", ErrCorrupt, env.ID)
	}
	return nil
}

// DecodeLine decodes one stored line into its envelope (DecodeEnvelope)
// and event (Decode), reading the bytes once: the event is decoded as its
// data is read, not kept as raw bytes and parsed again. The envelope's
// Data is the data's bytes within line, not a copy.
//
// It accepts and refuses exactly what DecodeEnvelope then Decode do, with
// the same errors: a line as the ledger writes it is read by plainLine,
// and any other (spaces between tokens, a member the plain reading does
// not know, an error) is decoded again the two-step way, which says why.
// When the envelope decodes and the event does not, the envelope is
// returned with the error; otherwise a failed line returns the zero
// Envelope.
func DecodeLine(line []byte) (Envelope, Event, error) { return decodeLine(line, false) }

// DecodeLineForFold is DecodeLine with the event decoded as DecodeForFold
// decodes it: for the projections, which never read a draw's inputs.
func DecodeLineForFold(line []byte) (Envelope, Event, error) { return decodeLine(line, true) }

func decodeLine(line []byte, fold bool) (Envelope, Event, error) {
	if env, ev, err, ok := plainLine(line, fold); ok {
		return env, ev, err
	}
	env, err := DecodeEnvelope(line)
	if err != nil {
		return Envelope{}, nil, err
	}
	ev, err := decode(env, fold)
	return env, ev, err
}

// decodeStrict decodes one JSON value into v: unknown, duplicate and
// case-variant names, trailing data and wrong types are refused. Invalid
// UTF-8 and lone surrogate escapes ("\ud800") are read as U+FFFD, as
// encoding/json read them when these logs were written: a field stored as
// the client sent it (an inline objective set) may hold them, and a line
// the ledger stored must never stop the projections.
func decodeStrict(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, jsonv2.RejectUnknownMembers(true), jsontext.AllowInvalidUTF8(true))
}
