"""Every distinct optimal discard, by exact cover with a budget of unused cards.

Once the maximum is known, a hand of ``h`` cards has exactly ``h - max``
cards left over in any optimal discard. We take the lowest remaining card
(colour-major order): either it is left over (spending budget) or it is the
lowest card of some group, which is then a run starting at it or a set whose
other colours come later. Memoised on (remaining cards, budget), and pruned
with the exact maximum of what remains: a branch that must leave more cards
over than the budget allows is never entered, so the search only walks
towards optimal discards.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

Flat = tuple[int, ...]  # copies per card, index colour * numbers + (number - 1)


def optimal_discards(
    flat: Flat,
    numbers: int,
    colours: int,
    shortest_run: int,
    smallest_set: int,
    spare: int,
    most: Callable[[Flat], int],
    max_states: int = 0,
) -> frozenset[Flat]:
    """All multisets (as copy vectors) of ``flat`` that split exactly into groups, leaving ``spare`` cards.

    ``most(cards)`` is the maximum discard of a copy vector. ``max_states`` (0: none) bounds the
    states searched: past it the search returns those found by then, each still an exact split.
    """
    searched = 0

    @cache
    def search(rest: Flat, budget: int) -> frozenset[Flat]:
        nonlocal searched
        searched += 1
        if max_states and searched > max_states:
            return frozenset()
        left_over = sum(rest) - most(rest)
        if left_over > budget:
            return frozenset()
        if budget == 0:  # the whole of ``rest`` splits into groups
            return frozenset([rest])
        first = next((i for i, n in enumerate(rest) if n), None)
        if first is None:  # all zeros, with budget to spare: not an optimal discard
            return frozenset()
        found: set[Flat] = set()
        if budget:
            found.update(search(_minus(rest, (first,)), budget - 1))
        colour, offset = divmod(first, numbers)
        for group in _groups_from(rest, first, colour, offset, numbers, colours, shortest_run, smallest_set):
            for used in search(_minus(rest, group), budget):
                found.add(_plus(used, group))
        return frozenset(found)

    return search(flat, spare)


def _groups_from(
    rest: Flat,
    first: int,
    colour: int,
    offset: int,
    numbers: int,
    colours: int,
    shortest: int,
    smallest_set: int,
) -> list[tuple[int, ...]]:
    groups: list[tuple[int, ...]] = []
    # Runs starting at the card: longer than 2 * shortest - 1 splits into two runs.
    end = offset
    while end < numbers and rest[colour * numbers + end] and end - offset < 2 * shortest - 1:
        end += 1
        if end - offset >= shortest:
            groups.append(tuple(range(first, first + end - offset)))
    # Sets at the card's number whose other colours come after it.
    later = [c * numbers + offset for c in range(colour + 1, colours) if rest[c * numbers + offset]]
    for mask in range(1, 1 << len(later)):
        members = [later[i] for i in range(len(later)) if mask >> i & 1]
        if len(members) + 1 >= smallest_set:
            groups.append((first, *members))
    return groups


def _minus(vector: Flat, indices: tuple[int, ...]) -> Flat:
    out = list(vector)
    for i in indices:
        out[i] -= 1
    return tuple(out)


def _plus(vector: Flat, indices: tuple[int, ...]) -> Flat:
    out = list(vector)
    for i in indices:
        out[i] += 1
    return tuple(out)
