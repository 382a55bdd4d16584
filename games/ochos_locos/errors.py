"""Why an action is refused: each refusal names the rule it breaks."""

from __future__ import annotations

import enum


class Reason(enum.StrEnum):
    """The rule an illegal action breaks; the value is a stable code for clients."""

    GAME_OVER = "game-over"
    NOT_YOUR_TURN = "not-your-turn"
    NOT_HELD = "not-held"
    NO_MATCH = "no-match"
    MUST_ANSWER_TWO = "must-answer-two"
    NO_TWO_TO_ANSWER = "no-two-to-answer"
    MUST_NAME_COLOUR = "must-name-colour"
    MUST_NOT_NAME_COLOUR = "must-not-name-colour"
    MUST_PLAY = "must-play"


class IllegalAction(ValueError):
    """An action the rules do not allow now. The game is unchanged."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.reason}]"
