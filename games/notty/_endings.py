"""How a game of Notty ended, in words: the server's sentence, which the client says again from a
view's numbers. No engine here, so the client can say it without loading one."""

from __future__ import annotations

from collections.abc import Sequence


def end_text(
    winner: int | None, reason: str, names: Sequence[str], *, quiet_rounds: int = 0, turn_limit: int = 0
) -> str:
    """How a game ended, in a sentence: what it is, with the rule's numbers where they are known
    (0: not known). The server says it, and the client says it again from a view's numbers."""
    if winner is not None:
        if reason == "discard":
            return f"{names[winner]} wins by discarding their last cards"
        return f"{names[winner]} wins: their last card was stolen"
    if reason == "no-progress":
        rounds = whole_rounds(quiet_rounds) if quiet_rounds else "the rules' whole rounds"
        return f"the game is drawn: no hand changed for {rounds} (no progress)"
    if reason == "turn-limit":
        limit = f" ({turn_limit} turn{'s' if turn_limit > 1 else ''})" if turn_limit else ""
        return f"the game ended at its turn limit{limit} with no winner"
    if reason == "stalemate":
        return "the game is drawn: every hand is full and holds no group (stalemate)"
    return f"game over, no winner ({reason.replace('-', ' ')})"


def whole_rounds(count: int) -> str:
    """The no-progress rule's span, as every text of it says it: "1 whole round", "3 whole rounds"."""
    return f"{count} whole round{'s' if count != 1 else ''}"
