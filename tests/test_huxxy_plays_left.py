"""A turn's bound on plays, undone ones counted (``MAX_TURN_PLAYS``), as the bots, the hint and
the list of legal actions see it: a stand-in that inherits a turn a person has spent most of must
plan what the turn can still make (a review found its plan refused and the seat made to draw)."""

from __future__ import annotations

import logging
import random

import pytest
from test_client_session import TOKEN, welcomed
from test_huxxy_engine import hand
from test_huxxy_game import table_match
from test_huxxy_ui import huxxy_view
from test_store import TOKENS

from games import ActionError
from games.huxxy.actions import Draw
from games.huxxy.bots import BOTS, hint_for, make_bot
from games.huxxy.engine import MAX_TURN_PLAYS
from games.huxxy.game import HuxxyMatch
from protocol import PROTOCOL_VERSION, Act, CreateTable, Error, Hello, Join, Seated, State
from server.host import Host


def spend(match: HuxxyMatch, seat: int, left: int) -> None:
    """Play a card and take it back until only ``left`` plays of the turn remain."""
    engine = match.engine
    while engine.plays_left > left:
        engine.play(seat, [hand("2D")])
        engine.undo(seat)
    assert engine.plays_left == left


def play_out(match: HuxxyMatch, bot: str) -> list[str]:
    """Seat 0's turn as ``bot`` makes it; any action refused fails the test."""
    player = make_bot(bot, random.Random(7))
    made = []
    while match.engine.current == 0 and not match.engine.over:
        action = player.choose(match.bot_view(0))
        made.append(str(action))
        try:
            match.apply(0, action)
        except ActionError as error:  # pragma: no cover - the failure being tested for
            raise AssertionError(f"{bot}'s {action} was refused ({error}) after {made}") from None
        assert len(made) < 20, made
    return made


@pytest.mark.parametrize("bot", BOTS)
def test_a_bot_with_two_plays_left_plays_what_fits(bot: str) -> None:
    """The run 7H 8C 9D needs three plays; KC to the kings needs one."""
    match = table_match(["7H 8C 9D KC 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=2)
    made = play_out(match, bot)
    if bot != "random":  # random may draw whatever it could play
        assert made == ["play KC to 1", "end"]
    assert match.engine.plays_left == MAX_TURN_PLAYS  # the next turn's count


@pytest.mark.parametrize("bot", ["greedy", "expert"])
def test_a_bot_keeps_the_plays_made_and_finishes_the_turn_with_what_is_left(bot: str) -> None:
    match = table_match(["7H 8C 9D 2D", "2C"], ["KS KH KD"], [True, True])
    match.engine.play(0, [hand("7H")])
    spend(match, 0, left=2)
    assert play_out(match, bot) == ["play 8C to 2", "play 9D to 2", "end"]
    assert [str(card) for card in match.engine.hand(0)] == ["2D"]


@pytest.mark.parametrize("bot", BOTS)
def test_a_bot_draws_when_no_turn_fits_in_the_plays_left(bot: str) -> None:
    match = table_match(["7H 8C 9D 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=2)
    assert play_out(match, bot) == ["draw"]


def test_the_hint_gives_a_turn_the_plays_left_can_make() -> None:
    match = table_match(["7H 8C 9D KC 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=1)
    answer = hint_for(match._seat_view(0))
    assert answer.actions == ("play KC to 1", "end")
    for text in answer.actions:
        match.apply(0, match.parse_action(text))
    assert match.engine.current == 1


def test_the_hint_says_why_it_draws_when_too_few_plays_are_left() -> None:
    match = table_match(["7H 8C 9D 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=2)
    answer = hint_for(match._seat_view(0))
    assert answer.actions == ("draw",)
    assert "may make 2 plays more" in answer.text and f"{MAX_TURN_PLAYS} a turn" in answer.text


def test_a_hint_to_draw_mid_turn_says_the_plays_made_are_taken_back() -> None:
    """A play-test asked mid-turn and was told 'draw', not that the draw takes back its plays."""
    match = table_match(["7H 2D", "2C"], ["KS KH KD"], [True, True])
    match.engine.play(0, [hand("2D")])  # to a new group: no turn places a card from here
    answer = hint_for(match._seat_view(0))
    assert answer.actions == ("draw",)
    assert answer.text == "draw (it takes back your 1 play first): no turn of at most 6 plays places a card"


def test_no_play_is_listed_as_legal_once_the_turn_may_make_none() -> None:
    match = table_match(["7H 8C 9D KC 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=1)
    assert any(text.startswith("play ") for text in match.legal_actions(0))
    # A play-test with one play left was told, of two cards, that the turn might make no more.
    with pytest.raises(ActionError) as refused:
        match.apply(0, match.parse_action("play 7H 8C"))
    assert str(refused.value) == (
        "this turn has made 59 plays, undone ones counted, and may make at most 60: 1 more play, too few"
        " for 2; play fewer, or 'draw'"  # not "end it": nothing is on the table to end (a review)
    )
    session = welcomed()  # and the turn line says how few are left, beside the six a turn allows
    session.receive(Seated(4, 0, TOKEN))
    raw = huxxy_view(
        names=["ann", "bob"], current=0, legal=match.legal_actions(0), body=match.view(0), variant="huxxy"
    )
    (shown,) = session.receive(State(4, raw, ())).lines
    assert "· 1 play left (60 a turn, undone ones counted)" in shown
    spend(match, 0, left=0)
    assert match.legal_actions(0) == ["draw"]
    with pytest.raises(ActionError, match="may make at most"):
        match.apply(0, match.parse_action("play KC to 1"))
    spent = "this turn has made 60 plays, undone ones counted, and may make at most 60: "
    match = table_match(["7H 8C 9D KC 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=2)
    match.apply(0, match.parse_action("play KC to 1"))
    match.apply(0, match.parse_action("play 2D"))  # a group of one: the turn cannot end on it
    with pytest.raises(ActionError) as refused:
        match.apply(0, match.parse_action("play 7H to 2"))
    said = "group 2 is not valid: undo a play, or 'draw' to take it all back and draw"  # undo frees it
    assert str(refused.value) == spent + said
    match.apply(0, match.parse_action("undo"))
    match.apply(0, match.parse_action("end"))  # KC on the table: the turn may end
    match = table_match(["7H 8C 9D KC 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=1)
    match.apply(0, match.parse_action("play KC to 1"))  # a valid table: it may end
    with pytest.raises(ActionError) as refused:
        match.apply(0, match.parse_action("play 2D"))
    assert str(refused.value) == spent + "end it, or 'draw' to take it all back and draw"
    match.apply(0, Draw())
    assert match.engine.current == 1


def test_a_turn_that_may_make_no_more_plays_is_told_to_draw() -> None:
    """A play-test played and undid a card 30 times: 'end' then said "play a card, or draw", though
    any play was refused, and the turn line still offered 'play'. The view says the plays left."""
    match = table_match(["7H 8C 9D KC 2D", "2C"], ["KS KH KD"], [True, True])
    spend(match, 0, left=0)
    told = "nothing has been played this turn, and it may make no more plays (60 a turn, undone ones counted)"
    told += ": draw"
    assert match.engine.problems() == [told]
    with pytest.raises(ActionError) as refused:
        match.apply(0, match.parse_action("end"))
    assert str(refused.value) == told
    spent = "this turn has made 60 plays, undone ones counted, and may make at most 60: "
    with pytest.raises(ActionError) as refused:  # a play-test was told to "end it", with nothing played
        match.apply(0, match.parse_action("play 2D"))
    assert str(refused.value) == spent + "'draw' is all that is left"
    body = match.view(0)
    assert body["plays_left"] == 0 and match.view(None)["plays_left"] == 0  # anyone may count them
    session = welcomed()
    session.receive(Seated(4, 0, TOKEN))
    raw = huxxy_view(
        names=["ann", "bob"], current=0, legal=match.legal_actions(0), body=body, variant="huxxy"
    )
    (shown,) = session.receive(State(4, raw, ())).lines
    assert "your turn: draw · no plays left (60 a turn, undone ones counted)" in shown
    assert session.typed("end").say == told and session.typed("end").refused
    assert session.typed("undo").say == "nothing has been played this turn to undo"
    assert "play" not in session.completions("", "") and "draw" in session.completions("", "")
    match.apply(0, Draw())
    assert match.view(0)["plays_left"] == MAX_TURN_PLAYS  # the next turn's


@pytest.mark.parametrize("seed", [2, 3, 6])  # deals whose first turn has an opening of 3 plays or more
def test_a_stand_in_at_the_host_plays_a_spent_turn_without_a_refusal(
    seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    """Through the server: a person plays and undoes until 2 plays are left, drops, and the
    stand-in plays on (the host logs a bot's refused action as an error, and draws for it)."""
    tokens = iter(TOKENS)
    host = Host(new_rng=lambda: random.Random(seed), new_token=lambda: next(tokens), first_table=1, grace=5.0)
    for conn, name in ((1, "ann"), (2, "bob")):
        host.connect(conn)
        host.handle(conn, Hello(PROTOCOL_VERSION, name), 0.0)
    out = host.handle(1, CreateTable("huxxy", 2, None, (), {}, bot_delay_ms=0), 0.0)
    (table,) = [message.table for _, message in out if isinstance(message, Seated)]
    host.handle(2, Join(table), 0.0)
    match = host.tables[table].match
    assert isinstance(match, HuxxyMatch)
    seat = match.current
    card = str(match.engine.hand(seat)[0])
    for _ in range(MAX_TURN_PLAYS - 2):
        for text in (f"play {card}", "undo"):
            assert not [m for _, m in host.handle(seat + 1, Act(text), 0.0) if isinstance(m, Error)]
    assert match.engine.plays_left == 2
    caplog.set_level(logging.ERROR)
    host.disconnect(seat + 1, 1.0)
    host.tick(10.0)  # past the grace: a bot stands in
    for _ in range(20):
        jobs = host.bot_jobs()
        if not jobs or match.current != seat:
            break
        (job,) = jobs
        host.bot_acted(job, job.bot.choose(job.view), 11.0)
    assert match.current != seat
    assert "refused" not in caplog.text
