"""The Notty rules engine: a pure, deterministic state machine over seats.

Create a :class:`Game` from a ruleset, seat names and a random source; list
``game.legal_actions()``; ``game.apply(action)`` returns events or raises
:class:`IllegalAction` (naming the broken :class:`Rule`) and changes nothing.
"""

from ._actions import (
    Action,
    ActionSyntaxError,
    Discard,
    Draw,
    DrawDiscard,
    EndTurn,
    PutBack,
    Steal,
    parse_action,
)
from ._errors import IllegalAction, Rule
from ._events import (
    Discarded,
    Drew,
    DrewToExchange,
    EndReason,
    Event,
    GameEnded,
    GameStarted,
    ReturnedCard,
    Stole,
    TurnEnded,
    TurnLimitSet,
)
from ._game import Deal, Game, Outcome, outcome_of
from ._legal import check, draw_room, is_legal, legal_actions, stuck
from ._view import View

__all__ = [
    "Action",
    "ActionSyntaxError",
    "Deal",
    "Discard",
    "Discarded",
    "Draw",
    "DrawDiscard",
    "Drew",
    "DrewToExchange",
    "EndReason",
    "EndTurn",
    "Event",
    "Game",
    "GameEnded",
    "GameStarted",
    "IllegalAction",
    "Outcome",
    "PutBack",
    "ReturnedCard",
    "Rule",
    "Steal",
    "Stole",
    "TurnEnded",
    "TurnLimitSet",
    "View",
    "check",
    "draw_room",
    "is_legal",
    "legal_actions",
    "outcome_of",
    "parse_action",
    "stuck",
]
