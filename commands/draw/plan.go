package draw

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxTableSize bounds the sizes a request may name; RisiKo! is played by 3 to 6.
const maxTableSize = 8

// Plan returns the table sizes for n players.
//
// sizes is a preference order: Plan minimizes the number of tables of the least-preferred
// size, then of the next one, and so on, which for two sizes is the same as maximizing the
// tables of the preferred size ("fallback only as needed"). The result lists the tables in
// preference order: all tables of sizes[0] first, then sizes[1], …
//
// smallTableMax > 0 restricts tables of 3 to fewer than smallTableMax players
// (campionato-2003 §formazione tavoli: "Solo in caso di presenza di un numero inferiore a 11
// giocatori potranno essere utilizzati i tavoli da 3 giocatori"). When 3 is not in sizes it is
// then added as the last fallback: the text permits tables of 3, it does not prefer them, so
// 10 players sit 5+5, not 4+3+3, and only 3, 6 and 7 players need them. With smallTableMax
// players or more, a 3 in sizes is not allowed either; under campionato-2003 that leaves 11
// players unseatable (4+4+3 is the only split), and the error says so.
//
// Plan(0, …) is no tables. When no combination seats everyone the error wraps ErrSizes and
// says how many reserves to designate, or how many players to withdraw, to reach the nearest
// counts that can be seated.
func Plan(n int, sizes []int, smallTableMax int) ([]int, error) {
	if n < 0 {
		return nil, fmt.Errorf("%w: %d players", ErrInput, n)
	}
	if err := validSizes(sizes, smallTableMax); err != nil {
		return nil, err
	}
	if n == 0 {
		return []int{}, nil
	}
	allowed := allowedSizes(n, sizes, smallTableMax)
	counts, ok := split(n, allowed)
	if !ok {
		return nil, sizesError(n, sizes, smallTableMax)
	}
	plan := make([]int, 0, n/3+1)
	for i, s := range allowed {
		for range counts[i] {
			plan = append(plan, s)
		}
	}
	return plan, nil
}

func validSizes(sizes []int, smallTableMax int) error {
	if len(sizes) == 0 {
		return fmt.Errorf("%w: no table sizes", ErrInput)
	}
	if smallTableMax < 0 {
		return fmt.Errorf("%w: small-table limit %d", ErrInput, smallTableMax)
	}
	for i, s := range sizes {
		if s < 2 || s > maxTableSize {
			return fmt.Errorf("%w: table size %d (allowed 2 to %d)", ErrInput, s, maxTableSize)
		}
		if slices.Contains(sizes[:i], s) {
			return fmt.Errorf("%w: table size %d listed twice", ErrInput, s)
		}
	}
	return nil
}

// allowedSizes is the preference order in force for n players.
func allowedSizes(n int, sizes []int, smallTableMax int) []int {
	if smallTableMax <= 0 {
		return sizes
	}
	out := make([]int, 0, len(sizes)+1)
	for _, s := range sizes {
		if s != 3 || n < smallTableMax {
			out = append(out, s)
		}
	}
	if n < smallTableMax && !slices.Contains(out, 3) {
		out = append(out, 3)
	}
	return out
}

// sizeAllowed reports whether a table of size s may be used with n players.
func sizeAllowed(s, n int, sizes []int, smallTableMax int) bool {
	return slices.Contains(allowedSizes(n, sizes, smallTableMax), s)
}

// split returns, per size, the number of tables seating exactly n players, minimizing the
// count of the last size first, then the one before it, and so on.
func split(n int, sizes []int) ([]int, bool) {
	counts := make([]int, len(sizes))
	var rec func(rem, k int) bool
	rec = func(rem, k int) bool {
		if k == 0 {
			if rem%sizes[0] != 0 {
				return false
			}
			counts[0] = rem / sizes[0]
			return true
		}
		for c := 0; c*sizes[k] <= rem; c++ {
			if rec(rem-c*sizes[k], k-1) {
				counts[k] = c
				return true
			}
		}
		return false
	}
	return counts, rec(n, len(sizes)-1)
}

func seatable(n int, sizes []int, smallTableMax int) bool {
	if n == 0 {
		return true
	}
	_, ok := split(n, allowedSizes(n, sizes, smallTableMax))
	return ok
}

// sizesError explains why n players cannot be seated and what the arbiter can do.
func sizesError(n int, sizes []int, smallTableMax int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s cannot be seated at tables of %s", n, plural(n, "player", "players"), joinSizes(sizes))
	if smallTableMax > 0 {
		fmt.Fprintf(&b, " (tables of 3 only with fewer than %d players)", smallTableMax)
	}
	var fixes []string
	for k := 1; k <= 2*maxTableSize*maxTableSize+smallTableMax; k++ {
		if seatable(n+k, sizes, smallTableMax) {
			fixes = append(fixes, fmt.Sprintf("designate %d %s", k, plural(k, "reserve", "reserves")))
			break
		}
	}
	for m := 1; m < n; m++ {
		if seatable(n-m, sizes, smallTableMax) {
			fixes = append(fixes, fmt.Sprintf("withdraw %d", m))
			break
		}
	}
	if len(fixes) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(fixes, " or "))
	}
	return fmt.Errorf("%w: %s", ErrSizes, b.String())
}

func joinSizes(sizes []int) string {
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = strconv.Itoa(s)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
