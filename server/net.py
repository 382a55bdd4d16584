"""The Trio shell around :class:`~server.host.Host`: sockets, queues, timers and worker threads.

Everything that decides anything lives in the host; this module only moves
bytes, time and bot work. Each connection has a bounded outgoing queue: a
client that stops reading is dropped when its queue is full, so it can
neither hold memory nor delay anyone else.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import Callable, Iterable
from typing import Any

import attrs
import trio

from protocol import MAX_FRAME, Connection, Error, Goodbye, LocalProtocolError, Message, ProtocolError, Sender

from .engine import EndTurn
from .host import BotJob, HintJob, Host, Outgoing, make_hint
from .store import Store

log = logging.getLogger("notty.server")

#: Messages waiting for one slow client before it is dropped.
DEFAULT_QUEUE = 256
#: How often the host hears the time (grace periods, turn limits).
TICK_SECONDS = 0.25
#: How long a closing connection may take to flush its last messages.
FLUSH_SECONDS = 2.0
MAX_TEXT = 500


@attrs.define(eq=False)
class Link:
    """One client connection: its protocol state and its bounded outgoing queue."""

    id: int
    stream: trio.SocketStream
    protocol: Connection
    outbox: trio.MemorySendChannel[bytes | None]
    closing: bool = False


class NottyServer:
    def __init__(
        self, host: Host, *, store: Store | None = None, queue_size: int = DEFAULT_QUEUE, bot_threads: int = 2
    ) -> None:
        self.host = host
        self.store = store
        self.queue_size = queue_size
        self.links: dict[int, Link] = {}
        self._ids = itertools.count(1)
        self._cpu = trio.CapacityLimiter(bot_threads)
        self._nursery: trio.Nursery | None = None

    async def serve(
        self,
        host: str | None,
        port: int,
        *,
        task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen and serve until cancelled; ``task_status`` gets the listeners (for the bound port)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            listeners = await trio.open_tcp_listeners(port, host=host)
            for listener in listeners:
                log.info("listening on %s", listener.socket.getsockname())
            nursery.start_soon(self._clock)
            task_status.started(listeners)
            await trio.serve_listeners(self._handle, listeners, handler_nursery=nursery)

    async def shutdown(self, reason: str = "the server is shutting down") -> None:
        """Tell every client goodbye and give the messages a moment to leave."""
        for link in list(self.links.values()):
            self._queue(link, Goodbye(reason))
        with trio.move_on_after(1):
            while self.links:
                await trio.sleep(0.01)

    # -- one connection -----------------------------------------------------------

    async def _handle(self, stream: trio.SocketStream) -> None:
        """Serve one connection; whatever goes wrong with it stays with it."""
        try:
            await self._serve_connection(stream)
        except Exception:
            log.exception("a connection failed")

    async def _serve_connection(self, stream: trio.SocketStream) -> None:
        send, receive = trio.open_memory_channel[bytes | None](self.queue_size)
        try:
            peer = str(stream.socket.getpeername())
        except OSError:
            peer = "?"
        link = Link(next(self._ids), stream, Connection(Sender.SERVER), send)
        self.links[link.id] = link
        self.host.connect(link.id)
        log.info("connection %d from %s", link.id, peer)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._write, link, receive, nursery.cancel_scope)
                await self._read(link)
                # The reader is done (end of stream, bye, or a fatal error): let the
                # writer flush what is queued, but not for long.
                link.closing = True
                with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):
                    link.outbox.send_nowait(None)
                nursery.cancel_scope.deadline = trio.current_time() + FLUSH_SECONDS
        finally:
            self.links.pop(link.id, None)
            self._dispatch(self._ask(self.host.disconnect, link.id, trio.current_time()))
            self._run_bots()
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)
            log.info("connection %d closed", link.id)

    async def _read(self, link: Link) -> None:
        while not link.closing:
            try:
                data = await link.stream.receive_some(MAX_FRAME)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
            if not data:
                return
            try:
                link.protocol.receive_data(data)
            except ProtocolError as error:
                self._refuse(link, error)
                return
            self._drain(link)
            self._run_bots()

    def _drain(self, link: Link) -> None:
        """Answer every whole message received so far."""
        while not link.closing:
            try:
                message = link.protocol.next_event()
            except ProtocolError as error:
                self._refuse(link, error)
                if error.fatal:
                    return
                continue
            if message is None:
                return
            self._dispatch(self._ask(self.host.handle, link.id, message, trio.current_time()))
            self._run_hints()

    def _refuse(self, link: Link, error: ProtocolError) -> None:
        log.info("connection %d: %s (%s)", link.id, error.code, "fatal" if error.fatal else "refused")
        text = _printable(error.message)
        self._queue(link, Error(error.code, text))
        if error.fatal:
            self._queue(link, Goodbye(text))

    def _ask(self, call: Callable[..., list[Outgoing]], *args: Any) -> list[Outgoing]:
        """Call the host; a bug in it costs one reply, never the server."""
        try:
            return call(*args)
        except Exception:
            log.exception("host failed in %s", call.__name__)
            conn = args[0] if args and isinstance(args[0], int) else None
            return (
                [] if conn is None else [(conn, Error("internal-error", "the server failed to answer that"))]
            )

    async def _write(
        self, link: Link, receive: trio.MemoryReceiveChannel[bytes | None], scope: trio.CancelScope
    ) -> None:
        async for data in receive:
            if data is None:  # goodbye was sent: close
                break
            try:
                await link.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                break
        scope.cancel()

    # -- sending --------------------------------------------------------------------

    def _dispatch(self, outgoing: Iterable[Outgoing]) -> None:
        self._record()
        for conn, message in outgoing:
            link = self.links.get(conn)
            if link is not None:
                self._queue(link, message)

    def _record(self) -> None:
        """Store what the host just changed, before anyone hears of it."""
        records = self.host.take_journal()
        if self.store is not None and records:
            try:
                self.store.write(records)
            except Exception:
                log.exception("could not record %d change(s): they would be lost in a crash", len(records))

    def _queue(self, link: Link, message: Message) -> None:
        if link.closing:
            return
        try:
            data = link.protocol.send(message)
        except (LocalProtocolError, ProtocolError):  # out of turn, or too big for one frame
            log.exception("connection %d: could not send %s", link.id, message.TYPE)
            return
        try:
            link.outbox.send_nowait(data)
            if isinstance(message, Goodbye):
                link.closing = True
                link.outbox.send_nowait(None)
        except trio.WouldBlock:
            log.warning("connection %d is not reading: dropped", link.id)
            link.closing = True
            link.outbox.close()
            self._kill(link)

    def _kill(self, link: Link) -> None:
        """Drop a connection now (its writer may be stuck on a full socket)."""
        assert self._nursery is not None
        self._nursery.start_soon(trio.aclose_forcefully, link.stream)

    # -- time and bots ----------------------------------------------------------------

    async def _clock(self) -> None:
        while True:
            await trio.sleep(TICK_SECONDS)
            self._dispatch(self._ask(self.host.tick, trio.current_time()))
            self._run_bots()

    def _run_hints(self) -> None:
        assert self._nursery is not None
        for job in self.host.hint_jobs():
            self._nursery.start_soon(self._hint, job)

    async def _hint(self, job: HintJob) -> None:
        try:
            hint = await trio.to_thread.run_sync(make_hint, job.hand, job.rules, limiter=self._cpu)
        except Exception:
            log.exception("hint failed")
            self._dispatch([(job.conn, Error("internal-error", "the server failed to work out a hint"))])
            return
        self._dispatch([(job.conn, hint)])

    def _run_bots(self) -> None:
        assert self._nursery is not None
        for job in self.host.bot_jobs():
            self._nursery.start_soon(self._bot, job)

    async def _bot(self, job: BotJob) -> None:
        started = trio.current_time()
        try:
            action = await trio.to_thread.run_sync(job.bot.choose, job.view, limiter=self._cpu)
        except Exception:
            log.exception("bot %s failed at table %d", job.bot.name, job.table)
            action = EndTurn()
        await trio.sleep(max(0.0, job.delay - (trio.current_time() - started)))
        self._dispatch(self._ask(self.host.bot_acted, job, action, trio.current_time()))
        self._run_bots()


def _printable(text: str) -> str:
    """Text safe to put in an error message: no control characters, at most 500 characters."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text)[:MAX_TEXT]
    return cleaned or "?"
