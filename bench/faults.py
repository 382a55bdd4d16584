"""Faults: repeatable fault runs against real notty-server processes.

    .venv/bin/python bench/faults.py [--scenarios kill,disk-full,second-server,floods] [--seed 1]
        [--markdown] [--workdir DIR]
        [--kills 100] [--kill-tables 6] [--min-delay 0.05] [--max-delay 1.0] [--turn-limit 40]
        [--disk-runs full,one-write,read-only] [--disk-tables 6] [--disk-kib 65536] [--margin-kib 256]
        [--disk-mode auto|tmpfs|rlimit]
        [--flood-phases lists,hints,bots,ochos-hints,frames] [--flood-seconds 10] [--listed-tables 200]
        [--server-path DIR]

One command runs every scenario with the defaults below (a few minutes on 2 cores); the flags pick
scenarios and sizes. Every server is ``notty-server --host 127.0.0.1 --port 0 --db PATH``, started
from this venv; its log goes to ``--workdir`` (default: a temporary directory, removed at the end).
``--server-path DIR`` puts DIR first on the servers' ``PYTHONPATH`` (the bench itself and its flooders
keep their own): a checkout of another commit, to measure its server with this bench. The floods
report says where the server's code came from.
``--seed`` fixes everything the bench chooses (kill moments, the players' moves, the faults' timing);
the server deals with its own randomness, so two runs play different games the same way.

Players are raw protocol clients (``protocol.Connection``): each human seat acts as soon as a
``state`` says it is its turn. A view is *acknowledged* to a seat when the seat receives the
``state`` carrying it; each state after a game's opening is one move, so a seat knows how many moves
its last view shows. The checks read the game record as the next server will: a copy of the database
files, opened with the server's own store (``server.store``) and replayed move by move with its own
engine (``server.record``), views built as the server builds them (``server.tables.states``).

* **kill** -- SIGKILL at random moments (uniform in ``--min-delay``..``--max-delay`` after each start,
  so some land while seats resume or tables form, most in play), ``--kills`` times, with
  ``--kill-tables`` tables at once: tables of two humans, of one human against bots (``bot_delay_ms``
  0) and of bots alone, watched. The server runs with every rate and per-address limit far above
  what the players use (the flags it has of ``--rate 10000 --burst 10000 ...``) and ``--grace 600``
  (no bot stands in for a seat before it resumes). "all tables playing" counts the kills that landed
  while every table was in play rather than forming or resuming. After each kill:
  every view acknowledged must be what the record's first K moves give (K = the moves the view
  shows; fewer than K recorded = moves *lost*, another view = *changed*); then a new server on the
  same database restores, every seat resumes with its token (``hello`` with ``token``; a spectator
  watches again) and the view it gets back must equal its last acknowledged view (*exact*), or,
  where the record holds moves the seat had not been sent yet (its own act in flight at the kill,
  or a bot's move), the record's latest view (*ahead*). Anything else is a *mismatch* (target 0).
* **disk-full** -- the database on a small tmpfs (``mount -t tmpfs``; if that fails, the server
  runs under ``RLIMIT_FSIZE`` set by ``preexec_fn`` and changed with ``prlimit``, and the report says
  so). 64 MiB by default: under writes that never pause the store lets its write-ahead log grow to
  about 39 MiB before it must start over, and at machine speed it grows by megabytes a second, so a
  smaller disk fills again within seconds of being freed. Three runs: ``full`` -- a filler file
  leaves ``--margin-kib`` free and the game's own writes fill it; ``one-write`` -- the filler
  leaves no room, and is deleted as soon as one write fails; ``read-only`` -- the tmpfs remounted
  read-only (Linux refuses while the server holds the database open for writing; then every write
  is made to fail with ``RLIMIT_FSIZE`` 0 instead, and the report says so). Expected: a move that
  could not be recorded is not acknowledged -- its table stops and its players get an ``error``
  saying the game could not be recorded -- while the server goes on serving the other tables
  (``one-write``: a table may also go on, if the server writes its change again once there is room,
  as long as nothing acknowledged is missing). Once the first table stops, or a failed write shows
  in the server's log, the fault is cleared (``full``: 1 s later); the tables play on for
  ``--after`` seconds, the server is stopped (SIGTERM) and started again on the same database, and
  every game is resumed and checked as after a kill. Reported: tables stopped (and any stopped after
  the fault cleared), whether the other tables kept playing and tables started after the fault
  played, the database's files at the end, acknowledged moves lost or changed (target 0).
* **second-server** -- a second server started on a database another server is using must exit 1
  with one line naming the first (its pid or port). Also: after the first is SIGKILLed, the next
  server starts (a crash must not leave the database locked).
* **floods** -- a canary table (one human seat played by the bench, thinking ``--think`` s on
  average, against one ``expert`` bot, Notty classic, ``bot_delay_ms`` 0) measures the bot's move
  latency (from the state before its move to the state of its move, minus the table's bot delay of
  0) and a pinger measures ``ping`` round trips, first idle, then while ONE other address
  (Linux routes all of 127/8 to lo, so the per-address limits count it apart from the
  canary's 127.0.0.1; each flood uses an address of its own, 127.0.0.2 to .9, as a flood's tables
  outlive it) floods at its full allowance, worked out from the server's default limits
  (its ``--help``): ``lists`` -- ``list_tables`` as fast as the rate limits allow with
  ``--listed-tables`` tables existing (waiting tables held by helper connections from 127.0.1.x);
  ``hints`` -- ``hint`` from seated connections at the hint rate limits; ``bots`` -- as many tables
  of bots alone as the address may have, watched so their bots play, a new game whenever one ends;
  ``ochos-hints`` -- as ``hints``, at Ochos Locos tables, whose hints play deals out in the worker
  threads (CPU that holds the GIL, where Notty's take microseconds); ``frames`` -- not paced to
  the allowance at all: 150 connections (3/4 of the per-address limit) each send, from hello on and
  as fast as the connection takes them, the ``ping`` costliest to decode that a server takes from a
  client (a body of at most ``MAX_CLIENT_FRAME`` bytes, its nonce as many empty maps as fit in lists
  of at most ``MAX_CLIENT_ITEMS``; its decode time in this process is printed), reading and dropping
  the replies, and connecting again at once when the server closes them. The server refuses the
  nonce (not a number), but only after decoding it, unless it drops the frame unread (over the rate).
  The flooder is a separate process, so the canary's clock is not its event loop. The server's CPU
  time (``/proc/PID/stat``) and the bench's are reported: the load generator and the server share
  the cores. Targets: bot move p99 <= idle p99 + 100 ms; ping p99 <= 20 ms.

A missed target prints FAIL (and the run exits 1); behaviour the server does not have yet is
reported as such ("server did not stop the table: FAIL"), never a crash.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import msgpack
import trio
from _machine import describe  # bench/ is on sys.path when this runs as a script

from protocol import (
    MAX_CLIENT_FRAME,
    MAX_CLIENT_ITEMS,
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Connection,
    CreateTable,
    Error,
    Goodbye,
    Hello,
    Join,
    Leave,
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
    Watch,
    Watching,
    Welcome,
    decode_body,
    encode_frame,
)
from server import tables
from server.journal import SavedGame
from server.record import dealt, game_of, replay_move
from server.store import Store

HOST = "127.0.0.1"
#: Each flood comes from one address of its own (a flood's tables outlive it, and would count
#: against the next flood's per-address limits).
#: ochos-hints floods from 127.0.0.5 to .8 (HINT_ADDRESSES).
FLOODERS = {
    "lists": "127.0.0.2",
    "hints": "127.0.0.3",
    "bots": "127.0.0.4",
    "ochos-hints": "127.0.0.5",
    "frames": "127.0.0.9",
}
BIN = Path(sys.executable).parent / "notty-server"
GAME, VARIANT = "notty", "classic"
SCENARIOS = ("kill", "disk-full", "second-server", "floods")
DISK_RUNS = ("full", "one-write", "read-only")
FLOOD_PHASES = ("lists", "hints", "bots", "ochos-hints", "frames")
#: The game each hint flood asks at: Notty's hints are cheap; Ochos Locos' play deals out (CPU).
HINT_GAMES = {"hints": (GAME, VARIANT), "ochos-hints": ("ochos-locos", "part4")}
#: How many addresses flood at once: Ochos Locos' hints from one address at its allowance keep the
#: worker threads busy a fifth of the time; from four, both threads nearly all of it.
HINT_ADDRESSES = {"hints": 1, "ochos-hints": 4}
#: The kinds of table the kill and disk-full players form, in turn.
KINDS = ("humans", "human+bots", "bots")
#: Rates and per-address limits far above what scripted players use: the flags the server has of
#: these are passed to the kill and disk-full servers. Seats keep their place for 10 minutes.
GENEROUS = {
    "--rate": "10000",
    "--burst": "10000",
    "--address-rate": "1000000",
    "--address-burst": "1000000",
    "--hint-rate": "1000",
    "--hint-burst": "1000",
    "--address-hint-rate": "1000",
    "--address-hint-burst": "1000",
    "--max-connections-per-address": "10000",
    "--connection-rate": "100000",
    "--connection-burst": "100000",
    "--max-tables-per-address": "10000",
    "--max-bot-tables-per-address": "10000",
    "--max-games-per-hour": "10000000",
    "--bot-only-delay": "0.01",
}
#: A flooder paces itself at this share of its allowance, so that it is not refused for jitter.
PACE = 0.95
#: The frames flood's connections: this share of the per-address limit (the audit that found costly
#: frames used 150 of 200), leaving room for those the server is still closing; at least FRAMES_LEAST.
FRAMES_SHARE, FRAMES_LEAST, FRAMES_MOST = 0.75, 20, 150
#: Checkouts whose code the servers run before this venv's (--server-path): another commit's server.
SERVER_PATH: list[str] = []
TARGET_PING_P99_MS = 20.0
TARGET_BOT_MARGIN_MS = 100.0

#: Every process the bench starts, so that none outlives it (see main).
_CHILDREN: list[subprocess.Popen[Any]] = []

_LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
_LIMIT = re.compile(r"(--[a-z][a-z-]*) N ((?:(?!--[a-z]).)*?)\(default ([0-9.]+)\)")
#: What the server logs when a write to the record fails (before and after fail-closed storage).
_WRITE_FAILED = re.compile(r"could not record", re.IGNORECASE)

GONE, OVER, STOPPED, CHECKED = "gone", "over", "stopped", "checked"
#: How a frame's body names its type ``welcome``, packed (the ``type`` key comes first).
_WELCOME = msgpack.packb("welcome")


# -- the server -------------------------------------------------------------------------------


def server_environment() -> dict[str, str]:
    """The environment a server runs in: this one, with ``--server-path`` first on ``PYTHONPATH``."""
    environment = dict(os.environ)
    paths = [*SERVER_PATH, *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    if paths:
        environment["PYTHONPATH"] = os.pathsep.join(paths)
    return environment


def server_code() -> str:
    """Where a server's code comes from, as ``notty-server`` imports it (its script's directory, not
    the working directory, is first on its path: ``-P``), with the checkout's commit if it has one."""
    found = subprocess.run(
        [sys.executable, "-P", "-c", "import server; print(server.__path__[0])"],
        env=server_environment(),
        capture_output=True,
        text=True,
    )
    package = found.stdout.strip() or f"(not found: {_first_line(found.stderr)})"
    commit = subprocess.run(
        ["git", "-C", str(Path(package).parent), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{package} (commit {commit})" if commit else package


def server_limits() -> dict[str, float]:
    """Every ``--flag N`` of ``notty-server --help`` with its default: the limits this server has."""
    usage = subprocess.run(
        [str(BIN), "--help"], capture_output=True, text=True, check=True, env=server_environment()
    ).stdout
    return {flag: float(value) for flag, _, value in _LIMIT.findall(" ".join(usage.split()))}


def generous_flags(limits: dict[str, float]) -> list[str]:
    flags = ["--grace", "600"]
    for flag, value in GENEROUS.items():
        if flag in limits:
            flags += [flag, value]
    return flags


class Server:
    """A notty-server process on a free port; a thread copies its stderr into ``lines`` and a log file
    (a pipe, not a file on the faulty disk, and never subject to its ``RLIMIT_FSIZE``)."""

    def __init__(
        self, db: Path, flags: Sequence[str], log: Path, preexec: Callable[[], None] | None = None
    ) -> None:
        self.command = [str(BIN), "--host", HOST, "--port", "0", "--db", str(db), *flags]
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=preexec,
            env=server_environment(),
        )
        _CHILDREN.append(self.process)
        self.lines: list[str] = []
        self.port: int | None = None
        self._log = log
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read(self) -> None:
        assert self.process.stderr is not None
        with open(self._log, "a", encoding="utf-8") as out:
            for raw in self.process.stderr:
                line = raw.decode("utf-8", "replace")
                self.lines.append(line)
                out.write(line)
                out.flush()
                if self.port is None and (found := _LISTENING.search(line)):
                    self.port = int(found.group(1))

    async def started(self, timeout: float = 30.0) -> bool:
        """Wait until it listens; False if it exited or took longer than ``timeout``."""
        deadline = trio.current_time() + timeout
        while self.port is None:
            if self.process.poll() is not None or trio.current_time() > deadline:
                await trio.to_thread.run_sync(self._reader.join, 2.0)
                return self.port is not None
            await trio.sleep(0.02)
        return True

    def kill(self) -> None:
        """SIGKILL: no goodbye, no clean-up, as in a crash."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    async def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM (the server says goodbye to everyone), SIGKILL if it takes longer than ``timeout``."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with trio.move_on_after(timeout):
                while self.process.poll() is None:
                    await trio.sleep(0.02)
            if self.process.poll() is None:
                self.kill()
        await trio.to_thread.run_sync(self._reader.join, 2.0)
        return self.process.wait()

    def cpu_seconds(self) -> float:
        """User plus system time of the server process so far (0 once it has exited)."""
        try:
            with open(f"/proc/{self.pid}/stat", encoding="ascii") as stat:
                parts = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")

    def count(self, pattern: re.Pattern[str]) -> int:
        return sum(1 for line in list(self.lines) if pattern.search(line))

    def tail(self, lines: int = 3) -> str:
        return " | ".join(line.strip() for line in self.lines[-lines:]) or "(no output)"


def _raise_file_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


# -- a protocol client --------------------------------------------------------------------------


class Gone(Exception):
    """The server went away, or would not take the connection."""


async def connect(port: int, source: str = HOST) -> trio.SocketStream:
    """A TCP connection to the server from ``source`` (any address of 127/8 reaches lo)."""
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    try:
        await sock.bind((source, 0))
        await sock.connect((HOST, port))
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


class Client:
    """A client whose every message is built and checked by ``protocol``."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.protocol = Connection(Sender.CLIENT)

    @classmethod
    async def open(cls, port: int, name: str, token: str | None = None, source: str = HOST) -> Client:
        """Connected and welcomed; :class:`Gone` if the server is not there."""
        try:
            stream = await connect(port, source)
        except OSError as error:
            raise Gone(f"cannot connect: {error.strerror or error}") from None
        client = cls(stream)
        await client.send(Hello(PROTOCOL_VERSION, name, token))
        message = await client.receive()
        if not isinstance(message, Welcome):
            await client.close()
            raise Gone(f"no welcome: {message}")
        return client

    async def send(self, message: Message) -> bool:
        """False if it could not go: the connection is closed, or the protocol does not allow it now."""
        try:
            data = self.protocol.send(message)
            await self.stream.send_all(data)
        except (LocalProtocolError, trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True

    async def receive(self) -> Message | None:
        """The next message, or None at the end of the connection (closed or reset).

        Raises :class:`ProtocolError` if the server sends something the protocol refuses.
        """
        while (message := self.protocol.next_event()) is None:
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return None
            if not data:
                return None
            self.protocol.receive_data(data)
        return message

    async def reply(self, *kinds: type[Message]) -> Message | None:
        """The next message of one of ``kinds``, or an error; None if the connection ends first."""
        while True:
            message = await self.receive()
            if message is None or isinstance(message, (*kinds, Error)):
                return message
            if isinstance(message, Goodbye):
                return None

    async def close(self) -> None:
        await trio.aclose_forcefully(self.stream)


def is_stop(error: Error) -> bool:
    """The server's word that a table stopped because its game could not be recorded."""
    return error.code == "not-recorded" or "record" in error.message.lower()


def choose(view: dict[str, Any], rng: random.Random) -> str:
    """A human in a hurry: discard a group if it can, usually draw, sometimes steal, then end."""
    legal: list[str] = view["legal"]
    body = view["body"]
    discards = [action for action in legal if action.startswith("discard")]
    if discards:
        return rng.choice(discards)
    steals = [action for action in legal if action.startswith("steal")]
    if steals and not body.get("stole") and rng.random() < 0.25:
        return rng.choice(steals)
    draws = [action for action in legal if action.startswith("draw")]
    if draws and not body.get("drew") and rng.random() < 0.9:
        return rng.choice(draws)
    return "end" if "end" in legal else rng.choice(legal)


# -- the record, as the next server will read it ------------------------------------------------


class RecordCopy:
    """The database files copied while no server runs, opened with the server's own store: what a
    server started now restores. A copy, so that the check changes nothing the next server sees."""

    def __init__(self, db: Path, scratch: Path) -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        copy = scratch / "record.db"
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(db, copy)
        if Path(f"{db}-wal").exists():
            shutil.copyfile(f"{db}-wal", f"{copy}-wal")
        self.store = Store(copy)

    def game(self, table: int) -> SavedGame | None:
        return self.store.game(table)

    def close(self) -> None:
        self.store.close()


def recorded_views(
    saved: SavedGame, wanted: set[tuple[int, int | None]]
) -> dict[tuple[int, int | None], Any]:
    """The view of each ``(moves, seat)`` in ``wanted``: the record's first ``moves`` moves replayed
    through the engine, the view built as the server builds a ``state`` (``seat`` None: a spectator)."""
    begun = saved.begun
    match = dealt(begun, random.Random(0))  # recorded outcomes only: the rng is never asked
    game = game_of(begun)
    # The table as the next server restores it (server.host.Host.restore), less what the bench's
    # players never do (leave, resign, autopilot) and the wall clock (see without_clock).
    table = tables.Table(
        id=begun.table,
        game=game,
        settings=game.settings(begun.variant, len(begun.seats), begun.options),
        # Each person's seat is theirs to come back to (the view's kept): any token will do here.
        seats=[
            tables.Seat(name=seat.name, bot=seat.bot, token_hash=None if seat.bot else b"kept")
            for seat in begun.seats
        ],
        creator=None,
        bot_delay=begun.bot_delay,
        turn_seconds=begun.turn_seconds,
        match=match,
    )
    views: dict[tuple[int, int | None], Any] = {}
    last = min(len(saved.moves), max((moves for moves, _ in wanted), default=0))
    for moves in range(last + 1):
        for key in wanted:
            if key[0] == moves:
                ((_, message),) = tables.states(table, (), [(0, key[1])])
                views[key] = message.to_wire()["view"]
        if moves < last:
            replay_move(match, saved.moves[moves])
    return views


def without_clock(view: Any) -> Any:
    """A view less how long its game took by the wall clock (``result.seconds``), which the record
    does not keep: a finished game's last view is otherwise the record's to the byte."""
    result = view.get("result") if isinstance(view, dict) else None
    if not isinstance(result, dict) or "seconds" not in result:
        return view
    return {**view, "result": {key: value for key, value in result.items() if key != "seconds"}}


_MISSING = object()


def diff(a: Any, b: Any, path: str = "view") -> str:
    """Where two views first differ, for a report line."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key, _MISSING) != b.get(key, _MISSING):
                return diff(a.get(key, _MISSING), b.get(key, _MISSING), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return diff(x, y, f"{path}[{index}]")
    return f"{path}: {_short(a)} != {_short(b)}"


def _short(value: Any) -> str:
    text = "(missing)" if value is _MISSING else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- settings and the report's sections ---------------------------------------------------------


@dataclass
class Settings:
    seed: int
    kills: int
    kill_tables: int
    min_delay: float
    max_delay: float
    turn_limit: int
    disk_runs: list[str]
    disk_tables: int
    disk_kib: int
    margin_kib: int
    disk_mode: str
    warmup: float
    fault_timeout: float
    after: float
    flood_phases: list[str]
    flood_seconds: float
    listed_tables: int
    think: float
    ping_every: float
    flood_connections: int | None


@dataclass
class Section:
    """One scenario's report: what ran, a table, verdicts, and what went wrong (at most 10 lines)."""

    title: str
    setup: list[str]
    headers: tuple[str, ...]
    rows: list[tuple[str, ...]]
    verdicts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _notes(problems: list[str], limit: int = 10) -> list[str]:
    notes = problems[:limit]
    if len(problems) > limit:
        notes.append(f"... and {len(problems) - limit} more")
    return notes


def _kinds(count: int, kinds: Sequence[str]) -> str:
    counted = Counter(kinds[i % len(kinds)] for i in range(count))
    names = {"humans": "2 humans", "human+bots": "a human against 1-2 bots", "bots": "2-3 bots, watched"}
    return ", ".join(f"{n} of {names[kind]}" for kind, n in counted.items())


# -- players: tables of humans and bots, played, killed, resumed ---------------------------------


@dataclass
class Seat:
    """One human seat, or the spectator of a table of bots (``index`` None)."""

    name: str
    index: int | None
    token: str | None = None
    view: dict[str, Any] | None = None  # the last view acknowledged
    moves: int | None = None  # how many moves that view shows
    acked_at: float = 0.0  # when it arrived (perf_counter)


@dataclass
class Game:
    group: int
    kind: str
    number: int
    request: CreateTable
    seats: list[Seat]
    table: int | None = None
    created_at: float = 0.0
    over_at: float | None = None  # when a seat saw its result
    stopped: str | None = None  # the server stopped it: the error's text
    stopped_at: float | None = None
    restored: int | None = None  # the moves the record held at the last fault (None: it has no game)
    restored_over: bool = False
    expected: dict[int | None, Any] = field(default_factory=dict)  # each seat's view after a restart
    dead: str | None = None  # why it can never be resumed (the group starts another)
    settled: bool = False  # checked for good: over, or dead

    @property
    def over(self) -> bool:
        return self.over_at is not None

    @property
    def moves(self) -> int:
        return max((seat.moves or 0 for seat in self.seats), default=0)

    @property
    def last_ack(self) -> float:
        return max(seat.acked_at for seat in self.seats)


@dataclass
class Group:
    """A few players who form one table after another."""

    index: int
    kind: str
    games: int = 0
    game: Game | None = None
    playing: bool = False  # every seat of its game has had a state from the current server


@dataclass
class Tally:
    resumes: int = 0
    exact: int = 0  # the resumed view is the last one acknowledged
    ahead: int = 0  # the record held moves the seat had not been sent: the record's view
    lost_moves: int = 0  # acknowledged, not in the record
    lossy: int = 0  # games found missing acknowledged moves (once per check)
    behind: int = 0  # resumed to fewer moves than the seat had been sent (counted in lost_moves)
    lost_games: int = 0  # acknowledged, and the record has no such game
    changed: int = 0  # acknowledged views the record's moves do not give
    wrong: int = 0  # resumed views that are neither
    refused: int = 0  # resumes of a game the record holds unfinished, refused
    ended_unseen: int = 0  # the record ended a game before its end reached the players
    abandoned: int = 0  # a seat's token never arrived (killed as the table formed): not resumable
    problems: list[str] = field(default_factory=list)

    @property
    def mismatches(self) -> int:
        return self.lossy + self.lost_games + self.changed + self.wrong + self.refused

    def problem(self, text: str) -> None:
        self.problems.append(text)


@dataclass
class Run:
    """What the players of a kill or disk-full run share."""

    seed: int
    turn_limit: int
    port: int = 0
    play: bool = True  # False: only resume every game and check it
    games: list[Game] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    cleared: trio.Event | None = None  # disk-full: the fault is over; stopped groups start again
    first_stop: float | None = None

    def new_game(self, group: Group) -> Game:
        group.games += 1
        rng = random.Random(f"{self.seed}:{group.index}:{group.games}")
        options = {"turn_limit": self.turn_limit}
        tag = f"g{group.index}"
        if group.kind == "humans":
            seats = [Seat(f"{tag}-ann", 0), Seat(f"{tag}-bob", 1)]
            request = CreateTable(GAME, 2, VARIANT, (), options, bot_delay_ms=0)
        elif group.kind == "human+bots":
            bots = tuple(rng.choice(("expert", "greedy", "random")) for _ in range(rng.choice((1, 2))))
            seats = [Seat(f"{tag}-cy", 0)]
            request = CreateTable(GAME, 1 + len(bots), VARIANT, bots, options, bot_delay_ms=0)
        else:
            bots = tuple(
                rng.choice(("expert", "greedy", "random", "random")) for _ in range(rng.choice((2, 3)))
            )
            seats = [Seat(f"{tag}-eve", None)]
            request = CreateTable(GAME, len(bots), VARIANT, bots, options, bot_delay_ms=0)
        game = Game(group.index, group.kind, group.games, request, seats, created_at=time.perf_counter())
        self.games.append(game)
        return game

    def check_resume(self, game: Game, seat: Seat, view: dict[str, Any]) -> None:
        tally = self.tally
        tally.resumes += 1
        if seat.moves is not None and game.restored is not None and seat.moves > game.restored:
            tally.behind += 1  # its lost moves were counted when the record was read
            return
        if seat.moves == game.restored and view == seat.view:
            tally.exact += 1
        elif view == game.expected.get(seat.index, _MISSING):
            tally.ahead += 1
        else:
            tally.wrong += 1
            expected = seat.view if seat.moves == game.restored else game.expected.get(seat.index)
            tally.problem(f"table {game.table}: {seat.name} resumed to another view: {diff(view, expected)}")


async def run_group(run: Run, group: Group) -> None:
    """Play the group's games on the current server until it goes away."""
    try:
        while True:
            game = group.game
            if game is None or game.over or game.dead or game.stopped:
                if game is not None and game.stopped and run.cleared is not None:
                    if run.cleared.is_set():  # stopped although the fault is over: do not spin
                        await trio.sleep(0.5)
                    await run.cleared.wait()
                game = group.game = run.new_game(group)
                clients = await start(run, game)
                resumed = False
            else:
                clients = await resume(run, game)
                if clients is None:
                    continue
                resumed = True
            if await play(run, group, game, clients, resumed) == GONE:
                return
    except Gone:
        return
    except ProtocolError as error:
        run.tally.problem(f"group {group.index}: the server sent what the protocol refuses: {error}")


async def start(run: Run, game: Game) -> list[tuple[Seat, Client]]:
    """Form the game's table: the first seat creates it, the others join."""
    clients: list[tuple[Seat, Client]] = []
    try:
        for seat in game.seats:
            client = await Client.open(run.port, seat.name)
            clients.append((seat, client))
            if game.table is None:
                await client.send(game.request)
            else:
                await client.send(Join(game.table, seat.index))
            reply = await client.reply(Seated, Watching)
            if reply is None:
                raise Gone("the server went while the table formed")
            if isinstance(reply, Error):
                if is_stop(reply):
                    game.stopped, game.stopped_at = reply.message, time.perf_counter()
                    run.first_stop = run.first_stop or game.stopped_at
                    break
                run.tally.problem(
                    f"group {game.group}: {seat.name} was refused: {reply.code}: {reply.message}"
                )
                game.dead = f"refused: {reply.code}"
                raise Gone(game.dead)
            assert isinstance(reply, Seated | Watching)
            game.table = reply.table
            if isinstance(reply, Seated):
                seat.token = reply.token
    except BaseException:
        for _, client in clients:
            await client.close()
        raise
    if game.stopped:  # its first record could not be written: nobody is at the table any more
        for _, client in clients:
            await client.close()
        return []
    return clients


async def resume(run: Run, game: Game) -> list[tuple[Seat, Client]] | None:
    """Every seat back at the restored game (None, and the game dead, if it cannot be)."""
    if game.restored is None:
        game.dead = "not in the record"
        return None
    if game.restored_over:
        run.tally.ended_unseen += 1
        game.dead = "ended in the record"
        return None
    if any(seat.index is not None and seat.token is None for seat in game.seats):
        run.tally.abandoned += 1
        game.dead = "a seat's token never arrived"
        return None
    assert game.table is not None
    clients: list[tuple[Seat, Client]] = []
    try:
        for seat in game.seats:
            client = await Client.open(run.port, seat.name, seat.token)
            clients.append((seat, client))
            if seat.index is None:
                await client.send(Watch(game.table))
            reply = await client.reply(Seated, Watching)
            if reply is None:
                raise Gone("the server went while seats resumed")
            if isinstance(reply, Error):
                run.tally.refused += 1
                run.tally.problem(
                    f"table {game.table}: {seat.name} could not resume a game the record holds unfinished: "
                    f"{reply.code}: {reply.message}"
                )
                game.dead = f"resume refused: {reply.code}"
                for _, opened in clients:
                    await opened.close()
                return None
    except BaseException:
        for _, client in clients:
            await client.close()
        raise
    return clients


async def play(
    run: Run, group: Group | None, game: Game, clients: list[tuple[Seat, Client]], resumed: bool
) -> str:
    """Every seat reads its states; humans act on their turn once every seat has its first state.

    Returns how it ended: GONE (the server went), OVER, STOPPED, or CHECKED (``run.play`` False).
    """
    ready = trio.Event()
    arrived = [0]
    outcomes: list[str] = []

    async def seat_task(seat: Seat, client: Client) -> None:
        outcomes.append(await _seat(run, group, game, seat, client, resumed, ready, arrived))
        ready.set()  # a seat is done (the server went, the table stopped): nobody waits for it

    if clients:
        async with trio.open_nursery() as nursery:
            for seat, client in clients:
                nursery.start_soon(seat_task, seat, client)
    for _, client in clients:
        await client.close()
    if game.stopped:
        return STOPPED
    if GONE in outcomes or not outcomes:
        return GONE
    return outcomes[0]


async def _seat(
    run: Run,
    group: Group | None,
    game: Game,
    seat: Seat,
    client: Client,
    resumed: bool,
    ready: trio.Event,
    arrived: list[int],
) -> str:
    rng = random.Random(f"{run.seed}:{game.group}:{game.number}:{seat.name}:{seat.moves}")
    first = True
    while True:
        try:
            message = await client.receive()
        except ProtocolError as error:
            run.tally.problem(f"table {game.table}: the server sent what the protocol refuses: {error}")
            return GONE
        if message is None:
            return GONE
        if isinstance(message, State):
            view = message.to_wire()["view"]
            if first:
                if resumed:
                    run.check_resume(game, seat, view)
                moves = game.restored if resumed else 0
            else:
                moves = (seat.moves or 0) + 1
            seat.view, seat.moves, seat.acked_at = view, moves, time.perf_counter()
            if first:
                first = False
                arrived[0] += 1
                if arrived[0] == len(game.seats):
                    ready.set()
                    if group is not None:
                        group.playing = True
            if view["result"] is not None:
                game.over_at = game.over_at or time.perf_counter()
                return OVER
            if not run.play:
                return CHECKED
            if seat.index is not None and view["current"] == seat.index and view["legal"]:
                await ready.wait()
                await client.send(Act(choose(view, rng)))
        elif isinstance(message, Error):
            if is_stop(message):
                game.stopped, game.stopped_at = message.message, time.perf_counter()
                run.first_stop = run.first_stop or game.stopped_at
                return STOPPED
            if message.code != "shutting-down":  # a SIGTERM the bench sent: its goodbye follows
                run.tally.problem(f"table {game.table}: {seat.name} got {message.code}: {message.message}")


async def lifetime(run: Run, groups: list[Group], finish: Callable[[], Awaitable[None]]) -> None:
    """The groups play on the current server while ``finish`` runs; it ends with the server gone."""
    done = trio.Event()

    async def players() -> None:
        async with trio.open_nursery() as nursery:
            for group in groups:
                nursery.start_soon(run_group, run, group)
        done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(players)
        await finish()
        with trio.move_on_after(10):
            await done.wait()
        if not done.is_set():
            run.tally.problem("players still connected 10 s after the server went")
        nursery.cancel_scope.cancel()


async def resume_all(run: Run) -> None:
    """Resume every game the players have not seen end, and check each seat's view; nobody acts."""
    run.play = False

    async def check(game: Game) -> None:
        try:
            clients = await resume(run, game)
            if clients is not None:
                await play(run, None, game, clients, resumed=True)
        except (Gone, ProtocolError) as gone:
            run.tally.problem(f"table {game.table}: could not resume: {gone}")

    with trio.move_on_after(60) as scope:
        async with trio.open_nursery() as nursery:
            for game in run.games:
                if not game.settled and not game.over and not game.dead and game.table is not None:
                    nursery.start_soon(check, game)
    if scope.cancelled_caught:
        run.tally.problem("resuming every game took more than 60 s")


def check_record(run: Run, db: Path, scratch: Path) -> None:
    """After a fault (the server is gone): every acknowledged view against the record, and what each
    seat must see when the next server restores the game."""
    record = RecordCopy(db, scratch)
    tally = run.tally
    try:
        for game in run.games:
            if game.settled or game.table is None:
                continue
            if game.dead:
                game.settled = True
                continue
            acked = [seat for seat in game.seats if seat.moves is not None]
            saved = record.game(game.table)
            if saved is None:
                game.restored = None
                if acked:
                    tally.lost_games += 1
                    tally.lost_moves += game.moves
                    tally.problem(f"table {game.table}: acknowledged to its players, but not in the record")
                    game.settled = True
                continue
            recorded = len(saved.moves)
            numbers = [move.number for move in saved.moves]
            if numbers != list(range(1, recorded + 1)):
                gap = next(n for n, number in enumerate(numbers, 1) if number != n)
                tally.problem(
                    f"table {game.table}: the record has no move {gap} (it goes on at {numbers[gap - 1]})"
                )
            wanted = {(seat.moves, seat.index) for seat in acked if seat.moves is not None}
            wanted = {key for key in wanted if key[0] <= recorded}
            wanted |= {(recorded, seat.index) for seat in game.seats}
            try:
                views = recorded_views(saved, wanted)
            except Exception as error:  # a record the engine cannot replay: every seat's view is wrong
                tally.changed += len(acked)
                tally.problem(f"table {game.table}: the record cannot be replayed: {error!r}")
                game.settled = True
                continue
            lost = max((seat.moves or 0) - recorded for seat in acked) if acked else 0
            if lost > 0:
                tally.lost_moves += lost
                tally.lossy += 1
                tally.problem(f"table {game.table}: {lost} acknowledged move(s) are not in the record")
            for seat in acked:
                assert seat.moves is not None
                if seat.moves <= recorded and views[(seat.moves, seat.index)] != without_clock(seat.view):
                    tally.changed += 1
                    tally.problem(
                        f"table {game.table}: {seat.name}'s view after {seat.moves} moves is not what the "
                        f"record gives: {diff(without_clock(seat.view), views[(seat.moves, seat.index)])}"
                    )
            if game.over:
                if saved.over is None:
                    tally.lossy += 1
                    tally.problem(f"table {game.table}: the players saw it end; the record has not")
                game.settled = True
                continue
            game.restored = recorded
            game.restored_over = saved.over is not None
            game.expected = {seat.index: views[(recorded, seat.index)] for seat in game.seats}
    finally:
        record.close()


# -- kill ---------------------------------------------------------------------------------------


async def kill_scenario(s: Settings, workdir: Path) -> Section:
    limits = server_limits()
    flags = generous_flags(limits)
    db, log = workdir / "kill.db", workdir / "kill.log"
    rng = random.Random(f"{s.seed}:kill")
    run = Run(s.seed, s.turn_limit)
    groups = [Group(i, KINDS[i % len(KINDS)]) for i in range(s.kill_tables)]
    kills = restarts = all_playing = 0
    cpu = 0.0
    started = time.perf_counter()
    server = Server(db, flags, log)
    if not await server.started():
        run.tally.problem(f"notty-server did not start: {server.tail()}")
    else:
        for _ in range(s.kills):
            run.port = server.port or 0
            delay = rng.uniform(s.min_delay, s.max_delay)

            async def finish(delay: float = delay, server: Server = server) -> None:
                nonlocal all_playing, cpu
                await trio.sleep(delay)
                all_playing += all(group.playing for group in groups)
                cpu += server.cpu_seconds()
                server.kill()

            for group in groups:
                group.playing = False
            await lifetime(run, groups, finish)
            kills += 1
            check_record(run, db, workdir / "record")
            server = Server(db, flags, log)
            if not await server.started():
                run.tally.problem(f"the server did not start again after kill {kills}: {server.tail()}")
                break
            restarts += 1
        else:
            run.port = server.port or 0
            await resume_all(run)
            cpu += server.cpu_seconds()
    await server.stop()
    seconds = time.perf_counter() - started
    tally = run.tally
    tracebacks = sum(1 for line in log.read_text(errors="replace").splitlines() if "Traceback" in line)
    acknowledged = sum(game.moves for game in run.games)
    finished = sum(game.over for game in run.games)
    kinds = _kinds(s.kill_tables, KINDS)
    setup = [
        f"{s.kills} SIGKILLs at random moments, {s.min_delay:g}-{s.max_delay:g} s after each start (uniform, "
        f"seed {s.seed}); {s.kill_tables} tables at once ({kinds}; Notty classic, turn limit {s.turn_limit}, "
        "bot_delay_ms 0); each human acts as soon as its state says it is its turn.",
        f"notty-server {' '.join(flags)}; {seconds:.0f} s in all, server CPU {cpu:.1f} s.",
        "After each kill: each acknowledged view against the record's first K moves (lost: fewer "
        "recorded; changed: another view); then a new server on the same database, every seat resumes "
        "with its token (a spectator watches again). exact: the resumed view is the last one "
        "acknowledged; ahead: the record held moves not yet sent to that seat (its act in flight, or a "
        "bot's move) and the resumed view is the record's.",
    ]
    headers = (
        "kills",
        "all tables playing",
        "restarts",
        "resumes",
        "exact",
        "ahead",
        "moves acknowledged",
        "games (finished)",
        "lost moves",
        "changed",
        "wrong resumes",
        "refused resumes",
        "server tracebacks",
    )
    row = (
        str(kills),
        str(all_playing),
        str(restarts),
        str(tally.resumes),
        str(tally.exact),
        str(tally.ahead),
        f"{acknowledged:,}",
        f"{len(run.games)} ({finished})",
        str(tally.lost_moves),
        str(tally.changed),
        str(tally.wrong),
        str(tally.refused),
        str(tracebacks),
    )
    verdicts = [
        (
            verdict(tally.mismatches == 0 and tally.resumes > 0),
            f"{tally.mismatches} mismatch(es) in {tally.resumes} resumes after {kills} kills: "
            f"{tally.lost_moves} acknowledged move(s) lost in {tally.lossy + tally.lost_games} check(s) "
            f"({tally.behind} seat(s) resumed behind what they had seen), {tally.changed} changed, "
            f"{tally.wrong} wrong resume(s), {tally.refused} refused (target 0)",
        ),
        (
            verdict(restarts == kills and kills == s.kills),
            f"the server restarted after {restarts} of {kills} kills",
        ),
    ]
    other = []
    if tally.ended_unseen or tally.abandoned:
        other.append(
            f"not resumed, as expected: {tally.ended_unseen} game(s) the record had ended before the "
            f"players saw the end; {tally.abandoned} killed while forming (a seat's token never arrived)"
        )
    return Section("kill", setup, headers, [row], verdicts, other + _notes(tally.problems))


# -- disk-full ----------------------------------------------------------------------------------


class Disk:
    """Where a disk-full run keeps its database, and the faults it makes there.

    A tmpfs of ``kib`` KiB if it can be mounted. If not, the server runs under ``RLIMIT_FSIZE``
    (``preexec_fn``: no file past ``kib`` KiB), and the faults move that limit with ``prlimit``.
    """

    def __init__(self, path: Path, kib: int, mode: str) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.path, self.kib = path, kib
        self.filler = path / "filler"
        self.mounted = False
        self.why_not = "--disk-mode rlimit"
        self.pid: int | None = None
        self.read_only_by: str | None = None  # "remount" or "rlimit" while read-only
        self.note = ""  # how a fault had to be made otherwise than asked
        if mode in ("auto", "tmpfs"):
            command = ["mount", "-t", "tmpfs", "-o", f"size={kib}k", "notty-faults", str(path)]
            try:
                mounted = subprocess.run(command, capture_output=True, text=True)
            except OSError as error:
                self.why_not = f"cannot run mount: {error.strerror or error}"
            else:
                self.mounted = mounted.returncode == 0
                self.why_not = _first_line(mounted.stderr) or f"mount exited {mounted.returncode}"

    @property
    def how(self) -> str:
        if self.mounted:
            return f"a {self.kib:,} KiB tmpfs"
        return f"RLIMIT_FSIZE {self.kib:,} KiB on the server, set by preexec_fn (tmpfs: {self.why_not})"

    def preexec(self) -> Callable[[], None] | None:
        if self.mounted:
            return None
        size = self.kib * 1024
        return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    def _limit(self, soft: int) -> None:
        assert self.pid is not None
        _, hard = resource.prlimit(self.pid, resource.RLIMIT_FSIZE)
        resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (soft, hard))

    def _largest(self) -> int:
        return max((entry.stat().st_size for entry in self.path.iterdir() if entry.is_file()), default=0)

    def fill(self, margin: int) -> str:
        """Leave ``margin`` bytes free (0: none at all)."""
        if not self.mounted:
            limit = self._largest() + margin
            self._limit(limit)
            return f"RLIMIT_FSIZE {limit / 1024:,.0f} KiB (the largest file + {margin // 1024} KiB)"
        stats = os.statvfs(self.path)
        wanted = stats.f_bavail * stats.f_frsize - margin if margin else math.inf
        written = 0
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            chunk = b"\xff" * 65536
            while written < wanted:
                try:
                    written += os.write(fd, chunk[: int(min(len(chunk), wanted - written))])
                except OSError as error:
                    if error.errno not in (errno.ENOSPC, errno.EDQUOT):
                        raise
                    break
        finally:
            os.close(fd)
        stats = os.statvfs(self.path)
        free = stats.f_bavail * stats.f_frsize
        return f"a {written / 1024:,.0f} KiB filler leaves {free / 1024:,.0f} KiB free"

    def read_only(self) -> str:
        reason = ""
        if self.mounted:
            remount = subprocess.run(
                ["mount", "-o", "remount,ro", str(self.path)], capture_output=True, text=True
            )
            if remount.returncode == 0:
                self.read_only_by = "remount"
                return "the tmpfs remounted read-only"
            reason = _first_line(remount.stderr) or f"mount exited {remount.returncode}"
            reason = f"remount,ro refused: {reason.rstrip('.')}"
        self._limit(0)
        self.read_only_by = "rlimit"
        why = (
            f"{reason} (Linux will not make a mount read-only while a file on it is open for writing, and "
            "the server holds the database open)"
            if reason
            else "no tmpfs"
        )
        self.note = (
            f"read-only: {why}, so every write was made to fail instead with RLIMIT_FSIZE 0 on the "
            "server (prlimit): writes fail with EFBIG rather than EROFS"
        )
        return "RLIMIT_FSIZE 0" + (" (remount,ro refused)" if reason else "")

    def clear(self) -> None:
        """Free the space, make it writable again."""
        self.filler.unlink(missing_ok=True)
        if self.read_only_by == "remount":
            subprocess.run(["mount", "-o", "remount,rw", str(self.path)], capture_output=True, check=False)
        if (self.read_only_by == "rlimit" or not self.mounted) and self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                self._limit(resource.RLIM_INFINITY)
        self.read_only_by = None

    def files(self) -> str:
        """What takes room there, but the filler: the database and its side files."""
        sizes = [
            f"{entry.name} {entry.stat().st_size / 1024:,.0f} KiB"
            for entry in sorted(self.path.iterdir())
            if entry.is_file() and entry != self.filler
        ]
        return ", ".join(sizes)

    def teardown(self) -> None:
        if self.mounted:
            unmounted = subprocess.run(["umount", str(self.path)], capture_output=True, check=False)
            if unmounted.returncode:
                subprocess.run(["umount", "-l", str(self.path)], capture_output=True, check=False)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


@dataclass
class DiskResult:
    name: str
    how: str = ""
    fault: str = ""
    write_failed_after: float | None = None  # seconds after the fault: the first failure seen
    stopped: int = 0
    stop_text: str = ""
    others: int = 0
    kept: int = 0
    new: int = 0
    new_played: int = 0
    write_failures: int = 0  # lines in the server's log
    late: int = 0  # tables stopped after the fault was cleared
    files: str = ""  # the database's files at the end
    note: str = ""
    tally: Tally = field(default_factory=Tally)
    error: str = ""


async def disk_run(variant: str, s: Settings, workdir: Path) -> DiskResult:
    result = DiskResult(variant)
    flags = generous_flags(server_limits())
    disk = Disk(workdir / f"disk-{variant}", s.disk_kib, s.disk_mode)
    result.how = disk.how
    log = workdir / f"disk-{variant}.log"
    db = disk.path / "notty.db"
    run = Run(s.seed, s.turn_limit, cleared=trio.Event())
    groups = [Group(i, KINDS[i % len(KINDS)]) for i in range(s.disk_tables)]
    rng = random.Random(f"{s.seed}:disk:{variant}")
    moments: dict[str, float] = {}
    try:
        server = Server(db, flags, log, disk.preexec())
        if not await server.started():
            result.error = f"notty-server did not start: {server.tail()}"
            return result
        disk.pid = server.pid
        run.port = server.port or 0

        async def finish() -> None:
            await trio.sleep(s.warmup + rng.uniform(0, 0.5))
            before = server.count(_WRITE_FAILED)
            moments["fault"] = time.perf_counter()
            if variant == "read-only":
                result.fault = disk.read_only()
            else:
                result.fault = disk.fill(s.margin_kib * 1024 if variant == "full" else 0)
            with trio.move_on_after(s.fault_timeout):
                while run.first_stop is None and server.count(_WRITE_FAILED) == before:
                    await trio.sleep(0.01)
            if run.first_stop is not None or server.count(_WRITE_FAILED) > before:
                result.write_failed_after = time.perf_counter() - moments["fault"]
            if variant == "full":
                await trio.sleep(1.0)  # the disk stays full: more tables may stop
            disk.clear()
            assert run.cleared is not None
            run.cleared.set()
            moments["clear"] = time.perf_counter()
            await trio.sleep(s.after)
            result.write_failures = server.count(_WRITE_FAILED)
            moments["stop"] = time.perf_counter()
            await server.stop()

        await lifetime(run, groups, finish)
        clear = moments["clear"]
        stopped = [game for game in run.games if game.stopped]
        result.stopped = len(stopped)
        result.stop_text = stopped[0].stopped or "" if stopped else ""
        others = [
            game
            for game in run.games
            if not game.stopped and game.created_at < clear and (game.over_at or math.inf) > clear
        ]
        result.others = len(others)
        result.kept = sum(game.last_ack > clear for game in others)
        # Tables started after the fault, early enough to have played before the server stopped.
        new = [game for game in run.games if clear < game.created_at < moments["stop"] - 0.5]
        result.new, result.new_played = len(new), sum(game.moves > 0 for game in new)
        result.late = sum((game.stopped_at or 0) > clear + 0.1 for game in run.games)
        result.note = disk.note
        result.files = disk.files()
        check_record(run, db, workdir / "record")
        server = Server(db, flags, log)
        if not await server.started():
            result.error = f"the server did not start again after the fault: {server.tail()}"
            return result
        run.port = server.port or 0
        await resume_all(run)
        await server.stop()
    finally:
        disk.clear()
        disk.teardown()
        result.tally = run.tally
    return result


async def disk_scenario(s: Settings, workdir: Path) -> Section:
    results = [await disk_run(variant, s, workdir) for variant in s.disk_runs]
    headers = (
        "run",
        "fault",
        "write failed after",
        "tables stopped (after it cleared)",
        "other tables kept playing",
        "new tables played",
        "resumes (exact, ahead)",
        "lost moves",
        "changed",
        "wrong resumes",
        "refused resumes",
    )
    rows, verdicts, notes = [], [], []
    for r in results:
        t = r.tally
        failed_after = "-" if r.write_failed_after is None else f"{r.write_failed_after:.2f} s"
        rows.append(
            (
                r.name,
                r.fault or r.error,
                failed_after,
                f"{r.stopped} ({r.late})",
                f"{r.kept} of {r.others}",
                f"{r.new_played} of {r.new}",
                f"{t.resumes} ({t.exact}, {t.ahead})",
                str(t.lost_moves),
                str(t.changed),
                str(t.wrong),
                str(t.refused),
            )
        )
        if r.error:
            verdicts.append(("FAIL", f"{r.name}: {r.error}"))
            continue
        if r.write_failed_after is None and not r.write_failures:
            verdicts.append(
                ("FAIL", f"{r.name}: no write failed within {s.fault_timeout:g} s: the fault did not bite")
            )
        elif r.stopped:
            verdicts.append(
                (
                    "PASS",
                    f"{r.name}: the server stopped {r.stopped} table(s), players told: {r.stop_text[:90]!r}",
                )
            )
        elif r.name == "one-write" and not t.mismatches:
            verdicts.append(
                (
                    "PASS",
                    f"{r.name}: {r.write_failures} write(s) failed and no table had to stop: the server "
                    "wrote the changes again, and nothing acknowledged is missing",
                )
            )
        else:
            verdicts.append(
                (
                    "FAIL",
                    f"{r.name}: server did not stop the table ({r.write_failures} failed write(s) in its "
                    "log; "
                    "its players were acknowledged moves the record may not hold)",
                )
            )
        lost = t.mismatches
        verdicts.append(
            (
                verdict(lost == 0 and t.resumes > 0),
                f"{r.name}: after the restart, {t.lost_moves} acknowledged move(s) lost, "
                f"{t.changed} changed, "
                f"{t.wrong} wrong and {t.refused} refused of {t.resumes} resumes (target 0)",
            )
        )
        kept_ok = r.kept == r.others and r.new_played == r.new and (r.others or r.new) and not r.late
        verdicts.append(
            (
                verdict(bool(kept_ok)),
                f"{r.name}: the server went on serving: {r.kept} of {r.others} other tables kept playing "
                f"after the fault cleared, {r.new_played} of {r.new} tables started after it played, "
                f"{r.late} table(s) stopped after it cleared (database files at the end: {r.files})",
            )
        )
        notes += [r.note] if r.note else []
        notes += [f"{r.name}: {line}" for line in _notes(t.problems, 5)]
    how = results[0].how if results else "-"
    setup = [
        f"Database on {how}; {s.disk_tables} tables at once ({_kinds(s.disk_tables, KINDS)}), playing "
        f"{s.warmup:g}-{s.warmup + 0.5:g} s before the fault. full: the game's own writes fill the last "
        f"{s.margin_kib} KiB; one-write: no room at all, freed as soon as a write fails; read-only: no write "
        "can succeed. The fault is cleared once the first table stops (or a failed write shows in the log, "
        f"or after {s.fault_timeout:g} s; full: 1 s later), then "
        f"{s.after:g} s more play, SIGTERM, a new server on the same database, and every game resumed.",
    ]
    return Section("disk-full", setup, headers, rows, verdicts, notes)


# -- second server --------------------------------------------------------------------------------


async def second_server_scenario(s: Settings, workdir: Path) -> Section:
    db = workdir / "second.db"
    log = workdir / "second.log"
    first = Server(db, [], log)
    verdicts: list[tuple[str, str]] = []
    rows: list[tuple[str, ...]] = []
    if not await first.started():
        return Section(
            "second-server", [], ("check", "result"), [], [("FAIL", f"first server: {first.tail()}")]
        )
    second = subprocess.Popen(
        [str(BIN), "--host", HOST, "--port", "0", "--db", str(db)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_environment(),
    )
    _CHILDREN.append(second)
    with trio.move_on_after(20):
        while second.poll() is None:
            await trio.sleep(0.05)
    serving = second.poll() is None
    if serving:
        second.send_signal(signal.SIGTERM)
    try:
        _, err = second.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        second.kill()
        _, err = second.communicate()
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    names = str(first.pid) in err or f":{first.port}" in err
    if serving:
        verdicts.append(("FAIL", "the second server started on a database in use: it served until stopped"))
    else:
        ok = second.returncode == 1 and len(lines) == 1 and names
        detail = [] if second.returncode == 1 else [f"exit {second.returncode}, not 1"]
        detail += [] if len(lines) == 1 else [f"{len(lines)} lines, not 1"]
        detail += [] if names else [f"no mention of the first's pid {first.pid} or port {first.port}"]
        verdicts.append(
            (
                verdict(ok),
                "second server refused: "
                + ("exit 1, one line naming the first" if ok else "; ".join(detail)),
            )
        )
    rows.append(
        ("second server, same --db", "still serving after 20 s" if serving else f"exit {second.returncode}")
    )
    for line in lines[:3]:
        rows.append(("its line" if len(lines) == 1 else "a line", line))
    answers = await _pings(first.port or 0)
    rows.append(("the first still answers ping", "yes" if answers else "no"))
    verdicts.append((verdict(answers), "the first server kept serving"))
    first.kill()
    third = Server(db, [], log)
    restarted = await third.started()
    rows.append(
        ("after SIGKILL of the first, a new server", "starts" if restarted else f"fails: {third.tail()}")
    )
    verdicts.append((verdict(restarted), "a SIGKILLed server's database can be used again at once"))
    await third.stop()
    setup = [
        f"A first notty-server on {db.name}, then a second one on the same --db (port 0, default flags)."
    ]
    return Section("second-server", setup, ("check", "result"), rows, verdicts)


async def _pings(port: int) -> bool:
    try:
        client = await Client.open(port, "probe")
    except Gone:
        return False
    try:
        await client.send(Ping(7))
        return isinstance(await client.reply(Pong), Pong)
    finally:
        await client.close()


# -- floods beside a canary --------------------------------------------------------------------------


def costly_ping(limit: int = MAX_CLIENT_FRAME, items: int = MAX_CLIENT_ITEMS) -> dict[str, Any]:
    """The ``ping`` costliest to decode that a server takes from a client: a body of at most ``limit``
    bytes whose nonce holds as many empty maps as fit (each a call of the decoder's hook for maps),
    in lists of at most ``items`` nested three deep. The server refuses the nonce, not a number, but
    only once it has decoded it."""

    def ping(full: int, partial: int) -> dict[str, Any]:
        empty: dict[str, Any] = {}  # packed as one byte; decoded as a new map each time
        inner = [[empty] * items] * full + ([[empty] * partial] if partial else [])
        return {"type": "ping", "nonce": [inner[at : at + items] for at in range(0, len(inner), items)]}

    def fits(body: dict[str, Any]) -> bool:
        return len(msgpack.packb(body, use_bin_type=True)) <= limit

    full = limit // (items + 1)  # lists of ``items`` maps: a byte each, and a little for the lists
    while full and not fits(ping(full, 0)):
        full -= 1
    partial = items - 1
    while partial and not fits(ping(full, partial)):
        partial -= 1
    body = ping(full, partial)
    assert len(body["nonce"]) <= items, "the limit holds more maps than three levels of lists"
    return body


def decode_ms(body: bytes, repeats: int = 15) -> float:
    """The median time this process takes to decode ``body`` as a server decodes a client's, in ms."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        decode_body(body, MAX_CLIENT_ITEMS)
        times.append(time.perf_counter() - began)
    return sorted(times)[repeats // 2] * 1000


def flood_plan(mode: str, limits: dict[str, float], s: Settings) -> dict[str, Any]:
    """The full allowance of one address, from the server's limits (one it does not have: no limit);
    ``frames`` is not paced to it, only as many connections as the address may have."""
    inf = math.inf
    source = FLOODERS[mode]
    conns = int(limits.get("--max-connections-per-address", 200))
    tables = int(min(limits.get("--max-tables-per-address", 50), limits.get("--max-games-per-hour", inf)))
    if mode == "frames":
        count = s.flood_connections or max(
            min(FRAMES_LEAST, conns), min(FRAMES_MOST, int(conns * FRAMES_SHARE))
        )
        ping = costly_ping()
        body = msgpack.packb(ping, use_bin_type=True)
        maps = sum(len(inner) for middle in ping["nonce"] for inner in middle)
        cost = decode_ms(body)
        print(
            f"[floods] frames: a ping of {len(body):,} bytes, {maps:,} empty maps, {cost:.1f} ms to decode",
            file=sys.stderr,
            flush=True,
        )
        return {
            "source": source,
            "connections": count,
            "text": f"{source}: {count} connections send, unpaced, pings of {len(body):,} bytes (at most "
            f"{MAX_CLIENT_FRAME:,}), nonce {maps:,} empty maps in lists of <= {MAX_CLIENT_ITEMS} "
            f"({cost:.1f} ms each to decode in the bench); a new connection when one is closed",
        }
    if mode == "lists":
        rate = limits.get("--rate", 20.0)
        total = min(limits.get("--address-rate", inf), conns * rate)
        count = s.flood_connections or min(conns, max(1, math.ceil(total / rate) * 2))
        return {
            "source": source,
            "connections": count,
            "per_second": total * PACE,
            "tables": s.listed_tables,
            "per_helper": max(1, min(tables, conns)),
            "text": f"{source}: {count} connections ask list_tables {total * PACE:,.0f}/s in all (allowance "
            f"{total:,.0f}/s), {s.listed_tables} tables existing",
        }
    if mode in HINT_GAMES:
        rate = limits.get("--hint-rate", 0.5)
        seats = min(conns, 2 * tables)
        total = min(limits.get("--address-hint-rate", inf), seats * rate)
        count = s.flood_connections or min(seats, max(2, math.ceil(total / rate) * 2))
        count = max(2, min(count + count % 2, seats - seats % 2))
        total = min(total, count * rate)
        first, last = source.rsplit(".", 1)
        sources = [f"{first}.{int(last) + n}" for n in range(HINT_ADDRESSES[mode])]
        each = (
            f" from each of {len(sources)} addresses ({sources[0]} to {sources[-1]})"
            if len(sources) > 1
            else ""
        )
        return {
            "source": source,
            "sources": sources,
            "connections": count,
            "per_second": total * PACE,
            "game": HINT_GAMES[mode],
            "text": f"{source}: {count} seated connections ({count // 2} {HINT_GAMES[mode][0]} tables of 2) "
            f"ask hints {total * PACE:.2f}/s in all (allowance {total:g}/s){each}",
        }
    count = int(min(tables, limits.get("--max-bot-tables-per-address", inf), conns))
    bots = ["expert", "expert", "expert"]
    delay = limits.get("--bot-only-delay")
    paced = f", a move every {delay:g} s at most" if delay else ""
    return {
        "source": source,
        "tables": count,
        "bots": bots,
        "text": f"{source}: {count} tables of {len(bots)} expert bots (allowance {count}), watched{paced}; "
        "a new game when one ends",
    }


@dataclass
class Canary:
    """Samples (seconds) per phase: the canary bot's move latency and ping round trips."""

    phase: str | None = None
    bot: dict[str, list[float]] = field(default_factory=dict)
    ping: dict[str, list[float]] = field(default_factory=dict)
    games: int = 0
    problems: list[str] = field(default_factory=list)

    def sample(self, kind: dict[str, list[float]], seconds: float) -> None:
        if self.phase is not None:
            kind.setdefault(self.phase, []).append(seconds)


async def canary(port: int, measure: Canary, think: float, seed: int) -> None:
    """A human against one expert (bot delay 0): the bot's moves are timed from the state before each."""
    rng = random.Random(f"{seed}:canary")
    request = CreateTable(GAME, 2, VARIANT, ("expert",), bot_delay_ms=0)
    delay = request.bot_delay_ms / 1000
    while True:
        try:
            client = await Client.open(port, "canary")
            while True:
                await client.send(request)
                seated = await client.reply(Seated)
                if seated is None:
                    raise Gone("closed")
                if not isinstance(seated, Seated):
                    measure.problems.append(f"canary refused a table: {seated}")
                    await trio.sleep(1)
                    continue
                last: tuple[float, int] | None = None  # when the last state came, whose turn it gave
                while True:
                    message = await client.receive()
                    now = time.perf_counter()
                    if message is None:
                        raise Gone("closed")
                    if isinstance(message, Error):
                        measure.problems.append(f"canary: {message.code}: {message.message}")
                    if not isinstance(message, State):
                        continue
                    view = message.view
                    if last is not None and last[1] != seated.seat:
                        measure.sample(measure.bot, now - last[0] - delay)
                    last = (now, view["current"])
                    if view["result"] is not None:
                        break
                    if view["current"] == seated.seat and view["legal"]:
                        await trio.sleep(rng.expovariate(1 / think) if think else 0)
                        await client.send(Act(choose(message.to_wire()["view"], rng)))
                measure.games += 1
                await client.send(Leave())
                await client.reply(Left)
        except (Gone, ProtocolError) as gone:
            measure.problems.append(f"canary lost its connection ({gone}): it connects again")
            await trio.sleep(0.5)


async def pinger(port: int, measure: Canary, every: float) -> None:
    nonce = 0
    while True:
        try:
            client = await Client.open(port, "pinger")
            while True:
                nonce = (nonce + 1) % 2**32
                sent = time.perf_counter()
                if not await client.send(Ping(nonce)):
                    raise Gone("closed")
                while not (isinstance(reply := await client.receive(), Pong) and reply.nonce == nonce):
                    if reply is None:
                        raise Gone("closed")
                measure.sample(measure.ping, time.perf_counter() - sent)
                await trio.sleep(every)
        except (Gone, ProtocolError) as gone:
            measure.problems.append(f"pinger lost its connection ({gone}): it connects again")
            await trio.sleep(0.5)


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile, in ms."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000


@dataclass
class Phase:
    name: str
    text: str = "-"
    seconds: float = 0.0
    server_cpu: float = 0.0
    bench_cpu: float = 0.0
    flood: dict[str, Any] = field(default_factory=dict)
    error: str = ""


async def flood_scenario(s: Settings, workdir: Path) -> Section:
    limits = server_limits()
    db, log = workdir / "floods.db", workdir / "floods.log"
    server = Server(db, [], log)
    if not await server.started():
        return Section(
            "floods", [], ("phase",), [], [("FAIL", f"notty-server did not start: {server.tail()}")]
        )
    port = server.port or 0
    code = server_code()
    measure = Canary()
    phases: list[Phase] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(canary, port, measure, s.think, s.seed)
        nursery.start_soon(pinger, port, measure, s.ping_every)
        await trio.sleep(1.0)  # the canary's first game is under way
        for name in ["idle", *s.flood_phases]:
            phase = Phase(name)
            phases.append(phase)
            child = None
            if name != "idle":
                plan = flood_plan(name, limits, s)
                phase.text = plan["text"]
                child, ready = await _start_flooder(name, port, plan, workdir)
                if not ready:
                    phase.error = f"the flooder did not start: {_tail(workdir / f'flood-{name}.log')}"
                    await _stop_flooder(child)
                    continue
            cpu, mine, wall = server.cpu_seconds(), time.process_time(), time.perf_counter()
            measure.phase = name
            await trio.sleep(s.flood_seconds)
            measure.phase = None
            phase.seconds = time.perf_counter() - wall
            phase.server_cpu = server.cpu_seconds() - cpu
            phase.bench_cpu = time.process_time() - mine
            if child is not None:
                phase.flood = await _stop_flooder(child)
                phase.bench_cpu += phase.flood.get("cpu", 0.0)
                if not phase.flood:
                    phase.error = f"the flooder failed: {_tail(workdir / f'flood-{name}.log')}"
            await trio.sleep(1.0)  # the server catches up between phases
        nursery.cancel_scope.cancel()
    await server.stop()
    return _flood_section(s, phases, measure, limits, code)


async def _start_flooder(
    mode: str, port: int, plan: dict[str, Any], workdir: Path
) -> tuple[subprocess.Popen[str], bool]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--flood-child",
        mode,
        "--port",
        str(port),
        "--plan",
        json.dumps(plan),
    ]
    with open(workdir / f"flood-{mode}.log", "w", encoding="utf-8") as errors:
        child = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True
        )
    _CHILDREN.append(child)
    assert child.stdout is not None
    with trio.move_on_after(120):
        line = await trio.to_thread.run_sync(child.stdout.readline, abandon_on_cancel=True)
        return child, line.strip() == "ready"
    return child, False


async def _stop_flooder(child: subprocess.Popen[str]) -> dict[str, Any]:
    """Tell the flooder to stop; its counts, or {} if it failed."""
    assert child.stdin is not None and child.stdout is not None
    with contextlib.suppress(OSError):
        child.stdin.write("stop\n")
        child.stdin.flush()
    stats: dict[str, Any] = {}
    with trio.move_on_after(30):
        line = await trio.to_thread.run_sync(child.stdout.readline, abandon_on_cancel=True)
        with contextlib.suppress(ValueError):
            stats = json.loads(line)
    if child.poll() is None:
        child.kill()
    child.wait()
    return stats


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(lines[-3:]) or "(no output)"


def _flood_section(
    s: Settings, phases: list[Phase], measure: Canary, limits: dict[str, float], code: str
) -> Section:
    idle_p99 = percentile(measure.bot.get("idle", []), 0.99)
    headers = (
        "phase",
        "flooder",
        "sent/s",
        "answered/s",
        "refused",
        "server CPU",
        "bench CPU",
        "bot move p50 / p99 / max ms (n)",
        "ping p50 / p99 ms (n)",
    )
    rows, verdicts = [], []
    for phase in phases:
        bot, ping = measure.bot.get(phase.name, []), measure.ping.get(phase.name, [])
        flood = phase.flood
        elapsed = flood.get("seconds") or 0.0
        refused = flood.get("refused", {})
        sent = f"{flood.get('sent', 0) / elapsed:,.1f}" if elapsed else "-"
        answered = f"{flood.get('answers', 0) / elapsed:,.1f}" if elapsed else "-"
        if phase.name == "bots" and elapsed:  # it asks nothing: it watches its tables' states
            sent, answered = "-", f"{answered} states, {flood.get('games', 0)} games"
        if phase.name == "frames" and elapsed:  # its hellos are answered too, apart from its pings
            answered = f"{answered} ({flood.get('welcomed', 0) / elapsed:,.1f} welcome)"
        rows.append(
            (
                phase.name,
                phase.error or phase.text,
                sent,
                answered,
                ", ".join(f"{code} {n}" for code, n in sorted(refused.items())) or ("0" if elapsed else "-"),
                f"{phase.server_cpu / phase.seconds:.0%}" if phase.seconds else "-",
                f"{phase.bench_cpu / phase.seconds:.0%}" if phase.seconds else "-",
                f"{percentile(bot, 0.5):.1f} / {percentile(bot, 0.99):.1f} / "
                f"{max(bot, default=math.nan) * 1000:.1f} "
                f"({len(bot)})",
                f"{percentile(ping, 0.5):.2f} / {percentile(ping, 0.99):.2f} ({len(ping)})",
            )
        )
        if phase.error:
            verdicts.append(("FAIL", f"{phase.name}: {phase.error}"))
            continue
        ping99 = percentile(ping, 0.99)
        none = f"none measured in {phase.seconds:.0f} s"  # each took longer, or never ended
        verdicts.append(
            (
                verdict(ping99 <= TARGET_PING_P99_MS),
                f"{phase.name}: ping p99 {f'{ping99:.2f} ms' if ping else none} (target <= "
                f"{TARGET_PING_P99_MS:g} ms)",
            )
        )
        if phase.name != "idle":
            bot99 = percentile(bot, 0.99)
            verdicts.append(
                (
                    verdict(bot99 <= idle_p99 + TARGET_BOT_MARGIN_MS),
                    f"{phase.name}: bot move p99 {f'{bot99:.1f} ms' if bot else none} (target <= idle p99 "
                    f"{idle_p99:.1f} + {TARGET_BOT_MARGIN_MS:g} ms)",
                )
            )
        if flood.get("dropped"):
            verdicts.append(
                ("NOTE", f"{phase.name}: the server closed {flood['dropped']} flooder connection(s)")
            )
    shown = ", ".join(
        f"{flag} {limits[flag]:g}"
        for flag in (
            "--rate",
            "--burst",
            "--address-rate",
            "--hint-rate",
            "--address-hint-rate",
            "--max-connections-per-address",
            "--connection-rate",
            "--connection-burst",
            "--max-tables-per-address",
            "--max-bot-tables-per-address",
            "--bot-only-delay",
        )
        if flag in limits
    )
    setup = [
        f"notty-server ({code}) with its default limits ({shown}). Canary from 127.0.0.1: one human seat "
        f"thinking {s.think:g} s on average against an expert (Notty classic, bot_delay_ms 0), a new game "
        f"when one ends; a pinger sends ping every {s.ping_every:g} s. {s.flood_seconds:g} s per phase; "
        "the flooder is another process. CPU: share of one core over the phase (bench: canary, pinger and "
        "flooder).",
    ]
    notes = _notes(measure.problems, 5)
    return Section("floods", setup, headers, rows, verdicts, notes)


# -- the flooder (a child process) --------------------------------------------------------------------


class Wire:
    """A connection without the protocol layer's checks, so that a flood costs the flooder little."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()

    @classmethod
    async def open(cls, port: int, name: str, source: str) -> Wire:
        try:
            wire = cls(await connect(port, source))
        except OSError as error:
            raise Gone(str(error)) from None
        await wire.send(encode_frame(Hello(PROTOCOL_VERSION, name).to_wire()))
        welcome = await wire.expect("welcome")
        if welcome.get("type") != "welcome":
            raise Gone(f"{name}: {welcome}")
        return wire

    async def send(self, frame: bytes) -> bool:
        try:
            await self.stream.send_all(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True

    async def frame(self) -> bytes | None:
        """The next frame's body, undecoded; None at the end of the connection."""
        while True:
            if len(self.buffer) >= 4:
                end = 4 + int.from_bytes(self.buffer[:4], "big")
                if len(self.buffer) >= end:
                    body = bytes(self.buffer[4:end])
                    del self.buffer[:end]
                    return body
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return None
            if not data:
                return None
            self.buffer += data

    async def expect(self, kind: str) -> dict[str, Any]:
        """The next message of ``kind``, or the error that came instead."""
        while (body := await self.frame()) is not None:
            message: dict[str, Any] = msgpack.unpackb(body, raw=False)
            if message.get("type") in (kind, "error", "goodbye"):
                return message
        raise Gone(f"closed while waiting for {kind}")

    async def close(self) -> None:
        await trio.aclose_forcefully(self.stream)


@dataclass
class FloodStats:
    sent: int = 0
    answers: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    dropped: int = 0
    games: int = 0
    welcomed: int = 0

    def reset(self) -> None:
        self.sent = self.answers = self.dropped = self.games = self.welcomed = 0
        self.refused.clear()

    def answer(self, body: bytes) -> None:
        """Count one frame from the server: errors are small, so only small frames are decoded (and
        welcome, which lists the games, for a flooder that says hello without waiting for it)."""
        if len(body) < 600 or _WELCOME in body[:32]:
            message = msgpack.unpackb(body, raw=False)
            if message.get("type") == "error":
                self.refused[message.get("code", "?")] += 1
                return
            if message.get("type") == "welcome":
                self.welcomed += 1
                return
            if message.get("type") in ("goodbye", "watching", "left", "seated"):
                return
        self.answers += 1


async def _answers(wire: Wire, stats: FloodStats, scope: trio.CancelScope) -> None:
    while (body := await wire.frame()) is not None:
        stats.answer(body)
    scope.cancel()


async def _paced(wire: Wire, request: bytes, interval: float, stats: FloodStats) -> None:
    """Send ``request`` every ``interval`` seconds (from a random phase; 0: as fast as the connection
    takes it) while reading every answer."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_answers, wire, stats, nursery.cancel_scope)
        at = trio.current_time() + random.random() * interval
        while True:
            await trio.sleep_until(at)
            at += interval
            if not await wire.send(request):
                break
            stats.sent += 1
        nursery.cancel_scope.cancel()
    stats.dropped += 1


async def _hold(wire: Wire) -> None:
    """Keep a helper's waiting table: read whatever comes, ping now and then (the idle timeout)."""
    async with trio.open_nursery() as nursery:

        async def keepalive() -> None:
            while await wire.send(encode_frame(Ping(1).to_wire())):
                await trio.sleep(20)

        nursery.start_soon(keepalive)
        while await wire.frame() is not None:
            pass
        nursery.cancel_scope.cancel()


Setup = Callable[
    [trio.Nursery, int, dict[str, Any], "FloodStats"], Awaitable[list[Callable[[], Awaitable[None]]]]
]


async def _lists(
    nursery: trio.Nursery, port: int, plan: dict[str, Any], stats: FloodStats
) -> list[Callable[[], Awaitable[None]]]:
    """Waiting tables held by helpers (127.0.1.x, each within its address's limits), then connections
    from the flooder's address asking ``list_tables`` at its allowance."""
    create = encode_frame(CreateTable(GAME, 2, VARIANT).to_wire())
    for index in range(plan["tables"]):
        helper = f"127.0.1.{1 + index // plan['per_helper']}"
        wire = await Wire.open(port, f"holder{index}", helper)
        await wire.send(create)
        reply = await wire.expect("seated")
        if reply.get("type") != "seated":
            raise Gone(f"a helper could not create a table: {reply}")
        nursery.start_soon(_hold, wire)
    request = encode_frame(ListTables().to_wire())
    count = plan["connections"]
    interval = count / plan["per_second"]

    async def flooder(index: int) -> None:
        while True:
            try:
                wire = await Wire.open(port, f"flood{index}", plan["source"])
            except Gone as gone:
                stats.refused[f"connect: {str(gone)[:40]}"] += 1
                await trio.sleep(1)
                continue
            await _paced(wire, request, interval, stats)
            await wire.close()

    return [lambda index=index: flooder(index) for index in range(count)]


async def _hints(
    nursery: trio.Nursery, port: int, plan: dict[str, Any], stats: FloodStats
) -> list[Callable[[], Awaitable[None]]]:
    """Tables of two seats, both the flooder's, never played: every seat asks hints at the allowance."""
    game, variant = plan["game"]
    create = encode_frame(CreateTable(game, 2, variant).to_wire())
    wires = []
    for number, source in enumerate(plan["sources"]):
        wires += await _hinters(port, source, plan["connections"] // 2, create, f"hinter{number}-")
    request = encode_frame(AskHint().to_wire())
    interval = len(wires) / (plan["per_second"] * len(plan["sources"]))
    return [lambda wire=wire: _paced(wire, request, interval, stats) for wire in wires]


async def _hinters(port: int, source: str, pairs: int, create: bytes, name: str) -> list[Wire]:
    """``pairs`` tables of two seats from ``source``, both its own: the seated connections."""
    wires = []
    for pair in range(pairs):
        first = await Wire.open(port, f"{name}{2 * pair}", source)
        await first.send(create)
        seated = await first.expect("seated")
        if seated.get("type") != "seated":
            raise Gone(f"the flooder could not create a table: {seated}")
        second = await Wire.open(port, f"{name}{2 * pair + 1}", source)
        await second.send(encode_frame(Join(seated["table"]).to_wire()))
        if (joined := await second.expect("seated")).get("type") != "seated":
            raise Gone(f"the flooder could not join its table: {joined}")
        wires += [first, second]
    return wires


async def _bots(
    nursery: trio.Nursery, port: int, plan: dict[str, Any], stats: FloodStats
) -> list[Callable[[], Awaitable[None]]]:
    """Tables of bots alone, each watched by one connection; a new one when its game ends."""
    bots = tuple(plan["bots"])
    create = encode_frame(CreateTable(GAME, len(bots), VARIANT, bots).to_wire())
    leave = encode_frame(Leave().to_wire())

    async def watch_one(wire: Wire) -> None:
        """Create a table and watch it to its end; a refusal waits a second."""
        if not await wire.send(create):
            raise Gone("closed")
        stats.sent += 1
        while (body := await wire.frame()) is not None:
            if b"game-ended" in body:
                stats.games += 1
                stats.answers += 1
                await wire.send(leave)
                await wire.expect("left")
                return
            refused = sum(stats.refused.values())
            stats.answer(body)
            if sum(stats.refused.values()) > refused:
                await trio.sleep(1)
                return
        raise Gone("closed")

    async def watcher(index: int) -> None:
        while True:
            try:
                wire = await Wire.open(port, f"watcher{index}", plan["source"])
                while True:
                    await watch_one(wire)
            except Gone:
                stats.dropped += 1
                await trio.sleep(1)

    return [lambda index=index: watcher(index) for index in range(plan["tables"])]


async def _frames(
    nursery: trio.Nursery, port: int, plan: dict[str, Any], stats: FloodStats
) -> list[Callable[[], Awaitable[None]]]:
    """Connections from the flooder's address that say hello, then send the costliest ping a server
    decodes as fast as each connection takes it (not waiting for welcome: a hello over the rate is
    refused, and the pings still come), reading every answer; a new connection when one is closed."""
    frame = encode_frame(costly_ping())

    async def flooder(index: int) -> None:
        hello = encode_frame(Hello(PROTOCOL_VERSION, f"frames{index}").to_wire())
        while True:
            try:
                wire = Wire(await connect(port, plan["source"]))
            except OSError as error:
                stats.refused[f"connect: {error.strerror or error}"] += 1
                await trio.sleep(0.1)
                continue
            if await wire.send(hello):
                await _paced(wire, frame, 0.0, stats)
            await wire.close()

    return [lambda index=index: flooder(index) for index in range(plan["connections"])]


async def flood_child(mode: str, port: int, plan: dict[str, Any]) -> dict[str, Any]:
    """Set the flood up, say "ready", flood until told to stop on stdin; the counts of the flood."""
    _raise_file_limit(4096)
    stats = FloodStats()
    setups: dict[str, Setup] = {
        "lists": _lists,
        "hints": _hints,
        "bots": _bots,
        "ochos-hints": _hints,
        "frames": _frames,
    }
    async with trio.open_nursery() as nursery:
        tasks = await setups[mode](nursery, port, plan, stats)
        for task in tasks:
            nursery.start_soon(task)
        await trio.sleep(0.2)
        stats.reset()  # count from here
        began, cpu = time.perf_counter(), time.process_time()
        print("ready", flush=True)
        await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
        nursery.cancel_scope.cancel()
    return {
        "seconds": seconds,
        "cpu": cpu,
        "sent": stats.sent,
        "answers": stats.answers,
        "refused": dict(stats.refused),
        "dropped": stats.dropped,
        "games": stats.games,
        "welcomed": stats.welcomed,
    }


# -- the report -----------------------------------------------------------------------------------


def print_text(sections: list[Section]) -> None:
    print(f"machine: {describe()}")
    for section in sections:
        print()
        print(f"== {section.title} ==")
        for line in section.setup:
            print(line)
        if section.rows:
            print()
            widths = [
                max(len(h), *(len(row[i]) for row in section.rows)) for i, h in enumerate(section.headers)
            ]
            for row in (section.headers, *section.rows):
                print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        print()
        for mark, text in section.verdicts:
            print(f"{mark}: {text}")
        for note in section.notes:
            print(f"  note: {note}")


def print_markdown(sections: list[Section]) -> None:
    print(f"Machine: {describe()}.")
    for section in sections:
        print()
        print(f"### {section.title}")
        print()
        print(" ".join(section.setup))
        if section.rows:
            print()
            print("| " + " | ".join(section.headers) + " |")
            print("|---" * len(section.headers) + "|")
            for row in section.rows:
                print("| " + " | ".join(cell.replace("|", "/") for cell in row) + " |")
        print()
        for mark, text in section.verdicts:
            print(f"- {mark}: {text}")
        for note in section.notes:
            print(f"- note: {note}")


# -- main -----------------------------------------------------------------------------------------


def _names(text: str, known: Sequence[str], flag: str, parser: argparse.ArgumentParser) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"{flag}: unknown {', '.join(unknown)} (choose from {', '.join(known)})")
    return names


async def run_all(scenarios: list[str], s: Settings, workdir: Path) -> list[Section]:
    runners = {
        "kill": kill_scenario,
        "disk-full": disk_scenario,
        "second-server": second_server_scenario,
        "floods": flood_scenario,
    }
    sections = []
    for name in scenarios:
        started = time.perf_counter()
        print(f"[{name}] running...", file=sys.stderr, flush=True)
        sections.append(await runners[name](s, workdir))
        print(f"[{name}] done in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return sections


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--scenarios", default=",".join(SCENARIOS), help=f"which to run (default {','.join(SCENARIOS)})")
    add("--seed", type=int, default=1, help="seed for everything the bench chooses (default 1)")
    add("--markdown", action="store_true", help="print markdown for bench/RESULTS.md")
    add("--workdir", type=Path, help="keep databases and server logs here (default: a temporary directory)")
    add("--kills", type=int, default=100, help="SIGKILLs (default 100)")
    add("--kill-tables", type=int, default=6, help="tables at once in the kill run (default 6)")
    add("--min-delay", type=float, default=0.05, help="earliest kill after a start, seconds (default 0.05)")
    add("--max-delay", type=float, default=1.0, help="latest kill after a start, seconds (default 1.0)")
    add("--turn-limit", type=int, default=40, help="turns before a game ends (default 40)")
    add("--disk-runs", default=",".join(DISK_RUNS), help=f"disk-full runs (default {','.join(DISK_RUNS)})")
    add("--disk-tables", type=int, default=6, help="tables at once in each disk-full run (default 6)")
    add("--disk-kib", type=int, default=65536, help="the tmpfs's size, KiB (default 65536)")
    add("--margin-kib", type=int, default=256, help="room the full run leaves the game, KiB (default 256)")
    add("--disk-mode", choices=("auto", "tmpfs", "rlimit"), default="auto", help="how to fill the disk")
    add("--warmup", type=float, default=1.0, help="play before a disk fault, seconds (default 1)")
    add("--fault-timeout", type=float, default=15.0, help="wait for a failed write, seconds (default 15)")
    add("--after", type=float, default=2.0, help="play after a disk fault is cleared, seconds (default 2)")
    add("--flood-phases", default=",".join(FLOOD_PHASES), help=f"floods (default {','.join(FLOOD_PHASES)})")
    add("--flood-seconds", type=float, default=10.0, help="seconds measured per flood phase (default 10)")
    add("--listed-tables", type=int, default=200, help="tables existing for the lists flood (default 200)")
    add("--think", type=float, default=0.1, help="the canary human's mean think time, s (default 0.1)")
    add("--ping-every", type=float, default=0.1, help="seconds between the pinger's pings (default 0.1)")
    add("--flood-connections", type=int, help="flooder connections (default: from the limits)")
    add("--server-path", type=Path, help="a checkout whose code the servers run (first on their PYTHONPATH)")
    add("--flood-child", choices=FLOOD_PHASES, help=argparse.SUPPRESS)
    add("--port", type=int, help=argparse.SUPPRESS)
    add("--plan", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.flood_child:
        stats = trio.run(flood_child, args.flood_child, args.port, json.loads(args.plan))
        print(json.dumps(stats), flush=True)
        return 0
    scenarios = _names(args.scenarios, SCENARIOS, "--scenarios", parser)
    if args.server_path is not None:
        if not (args.server_path / "server").is_dir():
            parser.error(f"--server-path: {args.server_path} holds no server package")
        SERVER_PATH.append(str(args.server_path.resolve()))
    if not 0 <= args.min_delay <= args.max_delay or args.kills < 1 or args.kill_tables < 1:
        parser.error("need 0 <= --min-delay <= --max-delay, --kills and --kill-tables at least 1")
    if args.flood_seconds <= 0 or args.think < 0 or args.ping_every <= 0 or args.disk_tables < 1:
        parser.error("--flood-seconds and --ping-every must be positive, --think not negative")
    chosen = {
        "disk_runs": _names(args.disk_runs, DISK_RUNS, "--disk-runs", parser),
        "flood_phases": _names(args.flood_phases, FLOOD_PHASES, "--flood-phases", parser),
    }
    settings = Settings(**{f.name: chosen.get(f.name, getattr(args, f.name)) for f in fields(Settings)})
    _raise_file_limit(4096)
    try:
        if args.workdir is not None:
            args.workdir.mkdir(parents=True, exist_ok=True)
            sections = trio.run(run_all, scenarios, settings, args.workdir)
        else:
            with tempfile.TemporaryDirectory(prefix="notty-faults-") as workdir:
                sections = trio.run(run_all, scenarios, settings, Path(workdir))
    finally:
        for child in _CHILDREN:  # only after a crash or ^C is any still running
            if child.poll() is None:
                child.kill()
                child.wait()
    (print_markdown if args.markdown else print_text)(sections)
    failed = [text for section in sections for mark, text in section.verdicts if mark == "FAIL"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
