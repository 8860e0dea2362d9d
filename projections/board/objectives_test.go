package board

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func mustObjectives(t *testing.T) (*Map, *ObjectiveSet) {
	t.Helper()
	m := mustDefault(t)
	s, err := DefaultObjectives(m)
	if err != nil {
		t.Fatalf("DefaultObjectives: %v", err)
	}
	return m, s
}

// The default set as loaded: 16 objectives, objective 12 with the candidate correction
// applied (20 territories, no Indonesia).
func TestDefaultObjectivePoints(t *testing.T) {
	m, s := mustObjectives(t)
	if DefaultObjectiveSetID != "rtu-16" || s.ID != DefaultObjectiveSetID {
		t.Errorf("set id %q, want rtu-16", s.ID)
	}
	if len(s.Objectives) != 16 {
		t.Fatalf("%d objectives, want 16", len(s.Objectives))
	}
	want := map[int]struct{ points, n int }{
		1: {86, 23}, 2: {86, 20}, 3: {86, 22}, 4: {86, 21}, 5: {86, 22}, 6: {86, 22},
		7: {86, 22}, 8: {86, 22}, 9: {86, 20}, 10: {86, 21}, 11: {86, 21},
		12: {86, 20}, // corrected: Africa + Asia + Europa Meridionale + Ucraina, without Indonesia
		13: {86, 21}, 14: {86, 23}, 15: {86, 23}, 16: {86, 22},
	}
	for i, o := range s.Objectives {
		w := want[o.ID]
		if o.ID != i+1 {
			t.Errorf("objective #%d has id %d", i+1, o.ID)
		}
		if o.Points != w.points || len(o.Territories) != w.n {
			t.Errorf("objective %d (%s): %d territories worth %d, want %d worth %d", o.ID, o.Name, len(o.Territories), o.Points, w.n, w.points)
		}
		sum := 0
		for _, id := range o.Territories {
			p, ok := m.Points(id)
			if !ok {
				t.Errorf("objective %d: unknown territory %q", o.ID, id)
			}
			sum += p
		}
		if sum != o.Points {
			t.Errorf("objective %d: Points %d, territories sum to %d", o.ID, o.Points, sum)
		}
		if o.Name == "" {
			t.Errorf("objective %d has no name", o.ID)
		}
		if (o.ID == 12) != (o.Note != "") {
			t.Errorf("objective %d: note %q", o.ID, o.Note)
		}
	}
	o12, ok := s.Objective(12)
	if !ok || slices.Contains(o12.Territories, "indonesia") || !strings.HasPrefix(o12.Note, "corrected: ") || !strings.Contains(o12.Note, "SUSPECT") {
		t.Errorf("objective 12 should be the corrected list, without indonesia, its note saying so: %+v", o12)
	}
	if o13, _ := s.Objective(13); o13.Name != "Guerra fredda" {
		t.Errorf("objective 13 is %q, metarisiko says Guerra Fredda", o13.Name)
	}
	if o1, _ := s.Objective(1); !slices.Contains(o1.Territories, "australia_occidentale") {
		t.Errorf("objective 1 lacks australia_occidentale")
	}
}

func TestDefaultObjectivesFreshCopy(t *testing.T) {
	m, s := mustObjectives(t)
	s.Objectives[0].Territories[0] = "x"
	s2, err := DefaultObjectives(m)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Objectives[0].Territories[0] != "alaska" {
		t.Errorf("DefaultObjectives shares state between calls")
	}
	if _, err := DefaultObjectives(nil); !errors.Is(err, ErrInvalidMap) {
		t.Errorf("nil map: err = %v", err)
	}
}

// TestDefaultSetEveryObjective86: the invariant the reference records from metarisiko
// ("Gli attuali 16 obiettivi territoriali … hanno tutti lo stesso valore pari a 86
// punti") holds for the default set as loaded, while the embedded file, which is never
// edited, still declares objective 12's list as 21 territories worth 89.
func TestDefaultSetEveryObjective86(t *testing.T) {
	_, s := mustObjectives(t)
	for _, o := range s.Objectives {
		if o.Points != 86 {
			t.Errorf("objective %d (%s) is worth %d, want 86", o.ID, o.Name, o.Points)
		}
	}
	f, err := loadObjectivesFile()
	if err != nil {
		t.Fatal(err)
	}
	fo := f.Objectives[11]
	if fo.ID != 12 || fo.PointsTotal != 89 || fo.NTerritories != 21 || !slices.Contains(fo.Territories, "indonesia") || fo.CandidateCorrection == nil {
		t.Errorf("the file's objective 12: id %d, %d territories worth %d, correction %v; want the shipped 21 worth 89 with its correction",
			fo.ID, fo.NTerritories, fo.PointsTotal, fo.CandidateCorrection != nil)
	}
	o12, _ := s.Objective(12)
	c := fo.CandidateCorrection
	if c == nil || !slices.Equal(o12.Territories, c.Territories) {
		t.Errorf("objective 12 is %v, want the file's candidate correction", o12.Territories)
	}
}

func TestCandidateCorrections(t *testing.T) {
	m := mustDefault(t)
	cs, err := CandidateCorrections(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("%d candidate corrections, want 1", len(cs))
	}
	c := cs[0]
	if c.ID != 12 || c.Points != 86 || len(c.Territories) != 20 || slices.Contains(c.Territories, "indonesia") {
		t.Errorf("candidate = %d, %d territories, %d points: %v", c.ID, len(c.Territories), c.Points, c.Territories)
	}
	if !strings.Contains(c.Note, "unconfirmed") {
		t.Errorf("candidate note %q", c.Note)
	}
	// The default set applies it.
	_, s := mustObjectives(t)
	if o12, _ := s.Objective(12); !slices.Equal(o12.Territories, c.Territories) || o12.Points != c.Points {
		t.Errorf("default objective 12 = %v (%d), want the candidate %v (%d)", o12.Territories, o12.Points, c.Territories, c.Points)
	}
}

func TestParseObjectiveSet(t *testing.T) {
	m := mustDefault(t)
	for _, tc := range []struct {
		name    string
		data    string
		wantErr error
		wantMsg string // substring of the error
	}{
		{name: "good", data: `{"id":"club-2","objectives":[
			{"id":1,"name":"Sud","territories":["venezuela","peru","brasile","argentina"]},
			{"id":2,"name":"Oceania","territories":["indonesia","nuova_guinea","australia_occidentale","australia_orientale"],"points":11,"note":"test"}]}`},
		{name: "not json", data: `{"id":`, wantErr: ErrInvalidSet},
		{name: "trailing data", data: `{"id":"x","objectives":[{"id":1,"territories":["cina"]}]} {}`, wantErr: ErrInvalidSet, wantMsg: "trailing"},
		{name: "unknown field", data: `{"id":"x","objectives":[{"id":1,"territores":["cina"]}]}`, wantErr: ErrInvalidSet, wantMsg: "territores"},
		{name: "no id", data: `{"objectives":[{"id":1,"territories":["cina"]}]}`, wantErr: ErrInvalidSet, wantMsg: "no id"},
		{name: "no objectives", data: `{"id":"x","objectives":[]}`, wantErr: ErrEmpty, wantMsg: `"x" has no objectives`},
		{name: "null", data: `null`, wantErr: ErrInvalidSet},
		{name: "objective id 0", data: `{"id":"x","objectives":[{"name":"a","territories":["cina"]}]}`, wantErr: ErrInvalidSet, wantMsg: "id 0"},
		{name: "duplicate objective", data: `{"id":"x","objectives":[{"id":3,"territories":["cina"]},{"id":3,"territories":["siam"]}]}`,
			wantErr: ErrDuplicate, wantMsg: "objective 3 twice"},
		{name: "empty objective", data: `{"id":"x","objectives":[{"id":1,"territories":[]}]}`, wantErr: ErrEmpty, wantMsg: "objective 1 has no territories"},
		{name: "unknown territory", data: `{"id":"x","objectives":[{"id":1,"territories":["cina","irkutsk","atlantide"]}]}`,
			wantErr: ErrUnknownTerritory, wantMsg: `"irkutsk", "atlantide"`},
		{name: "duplicate territory", data: `{"id":"x","objectives":[{"id":1,"territories":["cina","siam","cina"]}]}`,
			wantErr: ErrDuplicate, wantMsg: "territory cina listed twice"},
		{name: "wrong stated points", data: `{"id":"x","objectives":[{"id":1,"territories":["cina"],"points":6}]}`,
			wantErr: ErrMismatch, wantMsg: "states 6 points, its territories sum to 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseObjectiveSet(m, []byte(tc.data))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if s.ID != "club-2" || len(s.Objectives) != 2 || s.Objectives[0].Points != 12 || s.Objectives[1].Points != 11 {
					t.Errorf("set = %+v", s)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "board: ") || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("err = %q, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
	if _, err := ParseObjectiveSet(nil, []byte(`{}`)); !errors.Is(err, ErrInvalidMap) {
		t.Errorf("nil map: err = %v", err)
	}
}

// A set stored in the log (e.g. in TournamentCreated) parses back to the same set.
func TestObjectiveSetRoundTrip(t *testing.T) {
	m, s := mustObjectives(t)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseObjectiveSet(m, b)
	if err != nil {
		t.Fatalf("ParseObjectiveSet(Marshal(default)): %v", err)
	}
	b2, _ := json.Marshal(got)
	if string(b) != string(b2) {
		t.Errorf("round trip changed the set:\n%s\n%s", b, b2)
	}
}

func TestObjectiveSetValidate(t *testing.T) {
	m := mustDefault(t)
	good := ObjectiveSet{ID: "lit", Objectives: []Objective{{ID: 1, Territories: []string{"cina"}}}}
	if err := good.Validate(m); err != nil {
		t.Errorf("literal set: %v", err)
	}
	if good.Objectives[0].Points != 0 {
		t.Errorf("Validate modified the set")
	}
	bad := ObjectiveSet{ID: "lit", Objectives: []Objective{{ID: 1, Territories: []string{"china"}}}}
	if err := bad.Validate(m); !errors.Is(err, ErrUnknownTerritory) || !strings.Contains(err.Error(), `"china"`) {
		t.Errorf("err = %v", err)
	}
	if err := (*ObjectiveSet)(nil).Validate(m); !errors.Is(err, ErrInvalidSet) {
		t.Errorf("nil set: err = %v", err)
	}
}

// The default objectives are checked against the figures objectives.json declares, so
// scoring them on a different board fails loudly instead of silently.
func TestDefaultObjectivesOnAnotherBoard(t *testing.T) {
	m := freshMap(t)
	link(m, "india", "afghanistan") // Hasbro's link
	link(m, "afghanistan", "india")
	_, err := DefaultObjectives(m)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "objective 1 declares 23 territories worth 86, the map gives 23 worth 87") {
		t.Errorf("err = %v", err)
	}
	if _, err := CandidateCorrections(m); !errors.Is(err, ErrMismatch) {
		t.Errorf("candidate on another board: err = %v", err)
	}
}

// TestMostValuable: every objective of the default set is worth 86, so the most
// valuable is the first of equals, objective 1; an empty set has none.
func TestMostValuable(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	s, err := DefaultObjectives(m)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := s.MostValuable()
	if !ok || o.ID != 1 || o.Points != 86 {
		t.Errorf("got objective %d worth %d (ok %v), want 1 worth 86", o.ID, o.Points, ok)
	}
	if d, err := DefaultMostValuable(); err != nil || d.Points != 86 {
		t.Errorf("DefaultMostValuable = objective %d worth %d (%v), want 86", d.ID, d.Points, err)
	}
	if _, ok := (&ObjectiveSet{ID: "empty"}).MostValuable(); ok {
		t.Error("an empty set has a most valuable objective")
	}
}
