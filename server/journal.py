"""What the host asks to be recorded, so a game survives the server and can be replayed.

The host is sans-IO: it appends these records as games change and the shell
writes them (see :mod:`server.store`) before it sends anyone the messages that
follow from them. A game is its :class:`GameBegun` (settings, seats, the deal)
plus its :class:`Moved` records (each action with the chance outcome the server
chose); replaying those through the engine rebuilds it exactly.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from games import Settings


@attrs.frozen
class SeatRecord:
    name: str
    bot: str | None  # the bot that owns the seat; None for a human
    token_hash: bytes | None  # sha256 of the human's seat token; never the token


@attrs.frozen
class GameBegun:
    table: int
    game: str  # its name in games.GAMES
    variant: str
    options: Mapping[str, int | str]  # every option of the game, as its settings hold them
    bot_delay: float
    turn_seconds: int
    seats: tuple[SeatRecord, ...]
    deal: tuple[str, ...]  # the deal as the game records it (Notty: the shuffled deck)
    first: int
    # The options its creator chose, by name (the rest took defaults), which a bot standing in
    # leaves alone after a restart as before it; None: not recorded (a game from before schema 5).
    asked: tuple[str, ...] | None = None

    @property
    def settings(self) -> Settings:
        return Settings(self.game, self.variant, len(self.seats), self.options)


@attrs.frozen
class Moved:
    table: int
    number: int  # 1, 2, ... within the game
    seat: int
    action: str  # the action's text form, which the game's parse_action reads back
    outcome: tuple[str, ...]  # what chance gave, as the game records it (Notty: cards drawn or stolen)
    by: str = ""  # why someone else made it for the seat (PLAYED_BY); '' if the seat's own player or bot did


#: Why a bot made a move on a person's seat, as :class:`Moved` keeps it: the person asked it to
#: (``auto``, ``autopilot``), was away past the grace, left for good, resigned, or ran out of time;
#: or why the server made it (:data:`TAKEN_BACK`).
PLAYED_BY = ("auto", "autopilot", "away", "left", "resigned", "time", "ended")
#: A play of a turn the game ended in the middle of (a resignation, an abandonment), taken back by
#: the server so that the record ends as the turn found it: nobody at the table chose it.
TAKEN_BACK = "ended"


@attrs.frozen
class SeatLeft:
    """A human gave up their seat for good: a bot plays it from now on."""

    table: int
    seat: int
    bot: str | None = None  # the bot that plays it now, which the record shows in the seat from now on
    moves: int | None = None  # the game's moves before it left: where a replay says the bot took over


@attrs.frozen
class AutopilotSet:
    """A player turned their autopilot on or off: a bot plays each of their turns while it is on,
    and it stays on across a restart."""

    table: int
    seat: int
    on: bool


@attrs.frozen
class StandInSet:
    """A bot began (``on``) or stopped playing for a person whose connection went (past the grace,
    until they are back): the lobby's list marks the seat a bot's meanwhile, before a restart as
    after it."""

    table: int
    seat: int
    on: bool


@attrs.frozen
class Resigned:
    """A player resigned after ``moves`` moves of the game (server.resign says what follows), the
    ``order``-th of its resignations (from 0): the order the result names them in, even when no
    move came between two of them."""

    table: int
    seat: int
    moves: int
    order: int


@attrs.frozen
class TimedOut:
    """A seat's turn ran out of time after ``moves`` moves of the game: a bot played the rest of it,
    which a replay says rather than showing those plays as the person's own."""

    table: int
    seat: int
    moves: int


@attrs.frozen
class OptionsChanged:
    """The game's options changed while it was played (Notty: a bot began to play for a person at a
    table with no turn limit, which now has one). The game allows only changes that leave what was
    played as it was, so the record keeps them as the game's options from its start."""

    table: int
    options: Mapping[str, int | str]  # every option of the game, as its settings now hold them


@attrs.frozen
class GameOver:
    table: int
    winner: int | None
    reason: str
    #: Every seat, first place first (seats tied share a place); empty for a game given up.
    ranking: tuple[tuple[int, ...], ...] = ()


Record = (
    GameBegun | Moved | SeatLeft | AutopilotSet | StandInSet | Resigned | TimedOut | OptionsChanged | GameOver
)


@attrs.frozen
class SavedGame:
    """A game as the store holds it: enough to rebuild it move by move."""

    begun: GameBegun
    moves: tuple[Moved, ...]
    left: frozenset[int] = frozenset()  # seats whose humans left for good
    over: GameOver | None = None
    started_at: float | None = None  # when it began, by the wall clock (seconds since the epoch)
    autopilot: frozenset[int] = frozenset()  # seats whose autopilot is on
    resigned: tuple[tuple[int, int], ...] = ()  # (seat, moves before it resigned), in order
    # (seat, moves recorded before its human left), in order: where a replay says a bot took over
    left_after: tuple[tuple[int, int], ...] = ()
    # (seat, moves before its turn ran out of time), in order: where a bot played the rest of a turn
    timed_out: tuple[tuple[int, int], ...] = ()
    # seats a bot played for their dropped person when the server stopped (left seats aside)
    stood_in: frozenset[int] = frozenset()
