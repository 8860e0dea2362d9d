// Package web is referto's web UI for arbiters, the venue screen and the
// appeals committee: server-rendered pages (html/template, assets embedded,
// no build step, no network needed at the venue).
//
// The UI is a second presenter of the API's services. Every page reads
// through the API's own read side (Options.Reads, a projections.Reader),
// with the official's token checked as the API checks it (Options.Me,
// Options.Authorize): a page refuses what the route refuses, with the same
// problem. Every form calls the service behind its command route
// (Options.Commands: the one POST /v1/tournaments/{t}/commands runs, and
// those that create, appoint, issue links, draft and import) directly,
// with the official's token and the browser's address. Validation,
// authorization, the idempotency key's binding and the problem details a
// refused command carries are therefore exactly the API's; the UI only
// decides what to offer, from the role GET /v1/me reports, and the server
// refuses the rest anyway.
package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the UI.
type Options struct {
	// Random makes idempotency keys for forms (crypto/rand in production).
	// Pages are served concurrently: it must be safe for concurrent reads
	// (api.Server passes its own, read under a lock).
	Random io.Reader
	// Logger receives rendering errors; nil discards.
	Logger *slog.Logger
	// PublicURL is the base URL players' phones open the server at, which
	// the slips' QR codes carry (api.Options.PublicURL). The default ("")
	// is the address the browser showing the page used.
	PublicURL string
	// Damage, when set, lists the tournaments whose logs are damaged: each
	// page says so at its top, with what to do.
	Damage func() []Damage
	// Reads are where every page reads the tournaments from, as the API's
	// routes read them (projections.Reader).
	Reads Reads
	// Me says who token acts as (GET /v1/me's answer), for the page
	// answering r; Authorize refuses token, for tournament t, a read only
	// roles may make, with the problem the API refuses it with. Reads, Me
	// and Authorize are required by every page; the static files and
	// Register's routes need none of them.
	Me        func(r *http.Request, token string) (Me, error)
	Authorize func(r *http.Request, token, t string, roles ...string) error
	// PlayerLinks are tournament t's live personal links, and the players
	// whose live link another key made (GET .../player-tokens's answer).
	// Required by the pages that print them.
	PlayerLinks func(t string) (links []PlayerLink, elsewhere []string, err error)
	// SeasonPlayer is a player's season in the national ranking (GET
	// /v1/seasons/{s}/players/{id}'s answer). Required by its page.
	SeasonPlayer func(season, id string) (SeasonPlayer, error)
	// Cosigned, when set, gives the last checkpoint of tournament t a hub
	// cosigned (api.Options.Cosigned); Hub says this server is the hub.
	Cosigned func(t string) (signed string, size uint64, ok bool)
	Hub      bool
	// Commands are the API's command services, which the forms call
	// directly, as its JSON handlers do. A form whose service is unset is
	// refused as an internal error.
	Commands Commands
	// Renders is how many pages are rendered at once; the default is
	// GOMAXPROCS less one, at least one, so that a core stays free for
	// the commands. The other pages wait their turn; commands never do.
	Renders int
	// CommandsFirst, when set, is called before a live read of a page
	// (LiveHeader) is served, and returns when it may go on: while the
	// server's commands are in flight, a hall's live reads wait for them
	// (api.Options.CommandsFirst).
	CommandsFirst func(ctx context.Context)
}

// Reads are the reads of the tournaments the pages make: each answers
// what the API's route of the same name answers, without JSON between
// them (projections.Reader has them all).
type Reads interface {
	// Fresh returns once tournament t may be read: served here, and read
	// after every command this node acknowledged for it.
	Fresh(ctx context.Context, t string) error
	Tournaments() ([]json.RawMessage, error)
	State(t string) (*projections.TournamentView, error)
	StateAt(ctx context.Context, t string, seq uint64) (*projections.TournamentView, error)
	Standings(t string) (projections.Standings, error)
	Classification(t string) (projections.Classification, error)
	Officials(t string) ([]projections.OfficialRow, error)
	Events(ctx context.Context, t string, from, limit uint64) (projections.EventPage, error)
}

// PlayerLink is a player's personal link, as GET
// /v1/tournaments/{t}/player-tokens lists it.
type PlayerLink struct {
	Player string `json:"player"`
	Token  string `json:"token"`
	Link   string `json:"link"`
	Issued uint64 `json:"issued,omitempty"`
}

// Commands are the services of the API's command routes (api wires its
// own): each authenticates and authorizes the call's credentials, binds
// its idempotency key, submits through the ledger and counts the command,
// exactly as for a JSON client, and returns the ledger's outcome or an
// error carrying its code (events/fault), which the page shows as a
// Problem.
type Commands struct {
	// Submit is POST /v1/tournaments/{t}/commands.
	Submit func(ctx context.Context, c CommandCall) (ledger.Outcome, error)
	// Create is POST /v1/tournaments (the body names the tournament).
	Create func(ctx context.Context, c CommandCall) (ledger.Outcome, error)
	// Appoint is POST /v1/tournaments/{t}/officials: it also returns the
	// official's token, shown once.
	Appoint func(ctx context.Context, c CommandCall) (o ledger.Outcome, token string, err error)
	// IssueLinks is POST /v1/tournaments/{t}/player-tokens.
	IssueLinks func(ctx context.Context, c CommandCall) (ledger.Outcome, error)
	// Draft is POST /v1/tournaments/{t}/draft: the events a draw would
	// append, decided on seq, appending nothing.
	Draft func(ctx context.Context, c CommandCall) (seq uint64, evs []events.Event, err error)
	// ImportWorkbook is POST /v1/tournaments/{t}/workbook: c's body is
	// the workbook, recorded in scope, named fileName.
	ImportWorkbook func(ctx context.Context, c CommandCall, scope, fileName string) (workbook.Imported, error)
}

// CommandCall is one form's command as a command service reads it.
type CommandCall struct {
	// Token and RemoteAddr are the official's token and the browser's
	// address, which failed authentications count against.
	Token, RemoteAddr string
	// Tournament is the tournament the command is for ("" when the
	// command creates it).
	Tournament string
	// Body is the command, as commands.Encode writes it.
	Body io.Reader
	// Key is the idempotency key; "" for a fresh one.
	Key string
	// IfMatch are the If-Match field lines; none for no condition.
	IfMatch []string
}

// Damage is a tournament's log found damaged, as every page shows it; with
// no Tournament, the log's stream lost acknowledged messages at its end
// and every command is refused.
type Damage struct {
	Tournament string
	// Seq is the first damaged event; Acknowledged how many events were
	// acknowledged (0: unknown).
	Seq, Acknowledged uint64
	// What is the ledger's own account of it; Repair the command that
	// repairs it.
	What, Repair string
}

// UI serves the pages.
type UI struct {
	opts  Options
	pages map[string]*template.Template
	// renders holds a slot per page being rendered; live the live parts
	// of the tournaments' pages (live.go).
	renders chan struct{}
	live    liveParts
	// rows holds the standings rows of the players' pages, by tournament
	// and language, at the seq last rendered (live.go).
	rowsMu sync.Mutex
	rows   map[string]*standingRows
	// tables holds the my-table part of each player's page as last
	// rendered, and answers the live parts of each player's page as last
	// read live, each with what it showed (live.go).
	tables  kept[*tableShows]
	answers kept[*answerShows]
}

// Cookie names: the official's token (HttpOnly, SameSite=Strict) and the
// language.
const (
	tokenCookie = "referto_token"
	langCookie  = "referto_lang"
)

// New builds the UI.
func New(opts Options) (*UI, error) {
	if opts.Random == nil {
		return nil, fmt.Errorf("web: Random is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Renders <= 0 {
		opts.Renders = max(1, runtime.GOMAXPROCS(0)-1)
	}
	u := &UI{opts: opts, pages: map[string]*template.Template{}, renders: make(chan struct{}, opts.Renders),
		rows: map[string]*standingRows{}, tables: kept[*tableShows]{max: maxTableBytes}, answers: kept[*answerShows]{max: maxAnswerBytes}}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("web: %s: %w", n, err)
		}
		u.pages[base] = t
	}
	return u, nil
}

// Paths lists the path prefixes the UI owns: below them, a path or method
// the UI does not serve is answered in plain text, as to a browser.
func Paths() []string { return []string{"/ui/", "/static/"} }

// Register adds the UI's pages to r, the router of the API it is a client
// of, so that one router and one middleware chain serve both. A GET page
// answers HEAD too.
func (u *UI) Register(r *mux.Router) {
	static, _ := fs.Sub(staticFS, "static")
	r.PathPrefix("/static/").Methods(http.MethodGet, http.MethodHead).Handler(http.StripPrefix("/static/", http.FileServerFS(static)))
	r.Path("/").Methods(http.MethodGet).HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ui/", http.StatusFound) })
	// A tournament's overview is its directory: without the slash, redirect.
	r.Path("/ui/t/{t}").Methods(http.MethodGet, http.MethodHead, http.MethodPost).HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, (&url.URL{Path: r.URL.Path + "/", RawQuery: r.URL.RawQuery}).String(), http.StatusTemporaryRedirect)
	})
	for _, p := range []struct {
		method, path string
		h            handler
	}{
		{"GET", "/ui/", u.home},
		{"POST", "/ui/", u.createTournament},
		{"GET", "/ui/login", u.loginPage},
		{"POST", "/ui/login", u.login},
		{"POST", "/ui/logout", u.logout},
		{"GET", "/ui/lang/{lang}", u.setLang},
		{"GET", "/ui/t/{t}/", u.overview},
		{"POST", "/ui/t/{t}/", u.overviewPost},
		{"GET", "/ui/t/{t}/players", u.players},
		{"POST", "/ui/t/{t}/players", u.playersPost},
		{"POST", "/ui/t/{t}/players/workbook", u.workbookPost},
		{"GET", "/ui/t/{t}/rounds/{r}", u.round},
		{"POST", "/ui/t/{t}/rounds/{r}", u.roundPost},
		{"GET", "/ui/t/{t}/rounds/{r}/screen", u.screen},
		{"GET", "/ui/t/{t}/rounds/{r}/slips", u.slips},
		{"GET", "/ui/t/{t}/rounds/{r}/tables/{n}", u.resultForm},
		{"POST", "/ui/t/{t}/rounds/{r}/tables/{n}", u.resultPost},
		{"GET", "/ui/t/{t}/standings", u.standings},
		{"POST", "/ui/t/{t}/standings", u.standingsPost},
		{"GET", "/ui/t/{t}/standings.csv", u.standingsCSV},
		{"GET", "/ui/t/{t}/sanctions", u.sanctions},
		{"POST", "/ui/t/{t}/sanctions", u.sanctionsPost},
		{"GET", "/ui/t/{t}/contestations", u.contestations},
		{"POST", "/ui/t/{t}/contestations", u.contestationsPost},
		{"GET", "/ui/t/{t}/events", u.eventLog},
		{"GET", "/ui/join", u.join},
		{"GET", "/ui/t/{t}/me", u.myPage},
		{"POST", "/ui/t/{t}/me", u.myPost},
		{"GET", "/ui/t/{t}/links", u.linksPage},
		{"POST", "/ui/t/{t}/links", u.linksPost},
		{"GET", "/ui/t/{t}/classification", u.classification},
		{"GET", "/ui/t/{t}/screen", u.tournamentScreen},
		{"GET", "/ui/t/{t}/at/{seq}", u.at},
		{"GET", "/ui/seasons/{s}/players/{id}", u.seasonPlayer},
	} {
		methods, h := []string{p.method}, u.serve(p.h)
		if p.method == http.MethodGet {
			methods, h = append(methods, http.MethodHead), u.rendered(h)
		}
		r.Path(p.path).Methods(methods...).Handler(pathValues(h))
	}
}

// pathValues hands the route's variables to h as the request's path
// values, which the pages read (Request.PathValue): gorilla/mux keeps them
// apart (mux.Vars).
func pathValues(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range mux.Vars(r) {
			r.SetPathValue(k, v)
		}
		h(w, r)
	})
}

// Problem is an API problem detail (package problem), as a page shows it.
type Problem struct {
	problem.Problem
	// Said marks a problem the UI itself wrote, in the page's language;
	// Headline, when set, is what the page heads it with.
	Said     bool   `json:"-"`
	Headline string `json:"-"`
}

// recorder is a minimal in-memory ResponseWriter: a live part is
// rendered into one (live.go).
type recorder struct {
	h      http.Header
	status int
	buf    bytes.Buffer
	// For a live read (renderLive): live says the handler wrote the
	// page's live parts only, and keep, when set, is given the live parts
	// served.
	live bool
	keep func(live []byte)
}

func (r *recorder) Header() http.Header { return r.h }
func (r *recorder) WriteHeader(s int) {
	if r.status == 0 {
		r.status = s
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.buf.Write(b)
}

// command submits one command for tournament t with the form's
// idempotency key, and If-Match when ifMatch is set; a *Problem when
// refused.
func (u *UI) command(r *http.Request, t string, cmd commands.Command, ifMatch ...string) (ledger.Outcome, *Problem, error) {
	return u.submit(r, u.opts.Commands.Submit, t, formKey(r, u), cmd, ifMatch...)
}

// submit sends cmd to a command service under an idempotency key, encoded
// as every client of the API encodes it (commands.Encode): the service
// binds the key to that encoding, as it binds a JSON client's body, so a
// key stands for the same command from a page and from the API.
func (u *UI) submit(r *http.Request, service func(context.Context, CommandCall) (ledger.Outcome, error), t, key string,
	cmd commands.Command, ifMatch ...string) (ledger.Outcome, *Problem, error) {
	if service == nil {
		return ledger.Outcome{}, nil, errNoService
	}
	body, err := commands.Encode(cmd)
	if err != nil {
		return ledger.Outcome{}, nil, err
	}
	o, err := service(r.Context(), u.commandCall(r, t, body, key, ifMatch...))
	if err != nil {
		return ledger.Outcome{}, u.problemFor(r, err), nil
	}
	if len(o.Events) == 0 {
		return ledger.Outcome{}, nil, fmt.Errorf("web: the ledger accepted a %s but answered no event", cmd.CommandType())
	}
	return o, nil, nil
}

// errNoService refuses a form whose command service the UI was not given.
var errNoService = errors.New("web: no command service for this form (Options.Commands)")

// commandCall is the request a form makes of a command service: as the
// official logged in, from the browser's address, so that a failed
// authentication counts against that browser (the API's limit on failed
// authentications) rather than against the UI as a whole.
func (u *UI) commandCall(r *http.Request, t string, body []byte, key string, ifMatch ...string) CommandCall {
	return CommandCall{Token: token(r), RemoteAddr: r.RemoteAddr, Tournament: t, Body: bytes.NewReader(body), Key: key, IfMatch: ifMatch}
}

// problemFor is the problem a command service's refusal is shown as; an
// internal error goes to the log, and the page says only that it was one.
func (u *UI) problemFor(r *http.Request, err error) *Problem {
	p := &Problem{Problem: *problem.Of(err)}
	if p.Code == fault.Internal {
		u.opts.Logger.Error("web: "+r.URL.Path, "err", err)
	}
	return p
}

// formKey is the idempotency key of the submitted form: its _key (one per
// form of a rendered page, FormKey), or a fresh one.
func formKey(r *http.Request, u *UI) string {
	key := r.PostFormValue("_key")
	if key == "" {
		key = u.newKey()
	}
	return "ui-" + key
}

// said is a problem the UI writes itself, in the page's language: the
// label key formatted with args, answered with code's status.
func said(lang string, code fault.Code, field, key string, args ...any) *Problem {
	p := &Problem{Problem: *problem.New(code, trf(lang, key, args...)), Said: true}
	p.Field = field
	return p
}

// refusal is the problem the API answers a failed read with, as a page
// shows it; a fault of the server comes back as the error it is, for the
// page to log it and say only that (fail).
func refusal(err error) (*Problem, error) {
	if fault.CodeOf(err) == fault.Internal {
		return nil, err
	}
	return &Problem{Problem: *problem.Of(err)}, nil
}

// internalProblem is a fault of the server, said as one; the error goes to
// the log, not to the page.
func (u *UI) internalProblem(r *http.Request, err error) *Problem {
	u.opts.Logger.Error("web: "+r.URL.Path, "err", err)
	return said(lang(r), fault.Internal, "", "code_internal")
}

// newKey is a fresh idempotency key for a rendered page; each of its forms
// has its own, derived from it (FormKey): submitting the same form twice
// (a double click, a reload) records the command once, and every other
// form of the page is a command of its own.
func (u *UI) newKey() string {
	b := make([]byte, 12)
	if _, err := io.ReadFull(u.opts.Random, b); err != nil {
		return ""
	}
	return hex.EncodeToString(b)
}

// base is the server's address as the players' links carry it: the
// public URL, or the one this browser used.
func (u *UI) base(r *http.Request) string {
	if u.opts.PublicURL != "" {
		return u.opts.PublicURL
	}
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// loopback reports a base URL that only the machine running the server
// can open (127.0.0.1, ::1, localhost): a phone cannot.
func loopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

func token(r *http.Request) string {
	if c, err := r.Cookie(tokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// sameOrigin refuses a form posted from another site (the cookie is
// SameSite=Strict already; this also covers browsers that ignore it).
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return r.Header.Get("Sec-Fetch-Site") != "cross-site"
	}
	ou, err := url.Parse(o)
	return err == nil && ou.Host == r.Host
}
