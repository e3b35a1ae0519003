# `make demo` and `make test` each build .venv on a fresh machine and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,bench,docs,dense]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/leanread demo

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/mypy src

test: lint
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
