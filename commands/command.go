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
	// CommandType is the payload's "type": the one place a command's name
	// is spelled (the registry reads it).
	CommandType() string
	// Check validates the payload's fields without looking at any state.
	Check() error
	typeField() string
	// decide returns the events the command produces against t, or why it
	// is refused, once Decide has checked what every command shares.
	decide(t *projections.Tournament, in Input) ([]events.Event, error)
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

// spec is what the ledger knows of one command type besides its own
// decision: who may issue it and where it applies.
type spec struct {
	new func() Command
	// roles may issue it besides the administrator, who may issue every
	// command; none: the administrator's alone.
	roles []string
	// route, when set, is where the command is sent instead of the commands
	// endpoint (Types), as Parse's refusal says.
	route string
	// creates: decided against a tournament that does not exist yet.
	creates bool
	// afterClose: still decided once the tournament is closed.
	afterClose bool
	// narrowed says why a tournament's ruleset withholds the command from
	// role, or "" (nil: it never does).
	narrowed func(rs events.Ruleset, role string) string
}

// command is the spec of command type C.
func command[C any, P interface {
	*C
	Command
}](s spec) spec {
	s.new = func() Command { return P(new(C)) }
	return s
}

var (
	arbiters = []string{events.RoleArbiter}
	// A revocation is a ruling: the appeals committee's, or the arbiters'
	// own. A contestation is filed by an official on a player's behalf.
	// The arbiters rule on it too (rur-2015 art. 9: "giudica sulle
	// controversie"), unless the ruleset leaves rulings to the appeals
	// committee (rulingsLeftToAppeals): then neither a ruling on a
	// contestation nor a revocation is theirs.
	arbitersAndAppeals = []string{events.RoleArbiter, events.RoleAppeals}
	// A player's personal link proposes, confirms and disputes the report
	// of his own table (seatedAt), and nothing else.
	players = []string{events.RolePlayer}
)

// registry is the closed list of commands, in the order Types lists them.
// Parsing, permissions and Decide all read it.
var registry = []spec{
	command[CreateTournament](spec{route: "create tournaments with POST /v1/tournaments", creates: true}),
	command[AppointOfficial](spec{route: "appoint officials with POST /v1/tournaments/{t}/officials"}),
	command[AmendRuleset](spec{roles: arbiters}),
	command[AmendOrganizer](spec{roles: arbiters}),
	command[RecordWorkbookImport](spec{roles: arbiters}),
	command[RegisterPlayer](spec{roles: arbiters}),
	command[RefuseRegistration](spec{roles: arbiters}),
	command[CloseRegistration](spec{roles: arbiters}),
	command[DesignateReserve](spec{roles: arbiters}),
	command[CheckIn](spec{roles: arbiters}),
	command[SubstituteReserve](spec{roles: arbiters}),
	command[DrawTables](spec{roles: arbiters}),
	command[SetTurnOrder](spec{roles: arbiters}),
	command[RecordResult](spec{roles: arbiters}),
	command[RecordTieBreakRoll](spec{roles: arbiters}),
	command[Renounce](spec{roles: arbiters}),
	command[Repechage](spec{roles: arbiters}),
	command[Withdraw](spec{roles: arbiters}),
	command[ImposeSanction](spec{roles: arbiters}),
	command[RevokeSanction](spec{roles: arbitersAndAppeals, narrowed: rulingsLeftToAppeals}),
	command[AnnulGame](spec{roles: arbiters}),
	command[PublishClassification](spec{roles: arbiters}),
	command[CloseTournament](spec{roles: arbiters}),
	command[FileContestation](spec{roles: arbitersAndAppeals, afterClose: true}),
	command[RuleContestation](spec{roles: arbitersAndAppeals, afterClose: true, narrowed: rulingsLeftToAppeals}),
	command[IssuePlayerTokens](spec{roles: arbiters, route: "issue personal links with POST /v1/tournaments/{t}/player-tokens"}),
	command[RevokePlayerToken](spec{roles: arbiters}),
	command[ProposeResult](spec{roles: players}),
	command[ConfirmProposal](spec{roles: players}),
	command[DisputeProposal](spec{roles: players}),
}

// specs indexes the registry by command type; types lists those accepted
// at the commands endpoint.
var specs, types = func() (map[string]*spec, []string) {
	byType := make(map[string]*spec, len(registry))
	var types []string
	for i := range registry {
		s := &registry[i]
		typ := s.new().CommandType()
		if byType[typ] != nil {
			panic("commands: " + typ + " registered twice")
		}
		byType[typ] = s
		if s.route == "" {
			types = append(types, typ)
		}
	}
	return byType, types
}()

// TypeOf is the type of command C, as CommandType says it: for code that
// names a command without a payload at hand (a permission, a metric).
func TypeOf[C any, P interface {
	*C
	Command
}]() string {
	return P(new(C)).CommandType()
}

// newCommand returns a zero command of the named type, or nil.
func newCommand(typ string) Command {
	if s := specs[typ]; s != nil {
		return s.new()
	}
	return nil
}

// Types lists the command types accepted at the commands endpoint.
func Types() []string { return slices.Clone(types) }

// Permitted reports whether role may issue commands of type typ in some
// tournament; the tournament's ruleset may narrow it (PermittedUnder).
func Permitted(role, typ string) bool {
	s := specs[typ]
	if s == nil {
		return false
	}
	return role == events.RoleAdmin || slices.Contains(s.roles, role)
}

// PermittedUnder reports whether role may issue commands of type typ in a
// tournament played under rs.
func PermittedUnder(rs events.Ruleset, role, typ string) bool {
	return Permitted(role, typ) && rulesetForbids(rs, role, typ) == ""
}

// rulesetForbids says why the ruleset withholds commands of type typ from
// role, or "".
func rulesetForbids(rs events.Ruleset, role, typ string) string {
	if s := specs[typ]; s != nil && s.narrowed != nil {
		return s.narrowed(rs, role)
	}
	return ""
}

// rulingsLeftToAppeals: a ruleset may leave rulings to the appeals
// committee alone (docs/rules.md#132-pinned-who-rules, rulings: appeals):
// the ruling on a contestation, and the revocation of a sanction, which is
// a ruling too (RevokeSanction).
func rulingsLeftToAppeals(rs events.Ruleset, role string) string {
	if !rs.ArbitersRule() && role != events.RoleAppeals && role != events.RoleAdmin {
		return fmt.Sprintf("role %s may not rule in this tournament (on a contestation, or by revoking a sanction): its ruleset (rulings: appeals) leaves rulings to the appeals committee (docs/rules.md#132-pinned-who-rules)", orNone(role))
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
	s := specs[cmd.CommandType()]
	if s == nil {
		return nil, fieldErr("type", "no decision for %s", cmd.CommandType())
	}
	if s.creates {
		return cmd.decide(t, in)
	}
	if !t.Exists() {
		return nil, notFound("tournament %s", t.ID)
	}
	// The role's permission is checked where the request arrives
	// (Permitted); what the tournament's ruleset narrows needs the state.
	if why := rulesetForbids(t.Ruleset, in.Actor.Role, cmd.CommandType()); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrForbidden, why)
	}
	if t.Closed && !s.afterClose {
		return nil, ruleErr("docs/rules.md#13-contestation", "the tournament is closed: only contestations and their rulings change it now")
	}
	return cmd.decide(t, in)
}
