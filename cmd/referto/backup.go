package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
)

// serveInfo is what a running `referto serve` says of itself in its data
// directory (ledger.Layout.ServeInfo); it is removed at a clean stop.
type serveInfo struct {
	URL     string    `json:"url"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// writeServeInfo records the listen address of a server on a data
// directory, for `referto backup --data` to find it; the returned func
// removes it.
func writeServeInfo(layout ledger.Layout, addr net.Addr) (func(), error) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil, err
	}
	// A server listening on every address is reached on loopback.
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	b, err := json.Marshal(serveInfo{URL: "http://" + net.JoinHostPort(host, port), PID: os.Getpid(), Started: time.Now().UTC()})
	if err != nil {
		return nil, err
	}
	path := layout.ServeInfo()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	return func() { _ = os.Remove(path) }, nil
}

func readServeInfo(layout ledger.Layout) (serveInfo, bool) {
	var si serveInfo
	b, err := os.ReadFile(layout.ServeInfo())
	if err != nil || json.Unmarshal(b, &si) != nil || si.URL == "" {
		return si, false
	}
	return si, true
}

func backupCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: referto backup --data DIR --out FILE [--url URL] [--token T]

Write a consistent backup of a referto data directory to FILE (a tar, mode 0600: it holds the
signing key): a JetStream snapshot of the log as it stood at one instant, the keys, and a
manifest with every tournament's Merkle root. While referto serve runs on DIR (DIR/serve.json
says where) the backup is asked of it, with the administrator's token, and commands go on
meanwhile; otherwise DIR is read directly. FILE appears only once the backup is whole.

`)
		fs.PrintDefaults()
	}
	data := fs.String("data", "", "data directory of the referto to back up")
	out := fs.String("out", "", "the backup file to write (required)")
	url := fs.String("url", "", "base URL of the running referto (default: the one DIR/serve.json names)")
	token := fs.String("token", getenv("REFERTO_ADMIN_TOKEN"), "the administrator's token, to ask a running server [REFERTO_ADMIN_TOKEN]")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *out == "" || (*data == "" && *url == "") {
		fmt.Fprintln(stderr, "backup needs --out and --data (or --url)")
		return errUsage
	}
	start := time.Now()
	f, err := os.CreateTemp(filepath.Dir(*out), filepath.Base(*out)+".partial-*")
	if err != nil {
		return err
	}
	defer func() { f.Close(); os.Remove(f.Name()) }()
	bw := bufio.NewWriterSize(f, 1<<20)

	from := *url
	fromServeInfo := false
	if from == "" {
		if si, ok := readServeInfo(ledger.Layout{Dir: *data}); ok {
			from, fromServeInfo = si.URL, true
		}
	}
	switch {
	case from != "":
		err = backupURL(ctx, from, *token, bw)
		if fromServeInfo && errors.Is(err, syscall.ECONNREFUSED) {
			// A server killed without a clean stop leaves serve.json
			// behind: nobody answers there, so the directory is free.
			fmt.Fprintf(stderr, "nobody answers at %s (%s is left from a server that stopped); reading %s directly\n",
				from, ledger.Layout{Dir: *data}.ServeInfo(), *data)
			from = ""
			err = backupData(ctx, *data, bw)
		}
	default:
		err = backupData(ctx, *data, bw)
	}
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	// Keep the file only if it reads back whole.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	b, err := api.ReadBackup(bufio.NewReaderSize(f, 1<<20), nil)
	if err != nil {
		return fmt.Errorf("the backup received does not read back: %w", err)
	}
	if from != "" {
		if err := sameKey(*data, b.Keys); err != nil {
			return fmt.Errorf("%w: the server at %s does not run on %s", err, from, *data)
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), *out); err != nil {
		return err
	}
	src := "directly from " + *data
	if from != "" {
		src = "from the server at " + from
	}
	m := b.Manifest
	fmt.Fprintf(stdout, "backup of stream %s, sequences %d..%d (%d commits), %s, and %s taken %s: %s, %s in %s\n",
		m.Stream, m.FirstSeq, m.LastSeq, m.Msgs, describeTournaments(m.Tournaments), describeKeys(b.Keys), src, *out,
		byteSize(fi.Size()), time.Since(start).Round(time.Millisecond))
	return nil
}

// sameKey checks that a backup carries the verifier key of dir (when dir is
// given and has one): a port named by a stale serve.json may now belong to
// another server.
func sameKey(dir string, keys []api.BackupFile) error {
	if dir == "" {
		return nil
	}
	pub := ledger.Layout{Dir: dir}.CheckpointPub()
	want, err := os.ReadFile(pub)
	if err != nil {
		return nil
	}
	for _, k := range keys {
		if k.Name == checkpoint.VerifierFile && bytes.Equal(k.Data, want) {
			return nil
		}
	}
	return fmt.Errorf("the backup's checkpoint key is not the one in %s", pub)
}

// backupURL asks a running server for its backup.
func backupURL(ctx context.Context, base, token string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(base, "/")+"/v1/admin/backup", nil)
	if err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// The server answers once JetStream has started the snapshot; the body
	// then flows as fast as it is read.
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: time.Minute}}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusUnauthorized && token == "" {
		return fmt.Errorf("backup: the server at %s runs on this directory: ask it with the administrator's token (--token or REFERTO_ADMIN_TOKEN)", base)
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return fmt.Errorf("backup: %s: %s", res.Status, bytes.TrimSpace(b))
	}
	if _, err := io.Copy(w, res.Body); err != nil {
		return fmt.Errorf("backup: the transfer failed: %w", err)
	}
	return nil
}

// backupData backs up a data directory no server is running on: it starts
// the node in-process (embedded JetStream, the projections caught up with
// the log, no HTTP) and takes the same backup a server would.
func backupData(ctx context.Context, dir string, w io.Writer) error {
	layout := ledger.Layout{Dir: dir}
	if _, err := os.Stat(layout.NATS()); err != nil {
		return fmt.Errorf("%s is not a referto data directory with an embedded log: %w", dir, err)
	}
	// Never make a key: a backup carries the server's own or none.
	if _, err := checkpoint.LoadKeys(layout.Keys()); err != nil {
		return err
	}
	node, err := ledger.StartNode(ctx, ledger.NodeOptions{Data: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("%w (is referto serve running on %s without %s? use --url)", err, dir, filepath.Base(layout.ServeInfo()))
	}
	defer node.Close()
	_, err = api.WriteBackup(ctx, w, api.BackupSource{Log: node.Log, Store: node.Store, Runner: node.Runner,
		KeysDir: layout.Keys(), CatchUp: 10 * time.Minute})
	return err
}

func restoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: referto restore --in FILE --data NEWDIR

Bring a backup made by referto backup back into NEWDIR, which must be new or empty: the log is
restored through JetStream with every stream sequence as it was, and the keys with their modes.
The restored log is then checked against the backup's manifest (last sequence, and every
tournament's Merkle root, rebuilt from the restored lines); on any mismatch, or a damaged file,
nothing is left behind. The projections are rebuilt from the log when referto serve first starts.

`)
		fs.PrintDefaults()
	}
	in := fs.String("in", "", "the backup file (required)")
	data := fs.String("data", "", "the data directory to create (required; must not exist or be empty)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *in == "" || *data == "" {
		fmt.Fprintln(stderr, "restore needs --in and --data")
		return errUsage
	}
	start := time.Now()
	target, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	existed, err := emptyTarget(target)
	if err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	// Read the whole file once before touching anything: a damaged or cut
	// backup is refused without a directory made.
	b, err := api.ReadBackup(bufio.NewReaderSize(f, 1<<20), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// Restore beside the target and move it into place at the end.
	tmp, err := os.MkdirTemp(filepath.Dir(target), "."+filepath.Base(target)+".restoring-")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := restoreKeys(ledger.Layout{Dir: tmp}.Keys(), b.Keys); err != nil {
		return err
	}
	checked, err := restoreLog(ctx, tmp, f, b.Manifest)
	if err != nil {
		return err
	}
	if err := syncTree(tmp); err != nil {
		return err
	}
	if existed {
		if err := os.Remove(target); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	done = true
	if err := syncPath(filepath.Dir(target)); err != nil {
		return err
	}
	m := b.Manifest
	fmt.Fprintf(stdout, "restored stream %s, sequences %d..%d (%d commits), and %s from %s (taken %s) into %s in %s\n%s\n",
		m.Stream, m.FirstSeq, m.LastSeq, m.Msgs, describeKeys(b.Keys), *in, m.Created.Format(time.RFC3339), *data,
		time.Since(start).Round(time.Millisecond), checked)
	fmt.Fprintln(stdout, "the projections are rebuilt from the log when referto serve first starts on it")
	return nil
}

// syncTree fsyncs every file and directory under dir, so that what was
// restored is on disk before it is moved into place.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		return syncPath(path)
	})
}

// syncPath fsyncs a file or a directory.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// emptyTarget refuses a target that is anything but missing or an empty
// directory, and reports whether it exists.
func emptyTarget(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("restore: %w", err)
	}
	if len(entries) > 0 {
		return true, fmt.Errorf("restore: %s is not empty: restore only into a new or empty directory", dir)
	}
	return true, nil
}

func restoreKeys(dir string, keys []api.BackupFile) error {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	for _, k := range keys {
		mode := k.Mode
		for _, kf := range api.BackupKeyFiles {
			if kf.Name == k.Name && kf.Secret {
				mode &= 0o600 // whatever the file says, the owner's only
			}
		}
		f, err := os.OpenFile(filepath.Join(dir, k.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		_, err = f.Write(k.Data)
		if err == nil {
			err = f.Chmod(mode) // past the umask
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if _, err := checkpoint.LoadKeys(dir); err != nil {
		return fmt.Errorf("restore: the backup's keys: %w", err)
	}
	return nil
}

// restoreLog restores the snapshot in backup r into dir's log (Layout.NATS) through an
// embedded JetStream and checks the restored log against the manifest: the
// stream's sequences, then every tournament's events, last stream sequence
// and Merkle root, rebuilt from the restored lines. It returns a line
// saying what was checked.
func restoreLog(ctx context.Context, dir string, r io.Reader, m api.BackupManifest) (string, error) {
	// No fsync per restored message (JetStream's restore gives up on a
	// piece that takes 5 s to store, and a piece holds hundreds): the
	// store is synced whole once the server has stopped (syncTree).
	ns, err := jetstream.StartServer(jetstream.ServerOptions{StoreDir: ledger.Layout{Dir: dir}.NATS(), SyncInterval: time.Hour})
	if err != nil {
		return "", err
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		return "", err
	}
	defer nc.Close()
	var st jetstream.StreamState
	_, err = api.ReadBackup(bufio.NewReaderSize(r, 1<<20), func(info jetstream.SnapshotInfo, data io.Reader) error {
		info, err := info.SingleNode()
		if err != nil {
			return err
		}
		st, err = jetstream.RestoreSnapshot(ctx, nc, info, data)
		return err
	})
	if err != nil {
		return "", err
	}
	if st.FirstSeq != m.FirstSeq || st.LastSeq != m.LastSeq || st.Msgs != m.Msgs {
		return "", fmt.Errorf("restore: the restored stream holds sequences %d..%d (%d commits), the backup's manifest %d..%d (%d): nothing restored",
			st.FirstSeq, st.LastSeq, st.Msgs, m.FirstSeq, m.LastSeq, m.Msgs)
	}
	lg, err := jetstream.Open(ctx, nc, jetstream.Options{Stream: m.Stream})
	if err != nil {
		return "", err
	}
	if last, err := lg.LastSeq(ctx); err != nil {
		return "", err
	} else if last != m.LastSeq {
		return "", fmt.Errorf("restore: the restored stream ends at sequence %d, the backup's manifest at %d: nothing restored", last, m.LastSeq)
	}
	type head struct {
		tree *checkpoint.Tree
		last uint64
	}
	heads := map[string]*head{}
	err = lg.Scan(ctx, m.FirstSeq, m.LastSeq, "", func(msg jetstream.Msg) error {
		h := heads[msg.Tournament]
		if h == nil {
			h = &head{tree: checkpoint.NewTree()}
			heads[msg.Tournament] = h
		}
		h.last = msg.StreamSeq
		for rest := msg.Data; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				return fmt.Errorf("restore: stream sequence %d: a line without newline", msg.StreamSeq)
			}
			if err := h.tree.Append(rest[:i], nil); err != nil {
				return err
			}
			rest = rest[i+1:]
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	for _, t := range m.Tournaments {
		h := heads[t.ID]
		switch {
		case h == nil:
			return "", fmt.Errorf("restore: tournament %s of the backup's manifest is not in the restored log: nothing restored", t.ID)
		case h.tree.Size() != t.Events || h.last != t.LastStreamSeq:
			return "", fmt.Errorf("restore: tournament %s: the restored log holds %d events up to stream sequence %d, the manifest %d up to %d: nothing restored",
				t.ID, h.tree.Size(), h.last, t.Events, t.LastStreamSeq)
		case !bytes.Equal(h.tree.Root(), t.Root):
			return "", fmt.Errorf("restore: tournament %s: the Merkle root of the %d restored events is %s, the server's projections recorded %s: nothing restored",
				t.ID, t.Events, base64.StdEncoding.EncodeToString(h.tree.Root()), base64.StdEncoding.EncodeToString(t.Root))
		}
		delete(heads, t.ID)
	}
	if len(heads) > 0 {
		extra := slices.Sorted(maps.Keys(heads))
		return "", fmt.Errorf("restore: the restored log holds tournament %s, which the backup's manifest does not list: nothing restored", extra[0])
	}
	return fmt.Sprintf("checked against the backup's manifest: stream sequences %d..%d; the Merkle roots of %s",
		m.FirstSeq, m.LastSeq, describeTournaments(m.Tournaments)), nil
}

func describeTournaments(ts []api.BackupTournament) string {
	var events uint64
	for _, t := range ts {
		events += t.Events
	}
	switch len(ts) {
	case 0:
		return "no tournament"
	case 1:
		return fmt.Sprintf("1 tournament (%s, %d events)", ts[0].ID, events)
	}
	return fmt.Sprintf("%d tournaments (%d events)", len(ts), events)
}

func describeKeys(keys []api.BackupFile) string {
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		names = append(names, k.Name)
	}
	slices.Sort(names)
	return "the keys (" + strings.Join(names, ", ") + ")"
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
