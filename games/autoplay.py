"""Bots playing a match to its end through the game seam, for any game: the simulator's driver.

Pure: every random source comes from the caller (or, in :func:`seeded_match`,
from one seed), so the same seed plays the same match.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ._interface import Bot, Game, Match, Outcome, Settings, Step

#: A bot that takes more actions than this in one turn is broken, not thoughtful.
MAX_ACTIONS_PER_TURN = 1000

StepHook = Callable[[Match, int, Any, Step], None]


@attrs.frozen
class Played:
    outcome: Outcome
    turns: int
    actions: int  # every seat's, all told


def play_match(match: Match, bots: Sequence[Bot], on_step: StepHook | None = None) -> Played:
    """Let each seat's bot act until the match ends; ``on_step`` sees every action."""
    actions = in_turn = 0
    turn = match.turn
    while not match.over:
        seat = match.current
        action = bots[seat].choose(match.bot_view(seat))
        step = match.apply(seat, action)
        actions += 1
        now = match.turn
        in_turn = in_turn + 1 if now == turn else 0
        turn = now
        if in_turn > MAX_ACTIONS_PER_TURN:
            raise RuntimeError(f"bot {bots[seat].name!r} took {in_turn} actions without ending its turn")
        if on_step is not None:
            on_step(match, seat, action, step)
    outcome = match.outcome()
    assert outcome is not None, "a match that is over has an outcome"
    return Played(outcome, match.turn, actions)


def bot_seat_names(bot_names: Sequence[str]) -> list[str]:
    """Bot names as seat names, which must differ: numbered where a name repeats (``greedy-1``)."""
    repeated = len(set(bot_names)) < len(bot_names)
    return [f"{name}-{i + 1}" if repeated else name for i, name in enumerate(bot_names)]


def default_players(game: Game) -> str:
    """Two of ``game``'s bots for a simulation nobody named any for: its first real one, and random."""
    first = next((name for name in game.bots if name != "random"), "random")
    return f"{first},random"


def lineup(
    game: Game, variant: str | None, players: str, options: Mapping[str, Any]
) -> tuple[Settings, tuple[str, ...]]:
    """Settings and bot names from command-line text (``"greedy,random"``); ``ValueError``
    (:class:`games.SettingsError` among them) says what is wrong."""
    names = tuple(name.strip() for name in players.split(","))
    if "" in names:  # 'greedy,,random': a seat left out by mistake, not one fewer player
        example = default_players(game)
        raise ValueError(f"a player's name is missing in {players!r}: name each seat's bot, e.g. {example}")
    unknown = [name for name in names if name not in game.bots]
    if unknown:
        raise ValueError(f"unknown bot(s) {', '.join(unknown)}: bots are {', '.join(game.bots)}")
    return game.settings(variant, len(names), options), names


def seeded_match(
    game: Game, settings: Settings, bot_names: Sequence[str], seed: str | int
) -> tuple[Match, list[Bot]]:
    """A match between bots, all randomness derived from ``seed``: the same seed replays exactly.

    Each bot is the one its name gives, as named (not at the table's level).
    """
    master = random.Random(seed)
    match = game.new_match(settings, bot_seat_names(bot_names), random.Random(master.getrandbits(64)))
    bots = [game.new_bot(name, settings, random.Random(master.getrandbits(64))) for name in bot_names]
    return match, bots
