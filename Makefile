# Previously — developer entry points. Every target installs what it needs first.
SHELL := /bin/bash
PY ?= python3
UV := $(PY) -m uv
VENV := .venv
PORT ?= 8000
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: uv setup setup-runtime run demo test test-fast lint bench clean

uv:
	@$(PY) -m uv --version >/dev/null 2>&1 || $(PY) -m pip install --quiet --disable-pip-version-check uv

setup-runtime: uv  ## runtime dependencies only (what `make run` needs)
	$(UV) sync --frozen --no-default-groups --inexact

setup: uv  ## everything: runtime, dev, infra groups, the test browser
	$(UV) sync --frozen --all-groups
	./scripts/install-system-deps
	cd tests/contract/mcp_js && npm ci --no-audit --no-fund --loglevel=error  # the MCP TypeScript client check

run: setup-runtime  ## the main job: the local server on ./memory-data (http://127.0.0.1:8000)
	$(VENV)/bin/previously serve --port $(PORT)

demo: setup-runtime  ## the local server on the bundled sample persona (read-only)
	$(VENV)/bin/previously serve --demo --port $(PORT)

# Two runs: Playwright's sync API keeps an asyncio loop running in the worker that drives the
# browser, and the Lambda handler tests (Mangum) need a worker without one. A browser test that
# fails is run up to twice more (a timing failure on a loaded machine passes then, a real one fails
# three times); the summary lists every rerun test (R), each one a race to fix (docs/DEVELOPING.md).
test: setup  ## install everything, then run the whole test suite
	$(VENV)/bin/python -m pytest -n 2 --dist loadgroup -m "not browser"
	$(VENV)/bin/python -m pytest -n 2 --dist loadgroup -m browser --reruns 2 --reruns-delay 1 -raR

test-fast: ## the tests without browser and infra (no install step)
	$(VENV)/bin/python -m pytest -n 2 -m "not browser and not infra"

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check core functions tests bench infra layers app.py
	$(VENV)/bin/mypy
	$(VENV)/bin/python scripts/build_sample.py --check
	$(VENV)/bin/python scripts/build_identity.py --check

bench: setup
	$(VENV)/bin/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache cdk.out build
