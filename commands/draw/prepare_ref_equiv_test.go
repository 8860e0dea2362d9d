//go:build drawref

package draw

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// TestPrepareMatchesRef compares prepare, metBefore, previousPlaces and lastTwoScores with
// their frozen pre-rewrite copies (prepare_ref_test.go) on generated requests: same error
// text, or the same validated request and the same derived per-entrant data, nil slices
// included.
func TestPrepareMatchesRef(t *testing.T) {
	var kinds [8]int
	for i := range prepCases() {
		req := genPrepRequest(i)
		want, wantErr := refPrepare(req)
		got, gotErr := prepare(req)
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
			t.Fatalf("case %d: prepare error %v, want %v", i, gotErr, wantErr)
		}
		if wantErr != nil {
			kinds[0]++
			for _, sentinel := range []error{ErrInput, ErrUnknownAlgorithm} {
				if errors.Is(wantErr, sentinel) != errors.Is(gotErr, sentinel) {
					t.Fatalf("case %d: prepare error %v: errors.Is(%v) differs", i, gotErr, sentinel)
				}
			}
			continue
		}
		if !reflect.DeepEqual(got.Request, want.Request) || !slices.Equal(got.entrants, want.entrants) ||
			!maps.Equal(got.index, want.index) || got.manualAs != want.manualAs {
			t.Fatalf("case %d: prepared request differs", i)
		}
		wantMet, wantErr := refMetBefore(want)
		gotMet, gotErr := got.metBefore()
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || errors.Is(gotErr, ErrInput) != errors.Is(wantErr, ErrInput) {
			t.Fatalf("case %d: metBefore error %v, want %v", i, gotErr, wantErr)
		}
		if !reflect.DeepEqual(gotMet, wantMet) {
			t.Fatalf("case %d: metBefore differs", i)
		}
		switch {
		case wantErr != nil:
			kinds[1]++
		case wantMet == nil:
			kinds[2]++
		default:
			kinds[3]++
		}
		if !slices.Equal(got.previousPlaces(), refPreviousPlaces(want)) {
			t.Fatalf("case %d: previousPlaces differs", i)
		}
		gl, gp := got.lastTwoScores()
		wl, wp := refLastTwoScores(want)
		if !slices.Equal(gl, wl) || !slices.Equal(gp, wp) {
			t.Fatalf("case %d: lastTwoScores differs", i)
		}
	}
	t.Logf("prepare errors %d, metBefore errors %d, nobody met %d, met %d", kinds[0], kinds[1], kinds[2], kinds[3])
	if kinds[0] < 20 || kinds[1] < 5 || kinds[2] < 5 || kinds[3] < 50 {
		t.Fatalf("generator coverage too thin: %v", kinds[:4])
	}
}
