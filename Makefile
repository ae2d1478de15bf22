# Castle: the reference toolkit for the Beleaguered Castle family.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.DEFAULT_GOAL := help

## help: list the targets
help:
	@grep -E '^## ' $(MAKEFILE_LIST) | sed -e 's/^## /  /'

$(STAMP): pyproject.toml analysis/notebooks/jupyter_server_config.json
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	mkdir -p $(VENV)/etc/jupyter && cp analysis/notebooks/jupyter_server_config.json $(VENV)/etc/jupyter/
	touch $(STAMP)

## install: create .venv and install the package with its dev extras
install: $(STAMP)

## test: install, then run the whole test suite (one worker per CPU: pytest-xdist)
test: $(STAMP)
	$(BIN)/python -m pytest -n auto sim analysis tests

## study: install, play the default experiment (experiments/default.toml) and build its report
study: $(STAMP)
	$(BIN)/castle run experiments/default.toml --out data/default --jobs 2
	$(BIN)/castle report data/default --out reports/default

## figures: rebuild the study's report (reports/published), notebooks (beside it) and the README's results from data/published; no solving
figures: $(STAMP)
	$(BIN)/python -m analysis.notebooks data/published & notebooks=$$!; \
	$(BIN)/castle report data/published --out reports/published; report=$$?; \
	wait $$notebooks && test $$report -eq 0
	$(BIN)/python -m analysis.readme data/published reports/published

## notebooks: execute the four notebooks on data/published into reports/notebooks/ (open them: .venv/bin/jupyter lab analysis/notebooks)
notebooks: $(STAMP)
	$(BIN)/python -m analysis.notebooks data/published

## published: run the whole study into data/published (about 85 CPU-hours, nearly two days on two cores, a third of it solving the precision runs' unknowns again; rerun to resume), then rebuild its figures
published: $(STAMP)
	$(BIN)/castle run experiments/published/*.toml experiments/ladder.toml experiments/advice.toml experiments/family/*.toml --jobs 2
	$(MAKE) figures catalogue

## catalogue: write the catalogue of PySol FC's game numbers 1-10,000 (verdict, tier, rating, basis) of each game PySol deals here into data/published/pysol-catalogue/, from data/published's rows and castle explain's rating models (about 4 CPU-minutes)
catalogue: $(STAMP)
	for g in streets-and-alleys beleaguered-castle citadel selective-castle; do \
	  $(BIN)/castle deals $$g --export pysol --data data/published --out data/published/pysol-catalogue || exit 1; done

## model: retrain the models of `castle explain` (sim/explain/models/) from data/published's solver verdicts, then those of a deal's rating from its ladder's ratings; features cached in data/explain/ (a few minutes, less once cached)
model: $(STAMP)
	$(BIN)/python -m analysis.explain data/published
	$(BIN)/python -m analysis.explain_ratings data/published

## bench: engine throughput, compiled against reference
bench: $(STAMP)
	$(BIN)/castle bench

## golden: regenerate the golden playthroughs (tests/golden/playthroughs/: each game's fixed deal, moves and boards); commit the diff when a rule or engine change is meant
golden: $(STAMP)
	$(BIN)/python tests/golden/playthroughs.py

## clean: remove the virtual environment and caches
clean:
	rm -rf $(VENV) .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

.PHONY: help install test study figures notebooks published catalogue model bench golden clean
