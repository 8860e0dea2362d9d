package node

import (
	"encoding/json"
	"net"
	"os"
	"time"

	"github.com/referto/referto/events/atomicfile"
)

// ServeInfo is what a running referto serve says of itself in its data
// directory (Layout.ServeInfo), for the tools that must ask it rather than
// read the directory (referto backup). It is removed at a clean stop.
type ServeInfo struct {
	URL     string    `json:"url"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// Announce records that this process serves the layout's directory at
// addr; the returned func removes the record. A server listening on every
// address is announced on loopback.
func (l Layout) Announce(addr net.Addr) (remove func(), err error) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	b, err := json.Marshal(ServeInfo{URL: "http://" + net.JoinHostPort(host, port), PID: os.Getpid(), Started: time.Now().UTC()})
	if err != nil {
		return nil, err
	}
	path := l.ServeInfo()
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return nil, err
	}
	return func() { _ = os.Remove(path) }, nil
}

// Announced reads what a server serving the layout's directory announced;
// ok is false when nothing (readable) is there. A server killed without a
// clean stop leaves its record behind: nobody may answer at its URL.
func (l Layout) Announced() (si ServeInfo, ok bool) {
	b, err := os.ReadFile(l.ServeInfo())
	if err != nil || json.Unmarshal(b, &si) != nil || si.URL == "" {
		return si, false
	}
	return si, true
}
