package commands

import (
	"slices"
	"testing"

	"github.com/referto/referto/events"
)

// TestEveryOffenceHasItsRule: the offence list is spelled once, in events
// (the API and the web UI read it there); the rur regime must give each a
// rule, and nothing else, or an offence would pass the field check and
// then do nothing.
func TestEveryOffenceHasItsRule(t *testing.T) {
	for _, o := range events.Offences() {
		r, ok := rurOffences[o]
		if !ok {
			t.Errorf("offence %q has no rule in the rur regime", o)
			continue
		}
		if len(r.kinds) == 0 && len(r.ladder) == 0 || r.says == "" {
			t.Errorf("offence %q: a rule needs its sanctions and the sentence deciding them", o)
		}
	}
	for o := range rurOffences {
		if !slices.Contains(events.Offences(), o) {
			t.Errorf("rule for %q, which is not an offence a command may name", o)
		}
	}
}
