package web_test

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/mux"

	"github.com/referto/referto/api/web"
)

// TestALiveRefusedStreamRecoversInABrowser serves a page with the UI's own
// live.js whose first stream is refused with 503, which a browser's
// EventSource never retries. The page reads itself again at once and opens
// a new stream a few seconds later; when that one says the next seq, the
// page shows it, without a reload.
func TestALiveRefusedStreamRecoversInABrowser(t *testing.T) {
	shots, bctx := browserTest(t)
	var mu sync.Mutex
	seq, streams, reads := 1, 0, 0
	r := mux.NewRouter()
	ui, err := web.New(web.Options{Random: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}
	ui.Register(r)
	r.Path("/live/page").HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		n := seq
		if req.Header.Get(web.LiveHeader) == "1" {
			reads++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>vivo</title></head><body data-live-stream="/live/stream" data-seq="%d">
<h1>Pagina</h1><p id="part" data-live>%d</p><script src="/static/live.js"></script></body></html>`, n, n)
	})
	r.Path("/live/stream").HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		streams++
		first := streams == 1
		if !first {
			seq = 2
		}
		n := seq
		mu.Unlock()
		if first {
			http.Error(w, "troppi", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "retry: 1000\n\nid: %d\nevent: seq\ndata: %d\n\n", n, n)
		w.(http.Flusher).Flush()
		<-req.Context().Done()
	})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)

	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // opens the tab, for as long as the test
		t.Fatalf("a tab of its own: %v", err)
	}
	page := &session{t: t, ctx: ctx, cancel: cancel, base: srv.URL, shots: shots}
	page.do("open the page", chromedp.Navigate(srv.URL+"/live/page"), chromedp.WaitVisible("#part"),
		chromedp.Evaluate[chromedp.Void](`window.__noReload = true`))
	page.until("the refused stream is opened again and says seq 2", `document.getElementById("part").innerText === "2"`)
	if reload := page.js(`String(window.__noReload === true)`); reload != "true" {
		t.Errorf("the page was reloaded")
	}
	mu.Lock()
	defer mu.Unlock()
	if streams < 2 || reads < 2 {
		t.Errorf("%d streams and %d live reads, want the refused stream opened again and a read after the refusal and after seq 2", streams, reads)
	}
}
