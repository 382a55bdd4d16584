"""Starting notty-server: one writer a database, and a port that is taken, each end in one line.

Real server processes, as an operator starts them. A start that cannot go on
writes one line to standard error and exits with status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import time
from pathlib import Path

import pytest
from conftest import ServerProcess, notty_server

from server import cli
from server.lock import Holder, LockError, WriterLock, lock_path

SERVE = ("--host", "127.0.0.1", "--port", "0")


def one_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def described(db: Path, port: int) -> dict[str, object]:
    """The lock file's description, once it names the port (written just after the log says it)."""
    deadline = time.monotonic() + 10
    while True:
        text = lock_path(db).read_text()
        # Read while it is rewritten, the file may hold the new text and the old one's tail: a reader
        # retries, as the server's own (Holder.parse) gives up on it.
        if (f":{port}" in text and Holder.parse(text) is not None) or time.monotonic() > deadline:
            holder: dict[str, object] = json.loads(text)
            return holder
        time.sleep(0.01)


# -- one writer ----------------------------------------------------------------------------------


def test_a_second_server_on_the_database_is_refused_naming_the_first_and_readers_still_read(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    db = tmp_path / "notty.db"
    servers.append(first := ServerProcess(db))
    holder = described(db, first.port)
    assert (holder["pid"], holder["host"], holder["listening"]) == (
        first.process.pid,
        socket.gethostname(),
        [f"127.0.0.1:{first.port}"],
    )
    (tmp_path / "link.db").symlink_to(db)
    for name in ("notty.db", "link.db"):  # another name for the file is the same database
        second = notty_server(*SERVE, "--db", str(tmp_path / name))
        assert second.returncode == 1
        line = one_line(second.stderr)
        who = f"notty-server pid {first.process.pid}"
        assert f"cannot use the database {tmp_path / name}: it is in use by {who} " in line
        assert f" on {socket.gethostname()}, listening on 127.0.0.1:{first.port}, since 20" in line
        assert line.endswith("stop that server first, or give this one another --db")
    listed = notty_server("games", "--db", str(db))  # readers take no lock
    assert (listed.returncode, listed.stdout) == (0, "no games recorded yet\n")
    assert first.process.poll() is None


def test_a_second_server_on_a_hard_link_to_the_database_is_refused(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """A hard link is another name with its own ``<db>.lock``: the second server wrote the same
    file, and the games the first acknowledged were lost."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    db, link = tmp_path / "a" / "notty.db", tmp_path / "b" / "notty.db"
    servers.append(first := ServerProcess(db))  # a new database: locked once the store has made it
    described(db, first.port)
    os.link(db, link)
    second = notty_server(*SERVE, "--db", str(link))
    assert second.returncode == 1
    line = one_line(second.stderr)
    assert line.endswith(
        f"cannot use the database {link}: it is in use by another notty-server, under another name "
        "(a hard link to the same file): stop that server first, or give this one another --db"
    )
    assert first.process.poll() is None
    first.stop()
    servers.append(third := ServerProcess(link))  # once it has stopped, the file is free by any name
    described(link, third.port)


def test_the_database_file_itself_is_locked_under_every_name(tmp_path: Path) -> None:
    db = tmp_path / "notty.db"
    db.touch()
    os.link(db, tmp_path / "other.db")
    lock = WriterLock.acquire(db)
    with pytest.raises(LockError, match="under another name"):
        WriterLock.acquire(tmp_path / "other.db")
    assert not lock_path(tmp_path / "other.db").read_text()  # the refused one left no description
    lock.release()
    WriterLock.acquire(tmp_path / "other.db").release()


def test_a_server_killed_with_sigkill_does_not_keep_the_next_one_out(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    db = tmp_path / "notty.db"
    servers.append(first := ServerProcess(db))
    described(db, first.port)
    first.kill()
    assert lock_path(db).read_text()  # the crash left its description behind: it does not matter
    servers.append(second := ServerProcess(db))
    assert described(db, second.port)["pid"] == second.process.pid
    second.stop()
    assert lock_path(db).read_text() == ""  # a clean stop leaves no description


def test_the_lock_is_one_holders_at_a_time_and_says_whose_it_is(tmp_path: Path) -> None:
    db = tmp_path / "notty.db"
    lock = WriterLock.acquire(db, clock=lambda: 0.0)
    lock.describe(["0.0.0.0:4008", "[::]:4008"])
    with pytest.raises(LockError) as refused:
        WriterLock.acquire(db)  # a second open file, as a second process has: flock refuses it too
    who = f"notty-server pid {os.getpid()} on {socket.gethostname()}"
    assert f"in use by {who}, listening on 0.0.0.0:4008, " in str(refused.value)
    assert "[::]:4008, since " in str(refused.value)
    lock.release()
    WriterLock.acquire(db).release()


def test_a_lock_file_that_names_nobody_yet_is_still_respected(tmp_path: Path) -> None:
    db = tmp_path / "notty.db"
    lock = WriterLock.acquire(db)
    lock_path(db).write_text('{"pid": 12')  # as if read half written
    with pytest.raises(LockError, match="in use by another notty-server"):
        WriterLock.acquire(db)
    lock.release()


# -- the port ------------------------------------------------------------------------------------


def test_a_port_in_use_ends_the_server_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ran = notty_server("--host", "127.0.0.1", "--port", str(port), "--db", str(tmp_path / "notty.db"))
    assert ran.returncode == 1
    line = one_line(ran.stderr)
    assert line.endswith(
        f" notty.server cannot listen on 127.0.0.1 port {port}: address already in use "
        "(another program holds it: stop it, or pick another --port)"
    )
    WriterLock.acquire(tmp_path / "notty.db").release()  # the lock went with the process


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--name", ""], "--name must be 1 to 64 printable characters"),
        (["--name", "x" * 65], "--name must be 1 to 64 printable characters"),
        (["--name", "tab\there"], "--name must be 1 to 64 printable characters"),
        (["--grace", "nan"], "--grace must be 0 or more"),
        (["--grace", "-1"], "--grace must be 0 or more"),
    ],
)
def test_a_bad_flag_is_a_usage_error_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    with pytest.raises(SystemExit) as ended:
        cli.main(["--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "n.db"), *args])
    assert ended.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "n.db").exists()  # refused before the database was touched


@pytest.mark.parametrize("game", ["0", "-3", "x", "9" * 25, str(2**63)])
def test_a_game_number_no_record_can_hold_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    with pytest.raises(SystemExit) as ended:
        cli.main(["replay", game, "--db", str(tmp_path / "n.db")])
    assert (
        ended.value.code == 2
        and "is not a game's number: see 'notty-server games'" in capsys.readouterr().err
    )


def test_every_server_option_with_a_default_says_it_in_its_help() -> None:
    """--grace and --name did not (SERVER.md did)."""
    from server import cli

    for action in cli._parser()._actions:
        if action.option_strings and action.default not in (None, False, argparse.SUPPRESS) and action.help:
            assert "default" in action.help, action.option_strings
