package ranking

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/referto/referto/events"
)

// ErrThresholds reports a season file that cannot be used.
var ErrThresholds = errors.New("ranking: thresholds")

//go:embed seasons/*.json
var seasonFiles embed.FS

// TypeThresholds are one tournament type's thresholds in a season.
type TypeThresholds struct {
	// MinTables is the fewest tables a tournament of the type needs to count.
	MinTables int `json:"min_tables"`
	// MinTournaments is the fewest results of the type a player may sum.
	MinTournaments int `json:"min_tournaments"`
	// MaxPercentage is the share (percent) of the season's counted
	// tournaments of the type a player may sum, as written ("33.3").
	MaxPercentage json.Number `json:"max_percentage"`
	// MaxRounds, when set, replaces the count: results are summed best
	// first while the rounds of those taken are fewer than MaxRounds.
	MaxRounds int `json:"max_rounds,omitempty"`
	// milli is MaxPercentage in thousandths of a percent.
	milli int64
}

// Thresholds are a season file: each type's thresholds, and which file
// they came from.
type Thresholds struct {
	Season string                                   `json:"season"`
	Source string                                   `json:"source,omitempty"`
	Types  map[events.TournamentType]TypeThresholds `json:"types"`
	// File and SHA256 name the bytes read: what a ranking says it used.
	File   string `json:"-"`
	SHA256 string `json:"-"`
}

// Best is how many results of a type a player sums when count tournaments
// of it count in the season: max(MinTournaments, floor(count ×
// MaxPercentage / 100)).
func (t TypeThresholds) Best(count int) int {
	return max(t.MinTournaments, int(int64(count)*t.milli/100_000))
}

// Season reads the thresholds file shipped for season (seasons/<season>.json).
func Season(season string) (*Thresholds, error) {
	if !events.ValidID(season) {
		return nil, fmt.Errorf("%w: season %q is no season id", ErrThresholds, season)
	}
	name := "seasons/" + season + ".json"
	b, err := fs.ReadFile(seasonFiles, name)
	if err != nil {
		return nil, fmt.Errorf("%w: no thresholds file for season %s (have %s)", ErrThresholds, season, strings.Join(Seasons(), ", "))
	}
	return ParseThresholds("projections/ranking/"+name, b)
}

// Seasons lists the seasons a thresholds file is shipped for.
func Seasons() []string {
	var out []string
	entries, _ := fs.ReadDir(seasonFiles, "seasons")
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".json"))
	}
	return out
}

// ParseThresholds reads a season file named name: every type named must be
// a tournament type, with positive tables and tournaments and a
// percentage between 0 and 100.
func ParseThresholds(name string, b []byte) (*Thresholds, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var t Thresholds
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrThresholds, name, err)
	}
	var errs []error
	if !events.ValidID(t.Season) {
		errs = append(errs, fmt.Errorf("season %q is no season id", t.Season))
	}
	for k, v := range t.Types {
		if !k.Valid() {
			errs = append(errs, fmt.Errorf("%q is not a tournament type", k))
			continue
		}
		m, err := milli(string(v.MaxPercentage))
		switch {
		case err != nil || m < 0 || m > 100_000:
			errs = append(errs, fmt.Errorf("%s: max_percentage %q must be a number from 0 to 100 with at most 3 decimals", k, v.MaxPercentage))
		case v.MinTables < 1 || v.MinTournaments < 1 || v.MaxRounds < 0:
			errs = append(errs, fmt.Errorf("%s: min_tables and min_tournaments must be at least 1, max_rounds at least 0", k))
		}
		v.milli = m
		t.Types[k] = v
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrThresholds, name, err)
	}
	sum := sha256.Sum256(b)
	t.File, t.SHA256 = name, hex.EncodeToString(sum[:])
	return &t, nil
}

// milli reads a decimal with at most 3 decimals as thousandths, exactly.
func milli(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		return 0, strconv.ErrSyntax
	}
	w, err := strconv.ParseInt(whole, 10, 32)
	if err != nil {
		return 0, err
	}
	f := int64(0)
	if frac != "" {
		if f, err = strconv.ParseInt((frac + "00")[:3], 10, 32); err != nil || strings.ContainsAny(frac, "+-") {
			return 0, strconv.ErrSyntax
		}
	}
	return w*1000 + f, nil
}
