"""The ``expert`` bot (placeholder: plays like greedy until the real planner lands)."""

from __future__ import annotations

import random

from ..engine import Action, View
from ._greedy import GreedyBot

LEVELS = ("easy", "medium", "hard")


class ExpertBot:
    name = "expert"

    def __init__(self, rng: random.Random, level: str = "hard") -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: levels are {', '.join(LEVELS)}")
        self.level = level
        self.name = f"expert-{level}"
        self._fallback = GreedyBot(rng)

    def choose(self, view: View) -> Action:
        return self._fallback.choose(view)
