package web

import (
	"testing"

	"github.com/referto/referto/events"
)

// TestEveryVocabularyWordHasALabel: every phase, player status and way a
// game ends the pages may show has its own label in every language, so that
// a word added to events is not shown raw.
func TestEveryVocabularyWordHasALabel(t *testing.T) {
	var words []string
	for _, p := range events.Phases() {
		words = append(words, string(p))
	}
	for _, s := range events.PlayerStatuses() {
		words = append(words, string(s))
	}
	for _, c := range events.Closings() {
		words = append(words, string(c))
	}
	for lang, l := range labels {
		for _, w := range words {
			if _, ok := l[w]; !ok {
				t.Errorf("%s: no label for %q", lang, w)
			}
		}
	}
}
