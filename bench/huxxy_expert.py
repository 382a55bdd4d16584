"""huxxy: the ``expert`` bot against three ``greedy`` bots, on the same deals from every seat.

    .venv/bin/python bench/huxxy_expert.py [--deals 500] [--jobs 2] [--seed 22] [--variant huxxy]
        [--bot expert] [--markdown]

Each deal ``0 .. --deals - 1`` is played four times through the game seam
(``GAME.new_match``, the bots the server seats), the expert in seat 1, 2, 3 and
4 and ``greedy`` in the others; seat 1 always starts, so a deal is played from
every seat. A deal is fixed by (deal index, ``--seed``) alone; the bots' own
random sources by (deal, seat).

Reported: the expert's share of first places (a first place shared by k seats
counts 1/k) with the Wilson 95% interval against the fair share of 25%, games
ended by an empty hand or by the stock, turns per game, the CPU time of the
expert's and greedy's turn plans (in-worker ``time.process_time``, so a second
worker on the same cores does not count: median, p95, max), then PASS/FAIL
against issue 22's target: >= 40% with the lower bound >= 35% over >= 2,000
deals.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games._interface import DealRecord
from games.huxxy.engine import Deal, Rules
from games.huxxy.game import GAME, deal_to_record
from server.stats import wilson_interval

PLAYERS = 4
TARGET, TARGET_LOW = 0.40, 0.35


def deal_for(index: int, seed: int, jokers: bool) -> DealRecord:
    """Deal ``index``: seat 0 starts, whatever the shuffle said."""
    dealt = Deal.shuffled(Rules(PLAYERS, jokers), random.Random(seed * 1_000_003 + index))
    return deal_to_record(Deal(dealt.hands, dealt.stock, 0))


class Timed:
    """A bot whose planning time (CPU) is kept: the first action of each turn is where it plans."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.times: list[float] = []

    def choose(self, view: Any) -> Any:
        started = time.process_time()
        action = self.bot.choose(view)
        if not view.plays:
            self.times.append(time.process_time() - started)
        return action


def play(job: tuple[int, int, int, str, str]) -> tuple[float, str, int, list[float], list[float]]:
    """Deal ``index`` with ``bot`` in ``seat``: its share of first place, how the game ended, turns,
    and the planning times of the bot and of the greedy seats."""
    index, seat, seed, variant, bot = job
    settings = GAME.settings(variant, PLAYERS, {})
    record = deal_for(index, seed, variant == "huxxy-jokers")
    match = GAME.new_match(settings, [f"p{i}" for i in range(PLAYERS)], random.Random(0), record)
    bots = [
        Timed(GAME.new_bot(bot if i == seat else "greedy", settings, random.Random(index * 10 + i)))
        for i in range(PLAYERS)
    ]
    while not match.over:
        current = match.current
        match.apply(current, bots[current].choose(match.bot_view(current)))
    outcome = match.outcome()
    assert outcome is not None
    first = outcome.ranking[0]
    share = 1 / len(first) if seat in first else 0.0
    others = [t for i, b in enumerate(bots) if i != seat for t in b.times]
    return share, outcome.reason, match.turn, bots[seat].times, others


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    median = statistics.median(ordered)
    return f"median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {ordered[-1] * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--variant", default="huxxy", choices=["huxxy", "huxxy-jokers"])
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    print(f"machine: {describe()}")
    jobs = [
        (index, seat, args.seed, args.variant, args.bot)
        for index in range(args.deals)
        for seat in range(PLAYERS)
    ]
    started = time.perf_counter()
    results = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for result in pool.map(play, jobs):
            results.append(result)
            if len(results) % 20 == 0:
                share = sum(r[0] for r in results) / len(results)
                elapsed = time.perf_counter() - started
                print(f"  {len(results)} games, {args.bot} {share:.1%}, {elapsed:.0f} s", file=sys.stderr)
    wall = time.perf_counter() - started
    games = len(results)
    wins = sum(share for share, *_ in results)
    low, high = wilson_interval(round(wins), games)
    rate = wins / games
    out = sum(1 for _, reason, *_ in results if reason == "went-out")
    turns = [turn for _, _, turn, *_ in results]
    mine = [t for *_, times, _ in results for t in times]
    greedy = [t for *_, times in results for t in times]
    verdict = "PASS" if rate >= TARGET and low >= TARGET_LOW and args.deals >= 2000 else "FAIL"
    lines = [
        f"huxxy {args.variant}, {args.bot} vs 3 greedy: {args.deals} deals x 4 seats = {games} games "
        f"in {wall:.0f} s wall ({args.jobs} workers)",
        f"  {args.bot} first places: {rate:.1%} (95% interval {low:.1%}-{high:.1%}; fair share 25%)",
        f"  ended by an empty hand: {out / games:.1%}; by the stock: {1 - out / games:.1%}; "
        f"turns per game median {statistics.median(turns):.0f}",
        f"  {args.bot} turn plans (CPU): {quantiles(mine)}",
        f"  greedy turn plans (CPU): {quantiles(greedy)}",
        f"  target >= 40%, lower bound >= 35%, >= 2,000 deals: {verdict}",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
