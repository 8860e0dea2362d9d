package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/commands/ledger/backup"
)

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
	b, size, from, err := backup.Take(ctx, *out, backup.TakeOptions{Data: *data, URL: *url, Notes: stderr,
		Ask: func(ctx context.Context, base string, w io.Writer) error { return backupURL(ctx, base, *token, w) }})
	if err != nil {
		return err
	}
	src := "directly from " + *data
	if from != "" {
		src = "from the server at " + from
	}
	m := b.Manifest
	fmt.Fprintf(stdout, "backup of stream %s, sequences %d..%d (%d commits), %s, and %s taken %s: %s, %s in %s\n",
		m.Stream, m.FirstSeq, m.LastSeq, m.Msgs, describeTournaments(m.Tournaments), describeKeys(b.Keys), src, *out,
		byteSize(size), time.Since(start).Round(time.Millisecond))
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
	b, err := backup.Restore(ctx, *in, *data)
	if err != nil {
		return err
	}
	m := b.Manifest
	fmt.Fprintf(stdout, "restored stream %s, sequences %d..%d (%d commits), and %s from %s (taken %s) into %s in %s\n",
		m.Stream, m.FirstSeq, m.LastSeq, m.Msgs, describeKeys(b.Keys), *in, m.Created.Format(time.RFC3339), *data, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(stdout, "checked against the backup's manifest: stream sequences %d..%d; the Merkle roots of %s\n",
		m.FirstSeq, m.LastSeq, describeTournaments(m.Tournaments))
	fmt.Fprintln(stdout, "the projections are rebuilt from the log when referto serve first starts on it")
	return nil
}

func describeTournaments(ts []backup.Tournament) string {
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

func describeKeys(keys []backup.KeyFile) string {
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
