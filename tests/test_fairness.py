"""One address's share, over the network: of messages and hints (whatever number of connections it
opens), and of the threads that work out bots' moves and hints (whatever number of tables it runs).

A real server on 127.0.0.1 (port 0); a second address is 127.0.0.2 (Linux routes 127/8 to the
loopback). Bots and hints are slowed where a test needs them to queue.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio
from conftest import notty_table
from test_net import Client

from games import HintAnswer
from games.notty import game as notty_game
from games.notty.engine import Action, View
from protocol import (
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Bye,
    Error,
    Goodbye,
    Hello,
    Hint,
    Ping,
    Pong,
    State,
    Welcome,
)
from server import net
from server.host import Host
from server.limits import Limits
from server.net import NottyServer

Start = Callable[..., Awaitable[tuple[NottyServer, int]]]


@pytest.fixture
def start(nursery: trio.Nursery) -> Start:
    """Start a server with the given limits and worker threads; it stops with the test."""

    async def start(limits: Limits, bot_threads: int = 2) -> tuple[NottyServer, int]:
        tokens = (f"token{n:035d}" for n in itertools.count())
        seeds = itertools.count(1)
        host = Host(new_rng=lambda: random.Random(next(seeds)), new_token=lambda: next(tokens))
        server = NottyServer(host, limits=limits, bot_threads=bot_threads)
        listeners = await nursery.start(server.serve, "127.0.0.1", 0)
        return server, listeners[0].socket.getsockname()[1]

    return start


async def _connect(port: int, name: str, address: str = "127.0.0.1") -> Client:
    client = Client(await trio.open_tcp_stream("127.0.0.1", port, local_address=address))
    await client.send(Hello(PROTOCOL_VERSION, name))
    await client.expect(Welcome)
    return client


async def _error(client: Client) -> Error:
    error: Error = await client.expect(Error, timeout=5)
    return error


# -- messages and hints: an address's allowance ----------------------------------------------


async def test_one_address_cannot_multiply_its_messages_by_connecting_more(start: Start) -> None:
    limits = Limits(rate=0.01, burst=4, address_rate=0.01, address_burst=6)
    server, port = await start(limits)
    ann = await _connect(port, "ann")  # each hello costs the address one message
    bob = await _connect(port, "bob")
    for client, nonce in [(ann, 1), (ann, 2), (ann, 3), (bob, 4)]:  # ann's four, and the address's six
        await client.send(Ping(nonce))
        assert (await client.expect(Pong)).nonce == nonce
    await bob.send(Ping(9))  # bob's third of his four, but the address's seventh
    refused = await _error(bob)
    assert refused.code == "rate-limit" and "from your address (127.0.0.1)" in refused.message
    assert "all its connections together" in refused.message
    dan = await _connect(port, "dan", "127.0.0.2")  # another address has its own allowance
    await dan.send(Ping(1))
    assert (await dan.expect(Pong)).nonce == 1
    for client in (ann, bob):
        await client.send(Bye())
        await client.expect(Goodbye)
    with trio.fail_after(5):
        while "127.0.0.1" in server._from:  # the address's last connection is gone
            await trio.sleep(0.01)
    # Closing every connection and opening a new one buys no fresh burst: the allowance stays spent.
    carol = Client(await trio.open_tcp_stream("127.0.0.1", port))
    await carol.send(Hello(PROTOCOL_VERSION, "carol"))
    refused = await _error(carol)
    assert refused.code == "rate-limit" and "from your address (127.0.0.1)" in refused.message


async def test_the_allowances_of_addresses_gone_are_forgotten_once_grown_back(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(net, "MAX_ALLOWANCES", 2)
    monkeypatch.setattr(net, "SWEEP_SECONDS", 0.0)
    server, port = await start(Limits(address_rate=1000, address_burst=5, connection_rate=1000))
    for n in range(2, 7):
        client = await _connect(port, f"p{n}", f"127.0.0.{n}")
        await client.send(Bye())
        await client.expect(Goodbye)
        await trio.sleep(0.05)  # gone, and its allowance grown back: the next newcomer's makes room
        assert len(server._allowances) <= 2
    assert "127.0.0.6" in server._allowances


async def test_many_new_addresses_sweep_the_allowances_at_most_once_a_second(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each new address past the bound walked the whole table: thousands of addresses a second, each
    connecting once, made the server walk thousands of entries for each."""
    monkeypatch.setattr(net, "MAX_ALLOWANCES", 2)
    monkeypatch.setattr(net, "SWEEP_SECONDS", 3600.0)  # however slow the machine, no second sweep by itself
    server, port = await start(Limits(address_rate=1000, address_burst=5, connection_rate=1000))
    sweeps = 0
    sweep = server._forget_allowances

    def counted(now: float) -> None:
        nonlocal sweeps
        sweeps += 1
        sweep(now)

    monkeypatch.setattr(server, "_forget_allowances", counted)
    for n in range(2, 8):
        client = await _connect(port, f"p{n}", f"127.0.0.{n}")
        await client.send(Bye())
        await client.expect(Goodbye)
    assert sweeps == 1 and len(server._allowances) > 2  # bounded by the addresses of the last second
    server._swept -= net.SWEEP_SECONDS  # as if that second had gone by
    await trio.sleep(0.05)  # the addresses gone have grown their allowances back
    await _connect(port, "p8", "127.0.0.8")
    assert sweeps == 2 and len(server._allowances) <= 2


async def test_an_address_may_always_send_what_one_connection_may(start: Start) -> None:
    _, port = await start(Limits(rate=1000, burst=1000))  # above the address's own default of 200 at once
    ann = await _connect(port, "ann")
    await ann.stream.send_all(b"".join(ann.protocol.send(Ping(n)) for n in range(300)))
    for n in range(300):
        assert (await ann.expect(Pong)).nonce == n
    assert not any(isinstance(message, Error) for message in ann.seen)


async def test_hints_from_one_address_share_its_hint_allowance(start: Start) -> None:
    limits = Limits(hint_rate=0.01, hint_burst=1, address_hint_rate=0.01, address_hint_burst=1)
    _, port = await start(limits)
    ann = await _connect(port, "ann")
    bob = await _connect(port, "bob")
    for client in (ann, bob):
        await client.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000))
        await client.expect(State)
    await ann.send(AskHint())
    await ann.expect(Hint)
    await bob.send(AskHint())  # bob's first, but the address's second
    refused = await _error(bob)
    assert refused.code == "rate-limit" and "too many hints from your address" in refused.message


# -- the work queue ------------------------------------------------------------------------


@pytest.fixture
def slow_hints(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hints are worked out only once the returned event is set."""
    release = threading.Event()
    real = notty_game.make_hint

    def make_hint(*args: Any) -> HintAnswer:
        release.wait(10)
        return real(*args)

    monkeypatch.setattr(notty_game, "make_hint", make_hint)
    return release


async def test_a_seat_waits_for_its_hint_and_a_full_queue_refuses_more(
    start: Start, slow_hints: threading.Event
) -> None:
    _, port = await start(Limits(work_queue=1), bot_threads=1)
    ann, bob, cat = [await _connect(port, name, f"127.0.0.{n}") for n, name in enumerate("abc", 2)]
    for client in (ann, bob, cat):
        await client.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000))
        await client.expect(State)
    await ann.send(AskHint())  # the only thread works it out (and waits)
    await trio.sleep(0.1)
    await ann.send(AskHint())
    pending = await _error(ann)
    assert pending.code == "hint-pending" and "still being worked out" in pending.message
    await bob.send(AskHint())  # waits in the queue, which then holds all it may
    await trio.sleep(0.1)
    await cat.send(AskHint())
    busy = await _error(cat)
    assert busy.code == "server-busy" and "try the hint again in a moment" in busy.message
    slow_hints.set()
    await ann.expect(Hint)
    await bob.expect(Hint)
    for client in (ann, cat):  # answered or refused: either way the seat may ask again
        await client.send(AskHint())
        await client.expect(Hint)


async def test_a_bot_never_waits_behind_a_hint(start: Start, slow_hints: threading.Event) -> None:
    _, port = await start(Limits(), bot_threads=1)
    ann = await _connect(port, "ann", "127.0.0.2")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000))
    await ann.expect(State)
    await ann.send(AskHint())  # worked out in its own thread, which it holds until released
    bob = await _connect(port, "bob", "127.0.0.3")
    await bob.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0))
    with trio.fail_after(5):  # bob's bot moves (first, or after his turn) while ann's hint waits
        view = (await bob.expect(State)).view
        if view["current"] == view["seat"]:
            await bob.send(Act("end"))
        while (view := (await bob.expect(State)).view)["current"] != view["seat"]:
            pass
    assert view["turn"] >= 1
    slow_hints.set()
    await ann.expect(Hint)


class SlowBot:
    """A bot that takes ``seconds`` over every move, off the GIL (as a bot thinking in C would)."""

    def __init__(self, bot: Any, seconds: float) -> None:
        self.bot, self.name, self.seconds = bot, bot.name, seconds

    def choose(self, view: View) -> Action:
        time.sleep(self.seconds)
        action: Action = self.bot.choose(view)
        return action

    def catch_up(self, view: View) -> None:
        self.bot.catch_up(view)


async def test_one_addresss_many_bot_tables_hold_up_anothers_bot_by_one_move_at_most(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    move = 0.08
    real = notty_game.make_bot
    monkeypatch.setattr(notty_game, "make_bot", lambda name, rng: SlowBot(real(name, rng), move))
    _, port = await start(Limits(), bot_threads=1)
    flood = 12  # first come, first served, the canary's bot would wait for twelve moves each time
    async with trio.open_nursery() as nursery:
        for n in range(flood):  # tables of bots alone from 127.0.0.2, watched (and read) by their creators
            watcher = await _connect(port, f"w{n}", "127.0.0.2")
            await watcher.send(notty_table("classic", 2, ("greedy", "greedy"), turn_limit=100_000))
            nursery.start_soon(_drain, watcher)
        await trio.sleep(2 * move)  # the queue is full of their moves
        ann = await _connect(port, "ann")
        await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0, turn_limit=100_000))
        gaps: list[float] = []  # between the states that tell ann of her bot's moves
        view = (await ann.expect(State)).view
        for _ in range(3):  # three of the bot's turns, each a move or more
            while view["current"] != view["seat"]:
                view = (await ann.expect(State)).view
            await ann.send(Act("end"))
            view = (await ann.expect(State)).view  # her own move
            while view["current"] != view["seat"] and view["result"] is None:
                before = trio.current_time()
                view = (await ann.expect(State)).view
                gaps.append(trio.current_time() - before)
            assert view["result"] is None
        nursery.cancel_scope.cancel()
    assert gaps
    # Its own move, the flood's move under way, and one more of the flood's: never twelve (room is
    # left for a busy machine's scheduling).
    assert max(gaps) < 6 * move, [round(gap, 3) for gap in gaps]


async def _drain(client: Client) -> None:
    while True:
        await client.receive(timeout=60)
