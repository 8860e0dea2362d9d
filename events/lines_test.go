package events_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/referto/referto/events"
)

// TestCommitLines: every newline-terminated line, in order, without its
// newline; a last line without one is corruption naming it; fn's error
// stops the walk as it is.
func TestCommitLines(t *testing.T) {
	for _, tc := range []struct {
		body    string
		want    []string
		corrupt string
	}{
		{"", nil, ""},
		{"a\n", []string{"a"}, ""},
		{"a\nbb\n\n", []string{"a", "bb", ""}, ""},
		{"a\nbb", []string{"a"}, "line 2 is not newline-terminated"},
	} {
		var got []string
		err := events.CommitLines([]byte(tc.body), func(line []byte) error {
			got = append(got, string(line))
			return nil
		})
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: lines %q, want %q", tc.body, got, tc.want)
		}
		if tc.corrupt == "" && err != nil || tc.corrupt != "" && (!errors.Is(err, events.ErrCorrupt) || !strings.Contains(err.Error(), tc.corrupt)) {
			t.Errorf("%q: %v, want %q", tc.body, err, tc.corrupt)
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := events.CommitLines([]byte("a\nb\nc\n"), func([]byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("fn's error: %v after %d lines, want it as it is after 1", err, n)
	}
}
