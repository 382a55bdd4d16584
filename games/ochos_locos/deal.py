"""A deal: every hand, the starting card and the draw pile's order.

Given in full (batch mode, tests, a replayed record) or shuffled from an injected
``random.Random`` (live play), so the engine itself never draws on chance.
"""

from __future__ import annotations

import random
from collections import Counter

import attrs

from games._words import counted

from .cards import DECK_SIZE, Card, full_deck
from .rules import HAND_SIZE, Rules


class DealError(ValueError):
    """Cards that are not a deal of the 32 for this table."""


@attrs.frozen
class Deal:
    """``hands[seat]`` in the order given, the starting card, and the draw pile from top to bottom."""

    hands: tuple[tuple[Card, ...], ...]
    start: Card
    stock: tuple[Card, ...]

    def check(self, rules: Rules) -> None:
        """Raise :class:`DealError` unless this deals all 32 cards once to ``rules.players`` hands of 5."""
        if len(self.hands) != rules.players:
            raise DealError(f"{len(self.hands)} hands for {rules.players} players")
        for seat, hand in enumerate(self.hands):
            if len(hand) != HAND_SIZE:
                held = counted(len(hand), "card")
                raise DealError(f"player {seat + 1}'s hand has {held}, not {HAND_SIZE}")
        cards = [card for hand in self.hands for card in hand] + [self.start, *self.stock]
        if len(cards) == DECK_SIZE and len({card.rank for card in cards}) == DECK_SIZE:
            return  # 32 cards, no two alike (ranks differ exactly when cards do): every deal that plays
        twice = sorted((card for card, count in Counter(cards).items() if count > 1), key=lambda c: c.rank)
        if twice:
            raise DealError(f"{', '.join(map(str, twice))} dealt more than once")
        if len(cards) != DECK_SIZE:
            raise DealError(f"{len(cards)} cards dealt, not {DECK_SIZE}")

    @classmethod
    def shuffled(cls, rules: Rules, rng: random.Random) -> Deal:
        """A fair deal from ``rng``: shuffle, five each, one up, the rest face down."""
        deck = full_deck()
        rng.shuffle(deck)
        dealt = rules.players * HAND_SIZE
        hands = tuple(tuple(deck[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(rules.players))
        return cls(hands, deck[dealt], tuple(deck[dealt + 1 :]))
