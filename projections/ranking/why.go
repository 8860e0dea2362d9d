package ranking

import "fmt"

// Why says why a tournament or a result does not count: a code (one of the
// Why… constants), its arguments, and the English text they make. The
// web UI says it again in the page's language, by the code.
type Why struct {
	Text string   `json:"why,omitempty"`
	Code string   `json:"why_code,omitempty"`
	Args []string `json:"why_args,omitempty"`
}

// The reasons a tournament or a result does not count.
const (
	WhyNoFinal        = "no_final"        // no final classification published
	WhyNoType         = "no_type"         // no tournament type recorded
	WhyNoThresholds   = "no_thresholds"   // type, thresholds file
	WhyFewTables      = "few_tables"      // tables, type, min tables, season
	WhyHeld           = "held"            // the hub's detail
	WhyQuarantined    = "quarantined"     // the hub's detail
	WhyUnverified     = "unverified"      // no checkpoint verified at the hub
	WhyPastCheckpoint = "past_checkpoint" // publication's seq, events verified
	WhyNoNationalID   = "no_national_id"  // no national id
	WhyDisqualified   = "disqualified"    // from, to, reason
	WhyRoundsCap      = "rounds_cap"      // max rounds, type, rounds taken
	WhyPastBest       = "past_best"       // results taken, type
)

// whyText is the English of each code, its arguments numbered.
var whyText = map[string]string{
	WhyNoFinal:        "no final classification published",
	WhyNoType:         "no tournament type recorded",
	WhyNoThresholds:   "%[1]s has no thresholds in %[2]s",
	WhyFewTables:      "too few tables: %[1]s, %[2]s needs %[3]s in %[4]s",
	WhyHeld:           "held at the hub: %[1]s",
	WhyQuarantined:    "quarantined at the hub: %[1]s",
	WhyUnverified:     "no checkpoint of its log verified at the hub yet",
	WhyPastCheckpoint: "its final classification (event %[1]s) is past the last checkpoint the hub verified (%[2]s events)",
	WhyNoNationalID:   "no national id",
	WhyDisqualified:   "disqualification period %[1]s..%[2]s: %[3]s",
	WhyRoundsCap:      "past the cap of %[1]s rounds of %[2]s (%[3]s taken)",
	WhyPastBest:       "past the best %[1]s of %[2]s",
}

// WhyCodes lists every reason's code, for the pages that translate them.
func WhyCodes() []string {
	return []string{WhyNoFinal, WhyNoType, WhyNoThresholds, WhyFewTables, WhyHeld, WhyQuarantined, WhyUnverified,
		WhyPastCheckpoint, WhyNoNationalID, WhyDisqualified, WhyRoundsCap, WhyPastBest}
}

// Because is the reason code with its arguments (each formatted with %v).
func Because(code string, args ...any) Why {
	w := Why{Code: code}
	for _, a := range args {
		w.Args = append(w.Args, fmt.Sprint(a))
	}
	w.Text = w.Format(whyText[code])
	return w
}

// Format renders the reason's arguments into format, a translation of its
// code's text that numbers them alike (%[1]s …).
func (w Why) Format(format string) string {
	args := make([]any, len(w.Args))
	for i, a := range w.Args {
		args[i] = a
	}
	return fmt.Sprintf(format, args...)
}

// None reports whether there is no reason: the thing counts.
func (w Why) None() bool { return w.Code == "" && w.Text == "" }
