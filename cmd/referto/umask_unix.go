//go:build unix

package main

import "golang.org/x/sys/unix"

// ownerOnly makes every file and directory the process creates its
// owner's alone (umask 077): a data directory holds the signing key, the
// log and the players' links, which nobody else on the machine reads,
// whoever creates them (nats-server and Pebble create theirs group- or
// world-readable).
func ownerOnly() { unix.Umask(0o077) }
