package web_test

import (
	"encoding/json"
	"image"
	"image/color"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"github.com/referto/referto/api"
)

// TestSlipQRCodesDecodeToThePlayersLinks reads every QR code an arbiter
// prints, on the players' slips (the links page) and on the seat tickets
// of a round's table slips, as a phone's camera would: a decoder that owes
// nothing to the encoder (gozxing, a port of ZXing) must read back exactly
// that player's personal link, and the link read back must open that
// player's page.
func TestSlipQRCodesDecodeToThePlayersLinks(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	names := map[string]string{"p1": "Mario Rossi", "p2": "Giulia Bianchi", "p3": "Luca Ferrari", "p4": "Sara Esposito"}
	for _, id := range []string{"p1", "p2", "p3", "p4"} {
		if code, m := u.api("POST", "/v1/tournaments/t1/commands", arbiter, `{"type":"RegisterPlayer","player":"`+id+`","name":"`+names[id]+`"}`); code != 201 {
			t.Fatalf("register %s: %d %v", id, code, m)
		}
	}
	for _, cmd := range []string{`{"type":"CloseRegistration"}`, `{"type":"DrawTables","round":1,"seed":"qr"}`} {
		if code, m := u.api("POST", "/v1/tournaments/t1/commands", arbiter, cmd); code != 201 {
			t.Fatalf("%s: %d %v", cmd, code, m)
		}
	}
	if code, m := u.api("POST", "/v1/tournaments/t1/player-tokens", arbiter, `{}`); code != 201 {
		t.Fatalf("issue the links: %d %v", code, m)
	}
	req, _ := http.NewRequest("GET", u.srv.URL+"/v1/tournaments/t1/player-tokens", nil)
	req.Header.Set("Authorization", "Bearer "+arbiter)
	res, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var issued struct {
		Tokens []struct{ Player, Link string }
	}
	err = json.NewDecoder(res.Body).Decode(&issued)
	res.Body.Close()
	if err != nil || len(issued.Tokens) != 4 {
		t.Fatalf("the personal links: %v %+v", err, issued)
	}
	link := map[string]string{}
	for _, l := range issued.Tokens {
		link[l.Player] = u.srv.URL + l.Link
	}

	// The players' slips: one section each, named by the player.
	_, _, page := u.get("/ui/t/t1/links", arbiter)
	slips := regexp.MustCompile(`(?s)<section class="entry-slip" id="slip-([^"]+)">.*?</section>`).FindAllStringSubmatch(page, -1)
	if len(slips) != 4 {
		t.Fatalf("%d slips on the links page, want 4", len(slips))
	}
	for _, s := range slips {
		if got := decodeQR(t, s[0]); got != link[s[1]] {
			t.Errorf("%s's slip reads %q, want his link %q", s[1], got, link[s[1]])
		}
	}
	// The seat tickets: named by the player's code under the code.
	_, _, page = u.get("/ui/t/t1/rounds/1/slips", arbiter)
	tickets := regexp.MustCompile(`(?s)<div class="ticket">(<svg.*?</svg>).*?· Codice ([^<]+)</p></div>`).FindAllStringSubmatch(page, -1)
	if len(tickets) != 4 {
		t.Fatalf("%d seat tickets on the round's slips, want 4", len(tickets))
	}
	for _, tk := range tickets {
		if got := decodeQR(t, tk[1]); got != link[tk[2]] {
			t.Errorf("%s's seat ticket reads %q, want his link %q", tk[2], got, link[tk[2]])
		}
	}

	// The link read back from p3's slip opens p3's page.
	jar, _ := cookiejar.New(nil)
	phone := &http.Client{Jar: jar}
	res, err = phone.Get(decodeQR(t, slips[2][0]))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasSuffix(res.Request.URL.Path, "/ui/t/t1/me") || !strings.Contains(string(body), names[slips[2][1]]) {
		t.Errorf("the link read from %s's slip: %d at %s", slips[2][1], res.StatusCode, res.Request.URL)
	}
}

// decodeQR draws the first QR code of an HTML fragment (the SVG qrSVG
// writes: a viewBox of n modules, one unit square per dark module) at
// eight pixels a module and reads it with gozxing.
func decodeQR(t *testing.T, html string) string {
	t.Helper()
	view := regexp.MustCompile(`<svg class="qr"[^>]*viewBox="0 0 (\d+) (\d+)"`).FindStringSubmatch(html)
	if view == nil || view[1] != view[2] {
		t.Fatalf("no square QR code in %.300s", html)
	}
	n, _ := strconv.Atoi(view[1])
	svg := html[strings.Index(html, "<svg"):]
	svg = svg[:strings.Index(svg, "</svg>")]
	const px = 8
	img := image.NewGray(image.Rect(0, 0, n*px, n*px))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for _, m := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		for dy := range px {
			for dx := range px {
				img.SetGray(x*px+dx, y*px+dy, color.Gray{})
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	// As a camera would, by its finder patterns; failing that, as a symbol
	// that fills the image: gozxing's detector misses about 1 in 125
	// perfectly drawn symbols of a personal link's size (version 6), ZXing's
	// own encoder's as much as ours (TestQRCodesAreMaskedAsTheStandardAsks),
	// and the links are random: the content is what this test checks.
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		res, err = qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_PURE_BARCODE: true})
	}
	if err != nil {
		t.Fatalf("the QR code does not decode: %v", err)
	}
	return res.GetText()
}

// TestSlipsCarryTheAddressPhonesOpen: with a public URL (serve
// --public-url, or the first address it listens on that is not loopback)
// every QR code carries it, whatever address the arbiter's browser used,
// and the links page says it; while the links point at loopback, which no
// phone reaches, the links page and the round's slips say so.
func TestSlipsCarryTheAddressPhonesOpen(t *testing.T) {
	t.Parallel()
	const public = "http://192.168.1.20:8080"
	for _, c := range []struct {
		name, public string
	}{{"public", public}, {"loopback", ""}} {
		u := newUIWith(t, api.Options{PublicURL: c.public})
		if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
			t.Fatalf("create: %d", code)
		}
		_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
		arbiter, _ := m["token"].(string)
		for _, cmd := range []string{`{"type":"RegisterPlayer","player":"p1","name":"Mario Rossi"}`, `{"type":"RegisterPlayer","player":"p2","name":"Giulia Bianchi"}`,
			`{"type":"RegisterPlayer","player":"p3","name":"Luca Ferrari"}`, `{"type":"RegisterPlayer","player":"p4","name":"Sara Esposito"}`,
			`{"type":"CloseRegistration"}`, `{"type":"DrawTables","round":1,"seed":"qr"}`} {
			if code, m := u.api("POST", "/v1/tournaments/t1/commands", arbiter, cmd); code != 201 {
				t.Fatalf("%s: %d %v", cmd, code, m)
			}
		}
		if code, m := u.api("POST", "/v1/tournaments/t1/player-tokens", arbiter, `{}`); code != 201 {
			t.Fatalf("issue the links: %d %v", code, m)
		}
		want := c.public
		if want == "" {
			want = u.srv.URL
		}
		_, _, links := u.get("/ui/t/t1/links", arbiter)
		_, _, slips := u.get("/ui/t/t1/rounds/1/slips", arbiter)
		for page, body := range map[string]string{"links": links, "slips": slips} {
			if got := decodeQR(t, body); !strings.HasPrefix(got, want+"/ui/join?k=") {
				t.Errorf("%s: the %s page's QR code reads %q, want a link at %s", c.name, page, got, want)
			}
			if warned := strings.Contains(body, `id="loopback-warning"`); warned != (c.public == "") {
				t.Errorf("%s: the %s page warns that phones cannot open the links: %v", c.name, page, warned)
			}
		}
		if !strings.Contains(links, `id="public-url"`) || !strings.Contains(links, "<b>"+want+"</b>") {
			t.Errorf("%s: the links page does not say the address phones open (%s)", c.name, want)
		}
	}
}
