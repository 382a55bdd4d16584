"""The ``qlearn`` baseline (games/notty/bots/_qlearn.py) and its training (games/notty/bots/qlearn_train.py).

A reimplementation of the public five-colour Notty's tabular Q-learning agent:
state = (own hand bucket, deck bucket, holds a group, opponents' average hand
bucket); six action types with hand-written parameters; the original's rewards
and Q-learning constants; tables trained offline by self-play and shipped frozen.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import attrs
import pytest
from conftest import PRESET_IDS, PRESETS, cards, groupless_hands, position
from hypothesis import given
from hypothesis import strategies as st

from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, rules_from
from games.notty.bots import QLearnBot, make_bot, qlearn_train
from games.notty.bots import _qlearn as ql
from games.notty.engine import (
    Action,
    Discard,
    Draw,
    DrawDiscard,
    EndReason,
    EndTurn,
    Event,
    Game,
    PutBack,
    Steal,
    View,
    legal_actions,
)
from games.notty.match import play_bots, seeded_game

C = Card.parse
presets = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)


def view_of(rules: Rules, hands: list[str] | list[list[Card]], **kwargs: object) -> View:
    return position(rules, hands, **kwargs).view(0)


# --------------------------------------------------------------------------- the state


@pytest.mark.parametrize(
    ("size", "bucket"), [(0, 0), (4, 0), (5, 1), (9, 1), (10, 2), (14, 2), (15, 3), (19, 3), (20, 3), (40, 3)]
)
def test_hand_size_buckets(size: int, bucket: int) -> None:
    assert ql.size_bucket(size) == bucket


@pytest.mark.parametrize(("size", "bucket"), [(0, 0), (29, 0), (30, 1), (59, 1), (60, 2), (82, 2)])
def test_deck_size_buckets(size: int, bucket: int) -> None:
    assert ql.deck_bucket(size) == bucket


@presets
def test_state_of_a_position(rules: Rules) -> None:
    mine, one, two = groupless_hands(rules, [4, 4, 5])
    view = view_of(rules, [mine, one, two])
    # Opponents 4 and 5 cards: integer average 4 (bucket 0), not 4.5 rounded up.
    assert ql.state_of(view, 0) == (0, 2, 0, 0)
    assert ql.state_of(attrs.evolve(view, deck_size=59), 0) == (0, 1, 0, 0)
    assert ql.state_of(attrs.evolve(view, deck_size=29), 0) == (0, 0, 0, 0)
    assert ql.state_of(view, 1) == (0, 2, 0, 0)  # 4 and 5 again
    assert ql.state_of(view, 2) == (1, 2, 0, 0)
    mine, one, two = groupless_hands(rules, [5, 5, 6])
    assert ql.state_of(view_of(rules, [mine, one, two]), 0) == (1, 2, 0, 1)
    with_group = view_of(rules, ["R1 R2 R3 Y7", "B1 B5 B9 Y2 G5 G9"])
    assert ql.state_of(with_group, 0) == (0, 2, 1, 1)
    assert ql.state_key((0, 2, 1, 1)) == "0,2,1,1"


# --------------------------------------------------------------------------- availability


def test_only_draw_discard_discard_while_a_put_back_is_pending() -> None:
    game = position(FIVE_COLOUR, ["R1 R2 R3 Y7", "B1 B5 B9 Y2"])
    assert ql.available(game.view(0), 0) == [
        ql.DRAW_MULTIPLE,
        ql.STEAL,
        ql.DRAW_DISCARD_DRAW,
        ql.DISCARD_GROUP,
        ql.NEXT_TURN,
    ]
    game.apply(DrawDiscard())
    assert ql.available(game.view(0), 0) == [ql.DRAW_DISCARD_DISCARD]
    assert isinstance(QLearnBot(random.Random(0)).choose(game.view(0)), PutBack)


def test_classic_has_no_draw_and_discard() -> None:
    view = view_of(CLASSIC, ["R1 R2 R3 Y7", "B1 B5 B9 Y2"])
    assert ql.available(view, 0) == [ql.DRAW_MULTIPLE, ql.STEAL, ql.DISCARD_GROUP, ql.NEXT_TURN]


@presets
def test_availability_follows_the_engine(rules: Rules) -> None:
    full, other = groupless_hands(rules, [20, 6])
    assert ql.available(view_of(rules, [full, other]), 0) == [ql.NEXT_TURN]  # at the limit, no group
    mine, empty = groupless_hands(rules, [5, 0])
    view = view_of(rules, [mine, empty], drew=True, exchanged=True)
    assert ql.available(view, 0) == [ql.NEXT_TURN]  # drew, and nobody to steal from
    assert ql.available(view, 1) == []  # not seat 1's turn
    assert ql.available(attrs.evolve(view_of(rules, [mine, empty]), deck_size=0), 0) == [ql.NEXT_TURN]


def test_steal_targets_the_largest_hand_and_never_an_empty_one() -> None:
    mine, one, two = groupless_hands(CLASSIC, [4, 3, 6])
    assert ql.engine_action(view_of(CLASSIC, [mine, one, two]), 0, ql.STEAL) == Steal(2)
    mine, one, two = groupless_hands(CLASSIC, [4, 5, 5])
    assert ql.steal_target(view_of(CLASSIC, [mine, one, two], current=1), 1) == 2  # tie: next to play
    assert ql.steal_target(view_of(CLASSIC, [mine, one, two], current=2), 2) == 1  # 5 cards beat 4
    assert ql.steal_target(view_of(CLASSIC, [one, two, mine], current=2), 2) == 0  # tie: next to play
    mine, one = groupless_hands(CLASSIC, [4, 1])
    assert ql.steal_target(view_of(CLASSIC, [mine, one]), 0) == 1  # a last card: legal in both presets
    no_last = CLASSIC.replace(last_card_stolen_wins=False)
    assert ql.steal_target(view_of(no_last, [mine, one]), 0) is None
    assert ql.steal_target(view_of(CLASSIC, [mine, []]), 0) is None


# --------------------------------------------------------------------------- the hand-written parameters


@presets
@pytest.mark.parametrize(("size", "count"), [(4, 3), (6, 3), (7, 2), (17, 2), (18, 1), (19, 1)])
def test_draw_count(rules: Rules, size: int, count: int) -> None:
    mine, other = groupless_hands(rules, [size, 4])
    assert ql.engine_action(view_of(rules, [mine, other]), 0, ql.DRAW_MULTIPLE) == Draw(count)


def test_draw_count_is_clipped_to_what_is_legal() -> None:
    mine, other = groupless_hands(CLASSIC, [5, 4])
    view = view_of(CLASSIC, [mine, other])
    assert ql.draw_count(attrs.evolve(view, deck_size=2), 0) == 2
    assert ql.draw_count(attrs.evolve(view, deck_size=1), 0) == 1
    assert ql.draw_count(view_of(CLASSIC.replace(hand_limit=7), [mine, other]), 0) == 2
    assert ql.draw_count(view_of(CLASSIC.replace(max_draw=1), [mine, other]), 0) == 1
    assert ql.draw_count(view_of(CLASSIC.replace(hand_limit=0), [mine, other]), 0) == 3
    mine, other = groupless_hands(CLASSIC, [17, 4])
    assert ql.draw_count(view_of(CLASSIC.replace(hand_limit=0), [mine, other]), 0) == 2


def test_least_connected_card_worked_by_hand() -> None:
    # R2 R3 Y7 G7 G8 B5 B5 (2 per card of its colour, 2 per card of its number, 3 per neighbour):
    #   R2: 2*2 + 2*1 + 3*1 (R3) = 9      G7: 2*2 + 2*2 + 3*1 (G8) = 11
    #   R3: 2*2 + 2*1 + 3*1 (R2) = 9      G8: 2*2 + 2*1 + 3*1 (G7) = 9
    #   Y7: 2*1 + 2*2 + 0        = 6      B5: 2*2 + 2*2 + 0         = 8 (each copy)
    hand = cards("R2 R3 Y7 G7 G8 B5 B5")
    scores = {str(card): ql.connection(card, hand) for card in hand}
    assert scores == {"R2": 9, "R3": 9, "Y7": 6, "G7": 11, "G8": 9, "B5": 8}
    assert ql.least_connected(hand) == C("Y7")
    assert ql.least_connected(list(reversed(hand))) == C("Y7")


def test_least_connected_counts_copies_and_breaks_ties_in_canonical_order() -> None:
    # R4 R5 R5 Y9: R4 = 2*3 + 2*1 + 3*2 (two R5) = 14; R5 = 6 + 4 + 3 = 13; Y9 = 2 + 2 = 4.
    hand = cards("R4 R5 R5 Y9")
    assert [ql.connection(card, hand) for card in hand] == [14, 13, 13, 4]
    # R3 R4 Y4 G9 B9: Y4, G9 and B9 all score 6; Y4 comes first (R Y G B K).
    hand = cards("R3 R4 Y4 G9 B9")
    assert [ql.connection(card, hand) for card in hand] == [9, 11, 6, 6, 6]
    for order in (hand, list(reversed(hand)), [hand[4], hand[2], hand[3], hand[0], hand[1]]):
        assert ql.least_connected(order) == C("Y4")


def test_put_back_uses_the_least_connected_card() -> None:
    game = position(FIVE_COLOUR, ["R2 R3 Y7 G7 G8 B5", "B1 B9 K2 K6"])
    game.apply(DrawDiscard(), outcome=C("B5"))
    assert ql.engine_action(game.view(0), 0, ql.DRAW_DISCARD_DISCARD) == PutBack(C("Y7"))


def test_largest_group() -> None:
    # The worked check: the largest single group of R6 B6 Y6 G7 G6 G5 is the 4-set.
    assert ql.largest_group(cards("R6 B6 Y6 G7 G6 G5"), CLASSIC) == tuple(cards("R6 Y6 G6 B6"))
    assert ql.largest_group(cards("R6 B6 Y6 G7 G6 G5"), FIVE_COLOUR) == tuple(cards("R6 Y6 G6 B6"))
    # Five-colour sets need 4 colours: a 3-set is no group there, only the run is.
    assert ql.largest_group(cards("R6 Y6 G7 G6 G5"), FIVE_COLOUR) == tuple(cards("G5 G6 G7"))
    # In classic the 3-set and the 3-run tie; the first in valid_groups order (by lowest card) wins.
    assert ql.largest_group(cards("R6 Y6 G7 G6 G5"), CLASSIC) == tuple(cards("R6 Y6 G6"))
    assert ql.largest_group(cards("R1 R2 Y7 G9"), CLASSIC) is None
    # A 5-run beats its own 3- and 4-long pieces and a 4-set.
    hand = cards("R1 R2 R3 R4 R5 Y9 G9 B9 R9")
    assert ql.largest_group(hand, CLASSIC) == tuple(cards("R1 R2 R3 R4 R5"))


def test_largest_group_ties_are_deterministic() -> None:
    hand = cards("R1 R2 R3 R4 Y9 G9 B9 R9")  # a 4-run and a 4-set
    picks = set()
    for seed in range(5):
        shuffled = list(hand)
        random.Random(seed).shuffle(shuffled)
        picks.add(ql.largest_group(shuffled, CLASSIC))
    assert picks == {tuple(cards("R1 R2 R3 R4"))}
    view = view_of(CLASSIC, [hand, "B1 B5 G3 Y2"])
    assert ql.engine_action(view, 0, ql.DISCARD_GROUP) == Discard(cards("R1 R2 R3 R4"))


# --------------------------------------------------------------------------- rewards and learning


@pytest.mark.parametrize(
    ("kind", "before", "after", "expected"),
    [
        (ql.DISCARD_GROUP, 7, 4, 10 + 2 * 3),
        (ql.DISCARD_GROUP, 3, 0, 100 + 2 * 3),  # a win replaces the action's reward
        (ql.DISCARD_GROUP, 8, 3, 10 + 2 * 5),
        (ql.DRAW_MULTIPLE, 5, 8, -0.5),
        (ql.DRAW_DISCARD_DRAW, 5, 6, -0.5),
        (ql.STEAL, 5, 6, 0.5),
        (ql.NEXT_TURN, 5, 5, -1.0),
        (ql.DRAW_DISCARD_DISCARD, 6, 5, -0.1 + 2),  # the put-back shrinks the hand by one
    ],
)
def test_rewards(kind: str, before: int, after: int, expected: float) -> None:
    assert ql.reward(kind, before, after) == pytest.approx(expected)


def test_q_update_on_a_hand_made_transition() -> None:
    q: ql.QTable = {
        "1,2,0,1": {"steal": 2.0},
        "1,2,1,1": {"discard_group": 10.0, "next_turn": -1.0, "draw_multiple": 30.0},
    }
    # Only the actions legal after the move count: 30 (draw, already used) is not among them.
    new = ql.q_update(q, (1, 2, 0, 1), "steal", 0.5, (1, 2, 1, 1), ["discard_group", "next_turn"])
    assert new == pytest.approx(2.0 + 0.1 * (0.5 + 0.9 * 10.0 - 2.0)) == pytest.approx(2.75)
    assert q["1,2,0,1"]["steal"] == new
    # An unseen pair starts at 0; an unseen next state is worth 0.
    new = ql.q_update(q, (1, 2, 0, 1), "draw_multiple", -0.5, (3, 0, 0, 0), ["next_turn"])
    assert new == pytest.approx(-0.05)
    # No legal action afterwards (turn over, or game over): the max is 0, even if every value is negative.
    q["0,2,0,0"] = {"next_turn": -5.0}
    new = ql.q_update(q, (0, 2, 0, 0), "next_turn", -1.0, (1, 2, 1, 1), [])
    assert new == pytest.approx(-5.0 + 0.1 * (-1.0 - -5.0))
    assert q["1,2,1,1"] == {"discard_group": 10.0, "next_turn": -1.0, "draw_multiple": 30.0}


def test_epsilon_decays_per_learning_step_to_its_floor() -> None:
    learner = ql.Learner()
    assert (learner.alpha, learner.gamma, learner.epsilon) == (0.1, 0.9, 0.2)
    learner.learn((0, 2, 0, 0), "steal", 0.5, (0, 2, 0, 0), [])
    assert learner.epsilon == pytest.approx(0.2 * 0.9995)
    for _ in range(3000):
        learner.learn((0, 2, 0, 0), "steal", 0.5, (0, 2, 0, 0), [])
    assert learner.epsilon == 0.05 and learner.steps == 3001


def test_a_learning_bot_updates_on_a_winning_discard() -> None:
    game = position(CLASSIC, ["R1 R2 R3", "B1 B5 B9 Y2"])
    learner = ql.Learner({"0,2,1,0": {"discard_group": 50.0}}, epsilon=0.0)
    bot = QLearnBot(random.Random(0), learner=learner)
    view = game.view(0)
    action = bot.choose(view)
    assert action == Discard(cards("R1 R2 R3"))
    game.apply(action)
    bot.observe(game.view(0))
    # Win: 100 + 2 * 3 cards; the game is over, so nothing follows (max 0).
    assert learner.q["0,2,1,0"]["discard_group"] == pytest.approx(50 + 0.1 * (106 - 50))
    assert learner.steps == 1


def test_a_learning_bot_bootstraps_from_the_state_after_the_action() -> None:
    mine, other = groupless_hands(CLASSIC, [4, 6])
    game = position(CLASSIC, [mine, other])
    # Steal is the best-valued type; after it, the hand holds 5 (bucket 1) and the opponent 5.
    learner = ql.Learner(
        {"0,2,0,1": {"steal": 1.0}, "1,2,0,1": {"draw_multiple": 4.0, "next_turn": -1.0, "steal": 99.0}},
        epsilon=0.0,
    )
    bot = QLearnBot(random.Random(0), learner=learner)
    action = bot.choose(game.view(0))
    assert action == Steal(1)
    game.apply(action, outcome=other[0])
    bot.observe(game.view(0))
    # 0.5 for the steal; the max after it is over draw and next turn only (stealing again is illegal).
    assert ql.state_of(game.view(0), 0) == (1, 2, 0, 1)
    assert learner.q["0,2,0,1"]["steal"] == pytest.approx(1.0 + 0.1 * (0.5 + 0.9 * 4.0 - 1.0))


# --------------------------------------------------------------------------- training


def test_training_is_deterministic_given_the_seed() -> None:
    a = qlearn_train.train("five-colour", 2, seed=11, turn_cap=40)
    b = qlearn_train.train("five-colour", 2, seed=11, turn_cap=40)
    c = qlearn_train.train("five-colour", 2, seed=12, turn_cap=40)
    assert a == b and a["q"] != c["q"]
    assert (a["games"], a["seed"]) == (2, 11)
    assert 0.05 <= a["epsilon"] < 0.2
    assert {kind for row in a["q"].values() for kind in row} <= set(ql.ACTIONS)
    classic = qlearn_train.train("classic", 2, seed=11, turn_cap=40)
    kinds = {kind for row in classic["q"].values() for kind in row}
    assert not kinds & {ql.DRAW_DISCARD_DRAW, ql.DRAW_DISCARD_DISCARD}


def test_training_command_writes_a_table_and_keeps_the_others(tmp_path: Path) -> None:
    out = tmp_path / "tables.json"
    out.write_text(json.dumps({"five-colour": {"games": 9, "seed": 9, "epsilon": 0.1, "q": {}}}))
    assert qlearn_train.main(["--games", "1", "--seed", "5", "--preset", "classic", "--out", str(out)]) == 0
    tables = json.loads(out.read_text())
    assert tables["five-colour"]["games"] == 9
    assert tables["classic"] == qlearn_train.train("classic", 1, seed=5)


def test_training_into_a_missing_directory_is_refused_before_it_trains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It trained for minutes, then ended in a FileNotFoundError traceback."""
    trained: list[str] = []
    monkeypatch.setattr(qlearn_train, "train", lambda preset, *_: trained.append(preset) or {})
    with pytest.raises(SystemExit) as usage:
        qlearn_train.main(["--games", "1", "--out", str(tmp_path / "nowhere" / "q.json")])
    assert usage.value.code == 2 and not trained
    assert f"no directory {tmp_path / 'nowhere'}" in capsys.readouterr().err


# --------------------------------------------------------------------------- the shipped tables


def parse_key(key: str) -> tuple[int, ...]:
    return tuple(int(part) for part in key.split(","))


def test_shipped_tables_load_and_cover_the_presets() -> None:
    tables = ql.load_tables()
    assert tables is ql.load_tables()  # read once
    assert set(tables) == {"classic", "five-colour"}
    expected_kinds = {
        "classic": {ql.DRAW_MULTIPLE, ql.STEAL, ql.DISCARD_GROUP, ql.NEXT_TURN},
        "five-colour": set(ql.ACTIONS),
    }
    for preset, table in tables.items():
        assert (table["games"], table["seed"]) == (qlearn_train.GAMES, qlearn_train.SEED)
        assert table["epsilon"] == pytest.approx(0.05)
        q = table["q"]
        for key, row in q.items():
            hand, deck, group, others = parse_key(key)
            assert 0 <= hand <= 3 and 0 <= deck <= 2 and group in (0, 1) and 0 <= others <= 3
            assert row and all(isinstance(value, float) for value in row.values())
            assert (ql.DISCARD_GROUP in row) <= bool(group)  # discard only with a group in hand
        assert {kind for row in q.values() for kind in row} == expected_kinds[preset]
        assert len(q) >= 20
    # The opening states: classic deals 5 of 80 cards each, five-colour 4 of 90.
    assert set(tables["classic"]["q"]["1,2,0,1"]) == expected_kinds["classic"] - {ql.DISCARD_GROUP}
    assert set(tables["five-colour"]["q"]["0,2,0,0"]) >= set(ql.ACTIONS) - {
        ql.DISCARD_GROUP,
        ql.DRAW_DISCARD_DISCARD,
    }


def test_table_for_rules() -> None:
    tables = ql.load_tables()
    assert ql.table_for(CLASSIC) is tables["classic"]["q"]
    assert ql.table_for(rules_from("five-colour", turn_limit=50)) is tables["five-colour"]["q"]
    assert ql.table_for(CLASSIC.replace(draw_and_discard=True)) is tables["five-colour"]["q"]
    assert ql.table_for(Rules(name="tiny", colours="RYG", numbers=5, hand_size=3)) is tables["classic"]["q"]


@presets
def test_frozen_bot_plays_the_tables_argmax(rules: Rules) -> None:
    table = ql.table_for(rules)
    checked = 0
    for seed in range(6):
        game, _ = seeded_game(rules, ["random", "random"], seed)
        view = game.view(game.current)
        seat = game.current
        state, kinds = ql.state_of(view, seat), ql.available(view, seat)
        row = table.get(ql.state_key(state), {})
        values = {kind: row.get(kind, 0.0) for kind in kinds}
        best = max(values.values())
        if sum(value == best for value in values.values()) > 1:
            continue
        expected = ql.engine_action(view, seat, max(values, key=values.__getitem__))
        choices = {QLearnBot(random.Random(r)).choose(view) for r in range(8)}
        assert choices == {expected}  # never explores
        checked += 1
    assert checked


# --------------------------------------------------------------------------- whole games


class Checked:
    """Every choice must be legal in the view it was given; turns must stay short."""

    def __init__(self, bot: ql.QLearnBot | object, seat: int) -> None:
        self.bot, self.seat = bot, seat
        self.name: str = bot.name  # type: ignore[attr-defined]
        self.in_turn = 0
        self.turn = 0

    def choose(self, view: View) -> Action:
        assert view.seat == self.seat and view.my_turn
        action: Action = self.bot.choose(view)  # type: ignore[attr-defined]
        assert action in legal_actions(view), f"{self.name} chose illegal {action} in {view}"
        self.in_turn = self.in_turn + 1 if view.turn == self.turn else 1
        self.turn = view.turn
        if self.name == "qlearn":
            assert self.in_turn <= 4 + 20 // 3 + 1
        return action


LINEUPS = [["qlearn", "qlearn"], ["qlearn", "random"], ["greedy", "qlearn"], ["qlearn", "random", "qlearn"]]


def play(rules: Rules, names: list[str], seed: int | str) -> tuple[list[tuple[int, str, list[Event]]], Game]:
    game, bots = seeded_game(rules, names, seed)
    record: list[tuple[int, str, list[Event]]] = []
    play_bots(
        game,
        [Checked(bot, seat) for seat, bot in enumerate(bots)],
        lambda game, seat, action, events: record.append((seat, str(action), events)),
    )
    return record, game


@presets
@pytest.mark.parametrize("names", LINEUPS, ids=["-".join(names) for names in LINEUPS])
def test_frozen_bot_only_makes_legal_moves_and_never_learns(rules: Rules, names: list[str]) -> None:
    before = copy.deepcopy(ql.load_tables())
    limited = rules_from(rules.name, turn_limit=150)
    kinds: set[str] = set()
    for seed in range(12):
        record, game = play(limited, names, f"qlearn:{names}:{seed}")
        assert game.over and record
        kinds |= {action.split()[0] for seat, action, _ in record if names[seat] == "qlearn"}
    assert ql.load_tables() == before
    assert {"draw", "end"} <= kinds


def test_frozen_bot_survives_odd_rules() -> None:
    """Tight limits, a small deck, three players: still only legal moves, turns still end."""
    odd = [
        Rules(name="tiny", colours="RYG", numbers=5, hand_size=3, hand_limit=8, turn_limit=60),
        FIVE_COLOUR.replace(hand_limit=6, last_card_stolen_wins=False, turn_limit=60),
        CLASSIC.replace(hand_limit=0, max_draw=1, turn_limit=60),
    ]
    reasons = set()
    for rules in odd:
        for seed in range(4):
            _, game = play(rules, ["qlearn", "qlearn", "random"], seed)
            reasons.add(game.end_reason)
    assert reasons & {EndReason.DISCARD, EndReason.STOLEN}


ODD_RULES = [*PRESETS, Rules(name="tiny", colours="RYG", numbers=5, hand_size=3, hand_limit=8)]


@given(
    rules=st.sampled_from(ODD_RULES),
    players=st.sampled_from([2, 3]),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 300),
)
def test_frozen_bot_is_legal_anywhere_random_play_reaches(
    rules: Rules, players: int, seed: int, steps: int
) -> None:
    """Any position (a put-back pending, full hands, a thin deck): a legal action, never an exception."""
    game, bots = seeded_game(rules, ["random"] * players, seed)
    for _ in range(steps):
        if game.over:
            break
        game.apply(bots[game.current].choose(game.view(game.current)))
    if game.over:
        return
    view = game.view(game.current)
    bot = QLearnBot(random.Random(seed))
    assert bot.choose(view) in legal_actions(view)


@presets
def test_seeded_games_with_qlearn_replay_exactly(rules: Rules) -> None:
    limited = rules_from(rules.name, turn_limit=80)
    first = play(limited, ["qlearn", "random", "qlearn"], 99)[0]
    assert first == play(limited, ["qlearn", "random", "qlearn"], 99)[0]
    assert first != play(limited, ["qlearn", "random", "qlearn"], 100)[0]


def test_make_bot_gives_a_frozen_qlearn_bot() -> None:
    bot = make_bot("qlearn", random.Random(0))
    assert isinstance(bot, QLearnBot) and bot.name == "qlearn"
    game = position(CLASSIC, ["R1 R2 R3 Y7", "B1 B5 B9 Y2"])
    assert bot.choose(game.view(0)) in legal_actions(game.view(0))
    bot.observe(game.view(0))  # a frozen bot ignores what it sees: no learner, nothing to learn
    assert EndTurn() in legal_actions(game.view(0))
