"""The ``qlearn`` baseline (placeholder until the trained table lands)."""

from __future__ import annotations

import random

from ..engine import Action, View
from ._greedy import GreedyBot


class QLearnBot:
    name = "qlearn"

    def __init__(self, rng: random.Random) -> None:
        self._fallback = GreedyBot(rng)

    def choose(self, view: View) -> Action:
        return self._fallback.choose(view)
