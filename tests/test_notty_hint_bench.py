"""bench/notty_hint.py, tiny: it times both hints on the same positions, from every preset's games of
two and three players, and only positions where the hint is asked on the asker's own turn."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from games.notty import CLASSIC, FIVE_COLOUR

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
notty_hint = importlib.import_module("notty_hint")


def test_a_tiny_run_times_both_hints_on_each_position() -> None:
    for rules in (CLASSIC, FIVE_COLOUR):
        plain, advised, sizes = notty_hint.measure(rules, 2, 5, 1)
        assert len(plain) == len(advised) == len(sizes) > 10
        assert min(plain) >= 0 and min(advised) >= 0 and max(sizes) >= rules.hand_size
    assert notty_hint.quantile([3.0, 1.0, 2.0], 0.5) == 2.0 and notty_hint.quantile([1.0], 0.99) == 1.0
