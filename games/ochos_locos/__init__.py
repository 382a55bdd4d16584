"""Ochos Locos, a crazy-eights shedding game: 32 cards, 2 to 6 players, rule switches ``twos`` and ``eights``.

The vocabulary lives here; the engine (``engine``), the automatic strategy
(``strategy``) and batch mode (``batch``) are imported where they are needed.
"""

from .cards import COLOURS, DECK_SIZE, NUMBERS, Card, CardError, full_deck
from .rules import PRESETS, Rules, RulesError

__all__ = [
    "COLOURS",
    "DECK_SIZE",
    "NUMBERS",
    "PRESETS",
    "Card",
    "CardError",
    "Rules",
    "RulesError",
    "full_deck",
]
