package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// maxUpload is the largest club workbook the entry list's upload takes, in
// bytes (the national tool's templates are well under 1 MB).
const maxUpload = 16 << 20

// workbookPost records a club workbook uploaded on the entry list's page
// (docs/workbook.md): its entry list alone, or the whole tournament, sent
// in-process to POST /v1/tournaments/{t}/workbook as the official logged
// in. Every problem the national tool or the ledger finds is shown with
// its sheet and cell, in the page's language, and nothing is recorded.
// Once recorded, the page says what was, with the national tool's
// warnings and the rows of the file's standings the ruleset disagrees on;
// sending it again records nothing more and says so.
func (u *UI) workbookPost(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		http.Error(w, tr(lang(r), "cross_site"), http.StatusForbidden)
		return
	}
	t := r.PathValue("t")
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+1<<20)
	var prob *Problem
	var err error
	var out workbookImported
	file, header, ferr := r.FormFile("workbook")
	switch {
	case ferr != nil:
		prob = &Problem{Status: http.StatusBadRequest, Code: "invalid", Field: "workbook", Detail: tr(lang(r), "workbook_missing"), Said: true}
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
		scope := r.PostFormValue("scope")
		path := "/v1/tournaments/" + url.PathEscape(t) + "/workbook?" + url.Values{"scope": {scope}, "file_name": {filepath.Base(header.Filename)}}.Encode()
		var res apiResponse
		if res, err = u.call(r, token(r), http.MethodPost, path, rawBody(data)); err != nil {
			break
		}
		if res.status >= 300 {
			prob = problemOf(res)
			sayWorkbook(lang(r), prob)
			break
		}
		err = json.Unmarshal(res.body, &out)
	}
	var tooLarge *http.MaxBytesError
	if errors.As(ferr, &tooLarge) {
		prob = &Problem{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Field: "workbook", Detail: trf(lang(r), "workbook_too_large", maxUpload>>20), Said: true}
	}
	p, ok := u.tournamentPage(w, r, "players", 0)
	if !ok {
		return
	}
	data := u.playersData(p)
	p.Data = data
	if err != nil || prob != nil {
		u.refused(w, r, "players", p, prob, err)
		return
	}
	p.Flash, data["Workbook"] = out.said(p.Lang, p.State)
	u.render(w, "players", http.StatusOK, p)
}

// rawBody is a request body sent as it is, not as JSON (call).
type rawBody []byte

// workbookImported is what the API answers to an accepted upload.
type workbookImported struct {
	FileName string `json:"file_name"`
	Scope    string `json:"scope"`
	Seq      uint64 `json:"seq"`
	Players  int    `json:"players"`
	Counts   *struct {
		Tables int `json:"tables"`
		Rounds int `json:"rounds"`
	} `json:"counts"`
	Warnings []struct {
		Sheet string `json:"sheet"`
		Cell  string `json:"cell"`
		It    string `json:"it"`
		En    string `json:"en"`
	} `json:"warnings"`
	Disagreements []events.Disagreement `json:"disagreements"`
}

// workbookNotes are what a page shows of an accepted upload beside its
// banner: the national tool's warnings and the disagreements, each a
// sentence in the page's language.
type workbookNotes struct {
	Warnings      []problemLine
	Disagreements []string
}

// said is what the upload recorded, as the banner says it, and its notes.
func (o workbookImported) said(lang string, st *projections.TournamentView) (string, *workbookNotes) {
	var banner string
	if o.Scope == events.WorkbookTournament && o.Counts != nil {
		banner = fmt.Sprintf(tr(lang, "workbook_tournament_done"), o.FileName, o.Players, o.Counts.Tables, o.Counts.Rounds, o.Seq)
	} else {
		banner = fmt.Sprintf(tr(lang, "workbook_entry_list_done"), o.FileName, o.Players, o.Seq)
	}
	notes := &workbookNotes{}
	for _, w := range o.Warnings {
		text := w.It
		if lang == "en" {
			text = w.En
		}
		notes.Warnings = append(notes.Warnings, problemLine{Field: whereLabel(lang, w.Sheet, w.Cell), Text: text})
	}
	name := func(id string) string {
		for _, row := range st.Players {
			if row.Player == id {
				return row.Name
			}
		}
		return id
	}
	for _, d := range o.Disagreements {
		file, ruleset := tr(lang, "workbook_not_listed"), tr(lang, "workbook_not_ranked")
		if d.FileRank > 0 {
			file = fmt.Sprintf(tr(lang, "workbook_file_row"), d.FileRank, d.FilePoints)
		}
		if d.Rank > 0 {
			ruleset = fmt.Sprintf(tr(lang, "workbook_ruleset_row"), d.Rank, points(lang, int64(d.Total)))
		}
		if d.TieUnsolved {
			ruleset += " " + tr(lang, "workbook_tie_unsolved")
		}
		notes.Disagreements = append(notes.Disagreements, name(d.Player)+": "+file+"; "+ruleset)
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
