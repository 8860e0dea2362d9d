package web

import (
	"errors"
	"fmt"
	"html/template"
	"strings"

	"rsc.io/qr/coding"
)

// qrSVG draws text as a QR code in inline SVG (error correction M, a quiet
// zone of four modules), sized by the page's CSS: it prints sharp at any
// size and needs no image route. encodeQR encodes; the drawing is one path
// of unit squares.
func qrSVG(text string) (template.HTML, error) {
	c, err := encodeQR(text)
	if err != nil {
		return "", fmt.Errorf("web: QR code of %d characters: %w", len(text), err)
	}
	const quiet = 4
	n := c.Size + 2*quiet
	var path strings.Builder
	for y := 0; y < c.Size; y++ {
		for x := 0; x < c.Size; x++ {
			if c.Black(x, y) {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	return template.HTML(fmt.Sprintf(`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges" role="img" aria-label="QR"><rect width="%d" height="%d" fill="#fff"/><path d="%s" fill="#000"/></svg>`,
		n, n, n, n, path.String())), nil
}

// encodeQR encodes text as a QR code at error correction level M, in the
// smallest version that holds it, with the mask pattern ISO/IEC 18004
// §8.8 asks for: of the eight, the one whose symbol scores the lowest
// penalty (qrPenalty), which keeps long runs, blocks and finder-like
// patterns out of the data area. rsc.io/qr lays out the symbol; its own
// Encode always uses mask 0, leaving the choice of mask for later.
func encodeQR(text string) (*coding.Code, error) {
	var enc coding.Encoding
	switch {
	case coding.Num(text).Check() == nil:
		enc = coding.Num(text)
	case coding.Alpha(text).Check() == nil:
		enc = coding.Alpha(text)
	default:
		enc = coding.String(text)
	}
	v := coding.Version(coding.MinVersion)
	for ; enc.Bits(v) > v.DataBytes(coding.M)*8; v++ {
		if v == coding.MaxVersion {
			return nil, errors.New("text too long for a QR code")
		}
	}
	var best *coding.Code
	bestPenalty := 0
	for m := coding.Mask(0); m < 8; m++ {
		p, err := coding.NewPlan(v, coding.M, m)
		if err != nil {
			return nil, err
		}
		c, err := p.Encode(enc)
		if err != nil {
			return nil, err
		}
		if pen := qrPenalty(c); best == nil || pen < bestPenalty {
			best, bestPenalty = c, pen
		}
	}
	return best, nil
}

// qrPenalty scores a symbol by the four rules of ISO/IEC 18004 §8.8.2
// (weights N1 3, N2 3, N3 40, N4 10): runs of five or more modules of one
// colour in a row or column; 2×2 blocks of one colour; the finder-like
// pattern dark-light-dark-dark-dark-light-dark with four light modules on
// either side (the symbol's edge counting as light); and the share of
// dark modules away from half, per 5%.
func qrPenalty(c *coding.Code) int {
	n := c.Size
	at := func(x, y int, across bool) bool { // the module at position x of line y
		if across {
			return c.Black(x, y)
		}
		return c.Black(y, x)
	}
	light := func(from, to, y int, across bool) bool {
		for x := max(from, 0); x < min(to, n); x++ {
			if at(x, y, across) {
				return false
			}
		}
		return true
	}
	finder := [7]bool{true, false, true, true, true, false, true}
	penalty := 0
	for _, across := range []bool{true, false} {
		for y := 0; y < n; y++ {
			run := 0
			for x := 0; x < n; x++ {
				if x > 0 && at(x, y, across) == at(x-1, y, across) {
					run++
				} else {
					run = 1
				}
				if run == 5 {
					penalty += 3
				} else if run > 5 {
					penalty++
				}
				if x+6 < n {
					match := true
					for i, dark := range finder {
						if at(x+i, y, across) != dark {
							match = false
							break
						}
					}
					if match && (light(x-4, x, y, across) || light(x+7, x+11, y, across)) {
						penalty += 40
					}
				}
			}
		}
	}
	dark := 0
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if c.Black(x, y) {
				dark++
			}
			if x+1 < n && y+1 < n && c.Black(x, y) == c.Black(x+1, y) && c.Black(x, y) == c.Black(x, y+1) && c.Black(x, y) == c.Black(x+1, y+1) {
				penalty += 3
			}
		}
	}
	return penalty + 10*(abs(2*dark-n*n)*10/(n*n))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
