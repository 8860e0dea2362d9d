package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"

	"github.com/referto/referto/commands/workbook"
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

// WorkbookUpload is what the server recorded of a club workbook uploaded
// into a tournament: how many commands and players, the last event's seq,
// the national tool's warnings and the rows of the file's standings the
// ruleset disagrees on.
type WorkbookUpload struct {
	Tournament string             `json:"tournament"`
	SHA256     string             `json:"sha256"`
	Commands   int                `json:"commands"`
	Players    int                `json:"players"`
	Seq        uint64             `json:"seq"`
	Warnings   []workbook.Problem `json:"warnings"`
}

// UploadWorkbook uploads a club workbook named name into tournament t
// (an arbiter's token): its entry list alone (scope entry_list) or the
// whole tournament (scope tournament). The server plans it against the
// tournament as it stands and records nothing while anything is refused.
func (c *Client) UploadWorkbook(ctx context.Context, t, scope, name string, data []byte) (WorkbookUpload, error) {
	var out WorkbookUpload
	q := url.Values{"scope": {scope}, "file_name": {name}}
	_, err := c.do(ctx, request{method: http.MethodPost, path: tpath(t, "/workbook?"+q.Encode()), body: data,
		header: http.Header{"Content-Type": {workbook.MediaType}}}, &out)
	return out, err
}
