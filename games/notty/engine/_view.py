"""What one seat (or a spectator) may see: everything but the deck's order."""

from __future__ import annotations

from collections import Counter

import attrs

from games.notty import Card, Rules

from ._events import EndReason


@attrs.frozen
class View:
    """A snapshot of a game as one seat sees it. Hands are face up, so all are here.

    The deck's contents follow from the hands (every other card is in it); its
    order is never known to anyone, so it is not here.
    """

    rules: Rules
    names: tuple[str, ...]
    seat: int | None  # whose view this is; None for a spectator
    hands: tuple[tuple[Card, ...], ...]
    deck_size: int
    current: int
    turn: int
    drew: bool
    stole: bool
    exchanged: bool
    must_put_back: bool
    winner: int | None
    end_reason: EndReason | None
    #: Turns in a row, up to the last one ended, over which no hand changed (see Rules.quiet_rounds).
    quiet_turns: int = 0
    #: Whether every hand is as it was when this turn began (False where that is not known): ending the
    #: turn so adds one to ``quiet_turns``.
    unchanged: bool = False

    @property
    def over(self) -> bool:
        return self.end_reason is not None

    @property
    def hand(self) -> tuple[Card, ...]:
        """The viewer's own hand (the current player's, for a spectator)."""
        return self.hands[self.current if self.seat is None else self.seat]

    @property
    def my_turn(self) -> bool:
        return self.seat == self.current and not self.over

    def deck_contents(self) -> Counter[Card]:
        """The multiset of cards in the deck: the full deck minus every hand."""
        deck = Counter(self.rules.full_deck())
        for hand in self.hands:
            deck.subtract(hand)
        return +deck
