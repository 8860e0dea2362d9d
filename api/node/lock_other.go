//go:build !unix

package node

import "os"

// flock takes no lock off Unix: two servers on one directory are not
// detected there (nats-server's own store lock still refuses the second).
func flock(*os.File) error { return nil }

// syncData puts f on disk.
func syncData(f *os.File) error { return f.Sync() }
