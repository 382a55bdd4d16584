"""How close a hand is to going out: exact chances this turn, and after an opponent's steal.

Everything here is arithmetic over public information: the hands, and the
deck's contents (never its order). Hands are flat count vectors, as in
:mod:`solver._chance`, so the hot path never builds cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocol import Card, Rules
from solver import chance_flat, flatten

Flat = tuple[int, ...]


def minus(a: Flat, b: Flat) -> Flat:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def plus(a: Flat, b: Flat) -> Flat:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def bump(a: Flat, i: int, by: int) -> Flat:
    return (*a[:i], a[i] + by, *a[i + 1 :])


def size(a: Flat) -> int:
    return sum(a)


class Outlook:
    """Go-out chances for one ruleset, with the limits of a turn."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.max_draw = rules.max_draw

    def flat(self, cards: Iterable[Card]) -> Flat:
        return flatten(cards, self.rules)

    def draw_room(self, hand: Flat, deck: Flat) -> int:
        limit = self.rules.hand_limit
        room = self.max_draw if not limit else min(self.max_draw, limit - size(hand))
        return max(0, min(room, size(deck)))

    def chance(self, hand: Flat, deck: Flat, draw: int) -> float:
        """Probability that drawing ``draw`` cards now lets the whole hand go."""
        return chance_flat(hand, deck, draw, self.rules)

    def best_draw(self, hand: Flat, deck: Flat, can_draw: bool = True) -> tuple[float, int]:
        """The best chance of going out this turn by drawing (or not), and the count that gets it."""
        best, count = self.chance(hand, deck, 0), 0
        if best == 1.0 or not can_draw:
            return best, count
        for k in range(1, self.draw_room(hand, deck) + 1):
            p = self.chance(hand, deck, k)
            if p > best:
                best, count = p, k
        return best, count

    def after_steal(self, hand: Flat, deck: Flat, stolen: bool = True) -> float:
        """The chance of going out next turn, if an opponent first steals one of these cards at random."""
        total = size(hand)
        if total == 0:
            return 1.0
        if not stolen or total == 1:
            return self.best_draw(hand, deck)[0]
        value = 0.0
        for i, copies in enumerate(hand):
            if copies:
                value += copies * self.best_draw(bump(hand, i, -1), deck)[0]
        return value / total

    def steal_gain(self, hand: Flat, deck: Flat, victim: Flat) -> float:
        """My chance of going out this turn after stealing a random card from ``victim``."""
        total = size(victim)
        value = 0.0
        for i, copies in enumerate(victim):
            if copies:
                value += copies * self.best_draw(bump(hand, i, 1), deck)[0]
        return value / total


def deck_of(rules: Rules, hands: Sequence[Sequence[Card]]) -> Flat:
    deck = flatten(rules.full_deck(), rules)
    for hand in hands:
        deck = minus(deck, flatten(hand, rules))
    return deck
