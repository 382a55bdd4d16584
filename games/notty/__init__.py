"""Notty: its cards, rulesets and groups, the one place to import them from.

``from games.notty import Card, PRESETS, parse_cards``. The engine
(:mod:`games.notty.engine`), the bots (:mod:`games.notty.bots`) and the game's
entry in the registry (:mod:`games.notty.game`) sit beside them; this package
imports none of those, so the solver can use the vocabulary without a cycle.
"""

from ._cards import COLOUR_NAMES, COLOUR_ORDER, Card, CardError, format_cards, parse_cards
from ._groups import GroupKind, InvalidGroup, classify_group, has_group, is_group, valid_groups
from ._rules import CLASSIC, FIVE_COLOUR, PRESETS, TABLE_FIELDS, Rules, RulesError, rules_from

__all__ = [
    "CLASSIC",
    "COLOUR_NAMES",
    "COLOUR_ORDER",
    "FIVE_COLOUR",
    "PRESETS",
    "TABLE_FIELDS",
    "Card",
    "CardError",
    "GroupKind",
    "InvalidGroup",
    "Rules",
    "RulesError",
    "classify_group",
    "format_cards",
    "has_group",
    "is_group",
    "parse_cards",
    "rules_from",
    "valid_groups",
]
