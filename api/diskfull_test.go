package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/projections/store"
	"github.com/referto/referto/projections/store/storetest"
)

// logLinesWith are the lines of a log that hold substr.
func logLinesWith(b *syncBuffer, substr string) []string {
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// TestAFullDiskRefusesBeforeAStoreRunsOut keeps the projections on a disk
// of a fixed capacity (a fault-injecting Pebble filesystem: a write past
// the capacity fails with ENOSPC) and sends a burst of commands from eight
// clients until it fills. The guard refuses commands with 503 while the
// store still has the room its worst case needs: Pebble never meets a
// full disk, every acknowledged command is in the projections (also after
// a restart), and the log says so in one line, not thousands; once space
// returns, commands are accepted again, and that is one line too.
func TestAFullDiskRefusesBeforeAStoreRunsOut(t *testing.T) {
	const reserve = 50 << 20 // the least that fits: 1 MiB memtables
	if mem, err := node.MemTableSizeFor(reserve); err != nil || mem != store.MinMemTableSize {
		t.Fatalf("a %d MiB reserve: memtables %d, %v", reserve>>20, mem, err)
	}
	// The store's disk holds what is free above the reserve and the
	// store's share of the reserve, no more: the log's share is elsewhere
	// (its own files are on the test's temporary directory).
	const capacity = reserve - node.LogDiskHeadroom + 3<<20
	disk := storetest.NewDiskFS(vfs.Default, capacity)
	disk.SlowTables = 5 * time.Millisecond // flushes fall behind: the logs pile up
	logs := &syncBuffer{}
	s := &stack{t: t, dir: t.TempDir(), opts: node.NodeOptions{
		DiskReserve: reserve, StoreFS: disk,
		Disk: func() (ledger.DiskState, error) {
			return ledger.DiskState{Free: disk.Free() + node.LogDiskHeadroom}, nil
		},
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}}
	s.start()
	t.Cleanup(s.stop)
	const clients = 8
	arbs := make([]string, clients)
	for c := range clients {
		arbs[c] = s.create(fmt.Sprintf("full-%d", c), "rtu")
	}

	// The burst: each client registers players until it is refused.
	accepted := make([][]string, clients)
	var refusals []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(2 * time.Minute)
	hc := &http.Client{Timeout: 30 * time.Second}
	for c := range clients {
		wg.Go(func() {
			refused := 0
			for i := 0; i < 2000 && refused < 3 && time.Now().Before(deadline); i++ {
				player := fmt.Sprintf("p%04d", i)
				body := fmt.Sprintf(`{"type":"RegisterPlayer","player":%q,"name":"%s","club":"%s"}`, player, strings.Repeat("N", 150), strings.Repeat("C", 150))
				req, _ := http.NewRequest("POST", fmt.Sprintf("%s/v1/tournaments/full-%d/commands", s.srv.URL, c), strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+arbs[c])
				res, err := hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				mu.Lock()
				switch res.StatusCode {
				case 201:
					accepted[c] = append(accepted[c], player)
				case 503:
					refused++
					if res.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(b), `"code":"unavailable"`) ||
						!strings.Contains(string(b), "below the reserve") {
						t.Errorf("a refusal: %s", b)
					}
					refusals = append(refusals, string(b))
				default:
					t.Errorf("client %d, %s: %d %s", c, player, res.StatusCode, b)
					refused = 3
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	n := 0
	for _, a := range accepted {
		n += len(a)
	}
	usedPeak, walPeak, enospc, where := disk.Stats()
	t.Logf("%d commands acknowledged, %d refused; the store's disk at its peak %.1f MiB (logs %.1f MiB) of %d MiB",
		n, len(refusals), float64(usedPeak)/(1<<20), float64(walPeak)/(1<<20), capacity>>20)
	if len(refusals) == 0 {
		t.Fatal("the disk never filled: the test proves nothing")
	}
	if enospc > 0 {
		t.Errorf("Pebble met a full disk %d times (%v): the reserve did not cover it", enospc, where)
	}

	// Nothing acknowledged is lost: in the projections now and after a restart.
	check := func(when string) {
		t.Helper()
		for c := range clients {
			var got struct {
				Players []struct {
					Player string `json:"player"`
				} `json:"players"`
			}
			if err := json.Unmarshal(s.must(200, "GET", fmt.Sprintf("/v1/tournaments/full-%d/players", c), "", nil).body, &got); err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, p := range got.Players {
				have[p.Player] = true
			}
			for _, p := range accepted[c] {
				if !have[p] {
					t.Errorf("%s: %s of full-%d was acknowledged and is not in the projections", when, p, c)
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.node.Runner.WaitFor(ctx, s.logSize()); err != nil {
		t.Fatal(err)
	}
	check("after the burst")

	if got := logLinesWith(logs, "refusing commands"); len(got) != 1 {
		t.Errorf("%d log lines say commands are refused, want 1:\n%s", len(got), strings.Join(got, "\n"))
	}
	if got := logLinesWith(logs, `"component":"pebble"`); len(got) > 0 {
		t.Errorf("Pebble logged %d lines:\n%s", len(got), strings.Join(got[:min(len(got), 5)], "\n"))
	}

	// Space returns: commands are accepted again, and the log says so once.
	disk.SetCapacity(1 << 30)
	s.must(201, "POST", "/v1/tournaments/full-0/commands", arbs[0], `{"type":"RegisterPlayer","player":"late","name":"L"}`)
	accepted[0] = append(accepted[0], "late")
	if got := logLinesWith(logs, "accepting commands"); len(got) != 1 {
		t.Errorf("%d log lines say commands are accepted again, want 1", len(got))
	}
	s.restart()
	check("after a restart")
}
