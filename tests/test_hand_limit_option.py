"""A Notty table may set its hand limit: the rules text lets a table override a preset's fields,
and names this one (``hand_limit = 0`` reproduces the older classic game, which had none)."""

from __future__ import annotations

import random

import pytest

from games import GAMES
from games._interface import SettingsError
from games.notty.game import NottyMatch, rules_for

NOTTY = GAMES["notty"]


@pytest.mark.parametrize("preset", ["classic", "five-colour"])
def test_both_presets_keep_their_limit_of_20_unless_a_table_sets_one(preset: str) -> None:
    assert rules_for(NOTTY.settings(preset, 2, {})).hand_limit == 20
    assert rules_for(NOTTY.settings(preset, 2, {"hand_limit": 0})).hand_limit == 0
    assert rules_for(NOTTY.settings(preset, 3, {"hand_limit": 12})).hand_limit == 12


@pytest.mark.parametrize(
    ("preset", "limit", "said"),
    [
        ("classic", 4, "hand_limit (4) is below the 5 cards dealt"),
        ("five-colour", 3, "hand_limit (3) is below the 4 cards dealt"),
        ("classic", 100, "hand_limit is a whole number from 0 to 99, not 100"),
        ("classic", -1, "hand_limit is a whole number from 0 to 99, not -1"),
        ("classic", "20", "hand_limit is a whole number from 0 to 99, not '20'"),
    ],
)
def test_a_limit_the_rules_cannot_play_is_refused_in_words(preset: str, limit: object, said: str) -> None:
    with pytest.raises(SettingsError) as refused:
        NOTTY.settings(preset, 2, {"hand_limit": limit})
    assert refused.value.code == "bad-option" and refused.value.message == said


@pytest.mark.parametrize("limit", [0, 8])
def test_a_hand_grows_to_the_tables_limit_and_no_further(limit: int) -> None:
    """Both players draw all they may and discard nothing."""
    settings = NOTTY.settings("classic", 2, {"hand_limit": limit, "quiet_rounds": 0})
    match = NOTTY.new_match(settings, ["ann", "bob"], random.Random(3))
    assert isinstance(match, NottyMatch)
    game = match.game
    most = 0
    while not game.over and game.turn < 40:
        seat = game.current
        draws = [action for action in match.legal_actions(seat) if action.startswith("draw")]
        if limit and len(game.hands[seat]) >= limit:
            assert draws == []  # at the table's limit: no draw
        if draws:
            match.apply(seat, match.parse_action(max(draws)))
        most = max(most, *(len(hand) for hand in game.hands))
        if not game.over:
            match.apply(seat, match.parse_action("end"))
    assert most == limit if limit else most > 20  # reached and never passed; or past the presets' 20
