"""Cards: a colour letter and a number, written ``R10``, ``K3``."""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from games._interface import action_words

#: Canonical display order of colours; also the order cards sort in.
COLOUR_ORDER = "RYGBK"

COLOUR_NAMES = {
    "R": "red",
    "Y": "yellow",
    "G": "green",
    "B": "blue",
    "K": "black",
}

_CARD_RE = re.compile(r"\s*([A-Za-z])([0-9]{1,3})\s*")


class CardError(ValueError):
    """Text that does not name a card."""


_RANK = {colour: index for index, colour in enumerate(COLOUR_ORDER)}


@attrs.frozen(slots=True, eq=False, order=False, repr=False)
class Card:
    """One card. Two copies of each card exist, indistinguishable, so hands are multisets.

    Cards sort in canonical order: by colour (R Y G B K), then number.
    """

    colour: str
    number: int
    # Sort key and text, precomputed: cards are sorted and written out constantly.
    _rank: int = attrs.field(init=False, eq=False, repr=False)
    _text: str = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        # Validate here rather than with attrs validators: cards are created
        # very often (solver, engine) and this check is cheap.
        if not (isinstance(self.colour, str) and self.colour in _RANK):
            raise CardError(f"unknown colour {self.colour!r}: colours are {', '.join(COLOUR_ORDER)}")
        if type(self.number) is not int or self.number < 1:
            raise CardError(f"card number must be a positive whole number, not {self.number!r}")
        object.__setattr__(self, "_rank", _RANK[self.colour] << 16 | self.number)
        object.__setattr__(self, "_text", f"{self.colour}{self.number}")

    # Equality and hashing by the precomputed rank, which names the card: the engine compares and
    # hashes cards at every move, and attrs' generated methods build tuples each time.
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not Card:
            return NotImplemented
        return self._rank == other._rank

    def __hash__(self) -> int:
        return self._rank

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._rank < other._rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._rank <= other._rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._rank > other._rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._rank >= other._rank

    @classmethod
    def of(cls, colour: str, number: int) -> Card:
        """The shared instance of a card (cheaper than constructing one)."""
        card = _INTERN.get((colour, number))
        if card is None:
            card = _INTERN[(colour, number)] = cls(colour, number)
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """``"r10"`` -> ``Card("R", 10)``; the inverse of ``str(card)``."""
        if not isinstance(text, str):
            raise CardError(f"a card is written as colour letter and number, e.g. R10; got {text!r}")
        match = _CARD_RE.fullmatch(text)
        if match is None:
            raise CardError(f"{text!r} is not a card: write a colour letter and a number, e.g. R10 or K3")
        letter, digits = match.group(1).upper(), match.group(2)
        if digits.startswith("0"):
            raise CardError(f"{text!r} is not a card: numbers are positive, written without leading zeros")
        if letter not in COLOUR_ORDER:
            raise CardError(f"{text!r} is not a card: colour letters are {', '.join(COLOUR_ORDER)}")
        return cls.of(letter, int(digits))

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_INTERN: dict[tuple[str, int], Card] = {}


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"R3 R4 r5"`` (or an iterable of card strings) into cards."""
    words = action_words(text) if isinstance(text, str) else list(text)
    return [Card.parse(word) for word in words]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in canonical order, space separated: the display form of a hand or group."""
    return " ".join(str(card) for card in sorted(cards))
