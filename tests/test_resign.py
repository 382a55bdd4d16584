"""``resign``: ranked last; the game ends at once if nobody else is left to play for, else a bot
plays the seat to the end (server.resign). Both games, at two and three seats, and the replay."""

from __future__ import annotations

import contextlib
import io
import re
import sqlite3
from pathlib import Path
from typing import Any

import pexpect
import pytest
from test_client import _new_table, _spawn
from test_client_session import notty_view, seated, welcomed
from test_host import Client as HostClient
from test_host import Net

from client.commands import LEAVE_ALONE_WARNING, LEAVE_WARNING, RESIGN_WARNING
from client.session import read_view
from games._ui import ui_for
from protocol import (
    Act,
    AskHint,
    Autopilot,
    CreateTable,
    Error,
    Join,
    Leave,
    ListTables,
    Notice,
    PlayForMe,
    ProtocolError,
    Resign,
    Seated,
    Sender,
    Start,
    State,
    Watch,
    message_from_wire,
)
from server.journal import GameOver, Resigned, SeatLeft
from server.replay import TAKEN_BACK_TAG, print_game, print_games
from server.store import MIGRATIONS, Store

GAMES = ("notty", "ochos-locos", "huxxy")


def _table(net: Net, game: str, people: int, bots: tuple[str, ...] = ()) -> list[HostClient]:
    """``people`` players seated (seats 0..people-1), then ``bots``; the game under way."""
    clients = [net.client(name) for name in ("ann", "bob", "cy", "dee")[:people]]
    options = {"turn_limit": 300} if game == "notty" else {}
    create = CreateTable(game, people + len(bots), None, bots, options, bot_delay_ms=0)
    table = clients[0].send(create)[0].table
    for client in clients[1:]:
        client.send(Join(table))
    assert clients[0].table.match is not None
    return clients


def _places(result: Any) -> list[list[int]]:
    return [list(place) for place in result["ranking"]]


def test_resign_is_validated() -> None:
    assert message_from_wire({"type": "resign"}, Sender.CLIENT) == Resign()
    with pytest.raises(ProtocolError) as info:
        message_from_wire({"type": "resign", "seat": 1}, Sender.CLIENT)
    assert info.value.code == "bad-message"


@pytest.mark.parametrize("game", GAMES)
def test_at_two_seats_the_game_ends_at_once_and_the_other_wins(game: str) -> None:
    net = Net()
    ann, bob = _table(net, game, 2)
    ann.send(Resign())
    table = ann.table
    assert table.over and not table.running
    for client in (ann, bob):
        result = client.view["result"]
        assert _places(result) == [[1], [0]] and result["reason"] == "resigned"
        assert "ann resigned: bob wins" in result["text"]
        assert not client.view["legal"]
        assert [n.seat for n in client.inbox if isinstance(n, Notice) and n.kind == "resigned"] == [0]
    over = [r for r in net.host.take_journal() if isinstance(r, GameOver)]
    assert over == [GameOver(table.id, 1, "resigned", ((1,), (0,)))]
    (refused,) = bob.send(Resign())
    assert isinstance(refused, Error) and refused.code == "game-over"
    (refused,) = bob.send(Start())  # not "the game has already started", as a play-test found
    assert isinstance(refused, Error) and refused.code == "game-over" and "is over" in refused.message
    eve = net.client("eve")  # nor, to someone joining, "is already playing"
    (refused,) = eve.send(Join(table.id))
    assert isinstance(refused, Error) and refused.code == "game-over"
    assert refused.message == f"the game at table {table.id} is over: watch it, or join another"
    assert net.run_bots() == 0


def test_a_finished_game_goes_from_the_list_when_its_last_player_drops_rather_than_leaves() -> None:
    net = Net()
    ann, bob = _table(net, "notty", 2)
    ann.send(Resign())
    net.drop(ann)
    eve = net.client("eve")
    assert [info["table"] for info in eve.send(ListTables())[0].tables] == [bob.table.id]  # bob is there
    net.drop(bob)
    assert eve.send(ListTables())[0].tables == ()


@pytest.mark.parametrize("game", GAMES)
def test_against_bots_alone_the_game_ends_at_once_and_they_share_first_place(
    game: str, tmp_path: Path
) -> None:
    net = Net()
    (ann,) = _table(net, game, 1, ("random", "random"))
    ann.send(Resign())
    result = ann.view["result"]
    assert _places(result) == [[1, 2], [0]] and result["reason"] == "resigned"
    assert ann.table.outcome() is not None and ann.table.outcome().winner is None  # type: ignore[union-attr]
    names = ann.view["names"]
    shared = f"{names[1]} and {names[2]} share first place"
    ui = ui_for(game)
    assert ui is not None
    shown = ui.state_text(ann.table.id, read_view(ann.view, ui), (), False)
    lines = shown.splitlines()
    over = next(index for index, line in enumerate(lines) if line.startswith("game over: "))
    assert all(line.startswith("  ") for line in lines[over + 1 :]), (
        shown
    )  # the last line, gone on where long
    assert shared in " ".join(line.strip() for line in lines[over:]) and "no winner" not in shown, shown
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    listed = io.StringIO()
    print_games(store.games(), listed)
    assert f"{shared} ({names[0]} resigned)" in listed.getvalue()
    store.close()


@pytest.mark.parametrize("game", GAMES)
def test_at_three_seats_a_bot_plays_on_and_the_resigner_is_ranked_last(game: str) -> None:
    net = Net()
    ann, bob, cy = _table(net, game, 3)
    ann.send(Resign())
    table = ann.table
    assert table.running and table.seats[0].resigned
    kinds = [n.kind for n in bob.inbox if isinstance(n, Notice) and n.seat == 0]
    assert kinds[-2:] == ["resigned", "stand-in"]
    for refused_ask in (Act("end"), Autopilot(True), Resign()):  # the seat is the bot's now
        (refused,) = ann.send(refused_ask)
        assert isinstance(refused, Error) and refused.code == "resigned"
    bob.send(Autopilot(True))  # the other two are played by bots too, so that the game ends here
    cy.send(Autopilot(True))
    net.run_bots()
    assert table.over
    result = bob.view["result"]
    assert _places(result)[-1] == [0] and all(0 not in place for place in _places(result)[:-1])
    assert result["reason"] != "resigned" and "ann resigned, so ranked last" in result["text"]
    (over,) = [r for r in net.host.take_journal() if isinstance(r, GameOver)]
    assert over.ranking[-1] == (0,)


def test_a_resigned_game_replays_from_the_record(tmp_path: Path) -> None:
    net = Net()
    ann, bob, cy = _table(net, "notty", 3)
    table_id = ann.table.id
    bob.send(Autopilot(True))
    cy.send(Autopilot(True))
    net.run_bots(limit=7)  # some moves, then ann resigns mid-game
    moves_before = ann.table.moves
    ann.send(Resign())
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    # Unfinished: a restart brings it back with ann still resigned, and still ranked last at the end.
    (saved,) = store.unfinished()
    assert saved.resigned == ((0, moves_before),)
    again = Net(seed=5)
    again.host.restore(saved, 0.0)
    restored = again.host.tables[table_id]
    assert restored.seats[0].resigned and restored.resigned == [0]
    assert [r for r in net.host.take_journal() if isinstance(r, Resigned)] == []
    net.run_bots()
    store.write(net.host.take_journal())
    finished = store.game(table_id)
    assert finished is not None and finished.over is not None and finished.over.ranking[-1] == (0,)
    out = io.StringIO()
    print_game(finished, out)
    lines = out.getvalue().splitlines()
    said = lines.index("      ann resigns")
    assert lines[said - 1].lstrip().startswith(f"{moves_before}.")  # where it happened
    assert lines[said + 1].lstrip().startswith(f"{moves_before + 1}.")
    listed = io.StringIO()
    print_games(store.games(), listed)
    assert "ann (resigned)" in listed.getvalue()
    store.close()


@pytest.mark.parametrize("then_leaves", [False, True])
def test_a_replay_marks_the_moves_a_bot_made_for_one_who_resigned(tmp_path: Path, then_leaves: bool) -> None:
    """After ann resigned, a bot played her seat to the end, and the replay told its moves as hers
    ("ann draws 1 card: R7"), as if she had played on. Each is marked "(bot for ann)" now, as the
    client marks a move made for you; her own moves before it are not, and the others' are marked as
    their autopilot's. Leaving the table some moves after resigning changes nothing: the bot played
    from the resignation."""
    net = Net()
    ann, bob, cy = _table(net, "notty", 3)
    bob.send(Autopilot(True))
    cy.send(Autopilot(True))
    for _ in range(2):  # two turns of her own first
        net.run_bots()
        assert ann.view["current"] == 0
        ann.send(Act("end"))
    net.run_bots()
    ann.send(Resign())
    table = ann.table
    if then_leaves:
        net.run_bots(limit=12)  # some of the bot's moves for her, and the others', first
        assert not table.over
        ann.send(Leave())
    net.run_bots()
    assert table.over
    _, text = _recorded(net, tmp_path, table.id)
    lines = text.splitlines()
    said = lines.index("      ann resigns")
    moves = [(at, line.split(": ", 1)[1]) for at, line in enumerate(lines) if re.match(r" +\d+\. turn", line)]
    hers = [(at, told) for at, told in moves if told.startswith("ann ")]
    assert [told for at, told in hers if at < said] == ["ann ends the turn; bob to play"] * 2  # her own
    by_a_bot = [told for at, told in hers if at > said]
    assert by_a_bot and all(re.match(r"ann [^;]* \(bot for ann\)(;|$)", told) for told in by_a_bot), by_a_bot
    others = [told for _, told in moves if not told.startswith("ann ")]  # bob's and cy's, on autopilot
    assert others and all(re.search(r"\(bot for (bob|cy): autopilot\)", told) for told in others), others


def test_a_restart_keeps_the_order_of_resignations_with_no_move_between_them(tmp_path: Path) -> None:
    net = Net()
    ann, _, cy, dee = _table(net, "huxxy", 4)
    table_id = ann.table.id
    dee.send(Resign())
    cy.send(Resign())  # no move between: only the record's order tells dee came first
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    (saved,) = store.unfinished()
    assert [seat for seat, _ in saved.resigned] == [3, 2]
    again = Net(seed=5)
    again.host.restore(saved, 0.0)
    assert again.host.tables[table_id].resigned == [3, 2]
    back = again.client("ann", token=ann.last(Seated).token)
    back.send(Resign())
    result = back.view["result"]
    assert result["text"].startswith("dee, cy and ann resigned: bob wins"), result["text"]
    store.close()


def test_a_game_ended_by_resigning_replays_to_its_end(tmp_path: Path) -> None:
    net = Net()
    ann, bob = _table(net, "ochos-locos", 2)
    bob.send(Autopilot(True))
    ann.send(Autopilot(True))
    net.run_bots(limit=3)
    ann.send(Autopilot(False))
    bob.send(Resign())
    saved, text = _recorded(net, tmp_path, ann.table.id)
    assert saved.over is not None and saved.over.reason == "resigned"
    assert "      bob resigns\n" in text
    assert text.endswith("(ended by resignation; ranking: ann, then bob (resigned))\n")
    listed = io.StringIO()
    with contextlib.closing(Store(tmp_path / "notty.db")) as store:
        print_games(store.games(), listed)
    assert "ranked" not in listed.getvalue() and "ann won (bob resigned)" in listed.getvalue()


def _recorded(net: Net, tmp_path: Path, table: int) -> tuple[Any, str]:
    """The table's game as the record keeps it, written there from the host's journal, and its replay."""
    with contextlib.closing(Store(tmp_path / "notty.db")) as store:
        store.write(net.host.take_journal())
        saved = store.game(table)
    assert saved is not None
    out = io.StringIO()
    print_game(saved, out)
    return saved, out.getvalue()


def test_a_replay_ended_by_resigning_ends_with_its_ranking_marking_who_resigned(tmp_path: Path) -> None:
    """Its last line was "(ended by resignation: greedy-3 then ann = bob)": the ranking, worded as if
    all three had resigned, the winner first."""
    net = Net()
    ann, bob = _table(net, "huxxy", 2, bots=("greedy",))
    bob.send(Resign())
    ann.send(Resign())  # the bot alone is left: the game ends
    saved, text = _recorded(net, tmp_path, ann.table.id)
    assert saved.over is not None and saved.over.reason == "resigned"
    last = text.splitlines()[-1]
    assert last == "(ended by resignation; ranking: greedy-3, then ann (resigned) = bob (resigned))"


def _two_plays_made(ann: HostClient, bob: HostClient) -> tuple[Any, list[Any], list[list[Any]]]:
    """At ann and bob's huxxy table, two plays of the player to move, the table left invalid as a
    turn under way may leave it: the match, that player's hand and the table before them."""
    match: Any = ann.table.match
    mover = (ann, bob)[match.current]
    hand, start = list(match.engine.hands[match.current]), [list(group) for group in match.engine.table]
    for card in hand[:2]:
        (answer, *_) = mover.send(Act(f"play {card}"))
        assert not isinstance(answer, Error), answer
    assert len(match.engine.plays) == 2
    return match, hand, start


def test_a_game_ended_mid_turn_by_resigning_takes_the_turn_back_and_replays_so(tmp_path: Path) -> None:
    # huxxy's plays are final only when the turn ends: a game that ends in the middle of one
    # ends with the table and the hands as that turn found them, and its record says so.
    net = Net()
    ann, bob = _table(net, "huxxy", 2)
    table = ann.table
    match, hand, start = _two_plays_made(ann, bob)
    sent = len(ann.inbox)
    bob.send(Resign())
    assert table.over and not match.engine.plays
    # Taken back with the end, in one state: the table was sent once for each play undone, then
    # as the turn left it ("your turn"), before the end.
    (taken_back,) = [message for message in ann.inbox[sent:] if isinstance(message, State)]
    assert [event["kind"] for event in taken_back.events] == ["undone", "undone"]
    assert taken_back.view["result"] is not None
    assert sorted(match.engine.hands[match.current]) == sorted(hand)
    assert [list(group) for group in match.engine.table] == start
    for client in (ann, bob):
        assert [list(group) for group in client.view["body"]["table"]] == [[str(c) for c in g] for g in start]
    saved, text = _recorded(net, tmp_path, table.id)
    # Resigned after the two plays; the server then took them back, which the replay says (it read
    # "ann undoes a play" before "bob resigns", as if a player had).
    assert saved.resigned == ((1, 2),)
    assert [move.action for move in saved.moves] == [f"play {hand[0]}", f"play {hand[1]}", "undo", "undo"]
    assert [move.by for move in saved.moves] == ["", "", "ended", "ended"]
    lines = text.splitlines()
    at = lines.index("      bob resigns")
    assert [line.endswith(TAKEN_BACK_TAG) for line in lines[at - 2 : at + 3]] == [0, 0, 0, 1, 1], lines


def test_a_game_abandoned_mid_turn_is_recorded_as_the_turn_found_it(tmp_path: Path) -> None:
    """A huxxy game nobody came back to ended in its record with a turn's plays half made, the table
    left invalid: it is taken back, as for a resignation, before the game is given up."""
    net = Net()
    ann, bob = _table(net, "huxxy", 2)
    table = ann.table
    match, hand, start = _two_plays_made(ann, bob)
    net.drop(ann)
    net.drop(bob)
    net.tick(1)  # the clock starts: nobody is at the table
    net.tick(net.host.abandon_after + 1)
    assert table.id not in net.host.tables
    saved, text = _recorded(net, tmp_path, table.id)
    assert saved.over is not None and saved.over.reason == "abandoned"
    assert [move.action for move in saved.moves] == [f"play {hand[0]}", f"play {hand[1]}", "undo", "undo"]
    assert sorted(match.engine.hands[match.current]) == sorted(hand)
    assert [list(group) for group in match.engine.table] == start
    assert "(abandoned: nobody was left at the table)" in text
    undone = [line for line in text.splitlines() if "undoes" in line]
    assert len(undone) == 2 and all(line.endswith(TAKEN_BACK_TAG) for line in undone), undone


# -- the client asks before what cannot be undone ------------------------------------------------------


def test_the_client_asks_before_leaving_a_game_under_way(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    table = _new_table(child, "new classic 2 greedy")
    child.expect(r"· turn 1 ")
    child.sendline("leave")
    child.expect_exact(LEAVE_ALONE_WARNING)  # nobody else plays here: the game goes as she does
    child.sendline("tables")  # another command: the warning no longer holds
    child.expect(rf"{table}")
    child.sendline("leave")
    child.expect_exact(LEAVE_ALONE_WARNING)
    child.sendline("leave")
    child.expect(rf"you left table {table}")
    child.sendline("leave")  # in the lobby: nothing to warn about, and nothing to leave
    child.expect("you are not at a table")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_leaving_warns_that_a_game_of_bots_alone_ends_as_the_last_person_goes() -> None:
    """A play-tester read "leaving hands your seat to a bot for the rest of the game", left a game
    against bots, and found it abandoned: nobody else played there. After resigning, the same
    'leave' went with no warning at all, and ended a game of 159 moves."""
    people = welcomed(interactive=True)
    seated(people, notty_view(bots=[]))  # bob is a person
    assert people.typed("leave").say == LEAVE_WARNING
    against_bots = welcomed(interactive=True)
    seated(against_bots, notty_view(bots=[1]))
    assert against_bots.typed("leave").say == LEAVE_ALONE_WARNING
    assert against_bots.typed("leave").messages == (Leave(),)  # confirmed
    resigned = welcomed(interactive=True)
    seated(resigned, notty_view(bots=[0, 1]))
    resigned.resigned = True
    assert resigned.typed("leave").say == LEAVE_ALONE_WARNING
    resigned_among_people = welcomed(interactive=True)
    seated(resigned_among_people, notty_view(bots=[0]))
    resigned_among_people.resigned = True
    assert resigned_among_people.typed("leave").messages == (Leave(),)  # given up already: no warning
    waits_for_bob = welcomed(interactive=True)  # a bot stands in for bob, whose seat is still his
    seated(waits_for_bob, notty_view(bots=[1], kept=[0, 1]))
    assert waits_for_bob.typed("leave").say == LEAVE_WARNING  # the game waits for him


def test_the_client_asks_before_resigning(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    table = _new_table(child, "new classic 2 greedy")
    child.expect(r"· turn 1 ")
    child.sendline("resign")
    child.expect_exact(RESIGN_WARNING)
    child.sendline("resign")
    child.expect_exact("you resigned")
    child.expect(r"game over: greedy-2 wins \(ann resigned\)")  # the result, as the game ended
    child.sendline("leave")  # the game is over: no warning
    child.expect(rf"you left table {table}")
    child.sendline("new classic 2 greedy")
    child.expect(r"you sit at table \d+, seat 1")
    child.expect(r"· turn 1 ")
    child.sendline("resign yes")  # confirmed at once
    child.expect(r"game over: greedy-2 wins \(ann resigned\)")  # the result, as the game ended
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_seat_left_mid_game_is_a_bots_in_the_list_and_the_record(tmp_path: Path) -> None:
    net = Net()
    ann, _ = _table(net, "notty", 2)
    table = ann.table
    ann.send(Leave())
    (info,) = net.host.table_list().tables
    assert info["seats"][0]["name"] == "ann" and info["seats"][0]["bot"] == table.stand_in_bot
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    listed = io.StringIO()
    print_games(store.games(), listed)
    assert f"ann (left: bot {table.stand_in_bot} played on) vs bob" in listed.getvalue()
    (saved,) = store.unfinished()  # restored, the seat is the bot's still
    again = Net(seed=3)
    again.host.restore(saved, 0.0)
    assert again.host.tables[table.id].seats[0].bot == table.stand_in_bot
    store.close()


# -- after a game a resignation ended -----------------------------------------------------------------


@pytest.mark.parametrize("how", ("leave", "drop"))
def test_after_a_game_ended_by_resigning_no_seat_is_held_or_played_for(how: str) -> None:
    """The match itself has not ended, but the game has: a player who goes is simply gone. Nobody
    is told a bot plays for them or that their seat is held, and the record gains nothing."""
    net = Net(grace=5.0)
    ann, bob, eve = net.client("ann"), net.client("bob"), net.client("eve")
    table_id = ann.send(CreateTable("notty", 2, None, (), {}, bot_delay_ms=0))[0].table
    bob.send(Join(table_id))
    eve.send(Watch(table_id))
    table = ann.table
    assert table.settings.options["turn_limit"] == 0  # none: a stand-in would set one
    ann.send(Resign())
    net.host.take_journal()
    start = len(eve.inbox)
    if how == "leave":
        bob.send(Leave())
    else:
        net.drop(bob)
    net.tick(10.0)
    kinds = [m.kind for m in eve.inbox[start:] if isinstance(m, Notice)]
    assert kinds == ["left"]
    assert net.host.take_journal() == []
    assert 1 not in table.bot_seats() and table.settings.options["turn_limit"] == 0


def test_leaving_after_the_end_is_no_bot_playing_on_in_the_list_of_games(tmp_path: Path) -> None:
    net = Net()
    ann, bob = _table(net, "ochos-locos", 2)
    bob.send(Resign())
    ann.send(Leave())
    bob.send(Leave())
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    listed = io.StringIO()
    print_games(store.games(), listed)
    assert "ann vs bob (resigned)," in listed.getvalue() and "played on" not in listed.getvalue()
    store.close()


def test_a_seat_that_resigned_gets_no_hints() -> None:
    net = Net()
    ann, _, _ = _table(net, "notty", 3)
    ann.send(Resign())
    (refused,) = ann.send(AskHint())
    assert isinstance(refused, Error) and refused.code == "resigned"


def test_a_seat_left_after_the_end_by_an_older_server_is_no_bot_playing_on(tmp_path: Path) -> None:
    """Servers before schema 4 recorded leaving a finished game too: the list of games still
    shows only those who left a game under way as played on by a bot."""
    net = Net()
    ann, bob = _table(net, "ochos-locos", 2)
    table_id = ann.table.id
    bob.send(Resign())
    clock = iter([1.0, 2.0, 3.0])
    store = Store(tmp_path / "notty.db", clock=lambda: next(clock))
    store.write(net.host.take_journal())  # begun and over at 1.0
    store.write([SeatLeft(table_id, 0)])  # at 2.0, as an older server did
    listed = io.StringIO()
    print_games(store.games(), listed)
    assert "ann vs bob (resigned)," in listed.getvalue()
    store.close()


def test_a_resigned_player_back_from_a_drop_is_not_said_to_stop_the_bot() -> None:
    net = Net(grace=5.0)
    ann, bob, _ = _table(net, "notty", 3)
    token = ann.last(Seated).token
    ann.send(Resign())
    net.drop(ann)
    net.tick(10.0)  # past the grace: the bot played the seat all along, and plays on
    net.client("ann", token)
    (back,) = [m for m in bob.inbox if isinstance(m, Notice) and m.kind == "returned"]
    assert back.text == "ann is back"
    assert bob.table.seats[0].stand_in and 0 in bob.table.bot_seats()


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_that_resigned_is_offered_nothing_on_its_turn(game: str) -> None:
    # The bot playing the seat moves on its own; the person, who can no longer act, must not be
    # shown "your turn" and the commands of the turn.
    net = Net()
    people = _table(net, game, 3)
    seat = people[0].view["current"]
    mover = people[seat]
    assert mover.view["legal"]
    mover.send(Resign())
    assert mover.view["current"] == seat and mover.view["result"] is None
    assert not mover.view["legal"]
    assert seat in mover.view["bots"] and all(seat in other.view["bots"] for other in people)


# -- the list of games names resignations in the order they came ------------------------------------


def test_the_list_of_games_names_resignations_in_the_order_they_came(tmp_path: Path) -> None:
    """It named them in seat order ("ann, cy and dee resigned"), where the result the players saw
    names them as they came."""
    net = Net()
    ann, bob, cy, dee = _table(net, "huxxy", 4)
    for client in (dee, cy, ann):
        client.send(Resign())
    assert bob.view["result"]["text"].startswith("dee, cy and ann resigned: bob wins")
    net2 = Net()
    ann2, bob2 = _table(net2, "huxxy", 2, bots=("random", "random"))
    bob2.send(Resign())
    ann2.send(Resign())  # the bots alone are left: they share first place
    listed = io.StringIO()
    for index, each in enumerate((net, net2)):  # both number their tables from 1: a database each
        with contextlib.closing(Store(tmp_path / f"{index}.db")) as store:
            store.write(each.host.take_journal())
            print_games(store.games(), listed)
    first, second = listed.getvalue().splitlines()
    assert first.endswith(", bob won (dee, cy and ann resigned)"), first
    assert second.endswith("share first place (bob and ann resigned)"), second


def test_a_database_from_before_the_order_was_recorded_lists_resignations_by_when_then_by_seat(
    tmp_path: Path,
) -> None:
    """Schema 5 records after how many moves each resigned, not the order of two with no move
    between: those are named in seat order, as nothing better is known."""
    path = tmp_path / "notty.db"
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        for number in range(5):
            db.executescript(f"BEGIN; {MIGRATIONS[number]}; PRAGMA user_version = {number + 1}; COMMIT;")
        db.execute(
            "INSERT INTO games (id, game, variant, options, bot_delay, turn_seconds, deal, first,"
            " started_at, ended_at, winner, reason, ranking)"
            " VALUES (7, 'huxxy', 'huxxy', '{}', 0, 0, 'AS', 0, 1.0, 2.0, 1, 'resigned', '[[1],[0,2,3]]')"
        )
        for seat, name, after in ((0, "ann", 3), (1, "bob", None), (2, "cy", 3), (3, "dee", 1)):
            db.execute(
                "INSERT INTO seats (game, seat, name, resigned_after) VALUES (7, ?, ?, ?)",
                (seat, name, after),
            )
    for read_only in (True, False):  # 'games' reads it as it is; a server brings it forward
        with contextlib.closing(Store(path, read_only=read_only)) as store:
            listed = io.StringIO()
            print_games(store.games(), listed)
        assert listed.getvalue().rstrip().endswith(", bob won (dee, ann and cy resigned)"), listed.getvalue()


def test_a_game_a_bot_won_for_one_who_resigned_lists_and_replays_who_came_first(tmp_path: Path) -> None:
    """A bot played on for ann, who resigned, and went out: `games` said "no winner (last card
    played)" and the replay ended without a ranking, while bob was told he shared first place."""
    for seed in range(40):
        net = Net(seed=seed)
        ann, bob, cy = _table(net, "ochos-locos", 3)
        ann.send(Resign())
        bob.send(Autopilot(True))
        cy.send(Autopilot(True))
        net.run_bots()
        table = ann.table
        result = bob.view["result"]
        if table.over and result["reason"] == "empty-hand" and _places(result) == [[1, 2], [0]]:
            break
    else:
        pytest.fail("no seed had ann's bot go out")
    said = "bob and cy share first place (last card played; ann resigned, so ranked last)"
    assert bob.view["result"]["text"] == said
    (ended,) = [e for e in bob.last(State).events if e["kind"] == "game-ended"]  # not "ann wins"
    assert ended["text"] == said and _places(ended["data"]) == [[1, 2], [0]]
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    listed = io.StringIO()
    print_games(store.games(), listed)
    assert "bob and cy share first place (" in listed.getvalue() and "; ann resigned)" in listed.getvalue()
    finished = store.game(table.id)
    assert finished is not None
    out = io.StringIO()
    print_game(finished, out)
    assert (
        out.getvalue().splitlines()[-1]
        == "(those who resigned rank last; ranking: bob = cy, then ann (resigned))"
    )
    assert "ann wins" not in out.getvalue() and said in out.getvalue()
    store.close()


def test_a_last_card_stolen_from_one_who_resigned_is_no_win_anywhere(tmp_path: Path) -> None:
    """bob resigned holding 2 cards, and ann stole from him twice: the game's end read "bob wins:
    their last card was stolen", to ann, to a watcher and in the replay, under a result line saying
    that ann and expert-3 shared first place. Each now says what the result says."""
    for seed in range(20):
        net = Net(seed=seed)
        ann, bob = _table(net, "notty", 2, ("expert",))
        eve = net.client("eve")
        eve.send(Watch(ann.table.id))
        bob.send(Resign())
        table = ann.table
        for _ in range(1000):
            net.run_bots()
            if table.over:
                break
            hands, legal = ann.view["body"]["hands"], ann.view["legal"]
            ann.send(Act("steal 1") if len(hands[1]) <= 2 and "steal 1" in legal else PlayForMe())
        if table.over and ann.view["result"]["reason"] == "stolen":
            break
    else:
        pytest.fail("no seed had ann steal bob's last card")
    said = "ann and expert-3 share first place (last card stolen; bob resigned, so ranked last)"
    for client in (ann, bob, eve):
        result = client.view["result"]
        assert _places(result) == [[0, 2], [1]] and result["text"] == said
        (ended,) = [e for e in client.last(State).events if e["kind"] == "game-ended"]
        assert ended["text"] == said and ended["data"] == {"winner": None, "reason": "stolen"}
        assert not any(
            "bob wins" in e["text"] for m in client.inbox if isinstance(m, State) for e in m.events
        )
    ui = ui_for("notty")
    shown = ui.state_text(table.id, read_view(ann.view, ui), ann.last(State).events, False)
    assert "bob wins" not in shown and f"game over: {said}" in shown, shown
    _, replayed = _recorded(net, tmp_path, table.id)
    assert "bob wins" not in replayed and said in replayed.splitlines()[-3], replayed
    assert replayed.splitlines()[-1] == (
        "(those who resigned rank last; ranking: ann = expert-3, then bob (resigned))"
    )
