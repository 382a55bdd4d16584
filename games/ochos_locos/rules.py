"""The ruleset: the two rule switches of parts 2 and 3 and the table size of part 4.

Each part of the source problem adds one switch, so the parts are presets of one
:class:`Rules` and any combination can be played.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

#: Cards dealt to each player.
HAND_SIZE = 5
MIN_PLAYERS = 2
#: Six hands of five and a starting card leave a draw pile of one.
MAX_PLAYERS = 6


class RulesError(ValueError):
    """A ruleset the game cannot be played with."""


def _check_players(_instance: object, _attribute: object, value: int) -> None:
    if type(value) is not int or not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise RulesError(
            f"{value!r} players: Ochos Locos is for {MIN_PLAYERS} to {MAX_PLAYERS} players "
            f"({MAX_PLAYERS} hands of {HAND_SIZE} and a starting card leave a draw pile of one)"
        )


@attrs.frozen
class Rules:
    """Which rules are on.

    ``twos``: a 2 must be answered with a 2 by the next player if they hold one; if not, they take two.
    ``eights``: whoever plays an 8 (not as their last card) names a colour.
    """

    twos: bool = False
    eights: bool = False
    players: int = attrs.field(default=3, validator=_check_players)

    def with_players(self, players: int) -> Rules:
        """The same switches at a table of ``players``."""
        return attrs.evolve(self, players=players)


#: The four parts of the problem; part 4 is part 3 with the table size read from the input.
PRESETS: Mapping[str, Rules] = MappingProxyType(
    {
        "part1": Rules(),
        "part2": Rules(twos=True),
        "part3": Rules(twos=True, eights=True),
        "part4": Rules(twos=True, eights=True),
    }
)
