"""Bots: policies that see only ``view(seat)`` and act through the engine like anyone."""

from __future__ import annotations

import functools
import random

from ._base import Bot, BotFactory
from ._expert import LEVELS, ExpertBot
from ._greedy import GreedyBot
from ._qlearn import QLearnBot
from ._random import RandomBot

BOTS: dict[str, BotFactory] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "qlearn": QLearnBot,
    "expert": ExpertBot,  # at its strongest level
    **{f"expert-{level}": functools.partial(ExpertBot, level=level) for level in LEVELS},
}


def make_bot(name: str, rng: random.Random) -> Bot:
    """A bot by name, with its own random source."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}") from None
    return factory(rng)


__all__ = ["BOTS", "LEVELS", "Bot", "ExpertBot", "GreedyBot", "QLearnBot", "RandomBot", "make_bot"]
