"""The Trio shell around :class:`~server.host.Host`: sockets, queues, timers and worker threads.

Everything that decides anything lives in the host; this module only moves
bytes, time and bot work, and holds each client to the :class:`~server.limits.Limits`:
a deadline for hello, an idle timeout, token buckets for messages and for hints,
a cap on connections, and a bounded outgoing queue (a client that stops reading
is dropped when its queue is full, so it can neither hold memory nor delay
anyone else). Replies are sent without waiting (:mod:`server.sockets`), from the task that
caused them or, when they follow from changes to the game record, once those are stored: the
record is committed in groups, one transaction a scheduling round (``_committer``).
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import math
import random
from collections.abc import Callable, Container, Iterable, Iterator
from typing import Any

import attrs
import trio

from games import HintAnswer
from games._words import counted
from protocol import (
    MAX_CLIENT_FRAME,
    MAX_FRAME,
    AskHint,
    Bye,
    Connection,
    ConnectionState,
    Error,
    Goodbye,
    Hint,
    Left,
    Message,
    Notice,
    ProtocolError,
    Sender,
    State,
    Tables,
    encode_frame,
)

from .host import HintJob, Host, tables_named
from .journal import GameBegun, Record
from .limits import (
    ANSWERING,
    DEFAULT_LIMITS,
    FIRST_FAILURE,
    MAX_REFUSALS,
    Allowance,
    Limits,
    LinesOfAnAnswer,
    LogAllowance,
    TokenBucket,
    counted_address,
    message_cost,
)
from .sockets import ACCEPT_SHORTAGES, Backlogs, NonBlockingSocket, address_text, discard_up_to
from .store import Store, StoreError
from .tables import BotJob, Outgoing
from .work import Workers

log = logging.getLogger("notty.server")
#: Every line written while the host answers a client counts against the client's address, as the
#: lines about its connections do: the host's own and its tables', the record's and the store's (a
#: disk that fails), and ours (a bug in the host, whose traceback a client could ask for in a loop). A
#: logger's filter sees only that logger's lines, not a child's, so each is named here.
ANSWER_LOGGERS = ("notty.host", "notty.net", "notty.record", "notty.server", "notty.store")
for name in ANSWER_LOGGERS:
    logging.getLogger(name).addFilter(LinesOfAnAnswer())

#: How many kinds of host failure (call and exception) are told once whatever a client's allowance.
FAILURE_KINDS_KEPT = 100
#: How often the host hears the time (grace periods, turn limits).
TICK_SECONDS = 0.25
#: Threads that work out hints, apart from the bots' (two cores: one for hints, the rest for bots).
HINT_THREADS = 1
#: How long a closing connection may take to flush its last messages.
FLUSH_SECONDS = 2.0
#: How often the game record's log is copied into its database file, in a worker thread.
CHECKPOINT_SECONDS = 1.0
MAX_TEXT = 500
#: What every client is told, with the error ``shutting-down``, as the server stops: a client that
#: knows the code reconnects, for its seat (or the lobby) comes back with the next start.
SHUTTING_DOWN = "the server is shutting down or restarting; its games are kept for when it is back"
#: Tries at one free port for every address family when port 0 is asked for (see _listen).
PORT_TRIES = 5
#: How long a connection over its address's connection rate waits for its refusal (see _slow_down).
SLOW_DOWN_SECONDS = 1.0  # on average: from half to one and a half
#: Connections waiting for a late refusal, from every address together: past it, one more is closed at
#: once, unanswered. Each holds a file, apart from the --max-connections the server makes room for.
HELD_MOST = 512
#: The error for a connection over its address's connection rate: the one refusal that a client should
#: meet by connecting again, a moment later, by itself.
TOO_FAST = "connecting-too-fast"
#: ... and how much of what it sent meanwhile is read: a hello is far smaller, and a flooder sends a
#: frame or more a connection, a burst of reading when many are answered at once.
SLOWED_BYTES = 4096
#: What a connection turned away may send before the server stops reading it: a hello, and more
#: than a client waiting for the answer would. Reading a flooder's 1 MiB (a welcomed connection's
#: linger) for each of its thousands of connections a second cost more than the refusal.
TURNED_AWAY_BYTES = 2 * MAX_CLIENT_FRAME
#: Addresses whose allowances are kept before those grown back in full are forgotten.
MAX_ALLOWANCES = 4096
#: ... and swept at most this often: many new addresses at once must not each walk the whole table.
SWEEP_SECONDS = 1.0
#: A message over the rate is dropped unread, unless it is this small: then it may be ``bye``, which
#: is let through (leaving costs less than refusing to let it leave), and reading it costs nothing.
READ_OVER_RATE = 32


@attrs.define(eq=False)
class Link:
    """One client connection: its protocol state, its bounded outgoing queue and what it has spent."""

    id: int
    socket: NonBlockingSocket
    protocol: Connection
    opened: float  # trio time, for the hello deadline
    heard: float  # when its last bytes arrived, for the idle timeout
    messages: TokenBucket
    hints: TokenBucket
    address: str  # as the per-address caps count it (server.limits.counted_address)
    refusals: int = 0  # rate-limited messages since the last one accepted
    scope: trio.CancelScope | None = None  # its reader's and flusher's, once they run
    #: Goodbye is queued (perhaps held for a commit): nothing more from this peer is read or answered.
    ending: bool = False

    @property
    def closing(self) -> bool:
        return self.socket.closing or self.socket.broken

    @property
    def listening(self) -> bool:
        return not (self.ending or self.closing)


class SharedFrames:
    """Messages sent alike to many, packed once. The lobby's list is up to 64 KB and any client may
    ask for it as often as its rate allows: packed per request, clients that asked and never read
    made everyone else's replies wait. A table's ``state`` is one for all its spectators
    (tables.states): packed per watcher, one address's 200 watchers made each move cost 200."""

    def __init__(self) -> None:
        self._kept: dict[type, tuple[Message, bytes]] = {}

    def packed(self, message: Message) -> bytes | None:
        """``message``'s frame if it is of a kind sent alike to many (else ``None``: pack it as usual)."""
        if not isinstance(message, Tables | State):
            return None
        kept = self._kept.get(type(message))
        if kept is None or kept[0] is not message:
            kept = self._kept[type(message)] = (message, encode_frame(message.wire_body()))
        return kept[1]


class NottyServer:
    def __init__(
        self, host: Host, *, store: Store | None = None, limits: Limits = DEFAULT_LIMITS, bot_threads: int = 2
    ) -> None:
        self.host = host
        self.store = store
        host.recorded = store is not None
        host.announce_limits(limits)  # each welcome says what this server holds its connection to
        self.limits = limits
        self._backlogs = Backlogs(limits.queue_total_bytes)  # what every client's queue holds together
        self.links: dict[int, Link] = {}
        self._from: collections.Counter[str] = collections.Counter()  # open connections per address
        self._ids = itertools.count(1)
        # Bots' moves in bot_threads threads, and hints in threads of their own: a flood of hints
        # that take CPU (Ochos Locos' play deals out) never holds up a table's bot. Each is shared
        # fairly between addresses and tables.
        self._work = Workers(bot_threads, total=limits.work_queue)
        self._hint_work = Workers(HINT_THREADS, total=limits.work_queue)
        # Each address's message and hint buckets, over all its connections; gone with its last one.
        self._allowances: dict[str, Allowance] = {}
        self._swept = -math.inf  # when the allowances were last swept of those grown back in full
        self._nursery: trio.Nursery | None = None
        # Group commit: what the host journals waits here for the next commit, and every message
        # queued meanwhile waits with it, in order, so none is sent before what it follows from is
        # stored. One commit serves every message of a scheduling round (see _committer).
        self._unrecorded: list[Record] = []
        # Replies held for the store, each with the table its connection was at when it was made.
        self._held: list[tuple[Link, Message, int | None]] = []
        self._commit_wanted = trio.Event()
        # Tables stopped since the record last took a write: said once it takes one again.
        self._stopped_unrecorded: set[int] = set()
        self._shared_frames = SharedFrames()
        # Shutting down: a connection that arrives now is turned away, and those waiting for a late
        # refusal are told this one at once (see _slow_down).
        self._stopping = trio.Event()
        self._refusing = 0  # connections waiting for a late refusal (see _slow_down)
        self._log_lines = LogAllowance()  # what the log may say about each address's connections
        self._failures_seen: set[tuple[str, str]] = set()  # (host call, exception) logged in full once
        self._jitter = random.Random()  # how long each connection over its rate waits: no secret

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
            listeners = await _listen(host, port)
            for listener in listeners:
                log.info("listening on %s", address_text(listener.socket.getsockname()))
            nursery.start_soon(self._clock)
            if self.store is not None:
                nursery.start_soon(self._checkpoints, self.store)
                nursery.start_soon(self._committer, self.store)
            task_status.started(listeners)
            for listener in listeners:
                nursery.start_soon(self._accept, listener, nursery)

    async def _accept(self, listener: trio.SocketListener, nursery: trio.Nursery) -> None:
        """Accept connections until cancelled, serving each in ``nursery``.

        Out of descriptors, accept fails until a connection closes, and
        ``trio.serve_listeners`` would log a traceback every 0.1 s meanwhile:
        here it is one warning when it starts and one line when it ends, and
        retries back off from 0.1 s to 1 s. Other errors propagate, as there.
        """
        failed = 0
        async with listener:
            while True:
                try:
                    stream = await listener.accept()
                except OSError as error:
                    if error.errno not in ACCEPT_SHORTAGES:
                        raise
                    if not failed:
                        short = ACCEPT_SHORTAGES[error.errno]
                        log.warning("%s: not accepting new connections until some close", short)
                    failed += 1
                    await trio.sleep(min(0.1 * 2 ** min(failed - 1, 4), 1.0))
                    continue
                if failed:
                    log.info("accepting connections again (%d accepts failed meanwhile)", failed)
                    failed = 0
                nursery.start_soon(self._serve_accepted, stream)

    async def _serve_accepted(self, stream: trio.SocketStream) -> None:
        """Serve one accepted connection; its descriptor is closed whatever happens."""
        try:
            await self._handle(stream)
        finally:
            await trio.aclose_forcefully(stream)

    @property
    def stopping(self) -> bool:
        """Has :meth:`shutdown` begun?"""
        return self._stopping.is_set()

    async def shutdown(self, reason: str = "the server is shutting down") -> None:
        """Tell every client goodbye and give the messages a moment to leave; the games stay as they
        are (no bot plays on, no game ends as its watchers go), to be restored on the next start.

        The error ``shutting-down`` comes first, so that a client can tell a stop it may wait out
        from a goodbye it may not; one that tries again meanwhile is told the same and turned away,
        never welcomed by a host that has stopped."""
        self._stopping.set()
        self.host.close()
        for link in list(self.links.values()):
            if not link.ending:  # one already told goodbye, and why, is told nothing more
                self._queue(link, Error("shutting-down", SHUTTING_DOWN))
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
        try:
            where = stream.socket.getpeername()
            address = counted_address(str(where[0]), str(stream.socket.getsockname()[0]))
            peer = address_text(where)
        except OSError:
            peer = address = "?"
        limits = self.limits
        if self._stopping.is_set():
            await self._turn_away(stream, peer, address, Error("shutting-down", SHUTTING_DOWN))
            return
        if not self._allowance(address).connections.take(trio.current_time()):
            await self._slow_down(stream, peer, address)
            return
        if len(self.links) >= limits.max_connections:
            text = f"the server is full ({limits.max_connections} connections): try again later"
            await self._turn_away(stream, peer, address, Error("server-full", text))
            return
        if self._from[address] >= limits.connections_per_address:
            open_now = counted(self._from[address], "connection")
            are = "is" if self._from[address] == 1 else "are"
            text = f"{open_now} from {address} {are} open, the most one address may have: close one first"
            await self._turn_away(stream, peer, address, Error("too-many-connections", text))
            return
        now = trio.current_time()
        link = Link(
            next(self._ids),
            NonBlockingSocket.from_stream(stream, limits.queue, limits.queue_bytes, self._backlogs),
            Connection(Sender.SERVER),
            opened=now,
            heard=now,
            messages=TokenBucket(limits.rate, limits.burst),
            hints=TokenBucket(limits.hint_rate, limits.hint_burst),
            address=address,
        )
        self.links[link.id] = link
        with self._counted(address):
            await self._serve_link(link, peer)

    async def _serve_link(self, link: Link, peer: str) -> None:
        """Serve a connection let in, from the host hearing of it to the host hearing it is gone."""
        address = link.address
        self.host.connect(link.id, address)
        self._log(address, logging.INFO, "connection %d from %s", link.id, peer)
        try:
            async with trio.open_nursery() as nursery:
                link.scope = nursery.cancel_scope
                nursery.start_soon(self._flush, link)
                await self._read(link)
                # The reader is done (end of stream, bye, or a fatal error): let the
                # flusher send what is queued, but not for long.
                self._finish(link)
            # A lingering close (see NonBlockingSocket.linger): the peer reads why and goodbye,
            # where closing now could reset the connection under them. It still counts as open.
            with trio.move_on_after(FLUSH_SECONDS):
                await link.socket.linger()
        finally:
            link.socket.close()  # first: nothing below can leave the descriptor open
            self.links.pop(link.id, None)
            self._dispatch(self._answer(address, self.host.disconnect, link.id, trio.current_time()))
            self._run_bots()
            self._log(address, logging.INFO, "connection %d closed", link.id)

    async def _slow_down(self, stream: trio.SocketStream, peer: str, address: str) -> None:
        """Turn away a connection over its address's rate, but a while later: a client that connects
        again as soon as it is turned away then comes back about once a second for each connection it
        keeps trying, not thousands of times. Held, it counts against its address's cap, so an address
        has at most as many answers on their way as it may have connections; one past the cap waits as
        long and is closed unanswered (answered or closed at once, it fed the same loop). Past
        ``HELD_MOST`` held from every address together, one is closed at once: they hold files."""
        if self._refusing >= HELD_MOST:
            self._log(
                address, logging.WARNING, "connection from %s closed unanswered: %d held", peer, HELD_MOST
            )
            await trio.aclose_forcefully(stream)
            return
        answered = self._from[address] < self.limits.connections_per_address
        self._refusing += 1
        try:
            with self._counted(address) if answered else contextlib.nullcontext():
                # Each its own while, or a client's connections turned away together come back together;
                # a server stopping meanwhile says so at once.
                with trio.move_on_after(SLOW_DOWN_SECONDS * (0.5 + self._jitter.random())):
                    await self._stopping.wait()
                if self._stopping.is_set():
                    error = Error("shutting-down", SHUTTING_DOWN)
                elif answered:
                    error = Error(TOO_FAST, self._too_fast(address))
                else:
                    self._log(
                        address, logging.WARNING, "connection from %s closed unanswered: too fast", peer
                    )
                    await trio.aclose_forcefully(stream)
                    return
                await self._turn_away(stream, peer, address, error, SLOWED_BYTES)
        finally:
            self._refusing -= 1

    def _too_fast(self, address: str) -> str:
        """Why a connection over its address's rate is turned away, and what to do."""
        limits = self.limits
        return (
            f"connections from {address} are coming too fast: at most {limits.connection_rate:g} a second, "
            f"{limits.connection_burst} at once; wait a moment, then connect again"
        )

    @contextlib.contextmanager
    def _counted(self, address: str) -> Iterator[None]:
        """One more connection from ``address`` against its cap, for as long as it lasts."""
        self._from[address] += 1
        try:
            yield
        finally:
            self._from[address] -= 1
            if not self._from[address]:
                del self._from[address]

    async def _turn_away(
        self,
        stream: trio.SocketStream,
        peer: str,
        address: str,
        error: Error,
        drain: int = TURNED_AWAY_BYTES,
    ) -> None:
        """Refuse a connection over a limit before the host ever hears of it, reading at most ``drain``
        bytes of what it sent meanwhile."""
        self._log(address, logging.WARNING, "connection from %s refused: %s", peer, error.code)
        protocol = Connection(Sender.SERVER)
        data = protocol.send(error) + protocol.send(Goodbye(error.message))
        try:
            with trio.move_on_after(FLUSH_SECONDS):
                await stream.send_all(data)
                # As for any connection we end: half-close, and drop what it sends meanwhile (its
                # hello, say), or the reset for its unread bytes could destroy the error on its way.
                await stream.send_eof()
                await discard_up_to(stream.receive_some, drain)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)

    async def _read(self, link: Link) -> None:
        """Read until the peer is gone, says goodbye, or overstays its deadline.

        The deadline moves with every message, but one cancel scope serves until
        it expires (entering one per read cost a tenth of the server's time):
        when it fires, the deadline is worked out again, and only if it has
        really passed does the connection time out. Welcome swaps the hello
        deadline for the idle one, so the scope is renewed then.
        """
        while link.listening:
            # Before welcome the deadline is fixed, so trickling bytes cannot stretch it.
            welcomed = link.protocol.state is not ConnectionState.HELLO
            deadline = (
                link.heard + self.limits.idle_seconds if welcomed else link.opened + self.limits.hello_seconds
            )
            if trio.current_time() >= deadline:
                # What the peer sent counts before it is judged silent: a server paused past the
                # deadline (Ctrl-Z, a laptop asleep) timed out every client as it woke, their pings
                # waiting unread.
                waiting = link.socket.waiting(MAX_FRAME)
                if waiting is None:
                    self._time_out(link, welcomed)
                    return
                if not waiting or not self._take_in(link, waiting):
                    return
                await trio.lowlevel.checkpoint()  # a peer that never stops sending shares the loop
                continue
            with trio.move_on_at(deadline):
                while link.listening:
                    data = await link.socket.receive(MAX_FRAME)
                    if not data or not self._take_in(link, data):
                        return
                    if not welcomed and link.protocol.state is not ConnectionState.HELLO:
                        break  # welcomed: from now the idle deadline applies, and it may be the sooner

    def _take_in(self, link: Link, data: bytes) -> bool:
        """Answer what ``data`` completes; False if the connection is to end (it broke the protocol)."""
        try:
            link.protocol.receive_data(data)
        except ProtocolError as error:
            self._refuse(link, error)
            return False
        self._drain(link)
        self._run_bots()
        return True

    def _drain(self, link: Link) -> None:
        """Answer every whole message received so far (none once goodbye is queued: a flood that
        closes its connection while a commit holds the goodbye is not read on meanwhile).

        Each message is charged before it is decoded, by its size, and one over the rate is
        dropped unread: decoding is the costly part of a message that is refused anyway.
        """
        while link.listening:
            size = link.protocol.next_size()
            if size is None:
                return
            # Only a whole message counts as hearing from the peer: a byte at a time must not
            # keep a connection past its idle timeout.
            link.heard = trio.current_time()
            refusal = self._charge(link, size)
            if refusal is not None and size > READ_OVER_RATE:
                link.protocol.skip()
                self._refuse_over_rate(link, refusal)
                continue
            try:
                message = link.protocol.next_event()
            except ProtocolError as error:
                if error.fatal:
                    self._refuse(link, error)
                    return
                if refusal is not None:
                    self._refuse_over_rate(link, refusal)
                else:
                    self._refuse(link, error)  # a refusal is an answer too: it was charged
                continue
            if message is None:  # not reached: the whole frame was here
                return
            if refusal is None and isinstance(message, AskHint):
                refusal = self._charge_hint(link)
            if refusal is not None and not isinstance(message, Bye):  # leaving costs less than
                self._refuse_over_rate(link, refusal)  # refusing to let it leave
                continue
            link.refusals = 0
            self._dispatch(
                self._answer(link.address, self.host.handle, link.id, message, trio.current_time())
            )
            self._run_hints()

    def _charge(self, link: Link, size: int) -> str | None:
        """Charge a message of ``size`` bytes to the connection's bucket and its address's; if it is
        over a rate, why (and nothing is charged). The address's bucket stops one client from
        multiplying its share by opening more connections."""
        now, limits = trio.current_time(), self.limits
        address, messages = link.address, self._allowance(link.address).messages
        cost = message_cost(size, link.messages.burst)
        if not link.messages.available(now) >= cost:
            return f"too many messages: at most {limits.rate:g} a second, {limits.burst} at once"
        if not messages.take(now, message_cost(size, messages.burst)):
            return (
                f"too many messages from your address ({address}): at most {messages.rate:g} a "
                f"second, {messages.burst:g} at once, all its connections together"
            )
        link.messages.take(now, cost)
        return None

    def _charge_hint(self, link: Link) -> str | None:
        """Charge a hint to the connection's hint bucket and its address's; if over a rate, why."""
        now, limits = trio.current_time(), self.limits
        address, hints = link.address, self._allowance(link.address).hints
        if not link.hints.take(now):
            return f"too many hints: at most {limits.hint_rate:g} a second, {limits.hint_burst} at once"
        if not hints.take(now):
            return (
                f"too many hints from your address ({address}): at most {hints.rate:g} a "
                f"second, {hints.burst:g} at once, all its connections together"
            )
        return None

    def _refuse_over_rate(self, link: Link, text: str) -> None:
        """Answer a message over a rate: each refusal is answered, so a client that keeps flooding is
        closed after ``MAX_REFUSALS`` in a row, and what the server writes stays bounded."""
        link.refusals += 1
        if link.refusals >= MAX_REFUSALS:
            self._log(
                link.address,
                logging.INFO,
                "connection %d: %d messages over the rate in a row: closed",
                link.id,
                link.refusals,
            )
            self._close(link, Error("rate-limit", f"{text}; {MAX_REFUSALS} refused in a row: goodbye"))
        else:
            self._queue(link, Error("rate-limit", f"{text}; this one was ignored"))

    def _allowance(self, address: str) -> Allowance:
        """``address``'s buckets: its messages and hints over all its connections, and its new connections.

        Made when first needed, and kept after the address's last connection closes until they
        have grown back in full: closing every connection and opening new ones buys no fresh
        burst. They are forgotten then (see ``_forget_allowances``), so there are never many more
        than there are addresses connected or lately turned away. An address may always send what
        one connection may: raising a connection's rate raises its address's with it.
        """
        allowance = self._allowances.get(address)
        if allowance is None:
            now = trio.current_time()
            if len(self._allowances) >= MAX_ALLOWANCES and now - self._swept >= SWEEP_SECONDS:
                self._swept = now  # at most a sweep a second, however many new addresses come
                self._forget_allowances(now)
            limits = self.limits
            allowance = self._allowances[address] = Allowance(
                TokenBucket(max(limits.address_rate, limits.rate), max(limits.address_burst, limits.burst)),
                TokenBucket(
                    max(limits.address_hint_rate, limits.hint_rate),
                    max(limits.address_hint_burst, limits.hint_burst),
                ),
                TokenBucket(limits.connection_rate, limits.connection_burst),
            )
        return allowance

    def _forget_allowances(self, now: float) -> None:
        """Forget the buckets of addresses with no connection open whose allowance has grown back
        in full: a new connection from one of them would get the very same."""
        for address, allowance in list(self._allowances.items()):
            if address not in self._from and allowance.full(now):
                del self._allowances[address]

    def _time_out(self, link: Link, welcomed: bool) -> None:
        seconds = self.limits.idle_seconds if welcomed else self.limits.hello_seconds
        took = f"{seconds:g} second" + ("" if seconds == 1 else "s")
        if welcomed:
            error = Error("idle-timeout", f"nothing heard from you for {took} (send ping)")
        else:
            error = Error("hello-timeout", f"no hello within {took} of connecting")
        self._log(link.address, logging.INFO, "connection %d: %s", link.id, error.code)
        self._close(link, error)

    def _log(self, address: str, level: int, message: str, *args: object) -> None:
        """A line about one of ``address``'s connections, if the log may still say one (see
        :class:`~server.limits.LogAllowance`); the next one written says how many were left out."""
        left_out = self._log_lines.take(address, trio.current_time())
        if left_out is None:
            return
        if left_out:  # as the host's lines say it (server.limits.LinesOfAnAnswer)
            message += " (%s about %s left out before this one)"
            args = (*args, counted(left_out, "line"), address)
        log.log(level, message, *args)

    def _refuse(self, link: Link, error: ProtocolError) -> None:
        fate = "fatal" if error.fatal else "refused"
        self._log(link.address, logging.INFO, "connection %d: %s (%s)", link.id, error.code, fate)
        reply = Error(error.code, _printable(error.message))
        if error.fatal:
            self._close(link, reply)
        else:
            self._queue(link, reply)

    def _close(self, link: Link, error: Error) -> None:
        """Say why, then goodbye: the connection cannot go on."""
        self._queue(link, error)
        self._queue(link, Goodbye(error.message))

    def _answer(self, address: str, call: Callable[..., list[Outgoing]], *args: Any) -> list[Outgoing]:
        """Ask the host on behalf of a client at ``address``: the lines it logs meanwhile count
        against that address's allowance (:class:`~server.limits.LinesOfAnAnswer`)."""
        answering = ANSWERING.set((self._log_lines, address, trio.current_time()))
        try:
            return self._ask(call, *args)
        finally:
            ANSWERING.reset(answering)

    def _ask(self, call: Callable[..., list[Outgoing]], *args: Any) -> list[Outgoing]:
        """Call the host; a bug in it costs one reply, never the server."""
        try:
            return call(*args)
        except Exception as error:
            # The first traceback of each kind is logged whatever the client's allowance (one who
            # spent it could otherwise hide a new bug); the same again counts against it.
            kind = call.__name__, type(error).__name__
            new_kind = kind not in self._failures_seen and len(self._failures_seen) < FAILURE_KINDS_KEPT
            if new_kind:
                self._failures_seen.add(kind)
            log.exception("host failed in %s", call.__name__, extra=FIRST_FAILURE if new_kind else None)
            first = args[0] if args else None
            conn = first.conn if isinstance(first, HintJob) else first if isinstance(first, int) else None
            return (
                [] if conn is None else [(conn, Error("internal-error", "the server failed to answer that"))]
            )

    async def _flush(self, link: Link) -> None:
        """Send what the socket could not take at once; after goodbye (or a drop), stop the reader too."""
        await link.socket.flush()
        assert link.scope is not None
        link.scope.cancel()

    # -- sending --------------------------------------------------------------------

    def _dispatch(self, outgoing: Iterable[Outgoing]) -> None:
        records = self.host.take_journal()
        if records and self.store is not None:
            self._unrecorded += records
            self._commit_wanted.set()
        if not self._unrecorded:  # nothing waits for the store: the games gone meanwhile ended as recorded
            outgoing = [*outgoing, *self._ask(self.host.stored)]
        for conn, message in outgoing:
            link = self.links.get(conn)
            if link is not None:
                self._queue(link, message)

    async def _committer(self, store: Store) -> None:
        """Commit what the host journals in groups: one transaction for every message answered in
        a scheduling round, rather than one each, then send the replies held for it."""
        try:
            while True:
                await self._commit_wanted.wait()
                self._commit_wanted = trio.Event()
                await trio.sleep(0)  # the rest of this round's messages join the group
                self._commit(store)
        finally:
            self._commit(store)  # what is pending when the server stops is stored, not dropped

    def _commit(self, store: Store) -> None:
        """Store what the host changed, then send what was held for it.

        Fails closed: a table whose changes could not be stored is stopped, and
        the replies held for it are dropped, so no client is told of a move the
        record does not hold: its states and notices, and the refusals and hints
        its players were given, judged by a position the record does not hold. A
        lobby list held meanwhile is made again once the tables are stopped, as
        it may show them after such a move. Every other table's replies go out as
        usual.
        """
        records, self._unrecorded = self._unrecorded, []
        held, self._held = self._held, []
        failed = _store(store, records) if records else {}
        # First: a dispatch below, with nothing left to store, would take every end as recorded.
        settled = self._ask(self.host.stored, failed)
        relist: list[Link] = []  # lists asked for that may show what failed: made again after it
        for link, message, at in held:
            if failed and isinstance(message, Tables):
                relist.append(link)
            elif not failed or not _of_failed(message, at, failed, link.protocol.state):
                self._send(link, message)
        self._dispatch(settled)  # the answers of hellos that waited for it, after their welcomes
        if not failed:
            if records and self._stopped_unrecorded:
                one = len(self._stopped_unrecorded) == 1
                log.warning(
                    "the record takes writes again: %s, stopped when %s changes could not be recorded, "
                    "%s back when the server is restarted",
                    tables_named(self._stopped_unrecorded),
                    "its" if one else "their",
                    "comes" if one else "come",
                )
                self._stopped_unrecorded.clear()
            return
        unbegun = {record.table for record in records if isinstance(record, GameBegun)}
        self._stopped_unrecorded.update(set(failed) - unbegun)  # (a game never begun comes back never)
        # Players whose leave was not recorded are told so: their seat token still resumes the game.
        leavers = [
            (link.id, message.table)
            for link, message, _ in held
            if isinstance(message, Left) and link.protocol.state is ConnectionState.SEATED
        ]
        for why in set(failed.values()):
            tables = [table for table, error in failed.items() if error == why]
            left = [(conn, table) for conn, table in leavers if table in tables]
            self._dispatch(self._ask(self.host.halt, tables, why, unbegun, left))
        self._dispatch([(link.id, self.host.table_list()) for link in relist])

    def _table_at(self, link: Link) -> int | None:
        """The table ``link``'s connection is at, as the host has it."""
        session = self.host.sessions.get(link.id)
        return None if session is None else session.table

    def _queue(self, link: Link, message: Message) -> None:
        """Send ``message`` once everything journaled before it is stored."""
        if isinstance(message, Goodbye):
            link.ending = True
        if self._unrecorded:  # (the table now: by the store's word, its player may have left it)
            self._held.append((link, message, self._table_at(link)))
        else:
            self._send(link, message)

    def _send(self, link: Link, message: Message) -> None:
        if link.closing:
            return
        if link.protocol.state is ConnectionState.CLOSED and not isinstance(message, (Error, Goodbye)):
            return  # the peer said bye before this reply to an earlier message could go: nobody to tell
        try:
            data = link.protocol.send(message, frame=self._shared_frames.packed(message))
        except Exception:  # out of turn, too big for one frame, or a game's data msgpack cannot carry
            # A bug on our side: it costs this message, never the task sending it (which, for held
            # replies, serves every connection).
            log.exception("connection %d: could not send %s", link.id, message.TYPE)
            return
        if not link.socket.send(data):
            self._log(link.address, logging.WARNING, "connection %d is not reading: dropped", link.id)
            link.socket.close()
        elif isinstance(message, Goodbye):
            self._finish(link)

    def _finish(self, link: Link) -> None:
        """Send nothing more; what is queued has ``FLUSH_SECONDS`` to leave, even to a peer not reading."""
        if self.store is not None and any(held is link for held, _, _ in self._held):
            self._commit(self.store)  # its last replies (a goodbye, say) are held: they go first
        link.socket.close_after_flush()
        if link.scope is not None:
            link.scope.deadline = min(link.scope.deadline, trio.current_time() + FLUSH_SECONDS)

    # -- time and bots ----------------------------------------------------------------

    async def _clock(self) -> None:
        while True:
            await trio.sleep(TICK_SECONDS)
            self._dispatch(self._ask(self.host.tick, trio.current_time()))
            self._run_bots()

    async def _checkpoints(self, store: Store) -> None:
        """Checkpoints fsync: in a worker thread they hold up no reply, or far fewer (see :class:`Store`)."""
        failing = 0  # checkpoints failed in a row: the first is logged in full, the rest when it ends
        while True:
            await trio.sleep(CHECKPOINT_SECONDS)
            with contextlib.suppress(StoreError):  # logged by the store; every write is refused from now
                store.keep_in_place()  # a file deleted is put back even while nobody moves
            try:
                await trio.to_thread.run_sync(store.checkpoint)
            except Exception as error:
                if not failing:
                    log.warning("could not checkpoint the record (it stays in the log meanwhile): %s", error)
                failing += 1
            else:
                if failing:
                    log.info("checkpoints work again, after %d failed", failing)
                failing = 0

    def _run_hints(self) -> None:
        assert self._nursery is not None
        for job in self.host.hint_jobs():
            self._nursery.start_soon(self._hint, job)

    async def _hint(self, job: HintJob) -> None:
        """Work out a hint in its asker's address's share of the threads, unless too many wait."""
        assert self._nursery is not None
        ticket = self._hint_work.submit(self._nursery, job.address, job.table, job.solve)
        answer: HintAnswer | Error
        if ticket is None:
            answer = Error("server-busy", "the server is busy: try the hint again in a moment")
        else:
            try:
                answer = await ticket.result()
            except Exception:
                log.exception("hint failed")
                answer = Error("internal-error", "the server failed to work out a hint")
        self._dispatch(self._ask(self.host.hint_ready, job, answer))

    def _run_bots(self) -> None:
        assert self._nursery is not None
        for job in self.host.bot_jobs():
            self._nursery.start_soon(self._bot, job)

    async def _bot(self, job: BotJob) -> None:
        """Choose a bot's move in its table's creator's share of the threads (never refused: a
        table has at most one out), then wait out the table's bot delay."""
        assert self._nursery is not None
        started = trio.current_time()
        ticket = self._work.submit(
            self._nursery, job.address, job.table, job.bot.choose, job.view, bounded=False
        )
        assert ticket is not None
        action: Any | None
        try:
            action = await ticket.result()
        except Exception:  # the host falls back on what the game says is always allowed
            log.exception("bot %s failed at table %d", job.bot.name, job.table)
            action = None
        await trio.sleep(max(0.0, job.delay - (trio.current_time() - started)))
        self._dispatch(self._ask(self.host.bot_acted, job, action, trio.current_time()))
        self._run_bots()


async def _listen(host: str | None, port: int) -> list[trio.SocketListener]:
    """Listeners on every address ``host`` names, all on one port: with port 0 each address family
    would get a free port of its own, and the log would name two (a client reaching IPv6 by the
    IPv4 one finds nothing). So the first one picked is taken for all, closed and bound again."""
    listeners = await trio.open_tcp_listeners(port, host=host)
    for _ in range(PORT_TRIES):
        if len({listener.socket.getsockname()[1] for listener in listeners}) == 1:
            break
        chosen = listeners[0].socket.getsockname()[1]
        for listener in listeners:
            await listener.aclose()
        try:
            listeners = await trio.open_tcp_listeners(chosen, host=host)
        except OSError:  # another program took it meanwhile: start again from a free port
            listeners = await trio.open_tcp_listeners(0, host=host)
    if len({listener.socket.getsockname()[1] for listener in listeners}) > 1:
        log.warning("no one free port for every address: each listens on its own (the lines below)")
    return listeners


def _store(store: Store, records: list[Record]) -> dict[int, str]:
    """Write ``records``; return the tables whose changes could not be stored, each with why.

    All in one transaction first. If that fails, each table's changes are tried
    once more in a transaction of their own: a fault that passes (a busy disk)
    costs nothing, and one that lasts stops only the tables it touches.
    """
    try:
        store.write(records)
        return {}
    except Exception as error:
        log.warning("could not record %d change(s) (%s): trying each table's alone", len(records), error)
    by_table: dict[int, list[Record]] = {}
    for record in records:
        by_table.setdefault(record.table, []).append(record)
    failed: dict[int, str] = {}
    for table, changes in by_table.items():
        try:
            store.write(changes)
        except Exception as error:  # the host logs the table's stop, with why
            failed[table] = _why(error)
    return failed


def _why(error: Exception) -> str:
    """A store failure in a few words a player can pass on to the server's operator."""
    text = str(error) or type(error).__name__
    return text.splitlines()[0][:120]


def _table_of(message: Message, at: int | None) -> int | None:
    """The table a held reply reports on, if it reports a table's game, who is at it, or a leave; a
    turn's time run out is news of the game at ``at``, the table its player is at (the record has it
    as it has a move: unrecorded, the turn is theirs still)."""
    if isinstance(message, Error) and message.code == "turn-time":
        return at
    return message.table if isinstance(message, State | Notice | Left) else None


def _of_failed(message: Message, at: int | None, failed: Container[int], state: ConnectionState) -> bool:
    """Does a held reply tell of a table whose changes the store could not record (``failed``)? Its
    game, who is at it or a leave from it (but a spectator's leave, which records nothing); or, to a
    connection at it (``at``), a refusal or a hint: judged by a position the record does not hold
    (a security review was told "it is random-2's turn, not yours" of a move the restart undid)."""
    if isinstance(message, Left) and state is ConnectionState.WATCHING:
        return False
    return _table_of(message, at) in failed or (at in failed and isinstance(message, Error | Hint))


def _printable(text: str) -> str:
    """Text safe to put in an error message: no control characters, at most 500 characters."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text)[:MAX_TEXT]
    return cleaned or "?"
