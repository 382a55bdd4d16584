"""The solver's public functions over hands (lists of cards)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache, lru_cache

import attrs

from games.notty import Card, Rules

from ._dp import Grid, best_plan, has_any_group, max_discard_size, plan_groups
from ._enumerate import optimal_discards

Group = tuple[Card, ...]


@attrs.frozen
class Out:
    """A card that would raise the hand's maximum discard, and by how much."""

    card: Card
    gain: int


def _grid(hand: Iterable[Card], rules: Rules) -> Grid:
    colour_index = {colour: i for i, colour in enumerate(rules.colours)}
    rows = [[0] * len(colour_index) for _ in range(rules.numbers)]
    for card in hand:
        c = colour_index.get(card.colour)
        if c is None or card.number > rules.numbers:
            raise ValueError(f"{card} is not in the {rules.name} deck")
        row = rows[card.number - 1]
        row[c] += 1
        if row[c] > rules.copies:
            raise ValueError(
                f"more than {rules.copies} copies of {card}: the {rules.name} deck has {rules.copies}"
            )
    return tuple(map(tuple, rows))


@lru_cache(maxsize=65536)
def _max_for_grid(grid: Grid, shortest_run: int, smallest_set: int) -> int:
    return max_discard_size(grid, shortest_run, smallest_set)


def max_discard(hand: Iterable[Card], rules: Rules) -> int:
    """The largest number of cards the hand can discard now, as disjoint valid groups."""
    return _max_for_grid(_grid(hand, rules), rules.shortest_run, rules.smallest_set)


def best_discard(hand: Iterable[Card], rules: Rules) -> list[Group]:
    """Disjoint valid groups from the hand covering as many cards as possible.

    Groups are sorted tuples of cards, listed sets first (by number), then
    runs (by colour and number); an empty list when nothing can be discarded.
    """
    return list(_best_for_grid(_grid(hand, rules), rules.colours, rules.shortest_run, rules.smallest_set))


@lru_cache(maxsize=65536)
def _best_for_grid(grid: Grid, colours: str, shortest_run: int, smallest_set: int) -> tuple[Group, ...]:
    if not has_any_group(grid, shortest_run, smallest_set):  # most hands, late in a game
        return ()
    _, steps = best_plan(grid, shortest_run, smallest_set)
    cards = _card_table(colours, len(grid))
    groups: list[Group] = []
    for kind, a, b, c in plan_groups(grid, steps, shortest_run):
        if kind:  # a set: number a, colour mask b
            groups.append(tuple(cards[i][a] for i in range(len(colours)) if b >> i & 1))
        else:  # a run: colour index a, numbers b..c
            groups.append(tuple(cards[a][b : c + 1]))
    return tuple(groups)


@cache
def _card_table(colours: str, numbers: int) -> tuple[tuple[Card, ...], ...]:
    """``table[c][n]``: the card of colour index ``c`` and number ``n`` (index 0 unused)."""
    return tuple(tuple(Card.of(colour, max(n, 1)) for n in range(numbers + 1)) for colour in colours)


def all_best_discards(hand: Iterable[Card], rules: Rules) -> list[tuple[Card, ...]]:
    """Every distinct optimal discard, each as a sorted multiset of cards."""
    hand = list(hand)
    grid = _grid(hand, rules)
    best = _max_for_grid(grid, rules.shortest_run, rules.smallest_set)
    if best == 0:
        return []
    numbers, colours = rules.numbers, len(rules.colours)
    flat = tuple(grid[n][c] for c in range(colours) for n in range(numbers))

    def most(cards: tuple[int, ...]) -> int:
        grid = tuple(tuple(cards[c * numbers + n] for c in range(colours)) for n in range(numbers))
        return _max_for_grid(grid, rules.shortest_run, rules.smallest_set)

    found = optimal_discards(
        flat, numbers, colours, rules.shortest_run, rules.smallest_set, len(hand) - best, most
    )
    discards = []
    for used in found:
        cards = []
        for index, copies in enumerate(used):
            c, n = divmod(index, numbers)
            cards.extend([Card.of(rules.colours[c], n + 1)] * copies)
        discards.append(tuple(sorted(cards)))
    return sorted(discards)


def outs(hand: Iterable[Card], rules: Rules) -> list[Out]:
    """Each card whose addition raises the maximum discard, with the gain, in card order.

    Every card the hand could still gain counts (fewer than ``copies`` of it in the
    hand), wherever its copies are now: the deck or another player's hand.
    """
    counts = Counter(hand)
    grid = _grid(counts.elements(), rules)
    base = _max_for_grid(grid, rules.shortest_run, rules.smallest_set)
    found = []
    for n, row in enumerate(grid):
        for c, copies in enumerate(row):
            if copies >= rules.copies:
                continue
            bumped = list(grid)
            bumped[n] = (*row[:c], copies + 1, *row[c + 1 :])
            gain = _max_for_grid(tuple(bumped), rules.shortest_run, rules.smallest_set) - base
            if gain > 0:
                found.append(Out(Card.of(rules.colours[c], n + 1), gain))
    return sorted(found, key=lambda out: out.card)
