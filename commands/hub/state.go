package hub

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
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
	// its log as the verifier reports it (0 when not a line).
	Problem string `json:"problem,omitempty"`
	Line    int    `json:"line,omitempty"`
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
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
