"""The UI for a game this client has none for (:class:`games._ui.GameUI`): the server's own words
for what happens, the names and the turn, the legal actions, and actions sent as they are typed.

Any game a server hosts is playable through it; a game's own UI (``games/<name>/ui.py``) only
makes it nicer to play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from games._ui import (
    NumberWord,
    TableView,
    game_over_line,
    legal_verbs,
    next_words,
    seat_lines,
    to_play,
)

if TYPE_CHECKING:
    from .catalog import GameInfo

#: A turn's legal actions shown at most; the rest are counted.
MOST_SHOWN = 40


class GenericUI:
    variant_noun = "variant"
    default_bot = None
    filler_bot = None
    default_seats = None
    watchers_hint = False  # a game this client does not know: the server would say
    number_words: Mapping[str, NumberWord] = {}
    asides: Mapping[str, str] = {}
    in_sight = None

    def __init__(self, info: GameInfo) -> None:
        self.info = info
        self.help = generic_help(info)

    def listed_options(self, options: Mapping[str, Any], bots: Sequence[str | None]) -> Mapping[str, Any]:
        return options

    def commands(self, view: TableView | None) -> tuple[str, ...]:
        """The first words of the legal actions: the game's commands, as far as this turn shows."""
        return legal_verbs(view) if view else ()

    def caution(self, action: str, view: TableView | None) -> str | None:
        return None  # no move here hands another player the game

    def is_action(self, verb: str) -> bool:
        return True  # whatever the client does not know is the game's to judge

    def action(self, verb: str, args: Sequence[str], view: TableView | None) -> str:
        return " ".join((verb, *args))

    def complete(self, words: Sequence[str], text: str, view: TableView | None) -> list[str]:
        """The next word of any legal action that begins with the words typed so far."""
        return next_words(words, text, view)

    def read_body(self, body: Any, names: Sequence[str]) -> Any:
        return body  # never shown: nothing to misread

    def state_text(
        self, table: int, view: TableView, events: Sequence[Mapping[str, Any]], colour: bool, width: int = 80
    ) -> str:
        lines = [f"  {event['text']}" for event in events if event["text"]]
        lines.append(f"table {table} · {view.game} · {view.variant} · turn {view.turn}")
        lines += seat_lines(view.names, [""] * len(view.names), view.to_move, view.seat, view.bots)
        if view.result is not None:
            lines.append(game_over_line(view.result.text))
        elif view.legal:
            shown = ", ".join(view.legal[:MOST_SHOWN])
            more = len(view.legal) - MOST_SHOWN
            lines.append(f"your turn: {shown}" + (f", and {more} more" if more > 0 else ""))
        else:
            lines.append(to_play(view))
        return "\n".join(lines)

    def hint_text(self, text: str, actions: Sequence[str], data: Any, colour: bool) -> str:
        return plain_hint(text, actions)

    def rules(
        self, variant: str | None, view: TableView | None = None, options: Mapping[str, Any] | None = None
    ) -> str:
        """All this client knows of a game it has no UI for: what the server's welcome says."""
        return "\n".join(
            [
                f"{self.info.title} ({self.info.name}): this client has no rules of its own for it;",
                "the server's welcome says:",
                generic_help(self.info),
                "  a hint is the server's suggestion, in its words",
            ]
        )


def plain_hint(text: str, actions: Sequence[str]) -> str:
    """A hint in the server's words, and the actions it suggests typing."""
    lines = [f"hint: {text or 'nothing to suggest'}"]
    lines += [f"      type: {action}" for action in actions]
    return "\n".join(lines)


def generic_help(info: GameInfo) -> str:
    """What the welcome says of a game, as help: its variants, bots and options, and how to act."""

    def players(low: int, high: int) -> str:
        return f"{low} players" if low == high else f"{low} to {high} players"

    variants = "; ".join(
        f"{v.name} ({players(v.min_players, v.max_players)}{': ' + v.summary if v.summary else ''})"
        for v in info.variants.values()
    )
    options = []
    for option in info.options.values():
        if option.choices:
            values = ", ".join(option.choices)
        else:
            values = f"{option.name} N, {option.low} to {option.high}"
        options.append(f"{option.name}: {values} (default {option.default})")
    lines = [
        f"  variants: {variants or 'none'}",
        f"  bots: {', '.join(info.bots) or 'none'}",
        f"  options: {'; '.join(options) or 'none'}",
        "  at your turn, type an action as 'your turn' lists it",
    ]
    return "\n".join(lines)
