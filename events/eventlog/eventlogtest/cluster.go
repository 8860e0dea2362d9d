// Package eventlogtest starts real NATS JetStream servers for tests: a single
// embedded node, or a cluster of nodes on loopback ports that can be stopped
// and restarted with their data. Nothing here is mocked.
package eventlogtest

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/referto/referto/events/eventlog"
)

// Cluster is a JetStream cluster of in-process nodes on 127.0.0.1.
type Cluster struct {
	t       testing.TB
	dir     string
	name    string
	ports   []int // client ports
	routes  []int // cluster ports
	servers []*server.Server
}

// StartCluster starts n clustered nodes and waits for JetStream to have a
// meta leader. Every node is stopped at the end of the test.
//
// A JetStream cluster needs every node's routes configured before it starts,
// so the route ports are reserved up front and released for the nodes to
// bind; client ports are the system's pick (-1). Should another process take
// a route port in between, that node starts on a fresh one (Start).
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	c := &Cluster{t: t, dir: t.TempDir(), name: "referto-test", servers: make([]*server.Server, n),
		ports: make([]int, n), routes: freePorts(t, n)}
	t.Cleanup(func() {
		for i := range c.servers {
			c.Stop(i)
		}
	})
	for i := range n {
		c.ports[i] = -1
		c.Start(i)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !c.hasLeader() {
		if time.Now().After(deadline) {
			t.Fatal("eventlogtest: no JetStream meta leader after 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c
}

func (c *Cluster) hasLeader() bool {
	for _, s := range c.servers {
		if s != nil && s.JetStreamIsLeader() {
			return true
		}
	}
	return false
}

// Start (re)starts node i with its data directory, on the ports it had.
// When it cannot (another process holds one by now: StartServer says so at
// once), it starts on fresh ones, at most three times; the other nodes
// accept its routes wherever it listens.
func (c *Cluster) Start(i int) {
	c.t.Helper()
	for try := 1; ; try++ {
		var routes []string
		for j, p := range c.routes {
			if j != i {
				routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
			}
		}
		s, err := eventlog.StartServer(eventlog.ServerOptions{
			StoreDir: filepath.Join(c.dir, fmt.Sprintf("n%d", i)),
			Name:     fmt.Sprintf("n%d", i),
			Listen:   true,
			Port:     c.ports[i],
			Cluster:  &eventlog.ClusterOptions{Name: c.name, Port: c.routes[i], Routes: routes},
		})
		if err == nil {
			c.servers[i] = s
			c.ports[i] = s.Addr().(*net.TCPAddr).Port
			return
		}
		if try == 3 {
			c.t.Fatalf("eventlogtest: start node %d: %v", i, err)
		}
		c.ports[i], c.routes[i] = -1, freePorts(c.t, 1)[0]
	}
}

// Stop shuts node i down (keeping its data) and waits until it is gone.
func (c *Cluster) Stop(i int) {
	if s := c.servers[i]; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.servers[i] = nil
	}
}

// Server returns node i, nil while stopped.
func (c *Cluster) Server(i int) *server.Server { return c.servers[i] }

// URL returns a client URL listing every node.
func (c *Cluster) URL() string {
	var us []string
	for _, p := range c.ports {
		us = append(us, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	return strings.Join(us, ",")
}

// StreamLeader returns the index of the node leading stream name, or -1.
func (c *Cluster) StreamLeader(name string) int {
	for i, s := range c.servers {
		if s != nil && s.JetStreamIsStreamLeader("$G", name) {
			return i
		}
	}
	return -1
}

// freePorts reserves n distinct loopback ports and releases them for the
// caller to bind.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
