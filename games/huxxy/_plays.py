"""A play, the unit of a table turn: one card from the hand, or from a group on the table, to a group.

The engine applies plays, the solver returns them, the bots and hints speak
them. Groups are numbered from 0 here, in table order; a group emptied during a
turn keeps its place (and number) until the turn ends, so a turn's plays can
name groups by number throughout. ``target`` ``None`` starts a new group,
appended at the end of the table.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ._cards import Card


@attrs.frozen(slots=True)
class Play:
    """``card`` from the hand (``source`` ``None``) or from group ``source``, to group ``target``
    (``None``: a new group, numbered ``len(table)`` as the table stands before the play)."""

    card: Card
    source: int | None
    target: int | None

    @property
    def from_hand(self) -> bool:
        return self.source is None


def as_made(plays: Sequence[Play], groups: int) -> tuple[Play, ...]:
    """``plays`` from a table of ``groups`` groups as the engine reports them made: each new group's
    number filled in."""
    made = []
    for play in plays:
        if play.target is None:
            play = Play(play.card, play.source, groups)
            groups += 1
        made.append(play)
    return tuple(made)
