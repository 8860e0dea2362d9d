package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
)

// CreateTournamentJSON creates a tournament from a payload as it is (a
// commands.CreateTournament encoded), under the idempotency key when not
// empty.
func (c *Client) CreateTournamentJSON(ctx context.Context, key string, payload json.RawMessage) (Outcome, error) {
	return c.command(ctx, "/v1/tournaments", key, payload)
}

// MaxWorkbook is the largest club workbook Workbook accepts, in bytes.
const MaxWorkbook = 16 << 20

// Workbook downloads tournament t as a club workbook (an official's
// token): the file's name as the server gives it, and its bytes.
func (c *Client) Workbook(ctx context.Context, t string) (string, []byte, error) {
	res, err := c.open(ctx, request{method: http.MethodGet, path: tpath(t, "/workbook")})
	if err != nil {
		return "", nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxWorkbook+1))
	if err != nil {
		return "", nil, fmt.Errorf("the transfer failed: %w", err)
	}
	if len(data) > MaxWorkbook {
		return "", nil, fmt.Errorf("the workbook is more than %d bytes", MaxWorkbook)
	}
	name := t + ".xlsx"
	if _, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition")); err == nil && params["filename"] != "" {
		name = path.Base(params["filename"])
	}
	return name, data, nil
}
