// Package client speaks referto's v1 HTTP API (api/openapi.yaml) as an
// outside client would: one method per route, typed answers, and every
// error answer as a *Problem (problem+json). The command line (export
// --url, backup, demo), the benchmarks and the end-to-end tests use it;
// the server is package api, which this package does not import; a
// Problem is package problem's, the one the server writes.
package client
