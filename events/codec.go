package events

import "fmt"

// Event is one thing that happened in a tournament. Its stored type name and
// schema version are constants written by hand: renaming a Go type must not
// change the log. Event structs carry no storage fields; sequence, time and
// actor live in the Envelope.
type Event interface {
	EventType() string
	EventVersion() int
}

// decoder makes the event of its type: into decodes the event's data into
// the pointer it is given (from the stored bytes, or from the decoder
// reading a whole line).
type decoder func(into func(any) error) (Event, error)

func decodeAs[T Event](into func(any) error) (Event, error) {
	var ev T
	if err := into(&ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// lookup is the closed table from (type, version) to decoder. Adding a
// schema version adds a case; old versions keep decoding forever.
func lookup(typ string, v int) decoder {
	switch {
	case typ == TypeTournamentCreated && v == 1:
		return decodeAs[TournamentCreated]
	case typ == TypeRulesetAmended && v == 1:
		return decodeAs[RulesetAmended]
	case typ == TypeOfficialAppointed && v == 1:
		return decodeAs[OfficialAppointed]
	case typ == TypePlayerRegistered && v == 1:
		return decodeAs[PlayerRegistered]
	case typ == TypeRegistrationRefused && v == 1:
		return decodeAs[RegistrationRefused]
	case typ == TypeRegistrationClosed && v == 1:
		return decodeAs[RegistrationClosed]
	case typ == TypeReserveDesignated && v == 1:
		return decodeAs[ReserveDesignated]
	case typ == TypePlayerCheckedIn && v == 1:
		return decodeAs[PlayerCheckedIn]
	case typ == TypeReserveSubstituted && v == 1:
		return decodeAs[ReserveSubstituted]
	case typ == TypeTablesDrawn && v == 1:
		return decodeAs[TablesDrawn]
	case typ == TypeTurnOrderSet && v == 1:
		return decodeAs[TurnOrderSet]
	case typ == TypeResultRecorded && v == 1:
		return decodeAs[ResultRecorded]
	case typ == TypeTieBreakRolled && v == 1:
		return decodeAs[TieBreakRolled]
	case typ == TypeSanctionImposed && v == 1:
		return decodeAs[SanctionImposed]
	case typ == TypeRenounced && v == 1:
		return decodeAs[Renounced]
	case typ == TypeRepechaged && v == 1:
		return decodeAs[Repechaged]
	case typ == TypePlayerWithdrew && v == 1:
		return decodeAs[PlayerWithdrew]
	case typ == TypeSanctionRevoked && v == 1:
		return decodeAs[SanctionRevoked]
	case typ == TypeGameAnnulled && v == 1:
		return decodeAs[GameAnnulled]
	case typ == TypeClassificationPublished && v == 1:
		return decodeAs[ClassificationPublished]
	case typ == TypeTournamentClosed && v == 1:
		return decodeAs[TournamentClosed]
	case typ == TypeContestationFiled && v == 1:
		return decodeAs[ContestationFiled]
	case typ == TypeContestationRuled && v == 1:
		return decodeAs[ContestationRuled]
	case typ == TypeResultAmended && v == 1:
		return decodeAs[ResultAmended]
	}
	return nil
}

// Known reports whether the codec can decode (typ, v).
func Known(typ string, v int) bool { return lookup(typ, v) != nil }

// Decode returns the event an envelope carries. An unknown type or version
// is ErrUnknownEvent; data that does not match the schema is ErrCorrupt.
func Decode(env Envelope) (Event, error) {
	dec := lookup(env.Type, env.V)
	if dec == nil {
		return nil, fmt.Errorf("%w: %s v%d (event %s)", ErrUnknownEvent, env.Type, env.V, env.ID)
	}
	ev, err := dec(func(v any) error { return decodeStrict(env.Data, v) })
	if err != nil {
		return nil, fmt.Errorf("%w: event %s (%s v%d): %v", ErrCorrupt, env.ID, env.Type, env.V, err)
	}
	return ev, nil
}
