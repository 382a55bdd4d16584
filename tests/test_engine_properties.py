"""Properties of the engine over random action sequences (hypothesis).

After every step: cards are conserved, no hand is past the limit, refused
actions change nothing, an empty hand means a finished game won by that seat.
Whole games replay exactly from the seed and the actions, and replay from the
recorded chance outcomes alone without consulting the random source.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from conftest import ArmableRandom, assert_conserved, public_state, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, has_group
from games.notty.engine import (
    Action,
    Discard,
    Draw,
    DrawDiscard,
    EndReason,
    EndTurn,
    Event,
    Game,
    GameEnded,
    IllegalAction,
    PutBack,
    Rule,
    Steal,
    outcome_of,
)

RULESETS = [
    CLASSIC,
    FIVE_COLOUR,
    CLASSIC.replace(hand_limit=0),
    FIVE_COLOUR.replace(hand_limit=0),
    CLASSIC.replace(hand_limit=7),  # reaches the limit (and stalemates) quickly
    FIVE_COLOUR.replace(hand_limit=6, last_card_stolen_wins=False),
    CLASSIC.replace(turn_limit=9, hand_limit=9),
    FIVE_COLOUR.replace(turn_limit=5),
    # a small deck where groups (and so wins by discarding) are common
    Rules(name="tiny", colours="RYG", numbers=5, hand_size=3, hand_limit=8),
]
RULE_IDS = [
    f"{r.name}-limit{r.hand_limit}-turns{r.turn_limit}{'' if r.last_card_stolen_wins else '-nolast'}"
    for r in RULESETS
]

# One step: (action, seat or None, outcome rule or None when applied, events).
Step = tuple[Action, int | None, Rule | None, list[Event]]


def names(players: int) -> list[str]:
    return [f"p{i}" for i in range(players)]


def illegal_candidates(game: Game, legal: list[Action], pick: int) -> list[tuple[Action, int | None]]:
    """Actions (with the seat that tries them) that the rules refuse now."""
    rules, seat, players = game.rules, game.current, len(game.names)
    hand = game.hands[seat]
    junk: list[Action] = [
        Draw(0),
        Draw(rules.max_draw + 1),
        Draw(game.deck_size + 1),
        Steal(seat),
        Steal(players),
        Steal(-1),
        DrawDiscard(),
        PutBack(Card("R", 1)),
        Discard(()),
        Discard(tuple(hand[:2])),
        Discard(tuple(hand[pick % max(1, len(hand)) :][:3])),
        Discard((Card("B", 1), Card("B", 2), Card("B", 3))),
        Discard((Card("R", 4), Card("Y", 4), Card("G", 4), Card("B", 4))),
        EndTurn(),
        Draw(1),
        Steal((seat + 1) % players),
    ]
    out: list[tuple[Action, int | None]] = [(a, None) for a in junk if a not in legal]
    out += [(a, (seat + 1 + pick % (players - 1)) % players) for a in legal[:3]]  # wrong seat
    out += [(EndTurn(), players + 1)]
    return out


def check_invariants(game: Game) -> None:
    assert_conserved(game)
    limit = game.rules.hand_limit
    if limit:
        assert all(len(hand) <= limit for hand in game.hands)
    assert all(hand == sorted(hand) for hand in game.hands)
    empty = [seat for seat, hand in enumerate(game.hands) if not hand]
    if empty:  # an empty hand wins at once
        assert game.over and empty == [game.winner]
    if game.winner is not None:
        assert game.hands[game.winner] == []
        assert game.end_reason in (EndReason.DISCARD, EndReason.STOLEN)
    if game.end_reason is EndReason.STALEMATE:
        assert game.winner is None
        assert all(game.rules.at_limit(len(h)) and not has_group(h, game.rules) for h in game.hands)
    if game.end_reason is EndReason.TURN_LIMIT:
        assert game.winner is None and game.turn == game.rules.turn_limit
    legal = game.legal_actions()
    if game.over:
        assert legal == []
    elif game.must_put_back:
        assert legal and all(isinstance(a, PutBack) for a in legal)
    else:
        assert legal[-1] == EndTurn()
    if not game.over and not game.must_put_back:
        # stalemate is detected: someone can still act, or the game would be over
        assert any(not game.rules.at_limit(len(h)) or has_group(h, game.rules) for h in game.hands)


def drive(rules: Rules, players: int, seed: int, choices: list[int]) -> tuple[Game, list[Step], list[Any]]:
    """Play ``choices`` on a seeded game, checking invariants after every step."""
    game = Game(rules, names(players), random.Random(seed))
    check_invariants(game)
    steps: list[Step] = []
    states = [snapshot(game)]
    for choice in choices:
        if game.over:
            break
        legal = game.legal_actions()
        if choice % 5 == 0:
            bad = illegal_candidates(game, legal, choice)
            action, seat = bad[(choice // 5) % len(bad)]
            before = snapshot(game)
            try:
                game.apply(action, seat=seat)
            except IllegalAction as error:
                assert snapshot(game) == before, f"refused {action} changed the game"
                steps.append((action, seat, error.rule, []))
            else:
                raise AssertionError(f"{action} for seat {seat} should have been refused")
        else:
            discards = [a for a in legal if isinstance(a, Discard)]
            pool = discards if discards and choice % 3 else legal  # discard often: games end
            action = pool[(choice // 15) % len(pool)]
            events = game.apply(action)
            assert events, "every action says what happened"
            steps.append((action, None, None, events))
        check_invariants(game)
        states.append(snapshot(game))
    return game, steps, states


games = st.tuples(
    st.sampled_from([2, 3]),
    st.integers(0, 2**32),
    st.lists(st.integers(0, 2**16), min_size=60, max_size=250),
)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


each_ruleset = pytest.mark.parametrize("rules", RULESETS, ids=RULE_IDS)


@each_ruleset
@SETTINGS
@given(case=games)
def test_invariants_hold_after_every_step(rules: Rules, case: tuple[int, int, list[int]]) -> None:
    players, seed, choices = case
    game, steps, _ = drive(rules, players, seed, choices)
    for _, _, rule, events in steps:
        ended = [e for e in events if isinstance(e, GameEnded)]
        assert len(ended) <= 1
        if ended:
            assert events[-1] is ended[0]
            assert (ended[0].winner, ended[0].reason) == (game.winner, game.end_reason)
        assert rule is None or isinstance(rule, Rule)


@each_ruleset
@SETTINGS
@given(case=games)
def test_same_seed_and_actions_replay_identically(rules: Rules, case: tuple[int, int, list[int]]) -> None:
    players, seed, choices = case
    _, steps, states = drive(rules, players, seed, choices)
    again = Game(rules, names(players), random.Random(seed))
    assert snapshot(again) == states[0]
    for (action, seat, rule, events), state in zip(steps, states[1:], strict=True):
        if rule is None:
            assert again.apply(action, seat=seat) == events
        else:
            try:
                again.apply(action, seat=seat)
            except IllegalAction as error:
                assert error.rule is rule
            else:
                raise AssertionError(f"{action} was refused the first time")
        assert snapshot(again) == state


@each_ruleset
@SETTINGS
@given(case=games, other_seed=st.integers(0, 2**32))
def test_recorded_outcomes_replay_without_the_rng(
    rules: Rules, case: tuple[int, int, list[int]], other_seed: int
) -> None:
    players, seed, choices = case
    first, steps, _ = drive(rules, players, seed, choices)
    # Same deal (same seed), then a random source that explodes if consulted.
    rng = ArmableRandom(seed)
    replay = Game(rules, names(players), rng)
    rng.armed = True
    # And a third game whose random source has nothing to do with the first.
    stranger = Game(rules, names(players), random.Random(seed))
    stranger._rng = random.Random(other_seed)
    original = Game(rules, names(players), random.Random(seed))
    for action, seat, rule, events in steps:
        if rule is not None:
            continue
        outcome = outcome_of(events)
        assert replay.apply(action, seat=seat, outcome=outcome) == events
        assert stranger.apply(action, seat=seat, outcome=outcome) == events
        assert original.apply(action, seat=seat) == events
        assert public_state(replay) == public_state(stranger) == public_state(original)
    assert public_state(replay) == public_state(first)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULESETS), st.sampled_from([2, 3]), st.integers(0, 2**32))
def test_deal_conserves_cards_and_is_seeded(rules: Rules, players: int, seed: int) -> None:
    a = Game(rules, names(players), random.Random(seed))
    b = Game(rules, names(players), random.Random(seed))
    assert snapshot(a) == snapshot(b) and a.opening == b.opening
    assert_conserved(a)
    assert [len(h) for h in a.hands] == [rules.hand_size] * players
    assert a.deck_size == rules.deck_size - players * rules.hand_size
    assert Counter(a._deck) == a.deck_contents()
