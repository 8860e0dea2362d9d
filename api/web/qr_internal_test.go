package web

import (
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/makiuchi-d/gozxing/qrcode/decoder"
	"github.com/makiuchi-d/gozxing/qrcode/encoder"
	"rsc.io/qr/coding"
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

// TestQRCodesAreMaskedAsTheStandardAsks encodes 300 personal links of the
// length the ledger issues (seeded, so the test is the same every run) and
// compares each symbol with the one ZXing's encoder (gozxing, written apart
// from rsc.io/qr) makes of the same text: the same mask pattern, chosen by
// the penalty of ISO/IEC 18004 §8.8.2, and the same modules. Each must also
// read back with ZXing's reader, drawn as the slips draw it (readQR).
func TestQRCodesAreMaskedAsTheStandardAsks(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2026))
	for i := range 300 {
		token := make([]byte, 32)
		for j := range token {
			token[j] = byte(rng.Uint32())
		}
		link := fmt.Sprintf("http://192.168.1.%d:8080/ui/join?k=%x", 2+i%250, token)
		ours, err := encodeQR(link)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := encoder.Encoder_encode(link, decoder.ErrorCorrectionLevel_M, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := theirs.GetMatrix()
		if m.GetWidth() != ours.Size {
			t.Fatalf("%s: %d modules a side, ZXing %d", link, ours.Size, m.GetWidth())
		}
		for y := range ours.Size {
			for x := range ours.Size {
				if ours.Black(x, y) != (m.Get(x, y) == 1) {
					t.Fatalf("%s: module %d,%d differs from ZXing's symbol (its mask %d)", link, x, y, theirs.GetMaskPattern())
				}
			}
		}
		if got := readQR(t, ours); got != link {
			t.Fatalf("%s reads back as %q", link, got)
		}
	}
}

// readQR draws c with a quiet zone of four modules, eight pixels a module,
// and reads it with ZXing's reader.
func readQR(t *testing.T, c *coding.Code) string {
	t.Helper()
	const px, quiet = 8, 4
	n := c.Size + 2*quiet
	img := image.NewGray(image.Rect(0, 0, n*px, n*px))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := range c.Size {
		for x := range c.Size {
			if c.Black(x, y) {
				for dy := range px {
					for dx := range px {
						img.SetGray((x+quiet)*px+dx, (y+quiet)*px+dy, color.Gray{})
					}
				}
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	return decodeQRImage(t, bmp)
}

// decodeQRImage reads a QR code with ZXing's reader as a camera would,
// finding the symbol by its finder patterns; failing that, as a symbol
// that fills the image (ZXing's pure-barcode mode). gozxing's detector
// misses about 1 in 125 perfectly drawn symbols of version 6 (a personal
// link's size), ZXing's own encoder's symbols as much as these: the content
// is what the tests check, and the pure reader checks it whole.
func decodeQRImage(t *testing.T, bmp *gozxing.BinaryBitmap) string {
	t.Helper()
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		res, err = qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_PURE_BARCODE: true})
	}
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return res.GetText()
}
