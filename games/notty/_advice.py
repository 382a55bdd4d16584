"""A hint's advice for the turn under way: the best chance of going out now, and the expert's move.

The discard hint answers the rules' question (the most that can be discarded now),
which is "nothing" on most turns; what a player then wants to know is whether to
draw, how many, and whom to rob. Hands are face up and the deck's contents are
public, so the chance that a plan empties the hand this turn is exact arithmetic
(:class:`~games.notty.bots._outlook.Outlook`), never a look at the deck's order.
Going out now is not the whole game (cards drawn in vain stay in the hand), so the
advice also says what the ``expert`` bot would do in the player's place.
"""

from __future__ import annotations

import random

import attrs

from solver import Flat

from .bots import make_bot
from .bots._base import victims
from .bots._outlook import Outlook, bump, mean_over
from .engine import Action, DrawDiscard, Steal, View

#: The bot whose move the advice gives (a fresh one: it has seen none of this game's thefts).
ADVISER = "expert-hard"


@attrs.frozen
class TurnAdvice:
    """``chance``: the best of the plans counted. ``first``: the action that begins it, after which
    the count to draw is best chosen once its card is seen; or ``None``, and ``draw`` is the count
    to draw now (0: none). ``expert``: the expert bot's next action in the player's place."""

    chance: float
    first: Action | None
    draw: int
    expert: Action


def turn_advice(view: View) -> TurnAdvice:
    """The advice for the seat to move in ``view`` (which must be that seat's own view, mid-turn
    or at its start, with no card waiting to be put back).

    The plans counted: draw now (0 to 3 cards, as the hand limit and the deck allow); steal first
    from each opponent who may be robbed without winning by it, then draw as the card taken
    allows; and, where the rules have it, draw-and-discard first (the card to put back chosen
    after the one drawn is seen), then draw."""
    if view.seat is None or view.seat != view.current or view.must_put_back or view.winner is not None:
        raise ValueError("advice is for the seat to move, between actions")
    look = Outlook(view.rules)
    mine, deck = look.flat(view.hand), look.flat(view.deck_contents().elements())

    def draw_now(hand: Flat, pool: Flat) -> float:
        return look.best_draw(hand, pool)[0] if not view.drew else look.chance(hand, pool, 0)

    chance, count = look.best_draw(mine, deck) if not view.drew else (look.chance(mine, deck, 0), 0)
    first: Action | None = None
    if chance < 1.0 and not view.stole:
        for victim in victims(view, view.seat):
            taken = look.flat(view.hands[victim])
            p = mean_over(taken, lambda i: draw_now(bump(mine, i, 1), deck))
            if p > chance:
                chance, first = p, Steal(victim)
    if chance < 1.0 and view.rules.draw_and_discard and not view.exchanged and look.draw_room(mine, deck):

        def exchanged(i: int) -> float:  # card i drawn; the best card to put back, then the best draw
            held, pool = bump(mine, i, 1), bump(deck, i, -1)
            return max(draw_now(bump(held, j, -1), bump(pool, j, 1)) for j, n in enumerate(held) if n)

        p = mean_over(deck, exchanged)
        if p > chance:
            chance, first = p, DrawDiscard()
    expert = make_bot(ADVISER, random.Random(0)).choose(view)
    return TurnAdvice(chance, first, 0 if first is not None else count, expert)


__all__ = ["ADVISER", "TurnAdvice", "turn_advice"]
