"""Pure functions over hands, one package per game's question.

Notty's answers are re-exported here, so ``from solver import best_discard``
keeps working; other games' solvers sit beside :mod:`solver.notty`.
"""

from .notty import (
    Flat,
    Out,
    all_best_discards,
    best_discard,
    bounded_chance,
    chance_flat,
    finishing_draws,
    flatten,
    go_out_chance,
    max_discard,
    outs,
    unflatten,
)

__all__ = [
    "Flat",
    "Out",
    "all_best_discards",
    "best_discard",
    "bounded_chance",
    "chance_flat",
    "finishing_draws",
    "flatten",
    "go_out_chance",
    "max_discard",
    "outs",
    "unflatten",
]
