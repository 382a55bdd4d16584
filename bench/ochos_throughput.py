"""Ochos Locos throughput: games of three ``rule`` bots per second per core, through the simulator.

The simulator's path is ``server.sim.run`` (``play_one``: ``seeded_match``, then
``play_match`` through the game seam, a bot view and an ``apply`` a move), the
one ``notty-sim --game ochos-locos`` takes. The baseline, measured in the same
run, is the bare engine playing the same games: ``Game`` dealt as the simulator
deals them and played by ``strategy.rule_move``, with nothing around it. Their
ratio says what the seam costs, independent of how fast this machine is today.

Every figure is CPU time (``time.process_time``) in the process that played the
games, each measurement in a fresh process, the best of ``--repeats``: the
machine is shared and noisy, and CPU time is what a ladder of millions of games
pays for.

    .venv/bin/python bench/ochos_throughput.py [--games 3000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games import GAMES
from games.ochos_locos.deal import Deal
from games.ochos_locos.engine import Game
from games.ochos_locos.game import rules_for
from games.ochos_locos.strategy import rule_move
from server import sim

VARIANT = "part3"
PLAYERS = ("rule", "rule", "rule")
#: What the issue asks of the simulator: games per second per core.
TARGET = 2000


def _config(games: int, seed: int) -> sim.SimConfig:
    settings = GAMES["ochos-locos"].settings(VARIANT, len(PLAYERS), {})
    return sim.SimConfig(settings, PLAYERS, games, seed)


def engine_only(games: int, seed: int) -> tuple[float, int]:
    """CPU seconds and turns for ``games`` games of the bare engine and the automatic strategy:
    the simulator's games (each dealt from a source derived as ``seeded_match`` derives it)."""
    rules = rules_for(_config(games, seed).settings)
    turns = 0
    start = time.process_time()
    for index in range(games):
        rng = random.Random(random.Random(f"notty-sim:{seed}:{index}").getrandbits(64))
        game = Game(rules, Deal.shuffled(rules, rng), rng.randrange(rules.players))
        while not game.over:
            game.apply(game.current, rule_move(game))
        turns += game.turn
    return time.process_time() - start, turns


def simulated(games: int, seed: int, first: int = 0) -> tuple[float, int]:
    """CPU seconds and turns for games ``first .. first + games - 1`` as ``notty-sim`` plays them."""
    config = _config(first + games, seed)
    start = time.process_time()
    outcomes = [sim.play_one(config, index) for index in range(first, first + games)]
    return time.process_time() - start, sum(o.turns for o in outcomes)


def simulated_run(games: int, seed: int) -> tuple[float, int]:
    """The same through ``sim.run`` on one core (chunking included), as ``notty-sim --jobs 1``."""
    config = _config(games, seed)
    start = time.process_time()
    outcomes = list(sim.run(config, jobs=1))
    return time.process_time() - start, sum(o.turns for o in outcomes)


Measure = Callable[..., tuple[float, int]]


def fresh(function: Measure, *args: int) -> tuple[float, int]:
    """Run ``function(*args)`` in a new process, so none inherits another's warm state."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def best(repeats: int, function: Measure, *args: int) -> tuple[float, int]:
    return min((fresh(function, *args) for _ in range(repeats)), key=lambda result: result[0])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per figure; the best counts")
    args = parser.parse_args()
    if args.games < args.jobs or args.jobs < 1 or args.repeats < 1:
        parser.error("need --games >= --jobs >= 1 and --repeats >= 1")
    print(f"machine: {describe()}")
    games, seed = args.games, args.seed

    base_seconds, base_turns = best(args.repeats, engine_only, games, seed)
    run_seconds, run_turns = best(args.repeats, simulated_run, games, seed)

    # Every worker plays its share, timing its own CPU: games per CPU second, all told. The wall
    # clock starts once the workers are up (a game each first), as in a long ladder.
    shares = [range(games * j // args.jobs, games * (j + 1) // args.jobs) for j in range(args.jobs)]
    with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(simulated, [1] * args.jobs, [seed] * args.jobs, [0] * args.jobs))
        wall = time.perf_counter()
        parts = list(
            pool.map(simulated, [len(s) for s in shares], [seed] * args.jobs, [s.start for s in shares])
        )
        wall = time.perf_counter() - wall
    workers_cpu = sum(seconds for seconds, _ in parts)

    engine_rate = games / base_seconds
    sim_rate = games / run_seconds
    print(
        f"three rule bots, ochos-locos {VARIANT}, {games} games; "
        f"CPU time, best of {args.repeats} fresh processes"
    )
    print(
        f"  bare engine (Game + rule_move): {engine_rate:7.0f} games/s per core   "
        f"{base_seconds / base_turns * 1e6:5.1f} us/turn"
    )
    print(
        f"  simulator (sim.run, jobs 1):    {sim_rate:7.0f} games/s per core   "
        f"{run_seconds / run_turns * 1e6:5.1f} us/turn"
    )
    print(
        f"  simulator, {args.jobs} workers:          {games / workers_cpu:7.0f} games/s per core   "
        f"{games / wall:7.0f} games/s wall"
    )
    print(f"  ratio simulator/bare engine per game: {engine_rate / sim_rate:.2f}x")
    verdict = "PASS" if sim_rate >= TARGET else "FAIL"
    print(f"- {verdict}: {sim_rate:.0f} games/s per core through the simulator (target >= {TARGET})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
