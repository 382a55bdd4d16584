"""What a server hosts, as its welcome lists it: each game's variants, bots and options, the UI
the client plays it with, and how its tables are described in the lobby."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from games import Option, Variant
from games._ui import GameUI, game_and_variant, spoken_list, ui_for

from .generic import GenericUI


@attrs.frozen
class GameInfo:
    """A game as the welcome describes it (protocol ``GAME_INFO``); the first variant is the default."""

    name: str
    title: str
    variants: Mapping[str, Variant]
    bots: tuple[str, ...]
    options: Mapping[str, Option]

    @classmethod
    def from_wire(cls, info: Mapping[str, Any]) -> GameInfo:
        """Read a welcome's entry (its shape already checked by the protocol)."""
        variants = {
            v["name"]: Variant(v["name"], v["min_players"], v["max_players"], v["summary"])
            for v in info["variants"]
            if v["min_players"] <= v["max_players"]  # no table could be made: not worth offering
        }
        options = {
            o["name"]: Option(
                o["name"],
                o["summary"],
                o["default"],
                tuple(o.get("choices", ())),
                o.get("low", 0),
                o.get("high", 0),
            )
            for o in info["options"]
        }
        return cls(info["name"], info["title"], variants, tuple(info["bots"]), options)


class Catalog:
    """The games of one server, in the order its welcome lists them (the first is the default)."""

    def __init__(self, games: Iterable[GameInfo]) -> None:
        self.games = {game.name: game for game in games if game.variants}
        self._uis: dict[str, GameUI] = {}

    @classmethod
    def from_welcome(cls, games: Sequence[Mapping[str, Any]]) -> Catalog:
        return cls(GameInfo.from_wire(info) for info in games)

    def ui(self, game: str) -> GameUI:
        """The UI ``game`` is played with here: its own, or the generic one."""
        found = self._uis.get(game)
        if found is None:
            info = self.games.get(game) or GameInfo(game, game, {}, (), {})
            found = self._uis[game] = ui_for(game) or GenericUI(info)
        return found

    def own_uis(self) -> list[GameUI]:
        """The UIs of the games that have one of their own (not the generic one)."""
        return [ui for _, ui in self._own()]

    def _own(self) -> Iterator[tuple[GameInfo, GameUI]]:
        """Each game that has a UI of its own, with it, in the welcome's order."""
        for info in self.games.values():
            ui = ui_for(info.name)
            if ui is not None:
                yield info, ui

    def ui_claiming(self, verb: str) -> GameUI | None:
        """Away from any known game, the first game's own UI that has ``verb`` as a command (the
        generic UI takes every word, so it is never guessed at)."""
        return next(iter(self.uis_claiming(verb)), None)

    def uis_claiming(self, verb: str) -> list[GameUI]:
        """Every game's own UI that has ``verb`` as a command, in the welcome's order."""
        return [ui for _, ui in self._own() if ui.is_action(verb)]

    def titles_claiming(self, verb: str) -> list[str]:
        """The titles of the games whose own UI has ``verb`` as a command, in the welcome's order."""
        return [info.title for info, ui in self._own() if ui.is_action(verb)]

    def title_of(self, ui: GameUI) -> str | None:
        """The title of the game played with ``ui`` (as :meth:`ui` gives it), if the server hosts it."""
        return next((info.title for name, info in self.games.items() if self.ui(name) is ui), None)

    def describe(
        self, game: str, variant: str, options: Mapping[str, Any], bots: Sequence[str | None] | None = None
    ) -> str:
        """A table's game in a few words: ``classic, level medium`` (the game's title first when
        the server hosts several). Choices always show; numbers only when not the default. Where
        ``bots`` are known (:meth:`games._ui.GameUI.listed_options`), only the options that matter
        with them: Notty's level only where an expert plays."""
        info = self.games.get(game)
        known = info.options if info is not None else {}
        ui = self.ui(game)
        words = {word.option: name for name, word in ui.number_words.items()}
        parts = [
            variant if len(self.games) <= 1 or info is None else game_and_variant(game, variant, info.title)
        ]
        for name, value in (options if bots is None else ui.listed_options(options, bots)).items():
            option = known.get(name)
            if option is None or option.choices or value != option.default:
                parts.append(f"{words.get(name, name)} {value}")
        return ", ".join(parts)


def table_line(info: Mapping[str, Any], catalog: Catalog, here: int | None) -> str:
    """One table of a list (protocol ``TABLE_INFO``), ending in what the reader may do about it."""
    bots = info["bots"]
    seats = ", ".join(
        (seat["name"] or "(free)") + (" (bot)" if index in bots else "")
        for index, seat in enumerate(info["seats"])
    )
    status = "over" if info["over"] else "playing" if info["started"] else "waiting"
    turn = info["turn"]
    if paused(info):
        status = ("paused" if turn is None else f"paused at turn {turn}") + f" ({_away(info)})"
    elif status == "playing" and turn is not None:
        status = f"playing turn {turn}"
    free = not info["started"] and any(seat["name"] is None for seat in info["seats"])
    then = f"'join {info['table']}'" if free else f"'watch {info['table']}'"
    if info["table"] == here:
        then = "you are here"
    bot_names = [info["seats"][index]["bot"] for index in bots if index < len(info["seats"])]
    kind = catalog.describe(info["game"], info["variant"], info["options"], bot_names)
    if info["turn_seconds"]:  # past it, a bot plays the rest of the turn: worth knowing before joining
        kind += f", {info['turn_seconds']} s a turn"
    return f"table {info['table']}: {kind}, {status}, seats: {seats} · {then}"


#: What 'paused' means under a list of tables, where some player away keeps a seat ...
PAUSED_HELD = (
    "(paused: nobody is at the table; a player away keeps their seat to come back to; once someone"
    " watches, the game goes on, a bot playing for a player still away past the server's grace)"
)
#: ... and where bots alone play.
PAUSED_BOTS = "(paused: nobody is at the table; its bots play while someone watches)"


def paused(info: Mapping[str, Any]) -> bool:
    """Is the game of this table (protocol ``TABLE_INFO``) under way with nobody at it (no player
    connected, nobody watching)? A bot's seat counts as connected: nobody else is."""
    present = info["spectators"] or any(seat["connected"] and seat["bot"] is None for seat in info["seats"])
    return bool(info["started"] and not info["over"] and not present)


def paused_note(tables: Sequence[Mapping[str, Any]]) -> list[str]:
    """What 'paused' means, once under a list with such a game in it, as the server does it: nothing
    is played while nobody is there. Its players away keep their seats to come back to; while
    someone watches, its bots play their turns, and a bot stands in for each player still away
    once their seat's hold (the server's grace) is over. Said once: on each line, a list of a few
    such games was mostly this."""
    if any(paused(info) and _away_from(info) for info in tables):
        return [PAUSED_HELD]
    return [PAUSED_BOTS] if any(paused(info) for info in tables) else []


def _away(info: Mapping[str, Any]) -> str:
    """Who a paused game waits for (:func:`paused_note` says what sets it going)."""
    away = _away_from(info)
    if not away:  # bots alone: they play whenever someone watches
        return "bots alone"
    return f"{spoken_list(away)} away"


def _away_from(info: Mapping[str, Any]) -> list[str]:
    """The players away from a table whose seats are theirs to come back to (a bot may stand in)."""
    seats = info["seats"]
    return [
        seats[index]["name"] or f"seat {index + 1}"
        for index in info["kept"]
        if index < len(seats) and not seats[index]["connected"]
    ]
