"""The expert bot's judgement, where it can be pinned down, and its legality everywhere.

Strength is measured by the ladder (bench/ladder.py), not here: these tests pin
the decisions a strong player never gets wrong.
"""

from __future__ import annotations

import random
from collections import Counter
from unittest.mock import patch

import pytest
from conftest import PRESET_IDS, PRESETS, cards, groupless, groupless_hands, new_game, position, set_position
from hypothesis import given
from hypothesis import strategies as st

from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, has_group, rules_from
from games.notty.bots import LEVELS, ExpertBot, _outlook, make_bot
from games.notty.bots._base import victims
from games.notty.bots._expert import QUIET_ROUNDS
from games.notty.engine import Discard, Draw, EndTurn, Game, Steal, check
from games.notty.match import play_bots, seeded_game
from solver import Flat, best_discard, bounded_chance, max_discard

levels = pytest.mark.parametrize("level", LEVELS)


def expert(level: str = "hard", seed: int = 0) -> ExpertBot:
    return ExpertBot(random.Random(seed), level)


def play_turn(game: Game, bot: ExpertBot) -> list[object]:
    """Let the bot play the current seat's turn to its end (or the game's)."""
    seat, taken = game.current, []
    while not game.over and game.current == seat:
        action = bot.choose(game.view(seat))
        check(game, seat, action)
        game.apply(action, seat=seat)
        taken.append(action)
        assert len(taken) < 60, "the bot does not end its turn"
    return taken


@levels
@pytest.mark.parametrize(
    ("rules", "hand"),
    [
        (CLASSIC, "R1 R2 R3"),
        (CLASSIC, "R6 B6 Y6 G7 G6 G5"),
        (CLASSIC, "R1 R2 R3 R4 R5 G1 Y1 B1 B2 B3 B4"),
        (FIVE_COLOUR, "R5 Y5 G5 B5 K1 K2 K3"),
    ],
)
@pytest.mark.parametrize("flags", [{}, {"drew": True}, {"stole": True, "drew": True}])
def test_discards_the_whole_hand_when_it_can(
    level: str, rules: Rules, hand: str, flags: dict[str, bool]
) -> None:
    game = position(rules, [hand, "R9 Y9 G8 B10" if rules is CLASSIC else "R9 Y9 G8 B8"], **flags)
    taken = play_turn(game, expert(level))
    assert all(isinstance(action, Discard) for action in taken)
    assert game.winner == 0 and not game.hands[0]


@levels
@pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)
def test_never_steals_a_last_card_even_one_that_would_finish_its_hand(level: str, rules: Rules) -> None:
    # R7 would complete R5 R6, but taking it empties the victim's hand: the victim wins.
    three = rules is CLASSIC
    game = position(rules, ["R5 R6", "R7", "Y1 Y4 G8 B2"] if three else ["R5 R6", "R7"])
    for action in play_turn(game, expert(level)):
        assert action != Steal(1)
    assert game.winner != 1


def test_victims_are_the_hands_a_theft_cannot_empty() -> None:
    # Seat 1's last card would make it the winner; seat 2's two cards may be taken.
    game = position(CLASSIC, ["R5 R6", "R7", "Y1 Y4"])
    assert victims(game.view(0), 0) == [2]
    assert victims(position(CLASSIC, ["R5 R6", "R7", "Y1 Y4"], stole=True).view(0), 0) == []
    full, other = groupless_hands(CLASSIC, [20, 4])
    assert victims(position(CLASSIC, [full, other]).view(0), 0) == []  # no room for the card


@levels
def test_steals_when_any_card_it_could_get_finishes_the_hand(level: str) -> None:
    game = position(CLASSIC, ["R5 R6", "R4 R7"])
    taken = play_turn(game, expert(level))
    assert taken[0] == Steal(1)
    assert game.winner == 0


@levels
def test_draws_the_one_card_that_gives_the_best_chance(level: str) -> None:
    # R4 or R7 finishes R5 R6: one card gives 4 outs; two cards would have to fit as well.
    game = position(CLASSIC, ["R5 R6", "Y1"], stole=True)
    action = expert(level).choose(game.view(0))
    assert action == Draw(1)


@levels
def test_does_not_draw_into_a_full_hand_it_cannot_use(level: str) -> None:
    # Nothing can finish this hand this turn, and drawing only buries it deeper.
    hand = groupless(CLASSIC, 17)
    game = position(CLASSIC, [hand, groupless(CLASSIC, 1, hand)], stole=True)
    assert expert(level).choose(game.view(0)) == EndTurn()


@st.composite
def positions(draw: st.DrawFn) -> Game:
    rules: Rules = draw(st.sampled_from([CLASSIC, FIVE_COLOUR, rules_from("classic", hand_limit=0)]))
    players = draw(st.integers(2, 3))
    full = rules.full_deck()
    random.Random(draw(st.integers(0, 2**32))).shuffle(full)
    hands: list[list[Card]] = []
    for _ in range(players):
        top = min(rules.hand_limit or 24, len(full))
        n = draw(st.integers(0 if hands else 1, top))
        hands.append(full[:n])
        del full[:n]
    current = draw(st.integers(0, players - 1))
    if not hands[current]:
        hands[current], hands[0] = hands[0], hands[current]
    flags = {name: draw(st.booleans()) for name in ("drew", "stole")}
    if rules.draw_and_discard:
        flags["exchanged"] = draw(st.booleans())
        flags["must_put_back"] = flags["exchanged"] and draw(st.booleans())
    return position(rules, hands, current=current, **flags)


@given(game=positions(), level=st.sampled_from(LEVELS), seed=st.integers(0, 2**16))
def test_every_choice_is_legal_and_never_throws_a_game_away(game: Game, level: str, seed: int) -> None:
    if game.over:
        return
    bot = expert(level, seed)
    seat = game.current
    for _ in range(60):
        hand = game.hands[seat]
        action = bot.choose(game.view(seat))
        check(game, seat, action)  # raises IllegalAction if the bot broke a rule
        if isinstance(action, Steal):
            assert len(game.hands[action.victim]) >= 2, "stole a last card: the victim wins"
        if hand and not game.must_put_back and max_discard(hand, game.rules) == len(hand):
            assert isinstance(action, Discard), "could go out, but did not"
        game.apply(action, seat=seat)
        if game.over or game.current != seat:
            return
    pytest.fail("the bot did not end its turn")


@pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)
@pytest.mark.parametrize("opponents", [["greedy"], ["random"], ["qlearn", "expert-easy"]])
def test_whole_games_replay_exactly_from_their_seed(rules: Rules, opponents: list[str]) -> None:
    capped = rules.replace(turn_limit=30)
    results = []
    for _ in range(2):
        game, bots = seeded_game(capped, ["expert-medium", *opponents], "expert-replay")
        result = play_bots(game, bots)
        results.append((result, [tuple(hand) for hand in game.hands]))
    assert results[0] == results[1]


def test_levels_are_budgets_of_one_bot() -> None:
    assert [make_bot(f"expert-{level}", random.Random(0)).name for level in LEVELS] == [
        "expert-easy",
        "expert-medium",
        "expert-hard",
    ]
    with pytest.raises(ValueError, match="unknown level"):
        ExpertBot(random.Random(0), "godlike")


# -- a last card stolen wins: waiting for a careless thief -------------------------------------


def test_a_careless_thief_is_waited_for_with_one_card() -> None:
    # One card, and an opponent who has robbed us half the time and never yet met a lone card.
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed = 10, 5
    game = position(CLASSIC, ["R5", "Y1 Y4 G8 B2"])
    assert bot.choose(game.view(0)) == EndTurn()


def test_a_thief_who_has_left_lone_cards_alone_is_not_waited_for() -> None:
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed, bot.thefts.left_alone = 10, 10, 2
    game = position(CLASSIC, ["R5", "Y1 Y4 G8 B2"])
    assert bot.choose(game.view(0)) == Draw(2)


def test_nobody_is_waited_for_when_every_opponent_is_stuck() -> None:
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed = 10, 5
    game = position(CLASSIC, ["R5", groupless(CLASSIC, 20, [Card.parse("R5")])], stole=True)
    assert bot.choose(game.view(0)) == Draw(2)


# -- careful thieves: building rather than waiting for a theft that never comes ----------------


@pytest.mark.parametrize(
    ("robbed", "choice"),
    [(10, EndTurn()), (0, Draw(1))],
    ids=["waits-for-a-thief-who-robs-every-hand", "builds-when-hands-are-rarely-robbed"],
)
def test_with_nothing_in_reach_counts_on_a_theft_as_often_as_it_comes(robbed: int, choice: object) -> None:
    # R1 and B7 need four cards between them: only a theft of one brings the other in reach.
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed = 10, robbed
    assert bot.choose(position(CLASSIC, ["R1 B7", "Y1 Y4 G8 B2"]).view(0)) == choice


@pytest.mark.parametrize(("idle", "choice"), [(False, EndTurn()), (True, Draw(1))], ids=["acting", "idle"])
def test_at_a_bigger_table_a_theft_is_counted_on_while_anyone_acts(idle: bool, choice: object) -> None:
    # Thieves there rob the biggest hand, so an unrobbed small hand says little:
    # waiting won the 3-player round (bench/RESULTS.md). But when rounds pass
    # with no hand changed, nobody is acting and no theft is coming.
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed = 10, 0
    bot.thefts.quiet = QUIET_ROUNDS if idle else QUIET_ROUNDS - 1
    game = position(CLASSIC, ["R1 B7", "Y1 Y4 G8 B2", "G1 G3 B9 R6"])
    assert bot.choose(game.view(0)) == choice


@pytest.mark.parametrize(
    ("experts", "seed"), [(2, 2), (2, 3), (2, 4), (3, 2), (3, 5)]
)  # deals on which they all used to pass from the start
def test_experts_alone_at_a_table_do_not_pass_for_ever(experts: int, seed: int) -> None:
    # Each used to wait for another to rob it, and none ever did.
    game, bots = seeded_game(CLASSIC.replace(turn_limit=40 * experts // 2), ["expert-hard"] * experts, seed)
    drawn = 0

    def count(game: Game, seat: int, action: object, events: object) -> None:
        nonlocal drawn
        drawn += isinstance(action, Draw)

    play_bots(game, bots, on_step=count)
    assert drawn >= 5


# -- one card: stealing first when the victim's face-up hand is richer than the deck -----------


@pytest.mark.parametrize(
    ("victim", "choice"),
    [("R4 R4 R6 R6 Y5 G5 B5 R7", Steal(1)), ("Y1 Y9 G2 G2 B8 B10 Y10 R1", Draw(2))],
    ids=["victim-rich-in-partners", "victim-with-none"],
)
def test_a_lone_card_steals_first_only_for_a_better_chance_than_drawing(victim: str, choice: object) -> None:
    # R5 alone: two drawn cards complete it about 1% of the time; a stolen partner
    # (R4, R6, Y5 ...) then one drawn card, several times as often.
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed, bot.thefts.left_alone = 10, 10, 2  # a careful thief: no waiting
    assert bot.choose(position(CLASSIC, ["R5", victim]).view(0)) == choice


@pytest.mark.parametrize(
    ("robbed", "choice"), [(10, EndTurn()), (0, Draw(1))], ids=["thinned", "never-robbed"]
)
def test_a_hand_of_dead_cards_is_left_for_a_thief_to_thin(robbed: int, choice: object) -> None:
    # Four cards that need eight more between them: drawing one a turn while a thief
    # takes one a turn would keep the hand at four for ever.
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed = 10, robbed
    assert bot.choose(position(CLASSIC, ["R1 Y4 G7 B10", "Y1 Y9 G2 B8"]).view(0)) == choice


@pytest.mark.parametrize(
    ("robbed", "choice"), [(10, EndTurn()), (0, Steal(1))], ids=["thinned", "never-robbed"]
)
def test_a_big_hand_out_of_reach_trades_cards_only_when_no_thief_thins_it(
    robbed: int, choice: object
) -> None:
    # Nine cards with nothing in reach and no room to build: it stole from a free `greedy` every
    # turn, which robbed it back, so the hand stayed at nine (some 60 dead turns in one game).
    # Passing, a thief takes one a turn; with no thief, a theft of ours still stirs both hands.
    bot = expert("hard")
    bot.thefts.exposed, bot.thefts.robbed = 10, robbed
    hand = "R1 R5 R9 Y3 Y7 G1 G5 G9 B3"  # no two of them within reach of one group
    assert bot.choose(position(CLASSIC, [hand, "Y1 Y9 G2 B8 B6 R7 Y5"]).view(0)) == choice


# -- an opponent stuck at the hand limit: freeing it for good ----------------------------------


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("mine", ["R5", "R5 B9"])
def test_a_stuck_opponent_is_freed_and_handed_a_card_that_can_free_it_for_good(seed: int, mine: str) -> None:
    # A stuck opponent neither draws nor steals, so nobody thins our hand. Our theft
    # frees it and it robs us back; but the cards passing between our two hands
    # never gave it a group, so the turn ends holding one from the deck that might.
    held = [Card.parse(text) for text in mine.split()]
    stuck_hand = groupless(CLASSIC, 20, held)
    game = set_position(new_game(CLASSIC, 2, seed), [held, stuck_hand])
    bot = expert("hard")
    taken = play_turn(game, bot)
    assert taken[0] == Steal(1)
    if not game.over:
        feeds = any(has_group((*game.hands[1], card), CLASSIC) for card in game.hands[0])
        assert feeds or any(isinstance(action, Draw) for action in taken)


# -- the no-progress rule -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quiet", "choice"), [(4, EndTurn()), (5, Draw(1))], ids=["rounds-to-go", "last-turn"]
)
def test_it_never_ends_a_turn_unchanged_into_a_draw_for_no_progress(quiet: int, choice: object) -> None:
    # One card, R1, and nothing in reach: the expert waits for a careless thief, but not on the turn
    # whose pass would end the game with no winner (3 whole rounds of 2 turns with no hand changed).
    game = position(CLASSIC, ["R1", "Y1 Y4 G8 B2 G5 B9 R6 Y9"])
    game.quiet_turns = quiet
    bot = expert("hard")
    bot.thefts.watch(game.view(0), 0)
    bot.thefts.quiet = 0  # as if its opponents had been stuck: no quiet round of its own counted
    assert bot.choose(game.view(0)) == choice


def test_a_bot_taking_a_seat_mid_game_counts_the_rounds_already_quiet() -> None:
    # A stand-in or a hint's adviser has not watched the game: the table's count tells it that
    # nobody has acted for two rounds, so no theft is coming, and it builds rather than wait.
    game = position(CLASSIC, ["R1 B7", "Y1 Y4 G8 B2", "G1 G3 B9 R6"], turn=30)
    game.quiet_turns = 2 * 3
    assert expert("hard").choose(game.view(0)) == Draw(1)
    game.quiet_turns = 2 * 3 - 1
    assert expert("hard").choose(game.view(0)) == EndTurn()


def test_after_a_discard_this_turn_it_ends_the_turn_as_the_count_starts_again() -> None:
    # A review found a fresh expert (a hint's adviser, a stand-in after 'auto') drawing a card to
    # keep the game going, though the discard made earlier in the turn had already changed a hand.
    rules = CLASSIC.replace(quiet_rounds=2)  # drawn after 4 unchanged turns: 3 so far
    waiting = position(rules, ["R1 B7", "Y1 Y4 G8 B2 G5 B9 R6 Y9"])
    waiting.quiet_turns = 3
    assert expert("hard").choose(waiting.view(0)) in (Draw(1), Steal(1))  # nothing changed yet: it acts
    game = position(rules, ["R1 B7 G2 G3 G4", "Y1 Y4 G8 B2 G5 B9 R6 Y9"])
    game.quiet_turns = 3
    game.apply(Discard(tuple(cards("G2 G3 G4"))), seat=0)
    assert expert("hard").choose(game.view(0)) == EndTurn()  # R1 B7 wait for a theft, as ever
    game.apply(EndTurn(), seat=0)
    assert game.quiet_turns == 0 and not game.over


NO_LIMIT = CLASSIC.replace(hand_limit=0)


def test_an_opponents_hand_of_dozens_of_cards_is_not_weighed_card_by_card() -> None:
    """At a table with no hand limit a player who drew every turn held 70 cards, and the expert
    weighed its theft by each of them: seconds of CPU a move, which stalled the server."""
    mine = groupless(NO_LIMIT, 6)
    theirs = list((Counter(_shuffled(NO_LIMIT)) - Counter(mine)).elements())[:70]
    game = position(NO_LIMIT, [mine, theirs])
    action, asked = _chances_asked(game)
    check(game, 0, action)
    big = [size for size in asked if size > 20]
    assert asked and len(big) <= NO_LIMIT.max_draw + 1  # the threat it poses (one best draw), not per card


def test_its_own_hand_of_dozens_of_cards_discards_all_it_can_without_weighing_each_theft() -> None:
    """The same table, the hoarder's seat played by the expert (a stand-in, or the hint's adviser):
    weighing what to keep against a theft of each of 40 cards took a second a move."""
    mine = _shuffled(NO_LIMIT)[:45]
    game = position(NO_LIMIT, [mine, groupless(NO_LIMIT, 5, avoid=mine)], stole=True, drew=True)
    action, asked = _chances_asked(game)
    assert action == Discard(best_discard(mine, NO_LIMIT)[0])  # the most it can, at once
    assert len([size for size in asked if size > 20]) <= 2 * (NO_LIMIT.max_draw + 1)


def _shuffled(rules: Rules) -> list[Card]:
    full = rules.full_deck()
    random.Random(9).shuffle(full)
    return full


def _chances_asked(game: Game) -> tuple[object, list[int]]:
    """The hard expert's choice for seat 0, and the size of each hand whose chance it asked."""
    asked: list[int] = []

    def counted(hand: Flat, deck: Flat, draw: int, rules: Rules) -> tuple[float, bool]:
        asked.append(sum(hand))
        return bounded_chance(hand, deck, draw, rules)

    with patch.object(_outlook, "bounded_chance", counted):
        return expert("hard").choose(game.view(0)), asked
