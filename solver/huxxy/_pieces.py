"""The pieces a huxxy table turn is made of, found by a depth-first search over plays.

A turn's plays link groups: a card moved from one group to another joins them.
The linked parts (pieces) are independent: each alone, on the table as it was,
leaves valid groups, so the best turn is the best set of pieces that share no
group and no hand card (:mod:`.turn` packs them). A piece without moves is one
group and the hand cards added to it (or a new group of hand cards).

The search builds each piece in one order of its plays, states shared:

* the first play is a hand card, anywhere: the piece's first in hand order
  (most points first), and the piece adds no earlier one;
* while the table is valid, the next play touches a group the piece has
  touched (a hand card added, a card moved in or out): a piece is linked, so
  some play of it still to come touches what it has touched;
* while a group is invalid, the next play touches it: a card that brings it
  one closer to valid (:func:`._need.helpful`, from the hand or another group)
  or one of its own cards sent anywhere.

Some remaining play of every needed piece is always among these, so nothing is
missed. Plays that only undo each other are skipped (a card put back where its
twin left, a twin moved out where a card arrived, a group that took cards
emptied of its own). The bounds cut the rest: the plays the invalid groups still
need at least (:func:`._need.repair`, :func:`._need.helpful`), within the play
budget and the moves allowed, and whether the hand cards left could still make
a turn better than the best known: round m wants pieces of exactly m moves; a
piece adds only hand cards after its first, the others coming from pieces
without moves (as many as those place at best) or from a piece with a move of
its own; and each piece found updates the best known at once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import attrs

from ._need import (
    CARD_OF,
    JOKER_ID,
    cards_in,
    completes,
    helpful_mask,
    mask_of,
    need,
    repair,
    with_card,
    without_card,
)

#: A play inside a piece: (card, source group or -1 for the hand, target group). Groups are
#: numbered as on the table, new ones from the table's length on, in the order they are made.
PiecePlay = tuple[int, int, int]

#: Per card number: what it counts placed (a joker 48), and towards an opening (a joker 0).
POINTS: tuple[int, ...] = tuple(card.points for card in CARD_OF)
_POINTS = POINTS
_OPENING: tuple[int, ...] = tuple(0 if card.is_joker else card.points for card in CARD_OF)
FROM_HAND = -1


@attrs.frozen(slots=True)
class Piece:
    """One linked part of a turn: the table groups it touches, the hand cards it places, its plays,
    and the groups it leaves (its table groups as they end, then its new groups)."""

    groups: int  # a bit per table group touched
    hand: tuple[int, ...]
    plays: tuple[PiecePlay, ...]
    finals: tuple[tuple[int, tuple[int, ...]], ...]
    made: tuple[tuple[int, ...], ...]
    points: int
    opening: int
    moves: int


def hand_pieces(
    hand: list[int], table: list[list[int]], budget: int, most_sets: int | None = None
) -> tuple[list[Piece], bool]:
    """Every piece without moves: hand cards added to one table group, or a new group of hand cards;
    and whether that is every one.

    Cards are added in increasing order (so each set of cards once); a set is dropped as soon as
    no card can make it valid, or more are needed than the budget or the hand has left.
    ``most_sets`` bounds the sets weighed, shared out evenly between the groups and a new one
    (a hand of 60 cards has hundreds of thousands: seconds of a hint's thread); past a group's
    share, the pieces found so far for it stand."""
    held = [0] * (JOKER_ID + 1)
    for card in hand:
        held[card] += 1
    # The most points first: a search cut short (most_sets) has weighed the best cards.
    distinct = sorted(set(hand), key=lambda card: (-_POINTS[card], card))
    # from_here[i]: hand cards of the kinds distinct[i:].
    from_here = [0] * (len(distinct) + 1)
    for index in range(len(distinct) - 1, -1, -1):
        from_here[index] = from_here[index + 1] + held[distinct[index]]
    originals = len(table)
    pieces: list[Piece] = []
    added: list[int] = []
    share = None if most_sets is None else max(1, most_sets // (originals + 1))
    left = 0  # sets the group may still weigh
    exact = True

    def grow(group: int, content: tuple[int, ...], start: int) -> None:
        nonlocal left, exact
        if len(added) >= budget:
            return
        for index in range(start, len(distinct)):
            card = distinct[index]
            if not held[card]:
                continue
            if share is not None:
                if left <= 0:
                    exact = False
                    return
                left -= 1
            bigger = with_card(content, card)
            missing = need(bigger)
            held[card] -= 1
            added.append(card)
            if missing <= min(budget - len(added), from_here[index + 1] + held[card]):
                if not missing:
                    pieces.append(_moveless(group, originals, tuple(added), bigger))
                grow(group, bigger, index)
            added.pop()
            held[card] += 1

    for group in range(originals):
        left = share or 0
        grow(group, tuple(sorted(table[group])), 0)
    left = share or 0
    grow(originals, (), 0)
    return pieces, exact


def _moveless(group: int, originals: int, added: tuple[int, ...], content: tuple[int, ...]) -> Piece:
    new = group == originals
    hand = tuple(sorted(added))  # played lowest first, however they were found
    return Piece(
        groups=0 if new else 1 << group,
        hand=hand,
        plays=tuple((card, FROM_HAND, group) for card in hand),
        finals=() if new else ((group, content),),
        made=(content,) if new else (),
        points=sum(_POINTS[card] for card in hand),
        opening=sum(_OPENING[card] for card in hand),
        moves=0,
    )


#: A group's share of the bounds: (cards it needs added, if no card of it may leave; cards leaving
#: plus added, if some may; cards that must leave; 1 if it needs a move, no hand card helping; 1 if
#: it needs a move, hand cards helping but none completing it).
Share = tuple[int, int, int, int, int]
_VALID: Share = (0, 0, 0, 0, 0)
#: Bounds summed over groups, in the same order.
Sums = tuple[int, int, int, int, int]
#: A group's share before the hand is asked: whether a hand card helps is left to :meth:`Explorer._share`.
Bounds = tuple[int, int, int, int | None]
_CARDS = JOKER_ID + 1
_SMALL = 8  # more than any count of plays or moves left
_MOST_MATCHED = 6  # the most needs for moves paired exactly (:meth:`Explorer._unpaired`)
# What a group needs a move for: to lose a card; a card from the table that helps it; or any card
# arriving or leaving (hand cards help it, but cannot complete it).
_LOSE, _HELPED_BY_TABLE, _TOUCHED = 0, 1, 2


class SearchCut(Exception):
    """The search visited as many states as it was allowed: the pieces found so far stand."""


class Explorer:
    """Every piece with moves, of at most ``budget`` plays, for one hand and table."""

    def __init__(
        self,
        hand: list[int],
        table: list[list[int]],
        budget: int,
        best_with: Callable[[Piece], tuple[int, int, int]] | None = None,
        most_cards: int = JOKER_ID,
        most_points: int = 0,
        moveless_most: int = JOKER_ID,
        most_visits: int | None = None,
    ) -> None:
        self.budget = budget
        self.most_visits = most_visits  # then :class:`SearchCut`, if given
        # The best turn known to hold a piece just found: it tightens the bounds at once.
        self.best_with = best_with
        # No turn places more than ``most_cards`` hand cards, nor, placing that many, more points.
        self.most_cards, self.most_points = most_cards, most_points
        # The most hand cards pieces without moves place together (in a turn of those alone).
        self.moveless_most = moveless_most
        self.hand = [0] * (JOKER_ID + 1)
        for card in hand:
            self.hand[card] += 1
        self.hand_size = len(hand)
        self.hand_order = sorted(set(hand), key=lambda card: (-_POINTS[card], card))
        self.originals = len(table)
        self.kept: list[tuple[int, ...]] = [tuple(sorted(group)) for group in table]
        self.original = list(self.kept)
        self.arrived: list[tuple[int, ...]] = [() for _ in table]
        self.content: list[tuple[int, ...]] = list(self.kept)
        self.changed: set[int] = set()
        self.path: list[PiecePlay] = []
        self.placed: list[int] = []
        self.points = 0
        self.moves = 0
        self.move_limit = 0
        # Copies of each card still in its own table group, free to move.
        self.loose = [0] * (JOKER_ID + 1)
        for group in table:
            for card in group:
                self.loose[card] += 1
        # The cards with a copy in hand, and with one free to move: what the bounds ask.
        self.in_hand = mask_of(hand)
        self.on_table = mask_of(card for group in table for card in group)
        self.best: tuple[int, int, int] | None = None
        self.seen: set[object] = set()
        self.rank = {card: rank for rank, card in enumerate(self.hand_order)}
        self.first_rank = 0
        self.pieces: dict[tuple[int, tuple[int, ...]], Piece] = {}
        self.visits = 0
        # Per untouched group, card arriving, plays and moves left: its cards then, and its bounds.
        self.fresh: dict[int, tuple[tuple[int, ...], Bounds | None]] = {}

    def explore(self, move_limit: int, best: tuple[int, int, int] | None) -> None:
        """Find the pieces with 1 to ``move_limit`` moves that could be part of a turn better than
        ``best`` (hand cards, points, plays), into :attr:`pieces`: of those on the same groups with
        the same hand cards, the one with the fewest plays."""
        self.move_limit, self.best = move_limit, best
        self.seen.clear()
        # A piece starts with its first hand card in hand order and adds only later ones: every
        # piece is searched once, from that card (any of its hand cards may start it).
        for rank, card in enumerate(self.hand_order):
            self.first_rank = rank
            for target in [*range(self.originals), self.originals]:
                self._try_hand(card, target, {}, _VALID)

    # -- bounds ------------------------------------------------------------------------------------

    def _share(
        self,
        cards: tuple[int, ...],
        kept: tuple[int, ...],
        arrived: tuple[int, ...],
        left: int,
        moves_left: int,
    ) -> Share | None:
        """What a group adds to the bounds; ``None`` if it cannot be made valid in time."""
        known = _group_bounds(cards, kept, arrived, left, moves_left)
        return self._share_of(known, cards, kept, left, moves_left)

    def _share_of(
        self, known: Bounds | None, cards: tuple[int, ...], kept: tuple[int, ...], left: int, moves_left: int
    ) -> Share | None:
        """A group's share from its bounds (:func:`_group_bounds`) and the hand."""
        if known is None:
            return None
        share_pure, share_mixed, leave, useful = known
        if useful is None:
            return (share_pure, share_mixed, leave, 0, 0) if leave else _VALID
        if useful & self.in_hand:
            if completes(cards, self.in_hand, left):
                return share_pure, share_mixed, 0, 0, 0
            # A move touches it: a card of its own leaves, or one from the table arrives.
            if not kept and not moves_left:
                return None
            return share_pure, share_mixed, 0, 0, 1
        if not kept and not (moves_left and useful & self.on_table):
            return None
        return share_pure, share_mixed, 0, 1, 0

    def _bounded(self, sums: Sums, plays: int, moves: int, placed: int, points: int) -> bool:
        """Can the plays still needed fit, and could a turn with this piece beat the best known?"""
        pure, mixed, leaving, unhelped, uncompleted = sums
        # Pieces with fewer moves were all found in earlier rounds, under a looser bound: this round
        # wants pieces with exactly ``move_limit`` moves.
        moves_needed = max(leaving, (leaving + unhelped + uncompleted + 1) // 2, self.move_limit - moves)
        # A play brings one group one card closer, a move two at most (the group it leaves and the one
        # it joins): only the moves still allowed do double work.
        deficit = pure + mixed
        still = max(pure, (deficit + 1) // 2, deficit - (self.move_limit - moves), moves_needed)
        left = self.budget - plays
        if still > left or moves + moves_needed > self.move_limit:
            return False
        if self.best is None:
            return True
        # More hand cards come from this piece (only those after its first in hand order) or from
        # other pieces: without moves, at most what pieces without moves place at best; with a move,
        # that move takes a play.
        room = left - moves_needed
        cap = min(self.hand_size, self.most_cards) - placed
        best = self.best
        if placed + min(room - 1, cap) > best[0]:
            return True  # more hand cards than the best, even with another piece's move
        if room <= 0 or cap <= 0:
            return self._beats(placed, points, max(plays + still, plays + moves_needed))
        own = 0
        for card in self.hand_order[self.first_rank :]:
            own += self.hand[card]
        alone = min(room, own + self.moveless_most, cap)
        if self._beats(
            placed + alone,
            points + self._top(alone, self.moveless_most),
            max(plays + still, plays + alone + moves_needed),
        ):
            return True
        mixed = min(room - 1, cap)
        return mixed > alone or (
            mixed == alone
            and self._beats(
                placed + mixed,
                points + self._top(mixed),
                max(plays + still, plays + mixed + moves_needed + 1),
            )
        )

    def _beats(self, count: int, points: int, plays: int) -> bool:
        """Would a turn of ``count`` hand cards worth at most ``points``, in at least ``plays`` plays,
        beat the best known?"""
        best = self.best
        if best is None:
            return True
        if count == self.most_cards:
            points = min(points, self.most_points)
        return (count, points, -plays) > (best[0], best[1], -best[2])

    def _top(self, count: int, before_first: int = JOKER_ID) -> int:
        """The most ``count`` of the cards left in hand are worth, at most ``before_first`` of them
        before the piece's first card in hand order."""
        total = 0
        first = self.first_rank
        for rank, card in enumerate(self.hand_order):
            if count <= 0:
                break
            take = min(count, self.hand[card])
            if rank < first:
                take = min(take, before_first)
                before_first -= take
            total += take * _POINTS[card]
            count -= take
        return total

    # -- the search --------------------------------------------------------------------------------

    def _visit(self, shares: dict[int, Share], sums: Sums) -> None:
        """A state whose bounds passed (``shares`` of its invalid groups, their ``sums``)."""
        originals = self.originals
        key = (
            tuple(
                (group, self.kept[group], self.arrived[group])
                for group in sorted(self.changed)
                if group < originals
            ),
            tuple(sorted(self.content[originals:])),
        )
        if key in self.seen:
            return
        self.seen.add(key)
        self.visits += 1
        if self.most_visits is not None and self.visits > self.most_visits:
            raise SearchCut
        if shares:
            self._branch_invalid(min(shares, key=self._fix_order), shares, sums)
            return
        if self.moves:
            self._record()
        if len(self.path) < self.budget:
            self._branch_valid(sums)

    def _fix_order(self, group: int) -> tuple[int, int, int]:
        """Fix first the group with the fewest ways to touch it: cards that may not leave first."""
        return (len(self.kept[group]), need(self.content[group]), group)

    def _record(self) -> None:
        groups = 0
        for group in self.changed:
            if group < self.originals:
                groups |= 1 << group
        hand = tuple(sorted(self.placed))
        known = self.pieces.get((groups, hand))
        if known is not None and len(known.plays) <= len(self.path):
            return
        piece = self.pieces[groups, hand] = Piece(
            groups=groups,
            hand=hand,
            plays=tuple(self.path),
            finals=tuple(
                (group, self.content[group]) for group in sorted(self.changed) if group < self.originals
            ),
            made=tuple(self.content[self.originals :]),
            points=sum(_POINTS[card] for card in hand),
            opening=sum(_OPENING[card] for card in hand),
            moves=self.moves,
        )
        if self.best_with is not None:
            count, points, plays = self.best_with(piece)
            if self.best is None or (count, points, -plays) > (self.best[0], self.best[1], -self.best[2]):
                self.best = (count, points, plays)

    def _targets(self, besides: int) -> list[int]:
        """Groups a card may go to: those with cards (an emptied one stays empty), then a new one."""
        return [group for group, cards in enumerate(self.content) if cards and group != besides] + [
            len(self.content)
        ]

    def _branch_valid(self, sums: Sums) -> None:
        """The table is valid: the next play touches a group the piece has touched."""
        touched = sorted(group for group in self.changed if self.content[group])
        for card in self.hand_order[self.first_rank :]:
            if self.hand[card]:
                for target in touched:
                    self._try_hand(card, target, {}, sums)
        if self.moves >= self.move_limit:
            return
        for source in sorted(self.changed):
            if self.kept[source]:
                targets = self._targets(source)
                for card in sorted(set(self.kept[source])):
                    self._try_moves(card, source, targets, {}, sums)
        for source in range(self.originals):
            if source not in self.changed:
                for card in sorted(set(self.kept[source])):
                    self._try_moves(card, source, touched, {}, sums)

    def _branch_invalid(self, group: int, shares: dict[int, Share], sums: Sums) -> None:
        """The next play touches ``group``: a card that brings it closer, or one of its own leaving."""
        may_move = self.moves < self.move_limit
        first_rank, rank = self.first_rank, self.rank
        for card in cards_in(helpful_mask(self.content[group])):
            if self.hand[card] and rank[card] >= first_rank:
                self._try_hand(card, group, shares, sums)
            if may_move and self.loose[card]:
                for source, kept in enumerate(self.kept):
                    if source != group and card in kept:
                        self._try_move(card, source, group, shares, sums)
        if may_move and self.kept[group]:
            targets = self._targets(group)
            for card in sorted(set(self.kept[group])):
                self._try_moves(card, group, targets, shares, sums)

    def _try_hand(self, card: int, target: int, shares: dict[int, Share], sums: Sums) -> None:
        """Play ``card`` from the hand to ``target`` (a new group if it is the next number), if the
        bounds allow; the other groups' shares are reused, which only loosens the bounds."""
        new = target == len(self.content)
        if not new and self._left_from(card, target):
            return
        cards = (card,) if new else with_card(self.content[target], card)
        kept = () if new else self.kept[target]
        arrived = (card,) if new else with_card(self.arrived[target], card)
        plays = len(self.path) + 1
        self.hand[card] -= 1
        in_hand = self.in_hand
        if not self.hand[card]:
            self.in_hand &= ~(1 << card)
        share = self._share(cards, kept, arrived, self.budget - plays, self.move_limit - self.moves)
        self.hand[card] += 1
        self.in_hand = in_hand
        if share is None:
            return
        old = shares.get(target, _VALID)
        after = _add(sums, old, share)
        placed, points = len(self.placed) + 1, self.points + _POINTS[card]
        self.hand[card] -= 1
        fits = self._bounded(after, plays, self.moves, placed, points)
        self.hand[card] += 1
        if not fits:
            return
        if new:
            self.kept.append(())
            self.arrived.append(())
            self.content.append(())
        was_changed = target in self.changed
        before_arrived, before_content = self.arrived[target], self.content[target]
        self.arrived[target], self.content[target] = arrived, cards
        self.changed.add(target)
        self.hand[card] -= 1
        if not self.hand[card]:
            self.in_hand &= ~(1 << card)
        self.placed.append(card)
        self.points = points
        self.path.append((card, FROM_HAND, target))
        self._enter()
        self.path.pop()
        self.points -= _POINTS[card]
        self.placed.pop()
        self.hand[card] += 1
        self.in_hand = in_hand
        if not was_changed:
            self.changed.discard(target)
        self.arrived[target], self.content[target] = before_arrived, before_content
        if new:
            del self.kept[-1], self.arrived[-1], self.content[-1]

    def _try_move(self, card: int, source: int, target: int, shares: dict[int, Share], sums: Sums) -> None:
        self._try_moves(card, source, [target], shares, sums)

    def _try_moves(
        self, card: int, source: int, targets: list[int], shares: dict[int, Share], sums: Sums
    ) -> None:
        """Move ``card`` from group ``source`` to each of ``targets`` in turn, where the bounds allow.

        The last card of a group that cards arrived in stays (see :func:`repair`)."""
        source_kept = self.kept[source]
        if self.arrived[source] and (len(source_kept) == 1 or card in self.arrived[source]):
            return  # the last card stays; and a card out where its twin came in is one play for two
        plays = len(self.path) + 1
        left, moves_left = self.budget - plays, self.move_limit - self.moves - 1
        kept_after = without_card(source_kept, card)
        source_after = without_card(self.content[source], card)
        source_share = self._share(source_after, kept_after, self.arrived[source], left, moves_left)
        if source_share is None:
            return
        sums = _add(sums, shares.get(source, _VALID), source_share)
        placed, points = len(self.placed), self.points
        # A group valid now only adds to the bounds: if the source alone breaks them, so does it.
        any_valid = self._bounded(sums, plays, self.moves + 1, placed, points)
        changed, originals, fresh = self.changed, self.originals, self.fresh
        for target in targets:
            if target < originals and target not in changed:
                # A group the piece has not touched: what the card does to it is worked out once.
                if not any_valid:
                    continue
                key = ((target * _CARDS + card) * _SMALL + left) * _SMALL + moves_left
                known = fresh.get(key)
                if known is None:
                    target_after = with_card(self.kept[target], card)
                    known = fresh[key] = (
                        target_after,
                        _group_bounds(target_after, self.kept[target], (card,), left, moves_left),
                    )
                target_after, bounds = known
                target_share = self._share_of(bounds, target_after, self.kept[target], left, moves_left)
                arrived_after: tuple[int, ...] = (card,)
            else:
                if (target not in shares and not any_valid) or self._left_from(card, target):
                    continue
                new = target == len(self.content)
                target_after = (card,) if new else with_card(self.content[target], card)
                target_kept = () if new else self.kept[target]
                arrived_after = (card,) if new else with_card(self.arrived[target], card)
                target_share = self._share(target_after, target_kept, arrived_after, left, moves_left)
            if target_share is None:
                continue
            after = _add(sums, shares.get(target, _VALID), target_share)
            if self._bounded(after, plays, self.moves + 1, placed, points):
                self._move(card, source, target, kept_after, source_after, arrived_after, target_after)

    def _move(
        self,
        card: int,
        source: int,
        target: int,
        kept_after: tuple[int, ...],
        source_after: tuple[int, ...],
        arrived_after: tuple[int, ...],
        target_after: tuple[int, ...],
    ) -> None:
        new = target == len(self.content)
        source_kept = self.kept[source]
        if new:
            self.kept.append(())
            self.arrived.append(())
            self.content.append(())
        source_changed, target_changed = source in self.changed, target in self.changed
        source_content = self.content[source]
        target_arrived, target_content = self.arrived[target], self.content[target]
        self.kept[source], self.content[source] = kept_after, source_after
        self.arrived[target], self.content[target] = arrived_after, target_after
        self.changed.add(source)
        self.changed.add(target)
        self.moves += 1
        self.loose[card] -= 1
        if not self.loose[card]:
            self.on_table &= ~(1 << card)
        self.path.append((card, source, target))
        self._enter()
        self.path.pop()
        self.loose[card] += 1
        self.on_table |= 1 << card
        self.moves -= 1
        if not source_changed:
            self.changed.discard(source)
        if not target_changed:
            self.changed.discard(target)
        self.kept[source], self.content[source] = source_kept, source_content
        self.arrived[target], self.content[target] = target_arrived, target_content
        if new:
            del self.kept[-1], self.arrived[-1], self.content[-1]

    def _left_from(self, card: int, group: int) -> bool:
        """Has a copy of ``card`` left ``group``? Then putting one back there is pointless: sending the
        card straight where the copy went is one play fewer."""
        return (
            group in self.changed
            and group < self.originals
            and self.original[group].count(card) > self.kept[group].count(card)
        )

    def _enter(self) -> None:
        """The bounds of the state just reached, exactly, then on into it if they pass."""
        plays = len(self.path)
        left, moves_left = self.budget - plays, self.move_limit - self.moves
        shares: dict[int, Share] = {}
        sums: Sums = _VALID
        for group in self.changed:
            share = self._share(self.content[group], self.kept[group], self.arrived[group], left, moves_left)
            if share is None:
                return
            if share is not _VALID:
                shares[group] = share
                sums = _add(sums, _VALID, share)
        if sums[2] + sums[3] + sums[4] > moves_left and self._unpaired(shares, left, moves_left) > moves_left:
            return
        if self._bounded(sums, plays, self.moves, len(self.placed), self.points):
            self._visit(shares, sums)

    def _unpaired(self, shares: dict[int, Share], left: int, moves_left: int) -> int:
        """The fewest moves the groups that need one take: a group hand cards cannot complete needs a
        move touching it, a group that must lose ``k`` cards ``k`` moves out of it. One move serves
        two of these needs only if it takes a kept card of one group to one that hand cards cannot
        complete, and, if no hand card helps that one, the card helps it (else it still needs a card
        from the table, see :func:`._need.helpful`); a card arriving never serves a group that must
        lose one. So: the needs, less the most disjoint pairs of needs one move serves."""
        needs: list[tuple[int, int]] = []  # (group, _LOSE, _HELPED_BY_TABLE or _TOUCHED)
        for group, share in shares.items():
            needs.extend([(group, _LOSE)] * share[2])
            if share[3]:
                needs.append((group, _HELPED_BY_TABLE))
            elif share[4]:
                needs.append((group, _TOUCHED))
        if len(needs) > _MOST_MATCHED:
            return (len(needs) + 1) // 2  # the pairing is not worked out: any two may pair
        if moves_left == 1 and len(needs) == 2:
            return 1 if self._one_move_serves(needs[0], needs[1], left - 1) else 2
        kept, content = self.kept, self.content
        serves = [
            [
                index
                for index, (target, kind) in enumerate(needs)
                if target != group
                and kept[group]
                and (
                    kind == _TOUCHED
                    or (kind == _HELPED_BY_TABLE and helpful_mask(content[target]) & mask_of(kept[group]))
                )
            ]
            for group, _ in needs
        ]
        pairs = [
            (first, second)
            for first in range(len(needs))
            for second in range(first + 1, len(needs))
            if second in serves[first] or first in serves[second]
        ]
        return len(needs) - _most_disjoint(pairs, 0)

    def _one_move_serves(self, first: tuple[int, int], second: tuple[int, int], left: int) -> bool:
        """With one move left, can one move serve both needs, the hand (``left`` plays) doing the rest?
        It takes a kept card from one group to the other; then both must be completed from the hand."""
        kinds = self.in_hand
        for (source, _), (target, kind) in ((first, second), (second, first)):
            if source == target or kind == _LOSE:
                continue
            target_cards = self.content[target]
            usable = set(self.kept[source])
            if kind == _HELPED_BY_TABLE:
                usable &= set(cards_in(helpful_mask(target_cards)))
            for card in usable:
                if completes(without_card(self.content[source], card), kinds, left) and completes(
                    with_card(target_cards, card), kinds, left
                ):
                    return True
        return False


def _most_disjoint(pairs: list[tuple[int, int]], used: int) -> int:
    """The most pairs, sharing no member, among ``pairs`` (of small numbers; ``used`` a bit each)."""
    most = 0
    for index, (first, second) in enumerate(pairs):
        if not (used >> first) & 1 and not (used >> second) & 1:
            most = max(most, 1 + _most_disjoint(pairs[index + 1 :], used | 1 << first | 1 << second))
    return most


@lru_cache(maxsize=1 << 16)
def _group_bounds(
    cards: tuple[int, ...], kept: tuple[int, ...], arrived: tuple[int, ...], left: int, moves_left: int
) -> Bounds | None:
    """The part of a group's share that does not depend on the hand: ``None`` if the group cannot
    be made valid in time, else its share, with the cards that would help it when no card of it
    need leave (``None`` when the share is final)."""
    missing = need(cards)
    if not missing:
        return 0, 0, 0, None
    leave = 0
    if kept:
        fix, leave = repair(kept, arrived, moves_left)
        if fix > left:
            return None
        share_pure, share_mixed = 0, fix
    elif missing > left:
        return None  # too far, or only cards that may not move again and no way
    else:
        share_pure, share_mixed = missing, 0
    if leave:
        return share_pure, share_mixed, leave, None
    return share_pure, share_mixed, 0, helpful_mask(cards)


def _add(sums: Sums, old: Share, new: Share) -> Sums:
    """``sums`` with a group's share ``old`` replaced by ``new``."""
    return (
        sums[0] - old[0] + new[0],
        sums[1] - old[1] + new[1],
        sums[2] - old[2] + new[2],
        sums[3] - old[3] + new[3],
        sums[4] - old[4] + new[4],
    )
