package ranking

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// maxEdits is the largest edit distance between two names that lists their
// ids for review.
const maxEdits = 2

// similar lists the pairs of national ids whose names are within maxEdits
// of each other, letters compared without case or accents; pairs already
// merged are gone (they are one row). Names are compared within blocks of
// the same initials (of the first and the last word), so that a season of
// thousands of players is not compared pair by pair.
func similar(rows []Row, _ *Registry) []Similar {
	type entry struct{ id, name, key string }
	blocks := map[string][]entry{}
	for _, r := range rows {
		n := normalize(r.Name)
		if n == "" {
			continue
		}
		words := strings.Fields(n)
		block := string(words[0][0]) + string(words[len(words)-1][0])
		blocks[block] = append(blocks[block], entry{id: r.NationalID, name: r.Name, key: n})
	}
	var out []Similar
	for _, b := range blocks {
		for i := range b {
			for j := i + 1; j < len(b); j++ {
				x, y := b[i], b[j]
				if abs(len(x.key)-len(y.key)) > maxEdits {
					continue
				}
				if d := editDistance(x.key, y.key); d <= maxEdits {
					if y.id < x.id {
						x, y = y, x
					}
					out = append(out, Similar{IDs: [2]string{x.id, y.id}, Names: [2]string{x.name, y.name}, EditDistance: d})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Similar) int {
		if c := strings.Compare(a.IDs[0], b.IDs[0]); c != 0 {
			return c
		}
		return strings.Compare(a.IDs[1], b.IDs[1])
	})
	return out
}

// normalize lowers a name, drops its accents and joins its words by one space.
func normalize(name string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(name)) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			b.WriteRune(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// editDistance is the Levenshtein distance between a and b, by bytes (the
// names are normalized: mostly ASCII), capped at maxEdits+1. Only the cells
// within maxEdits of the diagonal are computed: any path through another
// costs more than maxEdits.
func editDistance(a, b string) int {
	const far = maxEdits + 1
	var rows [2][64]int
	if len(b) >= len(rows[0]) {
		b = b[:len(rows[0])-1] // names longer than 63 bytes compare by their start
	}
	if abs(len(a)-len(b)) > maxEdits {
		return far
	}
	prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1]
	for j := range prev {
		prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-maxEdits), min(len(b), i+maxEdits)
		if lo == 1 {
			cur[0] = min(i, far)
		} else {
			cur[lo-1] = far
		}
		best := cur[lo-1]
		for j := lo; j <= hi; j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c, far)
			best = min(best, cur[j])
		}
		if hi < len(b) {
			cur[hi+1] = far // the next row's band reaches one cell further
		}
		if best == far {
			return far
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
