package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/commands/workbook/workbooktest"
	"github.com/referto/referto/projections/ranking"
	"github.com/referto/referto/replay"
)

// seasonHub stands in for api/hub.Hub in the season's tests: which
// tournaments it serves, holds or quarantines, and the size of each one's
// last cosigned checkpoint, are the test's to set.
type seasonHub struct {
	mu     sync.Mutex
	served map[string]error  // Served's answer; absent: served
	size   map[string]uint64 // the cosigned checkpoint's size; absent: none
}

// becomeHub restarts the stack on its data directory as a hub's, with a
// stand-in hub that serves every tournament and has cosigned none until
// the test says otherwise (set).
func (s *stack) becomeHub() *seasonHub {
	h := &seasonHub{served: map[string]error{}, size: map[string]uint64{}}
	s.stop()
	s.hub = h
	s.start()
	return h
}

func (h *seasonHub) set(t string, served error, size uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.served[t], h.size[t] = served, size
}

func (h *seasonHub) Register(string, string) error { return nil }
func (h *seasonHub) IssueLink(string, string) (string, hub.Decision, error) {
	return "", hub.Decision{}, hub.ErrVenue
}
func (h *seasonHub) Decide(string, hub.DecisionRequest) (hub.Decision, error) {
	return hub.Decision{}, hub.ErrVenue
}
func (h *seasonHub) Venues() ([]hub.Venue, []hub.Tournament) { return nil, nil }
func (h *seasonHub) WitnessKey() string                      { return "referto-hub+00000000+BAAA" }
func (h *seasonHub) State() ([]byte, error)                  { return []byte(seasonHubState), nil }
func (h *seasonHub) VenueLog(string, []byte) (string, func(context.Context, func(hub.VenueMessage) error) error, error) {
	return "", nil, hub.ErrProof
}

// seasonHubState stands for a hub's state file in a backup.
const seasonHubState = `{"venues":{"roma":{"key":"roma+1234abcd+AQ"}}}`

func (h *seasonHub) Served(t string) error { h.mu.Lock(); defer h.mu.Unlock(); return h.served[t] }
func (h *seasonHub) Cosigned(t string) (signed string, n uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, ok = h.size[t]
	return "", n, ok
}

// seasonView is what the registry's tests read of a ranking.
type seasonView struct {
	Tournaments []seasonTournament `json:"tournaments"`
	Rows        []struct {
		NationalID   string  `json:"national_id"`
		Score        float64 `json:"score"`
		Disqualified bool    `json:"disqualified"`
		Results      []struct {
			Player  string  `json:"player"`
			Date    string  `json:"date"`
			Score   float64 `json:"score"`
			Counts  bool    `json:"counts"`
			WhyCode string  `json:"why_code"`
		} `json:"results"`
	} `json:"rows"`
	Unlinked []struct {
		Player string `json:"player"`
	} `json:"unlinked"`
}

// seasonTournament is whether a tournament counts in the season, and why.
type seasonTournament struct {
	ID      string   `json:"id"`
	Source  string   `json:"source"`
	Counts  bool     `json:"counts"`
	Why     string   `json:"why"`
	WhyCode string   `json:"why_code"`
	WhyArgs []string `json:"why_args"`
}

func (v seasonView) row(id string) (score float64, results int, disqualified, ok bool) {
	for _, r := range v.Rows {
		if r.NationalID == id {
			return r.Score, len(r.Results), r.Disqualified, true
		}
	}
	return 0, 0, false, false
}

func (s *stack) season() (seasonView, []byte) {
	s.t.Helper()
	b := s.must(200, "GET", "/v1/seasons/2024/ranking", "", nil).body
	var v seasonView
	if err := json.Unmarshal(b, &v); err != nil {
		s.t.Fatal(err)
	}
	return v, b
}

// TestSeasonRegistryAtAHub: a MASTER played at a venue, then served by a
// hub (the venue's data directory under a stand-in hub). Over HTTP, the
// administrator links the player registered without a national id, merges
// two ids and records a disqualification period, and each changes the
// ranking as the rules say; every refusal names its field and records
// nothing; a restart folds the registry's log again into the same
// ranking; and the tournament's export with the registry's export, checked
// offline with the hub's key, ranks the season exactly as the hub does.
func TestSeasonRegistryAtAHub(t *testing.T) {
	t.Parallel()
	s := &stack{t: t, dir: t.TempDir()}
	s.start()
	defer s.stop()
	arb := s.playMaster("master-bo", func(i int) string {
		if i == 24 {
			return ""
		}
		return fmt.Sprintf("%06d", 200000+i)
	})
	// The venue's export, as an auditor keeps it, and its key.
	season := t.TempDir()
	ex := s.must(200, "GET", "/v1/tournaments/master-bo/export", arb, nil)
	note, _ := base64.StdEncoding.DecodeString(ex.header.Get(api.CheckpointHeader))
	writeFile(t, filepath.Join(season, "master-bo.ndjson"), ex.body)
	writeFile(t, filepath.Join(season, "master-bo.ndjson.checkpoint"), note)
	var keys struct {
		Checkpoint string `json:"checkpoint"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/keys", "", nil).body, &keys)
	var summary struct {
		Seq uint64 `json:"seq"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/master-bo", "", nil).body, &summary)

	// The same data directory, now a hub's that verified the tournament.
	h := s.becomeHub()
	h.set("master-bo", nil, summary.Seq)
	before, _ := s.season()
	if len(before.Rows) != 23 || len(before.Unlinked) != 1 || before.Unlinked[0].Player != "p24" {
		t.Fatalf("before the registry: %d rows, unlinked %+v", len(before.Rows), before.Unlinked)
	}
	reg := "/v1/registry/commands"
	events := func() int {
		var v struct {
			Events int `json:"events"`
		}
		json.Unmarshal(s.must(200, "GET", "/v1/registry", "", nil).body, &v)
		return v.Events
	}

	// A link: p24 ranks under the id the registry gives him.
	s.must(201, "POST", reg, adminToken, `{"type":"LinkNationalID","tournament":"master-bo","player":"p24","national_id":"200024","reason":"the venue did not know it"}`)
	linked, _ := s.season()
	if _, n, _, ok := linked.row("200024"); !ok || n != 1 || len(linked.Unlinked) != 0 || len(linked.Rows) != 24 {
		t.Fatalf("after the link: 200024 %v, %d rows, unlinked %+v", ok, len(linked.Rows), linked.Unlinked)
	}

	// A merge: 200002's result is 200001's, and counts for him (best 3 of
	// MASTER), beside his own.
	one, _, _, _ := linked.row("200001")
	two, _, _, _ := linked.row("200002")
	s.must(201, "POST", reg, adminToken, `{"type":"MergePlayers","from":"200002","into":"200001","reason":"one person, two cards"}`)
	merged, _ := s.season()
	got, n, _, _ := merged.row("200001")
	if _, _, _, still := merged.row("200002"); still || n != 2 || math.Abs(got-(one+two)) > 1e-9 {
		t.Fatalf("after the merge: 200001 scores %.3f with %d results (want %.3f with 2), 200002 still ranked: %v", got, n, one+two, still)
	}

	// A disqualification period covering the tournament's day: 200003's
	// result gives nothing, and says why.
	var day string
	for _, r := range merged.Rows {
		if r.NationalID == "200003" {
			day = r.Results[0].Date
		}
	}
	s.must(201, "POST", reg, adminToken, fmt.Sprintf(`{"type":"RecordDisqualification","national_id":"200003","from":%q,"to":%q,"reason":"art. 5 of the federation's code"}`, day, day))
	after, afterJSON := s.season()
	if score, _, disq, ok := after.row("200003"); !ok || score != 0 || !disq {
		t.Fatalf("after the disqualification: 200003 scores %.3f, disqualified %v", score, disq)
	}
	for _, r := range after.Rows {
		if r.NationalID == "200003" && (r.Results[0].Counts || r.Results[0].WhyCode != ranking.WhyDisqualified) {
			t.Errorf("200003's result: %+v", r.Results[0])
		}
	}
	// The player's page says why, in Italian and in English.
	for lang, want := range map[string]string{"it": "periodo di squalifica dal " + day + " al " + day, "en": "disqualification period " + day + ".." + day} {
		if page := string(s.must(200, "GET", "/ui/seasons/2024/players/200003?lang="+lang, "", nil).body); !strings.Contains(page, want) {
			t.Errorf("the %s page does not say %q", lang, want)
		}
	}

	// Every refusal names the field and records nothing.
	recorded := events()
	for _, c := range []struct {
		status      int
		token, body string
		field       string
	}{
		{400, adminToken, `{"type":"LinkNationalID","tournament":"nowhere","player":"p1","national_id":"200001"}`, "tournament"},
		{400, adminToken, `{"type":"LinkNationalID","tournament":"master-bo","player":"p99","national_id":"200001"}`, "player"},
		{409, adminToken, `{"type":"LinkNationalID","tournament":"master-bo","player":"p24","national_id":"200024"}`, ""},
		{400, adminToken, `{"type":"LinkNationalID","tournament":"master-bo","player":"p1","national_id":"Not An Id"}`, "national_id"},
		{400, adminToken, `{"type":"MergePlayers","from":"200005","into":"200005","reason":"itself"}`, "into"},
		{400, adminToken, `{"type":"MergePlayers","from":"200001","into":"200002","reason":"back"}`, "into"},
		{409, adminToken, `{"type":"MergePlayers","from":"200002","into":"200005","reason":"again"}`, ""},
		{400, adminToken, `{"type":"MergePlayers","from":"999999","into":"200005","reason":"nobody"}`, "from"},
		{400, adminToken, `{"type":"MergePlayers","from":"200006","into":"200005"}`, "reason"},
		{400, adminToken, `{"type":"RecordDisqualification","national_id":"200004","from":"1 June","to":"2024-07-01","reason":"x"}`, "from"},
		{400, adminToken, `{"type":"RecordDisqualification","national_id":"200004","from":"2024-07-01","to":"2024-06-01","reason":"x"}`, "to"},
		{409, adminToken, fmt.Sprintf(`{"type":"RecordDisqualification","national_id":"200003","from":%q,"to":%q,"reason":"twice"}`, day, day), ""},
		{400, adminToken, `{"type":"DrawTables","round":1}`, "type"},
		{400, adminToken, `{"type":"LinkNationalID","tournament":"master-bo","player":"p1","national_id":"200001","extra":1}`, "extra"},
		{401, "", `{"type":"MergePlayers","from":"200006","into":"200005","reason":"x"}`, ""},
		{403, arb, `{"type":"MergePlayers","from":"200006","into":"200005","reason":"x"}`, ""},
	} {
		r := s.must(c.status, "POST", reg, c.token, c.body)
		if c.field != "" && !strings.Contains(string(r.body), `"field":"`+c.field+`"`) {
			t.Errorf("%s: the problem does not name %s: %s", c.body, c.field, r.body)
		}
	}
	// Idempotency: the same key and request replays, another request is refused.
	body := `{"type":"RecordDisqualification","national_id":"200004","from":"2020-01-01","to":"2020-12-31","reason":"an old case"}`
	first := s.must(201, "POST", reg, adminToken, body, "Idempotency-Key", "k-2020")
	again := s.must(201, "POST", reg, adminToken, body, "Idempotency-Key", "k-2020")
	if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.body, again.body) {
		t.Errorf("a retried command was not replayed: %s", again.body)
	}
	s.must(422, "POST", reg, adminToken, strings.Replace(body, "2020-12-31", "2020-11-30", 1), "Idempotency-Key", "k-2020")
	if got := events(); got != recorded+1 {
		t.Fatalf("the registry holds %d events, want %d: a refusal or a retry recorded something", got, recorded+1)
	}
	_, afterJSON = s.season()

	// A restart folds the registry's log again: the same ranking.
	s.restart()
	if _, again := s.season(); !bytes.Equal(again, afterJSON) {
		t.Errorf("the ranking after a restart differs:\n%s\nbefore:\n%s", again, afterJSON)
	}

	// Offline: the tournament's export and the registry's, under the hub's
	// key, rank the season as the hub does.
	rx := s.must(200, "GET", "/v1/registry/export", "", nil)
	signed, _ := base64.StdEncoding.DecodeString(rx.header.Get(api.CheckpointHeader))
	writeFile(t, filepath.Join(season, "keys"), []byte(keys.Checkpoint+"\n"))
	ring, err := replay.ReadKeyring(filepath.Join(season, "keys"))
	if err != nil {
		t.Fatal(err)
	}
	folded, cp, err := replay.VerifyRegistry(rx.body, signed, ring)
	if err != nil || cp.Size != 4 {
		t.Fatalf("the registry's export: %v (%d events)", err, cp.Size)
	}
	rep, err := replay.VerifySeason(context.Background(), replay.SeasonOptions{Dir: season, Keys: ring})
	if err != nil || !rep.OK() {
		t.Fatalf("the season's exports: %v %+v", err, rep)
	}
	th, _ := ranking.Season("2024")
	offline, _ := json.Marshal(ranking.Compute(th, rep.RankedFrom, folded))
	if !bytes.Equal(append(offline, '\n'), afterJSON) {
		t.Errorf("offline, the season ranks\n%s\nthe hub:\n%s", offline, afterJSON)
	}
	// A changed byte of the registry's export is refused.
	changed := bytes.Replace(rx.body, []byte("200024"), []byte("200025"), 1)
	if _, _, err := replay.VerifyRegistry(changed, signed, ring); err == nil {
		t.Error("a changed registry export verified")
	}
}

// TestAHubsBackupRestoresItsRegistry: the backup the hub's administrator
// takes (GET /v1/admin/backup) carries the season registry and the club
// workbooks of tournaments not run on referto; restored into a new data
// directory, a hub started on it holds the same registry (the same links,
// merges and periods, the same export, signed alike) and ranks the season
// the same, the workbook's tournament with the rest.
func TestAHubsBackupRestoresItsRegistry(t *testing.T) {
	t.Parallel()
	s := &stack{t: t, dir: t.TempDir()}
	s.start()
	defer s.stop()
	s.playMaster("master-bo", func(i int) string {
		if i == 24 {
			return ""
		}
		return fmt.Sprintf("%06d", 200000+i)
	})
	var summary struct {
		Seq uint64 `json:"seq"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/master-bo", "", nil).body, &summary)
	h := s.becomeHub()
	h.set("master-bo", nil, summary.Seq)
	wb := workbooktest.Primavera(t).Set("TORNEO", "D8", workbooktest.Day(2024, 3, 15)).Set("TORNEO", "D9", workbooktest.Day(2024, 3, 16))
	s.must(201, "POST", "/v1/workbooks?file_name=primavera.xlsx", adminToken, wb.Bytes(), "Content-Type", workbook.MediaType)
	before, _ := s.season()
	if !slices.ContainsFunc(before.Tournaments, func(u seasonTournament) bool { return u.ID == "20240315-roma-il-gufo" && u.Source == "workbook" }) {
		t.Fatalf("the hub's ranking does not list the workbook's tournament: %+v", before.Tournaments)
	}
	var day string
	for _, r := range before.Rows {
		if r.NationalID == "200003" {
			day = r.Results[0].Date
		}
	}
	reg := "/v1/registry/commands"
	s.must(201, "POST", reg, adminToken, `{"type":"LinkNationalID","tournament":"master-bo","player":"p24","national_id":"200024","reason":"card read at the desk"}`)
	s.must(201, "POST", reg, adminToken, `{"type":"MergePlayers","from":"200002","into":"200001","reason":"one person, two cards"}`)
	s.must(201, "POST", reg, adminToken, fmt.Sprintf(`{"type":"RecordDisqualification","national_id":"200003","from":%q,"to":%q,"reason":"art. 5"}`, day, day))
	registryJSON := s.must(200, "GET", "/v1/registry", "", nil).body
	ranked, rankingJSON := s.season()
	export := s.must(200, "GET", "/v1/registry/export", "", nil)
	if _, _, disq, ok := ranked.row("200003"); !ok || !disq || !bytes.Contains(registryJSON, []byte(`"events":3`)) {
		t.Fatalf("the registry's commands did not take: 200003 disqualified %v\n%s", disq, registryJSON)
	}

	whole := s.must(200, "GET", "/v1/admin/backup", adminToken, nil).body
	dir := t.TempDir()
	file, restored := filepath.Join(dir, "hub.tar"), filepath.Join(dir, "restored")
	writeFile(t, file, whole)
	b, err := backup.Restore(context.Background(), file, restored)
	if err != nil {
		t.Fatal(err)
	}
	if r := b.Manifest.Registry; b.Manifest.Format != backup.FormatWorkbooks || r == nil || r.Events != 3 || len(b.Workbooks) != 1 {
		t.Fatalf("the hub's backup: format %q, registry %+v, %d club workbooks", b.Manifest.Format, r, len(b.Workbooks))
	}
	// The hub's state (venues, their keys, what it cosigned) comes back
	// where a hub reads it, the owner's alone.
	if got, err := os.ReadFile(node.Layout{Dir: restored}.HubState()); err != nil || string(got) != seasonHubState {
		t.Errorf("the restored hub's state: %q %v, want %q", got, err, seasonHubState)
	} else if fi, _ := os.Stat(node.Layout{Dir: restored}.HubState()); fi.Mode().Perm() != 0o600 {
		t.Errorf("the restored hub's state has mode %v, want 0600", fi.Mode().Perm())
	}

	// Stop the hub: the restored one is the only one holding the registry.
	s.stop()
	again := &stack{t: t, dir: restored, hub: h}
	again.start()
	defer again.stop()
	if got := again.must(200, "GET", "/v1/registry", "", nil).body; !bytes.Equal(got, registryJSON) {
		t.Errorf("the restored hub's registry:\n%s\nbacked up:\n%s", got, registryJSON)
	}
	if v, got := again.season(); !bytes.Equal(got, rankingJSON) || !slices.ContainsFunc(v.Tournaments, func(u seasonTournament) bool { return u.ID == "20240315-roma-il-gufo" }) {
		t.Errorf("the restored hub's ranking:\n%s\nbacked up:\n%s", got, rankingJSON)
	}
	rx := again.must(200, "GET", "/v1/registry/export", "", nil)
	if !bytes.Equal(rx.body, export.body) || rx.header.Get(api.CheckpointHeader) != export.header.Get(api.CheckpointHeader) {
		t.Errorf("the restored hub's registry export differs:\n%s\nbacked up:\n%s", rx.body, export.body)
	}
}

// TestSeasonRankingCountsOnlyWhatTheHubVerified: at a hub, a tournament
// held (its venue's key not registered) or quarantined (its log failed
// verification), or whose final classification is past the last checkpoint
// verified, is listed in the ranking with why, and none of its placings
// counts or is listed.
func TestSeasonRankingCountsOnlyWhatTheHubVerified(t *testing.T) {
	t.Parallel()
	s := &stack{t: t, dir: t.TempDir()}
	s.start()
	defer s.stop()
	s.playMaster("master-rm", func(i int) string { return fmt.Sprintf("%06d", 300000+i) })
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": "open-na", "name": "Open Napoli", "ruleset": "rtu",
		"season": "2024", "tournament_type": "OPEN"})
	var summary struct {
		Seq uint64 `json:"seq"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/master-rm", "", nil).body, &summary)
	h := s.becomeHub()

	for _, c := range []struct {
		name   string
		served error
		size   uint64
		code   string
		counts bool
	}{
		{"verified", nil, summary.Seq, "", true},
		{"held", fmt.Errorf("%w: tournament master-rm: venue roma's key is not registered (POST /v1/venues)", hub.ErrHeld), 0, ranking.WhyHeld, false},
		{"quarantined", fmt.Errorf("%w: tournament master-rm of venue roma failed verification at line 7: bad link", hub.ErrQuarantined), summary.Seq, ranking.WhyQuarantined, false},
		{"past the checkpoint", nil, summary.Seq - 1, ranking.WhyPastCheckpoint, false},
	} {
		h.set("master-rm", c.served, c.size)
		h.set("open-na", fmt.Errorf("%w: tournament open-na: no checkpoint of venue napoli verified yet", hub.ErrHeld), 0)
		v, _ := s.season()
		if len(v.Tournaments) != 2 {
			t.Fatalf("%s: tournaments %+v", c.name, v.Tournaments)
		}
		for _, u := range v.Tournaments {
			switch {
			case u.ID == "open-na" && (u.Counts || u.WhyCode != ranking.WhyHeld || !strings.Contains(u.Why, "no checkpoint of venue napoli verified yet")):
				t.Errorf("%s: open-na %+v", c.name, u)
			case u.ID == "master-rm" && (u.Counts != c.counts || u.WhyCode != c.code):
				t.Errorf("%s: master-rm %+v, want counts %v, why %q", c.name, u, c.counts, c.code)
			}
		}
		if rows := len(v.Rows); (rows == 24) != c.counts || (!c.counts && rows != 0) {
			t.Errorf("%s: %d rows", c.name, rows)
		}
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
