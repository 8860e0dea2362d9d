package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
)

// maxUpload is the largest club workbook the entry list's upload takes, in
// bytes (the national tool's templates are well under 1 MB).
const maxUpload = 16 << 20

// workbookPost records a club workbook uploaded on the entry list's page
// (docs/workbook.md): its entry list alone, or the whole tournament, sent
// in-process to POST /v1/tournaments/{t}/workbook as the official logged
// in. Every problem the national tool or the ledger finds is shown with
// its sheet and cell, and nothing is recorded.
func (u *UI) workbookPost(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		http.Error(w, tr(lang(r), "cross_site"), http.StatusForbidden)
		return
	}
	t := r.PathValue("t")
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+1<<20)
	var prob *Problem
	var err error
	var out struct {
		Commands int `json:"commands"`
	}
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
		scope := r.PostFormValue("scope")
		path := "/v1/tournaments/" + url.PathEscape(t) + "/workbook?" + url.Values{"scope": {scope}, "file_name": {filepath.Base(header.Filename)}}.Encode()
		var res apiResponse
		if res, err = u.call(r, token(r), http.MethodPost, path, rawBody(data)); err != nil {
			break
		}
		if res.status >= 300 {
			prob = problemOf(res)
			break
		}
		err = json.Unmarshal(res.body, &out)
	}
	var tooLarge *http.MaxBytesError
	if errors.As(ferr, &tooLarge) {
		prob = &Problem{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Field: "workbook", Detail: trf(lang(r), "workbook_too_large", maxUpload>>20), Said: true}
	}
	if err == nil && prob == nil {
		done(w, r, tPath(t)+"players", &flash{event: "imported", arg: strconv.Itoa(out.Commands) + " " + tr(lang(r), "workbook_commands")})
		return
	}
	if p, ok := u.tournamentPage(w, r, "players", 0); ok {
		p.Data = u.playersData(p)
		u.refused(w, r, "players", p, prob, err)
	}
}

// rawBody is a request body sent as it is, not as JSON (call).
type rawBody []byte
