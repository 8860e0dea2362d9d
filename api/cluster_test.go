package api_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/events/jetstream/jstest"
)

// TestNodeOnR3Cluster runs a referto node against an external three-node
// JetStream cluster with an R3 stream (what --nats and --replicas 3 do),
// stops one NATS node mid-way, and checks that every acknowledged command
// is in the tournament's log.
func TestNodeOnR3Cluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test: skipped in -short mode")
	}
	c := jstest.StartCluster(t, 3)
	s := &stack{t: t, dir: t.TempDir(), opts: api.NodeOptions{NATS: c.URL(), Replicas: 3}}
	s.start()
	t.Cleanup(s.stop)
	if got := s.node.Log.Replicas(); got != 3 {
		t.Fatalf("stream replicas %d, want 3", got)
	}
	arb := s.create("r3", "rtu")
	// While the cluster settles after losing a node, an append may time out
	// (503, nothing acknowledged); a client retries with the same key, and
	// the log must still hold each registration once.
	register := func(from, to int) {
		for i := from; i < to; i++ {
			body, key := fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P"}`, i), fmt.Sprintf("k%d", i)
			for try := 0; try < 5; try++ {
				if r := s.do("POST", "/v1/tournaments/r3/commands", arb, body, "Idempotency-Key", key); r.status != 503 {
					break
				}
				time.Sleep(time.Second)
			}
			s.must(201, "POST", "/v1/tournaments/r3/commands", arb, body, "Idempotency-Key", key)
		}
	}
	register(0, 50)
	leader := c.StreamLeader("REFERTO")
	c.Stop((leader + 1) % 3)
	register(50, 100)
	players := s.must(200, "GET", "/v1/tournaments/r3/players", "", nil).json(t)["players"].([]any)
	if len(players) != 100 {
		t.Errorf("%d players after stopping a node, want 100", len(players))
	}
	if n := s.logSize(); n != 102 {
		t.Errorf("stream holds %d commits, want 102 (create, appoint, 100 registrations)", n)
	}
}
