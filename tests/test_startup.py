"""Starting notty-server: one writer a database, and a port that is taken, each end in one line.

Real server processes, as an operator starts them. A start that cannot go on
writes one line to standard error and exits with status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ServerProcess, notty_server
from test_limits import has_ipv6_loopback

from protocol import PROTOCOL_VERSION, Connection, Hello, Sender
from server import cli
from server import lock as server_lock
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
    assert not lock_path(tmp_path / "other.db").exists()  # the refused one left no lock file
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


@contextlib.contextmanager
def _taken_port() -> Iterator[int]:
    """A port on 127.0.0.1 that another program listens on."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def _files(top: Path) -> dict[str, tuple[int, bytes]]:
    """Every file and directory under ``top``, with its mode and (a file's) contents."""
    return {
        str(path.relative_to(top)): (path.stat().st_mode, b"" if path.is_dir() else path.read_bytes())
        for path in sorted(top.rglob("*"))
    }


def test_a_server_that_cannot_listen_leaves_no_new_file_behind(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """It made its database, the lock file and the directories it was named in before it found the
    port taken, and left them all behind: a database nobody asked for, empty."""
    db = tmp_path / "new" / "deeper" / "notty.db"
    with _taken_port() as port:
        ran = notty_server("--host", "127.0.0.1", "--port", str(port), "--db", str(db))
    assert ran.returncode == 1
    assert "cannot listen on 127.0.0.1 port" in one_line(ran.stderr)
    assert list(tmp_path.iterdir()) == []
    servers.append(ServerProcess(db))  # and the next start, with the port free, makes them as before
    assert stat.S_IMODE(db.stat().st_mode) == 0o600 and stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_a_server_that_cannot_listen_leaves_an_existing_database_and_its_lock_file(
    tmp_path: Path, recorded: Path
) -> None:
    lock_path(recorded).touch(0o600)  # left by an earlier server, as every clean stop leaves it
    before = _files(tmp_path)
    with _taken_port() as port:
        ran = notty_server("--host", "127.0.0.1", "--port", str(port), "--db", str(recorded))
    assert ran.returncode == 1
    assert _files(tmp_path).keys() == before.keys()
    assert stat.S_IMODE(recorded.stat().st_mode) == 0o600
    listed = notty_server("games", "--db", str(recorded))
    assert listed.stdout.startswith("game 1: classic, greedy-1 vs random-2")
    lock_path(recorded).unlink()  # a database whose lock file this start made: that one goes
    with _taken_port() as port:
        notty_server("--host", "127.0.0.1", "--port", str(port), "--db", str(recorded))
    assert _files(tmp_path).keys() == before.keys() - {lock_path(recorded).name}


def test_a_lock_file_deleted_as_it_is_locked_is_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that cannot start deletes the lock file it made while it holds it: a second server
    that opened that file meanwhile, and locks it once it is free, would hold a file no other can
    find, so it locks the one the name names now."""
    db = tmp_path / "notty.db"
    first = WriterLock.acquire(db)
    assert first.made
    opens = 0
    private = server_lock._private

    def between_open_and_lock(fd: int) -> None:
        nonlocal opens
        opens += 1
        if opens == 1:  # the second has the file open: the first, which could not start, lets go
            first.discard()
            assert not lock_path(db).exists()
        private(fd)

    monkeypatch.setattr(server_lock, "_private", between_open_and_lock)
    second = WriterLock.acquire(db)
    assert opens == 2  # the file it locked first was gone: it opened the one the name names now
    assert second._fd is not None
    held, named = os.fstat(second._fd), os.stat(lock_path(db))
    assert (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino) and second.made
    monkeypatch.setattr(server_lock, "_private", private)
    with pytest.raises(LockError, match="in use by"):
        WriterLock.acquire(db)
    second.release()
    third = WriterLock.acquire(db)
    assert not third.made  # an existing lock file stays when its holder cannot start
    third.discard()
    assert lock_path(db).exists()


def test_host_takes_an_ipv6_address_in_brackets_as_the_client_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for given, host in [("[::1]", "::1"), ("::1", "::1"), ("[fe80::1%lo]", "fe80::1%lo"), ("lan", "lan")]:
        assert cli._parser().parse_args(["--host", given]).host == host
    for bad in ("[::1", "[::1]:4008", "[localhost]", "[]"):
        with pytest.raises(SystemExit) as ended:
            cli._parser().parse_args(["--host", bad])
        assert ended.value.code == 2
        assert "brackets hold an IPv6 address, such as [::1]; the port is --port" in capsys.readouterr().err
    for given, host in [("127.0.0.1:4008", "127.0.0.1"), ("lan:80", "lan")]:  # it was looked up as a name
        with pytest.raises(SystemExit):
            cli._parser().parse_args(["--host", given])
        port = given.rpartition(":")[2]
        said = f"{given!r}: the port is not part of --host: give --host {host} --port {port}"
        assert said in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["--host", ":4008"])
    assert "give --port 4008 alone (every interface)" in capsys.readouterr().err


@pytest.mark.skipif(not has_ipv6_loopback(), reason="no IPv6 loopback here")
def test_a_server_listens_on_an_ipv6_address_given_in_brackets(tmp_path: Path) -> None:
    with serving("--host", "[::1]", "--port", "0", "--db", str(tmp_path / "n.db")) as log:
        (port,) = re.findall(r"listening on \[::1\]:(\d+)", "".join(log))
        socket.create_connection(("::1", int(port)), timeout=5).close()


@contextlib.contextmanager
def serving(*args: str, **options: Any) -> Iterator[list[str]]:
    """A real notty-server run with ``args`` (and ``options`` for Popen): its log until it serves."""
    with server_process(*args, **options) as (_, log):
        yield log


@contextlib.contextmanager
def server_process(*args: str, **options: Any) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """:func:`serving`, with the process."""
    command = [str(Path(sys.executable).parent / "notty-server"), *args]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, **options) as process:
        assert process.stderr is not None
        try:
            log = []
            for line in process.stderr:
                log.append(line)
                if "recording games in" in line:  # said once it listens
                    break
            else:
                raise AssertionError("notty-server did not start:\n" + "".join(log))
            yield process, log
        finally:
            process.terminate()
            process.wait(timeout=10)


# -- the open-file limit -------------------------------------------------------------------------

FILES = 256
HARD_FILES = resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def _few_open_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))


def _few_open_files_unless_raised() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, HARD_FILES))


def _open_file_limit(pid: int) -> int:
    """The soft limit of a running process, as Linux shows it."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError(f"no open-file limit for process {pid}")


@pytest.mark.skipif(
    HARD_FILES != resource.RLIM_INFINITY and HARD_FILES < FILES, reason=f"no {FILES} open files here"
)
@pytest.mark.parametrize(("connections", "warned"), [(2000, True), (FILES - 31, True), (FILES - 32, False)])
def test_more_connections_than_open_files_allow_is_warned_of_at_the_start(
    tmp_path: Path, connections: int, warned: bool
) -> None:
    """Each connection holds a file, and past the limit connections wait unaccepted rather than being
    turned away as server-full: whoever starts the server should know it then, not under load."""
    args = ("--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "n.db"))
    with serving(*args, "--max-connections", str(connections), preexec_fn=_few_open_files) as log:
        about_it = [line for line in log if "ulimit" in line]
    assert "Traceback" not in "".join(log)
    if not warned:
        assert about_it == [], log
        return
    assert len(about_it) == 1, log
    said = about_it[0]
    assert (
        f"--max-connections is {connections} but this process may have only {FILES} files open "
        f"(its hard limit, ulimit -Hn, is {FILES})" in said
    )
    assert (
        f"past {FILES - 32} connections, new ones wait unaccepted. Raise the limit to {connections + 32} "
        in said
    )
    assert said.rstrip().endswith("or lower --max-connections")


@pytest.mark.skipif(
    not Path("/proc/self/limits").exists() or (HARD_FILES != resource.RLIM_INFINITY and HARD_FILES < 2032),
    reason="needs Linux's /proc and a hard limit of 2032 open files",
)
def test_a_soft_open_file_limit_below_the_connections_is_raised_up_to_the_hard_one(tmp_path: Path) -> None:
    """A soft limit of 1024 is common and the default is 2000 connections: the server raises it itself
    (as far as the hard limit allows) rather than warn at every start."""
    args = ("--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "n.db"))
    with server_process(*args, "--max-connections", "2000", preexec_fn=_few_open_files_unless_raised) as (
        process,
        log,
    ):
        assert _open_file_limit(process.pid) == 2032
    assert not [line for line in log if "ulimit" in line], log


class _MacLimits:
    """``resource`` as macOS has it: an unlimited hard limit, but no soft limit above its own maximum."""

    RLIMIT_NOFILE = resource.RLIMIT_NOFILE
    RLIM_INFINITY = resource.RLIM_INFINITY

    def __init__(self, soft: int, most: int) -> None:
        self.soft, self.most = soft, most

    def getrlimit(self, which: int) -> tuple[int, int]:
        return self.soft, self.RLIM_INFINITY

    def setrlimit(self, which: int, limits: tuple[int, int]) -> None:
        if limits[0] > self.most:
            raise ValueError("current limit exceeds maximum limit")
        self.soft = limits[0]


def test_a_system_that_refuses_the_whole_soft_limit_gives_as_much_as_it_allows(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    limits = _MacLimits(256, 10_240)
    monkeypatch.setattr(cli, "resource", limits)
    cli._room_for_connections(2000)
    assert limits.soft == 2032 and not caplog.records  # enough: raised, and nothing to say
    cli._room_for_connections(20_000)
    assert limits.soft == 10_240  # the most it allows, not 2032 because 20032 was refused
    (said,) = [record.getMessage() for record in caplog.records]
    assert f"may have only {limits.soft} files open (the system refused more)" in said
    assert "kern.maxfilesperproc" in said


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


def test_the_log_writes_addresses_as_people_type_them(tmp_path: Path, servers: list[ServerProcess]) -> None:
    servers.append(server := ServerProcess(tmp_path / "notty.db"))
    assert f"listening on 127.0.0.1:{server.port}\n" in server.log[-1]  # not ('127.0.0.1', 4008)
    with socket.create_connection(("127.0.0.1", server.port)) as connection:
        client_port = connection.getsockname()[1]
        connection.sendall(Connection(Sender.CLIENT).send(Hello(PROTOCOL_VERSION, "ann")))
        time.sleep(0.3)  # taken in
    server.stop()
    assert server.process.stderr is not None
    log = server.process.stderr.read()
    assert f" connection 1 from 127.0.0.1:{client_port}\n" in log
    assert " connection 1 is ann\n" in log  # who it is, once it says


def test_a_second_signal_while_the_server_stops_is_said_not_lost(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    servers.append(server := ServerProcess(tmp_path / "notty.db"))
    with socket.create_connection(("127.0.0.1", server.port)) as connection:  # never goes: the stop waits
        connection.sendall(Connection(Sender.CLIENT).send(Hello(PROTOCOL_VERSION, "ann")))
        time.sleep(0.3)
        server.process.send_signal(signal.SIGINT)
        time.sleep(0.3)
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=10) == 0
    assert server.process.stderr is not None
    log = server.process.stderr.read()
    assert "SIGINT: telling clients and stopping\n" in log
    assert "SIGTERM: already stopping (it takes a second at most)\n" in log
    assert log.endswith(" stopped\n")
