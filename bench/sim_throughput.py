"""Simulator throughput: greedy vs greedy games per second per core.

The baseline, run in the same process just before, is the engine alone: two
seats that only end their turn, for the same number of turns. Its ratio to
greedy says how much of a simulated turn is the bot thinking (the solver) and
how much is the engine, independent of how fast this machine is today.

    .venv/bin/python bench/sim_throughput.py [--games 100] [--jobs 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games import GAMES
from games.notty import rules_from
from games.notty.engine import EndTurn, Game
from server import sim


def engine_only(games: int, turns: int) -> tuple[float, int]:
    """Seconds and turns for games where every seat just ends its turn."""
    rules = rules_from("classic", turn_limit=turns)
    played = 0
    start = time.perf_counter()
    for i in range(games):
        game = Game(rules, ["a", "b"], random.Random(i))
        while not game.over:
            game.view(game.current)  # a bot looks before it acts
            game.apply(EndTurn())
        played += game.turn
    return time.perf_counter() - start, played


def timed_run(config: sim.SimConfig, jobs: int) -> tuple[float, list[sim.Outcome]]:
    start = time.perf_counter()
    outcomes = list(sim.run(config, jobs=jobs))
    return time.perf_counter() - start, outcomes


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {describe()}")
    settings = GAMES["notty"].settings("classic", 2, {"turn_limit": 300})
    config = sim.SimConfig(settings, ("greedy", "greedy"), args.games, args.seed)

    # Each measurement in a fresh process, so none inherits another's warm solver cache.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as fresh:
        base_seconds, base_turns = fresh.submit(engine_only, args.games, 300).result()
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as fresh:
        one_core, outcomes = fresh.submit(timed_run, config, 1).result()
    all_cores, _ = timed_run(config, args.jobs)
    turns = sum(o.turns for o in outcomes)

    per_turn_base = base_seconds / base_turns * 1e6
    per_turn_greedy = one_core / turns * 1e6
    finished = sum(1 for o in outcomes if o.winner is not None)
    print(f"greedy vs greedy, classic, 300-turn cap, {args.games} games ({finished} with a winner)")
    print(f"  one core:  {args.games / one_core:7.2f} games/s   {turns / one_core:9.0f} turns/s")
    print(
        f"  {args.jobs} workers: {args.games / all_cores:7.2f} games/s   "
        f"(scaling {one_core / all_cores:.2f}x of {args.jobs})"
    )
    print(f"  engine-only baseline: {per_turn_base:.1f} us/turn; greedy: {per_turn_greedy:.1f} us/turn")
    print(f"  ratio greedy/engine-only per turn: {per_turn_greedy / per_turn_base:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
