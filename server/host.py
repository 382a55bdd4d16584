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
import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

import attrs

from protocol import (
    DEFAULT_LEVEL,
    MAX_NAME,
    PRESETS,
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Bye,
    Card,
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
    Ping,
    PlayForMe,
    Pong,
    Rules,
    Seated,
    Start,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
)
from solver import all_best_discards, best_discard, outs

from .bots import BOTS, Bot, make_bot
from .engine import (
    Action,
    ActionSyntaxError,
    Deal,
    Event,
    Game,
    GameEnded,
    IllegalAction,
    Outcome,
    Rule,
    View,
    outcome_of,
    parse_action,
)
from .journal import GameBegun, GameOver, Moved, Record, SavedGame, SeatLeft, SeatRecord
from .wire import event_to_wire, seat_view, view_to_wire

log = logging.getLogger("notty.host")

ConnId = int
Outgoing = tuple[ConnId, Message]

#: The bot that plays at the table's level: seats named so, stand-ins, and early-start fillers.
EXPERT = "expert"
MAX_ALTERNATIVES = 10
#: How the record ends a game of bots that nobody was left to watch.
ABANDONED = "abandoned"
#: A table's listing is about 150 bytes, 300 at most: this many fit inside one 64 KiB frame.
MAX_LISTED = 200


class Refusal(Exception):
    """A request the host turns down; becomes an ``error`` message. Nothing changed."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.rule = code, message, rule


@attrs.define
class Seat:
    name: str | None = None
    bot: str | None = None  # the bot that owns this seat; None for a human seat
    token_hash: bytes | None = None
    conn: ConnId | None = None
    dropped_at: float | None = None  # when its human's connection went
    stand_in: bool = False  # a bot plays this human seat (dropped too long, or left)
    auto: bool = False  # "play for me": a bot plays the rest of this turn

    @property
    def free(self) -> bool:
        return self.bot is None and self.token_hash is None


@attrs.define
class Table:
    id: int
    preset: str
    seats: list[Seat]
    creator: ConnId | None
    bot_delay: float
    turn_seconds: int
    turn_limit: int = 0
    level: str = DEFAULT_LEVEL
    spectators: set[ConnId] = attrs.Factory(set)
    address: str | None = None  # its creator's, for the per-address cap; None once restored
    game: Game | None = None
    bots: dict[int, Bot] = attrs.Factory(dict)
    moves: int = 0  # actions applied so far; a bot job for an older count is stale
    job_out: bool = False
    turn_started: float = 0.0
    empty_since: float | None = None  # since when nobody has been at a running game

    def info(self) -> dict[str, Any]:
        return {
            "table": self.id,
            "preset": self.preset,
            "seats": [
                {
                    "name": seat.name,
                    "bot": seat.bot,
                    "connected": seat.bot is not None or seat.conn is not None,
                }
                for seat in self.seats
            ],
            "started": self.game is not None,
            "over": self.game is not None and self.game.over,
            "spectators": len(self.spectators),
            "turn_seconds": self.turn_seconds,
            "turn_limit": self.turn_limit,
            "level": self.level,
        }

    @property
    def stand_in_bot(self) -> str:
        """The expert at this table's level: it plays for a human after a drop, a turn timeout
        or "play for me", and takes the empty seats when the creator starts early."""
        return bot_at_level(EXPERT, self.level)


@attrs.define
class Session:
    address: str | None = None  # the peer's address as the per-address caps count it (server.limits)
    name: str | None = None
    table: int | None = None
    seat: int | None = None  # None at a table: watching


@attrs.frozen
class HintJob:
    """Solve ``hand`` for ``conn`` (with :func:`make_hint`), then pass it to ``hint_ready``."""

    conn: ConnId
    hand: tuple[Card, ...]
    rules: Rules
    table: int | None = None
    seat: int | None = None


def make_hint(hand: Sequence[Card], rules: Rules) -> Hint:
    """The solver's answer for a hand: its best discard, the other optimal ones, and the outs."""
    best = best_discard(hand, rules)
    best_cards = tuple(sorted(card for group in best for card in group))
    alternatives = [d for d in all_best_discards(hand, rules) if d != best_cards][:MAX_ALTERNATIVES]
    return Hint(
        size=len(best_cards),
        best=tuple(tuple(str(card) for card in group) for group in best),
        alternatives=tuple(tuple(str(card) for card in discard) for discard in alternatives),
        outs=tuple({"card": str(out.card), "gain": out.gain} for out in outs(hand, rules)),
    )


@attrs.frozen
class BotJob:
    """Ask ``bot`` for an action at ``view``, wait ``delay`` seconds, then call ``bot_acted``."""

    table: int
    seat: int
    moves: int
    bot: Bot
    view: Any
    delay: float


def bot_at_level(bot: str, level: str) -> str:
    """The bot a seat named ``bot`` gets at a table of ``level``: a plain ``expert`` plays at the
    table's level; any other name (``expert-hard``, ``greedy``...) is taken as given."""
    return f"{EXPERT}-{level}" if bot == EXPERT else bot


def _hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class Host:
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
    ) -> None:
        self.name = name
        self.grace = grace
        self.max_tables = max_tables  # each table holds a game and its bots: memory a client could claim
        self.tables_per_address = tables_per_address  # so that one client cannot claim them all
        # A game nobody comes back to must not hold a table for ever: one client could fill them all.
        self.abandon_after = abandon_after
        self._new_rng = new_rng
        self._new_token = new_token
        self.sessions: dict[ConnId, Session] = {}
        self.tables: dict[int, Table] = {}
        self._next_table = first_table
        self._hints: list[HintJob] = []
        self._journal: list[Record] = []
        # Tables where a bot may have become due since bot_jobs last looked: checking only
        # these keeps the shell's call after every message independent of the table count.
        self._stirred: set[int] = set()

    # -- persistence -------------------------------------------------------------

    def take_journal(self) -> list[Record]:
        """What changed since the last call, to be stored before the replies are sent."""
        records, self._journal = self._journal, []
        return records

    def restore(self, saved: SavedGame, now: float) -> None:
        """Bring back an unfinished game from the store, exactly as it was.

        Its humans count as dropped just now: they resume with their tokens
        within the grace period, or bots stand in once someone is watching.
        """
        begun = saved.begun
        seats = [
            Seat(
                name=record.name,
                bot=record.bot,
                token_hash=record.token_hash,
                dropped_at=None if record.bot is not None else now,
                stand_in=index in saved.left,
            )
            for index, record in enumerate(begun.seats)
        ]
        table = Table(
            id=begun.table,
            preset=begun.preset,
            seats=seats,
            creator=None,
            bot_delay=begun.bot_delay,
            turn_seconds=begun.turn_seconds,
            turn_limit=begun.turn_limit,
            level=begun.level,
        )
        rng = self._new_rng()
        game_rng = random.Random(rng.getrandbits(64))
        table.bots = _seat_bots(table, rng)
        own = [index for index, seat in enumerate(seats) if seat.bot is not None]
        table.game = rebuild(saved, game_rng, table.bots, own)
        table.moves = len(saved.moves)
        table.turn_started = now
        self.tables[table.id] = table
        self._stirred.add(table.id)
        self._next_table = max(self._next_table, table.id + 1)
        log.info("table %d restored at turn %d", table.id, table.game.turn)

    # -- connections -----------------------------------------------------------

    def connect(self, conn: ConnId, address: str | None = None) -> None:
        self.sessions[conn] = Session(address)

    def disconnect(self, conn: ConnId, now: float) -> list[Outgoing]:
        """The connection is gone: keep a seat in a running game for ``grace`` seconds."""
        session = self.sessions.pop(conn, None)
        if session is None or session.table is None:
            return []
        table = self.tables[session.table]
        if session.seat is None:
            table.spectators.discard(conn)
            self._forget_if_empty(table)
            return []
        seat = table.seats[session.seat]
        seat.conn = None
        if table.game is None:  # not started: the seat is simply free again
            _free_waiting_seat(table, session.seat, conn)
            self._forget_if_empty(table)
            return _seats_changed(table, conn)
        seat.dropped_at = now
        return []

    def tick(self, now: float) -> list[Outgoing]:
        """Let time pass: dropped players past their grace get a stand-in; slow turns get help."""
        out: list[Outgoing] = []
        for table in list(self.tables.values()):
            game = table.game
            if game is None or game.over:
                continue
            self._stirred.add(table.id)  # stand-ins and turn timers start bots; and a safety net
            if self._anyone_here(table):
                table.empty_since = None
            elif table.empty_since is None:
                table.empty_since = now
            elif now - table.empty_since >= self.abandon_after:
                self._abandon(table)
                continue
            for seat in table.seats:
                if seat.dropped_at is not None and not seat.stand_in and now - seat.dropped_at >= self.grace:
                    seat.stand_in = True
            current = table.seats[game.current]
            if (
                table.turn_seconds
                and not self._bot_controls(current)
                and now - table.turn_started >= table.turn_seconds
            ):
                current.auto = True
                out += self._send(
                    current.conn,
                    Error("turn-time", "your time is up: the server plays the rest of this turn"),
                )
        return out

    # -- messages --------------------------------------------------------------

    def handle(self, conn: ConnId, message: Message, now: float) -> list[Outgoing]:
        """The replies to one message from ``conn`` (which the protocol layer found legal now)."""
        try:
            return self._dispatch(conn, message, now)
        except Refusal as refusal:
            return [(conn, Error(refusal.code, refusal.message[:500], refusal.rule))]

    def _dispatch(self, conn: ConnId, message: Message, now: float) -> list[Outgoing]:
        session = self.sessions[conn]
        match message:
            case Hello():
                return self._hello(conn, session, message, now)
            case ListTables():  # the newest tables, as many as fit in one frame
                newest = sorted(self.tables.values(), key=lambda table: -table.id)[:MAX_LISTED]
                return [(conn, Tables(tuple(table.info() for table in newest)))]
            case CreateTable():
                return self._create(conn, session, message, now)
            case Join(table_id, seat):
                return self._join(conn, session, self._table(table_id), seat, now)
            case Watch(table_id):
                return self._watch(conn, session, self._table(table_id))
            case Start():
                return self._start(conn, session, now)
            case Leave():
                return self._leave(conn, session)
            case Act(text):
                return self._act(conn, session, text, now)
            case AskHint():
                return self._hint(conn, session)
            case PlayForMe():
                return self._play_for_me(session)
            case Ping(nonce):
                return [(conn, Pong(nonce))]
            case Bye():
                return [(conn, Goodbye("bye"))]
        raise Refusal("not-now", f"{message.TYPE} is not something a server answers")  # pragma: no cover

    def _hello(self, conn: ConnId, session: Session, hello: Hello, now: float) -> list[Outgoing]:
        if hello.version != PROTOCOL_VERSION:  # the protocol layer checks too; stay safe
            return [
                (conn, Error("version", f"this server speaks version {PROTOCOL_VERSION}")),
                (conn, Goodbye("version")),
            ]
        session.name = hello.name
        out: list[Outgoing] = [(conn, Welcome(PROTOCOL_VERSION, self.name))]
        if hello.token is None:
            return out
        digest = _hash(hello.token)
        for table in self.tables.values():
            for index, seat in enumerate(table.seats):
                if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                    if seat.conn is not None:  # the old connection is still here: it loses the seat
                        out += self._evict(seat.conn)
                    seat.conn, seat.dropped_at, seat.stand_in = conn, None, False
                    self._stirred.add(table.id)
                    session.table, session.seat = table.id, index
                    out.append((conn, Seated(table.id, index, hello.token)))
                    if table.game is not None:
                        out += self._state_for(table, conn, index)
                    return out
        return [*out, (conn, Error("bad-token", "that seat token is not valid here (the game may be over)"))]

    def _evict(self, conn: ConnId) -> list[Outgoing]:
        session = self.sessions.get(conn)
        if session is not None:
            session.table = session.seat = None
        return [(conn, Goodbye("your seat was resumed from another connection"))]

    def _create(self, conn: ConnId, session: Session, request: CreateTable, now: float) -> list[Outgoing]:
        if self._full(list(self.tables.values()), self.max_tables):
            raise Refusal(
                "too-many-tables",
                f"the server already holds its limit of {self.max_tables} tables: join or watch one, "
                "or try again when a game is over",
            )
        address = session.address
        if address is not None and self._full(
            [table for table in self.tables.values() if table.address == address], self.tables_per_address
        ):
            raise Refusal(
                "too-many-tables",
                f"{self.tables_per_address} tables created from {address} are still open, the most one "
                "address may have: finish or leave one of them first",
            )
        if request.preset not in PRESETS:
            raise Refusal(
                "unknown-preset", f"unknown preset {request.preset!r}: presets are {', '.join(PRESETS)}"
            )
        unknown = [bot for bot in request.bots if bot not in BOTS]
        if unknown:
            raise Refusal("unknown-bot", f"unknown bot(s) {', '.join(unknown)}: bots are {', '.join(BOTS)}")
        if len(request.bots) > request.seats:
            raise Refusal("too-many-bots", f"{len(request.bots)} bots for {request.seats} seats")
        humans = request.seats - len(request.bots)
        seats = [Seat() for _ in range(humans)]
        seats += [
            Seat(name=f"{bot}-{humans + i + 1}", bot=bot_at_level(bot, request.level))
            for i, bot in enumerate(request.bots)
        ]
        table = Table(
            id=self._next_table,
            preset=request.preset,
            seats=seats,
            creator=conn,
            address=session.address,
            bot_delay=request.bot_delay_ms / 1000 if humans else 0.0,
            turn_seconds=request.turn_seconds,
            turn_limit=request.turn_limit,
            level=request.level,
        )
        self._next_table += 1
        self.tables[table.id] = table
        log.info(
            "table %d created: %s, %d seats, bots %s, level %s",
            table.id,
            table.preset,
            len(seats),
            [seat.bot for seat in seats if seat.bot],
            table.level,
        )
        if humans:
            return self._join(conn, session, table, 0, now)
        return self._watch(conn, session, table) + self._begin(table, now)

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
        if table.game is not None:
            raise Refusal("game-started", f"table {table.id} is already playing: watch it instead")
        if index is None:
            index = next((i for i, seat in enumerate(table.seats) if seat.free), None)
            if index is None:
                raise Refusal("table-full", f"table {table.id} has no free seat")
        elif index >= len(table.seats):
            raise Refusal("no-such-seat", f"table {table.id} has seats 0 to {len(table.seats) - 1}")
        elif not table.seats[index].free:
            raise Refusal("seat-taken", f"seat {index} at table {table.id} is taken")
        token = self._new_token()
        name = _unique_name(table, session.name or "player")
        table.seats[index] = Seat(name=name, token_hash=_hash(token), conn=conn)
        if table.creator is None:  # everyone seated had gone (a spectator kept the table): start is theirs
            table.creator = conn
        session.table, session.seat = table.id, index
        out: list[Outgoing] = [(conn, Seated(table.id, index, token))]
        if all(not seat.free for seat in table.seats):
            out += self._begin(table, now)
        else:
            out += _seats_changed(table, conn)
        return out

    def _watch(self, conn: ConnId, session: Session, table: Table) -> list[Outgoing]:
        table.spectators.add(conn)
        self._stirred.add(table.id)
        session.table, session.seat = table.id, None
        out: list[Outgoing] = [(conn, Watching(table.id))]
        if table.game is not None:
            out += self._state_for(table, conn, None)
        return out

    def _start(self, conn: ConnId, session: Session, now: float) -> list[Outgoing]:
        table, _ = self._my_seat(session)
        if table.game is not None:
            raise Refusal("game-started", "the game has already started")
        if table.creator != conn:
            raise Refusal("not-creator", "only the table's creator can start the game early")
        for index, seat in enumerate(table.seats):
            if seat.free:
                table.seats[index] = Seat(
                    name=_unique_name(table, f"{EXPERT}-{index + 1}"), bot=table.stand_in_bot
                )
        return self._begin(table, now)

    def _begin(self, table: Table, now: float) -> list[Outgoing]:
        rules = PRESETS[table.preset].replace(turn_limit=table.turn_limit)
        names = [seat.name or f"seat-{i}" for i, seat in enumerate(table.seats)]
        rng = self._new_rng()
        game = table.game = Game(rules, names, random.Random(rng.getrandbits(64)))
        table.bots = _seat_bots(table, rng)
        table.turn_started = now
        self._journal.append(
            GameBegun(
                table=table.id,
                preset=table.preset,
                turn_limit=table.turn_limit,
                level=table.level,
                bot_delay=table.bot_delay,
                turn_seconds=table.turn_seconds,
                seats=tuple(
                    SeatRecord(name, seat.bot, seat.token_hash)
                    for name, seat in zip(names, table.seats, strict=True)
                ),
                deal=tuple(str(card) for card in game.deal.order),
                first=game.deal.first,
            )
        )
        self._journal.extend(_ends(table.id, game.opening))
        log.info("table %d: game started between %s", table.id, ", ".join(names))
        return self._broadcast(table, table.game.opening)

    def _leave(self, conn: ConnId, session: Session) -> list[Outgoing]:
        if session.table is None:
            raise Refusal("not-at-table", "you are not at a table")
        table = self.tables[session.table]
        out: list[Outgoing] = []
        if session.seat is None:
            table.spectators.discard(conn)
        elif table.game is None:
            _free_waiting_seat(table, session.seat, conn)
            out += _seats_changed(table, conn)
        else:
            seat = table.seats[session.seat]
            seat.conn, seat.stand_in = None, True
            self._stirred.add(table.id)
            self._journal.append(SeatLeft(table.id, session.seat))
        session.table = session.seat = None
        out.insert(0, (conn, Left(table.id)))
        self._forget_if_empty(table)
        return out

    def _act(self, conn: ConnId, session: Session, text: str, now: float) -> list[Outgoing]:
        table, seat = self._my_seat(session)
        self._running(table)
        try:
            action = parse_action(text)
        except ActionSyntaxError as error:
            raise Refusal("bad-action", str(error)) from None
        return self._apply(table, seat, action, now)

    def _apply(self, table: Table, seat: int, action: Action, now: float) -> list[Outgoing]:
        game = self._running(table)
        turn = game.turn
        try:
            events = game.apply(action, seat=seat)
        except IllegalAction as error:
            message = error.message
            if error.rule is Rule.NOT_YOUR_TURN:  # the engine counts seats; a player knows names
                message = f"it is {game.names[game.current]}'s turn, not yours"
            raise Refusal("illegal-action", message, str(error.rule)) from None
        table.moves += 1
        self._journal.append(Moved(table.id, table.moves, seat, str(action), _outcome(events)))
        self._journal.extend(_ends(table.id, events))
        for event in events:
            if isinstance(event, GameEnded):
                winner = "nobody" if event.winner is None else game.names[event.winner]
                log.info(
                    "table %d: game over after %d turns: %s wins (%s)",
                    table.id,
                    game.turn,
                    winner,
                    event.reason,
                )
        if game.turn != turn:  # a new turn: "play for me" was for the last one
            for other in table.seats:
                other.auto = False
            table.turn_started = now
        return self._broadcast(table, events)

    def _play_for_me(self, session: Session) -> list[Outgoing]:
        table, seat = self._my_seat(session)
        game = self._unfinished(table)
        if game.current != seat:
            raise Refusal("not-your-turn", "play for me works on your own turn")
        table.seats[seat].auto = True
        self._stirred.add(table.id)
        return []

    def _hint(self, conn: ConnId, session: Session) -> list[Outgoing]:
        table, seat = self._my_seat(session)
        game = self._unfinished(table)
        self._hints.append(HintJob(conn, tuple(game.hands[seat]), game.rules, table.id, seat))
        return []

    def hint_ready(self, job: HintJob, hint: Hint) -> list[Outgoing]:
        """The hint, if its asker still holds the seat it was for (they may have left meanwhile)."""
        session = self.sessions.get(job.conn)
        if session is None or (session.table, session.seat) != (job.table, job.seat):
            return []
        return [(job.conn, hint)]

    def hint_jobs(self) -> list[HintJob]:
        """Hints asked for since the last call: the shell computes them off the event loop."""
        jobs, self._hints = self._hints, []
        return jobs

    # -- bots --------------------------------------------------------------------

    def bot_jobs(self) -> list[BotJob]:
        """Seats a bot should play now, at most one per table; each is handed out once."""
        jobs = []
        stirred, self._stirred = self._stirred, set()
        for table_id in sorted(stirred):
            table = self.tables.get(table_id)
            game = None if table is None else table.game
            if table is None or game is None or game.over or table.job_out or not self._anyone_here(table):
                continue
            seat = table.seats[game.current]
            if self._bot_controls(seat):
                table.job_out = True
                delay = table.bot_delay if seat.bot is not None else 0.0
                jobs.append(
                    BotJob(
                        table.id,
                        game.current,
                        table.moves,
                        table.bots[game.current],
                        game.view(game.current),
                        delay,
                    )
                )
        return jobs

    def bot_acted(self, job: BotJob, action: Action, now: float) -> list[Outgoing]:
        """Apply a bot's choice, unless the game moved on while it thought."""
        table = self.tables.get(job.table)
        if table is None:
            return []
        table.job_out = False
        self._stirred.add(table.id)
        game = table.game
        if (
            game is None
            or game.over
            or table.moves != job.moves
            or not self._bot_controls(table.seats[job.seat])
        ):
            return []
        try:
            return self._apply(table, job.seat, action, now)
        except Refusal:  # a bot bug must not stall the table: end the turn instead
            return self._apply(table, job.seat, parse_action("end"), now) if not game.must_put_back else []

    @staticmethod
    def _anyone_here(table: Table) -> bool:
        """Bots wait while nobody is at the table to see them (a dropped player may resume)."""
        return bool(table.spectators) or any(seat.conn is not None for seat in table.seats)

    @staticmethod
    def _bot_controls(seat: Seat) -> bool:
        return seat.bot is not None or seat.stand_in or seat.auto

    # -- helpers -------------------------------------------------------------------

    def _table(self, table_id: int) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise Refusal("no-such-table", f"there is no table {table_id}")
        return table

    def _my_seat(self, session: Session) -> tuple[Table, int]:
        if session.table is None or session.seat is None:
            raise Refusal("not-seated", "you do not hold a seat")
        return self.tables[session.table], session.seat

    @staticmethod
    def _running(table: Table) -> Game:
        if table.game is None:
            raise Refusal("not-started", "the game has not started")
        return table.game

    def _unfinished(self, table: Table) -> Game:
        """The game, for asking about the next move: there is none once it has ended."""
        game = self._running(table)
        if game.over:
            raise Refusal("game-over", "the game is over: 'leave' returns to the lobby")
        return game

    def _broadcast(self, table: Table, events: Iterable[Event]) -> list[Outgoing]:
        """Everyone at the table sees what happened; the views differ only in whose they are."""
        self._stirred.add(table.id)
        game = table.game
        assert game is not None
        wire_events = tuple(event_to_wire(event, game.names) for event in events)
        shared = view_to_wire(game.view(None))
        out: list[Outgoing] = []
        for index, seat in enumerate(table.seats):
            if seat.conn is not None:
                out.append((seat.conn, _state(table.id, seat_view(shared, game, index), wire_events)))
        if table.spectators:
            spectators = _state(table.id, shared, wire_events)
            out += [(conn, spectators) for conn in sorted(table.spectators)]
        return out

    def _state_for(self, table: Table, conn: ConnId, seat: int | None) -> list[Outgoing]:
        """The whole table as ``seat`` sees it, for someone arriving: no events, only where things stand."""
        game = table.game
        assert game is not None
        return [(conn, _state(table.id, view_to_wire(game.view(seat)), ()))]

    def _send(self, conn: ConnId | None, message: Message) -> list[Outgoing]:
        return [] if conn is None else [(conn, message)]

    def _abandon(self, table: Table) -> None:
        del self.tables[table.id]
        self._journal.append(GameOver(table.id, None, ABANDONED))
        log.info("table %d closed: nobody came back to it for %g seconds", table.id, self.abandon_after)

    def _forget_if_empty(self, table: Table) -> None:
        """A table nobody is at goes away, unless its game is held for players who may come back.

        A game of bots alone, with nobody watching, is abandoned: no one could
        resume it, and its bots only play while someone watches.
        """
        running = table.game is not None and not table.game.over
        humans = any(seat.bot is None for seat in table.seats)
        if self._anyone_here(table) or (running and humans) or table.id not in self.tables:
            return
        if running:
            self._abandon(table)
        else:
            del self.tables[table.id]
            log.info("table %d closed", table.id)


def _state(table: int, view: dict[str, Any], events: tuple[dict[str, Any], ...]) -> State:
    """A state built from the engine's own view and events, which need no checking (see
    :meth:`protocol.Message.unchecked`; tests hold it to the checked message)."""
    return State.unchecked(table=table, view=view, events=events)


def _unique_name(table: Table, wanted: str) -> str:
    """``wanted``, or it with a number, so that no two seats' names differ only in case.

    Players name each other to steal (``steal ann``), and the engine needs
    distinct names; ``Ann`` beside ``ann`` would make one of them unreachable.
    """
    taken = {seat.name.casefold() for seat in table.seats if seat.name}
    numbered = (f"{wanted[: MAX_NAME - len(str(n)) - 1]}-{n}" for n in itertools.count(2))
    return next(name for name in itertools.chain([wanted], numbered) if name.casefold() not in taken)


def _free_waiting_seat(table: Table, index: int, leaving: ConnId) -> None:
    """A player leaves a table that has not started: the seat is free again, and if they made
    the table, the first player still seated may now start it early."""
    table.seats[index] = Seat()
    if table.creator == leaving:
        table.creator = next((seat.conn for seat in table.seats if seat.conn is not None), None)


def _seats_changed(table: Table, mover: ConnId) -> list[Outgoing]:
    """Someone took or gave up a seat at a table still waiting: the others there see its seats.

    Otherwise a creator waiting for a friend could not tell when to ``start``.
    """
    told = Tables((table.info(),))
    at_table = [seat.conn for seat in table.seats if seat.conn is not None] + sorted(table.spectators)
    return [(conn, told) for conn in at_table if conn != mover]


def _seat_bots(table: Table, rng: random.Random) -> dict[int, Bot]:
    """A bot for every seat: its own, or the stand-in that plays for its human when needed."""
    return {
        i: make_bot(seat.bot or table.stand_in_bot, random.Random(rng.getrandbits(64)))
        for i, seat in enumerate(table.seats)
    }


def rebuild(
    saved: SavedGame, rng: random.Random, bots: Mapping[int, Bot] | None = None, own: Collection[int] = ()
) -> Game:
    """Replay a stored game through the engine: the same deal, the same moves, the same outcomes.

    ``rng`` serves only the moves after the rebuild: live play draws fresh chance.
    ``bots`` (one per seat) catch up on each position their seat moved from, so
    they remember what they did before the restart. The bots of seats in ``own``
    made every move there, so in the turn under way they choose again, which
    restores a plan made this turn (bots decide alike from alike positions):
    their memory is exactly what it was. A stand-in for a human only catches up.
    A bot that fails to catch up loses its memory, never the game.
    """
    game = dealt(saved.begun, rng)
    this_turn: list[tuple[int, View]] = []  # who moved from where in the latest turn, until another begins
    for move in saved.moves:
        if bots is not None:
            if this_turn and this_turn[0][1].turn != game.turn:
                _catch_up(saved.begun.table, bots, this_turn, ())
                this_turn = []
            this_turn.append((move.seat, game.view(move.seat)))
        replay_move(game, move)
    if bots is not None:
        under_way = bool(this_turn) and this_turn[0][1].turn == game.turn and not game.over
        _catch_up(saved.begun.table, bots, this_turn, own if under_way else ())
    return game


def _catch_up(
    table: int,
    bots: Mapping[int, Bot],
    positions: Sequence[tuple[int, View]],
    choosing: Collection[int],
) -> None:
    for seat, view in positions:
        try:
            if seat in choosing:
                bots[seat].choose(view)
            else:
                bots[seat].catch_up(view)
        except Exception:  # a bot bug: live play ends its turn instead; here it only forgets
            log.exception("table %d: the bot at seat %d could not catch up on the game", table, seat)


def dealt(begun: GameBegun, rng: random.Random) -> Game:
    """A stored game as it was dealt, before its first move."""
    rules = PRESETS[begun.preset].replace(turn_limit=begun.turn_limit)
    names = [seat.name for seat in begun.seats]
    deal = Deal(tuple(Card.parse(card) for card in begun.deal), begun.first)
    return Game(rules, names, rng, deal=deal)


def replay_move(game: Game, move: Moved) -> list[Event]:
    """Apply a recorded move with the chance outcome it had."""
    cards = tuple(Card.parse(card) for card in move.outcome)
    outcome: Outcome | None = None if not cards else cards[0] if len(cards) == 1 else cards
    return game.apply(parse_action(move.action), seat=move.seat, outcome=outcome)


def _outcome(events: Sequence[Event]) -> tuple[str, ...]:
    """The cards chance chose in these events (drawn or stolen), as the record keeps them."""
    outcome = outcome_of(events)
    cards = () if outcome is None else (outcome,) if isinstance(outcome, Card) else outcome
    return tuple(str(card) for card in cards)


def _ends(table: int, events: Iterable[Event]) -> list[Record]:
    return [
        GameOver(table, event.winner, event.reason.value) for event in events if isinstance(event, GameEnded)
    ]
