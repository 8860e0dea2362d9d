package registry

import (
	"github.com/referto/referto/commands"
	"github.com/referto/referto/projections"
)

// Store lists the tournaments the hub holds (*store.Store in a node).
type Store interface {
	Tournaments() ([]string, error)
}

// TournamentReader reads a tournament's state (*store.Runner in a node).
type TournamentReader interface {
	Read(t string, fn func(*projections.Tournament)) bool
}

// NewRoster is the commands.Roster of a hub's projections: every
// tournament they hold, served yet or not.
func NewRoster(store Store, state TournamentReader) commands.Roster { return roster{store, state} }

type roster struct {
	store Store
	state TournamentReader
}

func (r roster) Tournament(t string) bool {
	return r.state.Read(t, func(*projections.Tournament) {})
}

func (r roster) Player(t, p string) (nationalID string, ok bool) {
	r.state.Read(t, func(st *projections.Tournament) {
		if pl := st.Players[p]; pl != nil {
			nationalID, ok = pl.NationalID, true
		}
	})
	return nationalID, ok
}

func (r roster) NationalID(id string) bool {
	ids, err := r.store.Tournaments()
	if err != nil {
		return false
	}
	found := false
	for _, t := range ids {
		r.state.Read(t, func(st *projections.Tournament) {
			for _, pl := range st.Players {
				if pl.NationalID == id {
					found = true
					return
				}
			}
		})
		if found {
			return true
		}
	}
	return false
}
