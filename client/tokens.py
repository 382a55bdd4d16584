"""Seat tokens on disk, by server, name and table, so a client run again resumes its seat.

A seat is kept under the name it has at its table: the server makes names unique
at a table, so two clients of one user named ``ann`` at one table are ``ann`` and
``ann-2`` there, and each seat has a name of its own to be resumed by. One name
may hold seats at several tables (two games at once): the name alone then takes
back the one kept last, and a table each of the others. The file keeps a name's
only seat as the map a client before it wrote (``{"token": ..., "table": ...}``)
and several as a list of them, so files of either kind load. A client before
version 2 sharing the file sees none of a name's seats once it holds several,
and its next write of the file drops them (one seat per name it keeps).

A token is a secret (whoever holds it takes the seat), so the file is private:
mode 0600 in a 0700 directory. It is written whole to a temporary file and
renamed over the old one, so a crash mid-write leaves the old file or the new,
never half of one. Changes hold a lock on its folder while they read, change
and write, so clients of one user that save at once (a player and a
friend on one machine) do not undo each other's seat. A missing or corrupt file counts as empty: a
lost token costs a seat, which is far better than a client that will not start. A file that cannot
be read (no permission, not a plain file, far too big) is never written over, since the seats in it
may be good; nor is any kept where there is no home directory to keep them in.

A client sitting at a seat holds a lock on a file of that seat's (:class:`SeatLocks`), so that
another client run by the same user does not take the seat over unasked: the server gives a seat
to the newest connection that offers its token, and sends the older one away.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

try:
    import fcntl
except ImportError:  # not POSIX (Windows): changes go unlocked
    fcntl = None  # type: ignore[assignment]

#: The wire form of a seat token (``hello.token``); anything else on disk is ignored.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,64}")
_VERSION = 2  # 2: a name may hold a list of seats (at several tables); 1 held one
#: What the file holds, read: by server, by name (lower case), that name's seats, oldest first.
_Servers = dict[str, dict[str, list[dict[str, Any]]]]


@attrs.frozen
class StoredSeat:
    token: str
    table: int


#: The most of a seats file read: a seat takes about 100 bytes of it.
MAX_FILE_BYTES = 1 << 20
#: Why no seat is kept where there is no home directory.
NO_HOME = (
    "there is no home directory to keep it in (HOME is not set, or not a full path;"
    " XDG_STATE_HOME would say where)"
)


def default_path() -> Path | None:
    """``$XDG_STATE_HOME/notty/seats.json``: tokens are state, not configuration (XDG base dirs).
    None where there is no home (no HOME, and a user id the password database does not know, as in
    a container): ``Path.home()`` ended the client with a RuntimeError."""
    state = os.environ.get("XDG_STATE_HOME", "")
    if os.path.isabs(state):
        return Path(state) / "notty" / "seats.json"
    home = os.path.expanduser("~")
    return Path(home) / ".local" / "state" / "notty" / "seats.json" if os.path.isabs(home) else None


def server_key(host: str, port: int) -> str:
    """``host:port`` spelt one way, so ``LOCALHOST:4008`` finds the seat ``localhost:4008`` saved."""
    host = host.strip().strip("[]").rstrip(".").lower()
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class SeatStore:
    """The seats this user holds, by server, by the name they play under there, and by table.

    Keyed by name too, so two clients of one user on one server (a player and
    a friend on the same machine) do not take each other's seat; by table too,
    so one name's games at two tables at once are both kept.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.locks = SeatLocks(None if self.path is None else self.path.parent / "in-use")
        #: Why the file could not be read when last asked (None: it was, or there is none yet).
        self.unreadable: str | None = None

    def seats(self, server: str, name: str) -> list[StoredSeat]:
        """Every seat kept under ``name`` on ``server``, oldest first."""
        entries = self._read().get(server, {}).get(name.lower(), [])
        return [StoredSeat(entry["token"], entry["table"]) for entry in entries]

    def get(self, server: str, name: str, table: int | None = None) -> StoredSeat | None:
        """The seat kept under ``name`` at ``table``; with no table, the one kept last (the others are
        taken back by their table)."""
        kept = [seat for seat in self.seats(server, name) if table is None or seat.table == table]
        return kept[-1] if kept else None

    def put(self, server: str, name: str, seat: StoredSeat) -> str | None:
        """Remember a seat, in place of any kept under ``name`` at its table (names are unique at a
        table, so that one is over); the reason if it could not be written (play goes on either way)."""
        with self._changing() as trouble:
            if trouble is not None:
                return trouble
            servers = self._read()
            if self.unreadable is not None:
                return f"{self.unreadable}, so it is left as it is"
            seats = servers.setdefault(server, {}).setdefault(name.lower(), [])
            seats[:] = [entry for entry in seats if entry["table"] != seat.table]
            seats.append({"token": seat.token, "table": seat.table})
            return self._write(servers)

    def forget(
        self, server: str, name: str, token: str | None = None, table: int | None = None
    ) -> list[StoredSeat]:
        """Drop the seats kept under ``name`` (only the one holding ``token``, if given: another client
        may have saved a newer one; only the one at ``table``, if given); those dropped."""
        if self.path is None or not self.path.exists():
            self._read()  # (what it leaves in ``unreadable``: why none is kept, where there is a reason)
            return []  # nothing kept: no folder to make, no lock to take
        with self._changing():  # without the lock, a forget is still worth trying
            servers = self._read()  # (none dropped from a file that cannot be read: it is not written)
            seats = servers.get(server, {})
            entries = seats.get(name.lower(), [])
            dropped = [
                entry
                for entry in entries
                if (token is None or entry["token"] == token) and (table is None or entry["table"] == table)
            ]
            if not dropped:
                return []
            entries[:] = [entry for entry in entries if entry not in dropped]
            if not entries:
                del seats[name.lower()]
            if not seats:
                del servers[server]
            self._write(servers)
            for entry in dropped:
                self.locks.discard(server, entry["token"])
            return [StoredSeat(entry["token"], entry["table"]) for entry in dropped]

    @contextlib.contextmanager
    def _changing(self) -> Iterator[str | None]:
        """Hold the lock for a read-change-write; yields why not (a write would fail too) or None."""
        if self.path is None:
            yield NO_HOME
            return
        if fcntl is None:
            yield None
            return
        try:
            self._make_folder()
            fd = os.open(self.path.parent, os.O_RDONLY)  # the folder: no lock file to leave behind
        except OSError as error:
            yield error.strerror or str(error)
            return
        try:
            with contextlib.suppress(OSError):  # a file system without locks (some network ones): unlocked
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield None
        finally:
            os.close(fd)  # closing releases the lock

    def _make_folder(self) -> None:
        assert self.path is not None
        make_private_directory(self.path.parent)

    def _read(self) -> _Servers:
        """What the file holds; empty if it holds nothing good, or cannot be read (``unreadable``
        then says why, and the file is not to be written over)."""
        self.unreadable = None
        if self.path is None:
            self.unreadable = f"no seats file: {NO_HOME}"
            return {}
        try:
            text = _small_file(self.path)
        except FileNotFoundError:
            return {}
        except OSError as error:
            self.unreadable = f"{self.path} could not be read ({error.strerror or error})"
            return {}
        try:
            data = json.loads(text.decode("utf-8"))
        except ValueError:  # corrupt: nothing in it to lose
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, dict):
            return {}
        clean: _Servers = {}
        for server, seats in servers.items():
            if not isinstance(seats, dict):
                continue
            for name, entries in seats.items():
                # One seat as a map (what every client wrote before version 2), or several as a list.
                for entry in entries if isinstance(entries, list) else [entries]:
                    if (
                        isinstance(entry, dict)
                        and isinstance(entry.get("token"), str)
                        and _TOKEN.fullmatch(entry["token"])
                        and type(entry.get("table")) is int
                        and entry["table"] > 0
                    ):
                        kept = clean.setdefault(server, {}).setdefault(name.lower(), [])
                        kept[:] = [seat for seat in kept if seat["table"] != entry["table"]]
                        kept.append({"token": entry["token"], "table": entry["table"]})
        return clean

    def _write(self, servers: _Servers) -> str | None:
        assert self.path is not None
        folder = self.path.parent
        try:
            self._make_folder()
            fd, temp = tempfile.mkstemp(dir=folder, prefix=".seats-", suffix=".tmp")  # mode 0600
        except OSError as error:
            return error.strerror or str(error)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                # A name's only seat as the map an earlier client reads; several as a list.
                shaped = {
                    server: {
                        name: entries[0] if len(entries) == 1 else entries for name, entries in seats.items()
                    }
                    for server, seats in servers.items()
                }
                json.dump({"version": _VERSION, "servers": shaped}, file, indent=1, sort_keys=True)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, self.path)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            return error.strerror or str(error)
        return None


def _small_file(path: Path) -> bytes:
    """The bytes of ``path``, a plain file of at most :data:`MAX_FILE_BYTES`; OSError if it is not one.
    A pipe there hung the client in ``open`` (deaf to SIGTERM), and a link to ``/dev/zero`` read
    until memory ran out."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a plain file")
        if info.st_size > MAX_FILE_BYTES:
            raise OSError(errno.EFBIG, f"over {MAX_FILE_BYTES:,} bytes")
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(MAX_FILE_BYTES + 1)
        if (
            len(data) > MAX_FILE_BYTES
        ):  # grown since: cut short, it would read as corrupt, and be written over
            raise OSError(errno.EFBIG, f"over {MAX_FILE_BYTES:,} bytes")
        return data
    finally:
        os.close(fd)


class SeatLocks:
    """The seats this user's clients sit at now: each client holds an exclusive lock on a file of
    its seat's (named by a hash of the server and token, never the token) while it sits there. The
    lock goes with its process, however it ends, so a seat left by a client killed is free again."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder  # None: no home to keep them in, so no seat is locked
        self._held: dict[Path, int] = {}  # lock file, its descriptor: the seats this client holds

    def _path(self, server: str, token: str) -> Path:
        assert self.folder is not None
        return self.folder / (hashlib.sha256(f"{server} {token}".encode()).hexdigest()[:32] + ".lock")

    def holder(self, server: str, token: str) -> int | None:
        """The process id of another client sitting at this seat (0 where it cannot be read), or None
        if none is."""
        if fcntl is None or self.folder is None:
            return None
        path = self._path(server, token)
        if path in self._held:
            return None
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None  # no file: nobody has sat there since it was forgotten
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.read(fd, 32).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else 0
        except OSError:
            return None  # a file system without locks: nobody can be said to hold it
        finally:
            os.close(fd)  # and the shared lock taken with it
        return None

    def hold(self, server: str, token: str) -> bool | None:
        """Lock this seat as ours while this client sits there; False if another client still holds
        it (one this client took the seat over from, not yet gone: asked again, it is then); None
        if no lock can be had here (no folder to write, no locks on its file system): not asked again."""
        if fcntl is None or self.folder is None:
            return None
        path = self._path(server, token)
        if path in self._held:
            return True
        try:
            make_private_directory(self.folder)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if not _same_file(fd, path):  # removed as we opened it: locked for nobody (try again)
                raise BlockingIOError(path)
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        except BlockingIOError:
            os.close(fd)
            return False
        except OSError:
            os.close(fd)
            return None
        self._held[path] = fd
        return True

    def discard(self, server: str, token: str) -> None:
        """A seat forgotten: its file goes, unless a client sits there still (or this one does)."""
        if fcntl is None or self.folder is None:
            return
        path = self._path(server, token)
        if path in self._held:
            return
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            path.unlink()
        except OSError:
            pass  # held: its client removes it as it leaves the seat
        finally:
            os.close(fd)

    def release(self, server: str, token: str) -> None:
        """The seat is given up (left, or its game over): its file goes, and its lock with it."""
        if self.folder is None:
            return  # none held
        path = self._path(server, token)
        fd = self._held.pop(path, None)
        if fd is None:
            return
        with contextlib.suppress(OSError):
            path.unlink()  # before the lock goes: nobody else can be holding it meanwhile
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def make_private_directory(folder: Path) -> None:
    """The folder and any missing parents 0700, as the XDG spec asks of a base directory it makes
    (``~/.local/state``): ``mkdir(parents=True)`` would make the parents 0755."""
    from server.store import make_directory  # as the server makes its database's

    make_directory(folder)
    with contextlib.suppress(OSError):  # not ours to change, perhaps; the files are 0600 anyway
        folder.chmod(0o700)
