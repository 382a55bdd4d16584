"""Ochos Locos: the ``expert`` bot against the ``rule`` bots, on the same deals in every seat.

    .venv/bin/python bench/ochos_expert.py [--deals 2000] [--heads-up-deals 2000] [--jobs 2]
        [--worlds 200] [--seed 19] [--markdown]

What is played, all through the game seam (``GAME.new_match``, the bots the server seats):

* **3 players, part 3** (2s and locos 8s): deals ``0 .. --deals - 1``, each played
  three times with the expert in seat 1, 2 and 3 and ``rule`` bots in the others;
  player 1 (seat 0) always starts, so every deal is played from every seat;
* **heads-up, part 4 rules** (the part-3 rules for 2 players): deals
  ``0 .. --heads-up-deals - 1``, each played twice, the expert first, then second.

``--limits N`` measures instead what limits the expert, on 3-player deals
``0 .. N - 1`` from every seat: the expert as it ships; the same search told
the other hands (not the draw pile's order), which no player can know; and the
same search reading nothing from the table (only each hand's size).

A deal is fixed by (game, deal index, ``--seed``) alone, so the seatings differ
only in where the expert sits. Reported: the expert's wins with the Wilson 95%
interval against the fair share (1 / players), what a ``rule`` seat wins, games
ending in stalemate, and the CPU time of the expert's decisions that had a
choice (median, p95, max: in-worker ``time.process_time``, so a second worker on
the same cores does not count), then PASS/FAIL against issue 19's targets:
3 players >= 45% with the lower bound above 40%; heads-up >= 60%.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games.ochos_locos.deal import Deal
from games.ochos_locos.engine import Game
from games.ochos_locos.expert import ALL, BIT, Sampler, World, card_index, read_table, weigh
from games.ochos_locos.game import GAME, ExpertBot, OchosMatch, position_of, rules_for
from games.ochos_locos.strategy import rule_move
from server.stats import wilson_interval

Result = tuple[int, bool, list[float]]  # winner seat (-1: stalemate), expert won, decision CPU seconds
#: What the expert may know, for ``--limits``: as it ships, plus the other hands, or nothing read.
KNOWING = ("ships", "hands", "nothing")


def _deals(game: Game, seat: int, knowing: str, rng: random.Random) -> Callable[[], World] | None:
    """Where the expert's sampled deals come from, for a measurement of what knowing more is worth."""
    if knowing == "ships":
        return None
    if knowing == "nothing":
        mine = sum(BIT[card] for card in game.hand(seat))
        unseen = ALL & ~mine & ~sum(BIT[card] for card in game.pile)
        seen = read_table(seat, game.rules, game.pile[0], game.public_history)
        return Sampler(rng, seat, game.rules, mine, unseen, seen, game.stock_size, trust=0).sample
    hands = [sum(BIT[card] for card in game.hand(other)) for other in range(game.rules.players)]
    stock = [card_index(card) for card in game.stock]

    def told() -> World:
        order = list(stock)
        rng.shuffle(order)
        return World(list(hands), order, 0, -1, False, seat, 0)

    return told


def play(
    variant: str, players: int, deal: int, expert: int, seed: int, worlds: int, knowing: str = "ships"
) -> Result:
    """One game: deal ``deal``, seat 0 first, the expert at ``expert`` and ``rule`` bots elsewhere."""
    settings = GAME.settings(variant, players, {})
    rules = rules_for(settings)
    dealt = Deal.shuffled(rules, random.Random(f"ochos-expert:{seed}:{variant}:{players}:{deal}"))
    match = OchosMatch(settings, [f"p{seat + 1}" for seat in range(players)], Game(rules, dealt, 0))
    rng = random.Random(f"ochos-expert-bot:{seed}:{deal}:{expert}")
    game = match.game
    times: list[float] = []
    while not game.over:
        if game.current == expert:
            view = match.bot_view(expert)
            start = time.process_time()
            if len(view.legal) == 1:
                action = view.legal[0]
            else:
                deals = _deals(game, expert, knowing, rng)
                action = weigh(position_of(view), rng, worlds, deals)[0].action
                times.append(time.process_time() - start)
        else:
            action = rule_move(game)
        match.apply(game.current, action)
    winner = -1 if game.winner is None else game.winner
    return winner, winner == expert, times


def _chunk(args: tuple[str, int, Sequence[tuple[int, int]], int, int, str]) -> list[Result]:
    variant, players, jobs, seed, worlds, knowing = args
    return [play(variant, players, deal, expert, seed, worlds, knowing) for deal, expert in jobs]


def run(
    variant: str, players: int, deals: int, seed: int, worlds: int, jobs: int, knowing: str = "ships"
) -> list[Result]:
    games = [(deal, expert) for deal in range(deals) for expert in range(players)]
    size = 30
    chunks = [
        (variant, players, games[i : i + size], seed, worlds, knowing) for i in range(0, len(games), size)
    ]
    with ProcessPoolExecutor(jobs) as pool:
        return [result for chunk in pool.map(_chunk, chunks) for result in chunk]


def report(title: str, players: int, results: list[Result], target: float, floor: float | None) -> list[str]:
    n = len(results)
    wins = sum(1 for _, won, _ in results if won)
    stalemates = sum(1 for winner, _, _ in results if winner < 0)
    rule_wins = n - wins - stalemates
    low, high = wilson_interval(wins, n)
    times = sorted(t for _, _, ts in results for t in ts)
    p95 = times[int(0.95 * (len(times) - 1))] if times else 0.0
    median = statistics.median(times) if times else 0.0
    passed = wins / n >= target and (floor is None or low > floor)
    bound = f" and the lower bound above {floor:.0%}" if floor is not None else ""
    return [
        f"{title}: {n} games",
        f"  expert wins {wins} = {wins / n:.1%} [{low:.1%}, {high:.1%}] (fair share {1 / players:.1%})",
        f"  each rule seat wins {rule_wins / (players - 1) / n:.1%}; stalemates {stalemates / n:.1%}",
        f"  expert decisions with a choice: {len(times)}, CPU median {median * 1e3:.1f} ms, "
        f"p95 {p95 * 1e3:.1f} ms, max {times[-1] * 1e3 if times else 0:.1f} ms",
        f"  {'PASS' if passed else 'FAIL'}: expert wins >= {target:.0%}{bound}",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--heads-up-deals", type=int, default=2000)
    parser.add_argument("--worlds", type=int, default=ExpertBot(random.Random()).worlds)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--markdown", action="store_true", help="print the figures as a RESULTS.md block")
    parser.add_argument("--limits", type=int, default=0, metavar="N", help="what limits it, on N deals")
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"worlds per decision: {args.worlds}; jobs: {args.jobs}; seed {args.seed}")
    if args.limits:
        return limits(args)
    lines: list[str] = []
    ok = True
    for title, variant, players, deals, target, floor in (
        ("3 players, part 3, expert vs rule vs rule", "part3", 3, args.deals, 0.45, 0.40),
        ("heads-up, part 4, expert vs rule", "part4", 2, args.heads_up_deals, 0.60, None),
    ):
        if deals <= 0:
            continue
        start = time.perf_counter()
        results = run(variant, players, deals, args.seed, args.worlds, args.jobs)
        block = report(title, players, results, target, floor)
        block.append(f"  ({time.perf_counter() - start:.0f} s wall)")
        ok = ok and block[-2].lstrip().startswith("PASS")
        lines.extend(block)
        print("\n".join(block), flush=True)
    if args.markdown:
        print("\n```\n" + "\n".join(lines) + "\n```")
    return 0 if ok else 1


def limits(args: argparse.Namespace) -> int:
    """The same 3-player deals for the expert knowing what it ships with, the other hands, or nothing."""
    said = {
        "ships": "as it ships",
        "hands": "told the other hands (not the draw pile)",
        "nothing": "reading nothing from the table",
    }
    lines = []
    for knowing in KNOWING:
        results = run("part3", 3, args.limits, args.seed, args.worlds, args.jobs, knowing)
        wins = sum(1 for _, won, _ in results if won)
        low, high = wilson_interval(wins, len(results))
        lines.append(
            f"  {said[knowing]}: {wins / len(results):.1%} [{low:.1%}, {high:.1%}] of {len(results)}"
        )
        print(lines[-1], flush=True)
    if args.markdown:
        print("\n```\n" + "\n".join(lines) + "\n```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
