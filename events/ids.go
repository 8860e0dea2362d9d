package events

import "fmt"

// MaxIDLen is the longest tournament, player or official id.
const MaxIDLen = 64

// ValidID reports whether s matches [a-z0-9][a-z0-9-]{0,63}. Tournament ids
// become part of a NATS subject, so anything else (".", "*", ">") could
// address another tournament's events and must never reach the log.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0:
		default:
			return false
		}
	}
	return true
}

// CheckID returns an error wrapping ErrInvalidID naming the field when s is
// not a valid id.
func CheckID(field, s string) error {
	if !ValidID(s) {
		return fmt.Errorf("%w: %s %q must match [a-z0-9][a-z0-9-]{0,63}", ErrInvalidID, field, s)
	}
	return nil
}
