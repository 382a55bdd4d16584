"""``notty-client [HOST:PORT] [--name NAME] [--forget]``: play Notty in a terminal.

With no address it starts a server inside this process and seats you at a
table against the expert bot, at medium level: the one-command way to play.
On a terminal it offers line editing, history and tab completion, and server
updates never garble what you are typing. With input from a pipe or file it is
scriptable: plain text, and each game action waits for your turn before it is
sent.

Against a server it keeps its seat token on disk (:mod:`client.tokens`), so a
client that crashed, was killed or quit mid-game takes its seat back when run
again with the same address and name.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import unicodedata
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import trio

from protocol import (
    DEFAULT_LEVEL,
    DEFAULT_PORT,
    NAME,
    PROTOCOL_VERSION,
    Bye,
    Connection,
    ConnectionState,
    CreateTable,
    Error,
    Goodbye,
    Hello,
    Hint,
    Left,
    ListTables,
    LocalProtocolError,
    Message,
    Ping,
    Pong,
    ProtocolError,
    Seated,
    Sender,
    State,
    Tables,
    Watching,
    Welcome,
)

from .commands import DEFAULT_BOT, Reply, completions, interpret, is_number, why_not
from .render import colour_cards_in, state_text, wire_cards
from .tokens import SeatStore, StoredSeat, server_key

#: The protocol's rule for a name (:data:`protocol.NAME`) in words, for the user.
NAME_RULE = (
    f"{NAME.low} to {NAME.high} ASCII letters, digits, spaces, '_', '.' or '-', "
    "starting with a letter or digit"
)
#: The name when the login name has nothing the protocol allows.
DEFAULT_NAME = "player"
RECONNECT_SECONDS = 30.0
#: A ping after this long without sending: the server drops connections silent for 60 s.
HEARTBEAT_SECONDS = 20.0


class ConnectionLost(Exception):
    pass


class Terminal:
    """Where text goes: plain for pipes; on a terminal, printed above the line being typed."""

    def __init__(self, interactive: bool, colour: bool) -> None:
        self.interactive, self.colour = interactive, colour
        self.prompt = "notty> "
        self.reading = False

    def show(self, text: str) -> None:
        if self.interactive and self.reading:
            import readline

            buffer = readline.get_line_buffer()
            sys.stdout.write("\r\x1b[K" + text + "\n" + self.prompt + buffer)
        else:
            sys.stdout.write(text + "\n")
        sys.stdout.flush()


class Client:
    def __init__(
        self, terminal: Terminal, name: str, seats: SeatStore | None = None, server: str = ""
    ) -> None:
        self.terminal = terminal
        self.name = name
        self.seats = seats  # where the seat token is kept between runs; None: not kept
        self.server = server  # this server's key in ``seats``
        self.protocol = Connection(Sender.CLIENT)
        self.stream: trio.abc.Stream | None = None
        self.view: Mapping[str, Any] | None = None
        self.table: int | None = None
        self.token: str | None = None
        self.received = 0
        self.changed = trio.Event()
        self.game_over = False
        self.closing = False
        self.lost: str | None = None  # why the connection went, if it went by itself
        self.last_sent = 0.0  # trio time; set by each send, starting with hello
        self.pings = 0
        self.sending = trio.Lock()  # the heartbeat and the commands share the stream
        self.open_seats = 0  # seats the table we asked for keeps for others to join
        self.tables_seen: list[int] = []  # the numbers in the last table list, for tab completion
        self.tables_asked = 0  # table lists asked for and not yet answered; any other is seat news
        self.to_ask: list[Message] = []  # what a message just shown calls for, sent once it is read

    # -- the connection ------------------------------------------------------------

    async def connect(self, host: str, port: int) -> None:
        self.stream = await trio.open_tcp_stream(host, port)
        self.protocol = Connection(Sender.CLIENT)
        self.open_seats = 0  # a table asked for on a lost connection is not waiting here
        await self.send(Hello(PROTOCOL_VERSION, self.name, self.token))

    async def send(self, message: Message, quiet: bool = False) -> None:
        """Send, or say why not (unless ``quiet``: the heartbeat's ping is not the user's doing)."""
        assert self.stream is not None
        async with self.sending:  # frames go out whole and in the order the protocol saw them
            try:
                data = self.protocol.send(message)
            except LocalProtocolError:
                if not quiet:
                    self.terminal.show(why_not(message, self.protocol.state, self.table))
                return
            if isinstance(message, CreateTable):  # before sending: the reply may be read first
                self.open_seats = message.seats - 1 - len(message.bots)
            elif isinstance(message, ListTables):
                self.tables_asked += 1
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as error:
                raise ConnectionLost(str(error)) from None
            self.last_sent = trio.current_time()

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
        assert self.stream is not None
        while True:
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as error:
                raise ConnectionLost(str(error)) from None
            if not data:
                if self.protocol.state is ConnectionState.CLOSED:
                    return
                raise ConnectionLost("the server closed the connection")
            try:
                self.protocol.receive_data(bytes(data))
                while (message := self.protocol.next_event()) is not None:
                    self.on_message(message)
            except ProtocolError as error:
                raise ConnectionLost(f"the server broke the protocol: {error}") from None
            while self.to_ask:
                await self.send(self.to_ask.pop(0), quiet=True)
            if self.protocol.state is ConnectionState.CLOSED:
                return

    def on_message(self, message: Message) -> None:
        colour = self.terminal.colour
        show = self.terminal.show
        match message:
            case Pong():
                return  # the heartbeat's answer: not news, and not the reply a script waits for
            case Welcome(_, server):
                resuming = ""
                if self.token:
                    at = f" at table {self.table}" if self.table is not None else ""
                    resuming = f" (resuming your seat{at})"
                show(f"connected to {server}{resuming}")
            case Tables(tables):
                if not self.tables_asked:  # news of our waiting table: not the list to complete from,
                    for info in tables:  # nor the reply a script waits for
                        show(self._table_line(info))
                    return
                self.tables_asked -= 1
                self.tables_seen = [info["table"] for info in tables]
                if not tables:
                    show("no tables yet: 'new' creates one")
                for info in tables:
                    show(self._table_line(info))
            case Seated(table, seat, token):
                self.table, self.token = table, token
                problem = self.keep_seat(StoredSeat(token, table))  # on disk before the user is told
                show(f"you sit at table {table}, seat {seat}")
                if problem:
                    show(f"(your seat will not be resumed after a restart: {problem})")
                if self.open_seats > 0:
                    others = "1 more player" if self.open_seats == 1 else f"{self.open_seats} more players"
                    show(
                        f"waiting for {others}: they type 'join {table}'; "
                        "'start' begins now, with expert bots in the empty seats"
                    )
                self.open_seats = 0
            case Watching(table):
                self.table = table
                show(f"you are watching table {table}")
            case Left(table):
                self.back_to_lobby()
                show(f"you left table {table}")
            case State(table, view, events):
                self.view = view
                self.game_over = view["end_reason"] is not None
                if self.game_over and view["seat"] is not None:
                    self.drop_seat()  # nothing left to resume
                show(state_text(table, view, events, colour))
            case Error("bad-token", _, _):
                gone = f" at table {self.table}" if self.table is not None else ""
                self.back_to_lobby()
                show(
                    f"your seat{gone} is gone (its game is over, or had not begun: a seat is kept only once "
                    "the game starts); you are in the lobby"
                )
                if self.terminal.interactive:  # as on arriving without a seat: show what could be joined
                    self.to_ask.append(ListTables())
            case Hint(size, best, alternatives, outs):
                if not size:
                    show("hint: nothing can be discarded now")
                else:
                    groups = "  ".join(wire_cards(group, colour) for group in best)
                    show(f"hint: discard {size} cards: {groups}")
                    for other in alternatives:
                        show(f"      or: {wire_cards(other, colour)}")
                if outs:
                    shown = ", ".join(f"{colour_cards_in(o['card'], colour)} (+{o['gain']})" for o in outs)
                    show(f"outs: {shown}")
            case Error(code, text, rule):
                self.open_seats = 0  # perhaps the table we asked for: no seat waits now
                show(f"refused: {text}" + (f" [{rule}]" if rule else f" [{code}]"))
            case Goodbye(reason):
                show(f"server says goodbye: {reason}")
            case _:
                pass
        self.received += 1
        self.changed.set()
        self.changed = trio.Event()

    def _table_line(self, info: Mapping[str, Any]) -> str:
        seats = ", ".join(seat["name"] or "(free)" for seat in info["seats"])
        status = "over" if info["over"] else "playing" if info["started"] else "waiting"
        free = not info["started"] and any(seat["name"] is None for seat in info["seats"])
        then = f"'join {info['table']}'" if free else f"'watch {info['table']}'"
        if info["table"] == self.table:
            then = "you are here"
        kind = f"{info['preset']}, level {info['level']}, {status}"
        return f"table {info['table']}: {kind}, seats: {seats} · {then}"

    def keep_seat(self, seat: StoredSeat) -> str | None:
        """Save the seat for the next run; why not, if it could not be saved."""
        return None if self.seats is None else self.seats.put(self.server, self.name, seat)

    def drop_seat(self) -> None:
        if self.seats is not None and self.token is not None:
            self.seats.forget(self.server, self.name, self.token)

    def back_to_lobby(self) -> None:
        """No table any more: nothing to resume, nothing to show, no game whose end stops a script."""
        self.drop_seat()
        self.table, self.token, self.view = None, None, None
        self.game_over = False  # else a script's moves at its next table are dropped as too late
        self.open_seats = 0

    # -- scripted input -------------------------------------------------------------

    def closed(self) -> bool:
        return self.protocol.state is ConnectionState.CLOSED

    def my_turn(self) -> bool:
        view = self.view
        return (
            view is not None
            and view["end_reason"] is None
            and view["seat"] is not None
            and view["current"] == view["seat"]
            and bool(view["legal"])
        )

    async def wait_for(self, ready: Any, timeout: float) -> bool:
        with trio.move_on_after(timeout):
            while not ready():
                await self.changed.wait()
            return True
        return False


async def _read_lines(terminal: Terminal, send: trio.MemorySendChannel[str | None]) -> None:
    """Lines from stdin, read in a thread (readline's editing and history on a terminal)."""
    async with send:
        while True:
            if terminal.interactive:
                terminal.reading = True
                try:
                    line = await trio.to_thread.run_sync(_input, terminal.prompt, abandon_on_cancel=True)
                finally:
                    terminal.reading = False
            else:
                line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
                line = line.rstrip("\n") if line else None
            await send.send(line)
            if line is None:
                return


def _input(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def _completer(client: Client) -> Any:
    def complete(text: str, state: int) -> str | None:
        import readline

        before = readline.get_line_buffer()[: readline.get_begidx()]  # the cursor may be mid-line
        options = completions(before, text, client.view, client.tables_seen)
        return options[state] if state < len(options) else None

    return complete


async def run(
    address: tuple[str, int] | None,
    name: str,
    terminal: Terminal,
    forget: bool = False,
    seats: SeatStore | None = None,
) -> int:
    async with trio.open_nursery() as nursery:
        if address is None:
            from server.cli import make_host
            from server.net import NottyServer

            server = NottyServer(make_host("notty (built in)", grace=60.0))
            listeners = await nursery.start(server.serve, "127.0.0.1", 0)
            address = ("127.0.0.1", listeners[0].socket.getsockname()[1])
            first: list[Message] = [CreateTable("classic", 2, (DEFAULT_BOT,), level=DEFAULT_LEVEL)]
            client = Client(terminal, name)  # this server dies with us: nothing worth keeping
        else:
            first = []
            seats = seats or SeatStore()
            client = Client(terminal, name, seats, server_key(*address))
            if forget:
                dropped = seats.forget(client.server, name)
                terminal.show(
                    f"forgot your seat at table {dropped.table} on {client.server}"
                    if dropped
                    else f"no seat kept for {name} on {client.server}"
                )
            elif stored := seats.get(client.server, name):
                client.token, client.table = stored.token, stored.table
            if terminal.interactive and client.token is None:
                first = [ListTables()]  # a person arriving sees what they could join
        code = await _play(client, address, terminal, first)
        nursery.cancel_scope.cancel()
    return code


async def _play(client: Client, address: tuple[str, int], terminal: Terminal, first: list[Message]) -> int:
    host, port = address
    try:
        await client.connect(host, port)
    except OSError as error:
        sys.stderr.write(f"notty-client: cannot connect to {host}:{port}: {error.strerror or error}\n")
        return 2
    if terminal.interactive:
        import readline

        readline.set_completer(_completer(client))
        readline.set_completer_delims(" ")
        readline.parse_and_bind("tab: complete")
        terminal.show("type 'help' for the commands")
    lines_send, lines = trio.open_memory_channel[str | None](64)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_read_lines, terminal, lines_send)
        while True:
            client.lost = None
            async with trio.open_nursery() as session:
                session.start_soon(_then_stop, client.receive_forever, client, session.cancel_scope)
                session.start_soon(_then_stop, client.heartbeat, client, session.cancel_scope)
                try:
                    if await client.wait_for(lambda: client.protocol.state is not ConnectionState.HELLO, 10):
                        for message in first:  # the built-in server's table, or the list: wait for the answer
                            count = client.received
                            await client.send(message)
                            await client.wait_for(lambda count=count: client.received > count, 10)
                        first = []
                    await _commands(client, lines, terminal)
                except ConnectionLost as lost:
                    client.lost = str(lost)
                session.cancel_scope.cancel()
            if client.lost is None or client.closing:
                nursery.cancel_scope.cancel()
                return 0
            terminal.show(f"connection lost ({client.lost}); reconnecting")
            if not await _reconnect(client, host, port):
                sys.stderr.write(f"notty-client: lost the connection to {host}:{port}: {client.lost}\n")
                nursery.cancel_scope.cancel()
                return 1
    return 0  # pragma: no cover


async def _then_stop(work: Callable[[], Awaitable[None]], client: Client, scope: trio.CancelScope) -> None:
    """Run one of the session's tasks; when it ends, for whatever reason, the session ends."""
    try:
        await work()
    except ConnectionLost as lost:
        client.lost = str(lost)
    finally:
        scope.cancel()


async def _reconnect(client: Client, host: str, port: int) -> bool:
    deadline = trio.current_time() + RECONNECT_SECONDS
    delay = 0.2
    while trio.current_time() < deadline:
        await trio.sleep(delay)
        try:
            await client.connect(host, port)
            return True
        except (OSError, ConnectionLost):
            delay = min(delay * 2, 5.0)
    return False


async def _commands(client: Client, lines: trio.MemoryReceiveChannel[str | None], terminal: Terminal) -> None:
    """Act on each typed line; at the end of input, let the current output finish and say bye."""
    async for line in lines:
        if line is None:
            break
        reply: Reply = interpret(line, client.view)
        if reply.say:
            terminal.show(reply.say)
        if reply.quit:
            break
        for message in reply.messages:
            if reply.action and not terminal.interactive:
                # Scripted: wait for our turn (or the end of the game) before acting.
                await client.wait_for(lambda: client.my_turn() or client.game_over, 3600)
                if client.game_over:
                    continue
            count = client.received
            await client.send(message)
            if not terminal.interactive:
                await client.wait_for(lambda count=count: client.received > count, 10)
    if not terminal.interactive:  # let what is in flight arrive
        while await client.wait_for(lambda count=client.received: client.received > count, 0.5):
            pass
    client.closing = True
    if client.seats is not None and client.token is not None and not client.game_over:
        if client.view is None:  # the game has not started: the server frees the seat
            client.drop_seat()
        else:
            terminal.show(
                f"your seat at table {client.table} is kept: "
                f"run notty-client {client.server} --name {shlex.quote(client.name)} again to take it back"
            )
    if not client.closed():
        await client.send(Bye())
        await client.wait_for(client.closed, 2)


def parse_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host:
        return text, DEFAULT_PORT
    if not is_number(port) or not 0 < int(port) < 65536:
        raise ValueError(f"bad port in {text!r}")
    return host.strip("[]"), int(port)


def name_from_login(login: str) -> str:
    """A name the protocol accepts, made of a login name: letters folded to ASCII, the rest dropped."""
    name = ""
    for char in unicodedata.normalize("NFKD", login):  # 'é' becomes 'e' and an accent, which goes
        if _acceptable(name + char):
            name += char
    return name if _acceptable(name) else DEFAULT_NAME


def _acceptable(name: str) -> bool:
    try:
        NAME.check(name, "name")
    except ProtocolError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="notty-client", description="Play Notty in your terminal.")
    parser.add_argument(
        "address", nargs="?", help="HOST:PORT of a notty-server (default: play here, against bots)"
    )
    parser.add_argument(
        "--name",
        help=f"your name at the table: {NAME_RULE} (default: your login name, folded to ASCII)",
    )
    parser.add_argument(
        "--forget",
        action="store_true",
        help="drop the seat kept for this server and name instead of resuming it",
    )
    args = parser.parse_args(argv)
    try:
        address = parse_address(args.address) if args.address else None
    except ValueError as error:
        parser.error(str(error))
    if args.name is None:
        name = name_from_login(os.environ.get("USER", ""))
    else:
        name = args.name
        if not _acceptable(name):
            shown = repr(name) if len(name) <= 40 else f"{name[:40]!r}…"  # a pasted page need not come back
            parser.error(f"argument --name: the server would refuse {shown}: a name is {NAME_RULE}")
    interactive = sys.stdin.isatty()
    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    try:
        return trio.run(run, address, name, Terminal(interactive, colour), args.forget)
    except* KeyboardInterrupt:  # Ctrl-C, which trio delivers inside an exception group; others go on
        pass
    return 130


if __name__ == "__main__":
    sys.exit(main())
