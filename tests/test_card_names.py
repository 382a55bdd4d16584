"""A card the table's game has no such card of is named as that, not as a card you do not hold."""

from __future__ import annotations

import pytest
from test_client_fixes import _notty, _refusal


@pytest.mark.parametrize(
    ("variant", "line", "says"),
    [
        (
            "classic",
            "discard R11 R12 R13",
            "there is no R11 in classic: a classic card is a colour letter (R, Y, G, B) and a number (1 to 10)",  # noqa: E501,
        ),
        ("classic", "discard K1 K2 K3", "there is no K1 in classic"),
        ("classic", "putback K3", "there is no K3 in classic"),
        ("classic", "discard Z1 Z2 Z3", "'Z1' is not a card: a classic card is a colour letter (R, Y, G, B)"),
        (
            "five-colour",
            "discard K10 R10 Y10",
            "there is no K10 in five-colour: a five-colour card is a colour letter (R, Y, G, B, K) and a number (1 to 9)",  # noqa: E501,
        ),
    ],
)
def test_a_card_not_in_the_preset_is_named_as_such(variant: str, line: str, says: str) -> None:
    said = _refusal(_notty(["B2", "R2", "R1", "B4", "Y9"], variant=variant), line)
    assert said.startswith(says) and "do not hold" not in said, said
