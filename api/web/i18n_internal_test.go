package web

import (
	"regexp"
	"slices"
	"testing"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestEveryVocabularyWordHasALabel: every word of the ledger's
// vocabularies the pages may show (a phase, a player's status, a way a
// game or a player's game ends, a sanction, a ruleset's choices, an
// official's role, a contestation's effect, where a proposal stands) has
// its own label in every language, keyed by its constant, so that a word
// added to events is not shown raw.
func TestEveryVocabularyWordHasALabel(t *testing.T) {
	var words []string
	add := func(prefix string, ws ...string) {
		for _, w := range ws {
			words = append(words, prefix+w)
		}
	}
	add("", strs(events.Phases())...)
	add("", strs(events.PlayerStatuses())...)
	add("", strs(events.Closings())...)
	add("", strs(events.SeatStatuses())...)
	add("", strs(events.SanctionKinds())...)
	add("", events.WithdrawalReasons()...)
	add("", events.OfficialRoles()...)
	add("formula_", strs(events.Formulas())...)
	add("knockout_", strs(events.Knockouts())...)
	add("tiechain_", strs(events.TieChains())...)
	add("tieattop_", strs(events.TieAtTops())...)
	add("tiebreak_", strs(events.Tiebreaks())...)
	add("drawalg_", strs(events.DrawMethods())...)
	add("regime_", strs(events.Regimes())...)
	add("contestby_", strs(events.ContestBys())...)
	add("annulment_", events.AnnulNextRound, events.AnnulNone)
	add("disq_", events.DisqualifiedLast, events.DisqualifiedWithdrawn, events.DisqualifiedGame)
	add("rulings_", events.RulingsArbiters, events.RulingsAppeals)
	add("selfreport_", events.SelfReportArbiter, events.SelfReportConfirmed)
	add("effect_", commands.Effects()...)
	add("code_", strs(problem.Codes())...)
	add("status_", strs([]projections.ProposalStatus{projections.ProposalPending, projections.ProposalReady, projections.ProposalDisputed,
		projections.ProposalFlagged, projections.ProposalRecorded})...)
	for code, c := range languages {
		for _, w := range words {
			if _, ok := c.file.Labels[w]; !ok {
				t.Errorf("%s: no label for %q", code, w)
			}
		}
	}
}

// TestParametersAreEveryParameter: the ruleset's parameters a page shows
// are the ledger's, each once.
func TestParametersAreEveryParameter(t *testing.T) {
	rs, _ := events.Preset(events.PresetRUR2015)
	var shown []string
	for _, p := range params("it", rs) {
		shown = append(shown, p.Key)
	}
	want := events.ParamNames()
	slices.Sort(shown)
	slices.Sort(want)
	if !slices.Equal(shown, want) {
		t.Errorf("the pages show parameters %v, want %v", shown, want)
	}
}

// identifierRE is a value that reads as a name in the code, not a word:
// snake_case, a dotted or CamelCase name.
var identifierRE = regexp.MustCompile(`^(?:[A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)$`)

// TestTheEnglishCatalogueSaysWordsNotIdentifiers: every English label
// and plural is a word or a sentence, never its key shown back (the
// ledger's constant, "finished", where a reader needs "in play at the
// end") nor a name that reads like code.
func TestTheEnglishCatalogueSaysWordsNotIdentifiers(t *testing.T) {
	en := languages["en"].file
	for key, value := range en.Labels {
		if value == key || identifierRE.MatchString(value) {
			t.Errorf("en label %q is %q: an identifier where words belong", key, value)
		}
	}
	for key, forms := range en.Plurals {
		for form, value := range forms {
			if value == key || identifierRE.MatchString(value) {
				t.Errorf("en plural %q (%s) is %q: an identifier where words belong", key, form, value)
			}
		}
	}
}
