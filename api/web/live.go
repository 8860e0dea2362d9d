package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Live reads. A page that follows its tournament's stream (live.js) reads
// itself again with the header X-Live: 1 on each new seq, and swaps in its
// live parts (the elements marked data-live, each with an id). The answer
// to such a read is those parts only, in a body that carries the seq, and
// it is rendered once per page, seq, language and reader and served to
// every read of it: the hall's spectators on the standings share one
// render of each seq, and a player's page, and his table within it, are
// rendered again only when what they show changed. Renders of pages take
// at most Options.Renders at once (one core less than the machine has): a
// command never waits for them, and finds a core free.

// LiveHeader is the request header of a page's read of its live parts.
const LiveHeader = "X-Live"

// maxLiveTournaments bounds the tournaments whose live parts are kept,
// maxLiveParts the parts kept of one seq and maxLiveBytes the bytes of all
// the parts kept: past them, a read is rendered for itself.
const (
	maxLiveTournaments = 64
	maxLiveParts       = 16384
	maxLiveBytes       = 64 << 20
)

// liveParts holds, per tournament, the live parts rendered at its latest
// seq.
type liveParts struct {
	mu    sync.Mutex
	byT   map[string]*liveSeq
	bytes int // the bodies kept, in all
}

type liveSeq struct {
	seq   uint64
	parts map[liveKey]*livePart
	bytes int // the bodies kept of this seq
}

// liveKey is what a live part depends on besides the seq: the address
// (path and query), the language and who reads it (a hash of the token:
// an official's or a player's page carries forms of their own).
type liveKey struct{ uri, lang, who string }

// livePart is one rendered answer; ready is closed once it is.
type livePart struct {
	ready  chan struct{}
	status int
	header http.Header
	body   []byte
}

// renderSlot waits for one of the slots of page rendering; release gives
// it back. false when ctx ends first.
func (u *UI) renderSlot(ctx context.Context) (release func(), ok bool) {
	select {
	case u.renders <- struct{}{}:
		return func() { <-u.renders }, true
	case <-ctx.Done():
		return nil, false
	}
}

// rendered serves a GET page h within the rendering slots, and a live read
// of a tournament's page (LiveHeader) from its live parts, rendered once.
func (u *UI) rendered(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", LiveHeader)
		if r.Method != http.MethodGet || r.Header.Get(LiveHeader) != "1" || r.PathValue("t") == "" {
			u.renderNow(w, r, h)
			return
		}
		t := r.PathValue("t")
		if u.opts.CommandsFirst != nil {
			u.opts.CommandsFirst(r.Context())
		}
		st, err := u.state(r, t)
		if err != nil {
			u.renderNow(w, r, h)
			return
		}
		who := ""
		if tok := token(r); tok != "" {
			sum := sha256.Sum256([]byte(tok))
			who = hex.EncodeToString(sum[:8])
		}
		key := liveKey{uri: r.URL.RequestURI(), lang: lang(r), who: who}
		part, mine := u.live.part(t, st.Summary.Seq, key)
		if mine {
			u.renderLive(r, h, part)
			if part.status != http.StatusOK {
				u.live.forget(t, key, part) // a refusal is not kept for the next read
			} else {
				u.live.keep(t, key, part)
			}
		} else {
			select {
			case <-part.ready:
			case <-r.Context().Done():
				return
			}
		}
		if part.status == 0 {
			u.renderNow(w, r, h) // the render it waited for was given up
			return
		}
		for k, v := range part.header {
			w.Header()[k] = v
		}
		w.WriteHeader(part.status)
		_, _ = w.Write(part.body)
	}
}

// renderNow renders the page for this request alone.
func (u *UI) renderNow(w http.ResponseWriter, r *http.Request, h http.HandlerFunc) {
	release, ok := u.renderSlot(r.Context())
	if !ok {
		return
	}
	defer release()
	h(w, r)
}

// renderLive renders part: the page's live parts, or the whole answer
// when it is not a page (a problem, a redirect). The render is everyone's
// who waits for it: the reader who asked first going away does not end it.
func (u *UI) renderLive(r *http.Request, h http.HandlerFunc, part *livePart) {
	defer close(part.ready)
	release, ok := u.renderSlot(r.Context())
	if !ok {
		return
	}
	rec := &recorder{h: http.Header{}}
	h(rec, r.WithContext(context.WithoutCancel(r.Context())))
	release()
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	body := rec.buf.Bytes()
	if rec.status == http.StatusOK && strings.HasPrefix(rec.h.Get("Content-Type"), "text/html") {
		if !rec.live {
			body = liveOnly(body)
		}
		if rec.keep != nil {
			rec.keep(body)
		}
		rec.h.Set("Cache-Control", "no-store")
	}
	rec.h.Del("Content-Length")
	part.header, part.body, part.status = rec.h, body, rec.status
}

// part returns the live part of key at tournament t's seq, and whether
// the caller is to render it (it is new). At an older seq than the one
// held, or past the bounds, the part is the caller's alone.
func (l *liveParts) part(t string, seq uint64, key liveKey) (*livePart, bool) {
	fresh := &livePart{ready: make(chan struct{})}
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.byT[t]
	switch {
	case ls != nil && ls.seq > seq:
		return fresh, true
	case ls == nil || ls.seq < seq:
		if l.byT == nil {
			l.byT = map[string]*liveSeq{}
		}
		if ls != nil {
			l.bytes -= ls.bytes
		} else if len(l.byT) >= maxLiveTournaments {
			for other, was := range l.byT {
				l.bytes -= was.bytes
				delete(l.byT, other)
				break
			}
		}
		ls = &liveSeq{seq: seq, parts: map[liveKey]*livePart{}}
		l.byT[t] = ls
	}
	if p := ls.parts[key]; p != nil {
		return p, false
	}
	if len(ls.parts) < maxLiveParts {
		ls.parts[key] = fresh
	}
	return fresh, true
}

// forget drops key's part at t's seq if it is part.
func (l *liveParts) forget(t string, key liveKey, part *livePart) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ls := l.byT[t]; ls != nil && ls.parts[key] == part {
		delete(ls.parts, key)
	}
}

// keep counts the rendered part of key at t's seq among the bytes kept,
// or drops it past maxLiveBytes (the readers waiting for it have it).
func (l *liveParts) keep(t string, key liveKey, part *livePart) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.byT[t]
	if ls == nil || ls.parts[key] != part {
		return
	}
	if n := len(part.body); l.bytes+n <= maxLiveBytes {
		l.bytes += n
		ls.bytes += n
		return
	}
	delete(ls.parts, key)
}

// liveOnly is a rendered page cut down to its live parts: the elements
// marked data-live that have an id, as rendered, in a body with the
// page's own attributes (data-seq among them). A part that only a table
// may hold (tbody, tr) keeps a table around it, so that the browser parses
// it. The page's frame is tokenized, to find the body and the parts' start
// tags among its attributes; a part is then taken whole up to the end tag
// that closes its own (the templates close every element they mark),
// counting the start and end tags of its name (partLen).
func liveOnly(page []byte) []byte {
	var out bytes.Buffer
	out.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>")
	z := html.NewTokenizer(bytes.NewReader(page))
	at := 0 // where in page the tokenizer's next token starts
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		pos := at
		at += len(z.Raw())
		if tt != html.StartTagToken {
			continue
		}
		tn, more := z.TagName()
		tag := string(tn)
		if tag == "body" {
			out.Write(page[pos:at])
			out.WriteString("\n")
			continue
		}
		live, id := false, false
		for more {
			var k []byte
			k, _, more = z.TagAttr()
			live, id = live || string(k) == "data-live", id || string(k) == "id"
		}
		if !live || !id {
			continue
		}
		open, end := "", ""
		switch tag {
		case "tbody", "thead", "tfoot":
			open, end = "<table>", "</table>"
		case "tr":
			open, end = "<table><tbody>", "</tbody></table>"
		}
		n := partLen(page[pos:], tag)
		out.WriteString(open)
		out.Write(page[pos : pos+n])
		out.WriteString(end + "\n")
		at = pos + n
		z = html.NewTokenizer(bytes.NewReader(page[at:]))
	}
	out.WriteString("</body></html>\n")
	return out.Bytes()
}

// partLen is the length of the element that b starts with, tag name, up
// to the end of the end tag that closes it (all of b if none does). In
// what html/template writes, a '<' is markup: it escapes one in text and
// in attribute values, and the live parts hold no script or style, whose
// text it does not; so the element's own start and end tags are found
// without tokenizing its content.
func partLen(b []byte, name string) int {
	depth := 0
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return len(b)
		}
		i += j + 1
		closing := i < len(b) && b[i] == '/'
		k := i
		if closing {
			k++
		}
		if k+len(name) >= len(b) || !bytes.EqualFold(b[k:k+len(name)], []byte(name)) {
			continue
		}
		switch b[k+len(name)] {
		case '>', ' ', '\t', '\n', '\r', '\f', '/':
		default:
			continue // a longer name: <tbody> is not <tb>
		}
		if !closing {
			depth++
			continue
		}
		if depth--; depth == 0 {
			gt := bytes.IndexByte(b[k:], '>')
			if gt < 0 {
				return len(b)
			}
			return k + gt + 1
		}
	}
}

// The standings on a player's page are every player's, the player's own
// row marked: their rows are rendered once per seq and language
// (standing-row in me.html) and shared by the players' pages, each of
// which marks its own.

// myStandings is the standings' rows around a player's: the rows before
// it, its own (marked), the rows after it.
type myStandings struct{ Before, Mine, After template.HTML }

// standingRows are a tournament's standings rows at seq in a language:
// all of them in one text, row i from at[i] to at[i+1].
type standingRows struct {
	seq     uint64
	lang    string
	players map[string]int // row by player
	all     string
	at      []int
}

// myStandings is the standings as player id's page shows them.
func (u *UI) myStandings(p *page, id string) *myStandings {
	key := p.T + "\x00" + p.Lang
	u.rowsMu.Lock()
	rows := u.rows[key]
	u.rowsMu.Unlock()
	if rows == nil || rows.seq != p.State.Summary.Seq {
		rows = u.standingRows(p)
		u.rowsMu.Lock()
		if len(u.rows) >= maxLiveTournaments {
			clear(u.rows)
		}
		u.rows[key] = rows
		u.rowsMu.Unlock()
	}
	i, ok := rows.players[id]
	if !ok {
		return &myStandings{Before: template.HTML(rows.all)}
	}
	row := rows.all[rows.at[i]:rows.at[i+1]]
	return &myStandings{
		Before: template.HTML(rows.all[:rows.at[i]]),
		Mine:   template.HTML(`<tr class="me"` + strings.TrimPrefix(row, "<tr")),
		After:  template.HTML(rows.all[rows.at[i+1]:]),
	}
}

// standingRows renders p's standings rows.
func (u *UI) standingRows(p *page) *standingRows {
	st := p.State
	rows := &standingRows{seq: st.Summary.Seq, lang: p.Lang, players: map[string]int{}, at: []int{0}}
	var b strings.Builder
	t := u.pages["me"]
	for i, row := range st.Standings.Rows {
		if err := t.ExecuteTemplate(&b, "standing-row", map[string]any{"Row": row, "P": p}); err != nil {
			u.opts.Logger.Error("web: render", "page", "standing-row", "err", err)
		}
		rows.players[row.Player] = i
		rows.at = append(rows.at, b.Len())
	}
	rows.all = b.String()
	return rows
}

// A player's page changes with few of the tournament's seqs: its table
// with the table's own events (the draw, proposals, confirmations, the
// result), its scores and standings with results, its sanctions and
// contestations with theirs. Two parts of it are kept as last rendered,
// per tournament, player and language, with what they were rendered from,
// and served while that is the same: the player's table (my-table in
// me.html), within every render of the page; and the page's live parts as
// a whole (live.js's read), which at most seqs of a hall whose tables
// report themselves are the same for all but the four players of one
// table. Forms' keys are served with what they were rendered in, which is
// as safe as serving one render of a seq to every reader of it: a part
// with forms changes with every command its forms send that is accepted.
// What they were rendered from is compared with reflect.DeepEqual: the
// state's views are never changed by the fold, and a difference it sees
// where there is none (a nil and an empty list) only renders a part again.

// maxTableBytes bounds the players' tables kept, all tournaments together
// (about 2,000 tables with their report forms), and maxAnswerBytes their
// pages' live parts (about 2,000 pages of a 140-player tournament's
// standings): past them all are let go, and rendered again as they are
// read.
const (
	maxTableBytes  = 16 << 20
	maxAnswerBytes = 48 << 20
)

// playerKey names a part of a player's page: the tournament, the player
// and the language.
type playerKey struct{ t, player, lang string }

// kept holds parts of players' pages as last rendered, with what each
// showed (S), within max bytes in all.
type kept[S any] struct {
	mu    sync.Mutex
	max   int
	parts map[playerKey]*keptPart[S]
	bytes int
}

// keptPart is a part as rendered, and what it was rendered from.
type keptPart[S any] struct {
	shows S
	html  string
}

// get returns key's part, when it shows what shows says.
func (k *kept[S]) get(key playerKey, shows S) (string, bool) {
	k.mu.Lock()
	last := k.parts[key]
	k.mu.Unlock()
	if last == nil || !reflect.DeepEqual(last.shows, shows) {
		return "", false
	}
	return last.html, true
}

// keep keeps html as key's part, rendered from shows, within k.max bytes:
// past them every part is let go first.
func (k *kept[S]) keep(key playerKey, shows S, html string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if was := k.parts[key]; was != nil {
		k.bytes -= len(was.html)
		delete(k.parts, key)
	}
	if k.bytes+len(html) > k.max {
		clear(k.parts)
		k.bytes = 0
	}
	if k.parts == nil {
		k.parts = map[playerKey]*keptPart[S]{}
	}
	k.parts[key] = &keptPart[S]{shows: shows, html: html}
	k.bytes += len(html)
}

// tableShows is everything the my-table part of me.html reads but its
// forms' keys: the table (its proposals and result among it), the
// player's seat and standing with the proposal, the names it may say, the
// ruleset's closings, whether the tournament is closed, the form it is
// filled from and the language. A change to that template that reads
// something else adds it here (TestMyPageAsRendered compares the part
// served with the part rendered afresh, seq after seq).
type tableShows struct {
	mySeat
	Lang     string
	Closed   bool
	Closings []events.Closing
	Player   string
	Round    int
	Names    map[string]string
	Form     url.Values
}

// myTable is the my-table part of player v's page p: as last rendered
// when it shows the same and the reader did not ask for a fresh page
// (fresh: a reload that asks for no cache, whose render is its own), else
// rendered now. A page that says a problem (a refused form, refilled)
// renders its own.
func (u *UI) myTable(p *page, v *myView, fresh bool) template.HTML {
	if p.Problem != nil || len(p.Errs) > 0 {
		return ""
	}
	if fresh {
		return u.renderTable(p)
	}
	in := &tableShows{mySeat: v.mySeat, Lang: p.Lang, Closed: p.Closed(), Closings: p.State.Summary.Ruleset.Closings,
		Player: v.Player.Player, Names: map[string]string{}, Form: p.Form}
	if v.Round != nil {
		in.Round = v.Round.Number
	}
	if tb := v.Table; tb != nil {
		for _, id := range tb.Players {
			in.Names[id] = p.Name(id)
		}
		for _, pr := range tb.Proposals {
			in.Names[pr.By] = p.Name(pr.By)
			for _, d := range pr.Disputes {
				in.Names[d.Player] = p.Name(d.Player)
			}
			for id := range pr.Confirmed {
				in.Names[id] = p.Name(id)
			}
		}
	}
	key := playerKey{t: p.T, player: p.Me.Official, lang: p.Lang}
	if html, ok := u.tables.get(key, in); ok {
		return template.HTML(html)
	}
	html := u.renderTable(p)
	if html != "" {
		u.tables.keep(key, in, string(html))
	}
	return html
}

// renderTable renders the my-table part of p ("" when it cannot).
func (u *UI) renderTable(p *page) template.HTML {
	var b strings.Builder
	if err := u.pages["me"].ExecuteTemplate(&b, "my-table", p); err != nil {
		u.opts.Logger.Error("web: render", "page", "my-table", "err", err)
		return ""
	}
	return template.HTML(b.String())
}

// answerShows is everything the live parts of me.html and the body they
// are served in read but the seq and the forms' keys: the address, the
// page's name and whether the tournament is closed (the body's class),
// the player's table as served, the scores (the player's row, the
// published classification's, its label and proof file), the standings'
// rows, the sanctions (with their reasons as said) and the contestations.
// A change to those parts that reads something else adds it here
// (TestMyPageAsRendered).
type answerShows struct {
	URI, Title     string
	Closed         bool
	Table          template.HTML
	Row            *projections.StandingsRow
	Published      *events.ClassificationRow
	ProofPath      string
	Classification string
	Standings      myStandings
	Sanctions      []*projections.Sanction
	Said           []string
	Contestations  []*projections.Contestation
}

// myAnswer writes the live parts of player v's page p, read live, to rec,
// table being the player's table as the page shows it: as last served,
// with p's seq, when they show the same and the reader did not ask for a
// fresh page; else rendered, and kept. A page that says a problem, whose
// table is its own (myTable), is rendered and not kept.
func (u *UI) myAnswer(rec *recorder, r *http.Request, p *page, v *myView, table template.HTML, fresh bool) error {
	if fresh || table == "" {
		return u.render(rec, "me", http.StatusOK, p)
	}
	in := &answerShows{URI: r.URL.RequestURI(), Title: p.Title, Closed: p.Closed(), Table: table,
		Row: v.Row, Published: v.Published, ProofPath: v.ProofPath, Classification: p.ClassificationKey(),
		Sanctions: v.Sanctions, Contestations: v.Contestations}
	if v.Standings != nil {
		in.Standings = *v.Standings
	}
	for _, s := range v.Sanctions {
		in.Said = append(in.Said, p.Say(s.Reason))
	}
	key := playerKey{t: p.T, player: p.Me.Official, lang: p.Lang}
	if live, ok := u.answers.get(key, in); ok {
		before, after, _ := aroundSeq(live) // kept only when it has a seq
		htmlHeaders(rec)
		rec.live = true
		_, _ = rec.Write([]byte(before + strconv.FormatUint(p.State.Summary.Seq, 10) + after))
		return nil
	}
	rec.keep = func(live []byte) {
		// A page as it stood (?at=) carries no seq to stamp: not kept.
		if _, _, ok := aroundSeq(string(live)); ok {
			u.answers.keep(key, in, string(live))
		}
	}
	return u.render(rec, "me", http.StatusOK, p)
}

// aroundSeq splits live parts around the digits of the seq their body
// carries (data-seq, which html/template writes quoted and escapes in
// every text and value: the first is the body's).
func aroundSeq(live string) (before, after string, ok bool) {
	const attr = ` data-seq="`
	i := strings.Index(live, attr)
	if i < 0 {
		return "", "", false
	}
	i += len(attr)
	j := strings.IndexByte(live[i:], '"')
	if j < 0 {
		return "", "", false
	}
	return live[:i], live[i+j:], true
}
