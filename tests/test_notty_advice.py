"""A Notty hint's advice for the turn: each plan's chance of going out this turn, against an oracle
that weighs the plan card by card (:func:`solver.go_out_chance` itself is checked against
enumeration in test_chance.py); exactly the plans the rules allow now; its actions legal; given only
on the asker's own turn (and midway through draw-and-discard, after the put-back it advises); and
read and shown by the client, which refuses advice it cannot trust."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games._ui import GameDataError
from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules
from games.notty._advice import EXCHANGE_UP_TO, put_back_chances, turn_advice, weigh
from games.notty.bots import make_bot
from games.notty.engine import Draw, DrawDiscard, EndTurn, Game, Steal, View, draw_room, is_legal
from games.notty.game import NottyGame, make_hint, per_million
from games.notty.ui import MILLION, UI, TurnHint, advice_lines, percent, read_hint
from solver import go_out_chance, max_discard

LINEUP = ("greedy", "qlearn", "expert-hard")


def _position(rules: Rules, seed: int, steps: int, players: int = 3) -> Game:
    """A game of bots played ``steps`` actions in (fewer if it ends), at a point where the seat to
    move has no card to put back."""
    game = Game(rules, [f"p{i}" for i in range(players)], random.Random(seed))
    bots = [make_bot(LINEUP[i], random.Random(seed + i)) for i in range(players)]
    for _ in range(steps):
        if game.over:
            break
        game.apply(bots[game.current].choose(game.view(game.current)))
    while not game.over and game.must_put_back:
        game.apply(bots[game.current].choose(game.view(game.current)))
    return game


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(word) for word in text.split())


def _view(rules: Rules, *hands: str, **flags: bool) -> View:
    """Seat 0 to move (ann, then bob and cy), the deck whatever the hands leave."""
    held = tuple(_cards(hand) for hand in hands)
    deck = len(rules.full_deck()) - sum(len(hand) for hand in held)
    return View(
        rules=rules, names=("ann", "bob", "cy")[: len(held)], seat=0, hands=held, deck_size=deck, current=0,
        turn=3, drew=flags.get("drew", False), stole=flags.get("stole", False),
        exchanged=flags.get("exchanged", False), must_put_back=flags.get("must_put_back", False),
        winner=None, end_reason=None,
    )  # fmt: skip


def _then_draw(hand: Sequence[Card], deck: Sequence[Card], rules: Rules, drew: bool) -> float:
    room = 0 if drew else draw_room(rules, len(hand), len(deck))
    return max(go_out_chance(hand, deck, k, rules) for k in range(room + 1))


def _oracle(view: View, first: object) -> float:
    """One plan's chance, each chance outcome listed card by card."""
    hand, rules = list(view.hand), view.rules
    deck = list(view.deck_contents().elements())
    if isinstance(first, Draw):
        return go_out_chance(hand, deck, first.count, rules)
    if isinstance(first, Steal):
        outcomes = [_then_draw([*hand, card], deck, rules, view.drew) for card in view.hands[first.victim]]
        return sum(outcomes) / len(outcomes)
    assert isinstance(first, DrawDiscard)
    outcomes = []
    for at, card in enumerate(deck):
        held, pool = [*hand, card], deck[:at] + deck[at + 1 :]
        outcomes.append(
            max(
                _then_draw(held[:i] + held[i + 1 :], [*pool, back], rules, view.drew)
                for i, back in enumerate(held)
            )
        )
    return sum(outcomes) / len(outcomes)


def _plans_allowed(view: View) -> list[object]:
    """The plans the rules open to the seat to move, as the advice lists them."""
    seat, rules, hand = view.current, view.rules, view.hand
    plans: list[object] = []
    if not view.drew:
        plans += [Draw(k) for k in range(1, rules.max_draw + 1) if is_legal(view, seat, Draw(k))]
    plans += [
        Steal(v) for v in range(len(view.hands)) if len(view.hands[v]) >= 2 and is_legal(view, seat, Steal(v))
    ]
    if is_legal(view, seat, DrawDiscard()) and len(hand) <= EXCHANGE_UP_TO:
        plans.append(DrawDiscard())
    return plans


@settings(max_examples=40, deadline=None)
@given(
    rules=st.sampled_from([CLASSIC, FIVE_COLOUR]),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    players=st.sampled_from([2, 3]),
    drew=st.booleans(),
)
def test_each_plan_is_weighed_exactly_and_every_plan_allowed_is(
    rules: Rules, seed: int, steps: int, players: int, drew: bool
) -> None:
    game = _position(rules, seed, steps, players)
    if game.over:
        return
    view = game.view(game.current)
    if drew and not view.drew:  # as if the turn had drawn already: only what is left is weighed
        view = attrs.evolve(view, drew=True)
    plans, unweighed = weigh(view)
    assert [plan.first for plan in plans] == _plans_allowed(view)
    for plan in plans:
        assert plan.chance == pytest.approx(_oracle(view, plan.first), abs=1e-9), plan.first
    exchange = is_legal(view, game.current, DrawDiscard())
    assert unweighed == (exchange and len(view.hand) > EXCHANGE_UP_TO)
    assert is_legal(view, game.current, turn_advice(view).expert)


def test_a_pair_one_short_of_a_run_is_told_what_each_plan_gives() -> None:
    """Holding R3 R4 heads-up against a hand of R5 R5, any card stolen completes the run: a theft
    goes out for certain. Drawing goes out only with one of the two R2s left in the deck of 76."""
    view = _view(CLASSIC, "R3 R4", "R5 R5")
    plans = {plan.first: plan.chance for plan in turn_advice(view).plans}
    assert plans[Steal(1)] == 1.0 and plans[Draw(1)] == pytest.approx(2 / 76)
    hint = make_hint(view.hand, CLASSIC, own=view)
    assert ["steal bob", MILLION] in [list(pair) for pair in hint.data["turn"]["chances"]]  # by name
    shown = UI.hint_text(hint.text, hint.actions, hint.data, colour=False)
    assert "chances of going out this turn: 2.6% drawing 1, " in shown
    assert "100.0% stealing from bob first" in shown
    # Having stolen already, only the draws are left.
    assert [plan.first for plan in turn_advice(attrs.evolve(view, stole=True)).plans] == [
        Draw(1),
        Draw(2),
        Draw(3),
    ]


def test_draw_and_discard_is_weighed_where_the_rules_have_it_and_the_hand_is_small() -> None:
    """Five-colour R1 R2 R3 K9: draw-and-discard can trade K9 for a card that fits the run (R4);
    drawing alone must make K9 a group."""
    view = _view(FIVE_COLOUR, "R1 R2 R3 K9", "Y5 G6")
    plans = {plan.first: plan.chance for plan in turn_advice(view).plans}
    assert plans[DrawDiscard()] > max(plans[Draw(k)] for k in (1, 2, 3))
    shown = UI.hint_text("", (), make_hint(view.hand, FIVE_COLOUR, own=view).data, colour=False)
    assert "with 'dd' first" in shown
    # A bigger hand: not weighed (its cost), and the player is told so.
    big = _view(FIVE_COLOUR, "R1 R2 R3 K9 Y1 Y2 Y3 G5 G6 G7 B9", "Y5 G6")
    advice = turn_advice(big)
    assert advice.exchange_unweighed and DrawDiscard() not in [plan.first for plan in advice.plans]
    shown = UI.hint_text("", (), make_hint(big.hand, FIVE_COLOUR, own=big).data, colour=False)
    assert "draw-and-discard first is not weighed for a hand this big" in shown


def test_a_hand_at_its_limit_with_a_group_is_told_to_discard_to_make_room() -> None:
    """At the limit no draw is open, but a discard first makes room: the advice says so, rather than
    only that no draw empties the hand (a review found R1 R2 R3 ... at 20 cards going out 10% of
    the time that way)."""
    full = "R1 R2 R3 Y1 Y2 Y3 G1 G2 G3 B1 B2 B3 R5 R6 R7 Y5 Y6 Y7 G5 G6"
    view = _view(CLASSIC, full, "B9 B10")
    advice = turn_advice(view)
    assert advice.full and not any(isinstance(plan.first, Draw | Steal) for plan in advice.plans)
    shown = UI.hint_text("", (), make_hint(view.hand, CLASSIC, own=view).data, colour=False).splitlines()
    assert "your hand is at or near its limit: discard first to make room to draw" in shown
    # Not at the limit, or at it with no group: not said.
    assert not turn_advice(_view(CLASSIC, "R1 R2 R3 Y9", "B9 B10")).full


def test_a_hand_that_can_go_out_now_gets_the_discard_and_no_advice() -> None:
    view = _view(CLASSIC, "R1 R2 R3", "B9 B10")
    hint = make_hint(view.hand, CLASSIC, own=view)
    assert hint.actions == ("discard R1 R2 R3",) and "turn" not in hint.data


def test_advice_comes_only_on_the_askers_own_turn_and_midway_through_dd_after_the_put_back() -> None:
    game = NottyGame()
    match = game.new_match(game.settings("five-colour", 2, {}), ["ann", "bob"], random.Random(5))
    current = match.current
    own, other = match.hint(current), match.hint(1 - current)
    assert own is not None and "turn" in own().data
    assert other is not None and "turn" not in other().data and "this turn" not in other().text
    match.apply(current, match.parse_action("dd"))  # midway: a card must go back first
    midway = match.hint(current)
    assert midway is not None
    answer = midway()  # a review found the guard could go unnoticed: this went through NottyMatch
    assert answer.actions[0].startswith("putback ") and "turn" in answer.data


def test_midway_through_dd_the_card_put_back_is_the_one_that_gives_the_best_chance() -> None:
    """Five-colour B7 K2 K3 K4 drew G6: the old rule put back B7 (most outs); putting back G6 goes out
    more often (a review measured 0.58% against 0.05%)."""
    view = _view(FIVE_COLOUR, "B7 K2 K3 K4 G6", "Y5 R6", exchanged=True, must_put_back=True)
    chances = put_back_chances(view)
    deck = list(view.deck_contents().elements())
    for card in set(view.hand):
        rest = list(view.hand)
        rest.remove(card)
        assert chances[card] == pytest.approx(_then_draw(rest, [*deck, card], FIVE_COLOUR, False))
    best = max(chances, key=chances.__getitem__)
    hint = make_hint(view.hand, FIVE_COLOUR, put_back=True, own=view)
    assert hint.actions[0] == f"putback {best}"
    assert (
        f"it gives the best chance of going out this turn, {percent(per_million(chances[best]))}" in hint.text
    )
    # The rest of the hint, and its advice, are for the hand once the card is back.
    rest = list(view.hand)
    rest.remove(best)
    assert "turn" in hint.data and hint.data["size"] == max_discard(rest, FIVE_COLOUR)
    # Shown so: the put-back to type first, then the rest, and the expert's move as the one after it
    # (a play-tester read "'auto' would now: end the turn" while 'end' was refused for the put-back).
    shown = UI.hint_text(hint.text, hint.actions, hint.data, colour=False).splitlines()
    assert shown[:3] == [f"hint: put back {best} first: it gives the best chance of going out this turn, "
                         f"{percent(per_million(chances[best]))}", f"      type: putback {best}",
                         "then: discard 3 cards: K2 K3 K4"]  # fmt: skip
    assert shown[-1].startswith("once it is back, 'auto' would: ")


def test_chances_are_never_rounded_to_nil_or_to_a_certainty() -> None:
    assert [per_million(p) for p in (0.0, 1e-12, 0.5, 1 - 1e-12, 1.0)] == [
        0,
        1,
        500_000,
        MILLION - 1,
        MILLION,
    ]
    assert [percent(n) for n in (1, 999, 1_000, 34_200, MILLION - 1, MILLION)] == [
        "under 0.1%", "under 0.1%", "0.1%", "3.4%", "over 99.9%", "100.0%",
    ]  # fmt: skip


def test_the_advice_is_shown_in_words() -> None:
    data: dict[str, object] = {
        "size": 0, "best": [], "alternatives": [], "alternative_groups": [], "outs": [],
        "turn": {"chances": [["draw 1", 0], ["draw 2", 34_200], ["steal bob", 400], ["dd", 0]],
                 "expert": "discard R3 R4 R5"},
    }  # fmt: skip
    assert UI.hint_text("", (), data, colour=False).splitlines()[-2:] == [
        "chances of going out this turn: 3.4% drawing 2, under 0.1% stealing from bob first",
        "'auto' would now: discard R3 R4 R5",
    ]
    data["turn"] = {"chances": [["draw 1", 0]], "expert": "end"}
    assert UI.hint_text("", (), data, colour=False).splitlines()[-2:] == [
        "this turn, no draw or theft can empty your hand",
        "'auto' would now: end the turn",
    ]
    data["turn"] = {"chances": [], "expert": "dd", "full": True}
    assert UI.hint_text("", (), data, colour=False).splitlines()[-3:] == [
        "your hand is at or near its limit: discard first to make room to draw",
        "this turn, no draw or theft can empty your hand",
        "'auto' would now: draw-and-discard ('dd')",
    ]
    data["turn"] = {"chances": [["steal bob", 400]], "expert": "steal bob"}  # with the command typed:
    assert UI.hint_text("", (), data, colour=False).splitlines()[-1] == (  # a play-test typed
        "'auto' would now: steal from bob ('steal bob')"  # 'steal from bob', which names nobody
    )
    del data["turn"]  # a server before the advice
    assert not any("this turn" in line for line in UI.hint_text("", (), data, colour=False).splitlines())


@pytest.mark.parametrize(
    ("turn", "field"),
    [
        ("yes", "turn"),
        ({"chances": "draw 1", "expert": "end"}, "turn.chances"),
        ({"chances": [["draw 1", 1]] * 17, "expert": "end"}, "turn.chances"),
        ({"chances": [["draw 1"]], "expert": "end"}, "turn.chances[0]"),
        ({"chances": [[3, 1]], "expert": "end"}, "turn.chances[0]"),
        ({"chances": [["x" * 201, 1]], "expert": "end"}, "turn.chances[0]"),
        ({"chances": [["draw 1", MILLION + 1]], "expert": "end"}, "turn.chances[0]"),
        ({"chances": [["draw 1", True]], "expert": "end"}, "turn.chances[0]"),
        ({"chances": [["draw 1", 0.5]], "expert": "end"}, "turn.chances[0]"),
        ({"chances": []}, "turn.expert"),
        ({"chances": [], "expert": ""}, "turn.expert"),
        ({"chances": [], "expert": "end", "full": "yes"}, "turn.full"),
        ({"chances": [], "expert": "end", "exchange_unweighed": 1}, "turn.exchange_unweighed"),
        ({"chances": [], "expert": "end", "bounded": "no"}, "turn.bounded"),
    ],
)
def test_advice_the_client_cannot_trust_is_refused_by_name(turn: object, field: str) -> None:
    data = {"size": 0, "best": [], "alternatives": [], "outs": [], "turn": turn}
    with pytest.raises(GameDataError, match=re.escape(f"hint data.{field}:")):
        read_hint(data)


def test_the_expert_named_is_a_fresh_hard_expert_seeing_this_position_alone() -> None:
    """Not the table's bot (which has watched this game's thefts): a fresh ``expert-hard``, so the
    same position always gets the same advice."""
    for seed in range(20):
        game = _position(CLASSIC, seed, 30)
        if game.over:
            continue
        view = game.view(game.current)
        fresh = make_bot("expert-hard", random.Random(seed)).choose(view)
        assert turn_advice(view).expert == fresh == turn_advice(view).expert
        assert Counter(view.hand) == Counter(game.hands[game.current])  # its own hand, as dealt to it


def test_the_expert_named_never_walks_the_player_into_a_draw_for_no_progress() -> None:
    """A play-tester holding B7 alone was told three times to end the turn, and the game was drawn
    (3 rounds with no hand changed): the adviser is fresh, but the table's count is in the view."""
    view = _view(CLASSIC, "B7", "R1 R4 Y2 Y8 G3 G9 B1 B5 R10 Y6 G6 B10")
    assert turn_advice(view).expert == EndTurn()  # waiting for a careless thief to take the last card
    last = attrs.evolve(view, quiet_turns=5)  # one more unchanged turn draws the game
    assert turn_advice(last).expert != EndTurn()


def _typed(match_names: Sequence[str], action: object) -> str:
    return f"steal {match_names[action.victim]}" if isinstance(action, Steal) else str(action)


@pytest.mark.parametrize("variant", ["five-colour", "classic"])
def test_the_hint_gives_the_move_auto_then_makes(variant: str) -> None:
    """A play-tester asked for a hint, then typed 'auto', fifteen times: the hint named the move of a
    fresh expert (one that had watched nothing of the game), 'auto' played the seat's own bot, and
    they differed (the hint said 'dd', 'auto' drew a card; the hint put back Y3, 'auto' put back R6).
    Now the hint asks a copy of the bot 'auto' plays, and that bot plays on as if never asked."""
    from games import GAMES

    game = GAMES["notty"]
    settings = game.settings(variant, 2, {"level": "hard"})
    compared = put_backs = 0
    for seed in range(10):
        match = game.new_match(settings, ["ann", "greedy-2"], random.Random(seed))
        auto = game.new_bot(game.seat_bot("expert", settings), settings, random.Random(0))
        greedy = make_bot("greedy", random.Random(0))
        while not match.over and match.turn < 60:
            seat = match.current
            view = match.bot_view(seat)
            if seat == 0:
                job = match.hint(0, auto)
                assert job is not None
                answer = job()
                action = auto.choose(view)
                if view.must_put_back:
                    assert answer.actions[0] == f"putback {action.card}"
                    put_backs += 1
                elif "turn" in answer.data:  # not a hand that goes out now, which needs no advice
                    assert answer.data["turn"]["expert"] == _typed(match.names, action), answer.text
                compared += 1
            else:
                action = greedy.choose(view)
            match.game.apply(action, seat=seat)
    assert compared >= 150 and (variant == "classic" or put_backs >= 5)


def test_ending_the_turn_holding_groups_says_why() -> None:
    """A play-tester was told 'discard R1 Y1 B1', then "'auto' would now: end the turn", with no reason."""
    turn = TurnHint((("draw 1", 0),), "end")
    assert advice_lines(turn, colour=False, groups=True)[-1] == (
        "'auto' would now: end the turn and keep the groups: a thief takes a card at random, likelier one"
        " that fits no group"
    )
    assert advice_lines(turn, colour=False)[-1] == "'auto' would now: end the turn"  # nothing to keep
    drawing = TurnHint((("draw 1", 0),), "draw 1")  # the groups go at the end of the turn
    assert advice_lines(drawing, colour=False, groups=True)[-1] == "'auto' would now: draw 1"


def test_a_hand_that_can_go_out_now_is_told_so_and_given_no_outs() -> None:
    """A play-test's 38 cards that all went in groups: the hint gave twelve groups to type, then
    outs ("R2 (+1), ...") that could only add to a hand already going out, and no line for the turn."""
    view = _view(CLASSIC, "R3 R4 R5 Y7 G7 B7", "R5 R5")
    hint = make_hint(view.hand, CLASSIC, own=view)
    assert hint.text.endswith("; that empties your hand: you win") and hint.data["outs"] == []
    shown = UI.hint_text(hint.text, hint.actions, hint.data, colour=False).splitlines()
    assert shown[-1] == "      that empties your hand: you win" and not any("outs" in line for line in shown)
    watched = make_hint(view.hand, CLASSIC)  # a watcher's: no outs either, nor a word of our turn
    assert watched.data["outs"] == [] and "you win" not in watched.text
    short = _view(CLASSIC, "R3 R4 R5 Y7 G7", "R5 R5")
    assert make_hint(short.hand, CLASSIC, own=short).data["outs"]  # a hand that cannot: outs as ever


def test_chances_for_a_hand_of_dozens_of_cards_are_said_to_be_at_least() -> None:
    """At a table with no hand limit a hand of 50 cards is too big to weigh every draw: the search
    stops (a hint for a 70-card hand took 20 s, holding the server), and the hint says its chances
    are lower bounds rather than exact."""
    rules = CLASSIC.replace(hand_limit=0)
    full = rules.full_deck()
    random.Random(2).shuffle(full)
    view = _view(rules, " ".join(map(str, full[:50])), " ".join(map(str, full[50:55])))
    assert max_discard(view.hand, rules) < 50  # it cannot go out now: the turn is advised
    advice = turn_advice(view)
    assert advice.bounded
    shown = UI.hint_text("", (), make_hint(view.hand, rules, own=view).data, colour=False)
    assert "a hand this big is not weighed with every draw" in shown
    small = _view(CLASSIC, "R1 R2 Y5", "G7 B7")  # the usual hand: exact, and nothing said
    assert not turn_advice(small).bounded
    assert "not weighed" not in UI.hint_text(
        "", (), make_hint(small.hand, CLASSIC, own=small).data, colour=False
    )


def test_advice_for_a_hand_too_big_to_weigh_says_its_chances_are_at_least() -> None:
    found = TurnHint((("draw 1", 2_000), ("draw 2", 0)), "draw 1", bounded=True)
    assert advice_lines(found, colour=False)[0] == (
        "chances of going out this turn, at least: 0.2% drawing 1 (a hand this big is not weighed with"
        " every draw)"
    )
    none = TurnHint((("draw 1", 0),), "end", bounded=True)
    assert advice_lines(none, colour=False)[0] == (
        "this turn, no draw or theft was found that empties your hand (a hand this big is not weighed"
        " with every draw)"
    )
