# Every target bootstraps what it needs: a fresh machine only needs python3.11 (or python3) and node/npm.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
NODE_PEERS := tests/interop/node
NODE_STAMP := $(NODE_PEERS)/node_modules/.package-lock.json
PRODUCTION_PEERS := tests/interop/production
PRODUCTION_STAMP := $(PRODUCTION_PEERS)/node_modules/.package-lock.json
BENCH_PEERS := bench/stdio/ts
BENCH_STAMP := $(BENCH_PEERS)/node_modules/.package-lock.json
BROWSER_PEERS := tests/trace/browser
BROWSER_STAMP := $(BROWSER_PEERS)/node_modules/.package-lock.json
CHROMIUM := /usr/bin/chromium
TS_PACKAGE := generated/typescript
TS_BUILD := .build/typescript
TS_STAMP := $(TS_BUILD)/node_modules/.package-lock.json
OFFICIAL_VENV := .venv-official
OFFICIAL_STAMP := $(OFFICIAL_VENV)/.installed-stamp
OFFICIAL_EXAMPLES := .build/conformance-field/official-python/examples/agent.py
VERSION ?=
CRATE ?=

.PHONY: generate services test test-main test-side test-matrix test-typescript test-go ts-build check lint bench conformance field update-schema release-notes clean

$(STAMP): pyproject.toml constraints/dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	mkdir -p generated/python/acp_protocol
	$(BIN)/pip install --quiet -c constraints/dev.txt -e '.[dev]'
	touch $(STAMP)

# The official TypeScript SDK for the interop tests, exactly as locked.
$(NODE_STAMP): $(NODE_PEERS)/package.json $(NODE_PEERS)/package-lock.json
	npm ci --prefix $(NODE_PEERS) --ignore-scripts --no-audit --no-fund

# Production ACP agents (codex-acp, claude-agent-acp) for the interop tests, exactly as locked.
$(PRODUCTION_STAMP): $(PRODUCTION_PEERS)/package.json $(PRODUCTION_PEERS)/package-lock.json
	npm ci --prefix $(PRODUCTION_PEERS) --ignore-scripts --no-audit --no-fund

# The official TypeScript SDK as a two-process benchmark peer (bench/stdio/ts), exactly as locked.
$(BENCH_STAMP): $(BENCH_PEERS)/package.json $(BENCH_PEERS)/package-lock.json
	npm ci --prefix $(BENCH_PEERS) --ignore-scripts --no-audit --no-fund

# playwright-core (no browser download) for the trace page's browser test, exactly as locked;
# the browser is Debian's chromium, installed by its script where missing (CI's machine is fresh).
$(BROWSER_STAMP): $(BROWSER_PEERS)/package.json $(BROWSER_PEERS)/package-lock.json
	npm ci --prefix $(BROWSER_PEERS) --ignore-scripts --no-audit --no-fund

$(CHROMIUM):
	@sh $(BROWSER_PEERS)/chromium.sh

# The generated TypeScript package's own dev dependencies (typescript, @types/node), exactly as
# its lock says: the package is built in a copy (.build/typescript), never inside generated/.
$(TS_STAMP): $(TS_PACKAGE)/package.json $(TS_PACKAGE)/package-lock.json
	mkdir -p $(TS_BUILD)
	cp $(TS_PACKAGE)/package.json $(TS_PACKAGE)/package-lock.json $(TS_BUILD)/
	npm ci --prefix $(TS_BUILD) --ignore-scripts --no-audit --no-fund

# The official ACP Python SDK in an environment of its own (`make bench`, `make conformance`, and
# the trace check's side-by-side test through its example agent).
$(OFFICIAL_STAMP): bench/official-requirements.txt
	$(PYTHON) -m venv $(OFFICIAL_VENV)
	$(OFFICIAL_VENV)/bin/pip install --quiet -r bench/official-requirements.txt
	touch $(OFFICIAL_STAMP)

# Its examples (agent.py, client.py) from its source distribution, pinned by hash, as the field's
# row builds them (tools/conformance_field/third_party.py), for tests/trace/test_check_side_by_side.py.
$(OFFICIAL_EXAMPLES): $(OFFICIAL_STAMP) tools/conformance_field/python/requirements.txt
	rm -rf .build/conformance-field/official-python
	$(BIN)/python -c 'from tools.conformance_field.third_party import official_python_examples as e; e()'
	touch $(OFFICIAL_EXAMPLES)

## generate: regenerate generated/ from the pinned schemas (a no-op when nothing changed)
generate: $(STAMP)
	$(BIN)/acp-codegen generate

## check: fail when generated/ is not what a fresh generation produces
check: $(STAMP)
	$(BIN)/acp-codegen check

## lint: black, ruff and mypy --strict (generated code included, also as Python 3.10 code;
## tests/surface.py leaves out the files written for a protocol surface the pinned schemas lack)
lint: $(STAMP)
	$(BIN)/black --check --quiet acp_codegen templates/python/runtime templates/python/conformance templates/python/trace tools/conformance_field tools/field_report tools/design_evidence tests bench examples
	$(BIN)/ruff check acp_codegen templates/python/runtime templates/python/conformance templates/python/trace tools/conformance_field tools/field_report tools/design_evidence tests bench examples
	$(BIN)/mypy acp_codegen generated/python/acp_protocol tools/conformance_field tools/field_report tools/design_evidence $$($(BIN)/python -m tests.surface)
	$(BIN)/mypy --python-version 3.10 generated/python/acp_protocol

## ts-build: build generated/typescript as a user would (npm ci from its lock, tsc with strict)
## in .build/typescript, then compile tests/typescript and bench/stdio/ours_ts against it
ts-build: $(TS_STAMP)
	rm -rf $(TS_BUILD)/src $(TS_BUILD)/dist $(TS_BUILD)/test $(TS_BUILD)/dist-test
	cp -R $(TS_PACKAGE)/. $(TS_BUILD)/
	cd $(TS_BUILD) && node_modules/.bin/tsc -p tsconfig.json
	cp -R tests/typescript $(TS_BUILD)/test
	cp -R bench/stdio/ours_ts $(TS_BUILD)/test/bench
	cd $(TS_BUILD) && node_modules/.bin/tsc -p test/tsconfig.json

## test-typescript: the TypeScript runtime and typed layer's unit tests (node's test runner)
test-typescript: ts-build
	cd $(TS_BUILD) && node --test dist-test/test/*.test.js

## test-go: gofmt, go vet and go test -race on generated/go and its tests (tests/go; needs Go 1.24+), and
## interop over stdio with the official TypeScript SDK, our Python runtime and coder/acp-go-sdk (and over WebSocket with
## our TypeScript client: ts-build first, so the other lane never rebuilds it under these tests)
test-go: $(STAMP) $(NODE_STAMP) ts-build
	@command -v go >/dev/null || { echo "make test-go: go not found on PATH: install Go 1.24 or newer (https://go.dev/dl/)" >&2; exit 1; }
	@sh tests/tier.sh test-go $(BIN)/pytest -q tests/go

## services: install the services tests start themselves where missing (Debian's postgresql and nginx, as root;
## elsewhere one line naming it); each test run starts its own on loopback (tests/services/)
services: $(STAMP)
	@$(BIN)/python -m tests.services.postgres install
	@$(BIN)/python -m tests.services.nginx install

## test: everything CI runs (tests/go once, through test-go), in two lanes at once for the two cores:
## the main pytest run in one; lint, check, TypeScript, Go, the side pytest run and the Python matrix
## one after another in the other. Every tier runs even when another fails (-k); each tier's output is
## printed whole when it ends (-O), with the seconds it took (tests/tier.sh) and its slowest tests
test: $(STAMP) $(NODE_STAMP) $(PRODUCTION_STAMP) $(BENCH_STAMP) $(BROWSER_STAMP) $(CHROMIUM) $(OFFICIAL_EXAMPLES) services
	@$(MAKE) --no-print-directory -k -j2 -O test-main lint check test-typescript test-go test-side test-matrix

# The tests the second lane runs (test-side), to even the lanes: none of them uses the session's
# built starters (tests/conftest.py), which a second pytest run would build again. The crate's
# fidelity test compiles the schema crate four times on a fresh machine (3 to 4 minutes).
SIDE_TESTS := tests/distribution tests/interop tests/generator/test_schema_crate_fidelity.py

## test-main: the main pytest run (everything but tests/go, which test-go runs, and SIDE_TESTS)
test-main: $(STAMP) $(NODE_STAMP) $(PRODUCTION_STAMP) $(BENCH_STAMP) $(BROWSER_STAMP) $(CHROMIUM) $(OFFICIAL_EXAMPLES) services ts-build
	@sh tests/tier.sh test-main $(BIN)/pytest -q --durations=30 --ignore=tests/go $(addprefix --ignore=,$(SIDE_TESTS))

## test-side: the rest of the pytest run (SIDE_TESTS: the distribution, interop and crate fidelity tests), in the second lane
test-side: $(STAMP) $(NODE_STAMP) $(PRODUCTION_STAMP) ts-build
	@sh tests/tier.sh test-side $(BIN)/pytest -q --durations=10 $(SIDE_TESTS)

## test-matrix: the runtime, typed-layer and interop tests under Python 3.10 (with the lowest
## supported pydantic), 3.12 and 3.13, each in a venv of its own (tests/matrix.py)
test-matrix: $(STAMP) $(NODE_STAMP) $(PRODUCTION_STAMP) ts-build
	@sh tests/tier.sh test-matrix $(BIN)/python -m tests.matrix

## bench: ours vs the official SDK vs the NDJSON floor; writes docs/benchmarks.{md,png} (never part of `make test`)
bench: $(STAMP) $(OFFICIAL_STAMP) $(BENCH_STAMP) $(PRODUCTION_STAMP) ts-build
	$(BIN)/python bench/run.py

## conformance [ROW=key]: the conformance suite against our starter agents and the field's (official SDKs'
## example agents, coder/acp-go-sdk, codex-acp, claude-agent-acp), each built from a pin; rewrites the
## table in docs/conformance.md (never part of `make test`); ROW= reruns one row (`--list` names them)
conformance: $(STAMP) $(NODE_STAMP) $(PRODUCTION_STAMP) $(OFFICIAL_STAMP) ts-build
	$(BIN)/python -m tools.conformance_field $(if $(ROW),--row $(ROW))

## field: the whole field of production agents (tests/field, docs/field.md): installs each agent from its lock,
## runs their whole turns offline against loopback model mocks (`pytest tests/field --field`, recordings in
## tests/field/recordings), replays every recording through the three runtimes (test_field_replay.py, once
## they are all written), then rewrites docs/field.md's table and sections (never part of `make test`)
field: $(STAMP) $(PRODUCTION_STAMP) ts-build
	@status=0; \
	$(BIN)/python -m tests.field.registry install || status=1; \
	rm -f tests/field/recordings/results.json; \
	$(BIN)/pytest -q tests/field --field --ignore=tests/field/test_field_report.py --ignore=tests/field/test_field_replay.py || status=1; \
	$(BIN)/pytest -q tests/field/test_field_replay.py || status=1; \
	$(BIN)/python -m tools.field_report || status=1; \
	$(BIN)/pytest -q tests/field/test_field_report.py || status=1; \
	exit $$status

## update-schema VERSION=x.y.z: pin the schemas of another @agentclientprotocol/sdk version (npm);
## update-schema CRATE=x.y.z: pin the schemas built from agent-client-protocol-schema x.y.z (crates.io, needs cargo)
update-schema:
	@test -n "$(VERSION)$(CRATE)" || (printf '%s\n' "usage: make update-schema VERSION=x.y.z" "   or: make update-schema CRATE=x.y.z" >&2; exit 2)
	@test -z "$(VERSION)" || test -z "$(CRATE)" || (echo "make update-schema: give VERSION= (npm) or CRATE= (crates.io), not both" >&2; exit 2)
	@$(MAKE) --no-print-directory $(STAMP)
	$(BIN)/acp-codegen update-schema $(if $(CRATE),--crate $(CRATE),--version $(VERSION))

## release-notes [VERSION=x.y.z|Unreleased]: print a version's section of CHANGELOG.md (default: the
## generator's own version, acp_codegen.__version__)
release-notes: $(STAMP)
	@$(BIN)/acp-codegen release-notes $(VERSION)

clean:
	rm -rf $(VENV) $(OFFICIAL_VENV) .venv-matrix .build $(NODE_PEERS)/node_modules $(PRODUCTION_PEERS)/node_modules $(BENCH_PEERS)/node_modules .mypy_cache .ruff_cache .pytest_cache .hypothesis
