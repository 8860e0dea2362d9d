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
	"github.com/referto/referto/api/node"
)

// Serve starts a node on data with the given administrator token, waits
// until its projections are ready and serves its API on 127.0.0.1 until the
// test ends; the node is closed then.
func Serve(t testing.TB, data, adminToken string) (*node.Node, *httptest.Server) {
	t.Helper()
	return ServeWith(t, data, adminToken, api.Options{})
}

// ServeWith is Serve with the API's options o, for a test that sets one
// (a venue's Cosigned, say); the administrator's token is adminToken.
func ServeWith(t testing.TB, data, adminToken string, o api.Options) (*node.Node, *httptest.Server) {
	t.Helper()
	o.AdminTokenSHA256 = api.TokenHash(adminToken)
	n, a, err := api.Start(context.Background(), node.NodeOptions{Data: data, Logger: slog.New(slog.DiscardHandler)}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	if err := n.Runner.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	// A browser left on a live page holds its stream open: cut it, or
	// Close would wait for the stream to end.
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return n, srv
}
