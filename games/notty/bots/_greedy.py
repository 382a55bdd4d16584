"""The ``greedy`` bot, the baseline every stronger bot is measured against.

Its policy is fixed by the spec: discard the solver's best groups; steal from
the opponent with the most cards if they hold 2 or more; discard; draw 1;
discard; end the turn. Ties between opponents go to the one who plays next.
"""

from __future__ import annotations

import random

from games.notty import Card
from solver import best_discard

from ..engine import Action, Discard, Draw, EndTurn, PutBack, Steal, View, is_legal
from ._base import Bot, opponents


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng  # unused: the policy is deterministic

    def choose(self, view: View) -> Action:
        seat = view.current if view.seat is None else view.seat
        hand = view.hands[seat]
        groups = best_discard(hand, view.rules)
        if view.must_put_back:
            return PutBack(_least_useful(hand, groups))
        if groups:
            return Discard(groups[0])
        if not view.stole:
            target = _richest_opponent(view, seat)
            if target is not None and len(view.hands[target]) >= 2 and is_legal(view, seat, Steal(target)):
                return Steal(target)
        if not view.drew and is_legal(view, seat, Draw(1)):
            return Draw(1)
        return EndTurn()


def _richest_opponent(view: View, seat: int) -> int | None:
    return max(opponents(view, seat), key=lambda other: len(view.hands[other]), default=None)


def _least_useful(hand: tuple[Card, ...], groups: list[tuple[Card, ...]]) -> Card:
    """A card outside the best discard (the highest such), else the highest card."""
    kept = list(hand)
    for group in groups:
        for card in group:
            kept.remove(card)
    return max(kept or hand)
