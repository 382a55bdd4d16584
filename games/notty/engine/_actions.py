"""Actions a player can take, each with a text form: ``Action.parse(str(a)) == a``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

import attrs

from games._interface import action_words
from games.notty import Card, CardError, parse_cards


class ActionSyntaxError(ValueError):
    """Text that is not an action."""


def _sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    cards = tuple(cards)
    if not all(isinstance(card, Card) for card in cards):
        raise TypeError(f"a discard is made of cards, not {cards!r}")
    return tuple(sorted(cards))


def _whole_number(_: object, attribute: attrs.Attribute[int], value: object) -> None:
    if type(value) is not int:
        raise TypeError(f"{attribute.name} must be a whole number, not {value!r}")


def _card(_: object, attribute: attrs.Attribute[Card], value: object) -> None:
    if not isinstance(value, Card):
        raise TypeError(f"{attribute.name} must be a card, not {value!r}")


@attrs.frozen
class Draw:
    """Take ``count`` cards from the deck (chosen before any is seen)."""

    count: int = attrs.field(validator=_whole_number)
    verb: ClassVar[str] = "draw"

    def __str__(self) -> str:
        return f"draw {self.count}"


@attrs.frozen
class Steal:
    """Take one card at random from the hand of seat ``victim``."""

    victim: int = attrs.field(validator=_whole_number)
    verb: ClassVar[str] = "steal"

    def __str__(self) -> str:
        return f"steal {self.victim}"


@attrs.frozen
class Discard:
    """Put a valid group from the hand back into the deck."""

    cards: tuple[Card, ...] = attrs.field(converter=_sorted_cards)
    verb: ClassVar[str] = "discard"

    def __str__(self) -> str:
        return "discard " + " ".join(map(str, self.cards))


@attrs.frozen
class DrawDiscard:
    """First step of draw-and-discard: take one card from the deck and look at it."""

    verb: ClassVar[str] = "dd"

    def __str__(self) -> str:
        return "dd"


@attrs.frozen
class PutBack:
    """Second step of draw-and-discard: put one card of the hand back into the deck."""

    card: Card = attrs.field(validator=_card)
    verb: ClassVar[str] = "putback"

    def __str__(self) -> str:
        return f"putback {self.card}"


@attrs.frozen
class EndTurn:
    verb: ClassVar[str] = "end"

    def __str__(self) -> str:
        return "end"


Action = Draw | Steal | Discard | DrawDiscard | PutBack | EndTurn

_USAGE = "actions: draw N, steal SEAT, discard CARDS..., dd, putback CARD, end"


def parse_action(text: str) -> Action:
    """The action written as ``text`` (the form ``str(action)`` gives)."""
    words = action_words(text)
    if not words:
        raise ActionSyntaxError(f"empty action; {_USAGE}")
    verb, args = words[0].lower(), words[1:]
    try:
        if verb in ("draw", "steal"):
            if len(args) != 1 or not re.fullmatch(r"[0-9]{1,6}", args[0]):
                raise ActionSyntaxError(f"{verb} takes one whole number, e.g. '{verb} 1'")
            number = int(args[0])
            return Draw(number) if verb == "draw" else Steal(number)
        if verb == "discard":
            if not args:
                raise ActionSyntaxError("discard takes the cards of a group, e.g. 'discard R3 R4 R5'")
            return Discard(tuple(parse_cards(args)))
        if verb == "putback":
            if len(args) != 1:
                raise ActionSyntaxError("putback takes one card, e.g. 'putback R5'")
            return PutBack(Card.parse(args[0]))
        if verb in ("dd", "end") and not args:
            return DrawDiscard() if verb == "dd" else EndTurn()
    except CardError as error:
        raise ActionSyntaxError(str(error)) from None
    raise ActionSyntaxError(f"not an action: {text.strip()!r}; {_USAGE}")
