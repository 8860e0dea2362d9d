package api

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/referto/referto/api/node"
)

// MaxHeaderBytes is the most a request's line and header fields may take:
// more is answered 431 headers_too_large, as problem+json.
const MaxHeaderBytes = 64 << 10

// netHTTPHeaderBytes is what net/http itself reads of a request's header
// before it gives up and answers 431 in plain text, written by net/http
// where no handler can reach it (as are its other refusals of requests it
// cannot parse: a malformed request line or header field, 400; an HTTP
// version it does not speak, 505; an unknown transfer coding, 501; an
// Expect it does not support, 417). It is net/http's default, far above
// MaxHeaderBytes, so that the API answers what it can.
const netHTTPHeaderBytes = 1 << 20

// HTTPServer is the HTTP server referto serves its API with: h behind the
// timeouts and header limits the API's answers assume.
func HTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    netHTTPHeaderBytes,
	}
}

// Serve serves h on ln (HTTPServer) until ctx is done, the server fails or
// node's projections stop. When ctx is done it stops accepting and drains
// the requests, for up to 3 s, and returns nil.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, node *node.Node, logger *slog.Logger) error {
	srv := HTTPServer(h)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		return fmt.Errorf("http: %w", err)
	case <-node.RunnerDone():
		return fmt.Errorf("projections stopped: %w", node.Runner.Err())
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return nil
}

// headerBytes is the size of r's request line and header fields as sent.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len("Host: \r\n") + len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// guard answers requests whose headers are over MaxHeaderBytes with 431,
// and a handler's panic with 500, both as problem+json (the panic logged
// with its stack) instead of net/http's plain text or cut connection. A
// handler that aborts a response on purpose (http.ErrAbortHandler) still
// does.
func (s *Server) guard(w *statusWriter, r *http.Request, next http.Handler) {
	if n := headerBytes(r); n > MaxHeaderBytes {
		s.writeError(w, r, fmt.Errorf("%w: %d bytes of request line and header fields, over the %d KiB limit", errHeadersTooLarge, n, MaxHeaderBytes>>10))
		return
	}
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler {
			panic(p)
		}
		s.opts.Logger.Error("panic serving a request", "method", r.Method, "path", r.URL.Path,
			"request_id", w.Header().Get(RequestIDHeader), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		if w.status != 0 {
			panic(http.ErrAbortHandler) // the answer has begun: cut it rather than end it as if whole
		}
		s.writeError(w, r, fmt.Errorf("api: panic: %v", p))
	}()
	next.ServeHTTP(w, r)
}
