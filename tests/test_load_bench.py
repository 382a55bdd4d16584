"""bench/load.py end to end, tiny: the three servers come up, games are played, nothing is dropped."""

from __future__ import annotations

import importlib
import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
load = importlib.import_module("load")


def test_a_tiny_load_run_plays_games_without_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert load.main(["--clients", "6", "--seconds", "1", "--warmup", "0.2", "--turn-limit", "10"]) == 0
    out = capsys.readouterr().out
    echo = re.search(r"bare Trio echo\s+([\d,]+) round trips/s", out)
    fanout = re.search(r"fan-out floor\s+([\d,]+) answers/s", out)
    game = re.search(r"notty-server\s+([\d,]+) actions/s", out)
    assert echo and int(echo.group(1).replace(",", "")) > 0, out
    assert fanout and int(fanout.group(1).replace(",", "")) > 0, out
    assert game and int(game.group(1).replace(",", "")) > 0, out
    assert "PASS: 0 error(s) or dropped game(s)" in out, out
    finished = re.search(r"(\d+) finished inside the window", out)
    assert finished and int(finished.group(1)) > 0, out  # a 10-turn limit ends games, and tables re-form


def test_the_scripted_seat_discards_first_draws_once_then_ends() -> None:
    view = {"drew": False, "stole": False, "legal": ["discard R1 R2 R3", "draw 1", "draw 2", "end"]}
    assert load.choose(view, random.Random(1)) == "discard R1 R2 R3"
    view = {"drew": False, "stole": False, "legal": ["draw 1", "draw 2", "end"]}
    assert load.choose(view, random.Random(1)) == "draw 1"
    view = {"drew": True, "stole": False, "legal": ["steal 1", "end"]}
    assert load.choose(view, random.Random(1)) == "end"
