"""The server's brain, sans-IO: lobby, tables, seats and games, driven by messages and the clock.

The network shell feeds it each client's messages (``handle``), connections
coming and going, and the time (``tick``); it answers with the messages to
send, as ``(connection, message)`` pairs. Bot decisions are CPU work the
shell runs off the event loop: ``bot_jobs`` says which seats a bot should
play now, ``bot_acted`` applies the choice if the game has not moved on.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import logging
import math
import random
import re
import secrets
import time
from collections.abc import Callable, Container, Iterable, Mapping
from typing import Any

import attrs

from games import (
    GAMES,
    ActionError,
    Game,
    HintAnswer,
    SettingsError,
    bot_defaults,
    changed_options,
    describe,
    hands_hidden,
)
from games._ui import game_and_variant
from games._words import counted
from protocol import (
    GAME_ENDED,
    MAX_FRAME,
    MAX_NAME,
    MAX_SEATS,
    MAX_SPECTATORS,
    PROTOCOL_VERSION,
    TABLE_INFO,
    Act,
    AskHint,
    Autopilot,
    Bye,
    CreateTable,
    Error,
    Goodbye,
    Hello,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Notice,
    Ping,
    PlayForMe,
    Pong,
    Resign,
    Seated,
    Start,
    Tables,
    Watch,
    Watching,
    Welcome,
    list_header_size,
    packed_size,
)

from .journal import AutopilotSet, Record, Resigned, SavedGame, SeatLeft, StandInSet
from .limits import DEFAULT_LIMITS, Limits, TokenBucket, announced
from .record import rebuild_with_last
from .resign import conceded, ends_at_once
from .tables import (
    TIME_UP,
    BotJob,
    Clock,
    ConnId,
    Driver,
    Outgoing,
    Refusal,
    Seat,
    Table,
    own_stream,
    own_view,
    played_for,
    running,
    seat_bots,
    states,
    unfinished,
    whole_seconds,
)

log = logging.getLogger("notty.host")
#: What a seat token of a game stopped unrecorded (see :meth:`Host.halt`) is told until the restart
#: that restores the game: it is not gone, so not worth forgetting.
GAME_STOPPED = (
    "the game at table {table} was stopped, since the server could not record it: once the server's "
    "operator has fixed this and restarted the server, your seat token resumes the game where you "
    "last saw it, so keep it"
)

#: What a seat token of a game in another record is told: a server started on another database
#: does not know it, but the server on its own record does, so it is worth keeping.
OTHER_RECORD = (
    "that seat token is of a game in another record than this server keeps: was it started on another "
    "database? Once it runs on its own again, your seat token resumes the game, so keep it"
)
#: A seat token begins with the id of its game's record (Store.record_id), then 43 random
#: characters: so a server tells a token of another record from one of a game gone. A server with
#: no record (the client's built-in one) gives the random part alone.
RECORD_ID = re.compile(r"[0-9a-f]{12}")
TOKEN_RANDOM_CHARACTERS = 43


def seat_token(record: str | None) -> str:
    """A new seat token for a game in ``record``: unguessable (256 random bits)."""
    return (record or "") + secrets.token_urlsafe(32)


def record_of(token: str) -> str | None:
    """The record a seat token says its game is in, if it says one."""
    record = token[:-TOKEN_RANDOM_CHARACTERS]
    return record if RECORD_ID.fullmatch(record) else None


#: The most tables a list names: a two-seat Notty table lists in about 150 bytes, so this many fit
#: in one frame; tables of more seats list longer, and fewer of them are sent (see build_table_list).
MAX_LISTED = 200
#: The packed size of a ``tables`` message listing nothing, but for its list's header.
_EMPTY_LIST = packed_size(Tables.unchecked(tables=()).wire_body()) - list_header_size(0)
#: Addresses whose allowance of games is tracked before those grown back in full are forgotten.
MAX_ADDRESSES_COUNTED = 10_000
#: A hint's text and actions as the protocol bounds them.
MAX_HINT_TEXT = 2000
MAX_HINT_ACTIONS = 50
#: The tables a refusal for too many from one address names, of the address's open ones.
MAX_TABLES_NAMED = 10


#: Messages that change nothing the lobby's list shows (a move may end a game: the driver notes that).
_LEAVES_LIST_AS_IS = (Ping, ListTables, AskHint, PlayForMe, Act)


@attrs.define
class Session:
    address: str | None = None  # the peer's address as the per-address caps count it (server.limits)
    name: str | None = None
    table: int | None = None
    seat: int | None = None  # None at a table: watching
    # Its table's changes (``Table.shown``) when it was last heard from (a ping every 20 s, at
    # least): what it surely saw, should its player come back on another connection while this
    # one, gone half-open (a laptop asleep), is still open (``Seat.seen``).
    heard: int = 0


@attrs.define(eq=False)
class HintJob:
    """Run ``solve`` (the game's pure hint job) for ``conn``, then pass its answer to ``hint_ready``.

    Until then the seat has a hint out and may not ask for another (see ``Host._hint``).
    """

    conn: ConnId
    solve: Callable[[], HintAnswer]
    table: int | None = None
    seat: int | None = None
    address: str | None = None  # the asker's: whose share of the worker threads it takes
    moves: int | None = None  # the table's count of actions when asked: an answer for an older one is stale


def hint_message(answer: HintAnswer) -> Hint:
    return Hint(answer.text[:MAX_HINT_TEXT], answer.actions[:MAX_HINT_ACTIONS], answer.data)


def tables_named(numbers: Iterable[int]) -> str:
    """``table 7``, ``tables 3, 5, 7``: the first few, in order (a bare "(12)" read as a count)."""
    ordered = sorted(numbers)
    shown = ", ".join(map(str, ordered[:MAX_TABLES_NAMED])) + (
        ", ..." if len(ordered) > MAX_TABLES_NAMED else ""
    )
    return f"table {shown}" if len(ordered) == 1 else f"tables {shown}"


def _hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class Host:
    """Lobby and seats: who is connected, at which table, in which seat; the tables' matches
    are the :class:`~server.tables.Driver`'s."""

    def __init__(
        self,
        *,
        new_rng: Callable[[], random.Random],
        new_token: Callable[[], str],
        name: str = "notty",
        grace: float = 60.0,
        first_table: int = 1,
        max_tables: int = 1000,
        tables_per_address: int = 50,
        abandon_after: float = 43200.0,
        bot_tables_per_address: int | None = None,
        games_per_hour: int | None = None,
        bot_only_delay: float = 0.0,
        watch_delay: float = 0.0,
        games: Mapping[str, Game] = GAMES,
        wall_clock: Callable[[], float] = time.time,
        record: str | None = None,
    ) -> None:
        self.name = name
        self.record = record  # the id of the record this server keeps its games in (see record_of)
        self.grace = grace
        self.max_tables = max_tables  # each table holds a game and its bots: memory a client could claim
        self.tables_per_address = tables_per_address  # so that one client cannot claim them all
        # A game nobody comes back to must not hold a table for ever: one client could fill them all.
        self.abandon_after = abandon_after
        # What one address may have recorded (None: no cap): see server.limits.Limits.
        self.bot_tables_per_address = bot_tables_per_address
        self.games_per_hour = games_per_hour
        self.bot_only_delay = bot_only_delay
        # A table of bots alone plays only while someone watches it: up to this many seconds
        # between its bots' actions, as its creator asks (bot_delay_ms), so that they can follow.
        self.watch_delay = watch_delay
        # Whether a game's moves are kept on disk (the shell says: a server with no store, the
        # client's built-in one, keeps none): only then is a player told its id to replay it by.
        self.recorded = True
        self._games_begun: dict[str, TokenBucket] = {}  # per address, while not full
        self.games = games
        # Built, and checked against the protocol, once: a game that describes itself wrongly
        # stops the server here rather than every connection's hello. The limits it says are the
        # defaults until the shell that holds connections to its own says them (announce_limits).
        self._welcome = Welcome(
            PROTOCOL_VERSION,
            name,
            tuple(describe(game) for game in games.values()),
            limits=announced(DEFAULT_LIMITS),
        )
        self._new_rng = new_rng
        self._new_token = new_token
        self.sessions: dict[ConnId, Session] = {}
        self._next_table = first_table
        self._hints: list[HintJob] = []  # asked for, not yet handed to the shell
        # Every hint not yet answered, by table and seat: the shell answers each through hint_ready.
        self._hints_out: dict[tuple[int | None, ...], HintJob] = {}  # by _asker
        # Watchers who asked for the hint of a position another watcher's job is working out: they
        # share its answer, not a solve each (by table and position; the job's own asker not listed).
        self._watchers_waiting: dict[tuple[int, int], tuple[HintJob, list[ConnId]]] = {}
        self._journal: list[Record] = []
        # Tables where a bot may have become due since bot_jobs last looked: checking only
        # these keeps the shell's call after every message independent of the table count.
        self._stirred: set[int] = set()
        self.driver = Driver(self._journal, self._stirred, wall_clock)
        self.clock = Clock()  # the time of the latest call: views say how long a timed turn has left
        self.driver.unattended_delay = bot_only_delay
        self.driver.unattended_per_address = bot_tables_per_address
        self._listed: tuple[int, Tables] | None = None  # the lobby's list, and driver.listing then
        self._infos: dict[int, tuple[Mapping[str, Any], int]] = {}  # each listed table's entry, checked
        # The table of each seat token's hash: a hello that resumes looks at one table's seats, not
        # every seat of every table (a thousand tables' worth of compares for each hello). Entries of
        # seats gone are dropped when met, and all at once when they outnumber the seats.
        self._token_tables: dict[bytes, int] = {}
        # Hellos whose seat token is of a game gone, or a seat given up, that the store has yet to
        # record: answered once it has (see stored), as gone, or as stopped where it went unrecorded.
        self._unanswered: list[tuple[ConnId, bytes]] = []

    @property
    def tables(self) -> dict[int, Table]:
        return self.driver.tables

    def announce_limits(self, limits: Limits) -> None:
        """Say in every welcome from now on the rates and bursts each connection is held to: the
        shell that holds them to ``limits`` says so as it takes the host."""
        self._welcome = attrs.evolve(self._welcome, limits=announced(limits))

    # -- persistence -------------------------------------------------------------

    def take_journal(self) -> list[Record]:
        """What changed since the last call, to be stored before the replies are sent."""
        records = list(self._journal)
        self._journal.clear()
        return records

    def restore(self, saved: SavedGame, now: float) -> None:
        """Bring back an unfinished game from the store, exactly as it was.

        Its humans count as dropped just now: they resume with their tokens
        within the grace period, or bots stand in once someone is watching;
        where a bot already stood in for one, it stands in still.
        """
        self.clock.now = now
        begun = saved.begun
        game = self.games.get(begun.game)
        if game is None:
            raise ValueError(f"this server hosts no game {begun.game!r}")
        seats = [
            Seat(
                name=record.name,
                bot=record.bot,
                token_hash=None if index in saved.left else record.token_hash,  # left: no way back
                dropped_at=None if record.bot is not None or index in saved.left else now,
                stand_in=index in saved.left,
            )
            for index, record in enumerate(begun.seats)
        ]
        table = Table(
            id=begun.table,
            game=game,
            settings=game.settings(begun.variant, len(seats), begun.options),
            seats=seats,
            creator=None,
            bot_delay=begun.bot_delay,
            turn_seconds=begun.turn_seconds,
            begun_at=saved.started_at,
            clock=self.clock,
            # Values as the settings hold them: what matters later is which ones were chosen.
            asked={name: begun.options.get(name) for name in begun.asked or ()},
        )
        rng = self._new_rng()
        game_rng = own_stream(rng)
        table.bots = seat_bots(table, rng)
        # The seats whose own bots made every move there (not a bot playing on for a person who left).
        own = [i for i, seat in enumerate(begun.seats) if seat.bot is not None and i not in saved.left]
        for index in saved.autopilot:
            seats[index].autopilot = True
        for index, _ in saved.resigned:
            seats[index].resigned = seats[index].stand_in = True
            table.resigned.append(index)
        table.match, last_events = rebuild_with_last(saved, game_rng, table.bots, own, self.games)
        table.moves = len(saved.moves)
        if _ran_out_this_turn(saved, table.match.current):  # the bot plays on, as the record says
            seats[table.match.current].auto = seats[table.match.current].timed_out = True
        self._next_table = max(self._next_table, table.id + 1)
        if self.driver.note_end(table):  # it ended, but the record had not said so: say it now, and let it go
            self.driver.remember_the_end(table)
            return
        for index in sorted(saved.left | saved.stood_in):  # bots play these: the game may want to know
            self.driver.stand_in(table, index)  # (nobody to tell)
        table.last_events = last_events  # the last move's, as a player who comes back saw it before
        if saved.moves:  # and whether a bot made it for its person, which they saw too
            table.last_played_for = played_for(saved.moves[-1].seat, saved.moves[-1].by)
        for seat in seats:  # what happened before the restart is not kept: what happens from now on is
            seat.seen = table.shown if seat.dropped_at is not None else None
        table.turn_started = now
        table.empty_since = now  # nobody is at it yet: a game of bots alone waits the grace for a watcher
        self.tables[table.id] = table
        for seat in seats:
            if seat.token_hash is not None:
                self._note_token(seat.token_hash, table.id)
        self.driver.listing += 1
        self._stirred.add(table.id)
        log.info("table %d restored at turn %d", table.id, table.match.turn)

    def halt(
        self,
        table_ids: Iterable[int],
        why: str,
        unbegun: Container[int] = (),
        leavers: Iterable[tuple[ConnId, int]] = (),
    ) -> list[Outgoing]:
        """Stop tables whose last changes the store could not record: their game goes no further here.

        Whatever the failed write carried was never acknowledged (the shell
        drops the replies held for it), so the record still ends at the last
        state everyone saw; a restart restores the game from there, and its
        seats' tokens resume it; unless the game's very start is what failed
        (its table is in ``unbegun``): then there is nothing to resume. Everyone
        at a stopped table is told why and sent back to the lobby, and so is
        each of ``leavers`` (connection, table) whose leave went unrecorded.
        The tokens of seats given up, and of games gone, are :meth:`stored`'s.
        """
        out: list[Outgoing] = []
        leaving = list(leavers)
        for table_id in table_ids:
            table = self.tables.pop(table_id, None)
            told = [conn for conn, left in leaving if left == table_id and conn in self.sessions]
            if table is None and not told:
                continue
            if table is not None:
                self.driver.listing += 1
                if table_id not in unbegun:  # its seats' tokens (a leaver's are kept by stored)
                    self.driver.remember_the_stop(table_id, [seat.token_hash for seat in table.seats])
            # (Gone already, if the unrecorded leave left its bots alone: a restart brings it back.)
            log.error("table %d stopped: its game could not be recorded (%s)", table_id, why)
            if table_id in unbegun:
                text = (
                    f"the server could not record the start of the game at table {table_id} "
                    f"({why[:120]}), so it did not begin, and nothing of it is kept"
                )
            else:
                text = (
                    f"the server could not record the last change at table {table_id} ({why[:120]}), so "
                    "it did not happen and the game stops here. Nothing before it is lost: once the "
                    "server's operator has fixed this and restarted the server, your seat token resumes "
                    "the game where you last saw it."
                )
            for conn, _ in () if table is None else table.viewers():
                session = self.sessions.get(conn)
                if session is not None and session.table == table_id:
                    session.table = session.seat = None
                    told.append(conn)
            out += [
                (conn, message)
                for conn in told
                for message in (Error("not-recorded", text[:500]), Left(table_id))
            ]
        return out

    def stored(self, failed: Container[int] = ()) -> list[Outgoing]:
        """The store recorded what :meth:`take_journal` gave it, but the changes of the ``failed``
        tables (which :meth:`halt` stops): the seat tokens of games gone meanwhile, and of seats
        given up, are told from now on that the game is over (how, if it ended), or, where that went
        unrecorded, that it stopped (the next start restores it); and so are the hellos that offered
        one of them meanwhile."""
        if not self.driver.unsettled and not self._unanswered:  # as nearly always: asked after every message
            return []
        self.driver.settle(failed)
        waiting, self._unanswered = self._unanswered, []
        return [(conn, self._seat_gone(digest, conn)) for conn, digest in waiting if conn in self.sessions]

    # -- connections -----------------------------------------------------------

    def connect(self, conn: ConnId, address: str | None = None) -> None:
        self.sessions[conn] = Session(address)

    def disconnect(self, conn: ConnId, now: float) -> list[Outgoing]:
        """The connection is gone: keep a seat in a running game for ``grace`` seconds."""
        self.clock.now = now
        session = self.sessions.pop(conn, None)
        if session is None or session.table is None:
            return []
        self.driver.listing += 1  # a seat shows as not connected, or a spectator fewer
        table = self.tables[session.table]
        if session.seat is None:
            table.spectators.discard(conn)
            self._forget_if_empty(table)
            return []
        seat = table.seats[session.seat]
        seat.conn = None
        if table.match is None:  # not started: the seat is simply free again
            said = f"{seat.name} left the table (connection lost){_heir(table, conn)}"
            gone = table.notice(session.seat, "left", said)
            _free_waiting_seat(table, session.seat, conn)
            self._forget_if_empty(table)
            return gone + table.seat_news(conn)
        # A connection that closed had been sent all there was (a peer killed closes at once); one
        # still open when its player is back on another is not so sure (see ``_hello``).
        seat.dropped_at, seat.seen = now, table.shown
        if table.over:  # nothing to hold the seat for (a resignation may have ended the game)
            gone = table.notice(session.seat, "left", f"{seat.name} left the table")
            self._forget_if_empty(table)  # the last one gone: the finished game leaves the list
            return gone
        # (held "for 2147483647 s", where an operator holds seats for good: --grace inf)
        kept = "for good" if math.isinf(self.grace) else f"for {whole_seconds(self.grace)} s"
        held = f"{seat.name} dropped; their seat is held {kept}"
        if self.driver.closing:  # the server stops: no grace runs out before the restart restores it
            held = f"{seat.name}'s connection closed as the server stops; their seat is kept for its restart"
        if seat.autopilot and table.running:  # it plays on: "held" alone reads as a game that waits
            held += ", and their autopilot plays their turns"
        return table.notice(session.seat, "dropped", held, self.grace)

    def tick(self, now: float) -> list[Outgoing]:
        """Let time pass: dropped players past their grace get a stand-in; slow turns get help."""
        self.clock.now = now
        return self.driver.tick(now, self.grace, self.abandon_after)

    # -- messages --------------------------------------------------------------

    def handle(self, conn: ConnId, message: Message, now: float) -> list[Outgoing]:
        """The replies to one message from ``conn`` (which the protocol layer found legal now)."""
        self.clock.now = now
        session = self.sessions[conn]
        try:
            out = self._dispatch(conn, message, now)
        except Refusal as refusal:  # it changed nothing: the lobby's list stays as built
            return [(conn, Error(refusal.code, refusal.message[:500], refusal.rule))]
        finally:
            if session.table in self.tables:
                session.heard = self.tables[session.table].shown
        if not isinstance(message, _LEAVES_LIST_AS_IS):
            self.driver.listing += 1
        return out

    def _dispatch(self, conn: ConnId, message: Message, now: float) -> list[Outgoing]:
        session = self.sessions[conn]
        match message:
            case Hello():
                return self._hello(conn, session, message)
            case ListTables():
                return [(conn, self.table_list())]
            case CreateTable():
                _in_lobby(session)
                return self._create(conn, session, message, now)
            case Join(table_id, seat):
                _in_lobby(session)
                return self._join(conn, session, self._table(table_id), seat, now)
            case Watch(table_id):
                _in_lobby(session)
                return self._watch(conn, session, self._table(table_id))
            case Start():
                return self._start(conn, session, now)
            case Leave():
                return self._leave(conn, session)
            case Act(text):
                return self._act(session, text, now)
            case AskHint():
                return self._hint(conn, session)
            case PlayForMe():
                return self._play_for_me(session)
            case Autopilot(on):
                return self._autopilot(session, on, now)
            case Resign():
                return self._resign(session, now)
            case Ping(nonce):
                return [(conn, Pong(nonce))]
            case Bye():
                return [(conn, Goodbye("bye"))]
        raise Refusal("not-now", f"{message.TYPE} is not something a server answers")  # pragma: no cover

    def table_list(self) -> Tables:
        """The lobby's list, built (and checked) once per change to what it shows, not per request:
        a list of 200 tables costs milliseconds to build, and any client may ask for it."""
        listed = self._listed
        if listed is None or listed[0] != self.driver.listing:
            listed = self._listed = (self.driver.listing, self.build_table_list())
        return listed[1]

    def build_table_list(self) -> Tables:
        """The newest tables, as many as fit in one frame (a table of many seats lists longer),
        listed oldest first: a table keeps its place in the list as newer ones come."""
        newest = sorted(self.tables.values(), key=lambda table: -table.id)[:MAX_LISTED]
        entries = [self._checked_info(table) for table in newest]
        self._infos = {table.id: self._infos[table.id] for table in newest}  # the others' are not kept
        room = MAX_FRAME - _EMPTY_LIST  # the bytes left for the list's header and entries
        count = total = 0
        for _, size in entries:
            if list_header_size(count + 1) + total + size > room:
                break
            total += size
            count += 1
        infos = [info for info, _ in reversed(entries[:count])]
        # Sent as the plain maps it was built from: the checked message holds read-only copies, which
        # pack eight times slower, and it goes out to anyone who asks.
        return Tables.unchecked(tables=tuple(infos))

    def _checked_info(self, table: Table) -> tuple[Mapping[str, Any], int]:
        """A table's entry in the lobby's list and its packed size, checked against the protocol
        when it differs from the one last checked (a game describing a table wrongly is our bug): a
        change at one table lists them all again without checking or measuring the other 199."""
        info = table.info()
        known = self._infos.get(table.id)
        if known is None or known[0] != info:
            TABLE_INFO.check(info, f"tables[{table.id}]")
            known = self._infos[table.id] = (info, packed_size(info))
        return known

    def _hello(self, conn: ConnId, session: Session, hello: Hello) -> list[Outgoing]:
        if hello.version != PROTOCOL_VERSION:  # the protocol layer checks too; stay safe
            return [
                (conn, Error("version", f"this server speaks version {PROTOCOL_VERSION}")),
                (conn, Goodbye("version")),
            ]
        # Spaces the protocol allows but nobody sees ("ann " beside "ann", "ann  b"): one between words.
        session.name = " ".join(hello.name.split())
        log.info(
            "connection %d is %s%s", conn, session.name, ", asking for a seat back" if hello.token else ""
        )
        out: list[Outgoing] = [(conn, self._welcome)]
        if hello.token is None:
            return out
        other = record_of(hello.token)
        if self.record is not None and other is not None and other != self.record:
            log.info(
                "connection %d: %s offered a seat token of another record (%s): was this server started on "
                "another database?",
                conn,
                session.name,
                other,
            )
            return [*out, (conn, Error("other-record", OTHER_RECORD))]
        digest = _hash(hello.token)
        found = self._seat_with(digest)
        if found is None and digest in self.driver.unsettled:  # answered once the store has its fate
            self._unanswered.append((conn, digest))
            return out
        if found is None:
            return [*out, (conn, self._seat_gone(digest, conn))]
        table, index = found
        seat = table.seats[index]
        if seat.conn is not None:  # the old connection is still here: it loses the seat
            seat.seen = self.sessions[seat.conn].heard  # it may be dead: a few moves twice
            out += self._evict(seat.conn)
            if table.creator == seat.conn:  # and whatever its seat may do: start, say
                table.creator = conn
        returned: list[Outgoing] = []
        if seat.conn is None and (seat.dropped_at is not None or seat.stand_in):  # seen back
            # The bot stops only if it played for their absence: not for a resignation
            # or an autopilot, which outlast it, nor once the game is over.
            stops = seat.stand_in and not (seat.resigned or seat.autopilot or table.over)
            back = f"{seat.name} is back" + (": the bot stops" if stops else "")
            out += table.notice(index, "returned", back)
            if stops:  # the player too: a bot played their turns while they were away
                name = seat.name or f"seat-{index}"
                returned = [(conn, Notice(table.id, index, name, "returned", back))]
        if seat.stand_in and not seat.resigned:  # the bot that played for their absence stops, for good
            self._journal.append(StandInSet(table.id, index, False))
        seat.conn, seat.dropped_at, seat.stand_in = conn, None, seat.resigned
        table.unpause(self.clock.now)
        if returned and table.match is not None:  # the others' views named the bot: not now
            out += states(table, (), [(to, at) for to, at in table.viewers() if to != conn])
        self._stirred.add(table.id)
        session.table, session.seat = table.id, index
        out.append((conn, Seated(table.id, index, hello.token)))
        if table.match is not None:
            out += _back(table, index, conn)
        out += returned
        if seat.timed_out and table.running:  # perhaps told nobody: they were away
            late = "your time for this turn ran out: the server plays the rest of it"
            out.append((conn, Error("turn-time", late)))
        if seat.autopilot and table.running:  # it outlasted the drop: say so again
            told = table.notice(index, *_autopilot_news(seat.name or f"seat-{index}", True))
            out += [(to, notice) for to, notice in told if to == conn]
        return out

    def _seat_gone(self, digest: bytes, conn: ConnId) -> Error:
        """The answer to a seat token no seat here holds, offered by ``conn``: of a game stopped
        unrecorded (kept for the restart that restores it), of one that ended (how), or of nothing
        known, which is logged: a restart on another database makes every client forget its seat,
        and this is the line that shows it."""
        if (stopped := self.driver.stopped.get(digest)) is not None:
            return Error("game-stopped", GAME_STOPPED.format(table=stopped))
        ended = self.driver.ended.get(digest)  # a result's text is at most 400 characters: it fits
        if ended is None:
            log.info(
                "connection %d: %s offered a seat token no game here holds", conn, self.sessions[conn].name
            )
        why = f": {GAME_ENDED}{ended}" if ended is not None else " (its game is over, or you left it)"
        return Error("bad-token", f"that seat token is not valid here{why}")

    def _seat_with(self, digest: bytes) -> tuple[Table, int] | None:
        """The table and seat whose token hashes to ``digest``, if a seat still holds it."""
        table = self.tables.get(self._token_tables.get(digest, -1))
        if table is not None:
            for index, seat in enumerate(table.seats):
                if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                    return table, index
        self._token_tables.pop(digest, None)  # its seat or table is gone
        return None

    def _note_token(self, digest: bytes, table: int) -> None:
        self._token_tables[digest] = table
        # Against the most seats the tables could hold, not a count of them: no walk of every table
        # on each join; a walk only to rebuild, once the entries outnumber twice that.
        if len(self._token_tables) > 2 * MAX_SEATS * len(self.tables) + 64:
            self._token_tables = {  # most are of seats gone: keep only those still held
                seat.token_hash: each.id
                for each in self.tables.values()
                for seat in each.seats
                if seat.token_hash is not None
            }

    def _too_many_tables(self, address: str, mine: list[Table]) -> str:
        """Which tables stand in the way, and what clears them: a script that ends mid-game keeps its
        seat (for ``--resume``), so a script run in a loop met this cap with nothing to say which."""
        shown = tables_named(table.id for table in mine)
        hours = self.abandon_after / 3600
        after = f"{hours:g} h" if hours >= 1 else f"{self.abandon_after:g} s"
        created = counted(self.tables_per_address, "table")
        are = "is" if self.tables_per_address == 1 else "are"
        return (
            f"{created} created from {address} {are} still open ({shown}), the most one "
            "address may have: finish or leave one of them first (a seat kept for you is taken back with "
            f"--resume), or wait: one nobody is at is given up after {after}"
        )

    def _evict(self, conn: ConnId) -> list[Outgoing]:
        session = self.sessions.get(conn)
        if session is not None:
            session.table = session.seat = None
        why = "your seat was resumed from another connection, which has it now"
        return [(conn, Error("resumed-elsewhere", why)), (conn, Goodbye(why))]

    def _create(self, conn: ConnId, session: Session, request: CreateTable, now: float) -> list[Outgoing]:
        if self._full(list(self.tables.values()), self.max_tables):
            raise Refusal(
                "too-many-tables",
                f"the server already holds its limit of {counted(self.max_tables, 'table')}: "
                "join or watch one, or try again when a game is over",
            )
        address = session.address
        if address is not None:
            mine = [table for table in self.tables.values() if table.address == address]
            if self._full(mine, self.tables_per_address):
                open_now = [table for table in mine if table.id in self.tables]  # _full forgot the finished
                raise Refusal("too-many-tables", self._too_many_tables(address, open_now))
        game = self.games.get(request.game)
        if game is None:
            raise Refusal(
                "unknown-game",
                f"this server hosts no game {request.game!r}: games are {', '.join(self.games)}",
            )
        # A table where a bot plays takes the game's defaults for one (Notty: a turn limit).
        asked = bot_defaults(game, request.options) if request.bots else request.options
        try:
            settings = game.settings(request.variant, request.seats, asked)
            game.offered(settings)  # a new table: what this server hosts, beyond what the rules allow
        except SettingsError as error:
            raise Refusal(error.code, error.message) from None
        unknown = [bot for bot in request.bots if bot not in game.bots]
        if unknown:
            raise Refusal(
                "unknown-bot", f"unknown bot(s) {', '.join(unknown)}: bots are {', '.join(game.bots)}"
            )
        if len(request.bots) > request.seats:
            raise Refusal("too-many-bots", f"{len(request.bots)} bots for {request.seats} seats")
        humans = request.seats - len(request.bots)
        if address is not None:
            self._check_record_allowance(address, not humans, now)
        seats = [Seat() for _ in range(humans)]
        seats += [
            Seat(name=_numbered(bot, humans + i + 1), bot=game.seat_bot(bot, settings))
            for i, bot in enumerate(request.bots)
        ]
        table = Table(
            id=self._next_table,
            game=game,
            settings=settings,
            seats=seats,
            creator=conn,
            address=session.address,
            bot_delay=request.bot_delay_ms / 1000 if humans else self._watched_pace(request.bot_delay_ms),
            turn_seconds=request.turn_seconds,
            asked=dict(request.options),
            recorded=self.recorded,
            clock=self.clock,
        )
        self._next_table += 1
        self.tables[table.id] = table
        if address is not None and self.games_per_hour is not None:
            self._games_begun[address].take(now)
        bots = [seat.bot for seat in seats if seat.bot]
        log.info(
            "table %d created by %s: %s, %d seats%s%s",
            table.id,
            session.name,
            game_and_variant(settings.game, settings.variant),  # 'huxxy', not 'huxxy huxxy'
            len(seats),
            f", bots {', '.join(bots)}" if bots else "",
            f", played with {changed}" if (changed := changed_options(settings, game)) else "",
        )
        if humans:  # its creator sees it as the lobby lists it, while it waits for players
            return self._join(conn, session, table, 0, now)
        return self._watch(conn, session, table) + self._begin(table, now)

    def _watched_pace(self, asked_ms: int) -> float:
        """The pause between actions at a new table of bots alone: what its creator asked for, up
        to ``watch_delay``, and never under the operator's ``bot_only_delay``."""
        return max(self.bot_only_delay, min(asked_ms / 1000, self.watch_delay))

    def _check_record_allowance(self, address: str, bots_only: bool, now: float) -> None:
        """Refuse a table the record could not afford from ``address``: every table is a game the
        store keeps, and a table of bots alone plays (and records) with nobody there to pace it."""
        if bots_only and self.bot_tables_per_address is not None:
            mine = [table for table in self.tables.values() if table.address == address and table.bots_alone]
            if self._full(mine, self.bot_tables_per_address):
                playing = [table.id for table in mine if table.id in self.tables]  # _full forgot the finished
                raise Refusal(
                    "too-many-bot-tables",
                    f"{self.bot_tables_per_address} tables of bots alone created from {address} are still "
                    f"playing ({tables_named(playing)}), the most one address may have: leave one of them "
                    "first, or give the new table a seat of your own",
                )
        if self.games_per_hour is None:
            return
        bucket = self._games_begun.get(address)
        if bucket is None:
            if len(self._games_begun) >= MAX_ADDRESSES_COUNTED:
                self._forget_full_buckets(now)
            bucket = self._games_begun[address] = TokenBucket(self.games_per_hour / 3600, self.games_per_hour)
        tokens = bucket.available(now)
        if tokens < 1:
            wait = math.ceil((1 - tokens) / bucket.rate / 60)
            raise Refusal(
                "too-many-games",
                f"{self.games_per_hour} games were started from {address} within the last hour, the most "
                f"one address may start: the next may start in {wait} minute{'s' if wait != 1 else ''}",
            )

    def _forget_full_buckets(self, now: float) -> None:
        """An address whose allowance has grown back in full is no different from a new one."""
        for address, bucket in list(self._games_begun.items()):
            if bucket.full(now):
                del self._games_begun[address]

    def _full(self, tables: list[Table], limit: int) -> bool:
        """Do ``tables`` reach ``limit``, once the finished games nobody is at among them have gone?"""
        if len(tables) < limit:
            return False
        for table in tables:
            self._forget_if_empty(table)
        return sum(table.id in self.tables for table in tables) >= limit

    def _join(
        self, conn: ConnId, session: Session, table: Table, index: int | None, now: float
    ) -> list[Outgoing]:
        if table.match is not None and table.over:
            raise Refusal("game-over", f"the game at table {table.id} is over: watch it, or join another")
        if table.match is not None:
            raise Refusal("game-started", f"table {table.id} is already playing: watch it instead")
        if index is None:
            index = next((i for i, seat in enumerate(table.seats) if seat.free), None)
            if index is None:
                raise Refusal("table-full", f"table {table.id} has no free seat")
        elif index >= len(table.seats):
            raise Refusal("no-such-seat", f"table {table.id} has no such seat (it has {len(table.seats)})")
        elif not table.seats[index].free:
            free = [str(i + 1) for i, seat in enumerate(table.seats) if seat.free]  # numbered from 1
            which = f"seat {free[0]} is" if len(free) == 1 else "seats " + ", ".join(free) + " are"
            takes = "it" if len(free) == 1 else "the first"
            then = f"{which} free ('join {table.id}' takes {takes})" if free else "it has no free seat"
            raise Refusal("seat-taken", f"that seat at table {table.id} is taken: {then}")
        token = self._new_token()
        name = _unique_name(table, session.name or "player")
        digest = _hash(token)
        table.seats[index] = Seat(name=name, token_hash=digest, conn=conn)
        self._note_token(digest, table.id)
        if table.creator is None:  # everyone seated had gone (a spectator kept the table): start is theirs
            table.creator = conn
        session.table, session.seat = table.id, index
        out: list[Outgoing] = [(conn, Seated(table.id, index, token))]
        out += table.notice(index, "joined", f"{name} joined the table", skip=conn)
        if all(not seat.free for seat in table.seats):
            out += self._begin(table, now)
        else:  # the one who sat too: what they wait for is what the table shows now, not an old list
            out += table.seat_news(None)
        return out

    def _watch(self, conn: ConnId, session: Session, table: Table) -> list[Outgoing]:
        if len(table.spectators) >= MAX_SPECTATORS:  # the table list could not say how many more
            raise Refusal(
                "too-many-watchers",
                f"table {table.id} has {MAX_SPECTATORS} watchers, the most a table may have",
            )
        table.spectators.add(conn)
        table.unpause(self.clock.now)
        self._stirred.add(table.id)
        session.table, session.seat = table.id, None
        out: list[Outgoing] = [(conn, Watching(table.id))]
        if table.match is not None:
            out += states(table, table.last_events, [(conn, None)], played_for=table.last_played_for)
        return out

    def _start(self, conn: ConnId, session: Session, now: float) -> list[Outgoing]:
        table, _ = self._my_seat(session)
        if table.match is not None and table.over:  # not "already started": it said nothing of what to do
            raise Refusal("game-over", "the game is over: 'leave' returns to the lobby")
        if table.match is not None:
            raise Refusal("game-started", "the game has already started")
        if table.creator != conn:
            creator = next((seat.name for seat in table.seats if seat.conn == table.creator), None)
            who = f", {creator}," if creator and table.creator is not None else ""
            raise Refusal("not-creator", f"only the table's creator{who} can start the game early")
        if any(seat.free for seat in table.seats):  # bots will play here: the game's defaults for that
            game = table.game
            options = bot_defaults(game, table.asked)
            table.settings = game.settings(table.settings.variant, len(table.seats), options)
        filler = table.game.stand_in(table.settings)
        for index, seat in enumerate(table.seats):
            if seat.free:
                table.seats[index] = Seat(
                    name=_unique_name(table, _numbered(filler, index + 1)), bot=table.stand_in_bot
                )
        return self._begin(table, now)

    def _begin(self, table: Table, now: float) -> list[Outgoing]:
        return self.driver.begin(table, self._new_rng(), now)

    def _leave(self, conn: ConnId, session: Session) -> list[Outgoing]:
        if session.table is None:
            raise Refusal("not-at-table", "you are not at a table")
        table = self.tables[session.table]
        out: list[Outgoing] = []
        if session.seat is None:
            table.spectators.discard(conn)
        elif table.match is None:
            name = table.seats[session.seat].name
            out += table.notice(session.seat, "left", f"{name} left the table{_heir(table, conn)}", skip=conn)
            _free_waiting_seat(table, session.seat, conn)
            out += table.seat_news(conn)
        else:
            seat = table.seats[session.seat]
            if seat.token_hash is not None:  # should the leave go unrecorded, the token resumes it still
                self.driver.given_up(table.id, seat.token_hash)
            # Given up for good: a bot plays it, and its token no longer brings anyone back to it.
            seat.conn, seat.token_hash = None, None
            out += table.notice(session.seat, "left", f"{seat.name} left the table")
            if table.running:  # a bot plays the seat from now on: the list and the record show it
                if table.bots_alone:  # the last person has given up their seat: bots alone play on
                    table.bot_delay = max(table.bot_delay, self.bot_only_delay)
                self._stirred.add(table.id)
                seat.bot = table.stand_in_bot
                self._journal.append(SeatLeft(table.id, session.seat, seat.bot, table.moves))
                if not seat.stand_in:  # the driver marks it, and lets the game know
                    out += self.driver.stand_in(table, session.seat)
        session.table = session.seat = None
        out.insert(0, (conn, Left(table.id)))
        self._forget_if_empty(table)
        return out

    def _act(self, session: Session, text: str, now: float) -> list[Outgoing]:
        table, seat = self._my_seat(session)
        match = running(table)
        _not_resigned(table, seat)
        if not table.over:  # else the game says it is over
            _not_played_for(table.seats[seat])
        try:
            action = match.parse_action(text)
        except ActionError as error:
            raise Refusal(error.code, error.message, error.rule) from None
        return self.driver.apply(table, seat, action, now)

    def _play_for_me(self, session: Session) -> list[Outgoing]:
        table, seat = self._my_seat(session)
        match = unfinished(table)
        _not_resigned(table, seat)
        if match.current != seat:
            raise Refusal("not-your-turn", "'auto' plays the rest of your own turn: it is not your turn")
        table.seats[seat].auto = True
        self._stirred.add(table.id)
        return own_view(table, seat)

    def _autopilot(self, session: Session, on: bool, now: float) -> list[Outgoing]:
        """Turn the asker's own autopilot on or off (a session only ever holds its own seat): while
        it is on, the table's stand-in bot plays each of its turns, the one under way included."""
        table, index = self._my_seat(session)
        unfinished(table)
        _not_resigned(table, index)
        seat = table.seats[index]
        if seat.autopilot != on and not seat.switches.take(now):  # each is a line of the record
            wait = math.ceil((1 - seat.switches.available(now)) / seat.switches.rate)
            stays = "on" if seat.autopilot else "off"
            text = f"your autopilot was switched too often: it stays {stays}; switch it again in {wait} s"
            raise Refusal("switched-too-often", text)
        told = table.notice(index, *_autopilot_news(seat.name or f"seat-{index}", on))
        if seat.autopilot == on:  # nothing changed: the asker alone is answered, so that asking
            return [(conn, notice) for conn, notice in told if conn == seat.conn]  # again is no flood
        seat.autopilot = on
        self._journal.append(AutopilotSet(table.id, index, on))
        self._stirred.add(table.id)  # its turn may be under way: the bot takes it from here
        return told + own_view(table, index)

    def _resign(self, session: Session, now: float) -> list[Outgoing]:
        """Concede (server.resign): ranked last; the game ends now if nobody else is left to play
        for, else a bot plays the seat to the end."""
        table, index = self._my_seat(session)
        match = unfinished(table)
        _not_resigned(table, index)
        seat = table.seats[index]
        name = seat.name or f"seat-{index}"
        people = [i for i, other in enumerate(table.seats) if other.bot is None and other.token_hash]
        ends = ends_at_once(len(table.seats), [*table.resigned, index], people)
        # The turn under way never ends: what it did and has not made final is taken back, after the
        # resignation in the record (which says why: journal.TAKEN_BACK).
        resigned_after = table.moves
        taken_back = self.driver.take_back(table, now) if ends else []
        seat.resigned = True
        self._journal.append(Resigned(table.id, index, resigned_after, len(table.resigned)))
        table.resigned.append(index)
        self._stirred.add(table.id)
        if ends:
            table.conceded = conceded(match.names, table.resigned)
            told = table.notice(index, "resigned", f"{name} resigned: the game is over")
            self.driver.note_end(table)
            return told + self.driver.broadcast(table, taken_back)
        text = f"{name} resigned: a bot plays their seat to the end, and they are ranked last"
        told = table.notice(index, "resigned", text)
        return told + self.driver.stand_in(table, index)

    def _hint(self, conn: ConnId, session: Session) -> list[Outgoing]:
        if session.table is not None and session.seat is None:
            table, seat, solve = self._watcher_hint(self.tables[session.table])
        else:
            table, seat = self._my_seat(session)
            match = unfinished(table)
            _not_resigned(table, seat)
            # The bot 'auto' asks: the hint says its move. Not while that bot plays this very turn (in a
            # worker thread, its state changing as the twin is taken): a fresh adviser's then.
            busy = table.job_out and match.current == seat
            given = match.hint(seat, None if busy else table.bots.get(seat))
            if given is None:
                raise Refusal("no-hints", f"{table.game.title} has no hints")
            solve = given
        job = HintJob(conn, solve, table.id, seat, session.address, table.moves)
        # One hint out per seat (and per watcher), so asking again cannot queue more work.
        if _asker(job) in self._hints_out:
            text = "your last hint is still being worked out: wait for it before asking again"
            raise Refusal("hint-pending", text)
        if seat is None and table.watched_hint is not None and table.watched_hint[0] == table.moves:
            return [(conn, table.watched_hint[1])]  # worked out for another watcher: no work again
        if seat is None:
            position = table.id, table.moves
            # Being worked out for another watcher: its answer is ours.
            if (waiting := self._watchers_waiting.get(position)) is not None:
                out, conns = waiting
                conns.append(conn)
                self._hints_out[_asker(job)] = out
                return []
            self._watchers_waiting[position] = job, []
        self._hints_out[_asker(job)] = job
        self._hints.append(job)
        return []

    def _watcher_hint(self, table: Table) -> tuple[Table, None, Callable[[], HintAnswer]]:
        """A watcher's hint job, where the game's hands are face up: the seat to play's, as the game
        gives it (:meth:`games.Match.watcher_hint`)."""
        solve = unfinished(table).watcher_hint()
        if solve is None:
            raise Refusal("no-hints", hands_hidden(table.game.title))
        return table, None, solve

    def hint_ready(self, job: HintJob, answer: HintAnswer | Error) -> list[Outgoing]:
        """The hint, if its asker still holds the seat it was for (they may have left meanwhile);
        an ``Error`` (the job failed, or the shell had no room for it) goes to the asker as it is.

        Either way the seat's hint is no longer out, and it may ask again. A watcher's answer goes
        to each watcher who asked for the same position meanwhile, as if theirs.
        """
        askers = [job]
        position = (job.table, job.moves) if job.table is not None and job.moves is not None else None
        waiting = self._watchers_waiting.get(position) if position is not None else None
        if position is not None and waiting is not None and waiting[0] is job:  # shared: theirs too
            del self._watchers_waiting[position]
            askers += [attrs.evolve(job, conn=conn) for conn in waiting[1]]
        for asker in askers:  # all of them first: an answer that fails leaves none of them waiting
            if self._hints_out.get(_asker(asker)) is job:
                del self._hints_out[_asker(asker)]
        return [told for asker in askers for told in self._hint_answered(asker, answer)]

    def _hint_answered(self, job: HintJob, answer: HintAnswer | Error) -> list[Outgoing]:
        if isinstance(answer, Error):
            return [(job.conn, answer)] if job.conn in self.sessions else []
        session = self.sessions.get(job.conn)
        if session is None or (session.table, session.seat) != (job.table, job.seat):
            return []
        table = self.tables.get(job.table) if job.table is not None else None
        if table is not None and job.moves is not None and table.moves != job.moves:
            # A move made while it was worked out (typed ahead, a bot's, a timeout's) leaves it for a
            # position gone: "the expert would now: end the turn" after the turn has ended misleads.
            text = "the game moved on while your hint was worked out: ask again for the position now"
            return [(job.conn, Error("hint-stale", text))]
        hint = hint_message(answer)
        if table is not None and job.seat is None and job.moves is not None:  # a watcher's: anyone's
            table.watched_hint = job.moves, hint
        return [(job.conn, hint)]

    def hint_jobs(self) -> list[HintJob]:
        """Hints asked for since the last call: the shell computes them off the event loop, and
        passes each answer to ``hint_ready``."""
        jobs, self._hints = self._hints, []
        return jobs

    # -- bots --------------------------------------------------------------------

    def bot_jobs(self) -> list[BotJob]:
        """Seats a bot should play now, at most one per table; each is handed out once."""
        return self.driver.bot_jobs()

    def close(self) -> None:
        """The server is shutting down: leave every game as it is, for the restart to restore."""
        self.driver.close()

    def bot_acted(self, job: BotJob, action: Any | None, now: float) -> list[Outgoing]:
        """Apply a bot's choice (``None``: the bot failed), unless the game moved on while it thought."""
        self.clock.now = now
        return self.driver.bot_acted(job, action, now)

    # -- helpers -------------------------------------------------------------------

    def _table(self, table_id: int) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            gone = f"there is no table {table_id} (any more): 'tables' lists them now"  # a list seen long ago
            raise Refusal("no-such-table", gone)
        return table

    def _my_seat(self, session: Session) -> tuple[Table, int]:
        if session.table is None or session.seat is None:
            raise Refusal("not-seated", "you do not hold a seat")
        return self.tables[session.table], session.seat

    def _forget_if_empty(self, table: Table) -> None:
        self.driver.forget_if_empty(table)


def _asker(job: HintJob) -> tuple[int | None, ...]:
    """Who has a hint out: a seat (whichever connection holds it: one taken back asks as the same
    seat), or a watcher's connection at that table (gone to watch another, it may ask there: the
    answer for the first is not sent)."""
    return (job.table, job.seat) if job.seat is not None else (job.table, None, job.conn)


def _in_lobby(session: Session) -> None:
    """Refuse a second table to a connection at one already. The protocol's state allows only one,
    but it moves on as replies are sent, and a reply may wait for the record: requests sent
    back to back would otherwise seat one connection at several tables."""
    if session.table is not None:
        raise Refusal("not-now", f"you are at table {session.table} already: 'leave' it first")


def _not_resigned(table: Table, index: int) -> None:
    if table.seats[index].resigned:
        text = "you resigned: a bot plays your seat to the end ('leave' returns to the lobby)"
        raise Refusal("resigned", text)


def _ran_out_this_turn(saved: SavedGame, current: int) -> bool:
    """Did the seat to move run out of time in the turn under way? Its last time-out came after
    moves of its own alone: another seat's move would have been a later turn's."""
    times = [after for seat, after in saved.timed_out if seat == current]
    return bool(times) and all(move.seat == current for move in saved.moves[times[-1] :])


def _back(table: Table, index: int, conn: ConnId) -> list[Outgoing]:
    """The table for a player back at their seat: after the moves made while their connection was
    gone (the last :data:`protocol.AWAY_MOVES`, as many as half a frame holds), or, if none was,
    after the last move (which they saw), as it stands."""
    seat = table.seats[index]
    missed = 0 if seat.seen is None else table.shown - seat.seen
    seat.seen = None
    if not missed:
        return states(table, table.last_events, [(conn, index)], played_for=table.last_played_for)
    kept = list(table.recent)[-missed:]
    while True:  # the moves of any game fit many times over (a few KB); a bound, not a case
        sent = states(table, [event for move in kept for event in move], [(conn, index)], away=missed)
        if len(kept) == 1 or packed_size(sent[0][1].wire_body()) <= MAX_FRAME // 2:
            return sent
        del kept[0]


def _not_played_for(seat: Seat) -> None:
    """Refuse a person's move while a bot plays their turn: the two would take turns at one seat."""
    if seat.timed_out:
        raise Refusal("turn-time", TIME_UP)
    if seat.autopilot:
        text = "you are on autopilot: the server plays your turns ('auto off' to play them yourself)"
        raise Refusal("played-for-you", text)
    if seat.auto:
        raise Refusal("played-for-you", "you asked the server to play the rest of this turn ('auto')")


def _autopilot_news(name: str, on: bool) -> tuple[str, str]:
    """A notice's kind and text for everyone at the table, the seat's own player included."""
    if on:
        return "autopilot-on", f"{name} is on autopilot: the server plays their turns until 'auto off'"
    return "autopilot-off", f"{name} is off autopilot: they play their own turns again"


def _numbered(name: str, number: int) -> str:
    """``name-number``, the name cut so that the whole keeps within a player name's length."""
    suffix = f"-{number}"
    return f"{name[: MAX_NAME - len(suffix)]}{suffix}"


#: Words no seat is called by: the clients say "you" for a reader's own seat, so a player of that name
#: would read to everyone else as themselves ("you draws 2 cards").
_NOT_A_NAME = frozenset({"you"})


def _unique_name(table: Table, wanted: str) -> str:
    """``wanted``, or it with a number, so that no two seats' names differ only in case.

    Players name each other (Notty's ``steal ann``), and the engine needs
    distinct names; ``Ann`` beside ``ann`` would make one of them unreachable.
    """
    taken = {seat.name.casefold() for seat in table.seats if seat.name} | _NOT_A_NAME
    numbered = (_numbered(wanted, n) for n in itertools.count(2))
    return next(
        name for name in itertools.chain([wanted[:MAX_NAME]], numbered) if name.casefold() not in taken
    )


def _heir(table: Table, leaving: ConnId) -> str:
    """What the creator's leaving a waiting table hands on: the first still seated may start it."""
    if table.creator != leaving:
        return ""
    heir = next((seat.name for seat in table.seats if seat.conn is not None and seat.conn != leaving), None)
    return f"; {heir} may now start it early ('start')" if heir else ""


def _free_waiting_seat(table: Table, index: int, leaving: ConnId) -> None:
    """A player leaves a table that has not started: the seat is free again, and if they made
    the table, the first player still seated may now start it early."""
    table.seats[index] = Seat()
    if table.creator == leaving:
        table.creator = next((seat.conn for seat in table.seats if seat.conn is not None), None)
