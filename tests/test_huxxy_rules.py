"""huxxy's rules checks (games.huxxy): the rules text's worked checks, the source's joker examples,
and properties against an oracle written another way."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.huxxy import CARDS, JOKER, Card, CardError, opening_points, score, valid_group, valid_table

# -- the worked checks of the rules text ----------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "points"), [([], 0), (["AC"], 1), (["4C", "2H", "KS"], 19), (["XX", "0D"], 58)]
)
def test_points_left_in_a_hand(hand: list[str], points: int) -> None:
    assert score(hand) == points


@pytest.mark.parametrize(
    "group", ["AC 2H 3S", "3C AS 2H", "0C JH QS KH 9D", "2C 2H 2S", "2C 2H 2S 2D", "2C 2H 2S 2D 2S"]
)
def test_the_valid_tables_of_the_rules(group: str) -> None:
    assert valid_group(group.split())
    assert valid_table([group.split()])


@pytest.mark.parametrize("group", ["AC", "AC 2S", "AC 2S 3H", "AC 2S 4H", "2C 2H", "2C 2H 2C", "2C 2H 2S 2C"])
def test_the_invalid_groups_of_the_rules(group: str) -> None:
    assert not valid_group(group.split())
    assert not valid_table([["2C", "2H", "2S"], group.split()])  # one bad group spoils the table


def test_an_opening_of_three_aces_is_short_of_24_points() -> None:
    assert opening_points(["AC", "AH", "AD"]) == 3 < 24
    assert opening_points(["XX", "KS", "KH", "KD"]) == 39  # a joker counts 0 towards an opening


def test_an_empty_table_is_valid_and_no_run_wraps_from_king_to_ace() -> None:
    assert valid_table([])
    assert not valid_group(["QS", "KH", "AS"])
    assert valid_group(["JD", "QS", "KH"])


# -- jokers (the bonus version), as the source describes them -------------------------------------


@pytest.mark.parametrize(
    ("group", "valid"),
    [
        ("2C 3H XX", True),  # AH, AD, 4S or 4C
        ("3C 3H XX", True),  # 3D or 3S
        ("2C 4S 5H XX", True),  # the joker is the 3: 3H or 3D
        ("3H 4S 5H XX", True),
        ("XX XX AC", False),  # one joker a group
        ("AC XX", False),  # still 3 cards at least
        ("2C 2H 2S XX", True),  # the joker is the 2D
        ("2C 2C 2H 2S XX", True),  # five 2s, every suit: the joker is the 2D
        ("2C 2C 2H 2H 2S 2S XX", True),  # seven 2s: the joker is a 2D
        # A group never holds two instances of the card the joker stands for: with every suit
        # there, the joker could only be a second copy of one of them.
        ("2C 2H 2S 2D XX", False),
        ("2C 2C 2H 2H 2S 2S 2D XX", False),
        ("2C 2C 2H 2H 2S 2S 2D 2D XX", False),  # so no joker on an 8-of-a-kind
        ("AC 2S XX", False),  # AC 2S is no run: nothing the joker could be mends it
        ("KH XX QS", True),
    ],
)
def test_a_joker_stands_for_a_card_that_makes_the_group_valid(group: str, valid: bool) -> None:
    assert valid_group(group.split()) is valid


# -- cards ----------------------------------------------------------------------------------------


def test_every_card_reads_back_as_it_is_written() -> None:
    assert len(CARDS) == 52 and len(set(CARDS)) == 52
    for card in (*CARDS, JOKER):
        assert Card.parse(str(card)) == card
        assert Card.parse(str(card).lower()) == card
    assert str(Card.parse("0h")) == "0H"
    assert Card.parse("10H") == Card.parse("th") == Card.parse("0h")  # ten as people also write it
    for word in ("10", "T", "100H", "1OH", "TX", "10X"):
        with pytest.raises(ValueError):
            Card.parse(word)


@pytest.mark.parametrize("text", ["", "1C", "AX", "11H", "XY", "A", "ACE", "TX"])
def test_text_that_is_no_card_is_refused_with_what_a_card_is(text: str) -> None:
    with pytest.raises(CardError, match="is not a card"):
        Card.parse(text)


# -- properties -----------------------------------------------------------------------------------


def _oracle(cards: list[Card]) -> bool:
    """The group rules written another way: by the shape of values, suits and colours."""
    jokers = sum(card.is_joker for card in cards)
    naturals = [card for card in cards if not card.is_joker]
    if jokers:
        return jokers == 1 and any(_oracle([*naturals, card]) for card in CARDS)
    if len(cards) < 3 or max(Counter(cards).values()) > 2:
        return False
    values = sorted(card.value for card in cards)
    suits = [card.suit for card in cards]
    if values[0] == values[-1]:
        return len(set(suits)) == (len(cards) if len(cards) <= 4 else 4)
    if values != list(range(values[0], values[0] + len(cards))):
        return False
    by_value = sorted(cards, key=lambda card: card.value)
    return all(
        (card.suit in "HD") == ((by_value[0].suit in "HD") == (i % 2 == 0)) for i, card in enumerate(by_value)
    )


cards = st.sampled_from([*CARDS, JOKER])
groups = st.lists(cards, min_size=0, max_size=9)


@st.composite
def near_groups(draw: st.DrawFn) -> list[Card]:
    """Groups that are often valid: a run or a kind, perhaps spoiled, perhaps with a joker."""
    if draw(st.booleans()):
        start = draw(st.integers(1, 11))
        length = draw(st.integers(3, 14 - start))
        red = draw(st.booleans())
        group = [
            Card(start + i, draw(st.sampled_from("HD" if red == (i % 2 == 0) else "SC")))
            for i in range(length)
        ]
    else:
        value = draw(st.integers(1, 13))
        group = [
            Card(value, suit) for suit in draw(st.lists(st.sampled_from("SHDC"), min_size=3, max_size=8))
        ]
    if draw(st.booleans()):
        group[draw(st.integers(0, len(group) - 1))] = draw(cards)
    return draw(st.permutations(group))


@given(st.one_of(groups, near_groups()))
def test_a_group_is_valid_exactly_when_the_oracle_says_so_in_any_order(group: list[Card]) -> None:
    assert valid_group(group) is _oracle(group)
    assert valid_group(list(reversed(group))) is valid_group(group)


@given(near_groups())
def test_a_card_of_a_valid_group_held_once_may_be_a_joker_instead(group: list[Card]) -> None:
    if not valid_group(group) or JOKER in group:
        return
    once = [card for card, count in Counter(group).items() if count == 1]
    for card in once:
        swapped = list(group)
        swapped[swapped.index(card)] = JOKER
        assert valid_group(swapped), (group, card)
    assert not valid_group([*group, JOKER, JOKER])


@given(st.lists(cards, max_size=12), st.lists(cards, max_size=12))
def test_points_add_up_and_count_a_joker_48_in_a_hand_and_0_in_an_opening(
    a: list[Card], b: list[Card]
) -> None:
    assert score(a + b) == score(a) + score(b)
    assert score(a) - opening_points(a) == 48 * a.count(JOKER)
