"""Go-out chances: the covering search against trying every draw.

The baseline, timed on the same positions in the same run, is what the
expert would do without ``solver.notty._chance``: list every multiset of ``k``
cards the deck can deal and ask the discard solver whether the hand then goes
out whole. The search is timed twice, as the C extension runs it (when built)
and in pure Python; all must give the same probability on every position, or
this exits 1. The search's caches are cleared before every call.

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
from solver.notty import _chance, _impl
from solver.notty._chance import _finishers


def searched(hand: list[Card], deck: list[Card], k: int, rules: Rules, native: bool) -> tuple[float, float]:
    """The search's chance and its time in seconds, by the C extension or by Python."""
    _chance._native = _impl.native if native else None
    _finishers.cache_clear()
    start = time.perf_counter()
    chance = go_out_chance(hand, deck, k, rules)
    elapsed = time.perf_counter() - start
    _chance._native = _impl.native
    return chance, elapsed


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
    kinds = ["C", "Python"] if _impl.native is not None else ["Python"]
    for k in (1, 2, 3):
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        brute = []
        for hand, deck in positions(args.positions, args.seed + k, rules):
            answers = []
            for kind in kinds:
                chance, elapsed = searched(hand, deck, k, rules, kind == "C")
                times[kind].append(elapsed)
                answers.append(chance)
            start = time.perf_counter()
            slow = enumerate_chance(hand, deck, k, rules)
            brute.append(time.perf_counter() - start)
            if any(abs(fast - slow) > 1e-12 for fast in answers) or len(set(answers)) > 1:
                print(f"DISAGREE: {' '.join(map(str, hand))} draw {k}: {answers} != {slow}")
                failed = True
        rows.append((k, times, brute))
    print(
        f"\n{args.positions} positions per draw count, classic, hands of 1-8 cards, caches cleared per call; "
        "ratio = median over positions of enumeration time / search time\n"
    )
    head = "| draw |"
    rule = "|---:|"
    for kind in kinds:
        head += f" {kind} search median ms | {kind} p99 ms |"
        rule += "---:|---:|"
    head += " enumeration median ms |" + "".join(f" enumeration/{kind} |" for kind in kinds)
    rule += "---:|" + "---:|" * len(kinds)
    if len(kinds) == 2:
        head += " Python/C |"
        rule += "---:|"
    print(head)
    print(rule)
    for k, times, brute in rows:
        line = f"| {k} |"
        for kind in kinds:
            line += f" {statistics.median(times[kind]) * 1000:.3f} | {_p99(times[kind]) * 1000:.3f} |"
        line += f" {statistics.median(brute) * 1000:.1f} |"
        for kind in kinds:
            ratio = statistics.median(b / s for s, b in zip(times[kind], brute, strict=True))
            line += f" {ratio:.0f}x |"
        if len(kinds) == 2:
            speedup = statistics.median(p / c for c, p in zip(times["C"], times["Python"], strict=True))
            line += f" {speedup:.0f}x |"
        print(line)
    return 1 if failed else 0


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


if __name__ == "__main__":
    sys.exit(main())
