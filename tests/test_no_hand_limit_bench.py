"""bench/no_hand_limit.py, tiny: it times the expert's moves and the hints in the hoarding game and in
ordinary classic games, and the hoarder's hand does grow past the presets' limit."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
no_hand_limit = importlib.import_module("no_hand_limit")


def test_a_tiny_run_times_moves_and_hints_in_both_settings() -> None:
    moves, hints, biggest = no_hand_limit.hoarding(30, 5, 1)
    assert moves and all(hints) and min(moves) >= 0 and min(hints[0] + hints[1]) >= 0
    assert biggest > 20  # past any preset's limit: what the bench is about
    base_moves, base_hints = no_hand_limit.ordinary(1, 5, 1)
    assert base_moves and base_hints
    assert no_hand_limit.row("x", [1.0, 2.0, 3.0]) == "| x | 3 | 2.00 | 3.00 | 3.00 |"
