"""Cards: 32 of them, colours R Y G B × numbers 1–8, written ``G3``.

Every strategy tie-break in the rules is "rainbow order" (R-Y-G-B) or counting
order, so a card's :attr:`Card.rank` sorts by colour, then number.
"""

from __future__ import annotations

import attrs

#: The colours in rainbow order; the order every tie-break uses.
COLOURS = "RYGB"
#: Each colour's name: a player naming the colour an 8 calls may type it for the letter
#: (``play R8 yellow``); the letter is what is written (the record, the batch output).
COLOUR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
#: The ways to name a colour, for a refusal or a help line to list.
COLOUR_WORDS = "R, Y, G or B, or red, yellow, green or blue"
#: The numbers on the cards, in counting order.
NUMBERS = range(1, 9)


class CardError(ValueError):
    """Text that does not name one of the 32 cards."""


def _check_colour(_instance: object, _attribute: object, value: str) -> None:
    if not (isinstance(value, str) and len(value) == 1 and value in COLOURS):
        raise CardError(f"unknown colour {value!r}: colours are R, Y, G and B")


def read_colour(text: str) -> str | None:
    """The colour ``text`` names, as its letter: the letter or the colour's name, in any case
    (``y``, ``Yellow``: ``Y``); ``None`` if it names none."""
    word = text.lower()
    for letter, name in COLOUR_NAMES.items():
        if word in (letter.lower(), name):
            return letter
    return None


def _check_number(_instance: object, _attribute: object, value: int) -> None:
    if type(value) is not int or value not in NUMBERS:
        raise CardError(f"card number must be 1 to 8, not {value!r}")


@attrs.frozen(slots=True, repr=False)
class Card:
    """One card; each of the 32 exists once, so hands are sets in practice."""

    colour: str = attrs.field(validator=_check_colour)
    number: int = attrs.field(validator=_check_number)
    #: Sort key: rainbow order of colour, then counting order of number. Worked out once, as
    #: the card is made: every sort of a hand reads it.
    rank: tuple[int, int] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "rank", (COLOURS.index(self.colour), self.number))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``G3`` (exactly: upper-case colour letter, then a number 1–8)."""
        card = _BY_TEXT.get(text)
        if card is None:
            raise _not_a_card(text)
        return card

    @classmethod
    def read(cls, text: str) -> Card:
        """A card as a person types it, in any case (``g3`` is G3); a refusal quotes it as typed."""
        card = _BY_TEXT.get(text.upper())
        if card is None:
            raise _not_a_card(text)
        return card

    def __str__(self) -> str:
        return f"{self.colour}{self.number}"

    def __repr__(self) -> str:
        return f"Card({self})"


def _not_a_card(text: str) -> CardError:
    return CardError(f"{text!r} is not a card (a colour R, Y, G or B and a number 1 to 8)")


#: The 32 cards, made once: a card is immutable, so every deal and every parse shares them.
_DECK = tuple(Card(colour, number) for colour in COLOURS for number in NUMBERS)
_BY_TEXT = {str(card): card for card in _DECK}


def full_deck() -> list[Card]:
    """All 32 cards in rainbow order: R1 … R8, Y1 … B8."""
    return list(_DECK)


#: How many cards the game uses.
DECK_SIZE = len(COLOURS) * len(NUMBERS)
