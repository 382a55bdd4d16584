"""How close a hand is to going out: exact chances this turn, and after an opponent's steal.

Everything here is arithmetic over public information: the hands, and the
deck's contents (never its order). Hands are flat count vectors, as in
:mod:`solver.notty._chance`, so the hot path never builds cards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from games.notty import Card, Rules
from solver import Flat, bounded_chance, flatten

from ..engine import draw_room


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
        self._best: dict[tuple[Flat, Flat], tuple[float, int]] = {}
        #: Some chance worked out since this outlook was made is a lower bound: a hand too big for
        #: the search to weigh every draw (:func:`solver.bounded_chance`). A hint says so.
        self.bounded = False

    def flat(self, cards: Iterable[Card]) -> Flat:
        return flatten(cards, self.rules)

    def draw_room(self, hand: Flat, deck: Flat) -> int:
        return draw_room(self.rules, size(hand), size(deck))

    def chance(self, hand: Flat, deck: Flat, draw: int) -> float:
        """Probability that drawing ``draw`` cards now lets the whole hand go."""
        chance, exact = bounded_chance(hand, deck, draw, self.rules)
        if not exact:
            self.bounded = True
        return chance

    def best_draw(self, hand: Flat, deck: Flat) -> tuple[float, int]:
        """The best chance of going out this turn by drawing (or not), and the count that gets it."""
        key = (hand, deck)
        known = self._best.get(key)
        if known is not None:
            return known
        best, count = self.chance(hand, deck, 0), 0
        if best < 1.0:
            for k in range(1, self.draw_room(hand, deck) + 1):
                p = self.chance(hand, deck, k)
                if p > best:
                    best, count = p, k
        if len(self._best) > 100_000:
            self._best.clear()
        self._best[key] = (best, count)
        return best, count

    def two_turns(
        self, hand: Flat, deck: Flat, robbed: float, future: float, after_draw: float, last: float = 0.0
    ) -> float:
        """The worth of ending a turn with ``hand``: going out next turn, or else the turn after.

        One turn ahead misses what makes a hand strong against thieves: complete
        groups held beside a card or two that do not fit, which a theft will
        likely take while the groups survive. So the next turn is played too:
        go for the best chance now, or pass and keep the hand for the turn after.
        ``robbed`` is the chance that an opponent steals one of two or more cards
        before that turn; ``last``, the chance that a card left alone is stolen, which wins.
        """
        if size(hand) == 0:
            return 1.0
        if size(hand) == 1:
            return last + (1.0 - last) * self._turn_worth(hand, deck, 0.0, future, after_draw, last)
        return _weigh_theft(
            hand, robbed, lambda left: self._turn_worth(left, deck, robbed, future, after_draw, last)
        )

    def _turn_worth(
        self, start: Flat, deck: Flat, robbed: float, future: float, after_draw: float, last: float
    ) -> float:
        now = self.best_draw(start, deck)[0]
        if now == 1.0:
            return 1.0
        later = future * self.after_steal(start, deck, robbed, last)
        return max(later, now + (1.0 - now) * later * after_draw)

    def after_steal(self, hand: Flat, deck: Flat, robbed: float = 1.0, last: float = 0.0) -> float:
        """The chance of going out next turn, if an opponent first steals one of these cards at random.

        ``robbed`` is the chance that the theft happens at all (to a hand of two
        or more); ``last``, the chance that an opponent steals a card left alone, which wins.
        """
        if size(hand) == 0:
            return 1.0
        if size(hand) == 1:
            return last + (1.0 - last) * self.best_draw(hand, deck)[0]
        return _weigh_theft(hand, robbed, lambda left: self.best_draw(left, deck)[0])

    def steal_gain(self, hand: Flat, deck: Flat, victim: Flat) -> float:
        """My chance of going out this turn after stealing a random card from ``victim``."""
        return mean_over(victim, lambda i: self.best_draw(bump(hand, i, 1), deck)[0])


def _weigh_theft(hand: Flat, robbed: float, worth: Callable[[Flat], float]) -> float:
    """``worth`` of what is left, a thief taking one card at random with chance ``robbed``.

    Each side is worked out only when it counts: the theft is often certain or ruled out.
    """
    kept = worth(hand) if robbed < 1.0 else 0.0
    if not robbed:
        return kept
    return robbed * mean_over(hand, lambda i: worth(bump(hand, i, -1))) + (1.0 - robbed) * kept


def mean_over(cards: Flat, worth: Callable[[int], float]) -> float:
    """The mean of ``worth(card)`` over a card taken at random from ``cards`` (a thief's pick)."""
    return sum(copies * worth(i) for i, copies in enumerate(cards) if copies) / size(cards)
