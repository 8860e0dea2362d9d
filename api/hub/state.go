package hub

import (
	"encoding/json"
	"errors"
	"os"
	"sort"
	"time"

	"github.com/referto/referto/events/atomicfile"
)

// Status is where a tournament stands at the hub.
type Status string

// The statuses of a tournament at the hub.
const (
	// Held: its events arrive, but no checkpoint of it was verified yet
	// (its venue's key is not registered, or nothing was submitted).
	Held Status = "held"
	// Verified: the hub verified and cosigned a checkpoint of it; served.
	Verified Status = "verified"
	// Quarantined: its log failed verification, or its venue forked it
	// after a cosigned checkpoint; never served.
	Quarantined Status = "quarantined"
)

// Venue is what the hub knows of a venue.
type Venue struct {
	Name string `json:"venue"`
	// Key is the checkpoint verifier key its administrator registered
	// ("" until then).
	Key string `json:"key,omitempty"`
	// Problem is the last thing that kept its tournaments from syncing
	// (a tournament id another venue has), "" when none.
	Problem string `json:"problem,omitempty"`
	// Fork, when set, is the evidence that the venue rewrote a log after
	// the hub cosigned a checkpoint of it.
	Fork *Fork `json:"fork,omitempty"`
	// Link is the hex SHA-256 of the password its leaf link presents
	// (IssueLink), "" until one is issued; Linked says, in Venues' answer,
	// whether one is, the hash left out.
	Link   string `json:"link_sha256,omitempty"`
	Linked bool   `json:"linked"`
	// Decisions are the administrator's decisions about the venue and
	// its tournaments, oldest first, each with what it set aside.
	Decisions []Decision `json:"decisions,omitempty"`
}

// DecisionKind is what an administrator decided about a venue.
type DecisionKind string

// The decisions of a hub's administrator (Hub.Decide, Hub.IssueLink).
const (
	// DecideLink: a new password for the venue's leaf link; the old one
	// no longer admits it.
	DecideLink DecisionKind = "link"
	// DecideKey: a new checkpoint key for the venue (a venue that lost
	// its key with its disk), the previous one kept as evidence.
	DecideKey DecisionKind = "key"
	// DecideLiftFlag: the venue's flag for a rewritten log is lifted, the
	// two checkpoints kept as evidence; its tournament is held until a
	// checkpoint consistent with the one cosigned is verified.
	DecideLiftFlag DecisionKind = "lift_flag"
	// DecideLiftQuarantine: a tournament's quarantine is lifted, why it
	// was quarantined kept as evidence; it is held until a checkpoint of
	// it is verified.
	DecideLiftQuarantine DecisionKind = "lift_quarantine"
)

// Decision is one administrator's decision, as the hub records it: when,
// what, why, and the evidence it was taken on.
type Decision struct {
	At       time.Time    `json:"at"`
	Decision DecisionKind `json:"decision"`
	// Tournament is the tournament a lifted quarantine concerns.
	Tournament string `json:"tournament,omitempty"`
	Reason     string `json:"reason"`
	// Key is a new key (DecideKey), Previous the one it replaced.
	Key      string `json:"key,omitempty"`
	Previous string `json:"previous_key,omitempty"`
	// Fork is the evidence of the flag lifted (DecideLiftFlag).
	Fork *Fork `json:"fork,omitempty"`
	// Quarantine is the quarantine lifted (DecideLiftQuarantine).
	Quarantine *Quarantine `json:"quarantine,omitempty"`
}

// Quarantine is why a tournament was quarantined, as a lifted one keeps it.
type Quarantine struct {
	Problem string `json:"problem"`
	Line    int    `json:"line,omitempty"`
	Seq     uint64 `json:"stream_seq,omitempty"`
	// Size and Cosigned are the last checkpoint the hub had cosigned.
	Size     uint64 `json:"size,omitempty"`
	Cosigned string `json:"cosigned,omitempty"`
}

// Fork is the evidence of a rewritten log: two checkpoints of one
// tournament, both signed by the venue, that no append-only log can have
// both produced.
type Fork struct {
	Tournament string `json:"tournament"`
	// Cosigned is the checkpoint the hub cosigned before.
	Cosigned string `json:"cosigned"`
	// Offered is the checkpoint the venue submitted after it.
	Offered string `json:"offered"`
	Detail  string `json:"detail"`
}

// Tournament is what the hub knows of a tournament.
type Tournament struct {
	ID     string `json:"tournament"`
	Venue  string `json:"venue"`
	Status Status `json:"status"`
	// Size and Cosigned are the last checkpoint the hub verified and
	// cosigned: the venue's signed note with the hub's cosignature.
	Size     uint64 `json:"size,omitempty"`
	Cosigned string `json:"cosigned,omitempty"`
	// Problem and Line say why it is quarantined: the first bad line of
	// its log as the verifier reports it (0 when not a line); Seq, the
	// stream sequence of the hub's copy its projections could not apply
	// (0 when not that).
	Problem string `json:"problem,omitempty"`
	Line    int    `json:"line,omitempty"`
	Seq     uint64 `json:"stream_seq,omitempty"`
	// Arrived is how many of its events the hub's projections hold (in
	// Venues' answer only).
	Arrived uint64 `json:"arrived"`
}

// state is the hub's whole state, kept in one JSON file written whole.
type state struct {
	Venues      map[string]*Venue      `json:"venues"`
	Tournaments map[string]*Tournament `json:"tournaments"`
}

func loadState(path string) (*state, error) {
	st := &state{Venues: map[string]*Venue{}, Tournaments: map[string]*Tournament{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, err
	}
	if st.Venues == nil {
		st.Venues = map[string]*Venue{}
	}
	if st.Tournaments == nil {
		st.Tournaments = map[string]*Tournament{}
	}
	return st, nil
}

// encode is the state as its file holds it.
func (st *state) encode() ([]byte, error) { return json.MarshalIndent(st, "", "  ") }

// save writes the state through a synced temporary file renamed into place.
func (st *state) save(path string) error {
	b, err := st.encode()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
