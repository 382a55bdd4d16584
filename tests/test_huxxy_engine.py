"""The huxxy engine, pure: the rules text's worked checks as turns, the opening, a turn's plays,
undo and take-back, the end and scoring, the deal, and properties of random play (the pack is
conserved, a refused action changes nothing, a game of bots ends)."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import GAMES, ActionError
from games.autoplay import play_match, seeded_match
from games.huxxy import CARDS, JOKER, Card, valid_table
from games.huxxy._plays import Play
from games.huxxy.engine import (
    HAND_SIZE,
    MAX_PLAYS,
    MAX_TURN_PLAYS,
    Deal,
    DealError,
    Engine,
    IllegalAction,
    Reason,
    Rules,
    blocked_end,
    full_deck,
)
from games.huxxy.game import HuxxyMatch

GAME = GAMES["huxxy"]
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _solver_ready() -> bool:
    try:
        from solver.huxxy import best_turn  # noqa: F401
    except ImportError:
        return False
    return True


#: greedy and expert play the solver's turns (solver.huxxy.best_turn).
needs_solver = pytest.mark.skipif(not _solver_ready(), reason="solver.huxxy.best_turn is not there yet")


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def position(
    hands: Sequence[str],
    table: Sequence[str] = (),
    opened: Sequence[bool] = (),
    first: int = 0,
    jokers: bool = False,
    stock: int | None = None,
) -> Engine:
    """A position: these hands and groups, every other card of the pack in the stock (the ``stock``
    cards from the top, if given: then the pack is no longer whole)."""
    rules = Rules(len(hands), jokers)
    engine = Engine(rules, Deal.shuffled(rules, random.Random(0)))  # a real deal, then laid over
    rest = Counter(full_deck(rules))
    engine.hands = [cards(hand) for hand in hands]
    engine.table = [cards(group) for group in table]
    for held in [*engine.hands, *engine.table]:
        rest.subtract(held)
    assert min(rest.values()) >= 0, "a position holds a card more often than the pack does"
    left = sorted(rest.elements())
    engine._stock = list(reversed(left if stock is None else left[:stock]))
    engine.opened = [*opened, *[False] * (len(hands) - len(opened))]
    engine.current = first
    return engine


def snapshot(engine: Engine) -> Any:
    """Everything an action may change, deep-copied."""
    return copy.deepcopy(
        (
            engine.hands,
            engine.table,
            engine.stock,
            engine.opened,
            engine.current,
            engine.turn,
            engine.plays,
            engine.over,
            engine.turn_start(),
            engine.shown,
        )
    )


def by_group(table: Sequence[Sequence[Card]]) -> list[list[Card]]:
    """A table with each group's cards sorted: their order within a group is not a rule."""
    return [sorted(group) for group in table]


def refused(engine: Engine, reason: Reason, act: Any) -> str:
    """``act()`` is refused for ``reason`` and changes nothing; returns the message."""
    before = snapshot(engine)
    with pytest.raises(IllegalAction) as error:
        act()
    assert error.value.reason is reason, error.value
    assert snapshot(engine) == before
    return error.value.message


def hand(card: str, to: int | None = None) -> Play:
    return Play(Card.parse(card), None, to)


def move(card: str, source: int, to: int | None = None) -> Play:
    return Play(Card.parse(card), source, to)


# -- the worked checks of the rules text, as turns ------------------------------------------------


def test_an_opening_of_three_aces_cannot_end_the_turn() -> None:
    engine = position(["AC AH AD KS", "2C"])
    engine.play(0, [hand("AC"), hand("AH", 0), hand("AD", 0)])
    assert engine.invalid_groups() == []  # the group is good: only the points are short
    message = refused(engine, Reason.OPENING_SHORT, lambda: engine.end(0))
    assert "24 points" in message and "make 3, 21 short" in message


@pytest.mark.parametrize(
    "group", ["AC 2H 3S", "3C AS 2H", "0C JH QS KH 9D", "2C 2H 2S", "2C 2H 2S 2D", "2C 2H 2S 2D 2S"]
)
def test_each_valid_table_of_the_rules_ends_a_turn(group: str) -> None:
    engine = position([f"{group} KS", "2C"], opened=[True])
    words = group.split()
    engine.play(0, [hand(words[0]), *(hand(word, 0) for word in words[1:])])
    ended = engine.end(0)
    assert ended.placed == tuple(cards(group)) and not ended.opened
    assert by_group(engine.table) == [sorted(cards(group))] and engine.current == 1


@pytest.mark.parametrize(
    ("group", "why"),
    [
        ("AC", "it has 1 card; a group needs at least 3"),
        ("AC 2S", "it has 2 cards; a group needs at least 3"),
        ("AC 2S 3H", "colours must alternate"),
        ("AC 2S 4H", "no gap"),
        ("2C 2H", "it has 2 cards"),
        ("2C 2H 2C", "3 or 4 cards needs every suit different"),
        ("2C 2H 2S 2C", "3 or 4 cards needs every suit different"),
    ],
)
def test_each_invalid_group_of_the_rules_is_refused_at_the_end_by_number_and_why(
    group: str, why: str
) -> None:
    engine = position([f"{group} KH", "2D"], table=["7H 8S 9H"], opened=[True])
    words = group.split()
    engine.play(0, [hand(words[0]), *(hand(word, 1) for word in words[1:])])
    message = refused(engine, Reason.INVALID_TABLE, lambda: engine.end(0))
    shown = " ".join(map(str, sorted(cards(group), key=lambda card: (card.value, "SHDC".index(card.suit)))))
    assert message.startswith(f"group 2 ({shown}) is not valid: "), message
    assert why in message and "group 1" not in message


def test_points_left_in_hands_are_the_scores_a_joker_48() -> None:
    engine = position(["4C 2H KS", "AC", "", "XX"], jokers=True)
    assert engine.scores() == (19, 1, 0, 48)
    assert engine.ranking() == ((2,), (1,), (0,), (3,))


# -- the opening ----------------------------------------------------------------------------------


def test_before_opening_a_table_card_may_not_be_moved_even_after_a_hand_card() -> None:
    engine = position(["7C 8H 9S 0H", "2C"], table=["4C 4D 4S"])
    message = refused(engine, Reason.NOT_OPENED, lambda: engine.play(0, [hand("7C"), move("4C", 0, 1)]))
    assert "only play cards from your hand" in message
    engine.play(0, [hand("7C")])
    refused(engine, Reason.NOT_OPENED, lambda: engine.play(0, [move("4C", 0, 1)]))


def test_an_opening_may_add_to_groups_already_on_the_table() -> None:
    engine = position(["8S 9H 0S 2C", "2D"], table=["JH QS KH"])
    engine.play(0, [hand("0S", 0), hand("9H", 0), hand("8S", 0)])  # 27 points, no group of its own
    ended = engine.end(0)
    assert ended.opened and engine.opened == [True, False]
    assert engine.table == [cards("8S 9H 0S JH QS KH")] and engine.hand(0) == tuple(cards("2C"))


@pytest.mark.parametrize(
    ("group", "short"),
    [("7C 8H 9S", 0), ("6C 7H 8S", 3), ("XX 8H 9S", 7), ("KS KH XX", 0), ("JS JH XX", 2)],
)
def test_an_opening_needs_24_points_from_the_hand_a_joker_counting_0(group: str, short: int) -> None:
    engine = position([f"{group} 2C", "2D"], jokers=True)
    words = group.split()
    engine.play(0, [hand(words[0]), hand(words[1], 0), hand(words[2], 0)])
    if short:
        message = refused(engine, Reason.OPENING_SHORT, lambda: engine.end(0))
        joker = " (a joker counts 0)" if "XX" in words else ""  # a play-test counted it as a card
        assert message.endswith(f"make {24 - short}{joker}, {short} short"), message
        assert engine.problems() == [message]
    else:
        assert engine.problems() == []
        assert engine.end(0).opened and engine.opened[0]


def test_after_the_opening_turn_table_cards_may_be_moved() -> None:
    engine = position(["KS KH KD 4H 5C", "2C 2D"])
    engine.play(0, [hand("KS"), hand("KH", 0), hand("KD", 0)])
    engine.end(0)
    engine.draw(1)
    refused(engine, Reason.FIRST_FROM_HAND, lambda: engine.play(0, [move("KS", 0, None)]))
    engine.play(0, [hand("4H")])
    made = engine.play(0, [move("KS", 0, 1)])
    assert made == [move("KS", 0, 1)] and engine.table == [cards("KH KD"), cards("4H KS")]


# -- a turn ---------------------------------------------------------------------------------------


def test_the_first_play_of_a_turn_is_from_the_hand() -> None:
    engine = position(["4H", "2C"], table=["KS KH KD", "5C 5D 5S"], opened=[True])
    message = refused(engine, Reason.FIRST_FROM_HAND, lambda: engine.play(0, [move("KS", 0, None)]))
    assert message == "a turn's first play must be a card from your hand: play one, then move table cards"
    engine.play(0, [hand("4H"), move("5C", 1, 2)])  # in one batch: the hand card first
    assert engine.table[2] == cards("4H 5C")


def test_a_turn_has_at_most_six_plays() -> None:
    engine = position(["AC 3C 5C 7C 9C JC KC", "2D"], opened=[True])
    engine.play(0, [hand("AC"), hand("3C"), hand("5C"), hand("7C"), hand("9C"), hand("JC")])
    assert len(engine.plays) == MAX_PLAYS and len(engine.table) == 6  # six groups of one: invalid, for now
    message = refused(engine, Reason.TOO_MANY_PLAYS, lambda: engine.play(0, [hand("KC")]))
    assert message == (
        "a turn has at most 6 plays, and all 6 are made; the turn cannot end while groups 1, 2, 3, 4, 5 "
        "and 6 are not valid: undo a play, or draw"
    )
    engine.undo(0)
    refused(engine, Reason.TOO_MANY_PLAYS, lambda: engine.play(0, [hand("JC"), hand("KC")]))


def test_six_plays_made_offer_the_end_only_when_the_turn_may_end() -> None:
    """The play-test's turn: a good run, then a group that is not one; 'end' is refused, so not offered."""
    engine = position(["AS 2H 3S 9S 9H 0D QS 9D", "2D"])
    engine.play(0, [hand("AS"), hand("2H", 0), hand("3S", 0), hand("9S"), hand("9H", 1), hand("0D", 1)])
    message = refused(engine, Reason.TOO_MANY_PLAYS, lambda: engine.play(0, [hand("QS")]))
    assert message == (
        "a turn has at most 6 plays, and all 6 are made; the turn cannot end while group 2 is not valid: "
        "undo a play, or draw"
    )
    engine = position(["AS 2H 3S AC AH AD QS", "2D"])  # valid groups, but 9 points: an opening short
    engine.play(0, [hand("AS"), hand("2H", 0), hand("3S", 0), hand("AC"), hand("AH", 1), hand("AD", 1)])
    message = refused(engine, Reason.TOO_MANY_PLAYS, lambda: engine.play(0, [hand("QS")]))
    assert message.endswith("the turn cannot end while the opening is 15 points short: undo a play, or draw")
    assert blocked_end([], 1) == "the opening is 1 point short"  # not '1 points'
    engine = position(["AS 2H 3S 9S 9H 9D QS", "2D"])  # both groups valid, 33 points: it may end
    engine.play(0, [hand("AS"), hand("2H", 0), hand("3S", 0), hand("9S"), hand("9H", 1), hand("9D", 1)])
    message = refused(engine, Reason.TOO_MANY_PLAYS, lambda: engine.play(0, [hand("QS")]))
    assert message == "a turn has at most 6 plays, and all 6 are made: end the turn, or undo a play"


def test_seven_plays_at_once_are_refused_whole() -> None:
    engine = position(["AC 3C 5C 7C 9C JC KC", "2D"], opened=[True])
    batch = [hand(word) for word in ["AC", "3C", "5C", "7C", "9C", "JC", "KC"]]
    refused(engine, Reason.TOO_MANY_PLAYS, lambda: engine.play(0, batch))


def test_the_table_may_be_invalid_during_a_turn_but_not_at_its_end() -> None:
    engine = position(["7C 8H 9S 2H", "2D"], table=["JH QS KH"], opened=[True])
    engine.play(0, [hand("7C"), hand("8H", 1)])
    assert engine.invalid_groups() == [1]
    message = refused(engine, Reason.INVALID_TABLE, lambda: engine.end(0))
    assert message == "group 2 (7C 8H) is not valid: it has 2 cards; a group needs at least 3"
    engine.play(0, [hand("9S", 1)])
    assert engine.invalid_groups() == [] and engine.problems() == []
    assert engine.end(0).placed == tuple(cards("7C 8H 9S"))


def test_every_kind_of_bad_play_is_refused_and_changes_nothing() -> None:
    engine = position(["4H 5C", "2C"], table=["KS KH KD", "5H 6S 7H"], opened=[True])
    assert "do not hold 9D" in refused(engine, Reason.NOT_HELD, lambda: engine.play(0, [hand("9D")]))
    assert refused(engine, Reason.NOT_HELD, lambda: engine.play(0, [hand("4H"), hand("4H")])) == (
        "you hold 1 4H, not 2"
    )
    assert refused(engine, Reason.NO_SUCH_GROUP, lambda: engine.play(0, [hand("4H", 2)])) == (
        "there is no group 3: groups are numbered 1 to 2; 'to new' starts a new group"
    )
    refused(engine, Reason.NOT_YOUR_TURN, lambda: engine.play(1, [hand("2C")]))
    refused(engine, Reason.NOT_YOUR_TURN, lambda: engine.draw(1))
    refused(engine, Reason.NOTHING_TO_UNDO, lambda: engine.undo(0))
    refused(engine, Reason.NOTHING_PLAYED, lambda: engine.end(0))
    engine.play(0, [hand("4H", 1)])
    assert "holds no 5C" in refused(engine, Reason.NOT_IN_GROUP, lambda: engine.play(0, [move("5C", 0, 1)]))
    refused(engine, Reason.SAME_GROUP, lambda: engine.play(0, [move("KS", 0, 0)]))
    refused(engine, Reason.NO_SUCH_GROUP, lambda: engine.play(0, [move("KS", 5, 0)]))
    empty = position(["4H", "2C"], opened=[True])
    assert "the table is empty" in refused(
        empty, Reason.NO_SUCH_GROUP, lambda: empty.play(0, [hand("4H", 0)])
    )


def test_undo_takes_back_exactly_the_last_play() -> None:
    engine = position(["4H 5C 8D", "2C"], table=["KS KH KD", "5H 6S 7H"], opened=[True])
    steps = [[hand("8D")], [hand("4H", 2)], [move("KS", 0, None)], [move("7H", 1, 2)], [hand("5C", 3)]]
    states = []
    for plays in steps:
        states.append((sorted(engine.hand(0)), by_group(engine.table), engine.plays))
        engine.play(0, plays)
    assert len(engine.table) == 4
    for before in reversed(states):
        engine.undo(0)
        assert (sorted(engine.hand(0)), by_group(engine.table), engine.plays) == before
    assert engine.table == cards_table("KS KH KD", "5H 6S 7H") and engine.hand(0) == tuple(cards("4H 5C 8D"))
    assert engine.current == 0 and engine.turn == 0


def test_a_turn_makes_at_most_so_many_plays_undone_ones_counted() -> None:
    """A security review: play and undo, again and again, at the message rate, made the record grow
    without end (each a move kept). A turn's plays are bounded; undo, end and draw stay open."""
    engine = position(["4H 5C 8D", "2C"], table=["KS KH KD"], opened=[True, True])
    for _ in range(MAX_TURN_PLAYS // 2):
        engine.play(0, [hand("8D"), hand("4H", 1)])
        engine.undo(0)
        engine.undo(0)
    before = snapshot(engine)
    with pytest.raises(IllegalAction) as refused:
        engine.play(0, [hand("8D")])
    assert refused.value.reason is Reason.TOO_MANY_TRIES and snapshot(engine) == before
    assert str(MAX_TURN_PLAYS) in refused.value.message and "'draw'" in refused.value.message
    engine.draw(0)  # the turn taken back and drawn, as ever
    engine.play(1, [hand("2C")])  # the next turn counts its own
    engine.undo(1)
    assert engine.current == 1 and engine.plays == ()


def cards_table(*groups: str) -> list[list[Card]]:
    return [cards(group) for group in groups]


def test_undo_of_a_play_that_started_a_group_removes_the_group() -> None:
    engine = position(["4H 5C", "2C"], table=["KS KH KD"], opened=[True])
    engine.play(0, [hand("4H", 0), hand("5C")])
    assert len(engine.table) == 2
    assert engine.undo(0) == hand("5C", 1)  # as made: its new group numbered
    assert engine.table == cards_table("KS KH KD 4H")


def test_draw_in_the_middle_of_a_turn_takes_back_every_play_then_draws() -> None:
    engine = position(["4H 5C 8D", "2C"], table=["KS KH KD", "5H 6S 7H"], opened=[True])
    start = copy.deepcopy((engine.hands[0], engine.table))
    top = engine.stock[0]
    engine.play(0, [hand("8D"), hand("4H", 2), move("KS", 0, None), move("7H", 1, 2)])
    drew = engine.draw(0)
    assert (drew.card, drew.taken_back) == (top, 4)
    assert engine.hands[0] == [*start[0], top] and engine.table == start[1]
    assert engine.plays == () and engine.current == 1 and engine.turn == 1


def test_an_emptied_group_keeps_its_number_until_the_turn_ends() -> None:
    engine = position(["4H KS", "2C"], table=["4C 4D 4S", "5H 6S 7H"], opened=[True])
    engine.play(0, [hand("4H"), move("4C", 0, 2), move("4D", 0, 2), move("4S", 0, 2)])
    assert engine.table[0] == [] and engine.invalid_groups() == []  # empty: no group to judge
    assert engine.play(0, [hand("KS")]) == [hand("KS", 3)]  # the next new group is 4, not 3
    engine.undo(0)
    engine.play(0, [move("4S", 2, 0), move("4S", 0, 2)])  # the empty group still takes cards
    engine.end(0)
    assert engine.table == cards_table("5H 6S 7H", "4S 4H 4D 4C") and engine.hand(0) == (Card.parse("KS"),)


# -- the end and scoring --------------------------------------------------------------------------


def test_the_game_ends_when_a_turn_ends_with_an_empty_hand() -> None:
    engine = position(["7C 8H 9S", "AC", "KS KH"])
    engine.play(0, [hand("7C"), hand("8H", 0), hand("9S", 0)])
    assert engine.hand(0) == () and not engine.over  # the turn has still to end
    engine.end(0)
    assert engine.over and engine.current == 0 and engine.scores() == (0, 1, 26)
    assert engine.ranking() == ((0,), (1,), (2,))
    refused(engine, Reason.GAME_OVER, lambda: engine.draw(0))
    refused(engine, Reason.GAME_OVER, lambda: engine.play(1, [hand("AC")]))


def test_the_game_ends_after_the_turn_that_draws_the_stocks_last_card() -> None:
    engine = position(["4H", "2C"], opened=[True], stock=2)
    engine.draw(0)
    assert not engine.over and engine.stock_size == 1
    engine.play(1, [hand("2C")])
    drew = engine.draw(1)
    assert engine.over and engine.stock_size == 0 and drew.taken_back == 1
    assert engine.hand(1) == (Card.parse("2C"), drew.card)


def test_ties_share_a_place_and_a_joker_left_costs_48() -> None:
    engine = position(["4C 2H KS", "KD 6S", "AC", "XX"], jokers=True)
    assert engine.scores() == (19, 19, 1, 48)
    assert engine.ranking() == ((2,), (0, 1), (3,))
    assert position(["AC", "AC", "2C"]).ranking() == ((0, 1), (2,))


# -- the deal -------------------------------------------------------------------------------------


@pytest.mark.parametrize("jokers", [False, True])
def test_a_shuffled_deal_is_the_pack_and_reproducible_from_a_seed(jokers: bool) -> None:
    rules = Rules(4, jokers)
    deal = Deal.shuffled(rules, random.Random(7))
    deal.check(rules)
    assert deal == Deal.shuffled(rules, random.Random(7))
    assert deal != Deal.shuffled(rules, random.Random(8))
    assert [len(held) for held in deal.hands] == [HAND_SIZE] * 4
    assert len(deal.stock) == rules.deck_size - 48 == (58 if jokers else 56)
    assert Counter([*(card for held in deal.hands for card in held), *deal.stock])[JOKER] == 2 * jokers
    assert {Deal.shuffled(rules, random.Random(seed)).first for seed in range(40)} == {0, 1, 2, 3}


def test_a_deal_that_is_not_the_pack_is_refused() -> None:
    rules = Rules(3, False)
    deal = Deal.shuffled(rules, random.Random(1))
    hands, stock = deal.hands, deal.stock
    twice = ((*hands[0][:-1], hands[1][0]), *hands[1:])
    bad = [
        ("2 hands for 3", Deal(hands[:2], stock, 0)),
        ("cannot start", Deal(hands, stock, 3)),
        ("cannot start", Deal(hands, stock, -1)),
        ("has 11 cards", Deal((hands[0][:-1], *hands[1:]), (hands[0][-1], *stock), 0)),
        ("not the pack", Deal(twice, stock, 0)),  # a card dealt three times, another once
        ("not the pack", Deal(hands, stock[:-1], 0)),
        ("not the pack", Deal(hands, (*stock, JOKER, JOKER), 0)),
    ]
    for why, wrong in bad:
        with pytest.raises(DealError, match=why):
            wrong.check(rules)
        with pytest.raises(DealError):
            Engine(rules, wrong)
    with pytest.raises(DealError, match="not the pack"):
        Deal.shuffled(rules, random.Random(1)).check(Rules(3, True))  # the bonus pack has jokers


def test_the_pack_is_two_of_every_card_and_two_jokers_in_the_bonus_version() -> None:
    assert Counter(full_deck(Rules(4, False))) == Counter({card: 2 for card in CARDS})
    assert Counter(full_deck(Rules(4, True))) == Counter({**{card: 2 for card in CARDS}, JOKER: 2})


# -- properties of random play --------------------------------------------------------------------


def junk(match: HuxxyMatch, pick: int) -> str:
    """Text that is often refused: any card, to or from groups that may not exist, at any moment."""
    every = [*CARDS, JOKER]
    card, other = every[pick % len(every)], every[(pick // 53) % len(every)]
    groups = len(match.engine.table) + 2
    source, target = pick % groups + 1, (pick // 7) % groups + 1
    forms = [
        f"play {card}",
        f"play {card} to {target}",
        f"play {card} {other} {card}",
        f"move {card} from {source} to {target}",
        f"move {card} from {source}",
        "end",
        "undo",
        "draw",
        "play AC 2C 3C 4C 5C 6C",
    ]
    return forms[(pick // 11) % len(forms)]


@SETTINGS
@given(
    seed=st.integers(0, 2**32),
    variant=st.sampled_from(["huxxy", "huxxy-jokers"]),
    seats=st.integers(2, 4),
    steps=st.integers(1, 400),
)
def test_random_actions_conserve_the_pack_and_a_refused_one_changes_nothing(
    seed: int, variant: str, seats: int, steps: int
) -> None:
    settings_ = GAME.settings(variant, seats, {})
    match, bots = seeded_match(GAME, settings_, ["random"] * seats, seed)
    assert isinstance(match, HuxxyMatch)
    engine = match.engine
    pack = Counter(full_deck(engine.rules))
    assert sum(pack.values()) == (106 if variant == "huxxy-jokers" else 104)
    rng, accepted = random.Random(seed), 0
    for _ in range(steps):
        pick = rng.randrange(2**20)
        if match.over:
            break
        kind = pick % 6  # 0, 1: the seat's bot; 2 to 4: a legal action; 5: junk
        by_bot = kind < 2
        seat = match.current if by_bot or pick % 5 else (pick // 6) % seats
        legal = match.legal_actions(seat)
        if by_bot:
            text = match.action_text(bots[seat].choose(match.bot_view(seat)))
        elif kind < 5 and legal:
            text = legal[(pick // 3) % len(legal)]
        else:
            text = junk(match, pick)
        before = snapshot(engine)
        views = [match.view(viewer) for viewer in [None, *range(seats)]]
        try:
            match.apply(seat, match.parse_action(text))
        except ActionError as error:
            assert text not in legal and not by_bot, (text, error.message)
            assert snapshot(engine) == before, text
            assert [match.view(viewer) for viewer in [None, *range(seats)]] == views
        else:
            accepted += 1
        assert engine.cards_in_play() == pack, text
        if not engine.plays:  # between turns, and after a take-back: the table is valid
            assert valid_table(engine.table), text
    assert accepted or steps < 20


def potential(match: HuxxyMatch) -> int:
    """Twice the stock and the cards in hands: a turn either draws (the stock one fewer, a hand one
    more) or places at least one hand card for good (no play takes a card back into a hand), so
    each turn lowers it by at least one: a bound on the turns a game can last."""
    return 2 * match.engine.stock_size + sum(match.engine.hand_sizes())


def bots_play_to_the_end(variant: str, names: list[str], seed: int) -> int:
    settings_ = GAME.settings(variant, len(names), {})
    match, bots = seeded_match(GAME, settings_, names, seed)
    assert isinstance(match, HuxxyMatch)
    deck = match.engine.rules.deck_size
    marks = [potential(match)]
    bound = 2 * deck - HAND_SIZE * len(names)
    assert marks[0] == bound

    def turn_ended(_: Any, seat: int, action: Any, step: Any) -> None:
        assert isinstance(match, HuxxyMatch)
        if match.turn == len(marks):  # a turn has just ended
            marks.append(potential(match))
            assert marks[-1] < marks[-2], (seat, action)

    played = play_match(match, bots, turn_ended)
    assert match.over and played.turns == match.turn <= bound
    assert match.engine.cards_in_play() == Counter(full_deck(match.engine.rules))
    places = sorted(seat for place in played.outcome.ranking for seat in place)
    assert places == list(range(len(names)))
    if played.outcome.reason == "went-out":
        empty = tuple(seat for seat, size in enumerate(match.engine.hand_sizes()) if size == 0)
        assert played.outcome.ranking[0] == empty
    else:
        assert played.outcome.reason == "stock-exhausted" and match.engine.stock_size == 0
    return played.turns


@pytest.mark.parametrize(("variant", "seats"), [("huxxy", 4), ("huxxy", 2), ("huxxy-jokers", 3)])
def test_a_game_of_random_bots_always_ends_within_the_bound(variant: str, seats: int) -> None:
    turns = [bots_play_to_the_end(variant, ["random"] * seats, seed) for seed in range(2)]
    assert all(0 < count <= 2 * 106 - 24 for count in turns)


@needs_solver
def test_a_game_of_solver_bots_always_ends_within_the_bound() -> None:
    """One game (the solver's turns take a while): expert, greedy and random at one table."""
    bots_play_to_the_end("huxxy", ["expert", "greedy", "random"], 1)
