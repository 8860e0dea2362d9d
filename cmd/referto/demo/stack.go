package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node"
)

// Stack is the real stack a demo plays through: a node on a data directory
// (embedded NATS JetStream, Pebble) and its HTTP API on a listener, with
// an administrator's token made for the occasion.
type Stack struct {
	// Admin is a client of the API with the administrator's token, what
	// Play is given.
	Admin *client.Client
	// URL is where the API answers.
	URL string

	node *node.Node
	srv  *http.Server
}

// Serve starts a node on data and, once its projections are ready, serves
// its API on ln until Close. ln is closed on an error.
func Serve(ctx context.Context, data string, ln net.Listener) (*Stack, error) {
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		ln.Close()
		return nil, err
	}
	admin := hex.EncodeToString(tok)
	n, a, err := api.Start(ctx, node.NodeOptions{Data: data, Logger: slog.New(slog.DiscardHandler)}, api.Options{AdminTokenSHA256: api.TokenHash(admin)})
	if err == nil {
		if err = n.Runner.WaitReady(ctx); err != nil {
			n.Close()
		}
	}
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Stack{node: n, srv: api.HTTPServer(a.Handler()), URL: "http://" + ln.Addr().String()}
	go func() { _ = s.srv.Serve(ln) }()
	s.Admin = &client.Client{Base: s.URL, Token: admin, RetryUnavailable: 20,
		HTTP: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	return s, nil
}

// Close stops serving, letting requests finish for up to 3 s, and closes
// the node.
func (s *Stack) Close() {
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(sctx)
	s.node.Close()
}
