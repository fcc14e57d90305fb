# The README's commands. Each target installs what it needs on a fresh machine.
SHELL := /bin/bash
PY ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
PEERS := tests/peers

.PHONY: run test bench install peers lint fmt clean

run: install
	$(BIN)/mcp-inspect demo

test: install peers
	$(BIN)/ruff check inspector tests bench
	$(BIN)/pytest

bench: install peers
	$(BIN)/python -m bench

install: $(VENV)/.installed

$(UV):
	$(PY) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.installed: $(UV) pyproject.toml uv.lock
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --frozen --python $(PY)
	touch $@

peers: $(PEERS)/node_modules/.installed

$(PEERS)/node_modules/.installed: $(PEERS)/package.json $(PEERS)/package-lock.json
	cd $(PEERS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint: install
	$(BIN)/ruff check inspector tests bench
	$(BIN)/ruff format --check inspector tests bench

fmt: install
	$(BIN)/ruff format inspector tests bench
	$(BIN)/ruff check --fix inspector tests bench

clean:
	rm -rf $(VENV) $(TOOLS) $(PEERS)/node_modules
