package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"math/rand/v2"
	"sync/atomic"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	vderrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/commands/workbook/workbooktest"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// Every request a test of this package sends with stack.do, and the
// response it gets, is checked against the OpenAPI document the server
// serves at /v1/openapi.yaml, by github.com/pb33f/libopenapi-validator,
// when the test ends:
//
//   - every response: its status must be documented for the operation,
//     with its content type, body schema and required headers (problems
//     included: each status has its problem code);
//   - every request the server accepted (2xx): its parameters, headers
//     and body. A refused request may be one the document refuses too
//     (the hostile inputs are), so it is not checked;
//   - NDJSON bodies line by line against Envelope, and text bodies (the
//     signed checkpoint) against their schema, since the validator reads
//     only JSON bodies;
//   - a request to a path or method the document does not serve must have
//     been answered 404 or 405 with the problem the document gives for it.
//
// Routes of the web UI (/, /ui/, /static/) are not in the document.

// openAPIDoc is the document and its validator.
type openAPIDoc struct {
	// mu orders the checks of tests that run in parallel: the validator
	// is not documented as safe for concurrent use.
	mu       sync.Mutex
	raw      []byte
	doc      libopenapi.Document
	model    *v3.Document
	v        validator.Validator
	opts     *config.ValidationOptions
	schemas  schema_validation.SchemaValidator
	envelope *base.Schema
	problems map[int]*base.Schema // 404 and 405: for paths and methods the document does not serve
}

// openAPI is loaded once, from the first stack that records a request.
var openAPI struct {
	once sync.Once
	doc  *openAPIDoc
	err  error
}

func validationOptions() []config.Option {
	return []config.Option{config.WithFormatAssertions(), config.WithContentAssertions()}
}

// loadOpenAPI fetches the document from a running server, once.
func loadOpenAPI(baseURL string) (*openAPIDoc, error) {
	openAPI.once.Do(func() {
		openAPI.doc, openAPI.err = fetchOpenAPI(baseURL)
	})
	return openAPI.doc, openAPI.err
}

func fetchOpenAPI(baseURL string) (*openAPIDoc, error) {
	res, err := http.Get(baseURL + "/v1/openapi.yaml")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	o := &openAPIDoc{}
	if o.raw, err = io.ReadAll(res.Body); err != nil {
		return nil, err
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/yaml" {
		return nil, fmt.Errorf("GET /v1/openapi.yaml: %d, Content-Type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if o.doc, err = libopenapi.NewDocument(o.raw); err != nil {
		return nil, err
	}
	m, err := o.doc.BuildV3Model()
	if err != nil {
		return nil, err
	}
	o.model = &m.Model
	v, errs := validator.NewValidator(o.doc, validationOptions()...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("validator: %v", errs)
	}
	o.v = v
	o.opts = config.NewValidationOptions(validationOptions()...)
	o.schemas = schema_validation.NewSchemaValidator(validationOptions()...)
	env, ok := o.model.Components.Schemas.Get("Envelope")
	if !ok {
		return nil, fmt.Errorf("no Envelope schema")
	}
	o.envelope = env.Schema()
	o.problems = map[int]*base.Schema{}
	for status, name := range map[int]string{404: "NotFound", 405: "MethodNotAllowed"} {
		r, ok := o.model.Components.Responses.Get(name)
		if !ok {
			return nil, fmt.Errorf("no %s response", name)
		}
		mt, ok := r.Content.Get("application/problem+json")
		if !ok {
			return nil, fmt.Errorf("the %s response is not a problem", name)
		}
		o.problems[status] = mt.Schema.Schema()
	}
	return o, nil
}

// exchange is one request a test sent and the response it got.
type exchange struct {
	method, path string // path with the query
	reqHeader    http.Header
	reqBody      []byte // kept when the server accepted the request
	status       int
	header       http.Header
	body         []byte
}

// exchanges collects a stack's exchanges until its test ends.
type exchanges struct {
	mu   sync.Mutex
	list []exchange
	// ops, when set, counts "METHOD /template STATUS" for each exchange
	// validated; commands, when set, collects the statuses each command
	// type got (TestEveryRouteAndCommandMatchesTheOpenAPIDocument).
	ops      map[string]int
	commands map[string][]int
}

// record keeps an exchange, to be validated when the test ends.
func (s *stack) record(req *http.Request, body []byte, r resp) {
	if isUI(req.URL.Path) {
		return
	}
	e := exchange{method: req.Method, path: req.URL.RequestURI(), reqHeader: req.Header.Clone(), status: r.status, header: r.header, body: r.body}
	if r.status/100 == 2 {
		e.reqBody = body
	}
	s.spec.mu.Lock()
	defer s.spec.mu.Unlock()
	if s.spec.list == nil {
		s.spec.list = []exchange{}
		s.t.Cleanup(s.validateExchanges)
		if _, err := loadOpenAPI(s.srv.URL); err != nil {
			s.t.Errorf("openapi: cannot load the document: %v", err)
		}
	}
	s.spec.list = append(s.spec.list, e)
	if s.spec.commands != nil && strings.HasSuffix(req.URL.Path, "/commands") {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(body, &head)
		s.spec.commands[head.Type] = append(s.spec.commands[head.Type], r.status)
	}
}

// isUI reports a path of the web UI, which the document does not describe.
func isUI(path string) bool {
	return path == "/" || strings.HasPrefix(path, "/ui/") || strings.HasPrefix(path, "/static/")
}

// validateExchanges reports every exchange that does not match the
// document: each distinct mismatch once, with the first request that
// showed it.
func (s *stack) validateExchanges() {
	o, err := loadOpenAPI("")
	if err != nil {
		return
	}
	s.spec.mu.Lock()
	list := s.spec.list
	s.spec.list = nil
	s.spec.mu.Unlock()
	count := map[string]int{}
	var order []finding
	for _, e := range list {
		for _, f := range o.check(e, s.spec.ops) {
			if count[f.key] == 0 {
				order = append(order, f)
			}
			count[f.key]++
		}
	}
	for _, f := range order {
		more := ""
		if n := count[f.key]; n > 1 {
			more = fmt.Sprintf(" (and %d more like it)", n-1)
		}
		s.t.Errorf("openapi: %s%s\n\tfirst seen: %s", f.key, more, f.example)
	}
}

// finding is one mismatch: key says what and where (by path template),
// example the request and response that showed it.
type finding struct{ key, example string }

var indexRE = regexp.MustCompile(`\[\d+\]`)

// check validates one exchange; ops, when not nil, counts the operation.
func (o *openAPIDoc) check(e exchange, ops map[string]int) []finding {
	o.mu.Lock()
	defer o.mu.Unlock()
	req := e.request()
	example := fmt.Sprintf("%s %s → %d %s", e.method, e.path, e.status, excerpt(e.body))
	pathItem, _, template := paths.FindPath(req, o.model, o.opts)
	var op *v3.Operation
	if pathItem != nil {
		op = helpers.ExtractOperation(req, pathItem)
	}
	if op == nil {
		// A path or a method the document does not serve: the router's
		// 404 or 405 problem.
		where := fmt.Sprintf("%s %s → %d", e.method, e.path, e.status)
		schema := o.problems[e.status]
		if schema == nil {
			return []finding{{where + ": the document does not serve this path or method", example}}
		}
		if ops != nil {
			ops[fmt.Sprintf("unserved %d", e.status)]++
		}
		var out []finding
		if ct := e.header.Get("Content-Type"); ct != "application/problem+json" {
			out = append(out, finding{where + ": Content-Type " + ct + ", want application/problem+json", example})
		}
		if ok, errs := o.schemas.ValidateSchemaBytes(schema, e.body); !ok {
			out = append(out, findings(where, errs, example)...)
		}
		return out
	}
	where := fmt.Sprintf("%s %s → %d", e.method, template, e.status)
	if ops != nil {
		ops[where]++
	}
	res := &http.Response{StatusCode: e.status, Header: e.header, Body: io.NopCloser(bytes.NewReader(e.body)), Request: req}
	var out []finding
	if ok, errs := o.v.ValidateHttpResponse(req, res); !ok {
		out = append(out, findings(where, errs, example)...)
	}
	if e.status/100 == 2 {
		if ok, errs := o.v.ValidateHttpRequest(e.request()); !ok {
			// A command that matches no branch of Command is reported
			// against the branch its type names, not against every one.
			if branch := o.commandBranch(template, e.reqBody); branch != nil {
				if ok, berrs := o.schemas.ValidateSchemaBytes(branch, e.reqBody); !ok {
					errs = berrs
				}
			}
			out = append(out, findings(where+" (request)", errs, fmt.Sprintf("%s %s %s → %d", e.method, e.path, excerpt(e.reqBody), e.status))...)
		}
	}
	// The validator reads JSON bodies only.
	mediaType, _, _ := helpers.ExtractContentType(e.header.Get("Content-Type"))
	switch {
	case mediaType == "application/x-ndjson":
		// Each line is an Envelope, unless the answer names its own schema.
		line := o.envelope
		if r := op.Responses.Codes.GetOrZero(fmt.Sprint(e.status)); r != nil && r.Content != nil {
			if mt, ok := r.Content.Get(mediaType); ok && mt.Schema != nil {
				line = mt.Schema.Schema()
			}
		}
		sc := bufio.NewScanner(bytes.NewReader(e.body))
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			if ok, errs := o.schemas.ValidateSchemaBytes(line, sc.Bytes()); !ok {
				out = append(out, findings(where+" (NDJSON line)", errs, fmt.Sprintf("line %d of %s %s: %s", n, e.method, e.path, excerpt(sc.Bytes())))...)
			}
		}
	case strings.HasPrefix(mediaType, "text/"):
		if r := op.Responses.Codes.GetOrZero(fmt.Sprint(e.status)); r != nil && r.Content != nil {
			if mt, ok := r.Content.Get(mediaType); ok && mt.Schema != nil {
				text, _ := json.Marshal(string(e.body))
				if ok, errs := o.schemas.ValidateSchemaBytes(mt.Schema.Schema(), text); !ok {
					out = append(out, findings(where+" (text)", errs, example)...)
				}
			}
		}
	}
	return out
}

// commandBranch is the schema of the command a body names by its type, or nil.
func (o *openAPIDoc) commandBranch(template string, body []byte) *base.Schema {
	if template != "/v1/tournaments/{t}/commands" {
		return nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(body, &head) != nil {
		return nil
	}
	if c, ok := o.model.Components.Schemas.Get("Command"); ok {
		if ref, ok := c.Schema().Discriminator.Mapping.Get(head.Type); ok {
			if b, ok := o.model.Components.Schemas.Get(strings.TrimPrefix(ref, "#/components/schemas/")); ok {
				return b.Schema()
			}
		}
	}
	return nil
}

// request rebuilds the exchange's request for the validator.
func (e exchange) request() *http.Request {
	req, _ := http.NewRequest(e.method, "http://referto.test"+e.path, bytes.NewReader(e.reqBody))
	req.Header = e.reqHeader.Clone()
	return req
}

// findings renders the validator's errors, array indices left out so that
// one mismatch in many rows is one finding.
func findings(where string, errs []*vderrors.ValidationError, example string) []finding {
	var out []finding
	for _, err := range errs {
		msg := err.Message
		if err.Reason != "" && err.Reason != err.Message {
			msg += ": " + err.Reason
		}
		if len(err.SchemaValidationErrors) == 0 {
			out = append(out, finding{where + ": " + msg, example})
		}
		for _, f := range err.SchemaValidationErrors {
			at := f.FieldPath
			if at == "" {
				at = "/" + strings.Join(f.InstancePath, "/")
			}
			out = append(out, finding{fmt.Sprintf("%s: %s: %s: %s", where, msg, indexRE.ReplaceAllString(at, "[]"), f.Reason), example})
		}
	}
	return out
}

func excerpt(b []byte) string {
	const max = 400
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// TestOpenAPIDocumentIsValid: the document served at /v1/openapi.yaml is a
// valid OpenAPI 3.1 document, it is the one embedded in the binary, and it
// names every command type the endpoint accepts and every event type the
// log holds.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	s := newStack(t)
	r := s.must(200, "GET", "/v1/openapi.yaml", "", nil)
	if ct := r.header.Get("Content-Type"); ct != "application/yaml" {
		t.Errorf("Content-Type %q, want application/yaml", ct)
	}
	if !bytes.Equal(r.body, api.OpenAPI()) {
		t.Error("the document served is not the one embedded")
	}
	o, err := loadOpenAPI(s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if v := o.doc.GetVersion(); !strings.HasPrefix(v, "3.1.") {
		t.Errorf("OpenAPI version %s, want 3.1.x", v)
	}
	if ok, errs := o.v.ValidateDocument(); !ok {
		for _, f := range findings("the document", errs, "") {
			t.Error(f.key)
		}
	}

	// Every command type is one branch of the command payload, by type.
	cmd, _ := o.model.Components.Schemas.Get("Command")
	var mapped []string
	for typ, ref := range cmd.Schema().Discriminator.Mapping.FromOldest() {
		mapped = append(mapped, typ)
		if ref != "#/components/schemas/"+typ {
			t.Errorf("command %s maps to %s", typ, ref)
		}
	}
	if got, want := sorted(mapped), sorted(commands.Types()); !slices.Equal(got, want) {
		t.Errorf("command types in the document:\n%v\nthe endpoint accepts:\n%v", got, want)
	}
	if n := len(cmd.Schema().OneOf); n != len(commands.Types()) {
		t.Errorf("%d branches of Command, want %d", n, len(commands.Types()))
	}
	// And every command of a hub's season registry, of the registry's.
	rc, _ := o.model.Components.Schemas.Get("RegistryCommand")
	mapped = nil
	for typ := range rc.Schema().Discriminator.Mapping.KeysFromOldest() {
		mapped = append(mapped, typ)
	}
	if got, want := sorted(mapped), sorted(commands.RegistryTypes()); !slices.Equal(got, want) {
		t.Errorf("registry command types in the document:\n%v\nthe registry accepts:\n%v", got, want)
	}
	// Every event type decodes, and every one has its data schema.
	et, _ := o.model.Components.Schemas.Get("EventType")
	for _, n := range et.Schema().Enum {
		if !events.Known(n.Value, 1) {
			t.Errorf("event type %s in the document is not one the log holds", n.Value)
		}
	}
	if got, want := len(o.envelope.AllOf), len(et.Schema().Enum); got != want {
		t.Errorf("Envelope maps %d event types to their data, EventType lists %d", got, want)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestEveryRouteAndCommandMatchesTheOpenAPIDocument plays a tournament
// through every route and every command type, with every refusal the API
// makes, and checks that each request and response matches the document
// (as every test of this package does) and that none of the document's
// operations went unexercised.
func TestEveryRouteAndCommandMatchesTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	var readOnly atomic.Bool
	s := &stack{t: t, dir: t.TempDir(), opts: node.NodeOptions{Disk: func() (ledger.DiskState, error) {
		return ledger.DiskState{Free: 1 << 40, ReadOnly: readOnly.Load()}, nil
	}}}
	s.spec.ops, s.spec.commands = map[string]int{}, map[string][]int{}
	s.start()
	t.Cleanup(s.stop)

	const tour = "spec"
	base := "/v1/tournaments/" + tour
	cmds := base + "/commands"
	s.must(200, "GET", "/healthz", "", nil)
	s.must(200, "HEAD", "/healthz", "", nil)
	s.must(200, "GET", "/readyz", "", nil)
	s.must(200, "HEAD", "/readyz", "", nil)
	s.must(200, "GET", "/metrics", "", nil)
	s.must(200, "HEAD", "/metrics", "", nil)
	s.must(200, "GET", "/v1/openapi.yaml", "", nil)
	s.must(200, "GET", "/v1/keys", "", nil)
	s.must(200, "GET", "/v1/rulesets", "", nil)
	s.must(200, "GET", "/v1/tournaments", "", nil)

	// Creation and appointments, and their refusals.
	s.must(401, "POST", "/v1/tournaments", "", `{"id":"x","name":"X","ruleset":"rtu"}`)
	s.must(400, "POST", "/v1/tournaments", adminToken, `{"id":"X Y","name":"X","ruleset":"rtu","params":{"bonus":-1}}`)
	s.must(413, "POST", "/v1/tournaments", adminToken, `{"id":"x","name":"`+strings.Repeat("x", 1<<20)+`","ruleset":"rtu"}`)
	s.must(422, "POST", "/v1/tournaments", adminToken, `{"id":"x","name":"X","ruleset":"risiko-1970"}`)
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": tour, "name": "Torneo delle specifiche", "ruleset": "rtu",
		"params": map[string]any{"qualifying_rounds": 1, "knockout": "final4", "discards": 0, "objectives": "rtu-16"},
		"season": "2024", "tournament_type": "OPEN"}, "Idempotency-Key", "create-spec")
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": tour, "name": "Torneo delle specifiche", "ruleset": "rtu",
		"params": map[string]any{"qualifying_rounds": 1, "knockout": "final4", "discards": 0, "objectives": "rtu-16"},
		"season": "2024", "tournament_type": "OPEN"}, "Idempotency-Key", "create-spec")
	s.must(409, "POST", "/v1/tournaments", adminToken, `{"id":"spec","name":"Again","ruleset":"rtu"}`)
	s.must(412, "POST", "/v1/tournaments", adminToken, `{"id":"another","name":"Another","ruleset":"rtu"}`, "If-Match", `"7"`)
	arb := s.appoint(tour, "arbiter")
	other := s.create("other", "rtu")
	app := s.appoint(tour, "appeals")
	aud := s.appoint(tour, "auditor")
	s.must(201, "POST", base+"/officials", adminToken, `{"type":"AppointOfficial","name":"Second arbiter","role":"arbiter"}`, "Idempotency-Key", "arb-2")
	s.must(409, "POST", base+"/officials", adminToken, `{"role":"arbiter","name":"Second arbiter","type":"AppointOfficial"}`, "Idempotency-Key", "arb-2")
	s.must(422, "POST", base+"/officials", adminToken, `{"name":"Second arbiter","role":"arbiter"}`, "Idempotency-Key", "arb-2")
	s.must(403, "POST", base+"/officials", arb, `{"name":"X","role":"arbiter"}`)
	s.must(404, "POST", "/v1/tournaments/nowhere/officials", adminToken, `{"name":"X","role":"arbiter"}`)
	for _, tok := range []string{adminToken, arb, app, aud} {
		s.must(200, "GET", "/v1/me", tok, nil)
	}

	// The entry list.
	ok := func(token, body string, headers ...string) resp {
		t.Helper()
		return s.must(201, "POST", cmds, token, body, headers...)
	}
	ok(arb, `{"type":"AmendRuleset","params":{"bonus":40,"closings":["objective","closing_roll","time"]},"reason":"organizer's choice"}`)
	ok(arb, `{"type":"RegisterPlayer","player":"p1","name":"Mario Rossi","club":"Bologna – Asinelli","region":"Emilia-Romagna","rank":12,"national_id":"100001"}`, "Idempotency-Key", "reg-p1")
	ok(arb, `{"type":"RegisterPlayer","player":"p1","name":"Mario Rossi","club":"Bologna – Asinelli","region":"Emilia-Romagna","rank":12,"national_id":"100001"}`, "Idempotency-Key", "reg-p1")
	ok(arb, `{"type":"RegisterPlayer","player":"p2","name":"Luca","minor":true,"waiver":"signed by the club"}`)
	for i := 3; i <= 9; i++ {
		ok(arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Player %d"}`, i, i))
	}
	ok(arb, `{"type":"RefuseRegistration","player":"p9","reason":"entry fee unpaid"}`)
	ok(arb, `{"type":"RefuseRegistration","player":"x1","name":"Applicant","reason":"late"}`)
	ok(arb, `{"type":"DesignateReserve","player":"r1","name":"Riserva Uno"}`)
	sum := s.must(200, "GET", base, "", nil).json(t)
	ok(arb, `{"type":"CloseRegistration"}`, "If-Match", fmt.Sprintf(`"%v"`, sum["seq"]))
	s.must(200, "GET", base+"/players", "", nil)

	// Round 1: check-in, a substitution, a manual draw, turn order,
	// a withdrawal, a sanction and its revocation, reports, an annulment.
	for i := 1; i <= 7; i++ {
		ok(arb, fmt.Sprintf(`{"type":"CheckIn","round":1,"player":"p%d","minutes_late":%d}`, i, i%2*5))
	}
	ok(arb, `{"type":"CheckIn","round":1,"player":"p8","absent":true}`)
	ok(arb, `{"type":"CheckIn","round":1,"player":"r1","minutes_late":0}`)
	ok(arb, `{"type":"SubstituteReserve","round":1,"absent":"p8","reserve":"r1"}`)
	// A draft of the draw first: its events, nothing appended; then its
	// refusals.
	before := s.must(200, "GET", base, "", nil).json(t)["seq"]
	s.must(200, "POST", base+"/draft", arb, `{"type":"DrawTables","round":1}`)
	s.must(200, "POST", base+"/draft", arb, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]},{"table":2,"players":["p5","p6","p7","r1"]}]}`)
	if after := s.must(200, "GET", base, "", nil).json(t)["seq"]; after != before {
		t.Errorf("a draft appended: seq %v, then %v", before, after)
	}
	s.must(400, "POST", base+"/draft", arb, `{"type":"CloseRegistration"}`)
	s.must(401, "POST", base+"/draft", "", `{"type":"DrawTables","round":1}`)
	s.must(403, "POST", base+"/draft", aud, `{"type":"DrawTables","round":1}`)
	s.must(404, "POST", "/v1/tournaments/nowhere/draft", adminToken, `{"type":"DrawTables","round":1}`)
	s.must(422, "POST", base+"/draft", arb, `{"type":"DrawTables","round":3}`)
	ok(arb, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]},{"table":2,"players":["p5","p6","p7","r1"]}]}`)
	s.must(200, "GET", base+"/rounds/1/tables", "", nil)
	ok(arb, `{"type":"SetTurnOrder","round":1,"table":1,"order":["p1","p2","p3","p4"]}`)
	ok(arb, `{"type":"Withdraw","player":"p4","scope":"game","round":1,"table":1,"reason":"voluntary","detail":"felt unwell"}`)
	imposed := ok(arb, `{"type":"ImposeSanction","player":"p3","round":1,"table":1,"kind":"reminder","offence":"rur-2015 art. 33","reason":"advice to p4"}`)
	var sanction struct {
		Events []struct {
			Data struct {
				Sanction string `json:"sanction"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(imposed.body, &sanction); err != nil || len(sanction.Events) == 0 {
		t.Fatalf("sanction: %s", imposed.body)
	}
	ok(app, fmt.Sprintf(`{"type":"RevokeSanction","sanction":%q,"ruling":"the warning was a misunderstanding"}`, sanction.Events[0].Data.Sanction))
	seat := func(p string, turn, points int, status string) string {
		return fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":%q}`, p, turn, points, status)
	}
	ok(arb, `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[`+
		seat("p1", 1, 60, "finished")+","+seat("p2", 2, 50, "finished")+","+seat("p3", 3, 40, "finished")+","+seat("p4", 4, 14, "withdrawn")+`]}`)
	// Table 2 reports itself: the players' personal links, a proposal
	// disputed, another confirmed, recorded by the arbiter in one action.
	s.must(401, "POST", base+"/player-tokens", "", `{}`)
	s.must(403, "POST", base+"/player-tokens", aud, `{}`)
	s.must(400, "POST", base+"/player-tokens", arb, `{"players":["P 5"]}`)
	issued := s.must(201, "POST", base+"/player-tokens", arb, `{"players":["p5","p6","p7","r1"]}`, "Idempotency-Key", "links-t2")
	s.must(201, "POST", base+"/player-tokens", arb, `{"players":["p5","p6","p7","r1"]}`, "Idempotency-Key", "links-t2")
	s.must(200, "GET", base+"/player-tokens", arb, nil)
	s.must(403, "GET", base+"/player-tokens", aud, nil)
	var links struct {
		Tokens []struct{ Player, Token string } `json:"tokens"`
	}
	if err := json.Unmarshal(issued.body, &links); err != nil || len(links.Tokens) != 4 {
		t.Fatalf("links: %s", issued.body)
	}
	link := map[string]string{}
	for _, l := range links.Tokens {
		link[l.Player] = l.Token
	}
	s.must(200, "GET", "/v1/me", link["p5"], nil)
	ok(arb, `{"type":"RevokePlayerToken","player":"r1","reason":"left the phone at home"}`)
	link["r1"] = "" // revoked (TestPlayerLinksActOnlyAtTheirOwnTable: 401 then)
	s.must(201, "POST", base+"/player-tokens", arb, `{"players":["r1"]}`)
	var again struct {
		Tokens []struct{ Player, Token string } `json:"tokens"`
	}
	json.Unmarshal(s.must(200, "GET", base+"/player-tokens", arb, nil).body, &again)
	for _, l := range again.Tokens {
		link[l.Player] = l.Token
	}
	table2 := func(player string, r1 int) string {
		return fmt.Sprintf(`{"type":"ProposeResult","player":%q,"round":1,"table":2,"closed_by":"time","players":[`, player) +
			seat("p5", 1, 50, "finished") + "," + seat("p6", 2, 40, "finished") + "," + seat("p7", 3, 35, "finished") + "," + seat("r1", 4, r1, "finished") + `]}`
	}
	s.must(403, "POST", cmds, link["p5"], table2("p6", 30))
	first := ok(link["p5"], table2("p5", 31))
	firstID := firstData(t, first, "proposal")
	ok(link["r1"], fmt.Sprintf(`{"type":"DisputeProposal","player":"r1","proposal":%q,"reason":"I had 30 table points"}`, firstID))
	s.must(422, "POST", cmds, link["p6"], fmt.Sprintf(`{"type":"ConfirmProposal","player":"p6","proposal":%q}`, firstID))
	proposal := firstData(t, ok(link["r1"], table2("r1", 30)), "proposal")
	s.must(409, "POST", cmds, link["r1"], fmt.Sprintf(`{"type":"ConfirmProposal","player":"r1","proposal":%q}`, proposal))
	for _, p := range []string{"p5", "p6", "p7"} {
		ok(link[p], fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":%q}`, p, proposal))
	}
	s.must(200, "GET", base+"/state", "", nil)
	result2 := ok(arb, fmt.Sprintf(`{"type":"RecordResult","round":1,"table":2,"proposal":%q}`, proposal))
	s.must(200, "GET", base+"/rounds/1/tables", "", nil)
	s.must(200, "GET", base+"/standings", "", nil)
	s.rollTies(tour, arb, rand.New(rand.NewPCG(1, 2)))

	// A contestation of table 2's report, upheld with a correction.
	var recorded struct {
		Seq uint64 `json:"seq"`
	}
	if err := json.Unmarshal(result2.body, &recorded); err != nil {
		t.Fatal(err)
	}
	filed := ok(app, fmt.Sprintf(`{"type":"FileContestation","against":%d,"claim":"r1 finished with 33 table points","by":"r1"}`, recorded.Seq))
	var contestation struct {
		Events []struct {
			Data struct {
				Contestation string `json:"contestation"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(filed.body, &contestation); err != nil || len(contestation.Events) == 0 {
		t.Fatalf("contestation: %s", filed.body)
	}
	ok(app, fmt.Sprintf(`{"type":"RuleContestation","contestation":%q,"upheld":true,"ruling":"the slip says 33","corrections":[`+
		`{"type":"RecordResult","round":1,"table":2,"closed_by":"time","players":[`+
		seat("p5", 1, 50, "finished")+","+seat("p6", 2, 40, "finished")+","+seat("p7", 3, 35, "finished")+","+seat("r1", 4, 33, "finished")+`]}]}`,
		contestation.Events[0].Data.Contestation))
	s.rollTies(tour, arb, rand.New(rand.NewPCG(3, 4)))

	// An annulled game; then the final: a renunciation, the repechage it
	// did, the draw, the report.
	s.must(200, "GET", base+"/state", "", nil)
	ok(arb, `{"type":"AnnulGame","round":1,"table":1,"culprit":"p4","reason":"the board was knocked over"}`)
	s.must(200, "GET", base+"/state", "", nil)
	ok(arb, `{"type":"Renounce","player":"p1","phase":"final","reason":"has a train to catch"}`)
	s.must(422, "POST", cmds, arb, `{"type":"Repechage","phase":"final","replaces":"p1"}`) // done by the renunciation
	drawn := ok(arb, `{"type":"DrawTables","round":2,"seed":"final"}`)
	s.must(200, "GET", base+"/rounds/2/tables", "", nil)
	var final struct {
		Events []struct {
			Data struct {
				Tables []struct {
					Players []string `json:"players"`
				} `json:"tables"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(drawn.body, &final); err != nil || len(final.Events) == 0 || len(final.Events[0].Data.Tables) != 1 {
		t.Fatalf("final: %s", drawn.body)
	}
	var lines []string
	for i, p := range final.Events[0].Data.Tables[0].Players {
		lines = append(lines, seat(p, i+1, 50-10*i, "finished"))
	}
	ok(arb, `{"type":"RecordResult","round":2,"table":1,"closed_by":"closing_roll","players":[`+strings.Join(lines, ",")+`]}`)
	s.rollTies(tour, arb, rand.New(rand.NewPCG(5, 6)))
	s.must(422, "POST", cmds, arb, `{"type":"AnnulGame","round":2,"table":1,"reason":"rtu annuls nothing: the game goes on"}`)
	s.must(200, "GET", base+"/classification", "", nil)
	ok(arb, `{"type":"PublishClassification","final":true}`)
	s.must(200, "GET", base+"/classification", "", nil)
	s.must(200, "GET", base+"/classification/rows/p5/proof", "", nil)
	s.must(404, "GET", base+"/classification/rows/nobody/proof", "", nil)
	ok(arb, `{"type":"CloseTournament","reason":"done"}`)
	s.must(422, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"late","name":"Late"}`)

	// Every read, now and in the past.
	size := int(s.must(200, "GET", base, "", nil).json(t)["seq"].(float64))
	for _, path := range []string{"/players", "/rounds/1/tables", "/standings", fmt.Sprintf("/standings?at=%d", size/2),
		"/classification", "/state", fmt.Sprintf("/state?at=%d", size/2), "/checkpoint", "/checkpoint?size=3",
		"/events/1/proof", fmt.Sprintf("/events/%d/proof?size=%d", size/2, size-1), "/consistency?from=2&to=" + fmt.Sprint(size)} {
		s.must(200, "GET", base+path, "", nil)
	}
	s.must(200, "GET", base+"/stream?max_seconds=1", "", nil)
	s.must(400, "GET", base+"/stream?max_seconds=0", "", nil)
	s.must(404, "GET", "/v1/tournaments/nowhere/stream", "", nil)
	s.must(404, "GET", "/v1/tournaments/nowhere/classification/rows/p5/proof", "", nil)
	s.must(200, "GET", base+"/players/p1/proof", "", nil)
	s.must(200, "GET", "/v1/seasons/2024/ranking", "", nil)
	s.must(200, "GET", "/v1/seasons/2024/players/100001", "", nil)
	s.must(200, "GET", base+"/events?from=3&limit=5", aud, nil)
	s.must(200, "GET", base+"/events?limit=1000", aud, nil)
	s.must(200, "GET", base+"/events", app, nil, "Accept", "application/x-ndjson")
	if offs := s.must(200, "GET", base+"/officials", aud, nil).json(t)["officials"].([]any); len(offs) < 2 {
		t.Errorf("the officials listed: %v", offs)
	}
	s.must(200, "GET", base+"/export", aud, nil)
	s.must(200, "GET", "/v1/admin/backup", adminToken, nil)
	s.must(403, "GET", "/v1/admin/backup", aud, nil)

	// Every refusal a read makes.
	for _, c := range []struct {
		status       int
		method, path string
		token, body  string
		headers      []string
	}{
		{400, "GET", base + "/standings?at=x", "", "", nil},
		{400, "GET", base + "/state?at=99999", "", "", nil},
		{400, "GET", base + "/rounds/0/tables", "", "", nil},
		{400, "GET", base + "/checkpoint?size=99999", "", "", nil},
		{400, "GET", base + "/events/0/proof", "", "", nil},
		{400, "GET", base + "/consistency?from=5&to=2", "", "", nil},
		{400, "GET", base + "/events?from=-1", aud, "", nil},
		{401, "GET", base + "/events", "", "", nil},
		{401, "GET", base + "/export", "", "", nil},
		{401, "GET", "/v1/me", "", "", nil},
		{403, "GET", base + "/events", other, "", nil},
		{401, "GET", base + "/officials", "", "", nil},
		{403, "GET", base + "/officials", other, "", nil},
		{404, "GET", "/v1/tournaments/nowhere/officials", adminToken, "", nil},
		{403, "GET", base + "/export", other, "", nil},
		{403, "POST", cmds, aud, `{"type":"CloseRegistration"}`, nil},
		{403, "POST", cmds, aud, `{"type":"RuleContestation","contestation":"c1","upheld":false,"ruling":"no"}`, nil},
		{404, "GET", "/v1/tournaments/nowhere", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/players", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/standings", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/classification", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/state", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/checkpoint", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/events/1/proof", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/consistency", "", "", nil},
		{404, "GET", "/v1/tournaments/nowhere/events", adminToken, "", nil},
		{404, "GET", "/v1/tournaments/nowhere/export", adminToken, "", nil},
		{404, "GET", base + "/rounds/9/tables", "", "", nil},
		{404, "GET", base + "/players/nobody/proof", "", "", nil},
		{404, "GET", "/v1/seasons/1999/ranking", "", "", nil},
		{404, "GET", "/v1/seasons/2024/players/999999", "", "", nil},
		{400, "GET", "/v1/seasons/NOT%20A%20SEASON/ranking", "", "", nil},
		{400, "GET", "/v1/seasons/NOT%20A%20SEASON/players/1", "", "", nil},
		{404, "POST", "/v1/tournaments/nowhere/commands", adminToken, `{"type":"CloseRegistration"}`, nil},
		{404, "GET", "/v1/nothing", "", "", nil},
		{405, "DELETE", base, adminToken, "", nil},
		{405, "PUT", "/v1/tournaments", adminToken, "{}", nil},
		{400, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"P 1","nome":"Mario"}`, nil},
		{400, "POST", cmds, arb, `{"type":"CloseTournament"}`, []string{"If-Match", `"abc"`}},
		{409, "POST", cmds, app, fmt.Sprintf(`{"type":"RuleContestation","contestation":%q,"upheld":false,"ruling":"again"}`, contestation.Events[0].Data.Contestation), nil},
		{412, "POST", cmds, arb, `{"type":"CloseTournament"}`, []string{"If-Match", `"1"`}},
		{413, "POST", cmds, arb, `{"type":"CloseTournament","reason":"` + strings.Repeat("x", 1<<20) + `"}`, nil},
	} {
		s.must(c.status, c.method, c.path, c.token, c.body, c.headers...)
	}

	// The club workbook: the organizer, an import's record, a whole
	// workbook uploaded into an empty tournament and downloaded again, a
	// file that is no workbook refused.
	const twb = "spec-workbook"
	wbCmds := "/v1/tournaments/" + twb + "/commands"
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": twb, "name": "Torneo dal file", "ruleset": "rtu"})
	s.must(201, "POST", wbCmds, adminToken, map[string]any{"type": "AmendOrganizer", "organizer": "ROMA [Il Gufo]"})
	s.must(201, "POST", wbCmds, adminToken, map[string]any{"type": "RecordWorkbookImport", "file_name": "iscritti.xlsx",
		"sha256": strings.Repeat("0a", 32), "scope": "entry_list"})
	const twb2 = "spec-workbook-2"
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": twb2, "name": "Torneo dal file", "ruleset": "rtu"})
	s.must(201, "POST", "/v1/tournaments/"+twb2+"/workbook?scope=tournament&file_name=primavera.xlsx", adminToken,
		workbooktest.Primavera(t).Bytes(), "Content-Type", workbook.MediaType)
	s.must(200, "GET", "/v1/tournaments/"+twb2+"/workbook", adminToken, nil)
	s.must(400, "POST", "/v1/tournaments/"+twb2+"/workbook", adminToken, []byte("not a workbook"), "Content-Type", workbook.MediaType)

	// 503: a read-only data disk refuses commands.
	readOnly.Store(true)
	s.must(503, "POST", cmds, app, `{"type":"FileContestation","against":1,"claim":"x"}`)
	readOnly.Store(false)

	// 429, last: too many unknown tokens from this address.
	for range 10 {
		s.must(401, "GET", "/v1/me", "guess", nil)
	}
	s.must(429, "GET", "/v1/me", "guess", nil)
	s.must(429, "POST", cmds, "guess", `{"type":"CloseTournament"}`)

	s.validateExchanges()
	if t.Failed() {
		return
	}
	exerciseHub(t, &s.spec)
	for _, typ := range commands.Types() {
		if len(s.spec.commands[typ]) == 0 {
			t.Errorf("command %s was not sent", typ)
		}
	}
	// Every operation, every status the API answers with.
	o, _ := loadOpenAPI("")
	statuses := map[string]bool{}
	for key, n := range s.spec.ops {
		if n > 0 {
			statuses[key[strings.LastIndexByte(key, ' ')+1:]] = true
		}
	}
	for path, item := range o.model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().KeysFromOldest() {
			prefix := fmt.Sprintf("%s %s → ", strings.ToUpper(method), path)
			if !slices.ContainsFunc(slices.Collect(maps.Keys(s.spec.ops)), func(k string) bool { return strings.HasPrefix(k, prefix) }) {
				t.Errorf("not exercised: %s %s", strings.ToUpper(method), path)
			}
		}
	}
	for _, status := range []string{"200", "201", "400", "401", "403", "404", "405", "409", "412", "413", "422", "429", "503"} {
		if !statuses[status] {
			t.Errorf("no response had status %s", status)
		}
	}
	var got []string
	for typ, statuses := range s.spec.commands {
		got = append(got, fmt.Sprintf("%s %v", typ, statuses))
	}
	t.Logf("command types sent, by status:\n%s", strings.Join(sorted(got), "\n"))
}

// fakeHub stands in for api/hub.Hub: a hub that knows one venue,
// "roma", holding tournament "held".
type fakeHub struct {
	registered map[string]string
}

func (f *fakeHub) Register(venue, key string) error {
	if _, err := checkpoint.NewVerifier(key); err != nil {
		return fmt.Errorf("%w: key: %v", hub.ErrVenue, err)
	}
	f.registered[venue] = key
	return nil
}

func (f *fakeHub) Venues() ([]hub.Venue, []hub.Tournament) {
	return []hub.Venue{{Name: "roma", Key: f.registered["roma"]}}, []hub.Tournament{{ID: "held", Venue: "roma", Status: hub.Held}}
}

func (f *fakeHub) Served(t string) error {
	if t == "held" {
		return fmt.Errorf("%w: tournament held: no checkpoint verified yet", hub.ErrHeld)
	}
	return nil
}

func (f *fakeHub) IssueLink(venue, reason string) (string, hub.Decision, error) {
	if venue != "roma" && venue != "napoli" {
		return "", hub.Decision{}, fmt.Errorf("%w: %q cannot name a venue", hub.ErrVenue, venue)
	}
	return "00112233445566778899aabbccddeeff", hub.Decision{At: time.Unix(1700000000, 0).UTC(), Decision: hub.DecideLink, Reason: reason}, nil
}

func (f *fakeHub) Decide(venue string, req hub.DecisionRequest) (hub.Decision, error) {
	switch {
	case venue != "roma":
		return hub.Decision{}, fmt.Errorf("%w: %s", hub.ErrNoVenue, venue)
	case req.Reason == "":
		return hub.Decision{}, fmt.Errorf("%w: reason: say why", hub.ErrVenue)
	case req.Decision == hub.DecideLiftFlag:
		return hub.Decision{}, fmt.Errorf("%w: venue roma is not flagged", hub.ErrDecision)
	}
	return hub.Decision{At: time.Unix(1700000000, 0).UTC(), Decision: req.Decision, Tournament: req.Tournament, Reason: req.Reason,
		Quarantine: &hub.Quarantine{Problem: "the hub cannot apply its events", Seq: 7}}, nil
}

func (f *fakeHub) Cosigned(string) (string, uint64, bool) { return "", 0, false }
func (f *fakeHub) WitnessKey() string                     { return "referto-hub+00000000+BAAA" }
func (f *fakeHub) State() ([]byte, error)                 { return []byte("{}"), nil }

// VenueLog takes roma's proof, checked as the hub checks it, for "held":
// one message, at stream sequence 7 of the venue's stream.
func (f *fakeHub) VenueLog(t string, proof []byte) (string, func(context.Context, func(hub.VenueMessage) error) error, error) {
	v, err := checkpoint.NewVerifier(f.registered["roma"])
	if err != nil || t != "held" {
		return "", nil, fmt.Errorf("%w: no venue of %s registered", hub.ErrProof, t)
	}
	if _, err := note.Open(proof, note.VerifierList(v)); err != nil {
		return "", nil, fmt.Errorf("%w: %v", hub.ErrProof, err)
	}
	return "", func(_ context.Context, fn func(hub.VenueMessage) error) error {
		return fn(hub.VenueMessage{StreamSeq: 7, MsgID: "held/k1", Data: []byte("{}\n")})
	}, nil
}

// exerciseHub drives the routes and answers only a hub has, recording
// them with the ones of spec.
func exerciseHub(t *testing.T, spec *exchanges) {
	keys, err := checkpoint.LoadOrCreateKeys(t.TempDir(), "referto", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &stack{t: t, dir: t.TempDir(), hub: &fakeHub{registered: map[string]string{}}}
	h.spec.ops, h.spec.commands = spec.ops, spec.commands
	h.start()
	defer h.stop()
	h.must(401, "POST", "/v1/venues", "", `{"venue":"roma","key":"x"}`)
	h.must(400, "POST", "/v1/venues", adminToken, `{"venue":"roma","key":"not a key"}`)
	h.must(201, "POST", "/v1/venues", adminToken, map[string]string{"venue": "roma", "key": keys.VerifierKey})
	h.must(200, "GET", "/v1/venues", "", nil)
	h.must(401, "POST", "/v1/venues/roma/link", "", nil)
	if r := h.must(201, "POST", "/v1/venues/roma/link", adminToken, `{"reason":"first link"}`); r.header.Get("Cache-Control") != "no-store" {
		t.Error("a link's password may be cached")
	}
	h.must(201, "POST", "/v1/venues/napoli/link", adminToken, nil)
	h.must(400, "POST", "/v1/venues/a.b/link", adminToken, nil)
	h.must(400, "POST", "/v1/venues/roma/decisions", adminToken, `{"decision":"lift_quarantine","tournament":"held"}`)
	h.must(404, "POST", "/v1/venues/milano/decisions", adminToken, `{"decision":"lift_quarantine","tournament":"held","reason":"x"}`)
	h.must(409, "POST", "/v1/venues/roma/decisions", adminToken, `{"decision":"lift_flag","reason":"x"}`)
	h.must(400, "POST", "/v1/venues/roma/decisions", adminToken, `{"decision":"lift_flag","reason":"x","extra":1}`)
	h.must(201, "POST", "/v1/venues/roma/decisions", adminToken, `{"decision":"lift_quarantine","tournament":"held","reason":"the impostor's link is gone"}`)
	h.must(200, "GET", "/v1/keys", "", nil)
	if r := h.must(403, "GET", "/v1/tournaments/held/standings", "", nil); !bytes.Contains(r.body, []byte("hub: held")) {
		t.Errorf("a held tournament's problem does not say so: %s", r.body)
	}
	if r := h.must(405, "POST", "/v1/tournaments", adminToken, `{"id":"x","name":"X","ruleset":"rtu"}`); !bytes.Contains(r.body, []byte("this is a hub")) {
		t.Errorf("a command at a hub: %s", r.body)
	}
	h.must(404, "GET", "/v1/tournaments/nowhere/checkpoint", "", nil)
	// A venue reads its own log back, proving itself with its key.
	proof, err := hub.VenueLogProof("held", time.Now(), keys.Signer)
	if err != nil {
		t.Fatal(err)
	}
	other, err := checkpoint.LoadOrCreateKeys(t.TempDir(), "other", nil)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := hub.VenueLogProof("held", time.Now(), other.Signer)
	if err != nil {
		t.Fatal(err)
	}
	h.must(401, "GET", "/v1/venue-logs/held", "", nil)
	h.must(403, "GET", "/v1/venue-logs/held", "", nil, api.VenueProofHeader, base64.StdEncoding.EncodeToString(forged))
	h.must(200, "GET", "/v1/venue-logs/held", "", nil, api.VenueProofHeader, base64.StdEncoding.EncodeToString(proof))
	// A club's workbook of a tournament not run on referto, ranked as a
	// workbook's; one the national tool refuses, refused.
	wb2024 := workbooktest.Primavera(t).Set("TORNEO", "D8", workbooktest.Day(2024, 3, 15)).Set("TORNEO", "D9", workbooktest.Day(2024, 3, 16))
	h.must(401, "POST", "/v1/workbooks", "", wb2024.Bytes(), "Content-Type", workbook.MediaType)
	h.must(400, "POST", "/v1/workbooks", adminToken, workbooktest.Primavera(t).Delete("TORNEO").Bytes(), "Content-Type", workbook.MediaType)
	h.must(201, "POST", "/v1/workbooks?file_name=primavera.xlsx", adminToken, wb2024.Bytes(), "Content-Type", workbook.MediaType)
	if r := h.must(200, "GET", "/v1/seasons/2024/ranking", "", nil); !bytes.Contains(r.body, []byte(`"id":"20240315-roma-il-gufo"`)) ||
		!bytes.Contains(r.body, []byte(`"source":"workbook"`)) {
		t.Errorf("the season's ranking does not list the workbook's tournament as a workbook's: %s", r.body)
	}
	// The season registry, the hub's own log.
	h.must(200, "GET", "/v1/registry", "", nil)
	h.must(200, "GET", "/v1/registry/export", "", nil)
	h.must(401, "POST", "/v1/registry/commands", "", `{"type":"MergePlayers","from":"1","into":"2","reason":"x"}`)
	h.must(400, "POST", "/v1/registry/commands", adminToken, `{"type":"LinkNationalID","tournament":"nowhere","player":"p1","national_id":"100001"}`)
	disq := `{"type":"RecordDisqualification","national_id":"100001","from":"2024-01-01","to":"2024-02-01","reason":"a test"}`
	h.must(201, "POST", "/v1/registry/commands", adminToken, disq)
	h.must(409, "POST", "/v1/registry/commands", adminToken, disq)
	h.must(200, "GET", "/v1/registry", "", nil)
	h.must(200, "GET", "/v1/registry/export", "", nil)
	h.validateExchanges()
}
