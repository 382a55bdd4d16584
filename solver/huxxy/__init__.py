"""huxxy's solvers: the best table turn of at most 6 plays (:mod:`.turn`), and what the hand could place
with the whole table free to rearrange (:mod:`.unlimited`)."""

from games.huxxy.engine import MAX_PLAYS as MOST_PLAYS
from games.huxxy.engine import OPENING_POINTS

from .turn import Turn, best_turn
from .unlimited import Placement, most_placed

__all__ = ["MOST_PLAYS", "OPENING_POINTS", "Placement", "Turn", "best_turn", "most_placed"]
