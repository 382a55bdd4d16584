"""huxxy's cards: two 52-card packs (and two jokers in the bonus version), written ``AC``, ``0H``, ``XX``.

A card is two characters, value then suit, as the rules write them; a joker is
``XX``. The two copies of a card are alike, so a hand is a multiset.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

#: Values in counting order: ``0`` is ten. An ace is low only.
VALUES = "A234567890JQK"
#: Suits; spades and clubs are black, hearts and diamonds red.
SUITS = "SHDC"
#: The suits' symbols, read as their letters (``7♥`` is 7H), filled or not.
SUIT_SYMBOLS = str.maketrans("♠♥♦♣♤♡♢♧", "SHDCSHDC")
RED = frozenset("HD")
#: Copies of each card: two packs.
COPIES = 2
#: What a joker left in a hand costs at the end (it counts 0 towards an opening).
JOKER_POINTS = 48


class CardError(ValueError):
    """Text that names no huxxy card."""


@attrs.frozen(order=True, slots=True)
class Card:
    """A card: ``value`` 1 (ace) to 13 (king) and a suit, or a joker (value 0, suit ``X``)."""

    value: int
    suit: str

    def __attrs_post_init__(self) -> None:
        if not (self.is_joker or (1 <= self.value <= 13 and len(self.suit) == 1 and self.suit in SUITS)):
            raise CardError(f"no such card: value {self.value!r}, suit {self.suit!r}")

    @property
    def is_joker(self) -> bool:
        return self.value == 0 and self.suit == "X"

    @property
    def red(self) -> bool:
        return self.suit in RED

    @property
    def points(self) -> int:
        """What the card costs left in a hand at the end: its value, a joker 48."""
        return JOKER_POINTS if self.is_joker else self.value

    @classmethod
    def parse(cls, text: str, jokers: bool = True) -> Card:
        """``AC``, ``0h`` (or ``10h``, ``th``), ``XX``: value then suit, in either case.

        ``jokers``: whether the game has them. Without, the error for a word that is no card does not
        offer ``XX`` (which is still read, so that the rules may say there is no joker to play)."""
        word = text.strip().upper().translate(SUIT_SYMBOLS)
        if word == "XX":
            return JOKER
        if len(word) == 3 and word.startswith("10"):  # ten as people also write it (shown 0H)
            word = "0" + word[2]
        elif len(word) == 2 and word[0] == "T":
            word = "0" + word[1]
        if len(word) != 2 or word[0] not in VALUES or word[1] not in SUITS:
            raise CardError(
                f"{text!r} is not a card: a value ({', '.join(VALUES)}; 0 is ten) and a suit (S, H, D, C)"
                + (", or XX for a joker" if jokers else "")
            )
        return cls(VALUES.index(word[0]) + 1, word[1])

    def __str__(self) -> str:
        return "XX" if self.is_joker else VALUES[self.value - 1] + self.suit


JOKER = Card(0, "X")
#: Every card there is, once each, jokers aside.
CARDS = tuple(Card(value, suit) for suit in SUITS for value in range(1, 14))


def reading_order(card: Card) -> tuple[bool, int, int]:
    """The key people sort cards by: value, then suit; a joker last (a hand; a group as shown starts
    from it, a joker in a run then taking the place it fills: ``engine.display_order``)."""
    return (card.is_joker, card.value, 0 if card.is_joker else SUITS.index(card.suit))


def cards_of(cards: Iterable[Card | str]) -> list[Card]:
    """Cards, from cards or their text (as the rules and the players write them)."""
    return [card if isinstance(card, Card) else Card.parse(card) for card in cards]
