"""The server's edges over real TCP on 127.0.0.1 (port 0): closing, idling, running out of descriptors."""

from __future__ import annotations

import itertools
import logging
import math
import random
import re
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
import trio
from conftest import notty_table
from test_net import Client

import server
from protocol import (
    PROTOCOL_VERSION,
    Connection,
    Error,
    Goodbye,
    Hello,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Ping,
    Pong,
    Seated,
    Sender,
    Welcome,
    encode_frame,
)
from server import limits
from server.host import Host
from server.limits import LOG_LINES_BURST, LOG_LINES_RATE, MAX_REFUSALS, Limits, LinesOfAnAnswer, LogAllowance
from server.net import ANSWER_LOGGERS, FLUSH_SECONDS, NottyServer
from server.sockets import NonBlockingSocket

Start = Callable[[Limits], Awaitable[int]]
Pair = tuple[socket.socket, socket.socket]


@pytest.fixture
def start(nursery: trio.Nursery) -> Start:
    """Start an in-process server with the given limits; the port it listens on. It stops with the test."""

    async def start(limits: Limits) -> int:
        tokens = (f"token{n:035d}" for n in itertools.count())
        seeds = itertools.count(1)
        host = Host(new_rng=lambda: random.Random(next(seeds)), new_token=lambda: next(tokens))
        listeners = await nursery.start(NottyServer(host, limits=limits).serve, "127.0.0.1", 0)
        port: int = listeners[0].socket.getsockname()[1]
        return port

    return start


def _frames(*messages: Message) -> bytes:
    """Frames as they are, past the client's own state machine (which would hold them back)."""
    return b"".join(encode_frame(message.to_wire()) for message in messages)


def _decode(data: bytes) -> list[Message]:
    protocol = Connection(Sender.CLIENT)
    protocol.receive_data(data)
    messages = []
    while (message := protocol.next_event()) is not None:
        messages.append(message)
    return messages


# -- a lingering close ------------------------------------------------------------------


def _flood_then_read(port: int, data: bytes) -> bytes:
    """Send everything without reading a byte, then read until the server closes (a blocking client)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(10)
        sock.sendall(data)
        received = bytearray()
        while chunk := sock.recv(65536):  # a reset raises ConnectionResetError here
            received += chunk
        return bytes(received)


async def test_a_flooding_client_still_reads_its_rate_limit_errors_and_goodbye(start: Start) -> None:
    """Its unread pings sit in the server's buffer when the server closes: they must not turn into a reset.

    20,000 pings are more than the server reads at once (frames of up to 64 KiB), so some are
    still unread, in the kernel, when it closes.
    """
    port = await start(Limits(rate=1, burst=40))
    data = _frames(Hello(PROTOCOL_VERSION, "eve"), *(Ping(n) for n in range(20_000)))
    for _ in range(3):  # the race it loses (the reset overtaking the replies) is not lost every time
        heard = _decode(await trio.to_thread.run_sync(_flood_then_read, port, data))
        assert isinstance(heard[0], Welcome)
        assert sum(isinstance(m, Pong) for m in heard) == 39  # hello took a token from the burst
        errors = [m for m in heard if isinstance(m, Error)]
        assert [e.code for e in errors] == ["rate-limit"] * MAX_REFUSALS
        assert "goodbye" in errors[-1].message
        assert isinstance(heard[-1], Goodbye)


def _trickle_past_goodbye(port: int, seconds: float) -> tuple[bytes, float]:
    """Keep sending for ``seconds`` after the server's goodbye, reading all the while: then close."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(0.05)
        sock.sendall(_frames(Hello(PROTOCOL_VERSION, "eve"), *(Ping(n) for n in range(100))))
        received = bytearray()
        ended = None
        started = time.monotonic()
        while time.monotonic() - started < 10:
            try:
                sock.sendall(_frames(Ping(0)))
            except OSError:  # the server gave up on us: reset
                break
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not chunk:
                ended = time.monotonic() if ended is None else ended
                time.sleep(0.01)
            received += chunk
            if ended is not None and time.monotonic() - ended > seconds:
                break
        return bytes(received), time.monotonic() - started


async def test_a_lingering_close_is_bounded_for_a_peer_that_keeps_sending(start: Start) -> None:
    port = await start(Limits(rate=1, burst=2))
    data, took = await trio.to_thread.run_sync(_trickle_past_goodbye, port, 8.0)
    heard = _decode(data)
    assert isinstance(heard[-1], Goodbye)
    assert took < FLUSH_SECONDS + 1.5, "the server held the connection open past FLUSH_SECONDS"


@pytest.fixture
def pair() -> Iterator[Pair]:
    """(ours, theirs): a connected TCP pair."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        theirs = socket.create_connection(listener.getsockname())
        ours, _ = listener.accept()
    with ours, theirs:
        yield ours, theirs


async def test_linger_half_closes_and_drops_what_comes_until_the_peer_closes(
    pair: Pair,
) -> None:
    ours, theirs = pair
    wire = NonBlockingSocket(ours, max_backlog=4)
    theirs.sendall(b"never read")
    assert wire.send(b"goodbye")

    def read_to_the_end_then_close() -> bytes:
        theirs.settimeout(5)
        data = bytearray()
        while chunk := theirs.recv(100):  # the end of stream comes while the server still lingers
            data += chunk
        theirs.sendall(b"more")  # still read (and dropped), not answered with a reset
        theirs.shutdown(socket.SHUT_WR)
        return bytes(data)

    with trio.fail_after(3):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(wire.linger)
            assert await trio.to_thread.run_sync(read_to_the_end_then_close) == b"goodbye"
    assert wire.closing and not wire.broken


async def test_linger_stops_reading_a_peer_that_sends_too_much(pair: Pair) -> None:
    ours, theirs = pair
    wire = NonBlockingSocket(ours, max_backlog=4)
    stop = threading.Event()

    def flood() -> None:
        theirs.settimeout(0.1)
        while not stop.is_set():
            try:
                theirs.send(b"x" * 65536)
            except TimeoutError:
                continue
            except OSError:
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(trio.to_thread.run_sync, flood, abandon_on_cancel=True))
        with trio.fail_after(3):
            await wire.linger(max_bytes=1 << 20)  # the peer never closes: only the bound ends this
        stop.set()


# -- the idle timeout -------------------------------------------------------------------


async def test_trickling_bytes_does_not_stretch_the_idle_timeout(start: Start) -> None:
    """Only a whole message counts as being heard: else a byte every 0.2 s would keep it open for ever."""
    idle = 1.0
    port = await start(Limits(idle_seconds=idle))
    eve = await Client.connect(port, "eve")
    welcomed = trio.current_time()  # no sooner than the server heard the hello
    frame = _frames(Ping(7))

    async def trickle() -> None:  # one byte of a ping every 0.2 s: it would take 4 s and more to finish
        for byte in frame[:-1]:
            try:
                await eve.stream.send_all(bytes([byte]))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
            await trio.sleep(0.2)

    heard: list[Message] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trickle)
        with trio.move_on_after(idle + 2):
            try:
                while True:
                    heard.append(await eve.receive())
            except (EOFError, trio.BrokenResourceError):
                pass
        closed_after = trio.current_time() - welcomed
        nursery.cancel_scope.cancel()
    await eve.stream.aclose()
    assert [m.code for m in heard if isinstance(m, Error)] == ["idle-timeout"], heard
    assert isinstance(heard[-1], Goodbye)
    assert closed_after < idle + 0.75


async def test_slow_whole_messages_keep_a_connection(start: Start) -> None:
    """A whole message inside every idle period keeps it open, however slowly its bytes came."""
    idle = 1.0
    port = await start(Limits(idle_seconds=idle))
    eve = await Client.connect(port, "eve")
    for nonce in range(3):
        frame = _frames(Ping(nonce))
        await eve.stream.send_all(frame[:-1])
        await trio.sleep(idle * 0.6)
        await eve.stream.send_all(frame[-1:])
        assert (await eve.expect(Pong, timeout=2)).nonce == nonce
    await eve.stream.aclose()


# -- out of file descriptors ------------------------------------------------------------

FD_LIMIT = 40


def _low_fd_limit() -> None:
    """Hard as well as soft: the server raises its soft limit as far as the hard one lets it."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


@pytest.fixture
def starved_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A real notty-server with few file descriptors: (its port, its log)."""
    log = tmp_path / "server.log"
    command = [str(Path(sys.executable).parent / "notty-server"), "--host", "127.0.0.1", "--port", "0"]
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [*command, "--db", str(tmp_path / "notty.db")], stderr=stderr, preexec_fn=_low_fd_limit
        )
    try:
        deadline = time.monotonic() + 15
        while not (found := re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text())):
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield int(found.group(1)), log
    finally:
        process.terminate()
        process.wait(timeout=10)


def _welcomed(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(_frames(Hello(PROTOCOL_VERSION, "ann")))
            protocol = Connection(Sender.CLIENT)
            while (message := protocol.next_event()) is None:
                chunk = sock.recv(65536)
                if not chunk:
                    return False
                protocol.receive_data(chunk)
            return isinstance(message, Welcome)
    except OSError:
        return False


def test_out_of_file_descriptors_is_logged_once_and_served_again_after(
    starved_server: tuple[int, Path],
) -> None:
    port, log = starved_server
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(FD_LIMIT + 20)]
    try:
        time.sleep(2)  # the server keeps trying to accept the ones it has no descriptor for
        text = log.read_text()
        assert _tracebacks(text) == []
        assert text.count("could not checkpoint") <= 1, text  # the checkpoint's own shortage: said once
        about_it = [line for line in text.splitlines() if "file descriptors" in line or "EMFILE" in line]
        assert len(about_it) == 1 and "not accepting new connections" in about_it[0], text
    finally:
        for client in clients:
            client.close()
    deadline = time.monotonic() + 10
    while not _welcomed(port):  # the ones just closed may be answered first: each is a new connection
        assert time.monotonic() < deadline
    text = log.read_text()
    assert _tracebacks(text) == []
    assert len(re.findall(r"accepting connections again \(\d+ accepts failed", text)) == 1, text


def _tracebacks(log: str) -> list[str]:
    """The log's records that carry a traceback (a checkpoint, which opens the database anew and so
    fails too while descriptors are short, says so in one line, not a traceback a second)."""
    records = re.split(r"\n(?=\d{4}-\d\d-\d\d )", log)
    return [record for record in records if "Traceback" in record]


async def test_a_connection_turned_away_at_a_cap_reads_why_whatever_it_sent(start: Start) -> None:
    """Turned away before the host hears of it, a client that spoke at once must still read why."""
    port = await start(Limits(max_connections=1))
    holder = await trio.to_thread.run_sync(socket.create_connection, ("127.0.0.1", port))
    try:
        data = _frames(Hello(PROTOCOL_VERSION, "eve"), *(Ping(n) for n in range(20_000)))
        for _ in range(3):  # the race it would lose (the reset overtaking the error) is not lost every time
            heard = _decode(await trio.to_thread.run_sync(_flood_then_read, port, data))
            assert [type(m) for m in heard] == [Error, Goodbye] and heard[0].code == "server-full"
    finally:
        holder.close()


# -- what the log says about one address ---------------------------------------------------------


def _connect_and_close(port: int, times: int) -> None:
    for _ in range(times):
        socket.create_connection(("127.0.0.1", port)).close()


async def test_connecting_in_a_loop_grows_the_log_only_so_far(
    start: Start, caplog: pytest.LogCaptureFixture
) -> None:
    """Two lines a connection, with no cap on how fast one address connects: a client closing and
    opening in a loop grew the log by 660 KiB a second. (Connections past the address's rate are
    turned away, and each of those is a line too; here the rate lets every one in.)"""
    port = await start(Limits(connection_rate=10_000, connection_burst=1000))
    caplog.set_level("INFO", logger="notty.server")
    began = trio.current_time()
    await trio.to_thread.run_sync(_connect_and_close, port, 300)
    with trio.move_on_after(5):
        while len(server_lines := _connection_lines(caplog)) < LOG_LINES_BURST:
            await trio.sleep(0.01)
    await trio.sleep(0.2)
    server_lines = _connection_lines(caplog)
    # 600 without the allowance
    assert LOG_LINES_BURST <= len(server_lines) <= LOG_LINES_BURST + _grown_back_since(began)
    await trio.sleep(1.1)  # a line's worth comes back: the next says how many were left out
    await trio.to_thread.run_sync(_connect_and_close, port, 1)
    with trio.move_on_after(5):
        while not any("left out before this one" in line for line in _connection_lines(caplog)):
            await trio.sleep(0.01)
    (summary,) = [line for line in _connection_lines(caplog) if "left out before this one" in line]
    said = re.search(r"\((\d+) lines about 127\.0\.0\.1 left out", summary)
    assert said is not None and int(said[1]) + len(server_lines) >= 600 - 10


async def test_a_client_joining_and_leaving_in_a_loop_grows_the_log_only_so_far(
    start: Start, caplog: pytest.LogCaptureFixture
) -> None:
    """The host's lines while it answers a client count against the client's address, as its
    connection lines do: an audit switched an autopilot 19 times a second, each switch a line,
    and joining and leaving a table is two lines a round."""
    port = await start(Limits(rate=10_000, burst=10_000, address_rate=10_000, address_burst=10_000))
    caplog.set_level("INFO", logger="notty.host")
    ann = await Client.connect(port, "ann")
    await ann.send(notty_table("classic", 3))  # waits for a third: bob's join does not start it
    table = (await ann.expect(Seated)).table
    bob = await Client.connect(port, "bob")
    began = trio.current_time()
    for _ in range(100):
        await bob.send(Join(table))
        await bob.expect(Seated)
        await bob.send(Leave())
        await bob.expect(Left)
    seat_lines = [line for line in _host_lines(caplog) if line.startswith(f"table {table}: seat 2: bob")]
    # The address's burst, less its lines before the loop (two connections and who each is, a table
    # created, ann seated). 200 without the allowance
    assert LOG_LINES_BURST - 6 <= len(seat_lines) <= LOG_LINES_BURST + _grown_back_since(began)
    await trio.sleep(1.1)  # a line's worth comes back: the next says how many were left out
    await bob.send(Join(table))
    await bob.expect(Seated)
    last = _host_lines(caplog)[-1]
    said = re.search(r"bob joined the table \((\d+) lines about 127\.0\.0\.1 left out", last)
    assert said is not None and int(said[1]) + len(seat_lines) >= 200


async def test_a_host_failing_on_a_clients_message_in_a_loop_grows_the_log_only_so_far(
    start: Start, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the host costs one reply and a traceback in the log: a client that found one could
    ask for tracebacks in a loop, and they were not counted against its address."""

    def fails(*_: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Host, "table_list", fails)
    port = await start(Limits(rate=10_000, burst=10_000, address_rate=10_000, address_burst=10_000))
    caplog.set_level("INFO", logger="notty.server")
    ann = await Client.connect(port, "ann")
    began = trio.current_time()
    for _ in range(100):
        await ann.send(ListTables())
        assert (await ann.expect(Error)).code == "internal-error"
    failed = [line for line in _server_lines(caplog) if line.startswith("host failed")]
    # 100 without the allowance; the address's lines before the loop: its connection's
    assert LOG_LINES_BURST - 2 <= len(failed) <= LOG_LINES_BURST + _grown_back_since(began)
    await trio.sleep(1.1)
    await ann.send(ListTables())
    await ann.expect(Error)
    said = re.search(r"\((\d+) lines about 127\.0\.0\.1 left out", _server_lines(caplog)[-1])
    assert said is not None and int(said[1]) + len(failed) >= 100
    for _ in range(LOG_LINES_BURST):  # the allowance spent again ...
        await ann.send(ListTables())
        await ann.expect(Error)

    def fails_anew(*_: object) -> None:
        raise ValueError("another bug")

    monkeypatch.setattr(Host, "table_list", fails_anew)
    await ann.send(ListTables())
    await ann.expect(Error)  # ... a new bug's first traceback is logged still, for the operator
    assert any(record.exc_info and record.exc_info[0] is ValueError for record in caplog.records)


def test_every_logger_of_the_server_counts_the_lines_of_an_answer() -> None:
    """A logger's filter does not see its children's lines: a module logging under a name of its own
    would write lines no allowance counts."""
    named = set()
    for source in Path(server.__file__).parent.glob("*.py"):
        named |= set(re.findall(r'getLogger\("([^"]+)"\)', source.read_text()))
    assert named and named <= set(ANSWER_LOGGERS)
    for name in ANSWER_LOGGERS:
        assert any(isinstance(each, LinesOfAnAnswer) for each in logging.getLogger(name).filters)


def _grown_back_since(began: float) -> int:
    """The lines an address's allowance grows back while a loop runs (one a second), and a margin:
    a slow machine takes longer over the loop, and is allowed more lines, not failed."""
    return 2 + math.ceil((trio.current_time() - began) * LOG_LINES_RATE)


def _host_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "notty.host"]


def _server_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "notty.server"]


def _connection_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.getMessage().startswith("connection")]


def test_the_log_allowance_keeps_a_bounded_table_of_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Addresses throttled once were kept for ever, and past the bound every new one swept the table."""
    monkeypatch.setattr(limits, "LOG_ADDRESSES", 3)
    lines = LogAllowance(rate=1.0, burst=1)
    for address in "abc":
        assert lines.take(address, 0.0) == 0 and lines.take(address, 0.0) is None
    assert lines.take("d", 0.5) is None  # full of addresses still throttled: no line, no entry
    assert lines.take("e", 5.0) == 0  # they have grown back in full since: forgotten, room again
    assert len(lines._buckets) <= 3 and set(lines._left_out) <= set(lines._buckets)


def test_the_log_allowance_is_a_burst_then_a_rate_and_counts_what_it_left_out() -> None:
    lines = LogAllowance(rate=1.0, burst=3)
    assert [lines.take("a", 0.0) for _ in range(5)] == [0, 0, 0, None, None]
    assert lines.take("b", 0.0) == 0  # each address has its own
    assert lines.take("a", 0.5) is None
    assert lines.take("a", 1.5) == 3  # one line back: it says three were left out
    assert lines.take("a", 1.5) is None


def test_a_games_start_and_end_are_logged_whatever_the_allowance_of_who_brought_them_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A review: bob's address, its allowance spent, joined ann's table and resigned; the start and
    the end of ann's game went unlogged, charged to him. His own lines still are."""
    from test_host import Net

    from protocol import Resign

    caplog.set_level("INFO", logger="notty.host")
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty_table("classic", 2))[0].table
    spent = LogAllowance()
    while spent.take("10.0.0.2", 0.0) is not None:  # bob's connect loop spent it
        pass
    token = limits.ANSWERING.set((spent, "10.0.0.2", 0.0))
    try:
        bob.send(Join(table))
        bob.send(Resign())
    finally:
        limits.ANSWERING.reset(token)
    lines = [record.getMessage() for record in caplog.records if record.name == "notty.host"]
    assert any("started between" in line for line in lines) and any("game over" in line for line in lines)
    assert not any("bob joined" in line for line in lines)  # his own doing: charged, and dropped
