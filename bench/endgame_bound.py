"""How fast can anyone finish against a thief? The best play from a small hand, solved exactly.

Against ``greedy`` in classic, the expert soon holds one or two cards, and
greedy steals one of them every turn it holds two or more (never a last card,
which would make the expert the winner). This solves that endgame by dynamic
programming: for every hand of 1 to 3 cards at the start of a turn, the best
chance of going out within ``t`` turns, over every choice of how many new
cards to take (0 to 3) and which group, if any, to discard.

The model is kinder than a real game in one way and harsher in none that
matters: new cards come uniformly from every card not in the hand (a real
deck lacks the thief's cards, and a theft takes a card from a known hand); a
hand may end a turn with at most 4 cards (5 cards or more with no group to
shed only get further from going out). Hands are the same up to a change of
colours or reading the numbers backwards, which makes the state space small.

    .venv/bin/python bench/endgame_bound.py [--turns 150] [--preset classic]
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections import Counter
from collections.abc import Iterator

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games.notty import Card, Rules, is_group, rules_from

Hand = tuple[Card, ...]
#: Where a kept hand leads: (start of next turn, probability) after the thief's pick.
Next = list[tuple[Hand, float]]

MOST_NEW = 3  # draw up to 3; in this model a theft is one more uniform card, counted the same
MOST_KEPT = 4  # a hand ending its turn with more is left out (worth 0)


class Endgame:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.types = sorted(set(rules.full_deck()))
        self.unseen = len(rules.full_deck())
        self._canon: dict[Hand, Hand] = {}
        self._groups: dict[Hand, bool] = {}
        colours = rules.colours
        self._maps = [
            (dict(zip(colours, perm, strict=True)), backwards)
            for perm in itertools.permutations(colours)
            for backwards in (False, True)
        ]

    def canon(self, cards: Hand) -> Hand:
        """One representative of the hands equal up to renaming colours and reversing numbers."""
        key = tuple(sorted(cards))
        known = self._canon.get(key)
        if known is None:
            top = self.rules.numbers + 1
            known = min(
                tuple(sorted(Card(colour[c.colour], top - c.number if backwards else c.number) for c in key))
                for colour, backwards in self._maps
            )
            self._canon[key] = known
        return known

    def group(self, cards: Hand) -> bool:
        known = self._groups.get(cards)
        if known is None:
            known = self._groups[cards] = is_group(cards, self.rules)
        return known

    def draws(self, hand: Hand, n: int) -> Iterator[tuple[Hand, float]]:
        """Every multiset of ``n`` new cards, with its probability."""
        held = Counter(hand)
        pool = self.unseen - len(hand)
        total = math.comb(pool, n)
        for new in itertools.combinations_with_replacement(self.types, n):
            ways = 1
            for card, k in Counter(new).items():
                ways *= math.comb(self.rules.copies - held[card], k)
            if ways:
                yield new, ways / total

    def kept_options(self, cards: Hand) -> list[Hand]:
        """Keep everything, or shed one group (a hand of 5 or fewer holds at most one)."""
        options = {cards}
        for size in range(min(self.rules.shortest_run, self.rules.smallest_set), len(cards) + 1):
            for picked in itertools.combinations(range(len(cards)), size):
                if self.group(tuple(cards[i] for i in picked)):
                    options.add(tuple(card for i, card in enumerate(cards) if i not in picked))
        return [kept for kept in options if 0 < len(kept) <= MOST_KEPT]

    def after_theft(self, kept: Hand) -> Next:
        if len(kept) == 1:
            return [(self.canon(kept), 1.0)]
        starts: Counter[Hand] = Counter()
        for card, copies in Counter(kept).items():
            rest = list(kept)
            rest.remove(card)
            starts[self.canon(tuple(rest))] += copies / len(kept)
        return list(starts.items())


def solve(rules: Rules, turns: int) -> tuple[dict[Hand, list[float]], dict[Hand, int]]:
    """Best chance of going out within 1..``turns`` turns from each start hand, and the first turn's draw."""
    game = Endgame(rules)
    # (chance of going out now, [(probability, [Next per way of keeping])]) per start hand and count
    plans: dict[Hand, list[tuple[float, list[tuple[float, list[Next]]]]]] = {}
    frontier = sorted({game.canon((card,)) for card in game.types})
    seen = set(frontier)
    while frontier:
        found = []
        for start in frontier:
            options = []
            for n in range(MOST_NEW + 1):
                if len(start) + n > MOST_KEPT + 1:
                    break
                out, later = 0.0, []
                for new, p in game.draws(start, n):
                    cards = tuple(sorted(start + new))
                    if len(cards) >= 3 and game.group(cards):
                        out += p
                        continue
                    nexts = [game.after_theft(kept) for kept in game.kept_options(cards)]
                    for hand, _ in itertools.chain.from_iterable(nexts):
                        if hand not in seen:
                            seen.add(hand)
                            found.append(hand)
                    later.append((p, nexts))
                options.append((out, later))
            plans[start] = options
        frontier = found
    value = dict.fromkeys(plans, 0.0)
    curve = {hand: [] for hand in plans}
    first: dict[Hand, int] = {}
    for _ in range(turns):
        new_value = {}
        for start, options in plans.items():
            best, count = -1.0, 0
            for n, (out, later) in enumerate(options):
                v = out
                for p, nexts in later:
                    v += p * max((sum(q * value.get(h, 0.0) for h, q in nxt) for nxt in nexts), default=0.0)
                if v > best + 1e-12:
                    best, count = v, n
            new_value[start], first[start] = best, count
        value = new_value
        for hand, v in value.items():
            curve[hand].append(v)
    return curve, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=150, help="own turns (a 300-turn cap gives 150)")
    parser.add_argument("--preset", default="classic")
    args = parser.parse_args()
    print(describe())
    rules = rules_from(args.preset)
    started = time.perf_counter()
    curve, first = solve(rules, args.turns)
    elapsed = time.perf_counter() - started
    print(f"{rules.name}: {len(curve)} start hands up to symmetry, solved in {elapsed:.0f} s")
    singles = [hand for hand in curve if len(hand) == 1]
    best = max(singles, key=lambda hand: curve[hand][-1])
    print("best play from one card, against a thief who robs every hand of 2+ (never a last card):")
    for t in sorted({t for t in (10, 25, 50, 100, args.turns) if t <= args.turns}):
        if t:
            chance = max(curve[hand][t - 1] for hand in singles)
            print(f"  out within {t:3d} own turns: {chance:.1%}")
    hazard = 1 - (1 - curve[best][-1]) ** (1 / args.turns)
    print(f"  as a steady chance per turn: {hazard:.2%}")
    for size in (1, 2, 3):
        counts = Counter(first[hand] for hand in curve if len(hand) == size)
        print(
            f"  best first move with {size} card(s): "
            + ", ".join(f"take {n}: {k} hands" for n, k in sorted(counts.items()))
        )


if __name__ == "__main__":
    sys.exit(main())
