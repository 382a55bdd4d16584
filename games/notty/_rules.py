"""Rulesets: every rule of the game is a field, so a table can tweak any of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ._cards import COLOUR_ORDER, Card


class RulesError(ValueError):
    """A ruleset that cannot be played, or a preset that does not exist."""


def _check_colours(_: Any, __: Any, value: str) -> None:
    if not isinstance(value, str) or not value:
        raise RulesError("colours must be a non-empty string of colour letters, e.g. 'RYGB'")
    for letter in value:
        if letter not in COLOUR_ORDER:
            raise RulesError(f"unknown colour {letter!r} in colours: colours are {', '.join(COLOUR_ORDER)}")
    if len(set(value)) != len(value):
        raise RulesError(f"colours {value!r} repeat a colour")
    if value != "".join(c for c in COLOUR_ORDER if c in value):
        raise RulesError(f"colours {value!r} must be in canonical order {COLOUR_ORDER!r}")


def _int_at_least(low: int, high: int | None = None) -> Any:
    def check(_: Any, attribute: attrs.Attribute[int], value: int) -> None:
        if type(value) is not int:
            raise RulesError(f"{attribute.name} must be a whole number, not {value!r}")
        if value < low or (high is not None and value > high):
            span = f"at least {low}" if high is None else f"between {low} and {high}"
            raise RulesError(f"{attribute.name} must be {span}, not {value}")

    return check


def _bool(_: Any, attribute: attrs.Attribute[bool], value: bool) -> None:
    if type(value) is not bool:
        raise RulesError(f"{attribute.name} must be true or false, not {value!r}")


@attrs.frozen(kw_only=True)
class Rules:
    """One ruleset: the rules table of ``shared/rules/notty.md`` as data.

    ``hand_limit=0`` and ``turn_limit=0`` mean "no limit". ``quiet_rounds``: the game is drawn
    (no winner, "no progress") once that many whole rounds in a row (that many turns of each
    player) have passed with no hand changed over any turn; 0 turns the rule off.
    """

    name: str = attrs.field(default="custom", validator=attrs.validators.instance_of(str))
    colours: str = attrs.field(default="RYGB", validator=_check_colours)
    numbers: int = attrs.field(default=10, validator=_int_at_least(1, 99))
    copies: int = attrs.field(default=2, validator=_int_at_least(1, 9))
    min_players: int = attrs.field(default=2, validator=_int_at_least(2, 8))
    max_players: int = attrs.field(default=3, validator=_int_at_least(2, 8))
    hand_size: int = attrs.field(default=5, validator=_int_at_least(1))
    hand_limit: int = attrs.field(default=20, validator=_int_at_least(0))
    shortest_run: int = attrs.field(default=3, validator=_int_at_least(2))
    smallest_set: int = attrs.field(default=3, validator=_int_at_least(2))
    draw_and_discard: bool = attrs.field(default=False, validator=_bool)
    last_card_stolen_wins: bool = attrs.field(default=True, validator=_bool)
    max_draw: int = attrs.field(default=3, validator=_int_at_least(1))
    turn_limit: int = attrs.field(default=0, validator=_int_at_least(0))
    quiet_rounds: int = attrs.field(default=3, validator=_int_at_least(0))

    def __attrs_post_init__(self) -> None:
        if self.max_players < self.min_players:
            raise RulesError(f"max_players ({self.max_players}) is below min_players ({self.min_players})")
        dealt = self.max_players * self.hand_size
        if dealt > self.deck_size:
            raise RulesError(
                f"a deck of {self.deck_size} cards cannot deal {self.hand_size} cards "
                f"to each of {self.max_players} players"
            )
        if self.hand_limit and self.hand_limit < self.hand_size:
            raise RulesError(f"hand_limit ({self.hand_limit}) is below the {self.hand_size} cards dealt")
        if self.shortest_run > self.numbers and self.smallest_set > len(self.colours):
            raise RulesError(
                f"no group is possible: a run needs {self.shortest_run} numbers (there are {self.numbers}) "
                f"and a set needs {self.smallest_set} colours (there are {len(self.colours)})"
            )

    @property
    def deck_size(self) -> int:
        return len(self.colours) * self.numbers * self.copies

    @property
    def smallest_group(self) -> int:
        return min(self.shortest_run, self.smallest_set)

    def full_deck(self) -> list[Card]:
        """Every card of the game, in canonical order."""
        return [
            Card.of(colour, number)
            for colour in self.colours
            for number in range(1, self.numbers + 1)
            for _ in range(self.copies)
        ]

    def allows(self, card: Card) -> bool:
        """Is this card part of this game's deck?"""
        return card.colour in self.colours and card.number <= self.numbers

    def at_limit(self, hand_size: int) -> bool:
        return bool(self.hand_limit) and hand_size >= self.hand_limit

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed, validated like any ruleset."""
        unknown = set(changes) - {a.name for a in attrs.fields(Rules)}
        if unknown:
            raise RulesError(f"unknown rule field(s): {', '.join(sorted(unknown))}")
        return attrs.evolve(self, **changes)


#: The fields a table may set for itself, by the name it sets them with (``new classic
#: cards_dealt 7``): all but the deck's and the players', which its variant and seats fix.
TABLE_FIELDS = {
    "cards_dealt": "hand_size",
    "hand_limit": "hand_limit",
    "shortest_run": "shortest_run",
    "smallest_set": "smallest_set",
    "draw_and_discard": "draw_and_discard",
    "last_card_stolen_wins": "last_card_stolen_wins",
}

#: A table's yes-or-no rule set to this keeps its preset's (a number's 0 does, but for hand_limit).
PRESETS_OWN = "preset"


def table_fields(rules: Rules) -> dict[str, Any]:
    """``rules``' values of :data:`TABLE_FIELDS`, by the names a table sets them with."""
    return {name: getattr(rules, field) for name, field in TABLE_FIELDS.items()}


def with_table_fields(rules: Rules, fields: Mapping[str, Any]) -> Rules:
    """``rules`` with some of :data:`TABLE_FIELDS` set, named as a table names them."""
    return rules.replace(**{TABLE_FIELDS[name]: value for name, value in fields.items()})


def with_table_options(rules: Rules, options: Mapping[str, Any]) -> Rules:
    """``rules`` with what a table's options (its settings, or its line in the lobby's list) set of
    :data:`TABLE_FIELDS`: a number's 0 or ``preset`` keeps the rule (but ``hand_limit`` 0 is no
    limit), ``yes`` and ``no`` set a yes-or-no; one not given (a record of before) keeps it too.
    The server plays, and the client shows, a table's rules by this one reading."""
    fields = {name: option_value(name, options.get(name, PRESETS_OWN)) for name in TABLE_FIELDS}
    return with_table_fields(rules, {name: value for name, value in fields.items() if value is not None})


def option_value(name: str, value: Any) -> Any:
    """The rule a table's option ``name`` set to ``value`` plays (``yes`` true, ``no`` false, a
    number as it is), or ``None`` where it keeps its preset's: a number's 0 (but ``hand_limit``'s,
    which is no limit), or ``preset``."""
    if value == PRESETS_OWN or (value == 0 and name != "hand_limit"):
        return None
    return value == "yes" if isinstance(value, str) else int(value)


CLASSIC = Rules(name="classic")
FIVE_COLOUR = Rules(
    name="five-colour",
    colours="RYGBK",
    numbers=9,
    hand_size=4,
    smallest_set=4,
    draw_and_discard=True,
)

PRESETS: dict[str, Rules] = {CLASSIC.name: CLASSIC, FIVE_COLOUR.name: FIVE_COLOUR}


def rules_from(preset: str = "classic", **overrides: Any) -> Rules:
    """A preset by name, with single fields overridden: ``rules_from("classic", hand_limit=0)``.

    The result keeps the preset's name: overrides are table settings on top of it.
    """
    try:
        base = PRESETS[preset]
    except (KeyError, TypeError):
        raise RulesError(f"unknown preset {preset!r}: presets are {', '.join(PRESETS)}") from None
    return base.replace(**overrides) if overrides else base
