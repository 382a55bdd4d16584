"""Notices (who joins, leaves, drops, comes back, is played for by a bot, runs out of time), the lobby's
list (oldest first, with each game's turn and its bots), and the end of a game (the result, the turns,
how long it took, the id to replay it by): protocol, host, real TCP, and the terminal client."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import hidden_game
import pexpect
import pytest
import trio
from conftest import ServerProcess, notty_server
from conftest import notty_table as notty
from test_client import _new_table, _spawn
from test_client_session import TOKEN, notty_view, shown, welcomed
from test_generic_ui import UI as GENERIC
from test_host import Client, Net
from test_huxxy_ui import huxxy_view
from test_net import Client as TcpClient
from test_ochos_ui import ochos_view
from test_private_views import Watched
from test_wire import LIMITS_VALUE

from client.catalog import Catalog, paused_note, table_line
from client.session import duration, end_summary, read_view
from games import _ui
from games._ui import ui_for
from protocol import (
    NOTICE_KINDS,
    PROTOCOL_VERSION,
    Act,
    Autopilot,
    Connection,
    CreateTable,
    Error,
    Hello,
    Join,
    Leave,
    ListTables,
    LocalProtocolError,
    Notice,
    ProtocolError,
    Resign,
    Seated,
    Sender,
    Start,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
    encode_frame,
    message_from_wire,
)
from server.host import Host
from server.limits import Limits
from server.net import NottyServer
from server.store import Store

NOTICE = {
    "type": "notice",
    "table": 3,
    "seat": 1,
    "name": "bob",
    "kind": "dropped",
    "text": "bob dropped; their seat is held for 60 s",
    "seconds": 60,
}


# -- the protocol ---------------------------------------------------------------------------


#: What 'paused' means, said once under a list: where a player away keeps their seat ...
HELD_NOTE = (
    "(paused: nobody is at the table; a player away keeps their seat to come back to; once someone"
    " watches, the game goes on, a bot playing for a player still away past the server's grace)"
)
#: ... and where bots alone play.
BOTS_NOTE = "(paused: nobody is at the table; its bots play while someone watches)"


def test_a_notice_goes_over_the_wire_and_back_unchanged() -> None:
    notice = Notice(3, 1, "bob", "dropped", "bob dropped; their seat is held for 60 s", 60)
    assert notice.to_wire() == NOTICE
    assert message_from_wire(NOTICE, Sender.SERVER) == notice
    assert message_from_wire({**NOTICE, "seconds": None}, Sender.SERVER).seconds is None
    without = {key: value for key, value in NOTICE.items() if key != "seconds"}
    assert message_from_wire(without, Sender.SERVER) == Notice(3, 1, "bob", "dropped", NOTICE["text"])
    for kind in NOTICE_KINDS:
        assert message_from_wire({**NOTICE, "kind": kind}, Sender.SERVER).kind == kind


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"kind": "exploded"}, "notice.kind"),  # not one of the kinds
        ({"kind": "Dropped"}, "notice.kind"),
        ({"kind": 1}, "notice.kind"),
        ({"seat": 8}, "notice.seat"),  # beyond the most seats a table has
        ({"seat": -1}, "notice.seat"),
        ({"seat": None}, "notice.seat"),
        ({"text": "x" * 201}, "notice.text"),  # over-long
        ({"text": ""}, "notice.text"),
        ({"text": "bob\ndropped"}, "notice.text"),
        ({"name": "bob (bot)"}, "notice.name"),  # not a name a player could have
        ({"table": 0}, "notice.table"),
        ({"seconds": -1}, "notice.seconds"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_notice_that_is_not_so_is_refused(change: dict[str, Any], where: str) -> None:
    with pytest.raises(ProtocolError) as info:
        message_from_wire({**NOTICE, **change}, Sender.SERVER)
    assert info.value.code == "bad-message" and where in info.value.message
    if "colour" not in change:  # built locally, it is refused alike
        with pytest.raises(ProtocolError):
            Notice(**{k: v for k, v in {**NOTICE, **change}.items() if k != "type"})


def test_a_notice_comes_only_to_someone_at_a_table() -> None:
    client = Connection(Sender.CLIENT)
    server = Connection(Sender.SERVER)
    server.receive_data(client.send(Hello(PROTOCOL_VERSION, "ann")))
    server.next_event()
    client.receive_data(server.send(Welcome(PROTOCOL_VERSION, "s", limits=LIMITS_VALUE)))
    client.next_event()
    notice = Notice(3, 1, "bob", "joined", "bob joined the table")
    with pytest.raises(LocalProtocolError, match="cannot send notice while lobby"):
        server.send(notice)
    client.receive_data(encode_frame(notice.wire_body()))
    with pytest.raises(ProtocolError) as info:
        client.next_event()
    assert info.value.code == "not-now"
    client.receive_data(server.send(Watching(3)))
    client.next_event()
    client.receive_data(server.send(notice))  # watching (or seated), it comes
    assert client.next_event() == notice


@pytest.mark.parametrize(
    ("key", "value"),
    [("turn", 0), ("turn", "3"), ("bots", [8]), ("bots", [0] * 9), ("bots", None), ("kept", [-1])],
)
def test_a_table_map_with_a_bad_turn_or_bots_is_refused(key: str, value: Any) -> None:
    info = {
        "table": 1, "game": "notty", "variant": "classic", "seats": [], "started": True, "over": False,
        "spectators": 0, "turn_seconds": 0, "options": {}, "turn": 3, "bots": [1], "kept": [0],
    }  # fmt: skip
    assert Tables((info,)).tables[0]["bots"] == (1,)
    with pytest.raises(ProtocolError) as refused:
        Tables(({**info, key: value},))
    assert f"tables.tables[0].{key}" in refused.value.message
    # Every server of this protocol says all three: a map without one is refused, not guessed at.
    with pytest.raises(ProtocolError) as refused:
        Tables(({name: given for name, given in info.items() if name != key},))
    assert f"missing key(s) {key}" in refused.value.message


@pytest.mark.parametrize(
    ("key", "value"), [("game_id", 0), ("game_id", None), ("seconds", -1), ("seconds", 1.5)]
)
def test_a_result_with_a_bad_game_id_or_duration_is_refused(key: str, value: Any) -> None:
    result = {"ranking": [[0], [1]], "reason": "discard", "text": "ann wins", "game_id": 4, "seconds": 70}
    view = notty_view(result=result, legal=[])
    assert State(4, view, ()).view["result"]["game_id"] == 4
    with pytest.raises(ProtocolError) as refused:
        State(4, notty_view(result={**result, key: value}, legal=[]), ())
    assert f"state.view.result.{key}" in refused.value.message


# -- the host: each event, its notice, for everyone at the table ---------------------------------


def notices(client: Client, since: int = 0) -> list[Notice]:
    return [message for message in client.inbox[since:] if isinstance(message, Notice)]


def marks(*clients: Client) -> list[int]:
    return [len(client.inbox) for client in clients]


def told(clients: list[Client], since: list[int]) -> list[list[tuple[str, int, str]]]:
    """What each client was told since ``since``: (kind, seat, name) per notice."""
    return [[(n.kind, n.seat, n.name) for n in notices(c, s)] for c, s in zip(clients, since, strict=True)]


def two_at_a_game(grace: float = 30.0, **options: Any) -> tuple[Net, Client, Client, Client, int]:
    """ann and bob at a game of two under way, eve watching it."""
    net = Net(grace=grace)
    ann, bob, eve = net.client("ann"), net.client("bob"), net.client("eve")
    table = ann.send(notty("classic", 2, **options))[0].table
    bob.send(Join(table))
    eve.send(Watch(table))
    assert ann.table.running
    return net, ann, bob, eve, table


def test_taking_and_giving_up_a_seat_at_a_waiting_table_is_told_to_everyone_else_there() -> None:
    net = Net()
    ann, bob, cy, eve = (net.client(name) for name in ("ann", "bob", "cy", "eve"))
    table = ann.send(notty("classic", 3))[0].table
    eve.send(Watch(table))
    since = marks(ann, bob, eve)
    bob.send(Join(table))
    assert told([ann, bob, eve], since) == [[("joined", 1, "bob")], [], [("joined", 1, "bob")]]
    assert notices(ann, since[0])[0].text == "bob joined the table"
    since = marks(ann, bob, eve)
    bob.send(Leave())
    assert told([ann, bob, eve], since) == [[("left", 1, "bob")], [], [("left", 1, "bob")]]
    since = marks(ann, cy, eve)
    cy.send(Join(table))
    net.drop(cy)  # gone before the game began: the seat is free again, and that is a leaving too
    assert told([ann, eve], since[::2]) == [[("joined", 1, "cy"), ("left", 1, "cy")]] * 2


def test_a_drop_and_a_return_are_told_to_the_other_player_and_the_watcher() -> None:
    net, ann, bob, eve, _ = two_at_a_game(grace=45)
    token = next(m.token for m in bob.inbox if isinstance(m, Seated))
    since = marks(ann, eve)
    net.drop(bob)
    assert told([ann, eve], since) == [[("dropped", 1, "bob")]] * 2
    (dropped,) = notices(ann, since[0])
    assert (dropped.seconds, dropped.text) == (45, "bob dropped; their seat is held for 45 s")
    since = marks(ann, eve)
    net.tick(10)  # within the grace: no bot yet
    back = net.client("bob", token)
    assert told([ann, eve], since) == [[("returned", 1, "bob")]] * 2
    assert notices(back) == []  # they have their own answer: seated, and the game
    assert [type(m) for m in back.inbox[1:3]] == [Seated, State]
    assert ann.send(ListTables())[0].tables[0]["bots"] == ()


def test_a_seat_token_no_game_here_holds_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A restart on another database: every client offered its token, was told its seat was gone,
    forgot it, and the log said nothing of it."""
    net = Net()
    with caplog.at_level("INFO", logger="notty.host"):
        net.client("dee", "x" * 43)
    said = [record.getMessage() for record in caplog.records if record.name == "notty.host"]
    assert any(line.endswith(": dee offered a seat token no game here holds") for line in said), said


def test_the_servers_log_has_each_seats_story_too(caplog: pytest.LogCaptureFixture) -> None:
    """SERVER.md promises a line per table event: drops, returns and stand-ins had none."""
    net, _, bob, _, table = two_at_a_game(grace=45)
    token = next(m.token for m in bob.inbox if isinstance(m, Seated))
    with caplog.at_level("INFO", logger="notty.host"):
        net.drop(bob)
        net.client("bob", token)
    said = [record.getMessage() for record in caplog.records if record.name == "notty.host"]
    assert f"table {table}: seat 2: bob dropped; their seat is held for 45 s" in said  # as people count
    assert any(line.startswith(f"table {table}: seat 2: bob") and "back" in line for line in said), said


def test_a_bot_standing_in_after_the_grace_is_told_and_shown_as_a_bot_until_its_player_returns() -> None:
    net, ann, bob, eve, _ = two_at_a_game(grace=30)
    token = next(m.token for m in bob.inbox if isinstance(m, Seated))
    net.drop(bob)
    since = marks(ann, eve)
    net.tick(29)
    assert told([ann, eve], since) == [[], []]
    net.tick(1)
    assert [kind for kind, _, _ in told([ann], since[:1])[0]] == ["stand-in"]
    assert told([eve], since[1:])[0][0] == ("stand-in", 1, "bob")
    assert notices(ann, since[0])[0].text == "a bot plays for bob"
    (listed,) = ann.send(ListTables())[0].tables
    assert listed["bots"] == (1,) and listed["seats"][1]["name"] == "bob"  # the name stays the player's
    net.run_bots(limit=3)
    assert ann.view["bots"] == (1,) and ann.view["names"] == ("ann", "bob")
    since = marks(ann, eve)
    back = net.client("bob", token)
    assert told([ann, eve], since) == [[("returned", 1, "bob")]] * 2
    assert ann.send(ListTables())[0].tables[0]["bots"] == ()
    # and the table they see says so at once, not at the next move (it showed "bob (bot)" until then)
    assert ann.view["bots"] == () and eve.view["bots"] == ()
    # bob is told too, once his table is shown: he came back to turns a bot played for him
    (own,) = [m for m in back.inbox if isinstance(m, Notice)]
    assert (own.kind, own.seat, own.text) == ("returned", 1, "bob is back: the bot stops")
    assert back.inbox.index(own) > max(i for i, m in enumerate(back.inbox) if isinstance(m, State))


def test_leaving_a_game_under_way_tells_everyone_there_then_that_a_bot_plays_the_seat() -> None:
    _, ann, bob, eve, _ = two_at_a_game()
    since = marks(ann, bob, eve)
    bob.send(Leave())
    assert told([ann, bob, eve], since) == [[("left", 1, "bob"), ("stand-in", 1, "bob")], [], [
        ("left", 1, "bob"), ("stand-in", 1, "bob")]]  # fmt: skip
    assert ann.send(ListTables())[0].tables[0]["bots"] == (1,)


def test_a_finished_game_lists_no_bot_for_a_person_who_resigned() -> None:
    """A play-test read "bob (bot), cy (bot)" for people at a finished game: nobody plays there now."""
    net = Net()
    ann, bob, cy = net.client("ann"), net.client("bob"), net.client("cy")
    table = ann.send(notty("classic", 3))[0].table
    bob.send(Join(table))
    cy.send(Join(table))
    bob.send(Resign())  # a bot plays his seat to the end ...
    assert ann.send(ListTables())[0].tables[0]["bots"] == (1,)
    cy.send(Resign())  # ... which comes now: nobody is left to play for but ann
    (listed,) = ann.send(ListTables())[0].tables
    assert listed["over"] and listed["bots"] == ()


def test_a_finished_game_lists_no_bot_for_a_person_who_left_it() -> None:
    """A review: leaving, as against resigning, still listed "bob (bot)" once the game was over (and
    not after a restart, whose record has bob's seat as a person's)."""
    net = Net()
    ann, bob, cy = net.client("ann"), net.client("bob"), net.client("cy")
    table = ann.send(notty("classic", 3))[0].table
    bob.send(Join(table))
    cy.send(Join(table))
    bob.send(Leave())  # a bot plays his seat for the rest of the game
    assert ann.send(ListTables())[0].tables[0]["bots"] == (1,)
    ann.send(Resign())
    cy.send(Resign())  # the game is over: only bob's seat, a stand-in's, played on
    (listed,) = net.client("eve").send(ListTables())[0].tables
    assert listed["over"] and listed["bots"] == ()


def test_a_turn_that_runs_out_of_time_is_told_to_the_others_and_the_player_gets_their_error() -> None:
    net, ann, bob, eve, _ = two_at_a_game(turn_seconds=10)
    mover, other = (ann, bob) if ann.view["current"] == 0 else (bob, ann)
    seat = ann.view["current"]
    since = marks(mover, other, eve)
    net.tick(10)
    assert mover.last(Error).code == "turn-time" and notices(mover, since[0]) == []
    name = ["ann", "bob"][seat]
    assert told([other, eve], since[1:]) == [[("timed-out", seat, name)]] * 2
    (notice,) = notices(eve, since[2])
    assert notice.seconds == 10 and notice.text.startswith(f"{name}'s turn ran out of time (10 s)")
    since = marks(other, eve)
    net.tick(10)  # told once per turn, not at every tick
    assert told([other, eve], since) == [[], []]


def test_notices_name_only_who_and_what_at_a_game_of_hidden_hands() -> None:
    """Every notice is the same for everyone it goes to, and holds no card: the Watched host also
    checks each message against what its receiver may see."""
    net = Watched({"hidden": hidden_game.GAME}, seed=3)
    people = [net.client(f"p{i}") for i in range(3)]
    people[0].send(CreateTable("hidden", 3))
    table = net.host.sessions[people[0].id].table
    assert table is not None
    for person in people[1:]:
        person.send(Join(table))
    eve = net.client("eve")
    eve.send(Watch(table))
    token = next(m.token for m in people[2].inbox if isinstance(m, Seated))
    since = marks(people[0], people[1], eve)
    net.drop(people[2])
    net.tick(6)  # past the grace: a bot stands in
    net.run_bots(limit=5)
    net.client("p2", token)
    people[1].send(Leave())
    got = [notices(c, s) for c, s in zip([people[0], eve], [since[0], since[2]], strict=True)]
    assert [n.kind for n in got[0]] == ["dropped", "stand-in", "returned", "left", "stand-in"]
    assert got[0] == got[1]  # the very same for a player and a spectator
    cards = set(hidden_game.DECK)
    for notice in got[0]:
        assert not cards & set(re.findall(r"\w+", notice.text)), notice
    assert net.checked > 0


def test_the_end_of_a_game_carries_its_record_id_and_how_long_it_took() -> None:
    clock = itertools.count(1_000_000, 251)  # the wall clock: at the start, then at the end
    net = Net()
    net.host.driver.wall_clock = lambda: float(next(clock))
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy", "greedy"), turn_limit=4, bot_delay_ms=0))
    table = ann.table.id
    net.run_bots()
    result = ann.view["result"]
    assert result is not None
    assert (result["game_id"], result["seconds"]) == (table, 251)
    assert ann.view["turn"] == 4


def test_a_server_that_keeps_no_record_gives_no_id_to_replay_a_game_by() -> None:
    """The client's built-in server has no store: telling its player 'notty-server replay 1' would
    send them to another server's record, or to none."""
    assert NottyServer(Net().host).host.recorded is False
    assert NottyServer(Net().host, store=cast(Store, object())).host.recorded is True
    net = Net()
    net.host.recorded = False  # as the shell sets it for a server with no store
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy", "greedy"), turn_limit=4, bot_delay_ms=0))
    net.run_bots()
    result = ann.view["result"]
    assert result is not None and "seconds" in result and "game_id" not in result
    assert not any("replay" in line for line in end_summary(ann.view))


def test_the_lobby_lists_tables_oldest_first_with_the_turn_of_each_game_under_way() -> None:
    net = Net()
    ann, bob, cy = net.client("ann"), net.client("bob"), net.client("cy")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    bob.send(notty("classic", 2))
    net.run_bots(limit=3)
    listed = cy.send(ListTables())[0].tables
    assert [info["table"] for info in listed] == [1, 2]
    playing, waiting = listed
    assert playing["turn"] == ann.view["turn"] and playing["bots"] == (1,)
    assert waiting["turn"] is None and waiting["bots"] == ()
    turn = ann.view["turn"]
    while ann.view["turn"] == turn and ann.view["result"] is None:  # the list follows the game's turn
        if ann.view["current"] == 0:
            ann.send(Act("end"))
        net.run_bots(limit=1)
    assert cy.send(ListTables())[0].tables[0]["turn"] in (ann.view["turn"], None)


# -- the client: the lines a person reads -----------------------------------------------------


def test_a_player_back_to_a_seat_a_bot_played_is_told_so_in_their_own_words() -> None:
    session = welcomed()
    session.receive(Seated(3, 1, TOKEN))
    session.receive(State(3, notty_view(seat=1, names=["ann", "bob"]), ()))
    replies = session.replies
    assert shown(session, Notice(3, 1, "bob", "returned", "bob is back: the bot stops")) == [
        "you are back: a bot played your turns while you were away, and stops now"
    ]
    assert session.replies == replies  # news, not the answer to anything typed


#: A waiting table's creator left: the notice says who may start it now.
HEIR = "ann left the table; bob may now start it early ('start')"


def test_the_client_shows_each_notice_as_one_line_and_none_is_a_reply() -> None:
    session = welcomed()
    replies = session.replies
    lines = [
        shown(session, Notice(3, 1, "bob", "dropped", "bob dropped; their seat is held for 60 s", 60)),
        shown(session, Notice(3, 1, "bob", "stand-in", "a bot plays for bob")),
        shown(session, Notice(3, 1, "bob", "returned", "bob is back: the bot stops")),
        shown(session, Notice(3, 2, "cy", "timed-out", "cy's turn ran out of time (30 s): ...", 30)),
        shown(session, Notice(3, 2, "cy", "joined", "cy joined the table")),
        shown(session, Notice(3, 2, "cy", "left", "cy left the table")),
        shown(session, Notice(3, 0, "ann", "left", HEIR)),
        shown(session, Notice(3, 2, "cy", "joined", "cy s'est assis")),
    ]
    assert lines == [
        ["bob dropped; their seat is held for 60 s"],
        ["a bot plays for bob"],
        ["bob is back: the bot stops"],  # the server's words where they begin with ours and say more
        ["cy's turn ran out of time (30 s): a bot plays the rest of it"],  # the time it had, too
        ["cy joined the table"],
        ["cy left the table"],
        [HEIR],
        ["cy joined the table"],  # ours where the server's say it otherwise
    ]
    assert session.replies == replies  # news: a script waiting for an answer still waits


def test_the_lobby_line_marks_bot_seats_and_the_turn() -> None:
    info = {
        "table": 5, "game": "notty", "variant": "classic", "started": True, "over": False, "spectators": 0,
        "turn_seconds": 0, "options": {"level": "medium", "turn_limit": 0}, "turn": 12, "bots": [1, 2],
        "kept": [0, 1],
        "seats": [
            {"name": "ann", "bot": None, "connected": True},
            {"name": "bob", "bot": None, "connected": False},
            {"name": "expert-3", "bot": "expert-medium", "connected": True},
        ],
    }  # fmt: skip
    line = table_line(info, Catalog(()), None)
    assert line == (
        "table 5: classic, level medium, limit 0, playing turn 12, "
        "seats: ann, bob (bot), expert-3 (bot) · 'watch 5'"
    )
    gone = {**info, "seats": [{**seat, "connected": seat["bot"] is not None} for seat in info["seats"]]}
    # A play-test: bob has a stand-in already, but his seat is still his to take back, as ann's is
    # (it was listed as bots alone, though the game waited for him).
    assert "paused at turn 12 (ann and bob away), seats:" in table_line(gone, Catalog(()), None)
    assert paused_note([info, gone]) == [HELD_NOTE]
    watched = {**gone, "spectators": 1}  # someone watches: its bots play
    assert "playing turn 12, seats:" in table_line(watched, Catalog(()), None)
    people = {
        **gone,
        "seats": [{**seat, "bot": None, "connected": False} for seat in info["seats"]],
        "bots": [],
        "kept": [0, 1, 2],
    }
    assert "paused at turn 12 (ann, bob and expert-3 away), seats:" in table_line(people, Catalog(()), None)
    stood_in = {**gone, "bots": [0, 1, 2], "kept": []}  # seats given up: nobody's is held for them
    assert "paused at turn 12 (bots alone), seats:" in table_line(stood_in, Catalog(()), None)
    assert paused_note([stood_in, watched]) == [BOTS_NOTE]
    assert paused_note([stood_in, people]) == [HELD_NOTE]  # said once: the fuller one
    assert paused_note([info, watched]) == []


def test_a_game_waiting_for_a_player_away_is_listed_as_the_server_plays_it() -> None:
    """A game whose player dropped was listed "paused at turn 3 (its bots play while someone is there)",
    as if it were a game of bots: it waits for its player, and a watcher sets its bots going, and a bot
    playing for the player once their seat's hold is over. Each part of the line, as the server does it."""
    net = Net(grace=30.0)
    ann, cy = net.client("ann"), net.client("cy")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    table = ann.table
    net.run_bots()
    assert table.match is not None and table.match.current == 0  # her turn
    ann.send(Act("end"))
    net.drop(ann)
    (listed,) = cy.send(ListTables())[0].tables
    assert "paused at turn 2 (ann away)" in table_line(listed, Catalog(()), None)
    assert paused_note([listed]) == [HELD_NOTE]
    assert net.run_bots() == 0  # nobody is there: nothing is played
    net.tick(60)
    assert net.run_bots() == 0 and not table.seats[0].stand_in  # past the grace too: nobody came
    cy.send(Watch(table.id))
    assert net.run_bots() > 0  # a watcher: greedy plays its turn
    net.tick(1)  # ann's grace is over: a bot plays for her too
    assert table.seats[0].stand_in and net.run_bots() > 0


def test_a_game_a_bot_plays_for_a_player_away_is_kept_for_them_as_the_watcher_goes() -> None:
    """A play-test: the watcher of a game where a bot stood in for its player, away past the grace,
    seeing bots in every seat, was warned that the game would end as it left, and the lobby listed
    it as bots alone. Her seat is still hers, and the game waits for her: the view says so."""
    net = Net(grace=30.0)
    ann, cy = net.client("ann"), net.client("cy")
    (seated, *_) = ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    assert isinstance(seated, Seated)
    table = ann.table
    net.run_bots()
    net.drop(ann)
    net.tick(60)
    cy.send(Watch(table.id))
    net.tick(1)  # her grace is over, and someone is there: a bot stands in for her
    assert table.seats[0].stand_in
    assert list(cy.view["bots"]) == [0, 1] and list(cy.view["kept"]) == [0]
    cy.send(Leave())
    (listed,) = cy.send(ListTables())[0].tables
    assert list(listed["kept"]) == [0] and not listed["over"]  # kept for her, not abandoned
    assert "paused at turn 1 (ann away)" in table_line(listed, Catalog(()), None)
    back = net.client("ann", token=seated.token)  # and she takes it back
    assert any(isinstance(message, Seated) for message in back.inbox) and list(back.view["kept"]) == [0]
    assert list(back.view["bots"]) == [1]  # greedy alone: the bot for her stops


def test_a_player_away_on_autopilot_is_listed_as_a_bots_seat() -> None:
    """The lobby said of a game whose player dropped on autopilot that it waited for them, and that a
    bot would play for them past the grace: their autopilot plays every turn of theirs at once."""
    net = Net(grace=30.0)
    ann, bob, cy = net.client("ann"), net.client("bob"), net.client("cy")
    ann.send(notty("classic", 3, ("greedy",), bot_delay_ms=0))
    table = ann.table
    bob.send(Join(table.id))
    if table.match is None:
        ann.send(Start())
    ann.send(Autopilot(True))
    start = len(bob.inbox)
    net.drop(ann)
    told = bob.inbox[start:]
    assert any(
        isinstance(message, Notice)
        and message.text == "ann dropped; their seat is held for 30 s, and their autopilot plays their turns"
        for message in told
    ), told
    (listed,) = cy.send(ListTables())[0].tables
    assert 0 in listed["bots"]
    assert "seats: ann (bot), bob, greedy" in table_line(listed, Catalog(()), None)
    bob.send(Leave())  # gives his seat up: nobody is at the table
    (listed,) = cy.send(ListTables())[0].tables
    # Her seat is still hers: the game waits for her, her autopilot playing once someone watches.
    assert "paused at turn 1 (ann away)" in table_line(listed, Catalog(()), None)
    assert paused_note([listed]) == [HELD_NOTE]


def test_the_client_lists_tables_oldest_first_whatever_order_they_come_in() -> None:
    session = welcomed()
    session.sending(ListTables())
    info = {
        "game": "notty", "variant": "classic", "seats": [], "started": False, "over": False, "spectators": 0,
        "turn_seconds": 0, "options": {"level": "medium", "turn_limit": 0}, "turn": None, "bots": [],
        "kept": [],
    }  # fmt: skip
    lines = shown(session, Tables([{**info, "table": 9}, {**info, "table": 2}]))
    assert [line.split(":")[0] for line in lines] == ["table 2", "table 9"]
    assert session.tables_seen == [2, 9]
    away = {"name": "ann", "bot": None, "connected": False}
    bot = {"name": "greedy", "bot": "greedy", "connected": True}
    paused = {**info, "started": True, "seats": [away, bot], "bots": [1], "kept": [0]}
    session.sending(ListTables())
    lines = shown(session, Tables([{**paused, "table": 4}, {**info, "table": 2}, {**paused, "table": 3}]))
    assert [line.split(":")[0] for line in lines] == ["table 2", "table 3", "table 4", "(paused"]
    assert lines[1].startswith("table 3: classic, paused (ann away), seats: ann, greedy (bot)")
    assert lines[-1] == HELD_NOTE  # what 'paused' means, once


@pytest.mark.parametrize(
    ("seat", "ranking", "says"),
    [
        (0, [[0], [1]], "you won after 12 turns, in 4 min 12 s"),
        (1, [[0], [1]], "you lost after 12 turns, in 4 min 12 s"),
        (1, [[0, 1]], "the game ended after 12 turns, in 4 min 12 s"),
        (None, [[0], [1]], "the game ended after 12 turns, in 4 min 12 s"),
    ],
)
def test_the_end_summary_says_your_result_the_turns_the_time_and_the_game_to_replay(
    seat: int | None, ranking: list[list[int]], says: str
) -> None:
    result = {"ranking": ranking, "reason": "discard", "text": "the text", "game_id": 17, "seconds": 252}
    view = notty_view(result=result, legal=[], seat=seat)
    assert end_summary(view) == [
        says,
        "this was game 17 of the server's record: on its machine, 'notty-server replay 17' replays it",
    ]
    session = welcomed()
    lines = shown(session, State(17, view, ()))
    assert lines[-3].startswith("game over: ") and lines[-2:] == end_summary(view)


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(s) for s in (0, 59, 60, 61, 3599, 3600, 3660, 7322)] == [
        "0 s", "59 s", "1 min", "1 min 1 s", "59 min 59 s", "1 h", "1 h 1 min", "2 h 2 min",
    ]  # fmt: skip


# -- real TCP -----------------------------------------------------------------------------------


async def _serve(grace: float) -> AsyncIterator[int]:
    tokens = (f"token{n:035d}" for n in itertools.count())
    seeds = itertools.count(1)
    host = Host(new_rng=lambda: random.Random(next(seeds)), new_token=lambda: next(tokens), grace=grace)
    server = NottyServer(host, limits=Limits(rate=1000, burst=1000))
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(server.serve, "127.0.0.1", 0)
        yield listeners[0].socket.getsockname()[1]
        nursery.cancel_scope.cancel()


@pytest.fixture
async def slow_grace_port() -> AsyncIterator[int]:
    async for port in _serve(30.0):
        yield port


@pytest.fixture
async def quick_grace_port() -> AsyncIterator[int]:
    async for port in _serve(0.3):
        yield port


async def _two_at_a_game(port: int) -> tuple[TcpClient, TcpClient, str, int]:
    ann = await TcpClient.connect(port, "ann")
    await ann.send(notty("classic", 2))
    table = (await ann.expect(Seated)).table
    bob = await TcpClient.connect(port, "bob")
    await bob.send(Join(table))
    token = (await bob.expect(Seated)).token
    await ann.expect(State)
    return ann, bob, token, table


async def test_over_tcp_a_player_sees_another_drop_and_come_back(slow_grace_port: int) -> None:
    ann, bob, token, table = await _two_at_a_game(slow_grace_port)
    await bob.stream.aclose()
    dropped = await ann.expect(Notice)
    assert (dropped.kind, dropped.seat, dropped.name, dropped.seconds) == ("dropped", 1, "bob", 30)
    bob = await TcpClient.connect(slow_grace_port, "bob", token)
    assert (await bob.expect(Seated)).seat == 1
    back = await ann.expect(Notice)
    assert (back.kind, back.seat, back.name, back.table) == ("returned", 1, "bob", table)


async def test_over_tcp_a_player_sees_a_bot_stand_in_for_one_past_the_grace(quick_grace_port: int) -> None:
    ann, bob, _, table = await _two_at_a_game(quick_grace_port)
    await bob.stream.aclose()
    assert (await ann.expect(Notice)).kind == "dropped"
    stand_in = await ann.expect(Notice)
    assert (stand_in.kind, stand_in.name, stand_in.text) == ("stand-in", "bob", "a bot plays for bob")
    await ann.send(ListTables())
    (listed,) = (await ann.expect(Tables)).tables
    assert listed["table"] == table and listed["bots"] == (1,)


# -- the terminal client, as a person ------------------------------------------------------------


def test_a_person_sees_a_notice_and_the_end_of_the_game_with_the_id_that_replays_it(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    db = tmp_path / "notty.db"
    server = ServerProcess(db, "--grace", "1")
    servers.append(server)
    address = f"127.0.0.1:{server.port}"
    ann = _spawn(address, "--name", "ann")
    table = _new_table(ann, "new classic 2 human limit 1")  # the game ends with its first turn
    bob = _spawn(address, "--name", "bob")
    bob.expect("connected to")
    bob.sendline(f"join {table}")
    ann.expect(r"(you play|bob plays) first")
    starter = "ann" if ann.match.group(1) == "you play" else "bob"
    bob.sendline("quit")
    bob.expect(pexpect.EOF)
    ann.expect_exact("bob dropped; their seat is held for 1 s")
    ann.expect_exact("a bot plays for bob")
    if starter == "ann":
        ann.sendline("end")  # else the bot plays bob's turn, and that ends the game
    ann.expect(r"game over: [^\r\n]*; 'leave' returns to the lobby")
    ann.expect(r"the game ended after 1 turn, in \d+ s\r\n")  # no winner, as the line above says
    ann.expect(
        r"this was game (\d+) of the server's record: on its machine, 'notty-server replay (\d+)' replays it"
    )
    game, again = ann.match.group(1), ann.match.group(2)
    assert game == again == table  # the record keeps a game under its table's number
    replayed = notty_server("replay", game, "--db", str(db))
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.startswith(f"game {game}: classic, ann vs bob")
    assert "    1. turn 1: " in replayed.stdout
    ann.sendline("quit")
    ann.expect(pexpect.EOF)


def test_the_table_tags_each_seat_a_bot_plays_now_and_a_view_naming_no_such_seat_is_refused() -> None:
    """A stand-in shows in the table itself, not only in the log: the seat's line says ``(bot)``."""
    session = welcomed()
    lines = shown(session, State(1, notty_view(bots=(1,)), ()))
    (ann,) = [line for line in lines if " ann " in line]
    (bob,) = [line for line in lines if " bob " in line]
    assert ann.endswith("(you)") and "(bot)" not in ann
    assert bob.endswith("(bot)")
    assert session.view is not None and session.view.bots == {1}
    refused = shown(session, State(1, notty_view(bots=(5,)), ()))
    assert any("cannot read" in line for line in refused) and session.view.bots == {1}


#: A view of the generic UI's game, with ann (seat 0) to play and bo after her.
TILES = {
    "game": "tiles", "variant": "square", "names": ["ann", "bo"], "seat": 0, "current": 0, "turn": 2,
    "legal": ["pass"], "result": None, "body": {},
}  # fmt: skip


@pytest.mark.parametrize("game", ["notty", "ochos-locos", "huxxy", "tiles"])
def test_our_seat_played_by_a_bot_says_so_once_in_every_game(game: str) -> None:
    """After a resignation a bot plays the seat to the end: its player's own line read "(you) (bot)".
    The screen still knows it for our seat, to keep it in sight."""
    ui, raw = {
        "notty": (ui_for("notty"), notty_view()),
        "ochos-locos": (ui_for("ochos-locos"), ochos_view()),
        "huxxy": (ui_for("huxxy"), huxxy_view()),
        "tiles": (GENERIC, TILES),  # a game the client has no UI for
    }[game]
    lines = ui.state_text(3, read_view(raw | {"bots": [0, 1]}, ui), [], False).splitlines()
    (ours,) = [line for line in lines if line.startswith(("   ann", " > ann"))]
    (theirs,) = [line for line in lines if line.startswith(("   bo", " > bo"))]
    assert ours.endswith(" (a bot plays for you)") and "(you)" not in ours and "(bot)" not in ours
    assert theirs.endswith(" (bot)")
    assert _ui.OUR_SEAT.search(ours) and not _ui.OUR_SEAT.search(theirs)


def test_a_seat_held_for_ever_is_said_to_be_held_for_good() -> None:
    """``--grace inf`` still tells everyone of the drop, its seconds as many as a notice carries, and
    in words that say what it is (it said "held for 2147483647 s")."""
    net = Net(grace=float("inf"))
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2))[0].table
    bob.send(Join(table))
    net.drop(bob)
    (dropped,) = [m for m in ann.inbox if isinstance(m, Notice) and m.kind == "dropped"]
    assert dropped.seconds == 2**31 - 1 and dropped.text == "bob dropped; their seat is held for good"
