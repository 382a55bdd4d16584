"""huxxy behind the game seam: actions as text, the record replaying the match, events and views that
keep every hand with its seat, hints, and the fallback."""

from __future__ import annotations

import copy
import io
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_host import Net
from test_huxxy_engine import junk, needs_solver, position, snapshot
from test_private_views import words

import solver.huxxy
from client.session import _played_for_you
from games import GAMES, ActionError, DealRecord, SettingsError
from games.autoplay import seeded_match
from games.huxxy import CARDS, JOKER, cards_of
from games.huxxy import bots as bots_module
from games.huxxy._plays import Play, as_made
from games.huxxy.actions import Draw, End, Move, Place, Undo, action_of, parse_action
from games.huxxy.bots import hint_for, make_bot
from games.huxxy.engine import Rules
from games.huxxy.game import Drew, Ended, HuxxyMatch
from protocol import Act, CreateTable, Join, State
from server.replay import print_game
from server.store import Store
from solver.huxxy import best_turn

GAME = GAMES["huxxy"]


def huxxy(match: Any) -> HuxxyMatch:
    assert isinstance(match, HuxxyMatch)
    return match


def table_match(hands: list[str], table: list[str], opened: list[bool] = []) -> HuxxyMatch:  # noqa: B006
    """A match in a laid-out position (see :func:`test_huxxy_engine.position`)."""
    engine = position(hands, table, opened)
    settings_ = GAME.settings(None, len(hands), {})
    return HuxxyMatch(settings_, [f"p{seat + 1}" for seat in range(len(hands))], engine)


def test_registered_with_its_bonus_version() -> None:
    assert "huxxy" in GAMES and GAME.name == "huxxy"
    assert list(GAME.variants) == ["huxxy", "huxxy-jokers"]
    assert GAME.settings(None, 4, {}).variant == "huxxy"
    for seats in (1, 5):
        with pytest.raises(SettingsError):
            GAME.settings(None, seats, {})
    assert set(GAME.bots) == {"random", "greedy", "expert"}
    assert GAME.stand_in(GAME.settings(None, 4, {})) == "greedy"
    match = GAME.new_match(GAME.settings("huxxy-jokers", 3, {}), ["a", "b", "c"], random.Random(1))
    assert huxxy(match).engine.rules == Rules(3, True) and sum(match.view(None)["sizes"]) == 36


# -- actions as text ------------------------------------------------------------------------------

#: What a player may type, and the record's canonical text for it; group 2 alone holds 7H and 8S.
TYPED = [
    ("play 7H 8S 9H", "play 7H 8S 9H"),
    ("PLAY 7h 8s 9h", "play 7H 8S 9H"),
    ("play 7H to 3", "play 7H to 3"),
    ("play 7H to new", "play 7H"),
    ("play 0h xx to 1", "play 0H XX to 1"),
    ("move 7H from 2 to 3", "move 7H from 2 to 3"),
    ("move 7H to 3 from 2", "move 7H from 2 to 3"),
    ("move 7H from 2", "move 7H from 2"),
    ("move 7H from 2 to new", "move 7H from 2"),
    ("move 7H 8S from 2 to 1", "move 7H 8S from 2 to 1"),
    ("move 7H to 3", "move 7H from 2 to 3"),
    ("move 7h 8s", "move 7H 8S from 2"),
    # Cards separated by commas, as Notty's server reads them: the client tidied them, a raw act was refused.
    ("play 7H, 8S,9H", "play 7H 8S 9H"),
    ("play 7H,8S to 3", "play 7H 8S to 3"),
    ("move 7H, 8S from 2 to 1", "move 7H 8S from 2 to 1"),
    # As a play-tester typed them: a group said with its word, and suits as symbols.
    ("play 7H to group 3", "play 7H to 3"),
    ("move 7H from group 2 to group new", "move 7H from 2"),
    ("play 7H to new group", "play 7H"),
    ("move 7H from group 2 to new group", "move 7H from 2"),
    ("play 7♥ 8♠ 9♡", "play 7H 8S 9H"),
    ("undo", "undo"),
    ("draw", "draw"),
    ("  End ", "end"),
]
TABLE = ["KS KH KD", "7H 8S 9H", "5C 5D 5S"]


@pytest.mark.parametrize(("typed", "canonical"), TYPED)
def test_what_a_player_types_reads_back_as_its_canonical_text(typed: str, canonical: str) -> None:
    match = table_match(["2C", "2D"], TABLE, [True])
    action = match.parse_action(typed)
    assert match.action_text(action) == str(action) == canonical
    assert match.parse_action(canonical) == action
    assert str(parse_action(canonical)) == canonical  # the record's text needs no table


place_or_move = st.one_of(
    st.builds(
        Place,
        st.lists(st.sampled_from([*CARDS, JOKER]), min_size=1, max_size=6).map(tuple),
        st.none() | st.integers(0, 30),
    ),
    st.builds(
        Move,
        st.lists(st.sampled_from([*CARDS, JOKER]), min_size=1, max_size=6).map(tuple),
        st.integers(0, 30),
        st.none() | st.integers(31, 40),
    ),
    st.sampled_from([Undo(), Draw(), End()]),
)


@given(place_or_move)
def test_every_action_reads_back_from_its_text_in_either_case(action: Any) -> None:
    text = str(action)
    assert parse_action(text) == action
    assert parse_action(text.upper()) == action and parse_action(f" {text.lower()} ") == action


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "actions: play CARD"),
        ("jump 7H", "actions: play CARD"),
        ("draw 2", "actions: play CARD"),
        ("play", "actions: play CARD"),
        ("play 1C", "'1C' is not a card"),
        ("play 7H to", "say one group after 'to'"),
        ("play 7H to 0", "groups are numbered from 1"),
        ("play 7H to 1 2", "say one group after 'to'"),
        ("play 7H from 2", "to move a table card, say move CARD from GROUP"),
        ("play AC 2C 3C 4C 5C 6C 7C", "at most 6 plays"),
        ("move 7H from 2 to 2", "'from' and 'to' name the same group (2)"),
        ("move 7H to 2", "7H is already in group 2: move to another group, or to new"),
        ("move 7H to 1 to 2", "say 'to' once"),
        ("move 7H from new", "groups are numbered from 1"),
    ],
)
def test_text_that_names_no_action_is_refused_saying_what_to_type(text: str, says: str) -> None:
    match = table_match(["2C", "2D"], [*TABLE, "5H 5D 5C"], [True])
    before = snapshot(match.engine)
    with pytest.raises(ActionError) as refused:
        match.parse_action(text)
    assert refused.value.code == "bad-action" and says in refused.value.message, refused.value.message
    assert snapshot(match.engine) == before


def test_a_move_no_group_answers_is_refused_after_the_rules_that_bar_any_move_now() -> None:
    """'move 7H to 2' (no 'from') before opening was answered "no group holds 7H", where the rule
    is that no table card may move yet: the rules barring a move now come first, then the slip."""

    def refusal(match: HuxxyMatch, seat: int, text: str) -> ActionError:
        before = snapshot(match.engine)
        with pytest.raises(ActionError) as refused:
            match.apply(seat, match.parse_action(text))
        assert snapshot(match.engine) == before
        return refused.value

    closed = table_match(["2C 2D", "3C"], [*TABLE, "5H 5D 5C"], [False, False])
    assert refusal(closed, 0, "move 2C to 1").rule == "not-opened"
    assert refusal(closed, 1, "move 2C to 1").rule == "not-your-turn"
    opened = table_match(["2C 2D JS", "3C"], [*TABLE, "5H 5D 5C"], [True, True])
    assert refusal(opened, 0, "move 2C to 1").rule == "first-from-hand"
    opened.apply(0, opened.parse_action("play JS to new"))
    for text, says in [
        ("move 2C to 1", "no group holds 2C: say move CARD from GROUP"),
        ("move 5D", "groups 3, 4 each hold 5D: say which"),
    ]:
        refused = refusal(opened, 0, text)
        assert refused.code == "bad-action" and says in refused.message, refused.message
    assert str(opened.parse_action("move 7H to 5")) == "move 7H from 2 to 5"  # one group holds it


# -- the record -----------------------------------------------------------------------------------


def random_play(match: HuxxyMatch, bots: list[Any], seed: int, steps: int) -> Iterator[tuple[int, str, Any]]:
    """Accepted actions of random play (bots, legal single plays, undos, take-backs, junk): seat,
    text and step, as applied."""
    rng = random.Random(seed)
    seats = len(match.names)
    for _ in range(steps):
        if match.over:
            return
        pick = rng.randrange(2**20)
        seat = match.current if pick % 5 else pick % seats
        legal = match.legal_actions(seat)
        if pick % 3 == 0:
            bot = bots[seat] if seat == match.current else None
            text = "end" if bot is None else match.action_text(bot.choose(match.bot_view(seat)))
        elif pick % 3 == 1 and legal:
            text = legal[pick % len(legal)]
        else:
            text = junk(match, pick)
        try:
            step = match.apply(seat, match.parse_action(text))
        except ActionError:
            continue
        yield seat, text, step


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32), variant=st.sampled_from(["huxxy", "huxxy-jokers"]), seats=st.integers(2, 4)
)
def test_the_record_replays_the_match_exactly(seed: int, variant: str, seats: int) -> None:
    settings_ = GAME.settings(variant, seats, {})
    live, bots = seeded_match(GAME, settings_, ["random"] * seats, seed)
    live = huxxy(live)
    deal = live.deal_record()
    moves = [(seat, text, step.outcome) for seat, text, step in random_play(live, bots, seed, 300)]
    # From the record's tokens alone, with a source of chance that must not be used.
    again = huxxy(
        GAME.new_match(settings_, live.names, random.Random(-1), DealRecord(deal.cards, deal.first))
    )
    for seat, text, outcome in moves:
        again.apply(seat, again.parse_action(text), outcome)
    assert snapshot(again.engine) == snapshot(live.engine)
    assert again.outcome() == live.outcome() and again.position_text() == live.position_text()
    assert again.deal_record() == deal
    assert all(again.view(viewer) == live.view(viewer) for viewer in [None, *range(seats)])


def test_a_replay_given_another_drawn_card_is_refused() -> None:
    match = huxxy(GAME.new_match(GAME.settings(None, 4, {}), ["a", "b", "c", "d"], random.Random(3)))
    engine, seat = match.engine, match.current
    match.apply(seat, match.parse_action(f"play {engine.hand(seat)[0]}"))
    top, other = engine.stock[0], engine.stock[1]
    before = snapshot(engine)
    for wrong in [(str(other),) if other != top else ("XX",), ("ZZ",), (str(top), str(other))]:
        with pytest.raises(ActionError) as refused:
            match.apply(seat, Draw(), wrong)
        assert refused.value.code == "bad-outcome"
        assert snapshot(engine) == before
    with pytest.raises(ActionError) as refused:
        match.apply(seat, Undo(), (str(top),))
    assert refused.value.code == "bad-outcome" and snapshot(engine) == before
    step = match.apply(seat, Draw(), (str(top),))
    assert step.outcome == (str(top),) and engine.hand(seat)[-1] == top


def test_a_deal_record_that_is_no_deal_is_refused() -> None:
    settings_ = GAME.settings(None, 3, {})
    match = GAME.new_match(settings_, ["a", "b", "c"], random.Random(1))
    cards = match.deal_record().cards
    for bad in [
        DealRecord(cards, 3),
        DealRecord(cards[:-1], 0),
        DealRecord((cards[1], *cards[1:]), 0),
        DealRecord(("Z9", *cards[1:]), 0),
        DealRecord((*cards, "XX", "XX"), 0),
    ]:
        with pytest.raises(ValueError, match="not a deal of huxxy"):
            GAME.new_match(settings_, match.names, random.Random(1), bad)


def test_not_your_turn_names_whose_turn_it_is() -> None:
    match = table_match(["2C", "2D", "2H"], [])
    with pytest.raises(ActionError) as refused:
        match.apply(1, Draw())
    assert (refused.value.code, refused.value.rule) == ("illegal-action", "not-your-turn")
    assert refused.value.message == "it is p1's turn, not yours"


# -- what each seat sees --------------------------------------------------------------------------


def hidden_from(match: HuxxyMatch, viewer: int | None) -> set[str]:
    """Cards in other seats' hands that the viewer has no other way to know of."""
    engine = match.engine
    others = {str(card) for seat, held in enumerate(engine.hands) if seat != viewer for card in held}
    seen = {str(card) for group in engine.table for card in group} | {str(card) for card in engine.shown}
    if viewer is not None:
        seen |= {str(card) for card in engine.hand(viewer)}
    return others - seen


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 4))
def test_no_view_or_event_shows_a_seat_another_seats_hand(seed: int, seats: int) -> None:
    settings_ = GAME.settings("huxxy-jokers", seats, {})
    match, bots = seeded_match(GAME, settings_, ["random"] * seats, seed)
    match = huxxy(match)
    viewers = [None, *range(seats)]
    for _seat, _text, step in random_play(match, bots, seed, 200):
        for viewer in viewers:
            hidden = hidden_from(match, viewer)
            view = match.view(viewer)
            assert not set(words(dict(view))) & hidden, (viewer, view)
            if viewer is None:
                assert view["hand"] is None
            else:
                assert sorted(view["hand"]) == sorted(str(card) for card in match.engine.hand(viewer))
            for event in step.events:
                assert not set(words(dict(match.event(event, viewer)))) & hidden, (viewer, event)


def test_the_drawer_alone_sees_the_card_drawn() -> None:
    match = table_match(["4H 5C 8D", "2C", "3C"], ["KS KH KD"], [True])
    match.apply(0, match.parse_action("play 4H 5C"))
    step = match.apply(0, Draw())
    (drew,) = step.events
    assert isinstance(drew, Drew) and step.outcome == (str(drew.card),)
    mine = match.event(drew, 0)
    assert mine["data"]["card"] == str(drew.card) and mine["data"]["taken_back"] == 2
    assert mine["text"] == f"you take back 2 plays and draw {drew.card}"
    for viewer in [None, 1, 2]:
        theirs = match.event(drew, viewer)
        assert theirs["text"] == "p1 takes back 2 plays and draws a card"
        assert "card" not in theirs["data"] and str(drew.card) not in set(words(dict(theirs)))
    plain = match.event(match.apply(1, Draw()).events[0], 1)["text"]
    assert plain.startswith("you draw ") and "take" not in plain


def test_plays_undos_and_turn_ends_are_told_to_everyone() -> None:
    match = table_match(["4H KS", "2C"], ["KH KD KC"], [True])
    viewers = [None, 1, None, 1, 1, 1]  # a spectator, or a seat not on turn: told alike
    texts = ["play 4H", "move KC to 2", "undo", "undo", "play KS to 1", "end"]
    said = [
        match.event(event, viewer)["text"]
        for viewer, text in zip(viewers, texts, strict=True)
        for event in match.apply(0, match.parse_action(text)).events
    ]
    assert said == [
        "p1 plays 4H to a new group 2",
        "p1 moves KC from group 1 to group 2",
        "p1 undoes a play: KC goes back from group 2 to group 1",
        "p1 undoes a play: 4H goes back from group 2 to the hand",
        "p1 plays KS to group 1",
        "p1 ends the turn, 1 card from the hand",
    ]
    assert match.view(1)["table"] == [["KS", "KH", "KD", "KC"]] and match.view(0)["hand"] == ["4H"]


def test_an_opening_is_told_in_words_a_mark_after_it_reads_well_with() -> None:
    """A bot's opening on a play-tester's seat read "you end the turn, 6 cards from the hand (an
    opening) (played for you)": two brackets in a row. The replay's "(bot for p1)" went there too."""
    match = table_match(["KS KH KD 2C", "2D"], [], [False])
    match.apply(0, match.parse_action("play KS KH KD"))
    ended = match.apply(0, match.parse_action("end")).events[-1]
    assert match.event(ended, 0)["text"] == "you end the turn, an opening of 3 cards from the hand"
    assert match.event(ended, 1)["text"] == "p1 ends the turn, an opening of 3 cards from the hand"
    assert _played_for_you(match.event(ended, 0)["text"]).endswith("from the hand (played for you)")


def test_the_view_numbers_groups_and_keeps_an_emptied_one_until_the_turn_ends() -> None:
    match = table_match(["4H 9D", "2C"], ["4C 4D 4S", "5H 6S 7H"], [True])
    for text in ["play 4H", "move 4C 4D 4S from 1 to 3"]:
        match.apply(0, match.parse_action(text))
    view = match.view(None)
    assert view["table"] == [[], ["5H", "6S", "7H"], ["4S", "4H", "4D", "4C"]]
    assert (view["plays"], view["placed"], view["invalid"]) == (4, ["4H"], [])
    match.apply(0, End())
    assert match.view(None)["table"] == [["5H", "6S", "7H"], ["4S", "4H", "4D", "4C"]]


# -- hints and the fallback -----------------------------------------------------------------------


def test_a_hint_for_a_seat_not_on_turn_or_a_spectator_says_so() -> None:
    match = table_match(["4H", "2C"], [])
    job = match.hint(1)
    assert job is not None and job().text == "it is not your turn" and job().actions == ()
    assert hint_for(match._seat_view(None)).text == "you are watching"


@needs_solver
def test_a_hint_counts_an_openings_points_as_the_opening_rule_does_and_later_what_leaves_the_hand() -> None:
    """A joker counts 0 towards an opening and 48 left in a hand: a hint that said '(98 points)' beside
    'opening points placed' counted it the second way where the player meant the first."""
    engine = position(["8C 9D 0S JH QC XX 2S", "4C"], jokers=True)
    settings_ = GAME.settings("huxxy-jokers", 2, {})
    opening = HuxxyMatch(settings_, ["p1", "p2"], engine).hint(0)
    assert opening is not None
    assert opening().text.endswith(": places 6 cards (50 opening points) in 6 of 6 plays"), opening().text
    later = table_match(["AC 5D", "4C"], ["2H 3S 4H"], [True]).hint(0)
    assert later is not None
    assert later().text == "play AC to 1; end: places 1 card (1 point out of your hand) in 1 of 6 plays"


@needs_solver
@pytest.mark.parametrize("seed", [1, 2])
def test_a_hint_typed_in_order_is_accepted_and_ends_the_turn(seed: int) -> None:
    """Asked at any moment of random play, mid-turn too: its undos, commands and end (or its draw)."""
    settings_ = GAME.settings("huxxy", 3, {})
    match, bots = seeded_match(GAME, settings_, ["random"] * 3, seed)
    match = huxxy(match)
    asked = 0
    for index, _ in enumerate(random_play(match, bots, seed, 80)):
        if match.over or index % 3:
            continue
        seat, turn = match.current, match.turn
        job = match.hint(seat)
        assert job is not None
        answer = job()
        trial = copy.deepcopy(match)
        steps = [trial.apply(seat, trial.parse_action(text)) for text in answer.actions]
        assert trial.turn == turn + 1, answer
        if answer.actions == ("draw",):
            made = len(match.engine.plays)
            said = (
                f"draw (it takes back your {made} play{'s' if made != 1 else ''} first): "
                if made
                else "draw: "
            )
            assert answer.text.startswith(said) and answer.data["placed"] == []
        else:
            assert answer.actions[-1] == "end" and "undo" not in answer.actions[len(match.engine.plays) :]
            (ended,) = (event for event in steps[-1].events if isinstance(event, Ended))
            assert sorted(map(str, ended.turn.placed)) == sorted(answer.data["placed"]), answer
        asked += 1
    assert asked > 3


@needs_solver
def test_a_hint_mid_turn_keeps_the_plays_that_begin_the_best_turn_and_undoes_only_the_others() -> None:
    match = table_match(["7H 8S 9H 5C 2D", "2C"], ["5S 5H 5D"], [True])
    start = hint(match)
    assert start.actions[-1] == "end" and "undo" not in start.actions and len(start.actions) >= 3
    match.apply(0, match.parse_action(start.actions[0]))
    made = len(match.engine.plays)
    after = hint(match)
    assert after.actions == start.actions[1:] and after.data == start.data
    assert after.text.startswith(f"after your {made} play")
    for text in start.actions[1:-1]:
        match.apply(0, match.parse_action(text))
    done = hint(match)
    assert done.actions == ("end",) and done.text.startswith(f"your {len(match.engine.plays)} plays so far")
    match.apply(0, Undo())
    match.apply(0, match.parse_action("play 2D to new"))  # not in the best turn: undone, the rest kept
    astray = hint(match)
    kept = len(match.engine.plays) - 1
    assert astray.actions[0] == "undo" and astray.actions[1] != "undo"
    assert astray.text.startswith(f"undo your last 1 play (keep the first {kept} play")
    trial = copy.deepcopy(match)
    for text in astray.actions:
        trial.apply(0, trial.parse_action(text))
    assert trial.turn == match.turn + 1 and len(trial.engine.hand(0)) == 5 - len(start.data["placed"])


def hint(match: HuxxyMatch) -> Any:
    job = match.hint(match.current)
    assert job is not None
    return job()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 4))
def test_the_fallback_is_always_legal_for_the_seat_on_turn_and_none_for_others(seed: int, seats: int) -> None:
    match, bots = seeded_match(GAME, GAME.settings("huxxy-jokers", seats, {}), ["random"] * seats, seed)
    match = huxxy(match)
    for _ in random_play(match, bots, seed, 150):
        current = match.current
        for seat in range(seats):
            fallback = match.fallback_action(seat)
            if seat != current or match.over:
                assert fallback is None
                continue
            trial = copy.deepcopy(match)
            trial.apply(seat, fallback)
            assert trial.turn == match.turn + 1 and trial.engine.plays == ()


@needs_solver
@pytest.mark.parametrize("name", ["greedy", "expert"])
def test_a_bot_taking_over_mid_turn_keeps_the_plays_that_begin_its_plan_undoing_the_rest(name: str) -> None:
    """A stand-in, the autopilot, or a bot after a restart finds plays it did not make: those that
    begin its own turn stay (they are not undone and made again, for everyone to watch)."""
    match = table_match(["7H 8S 9H 5C 2D", "2C"], ["5S 5H 5D"], [True])
    own = copy.deepcopy(match)
    plan = []  # the bot's own turn, played from the start
    bot = make_bot(name, random.Random(0))
    while own.turn == match.turn:
        action = bot.choose(own.bot_view(0))
        own.apply(0, action)
        plan.append(action)
    assert isinstance(plan[-1], End) and len(plan) >= 3
    match.apply(0, plan[0])
    match.apply(0, match.parse_action("play 2D to new"))  # not in its plan
    fresh = make_bot(name, random.Random(0))
    taken: list[Any] = []
    while match.turn == own.turn - 1:
        action = fresh.choose(match.bot_view(0))
        match.apply(0, action)
        taken.append(action)
    assert taken == [Undo(), *plan[1:]]  # the stray play undone, the first kept
    assert snapshot(match.engine)[:-1] == snapshot(own.engine)[:-1]  # the same but for 2D, now seen


@needs_solver
@pytest.mark.parametrize("name", ["greedy", "expert", "random"])
def test_a_bot_that_draws_after_plays_it_did_not_make_draws_at_once_taking_them_back(name: str) -> None:
    """A turn run out of time after two plays read "you undo a play: QC ...", "you undo a play: QS
    ...", "you draw AC", where a person's own 'draw' reads "you take back 2 plays and draw AC"."""
    match = table_match(["2C 5D 9H JS KC", "2D"], ["5S 5H 5C"])  # no opening to be made: a draw
    match.apply(0, match.parse_action("play 9H"))
    match.apply(0, match.parse_action("play JS to 2"))
    bot = make_bot(name, random.Random(0))
    action = bot.choose(match.bot_view(0))
    assert action == Draw()
    (drew,) = match.apply(0, action).events
    assert isinstance(drew, Drew) and drew.taken_back == 2
    assert match.event(drew, 0)["text"] == f"you take back 2 plays and draw {drew.card}"
    assert match.event(drew, 1)["text"] == "p1 takes back 2 plays and draws a card"
    assert [list(map(str, group)) for group in match.engine.table] == [["5S", "5H", "5C"]]
    assert match.current == 1 and match.engine.plays == ()


@needs_solver
def test_a_turn_out_of_time_after_plays_is_one_take_back_and_draw_and_its_record_replays(
    tmp_path: Path,
) -> None:
    """The play-test's turn, hosted: two plays, the time runs out, the stand-in draws."""
    for seed in range(1, 100):  # a deal whose first mover has no opening to make: the stand-in draws
        net = Net(seed=seed)
        ann, bob = net.client("ann"), net.client("bob")
        table = ann.send(CreateTable("huxxy", 2, "huxxy", (), {}, turn_seconds=10))[0].table
        bob.send(Join(table))
        mover = ann if ann.view["current"] == ann.view["seat"] else bob
        hand = mover.view["body"]["hand"]
        if best_turn(cards_of(hand), (), False) is None:
            break
    else:
        raise AssertionError("no deal without an opening")
    name = mover.view["names"][mover.view["seat"]]
    mover.send(Act(f"play {hand[0]}"))
    mover.send(Act(f"play {hand[1]} to 1"))
    seen = len(mover.inbox)
    net.tick(11)
    net.run_bots(limit=20)
    told = [
        event["text"]
        for message in mover.inbox[seen:]
        if isinstance(message, State)
        for event in message.events
    ]
    drawn = mover.view["body"]["hand"]
    (card,) = (Counter(drawn) - Counter(hand)).elements()
    assert told == [f"you take back 2 plays and draw {card}"], told
    assert not mover.view["body"]["table"] and mover.view["current"] != mover.view["seat"]
    live = mover.table.match
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    saved = store.game(mover.table.id)
    store.close()
    assert saved is not None and [move.action for move in saved.moves][-1] == "draw"
    out = io.StringIO()
    print_game(saved, out)
    assert f"{name} takes back 2 plays and draws a card: {card} (bot for {name})" in out.getvalue()
    restarted = Net()
    restarted.host.restore(saved, 0.0)
    again = restarted.host.tables[mover.table.id].match
    assert isinstance(live, HuxxyMatch) and isinstance(again, HuxxyMatch)
    assert snapshot(again.engine) == snapshot(live.engine)


@needs_solver
def test_a_hint_mid_turn_keeps_plays_made_in_another_order_than_it_lists_them() -> None:
    match = table_match(["7H 8S 9H 5C 2D", "2C"], ["5S 5H 5D"], [True])
    assert hint(match).actions == ("play 7H 8S 9H", "play 5C to 1", "end")
    match.apply(0, match.parse_action("play 5C to 1"))  # its last play first
    assert hint(match).text.startswith("after your 1 play so far: play 7H 8S 9H; end")
    match.apply(0, match.parse_action("play 2D to new"))  # not in the best turn: undone, 5C kept
    astray = hint(match)
    assert astray.actions == ("undo", "play 7H 8S 9H", "end")
    assert astray.text.startswith("undo your last 1 play (keep the first 1 play)")
    match.apply(0, Undo())
    for text in ("play 8S to new", "play 9H 7H to 2"):  # its new group, begun with another card
        match.apply(0, match.parse_action(text))
    done = hint(match)
    assert done.actions == ("end",) and done.text.startswith("your 4 plays so far make the best turn")


@needs_solver
def test_a_hint_mid_turn_keeps_a_play_that_waits_for_a_later_move() -> None:
    match = table_match(["7H 8S 9H 5C 2D 4S 3H", "2C"], ["5S 5H 5D", "6C 7D 8C"], [True])
    best = hint(match)
    assert best.actions == ("play 7H 8S 9H", "play 5C to 1", "move 5H from 1 to 2", "play 4S to 2", "end")
    match.apply(0, match.parse_action("play 4S to 2"))  # the table is invalid until 5H joins it
    after = hint(match)
    assert after.actions == ("play 7H 8S 9H", "play 5C to 1", "move 5H from 1 to 2", "end")
    trial = copy.deepcopy(match)
    for text in after.actions:
        trial.apply(0, trial.parse_action(text))
    assert trial.turn == match.turn + 1 and len(trial.engine.hand(0)) == 2


@needs_solver
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32))
@example(seed=1_096_919_171)  # the turn went out: the game ended at its last play, before any 'end'
def test_the_best_turn_made_in_any_order_that_the_rules_allow_is_kept_by_hint_and_bot(seed: int) -> None:
    """Each play of a turn made in a shuffled order (new groups numbered as they come): neither the
    hint nor a bot taking over undoes any of them, and both finish the same turn."""
    match, bots = seeded_match(GAME, GAME.settings("huxxy", 2, {}), ["greedy"] * 2, seed)
    match = huxxy(match)
    rng = random.Random(seed)
    while not match.over:
        seat = match.current
        hand, table = match.engine.hand(seat), match.engine.table
        turn = best_turn(hand, table, match.engine.opened[seat]) if match.engine.opened[seat] else None
        if turn is not None and len(turn.plays) >= 2:
            break
        for _ in range(6):
            action = bots[seat].choose(match.bot_view(seat))
            match.apply(seat, action)
            if match.current != seat or match.over:
                break
    else:
        return
    order = list(range(len(turn.plays)))
    rng.shuffle(order)
    actions = _in_order(match, seat, turn.plays, order[: rng.randint(1, len(order))], len(table))
    if actions is None:
        return  # that order moves a card out of a group not yet made
    for action in actions:
        match.apply(seat, action)
    answer = hint(match)
    assert "undo" not in answer.actions, (answer.text, actions)
    fresh = make_bot("greedy", random.Random(0))
    before = match.turn
    while match.turn == before and not match.over:  # a turn that empties the hand ends the game
        action = fresh.choose(match.bot_view(seat))
        assert not isinstance(action, Undo)
        match.apply(seat, action)
    assert len(match.engine.hand(seat)) == len(hand) - len(turn.placed)


def _in_order(match: HuxxyMatch, seat: int, plays: Any, order: list[int], groups: int) -> list[Any] | None:
    """The actions that make the plays of a plan (new groups' targets ``None``) at ``order``, in
    that order, new groups numbered as they are made; ``None`` if the rules refuse one."""
    numbered = as_made(plays, groups)  # the plan's numbers for its new groups
    now: dict[int, int] = {}  # the plan's number for a new group -> its number made in this order
    trial = copy.deepcopy(match)
    actions = []
    for index in order:
        card, source, target = numbered[index].card, numbered[index].source, numbered[index].target
        if source is not None and source >= groups:
            if source not in now:
                return None
            source = now[source]
        if target is not None and target >= groups:
            if target in now:
                target = now[target]
            else:
                now[target], target = groups + len(now), None
        action = action_of(Play(card, source, target))
        try:
            trial.apply(seat, action)
        except ActionError:
            return None
        actions.append(action)
    return actions


@needs_solver
def test_a_hint_for_a_hand_of_sixty_cards_is_bounded_and_says_so() -> None:
    """A security review held the server's one hint thread for seconds a hint with a hand grown to
    some 60 cards by drawing; its search now stops at a count of sets (solver: most_sets)."""
    table = ["3H 4S 5H", "7C 7H 7D", "JS QH KS"]
    deck = [str(card) for card in CARDS for _ in range(2)]
    for card in " ".join([*table, "2C"]).split():
        deck.remove(card)
    random.Random(5).shuffle(deck)
    answer = hint(table_match([" ".join(deck[:60]), "2C"], table, [True]))
    assert answer.text.endswith("(the search stopped at its limit: a better turn may exist)"), answer.text
    assert len(answer.data["placed"]) == 6 and answer.actions[-1] == "end"  # the most a turn plays


@needs_solver
@pytest.mark.parametrize("name", ["greedy", "expert"])
def test_bots_bound_the_sets_they_weigh(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots plan in threads every table shares: a hand of 60 cards is searched within a bound, as a
    hint's is (wider), and not for seconds."""
    asked: list[int | None] = []

    def bounded(*args: Any, most_sets: int | None = None, **kwargs: Any) -> Any:
        asked.append(most_sets)
        return best_turn(*args, most_sets=most_sets, **kwargs)

    monkeypatch.setattr(solver.huxxy, "best_turn", bounded)
    match = table_match(["7H 8S 9H 5C 2D", "2C"], ["5S 5H 5D"], [True])
    make_bot(name, random.Random(0)).choose(match.bot_view(0))
    assert asked and set(asked) == {bots_module.BOT_SETS}


@needs_solver
def test_a_hint_whose_search_stops_at_its_limit_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any player may ask for a hint, so its search is bounded (a small hand on a big table can take
    the full search seconds): what it found is given, and said to be perhaps not the best."""
    monkeypatch.setattr(bots_module, "HINT_VISITS", 0)  # no turn that moves table cards is found
    partial = hint(table_match(["5H 9H", "2C"], ["3H 4S 5H 6S 7H 8S"], [True]))
    assert partial.actions == ("play 9H to 1", "end")  # 5H needs moves: the full search places both
    assert partial.text.endswith("(the search stopped at its limit: a better turn may exist)")
    none = hint(table_match(["5H", "2C"], ["3H 4S 5H 6S 7H 8S"], [True]))
    assert none.actions == ("draw",) and none.text.startswith("draw: the search stopped at its limit")
    monkeypatch.setattr(bots_module, "HINT_VISITS", 10_000)
    full = hint(table_match(["5H 9H", "2C"], ["3H 4S 5H 6S 7H 8S"], [True]))
    assert sorted(full.data["placed"]) == ["5H", "9H"]
    assert "limit" not in full.text


@needs_solver
def test_plays_begun_with_the_other_copy_of_a_card_are_kept_too() -> None:
    """Two 7Hs: the plan plays one into a run and one into a set of 7s; the player began the set
    with the copy the plan lists first, and the plays are still the best turn's."""
    match = table_match(["7H 7H 8S 9H 7S 7D 2C", "2D"], ["5S 5H 5D"], [True])
    assert hint(match).actions == ("play 7H 8S 9H", "play 7S 7H 7D", "end")
    for text in ("play 7H", "play 7S to 2", "play 7D to 2"):
        match.apply(0, match.parse_action(text))
    answer = hint(match)
    assert answer.actions == ("play 7H 8S 9H", "end"), answer.text
    assert isinstance(make_bot("greedy", random.Random(0)).choose(match.bot_view(0)), Place)
