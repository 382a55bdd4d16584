"""Train the ``qlearn`` bot's tables by offline self-play and write ``qlearn_tables.json``.

Two ``qlearn`` bots learning into one shared table play ``--games`` games of a
preset (turn cap 300), all randomness derived from ``--seed``: the same
arguments always train the same table. Classic and five-colour get a table each
(classic has no draw-and-discard)::

    python -m games.notty.bots.qlearn_train                      # both presets, shipped settings
    python -m games.notty.bots.qlearn_train --preset classic --games 100 --out /tmp/q.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from games.notty import PRESETS

from ..engine import Game
from ._qlearn import TABLES_FILE, Learner, PresetTable, QLearnBot

#: The shipped tables' settings (each preset trains in about two minutes on one core).
GAMES = 1000
SEED = 4008
TURN_CAP = 300
PLAYERS = 2


def train(preset: str, games: int, seed: int, turn_cap: int = TURN_CAP) -> PresetTable:
    """Self-play ``games`` games of ``preset`` from ``seed`` and return the learned table."""
    rules = PRESETS[preset].replace(turn_limit=turn_cap)
    master = random.Random(f"qlearn-train:{preset}:{seed}")
    learner = Learner()
    names = [f"qlearn-{i + 1}" for i in range(PLAYERS)]
    for _ in range(games):
        game = Game(rules, names, random.Random(master.getrandbits(64)))
        bots = [QLearnBot(random.Random(master.getrandbits(64)), learner=learner) for _ in names]
        while not game.over:
            seat = game.current
            bot = bots[seat]
            game.apply(bot.choose(game.view(seat)), seat=seat)
            bot.observe(game.view(seat))
    q = {state: dict(sorted(row.items())) for state, row in sorted(learner.q.items())}
    return PresetTable(games=games, seed=seed, epsilon=learner.epsilon, q=q)


def default_out() -> Path:
    return Path(__file__).with_name(TABLES_FILE)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.notty.bots.qlearn_train",
        description="Train the qlearn bot's tables by self-play.",
    )
    parser.add_argument(
        "--games", type=int, default=GAMES, help=f"self-play games per preset (default {GAMES})"
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed (default {SEED})")
    parser.add_argument(
        "--preset", choices=[*PRESETS, "all"], default="all", help="preset to train (default: all)"
    )
    parser.add_argument(
        "--out", type=Path, default=default_out(), help="tables file (default: the package's)"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if not args.out.parent.is_dir():  # found before minutes of training, not after
        parser.error(f"--out {args.out}: no directory {args.out.parent}")
    presets = list(PRESETS) if args.preset == "all" else [args.preset]
    # Training one preset keeps the other tables already in the file.
    tables: dict[str, PresetTable] = json.loads(args.out.read_text()) if args.out.exists() else {}
    for preset in presets:
        start = time.perf_counter()
        table = train(preset, args.games, args.seed)
        tables[preset] = table
        pairs = sum(len(row) for row in table["q"].values())
        print(
            f"{preset}: {args.games} games, seed {args.seed}: {len(table['q'])} states, {pairs} values, "
            f"epsilon {table['epsilon']:.4f}, {time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
    args.out.write_text(json.dumps(dict(sorted(tables.items())), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
