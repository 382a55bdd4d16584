"""Which cards may go on the pile: the one rule the engine and every strategy share."""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter

from .cards import Card

#: Sort key of a card: rainbow order (:attr:`Card.rank`).
RANK = attrgetter("rank")
#: The number that, with rule ``twos``, must be answered in kind.
TWO = 2
#: The number that, with rule ``eights``, names a colour.
EIGHT = 8


def matches(card: Card, top: Card, named: str | None) -> bool:
    """``card`` matches the top card in colour or number; after an 8 named a colour, that colour counts."""
    colour = top.colour if named is None else named
    return card.colour == colour or card.number == top.number


def playable(hand: Iterable[Card], top: Card, named: str | None, two_pending: bool) -> list[Card]:
    """The cards of ``hand`` that may be played now, in rainbow order.

    With a 2 to answer only a 2 may be played (any colour: it matches by number).
    """
    if two_pending:
        cards = [card for card in hand if card.number == TWO]
    else:
        colour, number = top.colour if named is None else named, top.number  # as in ``matches``
        cards = [card for card in hand if card.colour == colour or card.number == number]
    cards.sort(key=RANK)
    return cards
