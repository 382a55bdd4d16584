"""The exact discard solver (solver/) against the worked checks and an independent brute-force oracle."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from functools import cache
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.notty import CLASSIC, FIVE_COLOUR, Card, GroupKind, Rules, classify_group, parse_cards, rules_from
from solver import Out, all_best_discards, best_discard, max_discard, outs

PRESETS = [CLASSIC, FIVE_COLOUR]

# --------------------------------------------------------------------------- oracle
#
# A hand is a multiset, keyed as a sorted tuple of (card, copies). The oracle
# takes the first card of the hand: in any discard it is either left over, or
# in some group that contains it (a run through it or a set at its number).
# It tries every such group, runs of any length included, and memoises.

Key = tuple[tuple[Card, int], ...]
Multiset = tuple[Card, ...]  # sorted


def key_of(cards: Iterable[Card]) -> Key:
    return tuple(sorted(Counter(cards).items()))


def minus(key: Key, cards: Iterable[Card]) -> Key:
    counts = Counter(dict(key))
    counts.subtract(cards)
    assert min(counts.values(), default=0) >= 0
    return tuple(sorted((card, n) for card, n in counts.items() if n))


def groups_through(card: Card, key: Key, rules: Rules) -> list[Multiset]:
    """Every valid group of cards from ``key`` that contains ``card``."""
    have = dict(key)
    colour, number = card.colour, card.number
    lo = hi = number
    while lo > 1 and have.get(Card(colour, lo - 1)):
        lo -= 1
    while hi < rules.numbers and have.get(Card(colour, hi + 1)):
        hi += 1
    found = [
        tuple(Card(colour, n) for n in range(a, b + 1))
        for a in range(lo, number + 1)
        for b in range(number, hi + 1)
        if b - a + 1 >= rules.shortest_run
    ]
    others = [c for c in rules.colours if c != colour and have.get(Card(c, number))]
    for size in range(max(1, rules.smallest_set - 1), len(others) + 1):
        for chosen in combinations(others, size):
            found.append(tuple(sorted([card, *(Card(c, number) for c in chosen)])))
    return found


@cache
def oracle_max(key: Key, rules: Rules) -> int:
    if not key:
        return 0
    first = key[0][0]
    best = oracle_max(minus(key, [first]), rules)
    for group in groups_through(first, key, rules):
        best = max(best, len(group) + oracle_max(minus(key, group), rules))
    return best


@cache
def oracle_optimal(key: Key, rules: Rules) -> frozenset[Multiset]:
    """Every distinct multiset of cards that an optimal discard of ``key`` can use.

    An optimal discard restricted to what is left after the first card's choice
    is optimal for that remainder, so optimal discards compose recursively.
    """
    if not key:
        return frozenset([()])
    best = oracle_max(key, rules)
    first = key[0][0]
    found: set[Multiset] = set()
    rest = minus(key, [first])
    if oracle_max(rest, rules) == best:
        found.update(oracle_optimal(rest, rules))
    for group in groups_through(first, key, rules):
        rest = minus(key, group)
        if len(group) + oracle_max(rest, rules) == best:
            found.update(tuple(sorted(group + used)) for used in oracle_optimal(rest, rules))
    return frozenset(found)


@cache
def partitionable(key: Key, rules: Rules) -> bool:
    """Can these cards be split exactly into valid groups?"""
    if not key:
        return True
    first = key[0][0]
    return any(partitionable(minus(key, group), rules) for group in groups_through(first, key, rules))


def best_of(hand: list[Card], rules: Rules) -> int:
    return oracle_max(key_of(hand), rules)


# --------------------------------------------------------------------------- strategies


@st.composite
def hands(
    draw: st.DrawFn, rules: Rules | None = None, max_size: int = 12, window: int | None = None
) -> tuple[Rules, list[Card]]:
    """A ruleset and a hand dealt from its deck (never more than ``copies`` of a card).

    With ``window``, the hand is drawn from that many consecutive numbers: many
    overlapping runs and sets, the hard case for the solver.
    """
    if rules is None:
        rules = draw(st.sampled_from(PRESETS))
    deck = rules.full_deck()
    if window is not None:
        low = draw(st.integers(1, rules.numbers - window + 1))
        deck = [card for card in deck if low <= card.number < low + window]
    size = draw(st.integers(0, min(max_size, len(deck))))
    order = draw(st.permutations(range(len(deck))))
    return rules, [deck[i] for i in order[:size]]


def any_hand(max_size: int = 12) -> st.SearchStrategy[tuple[Rules, list[Card]]]:
    return st.one_of(
        hands(max_size=max_size),
        hands(max_size=max_size, window=3),
        hands(max_size=max_size, window=4),
    )


@st.composite
def custom_rules(draw: st.DrawFn) -> Rules:
    """Single fields overridden, as a table may: run and set sizes, copies, colours, numbers."""
    return rules_from(
        draw(st.sampled_from(["classic", "five-colour"])),
        hand_limit=0,
        copies=draw(st.integers(1, 3)),
        numbers=draw(st.integers(4, 9)),
        shortest_run=draw(st.integers(2, 4)),
        smallest_set=draw(st.integers(2, 5)),
    )


@st.composite
def custom_hands(draw: st.DrawFn) -> tuple[Rules, list[Card]]:
    rules = draw(custom_rules())
    window = draw(st.sampled_from([None, 3, 4]))
    return draw(hands(rules, max_size=12, window=window))


# --------------------------------------------------------------------------- checks


def check_groups(hand: list[Card], groups: list[tuple[Card, ...]], rules: Rules) -> None:
    """Every group valid, sorted, disjoint and drawn from the hand (as multisets)."""
    for group in groups:
        assert list(group) == sorted(group)
        classify_group(group, rules)  # raises InvalidGroup if not a group
    used = Counter(card for group in groups for card in group)
    assert not used - Counter(hand), f"groups use cards not in the hand: {used - Counter(hand)}"


def flatten(groups: list[tuple[Card, ...]]) -> tuple[Card, ...]:
    return tuple(sorted(card for group in groups for card in group))


# --------------------------------------------------------------------------- worked checks


def test_worked_check_classic_set_and_run() -> None:
    hand = parse_cards("R6 B6 Y6 G7 G6 G5")
    assert max_discard(hand, CLASSIC) == 6
    groups = best_discard(hand, CLASSIC)
    assert {tuple(sorted(g)) for g in groups} == {
        tuple(sorted(parse_cards("R6 B6 Y6"))),
        tuple(sorted(parse_cards("G5 G6 G7"))),
    }
    assert [classify_group(g, CLASSIC) for g in groups] == [GroupKind.SET, GroupKind.RUN]  # sets first
    assert all_best_discards(hand, CLASSIC) == [tuple(sorted(hand))]


def test_worked_check_classic_run_and_set() -> None:
    hand = parse_cards("R1 R2 R3 R4 R5 G1 Y1 B8 Y7")
    assert max_discard(hand, CLASSIC) == 7
    groups = best_discard(hand, CLASSIC)
    assert {tuple(sorted(g)) for g in groups} == {
        tuple(sorted(parse_cards("R1 G1 Y1"))),
        tuple(sorted(parse_cards("R2 R3 R4 R5"))),
    }
    assert all_best_discards(hand, CLASSIC) == [tuple(sorted(parse_cards("R1 R2 R3 R4 R5 G1 Y1")))]


def test_worked_check_five_colour() -> None:
    hand = parse_cards("R1 R2 R3 R4 R5 G1 Y1 B8 Y7")
    assert max_discard(hand, FIVE_COLOUR) == 5  # a set needs four colours
    assert best_discard(hand, FIVE_COLOUR) == [tuple(parse_cards("R1 R2 R3 R4 R5"))]
    assert all_best_discards(hand, FIVE_COLOUR) == [tuple(parse_cards("R1 R2 R3 R4 R5"))]


def test_two_runs_sharing_a_number() -> None:
    # One run R1..R5 leaves the second R3 over; R1 R2 R3 + R3 R4 R5 takes all six.
    hand = parse_cards("R1 R2 R3 R3 R4 R5")
    assert max_discard(hand, CLASSIC) == 6
    groups = best_discard(hand, CLASSIC)
    check_groups(hand, groups, CLASSIC)
    assert sorted(groups) == [tuple(parse_cards("R1 R2 R3")), tuple(parse_cards("R3 R4 R5"))]


@pytest.mark.parametrize(
    ("rules", "text", "best"),
    [
        (CLASSIC, "", 0),
        (CLASSIC, "R1 R2", 0),
        (CLASSIC, "B4 R4 B4", 0),
        (CLASSIC, "R9 R10 R1", 0),  # no wrap
        (CLASSIC, "R6 B6 Y6 G6", 4),
        (CLASSIC, "R6 B6 Y6 G6 R6 B6 Y6", 7),  # two sets at one number
        (CLASSIC, "R6 B6 Y6 G6 R6 B6", 6),  # 4+2 does not work, 3+3 does
        (FIVE_COLOUR, "R6 B6 Y6 G6 K6 R6 B6 Y6", 8),  # not 5+3: R B Y G and R B Y K
        (FIVE_COLOUR, "R6 B6 Y6 G6 K6 R6 B6", 5),  # two sets of four need eight cards
        (FIVE_COLOUR, "R6 B6 Y6 G6 R6 B6 Y6 G6", 8),
        (CLASSIC, "R1 R2 R3 R4 R5 R6", 6),
        (CLASSIC, " ".join(f"B{n}" for n in range(1, 11)), 10),
        (CLASSIC, "R2 R3 R4 Y3 G3", 3),  # R2 R3 R4 or R3 Y3 G3: both need the one R3
        (CLASSIC, "R2 R3 R4 Y3 G3 R3", 6),
        (CLASSIC, "R1 R2 R3 Y2 G2 B2 Y3 G3", 7),
    ],
)
def test_small_hands(rules: Rules, text: str, best: int) -> None:
    hand = parse_cards(text)
    assert max_discard(hand, rules) == best
    assert best_of(hand, rules) == best  # the oracle agrees on the hand-worked answer
    groups = best_discard(hand, rules)
    check_groups(hand, groups, rules)
    assert len(flatten(groups)) == best


def test_full_decks_discard_completely() -> None:
    for rules in PRESETS:
        deck = rules.full_deck()
        assert max_discard(deck, rules) == len(deck)
        groups = best_discard(deck, rules)
        check_groups(deck, groups, rules)
        assert flatten(groups) == tuple(sorted(deck))


@pytest.mark.parametrize("rules", PRESETS, ids=["classic", "five-colour"])
def test_foreign_or_surplus_cards_are_rejected(rules: Rules) -> None:
    foreign = Card("K", 1) if rules is CLASSIC else Card("R", 10)
    with pytest.raises(ValueError, match=str(foreign)):
        max_discard([foreign], rules)
    with pytest.raises(ValueError, match="copies"):
        max_discard([Card("R", 1)] * (rules.copies + 1), rules)


def test_empty_hand() -> None:
    assert max_discard([], CLASSIC) == 0
    assert best_discard([], CLASSIC) == []
    assert all_best_discards([], CLASSIC) == []
    # From nothing, no single card makes a group.
    assert outs([], CLASSIC) == []


def test_outs_example() -> None:
    assert outs(parse_cards("R1 R2"), CLASSIC) == [Out(Card("R", 3), 3)]
    # R1 R2 R3 discards 3; R4 makes R1..R6 and R7 makes R5 R6 R7: both +3, nothing else helps.
    assert outs(parse_cards("R1 R2 R3 R5 R6"), CLASSIC) == [Out(Card("R", 4), 3), Out(Card("R", 7), 3)]


# --------------------------------------------------------------------------- properties vs the oracle


@settings(max_examples=1500, deadline=None)
@given(any_hand(max_size=14))
def test_max_discard_matches_oracle(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    assert max_discard(hand, rules) == best_of(hand, rules)


@settings(max_examples=300, deadline=None)
@given(st.one_of(hands(max_size=20, window=3), hands(max_size=20, window=4), hands(max_size=20)))
def test_max_discard_matches_oracle_full_hands(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    assert max_discard(hand, rules) == best_of(hand, rules)


@settings(max_examples=800, deadline=None)
@given(custom_hands())
def test_max_discard_matches_oracle_custom_rules(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    assert max_discard(hand, rules) == best_of(hand, rules)
    groups = best_discard(hand, rules)
    check_groups(hand, groups, rules)
    assert len(flatten(groups)) == best_of(hand, rules)


def test_max_discard_matches_oracle_seeded_adversarial() -> None:
    # A fixed sweep of dense hands, independent of hypothesis' choices.
    rng = random.Random(4008)
    for rules in PRESETS:
        deck = rules.full_deck()
        for _ in range(150):
            window = rng.choice([3, 4])
            low = rng.randint(1, rules.numbers - window + 1)
            pool = [card for card in deck if low <= card.number < low + window]
            hand = rng.sample(pool, rng.randint(6, min(20, len(pool))))
            assert max_discard(hand, rules) == best_of(hand, rules), " ".join(map(str, sorted(hand)))


# --------------------------------------------------------------------------- best_discard


@settings(max_examples=600, deadline=None)
@given(any_hand(max_size=20))
def test_best_discard_is_a_valid_optimal_discard(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    groups = best_discard(hand, rules)
    check_groups(hand, groups, rules)
    assert len(flatten(groups)) == max_discard(hand, rules)
    # sets first, then runs; each block in card order
    kinds = [classify_group(g, rules) for g in groups]
    assert kinds == sorted(kinds, key=lambda kind: kind is GroupKind.RUN)
    # order of the hand does not matter
    assert best_discard(list(reversed(hand)), rules) == groups


# --------------------------------------------------------------------------- symmetries and monotonicity


@settings(max_examples=400, deadline=None)
@given(any_hand(max_size=20), st.data())
def test_invariant_under_colour_permutation_and_reversal(
    case: tuple[Rules, list[Card]], data: st.DataObject
) -> None:
    rules, hand = case
    best = max_discard(hand, rules)
    shuffled = data.draw(st.permutations(list(rules.colours)))
    recolour = dict(zip(rules.colours, shuffled, strict=True))
    recoloured = [Card(recolour[c.colour], c.number) for c in hand]
    reversed_ = [Card(c.colour, rules.numbers + 1 - c.number) for c in hand]
    both = [Card(recolour[c.colour], rules.numbers + 1 - c.number) for c in hand]
    for other in (recoloured, reversed_, both):
        assert max_discard(other, rules) == best
        assert len(flatten(best_discard(other, rules))) == best


@settings(max_examples=400, deadline=None)
@given(any_hand(max_size=19), st.data())
def test_adding_a_card_never_lowers_the_maximum(case: tuple[Rules, list[Card]], data: st.DataObject) -> None:
    rules, hand = case
    counts = Counter(hand)
    spare = [card for card in rules.full_deck() if counts[card] < rules.copies]
    card = data.draw(st.sampled_from(sorted(set(spare))))
    before, after = max_discard(hand, rules), max_discard([*hand, card], rules)
    assert after >= before
    # Removing the card from the best discard of the bigger hand breaks at most
    # one group: a run splits into two short pieces, or a set drops below size.
    assert after - before <= max(2 * rules.shortest_run - 1, rules.smallest_set)


# --------------------------------------------------------------------------- all_best_discards


@settings(max_examples=600, deadline=None)
@given(any_hand(max_size=14))
def test_all_best_discards_match_oracle(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    best = max_discard(hand, rules)
    found = all_best_discards(hand, rules)
    if best == 0:
        assert found == []
        return
    assert len(found) == len(set(found)), "duplicate discards"
    assert found == sorted(found)
    have = Counter(hand)
    for discard in found:
        assert list(discard) == sorted(discard)
        assert len(discard) == best
        assert not Counter(discard) - have
        assert partitionable(key_of(discard), rules), " ".join(map(str, discard))
    assert flatten(best_discard(hand, rules)) in found
    assert set(found) == oracle_optimal(key_of(hand), rules)


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands(max_size=20, window=3), hands(max_size=20, window=4)))
def test_all_best_discards_match_oracle_full_hands(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    found = all_best_discards(hand, rules)
    expected = oracle_optimal(key_of(hand), rules) if best_of(hand, rules) else frozenset()
    assert set(found) == expected
    assert len(found) == len(expected)


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands(max_size=20, window=3), hands(max_size=20, window=4)), st.integers(1, 20))
def test_all_best_discards_within_a_bound_are_some_of_them(
    case: tuple[Rules, list[Card]], states: int
) -> None:
    """Bounded in states (a hint's alternatives, for a hand of dozens of cards), the search returns
    best discards only: some of every one there is, none that is not."""
    rules, hand = case
    assert set(all_best_discards(hand, rules, states)) <= set(all_best_discards(hand, rules))


def test_a_search_of_the_best_discards_stops_at_its_bound_with_best_discards_only() -> None:
    """A hand of 40 cards that cannot go out whole has 15 best discards; a search bounded at 50 states
    finds some of them (a hint shows ten, where a hand of 67 cards has tens of thousands of states)."""
    full = CLASSIC.full_deck()
    random.Random(14).shuffle(full)
    hand = full[:40]
    best = max_discard(hand, CLASSIC)
    every, found = all_best_discards(hand, CLASSIC), all_best_discards(hand, CLASSIC, 50)
    assert best < 40 and len(every) == 15
    assert found and set(found) < set(every)  # stopped: fewer, none that is not a best discard
    for discard in found:
        assert len(discard) == best == max_discard(discard, CLASSIC) and not Counter(discard) - Counter(hand)


# --------------------------------------------------------------------------- outs


@settings(max_examples=300, deadline=None)
@given(any_hand(max_size=14))
def test_outs_are_exactly_the_improving_cards(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    counts = Counter(hand)
    base = best_of(hand, rules)
    expected = {}
    for card in sorted(set(rules.full_deck())):
        if counts[card] < rules.copies:
            gain = best_of([*hand, card], rules) - base
            if gain > 0:
                expected[card] = gain
    found = outs(hand, rules)
    assert [out.card for out in found] == sorted(out.card for out in found)
    assert {out.card: out.gain for out in found} == expected
    assert len(found) == len(expected)


def test_outs_skip_cards_the_deck_cannot_supply() -> None:
    # Both R3 are in the hand: R3 is no out even though a third would help.
    hand = parse_cards("R3 R3 R4 R5 R1 R2")
    assert all(out.card != Card("R", 3) for out in outs(hand, CLASSIC))
    one_copy = rules_from("classic", copies=1)
    assert outs(parse_cards("R1 R2"), one_copy) == [Out(Card("R", 3), 3)]
    assert outs(parse_cards("R1 R2 R3"), one_copy) == [Out(Card("R", 4), 1)]


# --------------------------------------------------------------------------- no hand limit


@pytest.mark.parametrize("seed", range(5))
def test_large_hand_without_limit(seed: int) -> None:
    rules = rules_from("classic", hand_limit=0)
    assert rules.hand_limit == 0
    hand = random.Random(seed).sample(rules.full_deck(), 40)
    best = max_discard(hand, rules)
    groups = best_discard(hand, rules)
    check_groups(hand, groups, rules)
    assert len(flatten(groups)) == best
    found = outs(hand, rules)
    for out in found[:5]:
        assert max_discard([*hand, out.card], rules) == best + out.gain
    # Half the deck: these seeded hands discard most of their cards (32-34 of 40 when written).
    assert 20 <= best <= 40


def test_large_hand_all_best_discards() -> None:
    rules = rules_from("five-colour", hand_limit=0)
    hand = random.Random(7).sample(rules.full_deck(), 40)
    best = max_discard(hand, rules)
    found = all_best_discards(hand, rules)
    assert found and flatten(best_discard(hand, rules)) in found
    for discard in found:
        assert len(discard) == best
        assert not Counter(discard) - Counter(hand)
        assert partitionable(key_of(discard), rules)
