"""Classic Notty with nobody stealing from you: how often can one player go out at all?

At a 3-player classic table `greedy` and `qlearn` rob the biggest hand, which
is each other's, so the expert's small hand is never thinned (issue 20's
3-player target). What is left is solitaire: draw up to 3 cards a turn from
the deck the others leave, discard groups, go out when the whole hand goes.
This plays that solitaire with simple policies, every go-out chance exact
(the expert's own :func:`solver.chance_flat`), to show how little it offers:

* ``discard``: discard every group at once; draw the count with the best
  chance of going out when there is one, else ``build`` cards a turn while
  the hand is smaller than ``cap``;
* ``hold``: the same, but keep groups until the hand reaches ``cap``, since a
  held run takes in the card that extends it instead of leaving it loose.

It also prints how many cards of a random hand no group can take ("loose
cards"): a hand big enough to be robbed at such a table (8 to 16 cards) is
mostly loose. Not a bound on the real game: the policies are simple, and no
opponent plays.

    .venv/bin/python bench/solitaire.py [--games 200] [--turns 100]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Sequence

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games.notty import CLASSIC, Card
from solver import best_discard, chance_flat, flatten, max_discard

#: Cards held by the two opponents, out of the deck: about what they hold at such a table.
OPPONENTS_HOLD = 24
#: (policy, cap, cards drawn a turn to build): the policies tried.
POLICIES = (
    ("discard", 4, 1),
    ("discard", 8, 1),
    ("discard", 20, 1),
    ("discard", 20, 3),
    ("hold", 6, 2),
    ("hold", 12, 1),
    ("hold", 20, 1),
    ("hold", 20, 3),
)


def play(
    hand: list[Card], deck: list[Card], policy: str, cap: int, build: int, turns: int, rng: random.Random
) -> int | None:
    """The turn (from 0) on which the hand goes out, or None within ``turns``."""
    rules = CLASSIC
    hand, deck = list(hand), list(deck)
    for turn in range(turns):
        mine, left = flatten(hand, rules), flatten(deck, rules)
        room = min(3, rules.hand_limit - len(hand), len(deck))
        chances = [chance_flat(mine, left, k, rules) for k in range(room + 1)]
        count = max(range(room + 1), key=lambda k: chances[k])
        if chances[count] < 1e-12:
            count = min(room, build) if len(hand) < cap else 0
        rng.shuffle(deck)
        hand += deck[:count]
        del deck[:count]
        if hand and max_discard(hand, rules) == len(hand):
            return turn
        if policy == "discard" or len(hand) >= cap:
            for group in best_discard(hand, rules):
                for card in group:
                    hand.remove(card)
                    deck.append(card)
    return None


def loose_cards(size: int, samples: int, rng: random.Random) -> list[int]:
    """How many cards of a random hand of ``size`` no set of disjoint groups takes."""
    full = CLASSIC.full_deck()
    return [size - max_discard(rng.sample(full, size), CLASSIC) for _ in range(samples)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="deals per policy (the same deals for each)")
    parser.add_argument("--turns", type=int, default=100, help="turns per game: 100 is a 300-turn table of 3")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"machine: {describe()}")
    deals = []
    rng = random.Random(args.seed)
    for _ in range(args.games):
        cards = CLASSIC.full_deck()
        rng.shuffle(cards)
        deals.append((cards[:5], cards[5 + OPPONENTS_HOLD :]))
    print(f"classic solitaire, {args.games} deals, {args.turns} turns, {OPPONENTS_HOLD} cards held by others")
    print("| policy | cap | built a turn | went out | of which on the first turn |")
    print("|---|---|---|---|---|")
    for policy, cap, build in POLICIES:
        ends = [
            play(hand, deck, policy, cap, build, args.turns, random.Random(f"{args.seed}:{deal}"))
            for deal, (hand, deck) in enumerate(deals)
        ]
        out = [turn for turn in ends if turn is not None]
        share = 100 * len(out) / len(ends)
        print(f"| {policy} | {cap} | {build} | {len(out)} ({share:.1f}%) | {out.count(0)} |")
    print("| hand size | loose cards, median | mean |")
    print("|---|---|---|")
    for size in (5, 8, 12, 16, 20):
        loose = loose_cards(size, max(20, args.games), rng)
        print(f"| {size} | {statistics.median(loose):g} | {statistics.fmean(loose):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
