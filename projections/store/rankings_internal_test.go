package store

import "testing"

// TestRankingsStayStaleThroughAFoldDuringARanking: rankings written are no
// longer stale, unless a commit of their tournament was folded (or changed
// them) while they were being ranked: the ranking may not have it.
func TestRankingsStayStaleThroughAFoldDuringARanking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		during func(k *rankings)
		stale  bool
	}{
		{"nothing folded meanwhile", func(*rankings) {}, false},
		{"a commit folded meanwhile", func(k *rankings) { k.folding("alpha") }, true},
		{"the rankings changed meanwhile", func(k *rankings) { k.changed("alpha") }, true},
		{"another tournament changed meanwhile", func(k *rankings) { k.changed("beta") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newRankings(nil)
			if k.Stale("alpha") {
				t.Fatal("stale before any change")
			}
			k.folding("alpha") // a commit that does not change the rankings
			if k.Stale("alpha") {
				t.Fatal("a fold alone made the rankings stale")
			}
			k.changed("alpha")
			if !k.Stale("alpha") {
				t.Fatal("changed rankings not stale")
			}
			gens := k.pending(nil)
			tc.during(k)
			k.written(rankingWrite{gens: gens, rankings: map[string][]byte{string(keyStandings("alpha")): []byte("[]")}})
			if got := k.Stale("alpha"); got != tc.stale {
				t.Errorf("Stale after the write = %v, want %v", got, tc.stale)
			}
			// What was written is served from memory, without the store.
			if b, ok, err := k.Ranking("alpha", false); err != nil || !ok || string(b) != "[]" {
				t.Errorf("Ranking = %q %v %v, want what was written", b, ok, err)
			}
		})
	}
}

// TestRankingsPendingOnly: pending gives the stale tournaments among
// those asked, every stale one when none is named.
func TestRankingsPendingOnly(t *testing.T) {
	k := newRankings(nil)
	k.changed("alpha")
	k.changed("beta")
	if got := k.pending(nil); len(got) != 2 {
		t.Errorf("pending(nil) = %v, want alpha and beta", got)
	}
	got := k.pending([]string{"beta", "gamma"})
	if _, ok := got["beta"]; !ok || len(got) != 1 {
		t.Errorf("pending(beta, gamma) = %v, want beta alone", got)
	}
	if _, ok := k.oldest(); !ok {
		t.Error("oldest reports nothing stale")
	}
}
