"""What the client prints for a Notty table: pure text from the server's view, checked without a terminal."""

from __future__ import annotations

from typing import Any

import pytest
from test_client_session import notty_view as _view

from client.session import read_view
from games._ui import GameDataError
from games.notty import FIVE_COLOUR, Card
from games.notty.game import make_hint
from games.notty.ui import UI, legal_summary


def state_text(table: int, view: dict[str, Any], events: list[dict[str, Any]], colour: bool) -> str:
    return UI.state_text(table, read_view(view, UI), events, colour)


def _result(winner: int | None, reason: str) -> dict[str, Any]:
    ranking = [[0, 1]] if winner is None else [[winner], [1 - winner]]
    return {"ranking": ranking, "reason": reason, "text": "the server's words"}


def test_a_table_shows_every_hand_whose_turn_and_what_they_may_still_do() -> None:
    text = state_text(
        3, _view(), [{"kind": "drew", "text": "bob draws 1 card: Y5", "data": {}}], colour=False
    )
    assert text.splitlines() == [
        "  bob draws 1 card: Y5",
        "table 3 · classic · turn 12 · deck 77 cards",
        "   ann [ 2]  R1 R2 (you)",
        " > bob [ 1]  Y5",
        "bob to play; may still steal, end the turn",
    ]


def test_five_colour_offers_draw_and_discard_until_it_is_used() -> None:
    """As a turn begins the mover "may" do things; "may still" once it has drawn, stolen or exchanged."""
    five = _view(variant="five-colour", body={"drew": False})
    assert state_text(3, five, [], colour=False).splitlines()[-1] == (
        "bob to play; may draw, steal, draw-and-discard, end the turn"
    )
    exchanging = _view(variant="five-colour", body={"exchanged": True, "must_put_back": True})
    assert (
        state_text(3, exchanging, [], colour=False).splitlines()[-1]
        == "bob to play; may still put back a card"
    )


@pytest.mark.parametrize(
    ("winner", "reason", "says"),
    [
        (1, "discard", "game over: bob wins (last cards discarded)"),
        (0, "stolen", "game over: ann wins (last card stolen)"),
        (None, "stalemate", "game over: no winner (stalemate: every hand full, no group in any)"),
        (None, "turn-limit", "game over: no winner (the table's turn limit)"),
        (None, "something-new", "game over: no winner (something-new)"),
        (1, "resigned", "game over: bob wins (ann resigned)"),  # not "the others": there is one
    ],
)
def test_the_end_says_who_won_and_how(winner: int | None, reason: str, says: str) -> None:
    last = state_text(3, _view(result=_result(winner, reason)), [], colour=False).splitlines()[-1]
    assert last == says + "; 'leave' returns to the lobby"
    watching = state_text(3, _view(seat=None, result=_result(winner, reason)), [], colour=False)
    assert watching.splitlines()[-1] == last  # a spectator, too, leaves the table to go on
    assert " > " not in watching  # nobody is to move


def test_a_game_drawn_after_a_resignation_says_no_winner_not_a_shared_first_place() -> None:
    """eve resigned, and the turn limit ended the game: the two left ranked above her, but neither
    won; the end said 'ann and bob share first place (the table's turn limit)' above the server's
    'no winner'."""
    result = {"ranking": [[0, 1], [2]], "reason": "turn-limit", "text": "the server's words"}
    view = _view(names=["ann", "bob", "eve"], result=result, body={"hands": [["R1"], ["Y5"], ["G2"]]})
    last = state_text(3, view, [], colour=False).splitlines()[-1]
    assert last == "game over: no winner (the table's turn limit); 'leave' returns to the lobby"
    result = {"ranking": [[0, 1], [2]], "reason": "resigned", "text": "the server's words"}
    view = _view(names=["ann", "bob", "eve"], result=result, body={"hands": [["R1"], ["Y5"], ["G2"]]})
    last = state_text(3, view, [], colour=False).splitlines()[-1]
    assert last == "game over: ann and bob share first place (eve resigned); 'leave' returns to the lobby"


def test_the_end_names_who_resigned_and_was_ranked_last_as_the_servers_result_does() -> None:
    """The game's own end, a bot having played on for eve, who resigned: the end's summary used to
    say it, in the server's words; the summary no longer says the result, so the end line does."""
    hands = {"hands": [["R1"], ["Y5"], ["G2"]], "turn_limit": 300}
    names = ["ann", "bob", "eve"]
    won = {"ranking": [[0], [1], [2]], "reason": "discard"}
    won["text"] = "ann wins by discarding their last cards (eve resigned, so ranked last)"
    view = _view(names=names, result=won, body=hands)
    last = state_text(3, view, [], colour=False).splitlines()[-1]
    said = "ann wins (last cards discarded; eve resigned, so ranked last)"
    assert last == f"game over: {said}; 'leave' returns to the lobby"
    # The bot playing on for a resigned seat went out: that seat is ranked last, the others share
    # first place (the table said "no winner" beside a summary saying "you shared first place").
    shared = {"ranking": [[0, 2], [1]], "reason": "discard"}
    shared["text"] = "bob wins by discarding their last cards (bob resigned, so ranked last)"
    view = _view(names=names, result=shared, body=hands)
    said = "ann and eve share first place (last cards discarded; bob resigned, so ranked last)"
    assert (
        state_text(3, view, [], colour=False).splitlines()[-1]
        == f"game over: {said}; 'leave' returns to the lobby"
    )
    limit = {"ranking": [[0, 1], [2]], "reason": "turn-limit"}
    limit["text"] = (
        "the game ended at its turn limit (300 turns) with no winner (eve resigned, so ranked last)"
    )
    view = _view(names=names, result=limit, body=hands)
    assert state_text(3, view, [], colour=False).splitlines()[-1] == (
        f"game over: {limit['text']}; 'leave' returns to the lobby"
    )


def test_your_turn_lists_what_you_may_do_grouped() -> None:
    legal = ["draw 1", "draw 2", "draw 3", "steal 1", "discard R1 R2 R3", "discard R2 R3 R4", "end"]
    assert legal_summary(legal) == "draw 1-3, steal NAME, discard (any of 2 groups), end"
    hands = {"hands": [["R1"], ["Y5"], ["G7"]]}
    three = _view(current=0, legal=legal, names=["ann", "bob", "cy"], body=hands)
    assert state_text(3, three, [], colour=False).splitlines()[-1] == (
        "your turn: draw 1-3, steal NAME, discard (any of 2 groups), end"
    )
    # Heads-up, 'steal' needs no name; one card of room is 'draw 1', not 'draw 1-1'.
    text = state_text(3, _view(current=0, legal=["draw 1", "steal 1", "end"]), [], colour=False)
    assert text.splitlines()[-1] == "your turn: draw 1, steal, end"


def test_others_are_told_only_what_the_player_to_move_may_really_still_do() -> None:
    full = [f"{colour}{number}" for colour in "RY" for number in (1, 2, 4, 5, 7) for _copy in (1, 2)]
    at_limit = _view(body={"hands": [["R1", "R2"], full], "drew": False})
    assert state_text(3, at_limit, [], colour=False).splitlines()[-1] == "bob to play; may end the turn"
    assert len(full) == 20  # the limit, and no group: no third colour of a number, no run of three
    grouped = _view(body={"hands": [["R1", "R2"], [*full[:-1], "G1"]], "drew": False})
    assert state_text(3, grouped, [], colour=False).splitlines()[-1] == (
        "bob to play; may discard, end the turn"
    )
    empty_deck = _view(body={"hands": [["R1", "R2"], ["Y5", "Y6", "Y7"]], "drew": False, "deck_size": 0})
    assert state_text(3, empty_deck, [], colour=False).splitlines()[-1] == (
        "bob to play; may steal, discard, end the turn"
    )
    last_card = _view(body={"hands": [["R1", "R2"], ["Y5", "Y6", "Y7"]], "drew": False, "deck_size": 1})
    assert " · deck 1 card" in state_text(3, last_card, [], colour=False)  # not "1 cards"


def test_a_hint_of_two_groups_shows_the_two_commands_that_discard_them() -> None:
    """The groups' line cannot be typed whole: the rules discard one group at a time."""
    data = {"size": 6, "best": [["G3", "G4", "G5"], ["B7", "B8", "B9"]], "alternatives": [], "outs": []}
    said = UI.hint_text("", ("discard G3 G4 G5", "discard B7 B8 B9"), data, False).splitlines()
    assert said == [
        "hint: discard 6 cards: G3 G4 G5  B7 B8 B9",
        "      type: discard G3 G4 G5",
        "      type: discard B7 B8 B9",
    ]


def test_a_hint_midway_through_draw_and_discard_says_which_card_to_put_back_first() -> None:
    data = {"size": 3, "best": [["R1", "R2", "R3"]], "alternatives": [], "alternative_groups": [], "outs": []}
    text = "put back K2 first (it leaves the most to discard), then: discard 3 cards: R1 R2 R3"
    said = UI.hint_text(text, ("putback K2", "discard R1 R2 R3"), data, False).splitlines()
    assert said[0] == "hint: put back K2 first: it leaves the most to discard"  # the server's reason
    assert said[1:] == [  # the put-back's command under its line: it must come first
        "      type: putback K2",
        "then: discard 3 cards: R1 R2 R3",
        "      type: discard R1 R2 R3",
    ]
    with pytest.raises(GameDataError):
        UI.hint_text("", ("putback Q9",), data, False)


def test_a_put_back_hint_with_nothing_to_discard_still_says_the_command_and_a_true_reason() -> None:
    """After 'dd' drew R8 into R3 R5 B4 B5 B7 B8, the hint said 'put back B8 first: it leaves the most
    to discard' though nothing could be discarded either way, gave no 'type: putback' line (so 'end'
    was refused), and chose B8: putting R8 back keeps B8, which makes B6 worth +5 and B9 an out."""
    hand = [Card.parse(text) for text in ["R3", "R5", "R8", "B4", "B5", "B7", "B8"]]
    answer = make_hint(hand, FIVE_COLOUR, put_back=True)
    assert answer.actions == ("putback R8",)
    assert answer.text == "put back R8 first (it keeps the most outs), then: nothing can be discarded now"
    assert UI.hint_text(answer.text, answer.actions, answer.data, False).splitlines() == [
        "hint: put back R8 first: it keeps the most outs",
        "      type: putback R8",
        "then: nothing can be discarded now",
        "outs: R4 (+3), B3 (+3), B6 (+5), B9 (+3)",
    ]


def test_a_put_back_hint_gives_the_putback_command_even_when_nothing_can_be_discarded_after() -> None:
    """The 'type:' lines were given only with a discard: a player typing what the hint says could not
    put the card back, and 'end' was refused (put-back-first)."""
    data = {"size": 0, "best": [], "alternatives": [], "alternative_groups": [], "outs": []}
    why = "the fewest cards could make a group with it"
    text = f"put back R2 first ({why}), then: nothing can be discarded now"
    assert UI.hint_text(text, ("putback R2",), data, False).splitlines() == [
        "hint: put back R2 first: the fewest cards could make a group with it",
        "      type: putback R2",
        "then: nothing can be discarded now",
    ]


def _put_back_hint(hand: str) -> tuple[str, str]:
    answer = make_hint([Card.parse(text) for text in hand.split()], FIVE_COLOUR, put_back=True)
    verb, card = answer.actions[0].split()
    assert verb == "putback"
    return card, answer.text


def test_a_put_back_hint_with_no_outs_either_way_keeps_the_cards_that_could_make_a_group() -> None:
    """R2 Y9 K9 has no outs whatever goes back: the hint said 'it keeps the most outs' (there are none)
    and put back K9, the highest card, splitting the nines that could yet make a set."""
    assert _put_back_hint("R2 Y9 K9") == (
        "R2",
        "put back R2 first (the fewest cards could make a group with it), then: nothing can be discarded now",
    )


def test_a_put_back_hint_where_every_card_is_as_good_says_so() -> None:
    assert _put_back_hint("G7 G9") == (
        "G9",
        "put back G9 first (any card would do as well), then: nothing can be discarded now",
    )


@pytest.mark.parametrize("seed", range(4))
def test_a_put_back_hints_reason_is_true(seed: int) -> None:
    """Whatever the hand, the card put back leaves the most to discard, and the reason given holds:
    'the most to discard' only where another card leaves less, 'the most outs' only where another
    card leaves fewer or worse outs and none leaves more."""
    import random

    from solver import max_discard, outs

    rng = random.Random(seed)
    deck = [Card.of(c, n) for c in FIVE_COLOUR.colours for n in range(1, FIVE_COLOUR.numbers + 1)] * 2
    for _ in range(60):
        hand = rng.sample(deck, rng.randint(2, 14))
        answer = make_hint(hand, FIVE_COLOUR, put_back=True)
        card = Card.parse(answer.actions[0].removeprefix("putback "))
        said = UI.hint_text(answer.text, answer.actions, answer.data, False).splitlines()
        assert f"      type: putback {card}" in said

        def after(gone: Card, hand: list[Card] = hand) -> tuple[int, int, int]:
            rest = list(hand)
            rest.remove(gone)
            gains = [out.gain for out in outs(rest, FIVE_COLOUR)]
            return max_discard(rest, FIVE_COLOUR), sum(gains), len(gains)

        mine, others = after(card), [after(other) for other in set(hand) if other != card]
        assert all(other[0] <= mine[0] for other in others)
        rivals = [other for other in others if other[0] == mine[0]]
        if "(it leaves the most to discard)" in answer.text:
            assert any(other[0] < mine[0] for other in others)
        else:
            assert len(rivals) == len(others)
        if "(it keeps the most outs)" in answer.text:
            assert all(other[2] <= mine[2] for other in rivals)
            assert any(other[1:] < mine[1:] for other in rivals)
        if "(any card would do as well)" in answer.text or "(the fewest cards" in answer.text:
            assert all(other[1:] == mine[1:] for other in rivals)
