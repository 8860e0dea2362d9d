package replay_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/referto/referto/projections/ranking"
	"github.com/referto/referto/replay"
)

// TestSeasonThresholdsTheFileElseTheSeasonNamed: a season is ranked with
// the thresholds file given, else those shipped for the season its
// verified tournaments name; none named ranks nothing, and a season with
// no thresholds shipped is said.
func TestSeasonThresholdsTheFileElseTheSeasonNamed(t *testing.T) {
	named := &replay.SeasonReport{RankedFrom: []ranking.Tournament{{ID: "a"}, {ID: "b", Season: "2019"}, {ID: "c", Season: "2024"}}}
	th, err := named.Thresholds("")
	if err != nil || th == nil || th.Season != "2019" {
		t.Errorf("no file, tournaments naming 2019 first: %+v, %v; want the thresholds shipped for 2019", th, err)
	}

	file := filepath.Join(t.TempDir(), "season.json")
	b, err := os.ReadFile(filepath.Join("..", "projections", "ranking", "seasons", "2024.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if th, err := named.Thresholds(file); err != nil || th == nil || th.Season != "2024" || th.File != file {
		t.Errorf("--thresholds %s: %+v, %v; want the file's thresholds (2024)", file, th, err)
	}
	if _, err := named.Thresholds(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing thresholds file: %v, want it not found", err)
	}

	if th, err := (&replay.SeasonReport{RankedFrom: []ranking.Tournament{{ID: "a"}}}).Thresholds(""); th != nil || err != nil {
		t.Errorf("no season named: %+v, %v; want no thresholds and no error", th, err)
	}
	unshipped := &replay.SeasonReport{RankedFrom: []ranking.Tournament{{ID: "a", Season: "1999"}}}
	if th, err := unshipped.Thresholds(""); th != nil || !errors.Is(err, ranking.ErrThresholds) {
		t.Errorf("a season with no thresholds shipped: %+v, %v; want ranking.ErrThresholds", th, err)
	}
	if unshipped.Rank(nil, nil); unshipped.Ranking != nil {
		t.Errorf("ranked without thresholds: %+v", unshipped.Ranking)
	}
	if named.Rank(th, nil); named.Ranking == nil || named.Ranking.Season != th.Season {
		t.Errorf("ranked with the thresholds of %s: %+v", th.Season, named.Ranking)
	}
	var out bytes.Buffer
	if unshipped.PrintRanking(&out, 0); out.Len() != 0 {
		t.Errorf("no ranking printed as %q", out.String())
	}
	if named.PrintRanking(&out, 0); !strings.HasPrefix(out.String(), "ranking 2019 (thresholds projections/ranking/seasons/2019.json, sha256 ") {
		t.Errorf("the ranking printed as %q", out.String())
	}
}
