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

from protocol import Card

from ..engine import View, stuck

#: Before any lone card is left alone: the belief that the thieves steal without looking.
CARELESS_PRIOR = 0.2


class Thefts:
    """One bot's record over one game; a new game (the turn count going back) starts it afresh."""

    def __init__(self) -> None:
        self.exposed = 0  # turns ended with 2 or more cards
        self.robbed = 0  # ... after which the hand was smaller at the bot's next turn
        self.left_alone = 0  # turns ended with 1 card that was still there at the next
        self.quiet = 0  # rounds in a row, up to this turn, in which opponents could act and no hand changed
        self._last: tuple[int, int] | None = None  # (turn, hand size) at the bot's last decision
        self._table: tuple[tuple[Card, ...], ...] = ()  # every hand at the bot's last decision
        self._free = False  # ... and whether an opponent could act then (not stuck at the limit)

    def watch(self, view: View, seat: int) -> None:
        """Call at every decision: a new turn compares the hand with the one the last turn ended with."""
        turn, held = view.turn, len(view.hands[seat])
        table = tuple(tuple(sorted(hand)) for hand in view.hands)
        free = any(not stuck(hand, view.rules) for other, hand in enumerate(view.hands) if other != seat)
        if self._last is not None and turn < self._last[0]:
            self.exposed = self.robbed = self.left_alone = self.quiet = 0
        elif self._last is not None and turn != self._last[0]:
            self.quiet = self.quiet + 1 if table == self._table and self._free else 0
            ended_with = self._last[1]
            if ended_with >= 2:
                self.exposed += 1
                self.robbed += held < ended_with
            elif ended_with == 1:
                self.left_alone += 1
        self._last, self._table, self._free = (turn, held), table, free

    def rate(self) -> float:
        """How often a hand of two or more is robbed between turns (Laplace's rule)."""
        return (self.robbed + 1) / (self.exposed + 2)

    def last_taken(self) -> float:
        """The chance that a lone card left at the end of a turn is stolen before the next."""
        rate = self.rate()
        careless = CARELESS_PRIOR * (1.0 - rate) ** self.left_alone
        return rate * careless / (careless + 1.0 - CARELESS_PRIOR)
