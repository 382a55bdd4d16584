"""A Notty hint's CPU cost with the turn's advice, against the discard hint alone, as a server sees it.

The hint answers the rules' question (the most that can be discarded now) and,
on the asker's own turn, advises on the turn (`games/notty/_advice.py`): the
best exact chance of going out this turn over drawing, stealing first from each
opponent and, in five-colour, draw-and-discard first, and the expert bot's
move. That costs more than the discard hint, which is the baseline here, in the
same run, on the same positions.

Positions come from bot games (greedy, qlearn, expert-hard; 2 and 3 players),
one taken every few actions, so hands of every size appear as they do at a
table. Each hint is timed as the server runs it, between other work: a fresh job
over a snapshot, after the game has moved on (the bots' next actions run between
two hints, so caches are as a server finds them). CPU time (``process_time``)
of the whole job, the answer's text and data included.

    .venv/bin/python bench/notty_hint.py [--games 40] [--every 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games.notty import CLASSIC, FIVE_COLOUR, Rules
from games.notty.bots import make_bot
from games.notty.engine import Game
from games.notty.game import make_hint

LINEUP = ("greedy", "qlearn", "expert-hard")


def measure(rules: Rules, games: int, every: int, seed: int) -> tuple[list[float], list[float], list[int]]:
    """CPU ms of the discard hint alone and of the hint with advice, and the hand sizes, per position."""
    plain: list[float] = []
    advised: list[float] = []
    sizes: list[int] = []
    for number in range(games):
        players = 2 + number % 2
        game = Game(rules, [f"p{i}" for i in range(players)], random.Random(f"{seed}:{number}"))
        bots = [make_bot(LINEUP[i], random.Random(f"{seed}:{number}:{i}")) for i in range(players)]
        for step in range(600):
            if game.over:
                break
            view = game.view(game.current)
            if step % every == 0 and not view.must_put_back:
                # Which goes first alternates: the second finds the first's discard caches warm.
                order = [None, view] if len(sizes) % 2 else [view, None]
                spent = {}
                for own in order:
                    start = time.process_time()
                    make_hint(view.hand, rules, own=own)
                    spent[own is None] = (time.process_time() - start) * 1000
                plain.append(spent[True])
                advised.append(spent[False])
                sizes.append(len(view.hand))
            game.apply(bots[game.current].choose(view))
    return plain, advised, sizes


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="bot games per preset (default 40)")
    parser.add_argument("--every", type=int, default=7, help="a hint every this many actions (default 7)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Machine: {describe()}")
    print(f"{args.games} games per preset, a hint every {args.every} actions; CPU ms per hint")
    print()
    print(
        "| preset | hints | hand median / max | discard hint p50 / p99 / max "
        "| with advice p50 / p99 / max | ratio of medians |"
    )
    print("|---|---:|---|---|---|---:|")
    for rules in (CLASSIC, FIVE_COLOUR):
        plain, advised, sizes = measure(rules, args.games, args.every, args.seed)
        p50, a50 = statistics.median(plain), statistics.median(advised)
        print(
            f"| {rules.name} | {len(plain)} | {statistics.median(sizes):.0f} / {max(sizes)} "
            f"| {p50:.3f} / {quantile(plain, 0.99):.3f} / {max(plain):.3f} "
            f"| {a50:.3f} / {quantile(advised, 0.99):.3f} / {max(advised):.3f} | {a50 / p50:.1f} |"
        )


if __name__ == "__main__":
    main()
