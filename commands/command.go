package commands

import (
	"fmt"
	"slices"
	"time"

	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Command is one request to change a tournament.
type Command interface {
	// CommandType is the payload's "type".
	CommandType() string
	// Check validates the payload's fields without looking at any state.
	Check() error
	typeField() string
}

// Input is everything outside the command that a decision may depend on.
// It is injected so that Decide stays pure and replayable.
type Input struct {
	// Now is the server time of the command.
	Now time.Time
	// Actor is the official issuing the command.
	Actor events.Actor
	// Seed is the randomness for draws, recorded in the events it shapes.
	Seed string
	// Draw, when set, runs a table draw in place of draw.Draw. An auditor
	// re-deciding a recorded draw passes one that keeps the request and
	// answers with the recorded result (RecordedDraw), so that the search
	// itself can be re-run elsewhere, beside the fold (replay.Verify).
	// The request's Entrants and Past are made for the call and shared
	// with nothing; its other slices may be the state's.
	Draw func(draw.Request) (draw.Result, error)
}

// newCommand returns a zero command of the named type, or nil. This is the
// closed list of commands the API accepts.
func newCommand(typ string) Command {
	switch typ {
	case "CreateTournament":
		return &CreateTournament{}
	case "AmendRuleset":
		return &AmendRuleset{}
	case "AppointOfficial":
		return &AppointOfficial{}
	case "RegisterPlayer":
		return &RegisterPlayer{}
	case "RefuseRegistration":
		return &RefuseRegistration{}
	case "CloseRegistration":
		return &CloseRegistration{}
	case "DesignateReserve":
		return &DesignateReserve{}
	case "CheckIn":
		return &CheckIn{}
	case "SubstituteReserve":
		return &SubstituteReserve{}
	case "DrawTables":
		return &DrawTables{}
	case "SetTurnOrder":
		return &SetTurnOrder{}
	case "RecordResult":
		return &RecordResult{}
	case "RecordTieBreakRoll":
		return &RecordTieBreakRoll{}
	case "Renounce":
		return &Renounce{}
	case "Repechage":
		return &Repechage{}
	case "Withdraw":
		return &Withdraw{}
	case "ImposeSanction":
		return &ImposeSanction{}
	case "RevokeSanction":
		return &RevokeSanction{}
	case "AnnulGame":
		return &AnnulGame{}
	case "PublishClassification":
		return &PublishClassification{}
	case "CloseTournament":
		return &CloseTournament{}
	case "FileContestation":
		return &FileContestation{}
	case "RuleContestation":
		return &RuleContestation{}
	}
	return nil
}

// Types lists the command types accepted at the commands endpoint.
func Types() []string {
	return []string{"AmendRuleset", "RegisterPlayer", "RefuseRegistration", "CloseRegistration", "DesignateReserve",
		"CheckIn", "SubstituteReserve", "DrawTables", "SetTurnOrder", "RecordResult", "RecordTieBreakRoll",
		"Renounce", "Repechage", "Withdraw", "ImposeSanction", "RevokeSanction", "AnnulGame",
		"PublishClassification", "CloseTournament", "FileContestation", "RuleContestation"}
}

// permissions is who may issue what. The administrator may issue every
// command; CreateTournament and AppointOfficial are the administrator's alone.
func permitted(typ string) []string {
	switch typ {
	case "CreateTournament", "AppointOfficial":
		return nil
	case "AmendRuleset", "RegisterPlayer", "RefuseRegistration", "CloseRegistration", "DesignateReserve",
		"CheckIn", "SubstituteReserve", "DrawTables", "SetTurnOrder", "RecordResult", "RecordTieBreakRoll",
		"Renounce", "Repechage", "Withdraw", "ImposeSanction", "AnnulGame", "PublishClassification", "CloseTournament":
		return []string{events.RoleArbiter}
	case "RevokeSanction", "FileContestation", "RuleContestation":
		// A revocation is a ruling: the appeals committee's, or the arbiters'
		// own. A contestation is filed by an official on a player's behalf.
		// The arbiters rule on it too (rur-2015 art. 9: "giudica sulle
		// controversie"), unless the ruleset leaves it to the appeals
		// committee (rulesetForbids).
		return []string{events.RoleArbiter, events.RoleAppeals}
	}
	return nil
}

// Permitted reports whether role may issue commands of type typ in some
// tournament; the tournament's ruleset may narrow it (PermittedUnder).
func Permitted(role, typ string) bool {
	if newCommand(typ) == nil {
		return false
	}
	return role == events.RoleAdmin || slices.Contains(permitted(typ), role)
}

// PermittedUnder reports whether role may issue commands of type typ in a
// tournament played under rs.
func PermittedUnder(rs events.Ruleset, role, typ string) bool {
	return Permitted(role, typ) && rulesetForbids(rs, role, typ) == ""
}

// rulesetForbids says why the ruleset withholds commands of type typ from
// role, or "": only rulings, which a ruleset may leave to the appeals
// committee alone (docs/rules.md#13-contestation, rulings: appeals).
func rulesetForbids(rs events.Ruleset, role, typ string) string {
	if typ == "RuleContestation" && !rs.ArbitersRule() && role != events.RoleAppeals && role != events.RoleAdmin {
		return fmt.Sprintf("role %s may not rule on a contestation in this tournament: its ruleset (rulings: appeals) leaves rulings to the appeals committee (docs/rules.md#13-contestation)", orNone(role))
	}
	return ""
}

func orNone(role string) string {
	if role == "" {
		return "(none)"
	}
	return role
}

// Decide returns the events that command produces against state t, or why
// it is refused. t is the tournament named by the request: projections.New
// (Seq 0) when it does not exist yet. Decide never modifies t.
func Decide(t *projections.Tournament, cmd Command, in Input) ([]events.Event, error) {
	// Parse checks fields already; callers that build commands in Go (the
	// simulator, what-if) must not bypass the checks.
	if err := cmd.Check(); err != nil {
		return nil, err
	}
	if c, ok := cmd.(*CreateTournament); ok {
		return c.decide(t)
	}
	if !t.Exists() {
		return nil, notFound("tournament %s", t.ID)
	}
	// The role's permission is checked where the request arrives
	// (Permitted); what the tournament's ruleset narrows needs the state.
	if why := rulesetForbids(t.Ruleset, in.Actor.Role, cmd.CommandType()); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrForbidden, why)
	}
	switch cmd.(type) {
	case *FileContestation, *RuleContestation:
	default:
		if t.Closed {
			return nil, ruleErr("docs/rules.md#13-contestation", "the tournament is closed: only contestations and their rulings change it now")
		}
	}
	switch c := cmd.(type) {
	case *AmendRuleset:
		return c.decide(t)
	case *AppointOfficial:
		return c.decide(t)
	case *RegisterPlayer:
		return c.decide(t)
	case *RefuseRegistration:
		return c.decide(t)
	case *CloseRegistration:
		return c.decide(t)
	case *DesignateReserve:
		return c.decide(t)
	case *CheckIn:
		return c.decide(t)
	case *SubstituteReserve:
		return c.decide(t)
	case *DrawTables:
		return c.decide(t, in)
	case *SetTurnOrder:
		return c.decide(t)
	case *RecordResult:
		return c.decide(t)
	case *RecordTieBreakRoll:
		return c.decide(t)
	case *Renounce:
		return c.decide(t)
	case *Repechage:
		return c.decide(t)
	case *Withdraw:
		return c.decide(t)
	case *ImposeSanction:
		return c.decide(t, in)
	case *RevokeSanction:
		return c.decide(t)
	case *AnnulGame:
		return c.decide(t)
	case *PublishClassification:
		return c.decide(t)
	case *CloseTournament:
		return c.decide(t)
	case *FileContestation:
		return c.decide(t, in)
	case *RuleContestation:
		return c.decide(t, in)
	}
	return nil, fieldErr("type", "no decision for %s", cmd.CommandType())
}
