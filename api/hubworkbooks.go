package api

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/atomicfile"
	"github.com/referto/referto/projections/ranking"
)

// A national hub's club workbooks of tournaments not run on referto
// (docs/workbook.md#at-the-national-hub): the administrator uploads one
// (POST /v1/workbooks), or drops .xlsx files in the hub's folder
// (node.Layout.Workbooks); the season's ranking reads every one the
// national tool's check accepts, listed as a workbook's, never cosigned.

// hubWorkbook is the answer to an upload.
type hubWorkbook struct {
	Tournament string             `json:"tournament"`
	NationalID string             `json:"national_id"`
	FileName   string             `json:"file_name"`
	SHA256     string             `json:"sha256"`
	Counts     workbook.Counts    `json:"counts"`
	Warnings   []workbook.Problem `json:"warnings"`
}

// postHubWorkbook keeps an uploaded workbook in the hub's folder, once the
// national tool's check accepts it, under its SHA-256.
func (s *Server) postHubWorkbook(w http.ResponseWriter, r *http.Request) error {
	p, err := s.authorize(r, "")
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the administrator uploads workbooks", errForbidden)
	}
	if err != nil {
		return err
	}
	wb, err := s.uploadedWorkbook(w, r, "workbook.xlsx")
	if err != nil {
		return err
	}
	problems := workbook.Validate(wb)
	if len(workbook.Errors(problems)) > 0 {
		return problemsErr(problems)
	}
	if err := writeFileSynced(s.opts.Node.Layout.Workbooks(), wb.SHA256+".xlsx", wb.Data); err != nil {
		return err
	}
	out := hubWorkbook{Tournament: workbook.Slug(wb.NationalID()), NationalID: wb.NationalID(), FileName: wb.FileName, SHA256: wb.SHA256,
		Counts: wb.Counts(), Warnings: []workbook.Problem{}}
	for _, pr := range problems {
		out.Warnings = append(out.Warnings, pr)
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// writeFileSynced writes dir/name whole or not at all, making dir if
// need be.
func writeFileSynced(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, name), data, 0o600)
}

// hubWorkbooks reads the hub's folder: the tournaments of season its
// workbooks hold, those the national tool's check accepts and whose id is
// not one of held (the tournaments the hub has a log of). A workbook the
// check refuses is left out (its upload was refused, or it was dropped in
// the folder so: referto check says why).
func (s *Server) hubWorkbooks(season string, held []string) ([]ranking.Tournament, error) {
	dir := s.opts.Node.Layout.Workbooks()
	names, err := filepath.Glob(filepath.Join(dir, "*.xlsx"))
	if err != nil {
		return nil, err
	}
	var out []ranking.Tournament
	seen := map[string]bool{}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		wb, err := workbook.Read(filepath.Base(n), data)
		if err != nil || len(workbook.Errors(workbook.Validate(wb))) > 0 {
			continue
		}
		t := workbook.Ranked(wb)
		if t.Season != season || !events.ValidID(t.ID) || slices.Contains(held, t.ID) || seen[t.ID] {
			continue
		}
		seen[t.ID] = true
		out = append(out, t)
	}
	return out, nil
}
