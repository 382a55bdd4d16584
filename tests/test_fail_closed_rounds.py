"""Fail-closed, with other messages in the same commit round as the write that fails.

The server commits what the host journals in groups, one transaction a scheduling
round (``NottyServer._committer``); a reply that follows a journaled change is held
until that commit. Whether two clients' messages share a round depends on when
their bytes arrive, so this test does not leave it to chance over TCP: it writes
each message's bytes to the kernel itself, with exactly one scheduling point in
between, and checks (from the store, while the failing write is under way) that
the round it meant to build is the one that was committed.

Why not a store whose write blocks until released: the server calls ``store.write``
synchronously on the event loop, inside ``_commit``, after it has taken the round's
records and held replies. A write that blocked would stop every task, and whatever
arrived meanwhile would belong to the next round, not this one.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import notty_table
from test_fail_closed import FaultyStore, Seat, _host, _restart_and_check, _serve
from test_net import Client

from protocol import (
    Act,
    ConnectionState,
    Error,
    Join,
    Leave,
    Left,
    Message,
    Ping,
    Pong,
    Seated,
    State,
    Watch,
    Watching,
)
from server.journal import Moved, Record, SeatLeft


def _write_now(client: Client, message: Message) -> None:
    """Put ``message`` on the wire from the client's own protocol state machine, without yielding.

    On loopback the bytes are in the server's receive queue when this returns, so the
    server's reader for the connection wakes at the event loop's next look for I/O.
    """
    data = client.protocol.send(message)
    assert os.write(client.stream.socket.fileno(), data) == len(data)


async def _next(client: Client, count: int) -> list[Message]:
    return [await client.receive() for _ in range(count)]


async def test_a_spectators_leave_in_the_round_of_a_failed_write_is_a_plain_left(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        server, port = await _serve(nursery, _host(5), store)
        clients = [await Client.connect(port, name) for name in ("ann", "bob", "cat", "dan")]
        ann, bob, cat, dan = clients
        conn = {client: number for number, client in enumerate(clients, 1)}  # in the order they connected
        assert [server.host.sessions[conn[client]].name for client in clients] == ["ann", "bob", "cat", "dan"]
        # Two people play; cat and dan watch.
        await ann.send(notty_table("classic", 2))
        seated = await ann.expect(Seated)
        table = seated.table
        await bob.send(Join(table))
        seats = {ann: Seat(ann, table, seated.token), bob: Seat(bob, table, (await bob.expect(Seated)).token)}
        for player, seat in seats.items():
            seat.last = (await player.expect(State)).view
        for watcher in (cat, dan):
            await watcher.send(Watch(table))
            watching, state = await _next(watcher, 2)
            assert watching == Watching(table) and isinstance(state, State)
        first = seats[ann].last
        assert first is not None
        mover, leaver = (ann, bob) if first["current"] == 0 else (bob, ann)
        view = seats[mover].last
        assert view is not None and view["current"] == view["seat"] and view["legal"]
        # Every reply so far has been sent, so every change so far is stored: nothing is pending.
        assert not server._unrecorded and not server._held

        # The store fails every write that touches the table, and notes, while the first is under
        # way, what the host has done and what each connection has been sent.
        seen_at_write: list[tuple[list[Record], dict[str, Any]]] = []

        def fails(records: list[Record]) -> bool:
            if not any(record.table == table for record in records):
                return False
            if not seen_at_write:
                at_write = {
                    name: (
                        server.host.sessions[conn[client]].table,
                        server.links[conn[client]].protocol.state,
                    )
                    for name, client in (("mover", mover), ("leaver", leaver), ("cat", cat), ("dan", dan))
                }
                seen_at_write.append((list(records), at_write))
            return True

        store.fails = fails
        # The move and the seated player's leave reach the server together; the spectator's leave
        # one scheduling point later. So the server reads the move (and journals it) before cat's
        # leave, and cat's leave (one round of the loop after the move) before the committer, woken
        # by the move, has slept its one round and taken the group: cat's `left` is held for the
        # very commit that fails.
        _write_now(mover, Act("draw 1" if "draw 1" in view["legal"] else view["legal"][0]))
        _write_now(leaver, Leave())
        await trio.lowlevel.checkpoint()
        _write_now(cat, Leave())

        # Players and the spectator who stayed: why the table stopped, then back to the lobby. Nothing
        # of the move that was not recorded (no state, no notice), nor of the seated player's leave.
        for client in (mover, leaver, dan):
            error, left = await _next(client, 2)
            assert isinstance(error, Error) and error.code == "not-recorded", error
            assert f"could not record the last change at table {table}" in error.message
            assert "your seat token resumes the game" in error.message
            assert left == Left(table)
        # The spectator who left: a plain `left`, and nothing about recording or seat tokens.
        assert await _next(cat, 1) == [Left(table)]
        # Nothing else is on its way to anyone: the next reply each gets is the answer to a ping.
        for number, client in enumerate(clients):
            await client.send(Ping(number))
            assert await _next(client, 1) == [Pong(number)]

        # The round was the one this test meant: the failing write carried the move and the seated
        # leave, and by then the host had taken cat's leave too, but its `left` was still held.
        assert seen_at_write, "the store never saw the table's changes"
        records, at_write = seen_at_write[0]
        assert {Moved, SeatLeft} <= {type(record) for record in records}  # (and the leave's new turn limit)
        assert at_write["mover"] == (table, ConnectionState.SEATED)
        assert at_write["leaver"] == (None, ConnectionState.SEATED)  # left, not yet told
        assert at_write["cat"] == (None, ConnectionState.WATCHING)  # left, `left` held for this commit
        assert at_write["dan"] == (table, ConnectionState.WATCHING)
        assert store.failures == 2  # the round's transaction, then the table's own

        # Nothing left behind: no held reply, no pending change, no table; everyone in the lobby.
        assert not server._unrecorded and not server._held
        assert table not in server.host.tables
        for client in clients:
            assert server.host.sessions[conn[client]].table is None
            assert server.links[conn[client]].protocol.state is ConnectionState.LOBBY
            assert client.protocol.state is ConnectionState.LOBBY
        nursery.cancel_scope.cancel()
    store.close()
    # Nothing failed in the server: no traceback was logged, and the table stopped once.
    assert not [record for record in caplog.records if record.exc_info], "a traceback was logged"
    stops = [record for record in caplog.records if "its game could not be recorded" in record.message]
    assert len(stops) == 1
    # Neither the move nor the leave happened: both players' tokens resume the game as they last saw it.
    await _restart_and_check(tmp_path / "notty.db", list(seats.values()))
