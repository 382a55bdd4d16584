"""The table driver, sans-IO: a table's seats and match, its moves, what each viewer is sent, its bots.

Every view and event a connection receives is built for that connection's
seat by the game (:meth:`games.Match.view`, :meth:`games.Match.event`): the
driver never copies one seat's view to another, so a game with hidden hands
stays hidden whatever the host does with it.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any

import attrs

from games import ActionError, Bot, Game, Match, Outcome, Settings
from games._words import counted
from protocol import AWAY_MOVES, MAX_LEGAL, Error, Message, Notice, State, Tables

from .journal import (
    TAKEN_BACK,
    GameBegun,
    GameOver,
    Moved,
    OptionsChanged,
    Record,
    SeatRecord,
    StandInSet,
    TimedOut,
)
from .limits import AUTOPILOT_BURST, AUTOPILOT_EVERY, GAME_LINE, TokenBucket
from .resign import ending_told, resigned_last, winners_resigned

log = logging.getLogger("notty.host")
#: The most a notice's ``seconds`` may say (docs/PROTOCOL.md).
MAX_NOTICE_SECONDS = 2**31 - 1

ConnId = int
Outgoing = tuple[ConnId, Message]

#: How the record ends a game of bots that nobody was left to watch.
ABANDONED = "abandoned"


class Refusal(Exception):
    """A request the host turns down; becomes an ``error`` message. Nothing changed."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.rule = code, message, rule


#: The seats of games that ended whose result a player coming back is told (a few hundred bytes each).
ENDED_KEPT = 1000

#: What a person is told as their turn's time runs out, and told again if they move after it.
TIME_UP = "your time is up: the server plays the rest of this turn"


@attrs.define
class Seat:
    name: str | None = None
    bot: str | None = None  # the bot that owns this seat; None for a human seat
    token_hash: bytes | None = None
    conn: ConnId | None = None
    dropped_at: float | None = None  # when its human's connection went
    seen: int | None = None  # the table's changes its person saw, when their connection went
    stand_in: bool = False  # a bot plays this human seat (dropped too long, or left)
    auto: bool = False  # "play for me": a bot plays the rest of this turn
    timed_out: bool = False  # ... because its person's time for the turn ran out
    autopilot: bool = False  # "auto on": a bot plays every turn of this seat until "auto off"
    switches: TokenBucket = attrs.field(factory=lambda: TokenBucket(1 / AUTOPILOT_EVERY, AUTOPILOT_BURST))
    resigned: bool = False  # its player resigned: a bot plays it to the end, ranked last

    @property
    def free(self) -> bool:
        return self.bot is None and self.token_hash is None

    @property
    def bot_controls(self) -> bool:
        return self.bot is not None or self.stand_in or self.auto or self.autopilot or self.resigned

    @property
    def played_by(self) -> str:
        """Why a bot plays this seat for its person, as the record keeps it (journal.PLAYED_BY); ''
        for a seat that is a bot's own."""
        if self.resigned:
            return "resigned"
        if self.timed_out:
            return "time"
        if self.autopilot:
            return "autopilot"
        if self.auto:
            return "auto"
        if self.stand_in:  # a seat given up for good has no token left to come back with
            return "away" if self.token_hash is not None else "left"
        return ""

    @property
    def played_here(self) -> bool:
        """Its person is at the table and plays it: not on autopilot, not resigned (a turn's "play
        for me", or a turn's time run out, leaves it theirs). A bot's seat, one given up, and one a
        stand-in plays while its person is away are not."""
        return self.conn is not None and not (self.stand_in or self.autopilot or self.resigned)


@attrs.define
class Clock:
    """The time (the server's monotonic clock) of the latest call into the host: what the time left
    of a turn, as views say it, is counted against. Views are built where no time is passed."""

    now: float | None = None


@attrs.define
class Table:
    id: int
    game: Game
    settings: Settings
    seats: list[Seat]
    creator: ConnId | None
    bot_delay: float
    turn_seconds: int
    spectators: set[ConnId] = attrs.Factory(set)
    address: str | None = None  # its creator's, for the per-address cap; None once restored
    match: Match | None = None
    bots: dict[int, Bot] = attrs.Factory(dict)
    moves: int = 0  # actions applied so far; a bot job for an older count is stale
    job_out: bool = False
    turn_started: float = 0.0
    empty_since: float | None = None  # since when nobody has been at a running game
    # The options its creator asked for, as asked (the settings hold every option): those left out
    # may take a game's defaults for a table where a bot plays. A restored table's are not known.
    asked: Mapping[str, Any] = attrs.Factory(dict)
    # When its game began and ended, by the wall clock (seconds since the epoch): how long it took.
    begun_at: float | None = None
    ended_at: float | None = None
    # Seats whose players resigned, in the order they did (server.resign); and the outcome of a
    # game their resigning ended before the match itself did.
    resigned: list[int] = attrs.Factory(list)
    conceded: Outcome | None = None
    # What happened last (the game's own events, unrendered): shown again to whoever arrives, so
    # a player back after a drop, or a spectator, sees the move the table is waiting after.
    last_events: tuple[Any, ...] = ()
    # The seat on which a bot made that move for its person ('auto', autopilot, a stand-in, a time
    # run out), if one did: a player back sees their own move so marked, as they would have live.
    last_played_for: int | None = None
    # The events of the last changes (at most AWAY_MOVES), and how many there were in all, for a
    # player back from a drop: what happened while they were away (``Seat.seen``).
    recent: deque[tuple[Any, ...]] = attrs.Factory(lambda: deque(maxlen=AWAY_MOVES))
    shown: int = 0
    recorded: bool = True  # its moves are kept on disk, under its number: the result says so
    clock: Clock | None = None  # the host's: views then say how long the turn under way has left
    # The watchers' hint of the position after ``moves`` actions, once worked out (the table's count
    # then, the answer): every watcher's is the same, so each after the first is answered from it.
    watched_hint: tuple[int, Any] | None = None

    def turn_elapsed(self, now: float) -> float:
        """How long the turn under way has been played. A table nobody is at is paused (its bots wait
        for someone to be there), and so is its turn's clock: a player who quit at their turn came
        back to find it played for them, while the lobby called the table paused."""
        stopped = now if self.empty_since is None else min(now, self.empty_since)
        return max(0.0, stopped - self.turn_started)

    def unpause(self, now: float | None) -> None:
        """Someone is at the table again: the pause took none of the turn's time. Called as they
        arrive, and by the clock's tick (which notices a table empty only at its next beat)."""
        if self.empty_since is not None and now is not None:
            # As much as had been played: none of a turn begun while nobody was there (a bot's move
            # already under way as the last person left ends the turn after the pause began).
            self.turn_started = now - self.turn_elapsed(now)
        self.empty_since = None

    def info(self) -> dict[str, Any]:
        return {
            "table": self.id,
            "game": self.settings.game,
            "variant": self.settings.variant,
            "seats": [
                {
                    "name": seat.name,
                    "bot": seat.bot,
                    "connected": seat.bot is not None or seat.conn is not None,
                }
                for seat in self.seats
            ],
            "started": self.match is not None,
            "over": self.over,
            "spectators": len(self.spectators),
            "turn_seconds": self.turn_seconds,
            "options": dict(self.settings.options),
            "turn": self.match.turn if self.running and self.match is not None else None,
            "bots": self.listed_bots(),
            "kept": self.kept_seats(),
        }

    def bot_seats(self) -> list[int]:
        """The seats a bot plays now: its own, or a stand-in for a person who dropped or left. Only
        these: a person's "play for me" is their choice for a turn, not a bot in their seat."""
        return [index for index, seat in enumerate(self.seats) if seat.bot is not None or seat.stand_in]

    def kept_seats(self) -> list[int]:
        """The seats a person holds, at the table or away: theirs to come back to. While there is
        one, a game nobody is at waits for them (:attr:`bots_alone` is false)."""
        return [index for index, seat in enumerate(self.seats) if seat.token_hash is not None]

    def listed_bots(self) -> list[int]:
        """The seats the lobby's list shows as a bot's: those a bot plays now, and a person's on
        autopilot while they are away, whose every turn a bot plays at once. (At the table their
        view keeps their name: they are told of the drop and the autopilot.) Once the game is over,
        only a bot's own: nobody plays for anyone, and a person who left it was no bot."""
        if self.over:
            # A seat given up (left or resigned) is a stand-in's: its bot was no player of the game.
            return [
                index for index, seat in enumerate(self.seats) if seat.bot is not None and not seat.stand_in
            ]
        return [
            index
            for index, seat in enumerate(self.seats)
            if seat.bot is not None or seat.stand_in or (seat.autopilot and seat.conn is None)
        ]

    def notice(
        self, index: int, kind: str, text: str, seconds: float | None = None, skip: ConnId | None = None
    ) -> list[Outgoing]:
        """Tell everyone at the table (but ``skip``, the person it is about, who has their own
        answer) what happened to seat ``index``: only who and what, never anything of the game."""
        name = self.seats[index].name or f"seat-{index}"
        told = Notice(self.id, index, name, kind, text, None if seconds is None else whole_seconds(seconds))
        log.info("table %d: seat %d: %s", self.id, index + 1, text)  # the log has each seat's story too
        return [(conn, told) for conn, _ in self.viewers() if conn != skip]

    @property
    def stand_in_bot(self) -> str:
        """The bot that plays for a human after a drop, a turn timeout or "play for me", and takes
        the empty seats when the creator starts early."""
        return self.game.seat_bot(self.game.stand_in(self.settings), self.settings)

    @property
    def bots_alone(self) -> bool:
        """No seat can be taken back by a person: each is a bot's, given up with ``leave``, or free.
        Its game plays unattended, so the host caps and paces such tables per address."""
        return not self.kept_seats()

    @property
    def unattended(self) -> bool:
        """Nobody plays their own seat: each is a bot's, given up, on autopilot, resigned, or played by
        a stand-in while its person is away. Whoever is there (on autopilot, or watching) only
        watches, and the server plays every move: :meth:`Driver.bot_jobs` paces them all."""
        return not any(seat.played_here for seat in self.seats)

    @property
    def running(self) -> bool:
        return self.match is not None and not self.over

    @property
    def over(self) -> bool:
        """The game has ended: its match did, or a resignation ended it (server.resign)."""
        return self.conceded is not None or (self.match is not None and self.match.over)

    def outcome(self) -> Outcome | None:
        """How the game ended, if it has: the match's outcome with resigned seats ranked last."""
        if self.conceded is not None:
            return self.conceded
        if self.match is None or not self.match.over:
            return None
        outcome = self.match.outcome()
        return None if outcome is None else resigned_last(outcome, self.match.names, self.resigned)

    def anyone_here(self) -> bool:
        """Bots wait while nobody is at the table to see them (a dropped player may resume)."""
        return bool(self.spectators) or any(seat.conn is not None for seat in self.seats)

    def viewers(self) -> list[tuple[ConnId, int | None]]:
        """Everyone at the table, with the seat whose view they get (``None``: a spectator's)."""
        seated = [(seat.conn, index) for index, seat in enumerate(self.seats) if seat.conn is not None]
        return seated + [(conn, None) for conn in sorted(self.spectators)]

    def seat_news(self, mover: ConnId | None) -> list[Outgoing]:
        """Someone took or gave up a seat at a table still waiting: the others there (and the one
        who sat, unless ``mover`` names them) see its seats.

        Otherwise a creator waiting for a friend could not tell when to ``start``, nor one who
        joined what the table still waits for.
        """
        told = Tables((self.info(),))
        return [(conn, told) for conn, _ in self.viewers() if conn != mover]


def played_for(seat: int, by: str) -> int | None:
    """The seat a move was made on for its person by a bot, if it was (``by``: journal.PLAYED_BY; a
    play the server took back as a game ended was made by nobody)."""
    return seat if by and by != TAKEN_BACK else None


def states(
    table: Table,
    events: Sequence[Any],
    to: Iterable[tuple[ConnId, int | None]],
    away: int = 0,
    played_for: int | None = None,
) -> list[Outgoing]:
    """A ``state`` for each viewer in ``to``: the match as their seat sees it, after ``events`` as
    their seat sees them. Everything seat-specific comes from the game, for that seat. ``away``:
    the events are the last of the moves made while the viewer's connection was gone, this many.
    ``played_for``: the seat a bot made the move of ``events`` on for its person, if one did."""
    match = table.match
    assert match is not None
    outcome = table.outcome()
    current = match.current
    bot_turn = outcome is None and table.seats[current].bot_controls
    shared = {
        "game": table.settings.game,
        "variant": table.settings.variant,
        "names": list(match.names),
        "current": current,
        "turn": match.turn,
        "result": None if outcome is None else _result(table, outcome.to_wire()),
        "bots": table.bot_seats(),
        "kept": table.kept_seats(),
        "bot_turn": bot_turn,
        "turn_seconds": table.turn_seconds,
    }
    if away:
        shared["away"] = away
    if played_for is not None:
        shared["played_for"] = played_for
    now = None if table.clock is None else table.clock.now
    if table.turn_seconds and outcome is None and not bot_turn and now is not None:
        left = table.turn_seconds - table.turn_elapsed(now)
        shared["turn_left"] = min(table.turn_seconds, max(0, math.ceil(left)))
    # The game's own end names its winners: where they resigned, it is told as the result says it.
    own = match.outcome() if outcome is not None and table.resigned and table.conceded is None else None
    retold = outcome if own is not None and winners_resigned(own, table.resigned) else None
    out: list[Outgoing] = []
    watched: State | None = None  # every spectator sees the same: made once (and packed once: net)
    for conn, seat in to:
        if seat is None and watched is not None:
            out.append((conn, watched))
            continue
        view = {
            **shared,
            "seat": seat,
            # Only the seat to move may act (the envelope names one): nobody else is asked, nor a
            # person whose turn a bot plays (they resigned, asked for 'auto' or autopilot, or ran
            # out of time). A game may allow more actions than a view lists; the rest can be typed.
            "legal": (
                match.legal_actions(seat)[:MAX_LEGAL]
                if seat == current and outcome is None and not bot_turn
                else []
            ),
            "body": match.view(seat),
        }
        seen = tuple([match.event(event, seat) for event in events])
        if retold is not None:
            seen = tuple([ending_told(e, retold) if e.get("kind") == "game-ended" else e for e in seen])
        # Built from the game's own view and events, which need no checking (see
        # protocol.Message.unchecked; tests hold it to the checked message).
        state = State.unchecked(table=table.id, view=view, events=seen)
        if seat is None:
            watched = state
        out.append((conn, state))
    return out


def own_view(table: Table, index: int) -> list[Outgoing]:
    """The seat's own view again, at its turn, when who plays it changes (``auto``, autopilot, a
    time run out): the moves it lists, or none while a bot plays. The others learn at the bot's
    first move."""
    seat, match = table.seats[index], table.match
    if seat.conn is None or match is None or match.current != index or table.over:
        return []
    return states(table, (), [(seat.conn, index)])


def _result(table: Table, result: dict[str, Any]) -> dict[str, Any]:
    """The game's result, with what only the server knows: the id the record keeps the game
    under (its table's number), if it keeps it, and how long it took by the wall clock."""
    if table.recorded:
        result["game_id"] = table.id
    if table.begun_at is not None and table.ended_at is not None:
        result["seconds"] = max(0, round(table.ended_at - table.begun_at))
    return result


@attrs.frozen
class BotJob:
    """Ask ``bot`` for an action at ``view``, wait ``delay`` seconds, then call ``bot_acted``."""

    table: int
    seat: int
    moves: int
    bot: Bot
    view: Any
    delay: float
    address: str | None = None  # whose share of the bot threads it takes: its table's creator's


class Driver:
    """Every table's match: begins them, applies moves, tells each viewer, hands out bot work.

    It appends what must be recorded to ``journal`` and notes in ``stirred``
    the tables where a bot may have become due, for the host to pass on.
    """

    def __init__(
        self, journal: list[Record], stirred: set[int], wall_clock: Callable[[], float] = time.time
    ) -> None:
        self.tables: dict[int, Table] = {}
        #: The least pause between moves when nobody plays their own seat (see :meth:`bot_jobs`).
        self.unattended_delay = 0.0
        #: How many such tables from one address play at that pace; more share it (None: no cap).
        self.unattended_per_address: int | None = None
        self.wall_clock = wall_clock  # for how long a game took; play itself runs on the host's clock
        self._journal = journal
        self._stirred = stirred
        # Counts changes to what the lobby's list shows (tables come and go, start, end): the host
        # builds the list again only when it has moved. The host counts its own changes here too.
        self.listing = 0
        # The server is shutting down: the games stay as they are, to be restored (see :meth:`close`).
        self.closing = False
        # How each game that ended and went away ended, by its people's seat token hashes (the last
        # ENDED_KEPT seats): a player coming back to one is told the result, not only that it is gone.
        self.ended: OrderedDict[bytes, str] = OrderedDict()
        # The tables stopped since this start because the store could not record them, by their
        # people's seat token hashes (the last ENDED_KEPT seats): the next start restores their games,
        # so a player coming back before it is told to keep the token, not that the seat is gone.
        self.stopped: OrderedDict[bytes, int] = OrderedDict()
        # The seat token hashes of games gone, and of seats given up, since the store last said what it
        # recorded: each with its table and how its game ended, if it did. Not yet in ``ended``: should
        # that go unrecorded, the next start restores the game, and they are kept as ``stopped`` (settle).
        self.unsettled: dict[bytes, tuple[int, str | None]] = {}

    def begin(self, table: Table, rng: random.Random, now: float) -> list[Outgoing]:
        names = [seat.name or f"seat-{i}" for i, seat in enumerate(table.seats)]
        match = table.match = table.game.new_match(table.settings, names, own_stream(rng))
        table.bots = seat_bots(table, rng)
        table.turn_started = now
        table.begun_at = self.wall_clock()
        self.listing += 1
        deal = match.deal_record()
        self._journal.append(
            GameBegun(
                table=table.id,
                game=table.settings.game,
                variant=table.settings.variant,
                options=table.settings.options,
                bot_delay=table.bot_delay,
                turn_seconds=table.turn_seconds,
                seats=tuple(
                    SeatRecord(name, seat.bot, seat.token_hash)
                    for name, seat in zip(names, table.seats, strict=True)
                ),
                deal=deal.cards,
                first=deal.first,
                asked=tuple(sorted(table.asked)),
            )
        )
        self.note_end(table)
        started = "table %d: %s started between %s"
        log.info(started, table.id, table.settings.game, ", ".join(names), extra=GAME_LINE)
        return self.broadcast(table, match.opening)

    def apply(self, table: Table, seat: int, action: Any, now: float, by: str = "") -> list[Outgoing]:
        """Make and record ``seat``'s move; ``by``: why a bot made it for a person (journal.PLAYED_BY)."""
        return self.broadcast(table, self._step(table, seat, action, now, by), played_for(seat, by))

    def take_back(self, table: Table, now: float) -> list[Any]:
        """Take back what the turn under way did and has not made final (a game ending in its
        middle); the events, for the caller to send with the end: a resignation showed the table
        once for each huxxy play undone, and then as the turn left it ("your turn"), before the end."""
        match = running(table)
        return [
            event
            for action in match.unfinished_turn()
            for event in self._step(table, match.current, action, now, TAKEN_BACK)
        ]

    def _step(self, table: Table, seat: int, action: Any, now: float, by: str = "") -> Sequence[Any]:
        """Apply and record one action; the events it made, for everyone to be sent."""
        match = running(table)
        if table.conceded is not None:  # a resignation ended the game before the match did
            raise Refusal("game-over", "the game is over: 'leave' returns to the lobby")
        turn = match.turn
        try:
            step = match.apply(seat, action)
        except ActionError as error:
            raise Refusal(error.code, error.message, error.rule) from None
        table.moves += 1
        self._journal.append(Moved(table.id, table.moves, seat, match.action_text(action), step.outcome, by))
        self.note_end(table)
        if match.turn != turn:  # a new turn: "play for me" and a time run out were for the last one
            for other in table.seats:
                other.auto = other.timed_out = False
            table.turn_started = now
            self.listing += 1  # the lobby's list shows the turn
        return step.events

    def stand_in(self, table: Table, index: int) -> list[Outgoing]:
        """A bot begins to play seat ``index`` for its person (gone past the grace, or given the seat
        up, or resigned): the game may change its settings for it (Notty: a turn limit for a table
        with none), which the record keeps and everyone at the table is told."""
        seat = table.seats[index]
        seat.stand_in = True
        self.listing += 1  # the lobby's list shows the seat as a bot's
        match = table.match
        if match is None or table.over:
            return []
        told = table.notice(index, "stand-in", f"a bot plays for {seat.name or f'seat-{index}'}")
        events = match.stand_in_began(index, table.asked)
        if match.settings != table.settings:
            table.settings = match.settings
            self.listing += 1
            self._journal.append(OptionsChanged(table.id, match.settings.options))
            log.info("table %d: options now %s", table.id, dict(match.settings.options))
        # Sent even with no events: every view names the seats bots play, this one now among them.
        return told + self.broadcast(table, events)

    def note_end(self, table: Table) -> bool:
        """Record the match's end, if it has ended; say whether it has."""
        assert table.match is not None
        outcome = table.outcome()
        if outcome is not None:
            table.ended_at = self.wall_clock()
            self.listing += 1
            self._journal.append(GameOver(table.id, outcome.winner, outcome.reason, outcome.ranking))
            turns = counted(table.match.turn, "turn")
            log.info("table %d: game over after %s: %s", table.id, turns, outcome.text, extra=GAME_LINE)
        return outcome is not None

    def broadcast(self, table: Table, events: Sequence[Any], for_seat: int | None = None) -> list[Outgoing]:
        """Everyone at the table sees what happened, each as their seat may; ``for_seat``: the seat
        a bot made the move on for its person, if one did."""
        self._stirred.add(table.id)
        if events:
            table.last_events, table.last_played_for = tuple(events), for_seat
            table.recent.append(table.last_events)
            table.shown += 1
        return states(table, events, table.viewers(), played_for=for_seat if events else None)

    # -- bots and timers ------------------------------------------------------------

    def bot_jobs(self) -> list[BotJob]:
        """Seats a bot should play now, at most one per table; each is handed out once."""
        jobs: list[BotJob] = []
        stirred = sorted(self._stirred)
        self._stirred.clear()
        if self.closing:
            return jobs
        unattended: Counter[str | None] | None = None  # unattended games by address, counted if needed
        for table_id in stirred:
            table = self.tables.get(table_id)
            if table is None or not table.running or table.job_out or not table.anyone_here():
                continue
            match = running(table)
            seat = table.seats[match.current]
            if seat.bot_controls:
                table.job_out = True
                # A stand-in for a dropped player, a person's autopilot or "play for me" hurry (the
                # people playing wait for them); one for a seat given up plays at the table's pace,
                # as its own bots do.
                delay = table.bot_delay if seat.bot is not None or seat.token_hash is None else 0.0
                if table.unattended:
                    # Nobody plays their own seat (bots alone; every person on autopilot, resigned,
                    # gone, or away with a stand-in in their seat): nobody waits, and whoever is
                    # there watches, so every move, whoever's bot makes it, waits at least the pace
                    # of bots alone. The game plays on its own and recorded, whatever pace its
                    # creator asked for: an address with more such games than its share slows them
                    # all alike, so that what it has recorded stays bounded however they came to be so.
                    if unattended is None:
                        unattended = self._unattended_by_address()
                    share = self.unattended_per_address
                    crowd = 1.0  # a restored table's creator is not known: it is no one's to share
                    if share is not None and table.address is not None:
                        crowd = max(1.0, unattended[table.address] / share)
                    delay = max(delay, self.unattended_delay * crowd)
                bot = table.bots[match.current]
                view = match.bot_view(match.current)
                jobs.append(BotJob(table.id, match.current, table.moves, bot, view, delay, table.address))
        return jobs

    def _unattended_by_address(self) -> Counter[str | None]:
        return Counter(
            table.address
            for table in self.tables.values()
            if table.running and table.anyone_here() and table.unattended
        )

    def close(self) -> None:
        """The server is shutting down: from now on no bot plays, no stand-in starts, and no game is
        given up as its players go, so every unfinished game is restored as its players last saw it."""
        self.closing = True

    def bot_acted(self, job: BotJob, action: Any | None, now: float) -> list[Outgoing]:
        """Apply a bot's choice (``None``: it failed), unless the game moved on while it thought.

        A choice the game refuses, like a failure, gives way to the game's fallback
        (Notty: end the turn), so a bot's bug never stalls a table.
        """
        if self.closing:  # a move nobody would see before the goodbye: the restored game makes it
            return []
        table = self.tables.get(job.table)
        if table is None:
            return []
        table.job_out = False
        self._stirred.add(table.id)
        if not table.running or table.moves != job.moves or not table.seats[job.seat].bot_controls:
            return []
        match = running(table)
        by = table.seats[job.seat].played_by
        if action is not None:
            try:
                return self.apply(table, job.seat, action, now, by)
            except Refusal as refusal:
                # The code and rule only: the message may name the bot's own hidden cards.
                log.error(
                    "table %d: bot %s chose a refused action (%s %s)",
                    table.id,
                    job.bot.name,
                    refusal.code,
                    refusal.rule,
                )
        fallback = match.fallback_action(job.seat)
        return [] if fallback is None else self.apply(table, job.seat, fallback, now, by)

    def tick(self, now: float, grace: float, abandon_after: float) -> list[Outgoing]:
        """Let time pass: dropped players past their grace get a stand-in; slow turns get help;
        a game nobody has been at for ``abandon_after`` seconds is given up, and one of bots alone
        for ``grace`` seconds (restored, its watchers gone with the restart). A stand-in starts only
        while someone is at the table (a player back after a restart may find the others still away)."""
        out: list[Outgoing] = []
        if self.closing:
            return out
        for table in list(self.tables.values()):
            if not table.running:
                continue
            match = running(table)
            self._stirred.add(table.id)  # stand-ins and turn timers start bots; and a safety net
            here = table.anyone_here()
            if here:
                table.unpause(now)
            elif table.empty_since is None:
                table.empty_since = now
            elif table.bots_alone and now - table.empty_since >= grace:
                # Restored after a restart: its watchers had as long as a person's seat is held to
                # come back. (A live one goes as its last watcher does: see forget_if_empty.)
                why = f"nobody came to watch it within {grace:g} s, and its bots play only while someone does"
                self.abandon(table, why)
                continue
            elif now - table.empty_since >= abandon_after:
                self.abandon(table, f"nobody came back to it for {abandon_after:g} seconds")
                continue
            for index, seat in enumerate(table.seats):
                past_grace = seat.dropped_at is not None and now - seat.dropped_at >= grace
                if past_grace and not seat.stand_in and here:
                    self._journal.append(StandInSet(table.id, index, True))  # a restart keeps it so
                    out += self.stand_in(table, index)
            current = table.seats[match.current]
            if (
                table.turn_seconds
                and not current.bot_controls
                and table.turn_elapsed(now) >= table.turn_seconds
            ):
                current.auto = current.timed_out = True
                self._journal.append(TimedOut(table.id, match.current, table.moves))
                if current.conn is not None:
                    message = Error("turn-time", TIME_UP)
                    out.append((current.conn, message))
                out += own_view(table, match.current)  # no moves to list now
                name = current.name or f"seat-{match.current}"
                text = f"{name}'s turn ran out of time ({table.turn_seconds} s): a bot plays the rest of it"
                out += table.notice(match.current, "timed-out", text, table.turn_seconds, skip=current.conn)
        return out

    def abandon(self, table: Table, why: str) -> None:
        if table.running and table.match is not None:  # the record ends as the turn found it, not with
            self.take_back(table, table.turn_started)  # a huxxy turn's plays half made (nobody is told)
        del self.tables[table.id]
        self.listing += 1
        self._journal.append(GameOver(table.id, None, ABANDONED))
        log.info("table %d closed: %s", table.id, why)
        self.remember_the_end(table)  # its seats' tokens resume it, should that go unrecorded

    def forget_if_empty(self, table: Table) -> None:
        """A table nobody is at goes away, unless its game is held for players who may come back.

        A game of bots alone, with nobody watching, is abandoned: no one could
        resume it, and its bots only play while someone watches.
        """
        if table.anyone_here() or (table.running and not table.bots_alone) or table.id not in self.tables:
            return
        if table.running and self.closing:  # kept for the restart, as its players and watchers go
            return
        if table.running:
            self.abandon(table, "nobody is at it, and its bots play only while someone watches")
        else:
            del self.tables[table.id]
            self.listing += 1
            log.info("table %d closed", table.id)
            self.remember_the_end(table)

    def remember_the_stop(self, table: int, token_hashes: Iterable[bytes | None]) -> None:
        """Keep that the game at ``table``, stopped unrecorded, resumes after a restart for these
        seat tokens."""
        for token_hash in token_hashes:
            if token_hash is not None:
                self.stopped[token_hash] = table
                self.stopped.move_to_end(token_hash)
        while len(self.stopped) > ENDED_KEPT:
            self.stopped.popitem(last=False)

    def remember_the_end(self, table: Table) -> None:
        """Keep how the game at ``table``, now gone, ended (given up, it says nothing), for its people's
        seat tokens, once the store has recorded its end (:meth:`settle`): until then a restart may
        restore it unended, and they resume it then."""
        if table.match is None:  # a game never begun is not recorded: nothing to resume
            return
        outcome = table.outcome()
        game = f" (game {table.id})" if table.recorded else ""
        text = None if outcome is None else f"{outcome.text}{game}"
        for seat in table.seats:
            if seat.token_hash is not None:
                self.unsettled[seat.token_hash] = (table.id, text)

    def given_up(self, table: int, token_hash: bytes) -> None:
        """A seat at ``table``, whose game has begun, was given up: its token resumes it no more once
        the store has that (:meth:`settle`), and resumes it after a restart if it does not."""
        self.unsettled[token_hash] = (table, None)

    def settle(self, failed: Container[int]) -> None:
        """The store recorded what was journaled so far but the changes of the ``failed`` tables: the
        seats of games gone, or given up, meanwhile are remembered as ended (if the game did), or,
        where that went unrecorded, as stopped (the next start restores the game, for their tokens)."""
        unsettled, self.unsettled = self.unsettled, {}
        for token_hash, (table, text) in unsettled.items():
            if table in failed:
                self.remember_the_stop(table, [token_hash])
            elif text is not None:  # a seat given up, or a game given up, has no result to tell
                self.ended[token_hash] = text
                self.ended.move_to_end(token_hash)
        while len(self.ended) > ENDED_KEPT:
            self.ended.popitem(last=False)


def whole_seconds(seconds: float) -> int:
    """``seconds`` rounded up, for a notice: at most what it can carry (an operator may hold a
    dropped seat for ``--grace inf``)."""
    return math.ceil(seconds) if seconds < MAX_NOTICE_SECONDS else MAX_NOTICE_SECONDS


def running(table: Table) -> Match:
    if table.match is None:
        raise Refusal("not-started", "the game has not started")
    return table.match


def unfinished(table: Table) -> Match:
    """The match, for asking about the next move: there is none once it has ended."""
    match = running(table)
    if table.over:
        raise Refusal("game-over", "the game is over: 'leave' returns to the lobby")
    return match


def own_stream(rng: random.Random) -> random.Random:
    """A stream of its own for one game or bot, from the host's source for the table.

    In live play that source is the system's (``secrets.SystemRandom``): it is used as it is, so
    no deal ever comes from a generator whose state could be worked out. A seeded source, as tests
    make, seeds a generator instead, so that the same host deals the same games every run."""
    return rng if isinstance(rng, random.SystemRandom) else random.Random(rng.getrandbits(64))


def seat_bots(table: Table, rng: random.Random) -> dict[int, Bot]:
    """A bot for every seat: its own, or the stand-in that plays for its human when needed."""
    return {
        i: table.game.new_bot(seat.bot or table.stand_in_bot, table.settings, own_stream(rng))
        for i, seat in enumerate(table.seats)
    }
