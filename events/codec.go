package events

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

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

// codecKey is a stored event's type name and schema version.
type codecKey struct {
	typ string
	v   int
}

// codec is the closed table from (type, version) to decoder. Each entry
// takes its type name and version from the event type's own constants, so
// a name is spelled once. Adding a schema version adds an entry (a type of
// its own for the old shape); old versions keep decoding forever.
var codec = codecTable(
	decoderOf[TournamentCreated],
	decoderOf[RulesetAmended],
	decoderOf[OfficialAppointed],
	decoderOf[PlayerRegistered],
	decoderOf[RegistrationRefused],
	decoderOf[RegistrationClosed],
	decoderOf[ReserveDesignated],
	decoderOf[PlayerCheckedIn],
	decoderOf[ReserveSubstituted],
	decoderOf[TablesDrawn],
	decoderOf[TurnOrderSet],
	decoderOf[ResultRecorded],
	decoderOf[TieBreakRolled],
	decoderOf[SanctionImposed],
	decoderOf[Renounced],
	decoderOf[Repechaged],
	decoderOf[PlayerWithdrew],
	decoderOf[SanctionRevoked],
	decoderOf[GameAnnulled],
	decoderOf[ClassificationPublished],
	decoderOf[TournamentClosed],
	decoderOf[ContestationFiled],
	decoderOf[ContestationRuled],
	decoderOf[ResultAmended],
	decoderOf[PlayerTokenIssued],
	decoderOf[PlayerTokenRevoked],
	decoderOf[ResultProposed],
	decoderOf[ProposalConfirmed],
	decoderOf[ProposalDisputed],
	decoderOf[NationalIDLinked],
	decoderOf[PlayersMerged],
	decoderOf[DisqualificationRecorded],
	decoderOf[OrganizerDeclared],
	decoderOf[WorkbookImported],
	decoderOf[ClassificationImported],
)

// decoderOf is T's entry in the codec.
func decoderOf[T Event]() (codecKey, decoder) {
	var ev T
	return codecKey{ev.EventType(), ev.EventVersion()}, decodeAs[T]
}

func codecTable(entries ...func() (codecKey, decoder)) map[codecKey]decoder {
	out := make(map[codecKey]decoder, len(entries))
	for _, entry := range entries {
		k, dec := entry()
		if out[k] != nil {
			panic(fmt.Sprintf("events: %s v%d decoded twice", k.typ, k.v))
		}
		out[k] = dec
	}
	return out
}

// lookup returns the decoder of (typ, v), or nil.
func lookup(typ string, v int) decoder { return codec[codecKey{typ, v}] }

// lookupFor is lookup for a decoding that will only be folded
// (DecodeForFold) when fold is set.
func lookupFor(typ string, v int, fold bool) decoder {
	if fold && typ == TypeTablesDrawn && v == 1 {
		return decodeDrawnForFold
	}
	return lookup(typ, v)
}

// drawnForFold is a TablesDrawn whose inputs are read and not decoded: its
// own Inputs field hides the embedded one (the shallower field wins the
// name "inputs", in json/v2 as in Go).
type drawnForFold struct {
	TablesDrawn
	Inputs skippedValue `json:"inputs"`
}

func decodeDrawnForFold(into func(any) error) (Event, error) {
	var d drawnForFold
	if err := into(&d); err != nil {
		return nil, err
	}
	return d.TablesDrawn, nil
}

// skippedValue reads one JSON value, checking its syntax, and keeps nothing.
type skippedValue struct{}

// UnmarshalJSONFrom implements json/v2's UnmarshalerFrom.
func (skippedValue) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	_, err := dec.ReadValue()
	return err
}

// Known reports whether the codec can decode (typ, v).
func Known(typ string, v int) bool { return lookup(typ, v) != nil }

// Decode returns the event an envelope carries. An unknown type or version
// is ErrUnknownEvent; data that does not match the schema is ErrCorrupt.
func Decode(env Envelope) (Event, error) { return decode(env, false) }

// DecodeForFold is Decode for a caller that only folds the event into a
// projections.Tournament, which never reads what a draw records to be
// re-run: a TablesDrawn's inputs (every entrant and every earlier game,
// megabytes in a large tournament) are read as JSON but not decoded, and
// are left empty. Where Decode succeeds it returns the same event with
// Inputs zero; it refuses everything Decode refuses, with Decode's error,
// except inputs that are well-formed JSON of the wrong shape, which are
// left to whoever re-runs the draw (replay.Verify, with Decode).
func DecodeForFold(env Envelope) (Event, error) { return decode(env, true) }

func decode(env Envelope, fold bool) (Event, error) {
	dec := lookupFor(env.Type, env.V, fold)
	if dec == nil {
		return nil, fmt.Errorf("%w: %s v%d (event %s)", ErrUnknownEvent, env.Type, env.V, env.ID)
	}
	ev, err := dec(func(v any) error { return decodeStrict(env.Data, v) })
	if err != nil && fold {
		// Refused either way: say why as Decode says it (not in terms of
		// the type that skips the inputs, nor perhaps of another member).
		return decode(env, false)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: event %s (%s v%d): %v", ErrCorrupt, env.ID, env.Type, env.V, err)
	}
	return ev, nil
}
