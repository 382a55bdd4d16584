"""The Ochos Locos engine: cards, the deal, refusals that say why and change nothing,
the automatic strategy, and properties of random legal play."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.ochos_locos import PRESETS, Card, CardError, Rules, RulesError, full_deck
from games.ochos_locos.actions import Action, Draw, Play, TakeTwo, play
from games.ochos_locos.deal import Deal, DealError
from games.ochos_locos.engine import Game
from games.ochos_locos.errors import IllegalAction, Reason
from games.ochos_locos.strategy import rule_choice, rule_move

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RULES = st.builds(Rules, twos=st.booleans(), eights=st.booleans(), players=st.integers(2, 6))
#: Each play or card taken shrinks 2 × draw pile + cards in hand (at most 64), and
#: at most ``players`` turns in a row do neither before a stalemate is declared.
TURN_BOUND = 64 * 7


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(token) for token in text.split())


def game(hands: list[str], start: str, rules: Rules = PRESETS["part3"]) -> Game:
    """A position: the given hands, the starting card, every other card in the draw pile."""
    dealt = [cards(hand) for hand in hands]
    used = {card for hand in dealt for card in hand} | {Card.parse(start)}
    stock = tuple(card for card in full_deck() if card not in used)
    return Game(rules.with_players(len(hands)), Deal(tuple(dealt), Card.parse(start), stock))


def all_cards(state: Game) -> Counter[Card]:
    held = [card for seat in range(state.rules.players) for card in state.hand(seat)]
    return Counter([*held, *state.pile, *state.stock])


# Cards.


def test_cards_parse_and_print_symmetrically() -> None:
    deck = full_deck()
    assert len(deck) == len(set(deck)) == 32
    assert all(Card.parse(str(card)) == card for card in deck)
    assert str(Card.parse("G3")) == "G3"
    assert sorted(cards("B1 R8 G2 Y8 R1"), key=lambda c: c.rank) == list(cards("R1 R8 Y8 G2 B1"))


def test_cards_and_plays_are_made_once_and_shared() -> None:
    """The engine's hot paths share the 32 cards and their plays; each still equals one made anew."""
    deck = full_deck()
    assert deck == [Card(colour, number) for colour in "RYGB" for number in range(1, 9)]
    assert all(card.rank == ("RYGB".index(card.colour), card.number) for card in deck)
    assert Card("B", 8).rank == (3, 8) and Card("B", 8) == deck[-1] and hash(Card("B", 8)) == hash(deck[-1])
    deck.reverse()  # a fresh list each time
    assert full_deck()[0] == Card("R", 1) and Card.parse("R1") is full_deck()[0]
    assert play(deck[0], "Y") is play(Card("B", 8), "Y") == Play(Card("B", 8), "Y")
    assert play(deck[1]) == Play(Card("B", 7)) != play(deck[1], "R")


@pytest.mark.parametrize("text", ["G9", "G0", "X3", "g3", "G", "G33", "", " G3"])
def test_not_a_card(text: str) -> None:
    with pytest.raises(CardError):
        Card.parse(text)


def test_rules_presets_and_table_size() -> None:
    assert PRESETS["part1"] == Rules(twos=False, eights=False, players=3)
    assert PRESETS["part2"] == Rules(twos=True)
    assert PRESETS["part3"] == PRESETS["part4"] == Rules(twos=True, eights=True)
    assert PRESETS["part4"].with_players(6).players == 6
    for players in (1, 7):
        with pytest.raises(RulesError):
            Rules(players=players)


def test_deal_must_be_all_32_once() -> None:
    rules = PRESETS["part1"]
    deal = Deal.shuffled(rules, random.Random(1))
    deal.check(rules)
    with pytest.raises(DealError, match="more than once"):
        Deal(deal.hands, deal.hands[0][0], deal.stock).check(rules)
    with pytest.raises(DealError, match="hands for"):
        deal.check(rules.with_players(2))


# The automatic strategy, on the seed's three examples and the switches.


def test_rule_choice_seed_examples() -> None:
    part1 = PRESETS["part1"]
    hand = cards("R3 R7 Y3 Y7 G8 B3 B7 B8")
    assert rule_choice(hand, Card.parse("G3"), part1) == Play(Card.parse("R3"))
    hand = cards("R3 R7 Y3 Y7 G8 B7 B8")
    assert rule_choice(hand, Card.parse("B8"), part1) == Play(Card.parse("B7"))
    assert rule_choice(cards("R1 R2 G3 G5 B6 B7 B8"), Card.parse("Y4"), part1) == Draw()


def test_rule_choice_twos_and_eights() -> None:
    part3 = PRESETS["part3"]
    assert rule_choice(cards("R1 B2 Y2"), Card.parse("R2"), part3, two_pending=True) == Play(Card.parse("Y2"))
    assert rule_choice(cards("R1 R5"), Card.parse("R2"), part3, two_pending=True) == TakeTwo()
    # Without the penalty a 2 on top is matched as any card.
    assert rule_choice(cards("R1 R5"), Card.parse("R2"), part3) == Play(Card.parse("R1"))
    # The playable 8 comes first, even against the count; it names the first colour left.
    assert rule_choice(cards("R3 B3 G8 B8 B1"), Card.parse("G3"), part3) == Play(Card.parse("G8"), "R")
    assert rule_choice(cards("R8 G1"), Card.parse("R3"), part3) == Play(Card.parse("R8"), "G")
    assert rule_choice(cards("B8"), Card.parse("B3"), part3) == Play(Card.parse("B8"))
    # After ``R8 LOCO Y``: yellow or an 8.
    assert rule_choice(cards("R1 Y5 Y4"), Card.parse("R8"), part3, named="Y") == Play(Card.parse("Y4"))
    assert rule_choice(cards("R1 G2"), Card.parse("R8"), part3, named="Y") == Draw()
    # Part 1: an 8 is an ordinary card.
    assert rule_choice(cards("R3 B3 G8 B8 B1"), Card.parse("G3"), PRESETS["part1"]) == Play(Card.parse("R3"))


# Refusals: each says why and changes nothing.


def refused(state: Game, seat: int, action: Action, reason: Reason) -> None:
    before = state.snapshot()
    with pytest.raises(IllegalAction) as caught:
        state.apply(seat, action)
    assert caught.value.reason is reason, caught.value
    assert state.snapshot() == before


HANDS = ["R2 R8 G5 Y6 B1", "Y2 G2 Y3 Y4 Y5", "B2 B3 B4 B5 B6"]


def test_refusal_reasons() -> None:
    state = game(HANDS, "R1")
    refused(state, 1, Play(Card.parse("Y2")), Reason.NOT_YOUR_TURN)
    refused(state, 0, Play(Card.parse("R3")), Reason.NOT_HELD)
    refused(state, 0, Play(Card.parse("G5")), Reason.NO_MATCH)
    refused(state, 0, Draw(), Reason.MUST_PLAY)
    refused(state, 0, TakeTwo(), Reason.NO_TWO_TO_ANSWER)
    refused(state, 0, Play(Card.parse("R8")), Reason.MUST_NAME_COLOUR)
    refused(state, 0, Play(Card.parse("R2"), "Y"), Reason.MUST_NOT_NAME_COLOUR)
    state.apply(0, Play(Card.parse("R2")))
    assert state.two_pending
    refused(state, 1, Play(Card.parse("Y3")), Reason.MUST_ANSWER_TWO)
    refused(state, 1, Draw(), Reason.MUST_ANSWER_TWO)
    refused(state, 1, TakeTwo(), Reason.MUST_PLAY)
    state.apply(1, Play(Card.parse("G2")))
    refused(state, 2, TakeTwo(), Reason.MUST_PLAY)
    state.apply(2, Play(Card.parse("B2")))
    assert state.legal_actions() == [TakeTwo()]
    state.apply(0, TakeTwo())
    assert not state.two_pending and state.hand_sizes()[0] == 6


def down_to_an_eight() -> Game:
    """Seat 0 holds only R8, its last card, and is to play; seat 1 holds several."""
    last = game(["R1 R2 R3 R4 R8", "R5 R6 R7 Y1 Y2"], "G1", Rules(eights=True))
    for mine, theirs in (("R1", "R5"), ("R2", "R6"), ("R3", "R7")):
        last.apply(0, Play(Card.parse(mine)))
        last.apply(1, Play(Card.parse(theirs)))
    last.apply(0, Play(Card.parse("R4")))
    last.apply(1, Draw())
    return last


def test_an_eight_names_a_colour_unless_it_is_the_last_card() -> None:
    state = game(["R8 G1 G2 G3 G4", "Y1 Y3 Y4 Y5 Y6", "B1 B3 B4 B5 B6"], "R1")
    state.apply(0, Play(Card.parse("R8"), "B"))
    assert state.named == "B"
    refused(state, 1, Play(Card.parse("Y1")), Reason.NO_MATCH)
    last = down_to_an_eight()
    assert last.hand(0) == cards("R8")
    refused(last, 0, Play(Card.parse("R8"), "R"), Reason.MUST_NOT_NAME_COLOUR)
    assert last.legal_actions() == [Play(Card.parse("R8"))]
    assert last.apply(0, Play(Card.parse("R8"))).won and last.winner == 0


def test_part1_eights_name_nothing() -> None:
    state = game(HANDS, "R1", PRESETS["part1"])
    refused(state, 0, Play(Card.parse("R8"), "G"), Reason.MUST_NOT_NAME_COLOUR)
    state.apply(0, Play(Card.parse("R8")))
    assert state.named is None


def test_game_over_refuses_everything() -> None:
    state = game(HANDS, "R1")
    while not state.over:
        state.apply(state.current, rule_move(state))
    refused(state, state.current, Draw(), Reason.GAME_OVER)
    assert state.legal_actions() == []


# Properties of play.


def play_out(state: Game, choose: random.Random | None) -> None:
    """Play to the end, at random among legal actions or (``None``) by the automatic strategy."""
    for _ in range(TURN_BOUND):
        if state.over:
            return
        legal = state.legal_actions()
        assert legal
        action = rule_move(state) if choose is None else choose.choice(legal)
        assert action in legal
        state.apply(state.current, action)
        assert all_cards(state) == Counter(full_deck())
    assert state.over, "the game did not end within the bound"


@SETTINGS
@given(rules=RULES, seed=st.integers(0, 2**32), moves=st.integers(0, 2**32))
def test_random_legal_play_keeps_every_card_once(rules: Rules, seed: int, moves: int) -> None:
    state = Game.new(rules, random.Random(seed))
    assert all_cards(state) == Counter(full_deck())
    play_out(state, random.Random(moves))
    assert (state.winner is None) == state.stalemate


@SETTINGS
@given(rules=RULES, seed=st.integers(0, 2**32))
def test_rule_strategy_games_end(rules: Rules, seed: int) -> None:
    state = Game.new(rules, random.Random(seed))
    play_out(state, None)
    if state.winner is not None:
        assert state.hand(state.winner) == ()
        assert state.history[-1].won
    else:
        # Stalemate: the last round played no card and took none, and the draw pile is empty.
        assert state.stock == ()
        quiet = state.history[-rules.players :]
        assert all(not isinstance(turn.action, Play) and not turn.took for turn in quiet)


@SETTINGS
@given(rules=RULES, seed=st.integers(0, 2**32), moves=st.integers(0, 2**32), data=st.data())
def test_illegal_actions_change_nothing(rules: Rules, seed: int, moves: int, data: st.DataObject) -> None:
    state = Game.new(rules, random.Random(seed))
    choose = random.Random(moves)
    every: list[Action] = [Draw(), TakeTwo()]
    every += [Play(card, colour) for card in full_deck() for colour in (None, "R", "Y", "G", "B")]
    for _ in range(data.draw(st.integers(0, 40))):
        if state.over:
            break
        state.apply(state.current, choose.choice(state.legal_actions()))
    legal = state.legal_actions()
    for action in legal:  # every action listed is accepted
        copy.deepcopy(state).apply(state.current, action)
    seat = data.draw(st.integers(0, rules.players - 1))
    for action in every:
        if seat == state.current and action in legal:
            continue
        before = state.snapshot()
        with pytest.raises(IllegalAction):
            state.apply(seat, action)
        assert state.snapshot() == before
