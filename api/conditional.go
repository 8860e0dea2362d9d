package api

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
)

// parseIfMatch reads the If-Match field lines into the condition a command
// is submitted with: "*" or a comma-separated list of strong entity tags,
// each a seq in double quotes. A weak tag
// (W/"3") is refused: If-Match compares strongly, so it could never match,
// and reading it as strong would act on a condition the client did not
// state. So is an unquoted one.
func parseIfMatch(lines []string) (*ledger.IfMatch, error) {
	bad := func(format string, args ...any) error {
		return &commands.FieldError{Field: "If-Match", Msg: fmt.Sprintf(format, args...) +
			`; send "*" or the tournament's seq as a quoted entity tag, e.g. "42" (the ETag of a 201)`}
	}
	v := strings.TrimSpace(strings.Join(lines, ","))
	if v == "*" {
		return &ledger.IfMatch{Any: true}, nil
	}
	c := &ledger.IfMatch{}
	for rest := v; ; {
		rest = strings.TrimLeft(rest, " \t")
		switch {
		case strings.HasPrefix(rest, ","): // empty list elements are allowed
			rest = rest[1:]
			continue
		case rest == "":
			if len(c.Seqs) == 0 {
				return nil, bad("names no entity tag")
			}
			return c, nil
		case rest[0] == '*':
			return nil, bad(`"*" stands alone, not in a list`)
		case strings.HasPrefix(rest, "W/"):
			return nil, bad("%s is a weak entity tag, which If-Match never matches (RFC 9110 §13.1.1)", firstTag(rest))
		case rest[0] != '"':
			return nil, bad("%s is not a quoted entity tag", firstTag(rest))
		}
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return nil, bad("%s is not a quoted entity tag: the closing quote is missing", firstTag(rest))
		}
		tag := rest[1 : 1+end]
		seq, err := strconv.ParseUint(tag, 10, 64)
		if err != nil {
			return nil, bad("%q is not a seq", tag)
		}
		c.Seqs = append(c.Seqs, seq)
		rest = strings.TrimLeft(rest[end+2:], " \t")
		if rest != "" && rest[0] != ',' {
			return nil, bad("entity tags are separated by a comma")
		}
	}
}

// firstTag is the list element rest starts with, for a message.
func firstTag(rest string) string {
	if i := strings.IndexByte(rest, ','); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}
