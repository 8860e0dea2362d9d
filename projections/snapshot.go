package projections

import (
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// snapshotOptions make a snapshot read back into the state it was written
// from, field for field: nil lists and maps stay nil (encoding/json's
// reading, which the rest of referto uses to show a state). A snapshot is
// written and read by referto alone, so names are not checked for
// duplicates and maps are not sorted: it is not a public document.
var snapshotOptions = jsonv2.JoinOptions(
	jsonv2.FormatNilSliceAsNull(true),
	jsonv2.FormatNilMapAsNull(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true), // as the events were read: a snapshot never fails on a string
	jsonv2.Deterministic(false),
)

// WriteSnapshot writes the state as JSON to w, streaming: however large
// the tournament, no buffer holds the whole encoding.
func (t *Tournament) WriteSnapshot(w io.Writer) error {
	return jsonv2.MarshalWrite(w, t, snapshotOptions)
}

// ReadSnapshot reads a state WriteSnapshot wrote (or encoding/json
// marshalled) for tournament id.
func ReadSnapshot(r io.Reader, id string) (*Tournament, error) {
	t := New(id)
	if err := jsonv2.UnmarshalRead(r, t, snapshotOptions); err != nil {
		return nil, fmt.Errorf("projections: snapshot of %s: %w", id, err)
	}
	if t.ID != id {
		return nil, fmt.Errorf("projections: snapshot of %s holds tournament %q", id, t.ID)
	}
	return t, nil
}
