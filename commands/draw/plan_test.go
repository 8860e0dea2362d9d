package draw

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The Plan tables below are the spec: index = number of players, value = table sizes in order,
// or "err: " and what the error must tell the arbiter to do.
var (
	planRUR = []string{ // [4], rur-2015 art. 1
		"", "err: 1 player cannot be seated at tables of 4: designate 3 reserves",
		"err: designate 2 reserves", "err: designate 1 reserve", "4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4",
		"err: 13 players cannot be seated at tables of 4: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4 4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4 4 4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4 4 4 4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4 4 4 4 4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4 4 4 4 4 4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4 4 4 4 4 4 4",
		"err: designate 3 reserves or withdraw 1", "err: designate 2 reserves or withdraw 2", "err: designate 1 reserve or withdraw 3", "4 4 4 4 4 4 4 4 4 4",
	}
	plan45 = []string{ // [4,5]: cirki-2001, master
		"",                          // 0
		"err: designate 3 reserves", // 1
		"err: designate 2 reserves", // 2
		"err: designate 1 reserve",  // 3
		"4",                         // 4
		"5",                         // 5
		"err: designate 2 reserves or withdraw 1", // 6
		"err: designate 1 reserve or withdraw 2",  // 7
		"4 4",                                     // 8
		"4 5",                                     // 9
		"5 5",                                     // 10
		"err: 11 players cannot be seated at tables of 4 or 5: designate 1 reserve or withdraw 1", // 11
		"4 4 4",               // 12
		"4 4 5",               // 13
		"4 5 5",               // 14
		"5 5 5",               // 15
		"4 4 4 4",             // 16
		"4 4 4 5",             // 17
		"4 4 5 5",             // 18
		"4 5 5 5",             // 19
		"4 4 4 4 4",           // 20
		"4 4 4 4 5",           // 21
		"4 4 4 5 5",           // 22
		"4 4 5 5 5",           // 23
		"4 4 4 4 4 4",         // 24
		"4 4 4 4 4 5",         // 25
		"4 4 4 4 5 5",         // 26
		"4 4 4 5 5 5",         // 27
		"4 4 4 4 4 4 4",       // 28
		"4 4 4 4 4 4 5",       // 29
		"4 4 4 4 4 5 5",       // 30
		"4 4 4 4 5 5 5",       // 31
		"4 4 4 4 4 4 4 4",     // 32
		"4 4 4 4 4 4 4 5",     // 33
		"4 4 4 4 4 4 5 5",     // 34
		"4 4 4 4 4 5 5 5",     // 35
		"4 4 4 4 4 4 4 4 4",   // 36
		"4 4 4 4 4 4 4 4 5",   // 37
		"4 4 4 4 4 4 4 5 5",   // 38
		"4 4 4 4 4 4 5 5 5",   // 39
		"4 4 4 4 4 4 4 4 4 4", // 40
	}
	plan54 = []string{ // [5,4]: tables of 5 preferred
		"",                          // 0
		"err: designate 3 reserves", // 1
		"err: designate 2 reserves", // 2
		"err: designate 1 reserve",  // 3
		"4",                         // 4
		"5",                         // 5
		"err: designate 2 reserves or withdraw 1", // 6
		"err: designate 1 reserve or withdraw 2",  // 7
		"4 4",                                     // 8
		"5 4",                                     // 9
		"5 5",                                     // 10
		"err: 11 players cannot be seated at tables of 5 or 4: designate 1 reserve or withdraw 1", // 11
		"4 4 4",           // 12
		"5 4 4",           // 13
		"5 5 4",           // 14
		"5 5 5",           // 15
		"4 4 4 4",         // 16
		"5 4 4 4",         // 17
		"5 5 4 4",         // 18
		"5 5 5 4",         // 19
		"5 5 5 5",         // 20
		"5 4 4 4 4",       // 21
		"5 5 4 4 4",       // 22
		"5 5 5 4 4",       // 23
		"5 5 5 5 4",       // 24
		"5 5 5 5 5",       // 25
		"5 5 4 4 4 4",     // 26
		"5 5 5 4 4 4",     // 27
		"5 5 5 5 4 4",     // 28
		"5 5 5 5 5 4",     // 29
		"5 5 5 5 5 5",     // 30
		"5 5 5 4 4 4 4",   // 31
		"5 5 5 5 4 4 4",   // 32
		"5 5 5 5 5 4 4",   // 33
		"5 5 5 5 5 5 4",   // 34
		"5 5 5 5 5 5 5",   // 35
		"5 5 5 5 4 4 4 4", // 36
		"5 5 5 5 5 4 4 4", // 37
		"5 5 5 5 5 5 4 4", // 38
		"5 5 5 5 5 5 5 4", // 39
		"5 5 5 5 5 5 5 5", // 40
	}
)

// plan2003 is [4,5] with tables of 3 allowed below 11 players (campionato-2003): the same as
// plan45 except where only a table of 3 can seat everyone.
func plan2003() []string {
	p := append([]string(nil), plan45...)
	p[1] = "err: 1 player cannot be seated at tables of 4 or 5 (tables of 3 only with fewer than 11 players): designate 2 reserves"
	p[2] = "err: designate 1 reserve"
	p[3] = "3"
	p[6] = "3 3"
	p[7] = "4 3"
	p[10] = "5 5" // 3s are the last fallback: 5+5, not 4+3+3
	p[11] = "err: 11 players cannot be seated at tables of 4 or 5 (tables of 3 only with fewer than 11 players): designate 1 reserve or withdraw 1"
	return p
}

func TestPlan(t *testing.T) {
	configs := []struct {
		name          string
		sizes         []int
		smallTableMax int
		want          []string
	}{
		{"rur-2015 [4]", []int{4}, 0, planRUR},
		{"[4,5]", []int{4, 5}, 0, plan45},
		{"[5,4]", []int{5, 4}, 0, plan54},
		{"campionato-2003 [4,5] 3 below 11", []int{4, 5}, 11, plan2003()},
	}
	for _, c := range configs {
		if len(c.want) != 41 {
			t.Fatalf("%s: spec has %d rows", c.name, len(c.want))
		}
		for n, want := range c.want {
			t.Run(fmt.Sprintf("%s/%d", c.name, n), func(t *testing.T) {
				got, err := Plan(n, c.sizes, c.smallTableMax)
				if msg, ok := strings.CutPrefix(want, "err: "); ok {
					if !errors.Is(err, ErrSizes) {
						t.Fatalf("Plan = %v, %v; want ErrSizes", got, err)
					}
					if !strings.HasSuffix(err.Error(), msg) {
						t.Fatalf("error %q does not end with %q", err, msg)
					}
					return
				}
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				if g := strings.Trim(fmt.Sprint(got), "[]"); g != want {
					t.Fatalf("Plan = %q, want %q", g, want)
				}
			})
		}
	}
}

func TestPlanThreeInSizes(t *testing.T) {
	// A 3 listed in Sizes is still limited by SmallTableMax.
	got, err := Plan(7, []int{4, 3}, 0)
	if err != nil || fmt.Sprint(got) != "[4 3]" {
		t.Errorf("Plan(7, [4 3], 0) = %v, %v", got, err)
	}
	if _, err := Plan(11, []int{4, 5, 3}, 11); !errors.Is(err, ErrSizes) {
		t.Errorf("Plan(11, [4 5 3], 11) error %v, want ErrSizes", err)
	}
	got, err = Plan(10, []int{4, 3, 5}, 11)
	if err != nil || fmt.Sprint(got) != "[4 3 3]" {
		t.Errorf("Plan(10, [4 3 5], 11) = %v, %v; want 4 3 3 (5 least preferred)", got, err)
	}
}

func TestPlanLarge(t *testing.T) {
	got, err := Plan(1001, []int{4, 5}, 0)
	if err != nil {
		t.Fatal(err)
	}
	fours, fives := 0, 0
	for _, s := range got {
		switch s {
		case 4:
			fours++
		case 5:
			fives++
		}
	}
	if fours != 249 || fives != 1 {
		t.Fatalf("1001 players: %d tables of 4, %d of 5; want 249 and 1", fours, fives)
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		n     int
		sizes []int
		max   int
		says  string
	}{
		{-1, []int{4}, 0, "-1 players"},
		{8, nil, 0, "no table sizes"},
		{8, []int{4, 0}, 0, "table size 0"},
		{8, []int{9}, 0, "table size 9"},
		{8, []int{5, 5}, 0, "listed twice"},
		{8, []int{4}, -2, "small-table limit -2"},
	}
	for _, tt := range tests {
		_, err := Plan(tt.n, tt.sizes, tt.max)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("Plan(%d, %v, %d) error %v, want ErrInput saying %q", tt.n, tt.sizes, tt.max, err, tt.says)
		}
	}
}
