package web

import (
	"net/http"
	"net/url"
	"strconv"
)

// The printable lists are printed a page at a time: a tournament of
// thousands of players would otherwise make one page of tens of MB of
// HTML (a QR code a player), hundreds of MB of the server's memory to
// build, and more than a browser prints. Each page holds what one sitting
// at the printer needs.
const (
	linksPerPage = 100 // players' link slips
	slipsPerPage = 25  // tables' slips, about 100 seat tickets
)

// pager is one page of a list printed in pages (?page=N, from 1): the
// page shown, how many there are, and the addresses of the pages around
// it ("" at either end).
type pager struct {
	Page, Of   int
	Prev, Next string
}

// pageOf is the page r asks for of a list of n items, per to a page, with
// the range of the list it holds ([from, to)); a page past the end is the
// last one.
func pageOf(r *http.Request, n, per int) (from, to int, pg pager) {
	pg.Of = max(1, (n+per-1)/per)
	pg.Page = min(max(1, atoiOr(r.URL.Query().Get("page"), 1)), pg.Of)
	at := func(page int) string {
		q := url.Values{"page": {strconv.Itoa(page)}}
		return r.URL.Path + "?" + q.Encode()
	}
	if pg.Page > 1 {
		pg.Prev = at(pg.Page - 1)
	}
	if pg.Page < pg.Of {
		pg.Next = at(pg.Page + 1)
	}
	from = (pg.Page - 1) * per
	return from, min(n, from+per), pg
}
