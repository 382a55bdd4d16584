"""huxxy's cards, where mutation testing found the rules tests silent: what a card may be made of
and which suits are red."""

from __future__ import annotations

import pytest

from games.huxxy import CARDS, JOKER, Card, CardError


@pytest.mark.parametrize(
    ("value", "suit"),
    [(0, "S"), (14, "S"), (-1, "H"), (1, "X"), (13, "X"), (0, "x"), (1, "SH"), (1, ""), (1, "E")],
)
def test_a_card_outside_the_two_packs_cannot_be_made(value: int, suit: str) -> None:
    with pytest.raises(CardError, match="no such card"):
        Card(value, suit)


def test_the_lowest_and_highest_cards_and_the_joker_can_be_made() -> None:
    assert str(Card(1, "S")) == "AS"
    assert str(Card(13, "C")) == "KC"
    assert Card(0, "X") == JOKER and JOKER.is_joker
    assert not any(card.is_joker for card in CARDS)


def test_hearts_and_diamonds_are_red_spades_and_clubs_black() -> None:
    assert {card.suit for card in CARDS if card.red} == {"H", "D"}
    assert {card.suit for card in CARDS if not card.red} == {"S", "C"}
