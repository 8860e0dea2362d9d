package eventlog

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// leafOptions sets the leaf node listener (a hub) and remote (a venue) of
// o on the server's options.
func leafOptions(o ServerOptions, opts *server.Options) error {
	if l := o.LeafListen; l != nil {
		opts.LeafNode.Host, opts.LeafNode.Port = l.Host, l.Port
		if l.Venues != nil {
			// With no credentials of the leaf node block, nats-server
			// authenticates leaf nodes as it does clients: here, by
			// venueAuth alone.
			opts.CustomClientAuthentication = venueAuth{check: l.Venues, hub: o.Domain}
		}
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

// venueAuth admits, at a hub, the leaf node of a venue that presents its
// credentials, with the permissions of VenuePermissions. It is asked about
// every connection but routes: the hub's own, in process (the server
// listens for no other client), are taken as they are.
type venueAuth struct {
	check func(venue, password string) bool
	hub   string // the hub's JetStream domain
}

func (a venueAuth) Check(c server.ClientAuthentication) bool {
	if c.Kind() != server.LEAF {
		return c.Kind() == server.CLIENT
	}
	o := c.GetOpts()
	if !ValidVenue(o.Username, a.hub) || !a.check(o.Username, o.Password) {
		return false
	}
	c.RegisterUser(&server.User{Username: o.Username, Permissions: VenuePermissions(o.Username, a.hub)})
	return true
}

// ValidVenue reports whether name can name a venue of the hub whose
// JetStream domain is hub: a domain of its own (no dots, spaces or
// wildcards).
func ValidVenue(name, hub string) bool {
	return name != "" && !strings.ContainsAny(name, ". *>$") && name != hub
}

// VenueRequestPrefix is the subject prefix of what a hub asks one venue
// (VenueRequestPrefix + venue + "." + what): only that venue's link
// receives it.
const VenueRequestPrefix = "referto.venue."

// VenuePermissions are what a venue's leaf link may carry, as a client's
// permissions (nats-server turns them around for a leaf node). Into the
// hub: anything but a JetStream API request (the hub's or another
// domain's: a venue neither reads nor changes the hub's streams), a
// tournament's or the season registry's subject, or a request meant for a
// venue. Out to the venue: its own JetStream domain's API (the hub's
// sources and questions), the flow control and acknowledgements of its
// consumers, replies to its own requests and the hub's requests to it;
// nothing addressed to another venue's domain, so that a leaf node with
// one venue's credentials cannot answer for another.
func VenuePermissions(venue, hub string) *server.Permissions {
	return &server.Permissions{
		Publish: &server.SubjectPermission{Deny: []string{"$JS.API.>", "$JS.*.API.>", "$SYS.>",
			TournamentSubjects, RegistrySubjects, VenueRequestPrefix + ">"}},
		Subscribe: &server.SubjectPermission{Allow: []string{APIPrefix(venue) + ".>", "$JS.FC.>", "$JS.ACK.>", "_INBOX.>",
			VenueRequestPrefix + venue + ".>"}},
	}
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
