package api_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api"
)

// openStream opens tournament t's live stream; cancel closes it.
func (s *stack) openStream(t string) (*http.Response, context.CancelFunc) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.srv.URL+"/v1/tournaments/"+t+"/stream", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		s.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		s.t.Fatalf("stream of %s: %d %s, want a 200 event stream", t, res.StatusCode, res.Header.Get("Content-Type"))
	}
	return res, func() { cancel(); res.Body.Close() }
}

// firstEvent reads a stream's retry and its first event.
func firstEvent(t *testing.T, res *http.Response) string {
	t.Helper()
	var b strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "data: ") {
			return b.String()
		}
	}
	t.Fatalf("the stream ended before its first event: %q", b.String())
	return ""
}

// TestStreamsPastTheirBoundsComeBackLater bounds the streams at 2 for the
// server and 1 for a tournament. A stream past a bound is not refused with
// an error status, which a browser's EventSource would never retry: it is
// a stream that says the seq, asks to come back in 15 s and ends. A
// stream within the bounds stays open; once one closes, its place is free.
func TestStreamsPastTheirBoundsComeBackLater(t *testing.T) {
	s := &stack{t: t, dir: t.TempDir(), apiOptions: func(o *api.Options) { o.MaxStreams, o.MaxStreamsPerTournament = 2, 1 }}
	s.start()
	t.Cleanup(s.stop)
	s.create("uno", "rtu")
	s.create("due", "rtu")
	s.create("tre", "rtu")

	held, closeHeld := s.openStream("uno")
	if got := firstEvent(t, held); !strings.HasPrefix(got, "retry: 2000\n") {
		t.Fatalf("the first stream: %q, want retry: 2000 and the seq", got)
	}
	full := func(tour, why string) {
		t.Helper()
		res, cancel := s.openStream(tour)
		defer cancel()
		b, err := io.ReadAll(res.Body) // it ends by itself
		if err != nil {
			t.Fatalf("%s: %v", why, err)
		}
		if !regexp.MustCompile(`^retry: 15000\n\nid: \d+\nevent: seq\ndata: \d+\n\n$`).Match(b) {
			t.Errorf("%s: %q, want the seq, a retry of 15 s and the end", why, b)
		}
	}
	full("uno", "a second stream of a tournament bounded at 1")
	other, closeOther := s.openStream("due")
	defer closeOther()
	if got := firstEvent(t, other); !strings.HasPrefix(got, "retry: 2000\n") {
		t.Fatalf("another tournament's stream: %q, want it open", got)
	}
	full("tre", "a third stream of a server bounded at 2")

	closeHeld()
	for try := 0; ; try++ {
		res, cancel := s.openStream("uno")
		got := firstEvent(t, res)
		cancel()
		if strings.HasPrefix(got, "retry: 2000\n") {
			break
		}
		if try == 100 {
			t.Fatalf("the closed stream's place is still taken: %q", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
