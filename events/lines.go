package events

import (
	"bytes"
	"fmt"
)

// CommitLines calls fn with each stored line of a commit body, in order,
// without its newline (the line is the event's Merkle leaf and its line in
// an export; it aliases body). A body whose last line is not
// newline-terminated is ErrCorrupt, naming the line; fn's error stops the
// walk and is returned as it is.
//
// It is the one loop that splits a commit: decoding (DecodeCommit), the
// export and the restored log's check walk commits through it.
func CommitLines(body []byte, fn func(line []byte) error) error {
	for n := 1; len(body) > 0; n++ {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			return fmt.Errorf("%w: line %d is not newline-terminated", ErrCorrupt, n)
		}
		if err := fn(body[:i:i]); err != nil {
			return err
		}
		body = body[i+1:]
	}
	return nil
}
