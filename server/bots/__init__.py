"""Bots: policies that see only ``view(seat)`` and act through the engine like anyone."""

from __future__ import annotations

import random

from ._base import Bot, BotFactory
from ._greedy import GreedyBot
from ._random import RandomBot

BOTS: dict[str, BotFactory] = {
    "random": RandomBot,
    "greedy": GreedyBot,
}


def make_bot(name: str, rng: random.Random) -> Bot:
    """A bot by name, with its own random source."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}") from None
    return factory(rng)


__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "make_bot"]
