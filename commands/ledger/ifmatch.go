package ledger

import (
	"strconv"
	"strings"
)

// IfMatch is a command's condition on its tournament's seq, the entity tag
// of HTTP's If-Match (RFC 9110 §13.1.1): Any (the tournament exists, in
// whatever state) or a list of seqs, one of which must be the current. A
// command decided on another seq, or that loses a race for its tournament,
// is refused with ErrPrecondition instead of being decided again.
type IfMatch struct {
	Any  bool
	Seqs []uint64
}

// Matches reports whether a tournament at seq (0: none) meets the condition.
func (c *IfMatch) Matches(seq uint64) bool {
	if c.Any {
		return seq > 0
	}
	for _, s := range c.Seqs {
		if s == seq {
			return true
		}
	}
	return false
}

// String is the condition as an If-Match field value: "*" or quoted seqs.
func (c *IfMatch) String() string {
	if c.Any {
		return "*"
	}
	tags := make([]string, len(c.Seqs))
	for i, s := range c.Seqs {
		tags[i] = strconv.Quote(strconv.FormatUint(s, 10))
	}
	return strings.Join(tags, ", ")
}
