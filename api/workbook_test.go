package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/commands/workbook/workbooktest"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
)

// classificationOf reads a tournament's classification: by player, the
// rank and total; and, when it was imported, the file's rows and the
// disagreements.
func (s *stack) classificationOf(t string) (rows map[string][2]float64, imported *events.ClassificationImported) {
	s.t.Helper()
	var c struct {
		Rows []struct {
			Rank   int     `json:"rank"`
			Player string  `json:"player"`
			Total  float64 `json:"total"`
		} `json:"rows"`
		Imported *events.ClassificationImported `json:"imported"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/tournaments/"+t+"/classification", "", nil).body, &c); err != nil {
		s.t.Fatal(err)
	}
	rows = map[string][2]float64{}
	for _, r := range c.Rows {
		rows[r.Player] = [2]float64{float64(r.Rank), r.Total}
	}
	return rows, c.Imported
}

// The round trip: a tournament played through the API exports a workbook
// the national tool's check accepts; imported into a fresh data directory
// through the ledger, it gives the same classification (the file's, as
// published), the same standings derived from its games, the same counts
// and the same national id; and the imported tournament exports them
// again.
func TestWorkbookRoundTripThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	const id = "bologna-open"
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": id, "name": "Open di Bologna", "ruleset": "rtu",
		"params": map[string]any{"qualifying_rounds": 2}, "season": "2025", "tournament_type": "OPEN",
		"organizer": "BOLOGNA [Asinelli]", "venue": "Sala Borsa"})
	arb := s.appoint(id, "arbiter")
	cmds := "/v1/tournaments/" + id + "/commands"
	for i := 1; i <= 12; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Nome%d Cognome%d","club":"BOLOGNA [Asinelli]","national_id":"%d"}`, i, i, i, 500+i))
	}
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	rng := rand.New(rand.NewPCG(31, 31))
	sm, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 2; round++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"DrawTables","round":%d,"seed":"s%d"}`, round, round))
		s.playRound(id, arb, round, sm, rng)
	}
	s.rollView(id, "classification", arb, rng)
	s.must(201, "POST", cmds, arb, `{"type":"PublishClassification","final":true}`)

	r := s.must(200, "GET", "/v1/tournaments/"+id+"/workbook", arb, nil)
	if got := r.header.Get("Content-Type"); got != workbook.MediaType {
		t.Errorf("Content-Type %q, want %q", got, workbook.MediaType)
	}
	_, params, err := mime.ParseMediaType(r.header.Get("Content-Disposition"))
	name := params["filename"]
	if err != nil || !strings.HasSuffix(name, ".xlsx") || strings.Contains(name, "'") {
		t.Fatalf("Content-Disposition %q: want an .xlsx file name without an apostrophe", r.header.Get("Content-Disposition"))
	}
	s.must(401, "GET", "/v1/tournaments/"+id+"/workbook", "", nil)
	w, err := workbook.Read(name, r.body)
	if err != nil {
		t.Fatal(err)
	}
	if errs := workbook.Errors(workbook.Validate(w)); len(errs) > 0 {
		t.Fatalf("the exported workbook fails the national tool's check: %v", errs)
	}
	if got, want := w.Counts(), (workbook.Counts{Tables: 6, Participants: 12, Rounds: 2}); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
	wantID := w.Card.Dates[0].Date.Format("20060102") + " - BOLOGNA [Asinelli]"
	if got := w.NationalID(); got != wantID {
		t.Errorf("national id %q, want %q", got, wantID)
	}

	// A fresh data directory, the import through its ledger as referto
	// import does on a stopped directory.
	s2 := newStack(t)
	plan, err := workbook.PlanImport(w, workbook.Options{})
	if err != nil {
		t.Fatalf("%v: %v", err, plan.Problems)
	}
	if _, err := plan.Rehearse(nil, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	admin := events.Actor{ID: events.RoleAdmin, Role: events.RoleAdmin}
	if err := plan.Run(context.Background(), workbook.LedgerSubmit(s2.node.Ledger, admin)); err != nil {
		t.Fatal(err)
	}
	// Run again, as after a crash: every step replays, nothing is added.
	before := s2.logSize()
	if err := plan.Run(context.Background(), workbook.LedgerSubmit(s2.node.Ledger, admin)); err != nil {
		t.Fatal(err)
	}
	if after := s2.logSize(); after != before {
		t.Errorf("an import run again appended: %d events, then %d", before, after)
	}
	orig, _ := s.classificationOf(id)
	derived, imported := s2.classificationOf(plan.Tournament)
	if imported == nil || !imported.Final || len(imported.Rows) != len(orig) {
		t.Fatalf("imported classification %+v, want the %d rows of the original", imported, len(orig))
	}
	for _, row := range imported.Rows {
		want, ok := orig[row.Player]
		if !ok || float64(row.Rank) != want[0] || float64(row.Total)/100 != want[1] {
			t.Errorf("imported row %+v, the original has %v", row, want)
		}
	}
	for p, want := range orig {
		if got := derived[p]; got[1] != want[1] {
			t.Errorf("%s: the ruleset derives %v from the imported games, the original %v", p, got, want)
		}
	}
	for _, d := range imported.Disagreements {
		if !d.TieUnsolved {
			t.Errorf("disagreement %+v: only a tie the die settled (no die roll is in a workbook) may differ", d)
		}
	}
	r2 := s2.must(200, "GET", "/v1/tournaments/"+plan.Tournament+"/workbook", adminToken, nil)
	back, err := workbook.Read("back.xlsx", r2.body)
	if err != nil {
		t.Fatal(err)
	}
	if errs := workbook.Errors(workbook.Validate(back)); len(errs) > 0 {
		t.Fatalf("the imported tournament's workbook fails the check: %v", errs)
	}
	if got, want := back.NationalID(), wantID; got != want {
		t.Errorf("re-exported national id %q, want %q", got, want)
	}
	if got, want := back.Counts(), w.Counts(); got != want {
		t.Errorf("re-exported counts %+v, want %+v", got, want)
	}
}

// The entry list page's upload, through the API: the entry list alone into
// an open tournament; a file the national tool refuses answered with every
// problem, sheet and cell, and nothing recorded.
func TestWorkbookEntryListUpload(t *testing.T) {
	s := newStack(t)
	const id = "mattina"
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": id, "name": "Torneo del mattino", "ruleset": "rtu"})
	arb := s.appoint(id, "arbiter")
	path := "/v1/tournaments/" + id + "/workbook?file_name=iscritti.xlsx"
	bad := workbooktest.Primavera(t).Set("Iscritti", "A5", 1).Set("Iscritti", "A6", "tre").Bytes()
	r := s.must(400, "POST", path, arb, bad, "Content-Type", workbook.MediaType)
	for _, want := range []string{"Iscritti!A5", "Iscritti!A6", "duplicato", "non numerico"} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("the refusal does not say %q: %s", want, r.body)
		}
	}
	if n := s.logSize(); n != 2 {
		t.Errorf("a refused upload left %d events, want the creation and the appointment", n)
	}
	r = s.must(201, "POST", path, arb, workbooktest.Primavera(t).Bytes(), "Content-Type", workbook.MediaType)
	var out struct {
		Commands int `json:"commands"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil || out.Commands != 9 {
		t.Fatalf("upload answered %s, want 9 commands (the record and 8 registrations)", r.body)
	}
	players := s.must(200, "GET", "/v1/tournaments/"+id+"/players", "", nil)
	if !strings.Contains(string(players.body), "Anna Maria De Luca") {
		t.Errorf("the entry list lacks the imported players: %s", players.body)
	}
	s.must(201, "POST", "/v1/tournaments/"+id+"/commands", arb, `{"type":"CloseRegistration"}`)
	late := workbooktest.New(t).Entries(workbooktest.Entry{ID: 40, First: "Luigi", Last: "Verdi", Plays: true}).Bytes()
	r = s.must(400, "POST", path, arb, late, "Content-Type", workbook.MediaType)
	if !strings.Contains(string(r.body), "le iscrizioni del torneo sono chiuse") || !strings.Contains(string(r.body), "registration is closed") {
		t.Errorf("an entry list after registration closed: %s", r.body)
	}
}

// A result the hub knows only from a club's workbook has no log to prove
// it in: the player's season page offers no proof file for it (the API's
// path is empty, where it would answer 404) and the web page says where
// it comes from instead.
func TestAWorkbookResultOffersNoProof(t *testing.T) {
	s := &stack{t: t, dir: t.TempDir()}
	s.start()
	defer s.stop()
	s.becomeHub()
	wb := workbooktest.Primavera(t).Set("TORNEO", "D8", workbooktest.Day(2024, 3, 15)).Set("TORNEO", "D9", workbooktest.Day(2024, 3, 16))
	s.must(201, "POST", "/v1/workbooks?file_name=primavera.xlsx", adminToken, wb.Bytes(), "Content-Type", workbook.MediaType)
	var page struct {
		Results []struct {
			Tournament string `json:"tournament"`
			Seq        uint64 `json:"seq"`
		} `json:"results"`
		Proofs []string `json:"proofs"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/seasons/2024/players/1001", "", nil).body, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Results) != 1 || page.Results[0].Tournament != "20240315-roma-il-gufo" || page.Results[0].Seq != 0 {
		t.Fatalf("the player's season: %+v, want the workbook's result", page)
	}
	if got := page.Proofs; len(got) != 1 || got[0] != "" {
		t.Errorf("proofs %q, want none for the workbook's result", got)
	}
	html := string(s.must(200, "GET", "/ui/seasons/2024/players/1001", "", nil).body)
	if !strings.Contains(html, "da un file di torneo") || strings.Contains(html, `class="proof"`) {
		t.Errorf("the player's page links a proof for the workbook's result, or does not say where it comes from:\n%s", html)
	}
}

// The tournament's summary, as JSON and on its page, says who organizes
// it and where, as created and as amended before the first draw.
func TestTheSummarySaysTheOrganizerAndVenue(t *testing.T) {
	s := newStack(t)
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": "open-bo", "name": "Open di Bologna", "ruleset": "rtu",
		"organizer": "BOLOGNA [Asinelli]", "venue": "Sala Borsa"})
	arb := s.appoint("open-bo", "arbiter")
	summary := func() (organizer, venue string) {
		t.Helper()
		var v struct {
			Organizer string `json:"organizer"`
			Venue     string `json:"venue"`
		}
		if err := json.Unmarshal(s.must(200, "GET", "/v1/tournaments/open-bo", "", nil).body, &v); err != nil {
			t.Fatal(err)
		}
		return v.Organizer, v.Venue
	}
	if o, v := summary(); o != "BOLOGNA [Asinelli]" || v != "Sala Borsa" {
		t.Errorf("the summary says organizer %q, venue %q", o, v)
	}
	if page := string(s.must(200, "GET", "/ui/t/open-bo/", "", nil).body); !strings.Contains(page, "Organizzatore <b>BOLOGNA [Asinelli]</b> · Sede <b>Sala Borsa</b>") {
		t.Errorf("the tournament's page does not say its organizer and venue:\n%s", page)
	}
	s.must(201, "POST", "/v1/tournaments/open-bo/commands", arb, `{"type":"AmendOrganizer","organizer":"IMOLA [Dadi Rossi]","venue":"Palazzo Monsignani","reason":"the club that runs it"}`)
	if o, v := summary(); o != "IMOLA [Dadi Rossi]" || v != "Palazzo Monsignani" {
		t.Errorf("the amended summary says organizer %q, venue %q", o, v)
	}
}

// A tournament imported from a club workbook publishes the file's
// standings: the player's proof file and the classification page's row
// proof of them verify offline with the server's key, say they are the
// workbook's, and prove the row as the file has it.
func TestAnImportedClassificationIsProved(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": "primavera", "name": "Primavera", "ruleset": "rtu"})
	arb := s.appoint("primavera", "arbiter")
	s.must(201, "POST", "/v1/tournaments/primavera/workbook?scope=tournament&file_name=primavera.xlsx", arb, workbooktest.Primavera(t).Bytes(),
		"Content-Type", workbook.MediaType)
	var keys struct {
		Checkpoint string `json:"checkpoint"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/keys", "", nil).body, &keys); err != nil {
		t.Fatal(err)
	}
	key, err := checkpoint.NewVerifier(keys.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	want := events.ClassificationRow{Rank: 2, Player: "p5", Name: "Marco Russo", Total: 14900}
	for _, path := range []string{api.ProofPath("primavera", "p5"), "/v1/tournaments/primavera/classification/rows/p5/proof"} {
		res, err := proof.Verify(s.must(200, "GET", path, "", nil).body, key, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !res.Imported || res.Proof.Row != want {
			t.Errorf("%s proves %+v (imported %v), want the file's row %+v", path, res.Proof.Row, res.Imported, want)
		}
	}
}
