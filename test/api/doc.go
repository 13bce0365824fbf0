// Package api holds the black-box tests of chronos's REST API (adapters/httpapi): real
// HTTP through httptest.Server, the real use cases from app, and a real SQLite store in
// a temporary directory. No part of the stack is mocked.
package api
