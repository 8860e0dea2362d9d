package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// client speaks the v1 API for the demo, as an outside client would.
type client struct {
	base  string
	token string
	http  *http.Client
}

// apiError is a problem+json answer.
type apiError struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
	Rule   string `json:"rule"`
	Field  string `json:"field"`
}

func (e *apiError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("%d %s (%s): %s", e.Status, e.Code, e.Rule, e.Detail)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Detail)
}

func (c *client) do(ctx context.Context, method, path string, body any, key string, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	var res *http.Response
	for attempt := 0; ; attempt++ {
		res, err = c.http.Do(req)
		if err == nil && res.StatusCode != http.StatusServiceUnavailable || attempt == 20 {
			break
		}
		if err == nil {
			res.Body.Close()
		}
		time.Sleep(50 * time.Millisecond) // projections catching up
		if req.GetBody != nil {
			req.Body, _ = req.GetBody()
		}
	}
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode >= 300 {
		e := &apiError{Status: res.StatusCode}
		if json.Unmarshal(data, e) != nil {
			e.Detail = string(data)
		}
		return e
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// command posts a command to a tournament with an idempotency key.
func (c *client) command(ctx context.Context, t, key string, cmd any) (commandOutcome, error) {
	var out commandOutcome
	err := c.do(ctx, "POST", "/v1/tournaments/"+t+"/commands", cmd, key, &out)
	return out, err
}

type commandOutcome struct {
	Seq    uint64 `json:"seq"`
	Events []struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	} `json:"events"`
}
