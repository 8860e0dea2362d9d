package web

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestQRCodesHaveTheirFinderPatterns draws a personal link's QR code and
// reads the modules back from the SVG: a square of the size the text
// needs, with the three 7×7 finder patterns (a ring, a gap, a 3×3 core)
// at its corners and the quiet zone around, which is what a phone's
// camera looks for.
func TestQRCodesHaveTheirFinderPatterns(t *testing.T) {
	const link = "http://192.168.1.20:8080/ui/join?k=raduno-bo-2026.0123456789abcdef0123456789abcdef"
	svg, err := qrSVG(link)
	if err != nil {
		t.Fatal(err)
	}
	view := regexp.MustCompile(`viewBox="0 0 (\d+) (\d+)"`).FindStringSubmatch(string(svg))
	if view == nil || view[1] != view[2] {
		t.Fatalf("no square viewBox in %.200s", svg)
	}
	n, _ := strconv.Atoi(view[1])
	size := n - 8 // the quiet zone: four modules each side
	if size < 21 || (size-17)%4 != 0 {
		t.Fatalf("a code of %d modules is no QR version", size)
	}
	black := map[[2]int]bool{}
	for _, m := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(string(svg), -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		if x < 4 || y < 4 || x >= n-4 || y >= n-4 {
			t.Fatalf("a module at %d,%d is in the quiet zone", x, y)
		}
		black[[2]int{x - 4, y - 4}] = true
	}
	finder := func(x0, y0 int) string {
		var b strings.Builder
		for y := 0; y < 7; y++ {
			for x := 0; x < 7; x++ {
				if black[[2]int{x0 + x, y0 + y}] {
					b.WriteByte('#')
				} else {
					b.WriteByte('.')
				}
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	want := "#######\n#.....#\n#.###.#\n#.###.#\n#.###.#\n#.....#\n#######\n"
	for _, c := range [][2]int{{0, 0}, {size - 7, 0}, {0, size - 7}} {
		if got := finder(c[0], c[1]); got != want {
			t.Errorf("no finder pattern at %v:\n%s", c, got)
		}
	}
	if _, err := qrSVG(strings.Repeat("x", 3000)); err == nil {
		t.Error("a text no QR code can hold was drawn")
	}
}
