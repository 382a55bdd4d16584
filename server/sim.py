"""``notty-sim``: many bot-only games of any hosted game, on every core, summarised with
confidence intervals. Games are played through the game seam (:mod:`games.autoplay`)."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from games import DEFAULT_GAME, GAMES, Settings
from games._ui import game_and_variant
from games.autoplay import default_players, lineup, play_match, seeded_match

from .stats import wilson_interval

#: How a game the simulator cuts short (``--max-turns``, a game's ``turn_limit`` option) ends: the
#: summary counts it for every game with that option, if only to say it never happened. Every other
#: way to end with no winner is the game's own, and counted when it happens.
TURN_LIMIT = "turn-limit"
#: How a game ends that its no-progress rule draws (an option ``quiet_rounds``: Notty's): counted
#: like the turn limit, for every game with that option.
NO_PROGRESS = "no-progress"
#: The turn limit a game that has one gets unless told otherwise: most games between the
#: simpler Notty bots never end by themselves.
DEFAULT_MAX_TURNS = 300


@attrs.frozen
class SimConfig:
    settings: Settings  # the game, its variant and options; its seats are len(players)
    players: tuple[str, ...]
    games: int
    seed: int


@attrs.frozen
class Outcome:
    index: int
    winner: int | None  # index into SimConfig.players, not a seat
    reason: str  # the game's reason code (Outcome.reason)
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
    settings = config.settings
    match, bots = seeded_match(
        GAMES[settings.game], settings, [config.players[p] for p in order], f"notty-sim:{config.seed}:{index}"
    )
    played = play_match(match, bots)
    seat = played.outcome.winner
    return Outcome(index, None if seat is None else order[seat], played.outcome.reason, played.turns)


def _play_chunk(args: tuple[SimConfig, range]) -> list[Outcome]:
    config, indices = args
    return [play_one(config, index) for index in indices]


def run(config: SimConfig, jobs: int, progress: bool = False) -> Iterator[Outcome]:
    """Play every game (in ``jobs`` processes), yielding outcomes as they finish."""
    chunk = max(1, min(25, config.games // (jobs * 8) or 1))
    # A game each first, so the bar moves within a game's time (huxxy's take a second each: 25 to a
    # chunk left the screen blank for half a minute), then chunks, which cost less to hand out.
    first = min(jobs, config.games)
    chunks = [(config, range(i, i + 1)) for i in range(first)]
    chunks += [(config, range(i, min(i + chunk, config.games))) for i in range(first, config.games, chunk)]
    bar = _ProgressBar(config.games) if progress else None
    if jobs <= 1:
        results: Iterator[list[Outcome]] = map(_play_chunk, chunks)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(jobs, initializer=_leave_ctrl_c_to_the_parent)
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


def _leave_ctrl_c_to_the_parent() -> None:
    """A worker ignores Ctrl-C: the terminal sends it to every process, and the parent stops them
    all, saying 'interrupted', where each worker printed its own traceback first."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _ProgressBar:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.start, self.drawn = total, 0, time.monotonic(), 0.0
        self.advance(0)  # at once: an empty bar says the games are under way

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
    settings = config.settings
    limited = "turn_limit" in settings.options
    quiet = "quiet_rounds" in settings.options
    reasons = Counter(dict.fromkeys((TURN_LIMIT,) * limited + (NO_PROGRESS,) * quiet, 0))
    reasons.update(o.reason for o in outcomes if o.winner is None)
    return {
        "games": games,
        "game": settings.game,
        "variant": settings.variant,
        "players": list(config.players),
        "seed": config.seed,
        # None: the game has no turn limit (0: it has one, and this run set none).
        "max_turns": settings.options["turn_limit"] if limited else None,
        # None: the game has no no-progress rule (0: it has one, and this run turned it off).
        "quiet_rounds": settings.options["quiet_rounds"] if quiet else None,
        "bots": bots,
        "no_winner": {
            "total": games - len(won),
            **{reason.replace("-", "_"): reasons[reason] for reason in sorted(reasons)},
        },
        "mean_turns": sum(o.turns for o in outcomes) / games if games else 0.0,
        "mean_turns_to_win": sum(o.turns for o in won) / len(won) if won else None,
        "seconds": seconds,
        "games_per_second": games / seconds if seconds > 0 else None,
        "jobs": jobs,
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
    }


def _label(summary: dict[str, Any]) -> str:
    """The default game by its variant alone, as the report always named it; others by both, once
    where the variant is named after its game (``huxxy``, not ``huxxy huxxy``)."""
    game, variant = summary["game"], summary["variant"]
    return variant if game == DEFAULT_GAME else game_and_variant(game, variant)


def _labels(players: Sequence[str]) -> list[str]:
    """Bot names, numbered where a name repeats (``greedy#1``, ``greedy#2``)."""
    return [
        f"{name}#{players[: i + 1].count(name)}" if players.count(name) > 1 else name
        for i, name in enumerate(players)
    ]


def format_report(summary: dict[str, Any]) -> str:
    games = summary["games"]
    lines = [
        f"{games} games of {_label(summary)}: {' vs '.join(summary['players'])} "
        f"(seed {summary['seed']}, turn limit {summary['max_turns'] or 'none'}"
        + (f", drawn after {summary['quiet_rounds']} quiet rounds" if summary.get("quiet_rounds") else "")
        + ")",
        "",
        f"{'bot':<12} {'wins':>6} {'win rate':>9}   95% CI (Wilson)",
    ]
    for bot in summary["bots"]:
        low, high = bot["ci95"]
        lines.append(f"{bot['bot']:<12} {bot['wins']:>6} {bot['win_rate']:>8.1%}   [{low:.1%}, {high:.1%}]")
    none = dict(summary["no_winner"])
    total = none.pop("total")
    share = total / games if games else 0.0
    counted = ", ".join(f"{reason.replace('_', ' ')} {count}" for reason, count in none.items())
    lines += [
        "",
        f"no winner:   {total} ({share:.1%})" + (f": {counted}" if counted else ""),
        f"mean turns:  {summary['mean_turns']:.1f} per game"
        + (
            f", {summary['mean_turns_to_win']:.1f} in games with a winner"
            if summary["mean_turns_to_win"]
            else ""
        ),
        f"speed:       {summary['games_per_second']:.1f} games/s on {summary['jobs']} "
        f"process{'es' if summary['jobs'] != 1 else ''} "
        f"({summary['seconds']:.1f} s; {summary['machine']})",
    ]
    return "\n".join(lines)


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="notty-sim", description="Play many games between bots.")
    parser.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    parser.add_argument(
        "--game", default=DEFAULT_GAME, choices=list(GAMES), help=f"the game (default {DEFAULT_GAME})"
    )
    parser.add_argument(
        "--variant",
        "--preset",
        default=None,
        help="the game's variant (default its first; "
        + "; ".join(f"{name}: {', '.join(game.variants)}" for name, game in GAMES.items())
        + ")",
    )
    parser.add_argument(
        "--players",
        default=None,
        help="the bots, comma separated, one a seat (default: the game's first bot and random; "
        + "; ".join(f"{name}: {', '.join(game.bots)}" for name, game in GAMES.items())
        + ")",
    )
    parser.add_argument("--seed", type=int, default=0, help="base seed: the same seed plays the same games")
    parser.add_argument(
        "--max-turns",
        type=int,
        default=None,
        help=f"end a game with no winner after this many turns (0: never; default {DEFAULT_MAX_TURNS}, "
        "for games with a turn limit)",
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def _settings(args: argparse.Namespace) -> tuple[Settings, tuple[str, ...]]:
    """The game's settings and the bots from the command line; ``ValueError`` says what is wrong."""
    game = GAMES[args.game]
    options: dict[str, int] = {}
    if args.max_turns is not None and args.max_turns < 0:
        raise ValueError("--max-turns must be 0 (no limit) or more")
    if "turn_limit" in game.options:
        options["turn_limit"] = DEFAULT_MAX_TURNS if args.max_turns is None else args.max_turns
    elif args.max_turns is not None:
        raise ValueError(f"{game.name} has no turn limit: leave out --max-turns")
    return lineup(game, args.variant, args.players or default_players(game), options)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        settings, players = _settings(args)
    except ValueError as error:
        parser.error(str(error))
    config = SimConfig(settings, players, args.games, args.seed)
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
