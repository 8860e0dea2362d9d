package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// The command line's helpers, in one place: every subcommand makes its
// flags with newFlags, parses them with parseFlags, answers a command line
// it cannot use with usagef and a configuration it refuses with invalid.

// newFlags is a subcommand's flag set, whose errors and help go to stderr;
// its help begins with the subcommand's sentence (sentences).
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: referto %s [flags]\n\n%s\n\nflags:\n", name, sentences[name])
		fs.PrintDefaults()
	}
	return fs
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

// invalid prints a configuration's problems, all of them, as one answer
// to the command line; nil when there are none.
func invalid(stderr io.Writer, err error) error {
	if err != nil {
		fmt.Fprintf(stderr, "invalid configuration:\n%v\n", err)
	}
	return err
}

// usagef says what is wrong with a command line, on a line of its own:
// errUsage.
func usagef(stderr io.Writer, format string, args ...any) error {
	fmt.Fprintf(stderr, format+"\n", args...)
	return errUsage
}
