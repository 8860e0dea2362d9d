package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections/pebble"
)

// TestBackupIsTheLogAtTheSnapshot takes a backup of a node with two
// tournaments whose commits interleave, and checks the manifest against
// the projections, every cut of the file against ReadBackup, and who may
// ask for a backup.
func TestBackupIsTheLogAtTheSnapshot(t *testing.T) {
	const admin = "backup-admin"
	node, err := ledger.StartNode(context.Background(), ledger.NodeOptions{Data: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	// Commands are refused (503) until the projections have started.
	if err := node.Runner.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Node: node, AdminTokenSHA256: TokenHash(admin)})
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
	last, err := node.Log.LastSeq(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A 201 is answered once JetStream stored the command; the store is
	// read directly here, not through a GET that waits for it.
	if err := node.Runner.WaitFor(context.Background(), last); err != nil {
		t.Fatal(err)
	}

	// commitUpTo finds, for every stream sequence, the commit a scan of
	// the tournament's commits finds.
	for _, id := range []string{"a", "b"} {
		all, err := node.Store.Commits(id, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for seq := uint64(0); seq <= last; seq++ {
			var want pebble.CommitRef
			found := false
			for _, c := range all {
				if c.StreamSeq <= seq {
					want, found = c, true
				}
			}
			got, ok, err := commitUpTo(node.Store, id, seq)
			if err != nil || ok != found || got != want {
				t.Errorf("commitUpTo(%s, %d) = %+v, %v, %v; want %+v, %v", id, seq, got, ok, err, want, found)
			}
		}
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
	b, err := ReadBackup(bytes.NewReader(whole), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := b.Manifest
	if m.LastSeq != last+1 || m.Msgs != last+1 || m.FirstSeq != 1 { // the appointment is one more commit
		t.Errorf("manifest: sequences %d..%d (%d), want 1..%d", m.FirstSeq, m.LastSeq, m.Msgs, last+1)
	}
	if len(m.Tournaments) != 2 {
		t.Fatalf("manifest tournaments: %+v", m.Tournaments)
	}
	for _, mt := range m.Tournaments {
		ref, _, err := node.Store.LastCommit(mt.ID)
		if err != nil {
			t.Fatal(err)
		}
		root, err := checkpoint.RootAt(ref.Last, node.Store.NodeGetter(mt.ID))
		if err != nil {
			t.Fatal(err)
		}
		if mt.Events != ref.Last || mt.LastStreamSeq != ref.StreamSeq || !bytes.Equal(mt.Root, root) {
			t.Errorf("manifest %s: %d events up to %d, want %d up to %d with the projections' root", mt.ID, mt.Events, mt.LastStreamSeq, ref.Last, ref.StreamSeq)
		}
	}
	var names []string
	for _, k := range b.Keys {
		names = append(names, k.Name)
		if k.Name == "checkpoint.key" && k.Mode != 0o600 {
			t.Errorf("checkpoint.key mode %v in the backup", k.Mode)
		}
	}
	if strings.Join(names, " ") != "checkpoint.key checkpoint.pub" {
		t.Errorf("keys in the backup: %v", names)
	}

	// Any cut before the manifest's last byte is refused as ErrBackup (the
	// padding and end blocks after it carry nothing).
	end := bytes.LastIndex(whole, []byte("\n}\n")) + 3
	for n := 0; n < end; n += 1 + n/50 {
		if _, err := ReadBackup(bytes.NewReader(whole[:n]), nil); !errors.Is(err, ErrBackup) {
			t.Fatalf("cut at %d of %d: %v, want ErrBackup", n, len(whole), err)
		}
	}
	// A snapshot consumer that fails is told apart from a damaged file.
	boom := errors.New("boom")
	if _, err := ReadBackup(bytes.NewReader(whole), func(jetstream.SnapshotInfo, io.Reader) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("consumer failure: %v", err)
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
