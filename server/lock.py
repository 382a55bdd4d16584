"""One server writes a database at a time: an exclusive ``flock`` on ``<db>.lock``, held for its life.

Two servers on one database would both restore its unfinished games and hand
out the same table numbers. The lock is a side file rather than the database
itself, so readers (``notty-server games``, ``replay``) never wait on it. The
kernel drops an ``flock`` when its holder dies, even by ``SIGKILL``, so a file
left behind by a crash never keeps the next server out. The file is deleted only
by a server that made it and could not start (:meth:`WriterLock.discard`), which
leaves no file behind, and only while it still holds the lock. Unlinking a lock
file could let two processes each lock a file of that name, so whoever takes the
lock then checks that the name still names the file it locked, and tries again
if not.

The holder writes who it is into the file, so the refused server can say which
server to stop.

A hard link gives the database a second name, and so a second ``<db>.lock``: the
holder also locks the database file itself (its inode, whatever its name) with
an ``flock``, which SQLite's own locks (``fcntl``) neither take nor wait on.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

#: Tries at opening and locking the lock file while others delete it (only a server that could not
#: start does): a bound, so that no file system can keep a start looping.
LOCK_TRIES = 100


class LockError(Exception):
    """The database is another server's, or its lock file cannot be used."""


def lock_path(database: str | os.PathLike[str]) -> Path:
    """``<db>.lock`` beside the database, the link-free path: every name for one file locks one file."""
    resolved = Path(database).resolve()
    return resolved.with_name(resolved.name + ".lock")


@attrs.frozen
class Holder:
    """Who holds a database, as written into its lock file."""

    pid: int
    host: str
    since: float  # seconds since the epoch
    listening: tuple[str, ...] = ()  # "address:port" of each listener, once bound

    def describe(self) -> str:
        where = f", listening on {', '.join(self.listening)}" if self.listening else ""
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        return f"notty-server pid {self.pid} on {self.host}{where}, since {since}"

    def text(self) -> str:
        return json.dumps(attrs.asdict(self), separators=(",", ":")) + "\n"

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        """The holder a lock file names; None if it names none (empty, or half written)."""
        try:
            fields = json.loads(text)
            return cls(
                int(fields["pid"]),
                str(fields["host"]),
                float(fields["since"]),
                tuple(str(address) for address in fields.get("listening", ())),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


class WriterLock:
    """The right to write one database: :meth:`acquire` it before opening the store to serve."""

    def __init__(self, database: Path, path: Path, fd: int, holder: Holder, made: bool = False) -> None:
        self.database = database
        self.path = path
        self.holder = holder
        self.made = made  # this lock made its file, which it deletes if its server cannot start
        self._fd: int | None = fd
        self._database_fd: int | None = None  # the database file's own lock, once it exists

    @classmethod
    def acquire(
        cls, database: str | os.PathLike[str], *, clock: Callable[[], float] = time.time
    ) -> WriterLock:
        """Lock ``database`` for this process, or raise :class:`LockError` naming whoever holds it."""
        database = Path(database)
        path = lock_path(database)
        for _ in range(LOCK_TRIES):
            fd, made = _open(database, path)
            try:
                _private(fd)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                holder = None
                if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    with contextlib.suppress(OSError):
                        holder = Holder.parse(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
                os.close(fd)
                if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise LockError(
                        f"cannot use the database {database}: cannot lock {path} ({_reason(error)})"
                    ) from error
                who = holder.describe() if holder else "another notty-server (it has not said which yet)"
                raise LockError(
                    f"cannot use the database {database}: it is in use by {who}: "
                    "stop that server first, or give this one another --db"
                ) from None
            if _names(path, fd):
                break
            os.close(fd)  # deleted as it was locked, by a server that could not start: the next one
        else:
            raise LockError(
                f"cannot use the database {database}: cannot lock {path} (it keeps being replaced)"
            )
        lock = cls(database, path, fd, Holder(os.getpid(), socket.gethostname(), clock()), made)
        if database.exists():
            try:
                lock.hold_database()
            except LockError:
                lock.discard()  # refused: the lock file made for this name goes too
                raise
        try:
            lock._write()
        except OSError as error:  # a full disk, most likely: found now rather than at the first game
            lock.discard()
            raise LockError(
                f"cannot use the database {database}: it cannot be written: "
                f"cannot write its lock file {path} ({_reason(error)})"
            ) from error
        return lock

    def hold_database(self) -> None:
        """Lock the database file itself (see the module's docstring): at once if it exists, else
        as soon as the store has made it. :class:`LockError` if a server holds it under another name."""
        if self._database_fd is None:
            self._hold(self.database)

    def _hold(self, file: Path) -> None:
        try:
            fd = os.open(file, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as error:
            why = "it cannot be read" if error.errno in (errno.EACCES, errno.EPERM) else "it cannot be opened"
            raise LockError(
                f"cannot use the database {self.database}: {why} ({_reason(error)}: see its permissions)"
            ) from error
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise LockError(
                    f"cannot use the database {self.database}: cannot lock it ({_reason(error)})"
                ) from error
            raise LockError(
                f"cannot use the database {self.database}: it is in use by another notty-server, "
                "under another name (a hard link to the same file): stop that server first, "
                "or give this one another --db"
            ) from None
        self._database_fd = fd

    def renew(self, file: Path) -> None:
        """Lock ``file``, a copy about to take the place of the database deleted under this server,
        before it does (the same file then: no second server starts on it meanwhile); and a new lock
        file where that went too (its folder deleted). :class:`LockError` if another server holds
        the database's name now."""
        if self._fd is None or not _names(self.path, self._fd):
            fresh = WriterLock.acquire(self.database)  # (the database's name has no file now)
            holder = self.holder
            self.release()
            self._fd, self._database_fd, self.made = fresh._fd, fresh._database_fd, fresh.made
            fresh._fd = fresh._database_fd = None
            self.holder = holder  # (this server's, with where it listens)
            with contextlib.suppress(OSError):
                self._write()
        if self._database_fd is not None:  # the deleted file's
            os.close(self._database_fd)
            self._database_fd = None
        self._hold(file)

    def describe(self, listening: Sequence[str]) -> None:
        """Name the addresses this server listens on, for whoever is refused next. Only a courtesy:
        a failure to write it leaves the last description, and the lock held."""
        self.holder = attrs.evolve(self.holder, listening=tuple(listening))
        if self._fd is not None:
            with contextlib.suppress(OSError):
                self._write()

    def discard(self) -> None:
        """Unlock, deleting the lock file if this lock made it: a server that could not start leaves no
        file behind. Deleted while still locked, so that whoever opened it meanwhile finds, once it
        holds it, that the name names it no longer, and tries again (see :meth:`acquire`)."""
        if self._fd is not None and self.made and _names(self.path, self._fd):
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        self.release()

    def release(self) -> None:
        """Unlock (the file stays: see the module's docstring). Closing the descriptor is what unlocks."""
        if self._database_fd is not None:
            os.close(self._database_fd)
            self._database_fd = None
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # no stale description for anyone to read
        os.close(fd)

    def _write(self) -> None:
        """Overwrite the description: the new text first, then cut what was longer, so a reader never sees
        an empty file between two holders."""
        assert self._fd is not None
        data = self.holder.text().encode()
        os.pwrite(self._fd, data, 0)
        os.ftruncate(self._fd, len(data))

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _open(database: Path, path: Path) -> tuple[int, bool]:
    """The lock file, opened to write, and whether this made it. Never ``O_TRUNC``: until the lock is
    ours, what the file says is the holder's."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        for _ in range(LOCK_TRIES):
            try:
                return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600), True
            except FileExistsError:
                pass
            with contextlib.suppress(FileNotFoundError):  # deleted meanwhile (WriterLock.discard)
                return os.open(path, flags), False
    except OSError as error:
        raise LockError(
            f"cannot use the database {database}: it cannot be written: "
            f"cannot open its lock file {path} ({_reason(error)})"
        ) from error
    raise LockError(f"cannot use the database {database}: cannot open {path} (it keeps being deleted)")


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` names the file open as ``fd`` (not another, nor none)."""
    try:
        named = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _private(fd: int) -> None:
    """The lock file names this server's pid and addresses: the user's alone, as the database is."""
    mode = os.fstat(fd).st_mode & 0o777
    if mode != 0o600:
        with contextlib.suppress(PermissionError):  # someone else's file that we may write: theirs to set
            os.fchmod(fd, 0o600)


def _reason(error: OSError) -> str:
    text = error.strerror or str(error)
    return text[:1].lower() + text[1:]
