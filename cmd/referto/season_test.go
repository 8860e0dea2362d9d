package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/ranking"
)

// TestSeasonGenerateVerifyTamper: a generated season verifies and ranks;
// one byte changed in one export makes verify --season fail naming that
// export, and only it.
func TestSeasonGenerateVerifyTamper(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var out, errb bytes.Buffer
	if err := run(ctx, []string{"generate", "--season", dir, "--tournaments", "6", "--events", "3000", "--venues", "2"}, os.Getenv, &out, &errb); err != nil {
		t.Fatalf("generate: %v\n%s", err, errb.String())
	}
	out.Reset()
	if err := run(ctx, []string{"verify", "--season", dir, "--key", filepath.Join(dir, "keys")}, os.Getenv, &out, &errb); err != nil {
		t.Fatalf("verify of the generated season: %v\n%s", err, out.String())
	}
	for _, want := range []string{"verdict: OK (6 tournaments", "ranking 2024 (thresholds projections/ranking/seasons/2024.json", "× the raw read"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("verify output lacks %q:\n%s", want, out.String())
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))

	// A proof of the winner's row of one export, checked offline, refused
	// once a byte changed.
	export, _ := os.ReadFile(logs[0])
	i := bytes.Index(export, []byte(`"rows":[{"rank":1,"player":"`))
	player, _, _ := strings.Cut(string(export[i+len(`"rows":[{"rank":1,"player":"`):]), `"`)
	proofFile := filepath.Join(t.TempDir(), "p.json")
	if err := run(ctx, []string{"proof", "--log", logs[0], "--player", player, "--out", proofFile}, os.Getenv, &out, &errb); err != nil {
		t.Fatalf("proof: %v\n%s", err, errb.String())
	}
	keys, _ := os.ReadFile(filepath.Join(dir, "keys"))
	verified := 0
	for _, k := range strings.Fields(string(keys)) {
		out.Reset()
		if run(ctx, []string{"verify", "--proof", proofFile, "--key", k}, os.Getenv, &out, &errb) == nil {
			verified++
			if !strings.Contains(out.String(), "verdict: OK: "+player) {
				t.Errorf("verify --proof:\n%s", out.String())
			}
		}
	}
	if verified != 1 {
		t.Fatalf("the proof verified under %d of the venues' keys, want exactly its own", verified)
	}
	b, _ := os.ReadFile(proofFile)
	b[len(b)/2] ^= 0x01
	os.WriteFile(proofFile, b, 0o644)
	for _, k := range strings.Fields(string(keys)) {
		out.Reset()
		if err := run(ctx, []string{"verify", "--proof", proofFile, "--key", k}, os.Getenv, &out, &errb); err == nil || !strings.Contains(out.String(), "verdict: REFUSED") {
			t.Fatalf("a changed proof: %v\n%s", err, out.String())
		}
	}

	victim := logs[3]
	b, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	// A place in a published row: "rank":1 becomes "rank":2.
	i = bytes.LastIndex(b, []byte(`"rank":1,`))
	if i < 0 {
		t.Fatal("no published row to tamper with")
	}
	b[i+len(`"rank":`)] = '2'
	if err := os.WriteFile(victim, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = run(ctx, []string{"verify", "--season", dir, "--key", filepath.Join(dir, "keys"), "--raw=false"}, os.Getenv, &out, &errb)
	if err == nil {
		t.Fatalf("a tampered season verified:\n%s", out.String())
	}
	name := filepath.Base(victim)
	if !strings.Contains(out.String(), "FAIL "+name+": ") || !strings.Contains(out.String(), "1 of 6 tournaments do not verify: "+name+"\n") {
		t.Errorf("the verdict does not name %s alone:\n%s", name, out.String())
	}
}

// TestVerifySeasonWithTheRegistry: verify --season --registry folds a
// hub's season registry export (its checkpoint beside it, signed by a key
// of the keyring) into the ranking: the leader, disqualified for the
// season, leads no more; a registry export changed by a byte fails the
// verdict and no ranking is printed.
func TestVerifySeasonWithTheRegistry(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var out, errb bytes.Buffer
	if err := run(ctx, []string{"generate", "--season", dir, "--tournaments", "4", "--events", "2000", "--venues", "1"}, os.Getenv, &out, &errb); err != nil {
		t.Fatalf("generate: %v\n%s", err, errb.String())
	}
	leader := func(s string) string {
		i := strings.Index(s, "    1. ")
		if i < 0 {
			t.Fatalf("no ranking printed:\n%s", s)
		}
		return strings.Fields(s[i:])[1]
	}
	out.Reset()
	if err := run(ctx, []string{"verify", "--season", dir, "--raw=false"}, os.Getenv, &out, &errb); err != nil {
		t.Fatalf("verify: %v\n%s", err, out.String())
	}
	first := leader(out.String())

	// The hub's registry: the leader disqualified all season long, under
	// the hub's key, which the keyring lists beside the venues'.
	hubKeys, err := checkpoint.LoadOrCreateKeys(t.TempDir(), "referto", nil)
	if err != nil {
		t.Fatal(err)
	}
	log := ranking.NewRegistryLog()
	envs, _ := events.Seal(events.RegistryID, 1, time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), events.Actor{ID: "admin", Role: events.RoleAdmin}, "k1",
		[]events.Event{events.DisqualificationRecorded{NationalID: first, From: "1900-01-01", To: "2999-12-31", Reason: "art. 5"}})
	events.Chain(envs, nil)
	body, _ := events.EncodeCommit(envs)
	if _, err := log.Append(bytes.TrimSuffix(body, []byte("\n"))); err != nil {
		t.Fatal(err)
	}
	signed, _ := checkpoint.Sign(log.Checkpoint(), hubKeys.Signer)
	regFile := filepath.Join(t.TempDir(), "registry.ndjson")
	os.WriteFile(regFile, body, 0o644)
	os.WriteFile(regFile+".checkpoint", []byte(signed), 0o644)
	f, _ := os.OpenFile(filepath.Join(dir, "keys"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(hubKeys.VerifierKey + "\n")
	f.Close()

	out.Reset()
	if err := run(ctx, []string{"verify", "--season", dir, "--registry", regFile, "--raw=false"}, os.Getenv, &out, &errb); err != nil {
		t.Fatalf("verify with the registry: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "ok   registry registry.ndjson: 1 events signed by referto: 0 links, 0 merges, 1 disqualification periods") {
		t.Errorf("verify does not say it read the registry:\n%s", out.String())
	}
	if now := leader(out.String()); now == first {
		t.Errorf("%s, disqualified all season, still leads:\n%s", first, out.String())
	}

	body[bytes.Index(body, []byte("art. 5"))+5] = '6'
	os.WriteFile(regFile, body, 0o644)
	out.Reset()
	err = run(ctx, []string{"verify", "--season", dir, "--registry", regFile, "--raw=false"}, os.Getenv, &out, &errb)
	if err == nil || !strings.Contains(out.String(), "FAIL registry "+regFile) || strings.Contains(out.String(), "    1. ") {
		t.Errorf("a changed registry: %v\n%s", err, out.String())
	}
}
