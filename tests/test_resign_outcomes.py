"""Resigning's pure rule (server.resign), where mutation testing found the resigning tests silent:
when a bot seat keeps a game going, how several names are listed, and a game nobody resigned."""

from __future__ import annotations

import pytest

from games import Outcome
from games._ui import spoken_list
from server.resign import RESIGNED, conceded, ends_at_once, resigned_last

NAMES = ["ann", "bob", "cy", "dee"]


@pytest.mark.parametrize(
    ("seats", "resigned", "people", "ends"),
    [
        (2, [0], [1], True),  # one seat left
        (3, [0], [], True),  # bots alone play on: nobody to play for
        (4, [0], [1], False),  # a person plays on against bots
        (4, [0], [1, 2, 3], False),
        (4, [0, 1], [2], False),
        (4, [0, 1, 2], [3], True),
    ],
)
def test_a_game_ends_at_once_only_when_no_person_plays_on_with_another_seat(
    seats: int, resigned: list[int], people: list[int], ends: bool
) -> None:
    assert ends_at_once(seats, resigned, people) is ends


def test_several_names_are_listed_with_and_before_the_last() -> None:
    outcome = conceded(NAMES, [2, 1])
    assert outcome == Outcome(
        ((0, 3), (1, 2)), RESIGNED, "cy and bob resigned: ann and dee share first place"
    )
    assert conceded(NAMES, [1, 2, 3]).text == "bob, cy and dee resigned: ann wins"
    assert conceded(NAMES, [3]).text == "dee resigned: ann, bob and cy share first place"


def test_a_game_nobody_resigned_keeps_its_own_outcome() -> None:
    outcome = Outcome(((1,), (0, 2), (3,)), "out", "bob went out")
    assert resigned_last(outcome, NAMES, []) is outcome


def test_the_resigned_go_last_and_the_text_stays_within_400_characters() -> None:
    outcome = Outcome(((1,), (0, 2), (3,)), "out", "x" * 400)
    moved = resigned_last(outcome, NAMES, [2, 1])
    assert moved.ranking == ((0,), (3,), (1, 2)) and moved.reason == "out"
    moved = resigned_last(outcome, NAMES, [2, 0])
    assert moved.ranking == ((1,), (3,), (0, 2)) and moved.text == "x" * 400
    long = ["x" * 24 + str(seat) for seat in range(20)]
    assert len(resigned_last(Outcome(((0,), tuple(range(1, 20))), "out", "won"), long, [0]).text) == 400
    short = resigned_last(Outcome(((1,), (0, 2)), "out", "bob went out"), NAMES, [0])
    assert short.text == "bob went out (ann resigned, so ranked last)"
    assert short.ranking == ((1,), (2,), (0,))


def test_a_winner_who_resigned_is_said_to_be_ranked_last_and_who_is_first_instead() -> None:
    """A bot went out for ann, who had resigned: the end read "ann wins (ann resigned, so ranked last)"
    while bob was told he shared first place; then "ann wins; but bob, cy and dee share first place",
    which still said ann won. It says who is first, why the game ended, and who is last, as the
    client says a result."""
    won = resigned_last(Outcome(((0,), (1, 2, 3)), "stolen", "ann wins"), NAMES, [0])
    assert won.ranking == ((1, 2, 3), (0,)) and won.winner is None
    assert (
        won.text
        == f"{spoken_list(NAMES[1:])} share first place (last card stolen; ann resigned, so ranked last)"
    )
    alone = resigned_last(Outcome(((0,), (1,), (2, 3)), "went-out", "ann wins"), NAMES, [0, 2])
    assert alone.text == "bob wins (went out; ann and cy resigned, so ranked last)" and alone.winner == 1
    unknown = resigned_last(Outcome(((0,), (1, 2, 3)), "its-own-way", "ann wins"), NAMES, [0])
    assert "(its own way; ann resigned" in unknown.text


def test_a_winner_who_resigned_in_a_game_ranked_by_points_leaves_the_games_own_words_and_points() -> None:
    """A play-test's huxxy: bob's bot went out for him, and every screen said "dee wins (went out; bob
    resigned, so ranked last)": dee had not gone out, and her points, which put her above ann, were
    not said. A game whose words name no winner keeps them."""
    points = "points left: ann 13, bob 0, cy 20, dee 3"
    ended = Outcome(((1,), (3,), (0,), (2,)), "went-out", f"bob goes out; {points}", text_names_winner=False)
    moved = resigned_last(ended, NAMES, [1])
    assert moved.ranking == ((3,), (0,), (2,), (1,)) and moved.winner == 3
    assert moved.text == f"dee wins (bob goes out; {points}; bob resigned, so ranked last)"
    assert not moved.text_names_winner
