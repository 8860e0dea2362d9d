package eventlog

import (
	"fmt"
	"net/url"
)

func parseRoute(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("jetstream: bad route %q", s)
	}
	return u, nil
}
