package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/replay"
)

// The club workbook on the command line (docs/workbook.md): check one as the
// national tool would, import one into the ledger, export a tournament as one.

// errCheck is a workbook the national tool would refuse: the problems have
// been printed.
var errCheck = errors.New("the workbook has errors")

// readWorkbook reads the workbook file at path.
func readWorkbook(path string) (*workbook.Workbook, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > workbook.MaxSize {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a workbook may be", path, fi.Size(), workbook.MaxSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return workbook.Read(filepath.Base(path), data)
}

// printProblems prints problems one a line and says how many errors and
// warnings there are.
func printProblems(w io.Writer, problems []workbook.Problem) (errs int) {
	for _, p := range problems {
		fmt.Fprintln(w, p)
	}
	errs = len(workbook.Errors(problems))
	fmt.Fprintf(w, "%d errori, %d avvisi / %d errors, %d warnings\n", errs, len(problems)-errs, errs, len(problems)-errs)
	return errs
}

func checkCmd(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("check", stderr)
	path := fs.String("workbook", "", "the club workbook (.xlsx) to check, required")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *path == "" {
		return usagef(stderr, "check needs --workbook")
	}
	w, err := readWorkbook(*path)
	if err != nil {
		return err
	}
	c := w.Counts()
	fmt.Fprintf(stdout, "%s (sha256 %s)\ntorneo / tournament: %q; tavoli / tables %d, partecipanti / participants %d, turni / rounds %d\n",
		w.FileName, w.SHA256, w.NationalID(), c.Tables, c.Participants, c.Rounds)
	if printProblems(stdout, workbook.Validate(w)) > 0 {
		return errCheck
	}
	return nil
}

func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("import", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: referto import --workbook FILE (--data DIR | --url URL) [--tournament ID] [--entry-list]

Record a club workbook (.xlsx) in the ledger as ordinary commands: the tournament with its
organizer and venue, the import's record (file name, SHA-256), the entry list, each round as a
hand-made draw and its table reports, and the file's standings published as imported, with every
row the ruleset's computation disagrees on. Nothing is sent while the national tool's check or the
ledger's rules refuse anything (every problem is printed). With --entry-list only the entry list
goes, into the open tournament --tournament. While referto serve runs on DIR (DIR/serve.json says
where) the commands are sent to it with the administrator's token; otherwise DIR is written
directly. Run again after a failure, an import resumes where it stopped.

`)
		fs.PrintDefaults()
	}
	path := fs.String("workbook", "", "the club workbook (.xlsx), required")
	data := fs.String("data", "", "data directory of referto (stopped, or running serve)")
	url := fs.String("url", "", "base URL of a running referto (instead of --data)")
	token := fs.String("token", getenv("REFERTO_ADMIN_TOKEN"), "the administrator's token (an arbiter's for --entry-list), to send to a running server [REFERTO_ADMIN_TOKEN]")
	t := fs.String("tournament", "", "the tournament's id (default: from the national tool's id, e.g. 20250315-roma-il-gufo; required with --entry-list)")
	entryList := fs.Bool("entry-list", false, "import the entry list alone into the open tournament --tournament")
	ruleset := fs.String("ruleset", string(workbook.DefaultRuleset), "the ruleset preset the tournament is recorded under")
	params := fs.String("params", "", "ruleset parameters (JSON object) besides those the file decides")
	season := fs.String("season", "", "the season it is ranked in (default: the year of its last round)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *path == "" || (*data == "") == (*url == "") || *entryList && *t == "" {
		return usagef(stderr, "import needs --workbook, exactly one of --data and --url, and --tournament with --entry-list")
	}
	w, err := readWorkbook(*path)
	if err != nil {
		return err
	}
	o := workbook.Options{Tournament: *t, Ruleset: events.PresetID(*ruleset), Params: json.RawMessage(*params), Season: *season, EntryList: *entryList}
	base := *url
	if si, ok := (node.Layout{Dir: *data}).Announced(); base == "" && ok {
		base = si.URL
	}
	start := time.Now()
	var p *workbook.Plan
	c := &client.Client{Base: base, Token: *token, RetryUnavailable: 20}
	switch {
	case base != "" && *entryList:
		// The server plans it against the tournament as it stands.
		var up client.WorkbookUpload
		if up, err = c.UploadWorkbook(ctx, *t, events.WorkbookEntryList, w.FileName, w.Data); err != nil {
			return err
		}
		printProblems(stdout, up.Warnings)
		fmt.Fprintf(stdout, "imported %s (sha256 %s) into tournament %s: %d players, %d commands (%s)\n", w.FileName, w.SHA256, *t, up.Players, up.Commands, time.Since(start).Round(time.Millisecond))
		return nil
	case base != "":
		p, err = importHTTP(ctx, w, o, c, stdout)
	default:
		p, err = importDir(ctx, w, o, *data, stdout)
	}
	if err != nil {
		return err
	}
	counts := p.Counts
	fmt.Fprintf(stdout, "imported %s (sha256 %s) as tournament %s: %d commands (%s)\n", w.FileName, w.SHA256, p.Tournament, len(p.Steps), time.Since(start).Round(time.Millisecond))
	if !*entryList {
		fmt.Fprintf(stdout, "national id %q: %d tables, %d participants, %d rounds\n", p.NationalID, counts.Tables, counts.Participants, counts.Rounds)
	}
	return nil
}

// planned plans the import and prints why it cannot run, if it cannot,
// and the file's standings against the ruleset's once rehearsed.
func planned(w *workbook.Workbook, o workbook.Options, stdout io.Writer) (*workbook.Plan, error) {
	p, err := workbook.PlanImport(w, o)
	if p != nil && len(p.Problems) > 0 {
		if printProblems(stdout, p.Problems) > 0 {
			return nil, errCheck
		}
	}
	if err != nil {
		return nil, err
	}
	if _, err := p.Rehearse(o.Into, time.Now().UTC()); err != nil {
		// What the ledger refuses, with its sheet and cell.
		if printProblems(stdout, workbook.Errors(p.Problems)) > 0 {
			return nil, errCheck
		}
		return nil, err
	}
	printDisagreements(stdout, p.Disagreements)
	return p, nil
}

// printDisagreements says, row by row, where the file's standings and the
// ruleset's computation from its games differ.
func printDisagreements(w io.Writer, ds []events.Disagreement) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(w, "the file's standings are kept as published; the ruleset computes otherwise for %d players:\n", len(ds))
	for _, d := range ds {
		file, derived := "not listed", "not ranked"
		if d.FileRank > 0 {
			file = fmt.Sprintf("%d. with %s", d.FileRank, d.FilePoints)
		}
		if d.Rank > 0 {
			derived = fmt.Sprintf("%d. with %s", d.Rank, projections.Points(d.Total))
		}
		fmt.Fprintf(w, "  %-8s file %-18s ruleset %s\n", d.Player, file, derived)
	}
}

// importDir imports into a stopped data directory, through a node started
// on it for the purpose.
func importDir(ctx context.Context, w *workbook.Workbook, o workbook.Options, data string, stdout io.Writer) (*workbook.Plan, error) {
	n, err := node.StartNode(ctx, node.NodeOptions{Data: data})
	if err != nil {
		return nil, err
	}
	defer n.Close()
	if err := n.Runner.WaitReady(ctx); err != nil {
		return nil, err
	}
	if o.EntryList {
		if !n.Runner.Read(o.Tournament, func(st *projections.Tournament) { o.Into = st.Clone() }) {
			return nil, fmt.Errorf("%s has no tournament %s", data, o.Tournament)
		}
	}
	p, err := planned(w, o, stdout)
	if err != nil {
		return nil, err
	}
	return p, p.Run(ctx, workbook.LedgerSubmit(n.Ledger, events.Actor{ID: events.RoleAdmin, Role: events.RoleAdmin}))
}

// importHTTP imports through a running server's API.
func importHTTP(ctx context.Context, w *workbook.Workbook, o workbook.Options, c *client.Client, stdout io.Writer) (*workbook.Plan, error) {
	p, err := planned(w, o, stdout)
	if err != nil {
		return nil, err
	}
	err = p.Run(ctx, func(ctx context.Context, t string, s workbook.Step) error {
		if s.Create {
			body, err := commands.Encode(s.Command)
			if err == nil {
				_, err = c.CreateTournamentJSON(ctx, s.Key, body)
			}
			return err
		}
		_, err := c.Command(ctx, t, s.Key, s.Command)
		return err
	})
	var pr *client.Problem
	if errors.As(err, &pr) && pr.Status == 401 {
		err = fmt.Errorf("%w (the server at %s needs the administrator's token: --token or REFERTO_ADMIN_TOKEN)", err, c.Base)
	}
	return p, err
}

// exportWorkbook writes tournament t as a club workbook: the running
// server's (GET /v1/tournaments/{t}/workbook) or, from a stopped data
// directory, folded from its log.
func exportWorkbook(ctx context.Context, data, base, token, t, out string, stdout, stderr io.Writer) error {
	var name string
	var file []byte
	if base != "" {
		var err error
		if name, file, err = (&client.Client{Base: base, Token: token}).Workbook(ctx, t); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	} else {
		sc, closeLog, err := replay.ScanDir(ctx, dataDir{node.Layout{Dir: data}}, t,
			func(n uint64) replay.Progress { return newProgress(stderr, int64(n), "read", false) })
		if err != nil {
			return err
		}
		st, err := replay.Fold(sc, 0)
		closeLog()
		if err != nil {
			return err
		}
		if name, file, err = workbook.Export(st); err != nil {
			return err
		}
	}
	if out == "" {
		out = name
	}
	if err := os.WriteFile(out, file, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s as a club workbook to %s (%d bytes; checked as the national tool checks it)\n", t, out, len(file))
	return nil
}
