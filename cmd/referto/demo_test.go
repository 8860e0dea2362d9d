package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func runDemo(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), append([]string{"demo", "--data", t.TempDir()}, args...), func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("demo %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

// TestDemoRaduno runs whole Raduni through the real stack (embedded NATS,
// Pebble, HTTP on loopback) at the sizes around the quarterfinal threshold
// of rur-2015 art. 1: more than 130 players in game 1, reserves seated in
// game 1 included, bring the quarterfinals.
func TestDemoRaduno(t *testing.T) {
	if testing.Short() {
		t.Skip("whole tournaments: skipped in -short mode")
	}
	for _, tc := range []struct {
		name     string
		players  string
		quarters bool
		seated   string
	}{
		{"128 players: semifinals of 16, no quarterfinals", "128", false, ""},
		{"136 players: quarterfinals", "136", true, ""},
		{"130 registered and 2 reserves seated in game 1: 132 entrants, quarterfinals", "130", true, "reserves seated: r01 r02"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runDemo(t, "--players", tc.players, "--seed", "7")
			round1 := strings.SplitN(out, "round 1 (qualifying)", 2)[1]
			round1 = strings.SplitN(round1, "\n", 2)[0]
			if tc.seated != "" && !strings.Contains(round1, tc.seated) {
				t.Errorf("game 1: %q, want %q", round1, tc.seated)
			}
			if got := strings.Contains(out, "(quarterfinal)"); got != tc.quarters {
				t.Errorf("quarterfinals played: %v, want %v\n%s", got, tc.quarters, out)
			}
			for _, want := range []string{"(semifinal): 4 tables, bands draw", "(final): 1 table", "renounces the semifinal:", " takes the seat",
				"reminded, then a card loss", "withdraws from the tournament", "Final classification (published: true)",
				"the classification served equals a fold of the log: yes"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func TestDemoSameSeedSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("whole tournaments: skipped in -short mode")
	}
	a := runDemo(t, "--players", "48", "--seed", "11")
	b := runDemo(t, "--players", "48", "--seed", "11")
	if a != b {
		t.Errorf("the same seed gave different output:\n%s\n---\n%s", a, b)
	}
	if c := runDemo(t, "--players", "48", "--seed", "12"); c == a {
		t.Error("another seed gave the same output")
	}
}
