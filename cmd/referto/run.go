package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// errUsage marks a command line that could not be understood; the message
// has already been printed with the usage.
var errUsage = errors.New("usage")

// command is a subcommand: its name, what it does in a line of the usage,
// and run, given the arguments after its name. Every subcommand is listed
// once, in subcommands, in the order the usage shows them.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error
}

var subcommands = []command{
	{"serve", "run the HTTP API (embedded NATS JetStream + Pebble by default)", serve},
	{"hub", "run a national hub: venues connect as NATS leaf nodes, their tournaments are verified, cosigned and served", hubCmd},
	{"demo", "simulate a whole Raduno through the real stack and print the classification", demoCmd},
	{"export", "write a tournament's log (NDJSON, byte for byte) and its signed checkpoint, or (--workbook) its club workbook", export},
	{"import", "record a club workbook (.xlsx) in the ledger as ordinary commands, or its entry list alone", importCmd},
	{"check", "check a club workbook as the national ranking's tool does: every problem, sheet and cell", checkCmd},
	{"verify", "check an exported log without trusting its server (--season: a directory of them; --proof: a proof file)", verify},
	{"proof", "write the offline proof of a player's row in an export's published classification", proofCmd},
	{"replay", "the tournament at any event, the difference between two, what-if corrections", replayCmd},
	{"generate", "write a synthetic tournament of N events into a data directory, or a season of exports (--season)", generate},
	{"backup", "write a consistent backup (JetStream snapshot, keys, manifest), while serve runs or not", backupCmd},
	{"restore", "bring a backup back into a new data directory, checked against its manifest", restoreCmd},
	{"repair", "bring a damaged log back from the hub's copy or a backup, every acknowledged command checked", repairCmd},
	{"bench", "measure ingest, rebuild, verify and reads against raw JetStream, Pebble and SHA-256", benchCmd},
	{"help", "show this text", nil}, // run prints the usage
}

// usage is the program's help: every command of subcommands, with its summary.
func usage() string {
	var b strings.Builder
	b.WriteString("referto: an event-sourced ledger for official RisiKo! tournaments\n\nusage: referto <command> [flags]\n\ncommands:\n")
	for _, c := range subcommands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'referto <command> --help' for a command's flags.\n")
	return b.String()
}

// run is the whole program, given its arguments, environment lookup and
// output streams, so that tests can drive it end to end.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return errUsage
	}
	name := args[0]
	if name == "-h" || name == "--help" {
		name = "help"
	}
	for _, c := range subcommands {
		switch {
		case c.name != name:
		case c.run == nil:
			fmt.Fprint(stdout, usage())
			return nil
		default:
			return c.run(ctx, args[1:], getenv, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage())
	return errUsage
}
