"""Going out by drawing: which draws let a hand discard every card, and how likely they are.

The deck's contents are public (every card not in a hand), only its order is
not, so the chance that ``k`` cards drawn now let a hand go out is exact
counting: the draws that complete the hand, each weighted by how many ways the
deck can deal it, over ``C(deck, k)``.

Completing draws are found by covering the hand's cards one at a time, lowest
first: the lowest uncovered card must lie in some group, and that group's other
cards come from the hand when it has them (two copies of a card are
interchangeable, so this loses no partition) or else are drawn. Draws are
bounded by ``k`` (at most 3), so the search stays small even for full hands.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from math import comb

from games.notty import Card, Rules

from ._impl import native as _native

Flat = tuple[int, ...]  # copies per card, index (number - 1) * colours + colour


def flatten(cards: Iterable[Card], rules: Rules) -> Flat:
    colours = rules.colours
    counts = [0] * (rules.numbers * len(colours))
    for card in cards:
        c = colours.find(card.colour)
        if c < 0 or not 1 <= card.number <= rules.numbers:
            raise ValueError(f"{card} is not in the {rules.name} deck")
        counts[(card.number - 1) * len(colours) + c] += 1
    return tuple(counts)


def unflatten(flat: Flat, rules: Rules) -> list[Card]:
    """The cards of a flat count vector, in canonical order (number, then colour)."""
    colours = rules.colours
    return [
        Card.of(colours[i % len(colours)], i // len(colours) + 1)
        for i, n in enumerate(flat)
        for _ in range(n)
    ]


def finishing_draws(
    hand: Iterable[Card], deck: Iterable[Card], draw: int, rules: Rules
) -> list[tuple[Card, ...]]:
    """Every distinct multiset of ``draw`` cards from ``deck`` after which ``hand`` can be discarded whole."""
    found = _finishers(flatten(hand, rules), flatten(deck, rules), draw, *_shape(rules))
    return [tuple(unflatten(drawn, rules)) for drawn in sorted(found)]


def go_out_chance(hand: Iterable[Card], deck: Iterable[Card], draw: int, rules: Rules) -> float:
    """The probability that drawing ``draw`` cards from ``deck`` lets ``hand`` discard every card."""
    return chance_flat(flatten(hand, rules), flatten(deck, rules), draw, rules)


def chance_flat(hand: Flat, deck: Flat, draw: int, rules: Rules) -> float:
    """:func:`go_out_chance` over flat count vectors (the bots' hot path)."""
    size = sum(deck)
    if draw > size:
        return 0.0
    if _native is not None:
        counted = _native.finishing_ways(
            hand, deck, draw, len(rules.colours), rules.numbers, rules.shortest_run, rules.smallest_set
        )
        if counted is not None:  # else a shape (or a count past 64 bits) left to Python
            return counted / comb(size, draw)
    ways = 0
    for drawn in _finishers(hand, deck, draw, *_shape(rules)):
        w = 1
        for have, take in zip(deck, drawn, strict=True):
            if take:
                w *= comb(have, take)
        ways += w
    return ways / comb(size, draw)


def _shape(rules: Rules) -> tuple[int, int, int, int]:
    return len(rules.colours), rules.numbers, rules.shortest_run, rules.smallest_set


@lru_cache(maxsize=1 << 16)
def _finishers(
    hand: Flat, deck: Flat, draw: int, colours: int, numbers: int, shortest: int, smallest_set: int
) -> frozenset[Flat]:
    if _native is not None:
        found = _native.finishers(hand, deck, draw, colours, numbers, shortest, smallest_set)
        if found is not None:
            return found
    return _search(hand, deck, draw, colours, numbers, shortest, smallest_set)


def _search(
    hand: Flat, deck: Flat, draw: int, colours: int, numbers: int, shortest: int, smallest_set: int
) -> frozenset[Flat]:
    """The covering search in Python (the C extension's is the same, line for line)."""
    found: set[Flat] = set()
    seen: set[tuple[Flat, Flat]] = set()
    cells = len(hand)
    smallest = min(shortest, smallest_set)

    def cover(rem: list[int], drawn: list[int], budget: int, start: int) -> None:
        key = (tuple(rem), tuple(drawn))
        if key in seen:
            return
        seen.add(key)
        u = start
        while u < cells and not rem[u]:
            u += 1
        if u == cells:
            if budget == 0:
                found.add(tuple(drawn))
            elif budget >= smallest:  # a whole group from the deck alone
                for group in _all_groups(colours, numbers, shortest, smallest_set, budget):
                    _try(rem, drawn, budget, group, cells)
            return
        n, c = divmod(u, colours)
        rem[u] -= 1
        # runs of colour c through number n
        for low in range(n, -1, -1):
            if low < n and not _can_use(rem, drawn, deck, low * colours + c):
                break
            for high in range(max(n, low + shortest - 1), numbers):
                if not _try(rem, drawn, budget, [j * colours + c for j in range(low, high + 1) if j != n], u):
                    break  # a longer run needs the same card it could not get
        # sets of number n containing colour c
        others = [n * colours + k for k in range(colours) if k != c]
        usable = [i for i in others if _can_use(rem, drawn, deck, i)]
        _subsets(rem, drawn, budget, usable, smallest_set - 1, u)
        rem[u] += 1

    def _try(rem: list[int], drawn: list[int], budget: int, cards: list[int], u: int) -> bool:
        """Cover ``cards`` (from the hand where possible); recurse; say whether it was affordable."""
        taken: list[int] = []
        bought: list[int] = []
        ok = True
        for i in cards:
            if rem[i]:
                rem[i] -= 1
                taken.append(i)
            elif drawn[i] < deck[i] and len(bought) < budget:
                drawn[i] += 1
                bought.append(i)
            else:
                ok = False
                break
        if ok:
            cover(rem, drawn, budget - len(bought), u)
        for i in taken:
            rem[i] += 1
        for i in bought:
            drawn[i] -= 1
        return ok

    def _subsets(rem: list[int], drawn: list[int], budget: int, usable: list[int], need: int, u: int) -> None:
        chosen: list[int] = []

        def pick(index: int) -> None:
            if len(chosen) >= need:
                _try(rem, drawn, budget, chosen, u)
            for j in range(index, len(usable)):
                chosen.append(usable[j])
                pick(j + 1)
                chosen.pop()

        pick(0)

    cover(list(hand), [0] * cells, draw, 0)
    return frozenset(found)


def _can_use(rem: list[int], drawn: list[int], deck: Flat, i: int) -> bool:
    return bool(rem[i]) or drawn[i] < deck[i]


@lru_cache(maxsize=64)
def _all_groups(colours: int, numbers: int, shortest: int, smallest_set: int, size: int) -> list[list[int]]:
    """Every group of at most ``size`` cards, as flat indices (for draws that form a group alone)."""
    groups: list[list[int]] = []
    for c in range(colours):
        for low in range(numbers):
            for length in range(shortest, size + 1):
                if low + length <= numbers:
                    groups.append([j * colours + c for j in range(low, low + length)])
    for n in range(numbers):
        for mask in range(1, 1 << colours):
            members = [n * colours + k for k in range(colours) if mask >> k & 1]
            if smallest_set <= len(members) <= size:
                groups.append(members)
    return groups
