"""The terminal client as a person (through a pty) and a script (through a pipe) would use it."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest
from conftest import ServerProcess
from pexpect.popen_spawn import PopenSpawn
from test_client_session import HOSTED, TOKEN, notty_view, table, welcomed
from test_huxxy_ui import huxxy_view

from client.address import NAME_RULE, name_from_login
from client.app import _carry_out
from client.commands import COMMANDS, Reply, why_not
from client.session import Session
from client.terminal import Terminal
from games import HintAnswer
from protocol import (
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Connection,
    ConnectionState,
    CreateTable,
    Goodbye,
    Hello,
    Hint,
    Join,
    Leave,
    ListTables,
    Message,
    PlayForMe,
    Seated,
    Sender,
    Start,
    State,
    Watch,
    Watching,
)

BIN = Path(sys.executable).parent
ENV = {**os.environ, "NO_COLOR": "", "TERM": "xterm"}
ENV.pop("NO_COLOR")
ENV.pop("LOGNAME", None)  # the login name the tests set is USER's (getpass reads LOGNAME first)


@pytest.fixture(autouse=True)
def _private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat tokens the clients keep go to a temporary directory, never the real home."""
    monkeypatch.setitem(ENV, "XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _spawn(*args: str) -> pexpect.spawn:
    # --plain: these tests read the line-mode client; tests/test_screen.py reads the full screen
    child = pexpect.spawn(
        str(BIN / "notty-client"), [*args, "--plain"], env=ENV, encoding="utf-8", timeout=20
    )
    child.setwinsize(40, 160)
    return child


def _new_table(child: pexpect.spawn, command: str) -> str:
    """Once connected, make a table with ``command``: its number, as the client printed it."""
    child.expect("connected to")
    child.sendline(command)
    child.expect(r"you sit at table (\d+), seat 1")
    return str(child.match.group(1))


def test_a_person_connects_creates_a_table_asks_a_hint_plays_and_quits(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    child.expect("connected to")
    child.sendline("new classic 2 greedy")
    child.expect(r"you sit at table \d+, seat 1")
    child.expect(r"· turn 1 of 300 ·")  # a bot plays here: the table's limit, shown from the start
    child.expect("your turn")  # at once, or after the bot's turn
    child.sendline("hint")
    child.expect(r"hint: ")
    child.expect(r"(chances of going out this turn: |this turn, no draw)")  # her turn: advice for it
    child.expect(r"'auto' would now: ")
    child.sendline("draw 1")
    child.expect(r"you draw 1 card")  # her own move, in her own words
    child.expect(r"table \d+ · classic · turn \d+ of 300 ·")  # the move's table
    child.sendline("table")  # again, when it has scrolled away
    child.expect(r"table \d+ · classic · turn \d+ of 300 ·")
    child.sendline("new classic 3")
    child.expect(r"you are already at table \d+: 'leave' it first")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_two_people_make_a_table_for_two_and_play(server_port: int) -> None:
    ann = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    table = _new_table(ann, "new classic 2 human")
    ann.expect(rf"waiting for 1 more player: they type 'join {table}'")
    ann.sendline("tables")
    ann.expect(rf"table {table}: Notty classic, waiting, seats: ann, \(free\) · you are here")
    bob = _spawn(f"127.0.0.1:{server_port}", "--name", "bob")
    bob.expect("connected to")  # and at once, without asking, what there is to join
    bob.expect(rf"table {table}: Notty classic, waiting, seats: ann, \(free\) · 'join {table}'")
    bob.sendline(f"join {table}")
    bob.expect(rf"you sit at table {table}, seat 2")
    bob.expect(r"(ann plays|you play) first")
    starter = "ann" if bob.match.group(1) == "ann plays" else "bob"
    ann.expect("you play first" if starter == "ann" else "bob plays first")
    waiter = bob if starter == "ann" else ann
    waiter.sendline("draw 1")
    waiter.expect(f"it is {starter}'s turn, not yours")
    for person in (ann, bob):
        person.sendline("quit")
        person.expect(pexpect.EOF)


def test_a_creator_waiting_sees_friends_come_and_go_and_one_left_may_start(server_port: int) -> None:
    ann = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    table = _new_table(ann, "new classic 3 human human")
    bob = _spawn(f"127.0.0.1:{server_port}", "--name", "bob")
    bob.expect("connected to")
    bob.sendline(f"join {table}")
    ann.expect(rf"table {table}: Notty classic, waiting, seats: ann, bob, \(free\) · you are here")
    bob.sendline("start")
    bob.expect("only the table's creator, ann, can start the game early")
    ann.sendline("quit")  # the creator goes before the start
    ann.expect(pexpect.EOF)
    bob.expect(r"ann left the table \(connection lost\); bob may now start it early \('start'\)")
    bob.expect(rf"table {table}: Notty classic, waiting, seats: \(free\), bob, \(free\) · you are here")
    bob.sendline("start")
    bob.expect(r"(expert-1 plays|you play|expert-3 plays) first")
    bob.sendline("quit")
    bob.expect(pexpect.EOF)


def test_cards_are_coloured_and_groups_checked_locally(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "bob")
    child.expect("connected to")
    child.sendline("new classic 2 greedy")
    child.expect(r"\x1b\[1;3\dm[RYGB]\d+\x1b\[0m")  # a coloured card
    child.expect("your turn")  # (out of turn, a move is refused for that first)
    child.sendline("discard B4 B6 B7")  # the hand is dealt at random: cards not held are named first
    child.expect(r"not a group: .*B5 missing|you do not hold B|you hold 1 B")
    child.sendline("tab")  # not a command: told so, nothing sent
    child.expect("unknown command")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_tab_completes_commands(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "cat")
    child.expect("connected to")
    child.expect(r"no tables now|· '(join|watch) \d+'")  # the list on arrival, which says 'tables' too
    child.expect("notty> ")
    child.send("tab\t")
    child.expect("tables")
    child.sendline("")
    child.expect(r"no tables now|table \d+")
    child.send("wat\t1")  # a command completed alone takes its space: the next word follows at once
    child.expect("watch 1")
    child.sendline("")
    child.expect(r"no table 1|no such table|you are watching table 1|refused")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_one_command_play_against_the_built_in_server() -> None:
    child = _spawn("--name", "dee")
    child.expect(r"connected to notty \(built in\)")
    child.expect(r"you sit at table 1, seat 1")
    child.sendline("hint")
    child.expect("hint: ")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_scripted_use_waits_for_the_turn_and_prints_plain_text(server_port: int) -> None:
    script = "new classic 2 greedy\nhint\ndraw 1\nend\ndraw 1\nend\n"
    for _ in range(3):  # the server deals at random: on a rare deal greedy goes out before eve's 2nd turn
        result = subprocess.run(
            [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "eve"],
            input=script,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if "the game is over" not in result.stderr:
            break
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b[" not in out
    assert "you sit at table" in out and "hint: " in out
    assert "no tables now" not in out and " · '" not in out  # a script gets no table list it did not ask for
    assert len(re.findall(r"you draw 1 card", out)) == 2  # each draw waited for eve's turn
    assert "refused" not in out
    assert "goodbye" not in out  # the server's answer to the script's own bye is not news


def test_scripted_use_exits_non_zero_when_it_cannot_connect() -> None:
    result = subprocess.run(
        [str(BIN / "notty-client"), "127.0.0.1:1"], input="", capture_output=True, text=True, timeout=30
    )
    assert result.returncode != 0
    assert "cannot connect to 127.0.0.1:1" in result.stderr


async def test_a_scripted_auto_waits_for_the_turn_it_plays_to_pass() -> None:
    """Sent on a turn still being played, or just gone, the next line's 'auto' was refused as not
    our turn, at random (4 runs in 4 of a script of 40)."""
    session = welcomed()
    session.receive(Seated(3, 0, TOKEN))
    session.receive(State(3, notty_view(current=0, turn=5, legal=["end"]), ()))

    class Stub:
        received, refused = 0, None

        def __init__(self) -> None:
            self.session = session
            self.sent: list[Message] = []
            self.waits: list[Any] = []

        async def send(self, message: Message) -> None:
            self.sent.append(message)

        async def wait_for(self, ready: Any, timeout: float) -> bool:
            self.waits.append(ready)
            return True

    stub = Stub()
    await _carry_out(stub, Reply((PlayForMe(),), action=True), Terminal(False, False), answered=True)  # type: ignore[arg-type]
    assert stub.sent == [PlayForMe()]
    passed = stub.waits[-1]
    assert not passed()  # the bot plays on at turn 5: the script's next line waits
    session.receive(State(3, notty_view(current=1, turn=6, legal=[]), ()))
    assert passed()


@pytest.mark.parametrize("pause", [0.0, 0.2], ids=["at-once", "in-two-writes"])
def test_a_service_that_is_not_a_notty_server_ends_the_client_instead_of_reconnecting(pause: float) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer_as_a_web_server() -> None:
        for _ in range(20):  # the old client reconnected for ever, five times a second
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"HT")  # too short to read as a frame's length: the next part makes one,
                time.sleep(pause)  # and what the connection began with is quoted, not that part
                conn.sendall(b"TP/1.1 400 Bad Request\r\n\r\n")

    threading.Thread(target=answer_as_a_web_server, daemon=True).start()
    try:
        result = subprocess.run(
            [str(BIN / "notty-client"), f"127.0.0.1:{port}"],
            input="",
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        listener.close()
    assert result.returncode == 1
    assert f"127.0.0.1:{port} does not answer as a notty server" in result.stderr
    assert result.stderr.endswith("; it began 'HTTP/1.1 400 Bad Request'\n")  # what answered, by its words
    assert "reconnecting" not in result.stdout


def test_a_person_watching_notty_asks_for_a_hint_and_watches_another_table(server_port: int) -> None:
    """Through the real client and server in a pty: a watcher's 'hint' answers for the hand to play
    (hands are face up), and 'watch N' from there leaves the table watched first, by itself (and
    goes back to it if the other is refused)."""
    tables = []
    for name, line in (("bob", "new classic 2 greedy"), ("cy", "new classic 2 human")):
        person = _spawn(f"127.0.0.1:{server_port}", "--name", name)
        person.expect("connected to")
        person.sendline(line)
        person.expect(r"you sit at table (\d+), seat 1")
        tables.append((person, person.match.group(1)))
    (bob, first), (cy, second) = tables
    ann = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    ann.expect("connected to")
    ann.sendline(f"watch {first}")  # bob's game against greedy, under way: bob is in no hurry
    ann.expect(f"you are watching table {first}")
    ann.expect("notty> ")
    for _ in range(5):  # a move made while the hint is worked out leaves it stale: ask again
        ann.sendline("hint")
        if ann.expect([r"for (\S+), whose turn it is:\r\nhint: ", "the game moved on"], timeout=20) == 0:
            break
    else:
        pytest.fail("no hint came for the hand to play")
    assert ann.match.group(1) == "bob" or ann.match.group(1).startswith("greedy")  # its seat name
    ann.sendline(f"watch {second}")  # a game played without her: left by itself
    ann.expect(f"you left table {first}")
    ann.expect(f"you are watching table {second}")
    ann.sendline("watch 99999")  # mistyped: refused, and she is back at the table she watched
    ann.expect(f"you left table {second}")
    ann.expect("no table 99999")
    ann.expect(f"you are watching table {second} again")
    ann.sendline("tables")
    ann.expect(f"table {second}: .*you are here")
    for child in (ann, bob, cy):
        child.sendline("quit")
        child.expect(pexpect.EOF)


def test_a_script_plays_at_its_next_table_after_leaving_a_finished_game(server_port: int) -> None:
    """Leaving forgets the old game's end, so moves at a table still waiting wait for the turn, not vanish."""
    script = PopenSpawn(  # a pipe, not a pty: the client is scripted
        [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "sam"],
        env=ENV,
        encoding="utf-8",
        timeout=20,
    )
    script.sendline("new 2 expert expert limit 40")  # bots alone play without pauses: over in a moment
    # Why we watch rather than play: every seat was given a bot.
    script.expect(
        r"you are watching table \d+: bots sit in all 2 of its seats, as you asked \(name one fewer to play\)"
    )
    script.expect("game over")
    for line in ("leave", "new human", "draw 1", "end"):
        script.sendline(line)
    script.sendeof()
    script.expect("you left table")
    script.expect(r"you sit at table (\d+), seat 1")
    table = script.match.group(1)
    bob = _spawn(f"127.0.0.1:{server_port}", "--name", "bob")
    bob.expect("connected to")
    bob.sendline(f"join {table}")  # the game starts only now
    bob.expect(r"(sam plays|you play) first")
    if bob.match.group(1) == "you play":
        bob.sendline("end")
    script.expect("you draw 1 card")
    script.expect("you end the turn")
    script.expect(pexpect.EOF)
    assert script.wait() == 0
    bob.sendline("quit")
    bob.expect(pexpect.EOF)


@pytest.mark.parametrize("name", ["李雷", "_", "'!?", " . "])
def test_a_name_with_nothing_to_fold_is_refused_before_connecting(server_port: int, name: str) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", name)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert f"--name: the server would refuse {name!r}: a name is 1 to 24 ASCII letters" in child.before
    assert "Traceback" not in child.before


def test_a_very_long_name_is_not_echoed_whole(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "李" * 3000)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and f"refuse {'李' * 40!r}…: a name is" in child.before
    assert "李" * 41 not in child.before


@pytest.mark.parametrize(
    ("given", "name"),
    [("Zoë", "Zoe"), ("José", "Jose"), ("²", "2"), ("_ann", "ann"), ("a" * 3000, "a" * 24), ("Zoe", "Zoe")],
)
def test_a_name_given_is_folded_as_the_login_name_is_and_the_name_played_under_said(
    server_port: int, given: str, name: str
) -> None:
    """``--name Zoë`` was refused outright, while the login name 'Zoë' played as 'Zoe'."""
    ran = subprocess.run(
        [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", given],
        input="new human\ntables\n",
        capture_output=True,
        text=True,
        env=ENV,
        timeout=30,
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    note = f"playing as {name!r}: a name is 1 to 24 ASCII letters"
    assert lines[0].startswith(note) if name != given else not lines[0].startswith("playing as")
    assert f"seats: {name}, (free) · you are here" in ran.stdout
    assert "a" * 25 not in ran.stdout  # a long name is cut to the longest allowed, not said whole


@pytest.mark.parametrize(
    ("login", "name"),
    [
        ("José", "Jose"),
        ("ﬁona²", "fiona2"),  # compatibility forms become their plain letters
        ("李雷", "player"),  # nothing left
        ("", "player"),
        ("_.ann o'neil", "ann oneil"),  # a name starts with a letter or digit; no apostrophes
        ("x" * 30, "x" * 24),
        ("ann 李", "ann"),  # no space left at the end, where it would not show
        ("Zoë ☃ the  great!!", "Zoe the great"),  # nor two together, where one was dropped or typed
        ("Zoë ☃ ☃ ☃ ☃ ☃ ☃ ☃ ☃ ☃ ☃ ☃ ☃ the great", "Zoe the great"),  # dropped: no length spent
        ("ab" + " " * 22 + "cd", "ab cd"),
    ],
)
def test_the_login_name_is_folded_to_one_the_server_accepts(login: str, name: str) -> None:
    assert name_from_login(login) == name


def test_a_non_ascii_login_name_plays_under_its_ascii_form(
    server_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(ENV, "USER", "José")
    child = _spawn(f"127.0.0.1:{server_port}")
    _new_table(child, "new human")
    child.sendline("tables")
    child.expect(r"seats: Jose, \(free\) · you are here")
    child.sendline("quit")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize(
    ("login", "note"),
    [
        ("Abcdefghijklmnopqrstuvwxyz0123", "Abcdefghijklmnopqrstuvwx"),
        ("José", "Jose"),
        ("ann", None),
        ("", None),
    ],
)
def test_a_login_name_cut_or_folded_is_said_as_a_name_given_is(
    server_port: int, login: str, note: str | None
) -> None:
    """A play-test's name of 30 letters played cut to 24 without a word, while an accented one was
    told "playing as 'nana'": the login name was folded and cut silently, --name with a note."""
    ran = subprocess.run(
        [str(BIN / "notty-client"), f"127.0.0.1:{server_port}"],
        input="tables\n",
        capture_output=True,
        text=True,
        env={**ENV, "USER": login},
        timeout=30,
    )
    assert ran.returncode == 0, ran.stderr
    first = ran.stdout.splitlines()[0]
    if note is None:
        assert not first.startswith("playing as"), first
    else:
        assert first == f"playing as {note!r}: a name is {NAME_RULE}"


def test_ctrl_c_at_the_prompt_quits_quietly(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "ivy")
    child.expect("connected to")
    child.expect("notty> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert "Traceback" not in child.before and "KeyboardInterrupt" not in child.before
    assert child.exitstatus == 130


def _at_table() -> Session:
    """A client seated at a five-colour table against greedy-2, tables 3 and 12 listed; its hand holds
    every card the commands below name (a card not held is refused before anything else is said)."""
    session = welcomed()
    session.receive(Seated(1, 0, TOKEN))
    hands = {"hands": [["R3", "R4", "R5", "R6", "Y6", "G6", "B6", "B4", "B4", "K3", "Y7"], ["B1"]]}
    groups = ["discard R3 R4 R5", "discard R4 R5 R6", "discard R3 R4 R5 R6", "discard R6 Y6 G6 B6"]
    legal = [*groups, "draw 1", "draw 2", "draw 3", "steal 1", "dd", "end"]  # our turn
    view = notty_view(variant="five-colour", names=["ann", "greedy-2"], current=0, legal=legal, body=hands)
    session.receive(State(1, view, ()))
    session.tables_seen = [3, 12]
    return session


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("tables", (ListTables(),)),
        ("new five-colour 3 greedy random", (table("five-colour", 3, ["greedy", "random"]),)),
        ("new", (table("classic", 2, ["expert"]),)),  # level: the server's default, medium
        ("new 3", (table("classic", 3, ["expert", "expert"]),)),
        ("new hard", (table("classic", 2, ["expert"], level="hard"),)),
        ("new classic 3 expert expert hard", (table("classic", 3, ["expert", "expert"], level="hard"),)),
        ("new Easy five-colour 3", (table("five-colour", 3, ["expert", "expert"], level="easy"),)),
        ("new classic 3 greedy medium random", (table("classic", 3, ["greedy", "random"], level="medium"),)),
        ("new classic 2 expert-hard easy", (table("classic", 2, ["expert-hard"], level="easy"),)),
        ("new classic 2 hard hard", (table("classic", 2, ["expert"], level="hard"),)),
        ("new classic 2 human", (table("classic", 2),)),
        ("new human", (table("classic", 2),)),
        ("new five-colour human", (table("five-colour", 2),)),
        ("new classic greedy human", (table("classic", 3, ["greedy"]),)),
        ("new classic 2 greedy limit 50", (table("classic", 2, ["greedy"], turn_limit=50),)),
        ("new classic 2 greedy hand_limit 0", (table("classic", 2, ["greedy"], hand_limit=0),)),
        (
            "new classic greedy smallest_set 4 draw_and_discard yes cards_dealt 7",
            (table("classic", 2, ["greedy"], smallest_set=4, draw_and_discard="yes", cards_dealt=7),),
        ),
        ("new limit 300 hard greedy", (table("classic", 2, ["greedy"], level="hard", turn_limit=300),)),
        ("new greedy", (table("classic", 2, ["greedy"]),)),
        ("new expert hard", (table("classic", 2, ["expert"], level="hard"),)),
        ("new greedy human", (table("classic", 3, ["greedy"]),)),
        ("new classic 3 human", (table("classic", 3),)),
        ("new 3 expert human hard", (table("classic", 3, ["expert"], level="hard"),)),
        ("new five-colour 3 HUMAN greedy", (table("five-colour", 3, ["greedy"]),)),
        ("join 4", (Join(4, None),)),
        ("draw 2", (Act("draw 2"),)),
        ("steal Greedy-2", (Act("steal 1"),)),
        ("discard r3 r4 R5", (Act("discard R3 R4 R5"),)),
        ("discard R6 Y6 G6 B6", (Act("discard R6 Y6 G6 B6"),)),
        ("dd", (Act("dd"),)),
        ("putback k3", (Act("putback K3"),)),
        ("end", (Act("end"),)),
    ],
)
def test_commands_become_messages(line: str, expected: tuple[object, ...]) -> None:
    assert _at_table().typed(line).messages == expected


@pytest.mark.parametrize(
    ("before", "text", "expected"),
    [
        ("", "d", ["dd", "discard", "draw"]),
        # begun, our turn: no start, nothing that goes to another table, our turn's commands
        (
            "  ",
            "",
            [
                *(c for c in COMMANDS if c not in ("start", "new", "join", "watch")),
                "draw",
                "steal",
                "discard",
                "dd",
                "end",
            ],
        ),
        ("new ", "e", []),  # at a table: 'leave' first
        ("join ", "", []),
        ("discard ", "R", ["R3", "R4", "R5", "R6"]),
        ("discard R6 ", "", ["R3", "R4", "R5", "Y6", "G6", "B6"]),  # cards that go on with a group of R6
        ("steal ", "G", ["greedy-2"]),
        ("steal greedy-2 ", "", []),  # the name is whole
    ],
)
def test_tab_offers_what_fits_the_command(before: str, text: str, expected: list[str]) -> None:
    assert sorted(_at_table().completions(before, text)) == sorted(expected)


@pytest.mark.parametrize(
    ("before", "text", "expected"),
    [
        ("new ", "e", ["easy", "expert", "expert-easy", "expert-hard", "expert-medium"]),
        ("new classic 2 ", "h", ["hand_limit", "hard", "human"]),
        ("new classic ", "dr", ["draw_and_discard"]),  # not 'yes': another option's choice too
        ("new classic draw_and_discard ", "", ["no", "preset", "yes"]),
        ("new ", "g", ["greedy"]),
        ("new 2 greedy ", "l", ["last_card_stolen_wins", "limit"]),
        ("join ", "", ["3", "12"]),
        ("watch ", "1", ["12"]),
    ],
)
def test_tab_offers_in_the_lobby_what_fits_the_command(before: str, text: str, expected: list[str]) -> None:
    session = welcomed()
    session.tables_seen = [3, 12]
    assert sorted(session.completions(before, text)) == sorted(expected)


def test_the_line_typed_so_far_is_read_as_a_copy_of_readlines_own_buffer() -> None:
    """Redrawing a half-typed line under a message read it with readline.get_line_buffer(), which
    decodes the C string in two passes while the input thread may be changing it: glibc aborted
    the client once (status 134). It is now copied from readline's buffer where that can be
    reached (GNU readline here), and reads the same."""
    import readline

    from client.terminal import line_buffer, typed_so_far

    assert line_buffer() is not None
    before = readline.get_line_buffer()
    readline.insert_text("hin é")
    try:
        assert typed_so_far() == readline.get_line_buffer() == before + "hin é"
    finally:  # the line emptied again, as readline leaves it between lines
        library = ctypes.CDLL(readline.__file__)
        library.rl_delete_text(0, ctypes.c_int.in_dll(library, "rl_end").value)
        ctypes.c_int.in_dll(library, "rl_point").value = 0
    assert readline.get_line_buffer() == "" == typed_so_far()


def test_tab_offers_the_words_that_fit_what_istyped_so_far() -> None:
    session = welcomed(*HOSTED)
    session.tables_seen = [12, 9, 30]
    assert session.completions("join ", "") == ["9", "12", "30"]  # in number order
    assert session.completions("watch ", "3") == ["30"] and session.completions("join 9 ", "") == []
    ochos = session.completions("new ochos-locos part4 3 ", "")
    assert "rule" in ochos and not {"classic", "qlearn", "huxxy", "notty", "limit"} & set(ochos), ochos
    assert "qlearn" in session.completions("new ", "")  # no game named yet: every game's words
    assert session.completions("new ", "ti") == ["time"]  # every game's tables have a turn time
    assert "time" not in session.completions("new huxxy time 30 ", "")  # once given, not again
    assert session.completions("rules ", "") == sorted(["notty", "classic", "five-colour", "ochos-locos",
        "part1", "part2", "part3", "part4", "huxxy", "huxxy-jokers"])  # fmt: skip
    assert session.completions("auto ", "") == ["off", "on"] and session.completions("auto on ", "") == []


def test_tab_after_help_offers_the_words_help_knows() -> None:
    """'help pl' + Tab completed nothing, where 'rules hu' completed to 'rules huxxy'."""
    session = welcomed(*HOSTED)
    assert session.completions("help ", "pl") == ["play"] and session.completions("? ", "ru") == ["rules"]
    assert session.completions("help ", "hu") == ["huxxy"] and session.completions("help ", "a") == [
        "all",
        "auto",
    ]
    assert {"steal", "move", "notty", "ochos-locos"} <= set(session.completions("help ", ""))
    assert session.completions("help play ", "") == []  # help reads the first word only
    session.game = "huxxy"  # at a huxxy table: its commands, not Notty's, as 'help' lists them
    assert "move" in session.completions("help ", "") and session.completions("help ", "st") == ["start"]


def test_a_game_command_from_a_spectator_or_after_the_end_says_so_before_its_usage() -> None:
    """'steal' alone said 'usage: steal NAME' to a spectator, and 'putback R9' after the end
    'you do not hold R9': what is wrong is that nothing may be played."""
    session = welcomed()
    session.receive(Watching(1))
    session.receive(State(1, notty_view(seat=None), ()))
    for line in ("steal", "draw", "discard", "draw 1", "putback R9", "auto", "auto on", "resign"):
        reply = session.typed(line)
        assert reply.refused and not reply.messages and reply.say.startswith("you are only watching"), line
    assert session.typed("hint").messages == (AskHint(),)  # Notty's hands are face up (see below)
    huxxy = welcomed()
    huxxy.receive(Watching(2))
    huxxy.receive(State(2, huxxy_view(seat=None, body={"hand": []}), ()))
    reply = huxxy.typed("hint")  # hidden hands: hints are the players' (a server not hosting huxxy: no title)
    assert reply.refused and not reply.messages
    assert reply.say == "this game keeps each hand hidden: only a player has hints, for their own hand"
    bots = welcomed()  # a game bots alone play for us: leaving ends it, so 'join' does not leave by itself
    bots.receive(Watching(3))
    bots.receive(State(3, notty_view(seat=None, bots=[0, 1]), ()))
    assert bots.typed("draw 1").say == "you are only watching: 'leave', then 'join' a table to play"
    assert (
        bots.why_not(Start(), ConnectionState.WATCHING) == bots.typed("draw 1").say
    )  # as the protocol refuses it
    over = {"ranking": [[0], [1]], "reason": "discard", "text": "ann wins"}
    session = welcomed()
    session.receive(Seated(1, 0, TOKEN))
    session.receive(State(1, notty_view(result=over), ()))
    for line in ("putback R9", "steal", "end", "hint", "auto", "resign yes"):  # as each other says it
        reply = session.typed(line)
        assert reply.refused and reply.say == "the game is over: 'leave' returns to the lobby", line


def test_tab_offers_a_spectator_no_command_that_needs_a_seat() -> None:
    session = welcomed()
    session.receive(Watching(1))
    session.receive(State(1, notty_view(seat=None), ()))
    offered = session.completions("", "")  # another table's, which leave this one first by themselves
    commands = {"tables", "table", "leave", "help", "rules", "quit", "new", "join", "watch"}
    assert offered == sorted({*commands, "hint"})  # Notty's hands are face up: a watcher may ask
    assert session.completions("", "st") == [] and session.completions("", "d") == []
    huxxy = welcomed()
    huxxy.receive(Watching(2))
    huxxy.receive(State(2, huxxy_view(seat=None, body={"hand": []}), ()))
    assert huxxy.completions("", "") == sorted(commands)  # hidden hands: no hint


def _watchers_answer(hand: tuple[str, ...]) -> HintAnswer:
    """A watcher's hint for ``hand`` at a classic table, as the game's job answers it."""
    from games.notty import Card, rules_from
    from games.notty.game import make_hint

    answer = make_hint(tuple(Card.parse(card) for card in hand), rules_from("classic"))
    return HintAnswer(answer.text, (), answer.data)


def test_a_watchers_hint_says_whose_hand_it_is_for() -> None:
    """A watcher's hint is for the hand to play (the server answers it for the position as it is)."""
    session = welcomed()
    session.receive(Watching(1))
    session.receive(State(1, notty_view(seat=None), ()))  # bob's turn
    answer = _watchers_answer(("Y5",))  # bob's hand, as the server's job answers for it
    (shown,) = session.receive(Hint(answer.text, answer.actions, answer.data)).lines
    lines = shown.split("\n")
    assert lines[:2] == ["for bob, whose turn it is:", "hint: nothing can be discarded now"]
    assert not any("type:" in line for line in lines)  # no command: the watcher has no seat


def test_tab_offers_cards_in_the_hands_order() -> None:
    session = welcomed()
    session.receive(Seated(1, 0, TOKEN))
    legal = ["discard R10 R2 B1", "end"]  # our turn (B1 stands in, as a card of it)
    session.receive(
        State(1, notty_view(current=0, legal=legal, body={"hands": [["R10", "R2", "B1"], ["Y5"]]}), ())
    )
    assert session.completions("discard ", "") == [
        "R2",
        "R10",
        "B1",
    ]  # as the hand shows them, not as text sorts


def test_tab_offers_at_our_turn_only_what_may_be_played() -> None:
    """After 'dd', Tab offered every Notty command, though only 'putback' is taken; 'discard' with no
    group to discard; and nothing after 'draw ' (as Ochos Locos offers only its legal moves)."""
    session = welcomed()
    session.receive(Seated(1, 0, TOKEN))
    hands = {"hands": [["R1", "R2", "B1"], ["Y5", "G2"]], "drew": False}
    legal = ["draw 1", "draw 2", "steal 1", "dd", "end"]
    session.receive(State(1, notty_view(current=0, legal=legal, body=hands), ()))
    assert session.completions("", "d") == ["dd", "draw"]  # nothing to discard
    assert session.completions("draw ", "") == ["1", "2"] and session.completions("steal ", "") == ["bob"]
    assert session.completions("discard ", "") == []
    with_group = [*legal, "discard R1 R2 R3"]
    grouped = hands | {"hands": [["R1", "R2", "R3", "B1"], ["Y5"]]}
    session.receive(State(1, notty_view(current=0, legal=with_group, body=grouped), ()))
    assert session.completions("discard R1 ", "") == ["R2", "R3"]  # the group's rest: not B1, nor R1
    session.receive(State(1, notty_view(current=0, legal=["putback R1", "putback B1"], body=hands), ()))
    offered = session.completions("", "")
    assert "putback" in offered and not {"draw", "dd", "discard", "steal", "end"} & set(offered), offered
    assert session.completions("putback ", "") == ["R1", "B1"] and session.completions("dd ", "") == []
    assert session.typed("dicsard R1").say == "unknown command 'dicsard'; did you mean 'discard'?"


@pytest.mark.parametrize("line", ["quit now", "exit now", "quit table", "end now", "start now", "hint me"])
def test_words_after_a_command_complete_in_itself_are_refused_alike_with_its_usage(line: str) -> None:
    """'end now' was refused, 'quit now' quit, and 'quit table' left the server where 'leave' was
    meant: every command complete in one word refuses words after it, saying the usage."""
    verb = line.split()[0]
    reply = _at_table().typed(line)
    assert reply.refused and not reply.quit and reply.messages == ()
    assert reply.say == f"usage: {verb} ('{verb}' takes nothing after it)", reply.say
    assert _at_table().typed(verb).quit == (verb in ("quit", "exit"))


@pytest.mark.parametrize("count", ["-1", "0", "4", "many", "²", "1 2", ""])
def test_a_bad_draw_count_is_answered_alike_here(count: str) -> None:
    """'draw -1' was answered with the usage and 'draw 4' sent, for the server to refuse in other
    words ('draw 1 to 3 cards, not 4'): every count outside 1 to 3 is answered here, one way."""
    reply = _at_table().typed(f"draw {count}")
    assert reply.refused and reply.messages == ()
    assert reply.say == "usage: draw N (1 to 3)" + (f", not {count!r}" if len(count.split()) == 1 else "")
    assert _at_table().typed("draw 3").messages == (Act("draw 3"),)


def test_help_says_how_to_choose_a_level() -> None:
    help_text = welcomed().typed("help all").say
    assert "new [PRESET] [SEATS] [BOT|human...] [LEVEL]" in help_text
    assert "'human' to keep a seat" in help_text
    assert all(level in help_text for level in ("easy", "medium", "hard"))


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("discard R6 Y6 G6", "a set needs at least 4"),  # five-colour, checked locally
        ("discard B4 R4 B4", "repeat a colour"),
        ("discard X9", "not a card"),
        ("steal zed", "no player called 'zed'"),
        ("draw many", "usage: draw N"),
        ("end now", "usage: end ('end' takes nothing after it)"),  # not an end of turn not meant
        ("leave table", "'leave' takes nothing after it"),
        ("draw ²", "usage: draw N"),  # a digit to str.isdigit, not to int()
        ("new ² greedy", "'²' is neither a preset"),
        ("steal ²", "no player called '²'"),
        ("new poker", "'poker' is neither a preset (classic, five-colour) nor a player (random, greedy"),
        ("new classic 4", "2 or 3 seats"),
        ("new classic 2 easy hard", "one level"),
        ("new classic 2 human human", "2 players besides you do not fit at 2 seats"),
        ("new classic 3 human greedy expert", "do not fit at 3 seats"),
        ("new human 2", "the number of seats goes first"),
        ("new human human human", "2 or 3 seats"),
        ("new limit", "'limit' takes a number of turns, 0 to 100,000"),
        ("new 2 greedy limit -1", "'limit' takes a number of turns"),
        ("new limit 100001", "'limit' takes a number of turns"),
        ("new limit ten", "'limit' takes a number of turns"),
        ("new limit 5 greedy limit 6", "one limit, please"),
        ("putback R3 R4", "usage: putback CARD"),
        ("fly", "unknown command"),
    ],
)
def test_bad_commands_are_answered_locally_and_send_nothing(line: str, says: str) -> None:
    reply = _at_table().typed(line)
    assert reply.messages == ()
    assert says in reply.say


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("join ²", "table must be a number, not '²'"),
        ("join 1 ³", "seat must be a number, not '³'"),
        ("watch ²", "table must be a number, not '²'"),
        (
            "join " + "9" * 400,
            "there is no table '99999999999999999999'…: no table number has over 18 digits",
        ),
    ],
)
def test_bad_tables_and_seats_are_answered_locally_in_the_lobby(line: str, says: str) -> None:
    """(At a table, that it must be left first is said instead: tests/test_client_exit.py.)"""
    reply = welcomed().typed(line)
    assert (reply.messages, reply.say) == ((), says)


@pytest.mark.parametrize("line", ["x" * 5000, "play " + "2C " * 200, "new " + "classic " * 80])
def test_a_line_longer_than_any_command_is_refused_without_being_echoed(line: str) -> None:
    for session in (welcomed(), _at_table()):
        reply = session.typed(line)
        assert reply.refused and reply.messages == ()
        assert reply.say == f"that line has {len(line):,} characters; no command has more than 500"


@pytest.mark.parametrize("line", ["play 7H", "play 4\u2666 \u00e9 \u65e5\u672c", "play"])
def test_a_game_command_in_the_lobby_is_refused_as_out_of_place_not_as_some_games_usage(line: str) -> None:
    """Away from a table there is no game to read a move by: the first game with the verb (Ochos
    Locos, for 'play', which huxxy has too) answered with its own usage, as if we sat at its table.
    (A verb of one game alone still gets its usage: 'steal' alone, test_client_fixes.py.)"""
    reply = welcomed(*HOSTED).typed(line)
    assert reply.refused and reply.messages == ()
    assert reply.say == "you are not at a table: 'new' makes one, 'join TABLE' takes a seat"


def test_a_game_command_at_a_table_joined_by_number_is_not_told_it_is_in_the_lobby() -> None:
    """Joined by number with no list seen (as scripts do), the game is not known until its first
    state: 'play 7H' then is not "you are not at a table", but the usage of the game that has it."""
    session = welcomed(*HOSTED)
    session.sending(session.typed("join 5").messages[0])
    session.receive(Seated(5, 1, TOKEN))
    reply = session.typed("play 7H")
    assert reply.refused and "not at a table" not in reply.say


@pytest.mark.parametrize(
    ("message", "state", "says"),
    [
        (CreateTable("notty", 2), ConnectionState.SEATED, "you are already at table 7: 'leave' it first"),
        (Join(3, None), ConnectionState.SEATED, "already at table 7"),
        (Watch(3), ConnectionState.WATCHING, "you are watching table 7: 'leave' it first"),
        (Act("draw 1"), ConnectionState.WATCHING, "you are only watching"),
        (AskHint(), ConnectionState.LOBBY, "you are not at a table: 'new' makes one"),
        (Leave(), ConnectionState.LOBBY, "you are not at a table"),
        (Start(), ConnectionState.HELLO, "not connected yet"),
        (Act("end"), ConnectionState.CLOSED, "the connection is closed"),
    ],
)
def test_what_cannot_be_sent_now_is_explained_in_commands(
    message: Message, state: ConnectionState, says: str
) -> None:
    assert says in why_not(message, state, 7)


def test_every_refusal_the_protocol_makes_has_words_for_the_user() -> None:
    for state in ConnectionState:
        allowed = Connection.allowed(Sender.CLIENT, state)
        tried = (CreateTable("notty", 2), Join(1, None), Watch(1), Start(), Leave(), Act("end"), AskHint())
        for message in tried:
            if type(message) not in allowed:
                text = why_not(message, state, None)
                assert "while" not in text, text  # the protocol's words, not the user's
                if state in (ConnectionState.LOBBY, ConnectionState.SEATED, ConnectionState.WATCHING):
                    assert re.search(r"'(leave|new|join TABLE)'", text), f"{text!r} names no command to type"


def pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy one direction of a proxied connection until it ends, then end both sockets."""
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    for end in (source, sink):
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)


class CuttableProxy:
    """A loopback TCP proxy whose live connections can be cut, to drop a client's connection."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.live: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            far = socket.create_connection(("127.0.0.1", self.target))
            self.live += [near, far]
            threading.Thread(target=pipe, args=(near, far), daemon=True).start()
            threading.Thread(target=pipe, args=(far, near), daemon=True).start()

    def cut(self) -> None:
        for end in self.live:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
        self.live = []

    def close(self) -> None:
        self.cut()
        self.listener.close()


def test_client_reconnects_by_itself_and_resumes_its_seat(server_port: int) -> None:
    proxy = CuttableProxy(server_port)
    try:
        child = _spawn(f"127.0.0.1:{proxy.port}", "--name", "fay")
        table = _new_table(child, "new classic 2 greedy")
        child.expect(r"turn \d+")
        proxy.cut()
        child.expect("connection lost")
        child.expect(r"asking for your seat")
        child.expect(rf"you sit at table {table}, seat 1")
        child.expect(rf"table {table} · classic")  # the full current view again
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        proxy.close()


def test_sigterm_says_goodbye_to_every_client(tmp_path: Path) -> None:
    running = ServerProcess(tmp_path / "notty.db")
    server, port = running.process, running.port
    conn = Connection(Sender.CLIENT)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(conn.send(Hello(PROTOCOL_VERSION, "gus")))
        received: list[object] = []
        while not received:
            conn.receive_data(sock.recv(65536))
            while (message := conn.next_event()) is not None:
                received.append(message)
        server.send_signal(signal.SIGTERM)
        while data := sock.recv(65536):
            conn.receive_data(data)
            while (message := conn.next_event()) is not None:
                received.append(message)
    assert isinstance(received[-1], Goodbye) and "shutting down" in received[-1].reason
    assert server.wait(timeout=10) == 0


def test_updates_do_not_garble_a_half_typed_line(server_port: int) -> None:
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "hal")
    child.expect("connected to")
    child.sendline("new classic 2 greedy")  # the bot waits a second before each action
    child.expect("your turn")
    child.sendline("end")
    child.expect("you end the turn")
    child.send("hin")  # half a command, while the bot is about to act
    child.expect("greedy-2 (draws|steals|discards|ends)")  # an update arrives mid-line...
    child.expect(r"notty> hin")  # ...and the half-typed text is drawn again below it
    child.sendline("t")
    child.expect("hint: ")  # the line reached the client whole: 'hint'
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_turn_the_server_plays_for_you_reads_as_yours_and_says_so(server_port: int) -> None:
    """After 'auto' the client said 'ann to play' and 'ann ends the turn' to ann herself."""
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    _new_table(child, "new classic 2 greedy")
    child.expect("your turn: ")
    child.sendline("auto")
    child.expect(r"a bot plays your turn; it may (still )?[^\r\n]*\r\n")
    child.expect(r"  you end the turn \(played for you\); greedy-2 to play\r\n")
    assert "ann " not in child.before  # her name is the others' word for her
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_game_that_reaches_its_turn_limit_ends_its_last_turn_and_says_so_once(server_port: int) -> None:
    """The limit's end took the place of the last turn's end line, and line mode said how the game
    ended three times: the event, the game-over line and the summary."""
    child = _spawn(f"127.0.0.1:{server_port}", "--name", "ann")
    _new_table(child, "new classic 2 greedy limit 1")
    then = r"\r\n(?:notty> \r\x1b\[K)?"  # the next line (the prompt, up between them, gives way to it)
    ending = (
        rf"  (you end|greedy-2 ends) the turn{then}table \d+ · classic · turn 1 of 1 [^\r\n]*\r\n"
        r"(?:[^\r\n]*\r\n){2}"  # the seats
        rf"game over: the game ended at its turn limit \(1 turn\) with no winner; 'leave' [^\r\n]*{then}"
        rf"the game ended after 1 turn, in \d+ s{then}"
    )
    ours = child.expect([r"your turn: ", ending]) == 0
    if ours:
        child.sendline("end")  # ann plays first: her turn's end is the game's
        child.expect(ending)
    assert child.match.group(1) == ("you end" if ours else "greedy-2 ends")
    said = child.before + child.after
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert "  the game ended at its turn limit" not in said  # said once: in the game-over line


def test_a_line_half_typed_before_ctrl_z_is_shown_again_and_edited_as_before_after_fg(
    server_port: int,
) -> None:
    """Back from Ctrl-Z, the shell had left the terminal cooked: no prompt, keys echoed twice, Tab
    and Ctrl-U dead, and what was typed before joined to what came after ('dis' + 'table')."""
    shell = pexpect.spawn(
        "bash", ["--norc", "--noprofile", "-i"], env={**ENV, "PS1": "$ "}, encoding="utf-8", timeout=20
    )
    shell.setwinsize(40, 160)
    shell.expect(r"\$ ")
    shell.sendline(f"{BIN / 'notty-client'} 127.0.0.1:{server_port} --name ann --plain")
    shell.expect("connected to")
    shell.expect("notty> ")
    shell.send("hel")
    shell.expect("hel")
    shell.sendcontrol("z")
    shell.expect("Stopped")
    shell.expect(r"\$ ")
    shell.sendline("fg")
    shell.expect(r"notty> hel")  # drawn again, with the line so far
    shell.send("x")  # Ctrl-U needs readline's modes: in a cooked terminal it erased only the 'x'
    shell.sendcontrol("u")
    shell.send("help\r")
    shell.expect(r"\r\ncommands")  # the whole line, as typed again
    assert "unknown command" not in (shell.before or "")
    shell.sendline("quit")
    shell.expect(r"\$ ")
    shell.sendline("exit")
    shell.expect(pexpect.EOF)


def test_a_terminal_curses_has_no_description_of_gets_plain_lines_and_is_told_why(server_port: int) -> None:
    """TERM naming a terminal with no terminfo here fell back to line mode without a word."""
    child = pexpect.spawn(
        str(BIN / "notty-client"),
        [f"127.0.0.1:{server_port}", "--name", "ann"],
        env={**ENV, "TERM": "xterm-nonexistent"},
        encoding="utf-8",
        timeout=20,
    )
    child.expect(r"no description of the terminal TERM names \('xterm-nonexistent'\) here: plain\s+lines")
    child.expect("connected to")
    child.expect("notty> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize(
    ("given", "shown"),
    [("0", "'0'"), ("12x", "'12x'"), ("9" * 30, repr("9" * 20) + "…")],
    ids=["zero", "word", "long"],
)
def test_a_table_number_out_of_range_is_refused_with_the_range(given: str, shown: str) -> None:
    """A number of 30 digits was quoted cut to 20, as if that were what was typed."""
    ran = subprocess.run(
        [str(BIN / "notty-client"), "127.0.0.1:1", "--table", given],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert ran.returncode == 2
    why = f"argument --table: a table's number, 1 to 2,147,483,647, not {shown}"
    assert ran.stderr.splitlines()[-1] == f"notty-client: error: {why}"
