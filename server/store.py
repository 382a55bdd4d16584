"""Every game in an embedded SQLite database, written as it happens, read back after a crash.

The shell writes each batch of :mod:`server.journal` records in one
transaction before it sends the replies that follow from them, so nothing a
client saw acknowledged can be lost. WAL mode with ``synchronous=NORMAL``: a
commit reaches the operating system before it returns, which survives the
server being killed (only a power cut can lose the last commits).

The schema's version is SQLite's ``user_version``; :data:`MIGRATIONS` takes
an older database forward on open, and a newer one is refused.

A server finds out as it starts, not at its first game, that the file is
damaged or cannot be written (:meth:`Store.check_writable`); readers open the
file read-only and never write it. The record names players and holds hashes
of their seat tokens, so its files are the user's alone (0600, directory 0700).
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import itertools
import json
import logging
import math
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import NoReturn

import attrs

from protocol import NAME, ProtocolError

from .journal import (
    AutopilotSet,
    GameBegun,
    GameOver,
    Moved,
    OptionsChanged,
    Record,
    Resigned,
    SavedGame,
    SeatLeft,
    SeatRecord,
    StandInSet,
    TimedOut,
)

#: Migration ``i`` takes a database from version ``i`` to ``i + 1``. Never edit one that has
#: shipped: databases out there are at its version.
MIGRATIONS: tuple[str, ...] = (
    # 1: the first release's record, of Notty games only.
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,          -- the table's number on the server
        preset TEXT NOT NULL,
        turn_limit INTEGER NOT NULL,
        level TEXT NOT NULL,
        bot_delay REAL NOT NULL,
        turn_seconds INTEGER NOT NULL,
        deal TEXT NOT NULL,              -- the shuffled deck, cards separated by spaces
        first INTEGER NOT NULL,
        started_at REAL NOT NULL,        -- seconds since the epoch
        ended_at REAL,                   -- NULL while the game is unfinished
        winner INTEGER,
        reason TEXT
    );
    CREATE TABLE seats (
        game INTEGER NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        bot TEXT,                        -- NULL for a human
        token_hash BLOB,                 -- sha256 of the seat token, never the token
        left_at REAL,                    -- when the human gave the seat up for good
        PRIMARY KEY (game, seat)
    );
    CREATE TABLE moves (
        game INTEGER NOT NULL REFERENCES games(id),
        number INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        outcome TEXT NOT NULL,           -- cards chance gave, separated by spaces; '' if none
        at REAL NOT NULL,
        PRIMARY KEY (game, number)
    );
    CREATE INDEX unfinished_games ON games(id) WHERE ended_at IS NULL;
    """,
    # 2: one server, many games. A game names its game and keeps its settings as the game's
    # options (JSON, keys sorted); every game before this was Notty, whose options are its level
    # and turn limit. ``deal`` and ``outcome`` now hold whatever tokens the game records (Notty:
    # cards), still separated by spaces.
    # The table is rebuilt, as SQLite's documentation lays out, rather than altered column by
    # column: DROP COLUMN and json_object need SQLite 3.35 or 3.38, which some Pythons lack.
    """
    CREATE TABLE games_v2 (
        id INTEGER PRIMARY KEY,          -- the table's number on the server
        game TEXT NOT NULL,              -- its name in games.GAMES
        variant TEXT NOT NULL,
        options TEXT NOT NULL,           -- the game's options, JSON with sorted keys
        bot_delay REAL NOT NULL,
        turn_seconds INTEGER NOT NULL,
        deal TEXT NOT NULL,              -- the deal's tokens (Notty: the shuffled deck), separated by spaces
        first INTEGER NOT NULL,
        started_at REAL NOT NULL,        -- seconds since the epoch
        ended_at REAL,                   -- NULL while the game is unfinished
        winner INTEGER,
        reason TEXT,
        ranking TEXT                     -- seats by place, first first (JSON); NULL: given up, or before v2
    );
    INSERT INTO games_v2 (id, game, variant, options, bot_delay, turn_seconds, deal, first, started_at,
                          ended_at, winner, reason)
        SELECT id, 'notty', preset, '{"level":"' || level || '","turn_limit":' || turn_limit || '}',
               bot_delay, turn_seconds, deal, first, started_at, ended_at, winner, reason
        FROM games;
    DROP TABLE games;
    ALTER TABLE games_v2 RENAME TO games;
    CREATE INDEX unfinished_games ON games(id) WHERE ended_at IS NULL;
    """,
    # 3: Notty has a no-progress rule, the option quiet_rounds (3 unless a table says otherwise).
    # Games recorded before it were played without it: they keep playing, and replay, with it off.
    # Every Notty record's options hold level and turn_limit, JSON with sorted keys and no spaces,
    # so quiet_rounds goes before turn_limit (plain text functions: no JSON1 needed).
    """
    UPDATE games SET options = replace(options, '"turn_limit":', '"quiet_rounds":0,"turn_limit":')
        WHERE game = 'notty' AND options NOT LIKE '%"quiet_rounds"%';
    """,
    # 4: autopilot and resigning. A seat whose player turned autopilot on keeps it across a
    # restart; a seat whose player resigned says after how many of the game's moves. A seat given
    # up with 'leave' now names, in ``bot``, the bot that played it on.
    """
    ALTER TABLE seats ADD COLUMN autopilot INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE seats ADD COLUMN resigned_after INTEGER;
    """,
    # 5: the options a table's creator chose, by name (JSON list, sorted): a bot standing in after
    # a restart leaves them alone, as it did before (a creator's "no turn limit" stays). NULL:
    # recorded before v5, not known.
    """
    ALTER TABLE games ADD COLUMN asked TEXT;
    """,
    # 6: the order of a game's resignations (0 for its first), which resigned_after cannot tell
    # when no move came between two of them; the result names them in it. NULL: before v6 (a
    # restored game then names those in seat order).
    """
    ALTER TABLE seats ADD COLUMN resigned_order INTEGER;
    """,
    # 7: how many of the game's moves came before a seat's player left for good, where a replay
    # says a bot took over. NULL: before v7 (the time it left, against the moves' times, tells).
    """
    ALTER TABLE seats ADD COLUMN left_after INTEGER;
    """,
    # 8: turns that ran out of time, where a bot played the rest: a replay says so. None are known
    # from before v8.
    """
    CREATE TABLE timeouts (
        game INTEGER NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        after INTEGER NOT NULL           -- the game's moves before the time ran out
    );
    CREATE INDEX timeouts_of_game ON timeouts(game);
    """,
    # 9: a bot playing for a person whose connection went, past the grace: a restart keeps it so
    # (the lobby's list showed the seat as a bot's, and showed it a person's after). None is known
    # from before v9: such a seat's person counts as just dropped, as it always did.
    """
    ALTER TABLE seats ADD COLUMN stand_in INTEGER NOT NULL DEFAULT 0;
    """,
    # 10: why a bot made a move on a person's seat (journal.PLAYED_BY), which a replay says: their
    # 'auto' or autopilot, a stand-in while they were away. '' before v10, where the seat's
    # resignation, leaving and timeouts still tell.
    """
    ALTER TABLE moves ADD COLUMN played_by TEXT NOT NULL DEFAULT '';
    """,
    # 11: which record this is, made at random once: the seat tokens a server gives begin with it,
    # so that one offered to a server started on another database is told so, and kept (it was
    # told its game was gone, and its client forgot it).
    """
    CREATE TABLE record (id TEXT NOT NULL);
    INSERT INTO record (id) VALUES (lower(hex(randomblob(6))));
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

log = logging.getLogger("notty.store")


class StoreError(Exception):
    """The database cannot be used (unreadable, damaged, not writable, not ours, or from a newer notty)."""


@attrs.frozen
class GameSummary:
    id: int
    game: str
    variant: str
    names: tuple[str, ...]
    moves: int
    started_at: float
    ended_at: float | None
    winner: int | None
    reason: str | None
    ranking: tuple[tuple[int, ...], ...] = ()  # seats by place, when the record has it
    notes: tuple[str, ...] = ()  # per seat: what became of its person ('' for nothing), as shown
    resigned: tuple[int, ...] = ()  # the seats that resigned, in the order they did


#: Why a server with no ``--db`` has no database: no home to keep it in.
NO_HOME = (
    "there is no home directory for the record (HOME is not set, or not a full path): give --db PATH, or set"
    " XDG_DATA_HOME"
)


def default_path() -> Path | None:
    """``$XDG_DATA_HOME/notty/notty.db``, or ``~/.local/share/notty/notty.db``: a relative
    ``XDG_DATA_HOME`` is ignored, as the XDG spec says (it would move with the current directory).
    None where there is no home (no HOME, and a user id the password database does not know, as in
    a container): ``~`` stayed ``~``, and the record went into a folder of that name here."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".local", "share")
    return Path(base) / "notty" / "notty.db"


def make_directory(directory: Path) -> None:
    """Create ``directory`` and any missing parents 0700, as the XDG base directory spec asks: the
    record names players and holds their seat tokens' hashes. Existing directories are left alone."""
    missing: list[Path] = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    for made in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by someone else
            made.mkdir(mode=0o700)


def tighten_default_directory(directory: Path) -> None:
    """The default directory is notty's own: make it the user's alone (0700) if it is looser. A
    directory the user named (``--db /tmp/x.db``) is never changed: it may be shared on purpose."""
    _tighten(directory, 0o700)


def _tighten(path: Path, mode: int = 0o600) -> None:
    """Take group's and others' permissions off a file or directory of ours; never add any."""
    try:
        info = path.lstat()
        if info.st_uid != os.geteuid() or not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            return  # not ours to change, and never a link's target
        if stat.S_IMODE(info.st_mode) & ~mode:
            path.chmod(stat.S_IMODE(info.st_mode) & mode)
    except OSError:  # gone meanwhile, or not allowed: the open that follows says what matters
        pass


#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: Where a database file's header keeps ``user_version`` (4 bytes, big-endian, signed).
USER_VERSION_AT = 60


def check_file(path: str | os.PathLike[str]) -> None:
    """Refuse, with a :class:`StoreError`, a path that cannot be a notty database (a directory,
    something not a file, a file that is not SQLite, a schema version this notty does not know),
    before anything is opened, locked, tightened or written. A path that is missing, or that
    cannot be read here, is left to the opening, which says what matters for it."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError:
        return
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(
            f"cannot use the database {path}: it is a directory, not a database file "
            f"(name a file in it, such as {path / 'notty.db'})"
        )
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block the opening; a device is nobody's record
        raise StoreError(f"cannot use the database {path}: it is not a regular file")
    try:
        with path.open("rb") as file:
            header = file.read(USER_VERSION_AT + 4)
    except OSError:
        return
    if header and not header.startswith(SQLITE_MAGIC):  # an empty file is a new database to SQLite
        raise StoreError(
            f"cannot use the database {path}: it is not an SQLite database: name another --db, "
            "or move the file aside to start a new one there"
        )
    if len(header) == USER_VERSION_AT + 4:
        _check_version(path, int.from_bytes(header[USER_VERSION_AT:], "big", signed=True))


def _check_version(path: Path, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the database {path} has schema version {version}, newer than this "
            f"notty's {SCHEMA_VERSION}: upgrade notty or use another --db"
        )
    if version < 0:  # no notty ever wrote one
        raise StoreError(
            f"cannot use the database {path}: its schema version is {version}, which no notty "
            "writes: it is not a notty database"
        )


def _side_files(path: Path) -> tuple[Path, Path]:
    """The files SQLite keeps beside a WAL database: the log and its index."""
    return Path(f"{path}-wal"), Path(f"{path}-shm")


def _place(copy: Path, real: Path) -> None:
    """Give ``copy`` the name ``real`` too, never over a file there (FileExistsError): a hard link
    (the copy's own name goes once the file at ``real`` is seen to be it), or where the file system
    has none (vfat, some network ones) a rename, once the name is free."""
    try:
        os.link(copy, real)
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK, errno.EXDEV):
            raise
        if os.path.lexists(real):
            raise FileExistsError(real) from error
        os.rename(copy, real)


def _sync_file(path: Path) -> None:
    """fsync a file (or a directory: its names) by its path."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_directory(directory: Path) -> None:
    """fsync a directory, so that a name made in it outlasts a power cut (where the system allows)."""
    with contextlib.suppress(OSError):
        _sync_file(directory)


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` is now (device and inode), or None where there is none."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _strerror(error: OSError) -> str:
    text = error.strerror or str(error)
    return text[:1].lower() + text[1:]


#: With checkpoints left to :meth:`Store.checkpoint`, a write still checkpoints once the log
#: holds this many pages (about 39 MiB). Under writes that never pause, the log cannot start
#: over (a write always lands while the worker copies), so this is when it does.
BACKSTOP_PAGES = 10_000
#: What a log that has started over is cut back to, so a busy spell leaves no 39 MiB file behind.
LOG_KEPT_BYTES = 4 * 1024 * 1024


class Store:
    """The game record. ``checkpoint_inline=False`` leaves checkpoints to :meth:`checkpoint`.

    A checkpoint copies the write-ahead log into the database file and fsyncs
    both; by default SQLite runs one inside whichever write fills 1,000 pages.
    The server calls :meth:`checkpoint` from a worker thread instead: at a
    LAN's pace no reply waits on a disk flush, and under writes that never
    pause, one waits ten times less often (see ``BACKSTOP_PAGES``).
    """

    _db: sqlite3.Connection

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        checkpoint_inline: bool = True,
        read_only: bool = False,
    ) -> None:
        """Open (creating, migrating) the record to write it, or with ``read_only`` only to read it.

        Either way the file is checked for damage first (``PRAGMA quick_check``). A writer makes
        the files the user's alone (0600) and then one committed write (:meth:`check_writable`); a
        reader writes nothing at all, so ``games`` and ``replay`` work on a read-only database and
        beside a running server. Every failure is a :class:`StoreError` of one sentence.
        """
        self.path = Path(path)
        self._clock = clock
        self.read_only = read_only
        self._checkpoint_inline = checkpoint_inline
        self._lost: str | None = None  # why nothing more can be recorded (see keep_in_place)
        # A connection of its own for checkpoints, in a worker thread: opened with the store's, so on
        # the same file (one opened by name each time took a file put in its place for ours, and
        # wrote our log into it). The lock keeps it and a file's return from crossing.
        self._checkpointer: sqlite3.Connection | None = None
        self._one_file = threading.Lock()
        self._sides: dict[Path, tuple[int, int] | None] = {}  # the -wal and -shm files of ours
        self._real = self.path  # the file the path led to when opened (a link's target)
        self._retrying: str | None = None  # why the last put-back could not be made, as logged
        #: Called with the copy about to take a deleted file's place, to lock it first (the server's
        #: writer lock): StoreError if it cannot.
        self.put_back_hook: Callable[[Path], None] | None = None
        check_file(self.path)
        try:
            if read_only:
                self._open_to_read()
            else:
                self._open_to_write(checkpoint_inline)
        except (OSError, sqlite3.Error) as error:
            raise self._error(error) from error
        self._file = _identity(self.path)

    def _open_to_write(self, checkpoint_inline: bool, put_back: bool = False) -> None:
        """``put_back``: the file is a copy just made and placed (see :meth:`keep_in_place`): never
        made anew here (an empty record in its place, had the name gone again), nor read whole for
        damage (a backup wrote every page of it just now)."""
        make_directory(self.path.parent)
        for side in _side_files(self.path):  # left by a refused start, or made by another user's reader:
            if side.exists() and not os.access(side, os.W_OK):  # SQLite would call the database read-only
                raise StoreError(
                    f"cannot use the database {self.path}: it cannot be written: {side} beside it is "
                    "read-only or not yours: delete it while no server runs"
                )
        # Made here rather than by SQLite, which would make it 0644: it is the user's alone. Where
        # the path is a link to no file yet, at the link's target (O_EXCL would refuse the link).
        if put_back:
            target: str | Path = f"{self.path.resolve().as_uri()}?mode=rw"
        else:
            with contextlib.suppress(FileExistsError):
                os.close(os.open(self.path.resolve(), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            target = self.path
        db = sqlite3.connect(target, uri=put_back, isolation_level=None, check_same_thread=False)
        db.text_factory = _text
        try:
            self._db = db
            # Read first: a file that is not ours is refused as it was found, its modes too.
            if not put_back:
                self._check_intact()
            self._check_ours()
            for name in (self.path, *_side_files(self.path)):  # before the first write (journal_mode's)
                _tighten(name)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute(f"PRAGMA journal_size_limit={LOG_KEPT_BYTES}")
            if not checkpoint_inline:
                db.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")
            self._migrate()
            self.check_writable()
            self._real = self.path.resolve()
            self._sides = {
                side: _identity(side) for side in {*_side_files(self.path), *_side_files(self._real)}
            }
            self._checkpointer = sqlite3.connect(
                target, uri=put_back, isolation_level=None, check_same_thread=False
            )
        except BaseException:
            db.close()
            raise

    def _open_to_read(self) -> None:
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        tidy = self._tidy_reader()
        db = sqlite3.connect(tidy or uri, uri=True, isolation_level=None, check_same_thread=False)
        db.text_factory = _text
        try:
            if tidy:
                db.execute("PRAGMA query_only = 1")
            try:
                db.execute("PRAGMA user_version").fetchone()
            except sqlite3.OperationalError as error:
                # A WAL database is read through its -shm file, which a read-only directory will not
                # let SQLite make. With no -wal file there is nothing beyond the database file to
                # read, and nobody can be writing (a writer needs the directory too): read the file
                # as it is. With one, its changes would be missed: refuse rather than show old games.
                wal, shm = _side_files(self.path)
                if wal.exists() and not shm.exists() and not os.access(self.path.parent, os.W_OK):
                    raise StoreError(
                        f"cannot use the database {self.path}: its last changes are in {wal.name}, which "
                        f"SQLite reads only through a {shm.name} file, and its directory is read-only: "
                        "make the directory writable to read them"
                    ) from error
                if error.sqlite_errorcode != sqlite3.SQLITE_READONLY_DIRECTORY or wal.exists():
                    raise
                db.close()
                immutable = f"{uri}&immutable=1"
                db = sqlite3.connect(immutable, uri=True, isolation_level=None, check_same_thread=False)
            self._db = db
            self._check_intact()
            version = self._check_ours()
            if version < SCHEMA_VERSION:
                # An older database is migrated in a copy in memory: a reader never writes the file.
                copy = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
                db.backup(copy)
                db.close()
                db = self._db = copy
            self._migrate()
        except BaseException:
            db.close()
            raise

    def _tidy_reader(self) -> str | None:
        """The URI of a connection that may write but will not (``query_only``), when that is safe.

        A read-only connection to a WAL database makes its -wal and -shm files but cannot remove
        them, so ``games`` would leave both behind. One that may write removes them as it closes,
        if it is the last connection (a running server's keeps them). Only when no side file is
        there yet: then the log is empty, and closing has nothing to copy into the database.
        """
        journal = Path(f"{self.path}-journal")
        if any(side.exists() for side in (*_side_files(self.path), journal)):
            return None
        if not (os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)):
            return None
        return f"{self.path.resolve().as_uri()}?mode=rw"

    def close(self) -> None:
        if not self.read_only:
            try:
                self.keep_in_place()
            except StoreError:
                if self._lost is None:  # still only in the file this server has open
                    log.error(
                        "the database %s is deleted and could not be written again: the games in it are lost "
                        "as this server stops",
                        self.path,
                    )
        with self._one_file:
            self._close_connections()

    def _close_connections(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        self._db.close()

    def keep_in_place(self) -> None:
        """Put the database file back where it was deleted while the server runs.

        SQLite writes on into a deleted file (its open descriptors keep it), so a
        restart found none of the games, the moves acknowledged with them. The
        open connection still reads every change: a copy of it is put in the
        file's place, and writing goes on there. A file put in its place instead
        is another record, not ours to write over: the copy is left beside it,
        our side files are taken from beside it, and nothing more is recorded
        (every table stops, saying why). Where no copy can be made yet (a full
        disk), the write waits for one: refused, and tried again each second.
        Called before every write, and by the server once a second.
        :class:`StoreError` while nothing can be recorded.
        """
        if self._lost is not None:
            raise StoreError(self._lost)
        found = _identity(self.path)
        if found == self._file:
            return
        with self._one_file:
            if _identity(self._real) == self._file:  # a link to it removed or changed, its file as it was
                log.warning(
                    "the database's name %s no longer leads to its file %s (a link removed or changed): "
                    "the server goes on writing that file",
                    self.path,
                    self._real,
                )
                self.path = self._real
                return
            self._put_back(found)

    def _put_back(self, found: tuple[int, int] | None) -> None:
        real = self._real
        try:
            make_directory(real.parent)
            copy = self._copy_beside(real)
            if found is None and self.put_back_hook is not None:
                self.put_back_hook(copy)  # locked before it has the name: no second server starts on it
        except (OSError, sqlite3.Error) as error:
            self._not_yet(found, error)  # the games are still all in the file this server has open
        except StoreError as error:  # the lock: another server holds the name now
            self._stop_recording(
                f"the database was deleted while the server ran, and could not be locked again ({error})",
                f"its games are kept in {copy}: start a server on that",
            )
        self._retrying = None
        self._close_connections()
        for side, ours in self._sides.items():  # ours alone: never those of a file put here
            if ours is not None and _identity(side) == ours:
                side.unlink(missing_ok=True)
        replaced = (
            "the database was replaced by another file while the server ran; its games are kept in a copy",
            f"the file there is left alone, the games until then kept in {copy}: start the server on that",
        )
        if found is not None:
            self._stop_recording(*replaced)
        placed = _identity(copy)
        try:
            _place(copy, real)  # the copy keeps its own name until the file at ``real`` is seen to be it
        except FileExistsError:
            self._stop_recording(*replaced)
        except OSError as error:
            self._stop_recording(
                "the database was deleted while the server ran, and could not be written again "
                f"({_strerror(error)})",
                f"its games are kept in {copy}: start the server on that",
            )
        try:
            self._open_to_write(self._checkpoint_inline, put_back=True)
            opened = _identity(self.path)
        except (OSError, sqlite3.Error, StoreError) as error:
            opened, why = None, _strerror(error) if isinstance(error, OSError) else str(error)
        else:
            why = "the name went again"
        if opened != placed:  # gone again, or another file there: never an empty record in its place
            with contextlib.suppress(sqlite3.Error):
                self._close_connections()
            where = copy if _identity(copy) == placed else real
            self._stop_recording(
                f"the database was deleted while the server ran, and could not be opened again ({why[:60]})",
                f"its games are kept in {where}: start the server on that",
            )
        if _identity(copy) == placed:
            copy.unlink()
        _sync_directory(real.parent)  # the name, as well as the file, through a power cut
        self._file = placed
        log.warning(
            "the database %s was deleted while the server ran: it is written again from the server's open "
            "copy, every game in it (stop the server first to start a new one)",
            self.path,
        )

    def _not_yet(self, found: tuple[int, int] | None, error: BaseException) -> NoReturn:
        """No copy could be made (a full disk, say): the games are only in the file this server has
        open, so this write is refused and the copy tried again, each second and as the server stops."""
        why = _strerror(error) if isinstance(error, OSError) else str(error)
        what = "deleted" if found is None else "replaced by another file"
        said = (
            f"the database was {what} while the server ran, and no copy of it could be made yet ({why[:60]})"
        )
        if self._retrying != said:  # logged once, not each second
            self._retrying = said
            log.error(
                "%s (%s): its games are only in the file this server has open (/proc/%d/fd): do not stop the "
                "server; it tries again each second (free some space, say)",
                said,
                self.path,
                os.getpid(),
            )
        raise StoreError(said) from error

    def _stop_recording(self, why: str, what_to_do: str) -> NoReturn:
        """Nothing more is recorded, for ``why``, which players are told (in a few words: the server's
        paths are for its log, with ``what_to_do``)."""
        self._lost = why
        log.error("%s (%s): %s; the server records nothing more", why, self.path, what_to_do)
        raise StoreError(why)

    def _copy_beside(self, real: Path) -> Path:
        """A copy of the open database in a new file of the user's alone beside ``real``; none left
        behind where it cannot be made whole."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self._clock()))
        for attempt in itertools.count():
            copy = real.with_name(f"{real.name}.kept-{stamp}" + (f"-{attempt}" if attempt else ""))
            try:
                os.close(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                break
            except FileExistsError:
                continue
        try:
            target = sqlite3.connect(copy, isolation_level=None)
            try:
                self._db.backup(target)
            finally:
                target.close()
            _sync_file(copy)
        except BaseException:
            for made in (copy, *_side_files(copy), Path(f"{copy}-journal")):
                made.unlink(missing_ok=True)
            raise
        return copy

    def check_writable(self) -> None:
        """Commit one small write now, so that a read-only file or directory, or a full disk, stops
        the server as it starts rather than at its first game, when every change would be lost.

        The write makes a table and drops it: the file needs a new page the first time (a free one
        after that), so it must be able to grow, and the commit goes through the -wal file as every
        game's do."""
        try:
            self._db.executescript(
                "BEGIN IMMEDIATE; CREATE TABLE notty_write_check (x); DROP TABLE notty_write_check; COMMIT;"
            )
        except sqlite3.Error as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise self._error(error) from error

    def _check_intact(self) -> None:
        """``PRAGMA quick_check``: a damaged file is refused whole, at once, rather than failing one
        game at a time later. It reads every page: for 10,000 games of 60 moves (32 MiB), about
        0.1 s from the page cache and 1 s from a cold disk."""
        rows = self._db.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            first = " ".join(str(rows[0][0]).split()) if rows else "no answer"
            first = first.removeprefix("*** in database main *** ")
            found = "1 problem" if len(rows) == 1 else f"{len(rows)} problems, the first"
            raise StoreError(self._damaged(f"SQLite's check found {found}: {first[:120]}"))

    def _damaged(self, detail: str) -> str:
        wal = f"{self.path.name}-wal"
        return (
            f"cannot use the database {self.path}: it is damaged ({detail}): restore it from a backup, "
            f"or move it and any {wal} aside to start a new one"
        )

    def _error(self, error: BaseException) -> StoreError:
        """What went wrong, in a sentence naming the file and, where it helps, what to do."""
        if isinstance(error, StoreError):
            return error
        prefix = f"cannot use the database {self.path}"
        if isinstance(error, OSError):  # making the directory or the file
            if self.read_only:
                return StoreError(f"{prefix}: {_strerror(error)}")
            target = f" {error.filename}" if error.filename else ""
            return StoreError(f"{prefix}: it cannot be written: cannot create{target} ({_strerror(error)})")
        assert isinstance(error, sqlite3.Error)
        code = getattr(error, "sqlite_errorcode", None)
        primary = None if code is None else code & 0xFF
        if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            return StoreError(self._damaged(str(error)))
        if primary == sqlite3.SQLITE_CANTOPEN and self.path.exists() and not os.access(self.path, os.R_OK):
            return StoreError(f"{prefix}: it cannot be read (permission denied: see its permissions)")
        if self.read_only:
            return StoreError(f"{prefix}: {error}")
        if code == sqlite3.SQLITE_READONLY_DIRECTORY:
            name = self.path.name
            why = f"its directory is read-only, and SQLite keeps {name}-wal and {name}-shm beside it"
        elif primary == sqlite3.SQLITE_READONLY:
            why = "the file is read-only (see its permissions)"
        elif primary == sqlite3.SQLITE_FULL:
            why = "the disk is full"
        elif primary in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_PERM):
            why = str(error)
        else:
            return StoreError(f"{prefix}: {error}")
        return StoreError(f"{prefix}: it cannot be written: {why}")

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """Reads that fail (a damaged page, an I/O error) raise :class:`StoreError` saying so."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            raise self._error(error) from error

    def checkpoint(self) -> None:
        """Copy what the log holds into the database file. Safe in any thread: a connection of its own.

        Not while the file at the store's path is another (or none): :meth:`keep_in_place` first."""
        with self._one_file:
            if self._checkpointer is None or self._lost is not None or _identity(self.path) != self._file:
                return
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _check_ours(self) -> int:
        """The schema version, if this notty can use the database: one it knows, and a version 0
        (new) database holding no tables, which migrating would write notty's into."""
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        _check_version(self.path, version)
        if version == 0 and self._db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
            raise StoreError(
                f"cannot use the database {self.path}: it is not a notty database (it holds tables "
                "and no notty schema version): name another --db"
            )
        return int(version)

    def _migrate(self) -> None:
        version = self._check_ours()
        if version == SCHEMA_VERSION:
            return
        # A migration may rebuild a table others refer to; the references are checked afterwards.
        self._db.execute("PRAGMA foreign_keys=OFF")
        try:
            for number in range(version, SCHEMA_VERSION):
                with self._db:  # a failed step rolls back: the database stays at the last good version
                    self._db.executescript(
                        f"BEGIN; {MIGRATIONS[number]}; PRAGMA user_version = {number + 1}; COMMIT;"
                    )
            broken = self._db.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise StoreError(
                    f"the database {self.path} has {len(broken)} record(s) of games it does not hold"
                )
        finally:
            self._db.execute("PRAGMA foreign_keys=ON")

    # -- writing -------------------------------------------------------------------

    def write(self, records: Iterable[Record]) -> None:
        """Store ``records`` in one transaction: all of them, or (on error) none."""
        records = list(records)
        if not records:
            return
        self.keep_in_place()
        now = self._clock()
        if len(records) == 1 and isinstance(records[0], Moved):  # most batches: one statement,
            self._write(records[0], now)  # which SQLite makes a transaction of by itself
            return
        with self._db:  # commits at the end, or rolls back whatever a failed write started
            self._db.execute("BEGIN")
            for record in records:
                self._write(record, now)

    def _write(self, record: Record, now: float) -> None:
        db = self._db
        match record:
            case GameBegun():
                db.execute(
                    "INSERT INTO games (id, game, variant, options, bot_delay, turn_seconds, deal, first,"
                    " started_at, asked) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.table,
                        record.game,
                        record.variant,
                        _options_text(record.options),
                        record.bot_delay,
                        record.turn_seconds,
                        " ".join(record.deal),
                        record.first,
                        now,
                        _asked_text(record.asked),
                    ),
                )
                db.executemany(
                    "INSERT INTO seats (game, seat, name, bot, token_hash) VALUES (?, ?, ?, ?, ?)",
                    [
                        (record.table, index, seat.name, seat.bot, seat.token_hash)
                        for index, seat in enumerate(record.seats)
                    ],
                )
            case Moved():
                db.execute(
                    "INSERT INTO moves (game, number, seat, action, outcome, at, played_by)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.table,
                        record.number,
                        record.seat,
                        record.action,
                        " ".join(record.outcome),
                        now,
                        record.by,
                    ),
                )
            case SeatLeft():
                db.execute(
                    "UPDATE seats SET left_at = ?, left_after = ?, bot = coalesce(?, bot)"
                    " WHERE game = ? AND seat = ?",
                    (now, record.moves, record.bot, record.table, record.seat),
                )
            case AutopilotSet():
                db.execute(
                    "UPDATE seats SET autopilot = ? WHERE game = ? AND seat = ?",
                    (int(record.on), record.table, record.seat),
                )
            case StandInSet():
                db.execute(
                    "UPDATE seats SET stand_in = ? WHERE game = ? AND seat = ?",
                    (int(record.on), record.table, record.seat),
                )
            case Resigned():
                db.execute(
                    "UPDATE seats SET resigned_after = ?, resigned_order = ? WHERE game = ? AND seat = ?",
                    (record.moves, record.order, record.table, record.seat),
                )
            case TimedOut():
                db.execute(
                    "INSERT INTO timeouts (game, seat, after) VALUES (?, ?, ?)",
                    (record.table, record.seat, record.moves),
                )
            case OptionsChanged():
                db.execute(
                    "UPDATE games SET options = ? WHERE id = ?", (_options_text(record.options), record.table)
                )
            case GameOver():
                db.execute(
                    "UPDATE games SET ended_at = ?, winner = ?, reason = ?, ranking = ? WHERE id = ?",
                    (now, record.winner, record.reason, _ranking_text(record.ranking), record.table),
                )

    # -- reading -------------------------------------------------------------------

    @property
    def record_id(self) -> str:
        """This record's id (12 hex digits), the same for as long as the file lasts."""
        with self._reading():
            rows = self._db.execute("SELECT id FROM record").fetchall()
        if len(rows) != 1 or not isinstance(rows[0][0], str) or not re.fullmatch(r"[0-9a-f]{12}", rows[0][0]):
            raise StoreError(self._damaged(f"its record id is {rows[:2]!r}, not one of 12 hex digits"))
        return str(rows[0][0])

    def next_table_id(self) -> int:
        """A table number no stored game has used."""
        with self._reading():
            # Within the protocol's table numbers: a row beyond them (a damaged or edited record)
            # must not push every new table out of range.
            (highest,) = self._db.execute(
                "SELECT max(id) FROM games WHERE id < ?", (MAX_TABLE_ID,)
            ).fetchone()
        return (highest or 0) + 1

    def unfinished(self) -> list[SavedGame]:
        """Every game that was still being played, oldest first."""
        with self._reading():
            query = "SELECT id FROM games WHERE ended_at IS NULL ORDER BY id"
            ids = [row[0] for row in self._db.execute(query)]
        games = []
        for game_id in ids:
            try:
                saved = self.game(game_id)
            except (ValueError, TypeError, AttributeError, IndexError) as error:
                # One damaged row (its options not JSON, say) must not keep every other game down:
                # it stays in the database, as a game whose moves do not replay does.
                log.error("could not read game %d: %s: it stays in the database", game_id, error)
                continue
            if saved is not None:
                games.append(saved)
        return games

    def game(self, game_id: int) -> SavedGame | None:
        with self._reading():
            saved = self._game(game_id)
        return saved

    def _game(self, game_id: int) -> SavedGame | None:
        row = self._db.execute(
            "SELECT game, variant, options, bot_delay, turn_seconds, deal, first, winner, reason, ended_at,"
            " ranking, started_at, asked"
            " FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        game, variant, options, bot_delay, turn_seconds, deal, first, winner, reason, ended_at = row[:10]
        ranking, started, asked = row[10:]
        numbered = self._db.execute(
            "SELECT seat, name, bot, token_hash, left_at, autopilot, resigned_after, resigned_order,"
            " left_after, stand_in FROM seats"
            " WHERE game = ?"
            " ORDER BY seat",
            (game_id,),
        ).fetchall()
        seats = [row[1:] for row in numbered]
        _check_game(
            game_id, bot_delay, turn_seconds, started, [row[0] for row in numbered], [row[0] for row in seats]
        )
        begun = GameBegun(
            table=game_id,
            game=game,
            variant=variant,
            options=json.loads(options),
            bot_delay=bot_delay,
            turn_seconds=turn_seconds,
            seats=tuple(SeatRecord(name, bot, token_hash) for name, bot, token_hash, *_ in seats),
            deal=tuple(deal.split()),
            first=first,
            asked=None if asked is None else tuple(_asked(asked)),
        )
        rows = self._db.execute(
            "SELECT number, seat, action, outcome, at, played_by FROM moves WHERE game = ? ORDER BY number",
            (game_id,),
        ).fetchall()
        if [number for number, *_ in rows] != list(range(1, len(rows) + 1)):  # replayed, another game
            raise ValueError("its moves are not numbered 1, 2, 3, ... (one is missing or out of place)")
        moves = tuple(
            Moved(game_id, number, seat, action, tuple(outcome.split()), str(by or ""))
            for number, seat, action, outcome, _, by in rows
        )
        times = [at for *_, at, _ in rows]
        left = frozenset(index for index, seat in enumerate(seats) if seat[3] is not None)
        # Since v7 a seat records how many moves came before it left. Before, only the time it left
        # tells: moves are stamped as they are written, so those stamped no later came first.
        left_after = tuple(
            sorted(
                (
                    (index, bisect.bisect_right(times, seat[3]) if seat[7] is None else seat[7])
                    for index, seat in enumerate(seats)
                    if seat[3] is not None
                ),
                key=lambda pair: (pair[1], pair[0]),
            )
        )
        over = None if ended_at is None else GameOver(game_id, winner, reason, _ranking_of(ranking))
        autopilot = frozenset(index for index, seat in enumerate(seats) if seat[4])
        stood_in = frozenset(index for index, seat in enumerate(seats) if seat[8] and seat[3] is None)
        resigned = sorted(
            (seat[5], -1 if seat[6] is None else seat[6], index)
            for index, seat in enumerate(seats)
            if seat[5] is not None
        )
        in_order = tuple((index, after) for after, _, index in resigned)
        timed_out = tuple(
            (seat, after)
            for seat, after in self._db.execute(
                "SELECT seat, after FROM timeouts WHERE game = ? ORDER BY after, rowid", (game_id,)
            )
        )
        return SavedGame(
            begun,
            moves,
            left,
            over,
            started,
            autopilot=autopilot,
            resigned=in_order,
            left_after=left_after,
            timed_out=timed_out,
            stood_in=stood_in,
        )

    def games(self) -> list[GameSummary]:
        """Every stored game, newest first."""
        with self._reading():
            summaries = self._games()
        return summaries

    def _games(self) -> list[GameSummary]:
        rows = self._db.execute(
            "SELECT id, game, variant, started_at, ended_at, winner, reason, ranking,"
            " (SELECT count(*) FROM moves WHERE moves.game = games.id),"
            " (SELECT group_concat(name, char(9)) FROM (SELECT name FROM seats WHERE seats.game = games.id"
            "  ORDER BY seat)),"
            # What became of each seat's person, as the list shows it: a bot played on for one who
            # left before the end (servers before schema 4 also recorded leaving after it), unless
            # the game ended with no move after (schema 7 counts them: given up as they left), and
            # one who resigned is ranked last (char(9) separates the seats).
            " (SELECT group_concat(note, char(9)) FROM (SELECT CASE"
            "  WHEN resigned_after IS NOT NULL THEN 'resigned'"
            "  WHEN left_at <= coalesce(games.ended_at, left_at)"
            "   AND games.ended_at IS NOT NULL"
            "   AND left_after >= (SELECT count(*) FROM moves WHERE moves.game = games.id) THEN 'left'"
            "  WHEN left_at <= coalesce(games.ended_at, left_at)"
            "   THEN 'left: ' || coalesce('bot ' || bot, 'a bot') || ' played on'"
            "  ELSE '' END AS note FROM seats WHERE seats.game = games.id ORDER BY seat)),"
            # The seats that resigned, in the order they did, as _game orders them: by the moves
            # before each, then (schema 6) the order recorded, then (before it) by seat.
            " (SELECT group_concat(seat) FROM (SELECT seat FROM seats WHERE seats.game = games.id"
            "  AND resigned_after IS NOT NULL ORDER BY resigned_after, coalesce(resigned_order, -1), seat))"
            " FROM games ORDER BY id DESC"
        )
        summaries = []
        for row in rows:
            game_id, game, variant, started, ended, winner, reason, ranking, moves, names, notes, order = row
            summaries.append(
                GameSummary(
                    game_id,
                    game,
                    variant,
                    tuple((names or "").split("\t")),
                    moves,
                    started,
                    ended,
                    winner,
                    reason,
                    _ranking_of(ranking),
                    tuple((notes or "").split("\t")),
                    _seats_of(order),
                )
            )
        return summaries


#: Past the protocol's table numbers (1 to 2**31 - 1): no stored game is restored or numbered there.
MAX_TABLE_ID = 2**31 - 1


def _text(data: bytes) -> str:
    """A text column as read: a byte that is not UTF-8 (a damaged file) reads as U+FFFD, so the game
    it belongs to is refused for what it says, not every game for one byte."""
    return data.decode("utf-8", "replace")


def _check_game(
    game_id: int,
    bot_delay: object,
    turn_seconds: object,
    started: object,
    seats: list[int],
    names: list[object],
) -> None:
    """Refuse, with a ValueError saying why, a stored game's values that no server wrote: played on,
    they would crash the server's loop, stall a table or send players what the protocol refuses."""
    if not 1 <= game_id <= MAX_TABLE_ID:
        raise ValueError(f"its number is not 1 to {MAX_TABLE_ID:,}")
    if not (
        isinstance(bot_delay, int | float) and not isinstance(bot_delay, bool) and 0 <= bot_delay <= 3600
    ):
        raise ValueError(f"its bot delay {bot_delay!r} is not 0 to 3,600 seconds")
    if type(turn_seconds) is not int or not 0 <= turn_seconds <= 3600:
        raise ValueError(f"its turn time {turn_seconds!r} is not 0 to 3,600 seconds")
    if not (isinstance(started, int | float) and not isinstance(started, bool) and math.isfinite(started)):
        raise ValueError(f"its start time {started!r} is not a time")
    if seats != list(range(len(seats))):
        raise ValueError(f"its seats are numbered {seats}, not 0 to {len(seats) - 1}")
    for name in names:
        try:
            NAME.check(name, "name")
        except ProtocolError as error:
            raise ValueError(
                f"a seat's name {name!r} is not one a player may have: {error.message}"
            ) from None


def _options_text(options: Mapping[str, int | str]) -> str:
    """A game's options as the record keeps them: JSON with its keys sorted, so equal settings
    are stored alike."""
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"))


def _asked_text(asked: tuple[str, ...] | None) -> str | None:
    return None if asked is None else json.dumps(sorted(asked), separators=(",", ":"))


def _asked(text: str) -> list[str]:
    """The option names a creator chose, as the record keeps them (a JSON list of strings)."""
    names = json.loads(text)
    if not (isinstance(names, list) and all(isinstance(name, str) for name in names)):
        raise ValueError(f"the options its creator chose are not a list of names: {text[:80]!r}")
    return names


def _seats_of(text: str | None) -> tuple[int, ...]:
    """Seats as listed by ``group_concat`` (``"3,2,0"``); a damaged list reads as none, as a ranking does."""
    try:
        return tuple(int(seat) for seat in text.split(",")) if text else ()
    except ValueError:
        return ()


def _ranking_text(ranking: tuple[tuple[int, ...], ...]) -> str | None:
    return json.dumps([list(place) for place in ranking], separators=(",", ":")) if ranking else None


def _ranking_of(text: str | None) -> tuple[tuple[int, ...], ...]:
    """A ranking as stored; a damaged one reads as none (the ``games`` list says no more of it)."""
    try:
        return () if text is None else tuple(tuple(place) for place in json.loads(text))
    except (ValueError, TypeError):
        return ()
