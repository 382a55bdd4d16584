"""A recorded game brought back through the game seam: as dealt, move by move, bots and all.

The record (:mod:`server.journal`) holds a game's settings, its deal and each
move with its chance outcome; applying those to a new match rebuilds it
exactly, for a restart (:meth:`server.host.Host.restore`) and for
``notty-server replay``.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from games import GAMES, DealRecord, Game, Match, Step

from .journal import GameBegun, Moved, SavedGame

log = logging.getLogger("notty.record")


def game_of(begun: GameBegun, games: Mapping[str, Game] = GAMES) -> Game:
    """The game a record is of; ``KeyError`` if this server does not host it."""
    return games[begun.game]


def dealt(begun: GameBegun, rng: random.Random, games: Mapping[str, Game] = GAMES) -> Match:
    """A stored game as it was dealt, before its first move."""
    game = game_of(begun, games)
    settings = game.settings(begun.variant, len(begun.seats), begun.options)
    names = [seat.name for seat in begun.seats]
    return game.new_match(settings, names, rng, DealRecord(begun.deal, begun.first))


def replay_move(match: Match, move: Moved) -> Step:
    """Apply a recorded move with the chance outcome it had. A move that needed chance and has
    none recorded is damaged: replayed, it would draw a fresh card, a different game each time."""
    step = match.apply(move.seat, match.parse_action(move.action), move.outcome)
    if step.outcome and not move.outcome:
        raise ValueError(f"move {move.number} drew or stole, and its record says nothing of what")
    return step


def rebuild(
    saved: SavedGame,
    rng: random.Random,
    bots: Mapping[int, Any] | None = None,
    own: Collection[int] = (),
    games: Mapping[str, Game] = GAMES,
) -> Match:
    """Replay a stored game: the same deal, the same moves, the same outcomes.

    ``rng`` serves only the moves after the rebuild: live play draws fresh chance.
    ``bots`` (one per seat) catch up on each position their seat moved from, so
    they remember what they did before the restart. The bots of seats in ``own``
    made every move there, so in the turn under way they choose again, which
    restores a plan made this turn (bots decide alike from alike positions):
    their memory is exactly what it was. A stand-in for a human only catches up.
    A bot that fails to catch up loses its memory, never the game.
    """
    return rebuild_with_last(saved, rng, bots, own, games)[0]


def rebuild_with_last(
    saved: SavedGame,
    rng: random.Random,
    bots: Mapping[int, Any] | None = None,
    own: Collection[int] = (),
    games: Mapping[str, Game] = GAMES,
) -> tuple[Match, tuple[Any, ...]]:
    """:func:`rebuild`, and the events of the last move (none before the first): what a restored
    table shows as its last change to a player who comes back or a new spectator."""
    match = dealt(saved.begun, rng, games)
    last: tuple[Any, ...] = ()
    this_turn: list[tuple[int, int, Any]] = []  # (turn, seat, view) in the latest turn, until another begins
    for move in saved.moves:
        if bots is not None:
            if this_turn and this_turn[0][0] != match.turn:
                _catch_up(saved.begun.table, bots, this_turn, ())
                this_turn = []
            this_turn.append((match.turn, move.seat, match.bot_view(move.seat)))
        last = replay_move(match, move).events
    if bots is not None:
        under_way = bool(this_turn) and this_turn[0][0] == match.turn and not match.over
        _catch_up(saved.begun.table, bots, this_turn, own if under_way else ())
    return match, last


def _catch_up(
    table: int, bots: Mapping[int, Any], positions: Sequence[tuple[int, int, Any]], choosing: Collection[int]
) -> None:
    for _, seat, view in positions:
        try:
            if seat in choosing:
                bots[seat].choose(view)
            else:
                bots[seat].catch_up(view)
        except Exception:  # a bot bug: live play ends its turn instead; here it only forgets
            log.exception("table %d: the bot at seat %d could not catch up on the game", table, seat)
