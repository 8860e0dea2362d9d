package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// errUsage marks a command line that could not be understood; the message
// has already been printed with the usage.
var errUsage = errors.New("usage")

// command is a subcommand: its name, what it does in a line of the usage,
// and run, given the arguments after its name. Every subcommand is listed
// once, in subcommands, in the order the usage shows them; its --help
// begins with its sentence in sentences.
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
	{"version", "print referto's version", versionCmd},
	{"help", "show this text", nil}, // run prints the usage
}

// sentences say, at the head of each subcommand's --help, what it does.
var sentences = map[string]string{
	"serve":    "Run a venue's ledger: the HTTP API and the web UI over the log (embedded NATS JetStream, or --nats) and its Pebble projections.",
	"hub":      "Run a national hub: venues' servers connect as NATS leaf nodes, and the hub verifies, cosigns and serves their tournaments and keeps the season registry.",
	"demo":     "Play a whole Raduno (rur-2015) through the real stack, print its classification and check it against a fold of the log.",
	"export":   "Write a tournament's log as NDJSON, byte for byte as stored, and its signed checkpoint, from a running server (--url) or a stopped one's data directory (--data); or (--workbook) the tournament as the clubs' workbook.",
	"import":   "Record a club's tournament workbook (.xlsx) in the ledger as the ordinary commands it stands for, or its entry list alone, checked first as the national tool checks it.",
	"check":    "Check a club's tournament workbook as the national ranking's tool does, naming every problem by its sheet and cell.",
	"verify":   "Check an exported log, a season of exports or a proof file without trusting the server that wrote it; exit 1 and the first offending line on failure.",
	"proof":    "Write the offline proof of one player's row in the published classification of an exported log.",
	"replay":   "Show a tournament as it stood at any event, what changed between two events, or what a correction would change.",
	"generate": "Write a synthetic tournament into a data directory, or a season of exports, for benchmarks and audits.",
	"backup":   "Write a consistent backup of a data directory, asking the server that runs on it if there is one.",
	"restore":  "Bring a backup back into a new, empty data directory, checked against its manifest before anything is created.",
	"repair":   "Bring back a venue's damaged log from the national hub's copy or a backup, every acknowledged command checked before anything is replaced.",
	"version":  "Print referto's version: the module's, the commit it was built from, and the Go it was built with.",
}

// usage is the program's help: every command of subcommands, with its summary.
func usage() string {
	var b strings.Builder
	b.WriteString("referto: an event-sourced ledger for official RisiKo! tournaments\n\nusage: referto <command> [flags]\n\ncommands:\n")
	for _, c := range subcommands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'referto <command> --help' for a command's flags, 'referto --version' for the version.\n")
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
	switch name {
	case "-h", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
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

// versionCmd prints the module's version, the commit and time it was built
// from (when the build recorded them) and the Go release.
func versionCmd(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr)
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	fmt.Fprintln(stdout, version())
	return nil
}

// version says which referto this is.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "referto (no build information)"
	}
	v := "referto " + bi.Main.Version
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += " (commit " + rev + " of " + at + dirty + ")"
	}
	return v + ", " + bi.GoVersion
}
