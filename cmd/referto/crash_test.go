package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/cmd/referto/demo"
	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/replay"
)

// crashClient plays tournaments one after another, one command at a time,
// as an arbiter's client would: registration, close, then per round a
// check-in of everyone, the draw and a simulated report for every table.
type crashClient struct {
	id      int
	rng     *rand.Rand
	sim     *sim.Simulator
	n       int // tournaments started
	sent    int // commands made, for their idempotency keys
	t       string
	players int
	round   int
	stage   int
	queue   []string // commands still to send in this stage
	pending *crashCmd
	acked   []*crashCmd
	// retried counts in-flight commands retried after a crash, by whether
	// the original had landed.
	retriedLanded, retriedLost int
}

type crashCmd struct {
	t, key, body string
	seq          uint64
}

const crashRounds = 3

// The stages of a client's tournament.
const (
	stageNew = iota
	stageCheckIn
	stageReports
)

// next returns the next command, refilling the queue when a stage ends;
// the reports need the draw's tables, read from the server.
func (c *crashClient) next(url string) (*crashCmd, error) {
	for len(c.queue) == 0 {
		switch c.stage {
		default: // stageNew
			c.n++
			c.t = fmt.Sprintf("crash-%d-%d", c.id, c.n)
			c.players, c.round = 16+4*c.rng.IntN(3), 1
			c.queue = append(c.queue, fmt.Sprintf(`{"id":%q,"name":"Torneo %d/%d","ruleset":"rtu"}`, c.t, c.id, c.n))
			for i := 1; i <= c.players; i++ {
				c.queue = append(c.queue, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%03d","name":"Giocatore %d","club":"Club %d"}`, i, i, i%5))
			}
			c.queue = append(c.queue, `{"type":"CloseRegistration"}`)
			c.stage = stageCheckIn
		case stageCheckIn:
			for i := 1; i <= c.players; i++ {
				c.queue = append(c.queue, fmt.Sprintf(`{"type":"CheckIn","round":%d,"player":"p%03d","minutes_late":%d}`, c.round, i, c.rng.IntN(3)))
			}
			c.queue = append(c.queue, fmt.Sprintf(`{"type":"DrawTables","round":%d}`, c.round))
			c.stage = stageReports
		case stageReports:
			tables, err := (&client.Client{Base: url}).Tables(context.Background(), c.t, c.round)
			if p, ok := problem(err); ok {
				return nil, fmt.Errorf("tables of %s round %d: %w", c.t, c.round, p)
			}
			if err != nil {
				return nil, err
			}
			for _, tb := range tables.Tables {
				rep := c.sim.Report(c.rng, c.round, tb.Table, tb.Players)
				rep.Rolls = sim.Rolls(c.rng, tb.Players)
				b, _ := json.Marshal(demo.ResultPayload(rep))
				c.queue = append(c.queue, string(b))
			}
			if c.round++; c.round > crashRounds {
				c.stage = stageNew
			} else {
				c.stage = stageCheckIn
			}
		}
	}
	body := c.queue[0]
	c.queue = c.queue[1:]
	c.sent++
	return &crashCmd{t: c.t, key: fmt.Sprintf("c%d-%d", c.id, c.sent), body: body}, nil
}

// send posts one command; an error that is not a *client.Problem means
// the server went away mid-request.
func (c *crashClient) send(url string, cmd *crashCmd) (client.Outcome, error) {
	cl := &client.Client{Base: url, Token: testAdmin, HTTP: &http.Client{Timeout: 20 * time.Second}}
	ctx := context.Background()
	if strings.HasPrefix(cmd.body, `{"id"`) {
		var nt client.NewTournament
		if err := json.Unmarshal([]byte(cmd.body), &nt); err != nil {
			return client.Outcome{}, err
		}
		return cl.CreateTournament(ctx, cmd.key, nt)
	}
	return cl.CommandJSON(ctx, cmd.t, cmd.key, []byte(cmd.body))
}

// problem reports whether err is the server's refusal, not a failed
// transfer.
func problem(err error) (*client.Problem, bool) {
	var p *client.Problem
	return p, errors.As(err, &p)
}

// TestCrashLoopLosesNothing runs referto serve as a child process, drives
// tournaments from four concurrent clients and SIGKILLs the server at random
// moments, at least 20 times (REFERTO_CRASH_KILLS to change). After each
// restart, for every tournament: every 201 is in the log exactly once at
// its seq, seqs are contiguous, the signed checkpoint's root is the root
// recomputed from the exported lines, the entry list and standings the
// projections serve equal a fold of the log, and the retry of each
// in-flight command returns the original outcome if it had landed (and is
// appended once if it had not). Every fifth cycle the server is also
// stopped cleanly and its Pebble projections compared byte for byte with a
// rebuild from the log.
func TestCrashLoopLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary: skipped in -short mode")
	}
	kills := 20
	if v, err := strconv.Atoi(os.Getenv("REFERTO_CRASH_KILLS")); err == nil && v > 0 {
		kills = v
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	var clients []*crashClient
	for i := range 4 {
		s, err := sim.New(sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, &crashClient{id: i, rng: rand.New(rand.NewPCG(uint64(i), 99)), sim: s})
	}
	start := time.Now()
	commandsChecked := 0
	for cycle := 1; cycle <= kills; cycle++ {
		c := startChild(t, dir)
		// Retry what was in flight when the server died, then play on.
		var wg sync.WaitGroup
		stop := make(chan struct{})
		errs := make(chan error, len(clients))
		for _, cl := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					if cl.pending == nil {
						select {
						case <-stop:
							return
						default:
						}
						cmd, err := cl.next(c.url)
						if err != nil {
							return // the server went away while reading the tables
						}
						cl.pending = cmd
					}
					o, err := cl.send(c.url, cl.pending)
					if p, ok := problem(err); ok {
						errs <- fmt.Errorf("%s %s: %w", cl.pending.key, cl.pending.body, p)
						return
					}
					if err != nil {
						return // in flight at the kill
					}
					cl.pending.seq = o.Seq
					cl.acked = append(cl.acked, cl.pending)
					cl.pending = nil
				}
			}()
		}
		time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		c.kill()
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}

		// Restart and check everything the clients were told.
		c = startChild(t, dir)
		touched := map[string]bool{}
		for _, cl := range clients {
			for _, a := range cl.acked {
				touched[a.t] = true
			}
			if cl.pending != nil {
				touched[cl.pending.t] = true
			}
		}
		logs := map[string]map[string][]uint64{}
		for tn := range touched {
			logs[tn] = crashLog(t, c.url, tn)
		}
		for _, cl := range clients {
			for _, a := range cl.acked {
				if got := logs[a.t][a.key]; len(got) != 1 || got[0] != a.seq {
					t.Fatalf("cycle %d: %s acknowledged at seq %d; the log of %s has it at %v", cycle, a.key, a.seq, a.t, got)
				}
				commandsChecked++
			}
			if p := cl.pending; p != nil {
				landed := logs[p.t][p.key]
				o, err := cl.send(c.url, p)
				if err != nil {
					t.Fatalf("cycle %d: retry of in-flight %s: %v", cycle, p.key, err)
				}
				seq, replayed := o.Seq, o.Replayed
				switch {
				case len(landed) == 1 && (!replayed || seq != landed[0]):
					t.Fatalf("cycle %d: %s had landed at %d; its retry answered seq %d replayed=%v", cycle, p.key, landed[0], seq, replayed)
				case len(landed) == 0 && replayed:
					t.Fatalf("cycle %d: %s had not landed; its retry claims to replay seq %d", cycle, p.key, seq)
				case len(landed) > 1:
					t.Fatalf("cycle %d: %s is in the log %d times", cycle, p.key, len(landed))
				}
				if len(landed) == 1 {
					cl.retriedLanded++
				} else {
					cl.retriedLost++
				}
				p.seq = seq
				cl.acked = append(cl.acked, p)
				cl.pending = nil
			}
		}
		for tn := range touched {
			checkAgainstLog(t, c.url, tn)
		}
		if cycle%5 == 0 {
			if _, err := c.terminate(); err != nil {
				t.Fatalf("cycle %d: clean stop: %v", cycle, err)
			}
			compareWithRebuild(t, dir)
		} else {
			c.kill()
		}
	}
	landed, lost, tournaments, acked := 0, 0, 0, 0
	for _, cl := range clients {
		landed += cl.retriedLanded
		lost += cl.retriedLost
		tournaments += cl.n
		acked += len(cl.acked)
	}
	t.Logf("%d SIGKILLs in %v: %d commands acknowledged over %d tournaments, %d checks of an acknowledged command against the log after a restart; in-flight retries: %d had landed (replayed), %d had not (appended once)",
		kills, time.Since(start).Round(time.Second), acked, tournaments, commandsChecked, landed, lost)
}

// crashLog reads a tournament's log as stored and returns the seqs of each
// command id, checking that seqs run 1, 2, 3… without gaps.
func crashLog(t *testing.T, url, tn string) map[string][]uint64 {
	t.Helper()
	b := exportOf(t, url, tn)
	out := map[string][]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 4<<20)
	var next uint64 = 1
	for sc.Scan() {
		var env events.Envelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		if env.Seq != next {
			t.Fatalf("%s: seq %d follows %d", tn, env.Seq, next-1)
		}
		next++
		out[env.CommandID] = append(out[env.CommandID], env.Seq)
	}
	return out
}

func exportOf(t *testing.T, url, tn string) []byte {
	t.Helper()
	ex, err := (&client.Client{Base: url, Token: testAdmin}).Export(context.Background(), tn)
	if p, ok := problem(err); ok && p.Status == 404 {
		return nil // created by a command that was lost in flight
	}
	if err != nil {
		t.Fatalf("export %s: %v", tn, err)
	}
	defer ex.Body.Close()
	b, err := io.ReadAll(ex.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkAgainstLog checks the signed checkpoint against the root of the
// exported lines and what the projections serve against a fold of them.
func checkAgainstLog(t *testing.T, url, tn string) {
	t.Helper()
	b := exportOf(t, url, tn)
	if b == nil {
		return
	}
	tree := checkpoint.NewTree()
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) > 0 {
			if err := tree.Append(line[:len(line)-1], nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := &client.Client{Base: url}
	note, err := c.Checkpoint(context.Background(), tn)
	if err != nil {
		t.Fatalf("checkpoint of %s: %v", tn, err)
	}
	cp, _, err := checkpoint.OpenUnverified(note)
	if err != nil {
		t.Fatalf("checkpoint of %s: %v (%s)", tn, err, note)
	}
	if cp.Size != tree.Size() || !bytes.Equal(cp.Root, tree.Root()) {
		t.Fatalf("%s: the checkpoint (size %d) is not the root of the %d stored lines", tn, cp.Size, tree.Size())
	}
	st, err := replay.Fold(replay.NewScanner(bytes.NewReader(b), nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what, path string, want any) {
		t.Helper()
		var got any
		if err := c.Get(context.Background(), path, &got); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		wb, _ := json.Marshal(want)
		var w any
		_ = json.Unmarshal(wb, &w)
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("%s of %s served by the projections differ from a fold of the log:\nserved %v\nfolded %v", what, tn, got, w)
		}
	}
	rows := []projections.PlayerRow{}
	for _, id := range st.Order {
		if row, ok := st.PlayerView(id); ok {
			rows = append(rows, row)
		}
	}
	same("the entry list", "/v1/tournaments/"+tn+"/players", map[string]any{"tournament": tn, "players": rows})
	same("the standings", "/v1/tournaments/"+tn+"/standings", st.Standings())
}
