"""The automatic strategy of the rules text: what batch mode and the ``rule`` bot play.

A pure function of what the player to move sees, so bots, tests and the batch
runner share one definition.
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Action, Draw, Play, TakeTwo, play
from .cards import COLOURS, Card
from .engine import Game
from .matching import EIGHT, playable
from .rules import Rules

_DRAW = Draw()
_TAKE_TWO = TakeTwo()


def rule_choice(
    hand: Sequence[Card], top: Card, rules: Rules, named: str | None = None, two_pending: bool = False
) -> Action:
    """The automatic strategy's move with ``hand`` on ``top``.

    - a 2 to answer: the first 2 in rainbow order, else take two;
    - rule ``eights``: a playable 8 if there is one (first in rainbow order),
      naming the first colour in rainbow order left in the hand, or nothing
      if it was the last card;
    - otherwise count the hand's cards of the top's number (N) and colour (C;
      the named colour after an 8): N > C plays that number, first in rainbow
      order; else that colour, lowest number; nothing playable draws.
    """
    cards = playable(hand, top, named, two_pending)
    if two_pending:
        return play(cards[0]) if cards else _TAKE_TWO
    if not cards:
        return _DRAW
    if rules.eights:
        eights = [card for card in cards if card.number == EIGHT]
        if eights:
            return _play_eight(hand, eights[0])
    colour = top.colour if named is None else named
    by_number = [card for card in cards if card.number == top.number]
    by_colour = [card for card in cards if card.colour == colour]
    chosen = by_number if len(by_number) > len(by_colour) else by_colour
    # ``cards`` is in rainbow order, so the first of a number is first in rainbow
    # order and the first of a colour is its lowest number.
    return play(chosen[0])


def _play_eight(hand: Sequence[Card], eight: Card) -> Play:
    rest = {card.colour for card in hand if card != eight}
    if not rest:
        return play(eight)
    return play(eight, next(colour for colour in COLOURS if colour in rest))


def rule_move(game: Game) -> Action:
    """The automatic strategy's move for the player to move in ``game``."""
    return rule_choice(game.hand(game.current), game.top, game.rules, game.named, game.two_pending)
