"""Bot and hint work (server.work): the fair queue exactly, its trio runner, and the host's one hint
out per seat."""

from __future__ import annotations

import itertools
import random
import threading
from collections import Counter
from typing import Any

import pytest
import trio
from conftest import notty_table
from hypothesis import given
from hypothesis import strategies as st

from games import HintAnswer
from protocol import PROTOCOL_VERSION, Act, AskHint, Error, Hello, Hint, Join
from server.host import Host
from server.work import FairQueue, Workers

# -- the queue, exactly -----------------------------------------------------------------

OWNERS = ["a", "b", "c", None]
# (owner, table, bounded) to push, or None to pop. Tables are owned by one owner each, as in the server.
# Twice as many pushes as pops, so that queues build up and owners and tables wait side by side.
push = st.tuples(st.integers(0, 3), st.integers(0, 2), st.booleans())
operations = st.lists(st.one_of(st.none(), push, push), min_size=20, max_size=300)


class Turns:
    """While two groups both have jobs waiting, what each has been served since both began to:
    served in turn, the two never differ by more than one."""

    def __init__(self) -> None:
        self.waiting: dict[Any, int] = {}
        self.since: dict[tuple[Any, Any], Counter[Any]] = {}

    def pushed(self, group: Any) -> None:
        if group not in self.waiting:
            for other in self.waiting:
                self.since[group, other] = Counter()
            self.waiting[group] = 0
        self.waiting[group] += 1

    def served(self, group: Any) -> None:
        for pair, counts in self.since.items():
            if group in pair:
                counts[group] += 1
                assert abs(counts[pair[0]] - counts[pair[1]]) <= 1, (pair, counts)
        self.waiting[group] -= 1
        if not self.waiting[group]:
            del self.waiting[group]
            self.since = {pair: counts for pair, counts in self.since.items() if group not in pair}


@given(operations, st.integers(1, 4), st.integers(1, 40))
def test_the_queue_is_fair_bounded_and_loses_nothing(
    ops: list[tuple[int, int, bool] | None], per_table: int, total: int
) -> None:
    queue: FairQueue[tuple[Any, int, int]] = FairQueue(per_table=per_table, total=total)
    serial = itertools.count()
    owners = Turns()  # the owners take turns
    tables = {owner: Turns() for owner in OWNERS}  # and each owner's tables take turns
    by_table: dict[tuple[Any, int], list[int]] = {}
    pushed, served, refused = set(), [], set()
    kinds: dict[tuple[Any, int, int], bool] = {}  # each job pushed: bounded?
    hints_waiting = 0  # bounded jobs waiting: only these count against the total
    for op in ops:
        if op is None:
            if not queue:
                with pytest.raises(IndexError):
                    queue.pop()
                continue
            owner, table, number = job = queue.pop()
            served.append(job)
            hints_waiting -= kinds[job]
            assert by_table[owner, table].pop(0) == number  # first come, first served within a table
            owners.served(owner)
            tables[owner].served(table)
            continue
        o, t, bounded = op
        owner, table = OWNERS[o], o * 10 + t
        job = (owner, table, next(serial))
        table_before = len(by_table.get((owner, table), []))
        total_before = hints_waiting
        if queue.push(owner, table, job, bounded=bounded):
            assert not bounded or (table_before < per_table and total_before < total)
            pushed.add(job)
            kinds[job] = bounded
            hints_waiting += bounded
            by_table.setdefault((owner, table), []).append(job[2])
            owners.pushed(owner)
            tables[owner].pushed(table)
        else:
            assert bounded and (table_before >= per_table or total_before >= total)
            refused.add(job)
        assert len(queue) == sum(owners.waiting.values())
        assert queue.waiting(owner) == owners.waiting.get(owner, 0)
    while queue:
        served.append(queue.pop())
    assert len(served) == len(set(served)) and set(served) == pushed  # each once, none refused
    assert not pushed & refused


def test_an_owner_with_many_tables_gets_a_turn_like_one_with_a_single_job() -> None:
    queue: FairQueue[str] = FairQueue(total=100)
    for table in range(5):
        for move in range(3):
            queue.push("flood", table, f"f{table}.{move}")
    queue.push("canary", 99, "c")
    order = [queue.pop() for _ in range(len(queue))]
    assert order.index("c") <= 1  # behind at most one of the flood's fifteen
    assert order[:6] == ["f0.0", "c", "f1.0", "f2.0", "f3.0", "f4.0"]
    assert order[6:11] == [f"f{t}.1" for t in range(5)]  # the flood's tables in turn


def test_bots_are_never_refused_and_never_crowd_hints_out() -> None:
    queue: FairQueue[int] = FairQueue(per_table=1, total=2)
    assert all(queue.push("a", table, table, bounded=False) for table in range(5))
    assert queue.push("b", 7, 7) and queue.push("b", 8, 8)  # bots' moves leave the hints their room
    assert not queue.push("b", 9, 9)  # two hints wait: the next is refused
    assert len(queue) == 7 and queue.waiting("b") == 2
    assert queue.push("a", 0, 9, bounded=False)  # a bot's move is not, even beside another at its table


# -- the runner -------------------------------------------------------------------------


async def test_workers_run_jobs_in_threads_at_most_so_many_at_once() -> None:
    workers = Workers(2)
    lock, running, most = threading.Lock(), [0], [0]

    def job(n: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        threading.Event().wait(0.05)  # long enough for the second thread to start meanwhile
        with lock:
            running[0] -= 1
        return n * n

    async with trio.open_nursery() as nursery:
        tickets = [workers.submit(nursery, n % 3, n, job, n) for n in range(10)]
        results = [await ticket.result() for ticket in tickets if ticket is not None]
    assert results == [n * n for n in range(10)]
    assert most[0] == 2
    assert workers.busy == 0 and not workers.queue  # idle: no worker task left


async def test_a_stop_does_not_wait_for_a_job_still_thinking() -> None:
    # A hint or a bot's think of several seconds held up the server's stop, its answer for nobody.
    workers, release = Workers(1), threading.Event()
    start = trio.current_time()
    with trio.move_on_after(0.2):
        async with trio.open_nursery() as nursery:
            workers.submit(nursery, "a", 1, release.wait, 30)
    assert trio.current_time() - start < 5
    release.set()  # the thread abandoned ends when it may


async def test_a_failing_job_raises_for_its_caller_only() -> None:
    workers = Workers(1)

    def fail() -> None:
        raise ValueError("bug")

    async with trio.open_nursery() as nursery:
        bad = workers.submit(nursery, "a", 1, fail)
        good = workers.submit(nursery, "a", 1, lambda: 42)
        assert bad is not None and good is not None
        with pytest.raises(ValueError, match="bug"):
            await bad.result()
        assert await good.result() == 42


async def test_one_worker_serves_a_single_job_before_a_floods_backlog() -> None:
    workers = Workers(1, total=100)
    gate, order = threading.Event(), []

    def job(name: str) -> None:
        if name == "first":
            gate.wait(5)
        order.append(name)

    async with trio.open_nursery() as nursery:
        workers.submit(nursery, "flood", 0, job, "first")
        await trio.sleep(0.05)  # the only worker is busy with it
        for n in range(20):
            workers.submit(nursery, "flood", n % 4, job, f"f{n}", bounded=False)
        workers.submit(nursery, "canary", 100, job, "canary")
        gate.set()
    assert order[:3] == ["first", "f0", "canary"]


async def test_a_full_queue_refuses_a_hint() -> None:
    workers = Workers(1, total=1)
    gate = threading.Event()
    async with trio.open_nursery() as nursery:
        first = workers.submit(nursery, "a", 0, gate.wait, 5)
        await trio.sleep(0.05)  # running, no longer waiting
        second = workers.submit(nursery, "b", 1, lambda: None)
        third = workers.submit(nursery, "c", 2, lambda: None)
        assert first is not None and second is not None and third is None
        gate.set()


# -- one hint out per seat (sans-IO) ------------------------------------------------------


def _hinting_host() -> tuple[Host, int]:
    tokens = (f"token{n:035d}" for n in itertools.count())
    host = Host(new_rng=lambda: random.Random(1), new_token=lambda: next(tokens))
    host.connect(1, "10.0.0.1")
    host.handle(1, Hello(PROTOCOL_VERSION, "ann"), 0.0)
    host.handle(1, notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000), 0.0)
    return host, 1


def test_a_hint_for_a_position_gone_is_not_sent() -> None:
    """Typed ahead, 'hint' then 'end': the hint came after the turn had ended, still advising on it."""
    tokens = (f"token{n:035d}" for n in itertools.count())
    host = Host(new_rng=lambda: random.Random(1), new_token=lambda: next(tokens))
    for conn, name in ((1, "ann"), (2, "bob")):
        host.connect(conn, "10.0.0.1")
        host.handle(conn, Hello(PROTOCOL_VERSION, name), 0.0)
    ((_, seated),) = [out for out in host.handle(1, notty_table("classic", 2), 0.0) if out[0] == 1][:1]
    host.handle(2, Join(seated.table), 0.0)
    (table,) = host.tables.values()
    assert table.match is not None
    mover, other = (1, 2) if table.match.current == 0 else (2, 1)
    host.handle(mover, AskHint(), 0.0)
    host.handle(other, AskHint(), 0.0)
    asked = host.hint_jobs()
    host.handle(mover, Act("end"), 0.0)
    for job in asked:
        ((conn, answer),) = host.hint_ready(job, job.solve())
        assert isinstance(answer, Error) and answer.code == "hint-stale", answer
        assert "moved on" in answer.message
    host.handle(other, AskHint(), 0.0)  # the seat may ask again, and for the position now it is sent
    (job,) = host.hint_jobs()
    ((_, answer),) = host.hint_ready(job, job.solve())
    assert isinstance(answer, Hint)


def test_a_seat_has_one_hint_out_at_a_time() -> None:
    host, ann = _hinting_host()
    assert host.handle(ann, AskHint(), 0.0) == []
    (job,) = host.hint_jobs()
    assert job.address == "10.0.0.1" and host.hint_jobs() == []  # each handed out once
    ((_, refused),) = host.handle(ann, AskHint(), 0.0)
    assert isinstance(refused, Error) and refused.code == "hint-pending"
    assert "still being worked out" in refused.message
    ((_, hint),) = host.hint_ready(job, job.solve())
    assert isinstance(hint, Hint)
    assert host.handle(ann, AskHint(), 0.0) == []  # answered: the seat may ask again
    (again,) = host.hint_jobs()
    busy = Error("server-busy", "the server is busy: try the hint again in a moment")
    assert host.hint_ready(again, busy) == [(ann, busy)]  # an error goes to the asker as it is
    assert host.handle(ann, AskHint(), 0.0) == []
    (third,) = host.hint_jobs()
    host.disconnect(ann, 1.0)
    assert host.hint_ready(third, HintAnswer("late")) == []  # nobody to tell, and nothing kept
    assert not host._hints_out
    assert host.hint_ready(third, HintAnswer("twice")) == []
