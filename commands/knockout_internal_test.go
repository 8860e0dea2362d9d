package commands

import (
	"strings"
	"testing"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
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
		if len(f.rules) == 0 || f.phases == nil || f.cut == nil || f.plan == nil {
			t.Errorf("knockout %s: format incomplete: %+v", k, f)
		}
	}
	if got, want := len(knockouts), len(events.Knockouts()); got != want {
		t.Errorf("%d knockout formats, events lists %d", got, want)
	}
}

// TestUnknownKnockoutPlaysNone: a ruleset that skipped validation (a forged
// log under verification) with a knockout id no format has is refused as
// one without knockout, not a panic.
func TestUnknownKnockoutPlaysNone(t *testing.T) {
	st := projections.New("t")
	st.Ruleset = events.Ruleset{Knockout: "nonesuch", QualifyingRounds: 2}
	if got := knockoutPhases(st); got != nil {
		t.Errorf("phases %v, want none", got)
	}
	if _, err := planKnockout(st, 3); err == nil || !strings.Contains(err.Error(), "no knockout phase") {
		t.Errorf("planKnockout: got %v, want no knockout phase", err)
	}
}
