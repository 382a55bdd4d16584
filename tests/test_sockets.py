"""The server's non-blocking socket, over a real TCP connection on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
import trio

from server.sockets import Backlogs, NonBlockingSocket

CHUNK = b"x" * 65536
Pair = tuple[socket.socket, socket.socket]


@pytest.fixture
def pair() -> Iterator[Pair]:
    """(ours, theirs): a connected TCP pair with small buffers, so a peer that does not read is soon felt."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        theirs = socket.create_connection(listener.getsockname())
        ours, _ = listener.accept()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    with ours, theirs:
        yield ours, theirs


def _read_all(sock: socket.socket, size: int) -> bytes:
    sock.settimeout(5)
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "connection closed early"
        data += chunk
    return bytes(data)


def _read_what_arrives(sock: socket.socket) -> bytes:
    """Empty the kernel's buffers: read until nothing has come for a moment."""
    sock.settimeout(0.2)
    data = bytearray()
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pass
    return bytes(data)


async def test_a_send_leaves_at_once_without_a_flusher(pair: Pair) -> None:
    ours, theirs = pair
    wire = NonBlockingSocket(ours, max_backlog=4)
    assert wire.send(b"hello")
    assert wire.backlog == 0
    assert _read_all(theirs, 5) == b"hello"


async def test_a_peer_that_does_not_read_fills_a_bounded_backlog(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, _ = pair
    wire = NonBlockingSocket(ours, max_backlog=3)
    accepted = 0
    while wire.send(CHUNK):  # the kernel's buffers fill, then the backlog does
        accepted += 1
        assert accepted < 1000, "the backlog never filled"
    assert wire.backlog == 3
    assert not wire.send(b"more"), "a full backlog must refuse, not grow"
    assert not wire.broken, "refusing is the caller's to act on"


async def test_a_backlog_is_bounded_in_bytes_too(pair: Pair) -> None:
    ours, _ = pair
    wire = NonBlockingSocket(ours, max_backlog=1000, max_backlog_bytes=3 * len(CHUNK))
    while not wire.backlog:  # the kernel's buffers fill first
        assert wire.send(CHUNK)
    assert wire.send(CHUNK)
    assert wire.backlog_bytes <= 2 * len(CHUNK)
    assert not wire.send(b"x" * (3 * len(CHUNK) - wire.backlog_bytes + 1)), "a byte past the bound"
    assert wire.send(b"x" * (3 * len(CHUNK) - wire.backlog_bytes)), "up to the bound fits"
    assert wire.backlog_bytes == 3 * len(CHUNK)
    assert not wire.send(b"x"), "past the byte bound, a send must refuse, not grow"


async def test_one_message_always_fits_an_empty_backlog(pair: Pair) -> None:
    ours, _ = pair
    wire = NonBlockingSocket(ours, max_backlog=5, max_backlog_bytes=10)
    accepted = 0
    while wire.send(CHUNK):
        accepted += 1
        assert accepted < 1000, "the backlog never filled"
    assert wire.backlog == 1, "only an empty backlog takes a message past the byte bound"
    assert 10 < wire.backlog_bytes <= len(CHUNK)


async def test_the_flusher_delivers_the_backlog_in_order() -> None:
    # A Unix socket pair: reading makes room at once, where TCP's window updates come when they come.
    ours, theirs = socket.socketpair()
    with ours, theirs:
        await _check_order(ours, theirs)


async def _check_order(ours: socket.socket, theirs: socket.socket) -> None:
    wire = NonBlockingSocket(ours, max_backlog=100)
    sent = bytearray()

    def send(numbers: range) -> None:
        for number in numbers:
            chunk = bytes([number]) * 10_000
            assert wire.send(chunk)
            sent.extend(chunk)

    send(range(20))  # well past what the kernel holds for a peer that is not reading
    assert wire.backlog > 0
    assert 0 < wire.backlog_bytes < len(sent)
    received = _read_what_arrives(theirs)  # room in the kernel again, but the backlog must go first
    assert 0 < len(received) < len(sent)
    send(range(20, 40))
    wire.close_after_flush()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(wire.flush)
        received += await trio.to_thread.run_sync(_read_all, theirs, len(sent) - len(received))
    assert received == bytes(sent)
    assert wire.backlog == 0
    assert wire.backlog_bytes == 0


async def test_flush_waits_for_more_until_closing(pair: Pair) -> None:
    ours, theirs = pair
    wire = NonBlockingSocket(ours, max_backlog=4)
    with trio.move_on_after(0.2) as waiting:
        await wire.flush()
    assert waiting.cancelled_caught, "flush returned while the connection was still open"
    wire.close_after_flush()
    with trio.fail_after(1):
        await wire.flush()
    assert wire.send(b"late"), "a send after closing is dropped quietly"
    theirs.setblocking(False)
    with pytest.raises(BlockingIOError):
        theirs.recv(10)


async def test_close_wakes_a_waiting_reader_and_flusher(pair: Pair) -> None:
    ours, _ = pair
    wire = NonBlockingSocket(ours, max_backlog=4)
    results: list[bytes] = []

    async def read() -> None:
        results.append(await wire.receive(100))

    with trio.fail_after(2):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            nursery.start_soon(wire.flush)
            await trio.sleep(0.05)
            wire.close()
    assert results == [b""]
    assert wire.broken
    assert wire.send(b"after"), "sending to a closed socket is a no-op, not an error"


async def test_receive_returns_what_arrives_then_end_of_stream(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, theirs = pair
    wire = NonBlockingSocket(ours, max_backlog=4)
    theirs.sendall(b"ping")
    with trio.fail_after(2):
        assert await wire.receive(100) == b"ping"
        theirs.close()
        assert await wire.receive(100) == b""


async def test_a_peer_that_resets_breaks_the_socket_quietly(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, theirs = pair
    wire = NonBlockingSocket(ours, max_backlog=4)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # close = RST
    theirs.close()
    with trio.fail_after(2):
        while not wire.broken:
            assert wire.send(b"x" * 1000)
            await trio.sleep(0.01)
        assert await wire.receive(100) == b""


def _pairs(count: int) -> list[Pair]:
    """``count`` connected pairs with small buffers (see :func:`pair`)."""
    made = []
    with socket.create_server(("127.0.0.1", 0)) as listener:
        for _ in range(count):
            theirs = socket.create_connection(listener.getsockname())
            ours, _ = listener.accept()
            ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            made.append((ours, theirs))
    return made


async def test_past_the_shared_bound_the_socket_holding_most_is_dropped() -> None:
    """No peer reads: together the backlogs pass the shared bound, and the socket holding the most
    is closed, whichever socket was sending (the kernel takes a few KiB of each: ``<`` not ``==``)."""
    pairs = _pairs(2)
    try:
        shared = Backlogs(limit=8 * len(CHUNK))
        wires = [NonBlockingSocket(ours, 100, None, shared) for ours, _ in pairs]
        for _ in range(6):
            assert wires[0].send(CHUNK)
        assert wires[1].send(CHUNK)
        assert shared.total == wires[0].backlog_bytes + wires[1].backlog_bytes <= shared.limit
        assert shared.holding == set(wires)
        shared.limit = shared.total + len(CHUNK)  # one more chunk fits, two do not
        assert wires[1].send(CHUNK) and wires[1].send(CHUNK)  # past the bound: wires[0] holds the most
        assert wires[0].broken and not wires[1].broken
        assert shared.total == wires[1].backlog_bytes and shared.holding == {wires[1]}
        sent = [wires[1].send(CHUNK) for _ in range(6)]  # now it holds the most itself
        assert False in sent and wires[1].broken and shared.total == 0 and not shared.holding
    finally:
        for ours, theirs in pairs:
            ours.close()
            theirs.close()
