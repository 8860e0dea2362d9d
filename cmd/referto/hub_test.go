package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/cmd/referto/demo"
	"github.com/referto/referto/events/checkpoint"
)

func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// exported is a tournament's export: its bytes and signed checkpoint.
type exported struct {
	log []byte
	cp  []byte
}

func hubExportOf(t *testing.T, c *client.Client, tour string) (exported, error) {
	t.Helper()
	e, err := c.Export(context.Background(), tour)
	if err != nil {
		return exported{}, err
	}
	defer e.Body.Close()
	b, err := io.ReadAll(e.Body)
	return exported{log: b, cp: e.Checkpoint}, err
}

func admin(url string) *client.Client {
	return &client.Client{Base: url, Token: testAdmin, RetryUnavailable: 20}
}

// until polls cond every 200 ms for up to limit.
func until(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	last := ""
	for {
		ok, why := cond()
		if ok {
			return
		}
		last = why
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s (last: %s)", limit, what, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// converged reports whether the hub serves tournament tour exactly as
// the venue exports it: same bytes, same Merkle root and size.
func converged(t *testing.T, hub, venue *client.Client, tour string) (bool, string) {
	t.Helper()
	v, err := hubExportOf(t, venue, tour)
	if err != nil {
		return false, "venue export: " + err.Error()
	}
	h, err := hubExportOf(t, hub, tour)
	if err != nil {
		return false, "hub export: " + err.Error()
	}
	vc, _, _ := checkpoint.OpenUnverified(v.cp)
	hc, _, _ := checkpoint.OpenUnverified(h.cp)
	if !bytes.Equal(v.log, h.log) || vc.Size != hc.Size || !bytes.Equal(vc.Root, hc.Root) {
		return false, fmt.Sprintf("venue %d bytes size %d, hub %d bytes size %d", len(v.log), vc.Size, len(h.log), hc.Size)
	}
	return true, ""
}

// TestHubFederation runs real processes on loopback: one hub, two venues.
// Venue A plays online; the hub is killed; venue B plays its tournament
// with its leaf link down, then the hub comes back, is killed again while
// B syncs, and comes back again: the hub converges to B's export (same
// bytes, same Merkle root), verified with B's key and cosigned by the hub.
// A tournament id B shares with A is refused with a clear error. A venue
// that rewrites its log after a cosigned checkpoint is refused, with the
// two checkpoints as evidence.
func TestHubFederation(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes")
	}
	ctx := context.Background()
	base := t.TempDir()
	hubDir, aDir, bDir := filepath.Join(base, "hub"), filepath.Join(base, "a"), filepath.Join(base, "b")
	leaf := fmt.Sprintf("127.0.0.1:%d", freeTCPPort(t))
	startHub := func() (*child, *client.Client) {
		h := startSub(t, "hub", hubDir, "--addr", "127.0.0.1:0", "--leaf", leaf)
		return h, admin(h.url)
	}
	hub, hc := startHub()
	// The hub's leaf port takes a venue only with the password its
	// administrator issued it.
	link := func(venue string) string {
		t.Helper()
		pw, err := hc.IssueVenueLink(ctx, venue, "")
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("nats://%s:%s@%s", venue, pw, leaf)
	}
	aURL, bURL := link("a"), link("b")
	a := startChild(t, aDir, "--hub", aURL, "--venue", "a")
	ac := admin(a.url)
	if _, err := demo.Play(ctx, ac, demo.Options{Players: 16, Seed: 1, Out: io.Discard, Tournament: "ta"}); err != nil {
		t.Fatal(err)
	}
	// Held until A's key is registered.
	until(t, 30*time.Second, "the hub holds ta", func() (bool, string) {
		_, err := hc.Tournament(ctx, "ta")
		return err != nil && strings.Contains(err.Error(), "held"), fmt.Sprint(err)
	})
	ak, err := ac.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := hc.RegisterVenue(ctx, "a", ak.Checkpoint); err != nil {
		t.Fatal(err)
	}
	until(t, 60*time.Second, "the hub serves ta as venue A exports it", func() (bool, string) { return converged(t, hc, ac, "ta") })
	// The hub's season registry, its own log, takes the administrator's
	// command; it must outlive the kills below.
	if res, err := hc.Send(ctx, "POST", "/v1/registry/commands", strings.NewReader(`{"type":"RecordDisqualification","national_id":"100001","from":"2024-04-01","to":"2024-06-30","reason":"art. 5"}`), nil); err != nil || res.StatusCode != 201 {
		t.Fatalf("a registry command at the hub: %v %v", err, res)
	} else {
		res.Body.Close()
	}

	// The hub goes away; venue B plays with its link down.
	hub.kill()
	b := startChild(t, bDir, "--hub", bURL, "--venue", "b")
	bc := admin(b.url)
	if _, err := demo.Play(ctx, bc, demo.Options{Players: 400, Seed: 2, Out: io.Discard, Tournament: "tb"}); err != nil {
		t.Fatal(err)
	}
	// And reuses A's tournament id.
	if _, err := bc.CreateTournament(ctx, "", client.NewTournament{ID: "ta", Name: "Torneo omonimo", Ruleset: "rur-2015"}); err != nil {
		t.Fatal(err)
	}
	bk, err := bc.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The hub is back; killed again (SIGKILL) as soon as tb's events
	// arrive, back again.
	bSize, err := hubExportOf(t, bc, "tb")
	if err != nil {
		t.Fatal(err)
	}
	bcp, _, _ := checkpoint.OpenUnverified(bSize.cp)
	hub, hc = startHub()
	if err := hc.RegisterVenue(ctx, "b", bk.Checkpoint); err != nil {
		t.Fatal(err)
	}
	var arrived uint64
	deadline := time.Now().Add(60 * time.Second)
	for arrived == 0 && time.Now().Before(deadline) {
		var st struct {
			Tournaments []struct {
				Tournament string `json:"tournament"`
				Arrived    uint64 `json:"arrived"`
			} `json:"tournaments"`
		}
		if vs, err := hc.Venues(ctx); err == nil && json.Unmarshal(vs, &st) == nil {
			for _, tr := range st.Tournaments {
				if tr.Tournament == "tb" {
					arrived = tr.Arrived
				}
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	hub.kill()
	t.Logf("hub killed with %d of tb's %d events applied", arrived, bcp.Size)
	if arrived == 0 {
		t.Fatal("tb never started to arrive")
	}
	hub, hc = startHub()
	until(t, 90*time.Second, "the hub serves tb as venue B exports it", func() (bool, string) { return converged(t, hc, bc, "tb") })
	if ok, why := converged(t, hc, ac, "ta"); !ok {
		t.Errorf("ta after the hub's restarts: %s", why)
	}
	if res, err := hc.Send(ctx, "GET", "/v1/registry", nil, nil); err != nil {
		t.Error(err)
	} else {
		var reg struct {
			Events            int `json:"events"`
			Disqualifications []struct {
				NationalID string `json:"national_id"`
			} `json:"disqualifications"`
		}
		json.NewDecoder(res.Body).Decode(&reg)
		res.Body.Close()
		if reg.Events != 1 || len(reg.Disqualifications) != 1 || reg.Disqualifications[0].NationalID != "100001" {
			t.Errorf("the hub's registry after its restarts: %+v", reg)
		}
	}
	// What the hub serves verifies with B's key, and carries the hub's
	// cosignature.
	hk, err := hc.Keys(ctx)
	if err != nil || hk.Witness == "" {
		t.Fatalf("hub keys %+v, %v", hk, err)
	}
	e, err := hubExportOf(t, hc, "tb")
	if err != nil {
		t.Fatal(err)
	}
	logPath, cpPath := filepath.Join(base, "tb.ndjson"), filepath.Join(base, "tb.ndjson.checkpoint")
	if err := os.WriteFile(logPath, e.log, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cpPath, e.cp, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"verify", "--log", logPath, "--key", bk.Checkpoint, "--witness", hk.Witness}, func(string) string { return "" }, &out, &out); err != nil {
		t.Fatalf("verify --witness of the hub's tb: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "cosigned by witness referto-hub") {
		t.Errorf("verify did not report the cosignature:\n%s", out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"verify", "--log", logPath, "--key", bk.Checkpoint, "--witness", ak.Checkpoint}, func(string) string { return "" }, &out, &out); err == nil {
		t.Errorf("verify --witness with a key that did not cosign passed:\n%s", out.String())
	}
	// Once synced, B's published classification carries the hub's
	// cosignature, at B and at the hub, and B serves its checkpoint
	// cosigned.
	wv, err := checkpoint.NewWitnessVerifier(hk.Witness)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*client.Client{bc, hc} {
		until(t, 30*time.Second, c.Base+"'s classification of tb carries the hub's cosignature", func() (bool, string) {
			res, err := c.Send(ctx, "GET", "/v1/tournaments/tb/classification", nil, nil)
			if err != nil {
				return false, err.Error()
			}
			res.Body.Close()
			note, err := base64.StdEncoding.DecodeString(res.Header.Get("Referto-Cosigned-Checkpoint"))
			if err != nil || len(note) == 0 {
				return false, fmt.Sprintf("status %d, no cosigned checkpoint", res.StatusCode)
			}
			if err := checkpoint.CheckCosigned(note, wv); err != nil {
				return false, err.Error()
			}
			return true, ""
		})
	}
	// A player's proof of his row, from the hub or from B once synced,
	// carries the hub's cosignature: verify --proof --witness checks it
	// without the log, and refuses it with one byte changed.
	res, err := hc.Send(ctx, "GET", "/v1/tournaments/tb/classification", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cl struct {
		Rows []struct{ Player string } `json:"rows"`
	}
	err = json.NewDecoder(res.Body).Decode(&cl)
	res.Body.Close()
	if err != nil || len(cl.Rows) == 0 {
		t.Fatalf("the hub's classification of tb: %v %+v", err, cl)
	}
	for i, c := range []*client.Client{bc, hc} {
		res, err := c.Send(ctx, "GET", "/v1/tournaments/tb/players/"+cl.Rows[0].Player+"/proof", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		pf, _ := io.ReadAll(res.Body)
		res.Body.Close()
		path := filepath.Join(base, fmt.Sprintf("row-%d.proof.json", i))
		if err := os.WriteFile(path, pf, 0o600); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := run(ctx, []string{"verify", "--proof", path, "--key", bk.Checkpoint, "--witness", hk.Witness}, func(string) string { return "" }, &out, &out); err != nil || !strings.Contains(out.String(), "cosigned by the witness") {
			t.Errorf("%s: the proof of %s's row with --witness: %v\n%s", c.Base, cl.Rows[0].Player, err, out.String())
		}
		// The classification page's row proof verifies too, at the hub
		// under the checkpoint the venue signed and the hub cosigned.
		res, err = c.Send(ctx, "GET", "/v1/tournaments/tb/classification/rows/"+cl.Rows[0].Player+"/proof", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rp, _ := io.ReadAll(res.Body)
		res.Body.Close()
		rpath := filepath.Join(base, fmt.Sprintf("row-%d.rowproof.json", i))
		if err := os.WriteFile(rpath, rp, 0o600); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := run(ctx, []string{"verify", "--proof", rpath, "--key", bk.Checkpoint}, func(string) string { return "" }, &out, &out); err != nil {
			t.Errorf("%s: the row proof of %s: %v\n%s", c.Base, cl.Rows[0].Player, err, out.String())
		}
		pf[len(pf)/2] ^= 1
		if err := os.WriteFile(path, pf, 0o600); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := run(ctx, []string{"verify", "--proof", path, "--key", bk.Checkpoint, "--witness", hk.Witness}, func(string) string { return "" }, &out, &out); err == nil {
			t.Errorf("%s: a proof with one byte changed passed:\n%s", c.Base, out.String())
		}
	}
	res, err = bc.Send(ctx, "GET", "/v1/tournaments/tb/checkpoint", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bNote, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if err := checkpoint.CheckCosigned(bNote, wv); err != nil {
		t.Errorf("venue B's checkpoint of tb: %v\n%s", err, bNote)
	}
	// B's ta is refused with a clear error; A's ta stays A's.
	until(t, 30*time.Second, "the hub reports B's ta", func() (bool, string) {
		vs, err := hc.Venues(ctx)
		return err == nil && bytes.Contains(vs, []byte("tournament id ta is venue a's")), string(vs)
	})

	// Venue A rewrites its log after the hub cosigned it: same key, a
	// new log of tournament ta.
	a.kill()
	a2Dir := filepath.Join(base, "a2")
	if err := os.MkdirAll(filepath.Join(a2Dir, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{checkpoint.SignerFile, checkpoint.VerifierFile} {
		k, err := os.ReadFile(filepath.Join(aDir, "keys", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(a2Dir, "keys", f), k, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a2 := startChild(t, a2Dir, "--hub", aURL, "--venue", "a")
	// A longer log than the one cosigned, so that its checkpoint is
	// refused for its consistency proof, and its messages past the old
	// stream's end reach the hub's copy too (set aside, not the hub's end).
	if _, err := demo.Play(ctx, admin(a2.url), demo.Options{Players: 24, Seed: 3, Out: io.Discard, Tournament: "ta"}); err != nil {
		t.Fatal(err)
	}
	var venues struct {
		Venues []struct {
			Venue string `json:"venue"`
			Fork  *struct {
				Tournament, Cosigned, Offered, Detail string
			} `json:"fork"`
		} `json:"venues"`
	}
	until(t, 30*time.Second, "the hub flags venue a with the evidence", func() (bool, string) {
		vs, err := hc.Venues(ctx)
		if err != nil || json.Unmarshal(vs, &venues) != nil {
			return false, fmt.Sprint(err)
		}
		for _, v := range venues.Venues {
			if v.Venue == "a" && v.Fork != nil {
				return true, ""
			}
		}
		return false, string(vs)
	})
	for _, v := range venues.Venues {
		if v.Venue != "a" {
			continue
		}
		av, _ := checkpoint.NewVerifier(ak.Checkpoint)
		old, err1 := checkpoint.Open([]byte(v.Fork.Cosigned), av)
		now, err2 := checkpoint.Open([]byte(v.Fork.Offered), av)
		if err1 != nil || err2 != nil || old.Origin != now.Origin || bytes.Equal(old.Root, now.Root) {
			t.Errorf("evidence: %v %v %+v %+v", err1, err2, old, now)
		}
		t.Logf("evidence: %s (cosigned size %d, offered size %d)", v.Fork.Detail, old.Size, now.Size)
	}
	if _, err := hc.Tournament(ctx, "ta"); err == nil || !strings.Contains(err.Error(), "quarantined") {
		t.Errorf("the hub still serves A's ta after the rewrite: %v", err)
	}
	// The hub goes on serving B.
	time.Sleep(2 * time.Second)
	for _, l := range strings.Split(hub.log(), "\n") {
		if strings.Contains(l, "set aside") || strings.Contains(l, "quarantined") {
			t.Logf("hub: %.300s", l)
		}
		if os.Getenv("HUBLOG") != "" {
			t.Log(l)
		}
	}
	if ok, why := converged(t, hc, bc, "tb"); !ok {
		t.Errorf("tb after A's rewrite: %s\n%s", why, hub.log())
	}

	// The rewrite was a venue that lost its disk: its original data
	// directory is found again and A runs on it; the administrator lifts
	// the flag, a decision recorded with the evidence, and the hub serves
	// ta again once it verified A's checkpoint.
	a2.kill()
	a = startChild(t, aDir, "--hub", aURL, "--venue", "a")
	ac = admin(a.url)
	d, err := hc.DecideAboutVenue(ctx, "a", client.VenueDecision{Decision: "lift_flag", Reason: "the venue's disk was replaced by mistake; its log is back"})
	if err != nil {
		t.Fatal(err)
	}
	var decided struct {
		Decision string `json:"decision"`
		Fork     *struct{ Cosigned, Offered string }
	}
	if json.Unmarshal(d, &decided) != nil || decided.Decision != "lift_flag" || decided.Fork == nil || decided.Fork.Offered == "" {
		t.Errorf("the decision does not keep the evidence: %s", d)
	}
	until(t, 60*time.Second, "the hub serves ta again as venue A exports it", func() (bool, string) { return converged(t, hc, ac, "ta") })
	vs, err := hc.Venues(ctx)
	if err != nil || !bytes.Contains(vs, []byte(`"decision": "lift_flag"`)) && !bytes.Contains(vs, []byte(`"decision":"lift_flag"`)) {
		t.Errorf("GET /v1/venues does not show the decision: %s %v", vs, err)
	}
}
