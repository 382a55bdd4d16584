"""Benchmark: huxxy's exact 6-play solver (``solver.huxxy.best_turn``) on mid-game positions.

    .venv/bin/python bench/huxxy_solver.py [--positions 200] [--seed 7] [--cold] [--small 50]

Positions come from ``bench/huxxy_positions.py``: a 12-card hand, 8 to 12 valid groups
on the table, three in four of the players already opened; once without jokers (variant
``huxxy``) and once with (``huxxy-jokers``). Each call is timed alone with
``time.perf_counter_ns`` (wall clock) and ``time.process_time_ns`` (this process's CPU, which
other load on a shared machine disturbs less). The solver's caches (``solver.huxxy._need``,
``_pieces._group_bounds``, and those of ``unlimited``, which bounds what the hand can place)
are kept from call to call, as in a server; ``--cold`` empties them before every call instead.
As ``notty-server`` does before serving (:mod:`server.heap`), the objects made at start-up are
frozen out of the garbage collector's walk; ``--unsettled`` leaves them in, as a plain script.

Small hands, as bots hold late in a game: the first 3 to 8 cards of ``--small`` stored hands of
each variant (the same tables), a class of its own, since fewer cards in hand leave more plays for
moves and so a deeper search.

Every turn returned is replayed, outside the timer: its plays in order from the position, at
most 6, the first from the hand, no move before opening, 24 opening points, every group of the
table it leaves valid and equal to the turn's own. Any failure exits 1. Targets: median <= 5 ms,
p99 <= 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence

from _machine import describe
from huxxy_positions import Position, positions

from games.huxxy import opening_points, valid_group
from server import heap
from solver.huxxy import MOST_PLAYS, Turn, _need, _pieces, best_turn, unlimited

TARGET_MEDIAN_MS = 5.0
TARGET_P99_MS = 100.0


def replay_problem(position: Position, turn: Turn) -> str:
    """What is wrong with ``turn`` for ``position``, or ``""``."""
    if not 1 <= len(turn.plays) <= MOST_PLAYS or turn.plays[0].source is not None:
        return "too many plays, or not first from the hand"
    held = Counter(position.hand)
    groups = [list(group) for group in position.table]
    for play in turn.plays:
        if play.source is None:
            if not held[play.card]:
                return f"{play.card} is not in the hand"
            held[play.card] -= 1
        elif not position.opened:
            return "a move before opening"
        elif play.card not in groups[play.source]:
            return f"{play.card} is not in group {play.source}"
        else:
            groups[play.source].remove(play.card)
        if play.target is None:
            groups.append([play.card])
        else:
            groups[play.target].append(play.card)
    final = sorted(tuple(sorted(group)) for group in groups if group)
    if final != sorted(tuple(sorted(group)) for group in turn.table):
        return "the plays do not lead to the turn's table"
    if not all(valid_group(group) for group in final):
        return "an invalid group"
    if not position.opened and opening_points(turn.placed) < 24:
        return "an opening short of 24 points"
    return ""


def percentile(ordered: Sequence[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def small_hands(batch: list[Position], size: int) -> list[Position]:
    """The same positions with only the first ``size`` cards of each hand."""
    return [Position(position.hand[:size], position.table, position.opened) for position in batch]


def run(label: str, batch: list[Position], cold: bool) -> tuple[bool, list[float]]:
    wall: list[float] = []
    cpu: list[float] = []
    placed = []
    moved = 0
    failures = 0
    for position in batch:
        if cold:
            for clear in (
                _need.need.cache_clear,
                _need.helpful_mask.cache_clear,
                _need.cards_in.cache_clear,
                _need.completes.cache_clear,
                _need.repair.cache_clear,
                _pieces._group_bounds.cache_clear,
            ):
                clear()
            unlimited.clear_caches()
        started, started_cpu = time.perf_counter_ns(), time.process_time_ns()
        turn = best_turn(position.hand, position.table, position.opened)
        cpu.append((time.process_time_ns() - started_cpu) / 1e6)
        wall.append((time.perf_counter_ns() - started) / 1e6)
        if turn is None:
            placed.append(0)
            continue
        placed.append(len(turn.placed))
        moved += any(play.source is not None for play in turn.plays)
        problem = replay_problem(position, turn)
        if problem:
            failures += 1
            print(f"FAIL {label}: {problem}: {position}", file=sys.stderr)
    opened = sum(position.opened for position in batch)
    print(
        f"{label}: {len(batch)} positions ({opened} opened); a turn for {sum(1 for n in placed if n)}, "
        f"{statistics.fmean(placed):.2f} hand cards placed on average, moves in {moved}"
    )
    for name, times in (("wall", wall), ("cpu", cpu)):
        ordered = sorted(times)
        print(
            f"  {name:4}: median {statistics.median(ordered):.2f} ms, "
            f"p90 {percentile(ordered, 0.9):.2f}, p99 {percentile(ordered, 0.99):.2f}, "
            f"max {ordered[-1]:.2f}, mean {statistics.fmean(ordered):.2f}"
        )
    return failures == 0, wall


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--positions", type=int, default=200, help="positions per variant (the file holds 200)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cold", action="store_true", help="empty the solver's caches before every call")
    parser.add_argument(
        "--small", type=int, default=50, help="stored hands per variant cut to 3..8 cards (0: none)"
    )
    parser.add_argument(
        "--unsettled", action="store_true", help="do not freeze the start-up heap as notty-server does"
    )
    args = parser.parse_args(argv)
    print(f"machine: {describe()}")
    if not args.unsettled:
        heap.settle()  # as notty-server does before serving: start-up objects out of the collector's walk
    heap_said = "start-up heap unfrozen" if args.unsettled else "start-up heap frozen, as the server"
    print(f"best_turn, {'cold' if args.cold else 'warm'} caches, seed {args.seed}, {heap_said}")
    ok = True
    every: list[float] = []
    for label, jokers in (("huxxy", False), ("huxxy-jokers", True)):
        good, wall = run(label, positions(args.positions, args.seed, jokers=jokers), args.cold)
        ok &= good
        every += wall
    ordered = sorted(every)
    median, p99 = statistics.median(ordered), percentile(ordered, 0.99)
    verdict = "PASS" if median <= TARGET_MEDIAN_MS and p99 <= TARGET_P99_MS else "MISS"
    print(
        f"{verdict}: all {len(ordered)} calls, wall: median {median:.2f} ms "
        f"(target <= {TARGET_MEDIAN_MS:g}), p99 {p99:.2f} ms (target <= {TARGET_P99_MS:g}), "
        f"max {ordered[-1]:.2f} ms"
    )
    if args.small:
        smalls: list[float] = []
        for size in range(3, 9):
            batch = [
                *small_hands(positions(args.small, args.seed, jokers=False), size),
                *small_hands(positions(args.small, args.seed, jokers=True), size),
            ]
            good, wall = run(f"hands of {size}", batch, args.cold)
            ok &= good
            smalls += wall
        ordered = sorted(smalls)
        print(
            f"small hands (3-8 cards): all {len(ordered)} calls, wall: "
            f"median {statistics.median(ordered):.2f} ms, p90 {percentile(ordered, 0.9):.2f}, "
            f"p99 {percentile(ordered, 0.99):.2f}, max {ordered[-1]:.2f}"
        )
    if not ok:
        print("some turns failed their replay", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
