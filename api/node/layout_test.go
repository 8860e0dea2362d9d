package node_test

import (
	"path/filepath"
	"testing"

	"github.com/referto/referto/api/node"
)

// TestLayoutIsTheDocumentedOne: the paths of a data directory are the ones
// docs/design.md and docs/operations.md name; a change here moves existing
// data out of reach.
func TestLayoutIsTheDocumentedOne(t *testing.T) {
	l := node.Layout{Dir: "/d"}
	for _, tc := range []struct{ got, want string }{
		{l.NATS(), "/d/nats"},
		{l.Projections(), "/d/projections"},
		{l.Keys(), "/d/keys"},
		{l.CheckpointKey(), "/d/keys/checkpoint.key"},
		{l.CheckpointPub(), "/d/keys/checkpoint.pub"},
		{l.AdminToken(), "/d/keys/admin-token.sha256"},
		{l.ServeInfo(), "/d/serve.json"},
	} {
		if tc.got != filepath.FromSlash(tc.want) {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}
