package ranking

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/referto/referto/events"
)

// Registry is the season registry's events folded: the national ids
// linked to tournaments' players, the ids merged and the disqualification
// periods, in the order recorded.
type Registry struct {
	links   map[[2]string]string              // (tournament, player) → national id
	merged  map[string]string                 // from → into
	Merges  []events.PlayersMerged            `json:"merges,omitempty"`
	Periods []events.DisqualificationRecorded `json:"disqualifications,omitempty"`
	Linked  []events.NationalIDLinked         `json:"links,omitempty"`
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{links: map[[2]string]string{}, merged: map[string]string{}}
}

// Apply folds one registry event; any other event is an error, as is a
// merge that would make a cycle or a period that is no pair of dates.
func (r *Registry) Apply(ev events.Event) error {
	switch e := ev.(type) {
	case events.NationalIDLinked:
		r.links[[2]string{e.Tournament, e.Player}] = e.NationalID
		r.Linked = append(r.Linked, e)
	case events.PlayersMerged:
		if e.From == e.Into || r.reaches(e.Into, e.From) {
			return fmt.Errorf("ranking: merging %s into %s makes a cycle", e.From, e.Into)
		}
		r.merged[e.From] = e.Into
		r.Merges = append(r.Merges, e)
	case events.DisqualificationRecorded:
		from, err1 := time.Parse(time.DateOnly, e.From)
		to, err2 := time.Parse(time.DateOnly, e.To)
		if err1 != nil || err2 != nil || to.Before(from) {
			return fmt.Errorf("ranking: disqualification of %s: %q..%q is no period of dates (YYYY-MM-DD)", e.NationalID, e.From, e.To)
		}
		r.Periods = append(r.Periods, e)
	default:
		return fmt.Errorf("ranking: %s is no event of a season's registry", ev.EventType())
	}
	return nil
}

// Resolve follows merges from a national id to the one it stands for.
func (r *Registry) Resolve(id string) string {
	for range len(r.merged) + 1 { // a chain is at most every merge long
		into, ok := r.merged[id]
		if !ok {
			break
		}
		id = into
	}
	return id
}

// reaches reports whether following merges from id passes through target.
func (r *Registry) reaches(id, target string) bool {
	for range len(r.merged) + 1 {
		if id == target {
			return true
		}
		into, ok := r.merged[id]
		if !ok {
			return false
		}
		id = into
	}
	return true // a chain longer than every merge: a cycle already
}

// MergedInto returns the id a national id was merged into, if it was.
func (r *Registry) MergedInto(id string) (string, bool) {
	into, ok := r.merged[id]
	return into, ok
}

// Link returns the national id the registry linked a tournament's player
// to, if it did.
func (r *Registry) Link(tournament, player string) (string, bool) {
	id, ok := r.links[[2]string{tournament, player}]
	return id, ok
}

// Names reports whether the registry names national id id: linked to a
// player, merged, merged into, or disqualified.
func (r *Registry) Names(id string) bool {
	if _, ok := r.merged[id]; ok {
		return true
	}
	for _, m := range r.Merges {
		if m.Into == id {
			return true
		}
	}
	for _, l := range r.Linked {
		if l.NationalID == id {
			return true
		}
	}
	for _, p := range r.Periods {
		if p.NationalID == id {
			return true
		}
	}
	return false
}

// Clone returns a copy of r that later events applied to r leave as it is.
func (r *Registry) Clone() *Registry {
	c := &Registry{links: make(map[[2]string]string, len(r.links)), merged: make(map[string]string, len(r.merged)),
		Merges: slices.Clone(r.Merges), Periods: slices.Clone(r.Periods), Linked: slices.Clone(r.Linked)}
	maps.Copy(c.links, r.links)
	maps.Copy(c.merged, r.merged)
	return c
}

// NationalID is the id a tournament's player ranks under: the registry's
// link, else registration's, merges followed; "" when there is none.
func (r *Registry) NationalID(tournament string, p Placing) string {
	id := p.NationalID
	if l, ok := r.links[[2]string{tournament, p.Player}]; ok {
		id = l
	}
	if id == "" {
		return ""
	}
	return r.Resolve(id)
}

// Disqualified returns the period covering date for the national id id
// (or any id merged into it), if one does.
func (r *Registry) Disqualified(id, date string) (events.DisqualificationRecorded, bool) {
	for _, p := range r.Periods {
		if r.Resolve(p.NationalID) == id && p.From <= date && date <= p.To {
			return p, true
		}
	}
	return events.DisqualificationRecorded{}, false
}
