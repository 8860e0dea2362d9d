package commands

import (
	"testing"

	"github.com/referto/referto/events"
)

// TestEveryKnockoutHasAFormat: the knockout ids a ruleset may name
// (events.Knockouts) are exactly the formats the registry plans, and every
// format cites its article and plans its phases.
func TestEveryKnockoutHasAFormat(t *testing.T) {
	for _, k := range events.Knockouts() {
		f, ok := knockouts[k]
		if !ok {
			t.Errorf("knockout %s has no format", k)
			continue
		}
		if f.rule == "" || f.phases == nil || f.cut == nil || f.plan == nil {
			t.Errorf("knockout %s: format incomplete: %+v", k, f)
		}
	}
	if got, want := len(knockouts), len(events.Knockouts()); got != want {
		t.Errorf("%d knockout formats, events lists %d", got, want)
	}
}
