package replay_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/referto/referto/cmd/referto/synth"
	"github.com/referto/referto/replay"
)

// TestAuditorsFiles: an export with its checkpoint beside it, the season
// directory it is in and a proof file made from it each verify from their
// files alone, and each report prints the verdict it returns.
func TestAuditorsFiles(t *testing.T) {
	dir, keys := seasonOf(t, 1, 300)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	log := logs[0]
	signed, _ := os.ReadFile(replay.CheckpointFile(log))
	key := keyLine(t, dir, keys.Verifier(signed).Name())

	rep, err := replay.VerifyFile(log, replay.FileOptions{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if !rep.Print(&out) || rep.Beside != replay.CheckpointFile(log) ||
		!strings.HasPrefix(out.String(), "checkpoint: "+replay.CheckpointFile(log)+"\n") || !strings.Contains(out.String(), "verdict: OK") {
		t.Errorf("VerifyFile with the checkpoint beside the log:\n%s", out.String())
	}
	out.Reset()
	if rep, err := replay.VerifyFile(log, replay.FileOptions{}); err != nil || rep.Print(&out) || !strings.Contains(out.String(), "verdict: NOT VERIFIED") {
		t.Errorf("VerifyFile without a key: %v\n%s", err, out.String())
	}
	if _, err := replay.VerifyFile(log, replay.FileOptions{Key: filepath.Join(dir, "no-such-key")}); err == nil || !strings.HasPrefix(err.Error(), "--key ") {
		t.Errorf("VerifyFile with a key it cannot read: %v, want an error about --key", err)
	}

	season, err := replay.VerifySeasonFiles(context.Background(), replay.SeasonFileOptions{Dir: dir})
	out.Reset()
	if err != nil || !season.Print(&out) || !strings.Contains(out.String(), "verdict: OK (1 tournaments") {
		t.Errorf("VerifySeasonFiles: %v\n%s", err, out.String())
	}
	season, err = replay.VerifySeasonFiles(context.Background(), replay.SeasonFileOptions{Dir: dir, Registry: filepath.Join(dir, "registry.ndjson")})
	out.Reset()
	if err != nil || season.Print(&out) || season.SeasonReport != nil || !strings.HasPrefix(out.String(), "FAIL registry ") {
		t.Errorf("VerifySeasonFiles with a registry that is not there: %v\n%s", err, out.String())
	}

	export, _ := os.ReadFile(log)
	i := strings.Index(string(export), `"rows":[{"rank":1,"player":"`)
	player, _, _ := strings.Cut(string(export[i+len(`"rows":[{"rank":1,"player":"`):]), `"`)
	p, written, err := replay.ProveFile(log, "", player, filepath.Join(t.TempDir(), "row.proof.json"))
	if err != nil || p.Row.Player != player || p.Row.Rank != 1 {
		t.Fatalf("ProveFile: %v, %+v", err, p)
	}
	pr, err := replay.VerifyProofFile(written, key, "")
	out.Reset()
	if err != nil || !pr.Print(&out) || !strings.Contains(out.String(), "verdict: OK: "+player) {
		t.Errorf("VerifyProofFile: %v\n%s", err, out.String())
	}
	pr, err = replay.VerifyProofFile(written, "", "")
	out.Reset()
	if err != nil || pr.Print(&out) || !strings.HasPrefix(out.String(), "verdict: REFUSED") {
		t.Errorf("VerifyProofFile without a key: %v\n%s", err, out.String())
	}
}

// keyLine is the verifier key of the season directory's keys file named
// name, as an auditor would give it.
func keyLine(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, synth.KeysFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, name+"+") {
			return line
		}
	}
	t.Fatalf("no key of %s in %s", name, b)
	return ""
}
