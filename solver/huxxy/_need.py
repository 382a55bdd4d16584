"""How far a group of cards is from a valid one: the bounds that let the 6-play search prune.

Cards are small integers here (``4 * (value - 1) + suit``, suits in ``SUITS``
order, the joker 52) so groups are sorted tuples that hash fast. Every answer
is a pure function of a group's cards, so each is cached across calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations

from games.huxxy import COPIES, JOKER, SUITS, Card

#: The joker's number; naturals are 0..51.
JOKER_ID = 52
#: More than any budget: "cannot be made valid this way".
IMPOSSIBLE = 99
#: The card each number stands for.
CARD_OF: tuple[Card, ...] = (*(Card(v, s) for v in range(1, 14) for s in SUITS), JOKER)
_RED = frozenset(("H", "D"))
#: Per natural number: its value (1..13) and whether it is red.
VALUE_OF: tuple[int, ...] = tuple(card.value for card in CARD_OF)
RED_OF: tuple[bool, ...] = tuple(card.suit in _RED for card in CARD_OF)
_SUIT_COUNT = len(SUITS)
_SMALLEST = 3
_LONGEST_RUN = 13


def card_id(card: Card) -> int:
    return JOKER_ID if card.is_joker else (card.value - 1) * _SUIT_COUNT + SUITS.index(card.suit)


@lru_cache(maxsize=1 << 17)
def need(cards: tuple[int, ...]) -> int:
    """The fewest cards to add to make ``cards`` (sorted) a valid group: 0 if it is one or is
    empty (an emptied group just disappears), ``IMPOSSIBLE`` if adding cannot help."""
    if not cards:
        return 0
    jokers = cards.count(JOKER_ID)
    if jokers > 1:
        return IMPOSSIBLE
    naturals = cards[: len(cards) - jokers]
    if not naturals:
        return 2  # a lone joker and two cards
    for earlier, later in zip(naturals, naturals[COPIES:], strict=False):
        if earlier == later:
            return IMPOSSIBLE  # a third copy of a card: two packs hold two
    return min(_set_need(naturals, jokers), _run_need(naturals, jokers))


def _set_need(naturals: tuple[int, ...], jokers: int) -> int:
    value = naturals[0] // _SUIT_COUNT
    if naturals[-1] // _SUIT_COUNT != value:
        return IMPOSSIBLE
    count = len(naturals)
    suits = len({card % _SUIT_COUNT for card in naturals})
    missing = _SUIT_COUNT - suits
    if jokers and not missing:
        return IMPOSSIBLE  # a joker stands only for a card the group does not hold: a missing suit
    if count == suits:  # no suit twice
        return max(0, _SMALLEST - count - jokers)
    # A suit twice: every suit and at least five cards; a joker is one of the missing suits.
    added = max(0, missing - jokers)
    return added + max(0, 5 - (count + jokers + added))


def _run_need(naturals: tuple[int, ...], jokers: int) -> int:
    first_value = naturals[0] // _SUIT_COUNT
    parity = (first_value + RED_OF[naturals[0]]) & 1
    previous = -1
    for card in naturals:
        value = card // _SUIT_COUNT
        if value == previous or (value + RED_OF[card]) & 1 != parity:
            return IMPOSSIBLE  # a value twice, or colours that cannot alternate
        previous = value
    return _run_formula(first_value, previous, len(naturals), jokers)


def _run_formula(low: int, high: int, count: int, jokers: int) -> int:
    """A run's need from its lowest and highest values (0-based) and its cards: fill the gaps
    (a joker fills one, or else extends the run), then lengthen it to 3."""
    span = high - low + 1
    gaps = span - count
    if jokers:
        if gaps:
            gaps -= 1
        elif span == _LONGEST_RUN:
            return IMPOSSIBLE
        else:
            span += 1
    return gaps + max(0, _SMALLEST - span)


def helpful(cards: tuple[int, ...]) -> frozenset[int]:
    """The cards whose addition brings ``cards`` one card closer to a valid group.

    If a group can be completed by adding cards, some card of every completion is
    one of these (tests check it), so a search that adds only these misses nothing."""
    return frozenset(cards_in(helpful_mask(cards)))


def mask_of(cards: Iterable[int]) -> int:
    """Cards as a bit each: plain ints, cheap to intersect, and the garbage collector need not
    walk the caches that hold them."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


@lru_cache(maxsize=1 << 16)
def cards_in(mask: int) -> tuple[int, ...]:
    """The cards of a mask, in increasing order."""
    return tuple(card for card in range(JOKER_ID + 1) if mask >> card & 1)


@lru_cache(maxsize=1 << 16)
def helpful_mask(cards: tuple[int, ...]) -> int:
    """:func:`helpful`, a bit per card."""
    now = need(cards)
    if now == 0 or now >= IMPOSSIBLE:
        return 0
    jokers = cards.count(JOKER_ID)
    naturals = cards[: len(cards) - jokers]
    if not naturals:
        return (1 << JOKER_ID) - 1  # a lone joker: any card is one of its two
    found = set()
    if not jokers and min(_set_need(naturals, 1), _run_need(naturals, 1)) == now - 1:
        found.add(JOKER_ID)
    if _set_need(naturals, jokers) == now:  # the same value, another suit (two copies at most)
        first = naturals[0] // _SUIT_COUNT * _SUIT_COUNT
        for card in range(first, first + _SUIT_COUNT):
            if naturals.count(card) < COPIES and _set_need(with_card(naturals, card), jokers) == now - 1:
                found.add(card)
    if _run_need(naturals, jokers) == now:  # a value within 2 of the run's ends, colours alternating
        low, high = naturals[0] // _SUIT_COUNT, naturals[-1] // _SUIT_COUNT
        parity = (low + RED_OF[naturals[0]]) & 1
        present = {card // _SUIT_COUNT for card in naturals}
        count = len(naturals) + 1
        for value in range(max(0, low - 2), min(_LONGEST_RUN - 1, high + 2) + 1):
            if value in present or _run_formula(min(low, value), max(high, value), count, jokers) != now - 1:
                continue
            for card in range(value * _SUIT_COUNT, value * _SUIT_COUNT + _SUIT_COUNT):
                if (value + RED_OF[card]) & 1 == parity:
                    found.add(card)
    return mask_of(found)


@lru_cache(maxsize=1 << 16)
def completes(cards: tuple[int, ...], have: int, most: int) -> bool:
    """Can ``cards`` (sorted) be made a valid group by adding at most ``most`` cards of the kinds in
    ``have`` (a bit each; a kind any number of times: a relaxation, the copies held are not counted)?

    Every completion holds a helpful card, and the rest completes the group with it added, so
    adding helpful cards one at a time finds a completion if there is one."""
    now = need(cards)
    if now == 0:
        return True
    if now > most:
        return False
    return any(
        completes(with_card(cards, card), have, most - 1) for card in cards_in(helpful_mask(cards) & have)
    )


def with_card(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    """``cards`` (sorted) with ``card`` added, still sorted."""
    at = 0
    for at, held in enumerate(cards):
        if held > card:
            return (*cards[:at], card, *cards[at:])
    return (*cards, card)


def without_card(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    at = cards.index(card)
    return cards[:at] + cards[at + 1 :]


@lru_cache(maxsize=1 << 16)
def repair(kept: tuple[int, ...], arrived: tuple[int, ...], most_leaving: int) -> tuple[int, int]:
    """Lower bounds on fixing a group whose ``kept`` cards may still leave (``most_leaving`` of them
    at most) and ``arrived`` ones not: (cards leaving plus cards added, cards leaving), each the
    fewest; ``IMPOSSIBLE`` if no way.

    A group that cards arrived in keeps one of its own: emptying it instead is the same turn as
    putting the arrivals in a new group, in as many plays, and that one is searched."""
    best = fewest_leaving = IMPOSSIBLE
    for leaving in range(min(len(kept) - (1 if arrived else 0), most_leaving) + 1):
        if leaving >= best:
            break
        for left in set(combinations(kept, len(kept) - leaving)):
            added = need(tuple(sorted(left + arrived)))
            if added < IMPOSSIBLE:
                fewest_leaving = min(fewest_leaving, leaving)
                best = min(best, leaving + added)
    return best, fewest_leaving
