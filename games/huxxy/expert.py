"""huxxy's expert: the solver's turns weighed by the hand they leave and what they give away.

A game of huxxy between good players is a race to an empty hand (games of four
``greedy`` bots end that way, not by the stock), and it is decided by the last
few cards: an opening places at most six, and the rest must then find a place.
``greedy`` takes the turn that places the most cards, breaking ties by points,
so it keeps the low cards, whatever they are. The expert also looks at the
turns that keep back each card the best turn places (the solver asked again
without it) and scores each turn by

* the cards it places now;
* at a discount, the cards of the hand it leaves that could follow next turn
  (:func:`followers`: one play adds them to a group of the table the turn
  leaves, or they make a new group of three in that hand);
* less the places it opens on the table for cards it does not hold, which the
  other players may use, at a cost that grows with each opponent close to
  going out.

A turn that goes out is always taken. Measured against three ``greedy`` bots
this is no stronger than ``greedy`` itself (bench/RESULTS.md): the weighing is
a start, not yet a plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from ._cards import CARDS, Card
from ._groups import valid_group
from ._plays import Play
from .bots import BOT_SETS, EXPERT, PlanningBot, SeatView, Table

#: What a card that could follow next turn is worth against one placed now.
NEXT_TURN = 0.6
#: What a place opened on the table for a card we do not hold costs (another player may use it),
#: and what it costs more for each opponent close to going out (``CLOSE`` cards or fewer).
OFFERED, THREAT, CLOSE = 0.05, 0.25, 3


def after(hand: Sequence[Card], table: Table, plays: Sequence[Play]) -> tuple[list[Card], Table]:
    """The hand and the table once ``plays`` are made (emptied groups dropped)."""
    left = list(hand)
    groups = [list(group) for group in table]
    for play in plays:
        if play.source is None:
            left.remove(play.card)
        else:
            groups[play.source].remove(play.card)
        if play.target is None:
            groups.append([play.card])
        else:
            groups[play.target].append(play.card)
    return left, tuple(tuple(group) for group in groups if group)


def followers(hand: Sequence[Card], table: Table) -> int:
    """The cards of ``hand`` that could be placed next turn with the table as it is: each one play
    adds to a group, or that make a new group with two other cards of the hand."""
    placeable = {card for card in set(hand) if any(valid_group((*group, card)) for group in table)}
    for trio in combinations(sorted(hand), 3):
        if valid_group(trio):
            placeable.update(trio)
    return sum(1 for card in hand if card in placeable)


def offered(table: Table, hand: Sequence[Card]) -> int:
    """The places the table offers cards not in ``hand``: (group, card) pairs one play would join."""
    held = set(hand)
    return sum(1 for group in table for card in CARDS if card not in held and valid_group((*group, card)))


class ExpertBot(PlanningBot):
    name = EXPERT

    def plan(self, hand: Sequence[Card], table: Table, view: SeatView, most: int) -> tuple[Play, ...]:
        from solver.huxxy import best_turn

        opened = view.opened[view.seat]
        best = best_turn(hand, table, opened, max_plays=most, most_sets=BOT_SETS)
        if best is None or len(best.placed) == len(hand):
            return () if best is None else best.plays
        candidates = {best.plays: best}
        for card in sorted(set(best.placed)):
            kept = list(hand)
            kept.remove(card)
            other = best_turn(kept, table, opened, max_plays=most, most_sets=BOT_SETS)
            if other is not None:
                candidates.setdefault(other.plays, other)
        if len(candidates) == 1:
            return best.plays
        before = offered(table, hand)
        close = sum(1 for seat, size in enumerate(view.sizes) if seat != view.seat and size <= CLOSE)
        cost = OFFERED + THREAT * close

        def worth(plays: tuple[Play, ...]) -> tuple[float, int, int]:
            turn = candidates[plays]
            left, later = after(hand, table, plays)
            gives = max(0, offered(later, left) - before)
            value = len(turn.placed) + NEXT_TURN * followers(left, later) - cost * gives
            return (value, len(turn.placed), turn.points)

        return max(candidates, key=worth)
