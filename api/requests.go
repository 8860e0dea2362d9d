package api

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"github.com/referto/referto/events"
)

// RequestIDHeader carries a request's id: taken from the request when well
// formed, generated otherwise, and returned on every response.
const RequestIDHeader = "X-Request-Id"

// requestInfo is what one HTTP request's log line and metrics report,
// filled in as the request is handled. The web UI's reads and its calls
// of the command services share the browser request's context, hence its
// requestInfo: the route stays the browser's, and the tournament and actor
// those calls name fill in what it lacks.
type requestInfo struct {
	mu         sync.Mutex
	route      string // the gorilla/mux path template, "" until matched
	tournament string
	actor      string // the authenticated official's id
}

type requestInfoKey struct{}

func infoOf(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return ri
}

// setRoute records the matched route and its tournament, unless an
// enclosing request already did.
func (ri *requestInfo) setRoute(route, tournament string) {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	if ri.route == "" {
		ri.route = route
	}
	if ri.tournament == "" && events.ValidID(tournament) {
		ri.tournament = tournament
	}
}

// setActor records the authenticated official, once per request.
func (ri *requestInfo) setActor(official string) {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	if ri.actor == "" {
		ri.actor = official
	}
}

func (ri *requestInfo) get() (route, tournament, actor string) {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	return ri.route, ri.tournament, ri.actor
}

// recordActor notes who a request acts as, for its log line.
func recordActor(ctx context.Context, p principal) {
	if ri := infoOf(ctx); ri != nil {
		ri.setActor(p.Official)
	}
}

// recordRoute is router middleware: it notes the matched route's template
// (never the path: ids would make the metrics unbounded) and tournament.
func recordRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ri := infoOf(r.Context()); ri != nil {
			if cur := mux.CurrentRoute(r); cur != nil {
				tmpl, _ := cur.GetPathTemplate()
				ri.setRoute(tmpl, mux.Vars(r)["t"])
			}
		}
		next.ServeHTTP(w, r)
	})
}

// statusWriter remembers the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// probes are the routes polled by orchestrators and scrapers: their log
// lines are at debug level, so that polling does not drown the log.
var probes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// observe wraps the router: every request gets an id, one log line and
// its HTTP metrics. The log line holds no header, query string or body,
// so no token reaches the log.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !validRequestID(id) {
			id = s.newRequestID()
		}
		w.Header().Set(RequestIDHeader, id)
		ri := &requestInfo{}
		sw := &statusWriter{ResponseWriter: w}
		s.guard(sw, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, ri)), next)
		elapsed := time.Since(start)

		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		route, tournament, actor := ri.get()
		if route == "" {
			route = "unmatched"
		}
		method := methodLabel(r.Method)
		s.metrics.httpRequests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		s.metrics.httpSeconds.WithLabelValues(route, method).Observe(elapsed.Seconds())

		level := slog.LevelInfo
		if probes[route] {
			level = slog.LevelDebug
		}
		h := s.opts.Logger.Handler()
		if !h.Enabled(r.Context(), level) {
			return
		}
		attrs := []slog.Attr{slog.String("request_id", id), slog.String("method", method), slog.String("route", route),
			slog.Int("status", status), slog.Float64("latency_ms", float64(elapsed.Microseconds())/1000)}
		if tournament != "" {
			attrs = append(attrs, slog.String("tournament", tournament))
		}
		if actor != "" {
			attrs = append(attrs, slog.String("actor", actor))
		}
		// Stamped by the server's clock, as its events are.
		rec := slog.NewRecord(s.opts.Clock(), level, "http request", 0)
		rec.AddAttrs(attrs...)
		_ = h.Handle(r.Context(), rec)
	})
}

// validRequestID accepts an incoming request id of 1 to 64 letters, digits,
// '-', '_' and '.': anything else (too long, spaces, quotes, control
// characters) is replaced rather than copied into logs.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// newRequestID returns 16 hex digits from the server's random source (or,
// should it fail, a number unique within this server).
func (s *Server) newRequestID() string {
	id, err := s.randomHex(8)
	if err != nil {
		return "seq-" + strconv.FormatUint(s.requestSeq.Add(1), 10)
	}
	return id
}

// methodLabel bounds the method label: a client may send any token.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}
