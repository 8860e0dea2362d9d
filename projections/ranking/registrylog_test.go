package ranking_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/ranking"
)

// registryLines seals evs as the registry's log, one command each.
func registryLines(t *testing.T, evs ...events.Event) [][]byte {
	t.Helper()
	log := ranking.NewRegistryLog()
	var out [][]byte
	for i, ev := range evs {
		envs, err := events.Seal(events.RegistryID, uint64(i+1), time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC),
			events.Actor{ID: "admin", Role: events.RoleAdmin}, "k", []events.Event{ev})
		if err != nil {
			t.Fatal(err)
		}
		if err := events.Chain(envs, log.Head().Last); err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(&envs[0])
		if _, err := log.Append(line); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		out = append(out, line)
	}
	return out
}

// TestRegistryLogReadsOnlyItsOwnLinesInOrder: the registry's log folds
// line by line, and refuses, leaving itself as it was, a line of another
// log, out of order, not linked to the one before, or an event the
// registry refuses.
func TestRegistryLogReadsOnlyItsOwnLinesInOrder(t *testing.T) {
	lines := registryLines(t,
		events.NationalIDLinked{Tournament: "t1", Player: "p1", NationalID: "100001"},
		events.PlayersMerged{From: "100002", Into: "100001", Reason: "one person"},
		events.DisqualificationRecorded{NationalID: "100001", From: "2024-01-01", To: "2024-01-31", Reason: "art. 5"})
	log := ranking.NewRegistryLog()
	for _, l := range lines[:2] {
		if _, err := log.Append(l); err != nil {
			t.Fatal(err)
		}
	}
	head := log.Head()
	other := bytes.Replace(lines[2], []byte(`"tournament":"registry"`), []byte(`"tournament":"t1"`), 1)
	other = bytes.Replace(other, []byte(`"id":"registry/3"`), []byte(`"id":"t1/3"`), 1)
	unlinked := bytes.Replace(lines[2], []byte(`"prev":"`), []byte(`"prev":"A`), 1)
	// The next line, sealed and linked, of an event the registry refuses.
	envs, _ := events.Seal(events.RegistryID, 3, time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), events.Actor{ID: "admin", Role: events.RoleAdmin},
		"k3", []events.Event{events.PlayersMerged{From: "100001", Into: "100002", Reason: "back"}})
	events.Chain(envs, head.Last)
	cycle, _ := json.Marshal(&envs[0])
	for name, bad := range map[string][]byte{"another log's": other, "out of order": lines[1], "unlinked": unlinked, "not JSON": []byte("{"), "cycle": cycle} {
		if _, err := log.Append(bad); !errors.Is(err, ranking.ErrRegistryLog) {
			t.Errorf("%s line: %v", name, err)
		}
		if got := log.Head(); got.Size != head.Size || !bytes.Equal(got.Root, head.Root) {
			t.Fatalf("a refused %s line changed the log", name)
		}
	}
	if _, err := log.Append(lines[2]); err != nil {
		t.Fatal(err)
	}
	reg := log.Registry()
	if len(reg.Linked) != 1 || len(reg.Merges) != 1 || len(reg.Periods) != 1 || reg.Resolve("100002") != "100001" {
		t.Errorf("folded: %+v", reg)
	}
	if cp := log.Checkpoint(); cp.Size != 3 || cp.Origin != "referto-registry" {
		t.Errorf("checkpoint %+v", cp)
	}
}

// TestRegistryRefusesAMergeThroughAnIDAlreadyMerged: a merge whose target
// leads, through earlier merges, back to its source is a cycle even when
// the source was merged elsewhere before; a clone keeps what it held.
func TestRegistryRefusesAMergeThroughAnIDAlreadyMerged(t *testing.T) {
	reg := ranking.NewRegistry()
	for _, m := range []events.PlayersMerged{{From: "b", Into: "a", Reason: "x"}, {From: "c", Into: "b", Reason: "x"}} {
		if err := reg.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	keep := reg.Clone()
	if err := reg.Apply(events.PlayersMerged{From: "b", Into: "c", Reason: "back"}); err == nil {
		t.Error("b merged into c, which is merged into b: applied")
	}
	if err := reg.Apply(events.PlayersMerged{From: "a", Into: "d", Reason: "on"}); err != nil {
		t.Fatal(err)
	}
	if got := reg.Resolve("c"); got != "d" {
		t.Errorf("c resolves to %s, want d", got)
	}
	if got := keep.Resolve("c"); got != "a" || len(keep.Merges) != 2 {
		t.Errorf("the clone changed: c resolves to %s, %d merges", got, len(keep.Merges))
	}
}
