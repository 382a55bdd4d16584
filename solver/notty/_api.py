"""The solver's public functions over hands (lists of cards)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache, lru_cache

import attrs

from games.notty import COLOUR_ORDER, Card, Rules

from ._dp import Grid, best_plan, has_any_group, max_discard_size, plan_groups
from ._enumerate import optimal_discards
from ._impl import Info
from ._impl import native as _native

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
    if _native is not None and grid:
        copies = max(max(row) for row in grid) or 1
        flat = bytes(copies for row in grid for copies in row)
        found = _native.max_discard(flat, len(grid[0]), copies, shortest_run, smallest_set)
        if found is not None:
            return found
    return max_discard_size(grid, shortest_run, smallest_set)


def max_discard(hand: Iterable[Card], rules: Rules) -> int:
    """The largest number of cards the hand can discard now, as disjoint valid groups."""
    native = _native
    if native is not None:
        if type(hand) is not list and type(hand) is not tuple:
            hand = list(hand)
        key = rules.colours, rules.numbers, rules.copies, rules.shortest_run, rules.smallest_set
        found = native.max_discard_of(hand, _INFO.get(key) or _new_info(key))
        if found is not None:
            return found
        # a card not in the deck (the Python path says which), or a ruleset left to Python
        return _max_for_bytes(
            _bytes_grid(hand, rules), len(rules.colours), rules.copies, rules.shortest_run, rules.smallest_set
        )
    return _max_for_grid(_grid(hand, rules), rules.shortest_run, rules.smallest_set)


def best_discard(hand: Iterable[Card], rules: Rules) -> list[Group]:
    """Disjoint valid groups from the hand covering as many cards as possible.

    Groups are sorted tuples of cards, listed sets first (by number), then
    runs (by colour and number); an empty list when nothing can be discarded.
    """
    native = _native
    if native is not None:  # one call: the simulator's hottest
        if type(hand) is not list and type(hand) is not tuple:
            hand = list(hand)
        key = rules.colours, rules.numbers, rules.copies, rules.shortest_run, rules.smallest_set
        groups = native.best_discard(hand, _INFO.get(key) or _new_info(key))
        if groups is not None:
            return groups
        shape = rules.numbers, rules.copies, rules.shortest_run, rules.smallest_set
        return list(_best_for_bytes(_bytes_grid(hand, rules), rules.colours, *shape))
    return list(_best_for_grid(_grid(hand, rules), rules.colours, rules.shortest_run, rules.smallest_set))


# --------------------------------------------------------------------------- the C extension's path
#
# The hand becomes bytes (copies per card, by number then colour: the rows of ``_grid``, joined)
# in C; the per-hand caches are dicts keyed by those bytes, one pair per ruleset shape, looked up
# in C too. A ruleset whose states the extension cannot pack (many copies with long runs) goes to
# the Python sweep, through the LRU caches below.

RulesKey = tuple[str, int, int, int, int]  # colours, numbers, copies, shortest run, smallest set
_INFO: dict[RulesKey, Info] = {}


def _new_info(key: RulesKey) -> Info:
    colours, numbers, copies, shortest_run, smallest_set = key
    cards = _card_table(colours, numbers)
    if len(_INFO) >= 64:
        _INFO.clear()
    info = _INFO[key] = (_colour_index(colours), numbers, copies, shortest_run, smallest_set, cards, {}, {})
    return info


def _bytes_grid(hand: Iterable[Card], rules: Rules) -> bytes:
    assert _native is not None
    if type(hand) is not list and type(hand) is not tuple:
        hand = list(hand)
    flat = _native.grid(hand, _colour_index(rules.colours), rules.numbers, rules.copies)
    if flat is None:  # a card not in the deck, or too many copies: say which, as the Python path does
        return bytes(copies for row in _grid(hand, rules) for copies in row)
    return flat


@cache
def _colour_index(colours: str) -> tuple[int, ...]:
    return tuple(colours.find(colour) for colour in COLOUR_ORDER)


def _rows(flat: bytes, colours: int) -> Grid:
    return tuple(tuple(flat[i : i + colours]) for i in range(0, len(flat), colours))


@lru_cache(maxsize=65536)
def _max_for_bytes(flat: bytes, colours: int, copies: int, shortest_run: int, smallest_set: int) -> int:
    assert _native is not None
    found = _native.max_discard(flat, colours, copies, shortest_run, smallest_set)
    if found is None:
        return max_discard_size(_rows(flat, colours), shortest_run, smallest_set)
    return found


@lru_cache(maxsize=65536)
def _best_for_bytes(
    flat: bytes, colours: str, numbers: int, copies: int, shortest_run: int, smallest_set: int
) -> tuple[Group, ...]:
    assert _native is not None
    cards = _card_table(colours, numbers)
    found = _native.best_groups(flat, len(colours), copies, shortest_run, smallest_set, cards)
    if found is None:
        return _best_for_grid(_rows(flat, len(colours)), colours, shortest_run, smallest_set)
    return found


def clear_caches() -> None:
    """Empty the per-hand result caches (benchmarks time uncached calls)."""
    for cached in (_max_for_grid, _best_for_grid, _max_for_bytes, _best_for_bytes):
        cached.cache_clear()
    for info in _INFO.values():
        info[6].clear()
        info[7].clear()


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


def all_best_discards(hand: Iterable[Card], rules: Rules, max_states: int = 0) -> list[tuple[Card, ...]]:
    """Every distinct optimal discard, each as a sorted multiset of cards; with ``max_states`` (0:
    no bound), those found within that many states of the search (a hand of dozens of cards has
    thousands: a hint shows ten)."""
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
        flat, numbers, colours, rules.shortest_run, rules.smallest_set, len(hand) - best, most, max_states
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
