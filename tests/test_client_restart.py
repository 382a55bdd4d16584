"""A server stopped with SIGTERM (to restart it, say) costs nobody their seat: it tells each client
it is shutting down (the error ``shutting-down``, then goodbye), and ``notty-client`` says so and
reconnects as after a dropped connection, resuming its seat once the server is back on the same
database; if it does not come back within the reconnect budget, the client ends with status 1,
saying how to take the seat back.

The end-to-end tests drive the real ``notty-client`` (line mode and the full screen, on a pty, and
a script on a pipe) against real ``notty-server`` processes; where the budget must run out, the one
thing changed in the client is the budget (:data:`client.app.RECONNECT_SECONDS`), as in
:mod:`test_client_reconnect`.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from pathlib import Path

import pexpect
import pytest
import trio
from conftest import LIMITS, WELCOME, ServerProcess
from pexpect.popen_spawn import PopenSpawn
from test_client_resume import Screen
from test_screen import STATUS, Person

from client import app
from client.session import Session
from client.tokens import SeatStore
from protocol import (
    PROTOCOL_VERSION,
    Act,
    Bye,
    Connection,
    Error,
    Goodbye,
    Hello,
    ListTables,
    Message,
    Ping,
    Pong,
    Seated,
    Sender,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
)

BIN = Path(sys.executable).parent
#: What the client says when the server tells it that it is stopping.
RESTARTING = (
    r"the server is shutting down or restarting; trying to reconnect for up to (\d+) s \(Ctrl-C quits\)"
)
#: The reconnect budget, in seconds, where a test waits for it to run out.
BUDGET = 2.0
#: Seconds a restarted server keeps a game of bots alone for its watcher, where a test says.
GRACE = 6
#: ``notty-client`` itself, with only the reconnect budget shortened.
CLIENT = f"import sys; from client import app; app.RECONNECT_SECONDS = {BUDGET!r}; sys.exit(app.main())"


def _environment(tmp_path: Path) -> dict[str, str]:
    """Seat tokens in the test's directory, never the real home."""
    env = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("NO_COLOR", None)
    return env


def _line_mode(tmp_path: Path, *args: str, budget: bool = False) -> tuple[pexpect.spawn, io.StringIO]:
    """The client on a pty in line mode, and everything it prints; ``budget``: the shortened one."""
    command, prefix = (sys.executable, ["-c", CLIENT]) if budget else (str(BIN / "notty-client"), [])
    child = pexpect.spawn(
        command, [*prefix, *args, "--plain"], env=_environment(tmp_path), encoding="utf-8", timeout=20
    )
    child.setwinsize(40, 160)
    transcript = io.StringIO()
    child.logfile_read = transcript
    return child, transcript


def _restarted(servers: list[ServerProcess], db: Path, *args: str) -> ServerProcess:
    """The server started again on the same database and port, as its host would (with ``args``)."""
    servers.append(server := ServerProcess(db, "--port", str(servers[-1].port), *args))
    return server


async def _against(
    serve: Callable[[trio.SocketStream], Awaitable[None]],
    client: app.Client,
    screen: Screen,
    read_lines: Callable[[trio.MemorySendChannel[str | None]], Awaitable[None]],
    seconds: float = 20,
) -> int:
    """The client's own loop (:func:`client.app._play`) against a fake server, ``serve`` on a free
    port: its exit status."""
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(seconds):
            code = await app._play(client, ("127.0.0.1", port), screen, built_in=False, read_lines=read_lines)
        nursery.cancel_scope.cancel()
    return code


def _stopping(server: Connection) -> bytes:
    """What a server that is stopping says to a client: ``shutting-down``, then goodbye."""
    return server.send(Error("shutting-down", "stopping")) + server.send(Goodbye("stopping"))


async def _messages(stream: trio.SocketStream, server: Connection) -> AsyncIterator[Message]:
    """Each message a fake server reads from the client, until the client closes or says ``Bye``
    (which is answered with goodbye)."""
    while data := await stream.receive_some(65536):
        server.receive_data(data)
        while (message := server.next_event()) is not None:
            if isinstance(message, Bye):
                await stream.send_all(server.send(Goodbye("bye")))
                return
            yield message


def _kept_token(tmp_path: Path, port: int, name: str) -> str:
    seats = json.loads((tmp_path / "state" / "notty" / "seats.json").read_text())["servers"]
    return str(seats[f"127.0.0.1:{port}"][name]["token"])


def _at_her_turn_as_the_server_stops(
    tmp_path: Path, servers: list[ServerProcess]
) -> tuple[Path, pexpect.spawn, io.StringIO, str]:
    """ann at a new game, her turn, in line mode, as the server is stopped: its database, her client
    and what it said, and her table."""
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db))
    ann, transcript = _line_mode(tmp_path, f"127.0.0.1:{server.port}", "--name", "ann")
    ann.expect("connected to")
    ann.sendline("new classic 2 greedy")
    ann.expect(r"you sit at table (\d+), seat 1")
    table = ann.match.group(1)
    ann.expect("your turn")
    server.stop()
    ann.expect(RESTARTING)
    return db, ann, transcript, table


def _quit(ann: pexpect.spawn, transcript: io.StringIO, prompt: bool = True) -> str:
    """``quit`` (at the prompt, unless not waiting for it): the client ends with status 0; all it said."""
    if prompt:
        ann.expect("notty> ")
    ann.sendline("quit")
    ann.expect(pexpect.EOF)
    ann.close()
    assert ann.exitstatus == 0
    return transcript.getvalue()


def test_a_person_at_a_game_is_back_at_their_seat_after_the_server_restarts(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    # The game waits for ann: what she saw is what comes back. The server is stopped by SIGTERM.
    db, ann, transcript, table = _at_her_turn_as_the_server_stops(tmp_path, servers)
    assert ann.match.group(1) == "30"
    _restarted(servers, db)
    ann.expect(rf"connected to notty \(asking for your seat at table {table} back\)")
    ann.expect(rf"you sit at table {table}, seat 1")
    ann.expect("your turn")
    ann.sendline("draw 1")
    ann.expect("you draw 1 card")  # and she plays on
    said = _quit(ann, transcript)
    # Nothing of the goodbye (its own, after 'quit', may be said), nor of a lost connection.
    unwanted = ("refused", "goodbye: the server", "ended the connection", "connection lost", "Traceback")
    assert [words for words in unwanted if words in said] == []


def test_a_server_restarted_on_another_database_leaves_the_seat_kept_for_the_one_with_the_game(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    # A play-test restarted on another --db: every client was told its seat was gone, and forgot it,
    # though the game was still in the first database.
    db, ann, transcript, table = _at_her_turn_as_the_server_stops(tmp_path, servers)
    port = servers[-1].port
    token = _kept_token(tmp_path, port, "ann")
    _restarted(servers, tmp_path / "other.db")
    ann.expect(
        rf"the server does not keep the record your game at table {table} is in \(was it started on another "
        r"database\?\); once it runs on its own record again, resume it with:\r\n"
    )
    ann.expect(rf"  notty-client 127.0.0.1:{port} --name ann --plain\r\n")
    assert _kept_token(tmp_path, port, "ann") == token
    said = _quit(ann, transcript)
    assert "is gone" not in said and "Traceback" not in said
    assert any("offered a seat token of another record" in line for line in _log_of(servers[-1]))
    servers[-1].stop()
    _restarted(servers, db)  # the server on its own record: the kept seat resumes the game
    ann, transcript = _line_mode(tmp_path, f"127.0.0.1:{port}", "--name", "ann")
    ann.expect(rf"you sit at table {table}, seat 1")
    ann.expect("your turn")
    _quit(ann, transcript)


def _log_of(server: ServerProcess) -> list[str]:
    """A stopped server's whole log."""
    assert server.process.stderr is not None
    server.stop()
    return [*server.log, *server.process.stderr]


def test_lines_typed_while_the_connection_is_down_are_not_played_once_it_is_back(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """A play-test typed 'draw 3' and 'end' while the server restarted: both were played the moment
    it was back, a whole turn its player had not seen the table for."""
    db, ann, transcript, table = _at_her_turn_as_the_server_stops(tmp_path, servers)
    ann.sendline("draw 3")
    ann.expect(r"not sent, the connection is down: draw 3 \(type it again once it is back\)")
    ann.sendline("end")
    ann.expect("not sent, the connection is down: end")
    _restarted(servers, db)
    ann.expect(rf"connected to notty \(asking for your seat at table {table} back\)")
    ann.expect("your turn")
    ann.sendline("draw 1")  # what she types now is played
    ann.expect("you draw 1 card")
    said = _quit(ann, transcript)
    assert "you draw 3 cards" not in said and "you end the turn" not in said


def test_while_the_connection_is_down_what_the_client_answers_itself_is_answered_and_quit_quits(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """Every line typed while reconnecting was answered "not sent", 'quit' and 'help' too, though
    neither goes to the server."""
    _, ann, transcript, table = _at_her_turn_as_the_server_stops(tmp_path, servers)
    ann.sendline("help")
    ann.expect("discard")  # the commands, as at any time
    said = _quit(ann, transcript, prompt=False)
    assert "not sent" not in said and f"your seat at table {table} is kept" in said


def test_the_full_screen_reconnects_alike(tmp_path: Path, servers: list[ServerProcess]) -> None:
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db))
    bea = Person(tmp_path, f"127.0.0.1:{server.port}", "--name", "bea")
    bea.see("connected to")
    bea.enter("new classic 2 greedy")
    table = bea.see(r"you sit at table (\d+), seat 1").group(1)
    bea.see(r"your turn\s*$")
    server.stop()
    bea.see(RESTARTING)
    # Not "your turn" while the connection is down (it stood highlighted, as if she could play).
    assert bea.row(STATUS).rstrip().endswith("reconnecting"), bea.row(STATUS)
    _restarted(servers, db)
    bea.see(rf"asking for your seat at table {table} back")
    bea.wait(lambda: bea.row(STATUS).rstrip().endswith("your turn"), "her turn again, once back")
    bea.enter("draw 1")  # the server reads it after the hello that resumes the seat
    bea.see("you draw 1 card")
    bea.enter("quit")
    assert bea.finish() == 0
    assert bea.terminal_restored()
    assert "refused" not in bea.output and "ended the connection" not in bea.output


def test_a_script_reconnects_and_plays_on_after_the_server_restarts(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db))
    fay = PopenSpawn(
        [str(BIN / "notty-client"), f"127.0.0.1:{server.port}", "--name", "fay"],
        env=_environment(tmp_path),
        encoding="utf-8",
        timeout=20,
    )
    try:
        fay.sendline("new classic 2 greedy")
        fay.expect(r"you sit at table (\d+), seat 1")
        table = fay.match.group(1)
        fay.expect("your turn")
        server.stop()
        fay.expect(RESTARTING)
        _restarted(servers, db)
        fay.expect(rf"connected to notty \(asking for your seat at table {table} back\)")
        fay.sendline("draw 1")  # not taken for a line the server refused: the script goes on
        fay.expect("you draw 1 card")
        fay.sendeof()
        fay.expect(pexpect.EOF)
        status = fay.wait()
    finally:
        if fay.proc.poll() is None:
            fay.kill(9)
    assert status == 0
    assert "refused" not in fay.before


def test_a_script_line_waiting_for_its_turn_through_a_restart_is_carried_out_after_it(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """The line was read, and waited for the other player's turn to pass, when the server stopped:
    it was dropped, and the script went on without it."""
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db))

    def script(name: str) -> PopenSpawn:
        where = f"127.0.0.1:{server.port}"
        command = [str(BIN / "notty-client"), where, "--name", name]
        return PopenSpawn(command, env=_environment(tmp_path), encoding="utf-8", timeout=20)

    fay, gus = script("fay"), script("gus")
    try:
        fay.sendline("new classic 2 human")
        fay.expect(r"you sit at table (\d+), seat 1")
        gus.sendline(f"join {fay.match.group(1)}")
        gus.expect("you sit at table")
        if fay.expect([r"your turn", r"gus to play"]) == 0:
            fay.sendline("end")
            fay.expect("gus to play")
        fay.sendline("draw 1")  # read at once, and held for fay's turn
        trio.run(trio.sleep, 1)  # nothing to wait on: the line is held in silence
        server.stop()
        fay.expect(RESTARTING)
        gus.expect(RESTARTING)
        _restarted(servers, db)
        fay.expect("asking for your seat")
        gus.expect("asking for your seat")
        gus.sendline("end")
        fay.expect("you draw 1 card")
        fay.sendeof()
        fay.expect(pexpect.EOF)
        status = fay.wait()
    finally:
        for child in (fay, gus):
            if child.proc.poll() is None:
                child.kill(9)
    assert status == 0


@pytest.mark.parametrize("how", ["stopped", "killed"])
def test_a_server_not_back_within_the_budget_ends_the_client_with_its_seat_kept(
    tmp_path: Path, servers: list[ServerProcess], how: str
) -> None:
    """Stopped (it says goodbye) or killed (a crash: nothing said), a server not back within the
    budget ends the client, which says where the seat is kept and how to take it back: after a
    crash it said only that it lost the connection (a play-test), and the full screen's lines about
    reconnecting go with it."""
    servers.append(server := ServerProcess(tmp_path / "notty.db"))
    address = f"127.0.0.1:{server.port}"
    cy, transcript = _line_mode(tmp_path, address, "--name", "cy", budget=True)
    cy.expect("connected to")
    cy.sendline("new classic 2 greedy")
    cy.expect(r"you sit at table (\d+), seat 1")
    table = cy.match.group(1)
    cy.expect("your turn")
    token = _kept_token(tmp_path, server.port, "cy")
    if how == "stopped":
        server.stop()
        cy.expect(RESTARTING)
        assert cy.match.group(1) == f"{BUDGET:g}"
        gave_up = rf"the server at {re.escape(address)} shut down, and it was not back within 2 s"
        cy.expect(rf"notty-client: {gave_up}")
    else:
        server.kill()
        cy.expect(r"connection lost \(the server closed the connection\); reconnecting")
        gave_up = rf"lost the connection to {re.escape(address)}: the server closed the connection"
        cy.expect(rf"notty-client: {gave_up}")
    cy.expect(
        rf"your seat at table {table} is kept; to take it back, run:"
        rf"\s+notty-client {re.escape(address)} --name cy"
    )
    cy.expect(pexpect.EOF, timeout=10)
    cy.close()
    assert cy.exitstatus == 1
    assert _kept_token(tmp_path, server.port, "cy") == token  # so running it again takes the seat back
    assert "refused" not in transcript.getvalue() and "Traceback" not in transcript.getvalue()


async def test_a_client_turned_away_as_the_server_stops_keeps_one_budget_and_a_watcher_watches_again(
    tmp_path: Path,
) -> None:
    """The server stops (connection 1), turns the first try away as it stops (connection 2: no new
    budget, nothing said again), then is back (connection 3). A client that watched a table has no
    seat to resume: it watches that table again by itself, and says so."""
    connections = 0
    back = trio.Event()

    async def serve(stream: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        number, server = connections, Connection(Sender.SERVER)
        async with stream:
            if number == 2:
                await stream.send_all(_stopping(server))
                return
            async with aclosing(_messages(stream, server)) as messages:
                async for message in messages:
                    match message:
                        case Hello():
                            await stream.send_all(server.send(WELCOME))
                        case Watch(table) if number == 1:
                            await stream.send_all(server.send(Watching(table)) + _stopping(server))
                            return
                        case Watch(table):
                            await stream.send_all(server.send(Watching(table)))
                            back.set()

    async def script(send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await send.send("watch 1")
            await back.wait()
            await send.send(None)

    screen = Screen()
    client = app.Client(screen, Session("jo", seats=SeatStore(tmp_path / "seats.json")))
    code = await _against(serve, client, screen, script, seconds=10)
    assert code == 0
    assert connections == 3
    assert screen.lines[0] == "connected to test"
    assert screen.lines[1] == "you are watching table 1"
    assert re.fullmatch(RESTARTING, screen.lines[2])
    assert screen.lines[3:] == [
        "connected to test (watching table 1 again)",
        "you are watching table 1 again",
    ]


async def test_a_watcher_whose_connection_drops_watches_again_and_a_table_gone_leaves_it_in_the_lobby(
    tmp_path: Path,
) -> None:
    """Connection 1 drops (no goodbye, as in a crash) while the client watches table 1; on connection
    2 the client asks to watch it again by itself, and the table is gone: it says so and stays in
    the lobby, and a script goes on (the refusal answers no line of its)."""
    connections, watched = 0, []
    back = trio.Event()

    async def serve(stream: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        number, server = connections, Connection(Sender.SERVER)
        async with stream, aclosing(_messages(stream, server)) as messages:
            async for message in messages:
                match message:
                    case Hello():
                        await stream.send_all(server.send(WELCOME))
                    case Watch(table) if number == 1:
                        await stream.send_all(server.send(Watching(table)))
                        await trio.sleep(0.3)
                        return  # dropped
                    case Watch(table):
                        watched.append(table)
                        gone = f"there is no table {table} (any more): 'tables' lists them now"
                        await stream.send_all(server.send(Error("no-such-table", gone)))
                        back.set()
                    case ListTables():
                        await stream.send_all(server.send(Tables(())))

    async def script(send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await send.send("watch 1")
            await back.wait()
            await send.send("tables")  # a script's next line is carried out in the lobby
            await send.send(None)

    screen = Screen()
    client = app.Client(screen, Session("jo", seats=SeatStore(tmp_path / "seats.json")))
    code = await _against(serve, client, screen, script, seconds=10)
    assert (code, connections, watched) == (0, 2, [1])
    assert screen.lines == [
        "connected to test",
        "you are watching table 1",
        "connection lost (the server closed the connection); reconnecting",
        "connected to test (watching table 1 again)",
        "table 1 is gone, so you are not watching it: you are in the lobby",
        "no tables now: 'new' creates one",
    ]
    assert client.session.table is None and client.refused is None


async def test_a_turn_that_comes_in_the_same_read_as_the_stop_still_gets_its_held_line(
    tmp_path: Path,
) -> None:
    """The state that makes it our turn arrives with the server's shutting-down and goodbye: the
    held line woke, then was cancelled at the send's lock before anything went out. It had been
    marked as sent, so it was carried out on neither connection."""
    from test_client_session import NOTTY, TOKEN, notty_view

    connections, acts = 0, {}
    back = trio.Event()
    theirs, ours = notty_view(current=1, legal=[]), notty_view(current=0, legal=["draw 1"])

    async def serve(stream: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        number, server = connections, Connection(Sender.SERVER)
        async with stream, aclosing(_messages(stream, server)) as messages:
            async for message in messages:
                match message:
                    case Act():
                        acts.setdefault(number, []).append(message.action)
                        await stream.send_all(server.send(State(3, theirs, ())))
                    case Hello():
                        welcome = server.send(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
                        await stream.send_all(welcome + server.send(Seated(3, 0, TOKEN)))
                        if number == 1:
                            await stream.send_all(server.send(State(3, theirs, ())))
                            await trio.sleep(0.5)  # the script's line is held for our turn now
                            turn = server.send(State(3, ours, ()))  # then the stop, in one write:
                            await stream.send_all(turn + _stopping(server))
                            return
                        await stream.send_all(server.send(State(3, ours, ())))
                        back.set()
                    case Ping(nonce):
                        await stream.send_all(server.send(Pong(nonce)))

    async def script(send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await send.send("draw 1")
            await back.wait()
            await trio.sleep(1)
            await send.send(None)

    screen = Screen()
    client = app.Client(screen, Session("jo", server="h:1", seats=SeatStore(tmp_path / "seats.json")))
    code = await _against(serve, client, screen, script)
    assert (code, connections, acts) == (0, 2, {2: ["draw 1"]})


async def test_a_person_whose_first_connection_is_turned_away_still_gets_the_list_on_arrival() -> None:
    """The arrival (the table list for a person without a seat) counted as done before it was
    sent, so a first connection turned away by a stopping server left the person with no list."""
    connections, asked = 0, []
    back = trio.Event()

    async def serve(stream: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        number, server = connections, Connection(Sender.SERVER)
        async with stream:
            if number == 1:
                await stream.send_all(_stopping(server))
                return
            async with aclosing(_messages(stream, server)) as messages:
                async for message in messages:
                    match message:
                        case Hello():
                            await stream.send_all(server.send(WELCOME))
                            back.set()
                        case ListTables():
                            asked.append(number)
                            await stream.send_all(server.send(Tables(())))

    async def person(send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await back.wait()
            await trio.sleep(1)
            await send.send(None)

    screen = Screen()
    screen.interactive = True
    await _against(serve, app.Client(screen, Session("jo", interactive=True)), screen, person)
    assert connections == 2 and asked == [2]


async def test_a_drop_then_a_server_stopping_ends_as_a_stop_with_the_seat_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The connection drops (connection 1 closes, no goodbye); the try after it is turned away by
    a server that is stopping (2); nothing answers after that. The budget begun for the drop ran
    out as "lost the connection", with nothing said of the seat it kept."""
    from test_client_session import NOTTY, TOKEN, notty_view

    monkeypatch.setattr(app, "RECONNECT_SECONDS", 3.0)
    connections = 0
    listening: list[trio.SocketListener] = []

    async def serve(stream: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        number, server = connections, Connection(Sender.SERVER)
        async with stream:
            if number == 2:
                await stream.send_all(_stopping(server))
                return
            if number > 2:  # it is not back: every later try is closed unanswered
                return
            async with aclosing(_messages(stream, server)) as messages:
                async for message in messages:
                    if isinstance(message, Hello):
                        welcome = server.send(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
                        seated = server.send(Seated(3, 0, TOKEN))
                        view = server.send(State(3, notty_view(current=1, legal=[]), ()))
                        await stream.send_all(welcome + seated + view)
                        await trio.sleep(0.5)
                        return  # dropped, with no goodbye

    async def person(send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await trio.sleep_forever()

    screen = Screen()
    screen.interactive = True
    seats = SeatStore(tmp_path / "seats.json")
    async with trio.open_nursery() as nursery:
        listening[:] = await nursery.start(functools.partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port = listening[0].socket.getsockname()[1]
        session = Session("jo", interactive=True, seats=seats, server=f"127.0.0.1:{port}")
        with trio.fail_after(20):
            code = await app._play(
                app.Client(screen, session), ("127.0.0.1", port), screen, built_in=False, read_lines=person
            )
        nursery.cancel_scope.cancel()
    said = capsys.readouterr().err  # the last words, on stderr
    assert code == 1 and connections >= 2, said
    assert f"notty-client: the server at 127.0.0.1:{port} shut down, and it was not back within 3 s" in said
    assert "your seat at table 3 is kept" in said and "lost the connection" not in said


def test_a_watcher_watches_its_table_again_after_the_server_is_killed_and_restarted(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """A play-test: dan watched a game of bots alone; the server was killed and restarted, and the
    client said only that 'watch 14' would watch it again. Nobody did within the grace, and the
    server gave the game up (docs/SERVER.md keeps it for a watcher to watch it again)."""
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db, "--watch-delay", "0.3"))  # slow enough to watch
    dan, transcript = _line_mode(tmp_path, f"127.0.0.1:{server.port}", "--name", "dan")
    dan.expect("connected to")
    dan.sendline("new five-colour 3 qlearn expert-easy greedy")
    dan.expect(r"you are watching table (\d+)")
    table = dan.match.group(1)
    dan.expect(r"turn (\d+) of 300")
    dan.expect(r"turn (\d+) of 300")  # the game goes on, watched
    server.kill()  # no goodbye: a crash
    dan.expect(r"connection lost \(the server closed the connection\); reconnecting")
    # The restarted server keeps the game for GRACE seconds for a watcher to come back: the client
    # comes back within it (its tries back off to 3 s or so apart by then), and the game goes on past it.
    _restarted(servers, db, "--watch-delay", "0.3", "--grace", str(GRACE))
    restarted = time.monotonic()
    dan.expect(rf"connected to notty \(watching table {table} again\)")
    dan.expect(rf"you are watching table {table} again")
    dan.expect(r"turn (\d+) of 300")
    turn = int(dan.match.group(1))
    dan.expect(rf"turn {turn + 1} of 300")  # its bots play again
    trio.run(trio.sleep, max(0.0, restarted + GRACE + 1 - time.monotonic()))
    seen = ""  # what came meanwhile; then a move past the grace, unless the game ended meanwhile
    with contextlib.suppress(pexpect.TIMEOUT):
        while True:
            seen += dan.read_nonblocking(65536, timeout=0.2)
    if "the game ended after" not in seen:
        dan.expect(r"turn \d+ of 300")
    said = _quit(dan, transcript)
    assert "you are in the lobby" not in said and "refused" not in said and "Traceback" not in said
