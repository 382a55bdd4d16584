"""The rules engine (games/notty/engine/), rule by rule against shared/rules/notty.md."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import attrs
import pytest
from conftest import (
    PRESET_IDS,
    PRESETS,
    assert_conserved,
    assert_refused,
    cards,
    groupless,
    groupless_hands,
    new_game,
    position,
    restore,
    set_position,
    snapshot,
)

from games.notty import CLASSIC, FIVE_COLOUR, Card, GroupKind, Rules, has_group, rules_from, valid_groups
from games.notty.engine import (
    Action,
    ActionSyntaxError,
    Discard,
    Discarded,
    Draw,
    DrawDiscard,
    Drew,
    DrewToExchange,
    EndReason,
    EndTurn,
    Game,
    GameEnded,
    GameStarted,
    IllegalAction,
    PutBack,
    ReturnedCard,
    Rule,
    Steal,
    Stole,
    TurnEnded,
    View,
    legal_actions,
    parse_action,
)

C = Card.parse
presets = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)


def flags(game: Game) -> tuple[bool, bool, bool, bool]:
    return game.drew, game.stole, game.exchanged, game.must_put_back


def no_limit(rules: Rules) -> Rules:
    return rules.replace(hand_limit=0)


def all_but(rules: Rules, keep: str | list[Card], players: int = 2) -> list[list[Card]]:
    """Hands (seat 0 holds R1 R5 Y9, seat 1 the rest) leaving only ``keep`` in the deck.

    Needs ``hand_limit=0``: seat 1 holds nearly the whole deck.
    """
    rest = Counter(rules.full_deck()) - Counter(cards(keep) if isinstance(keep, str) else keep)
    first = cards("R1 R5 Y9")
    rest -= Counter(first)
    hands = [first, sorted(rest.elements())]
    for _ in range(players - 2):
        hands.append([hands[1].pop()])
    return hands


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize(
    ("rules", "players", "hand_size", "deck_size"),
    [(CLASSIC, 2, 5, 70), (CLASSIC, 3, 5, 65), (FIVE_COLOUR, 2, 4, 82), (FIVE_COLOUR, 3, 4, 78)],
)
def test_deal(rules: Rules, players: int, hand_size: int, deck_size: int) -> None:
    for seed in range(25):
        game = new_game(rules, players, seed)
        assert [len(hand) for hand in game.hands] == [hand_size] * players
        assert game.deck_size == deck_size == len(game._deck)
        assert all(hand == sorted(hand) for hand in game.hands)
        assert all(rules.allows(card) for hand in game.hands for card in hand)
        assert_conserved(game)
        assert game.turn == 1
        assert flags(game) == (False, False, False, False)
        assert game.winner is None and game.end_reason is None and not game.over
        assert game.opening == [GameStarted(game.current)]
        assert 0 <= game.current < players


@presets
@pytest.mark.parametrize("players", [2, 3])
def test_deal_and_first_player_are_seeded(rules: Rules, players: int) -> None:
    deals = set()
    for seed in range(30):
        a, b = new_game(rules, players, seed), new_game(rules, players, seed)
        assert a.hands == b.hands and a.current == b.current and a._deck == b._deck
        deals.add(tuple(tuple(hand) for hand in a.hands))
    assert len(deals) == 30  # the deck really is shuffled


@presets
@pytest.mark.parametrize("players", [2, 3])
def test_first_player_is_random(rules: Rules, players: int) -> None:
    trials = 300
    firsts = Counter(new_game(rules, players, f"first:{seed}").current for seed in range(trials))
    assert set(firsts) == set(range(players))
    for seat in range(players):
        assert firsts[seat] > 0.6 * trials / players, firsts


@presets
@pytest.mark.parametrize("players", [0, 1, 4])
def test_player_count_is_checked(rules: Rules, players: int) -> None:
    with pytest.raises(ValueError):
        new_game(rules, players)


@presets
def test_opening_legal_actions(rules: Rules) -> None:
    game = position(rules, ["R1 R2 R3 Y7", "G1 B5 Y8 Y2", "B9 B2"], current=0)
    legal = game.legal_actions()
    expected: list[Action] = [Discard(cards("R1 R2 R3")), Draw(1), Draw(2), Draw(3), Steal(1), Steal(2)]
    if rules.draw_and_discard:
        expected.append(DrawDiscard())
    expected.append(EndTurn())
    assert sorted(map(str, legal)) == sorted(map(str, expected))


# --------------------------------------------------------------------------- draw


@presets
@pytest.mark.parametrize("count", [1, 2, 3])
def test_draw_takes_count_cards_from_the_deck(rules: Rules, count: int) -> None:
    game = position(rules, ["R1 Y5", "G2 B7"])
    deck_before, hand_before = game.deck_contents(), Counter(game.hands[0])
    events = game.apply(Draw(count))
    assert len(events) == 1 and isinstance(events[0], Drew)
    drawn = events[0].cards
    assert events[0].seat == 0 and len(drawn) == count
    assert Counter(game.hands[0]) == hand_before + Counter(drawn)
    assert game.deck_contents() == deck_before - Counter(drawn)
    assert game.hands[0] == sorted(game.hands[0])
    assert game.hands[1] == cards("G2 B7")
    assert game.drew and not game.stole
    assert_conserved(game)


@presets
@pytest.mark.parametrize("count", [0, 4, 5, 100])
def test_draw_count_must_be_1_to_3(rules: Rules, count: int) -> None:
    game = position(rules, ["R1 Y5", "G2 B7"])
    assert_refused(game, Draw(count), Rule.DRAW_COUNT)


@presets
def test_draw_once_per_turn(rules: Rules) -> None:
    game = position(rules, ["R1 R2 Y5", "G2 B7"])
    game.apply(Draw(1), outcome=C("R3"))
    assert_refused(game, Draw(1), Rule.DRAW_ONCE)
    game.apply(Discard(cards("R1 R2 R3")))  # discarding does not give another draw
    assert_refused(game, Draw(2), Rule.DRAW_ONCE)
    assert Draw(1) not in game.legal_actions()
    game.apply(EndTurn())
    game.apply(EndTurn())
    assert game.current == 0
    game.apply(Draw(1))  # a new turn, a new draw


@presets
@pytest.mark.parametrize(
    ("size", "count", "allowed"),
    [
        (17, 3, True),  # exactly at the limit afterwards
        (18, 3, False),  # one over
        (18, 2, True),
        (19, 1, True),
        (19, 2, False),
        (20, 1, False),
    ],
)
def test_draw_never_past_the_hand_limit(rules: Rules, size: int, count: int, allowed: bool) -> None:
    hands = groupless_hands(rules, [size, 5])
    game = position(rules, hands)
    if allowed:
        game.apply(Draw(count))
        assert len(game.hands[0]) == size + count <= rules.hand_limit
        assert_conserved(game)
    else:
        assert_refused(game, Draw(count), Rule.HAND_LIMIT)
        assert Draw(count) not in game.legal_actions()


@presets
def test_no_hand_limit_when_zero(rules: Rules) -> None:
    rules = no_limit(rules)
    hand = groupless(rules, 30)
    game = position(rules, [hand, groupless(rules, 2, hand)])
    game.apply(Draw(3))
    assert len(game.hands[0]) == 33
    game.apply(Steal(1), outcome=game.hands[1][0])
    assert len(game.hands[0]) == 34
    assert Steal(1) not in game.legal_actions()  # stolen already, not for any limit


@presets
def test_draw_never_more_than_the_deck_holds(rules: Rules) -> None:
    rules = no_limit(rules)
    game = position(rules, all_but(rules, "G4 B6"))
    assert game.deck_size == 2
    assert_refused(game, Draw(3), Rule.DECK_TOO_SMALL)
    assert Draw(3) not in game.legal_actions() and Draw(2) in game.legal_actions()
    game.apply(Draw(2))
    assert game.deck_size == 0 and game.deck_contents() == Counter()
    assert Counter(game.hands[0]) == Counter(cards("R1 R5 Y9 G4 B6"))
    game.apply(EndTurn())
    assert_refused(game, Draw(1), Rule.DECK_TOO_SMALL)
    assert not any(isinstance(action, Draw) for action in game.legal_actions())
    with pytest.raises(IllegalAction, match="the deck has 2 cards; cannot draw 3"):
        position(rules, all_but(rules, "G4 B6")).apply(Draw(3))
    with pytest.raises(IllegalAction, match="the deck has 1 card; cannot draw 2"):  # not "1 cards"
        position(rules, all_but(rules, "G4")).apply(Draw(2))


@presets
def test_draw_outcome_is_honoured_and_checked(rules: Rules) -> None:
    game = position(rules, ["R1 R1 Y5", "G2 B7"])
    events = game.apply(Draw(2), outcome=(C("B7"), C("R2")))
    assert events == [Drew(0, (C("B7"), C("R2")))]
    assert game.hands[0] == cards("R1 R1 R2 Y5 B7")
    game.apply(EndTurn())
    # both R1 are in seat 0's hand, none in the deck
    assert_refused(game, Draw(1), Rule.IMPOSSIBLE_OUTCOME, outcome=C("R1"))
    assert_refused(game, Draw(2), Rule.IMPOSSIBLE_OUTCOME, outcome=(C("R3"),))  # wrong count
    assert_refused(game, Draw(1), Rule.IMPOSSIBLE_OUTCOME, outcome=(C("R3"), C("R4")))
    # one G2 is left in the deck, not two
    assert_refused(game, Draw(2), Rule.IMPOSSIBLE_OUTCOME, outcome=(C("G2"), C("G2")))
    game.apply(Draw(1), outcome=C("G2"))
    assert game.hands[1] == cards("G2 G2 B7")


def test_draw_is_uniform_over_the_deck() -> None:
    rules = no_limit(CLASSIC)
    game = new_game(rules, 2, seed=7)
    hands = all_but(rules, "R7 R7 G5 B8")
    seen: Counter[Card] = Counter()
    trials = 2000
    for _ in range(trials):
        set_position(game, hands)
        (event,) = game.apply(Draw(1))
        assert isinstance(event, Drew)
        seen.update(event.cards)
    assert set(seen) == set(cards("R7 G5 B8"))
    assert 0.45 < seen[C("R7")] / trials < 0.55
    assert 0.2 < seen[C("G5")] / trials < 0.3
    assert 0.2 < seen[C("B8")] / trials < 0.3


# --------------------------------------------------------------------------- steal


@presets
def test_steal_moves_exactly_the_outcome_card(rules: Rules) -> None:
    game = position(rules, ["R1 Y5", "R3 R3 G5 B7"])
    deck = list(game._deck)
    events = game.apply(Steal(1), outcome=C("R3"))
    assert events == [Stole(0, 1, C("R3"))]
    assert game.hands == [cards("R1 R3 Y5"), cards("R3 G5 B7")]
    assert game._deck == deck  # the deck is not touched
    assert game.stole and not game.drew
    assert_conserved(game)


@presets
def test_steal_takes_a_card_of_the_victim(rules: Rules) -> None:
    for seed in range(20):
        game = set_position(new_game(rules, 3, seed), ["R1 Y5", "R3 G5 B7", "Y1 Y9 B2"], current=1)
        (event,) = game.apply(Steal(2))
        assert isinstance(event, Stole) and event.seat == 1 and event.victim == 2
        assert event.card in cards("Y1 Y9 B2")
        assert Counter(game.hands[2]) == Counter(cards("Y1 Y9 B2")) - Counter([event.card])
        assert Counter(game.hands[1]) == Counter(cards("R3 G5 B7")) + Counter([event.card])
        assert game.hands[0] == cards("R1 Y5")
        assert_conserved(game)


def test_steal_is_uniform_over_the_victims_hand() -> None:
    game = new_game(CLASSIC, 2, seed=3)
    seen: Counter[Card] = Counter()
    trials = 2000
    for _ in range(trials):
        set_position(game, ["Y5", "R3 R3 G5 B7"])
        (event,) = game.apply(Steal(1))
        assert isinstance(event, Stole)
        seen[event.card] += 1
    assert 0.45 < seen[C("R3")] / trials < 0.55
    assert 0.2 < seen[C("G5")] / trials < 0.3
    assert 0.2 < seen[C("B7")] / trials < 0.3


@presets
def test_steal_once_per_turn(rules: Rules) -> None:
    game = position(rules, ["R1", "R3 G5 B7", "Y1 Y9 B2"])
    game.apply(Steal(1))
    assert_refused(game, Steal(2), Rule.STEAL_ONCE)
    assert_refused(game, Steal(1), Rule.STEAL_ONCE)
    assert not any(isinstance(action, Steal) for action in game.legal_actions())
    game.apply(EndTurn())
    game.apply(Steal(2))  # seat 1 has its own steal


@presets
def test_steal_not_from_self(rules: Rules) -> None:
    game = position(rules, ["R1 R2", "R3 G5 B7"])
    assert_refused(game, Steal(0), Rule.STEAL_FROM_SELF)
    assert Steal(0) not in game.legal_actions()


@presets
@pytest.mark.parametrize(("players", "victim"), [(2, 2), (2, -1), (3, 3), (3, 99), (3, -2)])
def test_steal_from_no_such_seat(rules: Rules, players: int, victim: int) -> None:
    game = position(rules, ["R1 R2", "R3 G5 B7", "Y1 Y2"][:players])
    assert_refused(game, Steal(victim), Rule.NO_SUCH_SEAT)


@presets
@pytest.mark.parametrize(("size", "allowed"), [(18, True), (19, True), (20, False)])
def test_steal_refused_at_the_hand_limit(rules: Rules, size: int, allowed: bool) -> None:
    game = position(rules, groupless_hands(rules, [size, 6]))
    if allowed:
        game.apply(Steal(1))
        assert len(game.hands[0]) == size + 1 <= rules.hand_limit
    else:
        assert_refused(game, Steal(1), Rule.HAND_LIMIT)
        assert Steal(1) not in game.legal_actions()


@presets
def test_steal_from_an_empty_hand_is_refused(rules: Rules) -> None:
    game = position(rules, ["R1 R2", "R3 G5 B7", []])
    assert_refused(game, Steal(2), Rule.EMPTY_HAND)
    assert Steal(2) not in game.legal_actions()


@presets
def test_steal_outcome_must_be_in_the_victims_hand(rules: Rules) -> None:
    game = position(rules, ["R1 R2", "R3 G5 B7"])
    assert_refused(game, Steal(1), Rule.IMPOSSIBLE_OUTCOME, outcome=C("R1"))
    assert_refused(game, Steal(1), Rule.IMPOSSIBLE_OUTCOME, outcome=(C("R3"),))


# --------------------------------------------------------------------------- discard

VALID = [
    (CLASSIC, "R1 R2 R3", GroupKind.RUN),
    (CLASSIC, "G3 G4 G5 G6 G7 G8", GroupKind.RUN),
    (CLASSIC, "B8 B9 B10", GroupKind.RUN),
    (CLASSIC, "R6 Y6 B6", GroupKind.SET),
    (CLASSIC, "R6 Y6 G6 B6", GroupKind.SET),
    (FIVE_COLOUR, "R7 R8 R9", GroupKind.RUN),
    (FIVE_COLOUR, "K1 K2 K3 K4", GroupKind.RUN),
    (FIVE_COLOUR, "R6 Y6 B6 K6", GroupKind.SET),
    (FIVE_COLOUR, "R6 Y6 G6 B6 K6", GroupKind.SET),
]


@pytest.mark.parametrize(("rules", "group", "kind"), VALID, ids=[f"{r.name}:{g}" for r, g, _ in VALID])
def test_discard_valid_group(rules: Rules, group: str, kind: GroupKind) -> None:
    extra = "Y1 Y1" if rules is CLASSIC else "G1 G1"
    game = position(rules, [f"{group} {extra}", "B1 B3"])
    deck_before = game.deck_contents()
    events = game.apply(Discard(cards(group)))
    assert events == [Discarded(0, tuple(cards(group)), kind)]
    assert game.hands[0] == cards(extra)
    assert game.deck_contents() == deck_before + Counter(cards(group))  # back into the deck
    assert not game.over
    assert_conserved(game)


INVALID = [
    (CLASSIC, "R9 R10 R1", "R9 R10 R1"),  # no wrapping
    (CLASSIC, "B4 B6 B7", "B4 B6 B7"),  # not consecutive
    (CLASSIC, "B4 R4 B4", "B4 R4 B4"),  # repeated colour
    (CLASSIC, "R1 R2", "R1 R2"),  # too short
    (CLASSIC, "R6 Y6", "R6 Y6"),
    (CLASSIC, "R1 Y2 G3", "R1 Y2 G3"),
    (CLASSIC, "R1 R2 R3 R3", "R1 R2 R3 R3"),  # a run cannot repeat a number
    (CLASSIC, "R5 R5 Y5 G5", "R5 R5 Y5 G5"),
    (CLASSIC, "R1 R2 R3", ""),  # no cards
    (FIVE_COLOUR, "R6 Y6 B6", "R6 Y6 B6"),  # five-colour sets need four
    (FIVE_COLOUR, "K8 K9 K1", "K8 K9 K1"),
    (FIVE_COLOUR, "R6 Y6 B6 B6", "R6 Y6 B6 B6"),
    (FIVE_COLOUR, "K4 K6 K7", "K4 K6 K7"),
]


@pytest.mark.parametrize(
    ("rules", "hand", "group"), INVALID, ids=[f"{r.name}:{g or 'empty'}" for r, _, g in INVALID]
)
def test_discard_invalid_group(rules: Rules, hand: str, group: str) -> None:
    game = position(rules, [hand, "G1 G2"])
    assert_refused(game, Discard(cards(group)), Rule.INVALID_GROUP)
    assert Discard(cards(group)) not in game.legal_actions()


@presets
def test_discard_only_cards_in_hand(rules: Rules) -> None:
    game = position(rules, ["R1 R2 Y5 G5 B5", "R3 G7"])
    assert_refused(game, Discard(cards("R1 R2 R3")), Rule.NOT_IN_HAND)  # R3 is the opponent's
    assert_refused(game, Discard(cards("R2 R3 R4")), Rule.NOT_IN_HAND)  # R3, R4 are in the deck
    assert_refused(game, Discard(cards("Y4 Y5 Y6")), Rule.NOT_IN_HAND)


@presets
def test_discard_counts_copies(rules: Rules) -> None:
    """A hand is a multiset: discarding two R5 needs two R5 in the hand."""
    one = position(rules, ["R5 Y5 G5 B5", "G7"])
    assert_refused(one, Discard(cards("R5 R5 Y5 G5")), Rule.NOT_IN_HAND)
    two = position(rules, ["R5 R5 Y5 G5 B5", "G7"])
    assert_refused(two, Discard(cards("R5 R5 Y5 G5")), Rule.INVALID_GROUP)  # held, but not a group


def test_classic_hand_cannot_discard_black_cards() -> None:
    game = position(CLASSIC, ["R1 R2", "G7"])
    assert_refused(game, Discard(cards("K1 K2 K3")), Rule.NOT_IN_HAND)


@presets
def test_discard_any_number_of_times(rules: Rules) -> None:
    game = position(rules, ["R1 R2 R3 G4 G5 G6 B7 B8 B9 Y1 Y1", "R9 Y3"])
    game.apply(Draw(1))
    game.apply(Discard(cards("R1 R2 R3")))
    game.apply(Steal(1), outcome=C("R9"))
    game.apply(Discard(cards("G4 G5 G6")))
    game.apply(Discard(cards("B7 B8 B9")))
    assert len(game.hands[0]) == 4 and not game.over
    assert_conserved(game)


@presets
def test_discard_takes_no_outcome(rules: Rules) -> None:
    game = position(rules, ["R1 R2 R3 Y1", "G7"])
    assert_refused(game, Discard(cards("R1 R2 R3")), Rule.IMPOSSIBLE_OUTCOME, outcome=C("R1"))
    assert_refused(game, EndTurn(), Rule.IMPOSSIBLE_OUTCOME, outcome=C("R1"))


# --------------------------------------------------------------------------- draw-and-discard


def test_no_draw_and_discard_in_classic() -> None:
    game = position(CLASSIC, ["R1 R2 Y5", "G2 B7"])
    assert_refused(game, DrawDiscard(), Rule.NO_DRAW_AND_DISCARD)
    # not 'put back only after draw-and-discard', which classic has none of to do first
    assert_refused(game, PutBack(C("R1")), Rule.NO_DRAW_AND_DISCARD)
    assert DrawDiscard() not in game.legal_actions()


def dd_game(hand: str = "R1 R2 R3 Y5 K9", other: str = "G2 B7", **kwargs: Any) -> Game:
    return position(FIVE_COLOUR, [hand, other], **kwargs)


def test_draw_and_discard_draws_one_then_must_put_back() -> None:
    game = dd_game()
    deck_before = game.deck_contents()
    events = game.apply(DrawDiscard(), outcome=C("G8"))
    assert events == [DrewToExchange(0, C("G8"))]
    assert game.hands[0] == cards("R1 R2 R3 Y5 K9 G8")
    assert game.deck_contents() == deck_before - Counter([C("G8")])
    assert game.exchanged and game.must_put_back and not game.drew
    assert game.legal_actions() == [PutBack(card) for card in cards("R1 R2 R3 Y5 G8 K9")]
    for action in [Draw(1), Steal(1), Discard(cards("R1 R2 R3")), DrawDiscard(), EndTurn()]:
        assert_refused(game, action, Rule.PUT_BACK_FIRST)
    assert_refused(game, PutBack(C("B7")), Rule.NOT_IN_HAND)
    events = game.apply(PutBack(C("Y5")))
    assert events == [ReturnedCard(0, C("Y5"))]
    assert game.hands[0] == cards("R1 R2 R3 G8 K9")
    assert game.deck_contents() == deck_before - Counter([C("G8")]) + Counter([C("Y5")])
    assert game.exchanged and not game.must_put_back
    assert_conserved(game)
    # once per turn; the other actions are free again
    assert_refused(game, DrawDiscard(), Rule.DRAW_AND_DISCARD_ONCE)
    assert DrawDiscard() not in game.legal_actions()
    assert_refused(game, PutBack(C("R1")), Rule.NOTHING_TO_PUT_BACK)
    game.apply(Discard(cards("R1 R2 R3")))
    game.apply(Draw(1))
    game.apply(Steal(1))
    game.apply(EndTurn())
    assert game.current == 1 and not game.exchanged
    game.apply(DrawDiscard())  # the next player has their own


def test_draw_and_discard_may_put_back_the_drawn_card() -> None:
    game = dd_game()
    hand, deck = list(game.hands[0]), game.deck_contents()
    game.apply(DrawDiscard(), outcome=C("G8"))
    game.apply(PutBack(C("G8")))
    assert game.hands[0] == hand and game.deck_contents() == deck


def test_draw_and_discard_random_card_comes_from_the_deck() -> None:
    for seed in range(10):
        game = set_position(new_game(FIVE_COLOUR, 2, seed), ["R1 Y5", "G2 B7"])
        deck = game.deck_contents()
        (event,) = game.apply(DrawDiscard())
        assert isinstance(event, DrewToExchange) and deck[event.card] > 0
        assert Counter(game.hands[0]) == Counter(cards("R1 Y5")) + Counter([event.card])


def test_draw_and_discard_combines_with_draw_and_steal() -> None:
    game = dd_game()
    game.apply(Draw(2))
    game.apply(Steal(1))
    game.apply(DrawDiscard())
    game.apply(PutBack(game.hands[0][-1]))
    assert len(game.hands[0]) == 5 + 2 + 1


@pytest.mark.parametrize(("size", "allowed"), [(19, True), (20, False)])
def test_draw_and_discard_refused_at_the_hand_limit(size: int, allowed: bool) -> None:
    game = position(FIVE_COLOUR, groupless_hands(FIVE_COLOUR, [size, 5]))
    if allowed:
        game.apply(DrawDiscard())
        assert len(game.hands[0]) == 20
        game.apply(PutBack(game.hands[0][0]))
        assert len(game.hands[0]) == 19
    else:
        assert_refused(game, DrawDiscard(), Rule.HAND_LIMIT)
        assert DrawDiscard() not in game.legal_actions()


def test_draw_and_discard_refused_with_an_empty_deck() -> None:
    rules = no_limit(FIVE_COLOUR)
    game = position(rules, all_but(rules, []))
    assert game.deck_size == 0
    assert_refused(game, DrawDiscard(), Rule.DECK_TOO_SMALL)
    assert DrawDiscard() not in game.legal_actions()


def test_draw_and_discard_outcome_must_be_in_the_deck() -> None:
    game = dd_game("R1 R1 Y5")
    assert_refused(game, DrawDiscard(), Rule.IMPOSSIBLE_OUTCOME, outcome=C("R1"))
    assert_refused(game, PutBack(C("R1")), Rule.NOTHING_TO_PUT_BACK)
    game.apply(DrawDiscard(), outcome=C("R2"))
    assert_refused(game, PutBack(C("R1")), Rule.IMPOSSIBLE_OUTCOME, outcome=C("R1"))


# --------------------------------------------------------------------------- ending a turn


@presets
def test_end_turn_resets_flags_and_moves_on(rules: Rules) -> None:
    game = position(rules, ["R1 R2 Y5", "G2 B7 B9", "Y1 Y2"], current=1, turn=4)
    game.apply(Draw(1))
    game.apply(Steal(2))
    if rules.draw_and_discard:
        game.apply(DrawDiscard())
        game.apply(PutBack(game.hands[1][0]))
    events = game.apply(EndTurn())
    assert events == [TurnEnded(1, 2, 5)]
    assert game.current == 2 and game.turn == 5
    assert flags(game) == (False, False, False, False)
    assert game.apply(EndTurn()) == [TurnEnded(2, 0, 6)]  # round the table
    assert game.current == 0
    # the next player can draw and steal again
    game.apply(Draw(1))
    game.apply(Steal(1))


@presets
@pytest.mark.parametrize("players", [2, 3])
def test_pass_is_allowed(rules: Rules, players: int) -> None:
    game = new_game(rules, players, seed=11)
    hands, deck = [list(hand) for hand in game.hands], list(game._deck)
    first = game.current
    for k in range(1, 2 * players + 1):
        assert EndTurn() in game.legal_actions()
        assert game.apply(EndTurn()) == [TurnEnded((first + k - 1) % players, (first + k) % players, k + 1)]
    assert game.hands == hands and game._deck == deck and game.current == first


@presets
def test_actions_for_the_wrong_seat_are_refused(rules: Rules) -> None:
    game = position(rules, ["R1 R2 R3", "G2 G3 G4", "Y1 Y2"], current=1)
    for seat in (0, 2, 5):
        for action in [Draw(1), Steal(1), Discard(cards("R1 R2 R3")), EndTurn(), DrawDiscard()]:
            assert_refused(game, action, Rule.NOT_YOUR_TURN, seat=seat)
    game.apply(Discard(cards("G2 G3 G4")), seat=1)  # naming the right seat is fine


# --------------------------------------------------------------------------- winning


def assert_game_over(game: Game) -> None:
    assert game.over and game.legal_actions() == []
    assert game.view().over and not any(game.view(s).my_turn for s in range(len(game.names)))
    for seat in range(len(game.names)):
        for action in [Draw(1), Steal((seat + 1) % 2), Discard(cards("R1 R2 R3")), EndTurn(), DrawDiscard()]:
            assert_refused(game, action, Rule.GAME_OVER, seat=seat)


@presets
def test_win_by_discarding_the_last_cards(rules: Rules) -> None:
    game = position(rules, ["R1 R2 R3", "G2 B7"])
    events = game.apply(Discard(cards("R1 R2 R3")))
    assert events == [Discarded(0, tuple(cards("R1 R2 R3")), GroupKind.RUN), GameEnded(0, EndReason.DISCARD)]
    assert game.winner == 0 and game.end_reason is EndReason.DISCARD and game.hands[0] == []
    assert game.current == 0  # at once, mid-turn
    assert_game_over(game)


@presets
def test_win_after_a_draw_and_several_discards(rules: Rules) -> None:
    four = "Y4 G4 B4 K4" if rules.draw_and_discard else "Y4 G4 B4"
    game = position(rules, [f"R1 R2 {four} G7 G8 G9", "Y2 B7", "B9"], current=0)
    game.apply(Draw(1), outcome=C("R3"))
    game.apply(Discard(cards("G7 G8 G9")))
    game.apply(Discard(cards("R1 R2 R3")))
    assert not game.over and game.winner is None
    events = game.apply(Discard(cards(four)))
    assert events[-1] == GameEnded(0, EndReason.DISCARD)
    assert_game_over(game)


def test_win_with_two_groups_in_one_turn_classic() -> None:
    game = position(CLASSIC, ["R1 R2 R3 Y5 G5 B5", "G2 B7"])
    assert game.apply(Discard(cards("Y5 G5 B5"))) == [Discarded(0, tuple(cards("Y5 G5 B5")), GroupKind.SET)]
    assert not game.over
    assert game.apply(Discard(cards("R1 R2 R3")))[-1] == GameEnded(0, EndReason.DISCARD)


@presets
@pytest.mark.parametrize(("players", "thief", "victim"), [(2, 0, 1), (2, 1, 0), (3, 0, 2), (3, 2, 1)])
def test_victim_of_a_last_card_steal_wins(rules: Rules, players: int, thief: int, victim: int) -> None:
    hands = ["R1 R2", "G2 B7", "Y3 Y9"][:players]
    hands[victim] = "B5"
    game = position(rules, hands, current=thief)
    events = game.apply(Steal(victim))
    assert events == [Stole(thief, victim, C("B5")), GameEnded(victim, EndReason.STOLEN)]
    assert game.winner == victim != thief
    assert game.hands[victim] == [] and C("B5") in game.hands[thief]
    assert_conserved(game)
    assert_game_over(game)


@presets
def test_last_card_steal_forbidden_when_it_does_not_win(rules: Rules) -> None:
    rules = rules_from(rules.name, last_card_stolen_wins=False)
    game = position(rules, ["R1 R2", "B5", "Y3 Y9"])
    assert_refused(game, Steal(1), Rule.LAST_CARD)
    legal = game.legal_actions()
    assert Steal(1) not in legal and Steal(2) in legal
    game.apply(Steal(2))  # two cards: allowed
    assert not game.over


# --------------------------------------------------------------------------- stalemate


def group_hand(rules: Rules, size: int, avoid: list[Card]) -> list[Card]:
    """``size`` cards with a run in them, disjoint (as a multiset) from ``avoid``."""
    available = Counter(rules.full_deck()) - Counter(avoid)
    for colour in rules.colours:
        for start in range(1, rules.numbers - 1):
            run = [Card(colour, n) for n in range(start, start + 3)]
            if not Counter(run) - available:
                rest = groupless(rules, size - 3, [*avoid, *run])
                return sorted(run + rest)
    raise AssertionError("no room for a run")


@presets
@pytest.mark.parametrize("players", [2, 3])
def test_stalemate_when_every_hand_is_full_without_a_group(rules: Rules, players: int) -> None:
    hands = groupless_hands(rules, [19] + [20] * (players - 1))
    game = position(rules, hands)
    card = next(c for c in game.deck_contents() if not has_group([*hands[0], c], rules))
    events = game.apply(Draw(1), outcome=card)
    assert events == [Drew(0, (card,)), GameEnded(None, EndReason.STALEMATE)]
    assert game.winner is None and game.end_reason is EndReason.STALEMATE
    assert_game_over(game)


@presets
@pytest.mark.parametrize("players", [2, 3])
def test_no_stalemate_if_a_hand_holds_a_group(rules: Rules, players: int) -> None:
    hands = groupless_hands(rules, [19] + [20] * (players - 2))
    hands.append(group_hand(rules, 20, [card for hand in hands for card in hand]))
    game = position(rules, hands)
    card = next(c for c in game.deck_contents() if not has_group([*hands[0], c], rules))
    assert game.apply(Draw(1), outcome=card) == [Drew(0, (card,))]
    assert not game.over


@presets
def test_no_stalemate_if_the_drawer_completes_a_group(rules: Rules) -> None:
    hands = groupless_hands(rules, [19, 20])
    game = position(rules, hands)
    card = next(c for c in game.deck_contents() if has_group([*hands[0], c], rules))
    assert game.apply(Draw(1), outcome=card) == [Drew(0, (card,))]
    assert not game.over


@presets
@pytest.mark.parametrize(("players", "short"), [(2, 1), (3, 1), (3, 2)])
def test_no_stalemate_if_a_hand_is_below_the_limit(rules: Rules, players: int, short: int) -> None:
    sizes = [19] + [20] * (players - 1)
    sizes[short] = 19
    hands = groupless_hands(rules, sizes)
    game = position(rules, hands)
    card = next(c for c in game.deck_contents() if not has_group([*hands[0], c], rules))
    assert game.apply(Draw(1), outcome=card) == [Drew(0, (card,))]
    assert not game.over
    assert EndTurn() in game.legal_actions()


@presets
def test_no_stalemate_without_a_hand_limit(rules: Rules) -> None:
    rules = no_limit(rules)
    hands = groupless_hands(rules, [19, 20])
    game = position(rules, hands)
    card = next(c for c in game.deck_contents() if not has_group([*hands[0], c], rules))
    assert game.apply(Draw(1), outcome=card) == [Drew(0, (card,))]
    assert not game.over


@presets
def test_stalemate_at_the_deal(rules: Rules) -> None:
    """With the limit at the deal size, a deal with no group in any hand is already over."""
    tight = rules.replace(hand_limit=rules.hand_size)
    stuck = playable = 0
    for seed in range(200):
        game = new_game(tight, 2, seed)
        blocked = not any(has_group(hand, tight) for hand in game.hands)
        if blocked:
            stuck += 1
            assert game.opening == [GameStarted(game.current), GameEnded(None, EndReason.STALEMATE)]
            assert game.end_reason is EndReason.STALEMATE and game.winner is None
            assert game.legal_actions() == []
        else:
            playable += 1
            assert game.opening == [GameStarted(game.current)] and not game.over
    assert stuck and playable


# --------------------------------------------------------------------------- turn limit


@presets
@pytest.mark.parametrize("limit", [1, 2, 7])
@pytest.mark.parametrize("players", [2, 3])
def test_turn_limit_ends_the_game_after_exactly_n_turns(rules: Rules, limit: int, players: int) -> None:
    game = new_game(rules_from(rules.name, turn_limit=limit, quiet_rounds=0), players, seed=5)
    for turn in range(1, limit):
        assert game.turn == turn
        assert isinstance(game.apply(EndTurn())[0], TurnEnded)
        assert not game.over
    assert game.turn == limit
    assert game.apply(EndTurn()) == [GameEnded(None, EndReason.TURN_LIMIT)]
    assert game.winner is None and game.end_reason is EndReason.TURN_LIMIT
    assert_game_over(game)


@presets
def test_no_turn_limit_by_default(rules: Rules) -> None:
    assert rules.turn_limit == 0
    game = new_game(rules.replace(quiet_rounds=0), 2, seed=5)  # passing for ever: nothing else ends it
    for _ in range(500):
        game.apply(EndTurn())
    assert not game.over and game.turn == 501


@presets
def test_win_in_the_last_turn_beats_the_turn_limit(rules: Rules) -> None:
    game = position(rules.replace(turn_limit=3), ["R1 R2 R3", "G2 B7"], turn=3)
    assert game.apply(Discard(cards("R1 R2 R3")))[-1] == GameEnded(0, EndReason.DISCARD)


# --------------------------------------------------------------------------- every refusal


def _catalogue() -> list[tuple[str, Rules, list[Any], dict[str, Any], Action, dict[str, Any], Rule]]:
    """(id, rules, hands, position kwargs, action, apply kwargs, rule) for every Rule."""
    five, classic = FIVE_COLOUR, CLASSIC
    hands = ["R1 R2 R3 Y5", "G2 B7 B9", "Y1"]
    full = groupless_hands(classic, [20, 5])
    return [
        ("not-your-turn", classic, hands, {}, Draw(1), {"seat": 1}, Rule.NOT_YOUR_TURN),
        ("draw-once", classic, hands, {"drew": True}, Draw(1), {}, Rule.DRAW_ONCE),
        ("draw-count", classic, hands, {}, Draw(4), {}, Rule.DRAW_COUNT),
        ("hand-limit", classic, full, {}, Draw(1), {}, Rule.HAND_LIMIT),
        ("steal-once", classic, hands, {"stole": True}, Steal(1), {}, Rule.STEAL_ONCE),
        ("no-such-seat", classic, hands, {}, Steal(3), {}, Rule.NO_SUCH_SEAT),
        ("steal-from-self", classic, hands, {}, Steal(0), {}, Rule.STEAL_FROM_SELF),
        ("empty-hand", classic, ["R1", "G2", []], {}, Steal(2), {}, Rule.EMPTY_HAND),
        (
            "last-card",
            classic.replace(last_card_stolen_wins=False),
            hands,
            {},
            Steal(2),
            {},
            Rule.LAST_CARD,
        ),
        ("not-in-hand", classic, hands, {}, Discard(cards("G2 G3 G4")), {}, Rule.NOT_IN_HAND),
        ("invalid-group", classic, hands, {}, Discard(cards("R1 R2 Y5")), {}, Rule.INVALID_GROUP),
        ("no-dd", classic, hands, {}, DrawDiscard(), {}, Rule.NO_DRAW_AND_DISCARD),
        ("dd-once", five, hands, {"exchanged": True}, DrawDiscard(), {}, Rule.DRAW_AND_DISCARD_ONCE),
        (
            "put-back-first",
            five,
            hands,
            {"exchanged": True, "must_put_back": True},
            EndTurn(),
            {},
            Rule.PUT_BACK_FIRST,
        ),
        ("nothing-to-put-back", five, hands, {}, PutBack(C("R1")), {}, Rule.NOTHING_TO_PUT_BACK),
        ("impossible", classic, hands, {}, Steal(1), {"outcome": C("R1")}, Rule.IMPOSSIBLE_OUTCOME),
        (
            "deck-too-small",
            no_limit(classic),
            all_but(no_limit(classic), "R4"),
            {},
            Draw(2),
            {},
            Rule.DECK_TOO_SMALL,
        ),
    ]


CATALOGUE = _catalogue()


def test_catalogue_covers_every_rule() -> None:
    covered = {entry[-1] for entry in CATALOGUE} | {Rule.GAME_OVER}  # game over: see assert_game_over
    assert covered == set(Rule)


@pytest.mark.parametrize(
    ("rules", "hands", "where", "action", "kwargs", "rule"),
    [entry[1:] for entry in CATALOGUE],
    ids=[entry[0] for entry in CATALOGUE],
)
def test_every_refusal_names_its_rule_and_changes_nothing(
    rules: Rules,
    hands: list[Any],
    where: dict[str, Any],
    action: Action,
    kwargs: dict[str, Any],
    rule: Rule,
) -> None:
    game = position(rules, hands, **where)
    error = assert_refused(game, action, rule, **kwargs)
    assert isinstance(error, ValueError) and str(rule) in str(error) and error.message
    assert action not in game.legal_actions() or kwargs  # outcome/seat refusals aside


# --------------------------------------------------------------------------- views


def test_view_has_no_deck_order() -> None:
    names = {field.name for field in attrs.fields(View)}
    assert names == {
        "rules",
        "names",
        "seat",
        "hands",
        "deck_size",
        "current",
        "turn",
        "drew",
        "stole",
        "exchanged",
        "must_put_back",
        "winner",
        "end_reason",
        "quiet_turns",
        "unchanged",
    }


@presets
@pytest.mark.parametrize("players", [2, 3])
def test_views_agree_with_the_game_and_each_other(rules: Rules, players: int) -> None:
    rng = random.Random(f"views:{rules.name}:{players}")
    game = new_game(rules, players, seed=99)
    for _ in range(200):
        views = [game.view(seat) for seat in range(players)] + [game.view()]
        hands = tuple(tuple(hand) for hand in game.hands)
        for seat, view in enumerate(views):
            assert view.seat == (None if seat == players else seat)
            assert view.hands == hands
            assert view.deck_size == game.deck_size
            assert view.deck_contents() == game.deck_contents()
            assert (view.current, view.turn, view.winner, view.end_reason) == (
                game.current,
                game.turn,
                game.winner,
                game.end_reason,
            )
            assert (view.drew, view.stole, view.exchanged, view.must_put_back) == flags(game)
            assert view.hand == hands[game.current if view.seat is None else view.seat]
            assert view.my_turn == (view.seat == game.current and not game.over)
            assert legal_actions(view) == game.legal_actions()
        if game.over:
            break
        before = views[0]
        game.apply(rng.choice(game.legal_actions()))
        assert before.hands == hands  # a view is a snapshot, not a window


@presets
def test_view_of_a_bad_seat(rules: Rules) -> None:
    game = new_game(rules, 2)
    for seat in (-1, 2, 10):
        with pytest.raises(ValueError):
            game.view(seat)


# --------------------------------------------------------------------------- legal_actions


LEGALITY_RULES = [
    CLASSIC,
    FIVE_COLOUR,
    no_limit(CLASSIC),
    no_limit(FIVE_COLOUR),
    CLASSIC.replace(hand_limit=7),
    FIVE_COLOUR.replace(hand_limit=6, last_card_stolen_wins=False),
    CLASSIC.replace(hand_limit=6, last_card_stolen_wins=False),
]

ALL_GROUPS = {rules: valid_groups(rules.full_deck(), rules) for rules in LEGALITY_RULES}


def candidates(game: Game, rng: random.Random) -> list[Action]:
    """A broad set of actions: every action that could ever be legal here, and junk."""
    rules, hand, players = game.rules, game.hands[game.current], len(game.names)
    out: list[Action] = [Draw(n) for n in range(0, 5)]
    out += [Draw(game.deck_size), Draw(game.deck_size + 1)]
    out += [Steal(v) for v in range(-1, players + 1)]
    out += [DrawDiscard(), EndTurn()]
    out += [PutBack(card) for card in sorted(set(hand))]
    out += [PutBack(card) for card in rng.sample(rules.full_deck(), 3)]
    out += [Discard(group) for group in ALL_GROUPS[rules]]
    for _ in range(5):
        if hand:
            out.append(Discard(rng.sample(hand, rng.randint(1, min(4, len(hand))))))
    return out


def positions(rules: Rules, players: int, seed: int) -> list[Game]:
    """Snapshots of a random game at several points, mid-turn and between turns."""
    rng = random.Random(seed)
    game = new_game(rules, players, seed)
    out = []
    for step in range(150):
        if game.over:
            break
        legal = game.legal_actions()
        discards = [a for a in legal if isinstance(a, Discard)]
        action = rng.choice(discards if discards and rng.random() < 0.7 else legal)
        game.apply(action)
        if step % 15 == 0 or game.must_put_back or game.over:
            copy = new_game(rules, players, seed)
            restore(copy, snapshot(game))
            out.append(copy)
    return out


def rules_id(rules: Rules) -> str:
    return f"{rules.name}-limit{rules.hand_limit}{'' if rules.last_card_stolen_wins else '-nolast'}"


@pytest.mark.parametrize("rules", LEGALITY_RULES, ids=rules_id)
@pytest.mark.parametrize("players", [2, 3])
def test_legal_actions_are_exactly_the_actions_apply_accepts(rules: Rules, players: int) -> None:
    rng = random.Random(f"{rules}-{players}")
    seen_put_back = False
    for seed in range(4):
        for game in positions(rules, players, seed):
            legal = game.legal_actions()
            assert len(set(legal)) == len(legal)
            assert all(action in candidates(game, rng) for action in legal)
            seen_put_back |= game.must_put_back
            before = snapshot(game)
            for action in candidates(game, rng):
                try:
                    game.apply(action)
                except IllegalAction:
                    assert action not in legal, f"{action} is listed as legal but refused"
                    assert snapshot(game) == before
                else:
                    assert action in legal, f"{action} was accepted but is not listed as legal"
                    restore(game, before)
            # nothing at all for anyone else
            other = (game.current + 1) % players
            for action in legal:
                with pytest.raises(IllegalAction):
                    game.apply(action, seat=other)
    if rules.draw_and_discard:
        assert seen_put_back


@presets
def test_legal_actions_in_edge_positions(rules: Rules) -> None:
    free = no_limit(rules)
    empty_deck = position(free, all_but(free, []))
    assert empty_deck.legal_actions() == [Steal(1), EndTurn()]
    full = position(rules, groupless_hands(rules, [20, 5]))
    assert full.legal_actions() == [EndTurn()]


# --------------------------------------------------------------------------- action text

ACTIONS: list[tuple[Action, str]] = [
    (Draw(1), "draw 1"),
    (Draw(3), "draw 3"),
    (Draw(0), "draw 0"),
    (Steal(0), "steal 0"),
    (Steal(2), "steal 2"),
    (Discard(cards("R3 R4 R5")), "discard R3 R4 R5"),
    (Discard(cards("K6 R6 Y6 B6")), "discard R6 Y6 B6 K6"),
    (Discard(cards("B10 B8 B9")), "discard B8 B9 B10"),
    (DrawDiscard(), "dd"),
    (PutBack(C("K9")), "putback K9"),
    (PutBack(C("R10")), "putback R10"),
    (EndTurn(), "end"),
]


@pytest.mark.parametrize(("action", "text"), ACTIONS, ids=[text for _, text in ACTIONS])
def test_action_text_round_trip(action: Action, text: str) -> None:
    assert str(action) == text
    assert parse_action(str(action)) == action
    assert parse_action(text.upper()) == action
    assert parse_action(f"  {text.lower()}  ") == action


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("DRAW 2", Draw(2)),
        ("Discard r5 r3 R4", Discard(cards("R3 R4 R5"))),
        ("discard   y6 b6  r6", Discard(cards("R6 Y6 B6"))),
        ("DD", DrawDiscard()),
        ("End", EndTurn()),
        ("putback k3", PutBack(C("K3"))),
    ],
)
def test_action_text_is_forgiving_on_input(text: str, action: Action) -> None:
    assert parse_action(text) == action


def test_discard_is_order_insensitive() -> None:
    assert Discard(cards("R5 R3 R4")) == Discard((C("R5"), C("R4"), C("R3")))
    assert Discard((C("R5"), C("R4"), C("R3"))).cards == tuple(cards("R3 R4 R5"))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "fly",
        "draw",
        "draw x",
        "draw -1",
        "draw 1 2",
        "draw 1.5",
        "steal",
        "steal me",
        "steal 1 2",
        "discard",
        "discard X9",
        "discard R",
        "putback",
        "putback R1 R2",
        "putback Z1",
        "dd 1",
        "end now",
        "drawdiscard",
    ],
)
def test_garbage_is_not_an_action(text: str) -> None:
    with pytest.raises(ActionSyntaxError):
        parse_action(text)
    assert issubclass(ActionSyntaxError, ValueError)


@presets
def test_every_legal_action_round_trips_through_text(rules: Rules) -> None:
    for seed in range(3):
        for game in positions(rules, 3, seed):
            for action in game.legal_actions():
                assert parse_action(str(action)) == action
