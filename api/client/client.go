package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/referto/referto/api/problem"
)

// Client sends requests to one referto server. Its zero value but Base is
// ready to use; it is safe for concurrent use.
type Client struct {
	// Base is the server's base URL, such as http://127.0.0.1:8080.
	Base string
	// Token is the bearer token sent with every request (an official's or
	// the administrator's); empty sends none.
	Token string
	// HTTP sends the requests; nil is http.DefaultClient.
	HTTP *http.Client
	// RetryUnavailable is how many times a request answered 503 (the
	// projections catching up) is sent again, 50 ms apart; the default, 0,
	// answers the 503 as a *Problem.
	RetryUnavailable int
}

// As returns a copy of c that sends token instead.
func (c *Client) As(token string) *Client {
	d := *c
	d.Token = token
	return &d
}

// Problem is an error answer: the problem+json document the API sends
// (package problem), or, for an answer that is not one, its status and
// body as Detail.
type Problem = problem.Problem

// FieldProblem is one problem of a refused request.
type FieldProblem = problem.Field

// request is one call: its method, path, headers and JSON body.
type request struct {
	method, path string
	header       http.Header
	body         any // marshalled as JSON; []byte and json.RawMessage are sent as they are
}

// Send sends a request as it is (the client's token added unless the
// header has an Authorization) and returns the answer whatever its status:
// for what no method covers. The caller closes the body.
func (c *Client) Send(ctx context.Context, method, path string, body io.Reader, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.Base, "/")+path, body)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if c.Token != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return c.httpClient().Do(req)
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

// open sends r, retrying a 503 as configured, and returns a 2xx answer
// with its body unread; any other status is a *Problem.
func (c *Client) open(ctx context.Context, r request) (*http.Response, error) {
	var data []byte
	if r.body != nil {
		var err error
		switch b := r.body.(type) {
		case []byte:
			data = b
		case json.RawMessage:
			data = b
		default:
			if data, err = json.Marshal(b); err != nil {
				return nil, err
			}
		}
		if r.header == nil {
			r.header = http.Header{}
		}
		if r.header.Get("Content-Type") == "" {
			r.header.Set("Content-Type", "application/json")
		}
	}
	for attempt := 0; ; attempt++ {
		var body io.Reader
		if data != nil {
			body = bytes.NewReader(data)
		}
		res, err := c.Send(ctx, r.method, r.path, body, r.header)
		if err != nil {
			return nil, err
		}
		if res.StatusCode/100 == 2 {
			return res, nil
		}
		perr := problemOf(res)
		if res.StatusCode != http.StatusServiceUnavailable || attempt >= c.RetryUnavailable {
			return nil, perr
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// do sends r and decodes the JSON answer into out, or reads it through
// when out is nil; it returns the answer's header.
func (c *Client) do(ctx context.Context, r request, out any) (http.Header, error) {
	res, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if out == nil {
		// Read through, for the connection's reuse, without keeping it.
		_, err := io.Copy(io.Discard, res.Body)
		return res.Header, err
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	return res.Header, nil
}

// problemOf reads an error answer and closes its body.
func problemOf(res *http.Response) *Problem {
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	p := &Problem{}
	if !strings.Contains(res.Header.Get("Content-Type"), "json") || json.Unmarshal(b, p) != nil {
		p = &Problem{Detail: string(bytes.TrimSpace(b))}
	}
	p.Status = res.StatusCode
	return p
}
