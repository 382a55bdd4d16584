"""What opponents take from a bot's hand between its turns.

A last card stolen makes its owner the winner, so against a player who steals
without looking, one card left alone is worth waiting with. Such a theft ends
the game, so it is never seen. What is seen is how often a bigger hand is
robbed, and each time a lone card is left alone: evidence that the thieves
look before they steal.

Rounds in which opponents could act and no hand changed at all say more
than any rate: nobody is acting, so no theft is coming, whoever sits at the
table. (An opponent stuck at the hand limit cannot act; that is no evidence.)
"""

from __future__ import annotations

from games.notty import Card

from ..engine import View
from ._base import an_opponent_can_act

#: Before any lone card is left alone: the belief that the thieves steal without looking. 0.2 cost
#: the expert a few turns of waiting in most games against `greedy`, which never takes a lone card;
#: 0.1 still waits for `random` (bench/RESULTS.md, issue 20).
CARELESS_PRIOR = 0.1


class Thefts:
    """One bot's record over one game; a new game (the turn count going back) starts it afresh."""

    def __init__(self) -> None:
        self.exposed = 0  # turns ended with 2 or more cards
        self.robbed = 0  # ... after which the hand was smaller at the bot's next turn
        self.left_alone = 0  # turns ended with 1 card that was still there at the next
        self.quiet = 0  # rounds in a row, up to this turn, in which opponents could act and no hand changed
        self._seen: View | None = None  # the view at the bot's last decision

    def watch(self, view: View, seat: int) -> None:
        """Call at every decision: a new turn compares the table with the one the last turn ended with."""
        last, self._seen = self._seen, view
        if last is None:  # a bot that takes a seat mid-game, or advises: the table's own count
            self.quiet = max(self.quiet, view.quiet_turns // len(view.hands))
            return
        if view.turn == last.turn:
            return
        if view.turn < last.turn:
            self.exposed = self.robbed = self.left_alone = self.quiet = 0
            return
        unchanged = _cards_held(view) == _cards_held(last)
        self.quiet = self.quiet + 1 if unchanged and an_opponent_can_act(last, seat) else 0
        ended_with, held = len(last.hands[seat]), len(view.hands[seat])
        if ended_with >= 2:
            self.exposed += 1
            self.robbed += held < ended_with
        elif ended_with == 1:
            self.left_alone += 1

    def rate(self) -> float:
        """How often a hand of two or more is robbed between turns (Laplace's rule)."""
        return (self.robbed + 1) / (self.exposed + 2)

    def last_taken(self) -> float:
        """The chance that a lone card left at the end of a turn is stolen before the next."""
        rate = self.rate()
        careless = CARELESS_PRIOR * (1.0 - rate) ** self.left_alone
        return rate * careless / (careless + 1.0 - CARELESS_PRIOR)


def _cards_held(view: View) -> tuple[tuple[Card, ...], ...]:
    """Every hand as a multiset: the order of cards in a hand is no change."""
    return tuple(tuple(sorted(hand)) for hand in view.hands)
