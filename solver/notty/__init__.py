"""Notty's question, "what is the most I can discard from this hand?", answered exactly. Pure functions."""

from ._api import Out, all_best_discards, best_discard, max_discard, outs
from ._chance import Flat, bounded_chance, chance_flat, finishing_draws, flatten, go_out_chance, unflatten

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
