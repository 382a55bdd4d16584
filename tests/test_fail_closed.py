"""Nothing acknowledged is ever lost: a change the store cannot record stops its table, unacknowledged.

Each test plays over real TCP against an in-process server whose store fails
in a chosen way, then "restarts" it (a new host restored from the same
database file, as ``notty-server`` does) and resumes every seat with its
token: the view it gets back must be the last one it was sent before.
"""

from __future__ import annotations

import itertools
import logging
import random
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import notty_table
from test_net import Client

from protocol import (
    Act,
    Error,
    Join,
    Leave,
    Left,
    ListTables,
    Notice,
    Ping,
    Pong,
    Resign,
    Seated,
    State,
    Tables,
)
from server import net
from server.host import Host
from server.journal import Record
from server.net import NottyServer
from server.store import Store


class FaultyStore(Store):
    """The real store, made to fail when ``fails(records)`` says so (before writing anything)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.fails: Callable[[list[Record]], bool] = lambda records: False
        self.failures = 0

    def write(self, records: Iterable[Record]) -> None:
        records = list(records)
        if self.fails(records):
            self.failures += 1
            raise sqlite3.OperationalError("disk I/O error")
        super().write(records)


def _host(seed: int) -> Host:
    tokens = (f"token{seed}-{n:030d}" for n in itertools.count())
    return Host(new_rng=lambda: random.Random(seed), new_token=lambda: next(tokens), grace=30)


async def _serve(nursery: trio.Nursery, host: Host, store: Store) -> tuple[NottyServer, int]:
    server = NottyServer(host, store=store)
    (listener,) = await nursery.start(server.serve, "127.0.0.1", 0)
    return server, listener.socket.getsockname()[1]


class Seat:
    """A human seat against bots: its token, and the last view the server acknowledged to it."""

    def __init__(self, client: Client, table: int, token: str) -> None:
        self.client, self.table, self.token = client, table, token
        self.last: dict[str, Any] | None = None

    @classmethod
    async def at_new_table(cls, port: int, name: str, bots: tuple[str, ...] = ("greedy",)) -> Seat:
        client = await Client.connect(port, name)
        await client.send(notty_table("classic", 1 + len(bots), bots, bot_delay_ms=0))
        seated = await client.expect(Seated)
        seat = cls(client, seated.table, seated.token)
        await seat.my_turn()
        return seat

    async def my_turn(self) -> bool:
        """Read states until it is this seat's turn (True) or the table stops (False)."""
        while True:
            message = await self.client.receive()
            if isinstance(message, State):
                self.last = message.view
                if message.view["current"] == message.view["seat"] and message.view["legal"]:
                    return True
                assert message.view["result"] is None, "the game ended: give it a longer turn limit"
            elif isinstance(message, Error) and message.code == "not-recorded":
                assert f"table {self.table}" in message.message and "could not record" in message.message
                assert isinstance(await self.client.receive(), Left)
                return False

    async def move(self) -> bool:
        """One action the view offers; False once the table has stopped."""
        assert self.last is not None
        legal = self.last["legal"]
        action = next((a for a in legal if a.startswith("discard")), None) or (
            "draw 1" if "draw 1" in legal else "end"
        )
        await self.client.send(Act(action))
        return await self.my_turn()

    async def resume(self, port: int) -> dict[str, Any]:
        client = await Client.connect(port, "back", self.token)
        assert (await client.expect(Seated)).table == self.table
        view: dict[str, Any] = (await client.expect(State)).view
        return view


async def _restart_and_check(path: Path, seats: list[Seat]) -> None:
    """A new server on the same database gives every seat back the last view it was sent."""
    store = Store(path)
    host = _host(99)
    for saved in store.unfinished():
        host.restore(saved, trio.current_time())
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, host, store)
        for seat in seats:
            assert await seat.resume(port) == seat.last
        nursery.cancel_scope.cancel()
    store.close()


def _touches(table: int) -> Callable[[list[Record]], bool]:
    return lambda records: any(record.table == table for record in records)


async def test_a_table_whose_moves_cannot_be_recorded_stops_and_the_others_play_on(tmp_path: Path) -> None:
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(1), store)
        ann = await Seat.at_new_table(port, "ann")
        cat = await Seat.at_new_table(port, "cat")
        for _ in range(3):
            assert await ann.move() and await cat.move()
        seen = ann.last
        store.fails = _touches(ann.table)  # for good, and only ann's table
        assert not await ann.move()  # refused in words, and sent back to the lobby
        assert ann.last == seen  # no state after the move that was not recorded
        assert store.failures == 2  # the round's transaction, then the table's own
        for _ in range(3):  # cat's table never noticed
            assert await cat.move()
        await ann.client.send(Ping(7))  # and the server still answers ann
        assert await ann.client.expect(Pong) == Pong(7)
        await ann.client.send(ListTables())
        listed = await ann.client.expect(Tables)
        assert [info["table"] for info in listed.tables] == [cat.table]
        # ann's token, offered again before the restart (her client reconnecting, say), is not of a
        # seat gone, to be forgotten: the restart brings the game back (it was, and then a bot kept it).
        again = await Client.connect(port, "ann", ann.token)
        error = await again.expect(Error)
        assert error.code == "game-stopped" and f"table {ann.table}" in error.message
        store.fails = lambda records: True  # now nothing can be recorded: a new game cannot begin
        dan = await Client.connect(port, "dan")
        await dan.send(notty_table("classic", 2, ("greedy",)))
        dan_seated = await dan.expect(Seated)
        table = dan_seated.table
        error = await dan.expect(Error)
        assert error.code == "not-recorded" and "disk I/O error" in error.message
        assert f"the start of the game at table {table}" in error.message and "did not begin" in error.message
        assert (await dan.expect(Left)).table == table
        again = await Client.connect(port, "dan", dan_seated.token)  # nothing of it is kept
        assert (await again.expect(Error)).code == "bad-token"
        assert not any(isinstance(message, State) for message in dan.seen)
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(tmp_path / "notty.db", [ann, cat])


async def test_a_leave_that_cannot_be_recorded_says_so_and_the_token_still_resumes_the_seat(
    tmp_path: Path,
) -> None:
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(4), store)
        ann = await Seat.at_new_table(port, "ann")
        assert await ann.move()
        store.fails = _touches(ann.table)
        await ann.client.send(Leave())
        error = await ann.client.expect(Error)
        assert error.code == "not-recorded" and "your seat token resumes" in error.message
        assert (await ann.client.expect(Left)).table == ann.table
        again = await Client.connect(port, "ann", ann.token)  # as it says: not gone, to be forgotten
        assert (await again.expect(Error)).code == "game-stopped"
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(tmp_path / "notty.db", [ann])


async def test_a_game_that_ends_and_goes_at_once_unrecorded_is_stopped_not_ended(tmp_path: Path) -> None:
    """bob resigned and left in one go while ann was away: the game ended, and its table went, before
    the store failed to record the end. ann's token was then kept as of a game over: back before the
    restart, she was told the result (her client forgot the token), and the restart brought back the
    game unended, her seat for nobody to take back."""
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(5), store)
        ann = await Client.connect(port, "ann")
        await ann.send(notty_table("classic", 2))
        seated = await ann.expect(Seated)
        bob = await Client.connect(port, "bob")
        await bob.send(Join(seated.table))
        await bob.expect(State)
        await ann.stream.aclose()
        assert (await bob.expect(Notice)).kind == "dropped"
        store.fails = _touches(seated.table)
        await bob.stream.send_all(bob.protocol.send(Resign()) + bob.protocol.send(Leave()))  # one round
        assert (await bob.expect(Error)).code == "not-recorded"
        again = await Client.connect(port, "ann", seated.token)
        assert (await again.expect(Error)).code == "game-stopped"  # not bad-token, with the result
        nursery.cancel_scope.cancel()
    store.close()
    store = Store(tmp_path / "notty.db")
    host = _host(99)
    for saved in store.unfinished():
        host.restore(saved, trio.current_time())
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, host, store)
        back = await Client.connect(port, "ann", seated.token)  # the token she kept resumes the game
        assert (await back.expect(Seated)).table == seated.table
        assert (await back.expect(State)).view["result"] is None
        nursery.cancel_scope.cancel()
    store.close()


async def test_a_turn_time_run_out_unrecorded_is_not_told(tmp_path: Path) -> None:
    """ann's time for her turn ran out in a round the store could not record: the table stopped, and
    the restart gives her the turn back, but she was told first that the server plays the rest of it
    (the error turn-time, which names no table, was sent with the other tables' replies)."""
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(6), store)
        client = await Client.connect(port, "ann")
        await client.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0, turn_seconds=1))
        seated = await client.expect(Seated)
        ann = Seat(client, seated.table, seated.token)
        assert await ann.my_turn()
        store.fails = _touches(ann.table)
        assert not await ann.my_turn()  # her time runs out: not recorded, so the table stops
        told = [message for message in client.seen if isinstance(message, Error)]
        assert [error.code for error in told] == ["not-recorded"], told
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(tmp_path / "notty.db", [ann])


async def test_nothing_sent_in_a_round_the_store_failed_tells_of_the_unrecorded_move(tmp_path: Path) -> None:
    """A security review sent, in one write, a move the store could not record and then a list of the
    tables, or another move: the move's state was dropped, but the list showed the table a turn on,
    and the second move was refused as "not your turn", both of a position the restart undid. The
    refusal is dropped with the state, and the list is made again once the table has stopped."""
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(8), store)
        ann = await Seat.at_new_table(port, "ann")
        assert ann.last is not None
        turn = ann.last["turn"]
        watcher = await Client.connect(port, "cat")  # in the lobby: asks for the list in the same round
        store.fails = _touches(ann.table)
        end, listing = ann.client.protocol.send(Act("end")), ann.client.protocol.send(ListTables())
        await ann.client.stream.send_all(end + listing + ann.client.protocol.send(Act("end")))
        await watcher.send(ListTables())
        assert not await ann.my_turn()  # not-recorded, then back in the lobby
        tables = await ann.client.expect(Tables)
        assert all(info["table"] != ann.table for info in tables.tables)  # stopped: not a turn on
        listed = await watcher.expect(Tables)
        assert all(info["table"] != ann.table or info["turn"] == turn for info in listed.tables)
        await ann.client.send(Ping(7))
        await ann.client.expect(Pong)
        errors = [message.code for message in ann.client.seen if isinstance(message, Error)]
        assert errors == ["not-recorded"], errors  # no "it is greedy-2's turn, not yours"
        assert all(message.view["turn"] == turn for message in ann.client.seen if isinstance(message, State))
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(tmp_path / "notty.db", [ann])


async def test_a_game_given_up_unrecorded_for_nobody_coming_back_is_stopped_not_gone(tmp_path: Path) -> None:
    """Nobody came back to ann's game for as long as the server waits, and the store could not record
    that it gave the game up: the restart restores it, but her token, offered before that, was told
    its seat was gone, and her client forgot it."""
    store = FaultyStore(tmp_path / "notty.db")
    host = _host(7)
    host.abandon_after = 1.0
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, host, store)
        ann = await Seat.at_new_table(port, "ann")
        store.fails = _touches(ann.table)
        await ann.client.stream.aclose()
        with trio.fail_after(10):
            while ann.table in host.tables:
                await trio.sleep(0.05)
        again = await Client.connect(port, "ann", ann.token)
        assert (await again.expect(Error)).code == "game-stopped"
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(tmp_path / "notty.db", [ann])


async def test_a_write_that_fails_once_costs_nothing(tmp_path: Path) -> None:
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(2), store)
        ann = await Seat.at_new_table(port, "ann")
        failures = iter([True])
        store.fails = lambda records: next(failures, False)
        for _ in range(4):
            assert await ann.move()  # every move acknowledged: the table's own retry stored it
        assert store.failures == 1
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(tmp_path / "notty.db", [ann])


async def test_a_full_database_stops_every_table_that_moves_and_a_restart_restores_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notty.db"
    store = Store(path)
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(3), store)
        ann = await Seat.at_new_table(port, "ann")
        bob = await Seat.at_new_table(port, "bob", ("greedy", "random"))
        # SQLite's own SQLITE_FULL, as on a full disk: the file may not grow past its size now.
        (pages,) = store._db.execute("PRAGMA page_count").fetchone()
        store._db.execute(f"PRAGMA max_page_count = {pages}")
        stopped = []
        for _ in range(200):
            for seat in (ann, bob):
                if seat not in stopped and not await seat.move():
                    stopped.append(seat)
            if len(stopped) == 2:
                break
        assert len(stopped) == 2, "the database never filled"
        assert "database or disk is full" in str(ann.client.seen[-2])
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(path, [ann, bob])


def _delete(path: Path) -> None:
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        name.unlink(missing_ok=True)


async def test_a_database_deleted_under_the_server_is_written_again_and_loses_no_move(tmp_path: Path) -> None:
    # SQLite writes on into a deleted file: the moves acknowledged were gone at the restart.
    path = tmp_path / "notty.db"
    store = Store(path)
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(5), store)
        ann = await Seat.at_new_table(port, "ann")
        assert await ann.move()
        _delete(path)
        for _ in range(3):
            assert await ann.move()  # acknowledged, and so kept
        assert path.exists()
        _delete(path)  # again, and the server stops with nothing left to write: kept as it closes
        nursery.cancel_scope.cancel()
    store.close()
    assert not list(tmp_path.glob("*.kept-*"))  # the copy went into the file's place
    await _restart_and_check(path, [ann])


async def test_a_database_replaced_under_the_server_is_left_alone_and_its_games_kept_beside_it(
    tmp_path: Path,
) -> None:
    path, other = tmp_path / "notty.db", tmp_path / "other.db"
    store = Store(path)
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(6), store)
        ann = await Seat.at_new_table(port, "ann")
        assert await ann.move()
        Store(other).close()
        other.replace(path)  # another record moved into its place: not ours to write over
        replacement = path.read_bytes()
        assert not await ann.move()  # stopped, in words, and nothing told of the unrecorded move
        assert "was replaced by another file" in str(ann.client.seen[-2])
        nursery.cancel_scope.cancel()
    store.close()
    assert path.read_bytes() == replacement
    (kept,) = tmp_path.glob("notty.db.kept-*")
    kept.replace(path)  # the operator starts the server on the copy: every acknowledged move is there
    await _restart_and_check(path, [ann])


async def test_once_the_record_takes_writes_again_the_log_says_which_stopped_tables_a_restart_brings_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="notty.net")
    store = FaultyStore(tmp_path / "notty.db")
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(7), store)
        ann = await Seat.at_new_table(port, "ann")
        cat = await Seat.at_new_table(port, "cat")
        store.fails = _touches(ann.table)
        assert not await ann.move()
        store.fails = lambda records: True  # a game that cannot begin is not one a restart brings back
        dan = await Client.connect(port, "dan")
        await dan.send(notty_table("classic", 2, ("greedy",)))
        assert (await dan.expect(Error)).code == "not-recorded"
        assert not any("takes writes again" in record.getMessage() for record in caplog.records)
        store.fails = lambda records: False  # room again, say
        assert await cat.move()
        nursery.cancel_scope.cancel()
    store.close()
    (said,) = [
        record.getMessage() for record in caplog.records if "takes writes again" in record.getMessage()
    ]
    assert said == (
        f"the record takes writes again: table {ann.table}, stopped when its changes could not be recorded, "
        "comes back when the server is restarted"
    )


async def test_a_database_deleted_while_nobody_moves_is_put_back_within_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Put back only at the next write, it was lost with every game if the server was killed first.
    monkeypatch.setattr(net, "CHECKPOINT_SECONDS", 0.05)
    path = tmp_path / "notty.db"
    store = Store(path, checkpoint_inline=False)
    async with trio.open_nursery() as nursery:
        _, port = await _serve(nursery, _host(8), store)
        ann = await Seat.at_new_table(port, "ann")
        assert await ann.move()
        _delete(path)
        with trio.fail_after(5):
            while not path.exists():
                await trio.sleep(0.02)
        await trio.sleep(0.2)  # (and written to the end)
        copy = tmp_path / "copy.db"
        copy.write_bytes(path.read_bytes())  # what a killed server would leave: the file, checkpointed
        nursery.cancel_scope.cancel()
    store.close()
    await _restart_and_check(copy, [ann])
