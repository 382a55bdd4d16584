"""Bot and hint work, shared fairly between addresses and tables.

Bots and hints are CPU work the shell runs in worker threads. With one
first-come queue for every table, one address's many bot tables or hint
requests held up the bots at every other table. Here each job has an owner
(the address that made its table, or that asked for the hint) and a table:
:class:`FairQueue` serves the owners in turn, then each owner's tables in
turn, each table's jobs in order. An address with fifty busy tables gets one
turn while another address with one job waits, so that job waits for at
most one of theirs besides those already running; and the queue is bounded,
so a flood of hints is refused rather than stored. :class:`Workers` runs what it serves in a few threads.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar, cast

import attrs
import trio

T = TypeVar("T")
R = TypeVar("R")

#: Whose share a job comes from: an address (``None``: tables restored from the record share one).
Owner = Hashable
#: Jobs that may wait at one table before its hints are refused (its bot's move never is): with
#: one hint out per seat, and per watcher, only many seats or watchers asking at once meet it.
PER_TABLE = 4
#: Jobs that wait in all before hints are refused: one waiting behind this many would be stale.
TOTAL = 256


class FairQueue(Generic[T]):
    """Jobs waiting, by owner then table: ``pop`` takes the owners in turn, then each owner's
    tables in turn, and each table's jobs first come, first served.

    Pure (no clock, no threads), so its fairness can be tested exactly. A
    bounded job is refused once its table has ``per_table`` waiting or the
    queue holds ``total`` bounded ones; an unbounded one (a bot's move, of which a table
    has at most one out) never is.
    """

    def __init__(self, *, per_table: int = PER_TABLE, total: int = TOTAL) -> None:
        self.per_table = per_table
        self.total = total
        # Insertion order is the turn order: whoever is served moves to the back.
        self._owners: dict[Owner, dict[Hashable, collections.deque[tuple[T, bool]]]] = {}
        self._count = 0
        self._bounded = 0  # of them bounded: only these count against ``total``, so that bots'
        # moves, one a table and never refused, cannot crowd every hint out on a server of many tables

    def __len__(self) -> int:
        return self._count

    def push(self, owner: Owner, table: Hashable, job: T, *, bounded: bool = True) -> bool:
        """Queue ``job``; ``False`` (and nothing queued) if it is bounded and a bound is reached."""
        tables = self._owners.get(owner)
        jobs = None if tables is None else tables.get(table)
        if bounded and (self._bounded >= self.total or (jobs is not None and len(jobs) >= self.per_table)):
            return False
        if tables is None:
            tables = self._owners[owner] = {}
        if jobs is None:
            jobs = tables[table] = collections.deque()
        jobs.append((job, bounded))
        self._count += 1
        self._bounded += bounded
        return True

    def pop(self) -> T:
        """The next job in turn; ``IndexError`` if none waits."""
        if not self._owners:
            raise IndexError("no job waits")
        owner = next(iter(self._owners))
        tables = self._owners.pop(owner)
        table = next(iter(tables))
        jobs = tables.pop(table)
        job, bounded = jobs.popleft()
        self._count -= 1
        self._bounded -= bounded
        if jobs:
            tables[table] = jobs  # to the back of its owner's tables
        if tables:
            self._owners[owner] = tables  # to the back of the owners
        return job

    def waiting(self, owner: Owner) -> int:
        """How many of ``owner``'s jobs wait (for tests and logs)."""
        return sum(len(jobs) for jobs in self._owners.get(owner, {}).values())


@attrs.define(eq=False)
class Ticket(Generic[R]):
    """A queued call: ``await ticket.result()`` for its value, or the exception it raised."""

    work: Callable[..., R]
    args: tuple[Any, ...] = ()
    _done: trio.Event = attrs.field(factory=trio.Event, init=False)
    _value: R | None = attrs.field(default=None, init=False)
    _error: BaseException | None = attrs.field(default=None, init=False)

    async def result(self) -> R:
        await self._done.wait()
        if self._error is not None:
            raise self._error
        return cast(R, self._value)

    async def _run(self, limiter: trio.CapacityLimiter) -> None:
        try:
            # Abandoned if cancelled (only as the server stops): a hint or a bot's think of several
            # seconds would hold up the stop, and its answer would go to nobody.
            self._value = await trio.to_thread.run_sync(
                self.work, *self.args, limiter=limiter, abandon_on_cancel=True
            )
        except Exception as error:  # the caller's to handle, as if it had called work itself
            self._error = error
        self._done.set()


class Workers:
    """Runs queued calls in at most ``threads`` worker threads, in :class:`FairQueue` order.

    A worker is a task started when a job is queued and fewer than ``threads``
    work; it runs jobs until none waits, then ends, so an idle server holds no
    task and nothing needs starting with it.
    """

    def __init__(self, threads: int, *, per_table: int = PER_TABLE, total: int = TOTAL) -> None:
        self.threads = threads
        self.queue: FairQueue[Ticket[Any]] = FairQueue(per_table=per_table, total=total)
        self.busy = 0  # workers running
        self._limiter = trio.CapacityLimiter(threads)  # its own: not shared with other to_thread users

    def submit(
        self,
        nursery: trio.Nursery,
        owner: Owner,
        table: Hashable,
        work: Callable[..., R],
        *args: Any,
        bounded: bool = True,
    ) -> Ticket[R] | None:
        """Queue ``work(*args)``, starting a worker in ``nursery`` if one is free; ``None``: refused."""
        ticket: Ticket[R] = Ticket(work, args)
        if not self.queue.push(owner, table, ticket, bounded=bounded):
            return None
        if self.busy < self.threads:
            self.busy += 1
            nursery.start_soon(self._worker)
        return ticket

    async def _worker(self) -> None:
        try:
            while self.queue:
                await self.queue.pop()._run(self._limiter)
        finally:
            self.busy -= 1
