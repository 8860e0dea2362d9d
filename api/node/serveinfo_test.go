package node_test

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/referto/referto/api/node"
)

// TestAnnounceIsReadBack: a server's announcement reads back with its URL
// (on loopback when it listens on every address) and this process's pid,
// and is gone once removed; garbage reads as nothing announced.
func TestAnnounceIsReadBack(t *testing.T) {
	l := node.Layout{Dir: t.TempDir()}
	for addr, want := range map[string]string{"127.0.0.1:8080": "http://127.0.0.1:8080", "0.0.0.0:9": "http://127.0.0.1:9", "[::]:9": "http://[::1]:9"} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		remove, err := l.Announce(tcp)
		if err != nil {
			t.Fatal(err)
		}
		if si, ok := l.Announced(); !ok || si.URL != want || si.PID != os.Getpid() {
			t.Errorf("announced %s: read back %+v, %v; want %s", addr, si, ok, want)
		}
		remove()
		if _, ok := l.Announced(); ok {
			t.Errorf("announced %s: still there once removed", addr)
		}
	}
	if err := os.WriteFile(l.ServeInfo(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if si, ok := l.Announced(); ok {
		t.Errorf("garbage read back as %+v", si)
	}
}

// TestOpenLog: a directory without a log is not a data directory unless
// asked to create one; the log opened is empty and usable.
func TestOpenLog(t *testing.T) {
	l := node.Layout{Dir: t.TempDir()}
	if _, _, err := node.OpenLog(context.Background(), l, node.LogOptions{}); err == nil || !strings.Contains(err.Error(), "not a referto data directory") {
		t.Fatalf("no nats/: %v, want an error saying it is not a data directory", err)
	}
	lg, closeLog, err := node.OpenLog(context.Background(), l, node.LogOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	if last, err := lg.LastSeq(context.Background()); err != nil || last != 0 {
		t.Errorf("a new log: last %d, %v", last, err)
	}
	if _, err := os.Stat(l.NATS()); err != nil {
		t.Errorf("the store: %v", err)
	}
}
