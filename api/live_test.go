package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/api"
)

// liveRead reads a page as its live.js does (X-Live: 1), as the holder of
// token ("" for a spectator); "" when it cannot (the test has failed).
func (s *stack) liveRead(path, token string) string {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	req.Header.Set("X-Live", "1")
	if token != "" {
		req.AddCookie(&http.Cookie{Name: "referto_token", Value: token})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Error(err)
		return ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		s.t.Errorf("GET %s (live): %d %s", path, res.StatusCode, b)
		return ""
	}
	return string(b)
}

// TestLiveReadsAreRenderedOncePerSeqAndReader follows a drawn tournament's
// pages as their script does. A live read answers the page's live parts
// only, with its seq; two reads by the same player at the same seq are the
// same render (byte for byte, the forms' random keys included), another
// player's is their own, 16 reads at once by one player are one render, a
// spectator's standings carry no form; after a
// command the next read is a new render at the new seq, which shows it.
func TestLiveReadsAreRenderedOncePerSeqAndReader(t *testing.T) {
	s := newStack(t)
	arb := s.create("vivo", "rtu")
	cmds := "/v1/tournaments/vivo/commands"
	for i := 1; i <= 8; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d"}`, i, i))
	}
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	s.must(201, "POST", cmds, arb, `{"type":"DrawTables","round":1,"seed":"vivo-1"}`)
	var issued struct {
		Seq    uint64 `json:"seq"`
		Tokens []struct {
			Player string `json:"player"`
			Token  string `json:"token"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(s.must(201, "POST", "/v1/tournaments/vivo/player-tokens", arb, `{}`).body, &issued); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for _, tk := range issued.Tokens {
		tokens[tk.Player] = tk.Token
	}
	seqOf := regexp.MustCompile(`data-seq="(\d+)"`)
	keys := regexp.MustCompile(`name="_key" value="([^"]+)"`)

	first := s.liveRead("/ui/t/vivo/me", tokens["p1"])
	if m := seqOf.FindStringSubmatch(first); m == nil || m[1] != fmt.Sprint(issued.Seq) {
		t.Fatalf("live read at seq %v, want %d:\n%s", m, issued.Seq, first)
	}
	for _, part := range []string{`id="my-table"`, `id="my-scores"`, `id="my-standings"`, `class="me"`} {
		if !strings.Contains(first, part) {
			t.Errorf("the player's live read has no %s:\n%s", part, first)
		}
	}
	for _, chrome := range []string{`<header`, `<nav`, `<title>`, `live.js`} {
		if strings.Contains(first, chrome) {
			t.Errorf("the player's live read carries %s, which is not a live part:\n%s", chrome, first)
		}
	}
	k1 := keys.FindAllStringSubmatch(first, -1)
	if len(k1) == 0 {
		t.Fatalf("the player's page offers no form to propose the report:\n%s", first)
	}
	if again := s.liveRead("/ui/t/vivo/me", tokens["p1"]); again != first {
		t.Errorf("a second live read at the same seq was rendered again:\n%s\nthen\n%s", first, again)
	}
	// A hall reading at once shares one render too.
	at := make([]string, 16)
	var wg sync.WaitGroup
	for i := range at {
		wg.Go(func() { at[i] = s.liveRead("/ui/t/vivo/me", tokens["p3"]) })
	}
	wg.Wait()
	for _, got := range at[1:] {
		if got != at[0] || got == "" {
			t.Errorf("16 reads at once by one player at one seq were not one render")
			break
		}
	}
	other := s.liveRead("/ui/t/vivo/me", tokens["p2"])
	if other == first || strings.Contains(other, k1[0][1]) {
		t.Errorf("another player's live read is the first player's")
	}
	spectator := s.liveRead("/ui/t/vivo/standings", "")
	if strings.Contains(spectator, `name="_key"`) || !strings.Contains(spectator, `id="ranking"`) {
		t.Errorf("a spectator's standings: want the ranking and no form:\n%s", spectator)
	}
	if again := s.liveRead("/ui/t/vivo/standings", ""); again != spectator {
		t.Errorf("a spectator's second live read at the same seq differs")
	}

	// A command that leaves the player's table as it was moves the page
	// to its seq and serves the table as rendered (its form keys with
	// it); one that changes the table renders it again.
	var round struct {
		Tables []struct {
			Table   int      `json:"table"`
			Players []string `json:"players"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/tournaments/vivo/rounds/1/tables", "", "").body, &round); err != nil {
		t.Fatal(err)
	}
	var mine []string
	table := 0
	for _, tb := range round.Tables {
		if slices.Contains(tb.Players, "p1") {
			mine, table = tb.Players, tb.Table
		}
	}
	leaver := "p8"
	for _, p := range []string{"p8", "p7", "p6", "p5"} {
		if !slices.Contains(mine, p) {
			leaver = p
			break
		}
	}
	s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"Withdraw","player":%q,"scope":"tournament","reason":"voluntary"}`, leaver))
	after := s.liveRead("/ui/t/vivo/me", tokens["p1"])
	if m := seqOf.FindStringSubmatch(after); m == nil || m[1] == fmt.Sprint(issued.Seq) {
		t.Errorf("after a command the live read is still at seq %v", m)
	}
	if k := keys.FindAllStringSubmatch(after, -1); len(k) == 0 || k[0][1] != k1[0][1] {
		t.Errorf("after %s withdrew from another table the player's table was rendered again: keys %v, before %v", leaver, k, k1[0][1])
	}
	turns := slices.Clone(mine)
	slices.Reverse(turns)
	order, _ := json.Marshal(turns)
	s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"SetTurnOrder","round":1,"table":%d,"order":%s}`, table, order))
	turned := s.liveRead("/ui/t/vivo/me", tokens["p1"])
	if k := keys.FindAllStringSubmatch(turned, -1); len(k) == 0 || k[0][1] == k1[0][1] {
		t.Errorf("after the turn order of the player's table the table was not rendered again: keys %v", k)
	}
}

// TestLivePagesGiveWayToCommands: while a command is in flight (stored,
// not yet answered), a hall's live work waits for it: a page's live read
// is not served and its stream sends no new seq, although the projections
// may already hold the command. Once the command is answered, the read is
// served and the stream sent, both at the command's seq.
func TestLivePagesGiveWayToCommands(t *testing.T) {
	h := &gate{Metrics: api.NewMetrics(), appends: true, open: make(chan struct{}), stored: make(chan uint64, 1)}
	s := &stack{t: t, dir: t.TempDir(), apiOptions: func(o *api.Options) { o.CommandsFirst = time.Minute }}
	s.opts.Observer = h
	s.start()
	t.Cleanup(s.stop)
	// The held command is let go however the test ends: the server stops
	// only once it is answered.
	var opened sync.Once
	release := func() { opened.Do(func() { h.shut.Store(false); close(h.open) }) }
	defer release()
	arb := s.create("vivo", "rtu")
	cmds := "/v1/tournaments/vivo/commands"
	for i := 1; i <= 4; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d"}`, i, i))
	}
	seqOf := regexp.MustCompile(`data-seq="(\d+)"`)
	before := seqOf.FindStringSubmatch(s.liveRead("/ui/t/vivo/standings", ""))
	res, closeStream := s.openStream("vivo")
	defer closeStream()
	sent := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if seq, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				sent <- seq
			}
		}
	}()
	if first := api.Within(t, sent, "the stream's first event"); before == nil || first != before[1] {
		t.Fatalf("the stream starts at seq %s, the page at %v", first, before)
	}

	h.shut.Store(true)
	answered := make(chan resp, 1)
	go func() {
		answered <- s.do("POST", cmds, arb, `{"type":"RegisterPlayer","player":"p5","name":"Giocatore 5"}`)
	}()
	var stored uint64
	select {
	case stored = <-h.stored:
	case r := <-answered:
		t.Fatalf("the command was answered %d %s before its append was held", r.status, r.body)
	case <-time.After(10 * time.Second):
		t.Fatal("the command was not appended within 10 s")
	}
	if err := s.node.Runner.WaitFor(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	read := make(chan string, 1)
	go func() { read <- s.liveRead("/ui/t/vivo/standings", "") }()
	select {
	case page := <-read:
		t.Fatalf("a live read was served while a command was in flight: %v", seqOf.FindStringSubmatch(page))
	case seq := <-sent:
		t.Fatalf("the stream sent seq %s while a command was in flight", seq)
	case r := <-answered:
		t.Fatalf("the command was answered %d while held", r.status)
	case <-time.After(200 * time.Millisecond):
	}
	// Once it is answered, the pages go on at once, not after
	// CommandsFirst (a minute here): the command is no longer counted.
	release()
	r := api.Within(t, answered, "the command, let go")
	var a struct{ Seq uint64 }
	if err := json.Unmarshal(r.body, &a); err != nil || r.status != 201 {
		t.Fatalf("the command: %d %s", r.status, r.body)
	}
	want := fmt.Sprint(a.Seq)
	if m := seqOf.FindStringSubmatch(api.Within(t, read, "the live read, once the command was answered")); m == nil || m[1] != want {
		t.Errorf("the live read once the command was answered: seq %v, want %s", m, want)
	}
	if seq := api.Within(t, sent, "the stream, once the command was answered"); seq != want {
		t.Errorf("the stream once the command was answered: seq %s, want %s", seq, want)
	}
}
