"""Go-out chances (solver/notty/_chance.py) against an oracle that tries every draw.

The oracle knows nothing of the search: it lists every multiset of ``k``
cards the deck can deal, asks the discard solver whether hand + draw can be
discarded whole, and weighs each by the number of ways the deck deals it.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction
from math import comb
from unittest.mock import patch

import pytest
from conftest import PRESET_IDS, PRESETS, cards
from hypothesis import given, settings
from hypothesis import strategies as st

from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules
from solver import bounded_chance, finishing_draws, flatten, go_out_chance, max_discard
from solver.notty import _chance

TINY = Rules(name="tiny", colours="RYG", numbers=6, hand_size=3, hand_limit=10)


def oracle(
    hand: list[Card], deck: list[Card], k: int, rules: Rules
) -> tuple[set[tuple[Card, ...]], Fraction]:
    counts = Counter(deck)
    found, ways = set(), 0
    for draw in itertools.combinations_with_replacement(sorted(counts), k):
        drawn = Counter(draw)
        if any(drawn[card] > counts[card] for card in drawn):
            continue
        if max_discard([*hand, *draw], rules) == len(hand) + k:
            found.add(tuple(sorted(draw)))
            w = 1
            for card, n in drawn.items():
                w *= comb(counts[card], n)
            ways += w
    total = comb(len(deck), k)
    return found, Fraction(ways, total) if total else Fraction(0)


@st.composite
def deals(draw: st.DrawFn, rules: Rules) -> tuple[list[Card], list[Card], int]:
    full = rules.full_deck()
    random.Random(draw(st.integers(0, 2**32))).shuffle(full)
    h = draw(st.integers(0, 9))
    d = draw(st.integers(0, 16))
    return sorted(full[:h]), full[h : h + d], draw(st.integers(0, 3))


@pytest.mark.parametrize("rules", [*PRESETS, TINY], ids=[*PRESET_IDS, "tiny"])
@given(data=st.data())
def test_finishing_draws_match_the_oracle(rules: Rules, data: st.DataObject) -> None:
    hand, deck, k = data.draw(deals(rules))
    found, chance = oracle(hand, deck, k, rules)
    assert {tuple(sorted(d)) for d in finishing_draws(hand, deck, k, rules)} == found
    assert go_out_chance(hand, deck, k, rules) == pytest.approx(float(chance), abs=1e-12)


def test_worked_chances() -> None:
    # R5 R6 needs R4 or R7: four of the deck's cards, one drawn.
    hand = cards("R5 R6")
    deck = [c for c in CLASSIC.full_deck() if c not in hand]
    assert go_out_chance(hand, deck, 1, CLASSIC) == pytest.approx(4 / len(deck))
    assert sorted(map(str, (c for (c,) in finishing_draws(hand, deck, 1, CLASSIC)))) == ["R4", "R7"]
    # Five-colour sets need four colours: R5 Y5 cannot finish with one card, but can with two.
    hand = cards("R5 Y5")
    deck = [c for c in FIVE_COLOUR.full_deck() if c not in hand]
    assert go_out_chance(hand, deck, 1, FIVE_COLOUR) == 0.0
    assert go_out_chance(hand, deck, 2, FIVE_COLOUR) > 0.0


def test_a_hand_that_goes_out_now_needs_no_draw_and_an_empty_hand_is_out() -> None:
    deck = CLASSIC.full_deck()[:30]
    assert go_out_chance(cards("R1 R2 R3"), deck, 0, CLASSIC) == 1.0
    assert go_out_chance([], deck, 0, CLASSIC) == 1.0
    assert go_out_chance(cards("R1 R2"), deck, 0, CLASSIC) == 0.0
    assert go_out_chance(cards("R1 R2"), deck[:1], 2, CLASSIC) == 0.0  # cannot draw more than the deck


def test_cards_outside_the_deck_are_refused() -> None:
    with pytest.raises(ValueError, match="not in the classic deck"):
        go_out_chance([Card.of("K", 1)], CLASSIC.full_deck(), 1, CLASSIC)


@pytest.mark.parametrize("rules", [*PRESETS, TINY], ids=[*PRESET_IDS, "tiny"])
@settings(max_examples=60, deadline=None)
@given(data=st.data(), states=st.integers(1, 12))
def test_a_search_cut_short_gives_a_lower_bound_and_says_so(
    rules: Rules, data: st.DataObject, states: int
) -> None:
    """A search stopped after ``states`` states counts the draws it found: never more than the
    oracle's chance, the same when it says it is exact, and exact with no draw (the solver's own
    question, answered at any size)."""
    hand, deck, k = data.draw(deals(rules))
    chance = float(oracle(hand, deck, k, rules)[1])
    with patch.object(_chance, "SEARCH_STATES", states):
        found, exact = bounded_chance(flatten(hand, rules), flatten(deck, rules), k, rules)
    assert found <= chance + 1e-12
    if exact or k == 0:
        assert exact and found == pytest.approx(chance, abs=1e-12)


def test_a_hand_of_dozens_of_cards_is_weighed_within_the_bound() -> None:
    """At a table with no hand limit a hand reached 70 cards, and one chance took up to a minute."""
    full = CLASSIC.full_deck()
    random.Random(4).shuffle(full)
    hand, deck = flatten(full[:70], CLASSIC), flatten(full[70:], CLASSIC)
    drawing, exact = bounded_chance(hand, deck, 3, CLASSIC)
    assert not exact and 0.0 <= drawing <= 1.0  # stopped at SEARCH_STATES
    whole = max_discard(full[:70], CLASSIC) == 70
    assert bounded_chance(hand, deck, 0, CLASSIC) == (1.0 if whole else 0.0, True)
    small = flatten(full[:12], CLASSIC), flatten(full[12:], CLASSIC)
    assert bounded_chance(*small, 3, CLASSIC)[1]  # a hand up to the classic limit: exact
