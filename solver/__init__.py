"""Exact answers to "what is the most I can discard from this hand?". Pure functions."""

from ._api import Out, all_best_discards, best_discard, max_discard, outs

__all__ = ["Out", "all_best_discards", "best_discard", "max_discard", "outs"]
