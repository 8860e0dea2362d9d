//go:build !unix

package main

// ownerOnly leaves the permissions of what the process creates to the
// system: it has no umask.
func ownerOnly() {}
