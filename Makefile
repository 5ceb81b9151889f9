# octo: build, test, lint, bench. `make test` is self-sufficient on a fresh
# clone: Go fetches modules itself; npm packages for the client interop
# tests are installed here when missing.
GO      ?= go
BIN     := .build/octo
INTEROP := samples/e2e/node
BROWSER := samples/e2e/browser
CONFORMANCE := samples/conformance/node
FUZZTIME ?= 10s
FUZZMINIMIZE ?= 60s

.PHONY: build release image test allocs unit e2e lint bench fuzz fuzz-short interop-deps browser-deps conformance conformance-deps docs cases clean

# A static binary (no cgo): no libc to load (1.6 MB less resident), and what a release ships.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) .

# Release binaries: static, stripped, built without local paths, the version, commit and build
# time stamped into `octo version`; a SHA256SUMS beside them. VERSION defaults to git describe.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
RELEASE_DIR ?= .build/release
CLI := github.com/octo-run/octo/runtime/cli
release:
	@rm -rf $(RELEASE_DIR) && mkdir -p $(RELEASE_DIR)
	@built=$$(date -u +%Y-%m-%dT%H:%M:%SZ); for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; if [ "$$os" = windows ]; then ext=.exe; fi; \
	  out=$(RELEASE_DIR)/octo_$(VERSION)_$${os}_$${arch}$$ext; echo "release: $$out"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath \
	    -ldflags "-s -w -X $(CLI).version=$(VERSION) -X $(CLI).revision=$(REVISION) -X $(CLI).buildTime=$$built" \
	    -o $$out . || exit 1; \
	done; cd $(RELEASE_DIR) && sha256sum octo_* > SHA256SUMS && echo "release: $(RELEASE_DIR)/SHA256SUMS"

# A container image without Docker: this machine's octo and a config folder, as an archive
# docker load reads (octo image; see docs/guides/deploy.md).
IMAGE_CONFIG ?= samples/mcp-router
image: build
	$(BIN) image --config $(IMAGE_CONFIG) --out .build/octo-image.tar --tag octo:$(VERSION)

test: interop-deps browser-deps build
	$(GO) test -race -count=1 ./...
	$(MAKE) --no-print-directory allocs
	$(MAKE) --no-print-directory fuzz-short

# The allocation guards (Test…AllocationsDoNotGrow) skip under -race, whose detector allocates
# on its own: they run here, without it. The pass fails when it finds none to run. Then every
# benchmark runs once, so that none rots unnoticed (a config it loads that no longer builds);
# apart, since a guard that averages with testing.Benchmark reads -benchtime.
allocs:
	@out=$$($(GO) test -count=1 -run 'AllocationsDoNotGrow' -v ./... 2>&1) || { echo "$$out"; exit 1; }; \
	n=$$(echo "$$out" | grep -c '^--- PASS: Test.*AllocationsDoNotGrow'); \
	echo "allocation guards: $$n passed without -race"; \
	[ "$$n" -ge 2 ] || { echo "$$out"; echo "allocs: expected at least 2 allocation guards to run"; exit 1; }
	@out=$$($(GO) test -count=1 -run '^$$' -bench . -benchtime=1x ./... 2>&1) || { echo "$$out"; exit 1; }; \
	echo "benchmarks: each ran once"

# The npm packages the e2e tests use (the TypeScript SDK clients, a JUnit reader), from the
# npm registry, pinned by $(INTEROP)/package-lock.json.
interop-deps:
	@missing=; for p in @modelcontextprotocol/sdk @modelcontextprotocol/client junit2json; do \
		[ -d $(INTEROP)/node_modules/$$p ] || missing=1; done; \
	if [ -f $(INTEROP)/package.json ] && [ -n "$$missing" ]; then \
		echo "installing npm packages for interop tests in $(INTEROP)"; \
		cd $(INTEROP) && npm ci --no-audit --no-fund --loglevel=error; \
	fi

# The console's browser tests: Debian's chromium (installed with apt when missing) driven by
# playwright-core from npm (pinned by $(BROWSER)/package-lock.json; it downloads no browser).
browser-deps:
	@command -v chromium >/dev/null || { echo "installing chromium for the console's browser tests"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }
	@if [ ! -d $(BROWSER)/node_modules/playwright-core ]; then \
		echo "installing playwright-core in $(BROWSER)"; \
		cd $(BROWSER) && npm ci --no-audit --no-fund --loglevel=error; \
	fi

# The official MCP conformance suite (every server scenario, pending ones
# included) against the YAML-only workspace samples/conformance, then its
# pre-release line per protocol revision; fails if any scenario failed.
conformance: conformance-deps build
	samples/conformance/run.sh $(BIN)

# @modelcontextprotocol/conformance, pinned by $(CONFORMANCE)/package-lock.json, and its
# pre-release line (per-revision scores, 2026-07-28) pinned by $(CONFORMANCE)-next/package-lock.json.
conformance-deps:
	@for d in $(CONFORMANCE) $(CONFORMANCE)-next; do \
		if [ ! -d $$d/node_modules/@modelcontextprotocol/conformance ]; then \
			echo "installing the MCP conformance suite in $$d"; \
			(cd $$d && npm ci --no-audit --no-fund --loglevel=error) || exit 1; \
		fi; \
	done

# Every sample's octo test cases, one line per case (`make test` runs them, and the starters',
# through samples/e2e/octotest_test.go).
cases: build
	@for d in samples/*/tests; do $(BIN) test --config $${d%/tests} || exit 1; done

# docs/reference (a page per block, connector and config adapter, the index and the JSON
# Schemas) is generated from the settings types; a test fails when it is stale.
docs:
	$(GO) test ./runtime/reference -run '^TestTheCommittedReferenceIsCurrent$$' -count=1 -update

lint:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: build
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	$(GO) run ./samples/e2e/load -binary $(BIN)

# Every fuzz target for a bounded number of runs in CI (a count, not a time:
# short -fuzztime durations flake with "context deadline exceeded");
# `make fuzz FUZZTIME=5m` fuzzes for longer. The short run does not minimize: shrinking an input
# that reached new code held runtime/config's FuzzLoad for a minute (its seeds include a 100 KB
# alias bomb), and a failing input is written and reported whole all the same.
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=2000x FUZZMINIMIZE=0

# The targets are found in the test files' text: `go test -list` linked a test binary for every
# package only to list them, about two minutes of make test.
fuzz:
	@for dir in $$(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=testdata \
			--exclude-dir=.build '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
		for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go | cut -c6- | sort -u); do \
			echo "fuzz $$dir $$t ($(FUZZTIME))"; \
			$(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) $$dir || exit 1; \
		done; \
	done

clean:
	rm -rf .build
