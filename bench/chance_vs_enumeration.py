"""Go-out chances: the covering search against trying every draw.

The baseline, timed on the same positions in the same run, is what the
expert would do without ``solver.notty._chance``: list every multiset of ``k``
cards the deck can deal and ask the discard solver whether the hand then goes
out whole. Both must give the same probability on every position, or this
exits 1. The search's caches are cleared before every call.

    .venv/bin/python bench/chance_vs_enumeration.py [--positions 200]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from collections import Counter
from math import comb

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games.notty import CLASSIC, Card, Rules
from solver import go_out_chance, max_discard
from solver.notty._chance import _finishers


def enumerate_chance(hand: list[Card], deck: list[Card], k: int, rules: Rules) -> float:
    counts = Counter(deck)
    ways = 0
    for draw in itertools.combinations_with_replacement(sorted(counts), k):
        drawn = Counter(draw)
        if any(drawn[card] > counts[card] for card in drawn):
            continue
        if max_discard([*hand, *draw], rules) == len(hand) + k:
            w = 1
            for card, n in drawn.items():
                w *= comb(counts[card], n)
            ways += w
    return ways / comb(len(deck), k)


def positions(count: int, seed: int, rules: Rules) -> list[tuple[list[Card], list[Card]]]:
    """Hands of 1 to 8 cards (the sizes the expert weighs most), with another player holding 15."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        full = rules.full_deck()
        rng.shuffle(full)
        h = rng.randint(1, 8)
        found.append((full[:h], full[h + 15 :]))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=4008)
    args = parser.parse_args()
    print(f"machine: {describe()}")
    rules = CLASSIC
    rows = []
    failed = False
    for k in (1, 2, 3):
        search, brute = [], []
        for hand, deck in positions(args.positions, args.seed + k, rules):
            _finishers.cache_clear()
            start = time.perf_counter()
            fast = go_out_chance(hand, deck, k, rules)
            search.append(time.perf_counter() - start)
            start = time.perf_counter()
            slow = enumerate_chance(hand, deck, k, rules)
            brute.append(time.perf_counter() - start)
            if abs(fast - slow) > 1e-12:
                print(f"DISAGREE: {' '.join(map(str, hand))} draw {k}: {fast} != {slow}")
                failed = True
        ratios = [b / s for s, b in zip(search, brute, strict=True)]
        rows.append(
            (k, statistics.median(search), _p99(search), statistics.median(brute), statistics.median(ratios))
        )
    head = "| draw | search median ms | search p99 ms | enumeration median ms | enumeration/search |"
    print(
        f"\n{args.positions} positions per draw count, classic, hands of 1-8 cards, caches cleared per call\n"
    )
    print(head)
    print("|---:|---:|---:|---:|---:|")
    for k, med, p99, brute_med, ratio in rows:
        print(f"| {k} | {med * 1000:.3f} | {p99 * 1000:.3f} | {brute_med * 1000:.1f} | {ratio:.0f}x |")
    return 1 if failed else 0


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


if __name__ == "__main__":
    sys.exit(main())
