# Two commands: `make play` (set up, then play against bots) and `make test` (set up, then every check).
#
# Each command installs only what it needs into .venv/: `play`, `sim`, `watch` and `server` the
# runtime dependencies, `test` the test extras, `bench` and `ladder` the bench extras. Each set has
# its own stamp, named after pyproject.toml's checksum, so switching between commands installs only
# what is missing, and a changed pyproject.toml installs again. The install compiles the solver's
# optional C extension (setup.py); a changed solver/notty/_native.c installs, so compiles, again.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SUM := $(shell cksum < pyproject.toml | cut -d' ' -f1)
RUNTIME := $(VENV)/.installed-runtime-$(SUM)
TESTING := $(VENV)/.installed-test-$(SUM)
BENCHING := $(VENV)/.installed-bench-$(SUM)

.PHONY: play test bench ladder sim watch server

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The runtime dependencies only: no test or bench extra.
NATIVE := setup.py solver/notty/_native.c

# setuptools warns, in a box of asterisks, on every editable install that folders named like the
# package may take precedence: true of every project installed so, and alarming on a first run.
QUIET := PYTHONWARNINGS="ignore:Editable installation"

$(RUNTIME): pyproject.toml $(NATIVE) | $(BIN)/python
	$(QUIET) $(BIN)/python -m pip install --quiet -e .
	rm -f $(VENV)/.installed-runtime-*
	touch $@

$(TESTING): pyproject.toml $(NATIVE) | $(BIN)/python
	$(QUIET) $(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-test-* $(VENV)/.installed-runtime-*
	touch $@ $(RUNTIME)

$(BENCHING): pyproject.toml $(NATIVE) | $(BIN)/python
	$(QUIET) $(BIN)/python -m pip install --quiet -e '.[bench]'
	rm -f $(VENV)/.installed-bench-* $(VENV)/.installed-runtime-*
	touch $@ $(RUNTIME)

play: $(RUNTIME)
	$(BIN)/notty-client

test: $(TESTING)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest --numprocesses auto

bench: $(BENCHING)
	$(BIN)/python bench/solver_vs_ilp.py
	$(BIN)/python bench/huxxy_solver.py
	$(BIN)/python bench/huxxy_big_hands.py
	$(BIN)/python bench/huxxy_unlimited_vs_ilp.py
	$(BIN)/python bench/sim_throughput.py
	$(BIN)/python bench/ochos_throughput.py
	$(BIN)/python bench/ochos_expert.py
	$(BIN)/python bench/chance_vs_enumeration.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/lobby_list.py
	$(BIN)/python bench/notty_hint.py
	$(BIN)/python bench/no_hand_limit.py
	$(BIN)/python bench/faults.py

ladder: $(BENCHING)
	$(BIN)/python bench/ladder.py --deals 40 --trio-deals 20 --markdown
	$(BIN)/python bench/huxxy_expert.py --deals 50
	$(BIN)/python bench/solitaire.py

sim: $(RUNTIME)
	$(BIN)/notty-sim --games 2000 --players greedy,random --preset classic --seed 7

# Two bots heads-up, a game that ends (the expert goes out, almost always well within the limit),
# a second between turns so that a person can follow it.
watch: $(RUNTIME)
	$(BIN)/notty-watch --players expert,greedy --preset classic --max-turns 1000 --delay 1

server: $(RUNTIME)
	$(BIN)/notty-server
