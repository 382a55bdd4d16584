"""The record a bot keeps of what opponents take from its hand between its turns."""

from __future__ import annotations

import attrs
from conftest import position
from hypothesis import given
from hypothesis import strategies as st

from protocol import CLASSIC
from server.bots._thefts import Thefts
from server.engine import Game


def seen(record: Thefts, game: Game, turn: int) -> None:
    record.watch(attrs.evolve(game.view(0), turn=turn), 0)


def test_a_hand_that_shrank_between_turns_was_robbed() -> None:
    record = Thefts()
    seen(record, position(CLASSIC, ["R1 R5 Y9", "G2"]), turn=0)
    seen(record, position(CLASSIC, ["R1 Y9", "G2 R5"]), turn=2)
    assert (record.exposed, record.robbed, record.left_alone) == (1, 1, 0)


def test_decisions_within_one_turn_are_not_turns() -> None:
    record = Thefts()
    seen(record, position(CLASSIC, ["R1 R5 Y9", "G2"]), turn=4)
    seen(record, position(CLASSIC, ["R1", "G2"]), turn=4)  # discarded within the turn
    assert (record.exposed, record.robbed, record.left_alone) == (0, 0, 0)


def test_a_lone_card_still_there_was_left_alone_and_a_new_game_starts_afresh() -> None:
    record = Thefts()
    seen(record, position(CLASSIC, ["R1", "G2"]), turn=6)
    seen(record, position(CLASSIC, ["R1", "G2 G3"]), turn=8)
    assert record.left_alone == 1
    seen(record, position(CLASSIC, ["R1 R2 R9 Y4 Y5", "G2 G3 B4 B5 B7"]), turn=0)
    assert (record.exposed, record.robbed, record.left_alone) == (0, 0, 0)


@given(
    exposed=st.integers(0, 300),
    robbed_share=st.floats(0, 1),
    left_alone=st.integers(0, 300),
)
def test_the_chance_of_a_lone_card_being_taken_is_a_probability_that_falls_as_lone_cards_survive(
    exposed: int, robbed_share: float, left_alone: int
) -> None:
    record = Thefts()
    record.exposed, record.robbed, record.left_alone = exposed, round(exposed * robbed_share), left_alone
    before = record.last_taken()
    assert 0.0 <= before < record.rate() <= 1.0
    record.left_alone += 1
    assert record.last_taken() <= before


def test_a_thief_who_always_robs_and_left_one_lone_card_alone_is_careful() -> None:
    record = Thefts()
    record.exposed = record.robbed = 20
    assert record.last_taken() > 0.1
    record.left_alone = 1
    assert record.last_taken() < 0.02
