"""A hint's advice for the turn under way: the chance each plan gives of going out now, and the
expert's move.

The discard hint answers the rules' question (the most that can be discarded now),
which is "nothing" on most turns; what a player then wants to know is whether to
draw, how many, and whom to rob. Hands are face up and the deck's contents are
public, so the chance that a plan empties the hand this turn is exact arithmetic
(:class:`~games.notty.bots._outlook.Outlook`), never a look at the deck's order.
Each plan is listed with its chance rather than one named best: going out now is
not the whole game (cards drawn in vain stay in the hand), so the advice also
says what the ``expert`` bot would do in the player's place.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import attrs

from games.notty import Card, has_group
from solver import Flat

from .bots import Bot, make_bot
from .bots._base import victims
from .bots._outlook import Outlook, bump, mean_over
from .engine import Action, Draw, DrawDiscard, Steal, View, draw_room

#: The bot whose move the advice gives when no table's bot is at hand (the host passes the seat's
#: own, whose move ``auto`` makes): a fresh one, at its hardest, seeing this position alone.
ADVISER = "expert-hard"
#: Draw-and-discard first is weighed for hands of at most this many cards: it weighs each card the
#: deck holds and each card that could then go back, which for a big hand close to going out costs
#: a second of CPU (a hint may be asked by anyone, every two seconds); up to here, under 0.1 s.
EXCHANGE_UP_TO = 10


@attrs.frozen
class Plan:
    """A way to try to go out this turn, ``first`` its action (a draw of so many cards; or a theft,
    or draw-and-discard, after which the count to draw is chosen once the card is seen), and the
    exact chance that it empties the hand."""

    first: Action
    chance: float


@attrs.frozen
class TurnAdvice:
    """Every plan weighed (draws, then thefts, then draw-and-discard), the expert's next action,
    whether draw-and-discard was allowed but not weighed (the hand too big), whether the hand
    is at its limit with a group to discard (discarding first would make room to draw), and
    whether some chance is a lower bound (a hand of dozens of cards: see :func:`solver.bounded_chance`)."""

    plans: tuple[Plan, ...]
    expert: Action
    exchange_unweighed: bool
    full: bool
    bounded: bool = False


def turn_advice(view: View, adviser: Bot | None = None) -> TurnAdvice:
    """The advice for the seat to move in ``view`` (that seat's own view, at the start of its turn
    or between actions, with no card waiting to be put back); the move is ``adviser``'s (the bot
    that plays the seat on ``auto``), or a fresh :data:`ADVISER`'s."""
    look = Outlook(view.rules)
    plans, unweighed = weigh(view, look)
    hand, rules = view.hand, view.rules
    full = not view.drew and draw_room(rules, len(hand), view.deck_size) < min(rules.max_draw, view.deck_size)
    expert = (adviser or make_bot(ADVISER, random.Random(0))).choose(view)
    return TurnAdvice(plans, expert, unweighed, full and has_group(hand, rules), look.bounded)


def weigh(view: View, look: Outlook | None = None) -> tuple[tuple[Plan, ...], bool]:
    """Each plan open to the seat to move, with its chance: draw 1 to 3 cards now (as the hand limit
    and the deck allow); steal first from each player who may be robbed without winning by it, then
    draw the best count for the card taken; draw-and-discard first, then put back the best card for
    the one drawn and draw the best count (for hands of at most :data:`EXCHANGE_UP_TO` cards).
    Also whether draw-and-discard was open but not weighed."""
    if view.seat is None or view.seat != view.current or view.must_put_back or view.winner is not None:
        raise ValueError("advice is for the seat to move, between actions")
    look = look or Outlook(view.rules)
    mine, deck = look.flat(view.hand), look.flat(view.deck_contents().elements())
    then_draw = _then_draw(look, view.drew)
    plans: list[Plan] = []
    if not view.drew:
        plans += [Plan(Draw(k), look.chance(mine, deck, k)) for k in range(1, look.draw_room(mine, deck) + 1)]
    for victim in victims(view, view.seat):  # none once stolen, or at the hand limit
        taken = look.flat(view.hands[victim])
        plans.append(Plan(Steal(victim), mean_over(taken, lambda i: then_draw(bump(mine, i, 1), deck))))
    exchange = view.rules.draw_and_discard and not view.exchanged and look.draw_room(mine, deck) > 0
    weighed = exchange and len(view.hand) <= EXCHANGE_UP_TO
    if weighed:
        plans.append(Plan(DrawDiscard(), mean_over(deck, _best_put_back(mine, deck, then_draw))))
    return tuple(plans), exchange and not weighed


def put_back_chances(view: View) -> dict[Card, float]:
    """Midway through draw-and-discard (the seat's own view, a card to put back): for each card,
    the chance of going out this turn once it is back, drawing the best count the turn allows, as
    the draw-and-discard plan weighs it; empty for a hand over :data:`EXCHANGE_UP_TO` cards before
    the draw, as that plan is not weighed then."""
    if view.seat is None or not view.must_put_back or len(view.hand) > EXCHANGE_UP_TO + 1:
        return {}
    look = Outlook(view.rules)
    mine, deck = look.flat(view.hand), look.flat(view.deck_contents().elements())
    then_draw = _then_draw(look, view.drew)
    chances = {}
    for card in set(view.hand):
        i = look.flat([card]).index(1)
        chances[card] = then_draw(bump(mine, i, -1), bump(deck, i, 1))
    return chances


def _then_draw(look: Outlook, drew: bool) -> Callable[[Flat, Flat], float]:
    """The best chance with a hand and a deck, drawing what the turn still allows (nothing once it
    has drawn): how every plan ends, and the put-back's measure."""

    def chance(hand: Flat, pool: Flat) -> float:
        return look.chance(hand, pool, 0) if drew else look.best_draw(hand, pool)[0]

    return chance


def _best_put_back(mine: Flat, deck: Flat, then: Callable[[Flat, Flat], float]) -> Callable[[int], float]:
    """For card ``i`` drawn by draw-and-discard: the best chance over the cards to put back."""

    def worth(i: int) -> float:
        held, pool = bump(mine, i, 1), bump(deck, i, -1)
        return max(then(bump(held, j, -1), bump(pool, j, 1)) for j, copies in enumerate(held) if copies)

    return worth


__all__ = [
    "ADVISER",
    "EXCHANGE_UP_TO",
    "Plan",
    "TurnAdvice",
    "put_back_chances",
    "turn_advice",
    "weigh",
]
