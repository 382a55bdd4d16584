"""huxxy's 6-play solver: worked examples, and exactness against a brute force over play sequences."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement, product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.huxxy import CARDS, COPIES, JOKER, SUITS, Card, opening_points, score, valid_group
from games.huxxy._plays import Play
from solver.huxxy import Turn, best_turn
from solver.huxxy._need import CARD_OF, IMPOSSIBLE, card_id, completes, helpful, mask_of, need
from solver.huxxy.turn import _Reach, _reach


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def table_of(*groups: str) -> list[list[Card]]:
    return [cards(group) for group in groups]


def replay(hand: Sequence[Card], table: Sequence[Sequence[Card]], plays: Sequence[Play]) -> list[list[Card]]:
    """Apply plays as the engine does: emptied groups keep their number, a new group goes at the end."""
    held = Counter(hand)
    groups = [list(group) for group in table]
    for play in plays:
        if play.source is None:
            assert held[play.card] > 0, f"{play.card} is not in the hand"
            held[play.card] -= 1
        else:
            assert play.card in groups[play.source], f"{play.card} is not in group {play.source}"
            groups[play.source].remove(play.card)
        if play.target is None:
            groups.append([play.card])
        else:
            assert groups[play.target], "a play to an emptied group"
            groups[play.target].append(play.card)
    return [group for group in groups if group]


def check_turn(
    hand: list[Card], table: list[list[Card]], opened: bool, turn: Turn, max_plays: int = 6
) -> None:
    """Everything a returned turn promises, checked by replaying its plays."""
    assert 1 <= len(turn.plays) <= max_plays
    assert turn.plays[0].source is None, "the first play comes from the hand"
    if not opened:
        assert all(play.source is None for play in turn.plays), "no moves before opening"
        assert opening_points(turn.placed) >= 24
    assert Counter(play.card for play in turn.plays if play.source is None) == Counter(turn.placed)
    assert turn.points == score(turn.placed)
    final = replay(hand, table, turn.plays)
    assert all(valid_group(group) for group in final)
    assert sorted(tuple(sorted(group)) for group in final) == sorted(
        tuple(sorted(group)) for group in turn.table
    )


def outcome(turn: Turn | None) -> tuple[int, int, int] | None:
    return None if turn is None else (len(turn.placed), turn.points, len(turn.plays))


# -- the brute force ------------------------------------------------------------------------------


def brute_force(
    hand: Sequence[Card], table: Sequence[Sequence[Card]], opened: bool, max_plays: int
) -> tuple[int, int, int] | None:
    """The best (hand cards, points, plays) over every sequence of plays, breadth first.

    Any table card may move, again and again, to any group; states are the hand and the groups
    as multisets, each kept at the fewest plays that reach it."""

    def state(held: tuple[Card, ...], groups: Sequence[Sequence[Card]]) -> tuple[object, ...]:
        return held, tuple(sorted(tuple(sorted(group)) for group in groups if group))

    start_hand = tuple(sorted(hand))
    seen = {state(start_hand, table)}
    frontier = [(start_hand, [list(group) for group in table])]
    best: tuple[int, int, int] | None = None
    for plays in range(1, max_plays + 1):
        following = []
        for held, groups in frontier:
            successors = []
            for card in sorted(set(held)):
                rest = list(held)
                rest.remove(card)
                for target in range(len(groups) + 1):
                    successors.append((tuple(rest), _put(groups, card, None, target)))
            if opened and plays > 1:
                for source, group in enumerate(groups):
                    for card in sorted(set(group)):
                        for target in range(len(groups) + 1):
                            if target != source:
                                successors.append((held, _put(groups, card, source, target)))
            for after_hand, after_groups in successors:
                key = state(after_hand, after_groups)
                if key in seen:
                    continue
                seen.add(key)
                following.append((after_hand, after_groups))
                placed = list((Counter(start_hand) - Counter(after_hand)).elements())
                if all(_valid_cards(tuple(sorted(group))) for group in after_groups if group) and (
                    opened or opening_points(placed) >= 24
                ):
                    found = (len(placed), score(placed), -plays)
                    if best is None or found > best:
                        best = found
        frontier = following
    return None if best is None else (best[0], best[1], -best[2])


@cache
def _valid_cards(group: tuple[Card, ...]) -> bool:
    return valid_group(group)


def _put(groups: list[list[Card]], card: Card, source: int | None, target: int) -> list[list[Card]]:
    after = [list(group) for group in groups]
    if source is not None:
        after[source].remove(card)
    if target == len(after):
        after.append([card])
    else:
        after[target].append(card)
    return [group for group in after if group] if source is not None else after


# -- positions small enough for the brute force ----------------------------------------------------


@st.composite
def small_positions(draw: st.DrawFn) -> tuple[list[Card], list[list[Card]], bool, int]:
    """A few cards of a few neighbouring values, so that they combine and moves matter."""
    low = draw(st.integers(1, 10))
    values = range(low, low + 4)
    pool = [card for card in CARDS if card.value in values] * 2 + [JOKER] * draw(
        st.sampled_from([0, 0, 1, 2])
    )
    table: list[list[Card]] = []
    for _ in range(draw(st.integers(1, 3))):
        group = _valid_group_from(draw, pool, values)
        if group:
            for card in group:
                pool.remove(card)
            table.append(group)
    pool.sort()
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=3, max_size=5, unique=True))
    hand = [pool[pick] for pick in picks]
    opened = draw(st.integers(0, 3)) > 0
    size = sum(len(group) for group in table) + len(hand)
    # Keep the brute force's tree small: the deepest searches only on the smallest positions.
    most = 4 if size <= 9 else 3 if size <= 12 else 2
    max_plays = min(most, draw(st.sampled_from([2, 3, 4, 4])))
    return hand, table, opened, max_plays


@st.composite
def moving_positions(draw: st.DrawFn) -> tuple[list[Card], list[list[Card]], bool, int]:
    """Opened, with groups of four that can spare a card and two or three hand cards that need one."""
    low = draw(st.integers(1, 10))
    values = range(low, low + 4)
    pool = [card for card in CARDS if card.value in values] * 2 + [JOKER] * draw(st.sampled_from([0, 1]))
    table: list[list[Card]] = []
    for _ in range(draw(st.integers(2, 3))):
        group = _valid_group_from(draw, pool, values, sizes=(4,))
        if group:
            for card in group:
                pool.remove(card)
            table.append(group)
    pool.sort()
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=2, max_size=3, unique=True))
    hand = [pool[pick] for pick in picks]
    size = sum(len(group) for group in table) + len(hand)
    # The brute force's tree: about (hand + table cards) x groups wide, as deep as the plays allowed.
    return hand, table, True, 3 if size <= 11 else 2


def _valid_group_from(
    draw: st.DrawFn, pool: list[Card], values: range, sizes: tuple[int, ...] = (3, 4, 4)
) -> list[Card] | None:
    if draw(st.booleans()):  # a run
        length = draw(st.sampled_from(sizes))
        start = draw(st.integers(values.start, values.stop - length))
        red = draw(st.booleans())
        group = []
        for offset in range(length):
            suit = draw(st.sampled_from("HD" if (red ^ (offset % 2 == 1)) else "SC"))
            group.append(Card(start + offset, suit))
    else:
        value = draw(st.sampled_from(values))
        suits = draw(
            st.sampled_from([suits for suits in ["SHD", "HDC", "SHDC", "SHDC", "SDC"] if len(suits) in sizes])
        )
        group = [Card(value, suit) for suit in suits]
    if JOKER in pool and draw(st.integers(0, 3)) == 0:
        group[draw(st.integers(0, len(group) - 1))] = JOKER
    if not valid_group(group) or any(Counter(group)[card] > Counter(pool)[card] for card in group):
        return None
    return group


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_positions())
def test_best_turn_matches_brute_force(position: tuple[list[Card], list[list[Card]], bool, int]) -> None:
    turn = _matches_brute_force(*position)
    assert best_turn(*position) == turn, "the same question, the same turn"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moving_positions())
def test_turns_with_moves_match_brute_force(position: tuple[list[Card], list[list[Card]], bool, int]) -> None:
    _matches_brute_force(*position)


def _matches_brute_force(
    hand: list[Card], table: list[list[Card]], opened: bool, max_plays: int
) -> Turn | None:
    """The solver's turn, checked: as good as the best of every play sequence, and legal as given."""
    turn = best_turn(hand, table, opened, max_plays)
    assert outcome(turn) == brute_force(hand, table, opened, max_plays)
    if turn is not None:
        check_turn(hand, table, opened, turn, max_plays)
    return turn


# -- worked examples ------------------------------------------------------------------------------


def test_an_opening_of_three_aces_cannot_end_the_turn() -> None:
    assert best_turn(cards("AC AH AD"), [], opened=False) is None
    # Opened, the same cards make a turn.
    assert outcome(best_turn(cards("AC AH AD"), [], opened=True)) == (3, 3, 3)


def test_an_opening_needs_24_points_and_no_moves() -> None:
    hand, table = cards("KS KH KD 2C"), table_of("QS QH QD QC")
    turn = best_turn(hand, table, opened=False)
    assert turn is not None and outcome(turn) == (3, 39, 3)
    check_turn(hand, table, False, turn)
    # Moving a queen out would place nothing more; before opening it is not even allowed.
    assert best_turn(cards("JH KH"), table_of("QS QH QD QC"), opened=False) is None


def test_a_hand_card_added_to_a_run() -> None:
    hand, table = cards("7H 2H"), table_of("3H 4S 5H 6S")
    turn = best_turn(hand, table, opened=True)
    assert turn is not None
    assert turn.plays == (Play(Card.parse("7H"), None, 0),)
    check_turn(hand, table, True, turn)


def test_a_run_split_by_a_second_copy() -> None:
    """5H from the hand starts a group; 3H and 4S join it, the rest stays a run: three plays."""
    hand, table = cards("5H"), table_of("3H 4S 5H 6S 7H 8S")
    turn = best_turn(hand, table, opened=True)
    assert turn is not None and outcome(turn) == (1, 5, 3)
    check_turn(hand, table, True, turn)
    assert sorted(map(sorted, turn.table)) == sorted(map(sorted, table_of("3H 4S 5H", "5H 6S 7H 8S")))


def test_a_card_from_a_set_of_four_with_two_hand_cards() -> None:
    hand, table = cards("8H 9S"), table_of("7S 7H 7D 7C")
    turn = best_turn(hand, table, opened=True)
    assert turn is not None and outcome(turn) == (2, 17, 3)
    check_turn(hand, table, True, turn)
    assert sum(1 for play in turn.plays if play.source is not None) == 1
    # Before opening the set may not be touched: no turn.
    assert best_turn(hand, table, opened=False) is None


def test_a_joker_retrieved_for_a_new_group() -> None:
    """6S takes the joker's place in 5H XX 7H; the joker joins QS KH (as a red jack)."""
    hand, table = cards("6S QS KH"), table_of("5H XX 7H")
    turn = best_turn(hand, table, opened=True)
    assert turn is not None and outcome(turn) == (3, 31, 4)
    check_turn(hand, table, True, turn)
    assert any(play.card == JOKER and play.source == 0 for play in turn.plays)


def test_a_joker_from_the_hand_counts_48_but_not_towards_an_opening() -> None:
    hand = cards("XX 9S 0H 2C 5D")
    turn = best_turn(hand, table_of("JS QH KS"), opened=True)
    assert turn is not None and outcome(turn) == (3, 67, 3)
    # Before opening: 9S 0H and the joker make 19 opening points, short of 24; nothing else works.
    assert best_turn(hand, table_of("JS QH KS"), opened=False) is None


def test_six_plays_at_most() -> None:
    hand = cards("3H 4S 5H 6S 7H 8S 9H")
    turn = best_turn(hand, [], opened=True)
    assert turn is not None and outcome(turn) == (6, 39, 6)  # 4S to 9H: the seventh card needs a 7th play
    check_turn(hand, [], True, turn)
    short = best_turn(hand, [], opened=True, max_plays=3)
    assert short is not None and outcome(short) == (3, 24, 3)
    check_turn(hand, [], True, short, max_plays=3)


def test_nothing_to_play() -> None:
    assert best_turn(cards("2C 9H"), table_of("5S 5H 5D"), opened=True) is None
    assert best_turn([], table_of("5S 5H 5D"), opened=True) is None
    assert best_turn(cards("5C"), table_of("5S 5H 5D"), opened=True, max_plays=0) is None


# -- the bounds the search prunes with --------------------------------------------------------------

_SOME_CARDS = [card_id(card) for card in cards("3S 3H 3D 3C 4S 4H 4D 5S 5H 5C 6S 6H")] + [card_id(JOKER)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(53)), min_size=0, max_size=7))
def test_need_is_zero_exactly_for_valid_groups(ids: list[int]) -> None:
    group = tuple(sorted(ids))
    valid = all(count <= 2 for count in Counter(group).values()) and valid_group([CARD_OF[c] for c in group])
    assert (need(group) == 0) == (valid or not group)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_SOME_CARDS), min_size=1, max_size=4))
def test_need_is_the_fewest_cards_to_add(ids: list[int]) -> None:
    """Checked against adding every one or two cards there are."""
    group = tuple(sorted(ids))
    if max(Counter(group).values()) > 2:
        return
    every = list(range(53))
    fewest = 0 if need(group) == 0 else IMPOSSIBLE
    if fewest:
        if any(_valid((*group, extra)) for extra in every):
            fewest = 1
        elif any(_valid((*group, one, two)) for one, two in combinations(every, 2)) or any(
            _valid((*group, one, one)) for one in every
        ):
            fewest = 2
    if need(group) <= 2 or fewest <= 2:
        assert need(group) == fewest


def test_need_of_every_n_of_a_kind_with_or_without_a_joker_is_the_fewest_cards_to_add() -> None:
    """Every multiset of one value (two copies a suit at most), with and without a joker, against
    adding up to four cards of that value: a joker is only ever a suit the group lacks."""
    sevens = [Card(7, suit) for suit in SUITS]
    for counts in product(range(COPIES + 1), repeat=len(SUITS)):
        naturals = [card for card, count in zip(sevens, counts, strict=True) for _ in range(count)]
        for group in ([*naturals], [*naturals, JOKER]) if len(naturals) >= 2 else ():
            fewest = next(
                (
                    added
                    for added in range(5)
                    for extra in combinations_with_replacement(sevens, added)
                    if _valid(tuple(sorted(card_id(card) for card in (*group, *extra))))
                ),
                IMPOSSIBLE,
            )
            assert need(tuple(sorted(card_id(card) for card in group))) == fewest, group


def _valid(group: tuple[int, ...]) -> bool:
    return max(Counter(group).values()) <= 2 and valid_group([CARD_OF[c] for c in group])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(53)), min_size=1, max_size=6))
def test_helpful_cards_are_those_one_closer(ids: list[int]) -> None:
    group = tuple(sorted(ids))
    now = need(group)
    closer = {
        card for card in range(53) if 0 < now < IMPOSSIBLE and need(tuple(sorted((*group, card)))) == now - 1
    }
    assert helpful(group) == closer


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_SOME_CARDS), min_size=0, max_size=3),
    st.sets(st.sampled_from(_SOME_CARDS), max_size=6),
    st.integers(min_value=0, max_value=3),
)
def test_completes_is_whether_some_cards_of_those_kinds_complete(
    ids: list[int], kinds: set[int], most: int
) -> None:
    """The bound "hand cards cannot complete this group" (a move must touch it), against adding every
    multiset of at most ``most`` cards of those kinds."""
    group = tuple(sorted(ids))
    if group and max(Counter(group).values()) > 2:
        return
    some = not group or _valid(group)
    for size in range(1, most + 1):
        some = some or any(
            _valid((*group, *extra)) for extra in combinations_with_replacement(sorted(kinds), size)
        )
    assert completes(group, mask_of(kinds), most) == some


def test_every_completion_holds_a_helpful_card() -> None:
    """What lets the search add only helpful cards: for every valid group and every part of it that
    is not valid, some card of the rest brings that part one closer to valid."""
    checked = 0
    for group in _valid_groups():
        for size in range(1, len(group)):
            for part in set(combinations(group, size)):
                if need(part) == 0:
                    continue
                rest = list((Counter(group) - Counter(part)).elements())
                assert set(rest) & helpful(part), (part, group)
                checked += 1
    assert checked > 1000


def _valid_groups() -> list[tuple[int, ...]]:
    """Runs of 3 to 6 cards from 2 to 9, N-of-a-kind of 3 to 6 cards of 5, with and without a joker."""
    groups = []
    joker = card_id(JOKER)
    for start in (2, 3):
        for length in range(3, 7):
            for red_first in (True, False):
                suits = ["HD" if red_first ^ (k % 2 == 1) else "SC" for k in range(length)]
                run = tuple(sorted(card_id(Card(start + k, suits[k][k % 2])) for k in range(length)))
                groups.append(run)
                for stand_in in range(length):
                    groups.append(tuple(sorted((*run[:stand_in], *run[stand_in + 1 :], joker))))
    fives = [card_id(Card(5, suit)) for suit in "SHDC"]
    for size in range(3, 7):
        for kind in set(combinations(sorted(fives * 2), size)):
            if _valid(kind):
                groups.append(kind)
                for stand_in in range(size):
                    with_joker = tuple(sorted((*kind[:stand_in], *kind[stand_in + 1 :], joker)))
                    if _valid(with_joker):
                        groups.append(with_joker)
    return groups


# -- what the hand could place at all: the filter and bounds taken from the unlimited question ---------


def _partitions(required: tuple[Card, ...], optional: tuple[Card, ...]) -> bool:
    """Can all of ``required`` and some of ``optional`` (both sorted) be cut into valid groups?

    Groups of 3 to 5 cards suffice: a longer run splits into two, a longer N-of-a-kind too."""
    return _cut(required, optional)


@cache
def _cut(required: tuple[Card, ...], optional: tuple[Card, ...]) -> bool:
    if not required:
        return True
    naturals = [card for card in required if not card.is_joker]
    first = naturals[0] if naturals else required[0]  # only jokers left: each needs optional cards
    others = list(required)
    others.remove(first)
    pool = [(card, True) for card in others] + [(card, False) for card in optional]
    near = [
        item for item in pool if first.is_joker or item[0].is_joker or abs(item[0].value - first.value) <= 4
    ]
    for size in (2, 3, 4):
        for chosen in combinations(range(len(near)), size):
            group = [first, *(near[at][0] for at in chosen)]
            if not _valid_cards(tuple(sorted(group))):
                continue
            rest_required, rest_optional = list(others), list(optional)
            for at in chosen:
                card, is_required = near[at]
                (rest_required if is_required else rest_optional).remove(card)
            if _cut(tuple(rest_required), tuple(rest_optional)):
                return True
    return False


def _fits_somewhere(card: Card, hand: list[Card], table: list[list[Card]]) -> bool:
    """Does some valid arrangement of the table's cards and some hand cards hold ``card``?"""
    rest = list(hand)
    rest.remove(card)
    required = tuple(sorted([card, *(c for group in table for c in group)]))
    return _partitions(required, tuple(sorted(rest)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_positions())
def test_the_hand_cards_kept_are_those_some_arrangement_holds(
    position: tuple[list[Card], list[list[Card]], bool, int],
) -> None:
    """A card dropped would never be placed: each is checked against a search over arrangements."""
    hand, table, _, _ = position
    reach = _reach(hand, table)
    kept = {CARD_OF[card] for card in reach.usable}
    for card in set(hand):
        assert (card in kept) == _fits_somewhere(card, hand, table), card
    assert Counter(CARD_OF[card] for card in reach.usable) == Counter(card for card in hand if card in kept)


def test_a_card_that_fits_only_with_other_hand_cards_is_kept() -> None:
    """4H 5S 6H fit nowhere alone, only as a new group together: a filter asking card by card would
    drop them, and lose the turn."""
    hand, table = cards("4H 5S 6H KD 9C"), table_of("KS KH KC", "2C 2D 2H")
    reach = _reach(hand, table)
    assert sorted(CARD_OF[card] for card in reach.usable) == sorted(cards("4H 5S 6H KD"))
    assert (reach.most, reach.most_points) == (4, 28)
    assert outcome(best_turn(hand, table, opened=True)) == (4, 28, 4)


def test_a_card_freed_only_by_a_move_is_kept() -> None:
    """8H fits nowhere as the table stands; 7S and 9C moved out of their sets of four make it a run."""
    hand, table = cards("8H"), table_of("7S 7H 7D 7C", "9S 9H 9D 9C")
    reach = _reach(hand, table)
    assert [CARD_OF[card] for card in reach.usable] == cards("8H")
    turn = best_turn(hand, table, opened=True)
    assert outcome(turn) == (1, 8, 3)
    assert turn is not None
    check_turn(hand, table, True, turn)


def test_no_round_with_moves_when_nothing_can_beat_the_best() -> None:
    """Counts first, then points; a cap on points only for a turn placing the most cards there are."""
    reach = _Reach(usable=[card_id(card) for card in cards("KS 9H 2C")], most=2, most_points=20)
    # Two cards at most, worth at most 20 together (not the 22 of the two best): nothing beats 20.
    assert not reach.could_beat((2, 20, 2), moves=1, budget=6)
    assert reach.could_beat((2, 19, 2), moves=1, budget=6)
    # One card placed so far: two cards in 3 plays (1 move) beat it however few points.
    assert reach.could_beat((1, 13, 1), moves=1, budget=6)
    # Fewer cards than the most: its cap does not apply, and KS 9H could be worth 22 (the three cards
    # the most placed could be 9H 3D 2C).
    wide = _Reach(usable=[card_id(card) for card in cards("KS 9H 3D 2C")], most=3, most_points=14)
    assert wide.could_beat((2, 21, 2), moves=4, budget=6)
    assert not wide.could_beat((2, 22, 2), moves=4, budget=6)
    # The same cards and points in more plays do not beat; in fewer they would.
    assert not wide.could_beat((2, 22, 6), moves=4, budget=6)
    assert not wide.could_beat((1, 13, 1), moves=5, budget=6)
    assert wide.could_beat((1, 12, 1), moves=5, budget=6)
    assert not wide.could_beat(None, moves=6, budget=6)


def test_a_better_turn_with_more_moves_after_a_tie_in_cards() -> None:
    """In 3 plays: 2H alone without moves, or KD with QS and JH moved out of sets of four, worth more.
    A round skipped because the cards placed tie would return the worse turn."""
    hand, table = cards("2H KD"), table_of("3S 4D 5C", "QS QH QD QC", "JS JH JD JC")
    turn = best_turn(hand, table, opened=True, max_plays=3)
    assert outcome(turn) == brute_force(hand, table, True, 3) == (1, 13, 3)
    assert turn is not None
    check_turn(hand, table, True, turn, max_plays=3)
    # With a fourth play both fit.
    assert outcome(best_turn(hand, table, opened=True, max_plays=4)) == (2, 15, 4)


def test_a_piece_with_moves_beside_one_without() -> None:
    """KD joins the kings; 2H needs AC and 3S moved out of sets of four. The piece with moves starts
    from 2H, the hand's last card: the hand card it lacks must be counted from the other piece."""
    hand, table = cards("KD 2H"), table_of("KS KH KC", "AS AH AD AC", "3S 3H 3D 3C")
    turn = best_turn(hand, table, opened=True, max_plays=4)
    assert outcome(turn) == (2, 15, 4)
    assert turn is not None
    check_turn(hand, table, True, turn, max_plays=4)


def test_two_pieces_with_moves() -> None:
    """8H needs 7S and 9C moved, 5D needs 4S and 6C moved: two pieces with two moves each, six plays."""
    hand = cards("8H 5D")
    table = table_of("7S 7H 7D 7C", "9S 9H 9D 9C", "4S 4H 4D 4C", "6S 6H 6D 6C")
    turn = best_turn(hand, table, opened=True)
    assert outcome(turn) == (2, 13, 6)
    assert turn is not None
    check_turn(hand, table, True, turn)


#: A 2-card hand on a table of 90 cards: the exact search visits some 40,000 states (seconds).
SLOW_HAND = "QD 7C"
SLOW_TABLE = (
    "4D 5C 6H 7S | 4D 5S 6H 7S 8D | 8S 9D 0C JH QS KD | AH 2C 3H 4C 5D 6S | 5D 6C 7H 8S 9H 0S"
    " | 9S 9C 9H 9D 9S 9C | 2D 3C 4H 5C 6D | 3H 4C 5H | KH KC KD | 0C JD QC | 3C 4H 5S 6D | 0S JH QS"
    " | 3D 4S 5H 6S 7D | AS AC AD AH | JC QH KC | 2C 2S 2D 2H | AD 2S 3D 4S | JS JC JD | 0H JS QD KS"
    " | 7C 7H 7D | AC 2H 3S | 8C 8H 8D"
)


def test_a_search_bounded_in_states_gives_the_best_turn_it_found_marked_not_exact() -> None:
    hand = cards(SLOW_HAND)
    table = [cards(group) for group in SLOW_TABLE.split(" | ")]
    bounded = best_turn(hand, table, True, most_visits=2_000)
    assert bounded is not None and not bounded.exact and bounded.plays
    check_turn(hand, table, True, bounded)  # a whole, legal turn
    assert best_turn(hand, table, True, most_visits=2_000) == bounded  # a count, not a clock: the same
    # 5H needs moves (3H and 4S join it); with no state visited none is found: no plays, not exact.
    nothing = best_turn(cards("5H"), table_of("3H 4S 5H 6S 7H 8S"), True, most_visits=0)
    assert nothing is not None and not nothing.exact and nothing.plays == () and nothing.placed == ()
    small = best_turn(cards("7H 2H"), table_of("3H 4S 5H 6S"), True, most_visits=2_000)
    assert small is not None and small.exact  # a search within the bound is exact, as without one


def test_a_hand_of_sixty_cards_bounded_in_sets_gives_a_whole_turn_of_its_best_cards() -> None:
    """A player who draws turn after turn reaches some 60 cards; its hint weighed hundreds of
    thousands of sets of them, seconds of the server's one hint thread (a security review)."""
    rng = random.Random(5)
    deck = [card for card in CARDS for _ in range(COPIES)]
    rng.shuffle(deck)
    hand, table = deck[:60], [cards("3H 4S 5H"), cards("7C 7H 7D"), cards("JS QH KS")]
    bounded = best_turn(hand, table, True, most_sets=20_000)
    assert bounded is not None and not bounded.exact and len(bounded.placed) == 6
    check_turn(hand, table, True, bounded)
    assert best_turn(hand, table, True, most_sets=20_000) == bounded  # a count: the same each time
    # The cards are weighed highest first, so a search cut short has weighed the high ones: the
    # best turn (the full search's) places six of the seven kings, 78 points, and so does this one.
    assert bounded.points == 78, bounded
    unopened = best_turn(hand, table, False, most_sets=20_000)
    assert unopened is not None and len(unopened.placed) == 6 and not unopened.exact
    assert all(play.source is None for play in unopened.plays)  # an opening from the hand alone
