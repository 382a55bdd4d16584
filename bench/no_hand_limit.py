"""The expert's moves and Notty's hints at a table with no hand limit, where one hand grows to 70 cards.

An audit found that a client could stall the whole server from ordinary play: at a
table created with ``hand_limit 0`` (the rules' older text), it drew 3 cards every
turn and never discarded. Once its hand held some 60 cards, each move of the
``expert`` bot weighed its theft by each of them, and each such chance was a
covering search of seconds; a move took up to 26 s of CPU and a hint 22 s, holding
the interpreter (so the event loop) all along. Since then an opponent's hand
bigger than the presets' limit is not weighed card by card, and every chance's
search stops after ``solver.notty._chance.SEARCH_STATES`` states (a lower bound,
which a hint says).

This plays that game: seat 0 draws 3 (while the deck has cards) and ends its turn;
seat 1 is ``expert-hard``. Each of the bot's moves is timed, and every few turns
the hint of the seat to move (the expert's own, facing the big hand, or the big
hand's), as the server would run them: CPU time (``process_time``), between the
game's other work. The baseline, in the same run: the same bot and hints in
ordinary games at a classic table (hand limit 20), expert-hard against greedy.

    .venv/bin/python bench/no_hand_limit.py [--turns 400] [--games 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from _machine import describe  # bench/ is on sys.path when this runs as a script
from notty_hint import quantile

from games.notty import CLASSIC
from games.notty.bots import make_bot
from games.notty.engine import Draw, EndTurn, Game
from games.notty.game import make_hint

NO_LIMIT = CLASSIC.replace(hand_limit=0, quiet_rounds=0)


def hoarding(turns: int, every: int, seed: int) -> tuple[list[float], list[list[float]], int]:
    """CPU ms of each expert move and of each hint in the hoarding game (by seat: the hoarder's,
    the expert's), and the biggest hand."""
    game = Game(NO_LIMIT, ["hoarder", "expert"], random.Random(seed))
    expert = make_bot("expert-hard", random.Random(seed + 1))
    moves: list[float] = []
    hints: list[list[float]] = [[], []]
    biggest = 0
    while not game.over and game.turn <= turns:
        seat = game.current
        view = game.view(seat)
        biggest = max(biggest, len(game.hands[0]))
        if game.turn % every in (0, 1) and not view.drew and not view.stole:
            hints[seat].append(_timed(lambda view=view: make_hint(view.hand, NO_LIMIT, own=view)))
        if seat == 0:
            if game.deck_size:
                game.apply(Draw(min(3, game.deck_size)), seat=0)
            game.apply(EndTurn(), seat=0)
            continue
        actions = 0
        while not game.over and game.current == seat and actions < 60:
            start = time.process_time()
            action = expert.choose(game.view(seat))
            moves.append((time.process_time() - start) * 1000)
            game.apply(action, seat=seat)
            actions += 1
    return moves, hints, biggest


def ordinary(games: int, every: int, seed: int) -> tuple[list[float], list[float]]:
    """The same measures in classic games, expert-hard against greedy (hands up to 20 cards)."""
    moves: list[float] = []
    hints: list[float] = []
    for number in range(games):
        game = Game(CLASSIC.replace(turn_limit=300), ["greedy", "expert"], random.Random(f"{seed}:{number}"))
        bots = [make_bot("greedy", random.Random(number)), make_bot("expert-hard", random.Random(number))]
        while not game.over:
            seat = game.current
            view = game.view(seat)
            if game.turn % every in (0, 1) and not view.drew and not view.stole and not view.must_put_back:
                hints.append(_timed(lambda view=view: make_hint(view.hand, CLASSIC, own=view)))
            start = time.process_time()
            action = bots[seat].choose(view)
            if seat == 1:
                moves.append((time.process_time() - start) * 1000)
            game.apply(action, seat=seat)
    return moves, hints


def _timed(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return (time.process_time() - start) * 1000


def row(name: str, values: list[float]) -> str:
    return (
        f"| {name} | {len(values)} | {statistics.median(values):.2f} | {quantile(values, 0.99):.2f} "
        f"| {max(values):.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=400, help="turns of the hoarding game (default 400)")
    parser.add_argument("--games", type=int, default=20, help="ordinary games for the baseline (default 20)")
    parser.add_argument("--every", type=int, default=10, help="hints on two turns of every this many")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Machine: {describe()}")
    moves, hints, biggest = hoarding(args.turns, args.every, args.seed)
    base_moves, base_hints = ordinary(args.games, args.every, args.seed)
    print(f"hoarding game: {args.turns} turns, the hoarder's hand up to {biggest} cards; CPU ms")
    print()
    print("| what | count | median | p99 | max |")
    print("|---|---:|---:|---:|---:|")
    print(row("expert move, no hand limit, a hand of dozens", moves))
    print(row("expert move, classic (baseline)", base_moves))
    print(row("hint, no hand limit, the hoarder's (a hand of dozens)", hints[0]))
    print(row("hint, no hand limit, the expert's seat", hints[1]))
    print(row("hint, classic (baseline)", base_hints))
    print()
    print(
        f"max over baseline max: moves {max(moves) / max(base_moves):.1f}x, "
        f"hints {max(hints[0] + hints[1]) / max(base_hints):.1f}x"
    )


if __name__ == "__main__":
    main()
