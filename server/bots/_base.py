"""What a bot is: a policy from a view to an action, with its own random source."""

from __future__ import annotations

import random
from typing import Protocol

from ..engine import Action, View


class Bot(Protocol):
    """Chooses the next action for ``view.seat``, seeing only what that seat may see."""

    name: str

    def choose(self, view: View) -> Action: ...


class BotFactory(Protocol):
    def __call__(self, rng: random.Random) -> Bot: ...
