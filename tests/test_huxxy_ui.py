"""What the client prints for a huxxy table, and what it completes and sends: pure text from the
server's view, checked without a terminal."""

from __future__ import annotations

import random
import re
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_client_session import seated, shown, welcomed
from test_huxxy_review import match_of

from client.session import read_view
from client.sgr import plain as plain_text
from games import GAMES, ActionError, describe
from games._ui import CommandError, GameDataError, TableView, ui_for
from games.huxxy import CARDS, Card, opening_points
from games.huxxy.ui import MAX_COLUMNS, ONE_A_LINE, UI, WIDTH, Body, HuxxyUI, table_lines
from protocol import Hint, State

HUXXY = describe(GAMES["huxxy"])
RED = "\x1b[1;31m"
CARD = "(?:[A2-90JQK][SHDC]|XX)"


def huxxy_view(**changes: Any) -> dict[str, Any]:
    """A huxxy view as the wire carries it; ``changes`` to the envelope, ``body`` merged into its
    body. Ann (seat 0) has not opened and holds six cards; bob has opened, and it is his turn."""
    body = {
        "hand": ["KS", "7H", "8S", "9H", "7H", "XX"],
        "table": [["AC", "2H", "3S"], ["5C", "5H", "5S"]],
        "invalid": [],
        "stock": 40,
        "sizes": [6, 9, 12],
        "opened": [False, True, False],
        "plays": 0,
        "max_plays": 6,
        "placed": [],
    } | changes.pop("body", {})
    view = {
        "game": "huxxy",
        "variant": "huxxy-jokers",
        "names": ["ann", "bob", "cy"],
        "seat": 0,
        "current": 1,
        "turn": 7,
        "legal": [],
        "result": None,
        "body": body,
    }
    return view | changes


#: Ann to move, nothing played yet.
MY_TURN = huxxy_view(current=0, legal=["draw", "play 7H", "play 7H to 1"])
#: Ann has opened, has played 7H to a new group 3 (not valid yet), and it is her turn.
MID_TURN = huxxy_view(
    current=0,
    legal=["draw", "undo"],
    body={
        "hand": ["KS", "8S", "9H", "7H", "XX"],
        "table": [["AC", "2H", "3S"], ["5C", "5H", "5S"], ["7H"]],
        "invalid": [2],
        "opened": [True, True, False],
        "plays": 1,
        "placed": ["7H"],
    },
)


def _read(raw: dict[str, Any]) -> TableView:
    return read_view(raw, UI)


def state_text(raw: dict[str, Any], events: list[dict[str, Any]] = [], colour: bool = False) -> list[str]:  # noqa: B006
    return UI.state_text(3, _read(raw), events, colour).splitlines()


def test_the_client_plays_huxxy_with_its_own_ui() -> None:
    assert ui_for("huxxy") is UI and isinstance(UI, HuxxyUI)
    assert UI.default_bot in GAMES["huxxy"].bots
    for command in ("play", "move", "undo", "end", "draw"):
        assert UI.is_action(command) and re.search(rf"^  {command} ", UI.help, re.M), command
    assert "'play 7H 8S 9H'" in UI.help and "'move 5C from 2 to 4'" in UI.help
    assert not UI.is_action("hint") and not UI.is_action("discard")


def test_a_seat_sees_the_numbered_groups_its_hand_and_whose_turn() -> None:
    assert state_text(huxxy_view(), [{"kind": "drew", "text": "cy draws a card"}]) == [
        "  cy draws a card",
        "table 3 · huxxy-jokers · turn 7 · stock 40 cards · plays this turn 0/6",
        "   ann [ 6] not opened (you)",
        " > bob [ 9] opened",
        "   cy  [12] not opened",
        " 1  AC 2H 3S",
        " 2  5C 5H 5S",
        "your hand: 7H 7H 8S 9H KS XX",  # by value, as people sort a hand; a joker last
        "bob to play",
    ]


@pytest.mark.parametrize(
    ("width", "header"),
    [
        (80, "stock 40 cards · plays this turn 0/6"),
        (72, "stock 40 cards · plays this turn 0/6"),
        (62, "stock 40 cards · plays 0/6"),
        (60, "stock 40 · plays 0/6"),
    ],
)
def test_the_header_is_shortened_rather_than_split_in_a_narrow_terminal(width: int, header: str) -> None:
    """A play-test at 60 columns: the header's last words went onto a line of their own."""
    (line,) = [
        row for row in UI.state_text(3, _read(huxxy_view()), (), False, width).splitlines() if "plays" in row
    ]
    assert line == f"table 3 · huxxy-jokers · turn 7 · {header}"
    assert len(line) <= width
    over = huxxy_view(result={"ranking": [[1], [0], [2]], "reason": "out", "text": "bob goes out"})
    header = UI.state_text(3, _read(over), (), False, width).splitlines()[0]
    assert (
        header == "table 3 · huxxy-jokers · turn 7 · stock 40 cards"
    )  # not 'plays this turn 0/6' at the end


def test_a_spectator_sees_no_hand_and_an_empty_table_says_so() -> None:
    lines = state_text(huxxy_view(seat=None, body={"hand": None, "table": []}))
    assert lines[1:] == [
        "   ann [ 6] not opened",
        " > bob [ 9] opened",
        "   cy  [12] not opened",
        "the table is empty",
        "bob to play",
    ]


def test_at_our_turn_the_line_says_what_we_may_do_and_an_openings_points() -> None:
    assert state_text(MY_TURN)[-1] == "your turn: play or draw · an opening needs 24 points from your hand"
    lines = state_text(MID_TURN)
    assert lines[-1] == "your turn: play, move, undo or draw · 1 of 6 plays made"  # group 3 is invalid
    not_opened = huxxy_view(
        current=0,
        legal=["draw", "undo", "end"],
        body={"table": [["7H", "8S", "9H"]], "plays": 3, "placed": ["7H", "8S", "9H"], "hand": ["KS"]},
    )
    assert state_text(not_opened)[-2:] == [
        "your turn: play, undo, end or draw · 3 of 6 plays made",
        "  24 points: enough to open",
    ]
    # Enough points, but a group is invalid, so 'end' is refused: not said to be "enough to open".
    pending = huxxy_view(
        current=0,
        legal=["draw", "undo"],
        body={
            "table": [["7H", "8S", "9H"], ["KS"]],
            "plays": 4,
            "placed": ["7H", "8S", "9H", "KS"],
            "hand": ["2C"],
            "invalid": [1],
        },
    )
    assert state_text(pending)[-2:] == [
        "your turn: play, undo or draw · 4 of 6 plays made",
        "  37 points: enough to open once every group is valid",
    ]
    short = huxxy_view(
        current=0,
        legal=["draw", "undo"],
        body={"table": [["7H", "8S", "9H"]], "plays": 1, "placed": ["7H"], "hand": ["KS"]},
    )
    assert (
        state_text(short)[-1] == "your turn: play, undo or draw · 1 of 6 plays made · 7 of 24 points to open"
    )
    with_joker = huxxy_view(
        variant="huxxy-jokers",
        current=0,
        legal=["draw", "undo"],
        body={"table": [["7H", "XX"]], "plays": 2, "placed": ["7H", "XX"], "hand": ["KS"]},
    )
    assert state_text(with_joker)[-1] == "  7 of 24 points to open (a joker counts 0)"
    emptied = huxxy_view(
        current=0, legal=["draw", "undo"], body={"plays": 2, "hand": [], "opened": [True, True, False]}
    )  # nothing to play
    assert state_text(emptied)[-1].startswith("your turn: move, undo or draw · 2 of 6 plays made")
    full = huxxy_view(
        current=0, legal=["draw", "undo", "end"], body={"plays": 6, "opened": [True, True, False]}
    )
    assert state_text(full)[-1] == "your turn: undo, end or draw · 6 of 6 plays made"
    others = huxxy_view(body={"plays": 2})
    assert state_text(others)[-1] == "bob to play: 2 of 6 plays made"


#: Cards placed from the hand this turn, before an opening: short of its points, short with a joker
#: (which counts 0), and enough.
PLACED = (["7H"], ["7H", "XX", "2C", "3D", "4S"], ["7H", "8S", "9H", "KS"])


@pytest.mark.parametrize("opened", [False, True])
@pytest.mark.parametrize("invalid", [[], [0]])
@pytest.mark.parametrize("placed", PLACED)
def test_every_turn_line_fits_an_80_column_terminal(
    opened: bool, invalid: list[int], placed: list[str]
) -> None:
    """In every state of a turn, the turn's lines keep within 79 columns and still say it all: the
    commands, the plays made, the plays left when fewer than six allow, and an opening's points."""
    for plays in range(7):
        for plays_left in sorted({0, 1, 5, 6 - plays, 60}):
            legal = ["draw"] + (["undo"] if plays else [])
            points = opening_points([Card.parse(card) for card in placed[:plays]])
            if plays and not invalid and (opened or points >= 24):
                legal.append("end")
            body = {
                "table": [["7H"]],
                "invalid": invalid,
                "opened": [opened, True, False],
                "plays": plays,
                "plays_left": plays_left,
                "placed": placed[:plays] if plays else [],
            }
            lines = state_text(huxxy_view(current=0, legal=legal, body=body))
            turn = lines[next(index for index, line in enumerate(lines) if line.startswith("your turn: ")) :]
            said = " ".join(turn)
            assert all(len(line) <= 79 for line in lines), "\n".join(lines)
            assert all(line.startswith("  ") for line in turn[1:]), turn  # the rest of one line
            assert (" end or draw" in turn[0]) == ("end" in legal), said
            assert (f"{plays} of 6 plays made" in said) == bool(plays), said
            if plays_left < 6 - plays:
                assert f"{plays_left or 'no'} play" in said and "undone ones counted" in said, said
            if not opened and plays:
                assert "points" in said, said
                assert ("a joker counts 0" in said) == ("XX" in placed[:plays]), said


def test_anothers_turn_and_a_finished_games_line_fit_an_80_column_terminal_whatever_the_names() -> None:
    names = [
        f"{first} Lee Whitfield-{seat:02}".rjust(24, "x")
        for seat, first in enumerate(["Ann", "Bob", "Cy", "Dee"])
    ]
    points = ", ".join(f"{name} {100 + seat}" for seat, name in enumerate(names))
    text = f"the stock is used up; points left: {points}"
    over = huxxy_view(
        names=names,
        result={"ranking": [[0], [1], [2], [3]], "reason": "stock-exhausted", "text": text},
        body={"sizes": [6, 9, 12, 3], "opened": [False, True, False, True]},
    )
    others = huxxy_view(
        names=names, body={"plays": 5, "sizes": [6, 9, 12, 3], "opened": [False, True, False, True]}
    )
    assert state_text(others)[-1] == f"{names[1]} to play: 5 of 6 plays made"
    lines = state_text(over)
    end = lines[next(index for index, line in enumerate(lines) if line.startswith("game over: ")) :]
    assert all(len(line) <= 79 for line in lines), "\n".join(lines)
    assert " ".join(line.strip() for line in end) == f"game over: {text}; 'leave' returns to the lobby"
    for seat, name in enumerate(names):  # and never within a player's points
        assert any(f"{name} {100 + seat}" in line for line in end), end


def test_an_invalid_group_is_marked_and_named() -> None:
    lines = state_text(MID_TURN, [{"kind": "played", "text": "ann plays 7H to a new group 3"}])
    assert lines[0] == "  ann plays 7H to a new group 3"
    assert " 3! 7H  invalid" in lines
    assert "! invalid: group 3; every group must be valid to end the turn" in lines
    assert " 1  AC 2H 3S" in lines  # the valid ones unmarked
    emptied = huxxy_view(
        current=0, legal=["draw", "undo"], body={"table": [["AC", "2H"], [], ["3S", "5C"]], "invalid": [0, 2]}
    )
    lines = state_text(emptied)
    assert " 2  (empty)" in lines  # a group emptied mid-turn keeps its number
    assert "! invalid: groups 1, 3; every group must be valid to end the turn" in lines


def test_an_invalid_group_in_another_players_turn_is_named_as_theirs() -> None:
    """A watcher and the other players read "every group must be valid to end the turn", as if said to
    them, while expert-4 was mid-turn: it is the player on turn's unfinished turn."""
    body = {"table": [["AC", "2H"], [], ["3S", "5C"]], "invalid": [0, 2], "plays": 2}
    names = ["ann", "bob", "cy", "expert-4"]
    sizes = {"sizes": [6, 9, 12, 8], "opened": [False, True, False, True]}
    for seat in (0, None):
        raw = huxxy_view(names=names, seat=seat, current=3, body=body | sizes)
        if seat is None:
            raw["body"]["hand"] = None
        lines = state_text(raw)
        assert "! expert-4's turn so far leaves groups 1, 3 invalid" in lines, lines
        assert not any("every group must be valid" in line for line in lines)
    one = huxxy_view(body={"table": [["AC", "2H", "3S"], ["7H"]], "invalid": [1], "plays": 1})
    assert "! bob's turn so far leaves group 2 invalid" in state_text(one)


def test_a_long_table_in_columns_names_an_invalid_group_in_words_within_the_width() -> None:
    table = [["AC", "2H", "3S"], ["5C", "5H", "5S"], ["9D", "0S", "JH"], ["QS", "QH", "QD"]] * 3
    body = _body([*table[:10], ["AH", "AC"], *table[10:]], invalid=frozenset({10}))
    lines = table_lines(body, colour=False)
    assert len(lines) <= 5 and max(map(len, lines)) <= WIDTH  # in columns, as wide as the screen allows
    (line,) = [line for line in lines if "11!" in line]
    assert "11! AH AC  invalid" in line
    assert lines[-1] == "! invalid: group 11; every group must be valid to end the turn"


def _groups_read_back(lines: list[str]) -> dict[int, tuple[str, list[str]]]:
    """Each group's number, mark and cards, as a person reads the table's lines."""
    found: dict[int, tuple[str, list[str]]] = {}
    for line in lines:
        for number, mark, cards in re.findall(rf"(?<!\S)(\d+)([ !]) ((?:{CARD} )*{CARD})(?!\S)", line):
            assert int(number) not in found, lines
            found[int(number)] = (mark, cards.split())
    return found


def _body(table: list[list[str]], invalid: frozenset[int] = frozenset()) -> Body:
    raw = huxxy_view(body={"table": table, "invalid": sorted(invalid)})["body"]
    body = UI.read_body(raw, ["ann", "bob", "cy"])
    assert isinstance(body, Body)
    return body


GROUP = st.lists(st.sampled_from([str(card) for card in CARDS]), min_size=3, max_size=14)


@settings(max_examples=60, deadline=None)
@given(st.lists(GROUP, max_size=30), st.data())
def test_every_group_is_drawn_once_with_its_number_and_a_long_table_shares_lines(
    table: list[list[str]], data: st.DataObject
) -> None:
    invalid = frozenset(data.draw(st.sets(st.integers(0, len(table) - 1))) if table else ())
    lines = table_lines(_body(table, invalid), colour=False)
    if invalid:
        assert lines.pop().startswith("! invalid: group")
    read = _groups_read_back(lines)
    assert read == {
        index + 1: ("!" if index in invalid else " ", group) for index, group in enumerate(table)
    } or (not table and lines == ["the table is empty"])
    said = [
        int(number) - 1
        for line in lines
        for number in re.findall(rf"(\d+)! (?:{CARD} )*{CARD}  invalid", line)
    ]
    assert sorted(said) == sorted(invalid)  # in every layout, an invalid group says so in words
    # Each group's cell: number and mark, a space, its cards (3 a card), the word if invalid.
    cells = [
        3 + 3 * len(group) + (len("  invalid") if index in invalid else 0)
        for index, group in enumerate(table)
    ]
    if len(table) > ONE_A_LINE and max(cells) <= (WIDTH - 6) // 3:  # such cells always fit 3 a line
        assert len(lines) <= -(-len(table) // 3)
    if len(table) > ONE_A_LINE:  # sharing lines, never wider than the screen: every line but the
        assert max(map(len, lines)) <= WIDTH  # last is too full to take the next group
        widest = max(cells) + 1
        assert len(lines) <= sum(cell + 3 for cell in cells) // (WIDTH - widest) + 1
    assert len(lines) >= -(-len(table) // MAX_COLUMNS)


@settings(max_examples=60, deadline=None)
@given(st.lists(GROUP, min_size=ONE_A_LINE + 1, max_size=30), st.integers(10, 120))
def test_at_any_width_no_group_is_split_and_lines_that_share_fit(table: list[list[str]], width: int) -> None:
    """Laid out for 80 columns, a table of many groups ran 75 to 78 columns wide: a 60-column
    terminal broke lines mid-group, '3S' at one line's end and '3H 3C' under group 1."""
    lines = table_lines(_body(table), colour=False, width=width)
    assert set(_groups_read_back(lines)) == set(range(1, len(table) + 1))  # each group whole, on one line
    for line in lines:
        groups = re.findall(rf"(?<!\S)\d+[ !] (?:{CARD} )*{CARD}(?!\S)", line)
        assert len(groups) == 1 or len(line) <= width, (width, line)  # shared only where they fit


def test_the_table_is_laid_out_for_the_terminals_width_and_again_when_it_changes() -> None:
    runs = [["AC", "2H", "3S", "4H"], ["5C", "5H", "5S", "5D"], ["9D", "0S", "JH"], ["QS", "QH", "QD"]] * 3
    session = welcomed(HUXXY)
    columns = 80
    session.layout_width = lambda: columns
    wide = seated(session, huxxy_view(body={"table": runs}))
    assert max(len(line) for line in wide if _groups_read_back([line])) > 60  # groups side by side
    columns = 44  # the terminal narrowed: the full screen asks for the table again
    narrow = plain_text(session.table_text() or "").splitlines()
    assert set(_groups_read_back(narrow)) == set(range(1, 13))
    assert max(len(line) for line in narrow if _groups_read_back([line])) <= 44  # (prose the client wraps)


def test_a_long_table_fits_an_80_by_24_screen() -> None:
    """Twelve groups, four players, a turn under way: the table pane's text within the rows the
    full screen gives it (24 rows, less the status, the log's rule and three log rows, the input
    line, and up to three rows of the last action) and 80 columns."""
    runs = [["AC", "2H", "3S", "4H"], ["5C", "5H", "5S", "5D"], ["9D", "0S", "JH"], ["QS", "QH", "QD"]] * 3
    raw = huxxy_view(
        names=["ann", "bob", "cy", "dee"],
        current=0,
        legal=["draw"],
        body={
            "table": [*runs, ["7H"]],
            "invalid": [12],
            "sizes": [14, 9, 12, 3],
            "opened": [True, True, False, True],
            "hand": ["2S", "3H", "4C", "6D", "7S", "8H", "9C", "0D", "JS", "QH", "KC", "KD", "AD", "AH"],
            "plays": 1,
            "placed": ["7H"],
        },
    )
    lines = state_text(raw)
    assert len(lines) <= 24 - 3 - 3 - 3 and max(map(len, lines)) <= 80, "\n".join(lines)
    assert set(_groups_read_back(lines)) == set(range(1, 14))
    assert lines[-2].startswith("your hand: ") and lines[-1].startswith("your turn: ")


def test_a_table_of_long_runs_still_leaves_the_hand_on_an_80_by_24_screen() -> None:
    # Runs of 9 to 13 cards are too long for two columns: they share lines side by side.
    long = [str(card) for card in CARDS if card.suit in "SH"]  # A..K of spades then hearts
    table = [long[start : start + 9 + start % 5] for start in range(12)]
    raw = huxxy_view(
        names=["ann", "bob", "cy", "dee"],
        current=0,
        legal=["draw"],
        body={"table": table, "sizes": [5, 9, 12, 3], "opened": [True] * 4, "hand": ["2S", "3H"]},
    )
    lines = state_text(raw)
    assert len(lines) <= 24 - 3 - 3 - 3 and max(map(len, lines)) <= 80, "\n".join(lines)
    assert _groups_read_back(lines) == {index + 1: (" ", group) for index, group in enumerate(table)}
    assert lines[-2] == "your hand: 2S 3H"


def test_colour_only_when_asked_hearts_and_diamonds_red_a_joker_yellow() -> None:
    plain = "\n".join(state_text(MID_TURN, [{"text": "ann plays 7H to a new group 3"}]))
    assert "\x1b[" not in plain
    lines = state_text(MID_TURN, [{"text": "ann plays 7H to a new group 3"}], colour=True)
    assert lines[0] == f"  ann plays {RED}7H\x1b[0m to a new group 3"
    assert f" 1  AC {RED}2H\x1b[0m 3S" in lines
    hand = next(line for line in lines if line.startswith("your hand: "))
    assert hand == f"your hand: {RED}7H\x1b[0m 8S {RED}9H\x1b[0m KS \x1b[1;33mXX\x1b[0m"


@pytest.mark.parametrize("verb", ["play", "move"])
def test_a_wrong_card_name_offers_xx_only_in_huxxy_jokers(verb: str) -> None:
    jokers = _read(MID_TURN)
    plain = attrs.evolve(jokers, variant="huxxy")
    for view in (plain, attrs.evolve(plain, seat=None), attrs.evolve(plain, legal=[])):
        with pytest.raises(CommandError) as error:
            UI.action(verb, ["7Z", "to", "1"], view)
        assert "'7Z' is not a card" in str(error.value) and "XX" not in str(error.value)
    for view in (jokers, None):  # no table: either variant may be meant
        with pytest.raises(CommandError, match=r"'7Z' is not a card: .*, or XX for a joker"):
            UI.action(verb, ["7Z", "to", "1"], view)


def test_completion_offers_cards_groups_and_the_next_word() -> None:
    view = _read(MID_TURN)
    assert UI.commands(view) == ("play", "move", "undo", "draw")  # no end: group 3 is invalid
    emptied = _read(
        huxxy_view(current=0, legal=["draw", "undo"], body={"plays": 2, "hand": [], "opened": [True] * 3})
    )
    assert UI.commands(emptied) == ("move", "undo", "draw")  # as the turn line says: no card to play
    full = _read(
        huxxy_view(current=0, legal=["draw", "undo", "end"], body={"plays": 6, "opened": [True] * 3})
    )
    assert UI.commands(full) == ("undo", "end", "draw")
    assert UI.commands(_read(MY_TURN)) == ("play", "draw")  # not opened, nothing played: no move
    assert UI.complete(["play"], "", view) == ["7H", "8S", "9H", "KS", "XX"]
    assert UI.complete(["play"], "k", view) == ["KS"]
    assert UI.complete(["play", "7h"], "", view) == ["8S", "9H", "KS", "XX", "to"]  # the one 7H is named
    assert UI.complete(["play", "7h", "to"], "", view) == ["1", "2", "3", "new"]
    assert UI.complete(["play", "7h", "to"], "n", view) == ["new"]
    assert UI.complete(["play", "7h", "to", "3"], "", view) == []
    assert UI.complete(["move"], "", view) == ["AC", "2H", "3S", "5C", "5H", "5S", "7H"]
    assert UI.complete(["move"], "5", view) == ["5C", "5H", "5S"]
    assert UI.complete(["move", "5h"], "", view) == ["5C", "5S", "from", "to"]
    assert UI.complete(["move", "5h", "from"], "", view) == ["2"]  # the groups holding 5H
    assert UI.complete(["move", "5h", "from", "2"], "", view) == ["to"]
    assert UI.complete(["move", "5h", "from", "2", "to"], "", view) == ["1", "3", "new"]
    assert UI.complete(["move", "5h", "to"], "", view) == ["1", "3", "new"]  # 5H is in group 2
    assert UI.complete(["move", "5h", "5h", "to"], "", view) == ["1", "2", "3", "new"]  # no group holds two
    assert UI.complete(["undo"], "", view) == [] and UI.complete(["play"], "", None) == []
    # Offered only what may be accepted: a spectator moves nothing, nor a player who has not opened.
    spectator = _read(huxxy_view(seat=None, body={"hand": None}))
    assert UI.complete(["play"], "", spectator) == [] and UI.complete(["move"], "A", spectator) == []
    not_opened = _read(MID_TURN | {"body": MID_TURN["body"] | {"opened": [False, True, False]}})
    assert UI.complete(["move"], "", not_opened) == [] and UI.complete(["play"], "K", not_opened) == ["KS"]


def test_a_group_said_with_its_word_is_read_and_completed() -> None:
    """A play-tester's 'play 7C to new group' was refused, and 'to group' + Tab offered nothing."""
    view = _read(MID_TURN)
    assert UI.action("play", ["KS", "to", "new", "group"], view) == "play KS"
    assert UI.action("play", ["KS", "to", "group", "new"], view) == "play KS"
    assert UI.action("move", ["5H", "from", "group", "2", "to", "new", "group"], view) == "move 5H from 2"
    assert UI.complete(["play", "7h", "to", "group"], "", view) == ["1", "2", "3"]
    assert UI.complete(["play", "7h", "to", "new"], "", view) == ["group"]
    assert UI.complete(["play", "7h", "to", "new", "group"], "", view) == []
    assert UI.complete(["move", "5h", "from", "group"], "", view) == ["2"]
    assert UI.complete(["move", "5h", "from", "group", "2"], "", view) == ["to"]
    assert UI.complete(["move", "5h", "from", "group", "2", "to", "group"], "", view) == ["1", "3"]
    assert UI.complete(["move", "5h", "to", "group"], "", view) == ["1", "3"]
    with pytest.raises(CommandError, match="say one group after 'to'"):
        UI.action("play", ["KS", "to", "new", "group", "2"], view)


def test_plays_and_moves_are_checked_against_the_view_at_our_turn() -> None:
    view = _read(MID_TURN)
    assert UI.action("play", ["8s", "9h", "to", "3"], view) == "play 8S 9H to 3"
    assert UI.action("play", ["KS", "to", "new"], view) == "play KS"
    assert UI.action("move", ["5h", "to", "3"], view) == "move 5H from 2 to 3"  # the one group holding it
    assert UI.action("move", ["AC", "from", "1"], view) == "move AC from 1"
    assert UI.action("move", ["5H", "to", "3", "from", "2"], view) == "move 5H from 2 to 3"  # either order
    assert UI.action("play", ["8s,9h", "to", "3"], view) == "play 8S 9H to 3"  # commas, as in Notty
    assert UI.action("play", ["8S,", "9H"], view) == "play 8S 9H"
    assert UI.action("play", ["8♠", "9♥", "to", "group", "3"], view) == "play 8S 9H to 3"  # as people write
    with pytest.raises(CommandError, match="there are no jokers in huxxy: huxxy-jokers has two"):
        UI.action("play", ["XX"], attrs.evolve(view, variant="huxxy"))
    for verb, args, says in [
        ("play", ["QS"], "you do not hold QS"),
        ("play", ["9H", "9H"], "you hold 1 9H, not 2"),
        ("play", ["7H", "to", "9"], "there is no group 9: groups are numbered 1 to 3; 'to new' starts a new"),
        ("play", ["7H", "to", "99999"], "there is no group 99999: groups are numbered 1 to 3"),
        ("play", ["7H", "to", "9" * 5000], "there is no group 99999999999999999999...: no table has"),
        ("play", ["7Z"], "'7Z' is not a card"),
        ("play", [], "usage: play CARD... [to GROUP]"),
        ("play", ["7H", "to"], "say one group after 'to'"),
        ("play", ["7H", "to", "x"], "'x' is not a group"),
        ("play", ["7H", "from", "2"], "play takes cards from your hand"),
        ("move", ["5H", "from", "1"], "group 1 holds no 5H"),
        ("move", ["5H", "from", "2", "to", "2"], "'from' and 'to' name the same group (2)"),
        ("move", ["5H", "to", "2"], "5H is already in group 2: move to another group, or to new"),
        ("move", ["QS", "to", "1"], "no group holds QS"),
        ("move", ["5H", "from", "7"], "there is no group 7: groups are numbered 1 to 3"),
        ("move", ["from", "2"], "usage: move CARD... [from GROUP] [to GROUP]"),
    ]:
        with pytest.raises(CommandError, match=re.escape(says)):
            UI.action(verb, args, view)
    late = _read(huxxy_view(current=0, legal=["draw"], body={"plays": 4, "opened": [True, True, False]}))
    with pytest.raises(CommandError, match="a turn has at most 6 plays: 2 left, too few for 3"):
        UI.action("play", ["7H", "8S", "9H"], late)
    not_opened = _read(huxxy_view(current=0, legal=["draw"], body={"plays": 1, "placed": ["7H"]}))
    with pytest.raises(CommandError, match="until you have opened you may only play cards from your hand"):
        UI.action("move", ["5H", "from", "2"], not_opened)
    opened = _read(huxxy_view(current=0, legal=["draw"], body={"opened": [True, True, False]}))
    with pytest.raises(CommandError, match="a turn's first play must be a card from your hand"):
        UI.action("move", ["5H", "from", "2"], opened)
    # A play-test's 'move' of a card in its hand, which no group holds: told to play it, opened or not.
    for view in (opened, _read(huxxy_view(current=0, legal=["draw"]))):
        with pytest.raises(CommandError, match=re.escape("KS is in your hand: 'play KS to 2' plays it")):
            UI.action("move", ["KS", "to", "2"], view)
        with pytest.raises(CommandError, match=re.escape("7H 8S are in your hand: 'play 7H 8S' plays them")):
            UI.action("move", ["7H", "8S"], view)


@pytest.mark.parametrize(
    ("table", "opened", "first", "typed", "says"),
    [
        # The play-test: on the first turn, on an empty table, not "there is no group 2: the table is
        # empty; 'to new' starts a new group", but the rule that bars any move yet.
        ([], False, None, "move 7H from 1 to 2", "until you have opened you may only play cards from your"),
        ([], False, None, "move 7H to 2", "until you have opened you may only play cards from your hand"),
        (["AC 2H 3S"], False, "play 7H to new", "move 7H from 2 to 5", "until you have opened you may"),
        (["AC 2H 3S"], True, None, "move 2H from 1 to 5", "a turn's first play must be a card from your"),
        (["AC 2H 3S"], True, "play 7H to new", "move 2H from 4 to 5", "there is no group 4: groups are"),
    ],
)
def test_a_move_is_refused_for_the_rule_that_bars_it_first_as_the_engine_refuses_it(
    table: list[str], opened: bool, first: str | None, typed: str, says: str
) -> None:
    match = match_of(["7H 8S 9H KS", "2D", "3D"], table, [opened])
    if first is not None:
        match.apply(0, match.parse_action(first))
    view = _read(huxxy_view(current=0, variant="huxxy", legal=match.legal_actions(0), body=match.view(0)))
    verb, *args = typed.split()
    with pytest.raises(CommandError) as refused:
        UI.action(verb, args, view)
    assert str(refused.value).startswith(says)
    if " from " in typed:  # the server's words for it are the same (without 'from' its parser looks first)
        with pytest.raises(ActionError) as judged:
            match.apply(0, match.parse_action(typed))
        assert judged.value.message == str(refused.value)


def test_a_seventh_play_is_refused_offering_the_end_only_when_the_turn_may_end() -> None:
    """The play-test's turn: 'play AS 2H 3S', 'play 9S 9H 0D' (group 2 not valid), then 'play QS'."""
    full = {
        "hand": ["QS", "7H"],
        "table": [["AS", "2H", "3S"], ["9S", "9H", "0D"]],
        "invalid": [1],
        "plays": 6,
        "placed": ["AS", "2H", "3S", "9S", "9H", "0D"],
    }
    stuck = _read(huxxy_view(current=0, legal=["draw", "undo"], body=full))
    with pytest.raises(CommandError) as refused:
        UI.action("play", ["QS"], stuck)
    assert str(refused.value) == (
        "a turn has at most 6 plays, and all 6 are made; the turn cannot end while group 2 is not valid: "
        "undo a play, or draw"
    )
    short = full | {"table": [["AS", "2H", "3S"], ["AC", "AH", "AD"]], "invalid": []}
    short |= {"hand": ["QS"], "placed": ["AS", "2H", "3S", "AC", "AH", "AD"]}
    with pytest.raises(
        CommandError, match="cannot end while the opening is 15 points short: undo a play, or draw"
    ):
        UI.action("play", ["QS"], _read(huxxy_view(current=0, legal=["draw", "undo"], body=short)))
    ready = _read(huxxy_view(current=0, legal=["draw", "end", "undo"], body=full | {"invalid": []}))
    with pytest.raises(CommandError, match=r"all 6 are made: end the turn, or undo a play$"):
        UI.action("play", ["QS"], ready)


def test_undo_end_and_draw_take_nothing_and_need_a_play_to_undo_or_end() -> None:
    mid, start = _read(MID_TURN), _read(MY_TURN)
    assert [UI.action(verb, [], mid) for verb in ("undo", "end", "draw")] == ["undo", "end", "draw"]
    with pytest.raises(CommandError, match="nothing has been played this turn to undo"):
        UI.action("undo", [], start)
    with pytest.raises(CommandError, match="nothing has been played this turn: play a card, or draw"):
        UI.action("end", [], start)
    assert UI.action("draw", [], start) == "draw"
    with pytest.raises(CommandError, match="'end' takes nothing after it"):
        UI.action("end", ["now"], mid)


def test_out_of_turn_only_the_hand_is_checked_and_the_server_judges_the_rest() -> None:
    waiting = _read(huxxy_view())
    with pytest.raises(CommandError, match="you do not hold QS"):
        UI.action("play", ["QS"], waiting)
    assert UI.action("play", ["7H", "to", "9"], waiting) == "play 7H to 9"
    assert UI.action("move", ["5H", "to", "1"], waiting) == "move 5H to 1"
    assert UI.action("undo", [], waiting) == "undo"
    assert UI.action("move", ["5H", "from", "2", "to", "new"], None) == "move 5H from 2"
    watching = _read(huxxy_view(seat=None, body={"hand": None}))
    assert UI.action("play", ["QS", "to", "2"], watching) == "play QS to 2"


def test_a_real_matchs_views_are_read_for_a_seat_and_a_spectator() -> None:
    game = GAMES["huxxy"]
    names = ["ann", "bob", "cy", "dee"]
    match = game.new_match(game.settings("huxxy", 4, {}), names, random.Random(5))
    bots = [game.new_bot("random", match.settings, random.Random(seat)) for seat in range(4)]
    while len(match.view(None)["table"]) < 8 and not match.over:  # a table of groups, then a turn begun
        match.apply(match.current, bots[match.current].choose(match.bot_view(match.current)))
    for seat in (match.current, None):
        raw = huxxy_view(
            names=names, seat=seat, current=match.current, turn=match.turn, variant="huxxy",
            legal=match.legal_actions(match.current) if seat is not None else [], body=dict(match.view(seat)),
        )  # fmt: skip
        lines = state_text(raw)
        assert ("your hand: " in "\n".join(lines)) is (seat is not None)
        read = _groups_read_back(lines)
        assert [read[number][1] for number in sorted(read)] == [
            list(map(str, g)) for g in match.view(None)["table"]
        ]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"hand": ["7H", "7Z"]}, "body.hand: '7Z' is not a card"),
        ({"hand": "7H"}, "body.hand: not a list of cards"),
        ({"table": None}, "body.table: not a list of groups"),
        ({"table": [["AC"], "2H"]}, "body.table[1]: not a list of cards"),
        ({"table": [["AC", "1C"]]}, "body.table[0]: '1C' is not a card"),
        ({"invalid": [2]}, "body.invalid: not numbers of groups (0 to 1)"),
        ({"invalid": None}, "body.invalid: not numbers of groups"),
        ({"stock": -1}, "body.stock: not a number of cards"),
        ({"stock": True}, "body.stock: not a number of cards"),
        ({"sizes": [6, 9]}, "body.sizes: not a hand size for each of 3 players"),
        ({"sizes": [6, 9, "12"]}, "body.sizes: not numbers of cards"),
        ({"opened": [True, False]}, "body.opened: not true or false for each of 3 players"),
        ({"opened": [1, 0, 0]}, "body.opened: not true or false"),
        ({"max_plays": 0}, "body.max_plays: not a number of plays"),
        ({"plays": 7}, "body.plays: not a number of plays, 0 to 6"),
        ({"plays": None}, "body.plays: not a number of plays"),
        ({"placed": None}, "body.placed: not a list of cards"),
    ],
)
def test_a_malformed_huxxy_body_is_refused_and_changes_nothing(body: dict[str, Any], says: str) -> None:
    session = welcomed(HUXXY)
    seated(session, huxxy_view())
    before = session.view
    (line,) = shown(session, State(3, huxxy_view(turn=8, body=body), ()))
    assert line.startswith("the server sent a table this client cannot read (body.")
    assert line.endswith("); nothing changed") and says in line
    assert session.view is before


def test_a_body_that_is_not_a_map_is_refused() -> None:
    with pytest.raises(GameDataError, match="body: not a map"):
        UI.read_body(["7H"], ["ann", "bob"])


def test_hints_show_the_commands_to_type_and_a_malformed_one_is_refused() -> None:
    session = welcomed(HUXXY)
    seated(session, MY_TURN)
    text = "play 7H 8S 9H; end: places 3 cards (24 points) in 3 of 6 plays"
    data = {"placed": ["7H", "8S", "9H"], "points": 24}
    lines = shown(session, Hint(text, ("play 7H 8S 9H", "end"), data))
    assert lines == [f"hint: {text}", "      type: play 7H 8S 9H", "      type: end"]
    assert shown(session, Hint("it is not your turn", (), {})) == ["hint: it is not your turn"]
    malformed: list[tuple[dict[str, Any], str]] = [
        ({"placed": ["7Z"]}, "hint data.placed: '7Z' is not a card"),
        ({"points": -1}, "points"),
    ]
    for bad, says in malformed:
        (line,) = shown(session, Hint("draw", ("draw",), bad))
        assert line.startswith("the server sent a hint this client cannot read (hint data") and says in line
    assert (
        UI.hint_text("play 7H", ("play 7H",), {}, True)
        == f"hint: play {RED}7H\x1b[0m\n      type: play {RED}7H\x1b[0m"
    )
    with pytest.raises(GameDataError, match="hint data: not a map"):
        UI.hint_text("draw", ("draw",), ["draw"], False)


def test_rules_are_short_true_and_name_the_document() -> None:
    for variant in ("huxxy", "huxxy-jokers", None):
        text = UI.rules(variant)
        lines = text.splitlines()
        assert len(lines) <= 18 and max(map(len, lines)) <= 110
        assert text.endswith("the whole rules: docs/HUXXY.md")
        assert "1 to 6 plays" in text and "at least\n    24 points" in text and "12 cards to each" in text
        assert ("written XX" in text) is (variant != "huxxy")
    assert "(106 cards)" in UI.rules("huxxy-jokers") and "(104 cards)" in UI.rules("huxxy")
    for variant in ("huxxy-jokers", None):  # the jokers' lines, laid out for how they are named
        first, then = (line for line in UI.rules(variant).splitlines() if "XX:" in line or "48 left" in line)
        assert len(first) > 70 and then.startswith("    ") and len(then) < 80, (first, then)


def test_groups_sharing_lines_line_up_where_columns_of_them_do_not_fit() -> None:
    """At 40 columns the second group of each line started somewhere else on each line."""
    run = ["AC", "2H", "3S", "4H", "5S", "6H"]
    table = [run[:length] if length else ["9D", "9S", "9H"] for length in (6, 0, 4, 0, 5, 0, 3, 0)]
    lines = table_lines(_body(table), colour=False, width=40)
    assert len(lines) == 4 and all(len(line) <= 40 for line in lines)
    starts = {line.index("9D") for line in lines}  # where each line's second group shows its cards
    assert len(starts) == 1, lines
    assert [list(_groups_read_back([line])) for line in lines] == [[1, 2], [3, 4], [5, 6], [7, 8]]


def test_tab_offers_no_play_or_move_that_would_be_refused() -> None:
    """After 6 plays 'play ' and Tab listed the hand; at an opened turn's start 'move ' listed the
    table, though the first play is from the hand (a play-test)."""
    session = welcomed(HUXXY)
    full = huxxy_view(current=0, legal=["draw", "undo", "end"], body={"plays": 6, "opened": [True] * 3})
    seated(session, full)
    assert session.completions("play ", "") == [] and session.completions("move ", "") == []
    start = huxxy_view(current=0, legal=["draw", "play 7H"], body={"plays": 0, "opened": [True] * 3})
    session.receive(State(3, start, ()))
    assert session.completions("move ", "") == [] and session.completions("play ", "")


@pytest.mark.parametrize(
    ("number", "shown"),
    [("9" * 19, "9" * 19), ("1" * 40, "1" * 20 + "...")],  # '...' only where the number is cut
)
def test_a_group_number_too_big_for_any_table_is_named_as_typed(number: str, shown: str) -> None:
    with pytest.raises(CommandError) as error:
        UI.action("play", ["7H", "to", number], _read(MID_TURN))
    assert str(error.value) == f"there is no group {shown}: no table has that many"
