"""``notty-client [HOST:PORT] [--name NAME] [--table TABLE] [--forget | --resume]``: play Notty, or any game
a server hosts.

With no address it starts a server inside this process and seats you at a
table against the expert bot, at medium level: the one-command way to play.
On a terminal it is a full screen (:mod:`client.screen`: the table, the log of
moves, the line being typed); with ``--plain``, or a terminal curses cannot
drive, it is line mode, with line editing, history and tab completion, and
server updates never garble what you are typing. With input from a pipe or file it is
scriptable: plain text, and each game action waits for your turn before it is
sent, and so is a hint.

Against a server it keeps its seat token on disk (:mod:`client.tokens`), so a
client that crashed, was killed or quit mid-game takes its seat back when run
again with the same address and the name the seat has at its table (``ann-2``
where another ``ann`` sat; ``--table`` for one not kept last, where that name
holds seats at several): at a terminal by itself, from a pipe only with
``--resume`` (a script run twice must not play into the first run's game). A script that asks for a
seat (``--resume``, ``--table``) and has none to take back (none kept, or the server no longer holds
it) stops before its first line, exit 1.
A script stops at the first line refused (by the server or the client), and exits 1 naming it.

This module is the Trio shell: connecting and reconnecting, the heartbeat,
acting on the lines read, the command line. What the client knows and decides is in the
sans-IO :class:`client.session.Session`; the line-mode terminal is :mod:`client.terminal`,
the pace a server allows :mod:`client.pace`, an address and a name read :mod:`client.address`.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import errno
import functools
import getpass
import io
import os
import random
import shlex
import shutil
import signal
import sys
import termios
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any

import trio

from games._ui import is_number
from games._words import counted
from protocol import (
    DEFAULT_PORT,
    Autopilot,
    Connection,
    ConnectionState,
    Error,
    Goodbye,
    Join,
    Leave,
    LocalProtocolError,
    Message,
    Ping,
    PlayForMe,
    Pong,
    ProtocolError,
    Resign,
    Sender,
    Watch,
    Welcome,
)

from .address import NAME_RULE, address_text, folded_name, name_from_login, parse_address
from .commands import MAX_TABLE, Reply, changes_nothing, quoted_line
from .output import output_lost
from .pace import Pace
from .session import Output, Session
from .terminal import LINES_HELD, READING, LineReader, OutputLost, Terminal, named_lines
from .tokens import SeatStore, StoredSeat, server_key

RECONNECT_SECONDS = 30.0
#: How much of what a server first sends is kept, to quote where it proves to be no notty server.
FIRST_BYTES = 40
#: Seconds, by default, to connect and be welcomed (``--connect-timeout``): a port that takes the
#: connection and never answers (not a notty server, or a stuck one) must not hold the client for ever.
CONNECT_TIMEOUT = 10.0
#: A ping after this long without sending: the server drops connections silent for 60 s.
HEARTBEAT_SECONDS = 20.0
#: Errors the server sends of itself, or about the seat token sent with hello, or for a hint a move
#: overtook (a bot's or a timeout's, in a script): none refuses a line, so none stops a script.
UNPROMPTED_ERRORS = frozenset(
    {"not-recorded", "turn-time", "bad-token", "game-stopped", "other-record", "shutting-down", "hint-stale"}
)
#: Errors that end the connection (docs/PROTOCOL.md), the goodbye after each giving its text as the reason.
CLOSING_ERRORS = frozenset({
    "resumed-elsewhere", "idle-timeout", "frame-too-large", "too-much-data", "version", "hello-timeout",
    "server-full", "too-many-connections",
})  # fmt: skip
#: The bytes before each frame's body, its length (docs/PROTOCOL.md): the server charges by the body.
FRAME_HEADER = 4


class ConnectionLost(Exception):
    pass


class Client:
    """The session's connection: bytes to and from the server, the heartbeat, and waiting."""

    def __init__(self, terminal: Terminal, session: Session) -> None:
        self.terminal = terminal
        self.session = session
        session.layout_width = terminal.layout_width
        self.protocol = Connection(Sender.CLIENT)
        self.first_bytes = b""
        self.stream: trio.abc.Stream | None = None
        self.changed = trio.Event()
        self.closing = False
        self.lost: str | None = None  # why the connection went, if it went by itself
        self.last_sent = 0.0  # trio time; set by each send, starting with hello
        self.pings = 0
        self.last_pong: int | None = None  # the nonce of the last pong heard
        #: How many errors of each code were heard: a request waited on was refused if the count of
        #: its own code grew after it was sent.
        self.errors: collections.Counter[str] = collections.Counter()
        self.sending = trio.Lock()  # the heartbeat and the commands share the stream
        # The server's limits, as each welcome says them; kept over reconnections, since the server's
        # allowance for an address outlasts them.
        self.pace = Pace()
        self.to_ask: list[Message] = []  # what a message just shown calls for, sent once it is read
        self.lines_read = 0
        self.script_line: tuple[int, str] | None = None  # a script's line last acted on: number, text
        # The first script line refused (by the server, or by the client itself), why, and by whom.
        self.refused: tuple[int, str, str, str] | None = None
        # A script's line the lost connection cut off before any of it was sent (it was waiting for
        # our turn): the next connection carries it out, rather than the script going on without it.
        self.cut_off: str | None = None
        self.quit_away = False  # 'quit' was typed while the connection was down
        # Lines typed after a refused one that change nothing, carried out still, in order; ``None``
        # after them where the input ended or a quit was typed. Kept here, as ``cut_off`` is, since
        # a connection lost among them must not lose them (nor the quit).
        self.kept: collections.deque[str | None] = collections.deque()
        # The table of the seat a script asked to take back (--resume), until the server answers:
        # a seat it no longer holds stops the script (``seat_gone``: why), as one not kept on disk does.
        self.resuming: int | None = None
        self.seat_gone: str | None = None
        self.line_sent = False  # the line being carried out has sent something
        # An error that ends the connection, held (what it shows, and its text) for the goodbye after
        # it: not shown at all when the last words give the same reason (:meth:`on_message`).
        self.closing_error: tuple[Output, str] | None = None

    @property
    def received(self) -> int:
        """Replies heard so far: a script waits for this to grow after each command."""
        return self.session.replies

    # -- the connection ------------------------------------------------------------

    async def connect(self, host: str, port: int) -> None:
        await self.disconnect()  # a connection lost, or never answered: its socket goes first
        self.stream = await trio.open_tcp_stream(host, port)
        self.protocol = Connection(Sender.CLIENT)
        self.first_bytes = b""  # of this connection: quoted if what answers is no notty server
        self.pace.connecting()
        await self.send(self.session.hello())

    async def disconnect(self) -> None:
        if self.stream is not None:
            stream, self.stream = self.stream, None
            await trio.aclose_forcefully(stream)

    async def send(self, message: Message, quiet: bool = False) -> str | None:
        """Send, or say why not (unless ``quiet``: the heartbeat's ping is not the user's doing) and
        return it: the protocol refuses ``message`` where we are (a game action in the lobby, say)."""
        assert self.stream is not None
        async with self.sending:  # frames go out whole and in the order the protocol saw them
            try:
                data = self.protocol.send(message)
            except LocalProtocolError:
                why = self.session.why_not(message, self.protocol.state)
                if not quiet:
                    self.terminal.show(why)
                return why
            await self._paced(message, len(data) - FRAME_HEADER, quiet)
            if not quiet:  # once past the lock's checkpoint and the protocol: it goes out, or the link does
                self.line_sent = True
            self.session.sending(message)
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as error:
                raise ConnectionLost(str(error)) from None
            self.last_sent = trio.current_time()
        return None

    async def _paced(self, message: Message, size: int, quiet: bool) -> None:
        """Wait until the server will take ``message`` (:class:`client.pace.Pace`); meanwhile, for a
        line typed (not ``quiet``), the lines after it may be read."""
        try:
            while (wait := self.pace.wait(message, size, trio.current_time())) > 0:
                if not quiet:
                    self.terminal.line_waits(True)
                await trio.sleep(wait)
        finally:
            if not quiet:
                self.terminal.line_waits(False)

    async def heartbeat(self) -> None:
        """Ping whenever nothing was sent for a while, so a player who is only thinking is not dropped."""
        while True:
            due = self.last_sent + HEARTBEAT_SECONDS
            if trio.current_time() < due:
                await trio.sleep_until(due)
            elif Ping in Connection.allowed(Sender.CLIENT, self.protocol.state):
                self.pings += 1
                await self.send(Ping(self.pings % 2**32), quiet=True)
            else:  # before welcome, or closed: nothing to say yet
                await trio.sleep(HEARTBEAT_SECONDS)

    async def receive_forever(self) -> None:
        """Show everything the server says until it closes the connection."""
        try:
            await self._receive_forever()
        finally:  # an error held for a goodbye that never came is said after all
            self._show_held()

    async def _receive_forever(self) -> None:
        assert self.stream is not None
        while True:
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as error:
                raise ConnectionLost(str(error)) from None
            if len(self.first_bytes) < FIRST_BYTES:
                self.first_bytes += data[: FIRST_BYTES - len(self.first_bytes)]
            if not data:
                if self.protocol.state is ConnectionState.CLOSED:
                    return
                raise ConnectionLost("the server closed the connection")
            try:
                self.protocol.receive_data(bytes(data))
                while (message := self.protocol.next_event()) is not None:
                    self.note_refusal(message)
                    self.on_message(message)
            except ProtocolError as error:
                # Never welcomed: the start of what answered says what it is ('HTTP/1.1 400', 'SSH-2.0').
                began = f"; it began {_first_line(self.first_bytes)}" if self.session.catalog is None else ""
                raise ConnectionLost(f"the server broke the protocol: {error}{began}") from None
            while self.to_ask:
                await self.send(self.to_ask.pop(0), quiet=True)
            if self.protocol.state is ConnectionState.CLOSED:
                return

    def on_message(self, message: Message) -> None:
        if isinstance(message, Pong):
            self.last_pong = message.nonce
        elif isinstance(message, Welcome):
            self.pace.follow(message.limits, trio.current_time())
        elif isinstance(message, Error):
            self.errors[message.code] += 1
        output = self.session.receive(message)
        if output.refused is not None and not self.terminal.interactive and self.script_line is not None:
            # A line the client refuses once the server's answer says why (a seat no table has).
            self.refused = self.refused or (*self.script_line, output.refused, "the client")
        if isinstance(message, Goodbye) and self._says_goodbye_last():
            # Said once, in the last words, which also say the server ended the connection: not as
            # it comes, nor as the error before it that gave the same reason.
            held, self.closing_error = self.closing_error, None
            if held is not None and held[1] != message.reason:
                self.terminal.output(held[0])
        elif isinstance(message, Error) and message.code in CLOSING_ERRORS:
            self._show_held()
            self.closing_error = output, message.message
        else:
            self._show_held()
            self.terminal.output(output)
        self.to_ask += output.send
        self.changed.set()
        self.changed = trio.Event()

    def _says_goodbye_last(self) -> bool:
        """Will the server's goodbye, just heard, be said in the client's last words? Yes when it was
        not asked for (``quit``) nor came of a server stopping (the client waits for it), on a
        connection that was welcomed (an unwelcomed one is said to be no notty server)."""
        session = self.session
        return not self.closing and not session.shutting_down and session.welcome_heard

    def _show_held(self) -> None:
        held, self.closing_error = self.closing_error, None
        if held is not None:
            self.terminal.output(held[0])

    # -- scripted input -------------------------------------------------------------

    def note_refusal(self, message: Message) -> None:
        """Keep the first refusal of a script's line: the script then stops, and exits 1."""
        if (
            isinstance(message, Error)
            and message.code not in UNPROMPTED_ERRORS
            and not self.terminal.interactive
            and self.script_line is not None
            and self.refused is None
            and self.session.rewatching is None  # the answer to watching again: no line of the script's
        ):
            self.refused = (*self.script_line, message.message, "the server")

    def welcomed(self) -> bool:
        return self.protocol.state is not ConnectionState.HELLO

    def closed(self) -> bool:
        return self.protocol.state is ConnectionState.CLOSED

    async def wait_for(self, ready: Any, timeout: float) -> bool:
        with trio.move_on_after(timeout):
            while not ready():
                await self.changed.wait()
            return True
        return False

    async def settle(self, timeout: float) -> None:
        """Wait until the server has said all it had to say to what we sent so far: it answers in
        order, so a ping's pong comes after all of it."""
        self.pings += 1
        nonce = self.pings % 2**32
        if await self.send(Ping(nonce), quiet=True) is None:
            await self.wait_for(lambda: self.last_pong == nonce or self.refused is not None, timeout)


async def run(
    address: tuple[str, int] | None,
    name: str,
    terminal: Terminal,
    forget: bool = False,
    seats: SeatStore | None = None,
    resume: bool | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    notes: Sequence[str] = (),
    table: int | None = None,
    program: str = "notty-client",
    flags: str = "",
) -> int:
    """Play until the input ends or the user quits; the exit status. ``resume``: take back the seat
    kept on disk for this server and name (``None``: only a person at a terminal does, for a script
    replaying into an old game by chance would play its moves in the wrong game). ``notes``: lines
    to say first (the name played under, when it is not the one given; why not the full screen).
    ``table``: which of the name's seats to take back or forget, where it holds several."""
    interactive, colour = terminal.interactive, terminal.colour
    asked = resume is True or (table is not None and not forget)  # a seat to take back, asked for by name
    resume = asked or (interactive if resume is None else resume)  # --table N alone takes it back too
    client: Client | None = None
    lost: OSError | None = None  # why our output could not be written, if it could not
    kept: list[str] = []  # what quitting says of our seat
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(_quit_on_ctrl_c)
            for note in notes:  # here, where output that cannot be written ends the client as it should
                terminal.show(note)
            if interactive:
                nursery.start_soon(_follow_resumes, terminal)
            if address is None:
                from server.cli import make_host
                from server.net import NottyServer

                server = NottyServer(make_host("notty (built in)", grace=60.0))
                listeners = await nursery.start(server.serve, "127.0.0.1", 0)
                address = ("127.0.0.1", listeners[0].socket.getsockname()[1])
                # this server dies with us: no seat worth keeping
                session = Session(name, interactive=interactive, colour=colour, built_in=True)
                built_in = True
            else:
                seats = seats or SeatStore()
                key = server_key(*address)
                session = Session(name, interactive=interactive, colour=colour, seats=seats, server=key)
                session.program, session.flags = program, flags
                built_in = False
                missing = _take_back(session, forget, resume, table, terminal, take_over=asked and resume)
                if missing is not None and asked:
                    if not interactive:  # its lines are for that seat's game: not to be played in the lobby
                        nursery.cancel_scope.cancel()
                        sys.stderr.write(f"notty-client: {missing}: the script was not run\n")
                        return 1
                    terminal.show(missing)
            client = Client(terminal, session)
            if asked and not interactive:
                client.resuming = session.table
            code = await _play(client, address, terminal, built_in, connect_timeout=connect_timeout)
            nursery.cancel_scope.cancel()
    except* KeyboardInterrupt:  # Ctrl-C: as on quitting, a seat kept is said so (unless it was)
        if client is not None and not client.closing:
            terminal.last_words(client.session.leaving())
        raise
    except* OutputLost as group:  # its reader gone, its disk full, its terminal closed: as on 'quit'
        lost = _first_lost(group).error
        kept = client.session.leaving() if client is not None and not client.closing else []
    if lost is not None:
        return output_lost(lost, kept, at_terminal=interactive)
    assert client is not None  # the play above, which made it, ended without an exception
    if code == 0 and terminal.input_lost is not None:
        sys.stderr.write(
            f"notty-client: could not read its input ({terminal.input_lost}): it stopped there\n"
        )
        code = 1
    if code == 0 and client.seat_gone is not None:
        sys.stderr.write(f"notty-client: {client.seat_gone}: the script was not run\n")
        code = 1
    if code == 0 and client.refused is not None:
        number, line, why, who = client.refused
        sys.stderr.write(
            f"notty-client: {who} refused line {number} of the script ({quoted_line(line)}): {why}\n"
        )
        code = 1
    return code


def _first_lost(group: BaseExceptionGroup[OutputLost]) -> OutputLost:
    leaf = group.exceptions[0]
    return leaf if isinstance(leaf, OutputLost) else _first_lost(leaf)


#: What a seat another client here plays is not, and how to do it all the same, by the verb asked.
_NOT_DONE = {
    "take over": "not taken over; quit that one, or take it over with --table {table}",
    "forget": "not forgotten; quit that one first, or forget it with --table {table}",
}


def _in_use(session: Session, kept: Sequence[StoredSeat], terminal: Terminal, verb: str) -> list[StoredSeat]:
    """The seats of ``kept`` another notty-client here plays now, each said to be left as it is."""
    seats, key = session.seats, session.server
    assert seats is not None
    in_use = []
    for seat in kept:
        if (pid := seats.locks.holder(key, seat.token)) is not None:
            in_use.append(seat)
            process = f" (process {pid})" if pid else ""
            done = _NOT_DONE[verb].format(table=seat.table)
            here = f"is played by another notty-client here{process}"
            terminal.show(f"your seat at table {seat.table} on {key} {here}: {done}")
    return in_use


def _none_kept(seats: SeatStore, whose: str, wanted: str = "") -> str:
    """That no seat is kept for ``whose`` (``wanted``: for what); or, where the seats file could not
    be read, why none can be found."""
    if seats.unreadable is not None:
        return f"no seat can be found for {whose}{wanted}: {seats.unreadable}"
    return f"no seat kept for {whose}{wanted}"


def _take_back(
    session: Session,
    forget: bool,
    resume: bool,
    table: int | None,
    terminal: Terminal,
    take_over: bool = False,
) -> str | None:
    """The seat kept for this server and name: forgotten, resumed (``session`` offers it in its
    hello), or said why not. A name holding seats at several tables (two games at once) takes back
    the one kept last, and says how to take back each other one: ``--table``, as it was told. A
    seat another client of this user sits at now is taken back only when asked for (``take_over``:
    ``--resume`` or ``--table``), since the server would send that client away; a person with a
    second game kept gets that one instead. Unless forgetting, that no seat is kept (at ``table``),
    if none is: the caller says it, or stops."""
    seats, key, name = session.seats, session.server, session.name
    assert seats is not None
    at = f" at table {table}" if table is not None else ""
    if forget:
        # Not a seat another client here plays now, unless named: it would say at its end that the
        # seat is no longer kept, and a play-tester had not meant to drop the game under way.
        in_use = _in_use(session, seats.seats(key, name) if table is None else [], terminal, "forget")
        busy = [seat.table for seat in in_use]
        dropped = []
        for seat in seats.seats(key, name):
            if seat.table not in busy and (table is None or seat.table == table):
                dropped += [gone.table for gone in seats.forget(key, name, token=seat.token)]
        dropped.sort()
        if busy and not dropped:
            return None
        plural = "s" if len(dropped) > 1 else ""
        terminal.show(
            f"forgot your seat{plural} at table{plural} {_and(dropped)} on {key}"
            if dropped
            else _none_kept(seats, f"{name}{at} on {key}")
        )
        return None
    kept = [seat for seat in seats.seats(key, name) if table is None or seat.table == table]
    if not kept:
        return _none_kept(seats, f"{name}{at} on {key}", " to resume")
    if resume and not take_over:
        in_use = _in_use(session, kept, terminal, "take over")
        kept = [seat for seat in kept if seat not in in_use]
        if not kept:
            return None
    chosen = kept[-1]
    if resume:
        session.token, session.table, session.kept_as = chosen.token, chosen.table, name
        session.taking_over = take_over and seats.locks.holder(key, chosen.token) is not None
    else:
        terminal.show(f"not resuming your seat at table {chosen.table} on {key}: --resume takes it back")
    if others := sorted(seat.table for seat in kept[:-1]):
        choose = " or ".join(f"--table {number}" for number in others)
        kept_too = "seat at table {} on {} is" if len(others) == 1 else "seats at tables {} on {} are"
        with_resume = "" if resume else ", with --resume"
        one = "it" if len(others) == 1 else "one"
        terminal.show(
            f"your {kept_too.format(_and(others), key)} kept too: {choose} takes {one} back{with_resume}"
        )
    return None


def _and(numbers: Sequence[int]) -> str:
    """``12``, ``12 and 13``, ``12, 13 and 14``."""
    words = [str(number) for number in numbers]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" and {words[-1]}"


async def _play(
    client: Client,
    address: tuple[str, int],
    terminal: Terminal,
    built_in: bool,
    read_lines: LineReader | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> int:
    """Connect, then act on each line ``read_lines`` sends (by default the terminal's
    :meth:`Terminal.line_reader`), reconnecting when the connection drops; the exit status.
    Connecting and the server's welcome get ``connect_timeout`` seconds between them, the first time
    and on each try to reconnect (:class:`_Reconnecting`), which is given up once its budget is spent."""
    host, port = address
    where = address_text(host, port)
    deadline = trio.current_time() + connect_timeout  # to connect and be welcomed, this time
    try:
        with trio.fail_at(deadline):
            await client.connect(host, port)
    except OSError as error:
        sys.stderr.write(f"notty-client: cannot connect to {where}: {_why_not_connected(error)}\n")
        return 2
    except trio.TooSlowError:  # as unreachable as refused: the server never took the connection
        sys.stderr.write(
            f"notty-client: cannot connect to {where}: no connection within {connect_timeout:g} s\n"
        )
        return 2
    read_lines = read_lines or terminal.line_reader(client.session)
    if terminal.interactive:
        terminal.show("type 'help' for the commands")
    lines_send, lines = trio.open_memory_channel[str | None](LINES_HELD)
    arrived = False  # welcomed once: the built-in server's table, or the list, was asked for
    reconnecting: _Reconnecting | None = None  # since a welcomed connection dropped, until welcomed again
    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_lines, lines_send)
        while True:
            client.lost = None
            async with trio.open_nursery() as connection:
                connection.start_soon(_then_stop, client.receive_forever, client, connection.cancel_scope)
                connection.start_soon(_then_stop, client.heartbeat, client, connection.cancel_scope)
                try:  # no line is acted on before the welcome: there is no one to send it to yet
                    welcomed = False
                    async with _not_sent_while_away(lines, terminal, client, away=arrived):
                        welcomed = await client.wait_for(
                            client.welcomed, max(0.0, deadline - trio.current_time())
                        )
                    if client.quit_away:
                        connection.cancel_scope.cancel()
                    elif welcomed:
                        if not terminal.interactive:
                            await _seat_answered(client, where, connect_timeout)
                        if not arrived:  # the built-in server's table, or the list: wait for the answer
                            client.line_sent = False
                            arrival = client.session.arrival(built_in)
                            try:
                                await _carry_out(client, arrival, terminal, answered=True)
                            finally:  # cut off before it was sent (a server stopping): the next try asks
                                arrived = client.line_sent or not arrival.messages
                        if client.seat_gone is None:
                            await _commands(client, lines, terminal)
                        else:  # not one of the script's lines is for the lobby
                            await _say_bye(client, terminal)
                except ConnectionLost as lost:
                    client.lost = str(lost)
                connection.cancel_scope.cancel()
            client.session.connection_down = True  # until a welcome: not "your turn" meanwhile
            if client.quit_away:  # 'quit' typed while the connection was down: the seat is kept
                nursery.cancel_scope.cancel()
                terminal.last_words(client.session.leaving())
                return 0
            # The server is stopping, and keeps its games: wait for it as for a dropped connection.
            restarting = client.session.shutting_down and not client.closing
            if restarting and reconnecting is not None and not client.session.welcome_heard:
                # Turned away by a server still stopping: the same budget goes on, and its end is
                # told as a stop (the seat kept), even if it began as a dropped connection.
                reconnecting.restart = True
            elif client.welcomed():
                reconnecting = None  # a later drop has a budget of its own
            elif client.lost is None:  # connected, but not welcomed in time
                if reconnecting is None:  # a silent listener: no waiting on it for ever
                    nursery.cancel_scope.cancel()
                    sys.stderr.write(
                        f"notty-client: {where} accepted the connection but did not answer as a notty server "
                        f"within {connect_timeout:g} s\n"
                    )
                    return 1
                client.lost = "no answer in time"  # while reconnecting: as good as lost, so try again
            if restarting:
                if reconnecting is None:
                    reconnecting = _Reconnecting("the server shut down", restart=True)
                    terminal.show(
                        f"the server is shutting down or restarting; trying to reconnect for up to "
                        f"{reconnecting.seconds:g} s (Ctrl-C quits)"
                    )
            elif client.session.too_fast and not client.closing:  # turned away for now: try again
                if reconnecting is None:
                    reconnecting = _Reconnecting(client.session.too_fast)
                    terminal.show(
                        f"the server takes connections from this address more slowly just now; trying again "
                        f"for up to {reconnecting.seconds:g} s (Ctrl-C quits)"
                    )
            elif client.lost is None and not client.closing:  # the server said goodbye, unasked
                nursery.cancel_scope.cancel()
                reason = client.session.goodbye or "it closed the connection"
                ended = f"notty-client: the server at {where} ended the connection: {reason}"
                terminal.last_words([ended, *client.session.leaving()])
                return 1
            elif client.lost is None or client.closing:
                nursery.cancel_scope.cancel()
                return 0
            elif client.session.catalog is None:  # never welcomed: what answers there is no notty server
                nursery.cancel_scope.cancel()
                sys.stderr.write(f"notty-client: {where} does not answer as a notty server: {client.lost}\n")
                return 1
            elif reconnecting is None:
                terminal.show(f"connection lost ({client.lost}); reconnecting")
                reconnecting = _Reconnecting(client.lost)
            welcome_by = None
            async with _not_sent_while_away(lines, terminal, client, away=arrived):
                welcome_by = await reconnecting.connect(client, host, port, connect_timeout)
            if client.quit_away:
                nursery.cancel_scope.cancel()
                terminal.last_words(client.session.leaving())
                return 0
            if welcome_by is None:
                nursery.cancel_scope.cancel()
                # As when the server ends the connection, the seat is kept, and said so with how to
                # take it back: after a crash too (the full screen's lines on reconnecting go with it).
                if reconnecting.restart:
                    back = f"it was not back within {reconnecting.seconds:g} s"
                    gone = f"notty-client: the server at {where} shut down, and {back}"
                else:
                    gone = f"notty-client: lost the connection to {where}: {reconnecting.why}"
                    # What it is now: a play-test read "the server closed the connection" 30 s on,
                    # when its tries had long been refused.
                    last = reconnecting.last_try
                    gone += f"; not back within {reconnecting.seconds:g} s (the last try: {last})"
                terminal.last_words([gone, *client.session.leaving()])
                return 1
            deadline = welcome_by
    return 0  # pragma: no cover


#: A connection refused, in words: the host is there, but nothing listens on the port.
REFUSED = "connection refused (is the server running, on that port?)"


def _why_not_connected(error: OSError) -> str:
    """Why a connect failed, in words. trio's own error, once every address of the host has failed,
    says only that ("all attempts to connect to ... failed"): each attempt's error, in its cause,
    says why (refused, unreachable, ...); each reason is said once. An unknown host says so itself."""
    cause = error.__cause__
    attempts = cause.exceptions if isinstance(cause, BaseExceptionGroup) else ()
    reasons = [
        REFUSED if attempt.errno == errno.ECONNREFUSED else os.strerror(attempt.errno)
        for attempt in attempts
        if isinstance(attempt, OSError) and attempt.errno
    ]
    return "; ".join(dict.fromkeys(reasons)) or str(error.strerror or error)


class Terminated(KeyboardInterrupt):
    """A SIGTERM: the client ends as on Ctrl-C, saying where a seat is kept (a play-test's ended
    without a word), with the status a shell gives a process the signal ended."""

    status = 128 + signal.SIGTERM


async def _quit_on_ctrl_c(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Ctrl-C (or a SIGTERM) ends the client at once, whatever it is doing.

    Left to trio, a Ctrl-C that lands while the main thread runs code trio
    protects can wait for a checkpoint that a task blocked on the input
    thread never reaches; CI saw the client carry on past one. Here it is a
    message to this task, which raises it at once.
    """
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as interrupts:
        task_status.started()
        async for signum in interrupts:
            raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def _first_line(data: bytes) -> str:
    """The first line of ``data``, quoted as bytes are (what is not printable ASCII escaped)."""
    return repr(data.split(b"\n", 1)[0].rstrip(b"\r"))[1:]


async def _follow_resumes(terminal: Terminal) -> None:
    """Tell the terminal each time the client goes on after Ctrl-Z (``fg``): it draws itself again."""
    with trio.open_signal_receiver(signal.SIGCONT) as resumes:
        async for _ in resumes:
            terminal.resumed()


async def _then_stop(work: Callable[[], Awaitable[None]], client: Client, scope: trio.CancelScope) -> None:
    """Run one of the connection's tasks; when it ends, for whatever reason, the connection ends."""
    try:
        await work()
    except ConnectionLost as lost:
        client.lost = str(lost)
    finally:
        scope.cancel()


@contextlib.asynccontextmanager
async def _not_sent_while_away(
    lines: trio.MemoryReceiveChannel[str | None], terminal: Terminal, client: Client, *, away: bool
) -> AsyncIterator[None]:
    """While the connection is down (``away``: it was up once), answer each line a person types:
    what would go to the server is not sent, and says so; what the client answers itself (``help``,
    ``table``) is answered; ``quit`` quits (``client.quit_away``), cancelling the body.

    Queued, a move typed then was played the moment the connection came back, before its player had
    seen the table: a play-test's 'draw 3' and 'end', typed while the server restarted, played a whole
    turn. A script's lines (not at a terminal) wait for the connection, as they always have, and so
    do a person's typed before the first welcome.
    """
    if not away or not terminal.interactive:
        yield
        return
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_answer_while_away, lines, terminal, client, nursery.cancel_scope)
        try:
            yield
        finally:
            nursery.cancel_scope.cancel()


async def _answer_while_away(
    lines: trio.MemoryReceiveChannel[str | None], terminal: Terminal, client: Client, scope: trio.CancelScope
) -> None:
    while True:
        if client.kept:  # typed before those in ``lines``
            line = client.kept.popleft()
            if line is None:  # the input ended, or a quit was typed, after them: as a quit typed now
                client.quit_away = True
                scope.cancel()
                return
        else:
            try:
                line = await lines.receive()
            except trio.EndOfChannel:
                return
            if line is None:  # the end of input: once connected again, the client says bye as usual
                return
        terminal.taking(line)
        reply = client.session.typed(line)
        if reply.quit:
            client.quit_away = True
            scope.cancel()
            return
        if reply.messages:
            terminal.show(f"not sent, the connection is down: {line.strip()} (type it again once it is back)")
        elif reply.say:
            terminal.show(reply.say)
        terminal.line_handled()


class _Reconnecting:
    """A welcomed connection dropped: connect again, for up to :data:`RECONNECT_SECONDS`, until a try
    is welcomed. ``why``: why it dropped; ``restart``: the server said it was stopping (it keeps
    its games, so the seat it held is worth keeping if it does not come back)."""

    def __init__(self, why: str, restart: bool = False) -> None:
        self.why, self.restart = why, restart
        self.seconds = RECONNECT_SECONDS  # the module's value now: a test may shorten it
        self.until = trio.current_time() + self.seconds
        self.delay = 0.2  # before the next try; doubled after each, to 5 s
        self.last_try: str | None = None  # why the last try to connect again failed

    async def connect(self, client: Client, host: str, port: int, connect_timeout: float) -> float | None:
        """Connect again: the time by which the server must welcome us, ``connect_timeout`` after the
        try began and within the budget; ``None`` once the budget is spent. No try outlasts it: an
        unreachable host's connect (the system's own timeout is minutes) is given up at its end."""
        while True:
            # Varied, or the clients of a server that restarts all come back at the same instant.
            wait = self.delay * (0.5 + random.random())
            await trio.sleep(max(0.0, min(wait, self.until - trio.current_time())))
            self.delay = min(self.delay * 2, 5.0)
            now = trio.current_time()
            if now >= self.until:
                return None
            deadline = min(now + connect_timeout, self.until)
            self.last_try = f"no answer within {deadline - now:.3g} s"  # unless it fails sooner
            with trio.move_on_at(deadline):
                try:
                    await client.connect(host, port)
                    return deadline
                except (OSError, ConnectionLost) as error:  # refused, say: the server is restarting
                    self.last_try = (error.strerror if isinstance(error, OSError) else None) or str(error)


async def _commands(client: Client, lines: trio.MemoryReceiveChannel[str | None], terminal: Terminal) -> None:
    """Act on each typed line; at the end of input, let the current output finish and say bye."""
    session = client.session
    while True:
        if terminal.quit_typed:  # typed while the queue was full: it goes ahead of the lines waiting
            break
        if client.cut_off is not None:  # read before the connection was lost: its number stands
            line, client.cut_off = client.cut_off, None
        elif client.kept:
            if (held := client.kept.popleft()) is None:
                break  # the input ended, or a quit was typed, after them
            line = held
            client.lines_read += 1
            terminal.taking(line)
        else:
            try:
                read = await lines.receive()
            except trio.EndOfChannel:
                read = None
            if read is None:
                break
            line = read
            client.lines_read += 1
            terminal.taking(line)
        reply = session.typed(line)
        if reply.quit:
            break
        if reply.messages and not terminal.interactive:
            client.script_line = (client.lines_read, line)
        client.line_sent = False
        errors = client.errors.total()
        try:
            # A person's game action is answered before the next line is read: one typed ahead or
            # pasted (a hint's commands) is checked against the table the action left.
            answered = not terminal.interactive or reply.action or _changes_who_plays(reply)
            unsent = await _carry_out(client, reply, terminal, answered=answered)
        except BaseException:  # the connection is lost (or the client stops)
            if not client.line_sent and not terminal.interactive and reply.messages:
                client.cut_off = line  # nothing of it went out: carried out on the next connection
            raise
        else:  # before the reader reads on: the lines typed ahead of a refusal are still to be read
            refused = reply.refused or (reply.action and client.errors.total() > errors)
            if terminal.interactive and refused:
                with trio.move_on_after(1):  # a line read from the terminal but not yet queued
                    while terminal.line_in_flight:
                        await trio.sleep(0.005)
            if terminal.interactive and refused and not changes_nothing(line):
                client.kept.extend(_drop_typed_ahead(lines, terminal))
        finally:  # a connection lost while sending must not leave the reader waiting
            terminal.line_handled()
        if (reply.refused or unsent) and not terminal.interactive and client.refused is None:
            client.refused = (client.lines_read, line, unsent or reply.say, "the client")  # could not be sent
        if client.refused is not None:  # the lines after it expect what was refused
            break
    if not terminal.interactive and client.refused is None:  # let what is in flight arrive
        while await client.wait_for(lambda count=client.received: client.received > count, 0.5):
            pass
    await _say_bye(client, terminal)


def _changes_who_plays(reply: Reply) -> bool:
    """'auto on', 'auto off': answered, as a move is, before a person's next line is read, which
    is judged on whether a bot plays our turn."""
    return any(isinstance(message, Autopilot) for message in reply.messages)


def _drop_typed_ahead(lines: trio.MemoryReceiveChannel[str | None], terminal: Terminal) -> list[str | None]:
    """A line was refused: the lines typed or pasted after it, before its refusal was shown, may
    count on it (the rest of a hint's commands), so they are not carried out, and are named to be
    typed again. Those that change nothing (:func:`client.commands.changes_nothing`) count on
    nothing: they are returned, to be carried out in their order, and ``None`` after them if the
    input ended among the lines, or a quit was typed there (it is carried out)."""
    waiting: list[str | None] = []
    while True:
        try:
            waiting.append(lines.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            break
    waiting += terminal.typed_ahead()  # after those: typed too, not read from the terminal yet
    dropped: list[str] = []
    kept: list[str | None] = []
    for line in waiting:
        if line is None or terminal.quits(line):  # the end of input; a quit is carried out still
            kept.append(None)
            break
        if changes_nothing(line):
            kept.append(line)
        elif line.strip():
            dropped.append(line.strip())
    if dropped:
        shown = named_lines(dropped)
        one = len(dropped) == 1
        lines_dropped = counted(len(dropped), "line")
        if not any(line is not None for line in kept):  # none typed after it carried out: all of them
            lines_dropped = "the line" if one else f"the {lines_dropped}"
        terminal.show(TYPED_AHEAD_DROPPED[one].format(which=lines_dropped, shown=shown))
    terminal.say_dropped()  # and those past the lines held, with every line held now taken
    return kept


#: What a refused line says of the lines typed ahead after it, which are not carried out (one, several).
TYPED_AHEAD_DROPPED = {
    True: "{which} typed after it was not carried out, since it may count on the line refused: {shown}",
    False: "{which} typed after it were not carried out, since they may count on it: {shown}",
}


async def _seat_answered(client: Client, where: str, timeout: float) -> None:
    """A script's next line is for the seat its hello offered, or the table it watched: wait for the
    server's answer, which may come in a later read than the welcome (a resumed script's 'hint' was
    refused as made from the lobby). A seat asked for (--resume) that the server no longer holds
    stops the script."""
    session = client.session
    await client.wait_for(lambda: not session.seat_unanswered and session.rewatching is None, timeout)
    if client.resuming is not None and not session.seat_unanswered:
        if session.seat_stopped is not None:  # game-stopped or other-record: kept for the server
            client.seat_gone = f"{session.seat_stopped}: your seat is kept for when it is back"
        elif session.token is None:  # bad-token: its game is over, or it never began
            client.seat_gone = f"the server at {where} no longer holds your seat at table {client.resuming}"
        client.resuming = None


async def _say_bye(client: Client, terminal: Terminal) -> None:
    """The client ends of itself: say where a seat is kept, and bye to the server."""
    client.closing = True
    for line in client.session.leaving():
        terminal.show(line)
    if not client.closed():
        await client.send(client.session.bye())
        await client.wait_for(client.closed, 2)


#: Where a connection is at a table, which it leaves for the lobby before it may make another.
AT_A_TABLE = frozenset({ConnectionState.SEATED, ConnectionState.WATCHING})
#: The error that answers a ``leave`` refused (docs/PROTOCOL.md).
LEAVE_REFUSED = "not-at-table"


async def _carry_out(client: Client, reply: Reply, terminal: Terminal, answered: bool) -> str | None:
    """Say what a command says and send what it sends; ``answered``: wait for each answer (a script
    does, so that its next line meets the state it expects). Why a message could not be sent, if
    one could not (the rest are not sent either)."""
    if reply.say:
        terminal.show(reply.say)
    session = client.session
    for message in reply.messages:
        # Scripted: wait for our turn before acting, or say why it will not come. With no seat (in
        # the lobby, or watching) it is sent at once, for the protocol to refuse in so many words.
        seated = session.token is not None
        if (reply.action or session.waits_for_turn(message)) and not terminal.interactive and seated:
            await client.wait_for(
                lambda: session.my_turn() or session.no_turn_to_come() or client.refused is not None, 3600
            )
            if client.refused is not None:
                return None
            if why := session.no_turn_to_come():
                terminal.show(why)
                return why
        count = client.received
        # 'new', 'join' or 'watch' at a game that is over: the table it asks for is asked for from
        # the lobby, once the server has said we left (else the protocol refuses it, saying where we are).
        leaving = isinstance(message, Leave) and message is not reply.messages[-1]
        refused = client.errors[LEAVE_REFUSED] if leaving else 0
        turn = session.view.turn if session.view is not None else None
        if unsent := await client.send(message):
            return unsent
        if isinstance(message, PlayForMe) and not terminal.interactive:
            # The server plays the rest of the turn: the script's next line waits for it to pass,
            # or it would meet a turn still being played, or already gone.
            await client.wait_for(
                lambda turn=turn: (
                    session.view is None
                    or session.view.turn != turn
                    or session.game_over
                    or client.refused is not None
                ),
                3600,
            )
        elif leaving:
            # Only the server's 'left', or its refusal of the leave, ends the wait: another error
            # meanwhile (a hint's 'server-busy', a move meeting the game's end) says nothing of it.
            await client.wait_for(
                lambda refused=refused: (
                    client.protocol.state not in AT_A_TABLE
                    or client.errors[LEAVE_REFUSED] > refused
                    or client.refused is not None
                ),
                10,
            )
            if client.protocol.state in AT_A_TABLE:
                why = f"{_not_asked(reply.messages[-1])}: the server has not said you left this one"
                terminal.show(why)
                return why
        elif answered and terminal.interactive:
            # Its answer, not any message (a notice, another seat's move): all the server said to
            # what we sent is in once the pong to a ping sent after it is. The lines after it wait
            # in the terminal meanwhile, unread: if it is refused, they are taken from there.
            await client.settle(10)
        elif answered:
            await client.wait_for(lambda count=count: client.received > count, 10)
            if isinstance(message, Resign):
                # A resignation that ends the game is answered, then the game's end follows: the
                # script's next line meets the game over, not a turn that is gone.
                await client.settle(10)
    return None


def _not_asked(message: Message) -> str:
    """What was not asked for after a 'leave' the server did not answer."""
    if isinstance(message, Join):
        return f"table {message.table} was not joined"
    if isinstance(message, Watch):
        return f"table {message.table} was not watched"
    return "the new table was not asked for"


def main(argv: Sequence[str] | None = None) -> int:
    """The client, run by a person or a script; its exit status.

    In line mode at a terminal it ends at once, everything said: the input thread may be reading a
    line, and ``input()`` flushes stdout first, holding its lock; Python's shutdown finding that
    lock held by a thread it will not wait for aborts the process (status 134; lines typed ahead as
    the server said goodbye, once in a test). Nothing is left to do by then: the terminal is given
    back."""
    code = _main(argv)
    if READING.is_set():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="notty-client", description="Play Notty in your terminal.")
    parser.add_argument(
        "address",
        nargs="?",
        help=f"HOST:PORT of a notty-server; HOST alone: port {DEFAULT_PORT}; :PORT: this machine; "
        "IPv6 as ::1, or [::1]:PORT (default: play here, against bots)",
    )
    parser.add_argument(
        "--name",
        help=f"your name at the table: {NAME_RULE}; any other is folded to one, accents and what is not "
        "allowed dropped (default: your login name, folded alike)",
    )
    kept = parser.add_mutually_exclusive_group()
    kept.add_argument(
        "--forget",
        action="store_true",
        help="drop the seats kept for this server and name (the one at --table only, if given; without it, "
        "not one another client here plays now) instead of resuming one",
    )
    kept.add_argument(
        "--resume",
        action="store_true",
        help="take back the seat kept for this server and name even with input from a pipe or file "
        "(at a terminal it is taken back unless --forget is given); a script given --resume or --table "
        "finding no such seat stops before its first line, with status 1",
    )
    parser.add_argument(
        "--table",
        type=_table_number,
        metavar="TABLE",
        help="where seats at several tables are kept under your name on this server, the table of the one "
        "to take back (or, with --forget, to drop); without it, the one kept last is taken back; "
        "it takes the seat over from another notty-client of yours playing it (without it, one that "
        "is played is left alone); a script finding none kept there stops, with status 1 (see --resume)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="line mode at a terminal too: text printed line by line, not the full screen",
    )
    parser.add_argument(
        "--connect-timeout",
        type=float,
        default=CONNECT_TIMEOUT,
        metavar="SECONDS",
        help="give up if the server has not connected and answered within this many seconds "
        f"(default {CONNECT_TIMEOUT:g})",
    )
    args = parser.parse_args(argv)
    try:
        address = parse_address(args.address) if args.address else None
    except ValueError as error:
        parser.error(str(error))
    if args.table is not None and address is None:
        parser.error("argument --table: only with a server's address (the built-in server keeps no seat)")
    if not args.connect_timeout > 0:  # also refuses nan (inf: wait for ever)
        parser.error("argument --connect-timeout: it must be more than 0 seconds")
    notes = []  # said first: the name played under, if not the one given (or the login name)
    if args.name is None:
        login = login_name()
        name = name_from_login(login)
        if login and name != login:  # cut or folded as --name is, and said alike (none: no name to fold)
            notes.append(f"playing as {name!r}: a name is {NAME_RULE}")
    else:
        name = folded_name(args.name)  # as the login name is: 'Zoë' plays as 'Zoe'
        if not name:
            given = args.name  # a pasted page need not come back whole
            shown = repr(given) if len(given) <= 40 else f"{given[:40]!r}…"
            parser.error(f"argument --name: the server would refuse {shown}: a name is {NAME_RULE}")
        if name != args.name:
            notes.append(f"playing as {name!r}: a name is {NAME_RULE}")
    interactive = sys.stdin.isatty()
    if isinstance(sys.stdin, io.TextIOWrapper):
        # Bytes that are not UTF-8 are read as surrogate escapes, which the client refuses as such
        # (commands.NOT_UTF8), rather than ending with a traceback where stdin's errors are strict.
        sys.stdin.reconfigure(errors="surrogateescape")
    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    status = 130  # Ctrl-C's, as a shell gives it
    with _terminal_given_back(interactive):
        try:
            resume = True if args.resume else None  # None: a person resumes, a script does not
            # The command said to take a seat back runs the client as now: in line mode, if asked for.
            program = program_as_run(sys.argv[0])
            flags = " --plain" if args.plain else ""
            why_plain = _why_plain(args.plain)
            if why_plain is None:
                from . import screen

                play = functools.partial(
                    run,
                    address,
                    name,
                    forget=args.forget,
                    resume=resume,
                    connect_timeout=args.connect_timeout,
                    notes=notes,
                    table=args.table,
                    program=program,
                    flags=flags,
                )
                return trio.run(screen.play, play)
            terminal = Terminal(interactive, colour, wrap=sys.stdout.isatty())  # a pipe's lines stay whole
            return trio.run(
                functools.partial(
                    run,
                    address,
                    name,
                    terminal,
                    args.forget,
                    None,
                    resume,
                    args.connect_timeout,
                    notes=[why_plain, *notes] if why_plain else notes,
                    table=args.table,
                    program=program,
                    flags=flags,
                )
            )
        except* KeyboardInterrupt as interrupted:  # Ctrl-C, which trio delivers in an exception group
            if interrupted.subgroup(Terminated) is not None:
                status = Terminated.status
        return status


def login_name() -> str:
    """The user's login name, as ``getpass`` finds it: from the environment (``LOGNAME``, ``USER``)
    or, where none says it, the password database (a docs check with ``USER`` unset played as
    ``player``, where the help says the login name); empty if neither knows it."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # a uid with no entry, in a container say
        return ""


def program_as_run(argv0: str) -> str:
    """How to run this client again, said to the user: ``notty-client`` where their PATH finds this
    very program by that name, else the path it was run by (``make play`` runs
    ``.venv/bin/notty-client``, which no PATH finds: a docs check ran the bare name it was told)."""
    found = shutil.which("notty-client")
    if os.path.basename(argv0) != "notty-client" or (
        found is not None and os.path.realpath(found) == os.path.realpath(argv0)
    ):
        return "notty-client"
    return shlex.quote(argv0)


def _table_number(text: str) -> int:
    """``--table``'s value: a table's number, as the protocol allows one."""
    if not is_number(text) or not 0 < int(text) <= MAX_TABLE:
        shown = repr(text) if len(text) <= 20 else f"{text[:20]!r}…"  # cut short, and said to be
        raise argparse.ArgumentTypeError(f"a table's number, 1 to {MAX_TABLE:,}, not {shown}")
    return int(text)


@contextlib.contextmanager
def _terminal_given_back(interactive: bool) -> Iterator[None]:
    """The terminal's settings as they were, however the client ends: in line mode readline, still
    reading a line in its thread when the client ends of itself (Ctrl-C, the server's goodbye),
    would leave it not echoing what is typed."""
    saved = None
    if interactive:
        with contextlib.suppress(termios.error):
            saved = termios.tcgetattr(sys.stdin.fileno())
    try:
        yield
    finally:
        if saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)


def _why_plain(plain: bool) -> str | None:
    """``None`` where the client runs on the full screen: for a person at a terminal curses can
    drive, unless ``--plain`` says not. Else why not, in words for the person where they would not
    expect it (a ``TERM`` with no description here: it fell back without a word), else ``""``."""
    if plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return ""
    term = os.environ.get("TERM", "dumb")
    if term == "dumb":
        return ""
    from . import screen

    if screen.usable():
        return None
    return f"no description of the terminal TERM names ({term!r}) here: plain lines, not the full screen"


if __name__ == "__main__":
    sys.exit(main())
