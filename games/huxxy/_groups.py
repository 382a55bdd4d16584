"""What the table may hold: runs and N-of-a-kind, a joker standing in for one card of a group.

The rules checks the engine, the solver, the bots and the client all ask, so
they live once, here, as pure functions over cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import pairwise

from ._cards import CARDS, COPIES, SUITS, Card, cards_of

#: The fewest cards in a group.
SMALLEST_GROUP = 3


def score(cards: Iterable[Card | str]) -> int:
    """The points left in a hand at the end: A 1, 2-10 face value, J 11, Q 12, K 13, a joker 48."""
    return sum(card.points for card in cards_of(cards))


def opening_points(cards: Iterable[Card | str]) -> int:
    """What cards played from the hand count towards an opening (24 or more): a joker counts 0."""
    return sum(0 if card.is_joker else card.points for card in cards_of(cards))


def valid_group(cards: Iterable[Card | str]) -> bool:
    """Is this one valid group: a run or an N-of-a-kind, with at most one joker?

    A joker stands for any card that makes the group valid, left undetermined,
    but never for a card the group already holds: the rules' "a group never holds
    two instances of the card the joker stands for". So an N-of-a-kind takes a
    joker only for a suit it lacks (``2C 2H 2S XX``, ``2C 2C 2H 2S XX``), never as
    a second copy (``2C 2H 2S 2D XX`` is no group), and no 8-of-a-kind takes one.
    """
    group = cards_of(cards)
    naturals = [card for card in group if not card.is_joker]
    jokers = len(group) - len(naturals)
    if jokers == 0:
        return _natural_group(naturals)
    if jokers > 1:
        return False
    held = set(naturals)
    return any(_natural_group([*naturals, card]) for card in CARDS if card not in held)


def valid_table(groups: Iterable[Iterable[Card | str]]) -> bool:
    """Is every group on the table valid?"""
    return all(valid_group(group) for group in groups)


def _natural_group(cards: Sequence[Card]) -> bool:
    if len(cards) < SMALLEST_GROUP or max(Counter(cards).values()) > COPIES:
        return False  # too short, or more copies of a card than two packs hold
    values = {card.value for card in cards}
    if len(values) == 1:
        suits = {card.suit for card in cards}
        # Up to 4 cards, no suit twice; more, and every suit is there (then some suit twice).
        return len(suits) == len(cards) if len(cards) <= len(SUITS) else len(suits) == len(SUITS)
    if len(values) != len(cards):
        return False  # a run holds each value once
    ordered = sorted(cards, key=lambda card: card.value)
    return all(
        later.value == earlier.value + 1 and later.red != earlier.red for earlier, later in pairwise(ordered)
    )
