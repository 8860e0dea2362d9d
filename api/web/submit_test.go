package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/referto/referto/commands"
)

// command sends cmd to the JSON API as the holder of token, encoded as
// every client encodes it, under the idempotency key key; it returns the
// status, the answer's Idempotent-Replayed and its seq (or problem code).
func (u *ui) command(t, token, key string, cmd commands.Command) (status int, replayed bool, answer map[string]any) {
	u.t.Helper()
	body, err := commands.Encode(cmd)
	if err != nil {
		u.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, u.srv.URL+"/v1/tournaments/"+t+"/commands", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	res, err := httpClient().Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(b, &answer)
	return res.StatusCode, res.Header.Get("Idempotent-Replayed") == "true", answer
}

// TestAFormAndTheAPIShareTheIdempotencyKey: a form's command and the same
// command sent to the JSON API under the form's key ("ui-" and the form's
// _key) are one command, whichever comes first: the second is answered
// with the first's outcome, and the page says it was recorded before. The
// key binds the command, not the presenter: another command under it is
// refused, with the seq it stands for.
func TestAFormAndTheAPIShareTheIdempotencyKey(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)

	// The form first, then the API.
	code, loc, body := u.post("/ui/t/t1/players", arbiter, "", url.Values{"_action": {"register"}, "_key": {"k1"}, "player": {"p1"}, "name": {"Anna"}})
	if code != http.StatusSeeOther || strings.Contains(loc, "again") {
		t.Fatalf("the registration form: %d %s\n%s", code, loc, body)
	}
	seq := u.seq("t1")
	status, replayed, answer := u.command("t1", arbiter, "ui-k1", &commands.RegisterPlayer{Player: "p1", Name: "Anna"})
	if got, want := status, http.StatusCreated; got != want || !replayed {
		t.Errorf("the form's command through the API: %d (replayed %v), want %d replayed: %v", got, replayed, want, answer)
	}
	if got, want := answer["seq"], seq; got != want {
		t.Errorf("the API's replay answers seq %v, want the form's %v", got, want)
	}
	if got, want := u.seq("t1"), seq; got != want {
		t.Errorf("after the replay the log is at %v, want %v: the command was recorded twice", got, want)
	}
	status, _, answer = u.command("t1", arbiter, "ui-k1", &commands.RegisterPlayer{Player: "p2", Name: "Bruno"})
	if got, want := status, http.StatusUnprocessableEntity; got != want || answer["code"] != "idempotency_key_reused" || answer["seq"] != seq {
		t.Errorf("another command under the form's key: %d %v, want %d idempotency_key_reused at seq %v", got, answer, want, seq)
	}

	// The API first, then the form: the page says it was recorded before.
	if status, replayed, answer := u.command("t1", arbiter, "ui-k2", &commands.RegisterPlayer{Player: "p2", Name: "Bruno"}); status != http.StatusCreated || replayed {
		t.Fatalf("a registration through the API: %d (replayed %v) %v", status, replayed, answer)
	}
	seq = u.seq("t1")
	code, loc, body = u.post("/ui/t/t1/players", arbiter, "", url.Values{"_action": {"register"}, "_key": {"k2"}, "player": {"p2"}, "name": {"Bruno"}})
	if code != http.StatusSeeOther || !strings.Contains(loc, "again=1") {
		t.Errorf("the API's command sent by the form: %d %s, want a redirect saying it was recorded before\n%s", code, loc, body)
	}
	if got, want := u.seq("t1"), seq; got != want {
		t.Errorf("after the form the log is at %v, want %v: the command was recorded twice", got, want)
	}
	_, m = u.api("GET", "/v1/tournaments/t1/players", "", "")
	if players, _ := m["players"].([]any); len(players) != 2 {
		t.Errorf("%d players registered, want 2", len(players))
	}
}
