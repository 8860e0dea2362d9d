package web

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestLiveOnlyKeepsTheLivePartsAsABrowserReadsThem cuts a page down to its
// live parts and parses the answer as a browser's DOMParser does (the
// HTML5 algorithm): every part marked data-live with an id is there whole,
// nested elements of its own kind included and its text's escaped markup
// kept as text, a table's body inside a table;
// nothing else of the page is; the body keeps its seq.
func TestLiveOnlyKeepsTheLivePartsAsABrowserReadsThem(t *testing.T) {
	page := `<!DOCTYPE html><html lang="it"><head><title>Classifica</title><script src="/static/live.js"></script></head>
<body class="page-me" data-live-stream="/v1/tournaments/t/stream" data-seq="42">
<header><nav><a href="/ui/">Tornei</a></nav></header>
<h1>Mario &amp; Luigi</h1>
<section class="card" id="my-table" data-live><h2>Tavolo 3</h2><section id="inner"><p>dentro</p></section><p title="a &quot;b&quot;">dopo &lt;3 &lt;/section&gt;</p><input name="x" value="1"><br></section>
<section id="not-live"><p>fisso</p></section>
<div data-live><p>senza id</p></div>
<table class="grid"><tbody data-live id="players-body"><tr id="player-p1"><td>p1</td></tr></tbody></table>
<footer>piè</footer>
</body></html>`
	got := liveOnly([]byte(page))
	doc, err := html.Parse(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*html.Node{}
	var body *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "body" {
				body = n
			}
			for _, a := range n.Attr {
				if a.Key == "id" {
					byID[a.Val] = n
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if body == nil || attr(body, "data-seq") != "42" || attr(body, "data-live-stream") != "/v1/tournaments/t/stream" {
		t.Fatalf("body %v: want data-seq 42 and the stream:\n%s", body, got)
	}
	for _, id := range []string{"my-table", "inner", "players-body", "player-p1"} {
		if byID[id] == nil {
			t.Errorf("%s: missing from\n%s", id, got)
		}
	}
	if tb := byID["players-body"]; tb != nil && (tb.Parent == nil || tb.Parent.Data != "table") {
		t.Errorf("players-body is not in a table:\n%s", got)
	}
	if s := byID["my-table"]; s != nil && s.Parent != body {
		t.Errorf("my-table is inside %s, want the body:\n%s", s.Parent.Data, got)
	}
	var text strings.Builder
	var texts func(n *html.Node)
	texts = func(n *html.Node) {
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			texts(c)
		}
	}
	texts(byID["my-table"])
	if want := "Tavolo 3dentrodopo <3 </section>"; text.String() != want {
		t.Errorf("my-table says %q, want %q", text.String(), want)
	}
	for _, absent := range []string{"not-live", "fisso", "senza id", "Tornei", "piè", "Mario", "live.js"} {
		if bytes.Contains(got, []byte(absent)) {
			t.Errorf("%q is not a live part, but is in\n%s", absent, got)
		}
	}
}

// TestLiveOnlyCutShort: a page cut anywhere (a part never closed, a tag
// cut in its name) still gives a body, and never panics.
func TestLiveOnlyCutShort(t *testing.T) {
	page := `<body data-seq="7"><section id="a" data-live><section>x</section></section><table><tbody data-live id="b"><tr><td>1</td></tr></tbody></table></body>`
	for n := range len(page) + 1 {
		if got := liveOnly([]byte(page[:n])); !bytes.HasSuffix(got, []byte("</body></html>\n")) {
			t.Fatalf("cut at %d: %s", n, got)
		}
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestLivePartsKeepAtMostTheirBytes: a part rendered is served to the next
// reads of its seq while the parts kept stay within maxLiveBytes; past it a
// part is its reader's alone, and a new seq frees the old one's bytes.
func TestLivePartsKeepAtMostTheirBytes(t *testing.T) {
	var l liveParts
	a, b := liveKey{uri: "/ui/t/x/standings"}, liveKey{uri: "/ui/t/x/rounds/1"}
	render := func(seq uint64, key liveKey, size int) (shared bool) {
		t.Helper()
		p, mine := l.part("x", seq, key)
		if !mine {
			t.Fatalf("%s at %d: already rendered", key.uri, seq)
		}
		p.status, p.body = 200, make([]byte, size)
		l.keep("x", key, p)
		close(p.ready)
		again, mine := l.part("x", seq, key)
		return !mine && again == p
	}
	if !render(1, a, maxLiveBytes-10) {
		t.Errorf("a part within the bytes is not served to the next read")
	}
	if render(1, b, 20) {
		t.Errorf("a part past the bytes is kept")
	}
	if !render(2, b, 20) {
		t.Errorf("a new seq did not free the bytes of the old one")
	}
}

// TestPlayersPartsKeepAtMostTheirBytes keeps players' parts past their
// bound: the bytes kept never exceed it, a part kept again replaces its
// bytes, the last kept is there, and a part is served only while it shows
// what it was rendered from.
func TestPlayersPartsKeepAtMostTheirBytes(t *testing.T) {
	k := kept[*tableShows]{max: maxTableBytes}
	big := strings.Repeat("x", maxTableBytes/5)
	for i := range 12 {
		key := playerKey{t: "raduno", player: fmt.Sprint("p", i%7), lang: "it"}
		shows := &tableShows{Player: key.player, Round: i}
		k.keep(key, shows, big)
		sum := 0
		for _, p := range k.parts {
			sum += len(p.html)
		}
		if sum != k.bytes || k.bytes > maxTableBytes {
			t.Fatalf("after %d: %d bytes counted, %d kept, at most %d", i+1, k.bytes, sum, maxTableBytes)
		}
		if _, ok := k.get(key, &tableShows{Player: key.player, Round: i}); !ok {
			t.Fatalf("after %d: the part just kept is not served", i+1)
		}
		if _, ok := k.get(key, &tableShows{Player: key.player, Round: i + 1}); ok {
			t.Fatalf("after %d: a part is served for what it does not show", i+1)
		}
	}
}

// TestAroundSeq splits live parts around their body's seq, and nothing
// else.
func TestAroundSeq(t *testing.T) {
	live := liveOnly([]byte(`<!DOCTYPE html><html><body class="page-me" data-live-stream="/v1/tournaments/t/stream" data-seq="42">` +
		`<section id="my-scores" data-live><p title="data-seq=&#34;7&#34;">data-seq="7"</p></section></body></html>`))
	before, after, ok := aroundSeq(string(live))
	if !ok || before+"42"+after != string(live) || !strings.HasSuffix(before, `data-seq="`) || !strings.Contains(after, `data-seq="7"`) {
		t.Fatalf("around the seq of\n%s\n%q, %q, %v", live, before, after, ok)
	}
	if _, _, ok := aroundSeq("<body class=\"page-me\">"); ok {
		t.Error("a body without a seq split")
	}
}
