"""Drive a Notty engine game between bots to its end, for those that want the engine itself
(the ladder, ``notty-watch``, the bots' tests). Pure: the caller supplies all randomness.

The driving is :func:`games.autoplay.play_match`'s, through the seam; these
take and give the engine's :class:`Game`, with any :class:`Rules`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import attrs

from games import Match, Settings, Step
from games.autoplay import MAX_ACTIONS_PER_TURN, bot_seat_names, play_match
from games.autoplay import lineup as settings_lineup

from ._rules import Rules
from .bots import Bot, make_bot
from .engine import Action, EndReason, Event, Game
from .game import DEFAULT_LEVEL, GAME, NAME, NottyMatch, rules_for

StepHook = Callable[[Game, int, Action, list[Event]], None]

__all__ = ["MAX_ACTIONS_PER_TURN", "GameResult", "bot_seat_names", "lineup", "play_bots", "seeded_game"]


@attrs.frozen
class GameResult:
    winner: int | None  # seat
    reason: EndReason
    turns: int
    actions: int


def play_bots(game: Game, bots: Sequence[Bot], on_step: StepHook | None = None) -> GameResult:
    """Let each seat's bot act until the game ends; ``on_step`` sees every action."""

    def engine_step(_: Match, seat: int, action: Action, step: Step) -> None:
        if on_step is not None:
            on_step(game, seat, action, list(step.events))

    played = play_match(NottyMatch(_settings_of(game), game), bots, engine_step)
    assert game.end_reason is not None
    return GameResult(game.winner, game.end_reason, played.turns, played.actions)


def seeded_game(
    rules: Rules, bot_names: Sequence[str], seed: str | int, seat_names: Sequence[str] | None = None
) -> tuple[Game, list[Bot]]:
    """A game and its bots, all randomness derived from ``seed``: the same seed replays exactly."""
    master = random.Random(seed)
    names = bot_seat_names(bot_names) if seat_names is None else seat_names
    game = Game(rules, names, random.Random(master.getrandbits(64)))
    bots = [make_bot(name, random.Random(master.getrandbits(64))) for name in bot_names]
    return game, bots


def lineup(players: str, preset: str, max_turns: int) -> tuple[Rules, tuple[str, ...]]:
    """Rules and bot names from command-line text (``"greedy,random"``); ``ValueError`` says what is wrong."""
    if max_turns < 0:
        raise ValueError("--max-turns must be 0 (no limit) or more")
    settings, names = settings_lineup(GAME, preset, players, {"turn_limit": max_turns})
    return rules_for(settings), names


def _settings_of(game: Game) -> Settings:
    """What the seam's match carries for an engine game: its rules' name, turn limit and no-progress
    rule (the rules may be no preset; nothing here reads the settings back)."""
    rules = game.rules
    options: dict[str, int | str] = {
        "level": DEFAULT_LEVEL,
        "quiet_rounds": rules.quiet_rounds,
        "turn_limit": rules.turn_limit,
    }
    return Settings(NAME, game.rules.name, len(game.names), options)
