"""The server's abuse limits (docs/SERVER.md): each one hit, and answered as documented.

Network tests run a real server on 127.0.0.1 (port 0) with small limits, so each
takes well under a second or two; the token bucket and the flags are tested
without a network.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import itertools
import logging
import random
import socket
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from conftest import notty_table
from hypothesis import given
from hypothesis import strategies as st
from test_net import Client, _my_turn

import protocol._connection
import protocol._framing
from protocol import (
    MAX_BURST,
    MAX_CLIENT_FRAME,
    MAX_CLIENT_ITEMS,
    MAX_ITEMS,
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Autopilot,
    Bye,
    Error,
    Goodbye,
    Hello,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Ping,
    PlayForMe,
    Pong,
    Seated,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
    encode_frame,
)
from server import cli, net
from server.host import Host
from server.limits import (
    CHARGE_BYTES,
    DEFAULT_LIMITS,
    MAX_REFUSALS,
    Limits,
    TokenBucket,
    add_limit_arguments,
    announced,
    counted_address,
    limits_from_args,
    message_cost,
)
from server.net import NottyServer
from server.store import Store

Start = Callable[..., Awaitable[tuple[NottyServer, int]]]


def _host(limits: Limits = DEFAULT_LIMITS, real_tokens: bool = False) -> Host:
    if real_tokens:
        return cli.make_host("notty", grace=5.0, limits=limits)
    tokens = (f"token{n:035d}" for n in itertools.count())
    seeds = itertools.count(1)
    return Host(
        new_rng=lambda: random.Random(next(seeds)),
        new_token=lambda: next(tokens),
        grace=5.0,
        max_tables=limits.max_tables,
        tables_per_address=limits.tables_per_address,
    )


@pytest.fixture
def start(nursery: trio.Nursery) -> Start:
    """Start a server with the given limits; it stops with the test."""

    async def start(
        limits: Limits = DEFAULT_LIMITS, host: Host | None = None, interface: str = "127.0.0.1"
    ) -> tuple[NottyServer, int]:
        server = NottyServer(host or _host(limits), limits=limits)
        listeners = await nursery.start(server.serve, interface, 0)
        return server, listeners[0].socket.getsockname()[1]

    return start


async def _raw(port: int) -> Client:
    """A connection that has said nothing yet."""
    return Client(await trio.open_tcp_stream("127.0.0.1", port))


async def _turned_away(port: int) -> Error:
    """A new connection is told why at once, then goodbye, then closed: the error it was told."""
    heard = await _until_closed(await _raw(port))
    assert len(heard) == 2 and isinstance(heard[0], Error) and isinstance(heard[1], Goodbye), heard
    return heard[0]


async def _from_another_address(port: int, name: str) -> Client:
    """A client from 127.0.0.2, a different address to the server (Linux routes 127/8 to the loopback)."""
    client = Client(await trio.open_tcp_stream("127.0.0.1", port, local_address="127.0.0.2"))
    await client.send(Hello(PROTOCOL_VERSION, name))
    await client.expect(Welcome)
    return client


def _frames(*messages: Message) -> bytes:
    """Frames sent as they are, past the client's own state machine (which would hold them back)."""
    return b"".join(encode_frame(message.to_wire()) for message in messages)


async def _until_closed(client: Client, timeout: float = 10) -> list[Message]:
    """Everything the server says until it closes the connection."""
    before = len(client.seen)
    with trio.fail_after(timeout):
        try:
            while True:
                await client.receive(timeout)
        except (EOFError, trio.BrokenResourceError):
            pass
    return client.seen[before:]


async def _still_answered(client: Client, nonce: int) -> None:
    await client.send(Ping(nonce))
    assert (await client.expect(Pong, timeout=5)).nonce == nonce


async def _gone(server: NottyServer, count: int) -> None:
    """Wait until the server holds ``count`` connections (it unregisters a closed one soon after)."""
    with trio.fail_after(5):
        while len(server.links) != count:
            await trio.sleep(0.01)


def _codes(messages: list[Message]) -> list[str]:
    return [message.code for message in messages if isinstance(message, Error)]


# -- the token bucket -----------------------------------------------------------------

rates = st.floats(0.1, 100)
bursts = st.integers(1, 50)


@given(rates, bursts, st.lists(st.floats(0, 2), max_size=200))
def test_a_bucket_never_holds_more_than_its_burst_nor_lets_more_through_than_the_rate(
    rate: float, burst: int, gaps: list[float]
) -> None:
    bucket = TokenBucket(rate, burst)
    now, taken = 0.0, 0
    for gap in gaps:
        now += gap
        taken += bucket.take(now)
        assert 0 <= bucket.tokens <= burst
        assert taken <= burst + rate * now + 1e-9


@given(rates, bursts, st.integers(0, 60))
def test_an_empty_bucket_refills_at_its_rate_up_to_its_burst(rate: float, burst: int, waited: int) -> None:
    bucket = TokenBucket(rate, burst)
    assert all(bucket.take(10.0) for _ in range(burst))  # it starts full
    assert not bucket.take(10.0)
    later = 10.0 + (waited + 0.5) / rate  # half a token past ``waited`` whole ones
    granted = sum(bucket.take(later) for _ in range(burst + 5))
    assert granted == min(waited, burst)


def test_a_clock_that_steps_back_mints_no_tokens() -> None:
    bucket = TokenBucket(rate=1.0, burst=2)
    assert bucket.take(100.0) and bucket.take(100.0) and not bucket.take(100.0)
    assert not bucket.take(50.0)
    assert not bucket.take(100.5)  # only half a second has passed since the bucket was empty
    assert bucket.take(101.0)


# -- the settings and their flags ---------------------------------------------------------


LAN = "2001:db8:1:2::1"  # the server's own address on its network


@pytest.mark.parametrize(
    ("host", "counted"),
    [
        ("127.0.0.2", "127.0.0.2"),
        ("192.168.1.20", "192.168.1.20"),
        ("2001:db8:9:9::5", "2001:db8:9:9::/64"),  # from elsewhere: its whole /64
        ("2001:db8:9:9:ffff:ffff:ffff:ffff", "2001:db8:9:9::/64"),  # the same machine, another address
        ("2001:db8:9:8::5", "2001:db8:9:8::/64"),  # another /64: another machine
        ("2001:db8:1:2::5", "2001:db8:1:2::5"),  # on the server's own network: each machine alone
        ("2001:db8:1:2::6", "2001:db8:1:2::6"),
        ("fe80::1%eth0", "fe80::1%eth0"),  # link-local: on the LAN
        ("::1", "::1"),
        ("::ffff:192.168.1.20", "192.168.1.20"),  # IPv4 seen through an IPv6 socket
        ("?", "?"),
    ],
)
def test_per_address_caps_count_a_remote_ipv6_peer_by_its_64(host: str, counted: str) -> None:
    assert counted_address(host, LAN) == counted


def test_without_the_servers_address_every_global_ipv6_peer_counts_by_its_64() -> None:
    assert counted_address("2001:db8:1:2::5") == "2001:db8:1:2::/64"
    assert counted_address("2001:db8:1:2::5", "not an address") == "2001:db8:1:2::/64"


def test_the_defaults_are_the_documented_ones() -> None:
    assert (
        Limits()
        == DEFAULT_LIMITS
        == Limits(
            hello_seconds=10.0,
            idle_seconds=60.0,
            rate=20.0,
            burst=40,
            hint_rate=0.5,
            hint_burst=3,
            max_connections=2000,
            max_tables=1000,
            connections_per_address=200,
            tables_per_address=50,
            bot_tables_per_address=2,
            games_per_hour=60,
            bot_only_delay=0.2,
            queue=256,
            queue_bytes=1048576,
            abandon_seconds=43200.0,
            address_rate=100.0,
            address_burst=200,
            address_hint_rate=2.0,
            address_hint_burst=6,
            connection_rate=10.0,
            connection_burst=60,
            work_queue=256,
        )
    )
    doc = (Path(__file__).resolve().parent.parent / "docs" / "SERVER.md").read_text(encoding="utf-8")
    for flag, value in [
        ("--hello-timeout", "10"),
        ("--idle-timeout", "60"),
        ("--rate", "20"),
        ("--burst", "40"),
        ("--hint-rate", "0.5"),
        ("--hint-burst", "3"),
        ("--max-connections", "2000"),
        ("--max-tables", "1000"),
        ("--max-connections-per-address", "200"),
        ("--max-tables-per-address", "50"),
        ("--max-bot-tables-per-address", "2"),
        ("--max-games-per-hour", "60"),
        ("--bot-only-delay", "0.2"),
        ("--address-rate", "100"),
        ("--address-burst", "200"),
        ("--address-hint-rate", "2"),
        ("--address-hint-burst", "6"),
        ("--connection-rate", "10"),
        ("--connection-burst", "60"),
        ("--work-queue", "256"),
        ("--abandon-after", "43200"),
        ("--queue", "256"),
        ("--queue-bytes", "1048576"),
        ("--queue-total-bytes", "134217728"),
    ]:
        assert f"| `{flag}` | {value} |" in doc, f"{flag} is not documented with its default {value}"


@pytest.mark.parametrize(
    "field", ["hello_seconds", "rate", "burst", "max_tables", "queue", "queue_bytes", "queue_total_bytes"]
)
@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf")])
def test_nonsense_limits_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        Limits(**{field: value})


def test_every_flag_sets_its_limit() -> None:
    parser = argparse.ArgumentParser()
    add_limit_arguments(parser)
    assert limits_from_args(parser.parse_args([])) == DEFAULT_LIMITS
    args = parser.parse_args(
        [
            "--hello-timeout",
            "1.5",
            "--idle-timeout",
            "30",
            "--rate",
            "5",
            "--burst",
            "7",
            "--hint-rate",
            "0.25",
            "--hint-burst",
            "2",
            "--max-connections",
            "9",
            "--max-tables",
            "4",
            "--max-connections-per-address",
            "3",
            "--max-tables-per-address",
            "2",
            "--queue",
            "16",
            "--queue-bytes",
            "65536",
            "--queue-total-bytes",
            "1000000",
            "--abandon-after",
            "600",
            "--max-bot-tables-per-address",
            "1",
            "--max-games-per-hour",
            "12",
            "--bot-only-delay",
            "0.5",
            "--address-rate",
            "50",
            "--address-burst",
            "60",
            "--address-hint-rate",
            "1.5",
            "--address-hint-burst",
            "4",
            "--connection-rate",
            "2.5",
            "--connection-burst",
            "8",
            "--work-queue",
            "32",
        ]
    )
    assert limits_from_args(args) == Limits(
        hello_seconds=1.5,
        idle_seconds=30.0,
        rate=5.0,
        burst=7,
        hint_rate=0.25,
        hint_burst=2,
        max_connections=9,
        max_tables=4,
        connections_per_address=3,
        tables_per_address=2,
        queue=16,
        queue_bytes=65536,
        queue_total_bytes=1_000_000,
        abandon_seconds=600.0,
        bot_tables_per_address=1,
        games_per_hour=12,
        bot_only_delay=0.5,
        address_rate=50.0,
        address_burst=60,
        address_hint_rate=1.5,
        address_hint_burst=4,
        connection_rate=2.5,
        connection_burst=8,
        work_queue=32,
    )


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--rate", "0"], "argument --rate: must be more than 0, not '0'"),
        (["--hello-timeout", "-1"], "argument --hello-timeout: must be more than 0"),
        (["--idle-timeout", "inf"], "argument --idle-timeout: must be finite"),
        (["--hint-rate", "nan"], "argument --hint-rate: must be more than 0"),
        (["--burst", "2.5"], "argument --burst: must be a whole number, not '2.5'"),
        (["--max-tables", "lots"], "argument --max-tables: must be a whole number"),
        (["--queue", "0"], "argument --queue: must be more than 0"),
        (["--queue-bytes", "1e6"], "argument --queue-bytes: must be a whole number"),
    ],
)
def test_bad_flags_are_clear_errors(
    flags: list[str], says: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["--db", str(tmp_path / "notty.db"), *flags])
    assert exited.value.code == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "notty.db").exists()  # refused before anything started


def test_notty_server_runs_with_the_limits_its_flags_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ran: list[tuple[object, ...]] = []
    monkeypatch.setattr(cli.trio, "run", lambda *args: ran.append(args))
    flags = ["--max-tables", "5", "--rate", "3", "--max-tables-per-address", "4"]
    assert cli.main(["--db", str(tmp_path / "notty.db"), *flags, "--max-connections-per-address", "6"]) == 0
    (args,) = ran
    assert args[0] is cli.run
    assert args[-1] == Limits(max_tables=5, rate=3.0, tables_per_address=4, connections_per_address=6)
    host = cli.make_host("notty", 1.0, limits=Limits(max_tables=5, tables_per_address=2, abandon_seconds=9))
    assert (host.max_tables, host.tables_per_address, host.abandon_after) == (5, 2, 9)
    host = cli.make_host("notty", 1.0)
    assert (host.max_tables, host.tables_per_address, host.abandon_after) == (
        DEFAULT_LIMITS.max_tables,
        DEFAULT_LIMITS.tables_per_address,
        DEFAULT_LIMITS.abandon_seconds,
    )


# -- time ---------------------------------------------------------------------------


async def test_a_connection_that_never_says_hello_is_told_why_and_closed(start: Start) -> None:
    server, port = await start(Limits(hello_seconds=0.3))
    ann = await Client.connect(port, "ann")  # said hello in time: unaffected
    opened = trio.current_time()  # no later than the server's own start of the clock
    eve = await _raw(port)
    heard = await _until_closed(eve)
    assert trio.current_time() - opened >= 0.3
    assert (
        _codes(heard) == ["hello-timeout"] and heard[0].message == "no hello within 0.3 seconds of connecting"
    )
    assert isinstance(heard[-1], Goodbye) and len(heard) == 2
    await _still_answered(ann, 1)
    await _gone(server, 1)
    assert len(server.host.sessions) == 1


async def test_trickling_bytes_does_not_stretch_the_hello_deadline(start: Start) -> None:
    _, port = await start(Limits(hello_seconds=0.3, idle_seconds=60))
    eve = await _raw(port)
    hello = _frames(Hello(PROTOCOL_VERSION, "eve"))
    opened = trio.current_time()

    async def trickle() -> None:  # one byte of a hello every 0.1 s: it would take 4 s to finish
        for byte in hello[:-1]:
            try:
                await eve.stream.send_all(bytes([byte]))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
            await trio.sleep(0.1)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trickle)
        heard = await _until_closed(eve)
        nursery.cancel_scope.cancel()
    assert _codes(heard) == ["hello-timeout"] and isinstance(heard[-1], Goodbye)
    assert trio.current_time() - opened < 2.5  # well before the trickle would have finished


async def test_a_silent_client_is_dropped_and_one_that_pings_is_kept(start: Start) -> None:
    server, port = await start(Limits(idle_seconds=0.5))
    ann = await Client.connect(port, "ann")
    quiet_since = trio.current_time()  # no later than the server hears her last message
    await ann.send(notty_table("classic", 2))
    await ann.expect(Seated)
    bob = await Client.connect(port, "bob")

    async def heartbeat() -> None:
        for nonce in itertools.count():
            await _still_answered(bob, nonce)
            await trio.sleep(0.15)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(heartbeat)
        heard = await _until_closed(ann)
        dropped_after = trio.current_time() - quiet_since
        await trio.sleep(0.6)  # longer than the idle timeout: bob is still there
        nursery.cancel_scope.cancel()
    assert dropped_after >= 0.5
    # (Her table, as the lobby lists it, came first: she made it and it waits for a player.)
    errors = [message for message in heard if isinstance(message, Error)]
    assert _codes(heard) == ["idle-timeout"] and "ping" in errors[0].message
    assert isinstance(heard[-1], Goodbye)
    await _still_answered(bob, 99)
    await _gone(server, 1)


# -- rates ------------------------------------------------------------------------


async def test_the_welcome_says_the_limits_the_server_holds_each_connection_to(start: Start) -> None:
    """So that a client can keep to a server's own rates, not the defaults (protocol version 8)."""
    _, port = await start(Limits(rate=3.5, burst=7, hint_rate=0.25, hint_burst=2))
    ann = await Client.connect(port, "ann")
    welcome = ann.seen[0]
    assert isinstance(welcome, Welcome)
    assert welcome.limits == {"rate_per_1000s": 3500, "burst": 7, "hint_rate_per_1000s": 250, "hint_burst": 2}
    _, port = await start()
    bob = await Client.connect(port, "bob")
    assert isinstance(bob.seen[0], Welcome) and bob.seen[0].limits == announced(DEFAULT_LIMITS)
    assert announced(DEFAULT_LIMITS) == {
        "rate_per_1000s": 20_000,
        "burst": 40,
        "hint_rate_per_1000s": 500,
        "hint_burst": 3,
    }


@pytest.mark.parametrize(
    ("rate", "said"),
    [
        (20.0, 20_000),
        (0.5, 500),
        (0.3, 300),  # 0.3 * 1000 is 300.00000000000006: as given, not one more or less
        (1.001, 1001),
        (2 / 3, 666),  # rounded down: a client keeping to it is within the server's rate
        (0.0015, 1),
        (1e-9, 1),  # under the least the protocol can say: said as that
        (1e7, 10**9),  # over the most: said as that, which is within it
    ],
)
def test_a_rate_is_announced_in_whole_messages_per_1000_seconds_never_more_than_it_is(
    rate: float, said: int
) -> None:
    limits = announced(Limits(rate=rate, hint_rate=rate))
    assert limits["rate_per_1000s"] == limits["hint_rate_per_1000s"] == said
    assert said / 1000 <= rate or said == 1


@given(st.floats(1e-3, 1e6))
def test_an_announced_rate_is_the_largest_whole_count_within_the_rate(rate: float) -> None:
    said = announced(Limits(rate=rate))["rate_per_1000s"]
    assert said / 1000 <= rate < (said + 1) / 1000


def test_a_burst_beyond_what_the_protocol_says_is_announced_as_its_most() -> None:
    limits = announced(Limits(burst=2**40, hint_burst=2**31))
    assert limits["burst"] == limits["hint_burst"] == MAX_BURST


async def test_a_message_over_the_rate_is_refused_and_changes_nothing(start: Start) -> None:
    _, port = await start(Limits(rate=4, burst=3))
    bob = await Client.connect(port, "bob")
    ann = await _raw(port)
    # hello and two pings use the burst; the table is one message too many.
    await ann.stream.send_all(
        _frames(Hello(PROTOCOL_VERSION, "ann"), Ping(1), Ping(2), notty_table("classic", 2))
    )
    replies = [await ann.receive() for _ in range(4)]
    assert isinstance(replies[0], Welcome)
    assert [r.nonce for r in replies[1:3] if isinstance(r, Pong)] == [1, 2]
    refused = replies[3]
    assert isinstance(refused, Error) and refused.code == "rate-limit"
    assert "too many messages" in refused.message
    await bob.send(ListTables())  # bob has his own bucket, and no table was made
    assert (await bob.expect(Tables)).tables == ()
    await trio.sleep(0.6)  # two tokens back: ann goes on
    await _still_answered(ann, 3)
    await ann.send(ListTables())
    assert (await ann.expect(Tables)).tables == ()


async def test_a_client_that_keeps_flooding_is_closed_after_a_bounded_answer(start: Start) -> None:
    server, port = await start(Limits(rate=1, burst=2))
    bob = await Client.connect(port, "bob")
    eve = await _raw(port)
    await eve.stream.send_all(_frames(Hello(PROTOCOL_VERSION, "eve"), *(Ping(n) for n in range(1000))))
    heard = await _until_closed(eve)
    assert isinstance(heard[0], Welcome)
    assert [m.nonce for m in heard if isinstance(m, Pong)] == [0]
    assert _codes(heard) == ["rate-limit"] * MAX_REFUSALS
    assert "goodbye" in heard[-2].message and isinstance(heard[-1], Goodbye)
    assert len(heard) == 2 + MAX_REFUSALS + 1  # nothing like one answer per ping
    await _still_answered(bob, 1)
    await _gone(server, 1)


async def test_a_flood_whose_goodbye_waits_for_a_commit_is_read_no_further(
    nursery: trio.Nursery, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The table it asks for must be stored before any reply goes, so the goodbye waits too: the
    pings after it are neither answered nor logged, one by one."""
    port = await _stored(nursery, tmp_path, Limits(rate=1, burst=2))
    bob = await Client.connect(port, "bob")
    eve = await _raw(port)
    caplog.set_level(logging.INFO, logger="notty.server")
    flood = (Ping(n) for n in range(2000))
    await eve.stream.send_all(
        _frames(Hello(PROTOCOL_VERSION, "eve"), notty_table("classic", 2, ("random",)), *flood)
    )
    heard = await _until_closed(eve)
    assert _codes(heard) == ["rate-limit"] * MAX_REFUSALS and isinstance(heard[-1], Goodbye)
    closed = [record for record in caplog.records if "over the rate in a row" in record.getMessage()]
    assert len(closed) == 1, len(closed)
    await _still_answered(bob, 1)


async def test_replies_still_waiting_for_a_commit_when_the_client_says_bye_are_dropped_quietly(
    nursery: trio.Nursery, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    port = await _stored(nursery, tmp_path)
    ann = await Client.connect(port, "ann")
    await ann.send(notty_table("classic", 2, ("random",)))
    await ann.expect(Seated)
    caplog.set_level(logging.INFO, logger="notty.server")
    await ann.stream.send_all(_frames(Leave(), Bye()))  # the left it earns waits for the record
    heard = await _until_closed(ann)
    assert isinstance(heard[-1], Goodbye) and not any(isinstance(message, Left) for message in heard)
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


async def _stored(nursery: trio.Nursery, tmp_path: Path, limits: Limits = DEFAULT_LIMITS) -> int:
    """A server that stores its games, as ``notty-server`` does: a reply waits for its commit."""
    server = NottyServer(_host(limits), store=Store(tmp_path / "notty.db"), limits=limits)
    (listener,) = await nursery.start(server.serve, "127.0.0.1", 0)
    return int(listener.socket.getsockname()[1])


async def test_only_refusals_in_a_row_close_a_connection(start: Start) -> None:
    _, port = await start(Limits(rate=4, burst=1))
    ann = await Client.connect(port, "ann")  # hello took the only token
    for rounds in range(2):  # twice: one ping let through, then one short of closing
        await trio.sleep(0.3)
        await ann.stream.send_all(_frames(*(Ping(n) for n in range(MAX_REFUSALS))))
        await ann.expect(Pong)
        with trio.fail_after(5):
            while _codes(ann.seen).count("rate-limit") < (MAX_REFUSALS - 1) * (rounds + 1):
                await ann.receive()
    await trio.sleep(0.3)
    await _still_answered(ann, 99)
    assert not any(isinstance(m, Goodbye) for m in ann.seen)


async def test_a_message_costs_a_token_for_each_kib_of_its_body_begun(start: Start) -> None:
    """Reading a message takes time in proportion to its size: a big one costs more of the allowance."""
    _, port = await start(Limits(rate=0.01, burst=11))
    eve = await _raw(port)
    big = msgpack.packb({"type": "ping", "nonce": "x" * (3 * CHARGE_BYTES)})  # 4 KiB begun: 4 tokens
    assert 3 * CHARGE_BYTES < len(big) <= 4 * CHARGE_BYTES
    frame = struct.pack(">I", len(big)) + big
    await eve.stream.send_all(
        _frames(Hello(PROTOCOL_VERSION, "eve")) + frame * 2 + _frames(Ping(1), Ping(2), Ping(3))
    )
    heard = [await eve.receive() for _ in range(6)]
    assert isinstance(heard[0], Welcome)
    assert _codes(heard[1:3]) == ["bad-message", "bad-message"]  # 1 + 4 + 4 tokens of 11
    assert [m.nonce for m in heard[3:5] if isinstance(m, Pong)] == [1, 2]  # 11 of 11
    assert _codes(heard[5:]) == ["rate-limit"]  # were every message one token, 6 of 11 would be spent


def test_a_messages_cost_is_never_more_than_its_bucket_holds() -> None:
    assert message_cost(0, 40) == message_cost(1, 40) == message_cost(CHARGE_BYTES, 40) == 1
    assert message_cost(CHARGE_BYTES + 1, 40) == 2
    assert message_cost(MAX_CLIENT_FRAME, 40) == MAX_CLIENT_FRAME // CHARGE_BYTES
    assert message_cost(MAX_CLIENT_FRAME, 3) == 3  # so that a small burst still takes it, in time


async def test_a_message_over_the_rate_is_dropped_unread_but_bye_still_goes(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decoding is the costly part of a message that is refused anyway: one over the rate is not
    decoded (a 30 KiB body of empty maps took 7 ms to). A bye is small enough to read over the rate."""
    decoded: list[int] = []
    real = protocol._framing.decode_body

    def counting(payload: bytes, max_items: int = MAX_ITEMS) -> dict[str, Any]:
        if max_items == MAX_CLIENT_ITEMS:  # the server reading a client (the test's client reads too)
            decoded.append(len(payload))
        return real(payload, max_items)

    monkeypatch.setattr(protocol._framing, "decode_body", counting)
    _, port = await start(Limits(rate=0.01, burst=2))
    eve = await _raw(port)
    costly = b"\x82\xa4type\xa4ping\xa5nonce\xdc" + struct.pack(">H", 30_000) + b"\x80" * 30_000
    frame = struct.pack(">I", len(costly)) + costly
    await eve.stream.send_all(_frames(Hello(PROTOCOL_VERSION, "eve"), Ping(1)) + frame * 3 + _frames(Bye()))
    heard = await _until_closed(eve)
    assert isinstance(heard[0], Welcome) and isinstance(heard[1], Pong)
    assert _codes(heard) == ["rate-limit"] * 3 and isinstance(heard[-1], Goodbye)
    assert len(costly) not in decoded and len(decoded) == 3  # hello, ping, bye


async def test_a_bad_frame_within_the_rate_is_no_message_accepted_for_the_flood_rule(start: Start) -> None:
    """Refusals in a row close a connection once nothing was accepted between them: a malformed frame,
    refused, is not accepted either (before, one within the rate began the count again)."""
    _, port = await start(Limits(rate=10, burst=1))
    eve = await _raw(port)
    await eve.stream.send_all(
        _frames(Hello(PROTOCOL_VERSION, "eve"), *(Ping(n) for n in range(MAX_REFUSALS - 1)))
    )
    heard = [await eve.receive() for _ in range(MAX_REFUSALS)]
    assert isinstance(heard[0], Welcome) and _codes(heard) == ["rate-limit"] * (MAX_REFUSALS - 1)
    await trio.sleep(0.3)  # a token back: the empty frame is within the rate, the ping after it is not
    await eve.stream.send_all(struct.pack(">I", 0) + _frames(Ping(99)))
    assert _codes(await _until_closed(eve)) == ["bad-frame", "rate-limit"]


async def test_a_small_frame_over_the_rate_is_read_refused_and_counted_unless_it_is_bye(start: Start) -> None:
    _, port = await start(Limits(rate=0.01, burst=1))
    eve = await _raw(port)
    await eve.stream.send_all(_frames(Hello(PROTOCOL_VERSION, "eve"), ListTables(), Ping(1)))
    heard = [await eve.receive() for _ in range(3)]
    assert isinstance(heard[0], Welcome) and _codes(heard[1:]) == ["rate-limit", "rate-limit"]
    await eve.stream.send_all(_frames(Bye()))
    assert isinstance((await _until_closed(eve))[-1], Goodbye)


async def test_hints_have_their_own_stricter_rate(start: Start) -> None:
    _, port = await start(Limits(hint_rate=0.5, hint_burst=2))
    ann = await Client.connect(port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000))
    await ann.expect(State)  # the game is on: hints are worth asking for
    for _ in range(2):  # one at a time: a seat has one hint out at most (else hint-pending)
        await ann.send(AskHint())
        await ann.expect(Hint)
    await ann.stream.send_all(_frames(AskHint(), Ping(7)))
    with trio.fail_after(10):
        while sum(isinstance(m, Hint) for m in ann.seen) < 2 or not any(
            isinstance(m, Pong) for m in ann.seen
        ):
            await ann.receive()
    await trio.sleep(0.2)  # a third hint, had it been let through, would be here by now
    with trio.move_on_after(0.1):
        while True:
            await ann.receive()
    assert sum(isinstance(m, Hint) for m in ann.seen) == 2
    (refused,) = [m for m in ann.seen if isinstance(m, Error)]
    assert refused.code == "rate-limit" and "too many hints" in refused.message
    # The hint bucket is apart from the message bucket: everything else is still answered.
    await _still_answered(ann, 8)


# -- counts -------------------------------------------------------------------------


async def test_a_connection_over_the_limit_is_refused_before_the_host_hears_of_it(start: Start) -> None:
    server, port = await start(Limits(max_connections=2))
    ann = await Client.connect(port, "ann")
    bob = await Client.connect(port, "bob")
    refused = await _turned_away(port)  # she need not say anything to be told
    assert refused.code == "server-full" and "full" in refused.message
    assert len(server.host.sessions) == 2
    await _still_answered(ann, 1)
    await bob.send(Bye())
    await bob.expect(Goodbye)
    await _gone(server, 1)
    carol = await Client.connect(port, "carol")  # room again
    await _still_answered(carol, 2)


async def test_a_table_over_the_limit_is_refused_until_one_closes(start: Start) -> None:
    server, port = await start(Limits(max_tables=1))
    ann = await Client.connect(port, "ann")
    bob = await Client.connect(port, "bob")
    await ann.send(notty_table("classic", 2))
    table = (await ann.expect(Seated)).table
    await bob.send(notty_table("classic", 3, ("greedy",)))
    refused = await bob.expect(Error)
    assert refused.code == "too-many-tables"
    assert "its limit of 1 table:" in refused.message  # not "1 tables"
    await bob.send(ListTables())
    assert [t["table"] for t in (await bob.expect(Tables)).tables] == [table]
    await ann.send(Leave())  # the only table empties and goes away
    await ann.expect(Left)
    await bob.send(notty_table("classic", 3, ("greedy",)))
    assert (await bob.expect(Seated)).table != table
    assert len(server.host.tables) == 1


async def test_connections_from_one_address_over_its_cap_are_refused(start: Start) -> None:
    server, port = await start(Limits(connections_per_address=2))
    ann = await Client.connect(port, "ann")
    bob = await Client.connect(port, "bob")
    refused = await _turned_away(port)  # a third from 127.0.0.1
    assert refused.code == "too-many-connections" and "127.0.0.1" in refused.message
    assert len(server.host.sessions) == 2
    dan = await _from_another_address(port, "dan")
    await _still_answered(dan, 1)
    await _still_answered(ann, 2)
    await bob.send(Bye())
    await bob.expect(Goodbye)
    await _gone(server, 2)
    carol = await Client.connect(port, "carol")  # room again for 127.0.0.1
    await _still_answered(carol, 3)


async def test_connections_from_one_address_faster_than_its_rate_are_turned_away(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client turned away, or closed for flooding, that connected again at once cost the server an
    accept and a refusal each time: 1,300 to 1,900 a second from one address (bench/faults.py)."""
    monkeypatch.setattr(net, "SLOW_DOWN_SECONDS", 0.02)  # how late is the next test's
    server, port = await start(Limits(connection_rate=0.2, connection_burst=2))  # one back in 5 s
    ann = await Client.connect(port, "ann")
    bob = await Client.connect(port, "bob")
    refused = await _turned_away(port)
    assert refused.code == "connecting-too-fast"
    assert "from 127.0.0.1 are coming too fast: at most 0.2 a second, 2 at once" in refused.message
    assert len(server.host.sessions) == 2
    dan = await _from_another_address(port, "dan")  # another address has its own allowance
    await _still_answered(dan, 1)
    await _still_answered(ann, 2)
    await bob.send(Bye())
    await bob.expect(Goodbye)
    await bob.stream.aclose()
    await _gone(server, 2)
    assert (await _turned_away(port)).code == "connecting-too-fast"  # closing one buys no new one
    server._allowance("127.0.0.1").connections.tokens = 1.0  # as if the 5 s had gone by
    carol = await Client.connect(port, "carol")
    await _still_answered(carol, 3)


async def test_a_connection_over_the_rate_is_answered_late_and_one_past_the_cap_not_at_all(
    start: Start,
) -> None:
    """Answered at once, a flooder reconnected 3,000 times a second, and the refusals were the flood:
    a late answer makes each of its connections come back about once a second; while one waits, it
    counts against the address's cap, and one past the cap waits as long for no answer."""
    server, port = await start(Limits(connection_rate=0.1, connection_burst=1, connections_per_address=2))
    ann = await Client.connect(port, "ann")
    late: list[float] = []

    async def turned_away(code: str | None) -> None:
        began = trio.current_time()
        heard = await _until_closed(await _raw(port))
        assert _codes(heard) == ([code] if code else []) and len(heard) == (2 if code else 0), heard
        late.append(trio.current_time() - began)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(turned_away, "connecting-too-fast")
        with trio.fail_after(5):
            while server._from["127.0.0.1"] < 2:  # ann, and the one waiting for its answer
                await trio.sleep(0.01)
        nursery.start_soon(turned_away, None)
    low, high = 0.5 * net.SLOW_DOWN_SECONDS, 1.5 * net.SLOW_DOWN_SECONDS
    assert all(low - 0.05 <= took <= high + 1 for took in late), late
    await _still_answered(ann, 1)


async def test_connections_waiting_for_a_late_refusal_are_few_and_told_when_the_server_stops(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each waiting connection holds a file: past ``HELD_MOST`` from every address together, one more is
    closed at once. A server stopping tells those waiting so, rather than that they came too fast."""
    monkeypatch.setattr(net, "HELD_MOST", 1)
    monkeypatch.setattr(net, "SLOW_DOWN_SECONDS", 60.0)  # only the stop ends the wait
    server, port = await start(Limits(connection_rate=0.1, connection_burst=1))
    ann = await Client.connect(port, "ann")
    async with trio.open_nursery() as nursery:
        heard: list[Message] = []

        async def waiting() -> None:
            heard.extend(await _until_closed(await _raw(port)))

        nursery.start_soon(waiting)
        with trio.fail_after(5):
            while server._refusing < 1:
                await trio.sleep(0.01)
        with trio.fail_after(1):
            assert await _until_closed(await _raw(port)) == []  # one more: closed at once, unanswered
        with trio.fail_after(5):
            await server.shutdown()
    assert _codes(heard) == ["shutting-down"]
    assert _codes(await _until_closed(ann)) == ["shutting-down"]


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not has_ipv6_loopback(), reason="this machine has no IPv6 loopback")
async def test_ipv6_peers_meet_the_per_address_cap_too(start: Start) -> None:
    _, port = await start(Limits(connections_per_address=1), interface="::1")
    first = Client(await trio.open_tcp_stream("::1", port))
    heard = await _until_closed(Client(await trio.open_tcp_stream("::1", port)))
    assert isinstance(heard[0], Error) and heard[0].code == "too-many-connections"
    assert "1 connection from ::1 is open" in heard[0].message  # not "1 connections ... are"
    await first.stream.aclose()


@pytest.mark.skipif(not has_ipv6_loopback(), reason="this machine has no IPv6 loopback")
async def test_port_0_on_every_interface_is_one_port_for_ipv4_and_ipv6(nursery: trio.Nursery) -> None:
    """Each address family got a free port of its own, so a client reaching the server by IPv6 at
    the port its log named first found nothing there."""
    server = NottyServer(_host())
    listeners = await nursery.start(server.serve, None, 0)
    ports = {listener.socket.getsockname()[1] for listener in listeners}
    families = {listener.socket.family for listener in listeners}
    assert len(ports) == 1 and families == {socket.AF_INET, socket.AF_INET6}
    (port,) = ports
    for address in ("127.0.0.1", "::1"):
        client = Client(await trio.open_tcp_stream(address, port))
        await client.send(Hello(PROTOCOL_VERSION, "ann"))
        assert isinstance(await client.receive(), Welcome)
        await client.stream.aclose()


async def test_tables_from_one_address_over_its_cap_are_refused_until_one_closes(start: Start) -> None:
    server, port = await start(Limits(tables_per_address=2))
    ann = await Client.connect(port, "ann")
    bob = await Client.connect(port, "bob")
    await ann.send(notty_table("classic", 2))
    first = (await ann.expect(Seated)).table
    await bob.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000))  # a game under way counts
    await bob.expect(Seated)
    await bob.stream.aclose()  # and it still counts after its creator's connection is gone
    await _gone(server, 1)
    carol = await Client.connect(port, "carol")
    await carol.send(notty_table("classic", 2))
    refused = await carol.expect(Error)
    assert refused.code == "too-many-tables" and "2 tables created from 127.0.0.1" in refused.message
    # Which ones, and what clears them: a script run in a loop met this with nothing to say which.
    assert f"still open (tables {', '.join(map(str, sorted(server.host.tables)))})" in refused.message
    assert "--resume" in refused.message and "given up after 12 h" in refused.message
    assert len(server.host.tables) == 2
    dan = await _from_another_address(port, "dan")
    await dan.send(notty_table("classic", 2))  # another address has its own count
    await dan.expect(Seated)
    await ann.send(Leave())  # ann's waiting table empties and goes away: room again for 127.0.0.1
    await ann.expect(Left)
    assert first not in server.host.tables
    await carol.send(notty_table("classic", 2))
    await carol.expect(Seated)


async def test_a_finished_game_whose_player_drops_goes_and_frees_its_place_under_the_table_limit(
    start: Start,
) -> None:
    server, port = await start(Limits(max_tables=1))
    ann = await Client.connect(port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0, turn_limit=1))
    finished = (await ann.expect(Seated)).table
    while (await ann.state_when(_my_turn))["result"] is None:
        await ann.send(Act("end"))
    await ann.stream.aclose()  # gone without a leave: nobody is at the finished table
    await _gone(server, 0)
    assert list(server.host.tables) == []
    bob = await Client.connect(port, "bob")
    await bob.send(notty_table("classic", 2))
    assert (await bob.expect(Seated)).table != finished
    assert finished not in server.host.tables


@pytest.mark.parametrize(
    ("queue", "queue_bytes"),
    [(4, DEFAULT_LIMITS.queue_bytes), (1000, 100_000)],
    ids=["messages", "bytes"],
)
async def test_a_client_that_does_not_read_is_dropped_when_its_queue_is_full(
    start: Start, caplog: pytest.LogCaptureFixture, queue: int, queue_bytes: int
) -> None:
    host = _host()
    for conn in range(-200, 0):  # 200 open tables make every table list about 30 KB
        host.connect(conn)
        host.handle(conn, Hello(PROTOCOL_VERSION, f"p{-conn}"), 0.0)
        host.handle(conn, notty_table("classic", 3), 0.0)
    server, port = await start(Limits(queue=queue, queue_bytes=queue_bytes, rate=1000, burst=1000), host)
    bob = await Client.connect(port, "bob")
    eve = await _raw(port)
    eve.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    asked = 300
    await eve.stream.send_all(_frames(Hello(PROTOCOL_VERSION, "eve"), *[ListTables()] * asked))
    await _gone(server, 1)  # eve is dropped while she is not reading...
    await _still_answered(bob, 1)  # ...and bob never waited for her
    assert "is not reading: dropped" in caplog.text
    heard = await _until_closed(eve)
    assert sum(isinstance(m, Tables) for m in heard) < asked


async def test_the_lobby_list_is_packed_once_for_every_request_until_it_changes(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clients that ask for a 60 KB list as fast as their rate allows, and never read it, made
    everyone's replies wait while the server packed it for each of them."""
    packed: list[int] = []  # the tables of each list packed

    def counting(body: dict[str, Any]) -> bytes:
        if body["type"] == "tables":
            packed.append(len(body["tables"]))
        return encode_frame(body)

    monkeypatch.setattr(net, "encode_frame", counting, raising=False)
    monkeypatch.setattr(protocol._connection, "encode_frame", counting)  # a connection's own packing
    _, port = await start()
    carol = await Client.connect(port, "carol")
    await carol.send(notty_table("classic", 3))
    await carol.expect(Seated)
    ann, bob = await Client.connect(port, "ann"), await Client.connect(port, "bob")
    packed.clear()  # the lists that came with each welcome
    lists = []
    for client in (ann, bob, ann, bob):
        await client.send(ListTables())
        lists.append(await client.expect(Tables))
    assert packed == [1] and all(listed == lists[0] for listed in lists)
    await ann.send(notty_table("classic", 2))  # a change the list shows: packed again, once
    await ann.expect(Seated)
    await ann.expect(Tables)  # her own table's
    for client in (bob, ann, bob):
        await client.send(ListTables())
        lists.append(await client.expect(Tables))
    assert packed == [1, 1, 2]
    assert len(lists[-1].tables) == len(lists[0].tables) + 1 and lists[-1] == lists[-2] == lists[-3]


async def test_a_goodbye_from_elsewhere_closes_a_connection_that_stopped_reading_soon(start: Start) -> None:
    """Its queued replies get FLUSH_SECONDS to leave, not the whole idle timeout."""
    host = _host()
    for conn in range(-200, 0):  # 200 open tables make every table list about 30 KB
        host.connect(conn)
        host.handle(conn, Hello(PROTOCOL_VERSION, f"p{-conn}"), 0.0)
        host.handle(conn, notty_table("classic", 3), 0.0)
    server, port = await start(
        Limits(queue=1000, queue_bytes=1 << 30, rate=1000, burst=1000, idle_seconds=60), host
    )
    eve = await Client.connect(port, "eve")
    await eve.send(notty_table("classic", 2))
    token = (await eve.expect(Seated)).token
    eve.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    await eve.stream.send_all(_frames(*[ListTables()] * 300))  # and she reads none of the answers
    (link,) = server.links.values()
    with trio.fail_after(10):
        while not link.socket.backlog:  # the kernel holds no more: the rest waits on the server
            await trio.sleep(0.01)
    started = trio.current_time()
    again = await Client.connect(port, "eve", token=token)  # her seat, resumed elsewhere: goodbye to the old
    await again.expect(Seated)
    await _gone(server, 1)
    assert trio.current_time() - started < net.FLUSH_SECONDS + 1
    assert link.id not in server.links


# -- seat tokens --------------------------------------------------------------------


async def test_seat_tokens_never_reach_the_log(start: Start, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server, port = await start(host=_host(real_tokens=True))
    ann = await Client.connect(port, "ann")
    await ann.send(notty_table("classic", 3, ("greedy",), bot_delay_ms=0))
    ann_token = (await ann.expect(Seated)).token
    bob = await Client.connect(port, "bob")
    await bob.send(ListTables())
    await bob.send(Join((await bob.expect(Tables)).tables[0]["table"]))
    bob_token = (await bob.expect(Seated)).token
    await ann.expect(State)  # the game has begun
    await ann.stream.aclose()  # a drop, then a resume
    ann = await Client.connect(port, "ann", token=ann_token)
    await ann.expect(Seated)
    bob_again = await Client.connect(port, "bob", token=bob_token)  # bob takes his seat over
    await bob_again.expect(Seated)
    await bob.expect(Goodbye)
    stranger = await Client.connect(port, "eve", token="x" * 43)  # a token that fits no seat
    assert (await stranger.expect(Error)).code == "bad-token"
    await _still_answered(ann, 1)
    assert "connection" in caplog.text  # the log was captured
    for token in (ann_token, bob_token):
        assert len(token) >= 32
        assert token not in caplog.text
        for record in caplog.records:
            assert token not in record.getMessage() and token not in str(record.exc_text)
        # The host keeps its hash only.
        assert token not in repr(server.host.tables) and token not in repr(server.host.sessions)
    hashes = {seat.token_hash for table in server.host.tables.values() for seat in table.seats}
    assert {hashlib.sha256(t.encode()).digest() for t in (ann_token, bob_token)} <= hashes


def test_seat_tokens_come_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    host = cli.make_host("notty", 1.0)
    drawn = {host._new_token() for _ in range(100)}
    assert len(drawn) == 100 and all(len(token) == 43 for token in drawn)  # 32 random bytes each
    monkeypatch.setattr(cli.secrets, "token_urlsafe", lambda n: f"from-secrets-{n}")
    assert cli.make_host("notty", 1.0)._new_token() == "from-secrets-32"


def test_seat_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    host = _host()
    host.connect(1)
    host.handle(1, Hello(PROTOCOL_VERSION, "ann"), 0.0)
    (_, seated), *_ = host.handle(1, notty_table("classic", 2, ("greedy",)), 0.0)
    assert isinstance(seated, Seated)
    host.disconnect(1, 1.0)
    monkeypatch.setattr(hmac, "compare_digest", spy)
    host.connect(2)
    replies = [message for _, message in host.handle(2, Hello(PROTOCOL_VERSION, "ann", seated.token), 2.0)]
    assert any(isinstance(message, Seated) for message in replies)
    assert (hashlib.sha256(seated.token.encode()).digest(),) * 2 in compared


def test_a_hello_that_resumes_compares_its_token_with_one_tables_seats_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It compared with every seat of every table: a thousand tables' worth of work for each hello."""
    compared: list[bytes] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append(a)
        return real(a, b)

    host = _host(Limits(max_tables=100, tables_per_address=100))
    tokens = []
    for conn in range(1, 41):  # 40 tables of 3 seats, two of them people: 80 tokens held
        host.connect(conn)
        host.handle(conn, Hello(PROTOCOL_VERSION, f"p{conn}"), 0.0)
        if conn % 2:
            (_, seated), *_ = host.handle(conn, notty_table("classic", 3, ("greedy",)), 0.0)
        else:
            (_, seated), *_ = host.handle(conn, Join(host_table := max(host.tables)), 0.0)
            assert seated.table == host_table
        assert isinstance(seated, Seated)
        tokens.append(seated.token)
    monkeypatch.setattr(hmac, "compare_digest", spy)
    host.disconnect(7, 1.0)
    host.connect(100)
    replies = [message for _, message in host.handle(100, Hello(PROTOCOL_VERSION, "p7", tokens[6]), 2.0)]
    assert any(isinstance(message, Seated) for message in replies)
    assert 1 <= len(compared) <= 3  # the seats of its own table, at most
    compared.clear()
    host.connect(101)
    forged = "f" * 43
    replies = [message for _, message in host.handle(101, Hello(PROTOCOL_VERSION, "eve", forged), 2.0)]
    assert any(isinstance(message, Error) and message.code == "bad-token" for message in replies)
    assert compared == []  # no table has it: nothing to compare


def test_the_tokens_of_seats_gone_are_forgotten() -> None:
    host = _host(Limits(max_tables=100, tables_per_address=100))
    host.connect(1)
    host.handle(1, Hello(PROTOCOL_VERSION, "ann"), 0.0)
    for _ in range(200):  # a table made and left, again and again: each a seat and its token gone
        (_, seated), *_ = host.handle(1, notty_table("classic", 2, ("greedy",)), 0.0)
        assert isinstance(seated, Seated)
        host.handle(1, Leave(), 0.0)
    assert len(host._token_tables) <= 2 * 8 * len(host.tables) + 64 + 1


def test_a_seat_held_for_its_player_resumes_after_the_index_is_rebuilt() -> None:
    """Rebuilt from the seats still held, it must keep a dropped player's, whose connection is gone."""
    host = _host(Limits(max_tables=100, tables_per_address=100))
    host.connect(1)
    host.handle(1, Hello(PROTOCOL_VERSION, "bob"), 0.0)
    (_, seated), *_ = host.handle(1, notty_table("classic", 2, ("greedy",)), 0.0)
    assert isinstance(seated, Seated)
    host.disconnect(1, 1.0)  # dropped: the seat is held for bob's return
    host.connect(2)
    host.handle(2, Hello(PROTOCOL_VERSION, "ann"), 1.0)
    for _ in range(300):  # tables made and left: the index is rebuilt more than once meanwhile
        host.handle(2, notty_table("classic", 2, ("greedy",)), 1.0)
        host.handle(2, Leave(), 1.0)
    host.connect(3)
    replies = [message for _, message in host.handle(3, Hello(PROTOCOL_VERSION, "bob", seated.token), 2.0)]
    assert any(isinstance(message, Seated) and message.table == seated.table for message in replies)


# -- what one address may have recorded ---------------------------------------------------------


def _recording_host(**caps: Any) -> tuple[Host, Callable[[int, Message, float], list[Message]]]:
    """A sans-IO host whose connections 1-9 come from 10.0.0.1 and 10-19 from 10.0.0.2."""
    tokens = (f"token{n:035d}" for n in itertools.count())
    host = Host(new_rng=lambda: random.Random(1), new_token=lambda: next(tokens), **caps)
    for conn in range(1, 20):
        host.connect(conn, "10.0.0.1" if conn < 10 else "10.0.0.2")
        host.handle(conn, Hello(PROTOCOL_VERSION, f"p{conn}"), 0.0)

    def send(conn: int, message: Message, now: float) -> list[Message]:
        return [reply for to, reply in host.handle(conn, message, now) if to == conn]

    return host, send


def test_tables_of_bots_alone_from_one_address_are_capped_and_paced() -> None:
    host, send = _recording_host(bot_tables_per_address=2, bot_only_delay=0.25)
    bots = notty_table("classic", 2, ("greedy", "random"), bot_delay_ms=0)
    for conn in (1, 2):
        assert isinstance(send(conn, bots, 0.0)[0], Watching)
    (refused,) = send(3, bots, 0.0)
    assert isinstance(refused, Error) and refused.code == "too-many-bot-tables"
    numbers = ", ".join(str(table.id) for table in host.tables.values() if table.address == "10.0.0.1")
    assert (
        f"2 tables of bots alone created from 10.0.0.1 are still playing (tables {numbers})"
        in refused.message
    )
    assert refused.message.endswith("or give the new table a seat of your own")
    assert isinstance(send(3, notty_table("classic", 2, ("greedy",)), 0.0)[0], Seated)  # with a human: fine
    assert isinstance(send(10, bots, 0.0)[0], Watching)  # another address has its own count
    assert {table.bot_delay for table in host.tables.values() if table.address == "10.0.0.1"} == {0.25, 1.0}
    send(1, Leave(), 1.0)  # nobody watches: the game of bots is given up, and there is room again
    assert isinstance(send(3, Leave(), 1.0)[0], Left)
    assert isinstance(send(3, bots, 1.0)[0], Watching)


def test_games_an_hour_from_one_address_are_capped_and_grow_back() -> None:
    _, send = _recording_host(games_per_hour=3)
    table = notty_table("classic", 2)
    for conn in (1, 2, 3):
        assert isinstance(send(conn, table, 0.0)[0], Seated)
        send(conn, Leave(), 0.0)  # a table left before it starts still counts: it was asked for
    (refused,) = send(4, table, 60.0)
    assert isinstance(refused, Error) and refused.code == "too-many-games"
    assert "3 games were started from 10.0.0.1 within the last hour" in refused.message
    assert "in 19 minutes" in refused.message  # one comes back every 20 minutes
    assert isinstance(send(10, table, 60.0)[0], Seated)  # another address has its own allowance
    assert isinstance(send(4, table, 1200.0)[0], Seated)
    (refused,) = send(5, table, 1200.0)
    assert isinstance(refused, Error) and refused.code == "too-many-games"


def test_a_game_every_person_has_left_counts_as_bots_alone_paced_and_let_go() -> None:
    host, send = _recording_host(bot_tables_per_address=1, bot_only_delay=0.25)
    table = send(1, notty_table("classic", 2, ("greedy",), bot_delay_ms=0), 0.0)[0].table
    send(1, Leave(), 1.0)  # her seat is given up for good, and nobody is left to watch
    assert table not in host.tables  # nobody can ever resume it: not kept for 12 hours
    table = send(2, notty_table("classic", 2, ("greedy",), bot_delay_ms=0), 2.0)[0].table
    assert isinstance(send(3, Watch(table), 2.0)[0], Watching)
    send(2, Leave(), 2.0)  # kept by its watcher: a game of bots alone now,
    assert host.tables[table].bot_delay == 0.25  # paced as such, its given-up seat's stand-in too,
    (refused,) = send(4, notty_table("classic", 2, ("greedy", "random")), 2.0)  # and counted
    assert isinstance(refused, Error) and refused.code == "too-many-bot-tables"
    (job,) = host.bot_jobs()
    assert job.delay == 0.25


def test_a_game_every_person_leaves_to_autopilot_is_paced_as_bots_alone() -> None:
    host, send = _recording_host(bot_only_delay=0.25)
    send(1, notty_table("classic", 2, ("greedy",), bot_delay_ms=0), 0.0)
    paces = []
    for _ in range(2):
        (job,) = host.bot_jobs() or [None]
        if job is None:  # her turn: autopilot plays it
            send(1, Autopilot(True), 0.0)
            (job,) = host.bot_jobs()
        paces.append(job.delay)
        host.bot_acted(job, job.bot.choose(job.view), 0.0)
    assert paces[-1] == 0.25  # greedy's move and hers alike, once nobody plays their own seat
    send(1, Autopilot(False), 0.0)
    jobs = host.bot_jobs()
    assert all(job.delay == 0.0 for job in jobs)  # she plays again: the pace she asked for
    for job in jobs:
        host.bot_acted(job, job.bot.choose(job.view), 0.0)
    send(1, PlayForMe(), 0.0)  # her own turn played for her, once: no pause, as she asked
    assert [job.delay for job in host.bot_jobs()] == [0.0]


def _play_bots(host: Host, now: float, moves: int) -> list[float]:
    """Let the bots make up to ``moves`` moves (as long as one is due): the pause each was given."""
    paces = []
    for _ in range(moves):
        jobs = host.bot_jobs()
        if not jobs:
            break
        for job in jobs:
            paces.append(job.delay)
            host.bot_acted(job, job.bot.choose(job.view), now)
    return paces


def test_a_stand_in_and_autopilot_are_paced_as_bots_alone_once_nobody_plays() -> None:
    """Ann on autopilot, and a stand-in for bob (dropped past the grace): both played at no pause,
    so the game's 140 turns went by in a sixth of a second, before she could type 'auto off'."""
    host, send = _recording_host(bot_only_delay=0.25, grace=10.0)
    table = send(1, notty_table("classic", 2, turn_limit=60), 0.0)[0].table
    assert isinstance(send(2, Join(table), 0.0)[0], Seated)
    host.disconnect(2, 1.0)
    host.tick(20.0)  # past the grace: a bot plays for bob
    assert host.tables[table].seats[1].stand_in
    ann = host.tables[table].seats[0]
    if host.tables[table].match.current == 0:  # type: ignore[union-attr]
        send(1, PlayForMe(), 20.0)
    paces = _play_bots(host, 20.0, 1)
    assert paces == [0.0]  # she plays: bob's stand-in (or her "play for me") does not keep her waiting
    send(1, Autopilot(True), 20.0)
    assert ann.autopilot
    paces = _play_bots(host, 20.0, 40)
    assert len(paces) == 40 and set(paces) == {0.25}  # her seat's bot and bob's stand-in alike
    send(1, Autopilot(False), 20.0)
    host.disconnect(1, 21.0)
    host.connect(3, "10.0.0.1")
    host.handle(3, Hello(PROTOCOL_VERSION, "cy"), 21.0)
    assert isinstance(send(3, Watch(table), 21.0)[0], Watching)
    host.tick(40.0)  # ann past the grace too: two stand-ins play, and cy watches
    paces = _play_bots(host, 40.0, 20)
    assert paces and set(paces) == {0.25}


def test_games_left_to_bots_past_the_cap_share_its_pace() -> None:
    """A table with a person at creation, given up with 'leave' (or left to autopilot), escaped the
    cap on tables of bots alone: one address ran 8 at full pace, 4 times the moves it may record."""
    host, send = _recording_host(bot_tables_per_address=2, bot_only_delay=0.25)
    for conn in range(1, 9, 2):  # 4 tables, each a person and greedy, each kept by a watcher
        table = send(conn, notty_table("classic", 2, ("greedy",), bot_delay_ms=0), 0.0)[0].table
        assert isinstance(send(conn + 1, Watch(table), 0.0)[0], Watching)
        send(conn, Leave(), 0.0)
    paused = send(9, notty_table("classic", 2, ("greedy",), bot_delay_ms=0), 0.0)[0].table
    send(9, Autopilot(True), 0.0)
    host.disconnect(9, 0.0)  # an autopilot game nobody is at: it does not play, so it takes no share
    jobs = [job for job in host.bot_jobs() if job.table != paused]
    assert len(jobs) == 4 and {job.delay for job in jobs} == {0.5}  # twice the pace's pause: 2 to share 1
    table = send(10, notty_table("classic", 2, ("greedy",), bot_delay_ms=0), 0.0)[0].table
    send(10, Autopilot(True), 0.0)  # another address: its own share, at the usual pace
    assert [job.delay for job in host.bot_jobs() if job.table == table] == [0.25]


def test_requests_sent_back_to_back_seat_a_connection_at_one_table_only() -> None:
    host, send = _recording_host()
    assert isinstance(send(1, notty_table("classic", 2), 0.0)[0], Seated)
    # The protocol's state moves on only as replies are sent, which may wait for the record.
    for request in (notty_table("classic", 2), Join(1), Watch(1)):
        (refused,) = send(1, request, 0.0)
        assert isinstance(refused, Error) and refused.code == "not-now"
        assert "table 1 already" in refused.message
    assert len(host.tables) == 1
