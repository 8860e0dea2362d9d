// Package apitest serves a whole referto node (embedded NATS, Pebble, the
// runner, the ledger, the API and the web UI) on a loopback test server,
// for tests outside package api.
package apitest

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands/ledger"
)

// Serve starts a node on data with the given administrator token, waits
// until its projections are ready and serves its API on 127.0.0.1 until the
// test ends; the node is closed then.
func Serve(t testing.TB, data, adminToken string) (*ledger.Node, *httptest.Server) {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	metrics := api.NewMetrics()
	node, err := ledger.StartNode(context.Background(), ledger.NodeOptions{Data: data, Logger: logger, Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	if err := node.Runner.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, err := api.New(api.Options{Node: node, AdminTokenSHA256: api.TokenHash(adminToken), Logger: logger, Metrics: metrics})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return node, srv
}
