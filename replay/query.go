package replay

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// Query is what an appeals committee asks of a log (referto replay): the
// tournament as it stood at an event, what changed between two events as
// recorded, or what corrections would change.
type Query struct {
	// At is the event the tournament is taken at; 0 is the end of the log.
	At uint64
	// From and To, when To is set, ask what changed between the two
	// events (Diff), From < To.
	From, To uint64
	// WhatIf asks what Corrections, applied in memory after event At,
	// would change (WhatIf).
	WhatIf      bool
	Corrections []json.RawMessage
	// Top is how many rows of standings and classification the
	// tournament is printed with (PrintState).
	Top int
}

// ParseRange reads a range of events written A..B, A < B.
func ParseRange(s string) (from, to uint64, ok bool) {
	a, b, ok := strings.Cut(s, "..")
	from, err1 := strconv.ParseUint(a, 10, 64)
	to, err2 := strconv.ParseUint(b, 10, 64)
	return from, to, ok && err1 == nil && err2 == nil && from < to
}

// Answer reads the log sc reads, which it closes, and returns the answer
// to q, to print.
func (q Query) Answer(sc *Scanner) (print func(io.Writer), err error) {
	switch {
	case q.To != 0:
		d, err := Diff(sc, q.From, q.To)
		if err != nil {
			return nil, err
		}
		return d.Print, nil
	case q.WhatIf:
		res, err := WhatIf(sc, q.At, q.Corrections)
		if err != nil {
			return nil, err
		}
		return res.Print, nil
	}
	st, err := Fold(sc, q.At)
	if err != nil {
		return nil, err
	}
	return func(w io.Writer) { PrintState(w, st, q.Top) }, nil
}
