"""huxxy reviewed as hosted: defects found by probing the seam, the engine and its messages, each
pinned by a test that failed before its fix."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_huxxy_engine import cards, hand, position, refused

from games import GAMES, ActionError
from games.huxxy.actions import ParseError, parse_action
from games.huxxy.engine import Reason, group_problem
from games.huxxy.game import HuxxyMatch

GAME = GAMES["huxxy"]


def match_of(hands: list[str], table: list[str], opened: list[bool]) -> HuxxyMatch:
    engine = position(hands, table, opened)
    return HuxxyMatch(
        GAME.settings(None, len(hands), {}), [f"p{seat + 1}" for seat in range(len(hands))], engine
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


def test_a_joker_on_an_eight_of_a_kind_is_refused_for_the_third_copy_not_a_missing_suit() -> None:
    why = group_problem(cards("2C 2C 2H 2H 2S 2S 2D 2D XX"))
    assert why is not None
    assert "every suit present" not in why  # every suit is there
    assert "joker" in why


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
