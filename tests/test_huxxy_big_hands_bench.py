"""bench/huxxy_big_hands.py, tiny: its position is a hand grown by drawing, and the bounded searches
it times give a turn as big as the full search's."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
big_hands = importlib.import_module("huxxy_big_hands")


def test_a_tiny_run_of_the_big_hands_bench_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    hand, table, opened = big_hands.grown(5)
    assert len(hand) >= 50 and table and not opened  # odd seeds: not opened
    assert big_hands.main(["--positions", "1", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("machine: ") and "seed 5: " in out
    assert "bot: points below the full turn's, median 0" in out
