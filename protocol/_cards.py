"""Cards: a colour letter and a number, written ``R10``, ``K3``."""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

#: Canonical display order of colours; also the order cards sort in.
COLOUR_ORDER = "RYGBK"

COLOUR_NAMES = {
    "R": "red",
    "Y": "yellow",
    "G": "green",
    "B": "blue",
    "K": "black",
}

_CARD_RE = re.compile(r"\s*([A-Za-z])\s*(\d{1,3})\s*")


class CardError(ValueError):
    """Text that does not name a card."""


@attrs.frozen(slots=True, order=True, repr=False)
class Card:
    """One card. Two copies of each card exist, indistinguishable, so hands are multisets."""

    colour: str = attrs.field(order=COLOUR_ORDER.index)
    number: int

    def __attrs_post_init__(self) -> None:
        # Validate here rather than with attrs validators: cards are created
        # very often (solver, engine) and this check is cheap.
        if not (isinstance(self.colour, str) and len(self.colour) == 1 and self.colour in COLOUR_ORDER):
            raise CardError(f"unknown colour {self.colour!r}: colours are {', '.join(COLOUR_ORDER)}")
        if type(self.number) is not int or self.number < 1:
            raise CardError(f"card number must be a positive whole number, not {self.number!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """``"r10"`` -> ``Card("R", 10)``; the inverse of ``str(card)``."""
        if not isinstance(text, str):
            raise CardError(f"a card is written as colour letter and number, e.g. R10; got {text!r}")
        match = _CARD_RE.fullmatch(text)
        if match is None:
            raise CardError(f"{text!r} is not a card: write a colour letter and a number, e.g. R10 or K3")
        letter, digits = match.group(1).upper(), match.group(2)
        if letter not in COLOUR_ORDER:
            raise CardError(f"{text!r} is not a card: colour letters are {', '.join(COLOUR_ORDER)}")
        return _interned(letter, int(digits))

    def __str__(self) -> str:
        return f"{self.colour}{self.number}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_INTERN: dict[tuple[str, int], Card] = {}


def _interned(colour: str, number: int) -> Card:
    key = (colour, number)
    card = _INTERN.get(key)
    if card is None:
        card = _INTERN[key] = Card(colour, number)
    return card


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"R3 R4 r5"`` (or an iterable of card strings) into cards."""
    words = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Card.parse(word) for word in words]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in canonical order, space separated: the display form of a hand or group."""
    return " ".join(str(card) for card in sorted(cards))
