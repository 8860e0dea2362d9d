package api

import (
	_ "embed"
	"net/http"
)

// openAPI is the OpenAPI 3.1 document of every route, command and error
// this package serves. TestEveryResponseMatchesTheOpenAPIDocument keeps it
// true: every request and response of the package's tests is validated
// against it.
//
//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the OpenAPI 3.1 document served at GET /v1/openapi.yaml.
func OpenAPI() []byte { return openAPI }

func (s *Server) getOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(openAPI)
}
