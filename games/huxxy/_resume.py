"""A planned turn taken up after plays already made: keep those that the same turn can begin with.

A hint asked mid-turn, a stand-in, the autopilot or a bot after a restart
finds plays made that it did not plan. Undo takes back only the last play, so
what can be kept is a prefix of them; and a turn's plays mostly commute (the
table may be invalid until the turn ends), so a prefix made in another order
than the plan lists its plays, or with new groups numbered differently, still
begins the same turn. :func:`adopt` finds the longest such prefix and the plays
that finish the turn after it, checked by making them: the same hand and table
at the end, within the play limit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from ._cards import Card
from ._plays import Play, as_made

Table = Sequence[Sequence[Card]]


def adopt(
    plan: Sequence[Play], made: Sequence[Play], hand: Sequence[Card], table: Table, most: int
) -> tuple[Play, ...]:
    """``plan`` (from the turn's start, a new group's target ``None``) rewritten to begin with the
    longest prefix of ``made`` (as the engine reports them: new groups numbered) that leads to
    the same hand and table in at most ``most`` plays; the plays are as :func:`plan` takes them,
    so ``as_made`` of the result's first plays gives back that prefix."""
    goal = _outcome(hand, table, plan)
    for kept in range(len(made), 0, -1):
        begun = _raw(made[:kept], len(table))
        for rest in _rests(plan, made[:kept], len(table)):
            turn = (*begun, *rest)
            if len(turn) <= most and _outcome(hand, table, turn) == goal:
                return turn
    return tuple(plan)


def _rests(plan: Sequence[Play], made: Sequence[Play], groups: int) -> Iterator[tuple[Play, ...]]:
    """The plays of ``plan`` that ``made`` did not make, renumbered to follow it: one for each way
    of pairing every made play with one of the plan's (same card, source and target), since two
    copies of a card may stand for either of the plan's (at most six plays each side)."""
    planned = as_made(plan, groups)
    used = [False] * len(planned)

    def pair(at: int, ours: dict[int, int]) -> Iterator[tuple[Play, ...]]:
        if at == len(made):
            rest = _renumbered(planned, used, ours, groups)
            if rest is not None:
                yield rest
            return
        play = made[at]
        for index, wanted in enumerate(planned):
            if used[index] or wanted.card != play.card:
                continue
            paired = dict(ours)
            if _same(play.source, wanted.source, paired, groups) and _same(
                play.target, wanted.target, paired, groups
            ):
                used[index] = True
                yield from pair(at + 1, paired)
                used[index] = False

    return pair(0, {})


def _renumbered(
    planned: Sequence[Play], used: Sequence[bool], ours: dict[int, int], groups: int
) -> tuple[Play, ...] | None:
    """The plays of ``planned`` not ``used``, their new groups numbered after the made ones
    (``ours``: a new group's number as made -> in the plan); ``None`` if one moves a card out
    of a new group before the rest has made it."""
    theirs = {plan_number: number for number, plan_number in ours.items()}
    count = groups + len(ours)  # groups on the table once the made plays are made
    rest = []
    for index, play in enumerate(planned):
        if used[index]:
            continue
        source = play.source if play.source is None or play.source < groups else theirs.get(play.source)
        if play.source is not None and source is None:
            return None
        target: int | None = play.target
        if play.target is not None and play.target >= groups:
            target = theirs.get(play.target)
            if target is None:  # the plan's new group, made here first
                theirs[play.target] = count
                count += 1
        rest.append(Play(play.card, source, target))
    return tuple(rest)


def _same(made: int | None, planned: int | None, ours: dict[int, int], groups: int) -> bool:
    """Does a made play's group (source or target) stand for the plan's? New groups pair up as
    they are met (``ours`` is updated only when they do)."""
    if made is None or planned is None or made < groups or planned < groups:
        return made == planned
    if made in ours:
        return ours[made] == planned
    if planned in ours.values():
        return False
    ours[made] = planned
    return True


def _raw(plays: Sequence[Play], groups: int) -> list[Play]:
    """Made plays as a plan says them: a play that starts a group targets ``None``."""
    out = []
    for play in plays:
        if play.target == groups:
            play = Play(play.card, play.source, None)
            groups += 1
        out.append(play)
    return out


Outcome = tuple[Counter[Card], Counter[tuple[Card, ...]]]


def _outcome(hand: Sequence[Card], table: Table, plays: Sequence[Play]) -> Outcome | None:
    """The hand and the table's groups (each sorted; emptied ones gone) once ``plays`` are made,
    or ``None`` if one of them takes a card its source does not hold."""
    left = Counter(hand)
    groups = [Counter(group) for group in table]
    for play in plays:
        source = left if play.source is None else groups[play.source] if play.source < len(groups) else None
        if source is None or source[play.card] <= 0:
            return None
        source[play.card] -= 1
        if play.target is None:
            groups.append(Counter([play.card]))
        elif play.target < len(groups):
            groups[play.target][play.card] += 1
        else:
            return None
    return +left, Counter(tuple(sorted(group.elements())) for group in groups if +group)
