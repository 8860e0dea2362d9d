package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
)

const testAdmin = "test-admin-token"

// buildBinary compiles referto once per test binary run.
var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "referto-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "referto")
	// A plain build: the child's job is durability, and -race would make
	// the build slow on a 2-core CI machine.
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// child is a referto serve process on loopback.
type child struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	out  *bytes.Buffer
	mu   *sync.Mutex
	done chan error
}

var listenRE = regexp.MustCompile(`listening on (http://\S+)`)

// startChild runs `referto serve --data dir --addr 127.0.0.1:0` and waits
// until it listens and is ready.
func startChild(t *testing.T, dir string, extra ...string) *child {
	t.Helper()
	return startSub(t, "serve", dir, extra...)
}

// startSub is startChild for subcommand sub (serve or hub).
func startSub(t *testing.T, sub, dir string, extra ...string) *child {
	t.Helper()
	c := launch(t, sub, dir, extra...)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if (&client.Client{Base: c.url}).Ready(context.Background()) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("referto %s not ready within 60s\n%s", sub, c.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// launch runs `referto sub --data dir --addr 127.0.0.1:0` and waits until
// it listens, ready or not.
func launch(t *testing.T, sub, dir string, extra ...string) *child {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{sub, "--data", dir, "--addr", "127.0.0.1:0"}, extra...)...)
	cmd.Env = append(os.Environ(), "REFERTO_ADMIN_TOKEN="+testAdmin)
	stdout, _ := cmd.StdoutPipe()
	c := &child{t: t, cmd: cmd, out: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan error, 1)}
	cmd.Stderr = &lockedWriter{c.mu, c.out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.kill() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	go func() { c.done <- cmd.Wait() }()
	select {
	case c.url = <-urls:
	case err := <-c.done:
		c.done <- err
		t.Fatalf("referto %s exited: %v\n%s", sub, err, c.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("referto %s did not listen within 60s\n%s", sub, c.log())
	}
	return c
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (c *child) log() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// kill sends SIGKILL to the child's PID and reaps it.
func (c *child) kill() {
	if c.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(c.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case err := <-c.done:
		c.done <- err
	case <-time.After(10 * time.Second):
		c.t.Errorf("child %d did not die after SIGKILL", c.cmd.Process.Pid)
	}
}

// terminate sends SIGTERM and returns how long the child took to exit.
func (c *child) terminate() (time.Duration, error) {
	start := time.Now()
	if err := syscall.Kill(c.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case err := <-c.done:
		c.done <- err
		return time.Since(start), err
	case <-time.After(30 * time.Second):
		return time.Since(start), fmt.Errorf("no exit 30s after SIGTERM")
	}
}
