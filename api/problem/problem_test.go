package problem_test

import (
	"slices"
	"testing"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/fault"
)

// TestTheTableAnswersEveryCode: the table is the spec: every code of the
// vocabulary, the ledger's two refinements and HTTP's own, each with its
// status, and nothing else.
func TestTheTableAnswersEveryCode(t *testing.T) {
	want := map[fault.Code]int{
		fault.Invalid:            400,
		fault.Unauthorized:       401,
		fault.Forbidden:          403,
		fault.NotFound:           404,
		problem.MethodNotAllowed: 405,
		fault.Conflict:           409,
		fault.PreconditionFailed: 412,
		problem.TooLarge:         413,
		fault.RuleViolation:      422,
		ledger.KeyReused:         422,
		problem.TooManyRequests:  429,
		problem.HeadersTooLarge:  431,
		fault.Internal:           500,
		fault.Unavailable:        503,
		ledger.LogDamaged:        503,
	}
	for _, c := range fault.Codes() {
		if _, ok := want[c]; !ok {
			t.Errorf("code %q of the vocabulary is not in the spec", c)
		}
	}
	codes := problem.Codes()
	for c, status := range want {
		if !slices.Contains(codes, c) {
			t.Errorf("the table has no %q", c)
		}
		p := problem.New(c, "d")
		if p.Status != status || p.Code != c || p.Type != "urn:referto:problem:"+string(c) || p.Title == "" {
			t.Errorf("%q: %d %q %q %q, want %d", c, p.Status, p.Code, p.Type, p.Title, status)
		}
		if got := problem.Status(c); got != status {
			t.Errorf("Status(%q) = %d, want %d", c, got, status)
		}
	}
	if len(codes) != len(want) {
		t.Errorf("the table has %d codes %v, want the %d of the spec", len(codes), codes, len(want))
	}
	if p := problem.New("no_such_code", "d"); p.Status != 500 || p.Code != fault.Internal {
		t.Errorf("an unknown code: %d %q, want 500 internal", p.Status, p.Code)
	}
}
