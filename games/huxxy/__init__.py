"""huxxy, a rummy with hidden hands and a shared table that players rearrange (docs: the rules text).

The rules checks, with cards written as in the rules (``AC``, ``0H``, ``XX``)::

    >>> from games.huxxy import score, valid_group, valid_table
    >>> score(["4C", "2H", "KS"])
    19
    >>> valid_group(["0C", "JH", "QS", "KH", "9D"])
    True
"""

from ._cards import CARDS, COPIES, JOKER, JOKER_POINTS, SUITS, VALUES, Card, CardError, cards_of
from ._groups import SMALLEST_GROUP, opening_points, score, valid_group, valid_table

__all__ = [
    "CARDS",
    "COPIES",
    "JOKER",
    "JOKER_POINTS",
    "SMALLEST_GROUP",
    "SUITS",
    "VALUES",
    "Card",
    "CardError",
    "cards_of",
    "opening_points",
    "score",
    "valid_group",
    "valid_table",
]
