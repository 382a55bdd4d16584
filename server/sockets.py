"""A connected socket that one task can write to on behalf of many: sends go out at once.

A move is answered to every seat at its table, from one task (the one that read
the move, or the one that committed it to the record). Trio's
``SocketStream.send_all`` is a checkpoint, so fanning out through streams needs
a writer task and a channel per connection, and every message costs a task
switch: under load, a fifth of the server's time. Here a send
is tried at once, without blocking; whatever the kernel does not take now waits
in a bounded backlog that the connection's own flusher drains when the socket is
writable (asyncio's transports work the same way). Bytes still leave in order,
and a peer that stops reading fills its backlog, not the server's memory.
"""

from __future__ import annotations

import collections
import errno
import logging
import socket
from collections.abc import Awaitable, Callable

import trio

log = logging.getLogger("notty.net")

#: The most a closing connection reads (and drops) from a peer that goes on sending.
LINGER_BYTES = 1 << 20


def address_text(sockname: object) -> str:
    """A socket's address (``getsockname()``, ``getpeername()``) as ``address:port``, IPv6 in
    brackets, as a person types it: the log said ``('127.0.0.1', 4008)``, Python's tuple."""
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        host, port = sockname[0], sockname[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    return str(sockname)


#: What accept(2) fails with when the process or the machine runs short, and what is short:
#: the listener is fine, and accepting works again once something is freed.
ACCEPT_SHORTAGES = {
    errno.EMFILE: "out of file descriptors",
    errno.ENFILE: "the system is out of file descriptors",
    errno.ENOBUFS: "out of socket buffers",
    errno.ENOMEM: "out of memory",
}


class Backlogs:
    """Every connection's backlog together, within one bound of ``limit`` bytes.

    A connection's own bound keeps one peer that does not read from holding much
    of the server's memory; this one keeps many such peers from holding a lot
    together (up to 200 connections an address may each fill theirs). Past it,
    the connection holding the most is dropped: the one whose peer has read the
    least, which is where the bytes are.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self.holding: set[NonBlockingSocket] = set()  # the sockets with a backlog

    def over(self) -> NonBlockingSocket | None:
        """The socket to drop now, if the bound is passed."""
        if self.total <= self.limit or not self.holding:
            return None
        return max(self.holding, key=lambda held: held.backlog_bytes)


class NonBlockingSocket:
    """One client's socket: ``receive`` for its reader, ``send`` for anyone, ``flush`` for its writer."""

    def __init__(
        self,
        sock: socket.socket,
        max_backlog: int,
        max_backlog_bytes: int | None = None,
        shared: Backlogs | None = None,
    ) -> None:
        sock.setblocking(False)
        self._sock = sock
        self._backlog: collections.deque[bytes | memoryview] = collections.deque()
        self._backlog_bytes = 0  # the length of everything in _backlog
        self._max_backlog = max_backlog
        self._max_backlog_bytes = max_backlog_bytes
        self._shared = shared
        self._backlog_grew = trio.lowlevel.ParkingLot()
        self.closing = False  # no more sends: flush what is queued, then stop
        self.broken = False  # the peer is gone or was dropped: nothing more goes either way

    @classmethod
    def from_stream(
        cls,
        stream: trio.SocketStream,
        max_backlog: int,
        max_backlog_bytes: int | None = None,
        shared: Backlogs | None = None,
    ) -> NonBlockingSocket:
        """Take over a stream's socket (its options, such as TCP_NODELAY, stay set)."""
        return cls(socket.socket(fileno=stream.socket.detach()), max_backlog, max_backlog_bytes, shared)

    @property
    def backlog(self) -> int:
        """Messages (or the rest of one) waiting for the peer to read."""
        return len(self._backlog)

    @property
    def backlog_bytes(self) -> int:
        """Bytes waiting for the peer to read."""
        return self._backlog_bytes

    async def receive(self, max_bytes: int) -> bytes:
        """The next bytes from the peer; ``b""`` at the end of the stream or once broken."""
        while not self.broken:
            try:
                await trio.lowlevel.wait_readable(self._sock)
            except trio.ClosedResourceError:
                break
            data = self.waiting(max_bytes)
            if data is not None:  # (None: woken for nothing after all)
                return data
        return b""

    def waiting(self, max_bytes: int) -> bytes | None:
        """The bytes the peer has sent that wait to be read, without waiting for more: ``None`` if
        none wait; ``b""`` at the end of the stream or once broken."""
        if self.broken:
            return b""
        try:
            return self._sock.recv(max_bytes)
        except BlockingIOError:
            return None
        except OSError:
            self.close()
            return b""

    def send(self, data: bytes) -> bool:
        """Send ``data`` after whatever is waiting; ``False`` (and nothing sent) if the backlog is full.

        Full is either bound: so many messages, or so many bytes. A message
        always fits an empty backlog, whatever its size (frames are bounded).
        If what waits here takes every backlog past the shared bound, the socket
        holding the most is closed: ``False`` if that is this one.
        """
        if self.broken or self.closing:
            return True  # the peer will not read it: there is nothing to hold
        if self._backlog and (
            len(self._backlog) >= self._max_backlog
            or (
                self._max_backlog_bytes is not None
                and self._backlog_bytes + len(data) > self._max_backlog_bytes
            )
        ):
            return False
        self._backlog.append(data)
        self._held(len(data))
        if len(self._backlog) == 1:  # nothing was waiting: it may go now, and the flusher wakes for the rest
            self._send_backlog()
            if self._backlog:
                self._backlog_grew.unpark_all()
        shed = None if self._shared is None else self._shared.over()
        if shed is not None:
            log.warning(
                "a connection with %d bytes unread dropped: all backlogs together passed %d bytes",
                shed.backlog_bytes,
                self._shared.limit if self._shared is not None else 0,
            )
            shed.close()
        return shed is not self

    def _held(self, change: int) -> None:
        """The backlog grew (or shrank) by ``change`` bytes: the shared count follows."""
        self._backlog_bytes += change
        shared = self._shared
        if shared is not None:
            shared.total += change
            if self._backlog_bytes:
                shared.holding.add(self)
            else:
                shared.holding.discard(self)

    def close_after_flush(self) -> None:
        """Send nothing more; ``flush`` returns once what is queued has left."""
        self.closing = True
        self._backlog_grew.unpark_all()

    async def flush(self) -> None:
        """Drain the backlog whenever there is one, until closing with nothing queued, or broken."""
        while not self.broken:
            if not self._backlog:
                if self.closing:
                    return
                await self._backlog_grew.park()
                continue
            try:
                await trio.lowlevel.wait_writable(self._sock)
            except trio.ClosedResourceError:
                return
            self._send_backlog()

    async def linger(self, max_bytes: int = LINGER_BYTES) -> None:
        """Half-close once the backlog has left, then drop what the peer still sends until it closes too.

        Closing a socket that has unread bytes makes Linux reset the connection, and the
        reset can destroy what the peer has not read yet: the error and goodbye that say
        why it was closed. Shutting down the sending side instead puts a FIN after them.
        Returns at the peer's end of stream, past ``max_bytes`` discarded, or at once if
        the backlog never left (the peer is not reading: nothing would reach it); the
        caller bounds the time, then closes.
        """
        self.closing = True
        if self.broken or self._backlog:
            return
        try:
            self._sock.shutdown(socket.SHUT_WR)
        except OSError:  # the peer is gone already
            self.close()
            return
        await discard_up_to(self.receive, max_bytes)

    def _send_backlog(self) -> None:
        while self._backlog:
            data = self._backlog[0]
            try:
                sent = self._sock.send(data)
            except BlockingIOError:
                return
            except OSError:
                self.close()
                return
            self._held(-sent)
            if sent < len(data):
                self._backlog[0] = memoryview(data)[sent:]
                return
            self._backlog.popleft()

    def close(self) -> None:
        """Close now: wake the reader and the flusher; whatever is still queued is dropped."""
        if self.broken:
            return
        self.broken = True
        self._backlog.clear()
        self._held(-self._backlog_bytes)
        self._backlog_grew.unpark_all()
        trio.lowlevel.notify_closing(self._sock)
        self._sock.close()


async def discard_up_to(receive: Callable[[int], Awaitable[bytes]], most: int) -> None:
    """Read and drop what a peer sends until it closes its end, but never more than ``most`` bytes."""
    discarded = 0
    while discarded < most and (data := await receive(min(65536, most - discarded))):
        discarded += len(data)
