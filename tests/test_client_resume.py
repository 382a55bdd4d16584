"""The client keeps its seat token on disk and resumes by itself; it pings while idle.

The end-to-end tests drive the real ``notty-client`` through a pty against a
real ``notty-server``, as a person would; ``XDG_STATE_HOME`` points into the
test's temporary directory so the real home is never touched.
"""

from __future__ import annotations

import errno
import functools
import io
import json
import multiprocessing
import os
import re
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
import trio
import trio.testing
from conftest import WELCOME

from client import app, tokens
from client.app import Client
from client.session import Session
from client.terminal import Terminal
from client.tokens import SeatStore, StoredSeat, default_path, server_key
from protocol import (
    PROTOCOL_VERSION,
    Bye,
    Connection,
    CreateTable,
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
    Welcome,
)

BIN = Path(sys.executable).parent
BOGUS_TOKEN = "x" * 40  # well formed, held by no seat


@pytest.fixture
def state_home(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def seats_file(state_home: Path) -> Path:
    return state_home / "notty" / "seats.json"


class Person:
    """``notty-client`` on a pty, with everything it printed kept for later checks."""

    def __init__(self, state_home: Path, *args: str) -> None:
        env = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": str(state_home)}
        env.pop("NO_COLOR", None)
        self.log = io.StringIO()
        self.child = pexpect.spawn(
            str(BIN / "notty-client"), [*args, "--plain"], env=env, encoding="utf-8", timeout=20
        )
        self.child.logfile_read = self.log
        self.child.setwinsize(40, 160)

    def expect(self, pattern: str) -> re.Match[str]:
        self.child.expect(pattern)
        match = self.child.match
        assert isinstance(match, re.Match)
        return match

    def sendline(self, line: str) -> None:
        self.child.sendline(line)

    def quit(self) -> int:
        self.child.sendline("quit")
        self.child.expect(pexpect.EOF)
        self.child.close()
        assert "Traceback" not in self.log.getvalue()
        return int(self.child.exitstatus or 0)

    def kill(self) -> None:
        self.child.kill(signal.SIGKILL)
        self.child.close(force=True)


def _kept(seats_file: Path) -> dict[str, Any]:
    return dict(json.loads(seats_file.read_text())["servers"])


#: A player's own line in the table display; the group is the hand, as shown.
HAND = r"{name}\s+\[\s*\d+\]  ([^\r\n]*?) \(you\)"


def test_a_killed_client_run_again_resumes_its_seat_and_sees_its_hand(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    address = f"127.0.0.1:{server_port}"
    ann = Person(state_home, address, "--name", "ann")
    connected = ann.expect(r"connected to ([^\r\n]*)")
    assert "your seat" not in connected.group(1)
    ann.sendline("new classic 2 greedy")
    table = ann.expect(r"you sit at table (\d+), seat 1").group(1)
    # Wait for ann's turn: the game then waits for her, so her hand stays as it is.
    hand = ann.expect(HAND.format(name="ann") + r"\r\n[^\r\n]*\r\nyour turn").group(1)

    assert stat.S_IMODE(seats_file.stat().st_mode) == 0o600  # a secret: the owner's alone
    assert stat.S_IMODE(seats_file.parent.stat().st_mode) == 0o700
    kept = _kept(seats_file)[address]["ann"]
    assert kept["table"] == int(table) and re.fullmatch(r"[A-Za-z0-9_-]{32,64}", kept["token"])

    ann.kill()  # no bye, no goodbye: the process is simply gone

    again = Person(state_home, address, "--name", "ann")
    again.expect(rf"connected to [^\r\n]*\(asking for your seat at table {table} back\)")
    again.expect(rf"you sit at table {table}, seat 1")
    assert again.expect(HAND.format(name="ann")).group(1) == hand  # the same seat, the same cards
    # and what happened last, as it was shown before the table then
    shown_last = re.compile(rf"((?:  [^\r\n]*\r\n)+)table {table} · ")
    assert shown_last.findall(again.log.getvalue())[-1:] == shown_last.findall(ann.log.getvalue())[-1:]
    again.expect("your turn")
    again.sendline("draw 1")
    again.expect("you draw 1 card")  # and she plays on
    again.expect("notty> ")
    again.child.sendline("quit")
    again.expect(rf"your seat at table {table} is kept")  # quitting mid-game keeps it too
    again.child.expect(pexpect.EOF)
    assert _kept(seats_file)[address]["ann"]["token"] == kept["token"]
    listed = re.compile(r"no tables now|· '(join|watch) \d+'|· you are here")
    assert listed.search(ann.log.getvalue()), "a person arriving sees the tables"
    assert not listed.search(again.log.getvalue()), "one resuming a seat goes straight back to it"


def test_a_seat_taken_over_by_another_connection_is_said_once_and_exits_1(
    server_port: int, state_home: Path
) -> None:
    """The play-test: the old client said the reason three times (as the error, as the goodbye, and
    as its last words); once now, in the last words that say the server ended the connection."""
    address = f"127.0.0.1:{server_port}"
    ann, table = _ann_at_a_new_table(state_home, address, "new classic 2 greedy")
    # The same seat file, and asked by the table's number: it takes ann's seat over from the first.
    again = Person(state_home, address, "--name", "ann", "--table", table)
    again.expect(rf"you sit at table {table}, seat 1")
    why = "your seat was resumed from another connection, which has it now"
    ann.expect(rf"notty-client: the server at {re.escape(address)} ended the connection: {why}")
    ann.child.expect(pexpect.EOF)
    ann.child.close()
    assert ann.child.exitstatus == 1
    assert ann.log.getvalue().count(why) == 1, ann.log.getvalue()
    assert "goodbye" not in ann.log.getvalue()
    assert again.quit() == 0


def test_a_seat_taken_over_from_another_client_here_shows_the_last_moves_as_played_there(
    server_port: int, state_home: Path
) -> None:
    """A play-test took a seat over from another terminal and read "while you were away:", then the
    moves it had just watched there (the server counts those since the old client last spoke)."""
    address = f"127.0.0.1:{server_port}"
    ann, table = _ann_at_a_new_table(state_home, address, "new classic 2 greedy", until="your turn")
    ann.sendline("draw 1")
    ann.expect("you draw 1 card")
    ann.sendline("end")
    ann.expect("greedy-2 ends the turn; your turn")  # moves made since ann last spoke
    again = Person(state_home, address, "--name", "ann", "--table", table)
    again.expect(r"the last moves, before you took your seat over:\r\n")
    again.expect("greedy-2 ends the turn; your turn")
    said = again.log.getvalue()
    assert "while you were away" not in said and "a bot" not in said  # ann's own moves, not a bot's
    ann.child.expect(pexpect.EOF)
    assert again.quit() == 0


def _ann_at_a_new_table(
    state_home: Path, address: str, command: str, name: str = "ann", until: str = "notty> "
) -> tuple[Person, str]:
    """ann (or ``name``) at a table ``command`` makes, once she has read ``until`` (her prompt): and the
    table's number. A game with a bot may begin before the prompt is drawn, so a test that waits for
    the game's first words waits for those alone."""
    ann = Person(state_home, address, "--name", name)
    ann.expect("connected to")
    ann.sendline(command)
    table = ann.expect(r"you sit at table (\d+), seat 1").group(1)
    ann.expect(until)
    return ann, table


def test_a_second_client_of_the_same_name_does_not_take_a_seat_in_play_unasked(
    server_port: int, state_home: Path
) -> None:
    """A second notty-client run by the same user under the same name took the seat the first was
    playing, and the server sent the first away. It leaves it to the first now (and takes back a
    seat of another game of that name, if one is kept); once the first has quit, a run takes it."""
    address = f"127.0.0.1:{server_port}"
    ann, table = _ann_at_a_new_table(state_home, address, "new classic 2 greedy")
    pid = ann.child.pid
    second = Person(state_home, address, "--name", "ann")
    second.expect(
        rf"your seat at table {table} on {re.escape(address)} is played by another notty-client here"
        rf" \(process {pid}\): not taken over; quit that one, or take it over with --table {table}"
    )
    listed = second.expect(r"connected to ([^\r\n]*)").group(1)
    assert "your seat" not in listed  # it arrives in the lobby
    second.expect(r"· you are here|'watch \d+'")
    ann.sendline("table")  # the first plays on: it was not sent away
    ann.expect(rf"table {table} · ")
    assert "ended the connection" not in ann.log.getvalue()
    assert second.quit() == 0
    ann.expect("notty> ")
    ann.sendline("quit")
    ann.expect(rf"your seat at table {table} is kept")
    ann.child.expect(pexpect.EOF)
    third = Person(state_home, address, "--name", "ann")  # the first is gone: its seat is free to take
    third.expect(rf"you sit at table {table}, seat 1")
    assert "played by another" not in third.log.getvalue()
    assert third.quit() == 0


def test_a_seat_at_a_table_still_waiting_is_not_taken_over_unasked_either(
    server_port: int, state_home: Path
) -> None:
    """Before its game begins no view comes, and the seat was marked as played only at a view."""
    address = f"127.0.0.1:{server_port}"
    ann, table = _ann_at_a_new_table(state_home, address, "new classic 2 human")
    second = Person(state_home, address, "--name", "ann")
    second.expect(rf"your seat at table {table} on {re.escape(address)} is played by another notty-client")
    assert second.quit() == 0
    ann.sendline("tables")
    ann.expect(rf"table {table}: .*· you are here")  # still hers
    assert "ended the connection" not in ann.log.getvalue()
    assert ann.quit() == 0


def test_leaving_forgets_the_seat_and_the_next_run_starts_in_the_lobby(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    address = f"127.0.0.1:{server_port}"
    bea = Person(state_home, address, "--name", "bea")
    bea.expect("connected to")
    bea.sendline("new classic 2 greedy")
    table = bea.expect(r"you sit at table (\d+), seat 1").group(1)
    assert _kept(seats_file)[address]["bea"]["table"] == int(table)
    bea.expect(r"· turn 1 ")  # the game is under way: leaving it asks first
    bea.sendline("leave")
    bea.expect("type 'leave' again to leave")
    bea.sendline("leave")
    bea.expect(rf"you left table {table}")
    assert _kept(seats_file) == {}
    assert list((state_home / "notty" / "in-use").iterdir()) == []  # nor is it marked as played here
    assert bea.quit() == 0

    again = Person(state_home, address, "--name", "bea")
    assert "your seat" not in again.expect(r"connected to ([^\r\n]*)").group(1)
    again.sendline("tables")  # her seat was given up for good: its game of bots alone has gone too
    again.expect("no tables now")
    assert again.quit() == 0


def _messages(sock: socket.socket, conn: Connection) -> Iterator[Message]:
    while data := sock.recv(65536):
        conn.receive_data(data)
        while (message := conn.next_event()) is not None:
            yield message


def _held_seat(port: int, name: str) -> tuple[int, str]:
    """A seat in a game whose first turn is ``name``'s and whose first turn is its last.

    Made over the raw protocol, where a game may be picked until its first turn is ours; the
    socket is then dropped, so the server holds the seat for its token.
    """
    for _ in range(30):
        conn = Connection(Sender.CLIENT)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(conn.send(Hello(PROTOCOL_VERSION, name)))
            messages = _messages(sock, conn)
            assert isinstance(next(messages), Welcome)
            sock.sendall(conn.send(CreateTable("notty", 2, "classic", ("greedy",), {"turn_limit": 1})))
            seated = next(m for m in messages if isinstance(m, Seated))
            state = next(m for m in messages if isinstance(m, State))
            if state.view["current"] == seated.seat:
                return seated.table, seated.token
    raise AssertionError("the bot started 30 games in a row")


def test_the_seat_is_forgotten_when_the_game_ends(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    address = f"127.0.0.1:{server_port}"
    table, token = _held_seat(server_port, "cy")
    key = server_key("127.0.0.1", server_port)
    assert SeatStore(seats_file).put(key, "cy", StoredSeat(token, table)) is None

    cy = Person(state_home, address, "--name", "cy")
    cy.expect(rf"asking for your seat at table {table} back")
    cy.expect(rf"you sit at table {table}, seat 1")
    cy.expect("your turn")
    assert _kept(seats_file)[address]["cy"]["token"] == token
    cy.sendline("end")  # the table's turn limit is 1: the game ends with this turn
    cy.expect(r"game over: the game ended at its turn limit \(1 turn\) with no winner; 'leave'")
    assert _kept(seats_file) == {}
    assert cy.quit() == 0
    assert "is kept" not in cy.log.getvalue()


def test_a_seat_the_server_no_longer_holds_leaves_the_client_in_the_lobby(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    address = f"127.0.0.1:{server_port}"
    SeatStore(seats_file).put(address, "dan", StoredSeat(BOGUS_TOKEN, 7))
    dan = Person(state_home, address, "--name", "dan")
    dan.expect(r"asking for your seat at table 7 back")
    dan.expect(r"your seat at table 7 is gone [^\r\n]*; you are in the lobby")
    assert "resuming" not in dan.log.getvalue()  # no claim the next line contradicts
    dan.expect(r"no tables now: 'new' creates one|table \d+: ")  # the lobby's list, as on arriving
    assert _kept(seats_file) == {}
    dan.sendline("new classic 2 greedy")  # the lobby works as ever
    table = dan.expect(r"you sit at table (\d+), seat 1").group(1)
    kept = _kept(seats_file)[address]["dan"]
    assert kept["table"] == int(table) and kept["token"] != BOGUS_TOKEN
    assert "refused" not in dan.log.getvalue()
    assert dan.quit() == 0


def _quit_kept(person: Person, table: str, address: str) -> str:
    """Quit mid-game; the command the client says takes the seat back."""
    person.sendline("quit")
    kept = person.expect(
        rf"your seat at table {table} is kept; to take it back, run:\r\n  (notty-client [^\r\n]*)"
    )
    person.child.expect(pexpect.EOF)
    person.child.close()
    assert kept.group(1).startswith(f"notty-client {address} --name ")
    return kept.group(1)


def test_two_clients_of_one_name_at_one_table_each_keep_their_seat(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    """The play-test: two clients named ann on one machine, at one table, the server naming the
    second ann-2. Both were told "run ... --name ann again", and the one seat file held one of them:
    a seat was lost, and each run pushed the other out. Each is kept under its name at the table."""
    address = f"127.0.0.1:{server_port}"
    ann = Person(state_home, address, "--name", "ann")
    ann.expect("connected to")
    twin = Person(state_home, address, "--name", "ann")  # in the lobby too: no seat kept yet
    twin.expect("connected to")
    ann.sendline("new classic 2 human")
    table = ann.expect(r"you sit at table (\d+), seat 1").group(1)
    twin.sendline(f"join {table}")
    twin.expect(rf"you sit at table {table}, seat 2")
    for person in (ann, twin):
        person.expect(r"· turn 1 ")  # the game is under way: both seats are worth keeping
    twin.expect("you play as 'ann-2' at this table")
    twin.expect("notty> ")
    assert _quit_kept(twin, table, address).split()[2:] == ["--name", "ann-2", "--plain"]
    ann.expect("notty> ")
    assert _quit_kept(ann, table, address).split()[2:] == ["--name", "ann", "--plain"]
    kept = _kept(seats_file)[address]
    assert {name: seat["table"] for name, seat in kept.items()} == {"ann": int(table), "ann-2": int(table)}
    assert kept["ann"]["token"] != kept["ann-2"]["token"]

    # Each command takes back its own seat, and both play on at once: neither pushes the other out.
    second = Person(state_home, address, "--name", "ann-2")
    second.expect(rf"asking for your seat at table {table} back")
    second.expect(rf"you sit at table {table}, seat 2")
    first = Person(state_home, address, "--name", "ann")
    first.expect(rf"asking for your seat at table {table} back")
    first.expect(rf"you sit at table {table}, seat 1")
    for person in (first, second):
        person.expect("notty> ")
    second.sendline("table")  # still connected, still at the table
    second.expect(r"ann-2\s+\[\s*\d+\][^\r\n]*\(you\)")
    assert "resumed from another connection" not in second.log.getvalue() + first.log.getvalue()
    assert first.quit() == 0 and second.quit() == 0


def test_one_name_at_two_tables_keeps_both_seats_and_the_table_says_which(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    """Two games at once under one name: both seats are kept. The name alone takes back the one
    kept last; quitting the other says the ``--table`` that takes it back, and so does a run that
    takes back the last."""
    address = f"127.0.0.1:{server_port}"
    cy = Person(state_home, address, "--name", "cy")
    cy.expect("connected to")
    twin = Person(state_home, address, "--name", "cy")
    twin.expect("connected to")
    cy.sendline("new classic 2 greedy")
    table = cy.expect(r"you sit at table (\d+), seat 1").group(1)
    cy.expect(r"· turn \d+ ")
    twin.sendline("new classic 2 greedy")  # kept after cy's
    other = twin.expect(r"you sit at table (\d+), seat 1").group(1)
    twin.expect(r"· turn \d+ ")
    cy.expect("notty> ")
    assert _quit_kept(cy, table, address).split()[2:] == ["--name", "cy", "--table", table, "--plain"]
    twin.expect("notty> ")
    assert _quit_kept(twin, other, address).split()[2:] == ["--name", "cy", "--plain"]
    assert [seat["table"] for seat in _kept(seats_file)[address]["cy"]] == [int(table), int(other)]

    last = Person(state_home, address, "--name", "cy")
    last.expect(
        rf"your seat at table {table} on {re.escape(address)} is kept too: --table {table} takes it back"
    )
    last.expect(rf"asking for your seat at table {other} back")
    last.expect(rf"you sit at table {other}, seat 1")
    last.expect("notty> ")
    assert _quit_kept(last, other, address).split()[2:] == ["--name", "cy", "--plain"]
    first = Person(state_home, address, "--name", "cy", "--table", table)
    first.expect(rf"asking for your seat at table {table} back")
    first.expect(rf"you sit at table {table}, seat 1")
    first.expect("notty> ")
    assert _quit_kept(first, table, address).split()[2:] == ["--name", "cy", "--table", table, "--plain"]
    assert "kept too" not in first.log.getvalue()  # --table named the one: nothing else to say
    # A script given --table takes that seat back too, as README says (a docs check: it said "not
    # resuming your seat ...: --resume takes it back", then ran the script in the lobby).
    env = {**os.environ, "XDG_STATE_HOME": str(state_home)}
    command = [str(BIN / "notty-client"), address, "--name", "cy", "--table", table]
    ran = subprocess.run(command, input="table\n", capture_output=True, text=True, env=env, timeout=30)
    assert ran.returncode == 0 and "not resuming" not in ran.stdout, (ran.stdout, ran.stderr)
    assert f"you sit at table {table}, seat 1" in ran.stdout


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\xff{not json",
        b"[1, 2, 3]",
        b'{"servers": {"127.0.0.1:1": "ann"}}',
        b'{"servers": {"SERVER": {"eve": {"token": 12, "table": "one"}}}}',
        b'{"servers": {"SERVER": {"eve": {"token": "short", "table": 1}}}}',
    ],
)
def test_a_corrupt_seat_file_does_not_crash_the_client(
    server_port: int, state_home: Path, seats_file: Path, content: bytes
) -> None:
    address = f"127.0.0.1:{server_port}"
    seats_file.parent.mkdir(parents=True)
    seats_file.write_bytes(content.replace(b"SERVER", address.encode()))
    eve = Person(state_home, address, "--name", "eve")
    assert "your seat" not in eve.expect(r"connected to ([^\r\n]*)").group(1)
    eve.sendline("new classic 2 greedy")
    table = eve.expect(r"you sit at table (\d+), seat 1").group(1)
    assert _kept(seats_file)[address]["eve"]["table"] == int(table)  # replaced by a good file
    assert eve.quit() == 0


def test_an_unwritable_seat_file_costs_only_the_resume(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    seats_file.mkdir(parents=True)  # a directory where the file should be: unreadable, unwritable
    fay = Person(state_home, f"127.0.0.1:{server_port}", "--name", "fay")
    fay.expect("connected to")
    fay.sendline("new classic 2 greedy")
    fay.expect(r"you sit at table \d+, seat 1")
    fay.expect(r"\(your seat will not be resumed after a restart: ")
    fay.expect("your turn")
    fay.sendline("hint")
    fay.expect("hint: ")
    assert fay.quit() == 0
    said = fay.log.getvalue()
    assert "could not be kept on this machine" in said and "is kept;" not in said  # no false promise
    # The lines wrapped at the terminal's width, the path with them.
    assert f"{seats_file} could not be read (not a plain file), so it is left as it is" in " ".join(
        said.split()
    )
    left = [path for path in seats_file.parent.iterdir() if path.name != "in-use"]  # the seats played here
    assert seats_file.is_dir() and left == [seats_file]  # no temp files left


def test_forget_drops_the_kept_seat(server_port: int, state_home: Path, seats_file: Path) -> None:
    address = f"127.0.0.1:{server_port}"
    gus = Person(state_home, address, "--name", "gus")
    gus.expect("connected to")
    gus.sendline("new classic 2 greedy")
    table = gus.expect(r"you sit at table (\d+), seat 1").group(1)
    gus.kill()
    assert address in _kept(seats_file)

    again = Person(state_home, address, "--name", "gus", "--forget")
    again.expect(rf"forgot your seat at table {table} on {re.escape(address)}")
    assert "your seat" not in again.expect(r"connected to ([^\r\n]*)").group(1)
    assert _kept(seats_file) == {}
    assert again.quit() == 0


def test_forget_keeps_a_seat_another_client_here_plays_unless_its_table_is_named(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    """A play-test ran 'notty-client --name cy --forget' while another cy played: the seat was
    dropped under the game, whose client said at its end that it was no longer kept."""
    address = f"127.0.0.1:{server_port}"
    gus, table = _ann_at_a_new_table(state_home, address, "new classic 2 greedy", name="gus")
    again = Person(state_home, address, "--name", "gus", "--forget")
    again.expect(
        rf"your seat at table {table} on {re.escape(address)} is played by another notty-client here"
        rf" \(process \d+\): not forgotten; quit that one first, or forget it with --table {table}"
    )
    again.expect("connected to")
    assert address in _kept(seats_file)
    assert again.quit() == 0
    named = Person(state_home, address, "--name", "gus", "--forget", "--table", table)
    named.expect(rf"forgot your seat at table {table} on {re.escape(address)}")
    assert _kept(seats_file) == {}
    assert named.quit() == 0
    gus.kill()


def _script(state_home: Path, address: str, *args: str, lines: str = "table\n") -> Any:
    """``notty-client`` fed ``lines`` from a pipe, as dan, run to its end."""
    env = {**os.environ, "XDG_STATE_HOME": str(state_home)}
    command = [str(BIN / "notty-client"), address, "--name", "dan", *args]
    return subprocess.run(command, input=lines, capture_output=True, text=True, env=env, timeout=30)


@pytest.mark.parametrize("args", [["--resume", "--table", "5"], ["--resume"], ["--table", "5"]])
def test_a_script_asking_for_a_seat_none_is_kept_for_stops_before_its_first_line(
    server_port: int, state_home: Path, seats_file: Path, args: list[str]
) -> None:
    """A play-test's 'printf 'table\\n' | notty-client ... --resume --table 5', with no seat kept at
    table 5, said so, then ran the script in the lobby: lines meant for that game, played in another
    place. A script that asked for a seat stops there, exit 1; at a terminal it goes on in the lobby."""
    address = f"127.0.0.1:{server_port}"
    at = "" if args == ["--resume"] else " at table 5"
    if at:
        SeatStore(seats_file).put(address, "dan", StoredSeat(BOGUS_TOKEN, 7))  # kept, at another table
    ran = _script(state_home, address, *args)
    assert (ran.returncode, ran.stdout) == (1, ""), (ran.stdout, ran.stderr)
    assert (
        ran.stderr
        == f"notty-client: no seat kept for dan{at} on {address} to resume: the script was not run\n"
    )

    person = Person(state_home, address, "--name", "dan", *args)
    person.expect(rf"no seat kept for dan{at} on {re.escape(address)} to resume\r\n")
    person.expect("connected to notty\r\n")  # in the lobby, as the person is told
    assert person.quit() == 0


def test_a_script_without_a_seat_asked_for_or_only_forgetting_one_plays_in_the_lobby(
    server_port: int, state_home: Path
) -> None:
    address = f"127.0.0.1:{server_port}"
    for args in [[], ["--forget", "--table", "5"]]:
        ran = _script(state_home, address, *args, lines="tables\n")
        assert ran.returncode == 0 and ran.stderr == "", (args, ran.stdout, ran.stderr)
        assert "no tables now" in ran.stdout


def test_the_built_in_game_keeps_no_seat(state_home: Path) -> None:
    hal = Person(state_home, "--name", "hal")
    hal.expect(r"you sit at table 1, seat 1")
    hal.expect("notty> ")
    assert hal.quit() == 0
    assert not state_home.exists()
    assert "is kept" not in hal.log.getvalue()


def test_quitting_the_built_in_game_says_it_ends_with_the_client(state_home: Path) -> None:
    """A play-test quit mid-game without an address and was told nothing, where a server's seat is
    said to be kept: running again dealt a new game. One line now says the game ends there."""
    ivy = Person(state_home, "--name", "ivy")
    ivy.expect(r"you sit at table 1, seat 1")
    ivy.expect(r"· turn \d+ ")  # the game is under way
    ivy.expect("notty> ")
    assert ivy.quit() == 0
    said = re.sub(r"\s*\r\n\s*", " ", ivy.log.getvalue())
    assert "the game at table 1 ends here: it was played on the client's built-in server" in said
    assert "is kept" not in said and not state_home.exists()


# -- the store itself ---------------------------------------------------------------


def test_server_keys_are_spelt_one_way() -> None:
    assert server_key("LOCALHOST", 4008) == server_key("localhost", 4008) == "localhost:4008"
    assert server_key("Example.COM.", 4008) == "example.com:4008"
    assert server_key("::1", 4008) == server_key("[::1]", 4008) == "[::1]:4008"
    assert server_key("localhost", 4008) != server_key("localhost", 4009)


def test_the_store_keeps_one_seat_per_server_and_name(tmp_path: Path) -> None:
    path = tmp_path / "a" / "seats.json"
    store = SeatStore(path)
    ann, bob = StoredSeat("a" * 32, 1), StoredSeat("b" * 32, 1)
    assert store.get("h:1", "ann") is None
    assert store.put("h:1", "ann", ann) is None
    assert store.put("h:1", "bob", bob) is None  # a second player on this machine keeps their own
    assert store.get("h:1", "ANN") == ann and store.get("h:1", "bob") == bob
    assert store.get("h:2", "ann") is None
    assert store.forget("h:1", "ann", token="c" * 32) == []  # another client's newer seat stays
    assert store.get("h:1", "ann") == ann
    assert store.forget("h:1", "ann", token=ann.token) == [ann]
    assert store.get("h:1", "ann") is None and store.get("h:1", "bob") == bob
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["seats.json"]


def test_the_store_keeps_a_names_seats_at_several_tables(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    store = SeatStore(path)
    first, second, again = StoredSeat("a" * 32, 1), StoredSeat("b" * 32, 2), StoredSeat("c" * 32, 1)
    assert store.put("h:1", "ann", first) is None and store.put("h:1", "ann", second) is None
    assert store.seats("h:1", "ann") == [first, second]
    assert store.get("h:1", "ann") == second  # the one kept last: the others by their table
    assert store.get("h:1", "ann", table=2) == second
    assert store.put("h:1", "ann", again) is None  # a name is one seat at a table: the old one is over
    assert store.seats("h:1", "ann") == [second, again]
    assert store.forget("h:1", "ann", table=2) == [second]
    assert store.get("h:1", "ann") == again
    assert json.loads(path.read_text())["servers"] == {"h:1": {"ann": {"token": "c" * 32, "table": 1}}}


def test_a_seat_file_of_the_earlier_client_still_loads(tmp_path: Path) -> None:
    """Version 1 kept one seat per name, as a map: the client that keeps several reads it, and
    writes a name's only seat so again (a client of version 1 would skip a list, not choke)."""
    path = tmp_path / "seats.json"
    old = {"version": 1, "servers": {"h:1": {"ann": {"token": "a" * 32, "table": 13}}}}
    path.write_text(json.dumps(old))
    store = SeatStore(path)
    assert store.get("h:1", "ann") == StoredSeat("a" * 32, 13)
    assert store.put("h:1", "bob", StoredSeat("b" * 32, 13)) is None
    assert json.loads(path.read_text())["servers"]["h:1"]["ann"] == {"token": "a" * 32, "table": 13}


def test_clients_saving_at_once_keep_every_seat(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.starmap(_save_seats, [(path, writer) for writer in range(4)])
    kept = SeatStore(path)._read()["h:1"]
    assert len(kept) == 4 * 10, "a read-change-write of one client undid another's"
    assert [p.name for p in tmp_path.iterdir()] == ["seats.json"]


def test_a_file_system_without_locks_still_keeps_seats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(tokens.fcntl, "flock", no_locks)
    store = SeatStore(tmp_path / "seats.json")
    seat = StoredSeat("a" * 32, 3)
    assert store.put("h:1", "ann", seat) is None
    assert store.get("h:1", "ann") == seat
    assert store.forget("h:1", "ann") == [seat]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _zeros(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _too_big(path: Path) -> None:
    seats = {"h:1": {"ann": {"token": "a" * 32, "table": 1}}}
    path.write_text(json.dumps({"version": 2, "servers": seats}) + " " * tokens.MAX_FILE_BYTES)


@pytest.mark.parametrize(
    ("make", "why"),
    [(_fifo, "not a plain file"), (_zeros, "not a plain file"), (_too_big, "over 1,048,576 bytes")],
    ids=["fifo", "dev-zero", "too-big"],
)
def test_a_seat_file_that_cannot_be_read_is_said_so_and_never_written_over(
    tmp_path: Path, make: Any, why: str
) -> None:
    """A pipe there hung the client in open() (deaf to SIGTERM), /dev/zero was read until memory ran
    out; and a file that could not be read was written over with the one seat saved next, the
    seats in it lost for good."""
    path = tmp_path / "seats.json"
    make(path)
    before = os.lstat(path)
    store = SeatStore(path)
    assert store.seats("h:1", "ann") == [] and store.unreadable == f"{path} could not be read ({why})"
    assert (
        store.put("h:1", "bob", StoredSeat("b" * 32, 2))
        == f"{path} could not be read ({why}), so it is left as it is"
    )
    assert store.forget("h:1", "ann") == []
    after = os.lstat(path)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seats.json"]  # no temporary file left


def test_with_no_home_no_seat_is_kept_and_nothing_is_made_here(homeless: Path) -> None:
    """No HOME, and a user id the password database does not know (a container's): Path.home()
    ended the client with a RuntimeError."""
    assert default_path() is None
    store = SeatStore()
    seat = StoredSeat("a" * 32, 1)
    assert store.put("h:1", "ann", seat) == tokens.NO_HOME
    assert store.seats("h:1", "ann") == [] and store.forget("h:1", "ann") == []
    assert store.unreadable == f"no seats file: {tokens.NO_HOME}"  # --forget says why none is kept
    assert store.locks.hold("h:1", seat.token) is None and store.locks.holder("h:1", seat.token) is None
    store.locks.release("h:1", seat.token)
    assert list(homeless.iterdir()) == []


def test_a_script_resuming_from_a_seat_file_that_cannot_be_read_says_why(
    server_port: int, state_home: Path, seats_file: Path
) -> None:
    seats_file.parent.mkdir(parents=True)
    os.mkfifo(seats_file)
    command = [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "ann", "--resume"]
    env = {**os.environ, "XDG_STATE_HOME": str(state_home)}
    ran = subprocess.run(command, input="table\n", capture_output=True, text=True, env=env, timeout=30)
    assert ran.returncode == 1
    whose = f"ann on 127.0.0.1:{server_port}"
    why = f"{seats_file} could not be read (not a plain file)"
    assert (
        ran.stderr
        == f"notty-client: no seat can be found for {whose} to resume: {why}: the script was not run\n"
    )


def _save_seats(path: Path, writer: int) -> None:
    store = SeatStore(path)
    for seat in range(10):
        assert store.put("h:1", f"p{writer}-{seat}", StoredSeat("a" * 32, seat + 1)) is None


def test_the_store_lives_in_xdg_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_path() == tmp_path / "notty" / "seats.json"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/dir")  # not absolute: ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".local" / "state" / "notty" / "seats.json"


def test_every_folder_made_for_the_seats_is_private_and_no_other_is_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The XDG spec has a missing base directory made 0700: ~/.local/state was made 0755, as a parent."""
    home = tmp_path / "home"
    (home / ".local").mkdir(parents=True)
    (home / ".local").chmod(0o755)  # there already: not the client's to change
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    umask = os.umask(0o022)  # the usual one, which gives a folder made without a mode 0755
    try:
        assert SeatStore().put("h:1", "ann", StoredSeat("a" * 32, 1)) is None
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg" / "state"))
        assert SeatStore().put("h:1", "ann", StoredSeat("a" * 32, 1)) is None
    finally:
        os.umask(umask)
    assert stat.S_IMODE((home / ".local").stat().st_mode) == 0o755
    for made in ("home/.local/state", "home/.local/state/notty", "xdg", "xdg/state", "xdg/state/notty"):
        assert stat.S_IMODE((tmp_path / made).stat().st_mode) == 0o700, made


# -- the heartbeat ------------------------------------------------------------------


class Screen(Terminal):
    def __init__(self) -> None:
        super().__init__(interactive=False, colour=False)
        self.lines: list[str] = []

    def show(self, text: str) -> None:
        self.lines.append(text)


async def test_an_idle_client_pings_every_heartbeat_and_shows_nothing_of_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    near, far = trio.testing.memory_stream_pair()
    screen = Screen()
    client = Client(screen, Session("ivy"))
    client.stream = near
    server = Connection(Sender.SERVER)
    heard: list[tuple[float, Message]] = []

    async def serve() -> None:
        while data := await far.receive_some(65536):
            server.receive_data(data)
            while (message := server.next_event()) is not None:
                heard.append((trio.current_time(), message))
                match message:
                    case Hello():
                        await far.send_all(server.send(WELCOME))
                    case Ping(nonce):
                        await far.send_all(server.send(Pong(nonce)))
                    case ListTables():
                        await far.send_all(server.send(Tables([])))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        nursery.start_soon(client.receive_forever)
        await client.send(Hello(PROTOCOL_VERSION, "ivy"))
        nursery.start_soon(client.heartbeat)
        await trio.sleep(app.HEARTBEAT_SECONDS - 0.5)
        assert [type(m) for _, m in heard] == [Hello]  # not yet: it has not been idle long enough
        await trio.sleep(1)
        assert [type(m) for _, m in heard] == [Hello, Ping]
        assert heard[1][0] == pytest.approx(app.HEARTBEAT_SECONDS)
        await trio.sleep(app.HEARTBEAT_SECONDS / 2)
        await client.send(ListTables())  # the user does something: the next ping waits for idleness
        sent = trio.current_time()
        await trio.sleep(app.HEARTBEAT_SECONDS * 2.5)
        nursery.cancel_scope.cancel()
    pings = [(time, m) for time, m in heard if isinstance(m, Ping)]
    assert [time for time, _ in pings] == pytest.approx(
        [app.HEARTBEAT_SECONDS, sent + app.HEARTBEAT_SECONDS, sent + 2 * app.HEARTBEAT_SECONDS]
    )
    assert len({m.nonce for _, m in pings}) == 3
    assert screen.lines == ["connected to test", "no tables now: 'new' creates one"]  # no pongs
    assert client.received == 2  # welcome and tables: a pong is not a reply a script waits for


async def test_the_running_client_pings_through_its_session(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The heartbeat is part of every session: a script sitting still keeps pinging, then exits."""
    monkeypatch.setattr(app, "HEARTBEAT_SECONDS", 0.05)
    heard: list[Message] = []

    async def serve(stream: trio.SocketStream) -> None:
        server = Connection(Sender.SERVER)
        async with stream:
            while data := await stream.receive_some(65536):
                server.receive_data(data)
                while (message := server.next_event()) is not None:
                    heard.append(message)
                    match message:
                        case Hello():
                            await stream.send_all(server.send(WELCOME))
                        case Ping(nonce):
                            await stream.send_all(server.send(Pong(nonce)))
                        case Bye():
                            await stream.send_all(server.send(Goodbye("bye")))
                            return

    async def still_user(terminal: Terminal, send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await trio.sleep(0.6)
            await send.send(None)  # end of input

    monkeypatch.setattr("client.terminal.read_lines", still_user)
    screen = Screen()
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(20):  # were pongs counted as replies, the script would wait forever
            code = await app.run(("127.0.0.1", port), "jo", screen, seats=SeatStore(tmp_path / "s.json"))
        nursery.cancel_scope.cancel()
    assert code == 0
    assert sum(isinstance(m, Ping) for m in heard) >= 3
    assert isinstance(heard[0], Hello) and isinstance(heard[-1], Bye)
    assert screen.lines == ["connected to test"]  # and nothing of the pongs


@pytest.mark.parametrize("answer", ["seated", "bad-token", "game-stopped"])
async def test_a_resumed_script_waits_for_its_seat_and_stops_if_the_server_no_longer_holds_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], answer: str
) -> None:
    """A script run with --resume acted on its first line as soon as it was welcomed: the server's
    answer to the seat offered came in a later read (under load, in a test), and the script's 'hint'
    was refused as made from the lobby. Its lines wait for the answer; a seat the server no longer
    holds (its game over) stops the script, exit 1, as one not kept on disk does. So does a seat of
    a game the server stopped unrecorded, which is kept on disk for the server's next start."""
    kept = answer == "seated"
    heard: list[Message] = []
    answered = trio.Event()

    async def serve(stream: trio.SocketStream) -> None:
        server = Connection(Sender.SERVER)

        async def answer_the_seat(token: str | None) -> None:  # in a read of its own, a moment later
            await trio.sleep(0.3)
            said = Seated(7, 0, token or "") if kept else Error(answer, "that seat is gone, or stopped")
            await stream.send_all(server.send(said))
            answered.set()

        async with stream, trio.open_nursery() as nursery:
            while data := await stream.receive_some(65536):
                server.receive_data(data)
                while (message := server.next_event()) is not None:
                    heard.append(message)
                    match message:
                        case Hello(_, _, token):
                            await stream.send_all(server.send(WELCOME))
                            nursery.start_soon(answer_the_seat, token)
                        case ListTables():
                            assert answered.is_set()  # not before the seat's answer
                            await stream.send_all(server.send(Tables([])))
                        case Bye():
                            await stream.send_all(server.send(Goodbye("bye")))
                            return

    async def script(terminal: Terminal, send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await send.send("tables")
            await send.send(None)

    monkeypatch.setattr("client.terminal.read_lines", script)
    screen = Screen()
    seats = SeatStore(tmp_path / "s.json")
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        address = f"127.0.0.1:{port}"
        seats.put(address, "jo", StoredSeat(BOGUS_TOKEN, 7))
        with trio.fail_after(20):
            code = await app.run(("127.0.0.1", port), "jo", screen, seats=seats, resume=True)
        nursery.cancel_scope.cancel()
    listed = [message for message in heard if isinstance(message, ListTables)]
    if kept:
        assert code == 0 and len(listed) == 1, screen.lines
        assert "you sit at table 7, seat 1" in screen.lines
    else:
        assert code == 1 and listed == [], screen.lines
        gone = f"the server at {address} no longer holds your seat at table 7"
        if answer == "game-stopped":
            gone = (
                "the server stopped your game at table 7, since it could not record it: your seat is kept"
                " for when it is back"
            )
        assert capsys.readouterr().err == f"notty-client: {gone}: the script was not run\n"
        assert (seats.get(address, "jo") is not None) is (answer == "game-stopped")
