"""huxxy's solvers: the best table turn of at most 6 plays (:mod:`.turn`), and what the hand could place
with the whole table free to rearrange (:mod:`.unlimited`)."""

from .turn import MOST_PLAYS, OPENING_POINTS, Turn, best_turn
from .unlimited import Placement, most_placed

__all__ = ["MOST_PLAYS", "OPENING_POINTS", "Placement", "Turn", "best_turn", "most_placed"]
