"""What a player can do on a turn: play a card, draw, or take two.

``TakeTwo`` is an action the player takes, not something the engine does for
them: like ``Draw`` with no playable card it is then the only legal action, but
keeping it an action keeps one rule for the whole game — every turn is one
``apply`` by the seat whose turn it is, one line of batch output, one record
entry — and leaves it to a table or a bot whether to submit forced moves at once.
"""

from __future__ import annotations

import attrs

from .cards import COLOURS, Card, CardError


def _check_named(_instance: object, _attribute: object, value: str | None) -> None:
    if value is not None and not (isinstance(value, str) and len(value) == 1 and value in COLOURS):
        raise CardError(f"unknown colour {value!r}: colours are R, Y, G and B")


@attrs.frozen
class Play:
    """Play ``card`` from the hand; ``colour`` is the colour an 8 names (rule ``eights``)."""

    card: Card
    colour: str | None = attrs.field(default=None, validator=_check_named)

    def __str__(self) -> str:
        return str(self.card) if self.colour is None else f"{self.card} LOCO {self.colour}"


@attrs.frozen
class Draw:
    """No playable card: take the draw pile's top card, or pass if it is empty."""

    def __str__(self) -> str:
        return "DRAW"


@attrs.frozen
class TakeTwo:
    """A 2 was played and this player holds no 2: take two cards (as many as there are)."""

    def __str__(self) -> str:
        return "TAKE TWO"


Action = Play | Draw | TakeTwo

#: Every ``Play`` made by :func:`play`, by card and colour named: there are only 160 to make.
_PLAYS: dict[tuple[tuple[int, int], str | None], Play] = {}


def play(card: Card, colour: str | None = None) -> Play:
    """``Play(card, colour)``, made once and shared (a ``Play`` is immutable): the engine's legal
    actions and the automatic strategy ask for the same few plays move after move."""
    key = (card.rank, colour)
    made = _PLAYS.get(key)
    if made is None:
        made = _PLAYS[key] = Play(card, colour)
    return made
