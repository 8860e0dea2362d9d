package eventlog

import (
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
	for _, want := range []string{"StoreDir", "SyncInterval", "Cluster.Name"} {
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
