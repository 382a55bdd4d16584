"""Simulator throughput: games per CPU-second, today's code against a baseline revision, in the same run.

Two workloads, classic, heads-up, 300-turn cap: greedy vs greedy, and expert vs greedy. Each is
played by three codebases, every one in processes of its own (so none inherits another's
warm caches), on the same deals (the simulator's seeds):

* ``baseline``    -- the code of ``--baseline-rev`` (default 63e1a25, before the solver's C
  extension), extracted with ``git archive`` into a temporary directory and imported from there
  (``PYTHONPATH``); it has no extension, so it runs pure Python;
* ``pure Python`` -- this checkout with ``NOTTY_PURE_PYTHON=1``, the fallback;
* ``C extension`` -- this checkout as installed (the extension, if built).

The figure is games per CPU-second of the processes that play (``time.process_time``), so it
does not depend on how many cores are free; ``--jobs`` runs that many player processes at once
(each with a share of the games) to finish sooner. Outside a git checkout (or without the
revision) the baseline is skipped, and said so. An engine-only figure (seats that only end their
turn) says what a turn costs without any bot thinking.

    .venv/bin/python bench/sim_throughput.py [--games 200] [--expert-games 30] [--jobs 1]
        [--baseline-rev 63e1a25] [--workloads greedy,expert] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _machine import describe  # bench/ is on sys.path when this runs as a script

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"greedy": 2.0, "expert": 3.0}  # games per CPU-second against the baseline
PLAYERS = {"greedy": ("greedy", "greedy"), "expert": ("expert", "greedy")}
LABELS = {"greedy": "greedy vs greedy", "expert": "expert vs greedy"}


# --------------------------------------------------------------------------- in a player process


def worker(workload: str, first: int, count: int, seed: int) -> dict[str, object]:
    """Play games ``first .. first + count - 1`` of the workload; imports whichever code is on the path."""
    from games import GAMES
    from server import sim

    settings = GAMES["notty"].settings("classic", 2, {"turn_limit": 300})
    config = sim.SimConfig(settings, PLAYERS[workload], first + count, seed)
    start = time.process_time()
    outcomes = [sim.play_one(config, index) for index in range(first, first + count)]
    cpu = time.process_time() - start
    import solver

    return {
        "cpu": cpu,
        "games": count,
        "turns": sum(o.turns for o in outcomes),
        "winners": sum(1 for o in outcomes if o.winner is not None),
        "solver": str(Path(solver.__file__).parent.parent),
    }


def engine_only(games: int, turns: int) -> dict[str, object]:
    """CPU seconds and turns for games where every seat just ends its turn."""
    from games.notty import rules_from
    from games.notty.engine import EndTurn, Game

    try:  # seats that only pass would draw at once under the no-progress rule, where there is one
        rules = rules_from("classic", turn_limit=turns, quiet_rounds=0)
    except ValueError:  # the baseline, from before the rule
        rules = rules_from("classic", turn_limit=turns)
    played = 0
    start = time.process_time()
    for i in range(games):
        game = Game(rules, ["a", "b"], random.Random(i))
        while not game.over:
            game.view(game.current)  # a bot looks before it acts
            game.apply(EndTurn())
        played += game.turn
    return {"cpu": time.process_time() - start, "turns": played}


# --------------------------------------------------------------------------- the driver


def run_player(code: Path, pure: bool, args: list[str]) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NOTTY_PURE_PYTHON")}
    env["PYTHONPATH"] = str(code)
    if pure:
        env["NOTTY_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", *args],
        env=env,
        cwd=code,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"player process failed ({code}):\n{done.stderr[-3000:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(code: Path, pure: bool, workload: str, games: int, seed: int, jobs: int) -> dict[str, float]:
    shares = [games // jobs + (1 if j < games % jobs else 0) for j in range(jobs)]
    firsts = [sum(shares[:j]) for j in range(jobs)]
    with ThreadPoolExecutor(jobs) as pool:
        parts = list(
            pool.map(
                lambda fc: run_player(code, pure, [workload, str(fc[0]), str(fc[1]), str(seed)]),
                [(f, c) for f, c in zip(firsts, shares, strict=True) if c],
            )
        )
    if any(Path(str(p["solver"])).resolve() != code.resolve() for p in parts):
        raise RuntimeError(f"a player process imported its solver from elsewhere than {code}")
    total = {key: float(sum(float(p[key]) for p in parts)) for key in ("cpu", "games", "turns", "winners")}
    return total


def extract(rev: str, into: Path) -> str | None:
    """The baseline's source under ``into``; None (with the reason printed) if it cannot be had."""
    try:
        subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ROOT, check=True, capture_output=True)
        full = subprocess.run(
            ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        archive = subprocess.run(["git", "archive", full], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"baseline skipped: not a git checkout with revision {rev} ({error})")
        return None
    return full[:10]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200, help="greedy vs greedy games (default 200)")
    parser.add_argument("--expert-games", type=int, default=30, help="expert vs greedy games (default 30)")
    parser.add_argument("--jobs", type=int, default=1, help="player processes at once (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline-rev", default="63e1a25", help="today's code to compare with ('' skips)")
    parser.add_argument("--workloads", default="greedy,expert", help="comma-separated: greedy, expert")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table for bench/RESULTS.md")
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        workload, first, count, seed = sys.argv[2:6]
        if workload == "engine":
            print(json.dumps(engine_only(int(count), 300)))
        else:
            print(json.dumps(worker(workload, int(first), int(count), int(seed))))
        return 0
    args = parser.parse_args()
    workloads = [w for w in args.workloads.split(",") if w]
    if any(w not in PLAYERS for w in workloads) or args.jobs < 1:
        parser.error("--workloads is a list of greedy, expert; --jobs at least 1")
    print(f"machine: {describe()}")

    tmp = Path(tempfile.mkdtemp(prefix="notty-baseline-"))
    try:
        rev = extract(args.baseline_rev, tmp) if args.baseline_rev else None
        codes: list[tuple[str, Path, bool]] = []
        if rev is not None:
            codes.append((f"baseline {rev}", tmp, True))
        codes.append(("pure Python", ROOT, True))
        codes.append(("C extension", ROOT, False))
        rows = []
        for workload in workloads:
            games = args.games if workload == "greedy" else args.expert_games
            for name, code, pure in codes:
                total = measure(code, pure, workload, games, args.seed, args.jobs)
                rows.append((workload, name, total))
                print(
                    f"  {LABELS[workload]:17} {name:20} {total['games'] / total['cpu']:8.2f} games/CPU-s "
                    f"{total['turns'] / total['cpu']:9.0f} turns/CPU-s  ({int(total['games'])} games, "
                    f"{int(total['winners'])} won, {int(total['turns'])} turns, {total['cpu']:.1f} CPU-s)",
                    flush=True,
                )
        engines = {
            name: run_player(code, pure, ["engine", "0", str(min(args.games, 100)), "0"])
            for name, code, pure in codes
            if name != "pure Python"  # the engine has no solver: the same code as the C extension's row
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(
        f"classic, heads-up, 300-turn cap, seed {args.seed}; games per CPU-second of the playing "
        f"processes ({args.jobs} at once); ratio = games/CPU-s against the baseline"
    )
    print()
    print(
        "| workload | code | games | won | turns | CPU s | games/CPU-s | turns/CPU-s | us/turn "
        "| vs baseline |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rates: dict[tuple[str, str], float] = {}
    for workload, name, total in rows:
        rates[(workload, name)] = total["games"] / total["cpu"]
    checks = []
    for workload, name, total in rows:
        base = next((rates[(w, n)] for w, n in rates if w == workload and n.startswith("baseline")), None)
        rate = rates[(workload, name)]
        ratio = f"{rate / base:.2f}x" if base else "-"
        print(
            f"| {LABELS[workload]} | {name} | {int(total['games'])} | {int(total['winners'])} | "
            f"{int(total['turns'])} | {total['cpu']:.1f} | {rate:.2f} | "
            f"{total['turns'] / total['cpu']:.0f} | {total['cpu'] / total['turns'] * 1e6:.0f} | {ratio} |"
        )
        if base and name == "C extension":
            target = TARGETS[workload]
            checks.append(
                (
                    f"{LABELS[workload]}: {rate / base:.2f}x the baseline's games/CPU-s "
                    f"(target >= {target:g}x)",
                    rate / base >= target,
                )
            )
    print()
    for name, engine in engines.items():
        per_turn = float(engine["cpu"]) / float(engine["turns"]) * 1e6  # type: ignore[arg-type]
        print(f"engine only (seats that only end their turn), {name}: {per_turn:.1f} us/turn")
    print()
    if not checks:
        print("targets: not checked (no baseline)")
    for text, ok in checks:
        print(f"- {'PASS' if ok else 'FAIL'}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
