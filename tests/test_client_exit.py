"""How the client ends, and some words it says, after a review driving the real client through a pty:

1. the server ending the connection (a client silent past its idle timeout, say) is said on the
   terminal once the full screen is gone, as in line mode, with the seat kept, and the exit status is 1;
2. Ctrl-C says where a seat is kept, as Ctrl-D and ``quit`` do (status 130), and in line mode what
   Ctrl-D says starts a line of its own, not the prompt's;
3. ``join`` and ``watch`` name tables and seats in the user's words, not the protocol's fields, and
   where the user is comes first;
4. ``auto`` out of turn is refused naming ``auto``;
5. ``rules VARIANT`` is that variant's game's rules, for that variant;
6. a script's line the client cannot carry out stops the script, exit status 1, naming the line: a
   game action with no seat (it waited an hour for a turn that never comes), a line the protocol
   refuses where the script is (``leave`` in the lobby: the script went on, and exited 0), a move
   after the game is over (skipped without a word) or after resigning.

The end-to-end tests drive the real ``notty-client`` against a real ``notty-server`` on 127.0.0.1.
"""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
from conftest import ServerProcess, notty_table
from test_client_restart import BUDGET, RESTARTING
from test_client_restart import CLIENT as RESTART_CLIENT
from test_client_session import NOTTY, PARLOUR, TOKEN, notty_view, welcomed
from test_host import Net
from test_ochos_ui import OCHOS
from test_screen import Person

from client.app import _carry_out
from client.commands import MAX_TABLE, NOT_UTF8, Reply, quoted_line
from client.session import Session
from client.terminal import Terminal
from games.notty.ui import rules_text
from protocol import (
    MAX_SEATS,
    Act,
    ConnectionState,
    Error,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Notice,
    PlayForMe,
    Seated,
    State,
    Tables,
    Watch,
    Watching,
)

BIN = Path(sys.executable).parent
#: How long the server of :func:`idle_port` waits for a word from a client before it drops it.
IDLE_SECONDS = 8
#: What that server says last (server/net.py) as it drops a client silent for so long.
DROPPED = rf"nothing heard from you for {IDLE_SECONDS} seconds \(send ping\)"
NOT_BACK = f"it was not back within {BUDGET:g} s"


@pytest.fixture
def idle_port(tmp_path: Path) -> Iterator[int]:
    """A server that ends the connection of a client silent for :data:`IDLE_SECONDS` (the error
    ``idle-timeout``, then goodbye): the client pings only after 20 s, so one that sits down and says
    nothing more is dropped. (A paste over the server's rate was the way, once: the client keeps to
    the rates a server's welcome says now, so no paste floods it.)"""
    server = ServerProcess(tmp_path / "notty.db", "--idle-timeout", str(IDLE_SECONDS))
    try:
        yield server.port
    finally:
        server.stop()


def _line_mode(tmp_path: Path, *args: str) -> tuple[pexpect.spawn, io.StringIO]:
    """The client on a pty in line mode (``--plain``), and everything it prints."""
    env = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        str(BIN / "notty-client"), ["--plain", *args], env=env, encoding="utf-8", timeout=20
    )
    child.setwinsize(40, 160)
    transcript = io.StringIO()
    child.logfile_read = transcript
    return child, transcript


def _seated_in_line_mode(tmp_path: Path, port: int, name: str) -> tuple[pexpect.spawn, io.StringIO, str]:
    """The client in line mode, at a new table against ``greedy``, at its prompt: and its table."""
    child, transcript = _line_mode(tmp_path, f"127.0.0.1:{port}", "--name", name)
    child.expect("connected to")
    child.sendline("new classic 2 greedy")
    child.expect(r"you sit at table (\d+), seat 1")
    table = child.match.group(1)
    child.expect(r"turn \d+ of 300")
    child.expect("notty> ")
    return child, transcript, table


def _status(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus is None, child.signalstatus
    return int(child.exitstatus)


def _kept(port: int, name: str, table: str, resume: str = "") -> str:
    """A pattern of the lines saying where a seat is kept, the command to run on a line of its own
    (``resume``: what a script must add to take it back)."""
    command = re.escape(f"notty-client 127.0.0.1:{port} --name {name}{resume}")
    return rf"your seat at table {table} is kept; to take it back, run:\s+{command}\b"


# -- 1. the server ending the connection ------------------------------------------------------------


def test_a_goodbye_from_the_server_is_said_after_the_full_screen_and_exits_1(
    idle_port: int, tmp_path: Path
) -> None:
    ann = Person(tmp_path, f"127.0.0.1:{idle_port}", "--name", "ann")
    ann.see("connected to")
    ann.enter("new classic 2 greedy")
    table = ann.see(r"you sit at table (\d+), seat 1").group(1)
    ann.see(r"turn \d+ of 300")  # the game is under way: the seat is worth keeping
    assert ann.finish() == 1  # and ann says nothing more: the server drops her
    assert ann.terminal_restored()
    after = ann.output[ann.output.rindex("\x1b[?1049l") :]  # what follows the full screen
    after = re.sub(r"\r?\n +", " ", after)  # wrapped to the terminal's width, its rows indented
    said = re.search(
        rf"notty-client: the server at 127\.0\.0\.1:{idle_port} ended the connection: (.*)", after
    )
    assert said and re.search(DROPPED, said.group(1)), after
    assert re.search(_kept(idle_port, "ann", table), after)


def test_a_goodbye_from_the_server_ends_line_mode_alike(idle_port: int, tmp_path: Path) -> None:
    ann, transcript = _line_mode(tmp_path, f"127.0.0.1:{idle_port}", "--name", "ann")
    ann.expect("connected to")
    ann.sendline("new classic 2 greedy")
    ann.expect(r"you sit at table (\d+), seat 1")
    table = ann.match.group(1)
    ann.expect(r"turn \d+ of 300")
    ann.expect(
        rf"notty-client: the server at 127\.0\.0\.1:{idle_port} ended the connection: [^\r\n]*{DROPPED}"
    )
    ann.expect(_kept(idle_port, "ann", table))
    assert _status(ann) == 1
    assert re.search(r"(?m)^notty-client: the server at", transcript.getvalue())  # not after a prompt


def test_a_script_whose_server_shuts_down_and_stays_down_exits_1_saying_why(tmp_path: Path) -> None:
    """It waits for the server to come back (:mod:`test_client_restart`), for a budget shortened here."""
    server = ServerProcess(tmp_path / "notty.db")
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    client = subprocess.Popen(
        [sys.executable, "-c", RESTART_CLIENT, f"127.0.0.1:{server.port}", "--name", "eve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert client.stdin is not None and client.stdout is not None
        client.stdin.write("new classic 2 human\ndraw 1\n")  # the draw waits for a game that never starts
        client.stdin.flush()
        for line in client.stdout:
            if line.startswith("you sit at table"):
                break
        server.stop()  # SIGTERM: the server says goodbye to every client
        out, err = client.communicate(timeout=30)
    finally:
        client.kill()
        server.stop()
    assert re.search(RESTARTING, out) and "refused" not in out and "goodbye" not in out
    assert client.returncode == 1, (out, err)
    # Its seat, at a table still waiting, was freed: there is none to take back.
    assert err == f"notty-client: the server at 127.0.0.1:{server.port} shut down, and {NOT_BACK}\n"


# -- 2. Ctrl-C says where the seat is kept; Ctrl-D says it on a line of its own ------------------------


@pytest.mark.parametrize(("how", "status"), [("ctrl-c", 130), ("sigterm", 128 + signal.SIGTERM)])
def test_ctrl_c_on_the_full_screen_says_where_the_seat_is_kept(
    server_port: int, tmp_path: Path, how: str, status: int
) -> None:
    """A play-test's client, sent SIGTERM, gave the terminal back blank: it ends as on Ctrl-C."""
    bea = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "bea")
    bea.see("connected to")
    bea.enter("new classic 2 greedy")
    table = bea.see(r"you sit at table (\d+), seat 1").group(1)
    bea.see(r"turn \d+ of 300")
    if how == "ctrl-c":
        bea.type("\x03")
    else:  # to the client, not the shell that records its status
        children = Path(f"/proc/{bea.child.pid}/task/{bea.child.pid}/children").read_text().split()
        os.kill(int(children[0]), signal.SIGTERM)
    assert bea.finish() == status
    assert bea.terminal_restored()
    after = bea.output[bea.output.rindex("\x1b[?1049l") :]
    assert re.search(_kept(server_port, "bea", table), after)


def test_ctrl_c_with_no_seat_to_keep_says_nothing_more(server_port: int, tmp_path: Path) -> None:
    dee, transcript = _line_mode(tmp_path, f"127.0.0.1:{server_port}", "--name", "dee")
    dee.expect("connected to")
    dee.expect("notty> ")
    dee.sendintr()
    assert _status(dee) == 130
    assert "kept" not in transcript.getvalue()


@pytest.mark.parametrize(("key", "status"), [("ctrl-c", 130), ("ctrl-d", 0)])
def test_ctrl_c_or_d_in_line_mode_says_where_the_seat_is_kept_on_a_line_of_its_own(
    server_port: int, tmp_path: Path, key: str, status: int
) -> None:
    ann, transcript, table = _seated_in_line_mode(tmp_path, server_port, "ann")
    if key == "ctrl-c":
        ann.sendintr()
    else:
        ann.sendeof()
    kept = _kept(server_port, "ann", table)
    ann.expect(kept)
    assert _status(ann) == status
    said = transcript.getvalue()
    assert re.search(rf"(?m)^{kept}", said.replace("\r", ""))  # below the prompt, not after it
    assert "notty> your seat" not in said
    assert "Traceback" not in said and "KeyboardInterrupt" not in said


@pytest.mark.parametrize("how", ["ctrl-c", "goodbye"])
def test_line_mode_gives_the_terminal_back_when_it_ends_mid_line(
    request: pytest.FixtureRequest, tmp_path: Path, how: str
) -> None:
    """Readline, still reading a line when the client ends of itself, would leave the terminal
    not echoing what is typed."""
    port = request.getfixturevalue("server_port" if how == "ctrl-c" else "idle_port")
    fay = Person(tmp_path, f"127.0.0.1:{port}", "--name", "fay", "--plain")
    fay.see("connected to")
    fay.enter("new classic 2 greedy")
    fay.see(r"turn \d+ of 300")
    fay.wait(lambda: fay.output.endswith("notty> "), "the prompt")
    # Ctrl-C, or half a line typed when the server drops the client, silent since it sat down.
    fay.type("\x03" if how == "ctrl-c" else "tabl")
    # 134 once (an abort in Python's shutdown, over stdout's lock held by the input thread).
    assert fay.finish() == (130 if how == "ctrl-c" else 1), fay.output[-1500:]
    assert fay.terminal_restored()


# -- 3. join and watch in the user's words ------------------------------------------------------------


def _listed(session: Session, seats: dict[int, int]) -> Session:
    """``session`` having been told of tables of these many seats (by a list it asked for)."""
    session.tables_asked += 1
    session.receive(_tables(seats))
    return session


def _tables(seats: dict[int, int]) -> Tables:
    """The server's list of tables of these many seats, each waiting for players."""
    infos = [
        {
            "table": number,
            "game": "notty",
            "variant": "classic",
            "options": {},
            "seats": [{"name": None, "bot": None, "connected": False} for _ in range(count)],
            "started": False,
            "over": False,
            "spectators": 0,
            "turn_seconds": 0,
            "turn": None,
            "bots": [],
            "kept": [],
        }
        for number, count in seats.items()
    ]
    return Tables(tuple(infos))


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("join 99999999999", "there is no table 99999999999: 'tables' lists them"),
        (f"join {MAX_TABLE + 1}", f"there is no table {MAX_TABLE + 1}: 'tables' lists them"),
        ("join 0", "there is no table 0: 'tables' lists them"),
        ("watch 99999999999", "there is no table 99999999999: 'tables' lists them"),
        ("join 2 99", "there is no seat 99 at table 2: it has seats 1 to 3"),  # a table listed
        ("join 2 4", "there is no seat 4 at table 2: it has seats 1 to 3"),  # seats are numbered from 1
        ("join 2 0", "there is no seat 0 at table 2: it has seats 1 to 3"),
        ("join 5 0", "there is no seat 0 at table 5: seats are numbered from 1"),
        ("join 99999999999 1", "there is no table 99999999999: 'tables' lists them"),
    ],
)
def test_join_and_watch_name_tables_and_seats_in_words(line: str, says: str) -> None:
    reply = _listed(welcomed(), {2: 3}).typed(line)
    assert (reply.messages, reply.say, reply.refused) == ((), says, True)
    assert "join." not in reply.say and "outside" not in reply.say


@pytest.mark.parametrize(
    ("line", "listed", "says"),
    [
        ("join 23 9", {23: 3}, "there is no seat 9 at table 23: it has seats 1 to 3"),
        (
            f"join 5 {MAX_SEATS + 1}",
            {2: 3, 5: 4},
            f"there is no seat {MAX_SEATS + 1} at table 5: it has seats 1 to 4",
        ),
        (
            "join 5 99",
            {2: 3},
            "there is no seat 99 at table 5: the server lists no table 5 ('tables' shows its list)",
        ),
    ],
)
def test_a_seat_past_any_tables_at_a_table_not_listed_is_refused_as_the_list_says_its_seats(
    line: str, listed: dict[int, int], says: str
) -> None:
    """'join 23 9' at a table of 3 the client had not listed said "no table has more than 8": true of
    every table, and nothing of this one. No join can ask for the seat: the list is asked for, and
    the refusal says what it says of the table (only that, not the whole list)."""
    session = _listed(welcomed(), {2: 3})
    reply = session.typed(line)
    assert (reply.messages, reply.say, reply.refused) == ((ListTables(),), "", False)
    session.sending(ListTables())
    session.sending(ListTables())  # 'tables' typed next: its list is shown as ever
    answer = session.receive(_tables(listed))
    assert (answer.lines, answer.refused) == ((says,), says)
    assert session.receive(_tables(listed)).refused is None
    if "no table" not in says:  # listed now: refused at once, as the list said
        assert session.typed(line) == Reply(say=says, refused=True)
    assert (
        _listed(welcomed(), {}).typed("join 5 0").say
        == "there is no seat 0 at table 5: seats are numbered from 1"
    )


def test_tables_and_seats_there_may_be_are_sent() -> None:
    session = _listed(welcomed(), {2: 3})
    assert session.typed(f"join {MAX_TABLE}").messages == (Join(MAX_TABLE, None),)
    assert session.typed("join 2 3").messages == (Join(2, 2),)  # seat 3 as people count: index 2
    assert session.typed("join 2 1").messages == (Join(2, 0),)
    assert session.typed(f"join 5 {MAX_SEATS}").messages == (Join(5, MAX_SEATS - 1),)
    assert session.typed("watch 7").messages == (Watch(7),)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("join 2 99", "there is no seat 99 at table 2: it has seats 1 to 3"),
        ("join 99999999999", "there is no table 99999999999: 'tables' lists them"),
        ("watch x", "table must be a number, not 'x'"),
    ],
)
def test_a_watcher_is_told_what_is_wrong_with_the_line(line: str, said: str) -> None:
    """A watcher may go to another table from where it is (it leaves first by itself): what is
    wrong with the line is what it needs to hear, not "'leave' it first"."""
    session = _listed(welcomed(), {2: 3})
    session.receive(Watching(2))
    reply = session.typed(line)
    assert reply.refused and not reply.messages
    assert reply.say.startswith(said)


@pytest.mark.parametrize("line", ["join 5 9", "join 5 1", "join 99999999999", "watch x", "watch 5", "join"])
def test_the_only_watcher_of_bots_alone_is_told_first_that_it_watches(line: str) -> None:
    """A game of bots alone is played for its watchers: going elsewhere would end it, which
    'leave' warns of first, so 'join' and 'watch' do not leave it by themselves."""
    session = _listed(welcomed(), {2: 3, 5: 2})
    session.receive(Watching(2))
    session.receive(State(2, notty_view(seat=None, bots=[0, 1]), ()))
    reply = session.typed(line)
    if reply.messages:  # well formed: the protocol refuses it as it is sent, in the same words
        (message,) = reply.messages
        said = session.why_not(message, ConnectionState.WATCHING)
    else:
        said = reply.say
    assert said == (  # a play-test was not told why, where from other games watched 'join' leaves
        "you are watching table 2, where bots alone play: 'leave' it first (it warns you: the game is"
        " played only while someone watches)"
    )
    assert session.completions("", "w") == [] and session.completions("watch ", "") == []


UNDER_WAY = "the game at table 2 is under way and its seats are taken: you can only watch it"


@pytest.mark.parametrize("line", ["join 2", "join 2 1", "join 2 99"])
def test_joining_the_table_watched_once_its_game_began_says_its_seats_are_taken(line: str) -> None:
    """A play-test: 'join N' while watching N under way said "'leave' it first"; after 'leave',
    'join N' was refused anyway (table N is already playing). Nothing to leave for: said at once."""
    session = _listed(welcomed(), {2: 2})
    session.receive(Watching(2))
    session.receive(State(2, notty_view(seat=None), ()))
    reply = session.typed(line)
    if reply.messages:  # well formed: the protocol refuses it as it is sent, in these words
        (message,) = reply.messages
        said = session.why_not(message, ConnectionState.WATCHING)
    else:
        said = reply.say
    assert said == UNDER_WAY
    assert (
        session.why_not(Join(5, None), ConnectionState.WATCHING)
        == "you are watching table 2: 'leave' it first"
    )
    over = notty_view(seat=None, result={"ranking": [[1], [0]], "reason": "discard", "text": "bob wins"})
    session.receive(State(2, over, ()))
    assert session.why_not(Join(2, None), ConnectionState.WATCHING).startswith("the game at table 2 is over")


def test_joining_the_table_watched_before_its_game_began_leaves_it_then_joins() -> None:
    """A table still waiting for players: leaving, then joining, may find a seat."""
    session = _listed(welcomed(), {2: 2})
    session.receive(Watching(2))
    assert session.typed("join 2").messages == (Leave(), Join(2, None))
    assert session.typed("join 2 2").messages == (Leave(), Join(2, 1))


def test_watching_another_table_leaves_the_one_watched_first() -> None:
    """A play-test: 'watch 3' while watching table 2 was told to leave it first; nothing is lost
    by leaving a game one only watches, so it leaves by itself. 'watch 2' says we do already."""
    session = _listed(welcomed(), {2: 2, 3: 2})
    session.receive(Watching(2))
    assert session.typed("watch 2").messages == (Watch(2),)
    assert session.why_not(Watch(2), ConnectionState.WATCHING) == "you are already watching table 2"
    assert session.typed("watch 3").messages == (Leave(), Watch(3))
    session.receive(State(2, notty_view(seat=None), ()))  # under way, a person plays it
    assert session.typed("watch 3").messages == (Leave(), Watch(3))
    assert session.typed("join 3").messages == (Leave(), Join(3, None))
    assert session.typed("new classic 2 greedy").messages[0] == Leave()
    assert session.completions("", "w") == ["watch"] and session.completions("watch ", "") == ["2", "3"]


@pytest.mark.parametrize("line", ["watch 9", "join 3", "new classic 2 greedy"])
@pytest.mark.parametrize("begun", [True, False])
def test_a_watcher_refused_the_table_it_left_for_watches_its_own_again(line: str, begun: bool) -> None:
    """Noticed in review: 'watch 9' (a mistyped number) from a watched game left it, then was
    refused, and the watcher was in the lobby. It is the game it watched it goes back to."""
    session = _listed(welcomed(), {2: 2, 3: 2})
    session.receive(Watching(2))
    if begun:
        session.receive(State(2, notty_view(seat=None), ()))
    reply = session.typed(line)
    assert reply.messages[0] == Leave()
    for message in reply.messages:
        session.sending(message)
    session.typed("help")  # typed while the answer is on its way (a review): the switch is kept
    session.receive(Left(2))
    refused = session.receive(Error("no-such-table", "no table 9", None))
    assert refused.lines[0].startswith("refused: no table 9")
    assert refused.send == (Watch(2),) and session.rewatching == 2
    session.sending(Watch(2))
    assert session.receive(Watching(2)).lines == ("you are watching table 2 again",)
    assert session.table == 2 and session.rewatching is None


def test_a_watcher_whose_switch_succeeds_or_who_left_by_hand_is_not_sent_back() -> None:
    session = _listed(welcomed(), {2: 2, 3: 2})
    session.receive(Watching(2))
    session.receive(State(2, notty_view(seat=None), ()))
    session.typed("watch 3")
    session.receive(Left(2))
    session.receive(Watching(3))
    assert session.receive(Error("no-such-table", "no table 9", None)).send == ()  # a later refusal
    session.typed("leave")
    session.receive(Left(3))
    session.typed("watch 9")  # from the lobby: nothing to go back to
    assert session.receive(Error("no-such-table", "no table 9", None)).send == ()
    over = notty_view(seat=None, result={"ranking": [[1], [0]], "reason": "discard", "text": "bob wins"})
    session.receive(Watching(2))
    session.receive(State(2, over, ()))
    assert session.typed("watch 9").messages == (Leave(), Watch(9))
    session.receive(Left(2))  # a game over is not watched again
    assert session.receive(Error("no-such-table", "no table 9", None)).send == ()


def test_a_script_watching_a_game_under_way_is_told_at_once_it_cannot_join_it(
    server_port: int, tmp_path: Path
) -> None:
    kit = _script(tmp_path, server_port, "new classic 2 greedy\n", name="kit")  # a game under way, kept
    table = re.search(r"you sit at table (\d+), seat 1", kit.stdout)
    assert kit.returncode == 0 and table, kit.stdout
    number = table.group(1)
    # 'tables' is answered after the view that follows 'watching': the client has seen the game begun.
    ran = _script(tmp_path, server_port, f"watch {number}\ntables\njoin {number}\ntables\n")
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    under_way = f"the game at table {number} is under way and its seats are taken: you can only watch it"
    assert (
        ran.stderr
        == f"notty-client: the client refused line 3 of the script ('join {number}'): {under_way}\n"
    )


@pytest.mark.parametrize("line", ["join 2 99", "join 99999999999", "watch 0", "join 2 x"])
def test_a_player_is_told_first_that_it_has_a_seat(line: str) -> None:
    session = _listed(welcomed(), {2: 3})
    session.receive(Seated(4, 0, TOKEN))
    assert session.typed(line).say == "you are already at table 4: 'leave' it first"


# -- 4. auto out of turn ------------------------------------------------------------------------------


def test_auto_out_of_turn_is_refused_naming_auto() -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    seated = ann.send(notty_table("classic", 2))[0]
    assert isinstance(seated, Seated)
    bob.send(Join(seated.table))
    waiting = bob if ann.view["current"] == 0 else ann
    (refusal,) = waiting.send(PlayForMe())
    assert isinstance(refusal, Error) and refusal.code == "not-your-turn"
    assert refusal.message == "'auto' plays the rest of your own turn: it is not your turn"


# -- 5. rules VARIANT ---------------------------------------------------------------------------------


def test_rules_of_a_variant_are_its_games_for_that_variant() -> None:
    session = welcomed(NOTTY, OCHOS, PARLOUR)
    reply = session.typed("rules five-colour")
    assert (reply.refused, reply.say) == (False, rules_text("five-colour"))
    assert reply.say.startswith("Notty (five-colour):")
    assert session.typed("rules Part2").say.startswith("Ochos Locos (part2):")
    assert session.typed("rules duel").say == session.typed("rules parlour").say  # a game with no UI here
    assert session.typed("rules five-color").say == "no game 'five-color' here; did you mean 'five-colour'?"


def test_rules_of_a_variant_at_a_table_of_another_game_are_still_that_variants() -> None:
    session = welcomed(NOTTY, OCHOS)
    session.receive(Seated(3, 0, TOKEN))
    session.receive(State(3, notty_view(variant="classic"), ()))
    assert session.typed("rules five-colour").say == rules_text("five-colour")
    assert session.typed("rules part1").say.startswith("Ochos Locos (part1):")


# -- 6. a script's line the client cannot carry out stops it --------------------------------------------

NOT_AT_A_TABLE = "you are not at a table: 'new' makes one, 'join TABLE' takes a seat"
GAME_OVER = "the game is over: 'leave' returns to the lobby"
RESIGNED = "you resigned: a bot plays your seat to the end ('leave' returns to the lobby)"


def _script(
    tmp_path: Path, port: int, script: str, name: str = "pip", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``notty-client`` fed ``script`` from a pipe, run to its end (or 30 s: a hang fails the test)."""
    return subprocess.run(
        [str(BIN / "notty-client"), f"127.0.0.1:{port}", "--name", name],
        input=script,
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), **(env or {})},
        timeout=30,
    )


def test_output_the_terminal_cannot_encode_is_spelled_in_ascii_not_a_traceback(
    server_port: int, tmp_path: Path
) -> None:
    """Output in ASCII (a Latin-1 or ASCII terminal, or ``PYTHONIOENCODING`` saying so) ended the
    client with a UnicodeEncodeError at the first table line's '·', the game left behind."""
    ascii_only = {"PYTHONIOENCODING": "ascii"}
    ran = _script(tmp_path, server_port, "new classic 2 greedy\nresign yes\n", env=ascii_only)
    assert ran.returncode == 0, (ran.stdout, ran.stderr)
    assert re.search(r"^table \d+ - classic - turn \d+ of 300 - deck \d+ cards$", ran.stdout, re.MULTILINE)
    assert "you lost after" in ran.stdout and ran.stderr == ""


def _piped_client(port: int, tmp_path: Path, name: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(BIN / "notty-client"), f"127.0.0.1:{port}", "--name", name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
    )


@pytest.mark.parametrize("name", ["pip", "Zoë"], ids=["connected", "name-folded"])
def test_a_reader_gone_before_the_first_line_ends_the_client_quietly(
    server_port: int, tmp_path: Path, name: str
) -> None:
    """``notty-client ... | true``: the client ended with a BrokenPipeError's traceback; and the first
    line (for a name folded, 'playing as ...') was said where nothing caught it."""
    with _piped_client(server_port, tmp_path, name) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader has gone: every write fails
        process.stdin.write("tables\n" * 5)
        process.stdin.close()
        assert (process.wait(timeout=30), process.stderr.read()) == (0, "")


def test_a_reader_that_stops_reading_mid_game_ends_the_client_saying_where_the_seat_is_kept(
    server_port: int, tmp_path: Path
) -> None:
    """``notty-client ... | head``: as on quit, the seat is kept, and stderr still says how to take
    it back."""
    with _piped_client(server_port, tmp_path, "pip") as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write("new classic 2 greedy\n")
        process.stdin.flush()
        table = None
        while table is None:  # up to the game's first table: the game is under way, the seat kept
            table = re.match(r"table (\d+) · classic · turn", process.stdout.readline())
        process.stdout.close()  # the reader has seen enough: every write from now on fails
        process.stdin.write("table\n" * 50)
        process.stdin.close()
        status, said = process.wait(timeout=30), process.stderr.read()
    assert status == 0
    assert said.startswith(f"your seat at table {table.group(1)} is kept; to take it back, run:\n"), said


def test_output_that_cannot_be_written_ends_the_client_in_one_line(server_port: int, tmp_path: Path) -> None:
    """stdout on a full disk ended the client with an OSError's traceback."""
    with open("/dev/full", "w") as full:
        ran = subprocess.run(
            [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "pip"],
            input="new classic 2 greedy\n",
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
            timeout=30,
        )
    assert (ran.returncode, ran.stderr) == (
        1,
        "notty-client: could not write its output (No space left on device): it stopped\n",
    )


def test_input_that_cannot_be_read_ends_the_client_as_the_end_of_a_script(
    server_port: int, tmp_path: Path
) -> None:
    """``nohup`` gives a program at a terminal a write-only stdin: reading it ended the client with
    an OSError's traceback."""
    command = f"exec {BIN / 'notty-client'} 127.0.0.1:{server_port} --name pip 0>/dev/null"
    ran = subprocess.run(
        ["sh", "-c", command],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        timeout=30,
    )
    assert (ran.returncode, ran.stderr) == (0, ""), ran.stdout
    assert ran.stdout.startswith("connected to notty\n")


def test_input_that_fails_part_of_the_way_stops_the_client_saying_so(
    server_port: int, tmp_path: Path
) -> None:
    """Any error reading stdin was taken as its end: a script cut short would stop with status 0,
    the rest of it never run and nothing said. (Here stdin is a connection its far end resets.)"""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        near = socket.create_connection(listener.getsockname())
        far, _ = listener.accept()
    with near, far:
        far.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        far.close()  # at once, with a reset: the next read of the near end fails
        ran = subprocess.run(
            [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "pip"],
            stdin=near.fileno(),
            capture_output=True,
            text=True,
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
            timeout=30,
        )
    why = "could not read its input (Connection reset by peer): it stopped there"
    assert (ran.returncode, ran.stderr) == (1, f"notty-client: {why}\n")


def test_a_script_line_too_long_for_any_command_is_named_on_stderr_by_its_start(
    server_port: int, tmp_path: Path
) -> None:
    """A play-test piped a line of 200,000 characters: stderr named the line whole. It is cut as the
    full screen's log cuts it (client.commands.echoed)."""
    ran = _script(tmp_path, server_port, "x" * 200_000 + "\ntables\n")
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    why = "that line has 200,000 characters; no command has more than 500"
    start = repr("x" * 60)
    assert (
        ran.stderr
        == f"notty-client: the client refused line 1 of the script ({start}… (200,000 characters)): {why}\n"
    )
    assert "x" * 61 not in ran.stdout


@pytest.mark.parametrize("encoding", [None, "utf-8:strict"])
def test_a_script_line_not_valid_utf8_is_refused_in_words(
    server_port: int, tmp_path: Path, encoding: str | None
) -> None:
    """Bytes that are not UTF-8 were refused as "unknown command '\\udcff\\udcfe'", Python's escapes for
    them; where stdin's errors are strict (a UTF-8 locale other than C.UTF-8), the client ended with a
    traceback. The line is refused as not UTF-8, and named on stderr by its bytes."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    if encoding is not None:
        env["PYTHONIOENCODING"] = encoding
    for script, shown in [(b"\xff\xfe\ntables\n", r"b'\xff\xfe'"), (b"play \xe9\n", r"b'play \xe9'")]:
        ran = subprocess.run(
            [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "pip"],
            input=script,
            capture_output=True,
            env=env,
            timeout=30,
        )
        out, err = ran.stdout.decode(), ran.stderr.decode()
        assert ran.returncode == 1, (out, err)
        assert "that line is not valid UTF-8 text" in out and "udc" not in out + err
        assert err == f"notty-client: the client refused line 1 of the script ({shown}): {NOT_UTF8}\n"
        assert "no tables now" not in out  # the script stopped there


def test_a_line_not_valid_utf8_is_refused_before_any_word_of_it_is_read() -> None:
    """Read from bytes with surrogate escapes; 'play \\udce9' was a card the game did not know, in escapes."""
    for line in ["\udcff\udcfe", "play \udce9", "tables \udcff"]:
        reply = welcomed().typed(line)
        assert (reply.messages, reply.say, reply.refused) == ((), NOT_UTF8, True)
    assert quoted_line("play \udce9") == r"b'play \xe9'" and quoted_line("draw 1") == "'draw 1'"
    assert quoted_line("\u00e9" * 501) == repr("\u00e9" * 60) + "… (501 characters)"
    assert welcomed().typed("tables").messages  # text is text, accents and all: 'join' refuses its own


def test_a_script_asking_help_on_a_word_is_answered_and_goes_on(server_port: int, tmp_path: Path) -> None:
    """A play-test: 'help new' was refused, stopping the script, exit 1; an unknown word is no refusal."""
    ran = _script(tmp_path, server_port, "help\nhelp new\nhelp play\nhelp huxxy\nhelp nonsense\ntables\n")
    assert ran.returncode == 0 and ran.stderr == "", (ran.stdout, ran.stderr)
    assert "  play CARD... [to GROUP]" in ran.stdout and "huxxy:\n  new huxxy" in ran.stdout
    assert "no help on 'nonsense'" in ran.stdout and "no tables now" in ran.stdout  # the last line ran


def test_a_script_joining_a_seat_past_any_tables_is_refused_with_that_tables_seats(
    server_port: int, tmp_path: Path
) -> None:
    """A play-test: 'join 23 9' at a table of 3 seats said "no table has more than 8". The client,
    which had listed no table, asks for the list and says what it says of that table; a script stops
    there, as at any refusal."""
    ann, _ = _line_mode(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann")
    ann.expect("connected to")
    ann.sendline("new classic 3")
    ann.expect(r"you sit at table (\d+), seat 1")
    table = ann.match.group(1)
    ran = _script(tmp_path, server_port, f"join {table} 9\ntables\n", name="bob")
    says = f"there is no seat 9 at table {table}: it has seats 1 to 3"
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    assert says in ran.stdout and "no table has more than" not in ran.stdout
    assert ran.stderr == f"notty-client: the client refused line 1 of the script ('join {table} 9'): {says}\n"
    assert "ann" not in ran.stdout  # the list asked for says why, and is not shown; the next line is not run
    ann.sendline("quit")
    assert _status(ann) == 0


@pytest.mark.parametrize("line", ["draw 1", "auto", "leave", "hint"])
def test_a_script_line_with_no_table_to_act_at_is_refused_and_stops_the_script(
    server_port: int, tmp_path: Path, line: str
) -> None:
    """A game action waited an hour for a turn that never comes; ``leave`` or ``hint`` was refused in
    words, and the script went on and exited 0."""
    ran = _script(tmp_path, server_port, f"{line}\ntables\n")
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    assert NOT_AT_A_TABLE in ran.stdout
    assert (
        ran.stderr == f"notty-client: the client refused line 1 of the script ({line!r}): {NOT_AT_A_TABLE}\n"
    )
    assert "no tables now" not in ran.stdout  # the line after it was not acted on


def test_a_scripted_move_by_a_spectator_is_refused_at_once(server_port: int, tmp_path: Path) -> None:
    kit = _script(tmp_path, server_port, "new classic 2 greedy\n", name="kit")  # a game under way, kept
    table = re.search(r"you sit at table (\d+), seat 1", kit.stdout)
    assert kit.returncode == 0 and table, kit.stdout
    ran = _script(tmp_path, server_port, f"watch {table.group(1)}\ndraw 1\ntables\n")
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    watching = "you are only watching: 'join TABLE' takes a seat at another table, 'new' makes one"
    assert ran.stderr == f"notty-client: the client refused line 2 of the script ('draw 1'): {watching}\n"
    assert f"table {table.group(1)}:" not in ran.stdout  # 'tables' was not acted on


def test_a_scripted_move_after_the_game_is_over_is_refused_naming_its_line(
    server_port: int, tmp_path: Path
) -> None:
    """The move was skipped without a word, and the next line (a hint) was blamed instead; or, the
    game's end heard after the resignation's answer, the server refused it as made after resigning."""
    ran = _script(tmp_path, server_port, "new classic 2 greedy\nresign yes\ndraw 1\nhint\n")
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    assert "you lost after 1 turn" in ran.stdout  # the game ended with the resignation
    assert GAME_OVER in ran.stdout
    assert ran.stderr == f"notty-client: the client refused line 3 of the script ('draw 1'): {GAME_OVER}\n"
    assert "hint:" not in ran.stdout and "pip draws" not in ran.stdout


async def test_a_scripted_move_after_resigning_a_game_that_goes_on_is_refused_at_once() -> None:
    """Three seats, two people: a bot plays the seat of the one who resigned, whose turn never comes
    again. A script's move then waited for it (an hour), or reached the server at a turn of ours
    shown before the resignation."""
    session = welcomed()
    session.receive(Seated(3, 0, TOKEN))
    three = notty_view(
        names=["ann", "bob", "cy"], current=0, legal=["draw 1"], body={"hands": [["R1"], ["Y5"], ["B2"]]}
    )
    session.receive(State(3, three, ()))
    assert session.my_turn()  # as the last view before the resignation showed it
    session.receive(Notice(3, 0, "ann", "resigned", "ann resigned: a bot plays their seat to the end"))

    class Stub:
        received, refused = 0, None

        def __init__(self) -> None:
            self.session = session
            self.sent: list[Message] = []

        async def send(self, message: Message) -> None:
            self.sent.append(message)

        async def wait_for(self, ready: Any, timeout: float) -> bool:
            return bool(ready())

    stub = Stub()
    unsent = await _carry_out(
        stub, Reply((Act("draw 1"),), action=True), Terminal(False, False), answered=True
    )  # type: ignore[arg-type]
    assert (unsent, stub.sent) == (RESIGNED, [])


def test_a_line_readline_cannot_read_back_does_not_crash_what_is_printed_above_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """readline raises ValueError for a line holding a NUL, as it did, racing the input thread, while
    lines were pasted fast: printing news above the prompt crashed the client with a traceback."""
    import readline

    def unreadable() -> str:
        raise ValueError("embedded null byte")

    monkeypatch.setattr(readline, "get_line_buffer", unreadable)
    terminal = Terminal(True, False)
    terminal.prompt_drawn = True
    terminal.show("bob draws 1 card: R3")
    shown = capsys.readouterr().out
    assert "bob draws 1 card: R3\n" + terminal.prompt in shown
