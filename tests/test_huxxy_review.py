"""huxxy reviewed as hosted: defects found by probing the seam, the engine and its messages, each
pinned by a test that failed before its fix."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_huxxy_engine import cards, hand, needs_solver, position, refused

from games import GAMES, ActionError
from games.autoplay import seeded_match
from games.huxxy.actions import ParseError, parse_action
from games.huxxy.engine import Reason, display_order, group_problem
from games.huxxy.game import HuxxyMatch

GAME = GAMES["huxxy"]


def match_of(
    hands: list[str], table: list[str], opened: list[bool], jokers: bool = False, stock: int | None = None
) -> HuxxyMatch:
    engine = position(hands, table, opened, jokers=jokers, stock=stock)
    variant = "huxxy-jokers" if jokers else "huxxy"
    return HuxxyMatch(
        GAME.settings(variant, len(hands), {}), [f"p{seat + 1}" for seat in range(len(hands))], engine
    )


# -- a group number in digits int() refuses was a crash (ValueError), not a refusal ---------------


@pytest.mark.parametrize(
    "text", ["play 7H to ²", "move 7H from ³ to 1", "move 7H from 1 to ⁴", "play 7H to ①"]
)
def test_a_group_number_in_digits_int_refuses_is_a_refusal_not_a_crash(text: str) -> None:
    with pytest.raises(ParseError, match="is not a group"):
        parse_action(text, [cards("7H 8S 9H"), cards("5C 5D 5S")])
    match = match_of(["7H 2C", "2D"], ["7H 8S 9H", "5C 5D 5S"], [True])
    with pytest.raises(ActionError) as error:
        match.parse_action(text)
    assert error.value.code == "bad-action"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_an_action_or_a_parse_error(text: str) -> None:
    """The host maps ParseError to a refusal; anything else is an internal error on the wire."""
    try:
        parse_action(f"play 7H to {text}", [cards("7H 8S 9H")])
        parse_action(f"move 7H from {text}", [cards("7H 8S 9H")])
    except ParseError:
        pass


# -- why a group is invalid: the message must be true ---------------------------------------------


@pytest.mark.parametrize("group", ["2C 2C 2H 2H 2S 2S 2D 2D XX", "2C 2H 2S 2D XX", "2C 2C 2H 2S 2D XX"])
def test_a_joker_beside_every_suit_is_refused_for_the_card_it_would_double_not_a_missing_suit(
    group: str,
) -> None:
    why = group_problem(cards(group))
    assert why is not None
    assert "every suit present" not in why  # every suit is there
    assert "joker" in why and "does not hold" in why


def test_a_joker_beside_a_full_run_a_to_k_is_refused_for_want_of_room_not_colours() -> None:
    why = group_problem(cards("AH 2S 3H 4S 5H 6S 7H 8S 9H 0S JH QS KH XX"))
    assert why is not None
    assert "colours" not in why  # they alternate
    assert "joker" in why


def test_the_end_names_the_true_reason_for_a_joker_with_no_place() -> None:
    engine = position(["XX 5C"], ["2C 2C 2H 2H 2S 2S 2D 2D"], [True], jokers=True)
    engine.play(0, [hand("XX", 0)])
    message = refused(engine, Reason.INVALID_TABLE, lambda: engine.end(0))
    assert message.startswith("group 1 (") and "joker" in message


def test_a_full_run_whose_colours_clash_still_says_colours() -> None:
    why = group_problem(cards("AH 2S 3H 4S 5H 6S 7H 8S 9H 0S JH QS KD XX"))  # alternating: no room
    assert why is not None and "joker" in why
    why = group_problem(cards("AH 2S 3H 4S 5H 6S 7H 8S 9H 0S JH QH KS XX"))  # JH QH: both red
    assert why is not None and "colours" in why


# -- a game that ended normally counted one turn more than its moves were made in -----------------


def turns_of(match: HuxxyMatch, moves: list[tuple[int, str]]) -> list[int]:
    """Make ``moves`` (seat, text); the turn each is made in, as the replay numbers it (the match's
    turn before the move)."""
    turns = []
    for seat, text in moves:
        turns.append(match.turn)
        match.apply(seat, match.parse_action(text))
    return turns


def test_a_game_won_by_emptying_a_hand_ends_at_the_turn_of_its_last_move() -> None:
    match = match_of(["2D", "7H 8S 9H"], [], [True, True])
    turns = turns_of(match, [(0, "draw"), (1, "play 7H 8S 9H"), (1, "end")])
    assert turns == [1, 2, 2]
    assert match.over and match.turn == 2 and match.current == 1


def test_a_game_ended_by_drawing_the_last_card_ends_at_the_turn_of_that_draw() -> None:
    match = match_of(["2D 3C", "4S"], [], [], stock=2)
    turns = turns_of(match, [(0, "draw"), (1, "draw")])
    assert turns == [1, 2]
    assert match.over and match.engine.stock_size == 0 and match.turn == 2


@pytest.mark.parametrize(
    ("variant", "bot", "seed", "reason"),
    [
        ("huxxy", "random", 1, "stock-exhausted"),
        ("huxxy", "random", 2, "stock-exhausted"),
        pytest.param("huxxy-jokers", "greedy", 3, "went-out", marks=needs_solver),
        pytest.param("huxxy", "greedy", 4, "went-out", marks=needs_solver),
    ],
)
def test_a_bot_game_played_to_the_end_counts_as_many_turns_as_were_played(
    variant: str, bot: str, seed: int, reason: str
) -> None:
    match, bots = seeded_match(GAME, GAME.settings(variant, 2, {}), [bot, bot], seed)
    assert isinstance(match, HuxxyMatch)
    turns = []
    while not match.over:
        seat = match.current
        turns.append(match.turn)
        match.apply(seat, bots[seat].choose(match.bot_view(seat)))
    outcome = match.outcome()
    assert outcome is not None and outcome.reason == reason
    assert match.turn == turns[-1] == len(set(turns))


# -- a joker was drawn last in a run, where it reads as a gap --------------------------------------


def table_after_joker(group: str) -> list[list[str]]:
    """The table everyone is shown once the current player, opened, adds XX to ``group`` and ends
    the turn."""
    match = match_of(["XX 2D", "4S"], [group], [True], jokers=True)
    match.apply(0, match.parse_action("play XX to 1"))
    match.apply(0, match.parse_action("end"))
    table = match.view(None)["table"]
    assert match.view(1)["table"] == table
    return list(table)


@pytest.mark.parametrize(
    ("group", "shown"),
    [
        ("9C JS QH KC", "9C XX JS QH KC"),  # the joker is the 10
        ("2H 3S 4D 6D 7C 8D 9C 0H JS QH KC", "2H 3S 4D XX 6D 7C 8D 9C 0H JS QH KC"),  # the 5
        ("JS QH KC", "XX JS QH KC"),  # nothing above a king: the joker is the 10
    ],
)
def test_a_joker_in_a_run_is_shown_in_the_place_it_fills(group: str, shown: str) -> None:
    assert table_after_joker(group) == [shown.split()]


@pytest.mark.parametrize(
    ("group", "shown"),
    [
        ("2C 3H", "2C 3H XX"),  # an ace or a 4: at the high end
        ("AC 2H", "AC 2H XX"),  # nothing below an ace: the 3
        ("5C 5H", "5H 5C XX"),  # N-of-a-kind: the joker last
        ("5C 5H 5S", "5S 5H 5C XX"),
        ("5C 5C 5H 5S", "5S 5H 5C 5C XX"),  # five 5s: the joker is the 5D
    ],
)
def test_a_joker_that_extends_a_run_or_joins_an_n_of_a_kind_is_shown_last(group: str, shown: str) -> None:
    assert table_after_joker(group) == [shown.split()]


def test_a_group_not_valid_mid_turn_shows_its_joker_last_and_a_hand_too() -> None:
    match = match_of(["XX 5D JS QH KC", "4S"], ["9C JS QH KC"], [True], jokers=True)
    match.apply(0, match.parse_action("play XX 5D to 1"))
    view = match.view(0)
    assert view["invalid"] == [0] and view["table"] == [["5D", "9C", "JS", "QH", "KC", "XX"]]
    assert view["hand"] == ["JS", "QH", "KC"]
    match.apply(0, match.parse_action("play JS QH KC"))  # the hand's run, now on the table
    match.apply(0, match.parse_action("move XX from 1 to 2"))
    assert match.view(None)["table"][1] == ["XX", "JS", "QH", "KC"]
    held = match_of(["JS QH KC XX", "4S"], [], [True], jokers=True)
    assert held.view(0)["hand"] == ["JS", "QH", "KC", "XX"]  # a hand is no group: the joker last


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["9C JS QH KC XX", "2C 3H XX", "JS QH KC XX", "5C 5H XX", "5D 9C JS XX"]), st.randoms()
)
def test_a_group_is_shown_in_one_order_however_its_cards_were_played(group: str, rng: Random) -> None:
    words = group.split()
    shuffled = words[:]
    rng.shuffle(shuffled)
    assert display_order(cards(" ".join(shuffled))) == display_order(cards(group))


# -- plain huxxy offered "XX for a joker" in every wrong card name ---------------------------------


@pytest.mark.parametrize("text", ["play 7Z", "move 7Z from 1 to 2", "play 7H 1Q to 1", "play", "jump 7H"])
def test_a_refused_action_offers_xx_only_in_huxxy_jokers(text: str) -> None:
    said = {}
    for jokers in (False, True):
        match = match_of(["7H 2C", "2D"], ["7H 8S 9H", "5C 5D 5S"], [True], jokers=jokers)
        with pytest.raises(ActionError) as error:
            match.parse_action(text)
        assert error.value.code == "bad-action"
        said[jokers] = error.value.message
    assert "XX" not in said[False] and "XX" in said[True]
    assert said[True].replace(", or XX for a joker", "").replace(", or XX", "") == said[False]
