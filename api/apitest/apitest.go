// Package apitest serves a whole referto node (embedded NATS, Pebble, the
// runner, the API and the web UI) on a loopback test server, for tests
// outside package api.
package apitest

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/referto/referto/api"
)

// Serve starts a node on data with the given administrator token, waits
// until its projections are ready and serves it on 127.0.0.1 until the test
// ends; the node is closed then.
func Serve(t testing.TB, data, adminToken string) (*api.Node, *httptest.Server) {
	t.Helper()
	node, err := api.StartNode(context.Background(), api.NodeOptions{Data: data, AdminTokenSHA256: api.TokenHash(adminToken), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	if err := node.Runner.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(node.API.Handler())
	t.Cleanup(srv.Close)
	return node, srv
}
