package replay_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/cmd/referto/synth"
	"github.com/referto/referto/events/proof"
	"github.com/referto/referto/replay"
)

// seasonOf generates a small season and returns its directory and keys.
func seasonOf(t *testing.T, tournaments, evs int) (string, replay.Keyring) {
	t.Helper()
	dir := t.TempDir()
	if _, err := synth.GenerateSeason(context.Background(), synth.SeasonOptions{Dir: dir, Tournaments: tournaments, Events: evs, Season: "2024", Venues: 2, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	keys, err := replay.ReadKeyring(filepath.Join(dir, synth.KeysFile))
	if err != nil {
		t.Fatal(err)
	}
	return dir, keys
}

// TestProofOneByteChangedIsRefused: the proof of a row verifies offline
// with the venue's key (and a witness's cosignature when asked for), and
// every one-byte change of the file is refused.
func TestProofOneByteChangedIsRefused(t *testing.T) {
	dir, keys := seasonOf(t, 1, 300)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	export, _ := os.ReadFile(logs[0])
	signed, _ := os.ReadFile(replay.CheckpointFile(logs[0]))
	key := keys.Verifier(signed)
	// The winner's row.
	i := strings.Index(string(export), `"rows":[{"rank":1,"player":"`)
	if i < 0 {
		t.Fatal("no published classification in the export")
	}
	player, _, _ := strings.Cut(string(export[i+len(`"rows":[{"rank":1,"player":"`):]), `"`)
	p, err := replay.ProveFromExport(export, signed, player)
	if err != nil {
		t.Fatal(err)
	}
	// An export cut inside its last line, or with a line that is no
	// event, makes no proof.
	if _, err := replay.ProveFromExport(export[:len(export)-1], signed, player); !errors.Is(err, replay.ErrLog) {
		t.Errorf("an export cut inside its last line: %v, want replay.ErrLog", err)
	}
	garbled := append([]byte("not an event\n"), export...)
	if _, err := replay.ProveFromExport(garbled, signed, player); err == nil || !strings.HasPrefix(err.Error(), "line 1: ") {
		t.Errorf("an export whose first line is no event: %v, want an error naming line 1", err)
	}
	file := p.Encode()
	res, err := proof.Verify(file, key, nil)
	if err != nil {
		t.Fatalf("the proof does not verify: %v", err)
	}
	if res.Proof.Row.Rank != 1 || res.Proof.Row.Player != player || res.Witnessed {
		t.Errorf("proved %+v (witnessed %v)", res.Proof.Row, res.Witnessed)
	}
	for i := range 2 * len(file) {
		at := i / 2
		changed := append([]byte(nil), file...)
		changed[at] ^= byte(1 + i%2) // the lowest bit, then the next
		if _, err := proof.Verify(changed, key, nil); !errors.Is(err, proof.ErrRefused) {
			t.Fatalf("byte %d (%q) changed: %v", at, file[at], err)
		}
	}

	// The hub's witness cosigns; --witness then requires it.
	wskey, wvkey, _ := note.GenerateKey(rand.Reader, "hub-witness")
	ws, _ := note.NewSigner(wskey)
	wv, _ := note.NewVerifier(wvkey)
	if _, err := proof.Verify(file, key, wv); !errors.Is(err, proof.ErrRefused) {
		t.Errorf("a proof without a cosignature passed --witness: %v", err)
	}
	if err := proof.Cosign(p, ws); err != nil {
		t.Fatal(err)
	}
	cosigned := p.Encode()
	if res, err := proof.Verify(cosigned, key, wv); err != nil || !res.Witnessed {
		t.Errorf("the cosigned proof: %v", err)
	}
	if _, err := proof.Verify(cosigned, key, nil); err != nil {
		t.Errorf("a cosigned proof without --witness: %v", err)
	}
	_, otherv, _ := note.GenerateKey(rand.Reader, "hub-witness")
	ov, _ := note.NewVerifier(otherv)
	if _, err := proof.Verify(cosigned, key, ov); !errors.Is(err, proof.ErrRefused) {
		t.Errorf("another witness key passed: %v", err)
	}
	if _, err := proof.Verify(file, nil, nil); !errors.Is(err, proof.ErrRefused) {
		t.Errorf("no key given, not refused: %v", err)
	}
}

// TestVerifySeasonNamesTheTamperedExport: a season verifies in parallel and
// its ranking reads the verified tournaments; an export changed by one
// byte fails, named, and counts for nothing.
func TestVerifySeasonNamesTheTamperedExport(t *testing.T) {
	dir, keys := seasonOf(t, 5, 2500)
	rep, err := replay.VerifySeason(context.Background(), replay.SeasonOptions{Dir: dir, Keys: keys})
	if err != nil || !rep.OK() {
		t.Fatalf("the generated season does not verify: %v %+v", err, rep.Failed)
	}
	if len(rep.RankedFrom) != 5 || rep.Events < 2000 {
		t.Fatalf("%d tournaments ranked, %d events", len(rep.RankedFrom), rep.Events)
	}
	for _, tr := range rep.RankedFrom {
		if tr.Season != "2024" || !tr.Type.Valid() || !tr.Final || tr.Tables < 2 || tr.Rounds < 2 || len(tr.Placings) == 0 {
			t.Errorf("season facts of %s: %+v", tr.ID, tr)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	b, _ := os.ReadFile(logs[2])
	i := strings.Index(string(b), `"type":"ResultRecorded"`)
	b[i+len(`"type":"ResultRecorded"`)+40] ^= 0x01
	os.WriteFile(logs[2], b, 0o644)
	rep, err = replay.VerifySeason(context.Background(), replay.SeasonOptions{Dir: dir, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) != 1 || rep.Failed[0].File != logs[2] || rep.Failed[0].Failure == "" || len(rep.RankedFrom) != 4 {
		t.Fatalf("failed %+v, %d ranked; want %s alone", rep.Failed, len(rep.RankedFrom), logs[2])
	}
}
