# The README's commands. Each target installs what it needs on a fresh machine.
SHELL := /bin/bash
PY ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
PEERS := tests/peers
WEB := web
STATIC := inspector/api/static
WEB_SOURCES := $(shell find $(WEB)/src $(WEB)/public -type f 2>/dev/null) \
	$(WEB)/index.html $(WEB)/vite.config.ts $(WEB)/tsconfig.json
CHROMIUM ?= /usr/bin/chromium

.PHONY: all run check test docs wheel bench bench-http install peers web chromium postgresql socat nginx mitmproxy lint fmt clean
.DEFAULT_GOAL := all

# `make`: install the Python package and build the web UI it serves.
all: install web

# Record the demo session, then serve the web UI on it (prints its URL; Ctrl-C stops).
run: install web
	$(BIN)/mcp-inspect demo

# The inner loop (minutes): lint, types and the unit and in-process tests, in TEST_WORKERS workers:
# none of the lanes that need a browser, an external peer, PostgreSQL or processes (tests/conftest.py).
CHECK_LANES := not browser and not peers and not postgres and not processes and not serial
check: install web
	$(BIN)/ruff check inspector tests bench hatch_build.py
	$(BIN)/ruff format --check inspector tests bench hatch_build.py
	$(BIN)/mypy
	$(BIN)/pytest -n $(TEST_WORKERS) -m "$(CHECK_LANES)" --ignore=tests/e2e

# The suite runs in TEST_WORKERS pytest-xdist workers (a file's tests stay in one worker; the
# rules for parallel-safe tests are in tests/conftest.py), then the tests marked `serial`, if
# any, alone. TEST_WORKERS=0: one process. Three workers on two cores: a quarter of the run waits on
# processes, browsers and sockets, which a third worker fills (pytest 706 s at 3 against 757 s at 2).
TEST_WORKERS ?= 3
# Before pytest, four jobs at once: the npm installs and the UI build, mitmproxy's own virtualenv
# (both mostly waiting on the registries), the system packages (apt, one at a time: they share
# dpkg's lock) and the static checks (ruff, mypy, the docs site: CPU), so that on a fresh machine
# the waits and the CPU work overlap.
test: install
	$(MAKE) --no-print-directory -j4 peers-and-web mitmproxy system-packages static-checks
	$(BIN)/pytest -n $(TEST_WORKERS) -m "not serial"
	if grep -rqE --include='*.py' '^\s*(@pytest\.mark\.serial|pytestmark.*mark\.serial)' tests; then $(BIN)/pytest -m serial; fi

.PHONY: peers-and-web system-packages static-checks
peers-and-web: peers web
system-packages:
	$(MAKE) --no-print-directory MAKEFLAGS= chromium postgresql socat
static-checks: install
	$(BIN)/ruff check inspector tests bench
	$(BIN)/mypy
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The documentation site (mkdocs.yml, docs/), served on 127.0.0.1:8000; `make test` builds it into site/.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

# The sdist and the wheel into dist/, both carrying the built web UI (hatch_build.py).
wheel: install web
	$(UV) build --out-dir dist

# Benchmarks print ratios against baselines measured in the same run (see bench/).
BENCH_ARGS ?=
bench: install peers socat nginx postgresql
	$(BIN)/python -m bench --million $(BENCH_ARGS)

bench-http: install nginx
	$(BIN)/python -m bench --only http $(BENCH_ARGS)

install: $(VENV)/.installed

$(UV):
	$(PY) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.installed: $(UV) pyproject.toml uv.lock
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --frozen --all-extras --compile-bytecode --python $(PY)
	touch $@

peers: $(PEERS)/node_modules/.installed

$(PEERS)/node_modules/.installed: $(PEERS)/package.json $(PEERS)/package-lock.json
	cd $(PEERS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# mitmproxy in a virtualenv of its own (bench/.venv-mitm: its h11 conflicts with httpx's), for
# the HTTP bench and the HAR tests; installed here, with the other peers, not inside the test run.
mitmproxy: install
	$(BIN)/python -m bench.http_mitm

# The web UI: npm ci, TypeScript types from the API's OpenAPI schema, vite build into $(STATIC).
web: $(STATIC)/index.html

$(WEB)/node_modules/.installed: $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB)/src/api/openapi.json: $(VENV)/.installed $(wildcard inspector/api/*.py) inspector/store/models.py inspector/store/pages.py
	$(BIN)/python -m inspector.api.openapi_export $@
	touch $@

$(STATIC)/index.html: $(WEB)/node_modules/.installed $(WEB_SOURCES) $(WEB)/src/api/openapi.json $(WEB)/package-lock.json
	cd $(WEB) && npm run --silent build
	touch $@

# The browser tests drive Debian's Chromium (Playwright cannot download its own here).
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing chromium for the browser tests (apt-get)"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else \
			echo "The browser tests need Chromium at $(CHROMIUM): run 'sudo apt-get install chromium'" \
			     "(or set CHROMIUM=/path/to/chromium)"; exit 1; \
		fi; \
	fi

# The PostgreSQL store's tests start throwaway clusters from Debian's server binaries (never a
# mock); nothing here starts or needs the system's own cluster.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing postgresql for the PostgreSQL store's tests (apt-get)"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
		else \
			echo "The PostgreSQL tests need the server binaries: run 'sudo apt-get install postgresql'" \
			     "(or set MCP_INSPECTOR_PG_BIN=/path/to/bin)"; exit 1; \
		fi; \
	fi

# The stdio benches compare the shim with socat, a C relay (the floor of one extra process hop).
socat:
	@if ! command -v socat >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing socat for the benches (apt-get)"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq socat >/dev/null; \
		else \
			echo "The benches need socat: run 'sudo apt-get install socat'"; exit 1; \
		fi; \
	fi

# The HTTP bench puts nginx (a reverse proxy) beside the proxy as the floor of one HTTP hop.
# Optional: without it (not root, no network) the bench skips that column and says why.
nginx:
	@if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing nginx-light for the HTTP bench (apt-get)"; \
			( DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null ) || \
			echo "Could not install nginx: the HTTP bench skips its column"; \
		else \
			echo "The HTTP bench's nginx column needs nginx: run 'sudo apt-get install nginx-light'" \
			     "(skipped until then)"; \
		fi; \
	fi

lint: install
	$(BIN)/ruff check inspector tests bench hatch_build.py
	$(BIN)/ruff format --check inspector tests bench hatch_build.py

fmt: install
	$(BIN)/ruff format inspector tests bench hatch_build.py
	$(BIN)/ruff check --fix inspector tests bench hatch_build.py

clean:
	rm -rf $(VENV) $(TOOLS) $(PEERS)/node_modules $(WEB)/node_modules $(STATIC) site dist
