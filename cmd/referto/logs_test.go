package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
)

// TestServeLogsJSONAtItsLevel runs serve with its log going to a buffer (not
// a terminal, so JSON lines) at two levels: at info every request has its
// line, at warn neither requests nor start-up notes are logged.
func TestServeLogsJSONAtItsLevel(t *testing.T) {
	for _, level := range []string{"info", "warn"} {
		t.Run(level, func(t *testing.T) {
			var stderr logBuffer
			serveFor(t, []string{"--log-level", level}, &stderr, func(url string) {
				res, err := (&client.Client{Base: url}).Send(context.Background(), "GET", "/v1/tournaments", nil, http.Header{"X-Request-Id": {"log-test-1"}})
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != 200 || res.Header.Get("X-Request-Id") != "log-test-1" {
					t.Errorf("GET /v1/tournaments: %d, X-Request-Id %q", res.StatusCode, res.Header.Get("X-Request-Id"))
				}
			})
			var request map[string]any
			levels := map[string]int{}
			for line := range strings.SplitSeq(strings.TrimSpace(stderr.String()), "\n") {
				if line == "" {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("log line is not JSON: %q", line)
				}
				levels[m["level"].(string)]++
				if m["request_id"] == "log-test-1" {
					request = m
				}
			}
			switch level {
			case "info":
				if request == nil || request["route"] != "/v1/tournaments" || request["status"] != float64(200) {
					t.Errorf("request log line = %v\nlog:\n%s", request, stderr.String())
				}
			case "warn":
				if request != nil || levels["INFO"] > 0 || levels["DEBUG"] > 0 {
					t.Errorf("at --log-level warn the log has %v:\n%s", levels, stderr.String())
				}
			}
		})
	}
}

// logBuffer is a log written by the server's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveFor runs `referto serve` in-process on a temporary directory with
// extra flags and its log on stderr, calls fn with its URL once ready, then
// stops it.
func serveFor(t *testing.T, flags []string, stderr io.Writer, fn func(url string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		args := append([]string{"serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0"}, flags...)
		done <- run(ctx, args, func(k string) string {
			return map[string]string{"REFERTO_ADMIN_TOKEN": "log-test-admin"}[k]
		}, pw, stderr)
		pw.Close()
	}()
	listening := regexp.MustCompile(`listening on (http://\S+)`)
	sc := bufio.NewScanner(pr)
	var url string
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		t.Fatalf("serve did not print its address: %v", <-done)
	}
	for deadline := time.Now().Add(20 * time.Second); !(&client.Client{Base: url}).Ready(ctx); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not ready within 20s")
		}
	}
	fn(url)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}
