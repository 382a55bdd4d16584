"""Why an action is illegal: each refusal names the rule it breaks."""

from __future__ import annotations

import enum


class Rule(enum.StrEnum):
    """The rule an illegal action breaks; the value is a stable code for clients."""

    GAME_OVER = "game-over"
    NOT_YOUR_TURN = "not-your-turn"
    DRAW_ONCE = "draw-once"
    DRAW_COUNT = "draw-count"
    DECK_TOO_SMALL = "deck-too-small"
    HAND_LIMIT = "hand-limit"
    STEAL_ONCE = "steal-once"
    NO_SUCH_SEAT = "no-such-seat"
    STEAL_FROM_SELF = "steal-from-self"
    EMPTY_HAND = "empty-hand"
    LAST_CARD = "last-card"
    NOT_IN_HAND = "not-in-hand"
    INVALID_GROUP = "invalid-group"
    NO_DRAW_AND_DISCARD = "no-draw-and-discard"
    DRAW_AND_DISCARD_ONCE = "draw-and-discard-once"
    PUT_BACK_FIRST = "put-back-first"
    NOTHING_TO_PUT_BACK = "nothing-to-put-back"
    IMPOSSIBLE_OUTCOME = "impossible-outcome"


class IllegalAction(ValueError):
    """An action the rules do not allow now. The game is unchanged."""

    def __init__(self, rule: Rule, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.rule}]"
