"""``notty-sim``: many bot-only games, on every core, summarised with confidence intervals."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from protocol import PRESETS, Rules

from .bots import BOTS
from .engine import EndReason
from .match import lineup, play_bots, seeded_game
from .stats import wilson_interval


@attrs.frozen
class SimConfig:
    rules: Rules
    players: tuple[str, ...]
    games: int
    seed: int


@attrs.frozen
class Outcome:
    index: int
    winner: int | None  # index into SimConfig.players, not a seat
    reason: EndReason
    turns: int


def seating(players: Sequence[str], index: int) -> list[int]:
    """Which player sits at each seat in game ``index``.

    Rotated so no bot always sits first, and with three players every other
    cycle goes the other way round, so no bot always plays right after another.
    """
    n = len(players)
    order = [(seat + index) % n for seat in range(n)]
    return order if (index // n) % 2 == 0 else [order[0], *reversed(order[1:])]


def play_one(config: SimConfig, index: int) -> Outcome:
    order = seating(config.players, index)
    game, bots = seeded_game(
        config.rules, [config.players[p] for p in order], f"notty-sim:{config.seed}:{index}"
    )
    result = play_bots(game, bots)
    winner = None if result.winner is None else order[result.winner]
    return Outcome(index, winner, result.reason, result.turns)


def _play_chunk(args: tuple[SimConfig, range]) -> list[Outcome]:
    config, indices = args
    return [play_one(config, index) for index in indices]


def run(config: SimConfig, jobs: int, progress: bool = False) -> Iterator[Outcome]:
    """Play every game (in ``jobs`` processes), yielding outcomes as they finish."""
    chunk = max(1, min(25, config.games // (jobs * 8) or 1))
    chunks = [(config, range(i, min(i + chunk, config.games))) for i in range(0, config.games, chunk)]
    bar = _ProgressBar(config.games) if progress else None
    if jobs <= 1:
        results: Iterator[list[Outcome]] = map(_play_chunk, chunks)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(jobs)
        results = pool.imap_unordered(_play_chunk, chunks)
    try:
        for batch in results:
            yield from batch
            if bar:
                bar.advance(len(batch))
    finally:
        if bar:
            bar.close()
        if pool is not None:
            pool.terminate()


class _ProgressBar:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.start, self.drawn = total, 0, time.monotonic(), 0.0

    def advance(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.drawn >= 0.1 or self.done == self.total:
            self.drawn = now
            width = 30
            filled = width * self.done // self.total
            rate = self.done / max(now - self.start, 1e-9)
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} games, {rate:.1f}/s "
            )
            sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def summarise(config: SimConfig, outcomes: Sequence[Outcome], seconds: float, jobs: int) -> dict[str, Any]:
    games = len(outcomes)
    labels = _labels(config.players)
    bots = []
    for p, label in enumerate(labels):
        wins = sum(1 for o in outcomes if o.winner == p)
        low, high = wilson_interval(wins, games)
        bots.append(
            {"bot": label, "wins": wins, "win_rate": wins / games if games else 0.0, "ci95": [low, high]}
        )
    won = [o for o in outcomes if o.winner is not None]
    return {
        "games": games,
        "preset": config.rules.name,
        "players": list(config.players),
        "seed": config.seed,
        "max_turns": config.rules.turn_limit,
        "bots": bots,
        "no_winner": {
            "total": games - len(won),
            "stalemate": sum(1 for o in outcomes if o.reason is EndReason.STALEMATE),
            "turn_limit": sum(1 for o in outcomes if o.reason is EndReason.TURN_LIMIT),
        },
        "mean_turns": sum(o.turns for o in outcomes) / games if games else 0.0,
        "mean_turns_to_win": sum(o.turns for o in won) / len(won) if won else None,
        "seconds": seconds,
        "games_per_second": games / seconds if seconds > 0 else None,
        "jobs": jobs,
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
    }


def _labels(players: Sequence[str]) -> list[str]:
    """Bot names, numbered where a name repeats (``greedy#1``, ``greedy#2``)."""
    return [
        f"{name}#{players[: i + 1].count(name)}" if players.count(name) > 1 else name
        for i, name in enumerate(players)
    ]


def format_report(summary: dict[str, Any]) -> str:
    games = summary["games"]
    lines = [
        f"{games} games of {summary['preset']}: {' vs '.join(summary['players'])} "
        f"(seed {summary['seed']}, turn limit {summary['max_turns'] or 'none'})",
        "",
        f"{'bot':<12} {'wins':>6} {'win rate':>9}   95% CI (Wilson)",
    ]
    for bot in summary["bots"]:
        low, high = bot["ci95"]
        lines.append(f"{bot['bot']:<12} {bot['wins']:>6} {bot['win_rate']:>8.1%}   [{low:.1%}, {high:.1%}]")
    none = summary["no_winner"]
    share = none["total"] / games if games else 0.0
    lines += [
        "",
        f"no winner:   {none['total']} ({share:.1%}): "
        f"stalemate {none['stalemate']}, turn limit {none['turn_limit']}",
        f"mean turns:  {summary['mean_turns']:.1f} per game"
        + (
            f", {summary['mean_turns_to_win']:.1f} in games with a winner"
            if summary["mean_turns_to_win"]
            else ""
        ),
        f"speed:       {summary['games_per_second']:.1f} games/s on {summary['jobs']} process(es) "
        f"({summary['seconds']:.1f} s; {summary['machine']})",
    ]
    return "\n".join(lines)


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="notty-sim", description="Play many Notty games between bots.")
    parser.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    parser.add_argument(
        "--players", default="greedy,random", help=f"2 or 3 bots, comma separated, from: {', '.join(BOTS)}"
    )
    parser.add_argument("--preset", default="classic", help=f"ruleset: {', '.join(PRESETS)}")
    parser.add_argument("--seed", type=int, default=0, help="base seed: the same seed plays the same games")
    parser.add_argument(
        "--max-turns",
        type=int,
        default=300,
        help="end a game with no winner after this many turns (0: never)",
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        rules, players = lineup(args.players, args.preset, args.max_turns)
    except ValueError as error:
        parser.error(str(error))
    config = SimConfig(rules, players, args.games, args.seed)
    jobs = min(args.jobs, args.games)
    start = time.perf_counter()
    try:
        outcomes = sorted(
            run(config, jobs, progress=not args.no_progress and sys.stderr.isatty()), key=lambda o: o.index
        )
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    summary = summarise(config, outcomes, time.perf_counter() - start, jobs)
    print(json.dumps(summary) if args.json else format_report(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
