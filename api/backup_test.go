package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/node/backup"
)

// TestBackupRoute: only the administrator gets a backup, and what is
// served reads back as the log at the snapshot (api/node/backup
// tests the file itself).
func TestBackupRoute(t *testing.T) {
	t.Parallel()
	const admin = "backup-admin"
	n, err := node.StartNode(context.Background(), node.NodeOptions{Data: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	// Commands are refused (503) until the projections have started.
	if err := n.Runner.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Node: n, AdminTokenSHA256: TokenHash(admin)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	do := func(method, path, token, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	for _, id := range []string{"a", "b"} {
		if code, b := do("POST", "/v1/tournaments", admin, fmt.Sprintf(`{"id":%q,"name":"Torneo %s","ruleset":"rur-2015"}`, id, id)); code != 201 {
			t.Fatalf("create %s: %d %s", id, code, b)
		}
	}
	for i := 1; i <= 30; i++ {
		ids := []string{"a"}
		if i%3 == 0 {
			ids = append(ids, "b")
		}
		for _, id := range ids {
			if code, b := do("POST", "/v1/tournaments/"+id+"/commands", admin, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"P %d"}`, i, i)); code != 201 {
				t.Fatalf("register: %d %s", code, b)
			}
		}
	}
	last, err := n.Log.LastSeq(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A 201 is answered once JetStream stored the command; the store is
	// read directly here, not through a GET that waits for it.
	if err := n.Runner.WaitFor(context.Background(), last); err != nil {
		t.Fatal(err)
	}

	// Who may ask.
	if code, _ := do("GET", "/v1/admin/backup", "", ""); code != 401 {
		t.Errorf("backup without a token: %d, want 401", code)
	}
	code, tok := do("POST", "/v1/tournaments/a/officials", admin, `{"name":"Arbitro","role":"arbiter"}`)
	arb := between(string(tok), `"token":"`, `"`)
	if code != 201 || arb == "" {
		t.Fatalf("appoint: %d %s", code, tok)
	}
	if code, _ := do("GET", "/v1/admin/backup", arb, ""); code != 403 {
		t.Errorf("backup with an arbiter's token: %d, want 403", code)
	}
	code, whole := do("GET", "/v1/admin/backup", admin, "")
	if code != 200 {
		t.Fatalf("backup: %d %s", code, whole)
	}
	b, err := backup.Read(bytes.NewReader(whole), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := b.Manifest; m.LastSeq != last+1 || len(m.Tournaments) != 2 { // the appointment is one more commit
		t.Errorf("the backup served: sequences %d..%d of %d tournaments, want 1..%d of 2", m.FirstSeq, m.LastSeq, len(m.Tournaments), last+1)
	}
	// A backup the server cannot write (here: no keys to read) is an
	// error before anything is sent.
	if err := os.Rename(n.Layout.Keys(), n.Layout.Keys()+".away"); err != nil {
		t.Fatal(err)
	}
	if code, body := do("GET", "/v1/admin/backup", admin, ""); code != 500 || !strings.Contains(string(body), `"code":"internal"`) {
		t.Errorf("a backup without keys: %d %s, want a 500 problem", code, body)
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
