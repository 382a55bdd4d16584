"""The client keeps to the rates the server holds it to (docs/SERVER.md, Limits), so a person who
types ahead or pastes many lines is never refused for them, nor cut off: a play-tester pasted 80
lines of 'end' in line mode, got 9 refusals over the rate, then goodbye, and the client ended.

Lines typed faster than the server takes them wait their turn, in order, in a bounded queue; one
typed while it is full is dropped, and the person is told. The end-to-end tests drive the real
``notty-client`` in a pty against a real ``notty-server`` on 127.0.0.1, with its default limits or
lower ones of its own, which its welcome says (protocol version 8).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import trio
from conftest import ServerProcess
from test_client_exit import _line_mode, _status
from test_screen import Person

from client.app import Client, _drop_typed_ahead
from client.pace import DEFAULT_SERVER_LIMITS, Pace
from client.session import Session
from client.sgr import plain
from client.terminal import (
    ALSO_NOT_SENT,
    DROPPED_NAMED,
    LINES_HELD,
    NOT_SENT_HELD,
    QUIT_AHEAD,
    Terminal,
    queue_typed,
)
from protocol import PROTOCOL_VERSION, Act, AskHint, Bye, Ping, Welcome
from server.limits import DEFAULT_LIMITS, Limits, announced

BIN = Path(sys.executable).parent

#: Lines pasted at once: more than twice the server's burst.
PASTED = 100
#: Tables no server of a test has: each 'watch' is refused by the server, naming its number.
FIRST = 9001


def _watches(count: int = PASTED) -> str:
    return "".join(f"watch {FIRST + number}\r" for number in range(count))


def _refused_tables(text: str) -> list[int]:
    return [int(number) for number in re.findall(r"there is no table (\d+)", plain(text))]


def _all_carried_out(bob: pexpect.spawn, transcript: io.StringIO, pasted: int, timeout: float) -> None:
    """Paste ``pasted`` watches into ``bob``'s line mode: each is refused by the server once, in order,
    none over the rate, and ``bob`` stays connected to answer the next line, then quits."""
    bob.expect("no tables now")
    bob.send(_watches(pasted))
    bob.expect(f"there is no table {FIRST + pasted - 1}", timeout=timeout)
    bob.sendline("new classic 2 greedy")  # still connected: the next line is answered
    bob.expect(r"you sit at table \d+, seat 1")
    bob.sendline("quit")
    assert _status(bob) == 0
    said = transcript.getvalue()
    assert "rate-limit" not in said and "too many messages" not in said, said
    assert "ended the connection" not in said, said
    assert _refused_tables(said) == list(range(FIRST, FIRST + pasted))  # each once, in order


def test_pasted_lines_in_line_mode_are_all_carried_out_in_order_and_the_client_stays(
    server_port: int, tmp_path: Path
) -> None:
    bob, transcript = _line_mode(tmp_path, f"127.0.0.1:{server_port}", "--name", "bob")
    _all_carried_out(bob, transcript, PASTED, timeout=30)


def test_pasted_lines_on_the_full_screen_are_all_carried_out_and_the_client_stays(
    server_port: int, tmp_path: Path
) -> None:
    bob = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "bob")
    bob.see("no tables now")
    bob.type(_watches())
    bob.see(f"there is no table {FIRST + PASTED - 1}", timeout=30)
    bob.enter("new classic 2 greedy")
    bob.see(r"you sit at table \d+, seat 1")
    bob.enter("quit")
    assert bob.finish() == 0
    assert "rate-limit" not in bob.output and "ended the connection" not in bob.output


def _huxxy_turn(tmp_path: Path, port: int) -> tuple[pexpect.spawn, io.StringIO, list[str]]:
    """bob in line mode at a huxxy table against ``greedy``, at his turn: and his hand."""
    bob, transcript = _line_mode(tmp_path, f"127.0.0.1:{port}", "--name", "bob")
    bob.expect("connected to")
    bob.sendline("new huxxy 2 greedy")
    bob.expect(r"your hand: ([^\r\n]*)\r\n(?:[^\r\n]*\r\n)*?[^\r\n]*your turn", timeout=60)
    hand = plain(bob.match.group(1)).split()
    bob.expect("notty> ")
    return bob, transcript, list(dict.fromkeys(hand))  # each card once: two packs may deal one twice


def test_pasted_lines_are_each_checked_against_the_table_the_line_before_left(
    server_port: int, tmp_path: Path
) -> None:
    """A play-tester pasted a hint's commands after plays of his own ('undo', 'undo', 'undo', then the
    hint's play): each line was checked against the table as it was before the lines above it took
    effect, so the undos were refused and the play with them ("nothing has been played this turn")."""
    bob, transcript, hand = _huxxy_turn(tmp_path, server_port)
    start = len(transcript.getvalue())
    bob.send(f"play {hand[0]}\rundo\rplay {hand[1]}\rundo\r")
    coloured = rf"(?:\x1b\[[0-9;]*m)?{hand[1]}(?:\x1b\[[0-9;]*m)?"  # a red card is drawn in red
    bob.expect(f"you undo a play: {coloured} goes back", timeout=20)  # the last line, carried out
    bob.expect("plays this turn", timeout=20)  # the table after it (it may come in a later read)
    said = plain(transcript.getvalue()[start:])
    assert (
        said.count("you undo a play") == 2 and "plays this turn 0/6" in said.split(hand[1] + " goes back")[1]
    )
    assert "nothing has been played" not in said and "refused" not in said, said
    bob.sendline("quit")
    bob.expect(pexpect.EOF)


def test_the_lines_pasted_after_a_refused_one_are_not_carried_out(server_port: int, tmp_path: Path) -> None:
    """The play-tester's paste of 'play 9C', 'move 7S 8H from 1 to 4', 'play 6D to 4': the middle line
    was refused and the last still made, a play he never meant. The lines pasted after a refusal may
    count on it: they are dropped, named to be typed again."""
    bob, transcript, hand = _huxxy_turn(tmp_path, server_port)
    start = len(transcript.getvalue())
    bob.send(f"undo\rplay {hand[0]}\rplay {hand[1]}\r")  # nothing to undo: refused
    bob.expect("nothing has been played this turn")
    bob.expect(
        f"the 2 lines typed after it were not carried out, since they may count on it: "
        f"play {hand[0]}; play {hand[1]}"
    )
    bob.sendline("table")
    bob.expect("your turn")
    assert "you play" not in plain(transcript.getvalue()[start:])
    bob.send(f"undo\rplay {hand[0]}\rquit\r")  # a quit among them is carried out still
    bob.expect("the line typed after it was not carried out")
    bob.expect(pexpect.EOF)
    assert "you play" not in plain(transcript.getvalue()[start:])


def test_hints_typed_again_and_again_stop_no_line_typed_after_them(server_port: int, tmp_path: Path) -> None:
    """A 'hint' typed while one is on its way is refused ("a hint is on its way"): it stopped the lines
    typed after it as if they counted on it, the next 'hint' among them ("the line typed after it was
    not carried out, since it may count on the line refused: hint"). A hint changes nothing, so
    nothing typed after one can count on it: no line is stopped, a move included."""
    bob, transcript, hand = _huxxy_turn(tmp_path, server_port)
    start = len(transcript.getvalue())
    bob.send(f"hint\rhint\rhint\rhint\rplay {hand[0]}\r")
    bob.expect("a hint is on its way: wait for it")
    coloured = rf"(?:\x1b\[[0-9;]*m)?{hand[0]}(?:\x1b\[[0-9;]*m)?"  # a red card is drawn in red
    bob.expect(f"you play {coloured} to a new group", timeout=20)  # the last line, carried out
    said = plain(transcript.getvalue()[start:])
    assert "not carried out" not in said, said
    bob.sendline("quit")
    bob.expect(pexpect.EOF)


#: A play of ours, as line mode says it (the rules say "while you play" too).
MOVE_MADE = re.compile(r"^\s*you play ", re.M)


def test_the_lines_after_a_refused_one_that_change_nothing_are_carried_out_still(
    server_port: int, tmp_path: Path
) -> None:
    """Of the lines pasted after a refused one, a move may count on it and is not carried out; a 'hint',
    'help', 'rules' or 'table' counts on nothing, and is: each in its turn."""
    bob, transcript, hand = _huxxy_turn(tmp_path, server_port)
    start = len(transcript.getvalue())
    bob.send(f"undo\rhint\rplay {hand[0]}\rhelp\rplay {hand[1]}\r")  # nothing to undo: refused
    bob.expect("nothing has been played this turn")
    bob.expect(
        "2 lines typed after it were not carried out, since they may count on it: "
        f"play {hand[0]}; play {hand[1]}"
    )
    answered = {bob.expect([r"commands:\r\n", "hint: "], timeout=20) for _ in range(2)}  # in either order
    assert answered == {0, 1}  # 'help' carried out, and 'hint' answered
    bob.sendline("table")
    bob.expect("your turn")
    said = plain(transcript.getvalue()[start:])
    assert not MOVE_MADE.search(said) and "the 2 lines" not in said, (
        said
    )  # not "the" lines: two were carried out
    bob.send(f"undo\rplay {hand[0]}\rrules\r")  # one of each: its own wording
    bob.expect(
        f"1 line typed after it was not carried out, since it may count on the line refused: play {hand[0]}"
    )
    bob.expect("place every card of your hidden hand")  # the rules
    bob.sendline("quit")
    bob.expect(pexpect.EOF)
    assert not MOVE_MADE.search(plain(transcript.getvalue()[start:]))


def _huxxy_turn_on_screen(tmp_path: Path, port: int) -> tuple[Person, list[str]]:
    """bob on the full screen at a huxxy table against ``greedy``, at his turn: and his hand."""
    bob = Person(tmp_path, f"127.0.0.1:{port}", "--name", "bob")
    bob.see("connected to")
    bob.enter("new huxxy 2 greedy")
    hand = bob.see(r"your hand: ([^\n]*)", timeout=60).group(1).split()
    bob.see(r"your turn\s*$", timeout=30)
    return bob, list(dict.fromkeys(hand))  # each card once: two packs may deal one twice


def test_the_lines_pasted_after_a_move_the_server_refuses_are_none_of_them_carried_out(
    server_port: int, tmp_path: Path
) -> None:
    """A review's probe: after 'end' refused by the server (the table invalid), a line read from the
    terminal but not yet queued as the refusal came was carried out after the rest were dropped."""
    bob, transcript, hand = _huxxy_turn(tmp_path, server_port)
    start = len(transcript.getvalue())
    junk = "".join(f"play Z{number:02}\r" for number in range(20))  # each would be refused: not a card
    bob.send(f"play {hand[0]}\rend\r{junk}")
    bob.expect("the 20 lines typed after it were not carried out")
    bob.sendline("table")
    bob.expect("your turn")
    said = plain(transcript.getvalue()[start:])
    assert "is not a card" not in said, said
    bob.sendline("quit")
    bob.expect(pexpect.EOF)


def test_on_the_full_screen_pasted_lines_are_each_checked_against_the_table_the_line_before_left(
    server_port: int, tmp_path: Path
) -> None:
    """Where the play-tester met it first: the full screen queues a paste's lines at once."""
    bob, hand = _huxxy_turn_on_screen(tmp_path, server_port)
    bob.type(f"play {hand[0]}\rplay {hand[1]}\rundo\rundo\rplay {hand[2]} {hand[3]}\r")
    bob.see(rf"you play {hand[2]} to a new group \d+\s+you play {hand[3]} to group \d+")
    assert "nothing has been played" not in bob.output and "not carried out" not in bob.output
    bob.enter("quit")
    assert bob.finish() == 0


def test_on_the_full_screen_too_the_lines_pasted_after_a_refused_one_are_not_carried_out(
    server_port: int, tmp_path: Path
) -> None:
    bob, hand = _huxxy_turn_on_screen(tmp_path, server_port)
    bob.type(f"play {hand[0]}\rundo\rundo\rplay {hand[1]}\rplay {hand[2]}\r")  # the second undo: refused
    bob.see("nothing has been played this turn")
    bob.see(
        "the 2 lines typed after it were not carried out, since they may count on it: "
        f"play {hand[1]}; play {hand[2]}"
    )
    assert f"you play {hand[1]}" not in bob.output
    bob.enter("quit")
    assert bob.finish() == 0


#: A server's own limits, far below the defaults: four messages a second, four at once.
LOW_LIMITS = ("--rate", "4", "--burst", "4")
#: Lines pasted to it: ten seconds' worth at its rate, where the defaults would send twenty at once.
SLOW_PASTE = 40


def test_a_paste_to_a_server_of_lower_limits_keeps_to_its_own_and_is_never_refused(
    servers: list[ServerProcess], tmp_path: Path
) -> None:
    """The welcome says a server's own limits, and the client keeps to them. Paced to the defaults
    (half a burst of 40 at once, then 20 a second), a paste to a server started with a lower
    ``--rate`` and ``--burst`` was refused over the rate, and the tenth refusal in a row dropped it."""
    servers.append(server := ServerProcess(tmp_path / "notty.db", *LOW_LIMITS))
    bob, transcript = _line_mode(tmp_path, f"127.0.0.1:{server.port}", "--name", "bob")
    _all_carried_out(bob, transcript, SLOW_PASTE, timeout=60)


def test_a_script_to_a_server_of_a_burst_of_one_is_never_refused(
    servers: list[ServerProcess], tmp_path: Path
) -> None:
    """A play-test's server with ``--burst 1``: the hello took all it had, and the script's first line,
    sent at once by the defaults' reckoning, was refused ('the server refused line 1 of the script')."""
    servers.append(server := ServerProcess(tmp_path / "notty.db", "--rate", "1", "--burst", "1"))
    ran = subprocess.run(
        [str(BIN / "notty-client"), f"127.0.0.1:{server.port}", "--name", "bob"],
        input="tables\ntables\n",
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        timeout=30,
    )
    assert (ran.returncode, ran.stderr) == (0, ""), ran.stdout
    assert ran.stdout.count("no tables now") == 2


def test_the_hello_is_spent_on_the_servers_terms_once_its_welcome_says_them() -> None:
    pace = Pace()
    pace.connecting()
    assert pace.wait(Ping(1), 30, 0.0) == 0.0  # the hello, as far as the pace is concerned
    pace.follow({**LOW, "rate_per_1000s": 1000, "burst": 1}, 0.0)
    assert pace.wait(Act("end"), 20, 0.0) == 1.0  # the server's one was the hello's: a second to wait
    assert pace.wait(Act("end"), 20, 1.0) == 0.0
    pace.follow(LOW, 5.0)  # a welcome not after a new connection's hello: nothing charged again
    assert pace.messages.available(5.0) == 1.0  # what was in hand (all a burst of 1 holds)


def test_the_pace_spends_half_a_burst_at_once_then_keeps_to_the_rate() -> None:
    pace = Pace(announced(Limits(rate=20.0, burst=40, hint_rate=0.5, hint_burst=3)))
    assert [pace.wait(Act("end"), 20, 0.0) for _ in range(20)] == [0.0] * 20
    assert pace.wait(Act("end"), 20, 0.0) == 1 / 20  # the next waits for the rate to grow one back
    assert pace.wait(Act("end"), 20, 1 / 20) == 0.0
    assert pace.wait(Ping(1), 20, 1 / 20) > 0  # every message counts, the heartbeat's too
    assert pace.wait(Act("end" * 130), 1100, 2.0) == 0.0  # a body of 1 KiB begun costs two:
    assert pace.messages.available(2.0) == 20 - 2  # (two seconds later the bucket was full again)
    assert pace.wait(Bye(), 10, 2.0) == 0.0 and pace.messages.available(2.0) == 18  # bye: never held
    # A hint costs one of the hint allowance besides: two at once, then one every two seconds.
    assert [pace.wait(AskHint(), 10, 3.0) for _ in range(2)] == [0.0, 0.0]
    assert pace.wait(AskHint(), 10, 3.0) == 2.0
    assert pace.wait(AskHint(), 10, 5.0) == 0.0


def test_until_a_welcome_the_pace_keeps_to_a_servers_defaults() -> None:
    assert announced(DEFAULT_LIMITS) == DEFAULT_SERVER_LIMITS  # the client needs no server to know them
    pace = Pace()
    assert (pace.messages.rate, pace.messages.burst) == (DEFAULT_LIMITS.rate, DEFAULT_LIMITS.burst // 2)
    assert (pace.hints.rate, pace.hints.burst) == (DEFAULT_LIMITS.hint_rate, DEFAULT_LIMITS.hint_burst - 1)


#: What a server started with ``--rate 4 --burst 4 --hint-rate 0.2 --hint-burst 2`` says of it.
LOW = {"rate_per_1000s": 4000, "burst": 4, "hint_rate_per_1000s": 200, "hint_burst": 2}


def test_the_pace_follows_the_limits_a_welcome_says() -> None:
    """Half a burst at once, then the rate: the server's own, from its welcome, not the defaults."""
    pace = Pace()
    assert [pace.wait(Act("end"), 20, 0.0) for _ in range(5)] == [0.0] * 5  # 5 of the defaults' 20
    pace.follow(LOW, 0.0)
    assert (pace.messages.rate, pace.messages.burst) == (4.0, 2)
    assert (pace.hints.rate, pace.hints.burst) == (0.2, 1)
    assert [pace.wait(Act("end"), 20, 0.0) for _ in range(2)] == [0.0, 0.0]  # half its burst of 4
    assert pace.wait(Act("end"), 20, 0.0) == 1 / 4  # then four a second, where the defaults said 20
    assert pace.wait(Act("end"), 20, 1 / 4) == 0.0
    assert pace.wait(Act("end" * 130), 1100, 10.0) == 0.0  # a body of 1 KiB begun: two, all it holds
    assert pace.wait(Act("end"), 20, 10.0) == 1 / 4
    assert pace.wait(AskHint(), 10, 20.0) == 0.0  # one hint at once (its burst of 2, less one)
    assert pace.wait(AskHint(), 10, 20.0) == 5.0  # then one every five seconds
    assert pace.wait(AskHint(), 10, 25.0) == 0.0
    assert pace.wait(Bye(), 10, 25.0) == 0.0  # a bye still goes at once


def test_what_was_spent_stays_spent_when_the_next_welcome_says_more() -> None:
    """A reconnection's welcome gives the pace new numbers, not a new allowance: the server's for an
    address outlasts a connection."""
    pace = Pace(LOW)
    assert [pace.wait(Act("end"), 20, 0.0) for _ in range(2)] == [0.0, 0.0]
    pace.follow(announced(Limits(rate=100.0, burst=1000, hint_rate=1.0, hint_burst=10)), 0.0)
    assert (pace.messages.rate, pace.messages.burst, pace.messages.available(0.0)) == (100.0, 500, 0.0)
    assert pace.wait(Act("end"), 20, 0.0) == 1 / 100
    assert pace.messages.available(1.0) == 100.0  # and it grows back at the new rate, to the new burst
    assert (pace.hints.rate, pace.hints.burst, pace.hints.available(0.0)) == (1.0, 9, 1.0)


async def test_the_client_paces_itself_to_each_welcome_it_gets() -> None:
    client = Client(Terminal(interactive=False, colour=False), Session("ann"))
    assert client.pace.messages.rate == DEFAULT_LIMITS.rate  # before any welcome
    client.on_message(Welcome(PROTOCOL_VERSION, "low", limits=LOW))
    assert (client.pace.messages.rate, client.pace.messages.burst) == (4.0, 2)
    assert (client.pace.hints.rate, client.pace.hints.burst) == (0.2, 1)
    client.on_message(Welcome(PROTOCOL_VERSION, "back", limits=DEFAULT_SERVER_LIMITS))  # reconnected
    assert (client.pace.messages.rate, client.pace.messages.burst) == (20.0, 20)


def _heard() -> tuple[Terminal, list[str]]:
    """A person's line-mode terminal, and what it is told to show (in order)."""
    said: list[str] = []
    terminal = Terminal(interactive=True, colour=False)
    terminal.show = said.append  # type: ignore[method-assign]
    return terminal, said


async def test_a_line_typed_while_the_queue_is_full_is_dropped_and_said_once_a_run() -> None:
    terminal, said = _heard()
    send, receive = trio.open_memory_channel[str | None](2)
    for line in ("draw 1", "end", "hint", "end "):
        queue_typed(send, line, terminal)
    assert [receive.receive_nowait(), receive.receive_nowait()] == ["draw 1", "end"]  # in order
    assert said == [NOT_SENT_HELD.format(held=LINES_HELD, line="hint")]  # the first dropped, not each
    queue_typed(send, "table", terminal)  # room again: queued, and a later drop is said again
    queue_typed(send, "tables", terminal)
    queue_typed(send, "help", terminal)
    assert [receive.receive_nowait(), receive.receive_nowait()] == ["table", "tables"]
    # the rest of the run, said before the next run's first
    also = ALSO_NOT_SENT.format(which="the line", first="hint", held=LINES_HELD, lines="end")
    assert said[1:] == [also, NOT_SENT_HELD.format(held=LINES_HELD, line="help")]
    assert "not sent" in said[2] and "type it again" in said[2]


async def test_the_lines_dropped_after_the_first_of_a_run_are_named_briefly_once_it_is_over() -> None:
    """A paste past the queue's bound named its first line dropped, and dropped the rest unseen: as a
    line is taken to be acted on (room again), the others are named, the first few of them."""
    terminal, said = _heard()
    send, receive = trio.open_memory_channel[str | None](1)
    for line in ["hint", *(f"draw {n}" for n in range(1, 10)), "", "end"]:
        queue_typed(send, line, terminal)
    assert said == [NOT_SENT_HELD.format(held=LINES_HELD, line="draw 1")]  # the first, at once
    terminal.taking(receive.receive_nowait())
    named = "draw 2; draw 3; draw 4; draw 5; draw 6; draw 7; ..."  # blank lines are no lines
    also = ALSO_NOT_SENT.format(which="the 9 lines", first="draw 1", held=LINES_HELD, lines=named)
    assert said[1:] == [also]
    terminal.taking("hint")
    queue_typed(send, "end", terminal)
    assert len(said) == 2  # said once


async def test_the_lines_dropped_are_kept_bounded_however_many_and_long_they_are() -> None:
    """A review: every line of a paste past the bound was kept to be named, though six are: 100,000
    lines held 99,998. Each named is cut short too (a pasted line may be a page)."""
    terminal, said = _heard()
    send, receive = trio.open_memory_channel[str | None](1)
    queue_typed(send, "hint", terminal)
    long = "discard " + "R1 " * 1000
    for n in range(100_000):
        queue_typed(send, long if n == 0 else f"draw {n}", terminal)
    assert len(terminal.dropped) == DROPPED_NAMED and terminal.dropped_count == 99_999
    assert len(said[0]) < 300  # the first, named at once, cut short
    terminal.taking(receive.receive_nowait())
    named = "draw 1; draw 2; draw 3; draw 4; draw 5; draw 6; ..."
    first = long.strip()[:57] + "..."
    assert said[1] == ALSO_NOT_SENT.format(
        which="the 99,999 lines", first=first, held=LINES_HELD, lines=named
    )


async def test_the_lines_dropped_are_named_once_every_line_held_is_taken() -> None:
    """A play-test pasted 230 lines: the lines dropped were named as the first of the 200 held was
    taken, and the answers to the other 199 scrolled it out of sight."""
    terminal, said = _heard()
    send, receive = trio.open_memory_channel[str | None](2)
    for line in ("tables", "hint", "draw 1", "draw 2"):
        queue_typed(send, line, terminal)
    terminal.taking(receive.receive_nowait())
    assert len(said) == 1  # 'hint' still waits: not yet
    terminal.taking(receive.receive_nowait())
    also = ALSO_NOT_SENT.format(which="the line", first="draw 1", held=LINES_HELD, lines="draw 2")
    assert said[1:] == [also]


async def test_the_lines_dropped_are_named_when_a_refusal_empties_the_queue() -> None:
    """A review: the lines held, dropped after a refused one, were taken without 'taking' them, so
    those past the bound were named only when another line was typed, if ever."""
    terminal, said = _heard()
    send, receive = trio.open_memory_channel[str | None](2)
    for line in ("discard R1 R2 R3", "draw 1", "", "hint", "end"):
        queue_typed(send, line, terminal)
    terminal.taking(receive.receive_nowait())  # refused, and what was typed after it is not carried out
    _drop_typed_ahead(receive, terminal)
    also = ALSO_NOT_SENT.format(which="the line", first="hint", held=LINES_HELD, lines="end")
    assert said[-1] == also  # a blank line typed is no line lost


async def test_a_quit_typed_while_the_queue_is_full_goes_ahead_of_the_lines_waiting() -> None:
    """A quit typed after a long paste was dropped with the lines over the queue's bound: the person
    had to wait for the paste to be carried out, then type it again (or press Ctrl-C)."""
    terminal, said = _heard()
    terminal.quits = lambda line: line.strip() == "quit"
    send, receive = trio.open_memory_channel[str | None](1)
    for line in ("end", "hint", "quit"):
        queue_typed(send, line, terminal)
    assert terminal.quit_typed and said[-1] == QUIT_AHEAD.format(held=LINES_HELD)
    assert receive.receive_nowait() == "end"


def test_quit_after_a_paste_longer_than_the_queue_quits_at_once(
    servers: list[ServerProcess], tmp_path: Path
) -> None:
    # A server of low rates (the client keeps to them): the queue is still full when 'quit' is read,
    # however slowly a loaded machine reads the paste.
    servers.append(server := ServerProcess(tmp_path / "notty.db", *LOW_LIMITS))
    bob, transcript = _line_mode(tmp_path, f"127.0.0.1:{server.port}", "--name", "bob")
    bob.expect("no tables now")
    bob.send(_watches(LINES_HELD + 60) + "quit\r")
    bob.expect("quitting now", timeout=30)
    assert _status(bob) == 0  # within the pexpect timeout: not after the 200 lines waiting
    refused = _refused_tables(transcript.getvalue())
    assert refused == list(range(FIRST, FIRST + len(refused))) and len(refused) < LINES_HELD
