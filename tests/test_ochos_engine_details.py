"""The Ochos Locos engine, where mutation testing found the engine and game tests silent: the first
seat, the turn count, what a turn makes public, a draw's one card, the stalemate's exact round, a win
with a 2, and what each refusal says."""

from __future__ import annotations

import random

import pytest
from test_ochos_engine import down_to_an_eight

from games.ochos_locos import PRESETS, Card, CardError, Rules, full_deck
from games.ochos_locos.actions import Action, Draw, Play, TakeTwo
from games.ochos_locos.deal import Deal
from games.ochos_locos.engine import Game, PublicTurn, Turn
from games.ochos_locos.errors import IllegalAction, Reason


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(token) for token in text.split())


def game(hands: list[str], start: str, rules: Rules = PRESETS["part3"], first: int = 0) -> Game:
    """The given hands and starting card, every other card in the draw pile in rainbow order."""
    dealt = [cards(hand) for hand in hands]
    used = {card for hand in dealt for card in hand} | {Card.parse(start)}
    stock = tuple(card for card in full_deck() if card not in used)
    return Game(rules.with_players(len(hands)), Deal(tuple(dealt), Card.parse(start), stock), first)


HANDS = ["R2 R8 G5 Y6 B1", "Y2 G2 Y3 Y4 Y5", "B2 B3 B4 B5 B6"]


def message(state: Game, seat: int, action: Action, reason: Reason) -> str:
    with pytest.raises(IllegalAction) as caught:
        state.apply(seat, action)
    assert caught.value.reason is reason
    return caught.value.message


@pytest.mark.parametrize("first", [-1, 3, 4])
def test_a_first_seat_outside_the_table_is_refused(first: int) -> None:
    with pytest.raises(ValueError, match="cannot play first"):
        game(HANDS, "R1", first=first)


def test_any_seat_at_the_table_may_play_first() -> None:
    for first in range(3):
        state = game(HANDS, "R1", first=first)
        assert state.current == first
        message(state, (first + 1) % 3, Draw(), Reason.NOT_YOUR_TURN)


def test_the_turn_count_starts_at_1_and_goes_up_by_one_a_move() -> None:
    state = Game.new(PRESETS["part3"].with_players(4), random.Random(3))
    choose = random.Random(4)
    assert state.turn == 1
    moves = 0
    while not state.over:
        assert state.turn == moves + 1
        state.apply(state.current, choose.choice(state.legal_actions()))
        moves += 1
    assert moves > 4 and state.turn in (moves, moves + 1)  # the last move ends the game, not the turn


def test_a_draw_takes_the_one_top_card_and_the_table_sees_one_card_taken() -> None:
    state = game(["R1 R3 R4 R5 R6", "Y1 Y3 Y4 Y5 Y6", "B1 B3 B4 B5 B6"], "G2", PRESETS["part1"])
    assert state.stock_size == 32 - 15 - 1
    top = state.stock[0]
    drawn = state.apply(0, Draw())
    assert drawn == Turn(0, Draw(), (top,))
    assert state.hand_sizes() == (6, 5, 5) and state.stock_size == 32 - 15 - 1 - 1
    assert drawn.public() == PublicTurn(0, Draw(), 1)
    assert state.public_history == (drawn.public(),)


def test_a_play_is_public_as_taking_no_card() -> None:
    state = game(HANDS, "R1")
    turn = state.apply(0, Play(Card.parse("R2")))
    assert turn.public().took == 0
    assert [public.took for public in state.public_history] == [0]


def test_a_seat_not_to_move_is_asked_about_its_own_hand() -> None:
    state = game(HANDS, "R1")
    assert state.playable() == state.playable(0) == list(cards("R2 R8 B1"))
    assert state.playable(1) == []
    state.apply(0, Play(Card.parse("R2")))  # a 2 to answer: seat 1 holds two, seat 0 none
    assert state.playable() == state.playable(1) == list(cards("Y2 G2"))
    assert state.playable(0) == []
    # Seat 0 down to its 8 while seat 1 still holds several: only seat 1's 8 would name a colour.
    last = down_to_an_eight()
    eight = Card.parse("R8")
    assert not last.names_colour(eight)
    assert last.names_colour(eight, 1) and not last.names_colour(eight, 0)


def test_the_snapshot_tells_two_moments_apart() -> None:
    state = game(HANDS, "R1")
    before = state.snapshot()
    assert before == game(HANDS, "R1").snapshot()
    state.apply(0, Play(Card.parse("R2")))
    assert state.snapshot() != before


def _quiet(turn: Turn) -> bool:
    return not isinstance(turn.action, Play) and not turn.took


def test_a_stalemate_is_declared_after_exactly_one_round_with_nothing_played_or_taken() -> None:
    ended_by: set[str] = set()
    for players in (2, 3, 4, 6):
        for seed in range(60):
            state = Game.new(Rules(twos=True, players=players), random.Random(seed))
            choose = random.Random(seed)
            while not state.over:
                state.apply(state.current, choose.choice(state.legal_actions()))
            if not state.stalemate:
                continue
            history = state.history
            assert all(_quiet(turn) for turn in history[-players:])
            before = history[-players - 1]
            assert not _quiet(before), (players, seed)  # else the round before would have been it
            ended_by.add("play" if isinstance(before.action, Play) else "take")
    assert ended_by == {"play", "take"}


def test_a_win_with_a_2_leaves_no_2_to_answer() -> None:
    wins = 0
    for seed in range(20):
        state = Game.new(Rules(twos=True, players=2), random.Random(seed))
        choose = random.Random(seed)
        while not state.over:
            state.apply(state.current, choose.choice(state.legal_actions()))
        last = state.history[-1]
        if state.winner is not None and isinstance(last.action, Play) and last.action.card.number == 2:
            wins += 1
            assert not state.two_pending
    assert wins


def test_refusals_say_whose_turn_it_is_and_what_does_not_match() -> None:
    state = game(HANDS, "R1")
    assert message(state, 1, Play(Card.parse("Y2")), Reason.NOT_YOUR_TURN) == "it is player 1's turn"
    assert message(state, 0, Play(Card.parse("G5")), Reason.NO_MATCH) == (
        "G5 matches neither colour R nor number 1"
    )
    state.apply(0, Play(Card.parse("R8"), "B"))
    assert message(state, 1, Play(Card.parse("Y3")), Reason.NO_MATCH) == (
        "Y3 matches neither colour B nor number 8"
    )


def test_a_refused_colour_says_why_no_colour_may_be_named() -> None:
    part1 = game(HANDS, "R1", PRESETS["part1"])
    assert message(part1, 0, Play(Card.parse("R8"), "G"), Reason.MUST_NOT_NAME_COLOUR).endswith(
        "these rules have no naming eights"
    )
    part3 = game(HANDS, "R1")
    assert message(part3, 0, Play(Card.parse("R2"), "G"), Reason.MUST_NOT_NAME_COLOUR).endswith(
        "only an 8 names a colour"
    )
    last = down_to_an_eight()
    assert message(last, 0, Play(Card.parse("R8"), "R"), Reason.MUST_NOT_NAME_COLOUR).endswith(
        "an 8 played as the last card names nothing"
    )


def test_taking_two_clears_the_2_to_answer() -> None:
    state = game(HANDS, "R1")
    state.apply(0, Play(Card.parse("R2")))
    state.apply(1, Play(Card.parse("G2")))
    state.apply(2, Play(Card.parse("B2")))
    assert state.apply(0, TakeTwo()).took == state.hand(0)[-2:]
    assert not state.two_pending


@pytest.mark.parametrize(("colour", "number"), [("X", 3), ("", 3), ("RY", 3), ("r", 3), (1, 3)])
def test_a_card_of_no_colour_cannot_be_made(colour: object, number: int) -> None:
    with pytest.raises(CardError, match="unknown colour"):
        Card(colour, number)  # type: ignore[arg-type]


@pytest.mark.parametrize("number", [0, 9, -1, True, "3", 3.0])
def test_a_card_of_no_number_cannot_be_made(number: object) -> None:
    with pytest.raises(CardError, match="must be 1 to 8"):
        Card("G", number)  # type: ignore[arg-type]


def test_a_card_shows_itself_as_written() -> None:
    assert repr(Card("G", 3)) == "Card(G3)" and str(Card("B", 8)) == "B8"
