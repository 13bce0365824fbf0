# chronos — every command a developer or CI needs. See README.md.
# The toolchain go.mod names: a machine starts on its own Go and ignores go.mod's
# toolchain line while GOTOOLCHAIN=local, so every target runs with it set (README).
export GOTOOLCHAIN = go1.27.3
GO        ?= go
FUZZTIME  ?= 10s
FUZZTIME_API ?= 60s
BIN       ?= bin/chronos

.PHONY: all build image run test test-e2e test-ui screenshots lint lint-openapi vulncheck fuzz fuzz-api bench bench-punctuality race clean

all: lint test

## build: a static binary (no cgo: SQLite is pure Go), the one the container image wraps
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/chronos

## image: the container image from bin/chronos without a registry (deploy/Dockerfile.local);
## with a registry, `podman build -t chronos .` builds it from source (Dockerfile)
CONTAINER ?= podman
image: build
	rm -rf bin/image && mkdir -p bin/image/data
	cp $(BIN) bin/image/chronos
	cp /etc/ssl/certs/ca-certificates.crt bin/image/
	$(CONTAINER) build --format docker -f deploy/Dockerfile.local -t chronos:local bin/image

## run: chronos serve on the embedded SQLite file ./chronos.db, wakes printed to stdout
run:
	$(GO) run ./cmd/chronos serve --dev --store sqlite://chronos.db

## test: every unit, contract and integration test (PostgreSQL and MariaDB included;
## with CI=true an unreachable database fails the run instead of skipping)
test:
	$(GO) test -count=1 -timeout 15m ./...

## test-e2e: multi-process fault tests (build tag e2e): node kills, database restarts,
## receiver outage, clock skew, SQLite on a full disk (it mounts a tmpfs: root only), an
## upgrade from the previous release (built from the git history), network faults between
## the nodes and the database (docs/reliability.md).
## It stops and starts the local PostgreSQL and MariaDB servers
## (CHRONOS_E2E_RESTART_DB=1), so run it on its own.
test-e2e:
	CHRONOS_E2E_RESTART_DB=1 $(GO) test -count=1 -v -timeout 15m -parallel 3 -tags e2e ./test/e2e/...

## test-ui: the dashboard in a real browser (build tag ui): headless chromium through
## chromedp, at 1280×800, phone width and dark (test/ui). Without chromium the tests
## skip, saying so; with CI=true that is a failure.
test-ui:
	$(GO) test -count=1 -tags ui -timeout 10m ./test/ui/...

## screenshots: the dashboard's screenshots of docs/dashboard.md, into docs/img/dashboard
screenshots:
	CHRONOS_UI_SCREENSHOTS=$(CURDIR)/docs/img/dashboard $(GO) test -count=1 -tags ui -timeout 10m ./test/ui/...

## race: the domain, app and adapters under the race detector. The contract suite through
## PgBouncer and over TLS runs in `make test` only: the same store code on another connection.
## So do the query-plan tests (a table loaded, then EXPLAIN) and the migration upgrades: one
## goroutine each, nothing for the detector to find, and under it the SQLite package's
## longest tests (its suite is the race run's longest path).
## The SQLite engine (modernc.org/sqlite: C translated to Go) is built without checkptr,
## whose checks of its unsafe pointer arithmetic doubled the SQLite package's run (188 s
## against 96 s, tenth session). It keeps the detector's instrumentation: built without
## it (-race=false), the engine's own synchronization (atomics in uninstrumented code) is
## invisible to the detector, which may then call two accesses ordered only by it a race.
## One CI run so built reported a race in the SQLite contract suite that nine runs here,
## with the same flags, and no fully instrumented run ever showed.
RACE_GCFLAGS := modernc.org/...=-d=checkptr=0
race:
	$(GO) test -count=1 -race -gcflags='$(RACE_GCFLAGS)' -timeout 20m -skip 'TestContractThroughPgBouncer|TestTLS$$|Plans?$$|^TestPlansWithoutStatistics$$|^TestMigrat(e|ion)Upgrades$$' ./domain/... ./app/... ./adapters/...

## lint: formatting, vet, and the layering rules of docs/architecture.md
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go') $$(git ls-files --others --exclude-standard '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags e2e ./test/e2e/...
	$(GO) vet -tags ui ./test/ui/...
	bash .ci/check-layers

## lint-openapi: redocly lint on adapters/httpapi/openapi.yaml, the document GET /openapi.json
## serves, under adapters/httpapi/redocly.yaml; any problem fails. The CLI is the version
## .ci/redocly/package.json pins, installed there by npm ci when the lock changes. Needs
## Node.js 20.19+ (or 22.12+) and npm; a second or two once installed.
REDOCLY := .ci/redocly/node_modules/.bin/redocly
lint-openapi: $(REDOCLY)
	@node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' || \
	  { echo "lint-openapi: redocly needs Node.js 20.19 or later, this is $$(node --version)"; exit 1; }
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_NOTIFICATIONS=true $(REDOCLY) lint --config adapters/httpapi/redocly.yaml

$(REDOCLY): .ci/redocly/package.json .ci/redocly/package-lock.json
	npm ci --prefix .ci/redocly --no-audit --no-fund
	@touch $@

## vulncheck: govulncheck on every package, against a vulnerability database built
## here from the golang.org/x/vulndb module (its OSV files, indexed by its own
## cmd/indexdb): the public database's address is not reachable from every machine.
## The database is built once per VULNDB_VERSION into VULNDB_DIR (the first build
## downloads indexdb's dependencies: a few minutes); a check then takes about a minute.
## Move VULNDB_VERSION to a newer pseudo-version of golang.org/x/vulndb to learn of
## newer vulnerabilities.
VULNDB_VERSION      ?= v0.0.0-20261105234957-e22db6528018
GOVULNCHECK_VERSION ?= v1.9.0
VULNDB_DIR          ?= $(HOME)/.cache/chronos/vulndb-$(VULNDB_VERSION)
vulncheck:
	@set -e; if [ ! -f "$(VULNDB_DIR)/index/db.json" ]; then \
	  src=$$($(GO) mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  echo "vulncheck: indexing $$src/data/osv into $(VULNDB_DIR)"; \
	  rm -rf "$(VULNDB_DIR).tmp"; \
	  $(GO) run golang.org/x/vulndb/cmd/indexdb@$(VULNDB_VERSION) -vulns "$$src/data/osv" -out "$(VULNDB_DIR).tmp"; \
	  rm -rf "$(VULNDB_DIR)"; mv "$(VULNDB_DIR).tmp" "$(VULNDB_DIR)"; \
	fi
	$(GO) run golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION) -db file://$(VULNDB_DIR) ./...

## fuzz: a short bounded run of every fuzz target (FUZZTIME each; CI runs it). The
## targets are the "func FuzzX(f *testing.F)" of the test files, found by grep: asking
## `go test -list` would build and link each package's tests (uninstrumented) only to
## name them, a minute of CI for nothing.
fuzz:
	@set -e; for file in $$(grep -rlE --include='*_test.go' '^func Fuzz[A-Z0-9_]' . | sort); do \
	  for f in $$(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*\*testing\.F\).*/\1/p' $$file); do \
	    echo "fuzz $$(dirname $$file) $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$(dirname $$file); \
	  done; done

## fuzz-api: the HTTP API's fuzz target alone, longer (FUZZTIME_API; a count such as
## 1000000x works too); docs/reliability.md, "Fuzzing the HTTP API"
fuzz-api:
	$(GO) test -run '^$$' -fuzz '^FuzzAPI$$' -fuzztime $(FUZZTIME_API) ./test/api

## bench: burn-down benchmarks on SQLite, PostgreSQL and MariaDB (docs/benchmarks.md)
bench: build
	bash .ci/bench

## bench-punctuality: wakes' lateness at a receiver with serve's default flags, beside
## --tick 200ms, on every store (docs/benchmarks.md, "Punctuality with the default flags")
bench-punctuality: build
	bash .ci/bench-punctuality

clean:
	rm -rf bin chronos.db chronos.db-wal chronos.db-shm
