package web

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
)

// --- what every page may ask ------------------------------------------------

// Closed reports a closed tournament: nothing is offered but reading.
func (p *page) Closed() bool { return p.State != nil && p.State.Summary.Closed }

// ClassificationKey is the label of the last published classification:
// final only when its publication says so, provisional otherwise (and
// before any publication, when the page speaks of the one to come).
func (p *page) ClassificationKey() string {
	if p.State != nil && p.State.Published != nil && p.State.Published.Final {
		return "classification"
	}
	return "classification_provisional"
}

// Checked reports whether a form's field had value among its values (a
// checkbox to check again on a refused form).
func (p *page) Checked(name, value string) bool { return slices.Contains(p.Form[name], value) }

// Pts writes points as the page's language does ("200,2"): hundredths
// (int64, projections.Points) or whole points (int).
func (p *page) Pts(v any) string {
	switch v := v.(type) {
	case projections.Points:
		return points(p.Lang, int64(v))
	case int64:
		return points(p.Lang, v)
	case int:
		return integer(p.Lang, v)
	}
	return fmt.Sprint(v)
}

// When says a moment as the page's language writes it, in the server's
// time zone (the venue's).
func (p *page) When(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format(tr(p.Lang, "time_format"))
}

// Count says n of something, agreeing with n: "1 turno", "3 turni".
func (p *page) Count(key string, n int) string { return trf(p.Lang, key, n) }

// RuleText says a rule the ledger cites, by its article.
func (p *page) RuleText(rule string) string { return ruleText(p.Lang, rule) }

// Say says a message of the ledger (a reason it recorded) in the page's
// language, players by name; a text the ledger did not write (a reason an
// arbiter typed) is shown as typed.
func (p *page) Say(msg string) string {
	if s, ok := say(p.Lang, msg, p.knownName); ok {
		return s
	}
	return msg
}

// fieldErrors maps each field the page's refusal names to its message, in
// the page's language, for the form to show beside the field.
func (p *page) fieldErrors() map[string]string {
	out := map[string]string{}
	if v := p.ProblemView(); v != nil {
		for _, l := range v.Lines {
			if l.Key != "" {
				out[l.Key] = l.Text
			}
		}
	}
	return out
}

// ProblemLine says a problem a proposed report was kept with (a board
// bound it breaks) at table tb: the field, the message, the rule.
func (p *page) ProblemLine(pr events.ReportProblem, tb *projections.Table) string {
	seat := func(i int) string {
		if i >= 0 && i < len(tb.Players) {
			return p.Name(tb.Players[i])
		}
		return ""
	}
	v := viewProblem(p.Lang, &Problem{Problem: problem.Problem{Field: pr.Field, Detail: pr.Detail, Rule: pr.Rule}}, seat, p.knownName)
	l := v.Lines[0]
	text := l.Text
	if l.Field != "" {
		text = l.Field + ": " + text
	}
	if l.Rule != "" {
		text += " (" + l.Rule + ")"
	}
	return text
}

// reportFigures is a table report with the page that shows it: every
// figure of every line, how the game closed, the winner.
type reportFigures struct {
	P *page
	R events.ResultRecorded
}

// Figures is a report for the report-figures partial.
func (p *page) Figures(r events.ResultRecorded) reportFigures { return reportFigures{P: p, R: r} }

// Confirmers are the players who confirmed a proposal, its proposer first.
func (p *page) Confirmers(pr *projections.Proposal) []string {
	out := []string{pr.By}
	for id := range pr.Confirmed {
		if id != pr.By {
			out = append(out, id)
		}
	}
	slices.Sort(out[1:])
	return out
}

// tableOf is a drawn table with the page that shows it, for the partials
// of its actions.
type tableOf struct {
	P     *page
	T     *projections.Table
	Round int
}

// TableOf is tb for the table-actions partial.
func (p *page) TableOf(tb *projections.Table) tableOf {
	n, _ := p.Data.(map[string]any)["Number"].(int)
	return tableOf{P: p, T: tb, Round: n}
}

// IsPlayer reports a session of a player's personal link.
func (p *page) IsPlayer() bool { return p.Me != nil && p.Me.Role == events.RolePlayer }

// Params says a ruleset's parameters in the page's language.
func (p *page) Params(rs events.Ruleset) []paramRow { return params(p.Lang, rs) }

// Unmet says a draw constraint that was not met, as a sentence.
func (p *page) Unmet(u events.UnmetConstraint) string { return unmetText(p.Lang, u, p.Name) }

// SettledText says how a tie between two rows was settled.
func (p *page) SettledText(s *projections.Settled) string { return settledText(p.Lang, s) }

// knownName is a player's name, or "" for an id no player has.
func (p *page) knownName(id string) string {
	if p.State != nil {
		for _, row := range p.State.Players {
			if row.Player == id {
				return row.Name
			}
		}
	}
	return ""
}

// ProblemView is the page's refusal, said in its language.
func (p *page) ProblemView() *problemView {
	var seat func(int) string
	if d, ok := p.Data.(map[string]any); ok {
		if tb, ok := d["Table"].(*projections.Table); ok && tb != nil {
			seat = func(i int) string {
				if i >= 0 && i < len(tb.Players) {
					return p.Name(tb.Players[i])
				}
				return ""
			}
		}
	}
	return viewProblem(p.Lang, p.Problem, seat, p.knownName)
}

// ProposalStatus is where a proposal stands at its table.
func (p *page) ProposalStatus(pr *projections.Proposal, tb *projections.Table) projections.ProposalStatus {
	return pr.Status(tb)
}

// Names lists players by name.
func (p *page) Names(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = p.Name(id)
	}
	return strings.Join(out, ", ")
}

// DefaultClosing is the report form's closing for an ordinary game: time,
// else the closing roll, else (cirki-2001) the objective.
func (p *page) DefaultClosing() events.Closing {
	if p.State == nil {
		return events.ClosingTime
	}
	for _, c := range []events.Closing{events.ClosingTime, events.ClosingRoll, events.ClosingObjective} {
		if slices.Contains(p.State.Summary.Ruleset.Closings, c) {
			return c
		}
	}
	return events.ClosingTime
}

// reportSeat is one seat of the report form as it is shown. A page's
// seats are made in one call (ReportSeats) rather than by the template's
// own calls, field by field: those were most of a player's page's render,
// which a hall's phones ask for on every result.
type reportSeat struct {
	Name               string // the player's
	Fields             []reportField
	Status, Withdrawal reportChoice
}

// reportField is a seat's number: its label, name and value, and the
// error the last submission gave it.
type reportField struct {
	Label, Name, Value, Err string
	Turn                    bool // a turn, 1 to 5; the other numbers are from 0
}

// reportChoice is a seat's select.
type reportChoice struct {
	Label, Name, Err string
	Options          []reportOption
}

// reportOption is one option of a select, chosen or not.
type reportOption struct {
	Value, Label string
	Selected     bool
}

// ReportSeats are the report form's seats of table tb, each with the
// number fields named in fields: a submitted form's values (a refused
// one's, or the proposal's), else the turn the table's order gives.
func (p *page) ReportSeats(tb *projections.Table, fields []string) []reportSeat {
	seats := make([]reportSeat, len(tb.Players))
	for i, id := range tb.Players {
		s := &seats[i]
		s.Name = p.Name(id)
		s.Fields = make([]reportField, len(fields))
		for k, name := range fields {
			f := reportField{Label: p.Tr(name), Name: seatField(i, name), Turn: name == "turn"}
			switch {
			case p.Form.Has(f.Name):
				f.Value = p.Form.Get(f.Name)
			case f.Turn:
				f.Value = strconv.Itoa(p.TurnOf(tb, i))
			}
			f.Err = p.Errs[f.Name]
			s.Fields[k] = f
		}
		name := seatField(i, "status")
		s.Status = reportChoice{Label: p.Tr("status"), Name: name, Err: p.Errs[name]}
		v := p.Form.Get(name)
		for _, o := range reportStatuses() {
			s.Status.Options = append(s.Status.Options, reportOption{Value: string(o), Label: p.Tr(o), Selected: v == string(o)})
		}
		if v != "" && !offered(v) {
			// kept as it is (a disqualification a ruling corrects), not
			// replaced by the first status offered
			s.Status.Options = append(s.Status.Options, reportOption{Value: v, Label: p.Tr(v), Selected: true})
		}
		name = seatField(i, "withdrawal")
		s.Withdrawal = reportChoice{Label: p.Tr("withdrawal"), Name: name, Err: p.Errs[name]}
		v = p.Form.Get(name)
		for _, o := range events.WithdrawalReasons() {
			s.Withdrawal.Options = append(s.Withdrawal.Options, reportOption{Value: o, Label: p.Tr(o), Selected: v == o})
		}
	}
	return seats
}

// TurnOf is the turn the report form offers for seat i of table tb: the
// seat's place in the turn order drawn at the table once it is recorded
// (SetTurnOrder), else the seat itself.
func (p *page) TurnOf(tb *projections.Table, i int) int {
	if i >= 0 && i < len(tb.Players) {
		if k := slices.Index(tb.TurnOrder, tb.Players[i]); k >= 0 {
			return k + 1
		}
	}
	return i + 1
}

// TurnAt is the player in turn i (from 0) at table tb: the recorded turn
// order's, else the seat's.
func (p *page) TurnAt(tb *projections.Table, i int) string {
	if i < len(tb.TurnOrder) {
		return tb.TurnOrder[i]
	}
	if i < len(tb.Players) {
		return tb.Players[i]
	}
	return ""
}

// CurrentRound is the round being played (the last drawn), or 0.
func (p *page) CurrentRound() int {
	if p.State == nil {
		return 0
	}
	return len(p.State.Rounds)
}

// --- joining by a personal link ---------------------------------------------

// join opens a personal link: the token, from the slip's QR code, is
// checked with the API and kept in the session's cookie; the page then
// leaves the URL that carries it. The cookie is SameSite=Lax: the QR
// code's link is a navigation from another app.
func (u *UI) join(w http.ResponseWriter, r *http.Request) error {
	tok := strings.TrimSpace(r.URL.Query().Get("k"))
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	var m Me
	if tok != "" {
		m, _ = u.opts.Me(r, tok)
	}
	if m.Role != events.RolePlayer {
		p := u.newPage(r, "my_page")
		return p.fail(said(p.Lang, fault.Unauthorized, "", "join_failed"), nil)
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil, MaxAge: 7 * 24 * 3600})
	http.Redirect(w, r, tPath(m.Tournament)+"me", http.StatusSeeOther)
	return nil
}

// --- the player's page -----------------------------------------------------------

// myView is what a player's page shows.
type myView struct {
	Player projections.PlayerRow
	Round  *projections.Round
	mySeat
	Row           *projections.StandingsRow
	Sanctions     []*projections.Sanction
	Contestations []*projections.Contestation
	// Standings are the standings' rows, the player's marked.
	Standings *myStandings
	// Published is the player's row in the last published classification,
	// and ProofPath where its offline proof file is served.
	Published *events.ClassificationRow
	ProofPath string
}

// mySeat is what a player's page shows of the player's table: the table
// and the seat, the turn order, and where the table's proposal stands for
// the player.
type mySeat struct {
	Table     *projections.Table
	Seat      int
	TurnOrder []string
	Proposal  *projections.Proposal
	Status    projections.ProposalStatus
	Waiting   []string
	Confirmed bool
	Disputed  bool
}

func (u *UI) myData(p *page) *myView {
	v := &myView{}
	id := p.Me.Official
	for _, row := range p.State.Players {
		if row.Player == id {
			v.Player = row
		}
	}
	if n := len(p.State.Rounds); n > 0 {
		v.Round = p.State.Rounds[n-1]
		for _, tb := range v.Round.Tables {
			if i := slices.Index(tb.Players, id); i >= 0 {
				v.Table, v.Seat = tb, i+1
				v.TurnOrder = tb.TurnOrder
				if pr := tb.Current(); pr != nil {
					v.Proposal, v.Status, v.Waiting = pr, pr.Status(tb), pr.Waiting(tb)
					_, v.Confirmed = pr.Confirmed[id]
					v.Confirmed = v.Confirmed || pr.By == id
					for _, d := range pr.Disputes {
						v.Disputed = v.Disputed || d.Player == id
					}
				}
			}
		}
	}
	for i, row := range p.State.Standings.Rows {
		if row.Player == id {
			v.Row = &p.State.Standings.Rows[i]
		}
	}
	v.Standings = u.myStandings(p, id)
	for _, s := range p.State.Sanctions {
		if s.Player == id {
			v.Sanctions = append(v.Sanctions, s)
		}
	}
	for _, c := range p.State.Contestations {
		if c.By == id {
			v.Contestations = append(v.Contestations, c)
		}
	}
	if pub := p.State.Published; pub != nil {
		for i, row := range pub.Rows {
			if row.Player == id {
				v.Published = &pub.Rows[i]
				v.ProofPath = "/v1/tournaments/" + url.PathEscape(p.T) + "/players/" + url.PathEscape(id) + "/proof"
			}
		}
	}
	return v
}

// playerPage is the page of the player whose personal link signed the
// session in; anyone else is answered 401 with the page that says how to
// join.
func (u *UI) playerPage(r *http.Request) (*page, error) {
	p, err := u.tournamentPage(r, "my_page", 0)
	if err != nil {
		return nil, err
	}
	if !p.IsPlayer() || p.Me.Tournament != p.T {
		return nil, p.fail(said(p.Lang, fault.Unauthorized, "", "join_failed"), nil)
	}
	return p, nil
}

func (u *UI) myPage(w http.ResponseWriter, r *http.Request) error {
	p, err := u.playerPage(r)
	if err != nil {
		return err
	}
	v := u.myData(p)
	if v.Proposal != nil {
		p.Form = proposalForm(v.Proposal)
	}
	data := map[string]any{"My": v, "Table": v.Table, "Fields": seatFields}
	p.Data = data
	fresh := strings.Contains(r.Header.Get("Cache-Control"), "no-cache")
	table := u.myTable(p, v, fresh)
	data["MyTable"] = table
	if rec, ok := w.(*recorder); ok && r.Header.Get(LiveHeader) == "1" {
		return u.myAnswer(rec, r, p, v, table, fresh)
	}
	return u.render(w, "me", http.StatusOK, p)
}

// proposalForm fills the report form with a proposal's report.
func proposalForm(pr *projections.Proposal) url.Values { return reportValues(pr.Report) }

// reportValues is a table report as the report form's fields hold it.
func reportValues(rep events.ResultRecorded) url.Values {
	f := url.Values{"closed_by": {string(rep.ClosedBy)}, "winner": {rep.Winner}}
	if rep.Risiko {
		f.Set("risiko", "1")
	}
	for i, s := range rep.Players {
		set := func(k string, v int, keepZero bool) {
			if v != 0 || keepZero {
				f.Set(fmt.Sprintf("players[%d].%s", i, k), strconv.Itoa(v))
			}
		}
		set("turn", s.Turn, true)
		set("table_points", s.TablePoints, true)
		set("off_objective_points", s.OffObjectivePoints, false)
		set("objective_territories", s.ObjectiveTerritories, false)
		set("territories", s.Territories, false)
		set("armies", s.Armies, false)
		set("cards", s.Cards, false)
		set("eliminated_order", s.EliminatedOrder, false)
		f.Set(fmt.Sprintf("players[%d].status", i), string(s.Status))
		if s.Withdrawal != "" {
			f.Set(fmt.Sprintf("players[%d].withdrawal", i), s.Withdrawal)
		}
	}
	return f
}

func (u *UI) myPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	p, err := u.playerPage(r)
	if err != nil {
		return err
	}
	v := u.myData(p)
	f, id := r.PostForm, p.Me.Official
	var cmd commands.Command
	var prob *Problem
	switch f.Get("_action") {
	case "confirm":
		cmd = &commands.ConfirmProposal{Player: id, Proposal: f.Get("proposal")}
	case "dispute":
		cmd = &commands.DisputeProposal{Player: id, Proposal: f.Get("proposal"), Reason: f.Get("reason")}
	default:
		if v.Table == nil {
			prob = said(p.Lang, fault.NotFound, "", "not_seated")
			break
		}
		var rep report
		if rep, prob = reportForm(f, v.Table); prob == nil {
			cmd = &commands.ProposeResult{Player: id, Round: v.Round.Number, Table: v.Table.Number,
				ClosedBy: rep.closedBy, Winner: rep.winner, Risiko: rep.risiko, Players: rep.players}
		}
	}
	var a ledger.Outcome
	if prob == nil {
		a, prob, err = u.command(r, p.T, cmd)
	}
	if err == nil && prob == nil {
		return done(w, r, tPath(p.T)+"me", flashOf(a, ""))
	}
	p.Data = map[string]any{"My": v, "Table": v.Table, "Fields": seatFields}
	return p.refused("me", prob, err)
}

// report is a table report as its form gives it: RecordResult's (the
// arbiter's) and ProposeResult's (a player's) alike.
type report struct {
	closedBy events.Closing
	winner   string
	risiko   bool
	players  []commands.SeatInput
}

// reportForm reads the report form of table tb; a *Problem when a figure
// is not a whole number.
func reportForm(f url.Values, tb *projections.Table) (report, *Problem) {
	rep := report{closedBy: events.Closing(f.Get("closed_by")), winner: f.Get("winner"), risiko: f.Get("risiko") != ""}
	for i, id := range tb.Players {
		seat := commands.SeatInput{Player: id, Status: events.SeatStatus(f.Get(fmt.Sprintf("players[%d].status", i))),
			Withdrawal: f.Get(fmt.Sprintf("players[%d].withdrawal", i))}
		for _, k := range seatFields {
			v := strings.TrimSpace(f.Get(fmt.Sprintf("players[%d].%s", i, k)))
			if v == "" {
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				prob := &Problem{Problem: *problem.New(fault.Invalid, "must be between 0 and 10000")}
				prob.Field = fmt.Sprintf("players[%d].%s", i, k)
				return report{}, prob
			}
			seatSetters[k](&seat, n)
		}
		rep.players = append(rep.players, seat)
	}
	return rep, nil
}

// --- personal links and their slips ----------------------------------------------

// link is a player's personal link as the links page shows it.
type link struct {
	Player    projections.PlayerRow
	Token     string
	URL       string
	QR        template.HTML
	Elsewhere bool
}

// playerLinks reads the live personal links (the arbiters') and draws the
// QR codes of the players in qr (none when nil) with the server's address
// as the browser reached it.
func (u *UI) playerLinks(r *http.Request, p *page, qr map[string]bool) (map[string]*link, *Problem, error) {
	err := u.opts.Reads.Fresh(r.Context(), p.T)
	if err == nil {
		err = u.opts.Authorize(r, token(r), p.T, events.RoleArbiter)
	}
	var tokens []PlayerLink
	var elsewhere []string
	if err == nil {
		tokens, elsewhere, err = u.opts.PlayerLinks(p.T)
	}
	if err != nil {
		prob, err := refusal(err)
		return nil, prob, err
	}
	base := u.base(r)
	links := map[string]*link{}
	for _, t := range tokens {
		l := &link{Token: t.Token, URL: base + t.Link}
		if qr[t.Player] {
			if l.QR, err = qrSVG(l.URL); err != nil {
				return nil, nil, err
			}
		}
		links[t.Player] = l
	}
	for _, id := range elsewhere {
		links[id] = &link{Elsewhere: true}
	}
	for _, row := range p.State.Players {
		if l := links[row.Player]; l != nil {
			l.Player = row
		}
	}
	return links, nil, nil
}

func (u *UI) linksPage(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "links", 0)
	if err != nil {
		return err
	}
	if !p.Can(commands.TypeOf[commands.RevokePlayerToken]()) {
		return u.render(w, "links", http.StatusOK, p)
	}
	data := linksPage(r, p)
	links, prob, err := u.playerLinks(r, p, data["OnPage"].(map[string]bool))
	if err != nil || prob != nil {
		return p.fail(prob, err)
	}
	base := u.base(r)
	data["Links"], data["Base"], data["Loopback"] = links, base, loopback(base)
	p.Data = data
	w.Header().Set("Cache-Control", "no-store")
	return u.render(w, "links", http.StatusOK, p)
}

// linksPage is the page of the admitted players' link slips r asks for
// (pageOf): Players, the Pager and who is OnPage.
func linksPage(r *http.Request, p *page) map[string]any {
	var admitted []projections.PlayerRow
	for _, row := range p.State.Players {
		if row.Status.Admitted() {
			admitted = append(admitted, row)
		}
	}
	from, to, pg := pageOf(r, len(admitted), linksPerPage)
	onPage := map[string]bool{}
	for _, row := range admitted[from:to] {
		onPage[row.Player] = true
	}
	return map[string]any{"Players": admitted[from:to], "Pager": pg, "OnPage": onPage}
}

func (u *UI) linksPost(w http.ResponseWriter, r *http.Request) error {
	if err := u.postForm(w, r); err != nil {
		return err
	}
	t, f := r.PathValue("t"), r.PostForm
	var a ledger.Outcome
	var prob *Problem
	var err error
	switch f.Get("_action") {
	case "revoke":
		a, prob, err = u.command(r, t, &commands.RevokePlayerToken{Player: f.Get("player"), Reason: f.Get("reason")})
	default:
		issue := &commands.IssuePlayerTokens{}
		if pl := f.Get("player"); pl != "" {
			issue.Players = []string{pl}
		}
		a, prob, err = u.submit(r, u.opts.Commands.IssueLinks, t, formKey(r, u), issue)
	}
	if err == nil && prob == nil {
		fl := flashOf(a, "")
		if fl.event == events.TypePlayerTokenIssued {
			fl.arg = strconv.Itoa(len(a.Events))
		}
		return done(w, r, tPath(t)+"links", fl)
	}
	return u.refuse(r, "links", prob, err, func(p *page) {
		data := linksPage(r, p)
		data["Links"], _, _ = u.playerLinks(r, p, data["OnPage"].(map[string]bool))
		base := u.base(r)
		data["Base"], data["Loopback"] = base, loopback(base)
		p.Data = data
	})
}

// scanned finds the player a scanned or typed code stands for: a personal
// link (its URL or its token), or a player's id.
func scanned(code string, st *projections.TournamentView, links map[string]*link) (string, bool) {
	code = strings.TrimSpace(code)
	if i := strings.Index(code, "k="); i >= 0 {
		code = code[i+2:]
		if j := strings.IndexAny(code, "&#"); j >= 0 {
			code = code[:j]
		}
	}
	for id, l := range links {
		if l.Token != "" && l.Token == code {
			return id, true
		}
	}
	for _, row := range st.Players {
		if strings.EqualFold(row.Player, code) {
			return row.Player, true
		}
	}
	return "", false
}
