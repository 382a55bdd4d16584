"""solver.huxxy.unlimited: the most a hand can place when the whole table may be rearranged.

Checked against a brute-force oracle that shares nothing with the solver's dynamic
programme: it tries every sub-multiset of the hand and searches for a partition of
the cards into groups that ``valid_group`` accepts.
"""

from __future__ import annotations

import importlib
import sys
import tracemalloc
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.huxxy import COPIES, JOKER, SUITS, Card, score, valid_group
from solver.huxxy import unlimited
from solver.huxxy.unlimited import Placement, clear_caches, most_placed


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def assert_partition(hand: Sequence[Card], table: Sequence[Sequence[Card]], answer: Placement) -> None:
    """The groups are valid and hold exactly the table's cards and the placed ones, all from the hand."""
    assert not Counter(answer.placed) - Counter(hand)
    assert answer.points == score(answer.placed)
    held = Counter(card for group in table for card in group)
    assert Counter(card for group in answer.groups for card in group) == held + Counter(answer.placed)
    for group in answer.groups:
        assert valid_group(group), [str(card) for card in group]


# --------------------------------------------------------------------------- the oracle


def oracle(hand: Sequence[Card], table: Sequence[Sequence[Card]]) -> tuple[int, int]:
    """(cards placed, points): the best sub-multiset of the hand for which the cards can be partitioned."""
    held = [card for group in table for card in group]
    memo: dict[tuple[Card, ...], bool] = {}
    subsets = {tuple(sorted(chosen)) for size in range(len(hand) + 1) for chosen in combinations(hand, size)}
    for chosen in sorted(subsets, key=lambda chosen: (len(chosen), score(chosen)), reverse=True):
        if _partitions(tuple(sorted(held + list(chosen))), memo):
            return len(chosen), score(chosen)
    raise AssertionError("the table alone must partition")


def _partitions(remaining: tuple[Card, ...], memo: dict[tuple[Card, ...], bool]) -> bool:
    if not remaining:
        return True
    if remaining not in memo:
        naturals = [card for card in remaining if not card.is_joker]
        memo[remaining] = False
        if naturals:
            anchor = naturals[0]  # the lowest natural card is in some group; try each group holding it
            rest = list(remaining)
            rest.remove(anchor)
            for others in _groups_with(anchor, rest):
                left = list(rest)
                for card in others:
                    left.remove(card)
                if _partitions(tuple(left), memo):
                    memo[remaining] = True
                    break
    return memo[remaining]


def _groups_with(anchor: Card, rest: list[Card]) -> Iterator[tuple[Card, ...]]:
    """Other cards that make a valid group with ``anchor``, the lowest natural card left.

    Candidates: cards of the anchor's value (with or without a joker), or one card for each
    following value, at most one value skipped when a joker is there to stand in.
    """
    joker = [JOKER] if JOKER in rest else []
    same = [card for card in rest if card.value == anchor.value]
    candidates: set[tuple[Card, ...]] = set()
    for size in range(1, len(same) + 1):
        for chosen in combinations(same, size):
            candidates.add(chosen)
            if joker:
                candidates.add((*chosen, JOKER))
    by_value = {card.value: sorted({c for c in rest if c.value == card.value}) for card in rest}

    def extend(run: tuple[Card, ...], value: int, skipped: bool) -> None:
        if skipped:
            candidates.add((*run, JOKER))
        else:
            candidates.add(run)
            if joker:
                candidates.add((*run, JOKER))
        for card in by_value.get(value, []):
            extend((*run, card), value + 1, skipped)
        if joker and not skipped:
            for card in by_value.get(value + 1, []):
                extend((*run, card), value + 2, True)

    extend((), anchor.value + 1, False)
    for others in candidates:
        if len(others) >= 2 and valid_group([anchor, *others]):
            yield others


def test_the_oracle_knows_the_rules() -> None:
    assert oracle(cards("4D"), [cards("AC 2H 3S 4H 5S 6H")]) == (1, 4)
    assert oracle(cards("4C"), [cards("AC 2H 3S 4H 5S 6H")]) == (0, 0)
    assert oracle(cards("XX"), [cards("5C 5H 5S 5D 5C 5H 5S 5D")]) == (1, 48)


# --------------------------------------------------------------------------- positions

Position = tuple[list[Card], list[list[Card]]]  # hand, table


@st.composite
def positions(draw: st.DrawFn, jokers: bool) -> Position:
    """A small position: 0-3 valid groups of values in a window of 6, and 1-5 hand cards near them."""
    low = draw(st.integers(1, 8))
    values = range(low, low + 6)
    pool = Counter({Card(value, suit): COPIES for value in values for suit in SUITS})
    jokers_left = 2 if jokers else 0
    table: list[list[Card]] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            start = draw(st.integers(low, low + 3))
            length = draw(st.integers(3, low + 6 - start))
            red = draw(st.booleans())
            group = [
                Card(start + i, draw(st.sampled_from("HD" if (red ^ (i % 2 == 1)) else "SC")))
                for i in range(length)
            ]
        else:
            value = draw(st.sampled_from(values))
            size = draw(st.integers(3, 5))
            if size == 5:
                suits = [*SUITS, draw(st.sampled_from(SUITS))]
            else:
                suits = draw(st.permutations(SUITS))[:size]
            group = [Card(value, suit) for suit in suits]
        if Counter(group) - pool:
            continue  # not enough copies left
        pool -= Counter(group)
        if jokers_left and draw(st.integers(0, 3)) == 0:
            stand_in = draw(st.integers(0, len(group) - 1))
            with_joker = [*group[:stand_in], JOKER, *group[stand_in + 1 :]]
            if valid_group(with_joker):
                pool[group[stand_in]] += 1
                group, jokers_left = with_joker, jokers_left - 1
        table.append(group)
    spare = sorted(pool.elements())
    picks = draw(st.lists(st.integers(0, len(spare) - 1), min_size=1, max_size=5, unique=True))
    hand = [spare[i] for i in picks]
    if jokers_left and draw(st.booleans()):
        hand[len(hand) // 2 : len(hand) // 2] = [JOKER] * draw(st.integers(1, jokers_left))
        del hand[5:]
    return hand, table


@settings(max_examples=150)
@given(positions(jokers=False))
def test_as_many_cards_and_points_as_the_oracle_without_jokers(position: Position) -> None:
    hand, table = position
    answer = most_placed(hand, table)
    assert (len(answer.placed), answer.points) == oracle(hand, table)
    assert_partition(hand, table, answer)


@settings(max_examples=150)
@given(positions(jokers=True))
def test_as_many_cards_and_points_as_the_oracle_with_jokers(position: Position) -> None:
    hand, table = position
    answer = most_placed(hand, table)
    assert (len(answer.placed), answer.points) == oracle(hand, table)
    assert_partition(hand, table, answer)


@settings(max_examples=40)
@given(positions(jokers=True), st.booleans())
def test_the_tables_kept_between_calls_change_no_answer(position: Position, cold: bool) -> None:
    hand, table = position
    warm = most_placed(hand, table)
    if cold:
        clear_caches()
    again = most_placed(hand, table)
    assert (len(again.placed), again.points) == (len(warm.placed), warm.points)


# --------------------------------------------------------------------------- worked examples


def test_a_card_that_fits_only_after_splitting_a_run() -> None:
    table = [cards("AC 2H 3S 4H 5S 6H")]
    answer = most_placed(cards("4D"), table)
    assert answer.placed == (Card.parse("4D"),) and answer.points == 4
    assert sorted(len(group) for group in answer.groups) == [3, 4]  # AC 2H 3S 4D and 4H 5S 6H
    assert_partition(cards("4D"), table, answer)


def test_a_joker_freed_by_a_real_card_makes_a_new_group() -> None:
    table = [cards("4C 5H XX")]  # the joker stands for a black 6
    hand = cards("6C JH QS 2D")
    answer = most_placed(hand, table)
    assert Counter(answer.placed) == Counter(cards("6C JH QS"))
    assert answer.points == 29
    assert_partition(hand, table, answer)
    assert any(Counter(group) == Counter(cards("JH QS XX")) for group in answer.groups)


def test_a_joker_from_the_hand_counts_48() -> None:
    table = [cards("7S 8H 9S")]
    answer = most_placed(cards("XX 2D"), table)
    assert answer.placed == (JOKER,) and answer.points == 48
    assert_partition(cards("XX 2D"), table, answer)


def test_an_eight_of_a_kind_takes_a_joker_once_split() -> None:
    table = [cards("5C 5H 5S 5D 5C 5H 5S 5D")]
    answer = most_placed([JOKER], table)
    assert answer.placed == (JOKER,)
    assert_partition([JOKER], table, answer)


def test_two_jokers_never_share_a_group() -> None:
    # AC XX XX 4H would be a run with two jokers; no group of three of these cards is valid.
    assert most_placed(cards("AC XX XX 4H"), []).placed == ()
    answer = most_placed(cards("AC XX 3S"), [])
    assert len(answer.placed) == 3 and answer.points == 52


def test_two_jokers_split_a_run_between_them() -> None:
    # 8D 9C XX | 0D XX QH: each joker in a run of its own, the first standing for a red ten.
    table = [cards("8D 9C 0D")]
    hand = cards("XX XX JH QH")
    answer = most_placed(hand, table)
    assert Counter(answer.placed) == Counter(cards("XX XX QH")) and answer.points == 108
    assert_partition(hand, table, answer)


def test_points_break_a_tie_in_cards() -> None:
    # 2S 3H 4C (9 points) or 4C 4H 4D (12): one 4C, so one group.
    hand = cards("2S 3H 4C 4H 4D")
    answer = most_placed(hand, [])
    assert Counter(answer.placed) == Counter(cards("4C 4H 4D")) and answer.points == 12
    assert_partition(hand, [], answer)


def test_cards_that_fit_nowhere_stay_in_the_hand() -> None:
    table = [cards("3H 4S 5H")]
    hand = cards("KS 2C 6C 7D")
    answer = most_placed(hand, table)  # 2C, 6C and 7D extend the run; KS fits nowhere
    assert Counter(answer.placed) == Counter(cards("2C 6C 7D")) and answer.points == 15
    assert_partition(hand, table, answer)


def test_nothing_to_place_on_an_empty_table() -> None:
    assert most_placed([], []) == Placement((), 0, ())
    assert most_placed(cards("AC 2H"), []) == Placement((), 0, ())
    answer = most_placed(cards("AC 2H 3S"), [])
    assert len(answer.placed) == 3 and answer.points == 6


def test_impossible_cards_are_refused() -> None:
    with pytest.raises(ValueError, match="copies"):
        most_placed(cards("AC"), [cards("AC AH AS"), cards("AC AH AD")])
    with pytest.raises(ValueError, match="jokers"):
        most_placed(cards("XX"), [cards("XX 2H 3S"), cards("XX 5H 6S")])
    with pytest.raises(ValueError, match="no valid groups"):
        most_placed(cards("KS"), [cards("AC 2S")])


# --------------------------------------------------------------------------- the ILP baseline


def test_the_ilps_columns_cover_every_valid_group() -> None:
    pytest.importorskip("scipy")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    ilp = importlib.import_module("huxxy_ilp")
    assert ilp.split_claims_hold()


def test_the_ilp_agrees_on_bench_positions() -> None:
    pytest.importorskip("scipy")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    ilp = importlib.import_module("huxxy_ilp")
    bench_positions = importlib.import_module("huxxy_positions")
    cases = bench_positions.positions(3, 5) + bench_positions.positions(3, 5, jokers=True)
    assert cases == bench_positions.positions(3, 5) + bench_positions.positions(3, 5, jokers=True)
    for case in cases:
        assert all(valid_group(group) for group in case.table) and len(case.hand) == 12
        answer = most_placed(case.hand, case.table)
        assert ilp.ilp_most_placed(case.hand, case.table) == (len(answer.placed), answer.points)
        assert_partition(case.hand, case.table, answer)


def test_the_tables_kept_between_calls_stay_within_a_server_s_memory() -> None:
    """Any client grows them (hints, bots' turns): at 500,000 entries they could take 360 MB. What
    the calls leave behind (every table they keep, so an overestimate) is scaled to a full one."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    bench_positions = importlib.import_module("huxxy_positions")
    cases = bench_positions.positions(40, 2201) + bench_positions.positions(40, 2201, jokers=True)
    clear_caches()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for case in cases:
            most_placed(case.hand, case.table)
        grown = tracemalloc.get_traced_memory()[0] - before
        entries = len(unlimited._STEPS)
    finally:
        tracemalloc.stop()
        clear_caches()
    assert entries > 1000
    assert grown / entries * unlimited.STEPS_LIMIT < 96 << 20  # at its fullest, under 96 MiB (was 620)
