"""The expert bot's chances after an opponent's turn: a theft that may or may not come."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.notty import CLASSIC, Card
from games.notty.bots._outlook import Outlook, bump, minus, size

LOOK = Outlook(CLASSIC)
FULL = LOOK.flat(CLASSIC.full_deck())

hands = st.lists(st.sampled_from(CLASSIC.full_deck()), min_size=2, max_size=6).filter(
    lambda cards: all(c <= 2 for c in LOOK.flat(cards))  # the classic deck holds two of each card
)


def flat(text: str) -> tuple[int, ...]:
    return LOOK.flat(Card.parse(word) for word in text.split())


def robbed_mean(hand: tuple[int, ...], deck: tuple[int, ...]) -> float:
    """The oracle: every card of the hand equally likely to be the one stolen."""
    return sum(c * LOOK.best_draw(bump(hand, i, -1), deck)[0] for i, c in enumerate(hand) if c) / size(hand)


@settings(max_examples=40, deadline=None)
@given(hands, st.floats(0.0, 1.0))
def test_after_steal_weighs_the_theft_by_its_chance(cards: list[Card], robbed: float) -> None:
    hand = LOOK.flat(cards)
    deck = minus(FULL, hand)
    kept, taken = LOOK.best_draw(hand, deck)[0], robbed_mean(hand, deck)
    assert LOOK.after_steal(hand, deck, 0.0) == kept
    assert LOOK.after_steal(hand, deck, 1.0) == pytest.approx(taken)
    assert LOOK.after_steal(hand, deck, robbed) == pytest.approx(robbed * taken + (1 - robbed) * kept)


def test_a_theft_can_bring_a_hand_in_reach() -> None:
    # R1 and B7 are four cards from going out: after losing one, two draws may do it.
    hand = flat("R1 B7")
    deck = minus(FULL, hand)
    assert LOOK.after_steal(hand, deck, 0.0) == 0.0
    assert 0.0 < LOOK.after_steal(hand, deck, 0.25) < LOOK.after_steal(hand, deck, 1.0)


@settings(max_examples=15, deadline=None)
@given(hands)
def test_two_turns_are_chances(cards: list[Card]) -> None:
    hand = LOOK.flat(cards)
    deck = minus(FULL, hand)
    for robbed in (0.0, 0.5, 1.0):
        assert 0.0 <= LOOK.two_turns(hand, deck, robbed, 0.9, 0.5) <= 1.0


def test_two_turns_count_on_a_theft_only_as_far_as_it_is_likely() -> None:
    hand = flat("R1 B7")
    deck = minus(FULL, hand)
    assert LOOK.two_turns(hand, deck, 0.0, 0.9, 0.5) == 0.0
    assert 0.0 < LOOK.two_turns(hand, deck, 0.25, 0.9, 0.5) < LOOK.two_turns(hand, deck, 1.0, 0.9, 0.5)
