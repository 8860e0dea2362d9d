package replay

import (
	"strings"
	"testing"
	"time"
)

// TestReportPrint: every check on its line, and the verdict the report
// earns: OK with the events and the time, FAILED at the most specific
// line, NOT VERIFIED when only the key is missing.
func TestReportPrint(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  Report
		ok   bool
		want []string
	}{
		{"ok", Report{Checks: []Check{{OK: true, What: "root"}, {OK: true, Line: 3, What: "draw"}}}, true,
			[]string{"ok   root", "ok   line 3: draw", "verdict: OK (9 events, 1.5s)"}},
		{"failed", Report{Checks: []Check{{OK: false, Line: 2, Upto: 5, What: "a changed line"}, {OK: false, Line: 4, What: "link broken"}}}, false,
			[]string{"FAIL lines 2..5: a changed line", "FAIL line 4: link broken", "verdict: FAILED at line 4 of x.ndjson: link broken"}},
		{"unsigned", Report{Unsigned: true, Checks: []Check{{OK: true, What: "root"}, {OK: false, What: "no key"}}}, false,
			[]string{"FAIL no key", "verdict: NOT VERIFIED: x.ndjson agrees with itself"}},
	} {
		var b strings.Builder
		if ok := tc.rep.Print(&b, "x.ndjson", 9, 1500*time.Millisecond); ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: printed\n%s\nwithout %q", tc.name, b.String(), w)
			}
		}
	}
}
