"""Bots (games/notty/bots/) and bot matches (server/match.py).

The greedy bot's policy is fixed by its spec: discard the solver's best groups;
steal from the opponent with the most cards, if that opponent has 2 or more;
discard the best groups; draw 1; discard the best groups; end the turn.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import PRESET_IDS, PRESETS, cards, groupless, groupless_hands, position

from games import GAMES, describe
from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, has_group, is_group, rules_from
from games.notty.bots import BOTS, Bot, ExpertBot, GreedyBot, QLearnBot, RandomBot, make_bot
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
from games.notty.match import GameResult, play_bots, seeded_game
from solver import best_discard, max_discard

C = Card.parse
presets = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)

TINY = Rules(name="tiny", colours="RYG", numbers=5, hand_size=3, hand_limit=8)


def greedy() -> GreedyBot:
    return GreedyBot(random.Random(0))


Outcomes = dict[type, list[Card | tuple[Card, ...]]]


def greedy_turn(game: Game, outcomes: Outcomes | None = None) -> list[Action]:
    """Let greedy play the current seat's turn to its end, forcing chance outcomes in order."""
    bot, seat, taken = greedy(), game.current, []
    queue = {kind: list(values) for kind, values in (outcomes or {}).items()}
    while not game.over and game.current == seat:
        action = bot.choose(game.view(seat))
        assert action in game.legal_actions()
        forced = queue.get(type(action))
        game.apply(action, seat=seat, outcome=forced.pop(0) if forced else None)
        taken.append(action)
        assert len(taken) < 50
    return taken


# --------------------------------------------------------------------------- greedy on positions


@presets
def test_greedy_discards_first_when_it_has_a_group(rules: Rules) -> None:
    game = position(rules, ["R1 R2 R3 Y7 G9", "B1 B5 B9 Y2", "G2 G6"])
    view = game.view(0)
    action = greedy().choose(view)
    assert action == Discard(best_discard(view.hand, rules)[0]) == Discard(cards("R1 R2 R3"))


def test_greedy_discards_the_solvers_best_groups_not_the_biggest_one() -> None:
    """Worked check: R6 B6 Y6 G7 G6 G5 empties (6 cards); taking the 4-set first leaves 2."""
    game = position(CLASSIC, ["R6 B6 Y6 G7 G6 G5", "B1 B5 B9 Y2"])
    taken = greedy_turn(game)
    assert all(isinstance(action, Discard) for action in taken)
    assert sorted(len(action.cards) for action in taken if isinstance(action, Discard)) == [3, 3]
    assert game.winner == 0 and game.end_reason is EndReason.DISCARD


def test_greedy_discards_seven_of_the_worked_check_then_steals() -> None:
    game = position(CLASSIC, ["R1 R2 R3 R4 R5 G1 Y1 B8 Y7", "B1 B5 B9 Y2"])
    taken = greedy_turn(game, {Steal: [C("B9")], Draw: [(C("G3"),)]})
    discards = [a for a in taken if isinstance(a, Discard)]
    assert sum(len(a.cards) for a in discards) == 7
    assert taken[len(discards) :] == [Steal(1), Draw(1), EndTurn()]
    assert game.hands[0] == cards("B8 Y7 B9 G3")


def test_five_colour_greedy_discards_five_of_the_worked_check() -> None:
    game = position(FIVE_COLOUR, ["R1 R2 R3 R4 R5 G1 Y1 B8 Y7", "B1 B5 B9 Y2"])
    taken = greedy_turn(game, {Steal: [C("B9")], Draw: [(C("K3"),)]})
    discarded = [card for a in taken if isinstance(a, Discard) for card in a.cards]
    assert len(discarded) == 5 and Counter(discarded) == Counter(cards("R1 R2 R3 R4 R5"))
    assert DrawDiscard() not in taken  # not part of the greedy policy


@presets
@pytest.mark.parametrize(("sizes", "target"), [((3, 6), 2), ((6, 3), 1), ((2, 9), 2), ((9, 2), 1)])
def test_greedy_steals_from_the_opponent_with_the_most_cards(
    rules: Rules, sizes: tuple[int, int], target: int
) -> None:
    mine, one, two = groupless_hands(rules, [4, *sizes])
    game = position(rules, [mine, one, two])
    assert greedy().choose(game.view(0)) == Steal(target)


@presets
@pytest.mark.parametrize(("current", "expected"), [(0, 1), (1, 2), (2, 0)])
def test_greedy_breaks_ties_towards_the_next_player(rules: Rules, current: int, expected: int) -> None:
    hands = groupless_hands(rules, [5, 5, 5])
    hands[current] = hands[current][:3]
    game = position(rules, hands, current=current)
    assert greedy().choose(game.view(current)) == Steal(expected)


@presets
@pytest.mark.parametrize("players", [2, 3])
def test_greedy_does_not_steal_a_last_card(rules: Rules, players: int) -> None:
    hands = groupless_hands(rules, [4] + [1] * (players - 1))
    game = position(rules, hands)
    assert Steal(1) in game.legal_actions()  # the rules would allow it (and the victim would win)
    assert greedy().choose(game.view(0)) == Draw(1)


def test_greedy_steals_from_the_richest_even_if_another_has_one_card() -> None:
    hands = groupless_hands(CLASSIC, [4, 1, 2])
    game = position(CLASSIC, hands)
    assert greedy().choose(game.view(0)) == Steal(2)


@presets
def test_greedy_turn_order_steal_draw_one_end(rules: Rules) -> None:
    mine, other = groupless_hands(rules, [4, 6])
    game = position(rules, [mine, other])
    deck_before = game.deck_size
    taken = greedy_turn(game)
    nongroup = [a for a in taken if not isinstance(a, Discard)]
    assert nongroup == [Steal(1), Draw(1), EndTurn()]
    assert game.deck_size >= deck_before - 1  # drew exactly one (discards only add)


@presets
def test_greedy_discards_after_stealing_and_after_drawing(rules: Rules) -> None:
    game = position(rules, ["R1 R2 Y5 Y6", "R3 G9 G8 B1"])
    taken = greedy_turn(game, {Steal: [C("R3")], Draw: [(C("Y7"),)]})
    assert taken == [
        Steal(1),
        Discard(cards("R1 R2 R3")),
        Draw(1),
        Discard(cards("Y5 Y6 Y7")),
    ]
    assert game.winner == 0


@presets
def test_greedy_draws_exactly_one_then_ends(rules: Rules) -> None:
    mine, other = groupless_hands(rules, [4, 6])
    game = position(rules, [mine, other], stole=True)
    assert greedy().choose(game.view(0)) == Draw(1)
    game = position(rules, [mine, other], stole=True, drew=True)
    assert greedy().choose(game.view(0)) == EndTurn()


@presets
def test_greedy_never_steals_at_the_hand_limit(rules: Rules) -> None:
    full, other = groupless_hands(rules, [20, 10])
    game = position(rules, [full, other])
    assert greedy().choose(game.view(0)) == EndTurn()
    assert greedy_turn(game) == [EndTurn()]


@presets
def test_greedy_one_below_the_limit_steals_then_cannot_draw(rules: Rules) -> None:
    nearly, other = groupless_hands(rules, [19, 10])
    game = position(rules, [nearly, other])
    outcome = next(c for c in other if not has_group([*nearly, c], rules))
    taken = greedy_turn(game, {Steal: [outcome]})
    assert taken == [Steal(1), EndTurn()]
    assert len(game.hands[0]) == 20


@presets
def test_greedy_at_the_limit_with_a_group_discards_then_steals(rules: Rules) -> None:
    free = groupless(rules, 17, cards("R1 R2 R3 R1 R2 R3"))
    other = groupless(rules, 6, [*free, *cards("R1 R2 R3")])
    game = position(rules, [sorted(free + cards("R1 R2 R3")), other])
    assert len(game.hands[0]) == 20
    best = max_discard(game.hands[0], rules)
    taken = greedy_turn(game)
    first = next(i for i, action in enumerate(taken) if not isinstance(action, Discard))
    assert first > 0 and sum(len(a.cards) for a in taken[:first] if isinstance(a, Discard)) == best
    assert taken[first] == Steal(1)


def test_greedy_puts_back_a_card_it_does_not_need() -> None:
    game = position(FIVE_COLOUR, ["R1 R2 R3 Y9", "B1 B5"])
    game.apply(DrawDiscard(), outcome=C("K7"))
    action = greedy().choose(game.view(0))
    assert isinstance(action, PutBack) and action in game.legal_actions()
    assert action.card in cards("Y9 K7")  # never a card of its best discard


@presets
def test_greedy_is_a_pure_function_of_the_view(rules: Rules) -> None:
    mine, other = groupless_hands(rules, [5, 7])
    view = position(rules, [mine, other]).view(0)
    choices = {GreedyBot(random.Random(seed)).choose(view) for seed in range(10)}
    assert choices == {Steal(1)}


# --------------------------------------------------------------------------- the spec as an oracle


def greedy_spec(view: View, seat: int, action: Action) -> None:
    """Assert ``action`` is what the greedy spec prescribes in ``view``."""
    rules, hand = view.rules, list(view.hands[seat])
    if view.must_put_back:
        assert isinstance(action, PutBack)
        return
    best = max_discard(hand, rules)
    if best:
        assert isinstance(action, Discard), f"greedy should discard from {hand}, not {action}"
        assert is_group(action.cards, rules)
        rest = list((Counter(hand) - Counter(action.cards)).elements())
        assert max_discard(rest, rules) == best - len(action.cards), "not part of a best discard"
        return
    players = len(view.hands)
    opponents = [(seat + k) % players for k in range(1, players)]
    richest = max(opponents, key=lambda other: len(view.hands[other]))
    if not view.stole and len(view.hands[richest]) >= 2 and not rules.at_limit(len(hand)):
        assert action == Steal(richest)
        return
    if not view.drew and view.deck_size and not (rules.hand_limit and len(hand) + 1 > rules.hand_limit):
        assert action == Draw(1)
        return
    assert action == EndTurn()


class Checked:
    """Wraps a bot: every choice must be legal in the view it was given (and, for greedy, the spec)."""

    def __init__(self, bot: Bot, seat: int) -> None:
        self.bot, self.seat, self.name = bot, seat, bot.name
        self.choices: list[Action] = []

    def choose(self, view: View) -> Action:
        assert view.seat == self.seat and view.my_turn
        action = self.bot.choose(view)
        assert action in legal_actions(view), f"{self.name} chose illegal {action}"
        if self.name == "greedy":
            greedy_spec(view, self.seat, action)
        self.choices.append(action)
        return action


Record = list[tuple[int, str, list[Event]]]


def play(rules: Rules, names: list[str], seed: int | str) -> tuple[GameResult, Record, list[Checked]]:
    game, bots = seeded_game(rules, names, seed)
    checked = [Checked(bot, seat) for seat, bot in enumerate(bots)]
    record: Record = []

    def on_step(game: Game, seat: int, action: Action, events: list[Event]) -> None:
        record.append((seat, str(action), events))

    result = play_bots(game, checked, on_step)
    assert game.over and result.reason is game.end_reason and result.winner == game.winner
    assert result.turns == game.turn and result.actions == len(record)
    if result.winner is not None:
        assert game.hands[result.winner] == []
    ends = sum(1 for _, action, _ in record if action == "end")
    if result.reason is EndReason.TURN_LIMIT:
        assert result.turns == rules.turn_limit and ends == result.turns
    elif result.reason is EndReason.NO_PROGRESS:  # the last turn's end drew the game
        assert ends == result.turns and game.quiet_turns == rules.quiet_rounds * len(names)
    else:
        assert ends == result.turns - 1
    return result, record, checked


MATCHUPS = [
    ["random", "greedy"],
    ["greedy", "random"],
    ["greedy", "greedy"],
    ["random", "random"],
    ["random", "greedy", "greedy"],
    ["greedy", "random", "random"],
    ["greedy", "greedy", "greedy"],
]


@pytest.mark.parametrize("rules", [*PRESETS, TINY], ids=[*PRESET_IDS, "tiny"])
@pytest.mark.parametrize("names", MATCHUPS, ids=["-".join(m) for m in MATCHUPS])
def test_bots_only_make_legal_moves_and_greedy_follows_its_spec(rules: Rules, names: list[str]) -> None:
    limited = rules.replace(turn_limit=60)
    for seed in range(8):
        result, record, checked = play(limited, names, f"{names}:{seed}")
        assert record
        for bot in checked:
            if bot.name == "random" and result.reason is EndReason.TURN_LIMIT:
                assert EndTurn() in bot.choices  # random bots end their turns


def test_bot_games_reach_every_kind_of_ending() -> None:
    reasons: Counter[EndReason] = Counter()
    for seed in range(30):
        for names in (["greedy", "greedy"], ["random", "greedy", "greedy"]):
            result, _, _ = play(TINY.replace(turn_limit=200), names, seed)
            reasons[result.reason] += 1
    no_winner = (EndReason.TURN_LIMIT, EndReason.STALEMATE, EndReason.NO_PROGRESS)
    assert reasons[EndReason.DISCARD] and sum(reasons[reason] for reason in no_winner)


@presets
@pytest.mark.parametrize("names", [["random", "greedy"], ["greedy", "random", "greedy"]])
def test_matches_are_deterministic_given_the_seed(rules: Rules, names: list[str]) -> None:
    limited = rules_from(rules.name, turn_limit=60)
    runs = [play(limited, names, 1234) for _ in range(2)]
    (result_a, record_a, _), (result_b, record_b, _) = runs
    assert result_a == result_b and record_a == record_b
    _, other_record, _ = play(limited, names, 4321)
    assert other_record != record_a


@presets
def test_random_bot_is_seeded_and_uniform_over_legal_actions(rules: Rules) -> None:
    game = position(rules, ["R1 R2 R3 Y7 G9", "B1 B5 B9 Y2"])
    view = game.view(0)
    legal = legal_actions(view)
    a, b = RandomBot(random.Random(5)), RandomBot(random.Random(5))
    picks = [a.choose(view) for _ in range(3000)]
    assert picks[:200] == [b.choose(view) for _ in range(200)]
    counts = Counter(picks)
    assert set(counts) == set(legal)
    expected = len(picks) / len(legal)
    assert all(0.7 * expected < n < 1.3 * expected for n in counts.values()), counts


def test_random_bot_must_put_back_when_pending() -> None:
    game = position(FIVE_COLOUR, ["R1 R2 R3 Y7", "B1 B5"])
    game.apply(DrawDiscard())
    bot = RandomBot(random.Random(1))
    for _ in range(50):
        assert isinstance(bot.choose(game.view(0)), PutBack)


def test_random_bot_turns_are_short() -> None:
    """Random ends its turn with probability 1: turns do not run on."""
    result, record, _ = play(CLASSIC.replace(turn_limit=60), ["random", "random"], 7)
    assert result.reason is EndReason.TURN_LIMIT or result.winner is not None
    ends = [i for i, (_, action, _) in enumerate(record) if action == "end"]
    gaps = [b - a for a, b in zip([-1, *ends], ends, strict=False)]
    assert len(ends) >= result.turns - 1 and max(gaps) < 40


def test_make_bot() -> None:
    factories: dict[str, tuple[type, str]] = {
        "random": (RandomBot, "random"),
        "greedy": (GreedyBot, "greedy"),
        "qlearn": (QLearnBot, "qlearn"),
        "expert": (ExpertBot, "expert-hard"),
        "expert-easy": (ExpertBot, "expert-easy"),
        "expert-medium": (ExpertBot, "expert-medium"),
        "expert-hard": (ExpertBot, "expert-hard"),
    }
    assert set(BOTS) == set(factories)
    for name, (cls, shown) in factories.items():
        bot = make_bot(name, random.Random(0))
        assert isinstance(bot, cls) and bot.name == shown
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("genius", random.Random(0))


@pytest.mark.parametrize("name", sorted(set(BOTS) - {"random"}))  # random's choices are its random source's
def test_a_bot_shown_positions_chooses_as_if_it_had_played_from_them(name: str) -> None:
    """What a restored game relies on: catching up on a position leaves a bot as choosing there would."""
    game, (_, thief) = seeded_game(CLASSIC.replace(turn_limit=120), ["greedy", "greedy"], "shown")
    player, shown = make_bot(name, random.Random(1)), make_bot(name, random.Random(1))
    while not game.over:
        seat, view = game.current, game.view(game.current)
        if seat != 0:
            game.apply(thief.choose(view), seat=seat)
            continue
        action = player.choose(view)
        if view.turn <= 60:
            shown.catch_up(view)
        else:
            assert shown.choose(view) == action
            if isinstance(player, ExpertBot) and isinstance(shown, ExpertBot):
                assert vars(shown.thefts) == vars(player.thefts)
        game.apply(action, seat=seat)


def test_seeded_game_derives_everything_from_the_seed() -> None:
    a, _ = seeded_game(FIVE_COLOUR, ["greedy", "random"], "s")
    b, _ = seeded_game(FIVE_COLOUR, ["greedy", "random"], "s")
    c, _ = seeded_game(FIVE_COLOUR, ["greedy", "random"], "t")
    assert a.hands == b.hands and a.current == b.current
    assert a.hands != c.hands


def test_the_servers_welcome_names_every_bot_it_seats() -> None:
    assert describe(GAMES["notty"])["bots"] == list(BOTS)  # the client completes and checks these names


@pytest.mark.parametrize("seed", range(6))
def test_a_hint_midway_through_draw_and_discard_puts_the_best_card_back_first(seed: int) -> None:
    from games import GAMES
    from games.notty import parse_cards
    from solver import max_discard

    game = GAMES["notty"]
    settings = game.settings("five-colour", 2, {})
    match = game.new_match(settings, ["ann", "bob"], random.Random(seed))
    seat = match.current
    match.apply(seat, match.parse_action("dd"))
    job = match.hint(seat)
    assert job is not None
    answer = job()
    verb, card = answer.actions[0].split()
    assert verb == "putback" and answer.text.startswith(f"put back {card} first")
    hand = [str(held) for held in match.game.hands[seat]]
    rules = match.game.rules

    def left(gone: str) -> int:
        rest = list(hand)
        rest.remove(gone)
        return max_discard(parse_cards(rest), rules)

    assert left(card) == max(left(other) for other in hand)
    for text in answer.actions:
        match.apply(seat, match.parse_action(text))  # every step legal
    assert not match.game.must_put_back
