"""Notty's groups, where mutation testing found the card tests silent: a run with a gap just below
its top card, or after its second card, is no run."""

from __future__ import annotations

import pytest

from games.notty import CLASSIC, FIVE_COLOUR, InvalidGroup, classify_group, has_group, is_group, parse_cards


@pytest.mark.parametrize(
    ("text", "missing"),
    [("R1 R2 R4", "R3 missing"), ("G2 G3 G5 G6", "G4 missing"), ("B5 B7 B8 B10", "B6, B9 missing")],
)
def test_a_run_with_a_gap_anywhere_is_no_run(text: str, missing: str) -> None:
    hand = parse_cards(text)
    for rules in (CLASSIC, FIVE_COLOUR):
        if all(rules.allows(card) for card in hand):
            with pytest.raises(InvalidGroup, match=f"consecutive numbers \\({missing}\\)"):
                classify_group(hand, rules)
            assert not is_group(hand, rules)
            assert not has_group(hand, rules)
