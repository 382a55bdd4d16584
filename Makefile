# Two commands: `make play` (set up, then play against bots) and `make test` (set up, then every check).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: play test bench ladder sim watch server

$(STAMP): pyproject.toml
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

play: $(STAMP)
	$(BIN)/notty-client

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/solver_vs_ilp.py
	$(BIN)/python bench/sim_throughput.py
	$(BIN)/python bench/chance_vs_enumeration.py
	$(BIN)/python bench/load.py

ladder: $(STAMP)
	$(BIN)/python bench/ladder.py --deals 40 --trio-deals 20 --markdown
	$(BIN)/python bench/endgame_bound.py

sim: $(STAMP)
	$(BIN)/notty-sim --games 2000 --players greedy,random --preset classic --seed 7

watch: $(STAMP)
	$(BIN)/notty-watch

server: $(STAMP)
	$(BIN)/notty-server
