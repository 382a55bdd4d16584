"""Going out by drawing: which draws let a hand discard every card, and how likely they are.

The deck's contents are public (every card not in a hand), only its order is
not, so the chance that ``k`` cards drawn now let a hand go out is exact
counting: the draws that complete the hand, each weighted by how many ways the
deck can deal it, over ``C(deck, k)`` (for a hand of several dozen cards, of
those the bounded search finds).

Completing draws are found by covering the hand's cards one at a time, lowest
first: the lowest uncovered card must lie in some group, and that group's other
cards come from the hand when it has them (two copies of a card are
interchangeable, so this loses no partition) or else are drawn. Draws are
bounded by ``k`` (at most 3), so the search stays small for hands up to the
classic limit; a table with no hand limit grows hands of 70 cards, whose
search is bounded by :data:`SEARCH_STATES` (see :func:`bounded_chance`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from math import comb

from games.notty import Card, Rules

from ._api import max_discard
from ._impl import native as _native

Flat = tuple[int, ...]  # copies per card, index (number - 1) * colours + colour

#: The states the covering search visits for one chance before it stops, in C and in Python alike
#: (so both give the same answers). A table with no hand limit grew hands of 70 cards, whose search
#: took up to a minute of CPU in C, holding the interpreter: a bot's move or a hint stalled the
#: whole server. Hands up to the presets' limit (20 cards) rarely come near it: none of 1.8 million
#: chances asked in bot games reached 1,000 states, the costliest legal hand a review found 17,628.
#: Past it, a chance counts the draws found: a lower bound (it may be far below the chance), which
#: :func:`bounded_chance` says.
SEARCH_STATES = 20_000


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
    """Every distinct multiset of ``draw`` cards from ``deck`` after which ``hand`` can be discarded
    whole (the whole search, however long: :data:`SEARCH_STATES` bounds the chances alone)."""
    found, _ = _finishers(flatten(hand, rules), flatten(deck, rules), draw, *_shape(rules), 0)
    return [tuple(unflatten(drawn, rules)) for drawn in sorted(found)]


def go_out_chance(hand: Iterable[Card], deck: Iterable[Card], draw: int, rules: Rules) -> float:
    """The probability that drawing ``draw`` cards from ``deck`` lets ``hand`` discard every card
    (for a hand of several dozen cards, a lower bound: see :func:`bounded_chance`)."""
    return chance_flat(flatten(hand, rules), flatten(deck, rules), draw, rules)


def chance_flat(hand: Flat, deck: Flat, draw: int, rules: Rules) -> float:
    """:func:`go_out_chance` over flat count vectors (the bots' hot path): see :func:`bounded_chance`."""
    return bounded_chance(hand, deck, draw, rules)[0]


def bounded_chance(hand: Flat, deck: Flat, draw: int, rules: Rules) -> tuple[float, bool]:
    """The chance that drawing ``draw`` cards lets ``hand`` go out, and whether it is exact.

    It is, unless the search passed :data:`SEARCH_STATES` states (a hand of several dozen cards):
    then it is the chance of the draws found, a lower bound. With no draw the question is the
    solver's (can the whole hand be discarded?), which answers it exactly at any size.
    """
    size = sum(deck)
    if draw > size:
        return 0.0, True
    shape = _shape(rules)
    counted = None if _native is None else _native.finishing_ways(hand, deck, draw, *shape, SEARCH_STATES)
    if counted is not None:
        ways, whole = counted
    else:  # no extension, or a shape (or a count past 64 bits) left to Python
        found, whole = _finishers(hand, deck, draw, *shape, SEARCH_STATES)
        ways = sum(_dealt(deck, drawn) for drawn in found)
    if not whole and not draw:
        return (1.0 if max_discard(unflatten(hand, rules), rules) == sum(hand) else 0.0), True
    return ways / comb(size, draw), whole


def _dealt(deck: Flat, drawn: Flat) -> int:
    """How many ways ``deck`` deals the multiset ``drawn``."""
    ways = 1
    for have, take in zip(deck, drawn, strict=True):
        if take:
            ways *= comb(have, take)
    return ways


def _shape(rules: Rules) -> tuple[int, int, int, int]:
    return len(rules.colours), rules.numbers, rules.shortest_run, rules.smallest_set


@lru_cache(maxsize=1 << 16)
def _finishers(
    hand: Flat,
    deck: Flat,
    draw: int,
    colours: int,
    numbers: int,
    shortest: int,
    smallest_set: int,
    max_states: int,
) -> tuple[frozenset[Flat], bool]:
    """The finishing draws, and whether the search was whole (``max_states``: 0, no bound)."""
    if _native is not None:
        found = _native.finishers(hand, deck, draw, colours, numbers, shortest, smallest_set, max_states)
        if found is not None:
            return found
    return _search(hand, deck, draw, colours, numbers, shortest, smallest_set, max_states)


def _search(
    hand: Flat,
    deck: Flat,
    draw: int,
    colours: int,
    numbers: int,
    shortest: int,
    smallest_set: int,
    max_states: int = 0,
) -> tuple[frozenset[Flat], bool]:
    """The covering search in Python (the C extension's is the same, line for line)."""
    found: set[Flat] = set()
    seen: set[tuple[Flat, Flat]] = set()
    cells = len(hand)
    smallest = min(shortest, smallest_set)
    cut = False

    def cover(rem: list[int], drawn: list[int], budget: int, start: int) -> None:
        nonlocal cut
        if cut:
            return
        if max_states and len(seen) >= max_states:
            cut = True
            return
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
                    if cut:
                        break
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
                if cut:
                    break
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
            if cut:
                return
            if len(chosen) >= need:
                _try(rem, drawn, budget, chosen, u)
            for j in range(index, len(usable)):
                chosen.append(usable[j])
                pick(j + 1)
                chosen.pop()

        pick(0)

    cover(list(hand), [0] * cells, draw, 0)
    return frozenset(found), not cut


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
