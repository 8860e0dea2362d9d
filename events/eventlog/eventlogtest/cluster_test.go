package eventlogtest

import (
	"net"
	"strconv"
	"testing"
	"time"
)

// TestANodeWhosePortWasTakenStartsOnAnother: a node restarted after another
// process took its route port rejoins on a fresh one, and the cluster
// elects a meta leader with it.
func TestANodeWhosePortWasTakenStartsOnAnother(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test: skipped in -short mode")
	}
	c := StartCluster(t, 3)
	c.Stop(1)
	// Hold the port; should another process have taken it already, it
	// is taken all the same.
	if held, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(c.routes[1])); err == nil {
		defer held.Close()
	}
	old := c.routes[1]
	c.Start(1)
	if c.routes[1] == old || c.Server(1) == nil {
		t.Fatalf("node 1 on route port %d (was %d)", c.routes[1], old)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !c.Server(1).JetStreamIsCurrent() {
		if time.Now().After(deadline) {
			t.Fatal("node 1 did not catch up with the meta group within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
