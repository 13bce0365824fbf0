// Package ui tests the web dashboard (adapters/webui) over HTTP, the way `chronos
// serve` mounts it, on a real SQLite store: the handler tests run in `make test`; the
// browser tests (build tag ui) drive Debian's chromium through chromedp in
// `make test-ui`, and take the screenshots of docs/dashboard.md.
package ui
