"""What the client prints for an Ochos Locos table, and what it completes and sends: pure text from
the server's view, checked without a terminal."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_client_session import seated, shown, welcomed

from client.session import read_view
from games import GAMES, describe
from games._ui import CommandError, GameDataError, TableView, ui_for
from games.ochos_locos.ui import UI, OchosUI
from protocol import Hint, State

OCHOS = describe(GAMES["ochos-locos"])


def ochos_view(**changes: Any) -> dict[str, Any]:
    """An Ochos Locos view as the wire carries it; ``changes`` to the envelope, ``body`` merged into
    its body. Ann (seat 0) holds five cards and it is Bob's turn; the top card is G3."""
    body = {
        "hand": ["Y5", "G8", "R1", "G3", "B2"],
        "top": "G6",
        "named": None,
        "two_pending": False,
        "pile": ["G4", "G6"],
        "stock": 14,
        "sizes": [5, 4, 3],
    } | changes.pop("body", {})
    view = {
        "game": "ochos-locos",
        "variant": "part4",
        "names": ["ann", "bob", "cy"],
        "seat": 0,
        "current": 1,
        "turn": 7,
        "legal": [],
        "result": None,
        "body": body,
    }
    return view | changes


def _read(raw: dict[str, Any]) -> TableView:
    return read_view(raw, UI)


def state_text(raw: dict[str, Any], events: list[dict[str, Any]] = [], colour: bool = False) -> list[str]:  # noqa: B006
    return UI.state_text(3, _read(raw), events, colour).splitlines()


def _event(text: str) -> dict[str, Any]:
    return {"kind": "played", "text": text, "data": {}}


#: Ann to move with G3 and G8 playable on G6 (the 8 naming any colour).
MY_TURN = ochos_view(
    current=0,
    legal=["play G3", "play G8 R", "play G8 Y", "play G8 G", "play G8 B"],
)


def test_the_client_plays_ochos_locos_with_its_own_ui() -> None:
    assert ui_for("ochos-locos") is UI and isinstance(UI, OchosUI)
    assert UI.default_bot in GAMES["ochos-locos"].bots


def test_a_seat_sees_the_table_and_its_own_hand_sorted() -> None:
    assert state_text(ochos_view(), [_event("cy draws 1 card")]) == [
        "  cy draws 1 card",
        "table 3 · part4 · turn 7 · draw pile 14 cards",
        "   ann [ 5] (you)",
        " > bob [ 4]",
        "   cy  [ 3]",
        "top card: G6",
        "your hand: R1 Y5 G3 G8 B2",
        "bob to play",
    ]


def test_at_its_turn_the_playable_cards_are_marked_and_an_eights_colours_are_one_choice() -> None:
    lines = state_text(MY_TURN)
    assert lines[1] == " > ann [ 5] (you)"
    assert lines[-2:] == ["your hand: R1 Y5 G3* G8* B2", "your turn: play G3, play G8 COLOUR"]


def test_a_spectator_sees_no_hand() -> None:
    lines = state_text(ochos_view(seat=None, body={"hand": None}))
    assert lines == [
        "table 3 · part4 · turn 7 · draw pile 14 cards",
        "   ann [ 5]",
        " > bob [ 4]",
        "   cy  [ 3]",
        "top card: G6",
        "bob to play",
    ]


def test_after_an_8_the_named_colour_is_shown() -> None:
    raw = ochos_view(
        current=0,
        legal=["play R1"],
        body={"top": "B8", "named": "R", "pile": ["G6", "B8"], "sizes": [5, 3, 3], "stock": 1},
    )
    lines = state_text(raw, [_event("bob plays B8 and names R")])
    assert lines[0] == "  bob plays B8 and names R"
    assert lines[1] == "table 3 · part4 · turn 7 · draw pile 1 card"
    assert lines[-3:] == [
        "top card: B8 · colour named: R",
        "your hand: R1* Y5 G3 G8 B2",
        "your turn: play R1",
    ]


def test_a_pending_2_is_shown_with_how_to_answer_it() -> None:
    raw = ochos_view(current=0, legal=["play B2"], body={"top": "G2", "two_pending": True})
    assert state_text(raw)[-3:] == [
        "top card: G2 · a 2 to answer: play a 2 or take two",
        "your hand: R1 Y5 G3 G8 B2*",
        "your turn: play B2",
    ]
    without = ochos_view(
        current=0, legal=["take two"], body={"hand": ["R1"], "top": "G2", "two_pending": True}
    )
    assert state_text(without)[-2:] == ["your hand: R1", "your turn: take two"]
    empty = ochos_view(current=0, legal=["draw"], body={"stock": 0, "hand": ["R1"]})
    assert state_text(empty)[-2:] == [
        "the draw pile is empty: drawing or taking two takes nothing and passes your turn",
        "your turn: draw",  # the legal actions alone, as a script reads them
    ]
    # "Draw pile" throughout, as the rules say, not "stock" under a line saying "draw pile" (a play-test).
    assert "draw pile 0 cards" in state_text(empty)[0] and "stock" not in "\n".join(state_text(empty))


def test_the_end_of_the_game() -> None:
    result = {"ranking": [[1], [0, 2]], "reason": "empty-hand", "text": "bob wins"}
    raw = ochos_view(result=result, body={"sizes": [5, 0, 3]})
    lines = state_text(raw, [_event("bob plays G1 and is out"), {"kind": "game-ended", "text": "bob wins"}])
    assert lines[0] == "  bob plays G1 and is out"
    assert lines[4] == "   bob [ 0]"  # nobody to move: no marker
    assert lines[-1] == "game over: bob wins; 'leave' returns to the lobby"


def test_colour_only_when_asked() -> None:
    plain = "\n".join(state_text(MY_TURN, [_event("bob plays G6")]))
    assert "\x1b[" not in plain
    coloured = "\n".join(state_text(MY_TURN, [_event("bob plays G6")], colour=True))
    assert "  bob plays \x1b[1;32mG6\x1b[0m" in coloured
    assert "your hand: \x1b[1;31mR1\x1b[0m \x1b[1;33mY5\x1b[0m \x1b[1;32mG3\x1b[0m*" in coloured
    named = state_text(ochos_view(body={"top": "B8", "named": "Y"}), colour=True)
    assert "colour named: \x1b[1;33mY\x1b[0m" in named[-3]


def test_completion_offers_only_the_legal_actions() -> None:
    view = _read(MY_TURN)
    assert UI.commands(view) == ("play",)  # neither draw nor take two while a card may be played
    assert UI.complete(["play"], "", view) == ["G3", "G8"]
    assert UI.complete(["play"], "g8", view) == ["G8"] and UI.complete(["play"], "r", view) == []
    assert UI.complete(["play", "g8"], "", view) == ["R", "Y", "G", "B"]
    assert UI.complete(["play", "g3"], "", view) == [] and UI.complete(["draw"], "", view) == []
    waiting = _read(ochos_view())
    assert UI.complete(["play"], "", waiting) == [] and UI.commands(waiting) == ("play", "draw", "take")
    taking = _read(ochos_view(current=0, legal=["take two"], body={"two_pending": True, "top": "G2"}))
    assert UI.commands(taking) == ("take",) and UI.complete(["take"], "t", taking) == ["two"]
    assert UI.complete(["play"], "", None) == []


def test_an_eights_colour_may_be_typed_as_its_name() -> None:
    """``play Y8 red`` was refused ("'red' is not a colour"): the name is sent as its letter."""
    view = _read(MY_TURN)
    for typed, letter in [("red", "R"), ("Yellow", "Y"), ("GREEN", "G"), ("blue", "B"), ("g", "G")]:
        assert UI.action("play", ["g8", typed], view) == f"play G8 {letter}"
        assert (
            UI.action("play", ["R8", typed], None) == f"play R8 {letter}"
        )  # not our turn: the server judges
    assert UI.action("play", ["g8,", "red"], view) == "play G8 R"  # commas separate, in every game
    assert UI.action("play", ["g8,red"], view) == "play G8 R"
    with pytest.raises(CommandError) as refused:
        UI.action("play", ["G8", "purple"], view)
    assert (
        str(refused.value) == "'purple' is not a colour: name it R, Y, G or B, or red, yellow, green or blue"
    )
    with pytest.raises(CommandError) as refused:
        UI.action("play", ["G8"], view)
    assert str(refused.value).endswith("play G8 R, Y, G or B, or red, yellow, green or blue")
    with pytest.raises(CommandError, match="only an 8 names a colour: play G3"):
        UI.action("play", ["G3", "red"], view)
    assert "'play R8 yellow'" in UI.help and "red, yellow, green or" in UI.help
    assert "'play R8 yellow'" in UI.rules("part3") and "'play R8 yellow'" not in UI.rules("part1")


def test_completion_completes_a_colours_name_once_it_is_more_than_its_letter() -> None:
    view = _read(MY_TURN)
    assert UI.complete(["play", "G8"], "", view) == ["R", "Y", "G", "B"]  # the letters, as before
    assert UI.complete(["play", "g8"], "y", view) == ["Y"]
    assert UI.complete(["play", "g8"], "ye", view) == ["yellow"]
    assert UI.complete(["PLAY", "G8"], "Gr", view) == ["green"]
    assert (
        UI.complete(["play", "G8"], "bl", view) == ["blue"] and UI.complete(["play", "G8"], "xx", view) == []
    )
    assert UI.complete(["play", "G3"], "re", view) == []  # G3 names no colour
    only_red = _read(ochos_view(current=0, legal=["play G8 R"]))
    assert UI.complete(["play", "G8"], "re", only_red) == ["red"]
    assert UI.complete(["play", "G8"], "bl", only_red) == []  # only what is legal


def test_actions_are_checked_against_the_legal_ones_at_our_turn() -> None:
    view = _read(MY_TURN)
    assert UI.action("play", ["g3"], view) == "play G3"
    assert UI.action("play", ["G8", "y"], view) == "play G8 Y"
    for args, says in [
        (["G8"], "name a colour after the 8: play G8 R, Y, G or B"),
        (["G3", "R"], "only an 8 names a colour: play G3"),
        (["R2"], "you hold no R2"),
        (["R1"], "R1 cannot be played on G6; you may play G3, play G8 COLOUR"),
        (["Q1"], "'Q1' is not a card"),
        (["G8", "purple"], "'purple' is not a colour"),
        (["G3", "B6"], r"one card a turn: play G3 \(only an 8 is followed by a colour\)"),
        (["G3", "b6"], r"one card a turn: play G3 \(only an 8 is followed by a colour\)"),
        # A play-test's 'play g2 x' was told "one card a turn": x is no card, nor a colour.
        (["g3", "x"], r"^'x' is not a card or a colour: play G3 \(only an 8 is followed by a colour\)$"),
        (["G3", "R9"], r"^'R9' is not a card or a colour: play G3 "),
        ([], "usage: play CARD"),
    ]:
        with pytest.raises(CommandError, match=says):
            UI.action("play", args, view)
    with pytest.raises(CommandError, match="you must play when you can; you may play G3"):
        UI.action("draw", [], view)
    with pytest.raises(CommandError, match="there is no 2 to answer"):
        UI.action("take", ["two"], view)
    with pytest.raises(CommandError, match="usage: take two"):
        UI.action("take", ["three"], view)
    assert UI.action("draw", [], None) == "draw" and UI.action("take", ["Two"], None) == "take two"
    assert UI.action("take", ["2"], None) == "take two"  # as it is said, with the card's number
    assert UI.action("play", ["R1"], _read(ochos_view())) == "play R1"  # not our turn: the server judges
    # Why a card will not go: what it must match (a play-test read "Y5 cannot be played now" with G named).
    named = _read(ochos_view(current=0, legal=["play G3"], body={"top": "Y8", "named": "G"}))
    with pytest.raises(CommandError, match=r"Y5 cannot be played on Y8 \(green named\); you may play G3"):
        UI.action("play", ["Y5"], named)
    two = _read(ochos_view(current=0, legal=["play B2", "take two"], body={"top": "Y2", "two_pending": True}))
    with pytest.raises(CommandError, match="a 2 is answered with a 2, or by taking two: not by drawing"):
        UI.action("draw", [], two)
    with pytest.raises(
        CommandError, match="G3 cannot be played on Y2: a 2 must be answered with a 2; you may"
    ):
        UI.action("play", ["G3"], two)
    assert UI.is_action("take") and not UI.is_action("steal")
    # A play-tester read "G8 names no colour now" in part1 as a matter of timing: the rules decide it.
    part1 = _read(ochos_view(current=0, variant="part1", legal=["play G3", "play G8"]))
    with pytest.raises(
        CommandError, match=r"^an 8 names no colour in part1 \(it does in part3 and part4\): play G8$"
    ):
        UI.action("play", ["G8", "y"], part1)


def test_a_real_matchs_views_are_read_for_a_seat_and_a_spectator() -> None:
    game = GAMES["ochos-locos"]
    names = ["ann", "bob", "cy"]
    match = game.new_match(game.settings("part4", 3, {}), names, random.Random(3))
    for seat in (0, None):
        raw = ochos_view(
            seat=seat, current=match.current, legal=match.legal_actions(0) if seat == 0 else [],
            body=dict(match.view(seat)),
        )  # fmt: skip
        lines = state_text(raw)
        assert ("your hand: " in "\n".join(lines)) is (seat == 0)
        if seat == 0 and raw["legal"]:
            played = {a.split()[1] for a in raw["legal"] if a.startswith("play")}
            assert all(f"{card}*" in lines[-2] for card in played)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"hand": ["R1", "X9"]}, "body.hand: 'X9' is not a card"),
        ({"hand": "R1"}, "body.hand: not a list of cards"),
        ({"top": None}, "body.top: not a list of cards"),
        ({"top": "R9"}, "body.top: 'R9' is not a card"),
        ({"named": "K"}, "body.named: not a colour"),
        ({"two_pending": 0}, "body.two_pending: not true or false"),
        ({"pile": None}, "body.pile: not a list of cards"),
        ({"stock": -1}, "body.stock: not a number of cards"),
        ({"stock": True}, "body.stock: not a number of cards"),
        ({"sizes": [5, 4]}, "body.sizes: not a hand size for each of 3 players"),
        ({"sizes": [5, 4, "3"]}, "body.sizes: not numbers of cards"),
    ],
)
def test_a_malformed_ochos_body_is_refused_and_changes_nothing(body: dict[str, Any], says: str) -> None:
    session = welcomed(OCHOS)
    seated(session, ochos_view())
    before = session.view
    (line,) = shown(session, State(3, ochos_view(turn=8, body=body), ()))
    assert line.startswith("the server sent a table this client cannot read (body.")
    assert line.endswith("); nothing changed") and says in line
    assert session.view is before


def test_a_body_that_is_not_a_map_is_refused() -> None:
    with pytest.raises(GameDataError, match="body: not a map"):
        UI.read_body(["R1"], ["ann", "bob"])


def test_hints_say_the_move_and_a_malformed_one_is_refused() -> None:
    session = welcomed(OCHOS)
    seated(session, MY_TURN)
    lines = shown(
        session, Hint("play G3: because (the rules' automatic strategy)", ("play G3",), {"action": "play G3"})
    )
    assert lines == ["hint: play G3: because (the rules' automatic strategy)", "      type: play G3"]
    assert shown(session, Hint("it is not your turn", (), {})) == ["hint: it is not your turn"]
    (line,) = shown(session, Hint("play G3", ("play G3",), {"action": 3}))
    assert line == "the server sent a hint this client cannot read (hint data: not a map of words)"


def test_a_hint_carrying_more_than_its_action_is_shown() -> None:
    """The expert's hint adds how each move fared (numbers, by action): the client shows the hint,
    not 'cannot read'."""
    session = welcomed(OCHOS)
    seated(session, MY_TURN)
    data = {"action": "play G3", "rates": {"play G3": 612, "draw": 0}}
    lines = shown(session, Hint("play G3: it won 61% of 200 deals", ("play G3",), data))
    assert lines == ["hint: play G3: it won 61% of 200 deals", "      type: play G3"]
