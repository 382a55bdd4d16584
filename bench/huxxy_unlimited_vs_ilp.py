"""Benchmark: huxxy's unlimited question, the dynamic programme against the ILP baseline.

    .venv/bin/python bench/huxxy_unlimited_vs_ilp.py [--positions 150] [--seed 2201] [--markdown]

On the same mid-game positions as the 6-play solver's benchmark
(bench/huxxy_positions.py: from games of greedy bots, 12-card hands, 8 to 12
groups on the table), without and with jokers, each position is answered by:

* ``ILP``   -- bench/huxxy_ilp.py: the model built for the position (its columns
  from the cards present) and solved by HiGHS through ``scipy.optimize.milp``;
* ``warm``  -- ``solver.huxxy.unlimited.most_placed``, right after the ILP, with the
  tables it keeps between calls (steps past one value from a state, which never
  depend on the hand) warmed on the stored positions not timed, as in a long-running server;
* ``cold``  -- ``most_placed`` in a pass of its own with those tables emptied
  before every call.

Both must agree on (cards placed, their points) for every position, and the
solver's groups must be a valid partition of the table and the placed cards;
any disagreement exits 1. Times in ms; ratio = ILP median / solver median. The
target: the solver's median at least 10x faster than the ILP's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence

import numpy as np
import scipy
from _machine import facts
from huxxy_ilp import ilp_most_placed
from huxxy_positions import Position, others, positions

from games.huxxy import valid_group
from solver.huxxy.unlimited import Placement, clear_caches, most_placed

TARGET_RATIO = 10.0
WARMUP_POSITIONS = 200


def check(position: Position, answer: Placement) -> str | None:
    """What is wrong with the solver's groups, or None."""
    if Counter(answer.placed) - Counter(position.hand):
        return "places cards the hand does not hold"
    table = Counter(card for group in position.table for card in group)
    if Counter(card for group in answer.groups for card in group) != table + Counter(answer.placed):
        return "groups do not hold exactly the table and the placed cards"
    if not all(valid_group(group) for group in answer.groups):
        return "an invalid group"
    return None


def percentile(times: Sequence[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(
    name: str, cases: list[Position], warmup: list[Position]
) -> tuple[dict[str, list[float]], list[str], float]:
    clear_caches()
    for position in warmup:
        most_placed(position.hand, position.table)
    for position in warmup[:10]:
        ilp_most_placed(position.hand, position.table)
    times: dict[str, list[float]] = {"ILP": [], "warm": [], "cold": []}
    problems: list[str] = []
    placed = 0
    answers: list[tuple[int, int]] = []
    for index, position in enumerate(cases):
        start = time.perf_counter()
        expected = ilp_most_placed(position.hand, position.table)
        middle = time.perf_counter()
        answer = most_placed(position.hand, position.table)
        end = time.perf_counter()
        times["ILP"].append((middle - start) * 1000)
        times["warm"].append((end - middle) * 1000)
        placed += expected[0]
        answers.append((len(answer.placed), answer.points))
        if (len(answer.placed), answer.points) != expected:
            problems.append(f"{name} #{index}: solver {(len(answer.placed), answer.points)}, ILP {expected}")
        elif (fault := check(position, answer)) is not None:
            problems.append(f"{name} #{index}: {fault}")
    for index, position in enumerate(cases):
        clear_caches()
        start = time.perf_counter()
        cold = most_placed(position.hand, position.table)
        times["cold"].append((time.perf_counter() - start) * 1000)
        if (len(cold.placed), cold.points) != answers[index]:
            problems.append(f"{name} #{index}: the cold answer differs from the warm one")
    return times, problems, placed / len(cases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--positions", type=int, default=150, help="positions per class (default 150; others warm caches)"
    )
    parser.add_argument("--seed", type=int, default=2201, help="seed for the positions (default 2201)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table for bench/RESULTS.md")
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    machine = [*facts(), ("scipy / numpy", f"{scipy.__version__} / {np.__version__} (milp: HiGHS)")]
    if args.markdown:
        print(f"Machine: {'; '.join(f'{key} {value}' for key, value in machine)}.")
    else:
        for key, value in machine:
            print(f"{key:14} {value}")
    print()
    print(
        f"{args.positions} positions per class, seed {args.seed}; warm tables warmed on the stored positions "
        "not timed. Times in ms; ratio = ILP median / solver median."
    )
    print()
    if args.markdown:
        print("| positions | mean placed | timed | median | p90 | p99 | max | ILP median / median |")
        print("|---|---:|---|---:|---:|---:|---:|---:|")
    else:
        header = (
            f"{'positions':14} {'placed':>6}  {'timed':5} "
            + " ".join(f"{label:>8}" for label in ("median", "p90", "p99", "max"))
            + f" {'ratio':>7}"
        )
        print(header)
        print("-" * len(header))
    problems: list[str] = []
    verdicts: list[tuple[str, bool]] = []
    for jokers in (False, True):
        name = "with jokers" if jokers else "no jokers"
        cases = positions(args.positions, args.seed, jokers)
        warmup = others(cases, jokers)[:WARMUP_POSITIONS]
        times, faults, placed = run(name, cases, warmup)
        problems += faults
        ilp_median = statistics.median(times["ILP"])
        for key in ("ILP", "warm", "cold"):
            median = statistics.median(times[key])
            ratio = ilp_median / median
            figures = (median, percentile(times[key], 0.9), percentile(times[key], 0.99), max(times[key]))
            shown = "" if key == "ILP" else f"{ratio:.1f}x"
            if args.markdown:
                cells = " | ".join(f"{figure:.2f}" for figure in figures)
                print(f"| {name} | {placed:.2f} | {key} | {cells} | {shown} |")
            else:
                cells = " ".join(f"{figure:8.2f}" for figure in figures)
                print(f"{name:14} {placed:6.2f}  {key:5} {cells} {shown:>7}")
            if key != "ILP":
                verdicts.append(
                    (
                        f"{name}, {key}: median {ratio:.1f}x faster than the ILP (target >= 10x)",
                        ratio >= TARGET_RATIO,
                    )
                )
        sys.stdout.flush()
    print()
    agree = 2 * args.positions - len(problems)
    print(f"{'- ' if args.markdown else ''}agreement: {agree}/{2 * args.positions} positions")
    for text, ok in verdicts:
        print(f"{'- ' if args.markdown else '  '}{'PASS' if ok else 'FAIL'}: {text}")
    if problems:
        print(f"\n{len(problems)} DISAGREEMENTS:", file=sys.stderr)
        for line in problems[:20]:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
