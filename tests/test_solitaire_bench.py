"""bench/solitaire.py: a hand that can go out does, on the turn it can; a tiny run prints its tables."""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path

import pytest

from games.notty import CLASSIC, Card, parse_cards

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
bench = importlib.import_module("solitaire")


def _deck_without(hand: list[Card]) -> list[Card]:
    deck = CLASSIC.full_deck()
    for card in hand:
        deck.remove(card)
    return deck


@pytest.mark.parametrize("policy", ["discard", "hold"])
def test_a_whole_group_goes_out_on_the_first_turn(policy: str) -> None:
    hand = parse_cards("R1 R2 R3")
    assert bench.play(hand, _deck_without(hand), policy, 8, 1, 5, random.Random(1)) == 0


def test_a_pair_needs_its_card_and_a_deck_without_it_never_goes_out() -> None:
    """R1 R2 goes out only with R3: with every R3 held elsewhere no turn ever does."""
    hand = parse_cards("R1 R2")
    deck = [card for card in _deck_without(hand) if str(card) != "R3"]
    assert bench.play(hand, deck, "discard", 2, 0, 30, random.Random(1)) is None
    # Left only R3s, it draws exactly one card, which takes the hand out on the first turn.
    assert bench.play(hand, parse_cards("R3 R3"), "discard", 2, 0, 30, random.Random(1)) == 0


def test_a_tiny_run_prints_every_policy_and_the_loose_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--games", "2", "--turns", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("machine: ")
    assert sum(line.startswith(("| discard", "| hold")) for line in out.splitlines()) == len(bench.POLICIES)
    assert "| 20 |" in out
