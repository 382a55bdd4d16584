"""Notty's cards, rulesets and group validity (games/notty/), checked against shared/rules/notty.md."""

from __future__ import annotations

from collections import Counter
from itertools import product

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.notty import (
    CLASSIC,
    COLOUR_ORDER,
    FIVE_COLOUR,
    PRESETS,
    Card,
    CardError,
    GroupKind,
    InvalidGroup,
    Rules,
    RulesError,
    classify_group,
    format_cards,
    has_group,
    is_group,
    parse_cards,
    rules_from,
    valid_groups,
)

# --------------------------------------------------------------------------- cards


@pytest.mark.parametrize(
    ("text", "colour", "number"),
    [
        ("R1", "R", 1),
        ("r1", "R", 1),
        ("R10", "R", 10),
        ("r10", "R", 10),
        ("Y7", "Y", 7),
        ("g5", "G", 5),
        ("B8", "B", 8),
        ("K3", "K", 3),
        ("k3", "K", 3),
    ],
)
def test_parse_is_case_insensitive(text: str, colour: str, number: int) -> None:
    card = Card.parse(text)
    assert (card.colour, card.number) == (colour, number)
    assert card == Card(colour, number)


@pytest.mark.parametrize(("text", "shown"), [("r10", "R10"), ("k3", "K3"), ("y7", "Y7"), ("B4", "B4")])
def test_output_is_upper_case(text: str, shown: str) -> None:
    assert str(Card.parse(text)) == shown


@pytest.mark.parametrize("text", [f"{c}{n}" for c in COLOUR_ORDER for n in range(1, 11)])
def test_round_trip(text: str) -> None:
    assert str(Card.parse(text)) == text
    assert str(Card.parse(text.lower())) == text
    card = Card.parse(text)
    assert Card.parse(str(card)) == card


@given(st.sampled_from(COLOUR_ORDER), st.integers(1, 999))
def test_round_trip_any_card(colour: str, number: int) -> None:
    card = Card(colour, number)
    assert Card.parse(str(card)) == card
    assert Card.parse(str(card).lower()) == card
    assert str(Card.parse(str(card))) == str(card)


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("X3", ["X3", "colour"]),
        ("R", ["'R'", "not a card"]),
        ("", ["not a card"]),
        ("   ", ["not a card"]),
        ("R-1", ["R-1", "not a card"]),
        ("3R", ["3R", "not a card"]),
        ("RR3", ["not a card"]),
        ("R3.5", ["not a card"]),
        ("R0", ["positive"]),
        (5, ["5"]),
        (None, ["None"]),
    ],
)
def test_bad_cards_raise_card_error(bad: object, words: list[str]) -> None:
    with pytest.raises(CardError) as caught:
        Card.parse(bad)  # type: ignore[arg-type]
    message = str(caught.value)
    for word in words:
        assert word in message, message
    # A bad card is a ValueError: callers that catch ValueError see it too.
    assert isinstance(caught.value, ValueError)


def test_colour_error_lists_the_colours() -> None:
    with pytest.raises(CardError, match="R, Y, G, B, K"):
        Card.parse("X3")


@pytest.mark.parametrize(
    ("colour", "number"), [("X", 3), ("r", 3), ("RY", 3), ("R", 0), ("R", -1), ("R", 2.0), ("R", True)]
)
def test_card_constructor_validates(colour: str, number: int) -> None:
    with pytest.raises(CardError):
        Card(colour, number)


def test_cards_are_values() -> None:
    assert Card.parse("R3") == Card.parse("r3") == Card("R", 3)
    assert hash(Card.parse("R3")) == hash(Card("R", 3))
    assert len({Card.parse("R3"), Card("R", 3), Card.parse(" r3 ")}) == 1
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Card.parse("R3").number = 4  # type: ignore[misc]


def test_cards_sort_colour_first_in_canonical_order() -> None:
    cards = parse_cards("K1 B2 G3 Y4 R5 R1 R10")
    assert [str(c) for c in sorted(cards)] == ["R1", "R5", "R10", "Y4", "G3", "B2", "K1"]


def test_parse_and_format_cards() -> None:
    hand = parse_cards("r3, R4 g5  k1")
    assert hand == [Card("R", 3), Card("R", 4), Card("G", 5), Card("K", 1)]
    assert parse_cards(["b4", "R4", "B4"]) == [Card("B", 4), Card("R", 4), Card("B", 4)]
    assert parse_cards("") == []
    # format_cards: canonical order, upper case, duplicates kept.
    assert format_cards(parse_cards("b4 r4 B4 k2 y10")) == "R4 Y10 B4 B4 K2"
    assert format_cards([]) == ""
    with pytest.raises(CardError, match="X9"):
        parse_cards("R1 X9 R2")


@given(st.lists(st.builds(Card, st.sampled_from(COLOUR_ORDER), st.integers(1, 10)), max_size=12))
def test_format_then_parse_is_sorted_identity(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == sorted(cards)


# --------------------------------------------------------------------------- rulesets


def test_classic_preset_matches_rules_table() -> None:
    r = CLASSIC
    assert r.name == "classic"
    assert r.colours == "RYGB"
    assert r.numbers == 10
    assert r.copies == 2
    assert r.deck_size == 80
    assert len(r.full_deck()) == 80
    assert (r.min_players, r.max_players) == (2, 3)
    assert r.hand_size == 5
    assert r.hand_limit == 20
    assert r.shortest_run == 3
    assert r.smallest_set == 3
    assert r.draw_and_discard is False
    assert r.last_card_stolen_wins is True
    assert r.turn_limit == 0  # "by default a table has none"
    assert r.max_draw == 3  # draw 1, 2 or 3 cards


def test_five_colour_preset_matches_rules_table() -> None:
    r = FIVE_COLOUR
    assert r.name == "five-colour"
    assert r.colours == "RYGBK"
    assert r.numbers == 9
    assert r.copies == 2
    assert r.deck_size == 90
    assert len(r.full_deck()) == 90
    assert (r.min_players, r.max_players) == (2, 3)
    assert r.hand_size == 4
    assert r.hand_limit == 20
    assert r.shortest_run == 3
    assert r.smallest_set == 4
    assert r.draw_and_discard is True
    assert r.last_card_stolen_wins is True
    assert r.turn_limit == 0
    assert r.max_draw == 3


def test_presets_registry() -> None:
    assert set(PRESETS) == {"classic", "five-colour"}
    assert PRESETS["classic"] is CLASSIC
    assert PRESETS["five-colour"] is FIVE_COLOUR
    assert rules_from() == CLASSIC  # classic is the default
    assert rules_from("classic") == CLASSIC
    assert rules_from("five-colour") == FIVE_COLOUR


@pytest.mark.parametrize("rules", [CLASSIC, FIVE_COLOUR], ids=["classic", "five-colour"])
def test_full_deck_has_every_card_copies_times(rules: Rules) -> None:
    deck = rules.full_deck()
    counts = Counter(deck)
    assert len(counts) == len(rules.colours) * rules.numbers
    assert set(counts.values()) == {rules.copies}
    assert {c.colour for c in deck} == set(rules.colours)
    assert {c.number for c in deck} == set(range(1, rules.numbers + 1))
    assert deck == sorted(deck)
    assert all(rules.allows(card) for card in deck)


def test_allows() -> None:
    assert CLASSIC.allows(Card("R", 10))
    assert not CLASSIC.allows(Card("K", 3))
    assert not CLASSIC.allows(Card("R", 11))
    assert FIVE_COLOUR.allows(Card("K", 3))
    assert not FIVE_COLOUR.allows(Card("R", 10))


def test_at_limit() -> None:
    assert not CLASSIC.at_limit(19)
    assert CLASSIC.at_limit(20)
    assert CLASSIC.at_limit(21)
    unlimited = rules_from("classic", hand_limit=0)
    assert not unlimited.at_limit(20)
    assert not unlimited.at_limit(80)


def test_override_hand_limit_zero() -> None:
    old = rules_from("classic", hand_limit=0)
    assert old.hand_limit == 0
    # every other field is the preset's
    assert attrs.evolve(old, hand_limit=20) == CLASSIC
    # overriding never mutates the preset
    assert CLASSIC.hand_limit == 20


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("classic", {"smallest_set": 4}),
        ("classic", {"max_players": 4}),
        ("five-colour", {"draw_and_discard": False}),
        ("five-colour", {"turn_limit": 200}),
        ("classic", {"copies": 3, "shortest_run": 4}),
    ],
)
def test_overrides_change_only_those_fields(preset: str, overrides: dict[str, object]) -> None:
    base = PRESETS[preset]
    rules = rules_from(preset, **overrides)
    for field in attrs.fields(Rules):
        expected = overrides.get(field.name, getattr(base, field.name))
        assert getattr(rules, field.name) == expected, field.name


def test_rules_are_immutable() -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        CLASSIC.hand_limit = 0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("preset", "overrides", "words"),
    [
        # 1 colour x 3 numbers x 1 copy = 3 cards cannot deal 5 to 3 players
        ("classic", {"colours": "R", "numbers": 3, "copies": 1}, ["deck of 3", "cannot deal"]),
        ("classic", {"hand_size": 27}, ["deck of 80", "cannot deal", "27"]),
        ("five-colour", {"hand_size": 31}, ["deck of 90", "cannot deal"]),
        ("classic", {"hand_limit": 4}, ["hand_limit", "below", "5"]),
        ("classic", {"hand_size": 21}, ["hand_limit", "below"]),
        ("classic", {"colours": "RXGB"}, ["unknown colour", "X"]),
        ("classic", {"colours": ""}, ["colours", "non-empty"]),
        ("classic", {"colours": "RRGB"}, ["repeat"]),
        ("classic", {"colours": "BGYR"}, ["canonical order"]),
        ("classic", {"colours": "rygb"}, ["unknown colour"]),
        ("classic", {"numbers": 0}, ["numbers", "between 1 and 99", "0"]),
        ("classic", {"numbers": "10"}, ["numbers", "whole number"]),
        ("classic", {"copies": 0}, ["copies"]),
        ("classic", {"shortest_run": 1}, ["shortest_run"]),
        ("classic", {"smallest_set": 1}, ["smallest_set"]),
        ("classic", {"hand_limit": -1}, ["hand_limit"]),
        ("classic", {"min_players": 3, "max_players": 2}, ["max_players", "below", "min_players"]),
        ("classic", {"draw_and_discard": "yes"}, ["draw_and_discard", "true or false"]),
        ("classic", {"shortest_run": 11, "smallest_set": 5}, ["no group is possible"]),
        ("classic", {"size": 3}, ["unknown rule field", "size"]),
        ("five-colour", {"hand_limt": 0}, ["unknown rule field", "hand_limt"]),
    ],
)
def test_impossible_rulesets_are_rejected(
    preset: str, overrides: dict[str, object], words: list[str]
) -> None:
    with pytest.raises(RulesError) as caught:
        rules_from(preset, **overrides)
    message = str(caught.value)
    for word in words:
        assert word in message, message


def test_unknown_preset() -> None:
    with pytest.raises(RulesError) as caught:
        rules_from("six-colour")
    message = str(caught.value)
    assert "six-colour" in message
    assert "classic" in message and "five-colour" in message


def test_direct_construction_validates_too() -> None:
    with pytest.raises(RulesError, match="hand_limit"):
        Rules(hand_limit=3)
    with pytest.raises(RulesError, match="unknown colour"):
        Rules(colours="RGZ")
    assert Rules(colours="RK", numbers=20).deck_size == 80


def test_smallest_group() -> None:
    assert CLASSIC.smallest_group == 3
    assert FIVE_COLOUR.smallest_group == 3
    assert rules_from("classic", shortest_run=5, smallest_set=4).smallest_group == 4


# --------------------------------------------------------------------------- groups


def cards(text: str) -> list[Card]:
    return parse_cards(text)


@pytest.mark.parametrize(
    ("rules", "text", "kind"),
    [
        (CLASSIC, "R6 B6 Y6", GroupKind.SET),
        (CLASSIC, "R6 B6 Y6 G6", GroupKind.SET),
        (CLASSIC, "G5 G6 G7", GroupKind.RUN),
        (CLASSIC, "G7 G5 G6", GroupKind.RUN),  # order does not matter
        (CLASSIC, "R2 R3 R4 R5", GroupKind.RUN),
        (CLASSIC, "R1 G1 Y1", GroupKind.SET),
        (CLASSIC, "R8 R9 R10", GroupKind.RUN),
        (CLASSIC, " ".join(f"B{n}" for n in range(1, 11)), GroupKind.RUN),
        (FIVE_COLOUR, "R6 B6 Y6 K6", GroupKind.SET),
        (FIVE_COLOUR, "R6 B6 Y6 K6 G6", GroupKind.SET),
        (FIVE_COLOUR, "K7 K8 K9", GroupKind.RUN),
    ],
)
def test_valid_groups_classify(rules: Rules, text: str, kind: GroupKind) -> None:
    assert classify_group(cards(text), rules) is kind
    assert is_group(cards(text), rules)


@pytest.mark.parametrize(
    ("rules", "text", "words"),
    [
        # the worked checks
        (CLASSIC, "B4 R4 B4", ["repeat", "colour", "B"]),
        (CLASSIC, "B4 B6 B7", ["consecutive", "B5"]),
        # five-colour: a set needs four colours
        (FIVE_COLOUR, "R1 G1 Y1", ["set", "at least 4"]),
        (FIVE_COLOUR, "R6 B6 Y6", ["set", "at least 4"]),
        # runs do not wrap
        (CLASSIC, "R9 R10 R1", ["consecutive", "R2", "R8"]),
        (FIVE_COLOUR, "G8 G9 G1", ["consecutive"]),
        # too short
        (CLASSIC, "R1 R2", ["at least 3"]),
        (CLASSIC, "R1 Y1", ["at least 3"]),
        (CLASSIC, "", ["no cards", "at least 3"]),
        (rules_from("classic", shortest_run=4), "R1 R2 R3", ["run", "at least 4"]),
        # neither kind
        (CLASSIC, "R1 Y2 G3", ["neither a run", "nor a set"]),
        (CLASSIC, "R1 R2 Y2", ["neither a run", "nor a set"]),
        # a run repeats a number
        (CLASSIC, "R3 R3 R4", ["run", "repeat", "number"]),
        (CLASSIC, "R3 R3 R3", ["repeat", "colour"]),
        # foreign cards
        (CLASSIC, "K1 K2 K3", ["K1 K2 K3", "not in the classic deck"]),
        (CLASSIC, "R9 R10 R11", ["R11", "not in the classic deck"]),
        (FIVE_COLOUR, "R8 R9 R10", ["R10", "not in the five-colour deck"]),
    ],
)
def test_invalid_groups_say_why(rules: Rules, text: str, words: list[str]) -> None:
    with pytest.raises(InvalidGroup) as caught:
        classify_group(cards(text), rules)
    message = str(caught.value)
    for word in words:
        assert word in message, message
    assert not is_group(cards(text), rules)


def test_worked_check_groups() -> None:
    # Classic R6 B6 Y6 G7 G6 G5: R6 B6 Y6 and G5 G6 G7 are groups; so is R6 B6 Y6 G6.
    hand = cards("R6 B6 Y6 G7 G6 G5")
    groups = set(valid_groups(hand, CLASSIC))
    assert tuple(sorted(cards("R6 B6 Y6"))) in groups
    assert tuple(sorted(cards("G5 G6 G7"))) in groups
    assert tuple(sorted(cards("R6 B6 Y6 G6"))) in groups
    assert max(len(g) for g in groups) == 4
    # The same hand in five-colour: the only set is the four-colour one.
    five = set(valid_groups(hand, FIVE_COLOUR))
    assert tuple(sorted(cards("R6 B6 Y6"))) not in five
    assert tuple(sorted(cards("R6 B6 Y6 G6"))) in five


def test_invalid_group_is_value_error() -> None:
    assert issubclass(InvalidGroup, ValueError)


def test_has_group_examples() -> None:
    assert has_group(cards("R1 R2 R3"), CLASSIC)
    assert not has_group(cards("R1 R2 R4 R5"), CLASSIC)
    assert not has_group(cards("R9 R10 R1 R2"), CLASSIC)  # no wrap
    assert has_group(cards("R1 G1 Y1"), CLASSIC)
    assert not has_group(cards("R1 G1 Y1"), FIVE_COLOUR)
    assert not has_group(cards("B4 R4 B4"), CLASSIC)
    assert not has_group([], CLASSIC)


# ----------------------------------------------------------------- properties


def reference_is_group(group: list[Card], rules: Rules) -> bool:
    """Independent statement of the rules text: a run or a set of deck cards."""
    if any(c.colour not in rules.colours or not 1 <= c.number <= rules.numbers for c in group):
        return False
    colours = [c.colour for c in group]
    numbers = sorted(c.number for c in group)
    is_run = (
        len(group) >= rules.shortest_run
        and len(set(colours)) == 1
        and numbers == list(range(numbers[0], numbers[0] + len(group)))
    )
    is_set = len(group) >= rules.smallest_set and len(set(numbers)) == 1 and len(set(colours)) == len(group)
    return is_run or is_set


@st.composite
def rulesets(draw: st.DrawFn) -> Rules:
    preset = draw(st.sampled_from([CLASSIC, FIVE_COLOUR, None]))
    if preset is not None:
        return preset
    colours = "".join(c for c in COLOUR_ORDER if draw(st.booleans()))
    colours = colours or "RY"
    numbers = draw(st.integers(5, 12))  # >= shortest_run: never an impossible ruleset
    return Rules(
        colours=colours,
        numbers=numbers,
        copies=draw(st.integers(1, 3)),
        hand_size=1,
        hand_limit=0,
        shortest_run=draw(st.integers(2, 5)),
        smallest_set=draw(st.integers(2, 5)),
    )


@st.composite
def rules_and_group(draw: st.DrawFn) -> tuple[Rules, list[Card]]:
    rules = draw(rulesets())
    # Mostly near-groups: a few colours and numbers, some from outside the deck.
    colours = rules.colours + draw(st.sampled_from(["", "K"]))
    base = draw(st.integers(1, rules.numbers))
    card = st.builds(Card, st.sampled_from(colours), st.integers(max(1, base - 2), base + 3))
    shape = draw(st.sampled_from(["any", "run", "set"]))
    if shape == "run":
        colour = draw(st.sampled_from(colours))
        length = draw(st.integers(1, 7))
        group = [Card(colour, n) for n in range(base, base + length)]
        group += draw(st.lists(card, max_size=1))
        group = draw(st.permutations(group))
    elif shape == "set":
        chosen = draw(st.lists(st.sampled_from(colours), min_size=1, max_size=6))
        group = [Card(c, base) for c in chosen]
    else:
        group = draw(st.lists(card, max_size=6))
    return rules, list(group)


@settings(max_examples=600, deadline=None)
@given(rules_and_group())
def test_is_group_agrees_with_reference(case: tuple[Rules, list[Card]]) -> None:
    rules, group = case
    expected = reference_is_group(group, rules) if group else False
    assert is_group(group, rules) == expected
    if expected:
        kind = classify_group(group, rules)
        assert kind is (GroupKind.SET if len({c.number for c in group}) == 1 else GroupKind.RUN)
    else:
        with pytest.raises(InvalidGroup) as caught:
            classify_group(group, rules)
        assert str(caught.value)  # always a reason


@st.composite
def rules_and_hand(draw: st.DrawFn, max_size: int = 10) -> tuple[Rules, list[Card]]:
    rules = draw(rulesets())
    deck = rules.full_deck()
    if draw(st.booleans()):  # a narrow window of numbers makes groups likely
        low = draw(st.integers(1, rules.numbers))
        deck = [c for c in deck if low <= c.number < low + 4]
    picks = draw(st.lists(st.integers(0, len(deck) - 1), unique=True, max_size=max_size))
    return rules, [deck[i] for i in picks]


def brute_force_groups(hand: list[Card], rules: Rules) -> set[tuple[Card, ...]]:
    """Every sub-multiset of the hand that is a group, by enumerating all sub-multisets."""
    counts = sorted(Counter(hand).items())
    found = set()
    for take in product(*(range(n + 1) for _, n in counts)):
        sub = [card for (card, _), k in zip(counts, take, strict=True) for _ in range(k)]
        if sub and reference_is_group(sub, rules):
            found.add(tuple(sorted(sub)))
    return found


@settings(max_examples=300, deadline=None)
@given(rules_and_hand())
def test_valid_groups_are_exactly_the_groups_in_the_hand(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    groups = valid_groups(hand, rules)
    assert len(groups) == len(set(groups)), "duplicates"
    have = Counter(hand)
    for group in groups:
        assert list(group) == sorted(group)
        classify_group(group, rules)  # raises if invalid
        assert not Counter(group) - have, f"{format_cards(group)} is not in the hand"
    assert set(groups) == brute_force_groups(hand, rules)
    assert groups == sorted(groups, key=lambda g: (g[0], len(g), g)), "not in canonical order"


@settings(max_examples=300, deadline=None)
@given(rules_and_hand(max_size=14))
def test_has_group_iff_valid_groups(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    assert has_group(hand, rules) == bool(valid_groups(hand, rules))
    if len(hand) <= 10:
        assert has_group(hand, rules) == bool(brute_force_groups(hand, rules))


def test_valid_groups_ignores_duplicates_and_order() -> None:
    hand = cards("R1 R2 R3 R1 R2 R3")
    groups = valid_groups(hand, CLASSIC)
    assert groups == [tuple(cards("R1 R2 R3"))]
    assert valid_groups(list(reversed(hand)), CLASSIC) == groups


def test_valid_groups_only_returns_groups_of_deck_cards() -> None:
    # R11 is not in the classic deck, so R9 R10 R11 is not a group ...
    hand = cards("R9 R10 R11")
    assert not is_group(hand, CLASSIC)
    assert not has_group(hand, CLASSIC)
    # ... but valid_groups lists it, so has_group(hand) != bool(valid_groups(hand)).
    assert valid_groups(hand, CLASSIC) == []
