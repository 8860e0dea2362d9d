package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
)

// maxUpload is the largest club workbook the entry list's upload takes, in
// bytes (the national tool's templates are well under 1 MB).
const maxUpload = 16 << 20

// workbookPost records a club workbook uploaded on the entry list's page
// (docs/workbook.md): its entry list alone, or the whole tournament, given
// to the service of POST /v1/tournaments/{t}/workbook as the official
// logged in. Every problem the national tool or the ledger finds is shown with
// its sheet and cell, in the page's language, and nothing is recorded.
// Once recorded, the page says what was, with the national tool's
// warnings and the rows of the file's standings the ruleset disagrees on;
// sending it again records nothing more and says so.
func (u *UI) workbookPost(w http.ResponseWriter, r *http.Request) error {
	if !sameOrigin(r) {
		return u.refusedPage(r, "form_refused", fault.Forbidden, "cross_site")
	}
	t := r.PathValue("t")
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+1<<20)
	var prob *Problem
	var err error
	var out workbook.Imported
	file, header, ferr := r.FormFile("workbook")
	switch {
	case ferr != nil:
		prob = said(lang(r), fault.Invalid, "workbook", "workbook_missing")
	default:
		defer file.Close()
		var data []byte
		if data, err = io.ReadAll(io.LimitReader(file, maxUpload+1)); err != nil {
			break
		}
		if len(data) > maxUpload {
			ferr = &http.MaxBytesError{Limit: maxUpload}
			break
		}
		if u.opts.Commands.ImportWorkbook == nil {
			err = errNoService
			break
		}
		var ierr error
		out, ierr = u.opts.Commands.ImportWorkbook(r.Context(), u.commandCall(r, t, data, ""), r.PostFormValue("scope"), filepath.Base(header.Filename))
		if ierr != nil {
			prob = u.problemFor(r, ierr)
			sayWorkbook(lang(r), prob)
		}
	}
	var tooLarge *http.MaxBytesError
	if errors.As(ferr, &tooLarge) {
		prob = said(lang(r), problem.TooLarge, "workbook", "workbook_too_large", maxUpload>>20)
	}
	if err == nil && prob == nil {
		// Post/redirect/get, as every form: the entry list's own address
		// keeps its live updates, and a reload reads it again rather than
		// sending the file once more.
		http.Redirect(w, r, tPath(t)+"players?"+importQuery(out, lang(r)).Encode(), http.StatusSeeOther)
		return nil
	}
	return u.refuse(r, "players", prob, err, func(p *page) { p.Data = u.playersData(p) })
}

// workbookNotes are what a page shows of an accepted upload beside its
// banner: the national tool's warnings and the disagreements, each a
// sentence in the page's language.
type workbookNotes struct {
	Warnings      []problemLine
	Disagreements []string
}

// maxCarried is the most bytes of the national tool's warnings the
// redirect after an upload carries to the entry list (the server takes a
// request line and header fields of api.MaxHeaderBytes at most): those
// past it are counted, not shown.
const maxCarried = 16 << 10

// query is what the redirect after an accepted upload carries to the entry
// list: what was recorded, for its banner, and the national tool's
// warnings, each where it is and what it says in lang. The disagreements
// are not carried: the log records them (ClassificationImported) and the
// page reads them there.
func importQuery(o workbook.Imported, lang string) url.Values {
	q := url.Values{"workbook": {o.FileName}, "scope": {o.Scope}, "players": {strconv.Itoa(o.Players)}, "seq": {strconv.FormatUint(o.Seq, 10)}}
	if o.Scope == events.WorkbookTournament && o.Counts != nil {
		q.Set("tables", strconv.Itoa(o.Counts.Tables))
		q.Set("rounds", strconv.Itoa(o.Counts.Rounds))
	}
	carried, more := 0, 0
	for _, w := range o.Warnings {
		text := w.It
		if lang == "en" {
			text = w.En
		}
		v := w.Sheet + "\t" + w.Cell + "\t" + text
		if carried += len(url.QueryEscape(v)); carried > maxCarried {
			more++
			continue
		}
		q.Add("warning", v)
	}
	if more > 0 {
		q.Set("more", strconv.Itoa(more))
	}
	return q
}

// workbookBanner is the banner of an accepted upload the entry list's
// address carries (query), and its notes: the national tool's warnings
// and, for a whole tournament, the rows of the file's standings the
// ruleset disagrees on, as the log recorded them (imported); "" when the
// address carries no upload.
func workbookBanner(lang string, q url.Values, st *projections.TournamentView, imported *events.ClassificationImported) (string, *workbookNotes) {
	file := q.Get("workbook")
	if file == "" {
		return "", nil
	}
	n := func(k string) int { return atoiOr(q.Get(k), 0) }
	var banner string
	if q.Get("scope") == events.WorkbookTournament {
		banner = fmt.Sprintf(tr(lang, "workbook_tournament_done"), file, n("players"), n("tables"), n("rounds"), n("seq"))
	} else {
		banner = fmt.Sprintf(tr(lang, "workbook_entry_list_done"), file, n("players"), n("seq"))
	}
	notes := &workbookNotes{}
	for _, v := range q["warning"] {
		parts := strings.SplitN(v, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		notes.Warnings = append(notes.Warnings, problemLine{Field: whereLabel(lang, parts[0], parts[1]), Text: parts[2]})
	}
	if more := n("more"); more > 0 {
		notes.Warnings = append(notes.Warnings, problemLine{Text: trf(lang, "workbook_warnings_more", more)})
	}
	name := func(id string) string {
		for _, row := range st.Players {
			if row.Player == id {
				return row.Name
			}
		}
		return id
	}
	if q.Get("scope") == events.WorkbookTournament && imported != nil {
		for _, d := range imported.Disagreements {
			file, ruleset := tr(lang, "workbook_not_listed"), tr(lang, "workbook_not_ranked")
			if d.FileRank > 0 {
				file = fmt.Sprintf(tr(lang, "workbook_file_row"), d.FileRank, d.FilePoints)
			}
			if d.Rank > 0 {
				ruleset = fmt.Sprintf(tr(lang, "workbook_ruleset_row"), d.Rank, points(lang, d.Total))
			}
			if d.TieUnsolved {
				ruleset += " " + tr(lang, "workbook_tie_unsolved")
			}
			notes.Disagreements = append(notes.Disagreements, name(d.Player)+": "+file+"; "+ruleset)
		}
	}
	if len(notes.Warnings) == 0 && len(notes.Disagreements) == 0 {
		return banner, nil
	}
	return banner, notes
}

// sayWorkbook says a refused workbook's problems in lang: each with its
// sheet and cell in words ("foglio Iscritti, cella A5") and its message
// in lang. The API cites workbook.Rule for every problem of a workbook,
// the national tool's and the ledger's: its detail is the problem in
// Italian, " / ", then in English, and its field where it is,
// "Sheet!Cell", "Sheet", "body" (the file) or "". A refusal that is not
// a workbook's is left as it is.
func sayWorkbook(lang string, prob *Problem) {
	if prob == nil || len(prob.Errors) == 0 {
		return
	}
	for _, e := range prob.Errors {
		if e.Rule != workbook.Rule {
			return
		}
	}
	for i := range prob.Errors {
		e := &prob.Errors[i]
		it, en, _ := strings.Cut(e.Detail, " / ")
		if e.Detail = it; lang == "en" && en != "" {
			e.Detail = en
		}
		switch sheet, cell, _ := strings.Cut(e.Field, "!"); {
		case e.Field == "body":
			e.Field = tr(lang, "workbook_file")
		default:
			e.Field = whereLabel(lang, sheet, cell)
		}
		e.Rule = ""
	}
	prob.Code, prob.Said = "workbook", true
}

// whereLabel says where in a workbook a problem is: "foglio Iscritti,
// cella A5", "foglio 2° Turno", or "" for the file as a whole.
func whereLabel(lang, sheet, cell string) string {
	switch {
	case sheet != "" && cell != "":
		return fmt.Sprintf(tr(lang, "workbook_sheet_cell"), sheet, cell)
	case sheet != "":
		return fmt.Sprintf(tr(lang, "workbook_sheet"), sheet)
	}
	return cell
}
