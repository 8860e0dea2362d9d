package commands

import (
	"errors"
	"strings"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/ranking"
)

// The season registry's commands (docs/rules.md#15-the-national-ranking):
// what a national hub's administrator records beside the tournaments'
// logs, in the registry's own log. They are decided, as a tournament's
// commands are, against the registry folded so far (ranking.Registry) and
// what the hub holds of its tournaments (Roster), purely.

// RegistryCommand is one request to change a season registry.
type RegistryCommand interface {
	// CommandType is the payload's "type".
	CommandType() string
	// Check validates the payload's fields without looking at any state.
	Check() error
	typeField() string
	decideRegistry(reg *ranking.Registry, r Roster) (events.Event, error)
}

// Roster is what a registry command is decided against besides the
// registry: the tournaments the hub holds (whether it serves them yet or
// not) and their registrations.
type Roster interface {
	// Tournament reports whether the hub holds tournament t.
	Tournament(t string) bool
	// Player reports whether p is a player of tournament t (an entrant, a
	// reserve or a refused applicant alike), with the national id his
	// registration gave ("" when none).
	Player(t, p string) (nationalID string, ok bool)
	// NationalID reports whether some registration of a tournament the hub
	// holds gave national id id.
	NationalID(id string) bool
}

// registryCommands is the closed list of the registry's commands, in the
// order RegistryTypes lists them.
var registryCommands = []func() RegistryCommand{
	func() RegistryCommand { return new(LinkNationalID) },
	func() RegistryCommand { return new(MergePlayers) },
	func() RegistryCommand { return new(RecordDisqualification) },
}

// RegistryTypes lists the registry's command types.
func RegistryTypes() []string {
	var out []string
	for _, n := range registryCommands {
		out = append(out, n().CommandType())
	}
	return out
}

// ParseRegistry decodes a registry command payload {"type": ..., ...} as
// strictly as Parse decodes a tournament's.
func ParseRegistry(body []byte) (RegistryCommand, error) {
	typ, err := payloadType(body, RegistryTypes())
	if err != nil {
		return nil, err
	}
	var cmd RegistryCommand
	for _, n := range registryCommands {
		if c := n(); c.CommandType() == typ {
			cmd = c
		}
	}
	if cmd == nil {
		return nil, fieldErr("type", "unknown registry command type %q (known: %s)", typ, strings.Join(RegistryTypes(), ", "))
	}
	if err := decodeExact(body, cmd); err != nil {
		return nil, err
	}
	if err := cmd.Check(); err != nil {
		return nil, capErrs(err)
	}
	return cmd, nil
}

// DecideRegistry returns the event cmd records in a registry folded as
// reg, at a hub holding roster, or why it is refused: a *FieldError naming
// the field (a tournament or player the hub does not hold, a national id
// no registration gave nor the registry names, a merge into itself or
// into a chain that leads back, a period that ends before it starts), or
// ErrConflict for what is recorded already. reg is not modified.
func DecideRegistry(reg *ranking.Registry, roster Roster, cmd RegistryCommand) ([]events.Event, error) {
	if err := cmd.Check(); err != nil {
		return nil, err
	}
	ev, err := cmd.decideRegistry(reg, roster)
	if err != nil {
		return nil, err
	}
	return []events.Event{ev}, nil
}

// LinkNationalID links a tournament's player, registered without a national
// id or with a wrong one, to his national id.
type LinkNationalID struct {
	typed
	Tournament string `json:"tournament"`
	Player     string `json:"player"`
	NationalID string `json:"national_id"`
	Reason     string `json:"reason,omitempty"`
}

func (*LinkNationalID) CommandType() string { return "LinkNationalID" }

func (c *LinkNationalID) Check() error {
	return errors.Join(checkID("tournament", c.Tournament), checkID("player", c.Player), checkID("national_id", c.NationalID),
		checkText("reason", c.Reason, maxReason, false))
}

func (c *LinkNationalID) decideRegistry(reg *ranking.Registry, r Roster) (events.Event, error) {
	if !r.Tournament(c.Tournament) {
		return nil, fieldErr("tournament", "no tournament %s at this hub", c.Tournament)
	}
	registered, ok := r.Player(c.Tournament, c.Player)
	if !ok {
		return nil, fieldErr("player", "%s is no player of tournament %s", c.Player, c.Tournament)
	}
	now := registered
	if linked, ok := reg.Link(c.Tournament, c.Player); ok {
		now = linked
	}
	if now == c.NationalID {
		return nil, conflict("player %s of %s has national id %s already", c.Player, c.Tournament, c.NationalID)
	}
	return events.NationalIDLinked{Tournament: c.Tournament, Player: c.Player, NationalID: c.NationalID, Reason: clean(c.Reason)}, nil
}

// MergePlayers records that two national ids are one person: From's
// results are Into's.
type MergePlayers struct {
	typed
	From   string `json:"from"`
	Into   string `json:"into"`
	Reason string `json:"reason"`
}

func (*MergePlayers) CommandType() string { return "MergePlayers" }

func (c *MergePlayers) Check() error {
	errs := []error{checkID("from", c.From), checkID("into", c.Into), checkText("reason", c.Reason, maxReason, true)}
	if c.From != "" && c.From == c.Into {
		errs = append(errs, fieldErr("into", "is from, %s: a national id is not merged into itself", c.From))
	}
	return errors.Join(errs...)
}

func (c *MergePlayers) decideRegistry(reg *ranking.Registry, r Roster) (events.Event, error) {
	var errs []error
	for _, f := range []struct{ field, id string }{{"from", c.From}, {"into", c.Into}} {
		if !r.NationalID(f.id) && !reg.Names(f.id) {
			errs = append(errs, fieldErr(f.field, "no registration at this hub gave national id %s, nor does the registry name it", f.id))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if into, ok := reg.MergedInto(c.From); ok {
		return nil, conflict("national id %s is merged into %s already", c.From, into)
	}
	// From is merged into nothing: a chain of merges from Into that
	// passes through it ends there.
	if reg.Resolve(c.Into) == c.From {
		return nil, fieldErr("into", "%s is merged into %s already: merging %s into it makes a cycle", c.Into, c.From, c.From)
	}
	return events.PlayersMerged{From: c.From, Into: c.Into, Reason: clean(c.Reason)}, nil
}

// RecordDisqualification puts a national id on the blacklist from one day
// to another, both included: results of tournaments held then give no
// ranking score.
type RecordDisqualification struct {
	typed
	NationalID string `json:"national_id"`
	From       string `json:"from"`
	To         string `json:"to"`
	Reason     string `json:"reason"`
}

func (*RecordDisqualification) CommandType() string { return "RecordDisqualification" }

func (c *RecordDisqualification) Check() error {
	errs := []error{checkID("national_id", c.NationalID), checkText("reason", c.Reason, maxReason, true)}
	from, ferr := checkDate("from", c.From)
	to, terr := checkDate("to", c.To)
	errs = append(errs, ferr, terr)
	if ferr == nil && terr == nil && to.Before(from) {
		errs = append(errs, fieldErr("to", "%s is before from, %s: a period ends on or after the day it starts", c.To, c.From))
	}
	return errors.Join(errs...)
}

func (c *RecordDisqualification) decideRegistry(reg *ranking.Registry, _ Roster) (events.Event, error) {
	for _, p := range reg.Periods {
		if p.NationalID == c.NationalID && p.From == c.From && p.To == c.To {
			return nil, conflict("national id %s is disqualified from %s to %s already", c.NationalID, c.From, c.To)
		}
	}
	return events.DisqualificationRecorded{NationalID: c.NationalID, From: c.From, To: c.To, Reason: clean(c.Reason)}, nil
}

// checkDate reads a required day, YYYY-MM-DD.
func checkDate(field, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, fieldErr(field, "required: a day, YYYY-MM-DD")
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, fieldErr(field, "%q is no day: want YYYY-MM-DD", v)
	}
	return d, nil
}
