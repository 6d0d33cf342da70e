# Liftdesk: `make run` to try it, `make test` to check everything.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WEB_STAMP := frontend/node_modules/.installed
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: run test install web check backend-test frontend-test e2e bench client openapi clean

run: install web ## install what is missing, migrate, seed, serve on http://127.0.0.1:8000
	$(BIN)/liftdesk serve

install: $(STAMP) $(WEB_STAMP)

$(STAMP): pyproject.toml setup.py $(wildcard backend/liftdesk/telemetry/*/_speedups.pyx backend/liftdesk/telemetry/codecs/*/_speedups.pyx)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

$(WEB_STAMP): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $@

web: $(WEB_STAMP) ## build the web app into frontend/dist
	cd frontend && npm run build --silent

check: install ## types and lint, backend and frontend
	$(BIN)/ruff check backend
	$(BIN)/ruff format --check backend
	$(BIN)/mypy backend/liftdesk
	cd frontend && npm run lint --silent && npm run typecheck --silent

backend-test: install
	$(BIN)/pytest -q -p no:cacheprovider --durations=25 -n 2 --dist loadfile --no-loadscope-reorder

frontend-test: install
	cd frontend && npm test --silent

e2e: install web ## browser flows against the built app and the real backend
	cd frontend && npm run e2e --silent

test: install web check frontend-test e2e backend-test ## the whole suite

bench: install ## benchmarks, each printing a ratio against a limit measured in the same run
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

openapi: install
	$(BIN)/liftdesk openapi > frontend/openapi.json

client: openapi $(WEB_STAMP) ## regenerate the TypeScript API client from the OpenAPI document
	cd frontend && npm run gen:api --silent

clean:
	rm -rf var/e2e frontend/dist
