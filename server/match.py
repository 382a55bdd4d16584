"""Drive a game between bots to its end. Pure: the caller supplies all randomness."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import attrs

from protocol import Rules, rules_from

from .bots import BOTS, Bot, make_bot
from .engine import Action, EndReason, Event, Game

#: A bot that takes more actions than this in one turn is broken, not thoughtful.
MAX_ACTIONS_PER_TURN = 1000

StepHook = Callable[[Game, int, Action, list[Event]], None]


@attrs.frozen
class GameResult:
    winner: int | None  # seat
    reason: EndReason
    turns: int
    actions: int


def play_bots(game: Game, bots: Sequence[Bot], on_step: StepHook | None = None) -> GameResult:
    """Let each seat's bot act until the game ends; ``on_step`` sees every action."""
    actions = in_turn = 0
    turn = game.turn
    while not game.over:
        seat = game.current
        action = bots[seat].choose(game.view(seat))
        events = game.apply(action, seat=seat)
        actions += 1
        in_turn = in_turn + 1 if game.turn == turn else 0
        turn = game.turn
        if in_turn > MAX_ACTIONS_PER_TURN:
            raise RuntimeError(f"bot {bots[seat].name!r} took {in_turn} actions without ending its turn")
        if on_step is not None:
            on_step(game, seat, action, events)
    assert game.end_reason is not None
    return GameResult(game.winner, game.end_reason, game.turn, actions)


def bot_seat_names(bot_names: Sequence[str]) -> list[str]:
    """Bot names as seat names, which must differ: numbered where a name repeats (``greedy-1``)."""
    repeated = len(set(bot_names)) < len(bot_names)
    return [f"{name}-{i + 1}" if repeated else name for i, name in enumerate(bot_names)]


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
    names = tuple(name.strip() for name in players.split(",") if name.strip())
    unknown = [name for name in names if name not in BOTS]
    if unknown:
        raise ValueError(f"unknown bot(s) {', '.join(unknown)}: bots are {', '.join(BOTS)}")
    if max_turns < 0:
        raise ValueError("--max-turns must be 0 (no limit) or more")
    rules = rules_from(preset, turn_limit=max_turns)
    if not rules.min_players <= len(names) <= rules.max_players:
        raise ValueError(
            f"{rules.name} is for {rules.min_players} to {rules.max_players} players, not {len(names)}"
        )
    return rules, names
