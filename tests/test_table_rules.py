"""A Notty table may set any of its preset's rules but the deck's and the players' (the rules text:
"a table can be created with any preset and with single fields overridden"): the server plays
them, bots play to an end under them, and the client checks and says the table's, not its preset's."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_client_session import TOKEN, notty_view, seated, table_info, welcomed
from test_host import Net

from games import GAMES
from games._interface import ActionError, SettingsError
from games._ui import TableView
from games.notty import PRESETS, TABLE_FIELDS, Card
from games.notty import game as notty_game
from games.notty._rules import table_fields
from games.notty.game import NottyMatch, rules_for
from games.notty.ui import UI, CommandError, GameDataError, still_possible, table_rules
from protocol import CreateTable, Seated, Tables
from server.replay import print_game
from server.store import Store

NOTTY = GAMES["notty"]
#: A value for each field unlike both presets', as a table sets it.
UNLIKE = {
    "cards_dealt": 6,
    "hand_limit": 12,
    "shortest_run": 4,
    "smallest_set": (4, 3),
    "draw_and_discard": ("yes", "no"),  # (unlike classic's, unlike five-colour's)
    "last_card_stolen_wins": ("no", "no"),
}


def _unlike(name: str, preset: str) -> Any:
    value = UNLIKE[name]
    return value[0 if preset == "classic" else 1] if isinstance(value, tuple) else value


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("name", list(TABLE_FIELDS))
def test_each_rule_a_table_sets_is_played_and_unset_keeps_the_presets(preset: str, name: str) -> None:
    field = TABLE_FIELDS[name]
    assert getattr(rules_for(NOTTY.settings(preset, 3, {})), field) == getattr(PRESETS[preset], field)
    value = _unlike(name, preset)
    played = getattr(rules_for(NOTTY.settings(preset, 3, {name: value})), field)
    assert played == ({"yes": True, "no": False}[value] if isinstance(value, str) else value)
    assert played != getattr(PRESETS[preset], field)


@pytest.mark.parametrize(
    ("preset", "options", "said"),
    [
        ("classic", {"shortest_run": 1}, "shortest_run must be at least 3, not 1"),  # not 'at least 2',
        ("classic", {"smallest_set": 1}, "smallest_set must be at least 3, not 1"),  # then refused at 2
        ("classic", {"shortest_run": 2}, "shortest_run must be at least 3, not 2: with groups of 2, hints"),
        ("five-colour", {"smallest_set": 2}, "smallest_set must be at least 3, not 2"),
        (
            "classic",
            {
                "cards_dealt": 1,
                "hand_limit": 3,
                "shortest_run": 4,
                "smallest_set": 4,
                "last_card_stolen_wins": "no",
            },
            "hand_limit 3 is below the smallest group (4 cards) and a last card may not be stolen: no hand",
        ),
        (
            "five-colour",
            {"shortest_run": 10},
            "shortest_run 10 is more than the 9 numbers of a five-colour colour",
        ),
        ("classic", {"shortest_run": 11}, "shortest_run is a whole number from 0 to 10, not 11"),
        (
            "classic",
            {"smallest_set": 5},
            "smallest_set 5 is more than the 4 colours of classic: no set could be made",
        ),
        ("classic", {"smallest_set": 6}, "smallest_set is a whole number from 0 to 5, not 6"),
        ("classic", {"cards_dealt": 21}, "cards_dealt is a whole number from 0 to 20, not 21"),
        ("classic", {"cards_dealt": 9, "hand_limit": 8}, "hand_limit (8) is below the 9 cards dealt"),
        ("classic", {"draw_and_discard": "maybe"}, "draw_and_discard is one of preset, yes, no, not 'maybe'"),
        (
            "classic",
            {"last_card_stolen_wins": True},
            "last_card_stolen_wins is one of preset, yes, no, not True",
        ),
    ],
)
def test_rules_no_table_can_play_are_refused_in_words(
    preset: str, options: dict[str, Any], said: str
) -> None:
    with pytest.raises(SettingsError) as refused:  # the rules', or this server's, as a table is made
        NOTTY.offered(NOTTY.settings(preset, 2, options))
    assert refused.value.code == "bad-option" and refused.value.message.startswith(said)


def _match(preset: str, seats: int, options: dict[str, Any], seed: int = 3) -> NottyMatch:
    match = NOTTY.new_match(
        NOTTY.settings(preset, seats, options), ["ann", "bob", "cy"][:seats], random.Random(seed)
    )
    assert isinstance(match, NottyMatch)
    return match


def test_the_table_deals_its_own_number_of_cards() -> None:
    match = _match("five-colour", 3, {"cards_dealt": 9})
    assert [len(hand) for hand in match.game.hands] == [9, 9, 9]
    assert match.game.deck_size == 90 - 27


@pytest.mark.parametrize(
    ("preset", "value", "offered"), [("classic", "yes", True), ("five-colour", "no", False)]
)
def test_draw_and_discard_is_offered_where_the_table_has_it(preset: str, value: str, offered: bool) -> None:
    match = _match(preset, 2, {"draw_and_discard": value})
    assert ("dd" in match.legal_actions(match.current)) is offered
    if not offered:
        with pytest.raises(Exception, match="draw-and-discard"):
            match.apply(match.current, match.parse_action("dd"))


def test_a_group_is_what_the_table_says_it_is() -> None:
    """Classic's set of 3 is no group at a table of sets of 4; five-colour's set of 3 is one at a table
    of sets of 3."""
    cards = tuple(Card.parse(word) for word in ("R5", "Y5", "G5", "B7", "B8", "B9"))
    stricter = _match("classic", 2, {"smallest_set": 4, "shortest_run": 4})
    looser = _match("five-colour", 2, {"smallest_set": 3})
    for match in (stricter, looser):
        seat = match.current
        match.game.hands[seat] = sorted(cards)
    assert not any(action.startswith("discard") for action in stricter.legal_actions(stricter.current))
    legal = looser.legal_actions(looser.current)
    assert "discard R5 Y5 G5" in legal and "discard B7 B8 B9" in legal


def test_a_lone_card_cannot_be_stolen_where_its_theft_would_not_win() -> None:
    match = _match("classic", 2, {"last_card_stolen_wins": "no"})
    victim = 1 - match.current
    match.game.hands[victim] = [Card.parse("R1")]
    assert not any(action.startswith("steal") for action in match.legal_actions(match.current))


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from(list(PRESETS)),
    seats=st.sampled_from([2, 3]),
    dealt=st.sampled_from([0, 1, 3, 8]),
    limit=st.sampled_from([0, 8, 20]),
    run=st.sampled_from([0, 3, 4]),
    group=st.sampled_from([0, 3, 4]),
    dd=st.sampled_from(["preset", "yes", "no"]),
    stolen=st.sampled_from(["preset", "yes", "no"]),
    bots=st.lists(
        st.sampled_from(["random", "greedy", "qlearn", "expert-easy", "expert-hard"]), min_size=3, max_size=3
    ),
    seed=st.integers(0, 2**16),
)
def test_every_bot_plays_any_table_rules_to_an_end_with_every_card_kept(
    preset: str,
    seats: int,
    dealt: int,
    limit: int,
    run: int,
    group: int,
    dd: str,
    stolen: str,
    bots: list[str],
    seed: int,
) -> None:
    options = {"cards_dealt": dealt, "hand_limit": limit, "shortest_run": run, "smallest_set": group}
    options |= {"draw_and_discard": dd, "last_card_stolen_wins": stolen, "turn_limit": 60}
    try:
        settings_ = NOTTY.settings(preset, seats, options)
    except SettingsError:
        return  # (a limit below the cards dealt: refused, as above)
    match = NOTTY.new_match(settings_, ["a", "b", "c"][:seats], random.Random(seed))
    assert isinstance(match, NottyMatch)
    players = [NOTTY.new_bot(bot, settings_, random.Random(seed + at)) for at, bot in enumerate(bots[:seats])]
    deck = match.game.rules.deck_size
    while not match.over:
        seat = match.current
        match.apply(seat, players[seat].choose(match.bot_view(seat)))
        held = sum(len(hand) for hand in match.game.hands)
        assert held + match.game.deck_size == deck
        if limit:
            assert all(len(hand) <= limit for hand in match.game.hands)
    assert match.turn <= 60


# -- the client ------------------------------------------------------------------------------------


def _view(rules: dict[str, Any], variant: str = "classic", **counts: int) -> TableView:
    body = {
        "hands": [["R5", "Y5", "G5"], ["B1"]],
        "deck_size": 70,
        **dict.fromkeys(("drew", "stole", "exchanged", "must_put_back"), False),
        "rules": rules,
        **counts,  # turn_limit, quiet_rounds, quiet_turns, where a test says them
    }
    return TableView("notty", variant, ("ann", "bob"), 0, 0, 3, (), None, UI.read_body(body, ["ann", "bob"]))


def test_the_client_knows_the_tables_rules_from_its_view() -> None:
    table = table_rules(
        _view({"smallest_set": 4, "hand_limit": 0, "draw_and_discard": True, "cards_dealt": 7})
    )
    assert table is not None
    assert (table.smallest_set, table.hand_limit, table.draw_and_discard, table.hand_size) == (4, 0, True, 7)
    assert table_rules(_view({})) == PRESETS["classic"]  # a server before the rules were said
    with pytest.raises(GameDataError, match=r"body\.rules: no rule 'colours'"):
        _view({"colours": "RY"})
    with pytest.raises(GameDataError, match=r"body\.rules\.draw_and_discard: not true or false"):
        _view({"draw_and_discard": 1})
    with pytest.raises(GameDataError, match=r"body\.rules\.hand_limit: not a whole number"):
        _view({"hand_limit": True})
    with pytest.raises(GameDataError, match=r"body\.rules\.cards_dealt: not a whole number"):
        _view({"cards_dealt": 0, "draw_and_discard": True})  # (read as the whole preset, the dd lost too)
    assert table_rules(_view({"hand_limit": 0})).hand_limit == 0  # type: ignore[union-attr]
    # Options in the lobby's list a server would not send are no table's rules: the preset's are said.
    for odd in ({"cards_dealt": True}, {"smallest_set": "4"}, {"draw_and_discard": 1}, {"hand_limit": -1}):
        assert "own rules" not in UI.rules("classic", None, odd), odd
    assert "own rules" in UI.rules("classic", None, {"cards_dealt": 7})


def test_the_client_checks_a_discard_and_says_the_rules_by_the_tables_rules() -> None:
    strict = _view({"smallest_set": 4})
    with pytest.raises(Exception, match="not a group"):
        UI.action("discard", ["R5", "Y5", "G5"], strict)
    assert UI.action("discard", ["R5", "Y5", "G5"], _view({})) == "discard R5 Y5 G5"
    said = UI.rules("classic", attrs.evolve(strict, body=_view({"smallest_set": 4, "hand_limit": 0}).body))
    lines = said.splitlines()
    at = lines.index("  this table's own rules (classic's in brackets):")
    assert lines[at + 1 : at + 3] == ["    hand limit none (20)", "    smallest set 4 (3)"]
    assert "a set: 4+ cards" in said
    # ann's 3 cards are a full hand at a table of hand_limit 3, not at classic's 20
    assert still_possible(_view({"hand_limit": 3, "cards_dealt": 3})) == ["discard", "end the turn"]
    assert still_possible(_view({})) == ["draw", "steal", "discard", "end the turn"]
    assert "own rules" not in UI.rules("classic", _view({}))
    assert "own rules" not in UI.rules("classic", None)


def test_a_table_of_its_own_rules_is_played_over_the_host_and_listed_by_what_it_changed() -> None:
    net = Net()
    ann = net.client("ann")
    options = {"draw_and_discard": "yes", "smallest_set": 4}
    ann.send(CreateTable("notty", 2, "classic", ("greedy",), options, bot_delay_ms=0))
    rules = ann.table.match.game.rules  # type: ignore[attr-defined]
    assert (rules.draw_and_discard, rules.smallest_set, rules.shortest_run) == (True, 4, 3)
    said = ann.view["body"]["rules"]
    assert said == {
        "smallest_set": 4,
        "draw_and_discard": True,
    }  # what is not classic's: sent with every move
    session = welcomed()
    assert seated(session, notty_view(body={"rules": said}))  # read without complaint
    assert session.catalog is not None
    options = dict(ann.table.settings.options)
    assert session.catalog.describe("notty", "classic", options, ["greedy"]) == (
        "classic, draw_and_discard yes, smallest_set 4, limit 300"
    )


# -- found by a play-test -------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_rule_set_to_the_presets_own_value_is_no_change(preset: str) -> None:
    """'new classic draw_and_discard no cards_dealt 5' was listed as changing both."""
    same = {name: value for name, value in table_fields(PRESETS[preset]).items() if name != "hand_limit"}
    asked = {
        name: ("yes" if value else "no") if isinstance(value, bool) else value for name, value in same.items()
    }
    options = NOTTY.settings(preset, 2, asked).options
    assert {name: options[name] for name in asked} == {name: NOTTY.options[name].default for name in asked}
    assert rules_for(NOTTY.settings(preset, 2, asked)) == rules_for(NOTTY.settings(preset, 2, {}))


@pytest.mark.parametrize(
    ("preset", "said"),
    [
        ("five-colour", "this table's rules have no draw-and-discard"),
        ("classic", "the classic rules have none"),
    ],
)
def test_a_refused_draw_and_discard_says_whose_rules_have_none(preset: str, said: str) -> None:
    match = _match(preset, 2, {"draw_and_discard": "no"})
    for action in ("dd", "putback R1"):
        with pytest.raises(ActionError) as refused:
            match.apply(match.current, match.parse_action(action))
        assert str(refused.value) == said.replace("have none", "have no draw-and-discard")


def _three(hands: list[list[str]], legal: tuple[str, ...] = ()) -> TableView:
    body = {
        "hands": hands,
        "deck_size": 60,
        **dict.fromkeys(("drew", "stole", "exchanged", "must_put_back"), False),
        "rules": {"last_card_stolen_wins": False},
    }
    read = UI.read_body(body, ["ann", "bob", "cy"])
    return TableView("notty", "classic", ("ann", "bob", "cy"), 2, 2 if legal else 0, 9, legal, None, read)


def test_where_a_last_card_may_not_be_stolen_no_one_is_told_it_may() -> None:
    assert "steal" not in still_possible(_three([["R1"], ["Y2"], ["G3"]]))
    assert "steal" in still_possible(_three([["R1"], ["Y2", "Y3"], ["G3"]]))  # bob's two cards
    ours = _three([["R1"], ["Y2", "Y3"], ["G3"]], legal=("steal 1", "draw 1", "end"))
    with pytest.raises(CommandError) as asked:
        UI.action("steal", [], ours)
    assert str(asked.value) == "steal from whom? 'steal bob'"  # not ann, whose last card is kept


def test_rules_at_a_table_waiting_for_players_are_the_tables() -> None:
    session = welcomed()
    session.sending(*session.typed("new classic human smallest_set 4 draw_and_discard yes").messages)
    session.receive(Seated(3, 0, TOKEN))
    assert "own rules" not in session.typed("rules").say  # (what the list says is not yet known)
    session.receive(Tables([table_info(3, ["ann", None], smallest_set=4, draw_and_discard="yes")]))
    said = session.typed("rules").say.splitlines()
    at = said.index("  this table's own rules (classic's in brackets):")
    assert said[at + 1 : at + 3] == ["    smallest set 4 (3)", "    draw and discard: yes (no)"]


def test_a_misspelt_option_is_named_as_one_and_a_numbers_value_offers_no_words() -> None:
    session = welcomed()
    said = session.typed("new classic hand_limt 5").say
    assert said.startswith(
        "Notty has no option 'hand_limt' (did you mean 'hand_limit'?): its options are level, "
    )
    assert "'expert-esy' is not a player here" in session.typed("new classic expert-esy").say
    # (a review: any word with '_' was taken for an option, and 'limit' was no guess)
    assert session.typed("new classic expert_hard").say.endswith("did you mean 'expert-hard'?")
    assert session.typed("new classic limt 5").say.startswith(
        "Notty has no option 'limt' (did you mean 'limit'?)"
    )
    assert session.completions("new classic hand_limit ", "") == []
    assert session.completions("new classic limit ", "") == []


def test_the_board_says_a_table_plays_its_own_rules() -> None:
    header = UI.state_text(3, _view({"smallest_set": 4}), [], colour=False).splitlines()[0]
    assert header.startswith("table 3 · classic, own rules ('rules') · turn 3 · ")
    assert UI.state_text(3, _view({"smallest_set": 3}), [], colour=False).startswith(
        "table 3 · classic · turn 3"
    )


def test_a_replay_says_the_rules_the_table_set(tmp_path: Path) -> None:
    """'replay 6' of a game with 2-card sets read as breaking the rules."""
    net = Net()
    ann = net.client("ann")
    ann.send(CreateTable("notty", 2, "classic", ("greedy",), {"smallest_set": 4}, bot_delay_ms=0))
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    saved = store.game(ann.table.id)
    store.close()
    assert saved is not None
    out = io.StringIO()
    print_game(saved, out)
    assert out.getvalue().splitlines()[1] == "      played with smallest_set 4, turn_limit 300"


def test_a_table_of_its_presets_rules_sends_none() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(CreateTable("notty", 2, "five-colour", ("greedy",), {"smallest_set": 4}, bot_delay_ms=0))
    assert "rules" not in ann.view["body"]  # five-colour's own: no bytes for it with each move


def test_a_hand_limit_below_every_group_is_a_game_won_by_theft_where_a_stolen_last_card_wins() -> None:
    """A review: refused as a game nobody could win, though a stolen last card wins it."""
    NOTTY.offered(NOTTY.settings("classic", 2, {"cards_dealt": 1, "hand_limit": 2}))  # not refused


def test_a_table_whose_hands_are_dealt_full_with_no_room_for_a_group_is_refused() -> None:
    """A play-test's 'hand_limit 3 cards_dealt 3 shortest_run 4 smallest_set 4' was a stalemate at the
    deal, recorded with no move: nobody could draw, steal (every hand at the limit) or discard."""
    options = {"hand_limit": 3, "cards_dealt": 3, "shortest_run": 4, "smallest_set": 4}
    with pytest.raises(SettingsError, match="fills every hand to hand_limit 3, below the smallest group"):
        NOTTY.offered(NOTTY.settings("classic", 2, options))
    NOTTY.offered(NOTTY.settings("classic", 2, {**options, "hand_limit": 4}))  # room for a group: played


def _recorded_under_other_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A game of sets of 2, as a server that hosted them recorded it (a review: this server's own
    limits, checked on records too, left such a game neither restored nor replayed)."""
    monkeypatch.setattr(notty_game, "SMALLEST_GROUP", 2)  # a server of before
    net = Net()
    ann = net.client("ann")
    ann.send(CreateTable("notty", 2, "classic", ("greedy",), {"smallest_set": 2}, bot_delay_ms=0))
    assert ann.table.match.game.rules.smallest_set == 2  # type: ignore[attr-defined]
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    saved = store.game(ann.table.id)
    store.close()
    monkeypatch.setattr(notty_game, "SMALLEST_GROUP", 3)  # this server
    assert saved is not None
    with pytest.raises(SettingsError):
        NOTTY.offered(saved.begun.settings)
    return saved


def test_a_game_recorded_under_other_limits_is_replayed_and_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved = _recorded_under_other_limits(tmp_path, monkeypatch)
    out = io.StringIO()
    print_game(saved, out)
    assert out.getvalue().splitlines()[1] == "      played with smallest_set 2, turn_limit 300"
    net = Net()
    net.host.restore(saved, net.now)
    assert net.host.tables[saved.begun.table].match.game.rules.smallest_set == 2  # type: ignore[attr-defined]


def test_a_tables_rules_say_its_own_no_progress_rule_and_turn_limit() -> None:
    """A play-test's table of 'quiet 2 limit 40' was told the rules' 3 whole rounds (or the table's
    'quiet'), and no limit, though the lobby's list showed both."""

    def at(**counts: int) -> TableView:
        return _view({}, quiet_turns=0, **counts)

    said = UI.rules("classic", at(quiet_rounds=2, turn_limit=40))
    assert "    no hand changed for 2 whole rounds; the turn limit, 40 turns" in said.splitlines()
    said = UI.rules("classic", at(quiet_rounds=0, turn_limit=0))
    assert "    no rule of no progress; no turn limit" in said.splitlines()
    said = UI.rules("classic", at(quiet_rounds=1, turn_limit=300))
    assert "    no hand changed for 1 whole round; the turn limit, 300 turns" in said.splitlines()
    assert "(or the table's 'quiet')" in UI.rules("classic", None)  # away from a table: how a table sets it
