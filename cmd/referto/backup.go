package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node/backup"
)

func backupCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("backup", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: referto backup --data DIR --out FILE [--url URL] [--token T]

Write a consistent backup of a referto data directory to FILE (a tar, mode 0600: it holds the
signing key): a JetStream snapshot of the log as it stood at one instant, the keys, and a
manifest with every tournament's Merkle root; of a national hub's, its season registry's stream
too, with the head of the registry's log, and its club workbooks (DIR/workbooks). While referto serve runs on DIR (DIR/serve.json
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
		return usagef(stderr, "backup needs --out and --data (or --url)")
	}
	start := time.Now()
	b, size, from, err := backup.Take(ctx, *out, backup.TakeOptions{Data: *data, URL: *url, Notes: stderr,
		Ask: func(ctx context.Context, base string, w io.Writer) error { return backupURL(ctx, base, *token, w) }})
	if err != nil {
		return err
	}
	b.PrintTaken(stdout, *out, size, from, *data, time.Since(start))
	return nil
}

// backupURL asks a running server for its backup.
func backupURL(ctx context.Context, base, token string, w io.Writer) error {
	err := (&client.Client{Base: base, Token: token, HTTP: client.BackupHTTP()}).Backup(ctx, w)
	var p *client.Problem
	if errors.As(err, &p) && p.Status == 401 && token == "" {
		return fmt.Errorf("backup: the server at %s runs on this directory: ask it with the administrator's token (--token or REFERTO_ADMIN_TOKEN)", base)
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

func restoreCmd(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("restore", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: referto restore --in FILE --data NEWDIR

Bring a backup made by referto backup back into NEWDIR, which must be new or empty: the log (and
a hub's season registry) is restored through JetStream with every stream sequence as it was, and
the keys with their modes (and a hub's club workbooks). The restored log is then checked against the backup's manifest (last
sequence, and every tournament's Merkle root, rebuilt from the restored lines), and so is the
registry (its log folded again); on any mismatch, or a damaged file, nothing is left behind. The
projections are rebuilt from the log when referto serve (or hub) first starts.

`)
		fs.PrintDefaults()
	}
	in := fs.String("in", "", "the backup file (required)")
	data := fs.String("data", "", "the data directory to create (required; must not exist or be empty)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *in == "" || *data == "" {
		return usagef(stderr, "restore needs --in and --data")
	}
	start := time.Now()
	removed, err := backup.RemoveStaging(*data)
	for _, dir := range removed {
		fmt.Fprintf(stdout, "removed %s, left by a restore that did not finish (it held a copy of the keys)\n", dir)
	}
	if err != nil {
		return err
	}
	b, err := backup.Restore(ctx, *in, *data)
	if err != nil {
		return err
	}
	b.PrintRestored(stdout, *in, *data, time.Since(start))
	return nil
}
