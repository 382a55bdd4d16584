"""Group validity: is a list of cards a run, a set, or neither (and why not)."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from ._cards import Card, format_cards
from ._rules import Rules


class GroupKind(enum.Enum):
    RUN = "run"
    SET = "set"


class InvalidGroup(ValueError):
    """Cards that do not form a valid group; the message says why."""


def classify_group(cards: Sequence[Card], rules: Rules) -> GroupKind:
    """The kind of group these cards form, or :class:`InvalidGroup` with the reason."""
    cards = sorted(cards)
    shown = format_cards(cards)
    foreign = [card for card in cards if not rules.allows(card)]
    if foreign:
        raise InvalidGroup(f"{format_cards(foreign)} not in the {rules.name} deck")
    if len(cards) < rules.smallest_group:
        raise InvalidGroup(f"{shown or 'no cards'}: a group needs at least {rules.smallest_group} cards")

    colours = {card.colour for card in cards}
    numbers = {card.number for card in cards}
    if len(numbers) == 1 and len(cards) > 1:
        return _check_set(cards, rules, shown)
    if len(colours) == 1:
        return _check_run(cards, rules, shown)
    raise InvalidGroup(
        f"{shown}: neither a run (one colour, consecutive numbers) nor a set (one number, different colours)"
    )


def _check_set(cards: list[Card], rules: Rules, shown: str) -> GroupKind:
    repeated = sorted(colour for colour, n in Counter(card.colour for card in cards).items() if n > 1)
    if repeated:
        raise InvalidGroup(f"{shown}: a set cannot repeat a colour ({', '.join(repeated)})")
    if len(cards) < rules.smallest_set:
        raise InvalidGroup(f"{shown}: a set needs at least {rules.smallest_set} cards of different colours")
    return GroupKind.SET


def _check_run(cards: list[Card], rules: Rules, shown: str) -> GroupKind:
    numbers = [card.number for card in cards]
    if len(set(numbers)) != len(numbers):
        raise InvalidGroup(f"{shown}: a run cannot repeat a number")
    missing = sorted(set(range(numbers[0], numbers[-1] + 1)) - set(numbers))
    if missing:
        gap = ", ".join(f"{cards[0].colour}{n}" for n in missing)
        raise InvalidGroup(f"{shown}: a run needs consecutive numbers ({gap} missing)")
    if len(cards) < rules.shortest_run:
        raise InvalidGroup(f"{shown}: a run needs at least {rules.shortest_run} cards")
    return GroupKind.RUN


def is_group(cards: Sequence[Card], rules: Rules) -> bool:
    try:
        classify_group(cards, rules)
    except InvalidGroup:
        return False
    return True


def valid_groups(hand: Iterable[Card], rules: Rules) -> list[tuple[Card, ...]]:
    """Every distinct valid group (as a sorted card tuple) that can be taken from a hand.

    Cards that are not in this ruleset's deck belong to no group and are ignored.
    """
    top = rules.numbers
    numbers_of: dict[str, set[int]] = {colour: set() for colour in rules.colours}
    for card in hand:
        numbers = numbers_of.get(card.colour)
        if numbers is not None and card.number <= top:
            numbers.add(card.number)
    groups: list[tuple[Card, ...]] = []
    shortest = rules.shortest_run
    colours_of: dict[int, list[str]] = {}
    for colour, numbers in numbers_of.items():  # colours in canonical order
        for number in numbers:
            colours_of.setdefault(number, []).append(colour)
        if len(numbers) < shortest:
            continue
        for low in numbers:
            if low - 1 in numbers:
                continue  # not the start of a streak
            high = low
            while high + 1 in numbers:
                high += 1
            streak = [Card.of(colour, number) for number in range(low, high + 1)]
            for first in range(len(streak) - shortest + 1):
                for stop in range(first + shortest, len(streak) + 1):
                    groups.append(tuple(streak[first:stop]))
    smallest = rules.smallest_set
    for number, colours in colours_of.items():
        if len(colours) >= smallest:
            here = [Card.of(colour, number) for colour in colours]
            for size in range(smallest, len(here) + 1):
                groups.extend(combinations(here, size))
    return sorted(groups, key=_group_order)


def _group_order(group: tuple[Card, ...]) -> tuple[int, int, list[int]]:
    """By first card, then size, then cards, as comparing the cards would, but without calling ``__lt__``."""
    return group[0]._rank, len(group), [card._rank for card in group]


def has_group(hand: Iterable[Card], rules: Rules) -> bool:
    """Does the hand hold at least one valid group? (Cheaper than listing them.)"""
    present = {(card.colour, card.number) for card in hand if rules.allows(card)}
    for colour in rules.colours:
        streak = 0
        for number in range(1, rules.numbers + 1):
            streak = streak + 1 if (colour, number) in present else 0
            if streak >= rules.shortest_run:
                return True
    for number in range(1, rules.numbers + 1):
        if sum((colour, number) in present for colour in rules.colours) >= rules.smallest_set:
            return True
    return False
