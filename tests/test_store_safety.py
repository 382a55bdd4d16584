"""The game record at start-up: a database that cannot be written, a damaged one, and who may read it.

A server finds out at once, in one line, that it could not record a game; the
reading commands (``games``, ``replay``) still work wherever the file can be
read. Modes are checked with os.stat. Tests that need a file mode to stop
someone run their process as ``nobody`` when the tests run as root, whom no
mode stops.
"""

from __future__ import annotations

import errno
import logging
import os
import pwd
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import notty_server

from games.notty import CLASSIC
from games.notty.engine import Game
from server import cli
from server import store as store_module
from server.journal import GameBegun, GameOver, Moved, SeatRecord
from server.lock import LockError, WriterLock, lock_path
from server.store import MIGRATIONS, Store, StoreError

SERVE = ("--host", "127.0.0.1", "--port", "0")


def record_games(path: Path, count: int, moves: int = 0) -> None:
    """``count`` two-seat Notty games of ``moves`` moves each (their first ``count - 1`` finished)."""
    deal = Game(CLASSIC, ["ann", "bob"], random.Random(1)).deal
    seats = (SeatRecord("ann", None, b"\x01" * 32), SeatRecord("bob", None, b"\x02" * 32))
    store = Store(path, clock=lambda: 1_700_000_000.0)
    for table in range(1, count + 1):
        records: list[Any] = [
            GameBegun(
                table,
                "notty",
                "classic",
                {"level": "medium", "turn_limit": 0},
                0.5,
                30,
                seats,
                tuple(str(card) for card in deal.order),
                deal.first,
            )
        ]
        records += [Moved(table, number, number % 2, "draw 1", ("R1",)) for number in range(1, moves + 1)]
        if table < count:
            records.append(GameOver(table, 0, "won", ((0,), (1,))))
        store.write(records)
    store.close()


def one_line(stderr: str) -> str:
    """The one line a failed start or read writes, checked to be one and no traceback."""
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- who file modes stop ----------------------------------------------------------------------


@pytest.fixture
def confined(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    """A directory, and a ``prefix`` for :func:`conftest.notty_server`, for a user whom file modes
    stop: this one, or ``nobody`` when the tests run as root."""
    if os.geteuid() != 0:
        yield tmp_path, []
        return
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("running as root, and there is no user 'nobody' to run the server as")
    prefix = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
    try:
        probe = subprocess.run([*prefix, sys.executable, "-c", "pass"], capture_output=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("running as root, without setpriv to run the server as nobody")
    if probe.returncode != 0:
        pytest.skip(f"running as root, and nobody cannot run this Python: {probe.stderr[-200:]!r}")
    directory = Path(tempfile.mkdtemp(prefix="notty-confined-"))  # root's pytest directories are 0700
    os.chown(directory, nobody.pw_uid, nobody.pw_gid)
    try:
        yield directory, prefix
    finally:
        shutil.rmtree(directory)


def hand_over(directory: Path, prefix: list[str]) -> None:
    """Give what the test made in ``directory`` to the user the server will run as."""
    if prefix:
        nobody = pwd.getpwnam("nobody")
        for path in directory.rglob("*"):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)


def test_a_read_only_database_stops_the_server_in_one_line_but_can_still_be_read(
    confined: tuple[Path, list[str]],
) -> None:
    directory, prefix = confined
    db = directory / "notty.db"
    record_games(db, 2)
    hand_over(directory, prefix)
    db.chmod(0o444)
    refused = notty_server(*SERVE, "--db", str(db), prefix=prefix)
    assert refused.returncode == 1
    line = one_line(refused.stderr)
    why = "it cannot be written: the file is read-only (see its permissions)"
    assert line.endswith(f"cannot use the database {db}: {why}")
    listed = notty_server("games", "--db", str(db), prefix=prefix)
    assert listed.returncode == 0, listed.stderr
    assert [text[:16] for text in listed.stdout.splitlines()] == ["game 2: classic,", "game 1: classic,"]
    replayed = notty_server("replay", "1", "--db", str(db), prefix=prefix)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.startswith("game 1: classic, ann vs bob\n")


def test_a_read_only_file_sqlite_keeps_beside_the_database_is_named(confined: tuple[Path, list[str]]) -> None:
    """A refused start on a read-only database left its -shm read-only: with the database made writable
    again, the next start still said 'the file is read-only', and the file to delete went unnamed."""
    directory, prefix = confined
    db = directory / "notty.db"
    record_games(db, 1)
    shm = directory / "notty.db-shm"
    shm.write_bytes(b"")
    hand_over(directory, prefix)
    shm.chmod(0o444)
    refused = notty_server(*SERVE, "--db", str(db), prefix=prefix)
    assert refused.returncode == 1
    why = f"it cannot be written: {shm} beside it is read-only or not yours: delete it while no server runs"
    assert one_line(refused.stderr).endswith(f"cannot use the database {db}: {why}"), refused.stderr


def test_an_unreadable_database_is_refused_as_that(confined: tuple[Path, list[str]]) -> None:
    """It was 'it cannot be written: unable to open database file', SQLite's words, wrong both ways."""
    directory, prefix = confined
    db = directory / "notty.db"
    record_games(db, 1)
    hand_over(directory, prefix)
    db.chmod(0o000)
    why = "it cannot be read (permission denied: see its permissions)"
    for command in (SERVE, ("games",)):
        refused = notty_server(*command, "--db", str(db), prefix=prefix)
        assert refused.returncode == 1
        assert one_line(refused.stderr).endswith(f"cannot use the database {db}: {why}"), refused.stderr


@pytest.mark.parametrize("ran_before", [False, True], ids=["first-start", "lock-file-left"])
def test_a_read_only_directory_stops_the_server_in_one_line_but_can_still_be_read(
    confined: tuple[Path, list[str]], ran_before: bool
) -> None:
    directory, prefix = confined
    db = directory / "records" / "notty.db"
    record_games(db, 1)
    if ran_before:  # a server that stopped leaves its (unlocked) lock file behind
        WriterLock.acquire(db).release()
    hand_over(directory, prefix)
    db.parent.chmod(0o555)  # no -wal or -shm can be made beside the database
    try:
        refused = notty_server(*SERVE, "--db", str(db), prefix=prefix)
        assert refused.returncode == 1
        line = one_line(refused.stderr)
        assert f"cannot use the database {db}: it cannot be written: " in line
        if ran_before:
            why = "its directory is read-only, and SQLite keeps notty.db-wal and notty.db-shm beside it"
            assert line.endswith(why)
        else:
            assert line.endswith(f"cannot open its lock file {lock_path(db)} (permission denied)")
        listed = notty_server("games", "--db", str(db), prefix=prefix)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.startswith("game 1: classic, ann vs bob, ")
        left = sorted(path.name for path in db.parent.iterdir())
        assert left == (["notty.db", "notty.db.lock"] if ran_before else ["notty.db"])  # reading made nothing
    finally:
        db.parent.chmod(0o700)


def test_a_reader_never_reads_half_a_database_in_a_read_only_directory(
    confined: tuple[Path, list[str]],
) -> None:
    directory, prefix = confined
    db = directory / "records" / "notty.db"
    record_games(db, 1)
    writer = sqlite3.connect(db, isolation_level=None)  # a change still in the log, as after a kill
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE games SET ended_at = 1.0, winner = 0, reason = 'changed'")
    kept = directory / "kept"
    kept.mkdir()
    for name in ("notty.db", "notty.db-wal"):  # no -shm: it is rebuilt from the log on the next open
        shutil.copy(db.parent / name, kept / name)
    writer.close()
    hand_over(directory, prefix)
    kept.chmod(0o555)
    try:
        listed = notty_server("games", "--db", str(kept / "notty.db"), prefix=prefix)
    finally:
        kept.chmod(0o700)
    assert listed.returncode == 1
    assert one_line(listed.stderr).endswith(
        "its last changes are in notty.db-wal, which SQLite reads only through a notty.db-shm file, "
        "and its directory is read-only: make the directory writable to read them"
    )
    listed = notty_server("games", "--db", str(kept / "notty.db"), prefix=prefix)
    assert listed.returncode == 0 and "ann won (changed)" in listed.stdout  # the log read, not skipped


def _fill(store: Store) -> None:
    """Games until the file holds no free page: from here on, any write needs the file to grow."""
    table = store.next_table_id()
    while store._db.execute("PRAGMA freelist_count").fetchone() != (0,):
        store.write([GameBegun(table, "notty", "classic", {}, 0.0, 0, (), ("R1",) * 200, 0)])
        table += 1


def _disk_full(store: Store) -> None:
    """What a full disk looks like to SQLite, made as root too: the file may not grow a page."""
    (pages,) = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages}")


def test_the_write_check_finds_a_full_disk_and_leaves_the_store_usable(tmp_path: Path) -> None:
    db = tmp_path / "notty.db"
    store = Store(db)
    _fill(store)
    _disk_full(store)
    with pytest.raises(StoreError) as refused:
        store.check_writable()
    assert str(refused.value) == f"cannot use the database {db}: it cannot be written: the disk is full"
    assert not store._db.in_transaction  # rolled back: the next write starts afresh
    store._db.execute("PRAGMA max_page_count = 1073741823")  # room again
    store.check_writable()
    store.write([GameBegun(store.next_table_id(), "notty", "classic", {}, 0.0, 0, (), ("R1",), 0)])


def test_a_full_disk_stops_the_server_in_one_line_before_it_listens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "notty.db"
    store = Store(db)
    _fill(store)
    store.close()
    check = Store.check_writable

    def on_a_full_disk(store: Store) -> None:
        _disk_full(store)
        check(store)

    monkeypatch.setattr(Store, "check_writable", on_a_full_disk)
    monkeypatch.setattr(cli.trio, "run", lambda *args: pytest.fail("the server started"))
    assert cli.main([*SERVE, "--db", str(db)]) == 1
    errors = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert errors == [f"cannot use the database {db}: it cannot be written: the disk is full"]
    WriterLock.acquire(db).release()  # and the lock went with it


# -- a damaged database --------------------------------------------------------------------------


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """A database of 300 games with one page in the middle of the file overwritten with garbage."""
    db = tmp_path / "notty.db"
    record_games(db, 300, moves=20)
    assert not Path(f"{db}-wal").exists()  # all of it is in the file
    pages = db.stat().st_size // 4096
    with db.open("r+b") as file:
        file.seek(pages // 2 * 4096)
        file.write(random.Random(7).randbytes(4096))
    return db


@pytest.mark.parametrize("command", [[*SERVE], ["games"], ["replay", "5"]], ids=["serve", "games", "replay"])
def test_a_damaged_database_ends_every_command_in_one_line_saying_what_to_do(
    damaged: Path, command: list[str]
) -> None:
    ran = notty_server(*command, "--db", str(damaged))
    assert ran.returncode == 1
    assert ran.stdout == ""
    line = one_line(ran.stderr)
    assert f"cannot use the database {damaged}: it is damaged (" in line
    assert line.endswith("restore it from a backup, or move it and any notty.db-wal aside to start a new one")


def test_a_read_that_meets_damage_past_the_check_says_so(
    damaged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Store, "_check_intact", lambda store: None)  # as if the damage came after it
    store = Store(damaged, read_only=True)
    with pytest.raises(StoreError, match="it is damaged"):
        for table in range(1, 301):
            store.game(table)
        store.games()


def test_the_damage_check_refuses_the_file_before_anything_is_written(damaged: Path) -> None:
    before = damaged.read_bytes()
    with pytest.raises(StoreError, match="it is damaged"):
        Store(damaged)
    assert damaged.read_bytes() == before


# -- readers -------------------------------------------------------------------------------------


def test_a_reader_writes_nothing_and_reads_an_older_schema_through_a_copy(tmp_path: Path) -> None:
    db = tmp_path / "notty.db"
    old = sqlite3.connect(db, isolation_level=None)  # as the first release made it
    old.executescript(f"BEGIN; {MIGRATIONS[0]}; PRAGMA user_version = 1; COMMIT;")
    old.execute(
        "INSERT INTO games (id, preset, turn_limit, level, bot_delay, turn_seconds, deal, first, started_at)"
        " VALUES (7, 'classic', 0, 'easy', 0.5, 30, 'R1 R2', 0, 1000.0)"
    )
    old.close()
    before = db.read_bytes()
    reader = Store(db, read_only=True)
    (game,) = reader.games()
    assert (game.id, game.game, game.variant) == (7, "notty", "classic")
    reader.close()
    assert db.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notty.db"]


def test_a_reader_leaves_no_side_files_behind_and_the_database_as_it_was(tmp_path: Path) -> None:
    """'games' and 'replay' left notty.db-wal and notty.db-shm beside a database no server had open."""
    db = tmp_path / "notty.db"
    Store(db).close()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notty.db"]
    before = db.read_bytes()
    reader = Store(db, read_only=True)
    assert reader.games() == []
    reader.close()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notty.db"]
    assert db.read_bytes() == before


def test_a_reader_beside_a_writer_leaves_the_writers_files_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "notty.db"
    Store(db).close()
    writer = Store(db)
    reader = Store(db, read_only=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader._db.execute("CREATE TABLE intruder (x)")
    reader.close()
    assert (tmp_path / "notty.db-wal").exists() and (tmp_path / "notty.db-shm").exists()
    writer.check_writable()  # the writer's files still work
    writer.close()


# -- permissions -------------------------------------------------------------------------------


@pytest.fixture
def umask() -> Iterator[None]:
    """The usual umask, whatever the test runner's: it lets group and others read what is made."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_new_database_and_everything_beside_it_are_the_users_alone(tmp_path: Path, umask: None) -> None:
    db = tmp_path / "made" / "by-notty" / "notty.db"
    store = Store(db, checkpoint_inline=False)
    lock = WriterLock.acquire(db)
    store.write([GameBegun(1, "notty", "classic", {}, 0.0, 0, (), ("R1",), 0)])
    assert (mode(tmp_path / "made"), mode(db.parent)) == (0o700, 0o700)
    files = {path.name: mode(path) for path in db.parent.iterdir()}
    assert files == {name: 0o600 for name in ("notty.db", "notty.db-wal", "notty.db-shm", "notty.db.lock")}
    store.close()
    lock.release()


def test_looser_files_are_tightened_when_a_server_opens_them(tmp_path: Path, umask: None) -> None:
    db = tmp_path / "notty.db"
    crashed = sqlite3.connect(db, isolation_level=None)  # left open: its -wal and -shm stay, as after a kill
    crashed.execute("PRAGMA journal_mode=WAL")
    crashed.executescript(f"{MIGRATIONS[0]}; PRAGMA user_version = 1;")  # notty's own, not another program's
    lock = lock_path(db)
    lock.write_text("")
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), lock):
        path.chmod(0o666)
    held = WriterLock.acquire(db)
    Store(db).close()
    assert {path.name: mode(path) for path in tmp_path.iterdir()} == {
        "notty.db": 0o600,
        "notty.db-wal": 0o600,
        "notty.db-shm": 0o600,
        "notty.db.lock": 0o600,
    }
    held.release()
    crashed.close()


def test_the_default_directory_is_made_private_and_a_named_one_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: None
) -> None:
    monkeypatch.setattr(cli.trio, "run", lambda *args: None)  # everything up to serving
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    own = tmp_path / "data" / "notty"
    own.mkdir(parents=True, mode=0o755)
    assert cli.main(["--port", "0"]) == 0
    assert (mode(own), mode(own / "notty.db")) == (0o700, 0o600)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o1777)  # like /tmp
    assert cli.main(["--port", "0", "--db", str(shared / "notty.db")]) == 0
    assert (mode(shared), mode(shared / "notty.db")) == (0o1777, 0o600)
    new = tmp_path / "new" / "notty"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "new"))
    assert cli.main(["--port", "0"]) == 0
    assert (mode(tmp_path / "new"), mode(new)) == (0o700, 0o700)


# -- the file deleted or replaced under a running server ----------------------------------------


def _begun(table: int) -> GameBegun:
    return GameBegun(table, "notty", "classic", {}, 0.0, 0, (), ("R1",), 0)


def test_a_database_deleted_with_its_folder_is_made_again_the_users_alone_with_every_change(
    tmp_path: Path, umask: None, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "notty"
    db = folder / "notty.db"
    store = Store(db)
    store.write([_begun(1), Moved(1, 1, 0, "draw 1", ("R1",))])
    shutil.rmtree(folder)  # the record's folder with it, and every side file
    with caplog.at_level(logging.WARNING, logger="notty.store"):
        store.write([Moved(1, 2, 1, "end", ())])
    assert f"the database {db} was deleted while the server ran: it is written again" in caplog.text
    assert mode(db) == 0o600 and mode(folder) == 0o700
    store.write([Moved(1, 3, 0, "end", ())])  # writing goes on in the file put back
    store.close()
    reader = Store(db, read_only=True)
    saved = reader.game(1)
    assert saved is not None and [move.action for move in saved.moves] == ["draw 1", "end", "end"]
    reader.close()
    assert sorted(path.name for path in folder.iterdir()) == ["notty.db"]  # no copy, no side file left


def test_a_database_that_cannot_be_copied_yet_refuses_each_write_in_words_and_keeps_trying(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "notty"
    db = folder / "notty.db"
    store = Store(db)
    store.write([_begun(1)])
    shutil.rmtree(folder)
    folder.write_text("a file where the folder was")  # (a mode would not stop root)
    for _ in range(2):  # said at every write, tried again at each
        with pytest.raises(StoreError) as refused:
            store.write([Moved(1, 1, 0, "end", ())])
        assert str(refused.value) == (
            "the database was deleted while the server ran, and no copy of it could be made yet "
            "(not a directory)"
        )
    folder.unlink()  # the way clear again
    store.write([Moved(1, 1, 0, "end", ())])
    store.close()
    assert _moves(db) == ["end"]


def _deleted_after_a_move(tmp_path: Path) -> tuple[Path, Store]:
    """A store whose game 1 has one move ('draw 1'), its database file deleted since."""
    db = tmp_path / "notty.db"
    store = Store(db)
    store.write([_begun(1), Moved(1, 1, 0, "draw 1", ("R1",))])
    db.unlink()
    return db, store


def _moves(path: Path, table: int = 1) -> list[str]:
    reader = Store(path, read_only=True)
    try:
        saved = reader.game(table)
        return [] if saved is None else [move.action for move in saved.moves]
    finally:
        reader.close()


def test_a_database_replaced_is_never_written_and_the_games_kept_beside_it_are_all_there(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The checkpoint connection, opened by name each second, took the file put in its place for ours:
    # it wrote our log into it and lost our newest moves.
    db, other = tmp_path / "notty.db", tmp_path / "other.db"
    store = Store(db, checkpoint_inline=False)
    store.write([_begun(1)])
    store.write([Moved(1, n, 0, f"draw {n}", ("R1",)) for n in (1, 2)])
    store.checkpoint()
    store.write([Moved(1, 3, 0, "end", ())])  # in the log alone
    Store(other).close()
    other.replace(db)
    replacement = db.read_bytes()
    store.checkpoint()
    with pytest.raises(StoreError) as refused:
        store.write([Moved(1, 4, 0, "end", ())])
    assert str(refused.value) == (  # what players are told: a few words, no path of the server's
        "the database was replaced by another file while the server ran; its games are kept in a copy"
    )
    store.close()
    (kept,) = tmp_path.glob("notty.db.kept-*")
    said = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert said == [  # the operator's
        f"{refused.value} ({db}): the file there is left alone, the games until then kept in {kept}: start "
        "the server on that; the server records nothing more"
    ]
    assert sorted(tmp_path.iterdir()) == sorted([db, kept])  # our -wal and -shm taken from beside it
    assert db.read_bytes() == replacement and _moves(db) == []  # left alone, and readable as it was
    assert _moves(kept) == ["draw 1", "draw 2", "end"]  # every write acknowledged


def test_a_database_replaced_with_its_own_log_is_left_alone_log_and_all(tmp_path: Path) -> None:
    db = tmp_path / "notty.db"
    store = Store(db, checkpoint_inline=False)
    store.write([_begun(1), Moved(1, 1, 0, "draw 1", ("R1",))])
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    writer = Store(theirs / "notty.db", checkpoint_inline=False)  # a server's, with changes in its log
    writer.write([_begun(7), Moved(7, 1, 0, "end", ())])
    moved = {name: (theirs / name).read_bytes() for name in ("notty.db", "notty.db-wal")}
    writer._db.close()  # as a crash leaves it (no checkpoint, the log kept)
    for name, data in moved.items():  # moved over ours, the log too
        (tmp_path / f"{name}.new").write_bytes(data)
        (tmp_path / f"{name}.new").replace(tmp_path / name)
    store.checkpoint()
    with pytest.raises(StoreError):
        store.write([Moved(1, 2, 0, "end", ())])
    store.close()
    assert {name: (tmp_path / name).read_bytes() for name in moved} == moved
    assert _moves(db, 7) == ["end"]
    (kept,) = tmp_path.glob("notty.db.kept-*")
    assert _moves(kept) == ["draw 1"]


def test_a_database_put_back_is_locked_again_its_lock_file_with_it(tmp_path: Path) -> None:
    folder = tmp_path / "notty"
    db = folder / "notty.db"
    folder.mkdir()
    lock = WriterLock.acquire(db)
    store = Store(db)
    lock.hold_database()
    store.put_back_hook = lock.renew  # (with the copy, locked before it takes the name)
    store.write([_begun(1)])
    shutil.rmtree(folder)  # the lock file with it
    store.write([Moved(1, 1, 0, "end", ())])
    with pytest.raises(LockError):  # a second server started now is refused, as ever
        WriterLock.acquire(db)
    store.close()
    lock.release()
    WriterLock.acquire(db).release()  # and free once this one stops


def test_where_the_file_system_has_no_hard_links_the_copy_is_renamed_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, store = _deleted_after_a_move(tmp_path)

    def no_links(source: object, target: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    store.write([Moved(1, 2, 0, "end", ())])
    store.close()
    assert _moves(db) == ["draw 1", "end"] and not list(tmp_path.glob("*.kept-*"))


def test_a_database_deleted_that_cannot_be_copied_yet_is_tried_again_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A review: a full disk made the loss for good, and the log said to stop the server, which
    # closed the only file that still held the games.
    db, store = _deleted_after_a_move(tmp_path)
    full = sqlite3.OperationalError("database or disk is full")

    def no_room(*_: object) -> None:
        raise full

    monkeypatch.setattr(store_module, "_sync_file", no_room)  # the copy made, then found short
    for _ in range(3):
        with pytest.raises(
            StoreError, match="no copy of it could be made yet \\(database or disk is full\\)"
        ):
            store.write([Moved(1, 2, 0, "end", ())])
    assert not db.exists() and not list(tmp_path.glob("*.kept-*"))  # no partial copy, no empty record
    assert sum("do not stop the server" in record.getMessage() for record in caplog.records) == 1
    monkeypatch.undo()  # room again
    store.write([Moved(1, 2, 0, "end", ())])
    store.close()
    assert _moves(db) == ["draw 1", "end"]


def test_a_name_gone_again_as_the_copy_takes_it_leaves_the_copy_and_never_an_empty_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, store = _deleted_after_a_move(tmp_path)
    placed = store_module._place

    def and_gone(copy: Path, real: Path) -> None:
        placed(copy, real)
        real.unlink()  # deleted again, at once

    monkeypatch.setattr(store_module, "_place", and_gone)
    with pytest.raises(StoreError, match="could not be opened again"):
        store.write([Moved(1, 2, 0, "end", ())])
    store.close()
    (kept,) = tmp_path.glob("notty.db.kept-*")
    assert not db.exists() and _moves(kept) == ["draw 1"]


def test_a_link_to_the_database_removed_leaves_its_file_written_where_it_is(tmp_path: Path) -> None:
    real, link = tmp_path / "real" / "notty.db", tmp_path / "link.db"
    real.parent.mkdir()
    store = Store(real)
    store.close()
    link.symlink_to(real)
    store = Store(link)
    store.write([_begun(1)])
    link.unlink()  # the link, not the file: a copy made at its name split the record in two
    store.write([Moved(1, 1, 0, "end", ())])
    store.close()
    assert not link.exists() and not list(tmp_path.rglob("*.kept-*")) and _moves(real) == ["end"]
