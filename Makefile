# `make demo` and `make test` each build .venv on a fresh machine and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint install clean

$(STAMP): pyproject.toml
	@echo "==> creating the virtualenv $(VENV) with $(PYTHON)"
	@$(PYTHON) -m venv $(VENV)
	@echo "==> upgrading pip"
	@$(BIN)/pip install -q --upgrade pip
	@echo "==> installing leanread and its test, bench, document, dense and inspect extras (about a minute the first time)"
	@$(BIN)/pip install -q -e '.[dev,bench,docs,dense,inspect]'
	@touch $(STAMP)
	@echo "==> installed; the next runs skip this step"

install: $(STAMP)

demo: $(STAMP)
	@echo "==> replaying a real agent trace through leanread serve (downloads the pytest 6.0 sdist once)"
	@$(BIN)/leanread demo

lint: $(STAMP)
	@echo "==> ruff check src tests"
	@$(BIN)/ruff check src tests
	@echo "==> mypy --strict src"
	@$(BIN)/mypy src
	@echo "==> lint-imports (the layers of docs/ARCHITECTURE.md; no circles)"
	@$(BIN)/lint-imports --no-cache

test: lint
	@echo "==> pytest (a few minutes, one worker per core)"
	@$(BIN)/pytest -q -n auto

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
