"""bench/endgame_bound.py: the solved endgame agrees with the exact go-out chances where they overlap."""

from __future__ import annotations

import importlib
import itertools
import sys
from collections import Counter
from pathlib import Path

import pytest

from games.notty import Card, rules_from
from solver import go_out_chance

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
endgame_bound = importlib.import_module("endgame_bound")

SMALL = rules_from("classic", colours="RYG", numbers=6)


@pytest.fixture(scope="module")
def solved() -> tuple[dict[tuple[Card, ...], list[float]], dict[tuple[Card, ...], int]]:
    return endgame_bound.solve(SMALL, 6)


def test_one_turn_is_the_best_exact_chance_of_going_out_now(solved) -> None:
    curve, _ = solved
    for start, chances in curve.items():
        deck = list((Counter(SMALL.full_deck()) - Counter(start)).elements())
        most = min(endgame_bound.MOST_NEW, endgame_bound.MOST_KEPT + 1 - len(start))
        best = max(go_out_chance(list(start), deck, k, SMALL) for k in range(most + 1))
        assert chances[0] == pytest.approx(best, abs=1e-12), start


def test_more_turns_never_lower_the_chance_and_it_stays_a_probability(solved) -> None:
    curve, _ = solved
    for chances in curve.values():
        assert all(0.0 <= a <= b <= 1.0 + 1e-12 for a, b in itertools.pairwise(chances))
    singles = [chances for start, chances in curve.items() if len(start) == 1]
    assert all(chances[-1] > chances[0] > 0.0 for chances in singles)


def test_hands_equal_up_to_colours_and_reversed_numbers_are_one_state() -> None:
    game = endgame_bound.Endgame(SMALL)
    r5, y2 = Card.parse("R5"), Card.parse("Y2")
    assert game.canon((r5,)) == game.canon((Card.parse("G2"),))
    assert game.canon((r5, y2)) == game.canon((Card.parse("G5"), Card.parse("R2")))
    assert game.canon((r5, Card.parse("R6"))) != game.canon((r5, Card.parse("Y6")))
