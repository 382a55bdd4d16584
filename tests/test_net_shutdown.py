"""A server that stops (SIGINT or SIGTERM: ``NottyServer.shutdown``) tells every client so in a way a
program can read, the error ``shutting-down`` before its goodbye, in whatever state the connection is:
a client can then tell a stop it may wait out (the games are kept) from a goodbye for good. (The
protocol allows an error, then goodbye, in every state: ``test_wire``'s
``test_the_server_may_say_goodbye_in_every_state``.)

Real TCP on 127.0.0.1, port 0, as in :mod:`test_net`.
"""

from __future__ import annotations

import itertools
import logging
import random

import pytest
import trio
from conftest import notty_table
from test_net import Client

from protocol import (
    PROTOCOL_VERSION,
    Error,
    Goodbye,
    Hello,
    Message,
    Seated,
    State,
    Watch,
    Watching,
)
from server.host import Host
from server.limits import Limits
from server.net import NottyServer


async def _rest(client: Client) -> list[Message]:
    """Everything the server still says to ``client``, until it closes the connection."""
    said: list[Message] = []
    with trio.fail_after(10):
        while True:
            try:
                said.append(await client.receive())
            except EOFError:
                await client.stream.aclose()  # as a client does: the server waits for it to go
                return said


def _ending(said: list[Message]) -> list[tuple[str, str]]:
    """The last two messages, as (type, code or nothing)."""
    return [(m.TYPE, m.code if isinstance(m, Error) else "") for m in said[-2:]]


async def test_shutdown_tells_every_connection_it_is_shutting_down_then_goodbye() -> None:
    tokens = (f"token{n:035d}" for n in itertools.count())
    host = Host(new_rng=lambda: random.Random(1), new_token=lambda: next(tokens), grace=5)
    server = NottyServer(host, limits=Limits(rate=1000, burst=1000))
    async with trio.open_nursery() as nursery:
        port = (await nursery.start(server.serve, "127.0.0.1", 0))[0].socket.getsockname()[1]
        silent = Client(await trio.open_tcp_stream("127.0.0.1", port))  # connected, no hello yet
        ann = await Client.connect(port, "ann")  # in the lobby
        bob = await Client.connect(port, "bob")
        await bob.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000))
        table = (await bob.expect(Seated)).table
        await bob.expect(State)  # seated at a game under way
        cy = await Client.connect(port, "cy")
        await cy.send(Watch(table))
        await cy.expect(Watching)
        await cy.expect(State)  # watching it
        assert len(server.links) == 4  # the silent one included

        ends: dict[str, list[Message]] = {}

        async def read_to_the_end(name: str, client: Client) -> None:
            ends[name] = await _rest(client)

        async with trio.open_nursery() as readers:
            for name, client in [("hello", silent), ("lobby", ann), ("seated", bob), ("watching", cy)]:
                readers.start_soon(read_to_the_end, name, client)
            with trio.fail_after(5):
                await server.shutdown()
        for state, said in ends.items():
            assert _ending(said) == [("error", "shutting-down"), ("goodbye", "")], state
            error, goodbye = said[-2:]
            assert isinstance(error, Error) and "shutting down or restarting" in error.message, state
            assert "games are kept" in error.message, state
            assert isinstance(goodbye, Goodbye) and goodbye.reason == "the server is shutting down", state
            assert [m for m in said[:-2] if isinstance(m, Error | Goodbye)] == [], state

        # One that connects while the server stops is told the same and turned away, never welcomed.
        late = Client(await trio.open_tcp_stream("127.0.0.1", port))
        await late.send(Hello(PROTOCOL_VERSION, "dee"))
        assert _ending(await _rest(late)) == [("error", "shutting-down"), ("goodbye", "")]
        assert not server.links
        nursery.cancel_scope.cancel()


async def test_a_player_whose_connection_closes_as_the_server_stops_is_logged_as_kept_for_the_restart(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="notty.host")
    tokens = (f"token{n:035d}" for n in itertools.count())
    host = Host(new_rng=lambda: random.Random(1), new_token=lambda: next(tokens), grace=5)
    server = NottyServer(host)
    async with trio.open_nursery() as nursery:
        port = (await nursery.start(server.serve, "127.0.0.1", 0))[0].socket.getsockname()[1]
        bob = await Client.connect(port, "bob")
        await bob.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=10_000))
        await bob.expect(Seated)
        await bob.expect(State)
        async with trio.open_nursery() as readers:
            readers.start_soon(_rest, bob)
            with trio.fail_after(5):
                await server.shutdown()
        nursery.cancel_scope.cancel()
    said = [record.getMessage() for record in caplog.records]
    # not "bob dropped; their seat is held for 5 s": no grace runs out before the restart restores it
    assert (
        "table 1: seat 1: bob's connection closed as the server stops; their seat is kept for its restart"
        in said
    )
    assert not any("held for" in line for line in said)
