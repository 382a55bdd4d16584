"""Load: many clients over loopback against notty-server, measured against a bare Trio echo server.

    .venv/bin/python bench/load.py [--clients 1000] [--seconds 20] [--warmup 2] [--turn-limit 20]
        [--think 0] [--seed 1] [--markdown] [--profile FILE]

Three servers, each a separate process, driven in turn by this process (one Trio
event loop, one task per connection). On a 2-core machine the server under test
has one core and this load generator the other.

* **echo ceiling** -- a bare Trio server (``load.py --echo-server``) that echoes
  length-prefixed msgpack frames through the project's own framing
  (``protocol.FrameDecoder`` and ``protocol.encode_frame``) and nothing above it.
  The clients form tables of three; at each table one request is outstanding at
  a time, the seats taking turns, and each request is the frame of an ``act``.
* **fan-out floor** -- what an action's I/O alone costs with the game server's
  own socket layer (``load.py --fanout-server``, :mod:`server.sockets`): the same
  tables and requests, but each request is answered with one frame of a
  ``state``'s size sent to all three seats of its table (one decode, one encode,
  three sends), as a move is. It is not a target; it splits the gap between the
  echo and the game into the fan-out every action needs and the game's own work.
* **game** -- ``notty-server`` with a fresh database. The same clients form the
  same tables: one creates a table of Notty, variant ``classic``, for three humans
  (protocol ``create_table``: no bots, no turn timer, a short ``turn_limit``
  option), two join. Each seat, when a ``state``'s view says it is its turn,
  sends one of the view's ``legal`` actions (a seeded policy: discard a group if
  it can, else draw one, now and then steal first, then end) and times the round
  trip to the ``state`` that answers it. A view with a ``result`` ends the game:
  it is left and a new table formed.

All are measured the same way: ``--warmup`` seconds after every table is up,
then ``--seconds`` of counting. Reported: requests per second, round-trip latency
p50/p99/max, the CPU each process used (and the server's per request), the game
server's memory per table (VmRSS before the clients connect and with every table
playing), errors, connections the server closed and tables that stopped moving.

Two ratios compare the game with the echo ceiling. The **CPU ratio** -- the echo
server's CPU per round trip over the game server's CPU per action -- is the one
to read: it is what the game's own work costs, whatever else the machine is
doing. The throughput ratio (game actions/s over echo round trips/s) is the
issue's target, but on a shared 2-core machine it also measures the load
generator and the neighbours.

Seats act as fast as the server allows, so the loop is closed: with one action
outstanding per table, the mean round trip is tables / throughput (Little's
law). ``--think S`` instead waits a random time, S seconds on average, before
each request, which shows the latency at a people's pace rather than at
saturation; the ratio is then not measured.

Targets (issue: load): >= 50% of the echo ceiling, p99 < 50 ms at 1,000 clients,
no error and no dropped game. The run exits 1 on an error or a dropped game; a
missed performance target is a FAIL line.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import trio
from _machine import describe  # bench/ is on sys.path when this runs as a script

from protocol import PROTOCOL_VERSION, Act, CreateTable, FrameDecoder, Hello, Join, encode_frame
from server.sockets import NonBlockingSocket, address_text

HOST = "127.0.0.1"
GAME = "notty"
VARIANT = "classic"
SEATS = 3
#: The three connections of one table, in seat order.
Seats = list["Wire"]
#: A table silent this long when the clock stops (no seat thinking on purpose), or a request still
#: unanswered this long after, is a dropped game.
STALL_SECONDS = 5.0
TARGET_RATIO = 0.5
TARGET_P99_MS = 50.0
TARGET_CLIENTS = 1000
#: At most this many connections are being opened at once (the listen backlog is finite).
CONNECT_AT_ONCE = 100
#: The request of the echo ceiling: the frame of a typical ``act``.
ECHO_FRAME = encode_frame(Act("draw 1").to_wire())
#: Scripted seats act far faster than people, so the per-connection rate limit would refuse
#: them. The server still charges its token buckets on every message: the work is the same.
UNLIMITED_RATE = ["--rate", "1000000", "--burst", "1000000"]

#: The fan-out floor's answer is the size of a typical ``state`` (the game sends about 350 bytes).
FANOUT_PADDING = "x" * 320

_LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
_BYE = encode_frame({"type": "bye"})
_LEAVE = encode_frame({"type": "leave"})


@dataclass(frozen=True)
class Settings:
    clients: int
    seconds: float
    warmup: float
    turn_limit: int
    think: float
    seed: int

    @property
    def tables(self) -> int:
        return self.clients // SEATS


# -- the echo server ----------------------------------------------------------------


async def _echo(stream: trio.SocketStream) -> None:
    """Decode every frame and encode it back: the least any server on this stack does per message."""
    frames = FrameDecoder()
    try:
        while True:
            data = await stream.receive_some(65536)
            if not data:
                return
            frames.receive_data(data)
            replies = []
            while (body := frames.next_frame()) is not None:
                replies.append(encode_frame(body))
            if replies:
                await stream.send_all(b"".join(replies))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return


def serve(handler: Callable[[trio.SocketStream], Awaitable[None]], port: int) -> int:
    """Run one of the bench's servers until SIGTERM, saying where it listens as notty-server does."""
    _raise_file_limit(20_000)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    async def listen() -> None:
        listeners = await trio.open_tcp_listeners(port, host=HOST)
        print(f"listening on {address_text(listeners[0].socket.getsockname())}", file=sys.stderr, flush=True)
        await trio.serve_listeners(handler, listeners)

    trio.run(listen)
    return 0


# -- the fan-out floor server ---------------------------------------------------------


def _fanout() -> Callable[[trio.SocketStream], Awaitable[None]]:
    tables: dict[int, list[NonBlockingSocket]] = {}

    async def seat(stream: trio.SocketStream) -> None:
        """A ``sit`` frame names the table; every later frame is answered to everyone sitting there."""
        sock = NonBlockingSocket.from_stream(stream, max_backlog=1024)
        frames = FrameDecoder()
        table: list[NonBlockingSocket] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sock.flush)
            while data := await sock.receive(65536):
                frames.receive_data(data)
                while (body := frames.next_frame()) is not None:
                    if body["type"] == "sit":
                        table = tables.setdefault(body["table"], [])
                        table.append(sock)
                        continue
                    answer = encode_frame({"type": "state", "n": body["n"], "view": FANOUT_PADDING})
                    for other in table:
                        other.send(answer)
            sock.close()

    return seat


# -- processes ------------------------------------------------------------------------


def _raise_file_limit(wanted: int) -> None:
    """One descriptor per connection on each side: lift the soft limit as far as allowed.

    Child processes inherit it, so notty-server gets the same.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int

    def rss_kib(self) -> int:
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError(f"no VmRSS for process {self.process.pid}")

    def cpu_seconds(self) -> float:
        """User plus system time of the server process so far."""
        with open(f"/proc/{self.process.pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def running(name: str, command: list[str], log: Path) -> Iterator[Server]:
    """A server process on a free port; its log goes to a file, so a full pipe never stalls it."""
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=out)
    try:
        deadline = time.monotonic() + 30
        while not (found := _LISTENING.search(log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start:\n{log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)
        yield Server(process, int(found.group(1)))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _notty_server() -> Path:
    return Path(sys.executable).parent / "notty-server"


def server_flags(settings: Settings) -> list[str]:
    """Only the limits the defaults would hit: the message rate, and connections or tables past theirs
    (in all and from one address)."""
    usage = subprocess.run([_notty_server(), "--help"], capture_output=True, text=True, check=True).stdout
    flags: list[str] = []
    if "--rate" in usage:
        flags += UNLIMITED_RATE
    if "--max-connections" in usage and settings.clients + 10 > 2000:
        flags += ["--max-connections", str(settings.clients + 10)]
    if "--max-tables" in usage and settings.tables + 10 > 1000:
        flags += ["--max-tables", str(settings.tables + 10)]
    # Every generated client comes from 127.0.0.1.
    if "--max-connections-per-address" in usage and settings.clients + 10 > 200:
        flags += ["--max-connections-per-address", str(settings.clients + 10)]
    if "--connection-rate" in usage:  # and opens them as fast as the server accepts them
        flags += ["--connection-rate", "1000000", "--connection-burst", "1000000"]
    if "--max-tables-per-address" in usage and settings.tables + 10 > 50:
        flags += ["--max-tables-per-address", str(settings.tables + 10)]
    if "--address-rate" in usage:  # one address plays every seat, at machine speed
        flags += ["--address-rate", "1000000", "--address-burst", "1000000"]
    if "--max-games-per-hour" in usage:  # tables are formed anew as games end, many an hour
        flags += ["--max-games-per-hour", "1000000"]
    return flags


# -- the load generator: shared pieces ---------------------------------------------------


class Wire:
    """A client connection without the protocol layer's checks: the generator must stay cheap."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()
        self.received = 0  # bytes
        self.closed = False  # by the server

    async def send(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def _more(self) -> bool:
        data = await self.stream.receive_some(65536)
        if not data:
            self.closed = True
            return False
        self.received += len(data)
        self.buffer += data
        return True

    async def receive(self) -> dict[str, Any] | None:
        """The next frame's map, or None at the end of the stream."""
        buffer = self.buffer
        while True:
            if len(buffer) >= 4:
                end = 4 + int.from_bytes(buffer[:4], "big")
                if len(buffer) >= end:
                    body: dict[str, Any] = msgpack.unpackb(buffer[4:end], raw=False)
                    del buffer[:end]
                    return body
            if not await self._more():
                return None

    async def receive_bytes(self, count: int) -> bytes | None:
        while len(self.buffer) < count:
            if not await self._more():
                return None
        chunk = bytes(self.buffer[:count])
        del self.buffer[:count]
        return chunk


@dataclass
class Clock:
    """The measured window (requests answered inside it count) and the requests still unanswered."""

    start: float = math.inf
    end: float = math.inf
    stopping: bool = False
    in_flight: int = 0

    def inside(self, now: float) -> bool:
        return self.start <= now <= self.end


@dataclass
class Phase:
    """What one server did under load."""

    requests: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds
    errors: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # connections the server closed, stalled tables
    seconds: float = 0.0
    server_cpu: float = 0.0  # seconds, inside the window
    generator_cpu: float = 0.0
    received: int = 0  # bytes the clients received inside the window
    games_started: int = 0
    games_finished: int = 0
    rss_before_kib: int = 0
    rss_after_kib: int = 0
    tables: int = 0
    setup_seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        """Nearest-rank percentile of the round trips, in ms."""
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000

    @property
    def cpu_per_request(self) -> float:
        """Server CPU seconds per request answered inside the window."""
        return self.server_cpu / self.requests if self.requests else math.nan

    @property
    def memory_per_table_kib(self) -> float:
        return (self.rss_after_kib - self.rss_before_kib) / self.tables if self.tables else 0.0


async def _connect(port: int, count: int) -> list[Wire]:
    """Open ``count`` connections, a bounded number at a time."""
    streams: list[trio.SocketStream | None] = [None] * count
    limiter = trio.CapacityLimiter(CONNECT_AT_ONCE)

    async def one(index: int) -> None:
        async with limiter:
            streams[index] = await trio.open_tcp_stream(HOST, port)

    async with trio.open_nursery() as nursery:
        for index in range(count):
            nursery.start_soon(one, index)
    return [Wire(stream) for stream in streams if stream is not None]


async def _measure(
    server: Server,
    phase: Phase,
    clock: Clock,
    settings: Settings,
    on_start: Callable[[], None] = lambda: None,
    on_stop: Callable[[], None] = lambda: None,
) -> None:
    """Warm up, then count for ``settings.seconds``; then let the answers on their way arrive."""
    await trio.sleep(settings.warmup)
    on_start()
    cpu, mine = server.cpu_seconds(), time.process_time()
    clock.start = time.perf_counter()
    await trio.sleep(settings.seconds)
    clock.end = time.perf_counter()
    phase.seconds = clock.end - clock.start
    phase.server_cpu = server.cpu_seconds() - cpu
    phase.generator_cpu = time.process_time() - mine
    on_stop()
    clock.stopping = True
    with trio.move_on_after(STALL_SECONDS):  # late answers still come: none is lost
        while clock.in_flight:
            await trio.sleep(0.01)
    if clock.in_flight:
        phase.dropped.append(f"{clock.in_flight} request(s) unanswered {STALL_SECONDS:g} s after the window")


def _record(phase: Phase, clock: Clock, sent: float, now: float) -> None:
    clock.in_flight -= 1
    if clock.inside(now):
        phase.requests += 1
        phase.latencies.append(now - sent)


async def _think(settings: Settings, rng: random.Random) -> None:
    if settings.think:
        await trio.sleep(rng.expovariate(1 / settings.think))


# -- the echo ceiling ---------------------------------------------------------------------


async def _seat_tables(server: Server, settings: Settings, phase: Phase) -> tuple[list[Wire], list[Seats]]:
    """Every client connected, and grouped in threes: the tables of the echo and the fan-out."""
    started = time.perf_counter()
    wires = await _connect(server.port, settings.clients)
    tables = [wires[i * SEATS : (i + 1) * SEATS] for i in range(len(wires) // SEATS)]
    phase.tables = len(tables)
    phase.setup_seconds = time.perf_counter() - started
    return wires, tables


async def echo_load(server: Server, settings: Settings) -> Phase:
    phase, clock = Phase(), Clock()
    wires, tables = await _seat_tables(server, settings, phase)

    async def table(index: int, seats: list[Wire]) -> None:
        """One request outstanding per table, the seats taking turns: the game's shape."""
        rng = random.Random(f"{settings.seed}:echo:{index}")
        for turn in range(sys.maxsize):
            await _think(settings, rng)
            if clock.stopping:
                return
            wire = seats[turn % SEATS]
            sent = time.perf_counter()
            clock.in_flight += 1
            await wire.send(ECHO_FRAME)
            reply = await wire.receive_bytes(len(ECHO_FRAME))
            _record(phase, clock, sent, time.perf_counter())
            if reply is None:
                phase.dropped.append(f"echo table {index}: the server closed a connection")
                return
            if reply != ECHO_FRAME:
                phase.errors.append(f"echo table {index}: the echo differs from the request")

    async with trio.open_nursery() as nursery:
        for index, seats in enumerate(tables):
            nursery.start_soon(table, index, seats)
        await _measure(server, phase, clock, settings)
        nursery.cancel_scope.cancel()
    phase.received = phase.requests * len(ECHO_FRAME)
    for wire in wires:  # the echo server would only echo a bye: hang up
        await trio.aclose_forcefully(wire.stream)
    return phase


# -- the fan-out floor ------------------------------------------------------------------------


async def fanout_load(server: Server, settings: Settings) -> Phase:
    phase, clock = Phase(), Clock()
    wires, tables = await _seat_tables(server, settings, phase)
    for index, seats in enumerate(tables):
        for wire in seats:
            await wire.send(encode_frame({"type": "sit", "table": index}))
    waiting: dict[Wire, tuple[int, trio.Event]] = {}  # the request each seat waits on

    async def listen(index: int, wire: Wire) -> None:
        """Every seat reads every answer at its table; the asker's own copy answers its request."""
        while (body := await wire.receive()) is not None:
            number, answered = waiting.get(wire, (None, None))
            if answered is not None and body["n"] == number:
                answered.set()
        if not clock.stopping:
            phase.dropped.append(f"fan-out table {index}: the server closed a connection")

    async def table(index: int, seats: list[Wire]) -> None:
        rng = random.Random(f"{settings.seed}:fanout:{index}")
        for turn in range(sys.maxsize):
            await _think(settings, rng)
            if clock.stopping:
                return
            wire, answered = seats[turn % SEATS], trio.Event()
            waiting[wire] = (turn, answered)
            sent = time.perf_counter()
            clock.in_flight += 1
            await wire.send(encode_frame({"type": "act", "action": "draw 1", "n": turn}))
            await answered.wait()
            _record(phase, clock, sent, time.perf_counter())

    def start() -> None:
        phase.received = -sum(wire.received for wire in wires)

    def stop() -> None:
        phase.received += sum(wire.received for wire in wires)

    async with trio.open_nursery() as nursery:
        for index, seats in enumerate(tables):
            for wire in seats:
                nursery.start_soon(listen, index, wire)
            nursery.start_soon(table, index, seats)
        await _measure(server, phase, clock, settings, start, stop)
        nursery.cancel_scope.cancel()
    for wire in wires:
        await trio.aclose_forcefully(wire.stream)
    return phase


# -- the game ---------------------------------------------------------------------------------


def choose(view: dict[str, Any], rng: random.Random) -> str:
    """A seeded policy for a human in a hurry: discard a group if it can, draw once, then end.

    Now and then it steals first, so hands also shrink by theft and some games are won.
    """
    legal: list[str] = view["legal"]
    body = view["body"]  # Notty's part of the view
    discards = [action for action in legal if action.startswith("discard")]
    if discards:
        return rng.choice(discards)
    if not body["drew"] and not body["stole"]:
        steals = [action for action in legal if action.startswith("steal")]
        if steals and rng.random() < 0.2:
            return rng.choice(steals)
    if not body["drew"] and "draw 1" in legal:
        return "draw 1"
    return "end" if "end" in legal else legal[0]


@dataclass
class Table:
    """Three seats that play together, game after game: one creates each table, two join it."""

    index: int
    wires: list[Wire]
    up: trio.Event = field(default_factory=trio.Event)  # the first game has started
    rounds: list[tuple[trio.Event, list[int]]] = field(default_factory=list)  # per game: the table id
    last_activity: float = 0.0  # the last message to or from any of its seats
    thinking: bool = False  # a seat is waiting on purpose (--think): the table is not stalled
    playing: bool = False

    def round(self, number: int) -> tuple[trio.Event, list[int]]:
        while len(self.rounds) <= number:
            self.rounds.append((trio.Event(), []))
        return self.rounds[number]


class Refused(Exception):
    """The server answered with an error or closed the connection: recorded, and this seat stops."""


async def _expect(wire: Wire, kind: str, table: Table) -> dict[str, Any]:
    """The next message of ``kind``, skipping any ``state`` still on its way from the last game
    and the news (``tables``, ``notice``) the server sends while a table fills."""
    while True:
        message = await wire.receive()
        if message is None:
            raise Refused(f"the server closed the connection while we waited for {kind}")
        table.last_activity = time.perf_counter()
        if message["type"] == kind:
            return message
        if message["type"] not in ("state", "tables", "notice"):
            raise Refused(f"{message['type']} instead of {kind}: {message}")


def create_table(settings: Settings) -> CreateTable:
    """The ``create_table`` every table sends: Notty, classic, three humans, a turn limit."""
    return CreateTable(
        GAME,
        SEATS,
        VARIANT,
        bots=(),
        options={"turn_limit": settings.turn_limit},
        turn_seconds=0,
    )


async def _seat(table: Table, member: int, phase: Phase, clock: Clock, settings: Settings) -> None:
    wire = table.wires[member]
    rng = random.Random(f"{settings.seed}:{table.index}:{member}")
    create = encode_frame(create_table(settings).to_wire())
    try:
        for number in range(sys.maxsize):
            event, table_id = table.round(number)
            if member == 0:
                await wire.send(create)
                table_id.append((await _expect(wire, "seated", table))["table"])
                event.set()
            else:
                await event.wait()
                await wire.send(encode_frame(Join(table_id[0]).to_wire()))
                await _expect(wire, "seated", table)
            if not await _play(wire, table, member, phase, clock, settings, rng):
                return
            await wire.send(_LEAVE)
            await _expect(wire, "left", table)
    except Refused as refused:
        (phase.dropped if wire.closed else phase.errors).append(f"table {table.index}: {refused}")
        table.up.set()  # a table that never starts must not hold the run: its error is reported


async def _play(
    wire: Wire, table: Table, member: int, phase: Phase, clock: Clock, settings: Settings, rng: random.Random
) -> bool:
    """Play one game to its end; False if the clock stopped first."""
    sent: float | None = None
    while True:
        message = await wire.receive()
        now = time.perf_counter()
        if message is None:
            raise Refused("the server closed the connection during a game")
        table.last_activity = now
        if message["type"] in ("tables", "notice"):  # someone took a seat or left: news, not a move
            continue
        if message["type"] != "state":
            raise Refused(f"{message['type']} during a game: {message}")
        if sent is not None:  # only our action moves the game on our turn: this answers it
            _record(phase, clock, sent, now)
            sent = None
        view = message["view"]
        if member == 0 and not table.playing:
            table.playing = True
            phase.games_started += 1
            table.up.set()
        if view["result"] is not None:
            if member == 0:
                table.playing = False
                phase.games_finished += clock.inside(now)
            return not clock.stopping
        if view["legal"] and view["current"] == view["seat"]:
            table.thinking = True
            await _think(settings, rng)
            table.thinking = False
            table.last_activity = time.perf_counter()
            if clock.stopping:
                return False
            action = encode_frame({"type": "act", "action": choose(view, rng)})
            sent = time.perf_counter()
            clock.in_flight += 1
            await wire.send(action)


async def _close(wires: list[Wire], phase: Phase) -> None:
    """Say bye on every connection and read to its end; one the server closed first was dropped."""

    async def one(index: int, wire: Wire) -> None:
        try:
            if not wire.closed:
                await wire.send(_BYE)
                while await wire.receive() is not None:
                    pass
        except (trio.BrokenResourceError, trio.ClosedResourceError) as error:
            phase.dropped.append(f"connection {index}: {type(error).__name__} at bye")
        finally:
            await trio.aclose_forcefully(wire.stream)

    with trio.move_on_after(10):
        async with trio.open_nursery() as nursery:
            for index, wire in enumerate(wires):
                nursery.start_soon(one, index, wire)


async def game_load(server: Server, settings: Settings) -> Phase:
    phase, clock = Phase(), Clock()
    phase.rss_before_kib = server.rss_kib()
    started = time.perf_counter()
    wires = await _connect(server.port, settings.clients)
    for index, wire in enumerate(wires):
        await wire.send(encode_frame(Hello(PROTOCOL_VERSION, f"load{index}").to_wire()))
    for wire in wires:
        welcome = await wire.receive()
        if welcome is None or welcome["type"] != "welcome":
            raise RuntimeError(f"no welcome from notty-server: {welcome}")
    tables = [Table(i, wires[i * SEATS : (i + 1) * SEATS]) for i in range(len(wires) // SEATS)]
    phase.tables = len(tables)

    def start() -> None:
        phase.received = -sum(wire.received for wire in wires)

    def stop() -> None:
        phase.rss_after_kib = server.rss_kib()
        phase.received += sum(wire.received for wire in wires)
        now = time.perf_counter()
        for table in tables:
            if not table.thinking and now - table.last_activity > STALL_SECONDS:
                phase.dropped.append(f"table {table.index}: silent for {now - table.last_activity:.1f} s")

    async with trio.open_nursery() as nursery:
        for table in tables:
            table.last_activity = time.perf_counter()
            for member in range(SEATS):
                nursery.start_soon(_seat, table, member, phase, clock, settings)
        for table in tables:
            await table.up.wait()
        phase.setup_seconds = time.perf_counter() - started
        await _measure(server, phase, clock, settings, start, stop)
        nursery.cancel_scope.cancel()
    await _close(wires, phase)
    return phase


# -- the report -----------------------------------------------------------------------------


@dataclass
class Report:
    settings: Settings
    flags: list[str]
    echo: Phase
    fanout: Phase
    game: Phase
    server_tracebacks: int

    @property
    def ratio(self) -> float:
        """Throughput: game actions/s over echo round trips/s (wall clock)."""
        return self.game.rate / self.echo.rate if self.echo.rate else 0.0

    @property
    def cpu_ratio(self) -> float:
        """CPU-normalised: the echo server's CPU per round trip over the game server's CPU per action."""
        echo, game = self.echo.cpu_per_request, self.game.cpu_per_request
        return echo / game if game and not math.isnan(echo) and not math.isnan(game) else math.nan

    @property
    def fanout_ratio(self) -> float:
        return self.fanout.rate / self.echo.rate if self.echo.rate else 0.0

    @property
    def failures(self) -> list[str]:
        """Errors and dropped games: these fail the run."""
        found = [f"echo: {e}" for e in self.echo.errors + self.echo.dropped]
        found += [f"fan-out: {e}" for e in self.fanout.errors + self.fanout.dropped]
        found += [f"game: {e}" for e in self.game.errors + self.game.dropped]
        if self.server_tracebacks:
            found.append(f"game: {self.server_tracebacks} traceback(s) in notty-server's log")
        if not self.game.requests:
            found.append("game: no action was answered")
        return found

    def targets(self) -> list[tuple[str, str]]:
        game, clients = self.game, self.settings.clients
        ratio = f"throughput {game.rate:,.0f} actions/s is {self.ratio:.1%} of the echo ceiling's " + (
            f"{self.echo.rate:,.0f} round trips/s (target >= {TARGET_RATIO:.0%})"
        )
        p99 = game.percentile(0.99)
        at_target = TARGET_CLIENTS <= clients < TARGET_CLIENTS + SEATS  # 1,000 rounded up to whole tables
        scale = "" if at_target else f" at {TARGET_CLIENTS:,}; this run has {clients:,}"
        return [
            ("SKIP" if self.settings.think else _verdict(self.ratio >= TARGET_RATIO), ratio),
            (
                _verdict(p99 < TARGET_P99_MS),
                f"action round trip p99 {p99:.1f} ms at {clients:,} clients (target < {TARGET_P99_MS:g} ms"
                f"{scale})",
            ),
            (
                _verdict(not self.failures),
                f"{len(self.failures)} error(s) or dropped game(s) (target: none); "
                f"{game.games_finished:,} games finished in the window",
            ),
        ]


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def describe_setup(report: Report) -> list[str]:
    s = report.settings
    flags = " ".join(report.flags) or "(default limits)"
    pace = (
        "each seat acts as soon as a state says it is its turn"
        if not s.think
        else f"each seat waits {s.think * 1000:g} ms on average (exponential) before each request"
    )
    return [
        f"{s.clients:,} clients at {s.tables:,} tables of {SEATS} over loopback; {s.warmup:g} s warm-up, "
        f"then {s.seconds:g} s measured per server; {pace}.",
        f"Two processes on {os.cpu_count()} cores: the server under test (Python: one core at most) and this "
        "load generator (one Trio event loop, one task per connection).",
        f"Echo ceiling: a bare Trio server that decodes and re-encodes each {len(ECHO_FRAME)}-byte act frame "
        "with the project's framing and sends it back; one request outstanding per table, the seats taking "
        "turns.",
        "Fan-out floor: the same requests, each answered with one frame of a state's size to all 3 seats "
        "of its table, through the game server's own socket layer (server.sockets): an action's I/O and "
        "nothing else.",
        f"Game: notty-server {flags}, a fresh database; Notty classic, 3 human seats, turn limit "
        f"{s.turn_limit}: "
        "per action it checks the act, applies it, records it in SQLite and sends a state to each of the "
        "3 seats.",
    ]


HEADERS = (
    "server",
    "throughput",
    "p50 ms",
    "p99 ms",
    "max ms",
    "server CPU",
    "server CPU per request",
    "generator CPU",
    "bytes to clients per request",
    "errors",
    "dropped",
)


def _rows(report: Report) -> list[tuple[str, ...]]:
    rows = []
    for name, phase, unit in (
        ("bare Trio echo", report.echo, "round trips"),
        ("fan-out floor", report.fanout, "answers"),
        ("notty-server", report.game, "actions"),
    ):
        per_request = phase.received / phase.requests if phase.requests else 0
        cpu_per_request = phase.cpu_per_request * 1e6
        rows.append(
            (
                name,
                f"{phase.rate:,.0f} {unit}/s",
                f"{phase.percentile(0.5):.2f}",
                f"{phase.percentile(0.99):.2f}",
                f"{max(phase.latencies, default=math.nan) * 1000:.1f}",
                _share(phase.server_cpu, phase.seconds),
                f"{cpu_per_request:,.0f} us",
                _share(phase.generator_cpu, phase.seconds),
                f"{per_request:,.0f}",
                str(len(phase.errors)),
                str(len(phase.dropped)),
            )
        )
    return rows


def _share(cpu: float, seconds: float) -> str:
    return f"{cpu / seconds:.0%}" if seconds else "-"


def cpu_line(report: Report) -> str:
    """The CPU-normalised comparison: steady on a shared machine, where throughputs are not."""
    game, echo = report.game.cpu_per_request * 1e6, report.echo.cpu_per_request * 1e6
    paced = (
        " At a person's pace each figure includes the server's idle work: compare them at saturation."
        if report.settings.think
        else ""
    )
    return (
        f"CPU: notty-server {game:,.0f} us of server CPU per action, the echo server {echo:,.0f} us per "
        f"round trip: CPU ratio {report.cpu_ratio:.1%} (echo per round trip over game per action).{paced}"
    )


def summary(report: Report) -> list[str]:
    game, s = report.game, report.settings
    lines = [
        cpu_line(report),
        f"Games: {game.games_started:,} started, {game.games_finished:,} finished inside the window; all "
        f"{game.tables:,} tables were playing {game.setup_seconds:.1f} s after the first connection.",
        f"Server memory: VmRSS {game.rss_before_kib / 1024:.1f} MiB before the clients connect, "
        f"{game.rss_after_kib / 1024:.1f} MiB at the end of the window: {game.memory_per_table_kib:,.0f} KiB "
        "per table (its 3 connections included).",
    ]
    if not s.think:
        lines.append(
            "Little's law: with one action outstanding per table, the mean round trip is tables / throughput "
            f"= {s.tables / game.rate * 1000 if game.rate else math.nan:.0f} ms: at saturation, latency is "
            "throughput."
        )
        of_floor = game.rate / report.fanout.rate if report.fanout.rate else 0.0
        lines.append(
            f"The fan-out floor reaches {report.fanout_ratio:.1%} of the echo ceiling; the game reaches "
            f"{of_floor:.1%} of the fan-out floor."
        )
    lines += [
        "Fairness: same generator, connections, tables and request shape for all three servers. A server CPU "
        "near 100% means the server was the bottleneck; a generator CPU near 100% would mean that phase "
        "measured the generator (for the echo: the ceiling understated, the ratio flattered).",
    ]
    return lines


def print_text(report: Report) -> None:
    print(f"machine: {describe()}")
    for line in describe_setup(report):
        print(line)
    print()
    rows = _rows(report)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(HEADERS)]
    for row in (HEADERS, *rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print()
    for line in summary(report):
        print(line)
    for verdict, text in report.targets():
        print(f"{verdict}: {text}")


def print_markdown(report: Report) -> None:
    print(f"Machine: {describe()}.")
    print()
    print(" ".join(describe_setup(report)))
    print()
    print("| " + " | ".join(HEADERS) + " |")
    print("|---|" + "---:|" * (len(HEADERS) - 1))
    for row in _rows(report):
        print("| " + " | ".join(row) + " |")
    print()
    for line in summary(report):
        print(f"- {line}")
    print()
    for verdict, text in report.targets():
        print(f"- {verdict}: {text}")


# -- main ---------------------------------------------------------------------------------------


def run(settings: Settings, workdir: Path, profile: Path | None) -> Report:
    flags = server_flags(settings)
    echo_command = [sys.executable, str(Path(__file__).resolve()), "--echo-server"]
    with running("the echo server", echo_command, workdir / "echo.log") as echo:
        echo_phase = trio.run(echo_load, echo, settings)
    fanout_command = [sys.executable, str(Path(__file__).resolve()), "--fanout-server"]
    with running("the fan-out server", fanout_command, workdir / "fanout.log") as fanout:
        fanout_phase = trio.run(fanout_load, fanout, settings)
    notty = [str(_notty_server())]
    if profile is not None:
        notty = [sys.executable, "-m", "cProfile", "-o", str(profile.resolve()), "-m", "server.cli"]
    notty += ["--host", HOST, "--port", "0", "--db", str(workdir / "load.db"), *flags]
    with running("notty-server", notty, workdir / "server.log") as game:
        game_phase = trio.run(game_load, game, settings)
    tracebacks = (workdir / "server.log").read_text(errors="replace").count("Traceback")
    return Report(settings, flags, echo_phase, fanout_phase, game_phase, tracebacks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--clients", type=int, default=1000, help="connections, rounded up to tables of 3 (default 1000)"
    )
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="seconds measured per server (default 20)"
    )
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before measuring (default 2)")
    parser.add_argument("--turn-limit", type=int, default=20, help="turns before a game ends (default 20)")
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean seconds a seat waits before each request (default 0)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for the seats' policy (default 1)")
    parser.add_argument("--markdown", action="store_true", help="print markdown for bench/RESULTS.md")
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="run notty-server under cProfile, stats to FILE (it slows the server: figures not comparable)",
    )
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fanout-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.echo_server:
        return serve(_echo, args.port)
    if args.fanout_server:
        return serve(_fanout(), args.port)
    if args.clients < SEATS:
        parser.error(f"--clients must be at least {SEATS}")
    if args.seconds <= 0 or args.warmup < 0 or args.think < 0 or not 1 <= args.turn_limit <= 100_000:
        parser.error("--seconds must be positive, --warmup and --think not negative, --turn-limit 1..100000")
    settings = Settings(
        -(-args.clients // SEATS) * SEATS, args.seconds, args.warmup, args.turn_limit, args.think, args.seed
    )
    _raise_file_limit(settings.clients + 1000)
    with tempfile.TemporaryDirectory(prefix="notty-load-") as workdir:
        report = run(settings, Path(workdir), args.profile)
    (print_markdown if args.markdown else print_text)(report)
    if report.failures:
        print(f"\n{len(report.failures)} ERROR(S) OR DROPPED GAME(S):", file=sys.stderr)
        for line in report.failures[:20]:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
