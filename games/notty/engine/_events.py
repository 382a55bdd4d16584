"""What happened: the engine's answer to every action, for logs, clients and replay.

Events carry the chance outcomes (cards drawn, the card stolen), so a game
can be replayed from its events without the random source.
"""

from __future__ import annotations

import enum

import attrs

from games.notty import Card, GroupKind


class EndReason(enum.StrEnum):
    DISCARD = "discard"  # the winner discarded their last cards
    STOLEN = "stolen"  # the winner's last card was stolen
    STALEMATE = "stalemate"  # every hand at the limit with no group: no winner
    TURN_LIMIT = "turn-limit"  # the table's turn limit was reached: no winner
    NO_PROGRESS = "no-progress"  # no hand changed for the rules' quiet_rounds whole rounds: no winner


@attrs.frozen
class GameStarted:
    first: int


@attrs.frozen
class Drew:
    seat: int
    cards: tuple[Card, ...]


@attrs.frozen
class Stole:
    seat: int
    victim: int
    card: Card


@attrs.frozen
class Discarded:
    seat: int
    cards: tuple[Card, ...]
    kind: GroupKind


@attrs.frozen
class DrewToExchange:
    """First half of draw-and-discard."""

    seat: int
    card: Card


@attrs.frozen
class ReturnedCard:
    """Second half of draw-and-discard."""

    seat: int
    card: Card


@attrs.frozen
class TurnEnded:
    seat: int
    next_seat: int
    turn: int  # the number of the turn that begins


@attrs.frozen
class TurnLimitSet:
    """The table's turn limit changed during the game (a bot began to play for a person at a table
    that had none): the game now ends with no winner after turn ``turn_limit``."""

    turn_limit: int


@attrs.frozen
class GameEnded:
    winner: int | None
    reason: EndReason


Event = (
    GameStarted
    | Drew
    | Stole
    | Discarded
    | DrewToExchange
    | ReturnedCard
    | TurnEnded
    | TurnLimitSet
    | GameEnded
)
