package eventlog

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEmbeddedServerSyncsEveryWriteByDefault(t *testing.T) {
	ns, err := StartServer(ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	if cfg := ns.JetStreamConfig(); cfg == nil || !cfg.SyncAlways {
		t.Fatalf("default JetStream config %+v: want SyncAlways", cfg)
	}
	if ns.ClientURL() != "" && ns.Addr() != nil {
		t.Errorf("the default embedded server listens on %v; it should accept in-process connections only", ns.Addr())
	}

	relaxed, err := StartServer(ServerOptions{StoreDir: t.TempDir(), SyncInterval: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { relaxed.Shutdown(); relaxed.WaitForShutdown() }()
	if cfg := relaxed.JetStreamConfig(); cfg.SyncAlways || cfg.SyncInterval != 2*time.Minute {
		t.Errorf("relaxed config %+v: want periodic sync every 2m", cfg)
	}
}

func TestServerOptionsValidate(t *testing.T) {
	o := ServerOptions{SyncInterval: -1, Cluster: &ClusterOptions{}}
	err := o.Validate()
	if err == nil {
		t.Fatal("invalid options accepted")
	}
	for _, want := range []string{"StoreDir", "SyncInterval", "Cluster.Name", "needs Listen"} {
		if !containsStr(err.Error(), want) {
			t.Errorf("Validate() = %v: does not report %s", err, want)
		}
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestAServerThatCannotListenSaysWhy: a port another process holds makes
// StartServer fail with the listener's error, not a bare timeout.
func TestAServerThatCannotListenSaysWhy(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	port := held.Addr().(*net.TCPAddr).Port
	for _, o := range []ServerOptions{
		{Listen: true, Port: port},
		{Listen: true, Cluster: &ClusterOptions{Name: "c", Port: port, Routes: []string{"nats-route://127.0.0.1:1"}}},
	} {
		o.StoreDir = t.TempDir()
		ns, err := StartServer(o)
		if err == nil {
			ns.Shutdown()
			t.Fatalf("%+v: the server started on a port in use", o)
		}
		if !strings.Contains(err.Error(), "listening") || !strings.Contains(err.Error(), strconv.Itoa(port)) {
			t.Errorf("%+v: %v; want the listener's error naming port %d", o, err, port)
		}
	}
}
