package jetstream

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// leafOptions sets the leaf node listener (a hub) and remote (a venue) of
// o on the server's options.
func leafOptions(o ServerOptions, opts *server.Options) error {
	if l := o.LeafListen; l != nil {
		opts.LeafNode.Host, opts.LeafNode.Port = l.Host, l.Port
		opts.LeafNode.Username, opts.LeafNode.Password = l.Username, l.Password
		// A venue's interest stays between it and the hub: it never
		// reaches the other venues through the hub (what one venue's
		// stream listens on is none of another's business).
		opts.LeafNode.IsolateLeafnodeInterest = true
		if l.TLSCert != "" || l.TLSKey != "" {
			cfg, err := tlsConfig(l.TLSCA, l.TLSCert, l.TLSKey, true)
			if err != nil {
				return err
			}
			opts.LeafNode.TLSConfig = cfg
			opts.LeafNode.TLSTimeout = 5
		}
	}
	if r := o.LeafRemote; r != nil {
		u, err := url.Parse(r.URL)
		if err != nil {
			return fmt.Errorf("jetstream: hub URL: %w", err)
		}
		remote := &server.RemoteLeafOpts{
			URLs:        []*url.URL{u},
			Credentials: r.Credentials,
			// The venue's tournament subjects never cross the link: the
			// hub receives them only through its source consumers, on
			// their own delivery subjects. Nor does the hub's season
			// registry's: it is the hub's own log.
			DenyImports: []string{TournamentSubjects, RegistrySubjects},
			DenyExports: []string{TournamentSubjects, RegistrySubjects},
		}
		if r.TLSCA != "" || r.TLSCert != "" || u.Scheme == "tls" {
			cfg, err := tlsConfig(r.TLSCA, r.TLSCert, r.TLSKey, false)
			if err != nil {
				return err
			}
			remote.TLS, remote.TLSConfig, remote.TLSTimeout = true, cfg, 5
		}
		opts.LeafNode.Remotes = []*server.RemoteLeafOpts{remote}
		// Reconnect soon after the link returns; the server keeps trying
		// for as long as it runs.
		opts.LeafNode.ReconnectInterval = time.Second
	}
	return nil
}

// tlsConfig reads certificate files: a server's (cert and key, with ca the
// CA its clients' certificates must chain to) or a client's (ca the CA the
// server's must chain to; cert and key its own, optional).
func tlsConfig(ca, cert, key string, isServer bool) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if cert != "" || key != "" {
		if cert == "" || key == "" {
			return nil, errors.New("jetstream: TLS needs both a certificate and its key")
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("jetstream: TLS certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("jetstream: TLS CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("jetstream: TLS CA %s: no certificate", ca)
		}
		if isServer {
			cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
		} else {
			cfg.RootCAs = pool
		}
	}
	return cfg, nil
}
