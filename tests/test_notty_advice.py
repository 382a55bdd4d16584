"""A Notty hint's advice for the turn: the best chance of going out this turn, against an oracle
that weighs every plan card by card (:func:`solver.go_out_chance` itself is checked against
enumeration in test_chance.py); its actions legal; given only on the asker's own turn; and read
and shown by the client, which refuses advice it cannot trust."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games._ui import GameDataError
from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules
from games.notty._advice import turn_advice
from games.notty.bots import make_bot
from games.notty.engine import Draw, DrawDiscard, Game, Steal, View, draw_room, is_legal, parse_action
from games.notty.game import NottyGame, make_hint
from games.notty.ui import UI, read_hint
from solver import go_out_chance

LINEUP = ("greedy", "qlearn", "expert-hard")


def _position(rules: Rules, seed: int, steps: int, players: int = 3) -> Game:
    """A game of bots played ``steps`` actions in (fewer if it ends), at a point where the seat to
    move has no card to put back."""
    game = Game(rules, [f"p{i}" for i in range(players)], random.Random(seed))
    bots = [make_bot(LINEUP[i], random.Random(seed + i)) for i in range(players)]
    for _ in range(steps):
        if game.over:
            break
        view = game.view(game.current)
        game.apply(bots[game.current].choose(view))
    while not game.over and game.must_put_back:
        view = game.view(game.current)
        game.apply(bots[game.current].choose(view))
    return game


def _best_draw(hand: Sequence[Card], deck: Sequence[Card], rules: Rules, drew: bool) -> float:
    room = 0 if drew else draw_room(rules, len(hand), len(deck))
    return max(go_out_chance(hand, deck, k, rules) for k in range(room + 1))


def _oracle(view: View) -> float:
    """Every plan the advice counts, each chance outcome listed card by card."""
    assert view.seat is not None
    hand, rules = list(view.hand), view.rules
    deck = list(view.deck_contents().elements())
    best = _best_draw(hand, deck, rules, view.drew)
    if not view.stole and not rules.at_limit(len(hand)):
        for victim, cards in enumerate(view.hands):
            if victim != view.seat and len(cards) >= 2:
                outcomes = [_best_draw([*hand, card], deck, rules, view.drew) for card in cards]
                best = max(best, sum(outcomes) / len(outcomes))
    if rules.draw_and_discard and not view.exchanged and not rules.at_limit(len(hand)) and deck:
        outcomes = []
        for at, card in enumerate(deck):
            held, pool = [*hand, card], deck[:at] + deck[at + 1 :]
            outcomes.append(
                max(
                    _best_draw(held[:i] + held[i + 1 :], [*pool, back], rules, view.drew)
                    for i, back in enumerate(held)
                )
            )
        best = max(best, sum(outcomes) / len(outcomes))
    return best


@settings(max_examples=40, deadline=None)
@given(
    rules=st.sampled_from([CLASSIC, FIVE_COLOUR]),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    players=st.sampled_from([2, 3]),
)
def test_the_chance_is_the_best_plan_weighed_card_by_card(
    rules: Rules, seed: int, steps: int, players: int
) -> None:
    game = _position(rules, seed, steps, players)
    if game.over:
        return
    view = game.view(game.current)
    advice = turn_advice(view)
    assert advice.chance == pytest.approx(_oracle(view), abs=1e-9)
    # Every action it names is one the seat may take now.
    assert is_legal(view, game.current, advice.expert)
    if advice.first is not None:
        assert is_legal(view, game.current, advice.first) and advice.draw == 0
    elif advice.draw:
        assert is_legal(view, game.current, Draw(advice.draw))
        deck = list(view.deck_contents().elements())
        assert go_out_chance(view.hand, deck, advice.draw, rules) == pytest.approx(advice.chance)


def test_a_lone_card_one_short_of_a_run_is_told_to_steal_the_card_in_sight() -> None:
    """Holding R3 R4 heads-up against a hand of R5 R5 (every card it could take completes the run),
    a theft goes out for certain: better than any draw."""
    hands = ((Card.parse("R3"), Card.parse("R4")), (Card.parse("R5"), Card.parse("R5")))
    view = View(
        rules=CLASSIC, names=("ann", "bob"), seat=0, hands=hands, deck_size=76, current=0, turn=3,
        drew=False, stole=False, exchanged=False, must_put_back=False, winner=None, end_reason=None,
    )  # fmt: skip
    advice = turn_advice(view)
    assert advice.first == Steal(1) and advice.chance == 1.0
    hint = make_hint(view.hand, CLASSIC, own=view)
    assert hint.data["turn"]["first"] == "steal bob"  # as the player types it, by name
    shown = UI.hint_text(hint.text, hint.actions, hint.data, colour=False)
    assert "this turn: 100.0% at best to go out: steal from bob first, then ask again" in shown
    # Having stolen already, only a draw is left: one card, an R2 (two of the deck's 76); drawing
    # more would need the other cards drawn to go too.
    advice = turn_advice(attrs.evolve(view, stole=True))
    assert advice.first is None and advice.draw == 1 and advice.chance == pytest.approx(2 / 76)


def test_draw_and_discard_is_counted_where_the_rules_have_it() -> None:
    """Five-colour R1 R2 R3 K9: a group and a loose card. Drawing cannot help K9 this turn unless the
    draw makes it a set of four or a run, but draw-and-discard can trade K9 for a card that fits the
    run (R4), which no plan without it counts."""
    hand = tuple(Card.parse(text) for text in ["R1", "R2", "R3", "K9"])
    other = tuple(Card.parse(text) for text in ["Y5", "G6"])
    view = View(
        rules=FIVE_COLOUR, names=("ann", "bob"), seat=0, hands=(hand, other), deck_size=84, current=0,
        turn=3, drew=False, stole=False, exchanged=False, must_put_back=False, winner=None, end_reason=None,
    )  # fmt: skip
    advice = turn_advice(view)
    assert advice.first == DrawDiscard()
    assert advice.chance == pytest.approx(_oracle(view))
    without = attrs.evolve(view, exchanged=True)
    assert turn_advice(without).chance < advice.chance


def test_advice_comes_only_on_the_askers_own_turn() -> None:
    game = NottyGame()
    settings_ = game.settings("classic", 2, {})
    match = game.new_match(settings_, ["ann", "bob"], random.Random(5))
    current = match.current
    other = 1 - current
    hint = match.hint(current)
    assert hint is not None and "turn" in hint().data
    elsewhere = match.hint(other)
    assert elsewhere is not None and "turn" not in elsewhere().data
    assert "this turn" not in elsewhere().text


def test_a_hint_midway_through_draw_and_discard_puts_back_first_and_gives_no_advice_yet() -> None:
    game = Game(FIVE_COLOUR, ["ann", "bob"], random.Random(2))
    game.apply(parse_action("dd"))
    view = game.view(game.current)
    hint = make_hint(view.hand, FIVE_COLOUR, put_back=True)
    assert hint.actions[0].startswith("putback ") and "turn" not in hint.data
    with pytest.raises(ValueError, match="between actions"):
        turn_advice(view)


def test_the_advice_is_shown_in_words() -> None:
    data = {
        "size": 0, "best": [], "alternatives": [], "alternative_groups": [], "outs": [],
        "turn": {"per_million": 34_200, "first": None, "draw": 2, "expert": "discard R3 R4 R5"},
    }  # fmt: skip
    shown = UI.hint_text("", (), data, colour=False).splitlines()
    assert shown[-2:] == [
        "this turn: 3.4% at best to go out: draw 2",
        "the expert would now: discard R3 R4 R5",
    ]
    data["turn"] = {"per_million": 0, "first": None, "draw": 0, "expert": "end"}
    assert UI.hint_text("", (), data, colour=False).splitlines()[-2:] == [
        "this turn: nothing you can draw or steal empties your hand",
        "the expert would now: end the turn",
    ]
    data["turn"] = {"per_million": 400, "first": "dd", "draw": 0, "expert": "steal bob"}
    assert UI.hint_text("", (), data, colour=False).splitlines()[-2:] == [
        "this turn: under 0.1% at best to go out: draw-and-discard ('dd') first, then ask again",
        "the expert would now: steal from bob",
    ]
    del data["turn"]  # a server before the advice
    assert not any("this turn" in line for line in UI.hint_text("", (), data, colour=False).splitlines())


@pytest.mark.parametrize(
    ("turn", "field"),
    [
        ("yes", "turn"),
        ({"per_million": 1_000_001, "first": None, "draw": 0, "expert": "end"}, "turn.per_million"),
        ({"per_million": True, "first": None, "draw": 0, "expert": "end"}, "turn.per_million"),
        ({"per_million": "1", "first": None, "draw": 0, "expert": "end"}, "turn.per_million"),
        ({"per_million": 0.5, "first": None, "draw": 0, "expert": "end"}, "turn.per_million"),
        ({"per_million": 1, "first": 3, "draw": 0, "expert": "end"}, "turn.first"),
        ({"per_million": 1, "first": "x" * 201, "draw": 0, "expert": "end"}, "turn.first"),
        ({"per_million": 1, "first": None, "draw": 4, "expert": "end"}, "turn.draw"),
        ({"per_million": 1, "first": None, "draw": -1, "expert": "end"}, "turn.draw"),
        ({"per_million": 1, "first": None, "draw": 0}, "turn.expert"),
        ({"per_million": 1, "first": None, "draw": 0, "expert": ""}, "turn.expert"),
    ],
)
def test_advice_the_client_cannot_trust_is_refused_by_name(turn: object, field: str) -> None:
    data = {"size": 0, "best": [], "alternatives": [], "outs": [], "turn": turn}
    with pytest.raises(GameDataError, match=f"hint data.{field}:"):
        read_hint(data)


def test_the_expert_named_is_the_bot_a_table_would_seat() -> None:
    """The advice's move is the expert's own choice from the same view (a fresh bot, as at a
    table where it has seen no thefts yet)."""
    for seed in range(20):
        game = _position(CLASSIC, seed, 30)
        if game.over:
            continue
        view = game.view(game.current)
        assert turn_advice(view).expert == make_bot("expert-hard", random.Random(0)).choose(view)
        assert Counter(view.hand) == Counter(game.hands[game.current])
