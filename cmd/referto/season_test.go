package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
