"""What a bot is: a policy from a view to an action, with its own random source."""

from __future__ import annotations

import random
from typing import Protocol

from ..engine import Action, Steal, View, is_legal, stuck


class Bot(Protocol):
    """Chooses the next action for ``view.seat``, seeing only what that seat may see."""

    name: str

    def choose(self, view: View) -> Action: ...

    def catch_up(self, view: View) -> None:
        """Take in a position this seat moved from, without choosing.

        A restored game shows its bots the positions they chose at before the
        restart, so a bot that remembers (the expert's theft record) goes on as
        it would have. A bot with no memory needs nothing here.
        """
        return None  # not abstract: most bots keep nothing


def opponents(view: View, seat: int) -> list[int]:
    """The other seats, in the order they play after ``seat``."""
    seats = len(view.hands)
    return [(seat + k) % seats for k in range(1, seats)]


def victims(view: View, seat: int) -> list[int]:
    """The opponents ``seat`` may rob now without handing them the game, in seat order.

    A last card stolen makes its owner the winner, so only hands of two or
    more cards count, and only where a theft is legal (not at the hand limit,
    not twice a turn).
    """
    return [
        other
        for other, cards in enumerate(view.hands)
        if other != seat and len(cards) >= 2 and is_legal(view, seat, Steal(other))
    ]


def an_opponent_can_act(view: View, seat: int) -> bool:
    """Is some opponent not stuck at the hand limit, so able to draw, steal or discard?"""
    return any(not stuck(view.hands[other], view.rules) for other in opponents(view, seat))


class BotFactory(Protocol):
    def __call__(self, rng: random.Random) -> Bot: ...
