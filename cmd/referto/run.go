package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
)

// errUsage marks a command line that could not be understood; the message
// has already been printed with the usage.
var errUsage = errors.New("usage")

const usage = `referto: an event-sourced ledger for official RisiKo! tournaments

usage: referto <command> [flags]

commands:
  serve    run the HTTP API (embedded NATS JetStream + Pebble by default)
  hub      run a national hub: venues connect as NATS leaf nodes, their tournaments are verified, cosigned and served
  demo     simulate a whole Raduno through the real stack and print the classification
  export   write a tournament's log (NDJSON, byte for byte) and its signed checkpoint
  verify   check an exported log without trusting its server (--season: a directory of them; --proof: a proof file)
  proof    write the offline proof of a player's row in an export's published classification
  replay   the tournament at any event, the difference between two, what-if corrections
  generate write a synthetic tournament of N events into a data directory, or a season of exports (--season)
  backup   write a consistent backup (JetStream snapshot, keys, manifest), while serve runs or not
  restore  bring a backup back into a new data directory, checked against its manifest
  bench    measure ingest, rebuild, verify and reads against raw JetStream, Pebble and SHA-256
  help     show this text

Run 'referto <command> --help' for a command's flags.
`

// run is the whole program, given its arguments, environment lookup and
// output streams, so that tests can drive it end to end.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "hub":
		return hubCmd(ctx, args[1:], getenv, stdout, stderr)
	case "demo":
		return demoCmd(ctx, args[1:], stdout, stderr)
	case "export":
		return export(ctx, args[1:], getenv, stdout, stderr)
	case "verify":
		return verify(ctx, args[1:], stdout, stderr)
	case "proof":
		return proofCmd(args[1:], stdout, stderr)
	case "replay":
		return replayCmd(ctx, args[1:], stdout, stderr)
	case "generate":
		return generate(ctx, args[1:], stdout, stderr)
	case "backup":
		return backupCmd(ctx, args[1:], getenv, stdout, stderr)
	case "restore":
		return restoreCmd(ctx, args[1:], stdout, stderr)
	case "bench":
		return benchCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
	return errUsage
}

// parseFlags parses fs and reports -h as a clean exit.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return flag.ErrHelp
	}
	if err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments: %v\n", fs.Args())
		return errUsage
	}
	return nil
}

// flagErr is a subcommand's answer to its flags' error: none for -h.
func flagErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// envOr reads the environment through getenv, with a default for a
// variable unset or empty: what a flag defaults to.
func envOr(getenv func(string) string) func(name, def string) string {
	return func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
}
