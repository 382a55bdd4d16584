"""Recorded games as text: the list of games, and one game move by move through the engine."""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from typing import TextIO

from protocol import Card

from .host import ABANDONED, dealt, replay_move
from .journal import SavedGame
from .store import GameSummary
from .wire import event_to_wire


def print_games(games: Iterable[GameSummary], out: TextIO) -> None:
    shown = False
    for game in games:
        shown = True
        if game.ended_at is None:
            result = "unfinished"
        elif game.winner is None:
            result = f"no winner ({game.reason})"
        else:
            result = f"{game.names[game.winner]} won ({game.reason})"
        out.write(
            f"game {game.id}: {game.preset}, {' vs '.join(game.names)}, started {_when(game.started_at)}, "
            f"{game.moves} moves, {result}\n"
        )
    if not shown:
        out.write("no games recorded yet\n")


def print_game(saved: SavedGame, out: TextIO) -> None:
    """Every move with what it did, replayed through the engine from the recorded chance outcomes."""
    begun = saved.begun
    names = [seat.name + (f" ({seat.bot})" if seat.bot else "") for seat in begun.seats]
    out.write(f"game {begun.table}: {begun.preset}, {' vs '.join(names)}\n")
    game = dealt(begun, random.Random(0))  # no chance left to the rng: every outcome is recorded
    for name, hand in zip(game.names, game.hands, strict=True):
        out.write(f"      {name} is dealt {_cards(hand)}\n")
    for event in game.opening:
        out.write(f"      {event_to_wire(event, game.names)['text']}\n")
    for move in saved.moves:
        turn = game.turn
        events = replay_move(game, move)
        texts = "; ".join(event_to_wire(event, game.names)["text"] for event in events)
        out.write(f"{move.number:5}. turn {turn}: {texts}\n")
    held = ", ".join(f"{name} {_cards(hand)}" for name, hand in zip(game.names, game.hands, strict=True))
    when = "after the last recorded move" if saved.over is None else "at the end"
    out.write(f"      in hand {when}: {held}\n")
    if saved.over is None:
        out.write("(unfinished: it goes on when the server runs again)\n")
    elif saved.over.reason == ABANDONED:
        out.write("(abandoned: nobody was left at the table)\n")


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in sorted(cards)) or "nothing"


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))
