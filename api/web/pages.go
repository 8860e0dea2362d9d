package web

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/ranking"
)

// Me is who a token acts as, as GET /v1/me answers: the role, the name,
// and the commands the role may send under the tournament's ruleset.
type Me struct {
	Role       string   `json:"role"`
	Tournament string   `json:"tournament"`
	Official   string   `json:"official"`
	Name       string   `json:"name"`
	Commands   []string `json:"commands"`
}

// page is what every template gets.
type page struct {
	Lang    string
	Me      *Me
	T       string // tournament id, on tournament pages
	State   *projections.TournamentView
	Title   string
	Problem *Problem
	Errs    map[string]string // field → message, from the problem
	Flash   string
	Key     string // the page's idempotency key, from which each form's is made (FormKey)
	Form    url.Values
	Data    any
	Path    string
	// AsOf is the event a past state is shown at (0: now); the round links
	// of the present are not offered over a past state.
	AsOf uint64
	// flash is the query a redirect after a form carried its banner in.
	flash url.Values
	// Damage lists the damaged logs, shown on every page; one without a
	// tournament is the stream's end lost, every command refused.
	Damage []Damage
}

// DamageNote says in the page's language what is wrong with d's log and
// what to do.
func (p *page) DamageNote(d Damage) string {
	if d.Tournament == "" {
		return fmt.Sprintf(p.Tr("log_halted_note"), d.Repair)
	}
	return fmt.Sprintf(p.Tr("log_damaged_note"), d.Tournament, d.Seq, d.Seq-1, max(d.Acknowledged, d.Seq-1), d.Repair)
}

// Tr is the label for key in the page's language: a label's name, or a word
// of one of the ledger's vocabularies (a phase, a player's status, a way a
// game ends: events.Phase, events.PlayerStatus, events.Closing, …).
func (p *page) Tr(key any) string { return tr(p.Lang, fmt.Sprint(key)) }

// Why says why a result of the national ranking does not count, in the
// page's language.
func (p *page) Why(w ranking.Why) string { return whyText(p.Lang, w) }

// Can reports whether the official may send commands of type typ: what
// they may not do is not offered (the server refuses it anyway).
func (p *page) Can(typ string) bool { return p.Me != nil && slices.Contains(p.Me.Commands, typ) }

// Admin reports an administrator session.
func (p *page) Admin() bool { return p.Me != nil && p.Me.Role == events.RoleAdmin }

// Name is a player's name, or the id when unknown.
func (p *page) Name(id string) string {
	if p.State != nil {
		for _, row := range p.State.Players {
			if row.Player == id {
				return row.Name
			}
		}
	}
	return id
}

// FormKey is the idempotency key of the page's form name: each form of a
// rendered page has its own, so that sending one form never replays
// another's command.
func (p *page) FormKey(name string) string { return p.Key + "-" + name }

// Value is the submitted value of a form field (to re-fill a refused form).
func (p *page) Value(name string) string { return p.Form.Get(name) }

func (u *UI) newPage(r *http.Request, title string) *page {
	p := &page{Lang: lang(r), Title: title, Key: u.newKey(), Errs: map[string]string{}, Form: url.Values{}, Path: r.URL.Path}
	if tok := token(r); tok != "" {
		if m, err := u.opts.Me(r, tok); err == nil {
			p.Me = &m
		}
	}
	p.flash = r.URL.Query()
	if u.opts.Damage != nil {
		p.Damage = u.opts.Damage()
	}
	return p
}

// flash is the banner a page shows after a form was accepted: what the
// ledger answered, carried through the redirect (post/redirect/get).
type flash struct {
	event string // the type of the commit's first event, or "imported"
	arg   string // what it concerns: a player, a table, a count
	seq   uint64 // the commit's last seq
	again bool   // recorded by an earlier submission of the same form: nothing was appended now
}

// flashOf is the banner for what the ledger answered to a command: its
// first event that has a banner (a draw may first seat a reserve), or its
// first event.
func flashOf(a ledger.Outcome, arg string) *flash {
	f := &flash{event: a.Events[0].Type, arg: arg, seq: a.Seq, again: a.Replayed}
	for _, e := range a.Events {
		if hasLabel("done_" + e.Type) {
			f.event = e.Type
			break
		}
	}
	return f
}

func (f *flash) query() url.Values {
	q := url.Values{"ok": {f.event}}
	if f.arg != "" {
		q.Set("arg", f.arg)
	}
	if f.seq > 0 {
		q.Set("seq", strconv.FormatUint(f.seq, 10))
	}
	if f.again {
		q.Set("again", "1")
	}
	return q
}

// flashText renders the banner a redirect's query carries, a player
// named by name.
func flashText(lang string, q url.Values, name func(string) string) string {
	ev := q.Get("ok")
	if ev == "" {
		return ""
	}
	arg := q.Get("arg")
	if n := name(arg); n != "" {
		arg = n
	}
	text := strings.TrimSpace(tr(lang, "done_"+ev) + " " + arg)
	if seq, err := strconv.ParseUint(q.Get("seq"), 10, 64); err == nil {
		text += fmt.Sprintf(" (%s %d)", tr(lang, "seq"), seq)
	}
	if q.Get("again") != "" {
		text = tr(lang, "done_again") + " " + text
	}
	return text
}

// tournamentPage loads the tournament's state (at seq when not 0).
func (u *UI) tournamentPage(r *http.Request, title string, seq uint64) (*page, error) {
	p := u.newPage(r, title)
	p.T = r.PathValue("t")
	var err error
	if seq == 0 {
		p.State, err = u.state(r, p.T)
	} else if err = u.opts.Reads.Fresh(r.Context(), p.T); err == nil {
		p.State, err = u.opts.Reads.StateAt(r.Context(), p.T, seq)
	}
	if err != nil {
		return nil, p.fail(refusal(err))
	}
	return p, nil
}

// state is tournament t's state as it stands, read for the page answering
// r as GET /v1/tournaments/{t}/state reads it. It is shared by every page
// of the same seq, which must not modify it.
func (u *UI) state(r *http.Request, t string) (*projections.TournamentView, error) {
	if err := u.opts.Reads.Fresh(r.Context(), t); err != nil {
		return nil, err
	}
	return u.opts.Reads.State(t)
}

// homeData is what the list of tournaments shows: the tournaments served
// here, and the presets a new one may follow.
func (u *UI) homeData() (map[string]any, error) {
	raw, err := u.opts.Reads.Tournaments()
	if err != nil {
		return nil, err
	}
	list := make([]projections.Summary, len(raw))
	for i, b := range raw {
		if err := json.Unmarshal(b, &list[i]); err != nil {
			return nil, err
		}
	}
	rs := []events.Ruleset{}
	for _, id := range events.Presets() {
		r, _ := events.Preset(id)
		rs = append(rs, r)
	}
	return map[string]any{"Tournaments": list, "Rulesets": rs}, nil
}

// render writes page name with status; it returns nil, a page it cannot
// render being answered here, as text.
func (u *UI) render(w http.ResponseWriter, name string, status int, p *page) error {
	// The banner of an earlier form, carried in the address, says nothing
	// about this answer when it is a refusal.
	if p.Problem == nil && p.Flash == "" {
		p.Flash = flashText(p.Lang, p.flash, p.knownName)
	}
	t := u.pages[name]
	if t == nil {
		http.Error(w, tr(p.Lang, "render_failed"), http.StatusInternalServerError)
		return nil
	}
	var buf strings.Builder
	if err := t.Execute(&buf, p); err != nil {
		u.opts.Logger.Error("web: render", "page", name, "err", err)
		http.Error(w, tr(p.Lang, "render_failed"), http.StatusInternalServerError)
		return nil
	}
	htmlHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
	return nil
}

// htmlHeaders sets the headers of every page.
func htmlHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

// handler is a page or a form that returns its failure rather than
// rendering it: serve renders it, once.
type handler func(w http.ResponseWriter, r *http.Request) error

// serve adapts h to http: a failure h returns is rendered by fail.
func (u *UI) serve(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			u.fail(w, r, err)
		}
	}
}

// failure is a page's or a form's failure: prob, or when nil err, a fault
// of the server, said on page p; form names the page a refused form is
// rendered again on ("": the problem's page of its own).
type failure struct {
	p    *page
	form string
	prob *Problem
	err  error
}

func (f *failure) Error() string {
	if f.prob != nil {
		return f.prob.Error()
	}
	return f.err.Error()
}

// fail is prob (or err) said on p as a page of its own.
func (p *page) fail(prob *Problem, err error) error { return &failure{p: p, prob: prob, err: err} }

// refused is page name's form refused: prob (or err) said on p, the page
// rendered again with the form as sent.
func (p *page) refused(name string, prob *Problem, err error) error {
	return &failure{p: p, form: name, prob: prob, err: err}
}

// refuse is the form of the tournament's page name refused, said on the
// page as data fills it.
func (u *UI) refuse(r *http.Request, name string, prob *Problem, err error, data func(p *page)) error {
	p, perr := u.tournamentPage(r, name, 0)
	if perr != nil {
		return perr
	}
	data(p)
	return p.refused(name, prob, err)
}

// fail renders err, the one way a failure becomes a page: a problem as a
// page of its own, or a refused form's page again with each message at
// the field it names; an error that is no failure is a fault of the
// server, logged, its page saying only that.
func (u *UI) fail(w http.ResponseWriter, r *http.Request, err error) {
	f, ok := errors.AsType[*failure](err)
	if !ok {
		f = &failure{p: u.newPage(r, "error"), err: err}
	}
	p := f.p
	if p.Problem = f.prob; p.Problem == nil {
		p.Problem = u.internalProblem(r, f.err)
	}
	if f.form != "" {
		p.Form = r.PostForm
		formUsed(p)
		p.Errs = p.fieldErrors()
		u.render(w, f.form, p.Problem.Status, p)
		return
	}
	status := p.Problem.Status
	if status < 400 {
		status = http.StatusBadGateway
	}
	u.render(w, "problem", status, p)
}

// formUsed says, for a form sent again with other values (the browser's
// back button, a page kept open), what happened: nothing, and the page
// now rendered has fresh keys.
func formUsed(p *page) {
	if p.Problem.Code == ledger.KeyReused {
		p.Problem.Detail = fmt.Sprintf(tr(p.Lang, "form_used"), p.Problem.Seq)
		p.Problem.Field, p.Problem.Errors, p.Problem.Said = "", nil, true
	}
}

// done redirects after an accepted form (post/redirect/get) to a page that
// shows f (nil: no banner); a fragment ("#player-p001") brings the arbiter
// back to the row they were on.
func done(w http.ResponseWriter, r *http.Request, to string, f *flash) error {
	to, frag, _ := strings.Cut(to, "#")
	if f != nil {
		to += "?" + f.query().Encode()
	}
	if frag != "" {
		to += "#" + frag
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// maxForm is the most bytes a form post may take.
const maxForm = 1 << 20

// postForm parses a form post, refusing other sites' and oversized ones,
// each as a page in the page's language.
func (u *UI) postForm(w http.ResponseWriter, r *http.Request) error {
	if !sameOrigin(r) {
		return u.refusedPage(r, "form_refused", fault.Forbidden, "cross_site")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			return u.refusedPage(r, "form_refused", problem.TooLarge, "form_too_large", maxForm>>20)
		}
		return u.refusedPage(r, "form_refused", fault.Invalid, "form_unreadable")
	}
	return nil
}

// refusedPage is a request refused before it became a command (a form:
// "form_refused"): a page of its own, title, saying why (the label key
// formatted with args), nothing recorded.
func (u *UI) refusedPage(r *http.Request, title string, code fault.Code, key string, args ...any) error {
	p := u.newPage(r, title)
	prob := said(p.Lang, code, "", key, args...)
	prob.Headline = tr(p.Lang, title)
	return p.fail(prob, nil)
}

// NotFound answers a path below the UI's that it does not serve: a page in
// the browser's language, as every refusal.
func (u *UI) NotFound(w http.ResponseWriter, r *http.Request) {
	u.fail(w, r, u.refusedPage(r, "page_not_found", fault.NotFound, "page_not_found_help"))
}

// MethodNotAllowed answers a request a page of the UI does not take (a
// form sent to a page that has none, a PUT): a page in the browser's
// language; allow lists the methods it takes.
func (u *UI) MethodNotAllowed(w http.ResponseWriter, r *http.Request, allow []string) {
	w.Header().Set("Allow", strings.Join(allow, ", "))
	u.fail(w, r, u.refusedPage(r, "request_not_taken", problem.MethodNotAllowed, "request_not_taken_help"))
}

func tPath(t string) string { return "/ui/t/" + url.PathEscape(t) + "/" }

// --- tournaments, login, language ---------------------------------------

func (u *UI) home(w http.ResponseWriter, r *http.Request) error {
	p := u.newPage(r, "tournaments")
	d, err := u.homeData()
	if err != nil {
		return p.fail(refusal(err))
	}
	p.Data = d
	return u.render(w, "home", http.StatusOK, p)
}

func (u *UI) createTournament(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	create := &commands.CreateTournament{ID: strings.TrimSpace(f.Get("id")), Name: strings.TrimSpace(f.Get("name")), Ruleset: events.PresetID(f.Get("ruleset")),
		Season: strings.TrimSpace(f.Get("season")), Type: events.TournamentType(f.Get("tournament_type"))}
	var a ledger.Outcome
	var prob *Problem
	var err error
	if create.Params, prob = creationParams(lang(r), f); prob == nil {
		a, prob, err = u.submit(r, u.opts.Commands.Create, "", formKey(r, u), create)
	}
	if err == nil && prob == nil {
		return done(w, r, tPath(r.PostForm.Get("id")), flashOf(a, ""))
	}
	p := u.newPage(r, "tournaments")
	if err != nil {
		return p.fail(nil, err)
	}
	p.Data, _ = u.homeData()
	return p.refused("home", prob, nil)
}

// creationParams are the ruleset's parameters the creation form changes
// from its preset: the qualifying rounds, the knockout phases, the table
// sizes, the discards; a field left empty keeps the preset's.
func creationParams(lang string, f url.Values) (json.RawMessage, *Problem) {
	params, prob := formParams(lang, f)
	if prob != nil || len(params) == 0 {
		return nil, prob
	}
	return marshalParams(lang, params)
}

// amendedParams are the parameters the settings form changes from the
// tournament's ruleset rs, with the creation form's fields: those it sends
// as they already are change nothing and are left out; a form that
// changes nothing is refused, saying so.
func amendedParams(lang string, f url.Values, rs events.Ruleset) (json.RawMessage, *Problem) {
	params, prob := formParams(lang, f)
	if prob != nil {
		return nil, prob
	}
	if n, ok := params["qualifying_rounds"].(int); ok && n == rs.QualifyingRounds {
		delete(params, "qualifying_rounds")
	}
	if n, ok := params["discards"].(int); ok && n == rs.Discards {
		delete(params, "discards")
	}
	if k, ok := params["knockout"].(string); ok && k == string(rs.Knockout) {
		delete(params, "knockout")
	}
	if sizes, ok := params["table_sizes"].([]int); ok && len(sizes) == len(rs.TableSizes) && !slices.ContainsFunc(sizes, func(n int) bool { return !slices.Contains(rs.TableSizes, n) }) {
		delete(params, "table_sizes") // the same sizes, in the ruleset's order of preference
	}
	if len(params) == 0 {
		return nil, said(lang, fault.Invalid, "params", "params_unchanged")
	}
	return marshalParams(lang, params)
}

// rulesetForm is a ruleset as the parameters' fields hold it.
func rulesetForm(rs events.Ruleset) url.Values {
	f := url.Values{"qualifying_rounds": {strconv.Itoa(rs.QualifyingRounds)}, "knockout": {string(rs.Knockout)}, "discards": {strconv.Itoa(rs.Discards)}}
	for _, n := range rs.TableSizes {
		f.Add("table_sizes", strconv.Itoa(n))
	}
	return f
}

// formParams reads the parameters' fields; one left empty is not there.
func formParams(lang string, f url.Values) (map[string]any, *Problem) {
	params := map[string]any{}
	for _, k := range []string{"qualifying_rounds", "discards"} {
		if v := strings.TrimSpace(f.Get(k)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, said(lang, fault.Invalid, "params."+k, "whole_number")
			}
			params[k] = n
		}
	}
	if v := f.Get("knockout"); v != "" {
		params["knockout"] = v
	}
	if sizes := f["table_sizes"]; len(sizes) > 0 {
		var ns []int
		for _, v := range sizes {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, said(lang, fault.Invalid, "params.table_sizes", "whole_number")
			}
			ns = append(ns, n)
		}
		params["table_sizes"] = ns
	}
	return params, nil
}

func marshalParams(lang string, params map[string]any) (json.RawMessage, *Problem) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, said(lang, fault.Invalid, "params", "form_unreadable")
	}
	return b, nil
}

func (u *UI) loginPage(w http.ResponseWriter, r *http.Request) error {
	return u.render(w, "login", http.StatusOK, u.newPage(r, "login"))
}

func (u *UI) login(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	m, err := u.opts.Me(r, tok)
	if tok == "" || err != nil {
		p := u.newPage(r, "login")
		p.Problem = said(p.Lang, fault.Unauthorized, "", "bad_token")
		p.Problem.Headline = tr(p.Lang, "login_failed")
		var limited interface{ RetryAfter() string }
		if errors.As(err, &limited) {
			// Locked out for a while after repeated failures: say so, and when.
			p.Problem = &Problem{Problem: *problem.Of(err)}
			w.Header().Set("Retry-After", limited.RetryAfter())
		} else if err != nil && fault.CodeOf(err) != fault.Unauthorized {
			p.Problem = u.problemFor(r, err)
		}
		return u.render(w, "login", p.Problem.Status, p)
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	if m.Tournament != "" {
		return done(w, r, tPath(m.Tournament), nil)
	}
	return done(w, r, "/ui/", nil)
}

func (u *UI) logout(w http.ResponseWriter, r *http.Request) error {
	if !sameOrigin(r) {
		return u.refusedPage(r, "form_refused", fault.Forbidden, "cross_site")
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return done(w, r, "/ui/", nil)
}

func (u *UI) setLang(w http.ResponseWriter, r *http.Request) error {
	l := r.PathValue("lang")
	if _, ok := languages[l]; !ok {
		l = "it"
	}
	http.SetCookie(w, &http.Cookie{Name: langCookie, Value: l, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode})
	back := r.URL.Query().Get("back")
	if !strings.HasPrefix(back, "/ui/") {
		back = "/ui/"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// --- tournament overview ---------------------------------------------------

func (u *UI) overview(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "overview", 0)
	if err != nil {
		return err
	}
	p.Form = rulesetForm(p.State.Summary.Ruleset)
	p.Data = u.overviewData(r, p, "")
	return u.render(w, "overview", http.StatusOK, p)
}

// overviewPost appoints an official (administrator) or publishes the
// classification (arbiter). A new token is shown on the page once, never
// put in a URL.
func (u *UI) overviewPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	t, f := r.PathValue("t"), r.PostForm
	var prob *Problem
	var err error
	newToken := ""
	switch f.Get("_action") {
	case "appoint":
		newToken, prob, err = u.appoint(r, t, &commands.AppointOfficial{Name: f.Get("name"), Role: f.Get("role")})
	case "publish":
		var a ledger.Outcome
		a, prob, err = u.command(r, t, &commands.PublishClassification{Final: f.Get("final") != ""})
		if err == nil && prob == nil {
			return done(w, r, tPath(t), flashOf(a, ""))
		}
	case "amend_ruleset":
		now, perr := u.tournamentPage(r, "overview", 0)
		if perr != nil {
			return perr
		}
		amend := &commands.AmendRuleset{Reason: f.Get("reason")}
		if amend.Params, prob = amendedParams(lang(r), f, now.State.Summary.Ruleset); prob == nil {
			var a ledger.Outcome
			if a, prob, err = u.command(r, t, amend); err == nil && prob == nil {
				return done(w, r, tPath(t)+"#params", flashOf(a, ""))
			}
		}
	case "close", "roll":
		var cmd commands.Command = &commands.CloseTournament{Reason: f.Get("reason")}
		if f.Get("_action") == "roll" {
			cmd = rollForm(f)
		}
		var a ledger.Outcome
		a, prob, err = u.command(r, t, cmd)
		if err == nil && prob == nil {
			return done(w, r, tPath(t), flashOf(a, ""))
		}
	default:
		prob = said(lang(r), fault.Invalid, "", "unknown_action")
	}
	p, perr := u.tournamentPage(r, "overview", 0)
	if perr != nil {
		return perr
	}
	p.Data = u.overviewData(r, p, newToken)
	if err != nil || prob != nil {
		return p.refused("overview", prob, err)
	}
	return u.render(w, "overview", http.StatusOK, p)
}

// --- entry list, CSV import, check-in ----------------------------------------

// appoint appoints the official ap in tournament t, under the form's
// idempotency key, and returns the official's token, shown once.
func (u *UI) appoint(r *http.Request, t string, ap *commands.AppointOfficial) (string, *Problem, error) {
	if u.opts.Commands.Appoint == nil {
		return "", nil, errNoService
	}
	body, err := commands.Encode(ap)
	if err != nil {
		return "", nil, err
	}
	_, tok, err := u.opts.Commands.Appoint(r.Context(), u.commandCall(r, t, body, formKey(r, u)))
	if err != nil {
		return "", u.problemFor(r, err), nil
	}
	return tok, nil, nil
}

func (u *UI) players(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "players", 0)
	if err != nil {
		return err
	}
	data := u.playersData(p)
	p.Data = data
	// After a club workbook's upload (workbookPost): what it recorded.
	if q := r.URL.Query(); q.Get("workbook") != "" {
		var cl projections.Classification
		if q.Get("scope") == events.WorkbookTournament {
			cl, _ = u.opts.Reads.Classification(p.T)
		}
		p.Flash, data["Workbook"] = workbookBanner(p.Lang, q, p.State, cl.Imported)
	}
	return u.render(w, "players", http.StatusOK, p)
}

// callRound is the round whose check-in is open: the first not drawn.
func callRound(st *projections.TournamentView) int { return len(st.Rounds) + 1 }

func (u *UI) playersData(p *page) map[string]any {
	rounds := []int{}
	for i := 1; i <= callRound(p.State); i++ {
		rounds = append(rounds, i)
	}
	// The entry list is the players admitted; a refused registration is
	// listed apart, and counted with none of them.
	var entered, refused, active, reserves []projections.PlayerRow
	for _, row := range p.State.Players {
		if !row.Status.Admitted() {
			refused = append(refused, row)
			continue
		}
		entered = append(entered, row)
		switch row.Status {
		case events.StatusActive:
			active = append(active, row)
		case events.StatusReserve:
			reserves = append(reserves, row)
		}
	}
	return map[string]any{"CallRound": callRound(p.State), "Rounds": rounds, "Entered": entered, "Refused": refused, "Active": active, "Reserves": reserves,
		"Phases": knockoutPhases(p.State), "CurrentRound": max(len(p.State.Rounds), 1)}
}

func (u *UI) playersPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	t := r.PathValue("t")
	f := r.PostForm
	var prob *Problem
	var err error
	var a ledger.Outcome
	var fl *flash
	switch f.Get("_action") {
	case "register":
		cmd := &commands.RegisterPlayer{Player: strings.TrimSpace(f.Get("player")), Name: strings.TrimSpace(f.Get("name")), Club: f.Get("club"), Region: f.Get("region"),
			Minor: f.Get("minor") != "", Waiver: strings.TrimSpace(f.Get("waiver")), NationalID: strings.TrimSpace(f.Get("national_id"))}
		if v := f.Get("rank"); v != "" {
			cmd.Rank = atoiOr(v, -1)
		}
		if a, prob, err = u.command(r, t, cmd); err == nil && prob == nil {
			fl = flashOf(a, cmd.Name)
		}
	case "import":
		var n, again int
		n, again, prob, err = u.importCSV(r, t, f.Get("csv"))
		fl = &flash{event: "imported", arg: strconv.Itoa(n)}
		if again > 0 {
			fl.arg += fmt.Sprintf(" (+%d %s)", again, tr(lang(r), "recorded_before"))
		}
	case "close":
		if a, prob, err = u.command(r, t, &commands.CloseRegistration{}); err == nil && prob == nil {
			fl = flashOf(a, "")
		}
	case "scan":
		// A code scanned from a slip (a personal link) or typed (a
		// player's id) checks that player in, present and on time.
		pp, perr := u.tournamentPage(r, "players", 0)
		if perr != nil {
			return perr
		}
		links, _, _ := u.playerLinks(r, pp, nil)
		player, found := scanned(f.Get("code"), pp.State, links)
		if !found {
			prob = said(lang(r), fault.NotFound, "code", "code_unknown")
			break
		}
		f.Set("player", player)
		cmd := &commands.CheckIn{Round: atoiOr(f.Get("round"), 0), Player: player, MinutesLate: atoiOr(f.Get("minutes_late"), 0)}
		if a, prob, err = u.command(r, t, cmd); err == nil && prob == nil {
			fl = flashOf(a, pp.Name(player))
		}
	case "checkin":
		cmd := &commands.CheckIn{Round: atoiOr(f.Get("round"), 0), Player: f.Get("player"), MinutesLate: atoiOr(f.Get("minutes_late"), 0),
			Absent: f.Get("absent") != ""}
		if a, prob, err = u.command(r, t, cmd); err == nil && prob == nil {
			fl = flashOf(a, f.Get("player"))
		}
	default:
		cmd, arg, known := playerAction(f)
		if !known {
			prob = said(lang(r), fault.Invalid, "", "unknown_action")
			break
		}
		if a, prob, err = u.command(r, t, cmd); err == nil && prob == nil {
			fl = flashOf(a, arg)
		}
	}
	if err == nil && prob == nil {
		to := tPath(t) + "players"
		switch f.Get("_action") {
		case "checkin":
			to += "#player-" + f.Get("player")
		case "scan":
			to += "#scan"
		}
		return done(w, r, to, fl)
	}
	return u.refuse(r, "players", prob, err, func(p *page) { p.Data = u.playersData(p) })
}

// importCSV registers one player per CSV line: player,name[,club[,region[,rank]]]
// (a header line naming "player" is skipped). Each line is its own command,
// keyed by the form's key and the line, so re-sending the form registers
// no one twice. It stops at the first refused line and says which. It
// counts the players registered now and those an earlier sending of the
// form had registered.
func (u *UI) importCSV(r *http.Request, t, text string) (n, again int, _ *Problem, _ error) {
	cr := csv.NewReader(strings.NewReader(text))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	base := formKey(r, u)
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, again, said(lang(r), fault.Invalid, "csv", "csv_line_unreadable", line), nil
		}
		if line == 1 && strings.EqualFold(strings.TrimSpace(rec[0]), "player") {
			continue
		}
		if len(rec) < 2 {
			return n, again, said(lang(r), fault.Invalid, "csv", "csv_line_short", line), nil
		}
		field := func(i int) string {
			if len(rec) > i {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		cmd := &commands.RegisterPlayer{Player: field(0), Name: field(1), Club: field(2), Region: field(3)}
		if v := field(4); v != "" {
			cmd.Rank = atoiOr(v, -1)
		}
		a, prob, err := u.submit(r, u.opts.Commands.Submit, t, fmt.Sprintf("%s-%d", base, line), cmd)
		if err != nil {
			return n, again, nil, err
		}
		if prob != nil {
			var why []string
			for _, l := range viewProblem(lang(r), prob, nil, nil).Lines {
				why = append(why, strings.TrimSpace(l.Field+" "+l.Text))
			}
			refused := said(lang(r), prob.Code, "csv", "csv_line_refused", line, cmd.Player, strings.Join(why, " "))
			refused.Status, refused.Seq = prob.Status, prob.Seq
			return n, again, refused, nil
		}
		if a.Replayed {
			again++
		} else {
			n++
		}
	}
	return n, again, nil, nil
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}

// --- rounds: draw, venue screen, slips --------------------------------------

// roundOf finds round n in the state, nil when not drawn.
func roundOf(st *projections.TournamentView, n int) *projections.Round {
	for _, r := range st.Rounds {
		if r.Number == n {
			return r
		}
	}
	return nil
}

func (u *UI) roundPage(r *http.Request, name string) (*page, error) {
	p, err := u.tournamentPage(r, name, 0)
	if err != nil {
		return nil, err
	}
	n := atoiOr(r.PathValue("r"), 0)
	if n < 1 {
		return nil, p.fail(said(p.Lang, fault.NotFound, "", "no_round"), nil)
	}
	p.Data = map[string]any{"Number": n, "Round": roundOf(p.State, n)}
	return p, nil
}

func (u *UI) round(w http.ResponseWriter, r *http.Request) error {
	p, err := u.roundPage(r, "round")
	if err != nil {
		return err
	}
	return u.render(w, "round", http.StatusOK, p)
}

func (u *UI) roundPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	t, n := r.PathValue("t"), atoiOr(r.PathValue("r"), 0)
	if r.PostForm.Get("_action") == "record_proposal" {
		// The arbiter's one action: the proposal the table's players
		// confirmed, recorded as it stands, naming it.
		table := atoiOr(r.PostForm.Get("table"), 0)
		a, prob, err := u.command(r, t, &commands.RecordResult{Round: n, Table: table, Proposal: r.PostForm.Get("proposal")})
		if err == nil && prob == nil {
			return done(w, r, fmt.Sprintf("%srounds/%d#table-%d", tPath(t), n, table), flashOf(a, strconv.Itoa(table)))
		}
		return u.roundRefused(r, prob, err)
	}
	if cmd, table, ok := roundAction(n, r.PostForm); ok {
		a, prob, err := u.command(r, t, cmd)
		if err == nil && prob == nil {
			return done(w, r, fmt.Sprintf("%srounds/%d#table-%d", tPath(t), n, table), flashOf(a, strconv.Itoa(table)))
		}
		return u.roundRefused(r, prob, err)
	}
	// A draw: its draft, or the confirmation that records it.
	return u.drawPost(w, r)
}

// roundRefused is a form of the round's page refused.
func (u *UI) roundRefused(r *http.Request, prob *Problem, err error) error {
	p, perr := u.roundPage(r, "round")
	if perr != nil {
		return perr
	}
	return p.refused("round", prob, err)
}

func (u *UI) slips(w http.ResponseWriter, r *http.Request) error {
	p, err := u.roundPage(r, "slips")
	if err != nil {
		return err
	}
	{
		// A page of the round's tables at a time (pageOf).
		data := p.Data.(map[string]any)
		onPage := map[string]bool{}
		if rd := data["Round"].(*projections.Round); rd != nil {
			from, to, pg := pageOf(r, len(rd.Tables), slipsPerPage)
			page := *rd
			page.Tables = rd.Tables[from:to]
			for _, tb := range page.Tables {
				for _, id := range tb.Players {
					onPage[id] = true
				}
			}
			data["Round"], data["Pager"] = &page, pg
		}
		// An arbiter's slips carry each player's seat ticket: his personal
		// link as a QR code, to cut off and hand him.
		if p.Can(commands.TypeOf[commands.RevokePlayerToken]()) {
			if links, prob, err := u.playerLinks(r, p, onPage); err == nil && prob == nil {
				p.Data.(map[string]any)["Links"] = links
				p.Data.(map[string]any)["Base"] = u.base(r)
				p.Data.(map[string]any)["Loopback"] = loopback(u.base(r))
				w.Header().Set("Cache-Control", "no-store")
			}
		}
		u.render(w, "slips", http.StatusOK, p)
	}
	return nil
}

// --- result entry (the referto) ---------------------------------------------

// seatFields are the per-player inputs of the table report, in form order:
// the names of commands.SeatInput's figures, each set by seatSetters.
var seatFields = []string{"turn", "table_points", "off_objective_points", "objective_territories", "territories", "armies", "cards", "eliminated_order"}

// seatSetters set a figure of a report's line by its field's name.
var seatSetters = map[string]func(s *commands.SeatInput, n int){
	"turn":                  func(s *commands.SeatInput, n int) { s.Turn = n },
	"table_points":          func(s *commands.SeatInput, n int) { s.TablePoints = &n },
	"off_objective_points":  func(s *commands.SeatInput, n int) { s.OffObjectivePoints = &n },
	"objective_territories": func(s *commands.SeatInput, n int) { s.ObjectiveTerritories = &n },
	"territories":           func(s *commands.SeatInput, n int) { s.Territories = &n },
	"armies":                func(s *commands.SeatInput, n int) { s.Armies = n },
	"cards":                 func(s *commands.SeatInput, n int) { s.Cards = n },
	"eliminated_order":      func(s *commands.SeatInput, n int) { s.EliminatedOrder = n },
}

func (u *UI) resultPage(r *http.Request) (*page, *projections.Table, error) {
	p, err := u.roundPage(r, "result")
	if err != nil {
		return nil, nil, err
	}
	rd, _ := p.Data.(map[string]any)["Round"].(*projections.Round)
	n := atoiOr(r.PathValue("n"), 0)
	if rd == nil {
		return nil, nil, p.fail(said(p.Lang, fault.NotFound, "", "not_drawn"), nil)
	}
	for _, tb := range rd.Tables {
		if tb.Number == n {
			p.Data.(map[string]any)["Table"] = tb
			p.Data.(map[string]any)["Fields"] = seatFields
			return p, tb, nil
		}
	}
	return nil, nil, p.fail(said(p.Lang, fault.NotFound, "", "no_table", rd.Number, n), nil)
}

func (u *UI) resultForm(w http.ResponseWriter, r *http.Request) error {
	p, tb, err := u.resultPage(r)
	if err != nil {
		return err
	}
	{
		// ?from=<proposal>: the form starts from the players' proposal,
		// for the arbiter to correct and record as his own report.
		if id := r.URL.Query().Get("from"); id != "" {
			for _, pr := range tb.Proposals {
				if pr.ID == id {
					p.Form = proposalForm(pr)
				}
			}
		}
		u.render(w, "result", http.StatusOK, p)
	}
	return nil
}

func (u *UI) resultPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	p, tb, err := u.resultPage(r)
	if err != nil {
		return err
	}
	rep, prob := reportForm(r.PostForm, tb)
	if prob != nil {
		return p.refused("result", prob, nil)
	}
	a, prob, err := u.command(r, r.PathValue("t"), &commands.RecordResult{Round: atoiOr(r.PathValue("r"), 0), Table: tb.Number,
		ClosedBy: rep.closedBy, Winner: rep.winner, Risiko: rep.risiko, Players: rep.players})
	if err == nil && prob == nil {
		return done(w, r, fmt.Sprintf("%srounds/%s#table-%d", tPath(r.PathValue("t")), r.PathValue("r"), tb.Number), flashOf(a, strconv.Itoa(tb.Number)))
	}
	return p.refused("result", prob, err)
}

// --- standings ---------------------------------------------------------------

func (u *UI) standings(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "standings", 0)
	if err != nil {
		return err
	}
	p.Data = standingsData(p.State)
	if p.Can(commands.TypeOf[commands.RecordTieBreakRoll]()) && !p.Closed() {
		p.Data.(map[string]any)["Ties"] = u.ties(r, p)
	}
	return u.render(w, "standings", http.StatusOK, p)
}

// standingsPost records the die rolled for a tie.
func (u *UI) standingsPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	t := r.PathValue("t")
	a, prob, err := u.command(r, t, rollForm(r.PostForm))
	if err == nil && prob == nil {
		return done(w, r, tPath(t)+"standings", flashOf(a, ""))
	}
	return u.refuse(r, "standings", prob, err, func(p *page) {
		p.Data = standingsData(p.State)
		p.Data.(map[string]any)["Ties"] = u.ties(r, p)
	})
}

// standingsRow is a standings line with its games by round and whether the
// next phase's cut falls right after it.
type standingsRow struct {
	projections.StandingsRow
	ByRound   []*projections.GameView
	Qualifies bool
	CutAfter  bool
}

func standingsData(st *projections.TournamentView) map[string]any {
	rounds := []int{}
	for i := 1; i <= st.Standings.Rounds; i++ {
		rounds = append(rounds, i)
	}
	in := map[string]bool{}
	if st.Next != nil {
		for _, id := range st.Next.Players {
			in[id] = true
		}
	}
	rows := make([]standingsRow, len(st.Standings.Rows))
	last := -1
	for i, row := range st.Standings.Rows {
		sr := standingsRow{StandingsRow: row, ByRound: make([]*projections.GameView, len(rounds)), Qualifies: in[row.Player]}
		for j := range row.Games {
			if g := &row.Games[j]; g.Round >= 1 && g.Round <= len(rounds) {
				sr.ByRound[g.Round-1] = g
			}
		}
		if sr.Qualifies {
			last = i
		}
		rows[i] = sr
	}
	if last >= 0 && last < len(rows)-1 {
		rows[last].CutAfter = true
	}
	return map[string]any{"Rounds": rounds, "Rows": rows, "Next": st.Next, "CutFinal": cutFinal(st)}
}

// cutFinal reports whether the next phase's cut the standings show is
// final: every qualifying round, and every round drawn, has its results.
// Before, a player above the cut would qualify if the phase were drawn
// now, and is said to be in the zone, not qualified.
func cutFinal(st *projections.TournamentView) bool {
	n := len(st.Rounds)
	return n >= st.Summary.Ruleset.QualifyingRounds && n > 0 && st.Rounds[n-1].Complete()
}

func (u *UI) standingsCSV(w http.ResponseWriter, r *http.Request) error {
	var st projections.Standings
	var prob *Problem
	t := r.PathValue("t")
	err := u.opts.Reads.Fresh(r.Context(), t)
	if err == nil {
		st, err = u.opts.Reads.Standings(t)
	}
	if err != nil {
		if prob, err = refusal(err); err != nil {
			prob = u.internalProblem(r, err)
		}
	}
	if prob != nil {
		http.Error(w, prob.Detail, max(prob.Status, 400))
		return nil
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", r.PathValue("t")+"-standings.csv"))
	cw := csv.NewWriter(w)
	head := []string{"rank", "player", "name", "club"}
	for i := 1; i <= st.Rounds; i++ {
		head = append(head, fmt.Sprintf("round_%d", i))
	}
	_ = cw.Write(append(head, "penalties", "total", "status"))
	write := func(row projections.StandingsRow, rank string) {
		rec := []string{rank, row.Player, csvSafe(row.Name), csvSafe(row.Club)}
		by := make([]string, st.Rounds)
		for _, g := range row.Games {
			if g.Round >= 1 && g.Round <= st.Rounds {
				by[g.Round-1] = g.Score.String()
			}
		}
		rec = append(rec, by...)
		_ = cw.Write(append(rec, row.Penalties.String(), row.Total.String(), string(row.Status)))
	}
	for _, row := range st.Rows {
		write(row, strconv.Itoa(row.Rank))
	}
	for _, row := range st.Expelled {
		write(row, "")
	}
	cw.Flush()
	return nil
}

// csvSafe keeps a spreadsheet from reading a name as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// --- sanctions ---------------------------------------------------------------

// ladderRow is one player's sanctions, counted by kind, in force.
type ladderRow struct {
	Player string
	Counts map[events.SanctionKind]int
	List   []*projections.Sanction
}

func sanctionsData(st *projections.TournamentView) map[string]any {
	by := map[string]*ladderRow{}
	var order []string
	for _, s := range st.Sanctions {
		lr := by[s.Player]
		if lr == nil {
			lr = &ladderRow{Player: s.Player, Counts: map[events.SanctionKind]int{}}
			by[s.Player] = lr
			order = append(order, s.Player)
		}
		lr.List = append(lr.List, s)
		if !s.Revoked {
			lr.Counts[s.Kind]++
		}
	}
	var ladder []*ladderRow
	for _, id := range order {
		ladder = append(ladder, by[id])
	}
	// Offences climb a ladder only under the rur regime (docs/rules.md#10-sanctions).
	offences := st.Summary.Ruleset.Sanctions.Offences()
	return map[string]any{"Ladder": ladder, "Kinds": events.SanctionKinds(), "Offences": offences, "Regime": st.Summary.Ruleset.Sanctions,
		"CurrentRound": max(len(st.Rounds), 1)}
}

func (u *UI) sanctions(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "sanctions", 0)
	if err != nil {
		return err
	}
	p.Data = sanctionsData(p.State)
	return u.render(w, "sanctions", http.StatusOK, p)
}

func (u *UI) sanctionsPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	t, f := r.PathValue("t"), r.PostForm
	var cmd commands.Command
	switch f.Get("_action") {
	case "revoke":
		cmd = &commands.RevokeSanction{Sanction: f.Get("sanction"), Ruling: f.Get("ruling")}
	default:
		cmd = imposeForm(f, "")
	}
	a, prob, err := u.command(r, t, cmd)
	if err == nil && prob == nil {
		return done(w, r, tPath(t)+"sanctions", flashOf(a, ""))
	}
	return u.refuse(r, "sanctions", prob, err, func(p *page) { p.Data = sanctionsData(p.State) })
}

// imposeForm reads a sanction's fields, each named prefix+its field: the
// sanctions page's form ("") or a ruling's ("impose_"). The offence picks
// the ladder; the article then defaults to it.
func imposeForm(f url.Values, prefix string) *commands.ImposeSanction {
	get := func(k string) string { return f.Get(prefix + k) }
	impose := &commands.ImposeSanction{Player: get("player"), Round: atoiOr(get("round"), 0),
		Kind: events.SanctionKind(get("kind")), Article: get("article"), Reason: get("reason"), Offence: get("offence")}
	if v := get("table"); v != "" {
		impose.Table = atoiOr(v, -1)
	}
	if v := get("amount"); v != "" {
		impose.Amount = atoiOr(v, -1)
	}
	return impose
}

// --- contestations -----------------------------------------------------------

func (u *UI) contestations(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "contestations", 0)
	if err != nil {
		return err
	}
	p.Form.Set("against", r.URL.Query().Get("against"))
	q := r.URL.Query()
	p.Data = rulingData(p, q.Get("rule"), q.Get("amend"))
	if tb, _ := p.Data.(map[string]any)["Table"].(*projections.Table); tb != nil && tb.Report != nil {
		// The correction starts from the report as recorded.
		for k, v := range reportValues(*tb.Report) {
			p.Form[k] = v
		}
	}
	return u.render(w, "contestations", http.StatusOK, p)
}

// rulingData is what the ruling form offers for the contestation named
// (the first one awaiting a ruling when none is): the report it may
// correct (amend, "round.table", or the table whose report is contested),
// the sanctions in force it may revoke, and what a sanction it imposes
// may be.
func rulingData(p *page, rule, amend string) map[string]any {
	data := map[string]any{"Fields": seatFields, "Kinds": events.SanctionKinds(), "Offences": p.State.Summary.Ruleset.Sanctions.Offences(),
		"CurrentRound": max(len(p.State.Rounds), 1)}
	// A contestation is ruled after the tournament closed too.
	if !p.Can(commands.TypeOf[commands.RuleContestation]()) {
		return data
	}
	var c *projections.Contestation
	for _, x := range p.State.Contestations {
		if x.Ruled == nil && (x.Contestation == rule || rule == "" && c == nil) {
			c = x
		}
	}
	if c == nil {
		return data
	}
	data["Ruling"] = c
	var reported []*projections.Table
	rounds := map[*projections.Table]int{}
	for _, rd := range p.State.Rounds {
		for _, tb := range rd.Tables {
			if tb.Report == nil {
				continue
			}
			reported = append(reported, tb)
			rounds[tb] = rd.Number
			if amend == fmt.Sprintf("%d.%d", rd.Number, tb.Number) || amend == "" && (tb.Reported == c.Against || tb.Amended == c.Against) {
				data["Table"], data["AmendRound"] = tb, rd.Number
			}
		}
	}
	data["Reported"], data["RoundOf"] = reported, rounds
	var inForce []*projections.Sanction
	for _, s := range p.State.Sanctions {
		if !s.Revoked {
			inForce = append(inForce, s)
		}
	}
	data["InForce"] = inForce
	return data
}

// ruling reads the ruling form: the ruling and the corrections it orders,
// each from its own fields: the report corrected (amend), the sanctions
// revoked (revoke), the sanction imposed (impose_*). at names, for each
// correction, the form's field its problems belong to.
func ruling(lang string, f url.Values, st *projections.TournamentView) (*commands.RuleContestation, []string, *Problem) {
	rule := &commands.RuleContestation{Contestation: f.Get("contestation"), Upheld: f.Get("upheld") == "true", Ruling: f.Get("ruling")}
	var at []string
	add := func(cmd commands.Command, field string) *Problem {
		b, err := commands.Encode(cmd)
		if err != nil {
			return said(lang, fault.Invalid, field, "form_unreadable")
		}
		rule.Corrections, at = append(rule.Corrections, b), append(at, field)
		return nil
	}
	if f.Get("amend") != "" {
		n, t := atoiOr(f.Get("amend_round"), 0), atoiOr(f.Get("amend_table"), 0)
		var tb *projections.Table
		if rd := roundOf(st, n); rd != nil {
			tb = rd.Table(t)
		}
		if tb == nil {
			return nil, nil, said(lang, fault.NotFound, "amend", "no_table", n, t)
		}
		rep, prob := reportForm(f, tb)
		if prob != nil {
			return nil, nil, prob
		}
		if prob := add(&commands.RecordResult{Round: n, Table: t, ClosedBy: rep.closedBy, Winner: rep.winner, Risiko: rep.risiko, Players: rep.players}, ""); prob != nil {
			return nil, nil, prob
		}
	}
	for _, id := range f["revoke"] {
		if prob := add(&commands.RevokeSanction{Sanction: id, Ruling: rule.Ruling}, "revoke"); prob != nil {
			return nil, nil, prob
		}
	}
	if f.Get("impose") != "" {
		if prob := add(imposeForm(f, "impose_"), "impose_"); prob != nil {
			return nil, nil, prob
		}
	}
	return rule, at, nil
}

var correctionFieldRE = regexp.MustCompile(`^corrections\[(\d+)\](?:\.(.+))?$`)

// atFormFields places a ruling's problems at the ruling form's fields:
// corrections[i].x is field x of the report corrected, the sanctions
// revoked, or field impose_x of the sanction imposed.
func atFormFields(prob *Problem, at []string) {
	if prob == nil {
		return
	}
	move := func(field string) string {
		m := correctionFieldRE.FindStringSubmatch(field)
		if m == nil {
			return field
		}
		i, _ := strconv.Atoi(m[1])
		if i >= len(at) {
			return "corrections"
		}
		switch base, _, _ := strings.Cut(m[2], "."); {
		case at[i] == "impose_":
			return "impose_" + cmpOr(base, "kind")
		case at[i] == "revoke" || m[2] == "" || base == "round" || base == "table" || base == "type":
			return cmpOr(at[i], "amend")
		default:
			return m[2]
		}
	}
	if strings.HasPrefix(prob.Detail, prob.Field+": ") {
		prob.Detail = strings.TrimPrefix(prob.Detail, prob.Field+": ")
	}
	prob.Field = move(prob.Field)
	for i := range prob.Errors {
		prob.Errors[i].Field = move(prob.Errors[i].Field)
	}
}

func (u *UI) contestationsPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	t, f := r.PathValue("t"), r.PostForm
	var cmd commands.Command
	var prob *Problem
	var at []string
	switch f.Get("_action") {
	case "rule":
		now, perr := u.tournamentPage(r, "contestations", 0)
		if perr != nil {
			return perr
		}
		cmd, at, prob = ruling(lang(r), f, now.State)
	default:
		// A seq that is no positive number is none: the ledger asks for one.
		against, _ := strconv.ParseUint(strings.TrimSpace(f.Get("against")), 10, 64)
		cmd = &commands.FileContestation{Against: against, Claim: f.Get("claim"), Effect: f.Get("effect"), By: f.Get("by")}
	}
	var err error
	var a ledger.Outcome
	if prob == nil {
		a, prob, err = u.command(r, t, cmd)
	}
	if err == nil && prob == nil {
		return done(w, r, tPath(t)+"contestations", flashOf(a, ""))
	}
	atFormFields(prob, at)
	return u.refuse(r, "contestations", prob, err, func(p *page) {
		amend := ""
		if f.Get("amend_round") != "" {
			amend = f.Get("amend_round") + "." + f.Get("amend_table")
		}
		p.Data = rulingData(p, f.Get("contestation"), amend)
	})
}

// --- the event log and the state at an event ----------------------------------

func (u *UI) eventLog(w http.ResponseWriter, r *http.Request) error {
	p := u.newPage(r, "events")
	p.T = r.PathValue("t")
	from := atoiOr(r.URL.Query().Get("from"), 1)
	const limit = 50
	err := u.opts.Reads.Fresh(r.Context(), p.T)
	if err == nil {
		err = u.opts.Authorize(r, token(r), p.T, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor)
	}
	var page projections.EventPage
	if err == nil {
		page, err = u.opts.Reads.Events(r.Context(), p.T, uint64(max(from, 1)), limit)
	}
	if err != nil {
		return p.fail(refusal(err))
	}
	var next uint64
	if n := len(page.Envelopes); n == limit {
		next = page.Envelopes[n-1].Seq + 1
	}
	prev := 0
	if from > 1 {
		prev = max(from-50, 1)
	}
	// Names: the players' from the tournament's state, the officials' from
	// their list.
	if st, err := u.opts.Reads.State(p.T); err == nil {
		p.State = st
	}
	names := officialNames{}
	if offs, err := u.opts.Reads.Officials(p.T); err == nil {
		for _, o := range offs {
			names[o.Official] = struct{ Name, Role string }{o.Name, o.Role}
		}
	}
	p.Data = map[string]any{"Records": p.records(page.Envelopes, names), "Next": next, "Prev": prev}
	return u.render(w, "events", http.StatusOK, p)
}

func (u *UI) at(w http.ResponseWriter, r *http.Request) error {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || seq == 0 {
		p := u.newPage(r, "at")
		return p.fail(said(p.Lang, fault.Invalid, "", "bad_seq"), nil)
	}
	p, err := u.tournamentPage(r, "at", seq)
	if err != nil {
		return err
	}
	p.AsOf = seq
	d := standingsData(p.State)
	d["Seq"] = seq
	d["Ladder"] = sanctionsData(p.State)["Ladder"]
	p.Data = d
	return u.render(w, "at", http.StatusOK, p)
}

// reportStatuses are how a player's game may end, as the report form
// offers them (a disqualification is a sanction's).
func reportStatuses() []events.SeatStatus {
	return []events.SeatStatus{events.SeatFinished, events.SeatWithdrawn, events.SeatEliminated}
}

// seatField is the report form's field name of seat i's name.
func seatField(i int, name string) string { return "players[" + strconv.Itoa(i) + "]." + name }

// offered reports whether the report form offers a seat's status.
func offered(status string) bool { return slices.Contains(reportStatuses(), events.SeatStatus(status)) }

// funcs are the template helpers.
var funcs = template.FuncMap{
	"add": func(a, b int) int { return a + b },
	// closings are every way a game may end, as a paper slip offers them;
	// closing reads a form's value as one.
	"closings": events.Closings,
	"closing":  func(s string) events.Closing { return events.Closing(s) },
	// tournamentTypes, knockouts and tableSizes are what a tournament's
	// creation may choose.
	"tournamentTypes": events.TournamentTypes,
	"knockouts":       events.Knockouts,
	"tableSizes":      func() []int { return []int{3, 4, 5} },
	// join writes players' codes as a hand-made table's field holds them.
	"join": func(ids []string) string { return strings.Join(ids, ", ") },
	// dieFaces are what a die shows.
	"dieFaces": func() []int { return []int{1, 2, 3, 4, 5, 6} },
	// officialRoles are the roles an official may be appointed to.
	"officialRoles": events.OfficialRoles,
	// effects are the persisting effects a contestation may name.
	"effects": commands.Effects,
	// withdrawalReasons are why a withdrawn player left the game, as the
	// report form offers them when no withdrawal was recorded before it.
	"withdrawalReasons": events.WithdrawalReasons,
}

// seasonPlayer is a player's season in the national ranking: every result,
// whether it counts and why not, and the proof file of each.
func (u *UI) seasonPlayer(w http.ResponseWriter, r *http.Request) error {
	season, id := mux.Vars(r)["s"], mux.Vars(r)["id"]
	p := u.newPage(r, "season")
	v, err := u.opts.SeasonPlayer(season, id)
	if err != nil {
		return p.fail(refusal(err))
	}
	p.Data = v
	return u.render(w, "season_player", http.StatusOK, p)
}

// SeasonPlayer is GET /v1/seasons/{s}/players/{id}'s answer: a player's
// season in the national ranking.
type SeasonPlayer struct {
	Season           string `json:"season"`
	Thresholds       string `json:"thresholds"`
	ThresholdsSHA256 string `json:"thresholds_sha256"`
	ranking.Row
	Proofs []string `json:"proofs"`
}
