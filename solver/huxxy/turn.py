"""huxxy's 6-play question: the best table turn of at most ``max_plays`` plays, exactly.

A turn is fixed by where each card it touches ends up, and its plays commute
(only the first must come from the hand), so no card needs to move twice. The
plays fall into independent pieces (:mod:`._pieces`): groups linked by moved
cards, with the hand cards added to them. The search finds every piece that
could belong to a best turn, first those without moves (the hand cards added to
one group, or a new group of hand cards), then, once opened, those with one
move, two, and so on, while a turn placing as many hand cards as the best so far
could afford that many moves; each round searches only pieces that could be
part of a better turn. The best turn is the best set of pieces sharing no group
and no hand card, within the play budget: a branch and bound over the pieces,
bounded by a knapsack that ignores what the pieces share.

Before the rounds with moves, the unlimited question (:mod:`.unlimited`, the
whole table free to rearrange: a relaxation of every turn) tells which hand
cards could ever be placed, how many at most, and for how many points: the
search with moves drops the others, and a round that cannot beat the best turn
known is not run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import partial

import attrs

from games.huxxy import Card, score
from games.huxxy._plays import Play
from games.huxxy.engine import MAX_PLAYS as MOST_PLAYS
from games.huxxy.engine import OPENING_POINTS

from ._need import CARD_OF, JOKER_ID, card_id
from ._pieces import FROM_HAND, POINTS, Explorer, Piece, SearchCut, hand_pieces
from .unlimited import most_placed

# A turn's worth as one number, so that pieces add up: hand cards placed first, then their
# points (at most 6 * 48 < 1000), then fewer plays (at most a few dozen).
_PER_CARD = 100_000
_PER_POINT = 100


@attrs.frozen
class Turn:
    """The plays to make, in order (the first from the hand), and what they come to."""

    plays: tuple[Play, ...]
    placed: tuple[Card, ...]
    points: int
    table: tuple[tuple[Card, ...], ...]
    #: False when the search stopped at a bound (``most_visits``, ``most_sets``): the best turn found.
    exact: bool = True


def best_turn(
    hand: Sequence[Card],
    table: Sequence[Sequence[Card]],
    opened: bool,
    max_plays: int = MOST_PLAYS,
    most_visits: int | None = None,
    most_sets: int | None = None,
) -> Turn | None:
    """The table turn that places the most hand cards, then the most points of them (a joker 48),
    then makes the fewest plays; ``None`` when there is none and the player must draw.

    Before opening only hand cards are played, totalling at least 24 opening points (a joker 0).
    The same question always gets the same turn. ``most_visits`` bounds the search for turns with
    moves (a few seconds for a small hand on a big table are rare, but a hint must not take them):
    past it, the best turn found so far, marked not :attr:`Turn.exact` (with no plays if it found
    none); a count, not a clock, so the answer is still always the same. ``most_sets`` bounds the
    same way the turns without moves weighed (sets of hand cards, and sets of those turns' parts):
    a hand of 60 cards, drawn for turn after turn, has hundreds of thousands of them."""
    budget = max(0, max_plays)
    hand_ids = [card_id(card) for card in hand]
    table_ids = [[card_id(card) for card in group] for group in table]
    if not budget or not hand_ids:
        return None
    pieces, exact = hand_pieces(hand_ids, table_ids, budget, most_sets)
    chosen, packed = _pack(pieces, hand_ids, budget, opened, most_sets)
    exact = exact and packed
    moveless_most = sum(len(piece.hand) for piece in chosen)
    if opened and exact:
        # Pieces with moves: those with one move, then two, and so on (each round is cheaper than the
        # next, and a better turn found tightens the bounds), while a turn placing as many hand
        # cards as the best so far could afford the moves.
        explorer: Explorer | None = None
        reach: _Reach | None = None
        known: list[Piece] = []  # the pieces found before a round: a piece found joins them
        move_limit = 1
        while exact:
            placed = sum(len(piece.hand) for piece in chosen)
            most_moves = budget - max(placed, 1)
            if move_limit > most_moves or placed >= len(hand_ids):
                break
            best = (
                (placed, sum(p.points for p in chosen), sum(len(p.plays) for p in chosen)) if chosen else None
            )
            if reach is None:
                reach = _reach(hand, table)
            if not reach.could_beat(best, move_limit, budget):
                break
            if explorer is None:
                explorer = Explorer(
                    reach.usable,
                    table_ids,
                    budget,
                    partial(_best_with, others=known, hand=hand_ids, budget=budget),
                    reach.most,
                    reach.most_points,
                    moveless_most,
                    most_visits,
                )
            known[:] = [*pieces, *explorer.pieces.values()]
            try:
                explorer.explore(move_limit, best)
            except SearchCut:  # each piece found is whole: the best turn of those stands
                exact = False
            chosen, packed = _pack(
                pieces + list(explorer.pieces.values()), hand_ids, budget, opened, most_sets
            )
            exact = exact and packed
            move_limit += 1
    if not exact:  # the best found within the bounds (no plays if none was: there may be one)
        return attrs.evolve(_turn(chosen, table_ids), exact=False)
    return _turn(chosen, table_ids) if chosen else None


@attrs.frozen
class _Reach:
    """What the hand could place at all, with the whole table free to rearrange (a relaxation of any
    turn: its final table is a valid arrangement of the table's cards and the placed ones)."""

    usable: list[int]  # the hand cards that fit in some such arrangement; no turn places the others
    most: int  # the most hand cards any arrangement places
    most_points: int  # and the most points (a joker 48) when it places that many

    def could_beat(self, best: tuple[int, int, int] | None, moves: int, budget: int) -> bool:
        """Could a turn with at least ``moves`` moves beat ``best`` (hand cards, points, plays)?"""
        count = min(budget - moves, self.most, len(self.usable))
        if count <= 0:
            return False
        if best is None:
            return True
        points = sum(sorted((POINTS[card] for card in self.usable), reverse=True)[:count])
        if count == self.most:
            points = min(points, self.most_points)
        return (count, points, -(count + moves)) > (best[0], best[1], -best[2])


def _reach(hand: Sequence[Card], table: Sequence[Sequence[Card]]) -> _Reach:
    """The hand cards some valid arrangement of the table and hand cards holds (the cards one best
    arrangement places, then each other card tried alone as a table card: a card the arrangement
    must hold)."""
    widest = most_placed(hand, table)
    fits = Counter(widest.placed)
    for card in sorted(set(hand)):
        if fits[card]:
            continue
        rest = list(hand)
        rest.remove(card)
        try:
            forced = most_placed(rest, [*table, [card]])
        except ValueError:  # no arrangement holds it
            continue
        fits[card] += 1
        for other in forced.placed:
            if fits[other] < hand.count(other):
                fits[other] += 1
    usable = [card_id(card) for card in hand if fits[card]]
    return _Reach(usable, len(widest.placed), widest.points)


def _best_with(piece: Piece, others: list[Piece], hand: list[int], budget: int) -> tuple[int, int, int]:
    """(hand cards, points, plays) of the best turn made of ``piece`` and pieces from ``others``:
    a turn that exists, so a bound the search may prune against at once."""
    left = list(hand)
    for card in piece.hand:
        left.remove(card)
    fitting = [other for other in others if not other.groups & piece.groups]
    chosen = [piece, *_pack(fitting, left, budget - len(piece.plays), True)[0]] if fitting else [piece]
    return (
        sum(len(p.hand) for p in chosen),
        sum(p.points for p in chosen),
        sum(len(p.plays) for p in chosen),
    )


def _worth(piece: Piece) -> int:
    return len(piece.hand) * _PER_CARD + piece.points * _PER_POINT - len(piece.plays)


def _pack(
    pieces: list[Piece], hand: list[int], budget: int, opened: bool, most_sets: int | None = None
) -> tuple[list[Piece], bool]:
    """The best set of pieces sharing no table group and no hand card, within ``budget`` plays
    (and, before opening, worth the opening's points), empty if no set is a turn; and whether it is
    the best. ``most_sets`` bounds the sets weighed: past it, the best found so far (the most
    valuable pieces are tried first)."""
    order = sorted(pieces, key=lambda piece: (-_worth(piece), piece.groups, piece.hand, piece.plays))
    worths = [_worth(piece) for piece in order]
    costs = [len(piece.plays) for piece in order]
    # most[i][b]: the most pieces i.. can be worth in b plays, shares ignored (an upper bound);
    # opening[i][b] the same for opening points.
    most = [[0] * (budget + 1) for _ in range(len(order) + 1)]
    opening = [[0] * (budget + 1) for _ in range(len(order) + 1)]
    for index in range(len(order) - 1, -1, -1):
        after, here = most[index + 1], most[index]
        after_opening, here_opening = opening[index + 1], opening[index]
        cost, worth, points = costs[index], worths[index], order[index].opening
        for plays in range(budget + 1):
            here[plays] = after[plays]
            here_opening[plays] = after_opening[plays]
            if cost <= plays:
                here[plays] = max(here[plays], worth + after[plays - cost])
                here_opening[plays] = max(here_opening[plays], points + after_opening[plays - cost])
    held = [0] * (JOKER_ID + 1)
    for card in hand:
        held[card] += 1
    uses = [_counts(piece.hand) for piece in order]
    best: list[Piece] = []
    best_worth = 0
    chosen: list[Piece] = []
    visits_left = -1 if most_sets is None else most_sets

    def extend(start: int, left: int, groups: int, worth: int, points: int) -> None:
        nonlocal best, best_worth, visits_left
        if chosen and worth > best_worth and (opened or points >= OPENING_POINTS):
            best, best_worth = list(chosen), worth
        if visits_left == 0:
            raise SearchCut
        visits_left -= 1
        for index in range(start, len(order)):
            if worth + most[index][left] <= best_worth:
                return
            if not opened and points + opening[index][left] < OPENING_POINTS:
                return
            piece = order[index]
            if costs[index] > left or piece.groups & groups:
                continue
            use = uses[index]
            if any(held[card] < count for card, count in use):
                continue
            for card, count in use:
                held[card] -= count
            chosen.append(piece)
            extend(
                index + 1,
                left - costs[index],
                groups | piece.groups,
                worth + worths[index],
                points + piece.opening,
            )
            chosen.pop()
            for card, count in use:
                held[card] += count

    try:
        extend(0, budget, 0, 0, 0)
    except SearchCut:
        return best, False
    return best, True


def _counts(cards: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((card, cards.count(card)) for card in sorted(set(cards)))


def _turn(chosen: list[Piece], table: list[list[int]]) -> Turn:
    """The pieces as one turn: their plays one after another, new groups renumbered in turn order."""
    originals = len(table)
    groups: list[tuple[int, ...]] = [tuple(group) for group in table]
    plays: list[Play] = []
    placed: list[Card] = []
    for piece in chosen:
        base = len(groups) - originals  # new groups the pieces before this one made

        def number(group: int, base: int = base) -> int:
            return group if group < originals else group + base

        made: set[int] = set()
        for card, source, target in piece.plays:
            at = number(target)
            is_new = target >= originals and target not in made
            made.add(target)
            plays.append(
                Play(CARD_OF[card], None if source == FROM_HAND else number(source), None if is_new else at)
            )
            if source == FROM_HAND:
                placed.append(CARD_OF[card])
        for group, cards in piece.finals:
            groups[group] = cards
        groups.extend(piece.made)
    return Turn(
        plays=tuple(plays),
        placed=tuple(placed),
        points=score(placed),
        table=tuple(tuple(sorted(CARD_OF[card] for card in group)) for group in groups if group),
    )
