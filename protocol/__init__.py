"""The shared vocabulary of notty: cards, rulesets and groups. Sans-IO."""

from ._cards import COLOUR_NAMES, COLOUR_ORDER, Card, CardError, format_cards, parse_cards
from ._groups import GroupKind, InvalidGroup, classify_group, has_group, is_group, valid_groups
from ._rules import CLASSIC, FIVE_COLOUR, PRESETS, Rules, RulesError, rules_from

__all__ = [
    "CLASSIC",
    "COLOUR_NAMES",
    "COLOUR_ORDER",
    "FIVE_COLOUR",
    "PRESETS",
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
