package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/api/client"
)

// TestToolsDoWhatTheySay: export writes FILE and FILE.checkpoint as the
// README says, and says where (absolute paths, also without --out); verify
// finds that checkpoint beside the log and takes a saved GET /v1/keys
// answer as --key, and a key it cannot read is blamed on --key.
func TestToolsDoWhatTheySay(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	mustCLI(t, "demo", "--data", data, "--players", "16", "--seed", "5")

	for i, name := range []string{"F", "F.ndjson", "F.log"} {
		sub := filepath.Join(dir, fmt.Sprint(i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(sub, name)
		said := mustCLI(t, "export", "--data", data, "--tournament", "raduno-demo", "--out", out)
		for _, f := range []string{out, out + ".checkpoint"} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("--out %s: %v", name, err)
			}
			if !strings.Contains(said, " "+f) {
				t.Errorf("--out %s: export said %q, not naming %s", name, said, f)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "1", "F.checkpoint")); err == nil {
		t.Error("--out F.ndjson wrote F.checkpoint, not F.ndjson.checkpoint")
	}
	if out, err := cli(t, "export", "--data", data, "--tournament", "raduno-demo", "--out", filepath.Join(dir, "nowhere", "F")); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("--out in a missing directory: %v %s, want an error naming --out", err, out)
	}

	// Without --out: the tournament's name in the working directory, said
	// in full.
	cwd := filepath.Join(dir, "cwd")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	said := mustCLI(t, "export", "--data", data, "--tournament", "raduno-demo")
	for _, f := range []string{filepath.Join(cwd, "raduno-demo.ndjson"), filepath.Join(cwd, "raduno-demo.ndjson.checkpoint")} {
		if _, err := os.Stat(f); err != nil || !strings.Contains(said, f) {
			t.Errorf("export without --out said %q; %s: %v", said, f, err)
		}
	}

	// verify: the checkpoint beside the log, the key as GET /v1/keys gave it.
	_, srv := apitest.Serve(t, data, testAdmin)
	var keys json.RawMessage
	if err := (&client.Client{Base: srv.URL}).Get(context.Background(), "/v1/keys", &keys); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(saved, keys, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, log := range []string{filepath.Join(dir, "1", "F.ndjson"), filepath.Join(dir, "0", "F")} {
		out, err := cli(t, "verify", "--log", log, "--key", saved)
		if err != nil || !strings.HasPrefix(verdict(t, out), "OK") || !strings.Contains(out, "checkpoint: "+log+".checkpoint") {
			t.Errorf("verify --log %s --key <saved GET /v1/keys>: %v\n%s", log, err, out)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"checkpoint":"nope"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{bad, "referto+nope"} {
		out, err := cli(t, "verify", "--log", filepath.Join(dir, "0", "F"), "--key", key)
		if err == nil || errors.Is(err, errVerify) || !strings.Contains(err.Error(), "--key") || strings.HasPrefix(err.Error(), "checkpoint") {
			t.Errorf("verify --key %s: %v %s, want an error about --key", key, err, out)
		}
	}
}

// TestDemoListensWhereAsked: demo --addr serves the API there.
func TestDemoListensWhereAsked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"demo", "--data", t.TempDir(), "--players", "16", "--addr", addr}, func(string) string { return "" }, &out, &errOut)
	if err != nil || !strings.Contains(errOut.String(), "API on http://"+addr) {
		t.Errorf("demo --addr %s: %v\n%s", addr, err, errOut.String())
	}
	errOut.Reset()
	if err := run(context.Background(), []string{"demo", "--addr", "no-port"}, func(string) string { return "" }, &out, &errOut); err == nil || !strings.Contains(errOut.String(), "--addr") {
		t.Errorf("demo --addr no-port: %v %s, want a usage error naming --addr", err, errOut.String())
	}
}
