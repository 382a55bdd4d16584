"""Benchmark: huxxy's solver on hands grown by drawing, as a hint and a bot search them.

    .venv/bin/python bench/huxxy_big_hands.py [--positions 8] [--seed 1]

A player who draws turn after turn (as an attacker might, to make each hint cost the server's one
hint thread seconds) reaches 55 to 65 cards. Each position is one such hand at a 2-seat
``huxxy-jokers`` table, its opponent ``greedy``, taken when the stock is nearly gone, opened or
not. Each is solved three ways, in CPU time (``time.process_time``): in full, within a bot's
bound (``BOT_SETS``) and within a hint's (``HINT_VISITS``, ``HINT_SETS``). Printed: the times,
and the points of each bounded turn against the full one's (every turn places 6 cards here).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence

from _machine import describe

from games import GAMES, ActionError
from games.huxxy import Card
from games.huxxy.bots import BOT_SETS, HINT_SETS, HINT_VISITS
from solver.huxxy import Turn, best_turn


def grown(seed: int) -> tuple[list[Card], list[tuple[Card, ...]], bool]:
    """A hand drawn to some 60 cards, the table, and whether the player opened (seeded)."""
    game = GAMES["huxxy"]
    settings = game.settings("huxxy-jokers", 2, {})
    match = game.new_match(settings, ["drawer", "bot"], random.Random(seed))
    bot = game.new_bot("greedy", settings, random.Random(seed))
    while not match.over and match.engine.stock_size > 4:
        if match.current == 0:
            match.apply(0, match.parse_action("draw"))
            continue
        try:
            match.apply(1, bot.choose(match.bot_view(1)))
        except ActionError:
            match.apply(1, match.parse_action("draw"))
    engine = match.engine
    return list(engine.hand(0)), [tuple(group) for group in engine.table], seed % 2 == 0


def timed(hand: list[Card], table: list[tuple[Card, ...]], opened: bool, **bound: int) -> tuple[float, Turn]:
    start = time.process_time()
    turn = best_turn(hand, table, opened, **bound)
    assert turn is not None, "a hand of 60 cards always has a turn"
    return time.process_time() - start, turn


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"machine: {describe()}")
    rows: dict[str, list[float]] = {"full": [], "bot": [], "hint": []}
    lost: dict[str, list[int]] = {"bot": [], "hint": []}
    for seed in range(args.seed, args.seed + args.positions):
        hand, table, opened = grown(seed)
        full_s, full = timed(hand, table, opened)
        bot_s, bot = timed(hand, table, opened, most_sets=BOT_SETS)
        hint_s, hint = timed(hand, table, opened, most_visits=HINT_VISITS, most_sets=HINT_SETS)
        rows["full"].append(full_s)
        rows["bot"].append(bot_s)
        rows["hint"].append(hint_s)
        lost["bot"].append(full.points - bot.points)
        lost["hint"].append(full.points - hint.points)
        print(
            f"seed {seed}: {len(hand)} cards, {len(table)} groups, {'opened' if opened else 'not opened'}:"
            f" full {full_s:.2f} s ({len(full.placed)} cards, {full.points} points),"
            f" bot {bot_s:.2f} s ({bot.points}), hint {hint_s:.2f} s ({hint.points})"
        )
    for way, times in rows.items():
        print(f"{way}: CPU median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    for way, points in lost.items():
        print(f"{way}: points below the full turn's, median {statistics.median(points)}, max {max(points)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
