"""``notty-server``: host Notty tables on the LAN; ``notty-server games`` / ``replay ID``: the record."""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import ipaddress
import logging
import os
import resource
import secrets
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import attrs
import trio

from client.output import stdout_to_nowhere
from games._ui import did_you_mean
from protocol import DEFAULT_PORT

from . import heap
from .host import Host, seat_token
from .limits import DEFAULT_LIMITS, Limits, add_limit_arguments, limits_from_args
from .lock import LockError, WriterLock
from .net import NottyServer
from .replay import print_game, print_games
from .sockets import address_text
from .store import (
    NO_HOME,
    Store,
    StoreError,
    check_file,
    default_path,
    make_directory,
    tighten_default_directory,
)

log = logging.getLogger("notty.server")
#: The most seconds between bot actions at a table of bots alone that someone watches, at its
#: creator's asking (the protocol's default bot_delay_ms is 1 s): a person watching can follow.
#: A script that wants bots at full speed asks for ``bot_delay_ms`` 0 (or runs ``--watch-delay 0``).
DEFAULT_WATCH_DELAY = 1.0
#: Seconds a thread holding the GIL keeps it while another waits (CPython's default is 0.005).
SWITCH_INTERVAL = 0.001
#: Open files the server keeps for itself besides its connections: the database and its journal
#: (and the checkpointer's), the lock file, listeners, Trio's wake-up pipes, standard streams.
OWN_FILES = 32
E = TypeVar("E", bound=BaseException)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="notty-server",
        description="Host tables of Notty, huxxy and Ochos Locos for players on your network.",
        epilog="Also: 'notty-server games' lists the recorded games, 'notty-server replay GAME_ID' "
        "prints one move by move (both take --db, before or after the command).",
    )
    parser.add_argument(
        "--host",
        type=_host,
        default=None,
        help="address to listen on; IPv6 as ::1 or [::1] (default: every interface)",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 picks one)"
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="seconds a dropped player keeps their seat before a bot stands in (default 60)",
    )
    parser.add_argument("--name", default="notty", help="the server's name, shown to clients (default notty)")
    parser.add_argument(
        "--watch-delay",
        type=float,
        default=DEFAULT_WATCH_DELAY,
        help="seconds, at most, between bot actions at a table of bots alone that someone watches, "
        f"as its creator asks (create_table.bot_delay_ms) (default {DEFAULT_WATCH_DELAY:g}; 0: no pause "
        "beyond --bot-only-delay)",
    )
    _add_db(parser)
    add_limit_arguments(parser)
    return parser


def _host(text: str) -> str:
    """An address to listen on, an IPv6 one in brackets too (``[::1]``): the client takes it so."""
    host, colon, port = text.rpartition(":")
    if colon and ":" not in host and port.isdigit():  # one colon: no IPv6 address, but a port
        give = (
            f"--host {host[:60]} --port {port[:5]}" if host else f"--port {port[:5]} alone (every interface)"
        )
        raise argparse.ArgumentTypeError(f"{text[:60]!r}: the port is not part of --host: give {give}")
    if not text.startswith("["):
        return text
    inside = text[1:-1] if text.endswith("]") else ""
    try:
        ipaddress.IPv6Address(inside)  # a zone ("fe80::1%eth0") too
    except ValueError:
        shown = repr(text) if len(text) <= 60 else f"{text[:60]!r}…"
        raise argparse.ArgumentTypeError(
            f"{shown}: brackets hold an IPv6 address, such as [::1]; the port is --port"
        ) from None
    return inside


def _add_db(parser: argparse.ArgumentParser, default: object = None) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        default=default,
        help=f"the SQLite database of games (default {default_path() or 'none: there is no home directory'})",
    )


#: The record's commands, which may follow ``--db`` (``notty-server --db PATH games``).
RECORD_COMMANDS = ("games", "replay")


def _record_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="notty-server", description="Show the games this server has recorded."
    )
    _add_db(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    games = commands.add_parser("games", help="list every recorded game, newest first")
    # SUPPRESS: a --db given before the command is not overwritten by this copy's default.
    _add_db(games, default=argparse.SUPPRESS)
    replay = commands.add_parser("replay", help="print one game move by move")
    replay.add_argument("game", type=_game_id, metavar="GAME_ID", help="the game's number (see 'games')")
    _add_db(replay, default=argparse.SUPPRESS)
    return parser


def _is_record_command(argv: Sequence[str]) -> bool:
    """Whether ``argv`` runs ``games`` or ``replay``: the command first, or after ``--db PATH``
    (the only option the two share with serving)."""
    return _command_word(argv) in RECORD_COMMANDS


def _command_word(argv: Sequence[str]) -> str | None:
    """The word where a command goes (first, or after ``--db PATH``), if one is there."""
    words = iter(argv)
    for word in words:
        flag, equals, _ = word.partition("=")
        if len(flag) < 3 or not "--db".startswith(flag):  # argparse takes --d for --db too
            return None if word.startswith("-") else word
        if not equals:
            next(words, None)
    return None


def _game_id(text: str) -> int:
    """A game's number as the record holds it (SQLite's integers are 64-bit)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 19 and 1 <= int(text) < 2**63):
        raise argparse.ArgumentTypeError(f"{text[:24]!r} is not a game's number: see 'notty-server games'")
    return int(text)


def make_host(
    name: str,
    grace: float,
    first_table: int = 1,
    limits: Limits = DEFAULT_LIMITS,
    watch_delay: float = DEFAULT_WATCH_DELAY,
    record: str | None = None,
) -> Host:
    """A host for live play: unpredictable deals and unguessable seat tokens, which say ``record``."""
    return Host(
        new_rng=secrets.SystemRandom,
        new_token=lambda: seat_token(record),
        record=record,
        name=name,
        grace=grace,
        first_table=first_table,
        max_tables=limits.max_tables,
        tables_per_address=limits.tables_per_address,
        abandon_after=limits.abandon_seconds,
        bot_tables_per_address=limits.bot_tables_per_address,
        games_per_hour=limits.games_per_hour,
        bot_only_delay=limits.bot_only_delay,
        watch_delay=watch_delay,
    )


class ListenError(Exception):
    """The server could not open its listening sockets (the port is taken, say)."""


async def run(
    host: str | None,
    port: int,
    name: str,
    grace: float,
    store: Store,
    lock: WriterLock | None = None,
    watch_delay: float = DEFAULT_WATCH_DELAY,
    limits: Limits = DEFAULT_LIMITS,
) -> None:
    notty = make_host(name, grace, store.next_table_id(), limits, watch_delay, store.record_id)
    for saved in store.unfinished():
        try:
            notty.restore(saved, trio.current_time())
        except Exception as error:  # one damaged record must not keep every other game down
            # One line that says why; the traceback only when asked for (a record no server wrote
            # is the usual cause, not a bug here).
            why = f"{type(error).__name__}: {error}" if not isinstance(error, ValueError) else str(error)
            log.error("could not restore game %d: %s: it stays in the database", saved.begun.table, why)
            log.debug("the restore of game %d failed here", saved.begun.table, exc_info=True)
    server = NottyServer(notty, store=store, limits=limits)
    with trio.open_signal_receiver(*_stopping_signals()) as signals:
        async with trio.open_nursery() as nursery:
            try:
                listeners = await nursery.start(server.serve, host, port)
            except* OSError as failed:
                raise ListenError(_listen_failure(host, port, _first(failed))) from None
            _room_for_connections(limits.max_connections)
            log.info("recording games in %s", store.path)  # said once serving: a failed start is one line
            if lock is not None:  # whoever is refused the database next is told where this server is
                lock.describe([address_text(listener.socket.getsockname()) for listener in listeners])

            async def stop() -> None:
                await server.shutdown()
                nursery.cancel_scope.cancel()

            async def stop_on_signal() -> None:
                async for signum in signals:
                    name = signal.Signals(signum).name
                    if server.stopping:  # said, so that a second Ctrl-C is not taken for one lost
                        log.info("%s: already stopping (it takes a second at most)", name)
                        continue
                    log.info("%s: telling clients and stopping", name)
                    nursery.start_soon(stop)

            nursery.start_soon(stop_on_signal)


def _stopping_signals() -> list[signal.Signals]:
    """The signals that stop the server as Ctrl-C does (clients told, games kept): SIGHUP too, as the
    host's terminal or ssh session closes, which killed it without a word or a goodbye; but not
    where it is ignored (``nohup``), which asks the server to outlive its terminal."""
    stopping = [signal.SIGINT, signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        stopping.append(signal.SIGHUP)
    return stopping


def _room_for_connections(max_connections: int) -> None:
    """Each connection holds a file: past the open-file limit, connections wait unaccepted instead of
    being turned away as server-full. The soft limit is raised as far as the system lets it (a soft
    1024 is common, below the default 2000 connections; macOS refuses more than its own maximum
    even under an unlimited hard limit); if that is not enough the operator hears of it at the
    start, not under load."""
    needed = max_connections + OWN_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or needed <= soft:
        return
    most = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if not _raised_to(most, hard):  # refused the whole: the most it takes, by halves
        low, high = soft, most - 1  # low is held
        while low < high:
            middle = (low + high + 1) // 2
            if _raised_to(middle, hard):
                low = middle
            else:
                high = middle - 1
        most = low
    soft = most
    if needed > soft:
        bound = hard != resource.RLIM_INFINITY and hard <= soft
        held = f"its hard limit, ulimit -Hn, is {hard}" if bound else "the system refused more"
        log.warning(
            "--max-connections is %d but this process may have only %d files open (%s), and the server "
            "keeps about %d for itself (the database, listeners): past %d connections, new ones wait "
            "unaccepted. Raise the limit to %d (the hard limit, as root: ulimit -Hn, LimitNOFILE= in a "
            "systemd unit or /etc/security/limits.conf; on macOS also kern.maxfilesperproc) "
            "or lower --max-connections",
            max_connections,
            soft,
            held,
            OWN_FILES,
            max(soft - OWN_FILES, 0),
            needed,
        )


def _raised_to(soft: int, hard: int) -> bool:
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    except (OSError, ValueError):
        return False
    return True


def _first(group: BaseExceptionGroup[E]) -> E:
    """The first exception of a group, however deep the nurseries nested it."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


def _listen_failure(host: str | None, port: int, error: OSError) -> str:
    where = f"port {port}" if host is None else f"{host} port {port}"
    reason = _lowered(error.strerror or str(error))
    if error.errno == errno.EADDRINUSE:
        reason += " (another program holds it: stop it, or pick another --port)"
    return f"cannot listen on {where}: {reason}"


def _lowered(text: str) -> str:
    """An OS error's text in the middle of a sentence: "Address already in use" -> "address ..."."""
    return text[:1].lower() + text[1:]


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if _is_record_command(argv):
        return _quietly_piped(_show_record, _record_parser().parse_args(argv))
    word = _command_word(argv)
    if word is not None:  # serving takes no word: a mistyped command, not twenty lines of usage
        guess = did_you_mean(word, RECORD_COMMANDS)
        commands = " and ".join(RECORD_COMMANDS)
        said = guess or f"the commands are {commands}; 'notty-server --help' says how to serve"
        print(f"notty-server: error: unknown command {word!r}; {said}", file=sys.stderr)
        return 2
    args = _parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        _parser().error("--port must be 0 to 65535")
    if not args.grace >= 0:  # also refuses nan (inf holds a dropped seat for good)
        _parser().error("--grace must be 0 or more")
    if not (1 <= len(args.name) <= 64 and args.name.isprintable()):  # as the welcome carries it
        _parser().error("--name must be 1 to 64 printable characters")
    if not 0 <= args.watch_delay <= 10:  # also refuses nan
        _parser().error("--watch-delay must be 0 to 10 seconds")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    path = args.db or default_path()
    if path is None:
        log.error("%s", NO_HOME)
        return 1
    made = Made.before(path)
    # Every failure to start is one line and exit status 1: nothing to debug, something to do.
    try:
        check_file(path)  # before the lock file is made beside it: a wrong --db changes nothing
        lock = _lock(path, default=args.db is None)
    except (StoreError, LockError) as error:
        made.remove()
        log.error("%s", error)
        return 1
    try:
        return _serve(args, path, lock, made)
    finally:
        lock.release()


def _lock(path: Path, *, default: bool) -> WriterLock:
    """The database's writer lock, in its directory (made 0700 if missing; the default one tightened)."""
    try:
        make_directory(path.parent)
    except OSError as error:
        raise StoreError(
            f"cannot use the database {path}: it cannot be written: "
            f"cannot create {error.filename or path.parent} ({_lowered(error.strerror or str(error))})"
        ) from error
    if default:
        tighten_default_directory(path.parent)
    return WriterLock.acquire(path)


def _lock_again(lock: WriterLock, copy: Path) -> None:
    """The database deleted while serving is put back from ``copy``: lock it (and make the lock file
    again, if gone) before it has the name, so that no second server starts on it meanwhile
    (StoreError: the store records nothing more)."""
    try:
        lock.renew(copy)
    except LockError as error:
        raise StoreError(str(error)) from error


def _serve(args: argparse.Namespace, path: Path, lock: WriterLock, made: Made) -> int:
    """Serve until stopped; a start that fails removes whatever it made (``made``), the lock file last."""
    made.database_files(path)  # now that no other server can make them
    try:
        store = Store(path, checkpoint_inline=False)  # NottyServer checkpoints
    except StoreError as error:
        made.remove(lock)
        log.error("%s", error)
        return 1
    try:
        lock.hold_database()  # a database made just now: locked under every name it may get
    except LockError as error:
        store.close()
        made.remove(lock)
        log.error("%s", error)
        return 1
    store.put_back_hook = functools.partial(_lock_again, lock)
    failure: str | None = None
    try:
        limits = limits_from_args(args)
        heap.settle()
        # Bots and hints think in worker threads that hold the GIL: the event loop gets it back
        # within 1 ms rather than CPython's 5, so replies do not wait behind them (bench/RESULTS.md).
        sys.setswitchinterval(SWITCH_INTERVAL)
        trio.run(run, args.host, args.port, args.name, args.grace, store, lock, args.watch_delay, limits)
    except* ListenError as group:
        failure = str(_first(group))
    except* StoreError as group:  # a read that failed as the saved games were restored
        failure = str(_first(group))
    finally:
        store.close()
    if failure is not None:  # it never listened, so no game was recorded
        made.remove(lock)
        log.error("%s", failure)
        return 1
    log.info("stopped")
    return 0


@attrs.define
class Made:
    """What a start of the server makes for its database (directories, the database and the files
    beside it), so that a start that fails leaves no new file behind. An existing file is never
    removed, and nothing is removed once the server has listened (it may have recorded games)."""

    directories: list[Path]  # missing before the start, the deepest last
    files: list[Path] = attrs.Factory(list)  # the database's files missing once its lock was taken

    @classmethod
    def before(cls, path: Path) -> Made:
        missing: list[Path] = []
        directory = path.absolute().parent
        while not directory.exists() and directory != directory.parent:
            missing.insert(0, directory)
            directory = directory.parent
        return cls(missing)

    def database_files(self, path: Path) -> None:
        """Note the database's files if the database is missing: this start makes it. Only under its
        lock, as a server that held it meanwhile could have made it and recorded games in it. The
        files beside an existing database are its own, and may hold what the file does not yet."""
        target = path.resolve()  # where the store makes a database named by a link to no file yet
        if os.path.lexists(target):
            return
        names = dict.fromkeys([target, *(Path(f"{name}{side}") for name in (path, target) for side in SIDES)])
        self.files = [name for name in names if not os.path.lexists(name)]

    def remove(self, lock: WriterLock | None = None) -> None:
        """Remove what this start made: the database's files while the lock is held, then the lock
        file (``lock``, which is released), then the directories, each only if it is empty."""
        for name in self.files:
            with contextlib.suppress(OSError):  # gone, or not allowed: what could be removed is
                name.unlink()
        self.files = []
        if lock is not None:
            lock.discard()
        for directory in reversed(self.directories):
            try:
                directory.rmdir()
            except OSError:  # not empty (someone else's file), or gone: the rest stays too
                break
        self.directories = []


#: The files SQLite may keep beside a database: the write-ahead log, its index, a rollback journal.
SIDES = ("-wal", "-shm", "-journal")


def _quietly_piped(show: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command that prints, ending quietly with status 0 if whoever reads its output stops
    reading (``notty-server replay 7 | head``): it has what it wanted, which is no error."""
    try:
        status = show(args)
        sys.stdout.flush()  # here, not at exit, where a closed pipe could only be reported
    except BrokenPipeError:
        stdout_to_nowhere()
        return 0
    return status


def _show_record(args: argparse.Namespace) -> int:
    """``games`` and ``replay``: readers. They open the database read-only and take no lock, so they
    work beside a running server and on a database they may not write."""
    path = args.db or default_path()
    if path is None:
        sys.stderr.write(f"notty-server: {NO_HOME}\n")
        return 1
    if not path.exists():
        sys.stderr.write(f"notty-server: no database at {path} (no game recorded yet?)\n")
        return 1
    try:
        store = Store(path, read_only=True)
    except StoreError as error:
        sys.stderr.write(f"notty-server: {error}\n")
        return 1
    try:
        if args.command == "games":
            print_games(store.games(), sys.stdout)
            return 0
        try:
            saved = store.game(args.game)
            if saved is None:
                sys.stderr.write(f"notty-server: there is no game {args.game} in {path}\n")
                return 1
            print_game(saved, sys.stdout)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:  # a damaged record
            sys.stdout.flush()
            why = (
                str(error)
                if isinstance(error, ValueError)
                else f"its record is damaged ({type(error).__name__})"
            )
            sys.stderr.write(f"notty-server: game {args.game} cannot be replayed: {why}\n")
            return 1
        return 0
    except StoreError as error:
        sys.stdout.flush()
        sys.stderr.write(f"notty-server: {error}\n")
        return 1
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
