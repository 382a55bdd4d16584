"""The games a notty server hosts: ``GAMES`` maps each name to its :class:`Game`.

Like python-chess's ``VARIANTS``, but each game is imported only when first
asked for, so the client and the solver can use a game's vocabulary without
loading every engine and bot. ``docs/GAMES.md`` says how to add one.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from ._interface import (
    ActionError,
    Bot,
    DealRecord,
    Game,
    HintAnswer,
    Match,
    Option,
    Outcome,
    Settings,
    SettingsError,
    Step,
    Variant,
    bot_defaults,
    changed_options,
    check_settings,
    describe,
    hands_hidden,
)


class _Registry(Mapping[str, Game]):
    """Game names to games, each imported from ``games.<package>.game`` on first use."""

    def __init__(self, packages: Mapping[str, str]) -> None:
        self._packages = dict(packages)
        self._loaded: dict[str, Game] = {}

    def __getitem__(self, name: str) -> Game:
        game = self._loaded.get(name)
        if game is None:
            package = self._packages[name]
            game = self._loaded[name] = importlib.import_module(f"games.{package}.game").GAME
        return game

    def __iter__(self) -> Iterator[str]:
        return iter(self._packages)

    def __len__(self) -> int:
        return len(self._packages)


#: Every game this release hosts; the first is the default.
GAMES: Mapping[str, Game] = _Registry({"notty": "notty", "ochos-locos": "ochos_locos", "huxxy": "huxxy"})
DEFAULT_GAME = "notty"

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "ActionError",
    "Bot",
    "DealRecord",
    "Game",
    "HintAnswer",
    "Match",
    "Option",
    "Outcome",
    "Settings",
    "SettingsError",
    "Step",
    "Variant",
    "bot_defaults",
    "changed_options",
    "check_settings",
    "describe",
    "hands_hidden",
]
