package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

const admin = "client-test-admin"

// TestEveryRouteTyped plays a small tournament through the client against
// a real node: each route's answer decoded into its type, a refusal as a
// *Problem with its code, rule and field, a retried key replayed.
func TestEveryRouteTyped(t *testing.T) {
	ctx := context.Background()
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	c := &client.Client{Base: srv.URL, Token: admin, HTTP: srv.Client()}
	if err := c.Healthy(ctx); err != nil || !c.Ready(ctx) {
		t.Fatalf("healthy %v, ready %v", err, c.Ready(ctx))
	}
	if o, err := c.CreateTournament(ctx, "create", client.NewTournament{ID: "ct", Name: "Client", Ruleset: "rtu"}); err != nil || o.Seq != 1 {
		t.Fatalf("create: %+v %v", o, err)
	}
	off, err := c.AppointOfficial(ctx, "ct", client.Official{Name: "Arbitro", Role: events.RoleArbiter})
	if err != nil || off.Token == "" || off.Role != events.RoleArbiter || off.Seq != 2 {
		t.Fatalf("appoint: %+v %v", off, err)
	}
	arb := c.As(off.Token)
	reg := &commands.RegisterPlayer{Player: "p1", Name: "Uno"}
	o, err := arb.Command(ctx, "ct", "reg-1", reg)
	if err != nil || o.Seq != 3 || o.Replayed {
		t.Fatalf("register: %+v %v", o, err)
	}
	if envs, err := o.Envelopes(); err != nil || len(envs) != 1 || envs[0].Type != events.TypePlayerRegistered {
		t.Errorf("the outcome's events: %+v %v", envs, err)
	}
	if again, err := arb.Command(ctx, "ct", "reg-1", reg); err != nil || again.Seq != 3 || !again.Replayed {
		t.Errorf("the retry: %+v %v, want seq 3 replayed", again, err)
	}
	for i, p := range []string{"p2", "p3", "p4"} {
		if _, err := arb.CommandJSON(ctx, "ct", "", raw(`{"type":"RegisterPlayer","player":"`+p+`","name":"P"}`)); err != nil {
			t.Fatalf("register %d: %v", i, err)
		}
	}
	_, err = arb.Command(ctx, "ct", "", &commands.RegisterPlayer{Player: "p1", Name: "Again"})
	var p *client.Problem
	if !errors.As(err, &p) || p.Status != 422 && p.Status != 409 || p.Code == "" {
		t.Errorf("a second registration of p1: %v, want a problem", err)
	}
	_, err = arb.Command(ctx, "ct", "", &commands.RegisterPlayer{Player: "p9"})
	if !errors.As(err, &p) || p.Status != 400 || p.Code != "invalid" || p.Field != "name" {
		t.Errorf("a registration without a name: %+v, want 400 invalid naming the field", p)
	}

	if s, err := c.Tournament(ctx, "ct"); err != nil || s.ID != "ct" || s.Players != 4 || s.Seq != 6 {
		t.Errorf("tournament: %+v %v", s, err)
	}
	if pl, err := c.Players(ctx, "ct"); err != nil || len(pl.Players) != 4 || pl.Players[0].Player != "p1" {
		t.Errorf("players: %+v %v", pl, err)
	}
	if _, err := c.Tables(ctx, "ct", 1); !errors.As(err, &p) || p.Status != 404 {
		t.Errorf("tables of a round not drawn: %v, want 404", err)
	}
	if st, err := c.Standings(ctx, "ct", 4); err != nil || len(st.Rows) != 2 {
		t.Errorf("standings at 4: %d rows, %v; want the 2 players registered by then", len(st.Rows), err)
	}
	if _, err := c.Classification(ctx, "ct"); err != nil {
		t.Errorf("classification: %v", err)
	}
	envs, err := arb.AllEvents(ctx, "ct")
	if err != nil || len(envs) != 6 || envs[5].Seq != 6 {
		t.Fatalf("events: %d, %v", len(envs), err)
	}
	if _, err := c.As("").Events(ctx, "ct", 1, 10); !errors.As(err, &p) || p.Status != 401 {
		t.Errorf("events without a token: %v, want 401", err)
	}

	keys, err := c.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := checkpoint.NewVerifier(keys.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	note, err := c.Checkpoint(ctx, "ct")
	if err != nil {
		t.Fatal(err)
	}
	if cp, err := checkpoint.Open(note, v); err != nil || cp.Size != 6 {
		t.Errorf("checkpoint: %+v %v", cp, err)
	}
	ex, err := arb.Export(ctx, "ct")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(ex.Body)
	ex.Body.Close()
	if !bytes.Equal(ex.Checkpoint, note) || ex.Events != "6" || bytes.Count(body, []byte("\n")) != 6 {
		t.Errorf("export: %s events announced, %d lines, checkpoint %q", ex.Events, bytes.Count(body, []byte("\n")), ex.Checkpoint)
	}
	var file bytes.Buffer
	if err := c.Backup(ctx, &file); err != nil {
		t.Fatal(err)
	}
	if b, err := backup.Read(&file, nil); err != nil || len(b.Manifest.Tournaments) != 1 {
		t.Errorf("backup: %v", err)
	}
	if m, err := c.Metrics(ctx); err != nil || !bytes.Contains(m, []byte("referto_command_duration_seconds")) {
		t.Errorf("metrics: %v", err)
	}
	if client.CheckpointHeader != api.CheckpointHeader {
		t.Errorf("the client reads the checkpoint from %s, the server writes it in %s", client.CheckpointHeader, api.CheckpointHeader)
	}
}

// TestRetryUnavailable: a 503 is sent again as many times as asked, with
// the same body; past that, or by default, it is a *Problem; an answer
// that is not problem+json is one too, its body the detail.
func TestRetryUnavailable(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if calls.Add(1) <= 2 {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(503)
			io.WriteString(w, `{"status":503,"code":"unavailable","detail":"catching up"}`)
			return
		}
		if string(b) != `{"type":"X"}` {
			w.WriteHeader(400)
			io.WriteString(w, "lost body: "+string(b))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		io.WriteString(w, `{"seq":7,"events":[]}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	c := &client.Client{Base: srv.URL}
	var p *client.Problem
	if _, err := c.CommandJSON(ctx, "t", "", raw(`{"type":"X"}`)); !errors.As(err, &p) || p.Status != 503 || p.Code != "unavailable" {
		t.Errorf("without retries: %v, want the 503 problem", err)
	}
	c.RetryUnavailable = 5
	if o, err := c.CommandJSON(ctx, "t", "", raw(`{"type":"X"}`)); err != nil || o.Seq != 7 {
		t.Errorf("with retries: %+v %v", o, err)
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		io.WriteString(w, "bad gateway\n")
	}))
	defer plain.Close()
	err := (&client.Client{Base: plain.URL}).Get(ctx, "/x", nil)
	if !errors.As(err, &p) || p.Status != 502 || p.Detail != "bad gateway" || !strings.Contains(err.Error(), "502 Bad Gateway") {
		t.Errorf("a plain answer: %v", err)
	}
}

func raw(s string) []byte { return []byte(s) }
