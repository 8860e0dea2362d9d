package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// The club workbook (docs/workbook.md): a tournament downloaded as the
// workbook the national ranking publishes from, and a workbook (or its
// entry list alone) uploaded into a tournament.

// getWorkbook serves the tournament as a club workbook, checked as the
// national tool checks it before it is sent.
func (s *Server) getWorkbook(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		return err
	}
	var st *projections.Tournament
	if !s.opts.Runner.Read(t, func(cur *projections.Tournament) { st = cur.Clone() }) {
		return fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	name, data, err := workbook.Export(st)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", workbook.MediaType)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
	return nil
}

// workbookImported is the answer to an upload: what was recorded, the
// national tool's warnings, and the rows the ruleset's computation
// disagrees with the file's standings on.
type workbookImported struct {
	Tournament    string                `json:"tournament"`
	FileName      string                `json:"file_name"`
	SHA256        string                `json:"sha256"`
	Scope         string                `json:"scope"`
	Commands      int                   `json:"commands"`
	Players       int                   `json:"players"`
	Seq           uint64                `json:"seq"`
	NationalID    string                `json:"national_id,omitempty"`
	Counts        *workbook.Counts      `json:"counts,omitempty"`
	Warnings      []workbook.Problem    `json:"warnings"`
	Disagreements []events.Disagreement `json:"disagreements"`
}

// postWorkbook records an uploaded club workbook (.xlsx, the request's
// body) in tournament t as ordinary commands, sent by the official who
// uploads it: its entry list alone (scope entry_list, the default) into an
// open tournament, or the whole tournament (scope tournament) into one that
// has recorded no player. Nothing is recorded while the national tool's
// check or the ledger's rules refuse anything: every problem is answered
// at once, with its sheet and cell.
func (s *Server) postWorkbook(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if err := s.checkTournamentID(t); err != nil {
		return err
	}
	p, err := s.authorize(r, t, events.RoleArbiter)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	scope := q.Get("scope")
	if scope == "" {
		scope = events.WorkbookEntryList
	}
	if scope != events.WorkbookEntryList && scope != events.WorkbookTournament {
		return &commands.FieldError{Field: "scope", Msg: fmt.Sprintf("must be %s or %s, not %q", events.WorkbookEntryList, events.WorkbookTournament, scope)}
	}
	wb, err := s.uploadedWorkbook(w, r, t+".xlsx")
	if err != nil {
		return err
	}
	// The import is planned against everything the ledger acknowledged,
	// which the projections may not have applied yet.
	if err := s.opts.Ledger.AwaitAcked(r.Context(), t); err != nil {
		return err
	}
	var st *projections.Tournament
	if !s.opts.Runner.Read(t, func(cur *projections.Tournament) { st = cur.Clone() }) {
		return fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	plan, err := workbook.PlanImport(wb, workbook.Options{EntryList: scope == events.WorkbookEntryList, Into: st})
	if err == nil {
		_, err = plan.Rehearse(st, time.Now().UTC())
	}
	if errors.Is(err, workbook.ErrImport) && len(workbook.Errors(plan.Problems)) > 0 {
		err = problemsErr(plan.Problems)
	}
	if err != nil {
		return err
	}
	var last uint64
	err = plan.Run(r.Context(), func(ctx context.Context, t string, step workbook.Step) error {
		sub, err := workbook.Submission(t, step, p.actor())
		if err != nil {
			return err
		}
		o, err := s.opts.Ledger.Submit(ctx, sub)
		last = o.Seq
		return err
	})
	if err != nil {
		return err
	}
	out := workbookImported{Tournament: t, FileName: wb.FileName, SHA256: wb.SHA256, Scope: scope, Commands: len(plan.Steps), Seq: last,
		Warnings: []workbook.Problem{}, Disagreements: plan.Disagreements}
	for _, pr := range plan.Problems {
		if pr.Severity == workbook.Warning {
			out.Warnings = append(out.Warnings, pr)
		}
	}
	for _, step := range plan.Steps {
		if _, ok := step.Command.(*commands.RegisterPlayer); ok {
			out.Players++
		}
	}
	if scope == events.WorkbookTournament {
		out.NationalID, out.Counts = plan.NationalID, &plan.Counts
	}
	if out.Disagreements == nil {
		out.Disagreements = []events.Disagreement{}
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// uploadedWorkbook reads the workbook a request's body carries, named by
// its file_name query parameter (def when it has none).
func (s *Server) uploadedWorkbook(w http.ResponseWriter, r *http.Request, def string) (*workbook.Workbook, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, workbook.MaxSize))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errTooLarge
	case err != nil:
		return nil, errors.Join(errBadRequest, err)
	}
	name := path.Base(strings.ReplaceAll(r.URL.Query().Get("file_name"), `\`, "/"))
	if name == "." || name == "/" {
		name = def
	}
	wb, err := workbook.Read(name, data)
	var fe *workbook.FileError
	switch {
	case errors.As(err, &fe):
		return nil, &commands.FieldError{Field: "body", Msg: fe.It + " / " + fe.En, Rule: workbook.Rule}
	case err != nil:
		return nil, &commands.FieldError{Field: "body", Msg: err.Error(), Rule: workbook.Rule}
	}
	return wb, nil
}

// problemsErr is the errors among problems, as a refusal naming each
// one's sheet and cell.
func problemsErr(problems []workbook.Problem) error {
	var errs []error
	for _, pr := range workbook.Errors(problems) {
		errs = append(errs, &commands.FieldError{Field: pr.Where(), Msg: pr.It + " / " + pr.En, Rule: workbook.Rule})
	}
	return errors.Join(errs...)
}
