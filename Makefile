# Castle: the reference toolkit for the Beleaguered Castle family.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.DEFAULT_GOAL := help

## help: list the targets
help:
	@grep -E '^## ' $(MAKEFILE_LIST) | sed -e 's/^## /  /'

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

## install: create .venv and install the package with its dev extras
install: $(STAMP)

## test: install, then run the whole test suite
test: $(STAMP)
	$(BIN)/python -m pytest sim analysis tests

## study: install, play the default experiment (experiments/default.toml) and build its report
study: $(STAMP)
	$(BIN)/castle run experiments/default.toml --out data/default --jobs 2
	$(BIN)/castle report data/default --out reports/default

## figures: re-execute every notebook on data/default (figures to reports/figures)
figures: $(STAMP)
	$(BIN)/python -m analysis.notebooks data/default

## bench: engine throughput, compiled against reference
bench: $(STAMP)
	$(BIN)/castle bench

## clean: remove the virtual environment and caches
clean:
	rm -rf $(VENV) .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

.PHONY: help install test study figures bench clean
