"""The ``random`` bot: any legal action, uniformly. Ends its turn with probability 1."""

from __future__ import annotations

import random

from ..engine import Action, View, legal_actions
from ._base import Bot


class RandomBot(Bot):
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: View) -> Action:
        return self._rng.choice(legal_actions(view))
