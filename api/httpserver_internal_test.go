package api

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api/problem"
)

// TestAPanicIsAProblem: a handler's panic is answered 500 as problem+json
// and logged with its stack, not a cut connection; one that panics after
// its answer began, or aborts on purpose, still cuts it.
func TestAPanicIsAProblem(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{opts: Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Clock: time.Now, Random: &lockedReader{r: strings.NewReader(strings.Repeat("r", 1<<10))}},
		metrics: NewMetrics()}
	mux := http.NewServeMux()
	mux.HandleFunc("/boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("/late", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(200)
		_, _ = w.Write([]byte("partial"))
		panic("late boom")
	})
	mux.HandleFunc("/abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	srv := httptest.NewServer(s.observe(mux))
	defer srv.Close()

	res, err := http.Get(srv.URL + "/boom")
	if err != nil {
		t.Fatalf("a panic cut the connection: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var p problem.Problem
	if res.StatusCode != 500 || res.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal(b, &p) != nil || p.Code != "internal" {
		t.Errorf("a panic: %d %s %s, want a 500 problem", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	if !strings.Contains(logs.String(), `"panic":"boom"`) || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic is not logged with its stack: %s", logs.String())
	}
	for _, path := range []string{"/late", "/abort"} {
		res, err := http.Get(srv.URL + path)
		if err == nil {
			b, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		if err == nil {
			t.Errorf("%s: answered %d %q as if whole, want the connection cut", path, res.StatusCode, b)
		}
	}
}
