package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/web"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// Options configures the API server.
type Options struct {
	// Node, when set, provides every one of Ledger, Log, Store, Runner,
	// Keys and Conn left unset: the API over a running node.
	Node *node.Node
	// Ledger is where commands go. Required.
	Ledger *ledger.Ledger
	// Log is the log reads come from. Required.
	Log Log
	// Store holds the projections reads are served from. Required.
	Store Store
	// Runner keeps Store current and holds the tournaments' state. Required.
	Runner Runner
	// Keys sign checkpoints. Required.
	Keys *checkpoint.Keys
	// Conn is the NATS connection the log uses, whose state /readyz
	// reports; nil leaves it out.
	Conn Conn
	// AdminTokenSHA256 is the hex SHA-256 of the administrator's bearer
	// token. Required.
	AdminTokenSHA256 string
	// Clock stamps log lines and times authentication failures; the
	// default is time.Now. (The ledger's clock stamps events.)
	Clock func() time.Time
	// Random supplies token, idempotency-key and seed bytes; the default is
	// crypto/rand.Reader. Concurrent requests read it under one lock, so
	// any reader will do (a fixed one in tests, to replay decisions).
	Random io.Reader
	// MaxBody is the largest request body accepted; the default is 1 MiB.
	MaxBody int64
	// Logger receives request errors; nil discards.
	Logger *slog.Logger
	// Hub, when set, makes this the API of a national hub: read-only,
	// serving only the venues' tournaments it verified, with POST and GET
	// /v1/venues and the checkpoints it cosigned.
	Hub Hub
	// Registry, when set (with Hub), is the hub's season registry: POST
	// /v1/registry/commands (the administrator), GET /v1/registry and its
	// export, and what the season's ranking reads.
	Registry SeasonRegistry
	// Cosigned, when set, gives the last checkpoint of a tournament a
	// hub cosigned (at a venue: api/hub.Cosignatures; at a hub, the
	// default, its own): the checkpoint of that size is served with the
	// cosignature, and the classification carries it (CosignedHeader).
	Cosigned func(t string) (signed string, size uint64, ok bool)
	// Inspect, when set, looks for damage in tournament t's log after a read
	// of it failed (node.Node.Inspect): found, it is marked and
	// returned. The default, with a Node, is the node's.
	Inspect func(ctx context.Context, t string) (ledger.Damage, bool)
	// PublicURL is the base URL players' phones open this server at, which
	// the web UI prints in the slips' QR codes (ServeConfig.PublicURL,
	// PublicURL). The default ("") is the address each browser used.
	PublicURL string
	// MaxStreams bounds the live streams served at once (stream.go); the
	// default is DefaultMaxStreams. MaxStreamsPerTournament bounds those
	// of one tournament; the default is DefaultMaxStreamsPerTournament,
	// or MaxStreams when that is smaller.
	MaxStreams, MaxStreamsPerTournament int
	// Renders bounds the web UI's pages rendered at once; the default is
	// GOMAXPROCS less one, at least one (web.Options.Renders).
	Renders int
	// CommandsFirst is how long, at most, the live pages' work (a live
	// stream's next event, a page's live read) waits while any command
	// of the server is in flight, so that an arbiter's command is not
	// queued behind the pages a result sets reading; the default is
	// DefaultCommandsFirst, a negative value never waits.
	CommandsFirst time.Duration
	// Metrics are served at /metrics; the default is new ones. Pass the
	// ones the node observes with (node.NodeOptions.Observer) for its
	// appends, retries and applied commits to be counted.
	Metrics *Metrics
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *Options) EnsureDefaults() {
	o.fromNode()
	if o.Hub != nil && o.Cosigned == nil {
		o.Cosigned = o.Hub.Cosigned
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Random == nil {
		o.Random = rand.Reader
	} else {
		o.Random = &lockedReader{r: o.Random}
	}
	if o.MaxBody == 0 {
		o.MaxBody = 1 << 20
	}
	if o.MaxStreams == 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.CommandsFirst == 0 {
		o.CommandsFirst = DefaultCommandsFirst
	}
	if o.MaxStreamsPerTournament == 0 {
		o.MaxStreamsPerTournament = min(DefaultMaxStreamsPerTournament, o.MaxStreams)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
}

// Validate reports every problem at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Ledger == nil {
		errs = append(errs, errors.New("api: Ledger is required"))
	}
	if o.Log == nil {
		errs = append(errs, errors.New("api: Log is required"))
	}
	if o.Store == nil {
		errs = append(errs, errors.New("api: Store is required"))
	}
	if o.Runner == nil {
		errs = append(errs, errors.New("api: Runner is required"))
	}
	if o.Keys == nil {
		errs = append(errs, errors.New("api: Keys are required"))
	}
	if b, err := hex.DecodeString(o.AdminTokenSHA256); err != nil || len(b) != sha256.Size {
		errs = append(errs, errors.New("api: AdminTokenSHA256 must be a hex SHA-256"))
	}
	if o.MaxBody < 0 {
		errs = append(errs, errors.New("api: MaxBody must not be negative"))
	}
	if o.MaxStreams < 0 || o.MaxStreamsPerTournament < 0 || o.Renders < 0 {
		errs = append(errs, errors.New("api: MaxStreams, MaxStreamsPerTournament and Renders must not be negative"))
	}
	if o.Registry != nil && o.Hub == nil {
		errs = append(errs, errors.New("api: Registry is a national hub's: set Hub too"))
	}
	return errors.Join(errs...)
}

// Server is the HTTP API.
type Server struct {
	opts   Options
	router *mux.Router

	// reader serves every read of the tournaments, the JSON routes' and
	// the web pages'; streams counts the live streams served (stream.go).
	reader  *projections.Reader
	streams streamCount
	bell    streamBell
	// inFlight counts the commands the live pages give way to (inflight.go).
	inFlight commandsInFlight

	authFailures authLimiter // failed authentications per client address (auth.go)

	metrics    *Metrics      // served at /metrics (metrics.go)
	handler    http.Handler  // the router, observed (requests.go)
	requestSeq atomic.Uint64 // request ids when Random fails
}

// Reads of the log beside the projections, each a scan of a tournament's
// commits: maxFolds past states (?at=, anyone's) and maxExports exports
// (officials', at a venue or a hub) at the same time, apart so that a
// flood of anonymous past states never keeps an auditor's export waiting.
// One more waits up to scanWait for a slot, then is refused with 503 and
// Retry-After.
const (
	maxFolds   = 2
	maxExports = 8
	scanWait   = time.Second
)

// New returns a server; serve it with Handler.
func New(opts Options) (*Server, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, router: mux.NewRouter(), metrics: opts.Metrics,
		streams: streamCount{most: opts.MaxStreams, mostT: opts.MaxStreamsPerTournament}}
	reader, err := projections.NewReader(projections.ReaderOptions{Log: opts.Log, Store: opts.Store, Memory: opts.Runner,
		Acked: opts.Ledger.AwaitAcked, Served: s.served, Inspect: s.inspect, NextPhase: commands.NextPhase,
		Folds: maxFolds, Exports: maxExports, FoldWait: scanWait})
	if err != nil {
		return nil, err
	}
	s.reader = reader
	s.metrics.watchLog(opts.Log, opts.Runner, opts.Store)
	if err := s.routes(); err != nil {
		return nil, err
	}
	s.router.Use(recordRoute, s.readYourWrites)
	if opts.Hub != nil {
		s.router.Use(s.hubGate)
	}
	s.handler = s.observe(s.router)
	return s, nil
}

// Handler returns the root handler: the routes, each request logged and
// measured.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() error {
	r := s.router
	r.HandleFunc("/healthz", s.healthz).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/readyz", s.readyz).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/metrics", s.metrics.handler(slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelError))).Methods(http.MethodGet, http.MethodHead)

	// Full paths on the root router, not a PathPrefix subrouter: in
	// gorilla/mux 1.8.1 a subrouter's routes inherit the prefix matcher,
	// which clears an earlier route's method mismatch, turning 405 into 404.
	r.HandleFunc("/v1/tournaments", s.serve(s.listTournaments)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments", s.serve(s.postTournament)).Methods(http.MethodPost)
	r.HandleFunc("/v1/tournaments/{t}", s.serve(s.getTournament)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/officials", s.serve(s.postOfficial)).Methods(http.MethodPost)
	r.HandleFunc("/v1/tournaments/{t}/officials", s.serve(s.getOfficials)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/commands", s.serve(s.postCommand)).Methods(http.MethodPost)
	r.HandleFunc("/v1/tournaments/{t}/draft", s.serve(s.postDraft)).Methods(http.MethodPost)
	r.HandleFunc("/v1/tournaments/{t}/players", s.serve(s.getPlayers)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/events", s.serve(s.getEvents)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/rounds/{r}/tables", s.serve(s.getTables)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/standings", s.serve(s.getStandings)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/classification", s.serve(s.getClassification)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/state", s.serve(s.getState)).Methods(http.MethodGet)
	r.HandleFunc("/v1/me", s.serve(s.getMe)).Methods(http.MethodGet)
	r.HandleFunc("/v1/rulesets", s.getRulesets).Methods(http.MethodGet)
	r.HandleFunc("/v1/keys", s.getKeys).Methods(http.MethodGet)
	r.HandleFunc("/v1/openapi.yaml", s.getOpenAPI).Methods(http.MethodGet)
	checkpointH, exportH := s.getCheckpoint, s.getExport
	if s.opts.Hub != nil {
		checkpointH, exportH = s.hubCheckpoint, s.hubExport
		s.hubRoutes(r)
	}
	if s.opts.Registry != nil {
		s.registryRoutes(r)
	}
	r.HandleFunc("/v1/tournaments/{t}/checkpoint", s.serve(checkpointH)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/events/{seq}/proof", s.serve(s.getProof)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/consistency", s.serve(s.getConsistency)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/export", s.serve(exportH)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/workbook", s.serve(s.getWorkbook)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/workbook", s.serve(s.postWorkbook)).Methods(http.MethodPost)
	r.HandleFunc("/v1/tournaments/{t}/players/{p}/proof", s.serve(s.getPlayerProof)).Methods(http.MethodGet)
	r.HandleFunc("/v1/seasons/{s}/ranking", s.serve(s.getSeasonRanking)).Methods(http.MethodGet)
	r.HandleFunc("/v1/seasons/{s}/players/{id}", s.serve(s.getSeasonPlayer)).Methods(http.MethodGet)
	r.HandleFunc("/v1/admin/backup", s.serve(s.getBackup)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/player-tokens", s.serve(s.postPlayerTokens)).Methods(http.MethodPost)
	r.HandleFunc("/v1/tournaments/{t}/player-tokens", s.serve(s.getPlayerTokens)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/stream", s.serve(s.getStream)).Methods(http.MethodGet)
	r.HandleFunc("/v1/tournaments/{t}/classification/rows/{player}/proof", s.serve(s.getRowProof)).Methods(http.MethodGet)

	// The web UI reads through the same reader as the routes above and its
	// forms call the command services they call; its pages are routes of
	// this router, behind the same middleware.
	ui, err := web.New(web.Options{Random: s.opts.Random, Logger: s.opts.Logger, PublicURL: s.opts.PublicURL, Damage: s.damageForUI,
		Reads: s.reader, Me: s.pageMe, Authorize: s.pageAuthorize, PlayerLinks: s.playerLinks, SeasonPlayer: s.seasonPlayer, Cosigned: s.opts.Cosigned, Hub: s.opts.Hub != nil,
		Renders: s.opts.Renders, Commands: s.webCommands(), CommandsFirst: s.giveWay})
	if err != nil {
		return err
	}
	ui.Register(r)

	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if uiPath(req.URL.Path) {
			ui.NotFound(w, req)
			return
		}
		s.writeError(w, req, errNotFound)
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if uiPath(req.URL.Path) {
			ui.MethodNotAllowed(w, req, s.allowed(req))
			return
		}
		s.writeError(w, req, errMethod)
	})
	return nil
}

// uiPath reports whether path is below the web UI's: a page it does not
// serve, or a method it does not take there, is answered by the UI, as a
// page in the browser's language, rather than as a problem.
func uiPath(path string) bool {
	return slices.ContainsFunc(web.Paths(), func(prefix string) bool { return strings.HasPrefix(path, prefix) })
}

// allowed lists the methods some route takes for r's path, for Allow.
func (s *Server) allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		var match mux.RouteMatch
		try := r.Clone(r.Context())
		try.Method = m
		if s.router.Match(try, &match) && match.MatchErr == nil {
			out = append(out, m)
		}
	}
	return out
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeRaw writes stored JSON as it is.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte("\n"))
}

// readBody reads a request body of at most MaxBody bytes.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, errTooLarge
	}
	if err != nil {
		return nil, errors.Join(errBadRequest, err)
	}
	return b, nil
}

func (s *Server) randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.opts.Random, b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// lockedReader serializes reads of an injected Random: requests are served
// concurrently, and a reader such as a strings.Reader is not safe for that.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}
