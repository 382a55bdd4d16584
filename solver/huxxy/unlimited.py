"""huxxy's unlimited question: what can a hand place if the whole table may be rearranged at will?

Every table card must stay on the table; hand cards are optional. The answer
places the most hand cards, then the most points (a joker 48), and shows one
valid partition of the table's cards and the placed ones.

Method: a dynamic programme over the values A..K, after van Rijn, Takes & Vis
(2015), adapted to huxxy. Runs alternate colour, so a run still open after a
value is described by the colour of its last card, its length so far (1, 2,
3 or more) and whether it holds a joker; the state between two values is how
many open runs there are of each of these 12 kinds, and how many jokers are
used. At each value the cards (table ones all, hand ones as chosen) go either
to N-of-a-kind groups closed at that value or to runs: a red card extends a
run ending in black or starts one. A run of 1 or 2 cards not extended is dead.
Runs longer than 2 behave alike from then on, which is why three length
classes suffice; once every joker is used, whether a run holds one no longer
matters and the flag is dropped.

Pruning, all of it exact:

* at one value, of the ways to use the cards that leave the same colour counts
  to the runs, only one using the most hand cards is kept (the N-of-a-kind
  closed there do not matter later, and the hand cards of one value are worth
  the same);
* a state is dropped when another with as many jokers used and at least its
  score has runs matching its own one to one, each as long or longer and
  holding no more jokers (whatever the future does with the weaker runs, it
  can do with the stronger ones). The test is Hall's condition over the
  kinds' up-sets, packed into one integer so that one subtraction checks it.

The steps from a state past one value depend on the state and that value's
card counts, never on the rest of the hand, so they are kept between calls
(:func:`clear_caches` empties them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from itertools import product

import attrs

from games.huxxy import COPIES, JOKER, SUITS, Card, score, valid_group

#: The most jokers a game holds (variant huxxy-jokers); the tables below are sized for them.
MOST_JOKERS = 2
#: Suits by colour, as indices into SUITS ("SHDC"): spades and clubs black, hearts and diamonds red.
BLACK_SUITS = (SUITS.index("S"), SUITS.index("C"))
RED_SUITS = (SUITS.index("H"), SUITS.index("D"))
KINGS = 13

# An open run's kind within one colour, index (length - 1) * 2 + holds_joker, for length 1, 2 or 3+.
KINDS = tuple((length, joker) for length in (1, 2, 3) for joker in (0, 1))
KIND_INDEX = {kind: index for index, kind in enumerate(KINDS)}

# One colour's open runs, packed: 3 bits of count per kind (at most 4 natural cards and 2 jokers
# of a colour at a value, so at most 6 runs). A state: black runs, then red runs above HALF_BITS.
# A frontier key: a state and, above STATE_BITS, the jokers used so far.
KIND_BITS = 3
HALF_BITS = KIND_BITS * len(KINDS)
HALF_MASK = (1 << HALF_BITS) - 1
STATE_BITS = 2 * HALF_BITS
STATE_MASK = (1 << STATE_BITS) - 1
SHORT_MASK = sum(7 << (KIND_BITS * i) for i, (length, _) in enumerate(KINDS) if length < 3)
#: A state is a finished table when neither colour has a run of 1 or 2 cards open.
UNFINISHED = SHORT_MASK | SHORT_MASK << HALF_BITS

Suits4 = tuple[int, int, int, int]
#: Per previous kind: how many runs a natural card extends and how many a joker extends (the rest end).
HalfDetail = tuple[tuple[int, int], ...]
#: How one value was used: cards used and cards in N-of-a-kind per suit; jokers in N-of-a-kind, in
#: red runs and in black runs; how the red and the black cards met the open runs; flags dropped.
Witness = tuple[Suits4, Suits4, int, int, int, HalfDetail, HalfDetail, bool]
Step = tuple[int, int, int, Witness]  # next state, hand cards used, jokers used, witness


@attrs.frozen
class Placement:
    """The answer: the hand cards placed, their points (a joker 48) and one valid table holding them."""

    placed: tuple[Card, ...]
    points: int
    groups: tuple[tuple[Card, ...], ...]


def most_placed(hand: Sequence[Card], table: Sequence[Sequence[Card]]) -> Placement:
    """The most hand cards (then points) that fit if all of ``table`` is rearranged freely.

    Raises ``ValueError`` when the cards cannot be real (more than two copies of a card or more
    than two jokers) or when the table's own cards form no valid groups.
    """
    table_counts = [[0] * 4 for _ in range(KINGS + 1)]
    hand_counts = [[0] * 4 for _ in range(KINGS + 1)]
    table_jokers = hand_jokers = 0
    for card in (card for group in table for card in group):
        if card.is_joker:
            table_jokers += 1
        else:
            table_counts[card.value][SUITS.index(card.suit)] += 1
    for card in hand:
        if card.is_joker:
            hand_jokers += 1
        else:
            hand_counts[card.value][SUITS.index(card.suit)] += 1
    jokers = table_jokers + hand_jokers
    if jokers > MOST_JOKERS:
        raise ValueError(f"{jokers} jokers: a game holds at most {MOST_JOKERS}")
    keys = [0] * (KINGS + 1)
    for value in range(1, KINGS + 1):
        key = 0
        for suit in range(4):
            held, spare = table_counts[value][suit], hand_counts[value][suit]
            if held + spare > COPIES:
                raise ValueError(f"more than {COPIES} copies of {Card(value, SUITS[suit])}")
            key = key * 6 + _PAIR_CODE[held, spare]
        keys[value] = key

    # Weight per placed card: above any difference in points, so cards come first, then points.
    per_card = 49 * (len(hand) + 1)
    frontier: dict[int, int] = {0: 0}  # (state, jokers used) -> best score so far
    history: list[dict[int, tuple[int, Witness]]] = []
    for value in range(1, KINGS + 1):
        key, gain_per_card = keys[value], per_card + value
        following: dict[int, int] = {}
        back: dict[int, tuple[int, Witness]] = {}
        for origin, total in frontier.items():
            used = origin >> STATE_BITS
            for after, cards, more_jokers, witness in _steps(origin & STATE_MASK, key, jokers - used):
                target = after | (used + more_jokers) << STATE_BITS
                reached = total + cards * gain_per_card
                if following.get(target, -1) < reached:
                    following[target] = reached
                    back[target] = (origin, witness)
        frontier = _prune(following) if len(following) > 4 else following
        history.append(back)

    best: tuple[int, int] | None = None
    for at, total in frontier.items():
        used = at >> STATE_BITS
        if used < table_jokers or at & UNFINISHED:
            continue
        total += (used - table_jokers) * (per_card + JOKER.points)
        if best is None or total > best[0]:
            best = (total, at)
    if best is None:
        raise ValueError("the table's cards form no valid groups")

    witnesses: list[Witness] = []
    at = best[1]
    for back in reversed(history):
        at, witness = back[at]
        witnesses.append(witness)
    witnesses.reverse()
    placed, groups = _rebuild(witnesses, table_counts)
    placed.extend([JOKER] * ((best[1] >> STATE_BITS) - table_jokers))
    return Placement(tuple(placed), score(placed), tuple(groups))


def clear_caches() -> None:
    """Forget the tables kept between calls (for timing the solver cold).

    The fixed tables built at import (one colour's run shapes) and the 243 ways to split a
    value's N-of-a-kind cards stay.
    """
    _STEPS.clear()
    _SHAPES.clear()
    _options.cache_clear()
    _half.cache_clear()


# --------------------------------------------------------------------------- dominance


def _up_sets() -> list[tuple[int, ...]]:
    """The kinds' up-closed sets but the empty and the full one: a kind is above another when its run
    is at least as long and holds no more jokers."""
    above = [
        {j for j, (length, joker) in enumerate(KINDS) if length >= KINDS[i][0] and joker <= KINDS[i][1]}
        for i in range(len(KINDS))
    ]
    sets = []
    for mask in range(1, (1 << len(KINDS)) - 1):
        members = {i for i in range(len(KINDS)) if mask >> i & 1}
        if all(above[i] <= members for i in members):
            sets.append(tuple(sorted(members)))
    return sets


_UP_SETS = _up_sets()
# A profile: per up-set, the runs of one colour in it, in a field of FIELD_BITS whose top bit is a
# guard; one colour's fields, then the other's. With equal totals per colour, runs A dominate runs
# B exactly when every field of A is at least B's: ((A | GUARDS) - B) & GUARDS == GUARDS.
FIELD_BITS = 5
PROFILE_BITS = FIELD_BITS * len(_UP_SETS)
GUARDS = sum(1 << (FIELD_BITS * i + FIELD_BITS - 1) for i in range(2 * len(_UP_SETS)))


def _counts(half: int) -> list[int]:
    return [half >> (KIND_BITS * i) & 7 for i in range(len(KINDS))]


def _packed(counts: Sequence[int]) -> int:
    return sum(count << (KIND_BITS * i) for i, count in enumerate(counts))


def _halves() -> Iterator[int]:
    """Every way one colour's open runs can be: at most 6 runs (4 natural cards and 2 jokers)."""
    for counts in product(range(MOST_RUNS + 1), repeat=len(KINDS)):
        if sum(counts) <= MOST_RUNS:
            yield _packed(counts)


MOST_RUNS = 4 + MOST_JOKERS
# Per possible half: (its runs, their profile), fixed tables built once at import.
_HALF_SHAPES = {
    half: (
        sum(_counts(half)),
        sum(sum(_counts(half)[i] for i in up) << (FIELD_BITS * f) for f, up in enumerate(_UP_SETS)),
    )
    for half in _halves()
}
_SHAPES: dict[int, tuple[int, int]] = {}


def _shape(state: int) -> tuple[int, int]:
    """(what must be equal to compare: totals per colour and the bits above the state, profile)."""
    found = _SHAPES.get(state)
    if found is None:
        black_total, black_profile = _HALF_SHAPES[state & HALF_MASK]
        red_total, red_profile = _HALF_SHAPES[state >> HALF_BITS & HALF_MASK]
        bucket = black_total | red_total << 4 | (state >> STATE_BITS) << 8
        found = _SHAPES[state] = (bucket, black_profile | red_profile << PROFILE_BITS)
    return found


def _prune(scores: dict[int, int]) -> dict[int, int]:
    """The states (with jokers used above STATE_BITS) that no other dominates with at least their score."""
    buckets: dict[int, list[tuple[int, int, int]]] = {}
    for state, total in scores.items():
        bucket, profile = _shape(state)
        buckets.setdefault(bucket, []).append((total, profile, state))
    kept: dict[int, int] = {}
    for members in buckets.values():
        members.sort(reverse=True)
        strong: list[int] = []
        for total, profile, state in members:
            for other in strong:
                if ((other | GUARDS) - profile) & GUARDS == GUARDS:
                    break
            else:
                strong.append(profile)
                kept[state] = total
    return kept


# --------------------------------------------------------------------------- one value


# Per suit at one value, (table copies, hand copies) -> a digit 0..5 of a value's key.
_PAIR_CODE = {
    (held, spare): code
    for code, (held, spare) in enumerate(
        (held, spare) for held in range(COPIES + 1) for spare in range(COPIES + 1 - held)
    )
}
_PAIRS = {code: pair for pair, code in _PAIR_CODE.items()}
_STEPS: dict[tuple[int, int, int], list[Step]] = {}
#: Entries kept before the table starts over. Each holds about 1 KB, and any client fills it
#: through hints and bots' turns: at 500,000 it could take 360-620 MB of a server. 400 bench
#: positions fill 40,000, and a table this size times them no slower than one ten times bigger.
STEPS_LIMIT = 50_000


def _steps(state: int, key: int, jokers_left: int) -> list[Step]:
    """The undominated ways past one value from ``state``, given that value's card counts ``key``."""
    memo = (state, key, jokers_left)
    found = _STEPS.get(memo)
    if found is None:
        if len(_STEPS) >= STEPS_LIMIT:
            _STEPS.clear()
        found = _STEPS[memo] = _compute_steps(state, key, jokers_left)
    return found


def _compute_steps(state: int, key: int, jokers_left: int) -> list[Step]:
    blacks, reds = state & HALF_MASK, state >> HALF_BITS
    best: dict[int, tuple[int, Witness]] = {}  # next state, jokers used above STATE_BITS
    for (red, black, set_jokers), (cards, used, in_sets) in _options(key).items():
        if set_jokers > jokers_left:
            continue
        for red_jokers in range(jokers_left - set_jokers + 1):
            red_ways = _half(blacks, red, red_jokers)
            for black_jokers in range(jokers_left - set_jokers - red_jokers + 1):
                jokers = set_jokers + red_jokers + black_jokers
                unflag = jokers == jokers_left
                for new_blacks, black_detail in _half(reds, black, black_jokers):
                    for new_reds, red_detail in red_ways:
                        after = new_blacks | new_reds << HALF_BITS
                        if unflag:
                            after = _UNFLAGGED[new_blacks] | _UNFLAGGED[new_reds] << HALF_BITS
                        target = after | jokers << STATE_BITS
                        if best.get(target, (-1,))[0] < cards:
                            best[target] = (
                                cards,
                                (
                                    used,
                                    in_sets,
                                    set_jokers,
                                    red_jokers,
                                    black_jokers,
                                    red_detail,
                                    black_detail,
                                    unflag,
                                ),
                            )
    kept = _prune({target: cards for target, (cards, _) in best.items()}) if len(best) > 1 else best
    return [(target & STATE_MASK, best[target][0], target >> STATE_BITS, best[target][1]) for target in kept]


@cache
def _options(key: int) -> dict[tuple[int, int, int], tuple[int, Suits4, Suits4]]:
    """(red run cards, black run cards, jokers in N-of-a-kind) -> the most hand cards usable, and how."""
    pairs = []
    for _ in range(4):
        pairs.append(_PAIRS[key % 6])
        key //= 6
    pairs.reverse()
    choices = [
        [(used, in_sets) for used in range(held, held + spare + 1) for in_sets in range(used + 1)]
        for held, spare in pairs
    ]
    options: dict[tuple[int, int, int], tuple[int, Suits4, Suits4]] = {}
    for picks in product(*choices):
        used = (picks[0][0], picks[1][0], picks[2][0], picks[3][0])
        in_sets = (picks[0][1], picks[1][1], picks[2][1], picks[3][1])
        cards = sum(used) - sum(held for held, _ in pairs)
        red = sum(used[s] - in_sets[s] for s in RED_SUITS)
        black = sum(used[s] - in_sets[s] for s in BLACK_SUITS)
        for set_jokers in range(MOST_JOKERS + 1):
            if _set_partition(in_sets, set_jokers) is None:
                continue
            option = (red, black, set_jokers)
            if options.get(option, (-1,))[0] < cards:
                options[option] = (cards, used, in_sets)
    return options


@cache
def _half(previous: int, naturals: int, jokers: int) -> tuple[tuple[int, HalfDetail], ...]:
    """The undominated ways for one colour's cards at a value to meet the other colour's open runs.

    Each run of 1 or 2 cards must take a card; a longer one may take one or end; a joker never
    joins a run holding one; cards left over start runs.
    """
    # Per kind: (runs a natural extends, runs a joker extends, what that adds to the packed result).
    per_kind = []
    for (length, joker), count in zip(KINDS, _counts(previous), strict=True):
        by_card = KIND_BITS * KIND_INDEX[min(length + 1, 3), joker]
        by_joker = KIND_BITS * KIND_INDEX[min(length + 1, 3), 1]
        per_kind.append(
            [
                (natural, wild, (natural << by_card) + (wild << by_joker))
                for natural in range(count + 1)
                for wild in range(1 if joker else count - natural + 1)
                if length == 3 or natural + wild == count
            ]
        )
    new_natural, new_joker = KIND_BITS * KIND_INDEX[1, 0], KIND_BITS * KIND_INDEX[1, 1]
    found: dict[int, HalfDetail] = {}
    for detail in product(*per_kind):
        spare_naturals, spare_jokers, after = naturals, jokers, 0
        for natural, wild, adds in detail:
            spare_naturals -= natural
            spare_jokers -= wild
            after += adds
        if spare_naturals >= 0 and spare_jokers >= 0:
            after += (spare_naturals << new_natural) + (spare_jokers << new_joker)
            if after not in found:
                found[after] = tuple((natural, wild) for natural, wild, _ in detail)
    guards = GUARDS & ((1 << PROFILE_BITS) - 1)
    profiles = {half: _HALF_SHAPES[half][1] for half in found}
    return tuple(
        (half, detail)
        for half, detail in found.items()
        if not any(
            other != half and ((profiles[other] | guards) - profiles[half]) & guards == guards
            for other in found
        )
    )


def _unflagged(half: int) -> int:
    """The same runs with their joker flags dropped: once every joker is used, no run can take one."""
    merged = [0] * len(KINDS)
    for (length, _), count in zip(KINDS, _counts(half), strict=True):
        merged[KIND_INDEX[length, 0]] += count
    return _packed(merged)


_UNFLAGGED = {half: _unflagged(half) for half in _HALF_SHAPES}


# --------------------------------------------------------------------------- N-of-a-kind at one value


@cache
def _valid_set(counts: Suits4, joker: int) -> bool:
    cards = [Card(1, SUITS[suit]) for suit in range(4) for _ in range(counts[suit])]
    return valid_group([*cards, *[JOKER] * joker])


@cache
def _set_partition(counts: Suits4, jokers: int) -> tuple[tuple[Suits4, int], ...] | None:
    """Valid N-of-a-kind groups (suit counts, joker or not) using exactly these cards, or None."""
    first = next((suit for suit in range(4) if counts[suit]), None)
    if first is None:
        return () if jokers == 0 else None  # a joker alone is no group
    for part in product(*(range(counts[suit] + 1) for suit in range(4))):
        if not part[first]:
            continue
        group = (part[0], part[1], part[2], part[3])
        rest = (counts[0] - part[0], counts[1] - part[1], counts[2] - part[2], counts[3] - part[3])
        for joker in range(min(jokers, 1) + 1):
            if _valid_set(group, joker):
                others = _set_partition(rest, jokers - joker)
                if others is not None:
                    return ((group, joker), *others)
    return None


# --------------------------------------------------------------------------- the groups


def _rebuild(
    witnesses: Sequence[Witness], table_counts: Sequence[Sequence[int]]
) -> tuple[list[Card], list[tuple[Card, ...]]]:
    """The hand's natural cards placed and the groups, replayed from each value's witness."""
    placed: list[Card] = []
    groups: list[tuple[Card, ...]] = []
    runs: list[list[list[Card]]] = [[] for _ in range(2 * len(KINDS))]  # open runs: black kinds, red kinds
    for value, witness in enumerate(witnesses, start=1):
        used, in_sets, set_jokers, red_jokers, black_jokers, red_detail, black_detail, unflag = witness
        for suit in range(4):
            placed.extend([Card(value, SUITS[suit])] * (used[suit] - table_counts[value][suit]))
        partition = _set_partition(in_sets, set_jokers)
        assert partition is not None
        for counts, joker in partition:
            groups.append(
                (*(Card(value, SUITS[s]) for s in range(4) for _ in range(counts[s])), *[JOKER] * joker)
            )
        reds = [Card(value, SUITS[s]) for s in RED_SUITS for _ in range(used[s] - in_sets[s])]
        blacks = [Card(value, SUITS[s]) for s in BLACK_SUITS for _ in range(used[s] - in_sets[s])]
        new_reds = _meet(runs[: len(KINDS)], reds, red_jokers, red_detail, groups)
        new_blacks = _meet(runs[len(KINDS) :], blacks, black_jokers, black_detail, groups)
        runs = new_blacks + new_reds
        if unflag:
            for colour in (0, len(KINDS)):
                for length in (1, 2, 3):
                    runs[colour + KIND_INDEX[length, 0]] += runs[colour + KIND_INDEX[length, 1]]
                    runs[colour + KIND_INDEX[length, 1]] = []
    groups.extend(tuple(run) for kind in runs for run in kind)
    return placed, groups


def _meet(
    previous: list[list[list[Card]]],
    naturals: list[Card],
    jokers: int,
    detail: HalfDetail,
    groups: list[tuple[Card, ...]],
) -> list[list[list[Card]]]:
    """Replay one colour's cards at a value against the open runs; ended runs go to ``groups``."""
    after: list[list[list[Card]]] = [[] for _ in range(len(KINDS))]
    cards: Iterator[Card] = iter(naturals)
    for (length, joker), open_runs, (by_natural, by_joker) in zip(KINDS, previous, detail, strict=True):
        longer = min(length + 1, 3)
        for run in open_runs[:by_natural]:
            after[KIND_INDEX[longer, joker]].append([*run, next(cards)])
        for run in open_runs[by_natural : by_natural + by_joker]:
            after[KIND_INDEX[longer, 1]].append([*run, JOKER])
        groups.extend(tuple(run) for run in open_runs[by_natural + by_joker :])
    after[KIND_INDEX[1, 0]].extend([card] for card in cards)
    after[KIND_INDEX[1, 1]].extend([JOKER] for _ in range(jokers - sum(j for _, j in detail)))
    return after
