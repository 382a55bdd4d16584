"""The record a bot keeps of what opponents take from its hand between its turns."""

from __future__ import annotations

import attrs
from conftest import groupless, position
from hypothesis import given
from hypothesis import strategies as st

from games.notty import CLASSIC, Card
from games.notty.bots._thefts import Thefts
from games.notty.engine import Game


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
    before = record.last_taken()
    assert before > 0.05
    record.left_alone = 1
    assert record.last_taken() < before / 10


def test_rounds_in_which_no_hand_changed_are_counted_as_quiet() -> None:
    record = Thefts()
    seen(record, position(CLASSIC, ["R1 B7", "G2 G3", "Y4"]), turn=3)
    seen(record, position(CLASSIC, ["B7 R1", "G3 G2", "Y4"]), turn=6)  # the same cards, in another order
    assert record.quiet == 1
    seen(record, position(CLASSIC, ["B7 R1 R2", "G3 G2", "Y4"]), turn=6)  # our own draw, within the turn
    assert record.quiet == 1
    seen(record, position(CLASSIC, ["B7 R1 R2", "G3 G2", "Y4"]), turn=9)
    assert record.quiet == 2
    seen(record, position(CLASSIC, ["B7 R1 R2", "G3 G2 Y5", "Y4"]), turn=12)  # an opponent drew
    assert record.quiet == 0
    seen(record, position(CLASSIC, ["B7 R1 R2", "G3 G2 Y5", "Y4"]), turn=15)
    assert record.quiet == 1
    seen(record, position(CLASSIC, ["R1 R2 R9 Y4 Y5", "G2 G3 B4 B5 B7", "Y1 Y2 Y3 B1 B2"]), turn=0)
    assert record.quiet == 0  # a new game


def test_an_opponent_stuck_at_the_limit_is_not_quiet_but_unable_to_act() -> None:
    record = Thefts()
    full = groupless(CLASSIC, 20, [Card.parse("R1"), Card.parse("B7")])
    for turn in (2, 4, 6):
        seen(record, position(CLASSIC, ["R1 B7", full]), turn=turn)
    assert record.quiet == 0
