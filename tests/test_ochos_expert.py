"""The expert bot: its fast play-outs are the engine's game, what it reads from the table is
true of the real hands, its sampled deals conserve the cards, and it finds a win it can see."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.autoplay import seeded_match
from games.ochos_locos.actions import Action, Draw, Play, TakeTwo
from games.ochos_locos.cards import COLOURS, Card, full_deck
from games.ochos_locos.deal import Deal
from games.ochos_locos.engine import Game
from games.ochos_locos.expert import (
    ALL,
    BIT,
    STALEMATE,
    Opponent,
    Position,
    Sampler,
    World,
    card_index,
    lacking,
    move_of,
    moves,
    play_out,
    read_table,
    rule_bits,
    weigh,
)
from games.ochos_locos.game import GAME, ExpertBot, OchosMatch, expert_hint, position_of
from games.ochos_locos.rules import PRESETS, Rules
from games.ochos_locos.strategy import rule_choice, rule_move

RULES = [
    PRESETS[part].with_players(players) for part in ("part1", "part2", "part3") for players in (2, 3, 4, 6)
]


def bits(cards: Iterable[Card]) -> int:
    return sum(BIT[card] for card in cards)


def world_of(game: Game) -> World:
    """The real table as a play-out world (what no seat may know: only tests build it)."""
    hands = [bits(game.hand(seat)) for seat in range(game.rules.players)]
    stock = [card_index(card) for card in reversed(game.stock)]
    named = -1 if game.named is None else COLOURS.index(game.named)
    idle = 0
    for turn in reversed(game.public_history):
        if isinstance(turn.action, Play) or turn.took:
            break
        idle += 1
    return World(hands, stock, card_index(game.top), named, game.two_pending, game.current, idle)


@settings(max_examples=300, deadline=None)
@given(
    hand=st.sets(st.sampled_from(full_deck()), max_size=10),
    top=st.sampled_from(full_deck()),
    named=st.sampled_from([None, *COLOURS]),
    pending=st.booleans(),
    eights=st.booleans(),
)
def test_rule_bits_is_the_automatic_strategy(
    hand: set[Card], top: Card, named: str | None, pending: bool, eights: bool
) -> None:
    held = sorted(hand - {top}, key=lambda card: card.rank)
    rules = PRESETS["part3" if eights else "part2"]
    expected = rule_choice(held, top, rules, named if eights else None, pending)
    got = rule_bits(
        bits(held),
        card_index(top),
        -1 if named is None or not eights else COLOURS.index(named),
        pending,
        eights,
    )
    assert got == move_of(expected)


@settings(max_examples=60, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32))
def test_a_play_out_is_the_engines_game_of_rule_bots(rules: Rules, seed: int) -> None:
    """From the deal, and again from a position mid-game, the play-out ends as the engine does."""
    game = Game(rules, Deal.shuffled(rules, random.Random(seed)), first=seed % rules.players)
    middle: tuple[World, Game] | None = None
    while not game.over:
        if middle is None and game.turn == 7:
            middle = (world_of(game), game)
        game.apply(game.current, rule_move(game))
    expected = STALEMATE if game.winner is None else game.winner
    replayed = Game(rules, game.deal, first=seed % rules.players)
    assert play_out(world_of(replayed), rules) == expected
    if middle is not None:
        assert play_out(middle[0], rules) == expected


@settings(max_examples=60, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32))
def test_moves_are_the_engines_legal_actions(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(rules, Deal.shuffled(rules, rng))
    while not game.over:
        world = world_of(game)
        hand = world.hands[game.current]
        legal = sorted(move_of(action) for action in game.legal_actions())
        assert sorted(moves(hand, world.top, world.named, world.pending, rules)) == legal
        game.apply(game.current, rng.choice(game.legal_actions()))


def _fits(cards: list[int], masks: list[int]) -> bool:
    """Whether each card can take a slot whose mask does not rule it out (a bipartite matching)."""
    owner: dict[int, int] = {}

    def place(card: int, tried: set[int]) -> bool:
        for slot, mask in enumerate(masks):
            if not mask >> card & 1 and slot not in tried:
                tried.add(slot)
                if slot not in owner or place(owner[slot], tried):
                    owner[slot] = card
                    return True
        return False

    return len(cards) == len(masks) and all(place(card, set()) for card in cards)


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32))
def test_what_the_table_shows_is_true_of_the_real_hands(rules: Rules, seed: int) -> None:
    """Against rule bots every exclusion holds of the real hands; against anyone, the rules' ones do."""
    rng = random.Random(seed)
    game = Game(rules, Deal.shuffled(rules, rng))
    random_seat = 1 if seed % 2 else None  # a seat that plays anything legal, as a person may
    while not game.over:
        seen = read_table(0, rules, game.pile[0], game.public_history)
        for other, opponent in seen.items():
            real = [card_index(card) for card in game.hand(other)]
            assert _fits(real, opponent.legal)
            if other != random_seat:
                assert _fits(real, [a | b for a, b in zip(opponent.legal, opponent.modelled, strict=True)])
        actions = game.legal_actions()
        game.apply(game.current, rng.choice(actions) if game.current == random_seat else rule_move(game))


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32), people=st.booleans())
def test_every_sampled_deal_holds_each_card_once_and_the_seen_sizes(
    rules: Rules, seed: int, people: bool
) -> None:
    rng = random.Random(seed)
    game = Game(rules, Deal.shuffled(rules, rng))
    while not game.over:
        seat = game.current
        mine = bits(game.hand(seat))
        unseen = ALL & ~mine & ~bits(game.pile)
        sampler = Sampler(
            rng,
            seat,
            rules,
            mine,
            unseen,
            read_table(seat, rules, game.pile[0], game.public_history),
            game.stock_size,
        )
        for _ in range(3):
            world = sampler.sample()
            assert world.hands[seat] == mine
            assert [hand.bit_count() for hand in world.hands] == list(game.hand_sizes())
            assert len(world.stock) == game.stock_size
            everything = bits(game.pile)
            for hand in world.hands:
                assert not everything & hand
                everything |= hand
            for card in world.stock:
                assert not everything >> card & 1
                everything |= 1 << card
            assert everything == ALL
        actions = game.legal_actions()
        game.apply(seat, rng.choice(actions) if people else rule_move(game))


def _open_position(seed: int) -> tuple[Position, World] | None:
    """Heads-up with the draw pile empty and no turn yet: the opponent's 5 cards are all that is unseen."""
    rng = random.Random(seed)
    deck = full_deck()
    rng.shuffle(deck)
    mine, theirs, pile = deck[:2], deck[2:7], deck[7:]
    rules = PRESETS["part3"].with_players(2)
    top = card_index(pile[-1])
    legal_moves = moves(bits(mine), top, -1, False, rules)
    if len(legal_moves) < 2:
        return None
    legal = [Play(_card(card), None if colour < 0 else COLOURS[colour]) for card, colour in legal_moves]
    position = Position(0, rules, mine, pile, None, False, 0, (), legal)
    return position, World([bits(mine), bits(theirs)], [], top, -1, False, 0, 0)


def _card(index: int) -> Card:
    return next(card for card, bit in BIT.items() if bit == 1 << index)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_it_takes_a_win_it_can_see(seed: int) -> None:
    """With every card accounted for, a move that wins against the automatic strategy is chosen."""
    made = _open_position(seed)
    if made is None:
        return
    position, world = made
    rules = position.rules
    winning = {action for action in position.legal if play_out(world.copy(), rules, 0, move_of(action)) == 0}
    best = weigh(position, random.Random(seed), 5)[0]
    if winning:
        assert best.action in winning
        assert best.rate == 1.0


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32))
def test_what_a_hint_says_an_opponent_lacks_it_lacks(rules: Rules, seed: int) -> None:
    """Even against players who play anything legal: it rests on the rules, not on a strategy."""
    rng = random.Random(seed)
    game = Game(rules, Deal.shuffled(rules, rng))
    while not game.over:
        seat = game.current
        position = Position(
            seat,
            rules,
            game.hand(seat),
            game.pile,
            game.named,
            game.two_pending,
            game.stock_size,
            game.public_history,
            (),
        )
        for other, lack in lacking(position).items():
            assert not lack & bits(game.hand(other))
            assert not lack & ~position.unseen()
        game.apply(seat, rng.choice(game.legal_actions()))


@pytest.mark.parametrize(("variant", "seats"), [("part3", 3), ("part1", 3), ("part4", 2), ("part4", 6)])
def test_expert_bots_play_whole_games_through_the_seam(variant: str, seats: int) -> None:
    match, bots = seeded_match(GAME, GAME.settings(variant, seats, {}), ["expert"] * seats, 7)
    assert all(isinstance(bot, ExpertBot) for bot in bots)
    while not match.over:
        seat = match.current
        action = bots[seat].choose(match.bot_view(seat))
        assert match.action_text(action) in match.legal_actions(seat)
        match.apply(seat, action)
    assert match.outcome() is not None


def test_the_expert_beats_the_rule_on_fixed_deals() -> None:
    """On 40 fixed 3-player deals, each played from every seat, the expert wins more than its share."""
    rules = PRESETS["part3"].with_players(3)
    wins = 0
    for deal in range(40):
        for seat in range(3):
            game = Game(rules, Deal.shuffled(rules, random.Random(f"beats:{deal}")))
            match = OchosMatch(GAME.settings("part3", 3, {}), ["a", "b", "c"], game)
            bot = ExpertBot(random.Random(deal * 3 + seat), worlds=60)
            while not game.over:
                action: Action = bot.choose(match.bot_view(seat)) if game.current == seat else rule_move(game)
                game.apply(game.current, action)
            wins += game.winner == seat
    assert wins / 120 > 0.36, wins


def test_a_hint_names_what_the_draws_showed() -> None:
    settings_ = GAME.settings("part3", 3, {})
    for seed in range(30):
        match, bots = seeded_match(GAME, settings_, ["rule"] * 3, seed)
        while not match.over:
            seat = match.current
            view = match.bot_view(seat)
            if len(view.legal) > 1 and any(lacking(position_of(view)).values()):
                answer = expert_hint(view, match.names, ExpertBot(random.Random(seed), worlds=20))
                assert "holds no" in answer.text, answer.text
                return
            match.apply(seat, bots[seat].choose(view))
    pytest.fail("no position in which a draw showed something")


def test_forced_moves_are_hinted_with_their_reason() -> None:
    settings_ = GAME.settings("part3", 3, {})
    said: set[str] = set()
    for seed in range(10):
        match, bots = seeded_match(GAME, settings_, ["rule"] * 3, seed)
        while not match.over:
            seat = match.current
            view = match.bot_view(seat)
            if len(view.legal) == 1:
                answer = expert_hint(view, match.names, ExpertBot(random.Random(0), worlds=5))
                action = view.legal[0]
                reason = {Draw: "nothing in your hand matches", TakeTwo: "no 2 to answer"}.get(
                    type(action), "only playable card"
                )
                assert reason in answer.text
                said.add(type(action).__name__)
            match.apply(seat, bots[seat].choose(view))
    assert {"Draw", "Play"} <= said


def test_an_opponent_is_five_unknown_cards_before_any_turn() -> None:
    seen = read_table(0, PRESETS["part3"].with_players(3), Card.parse("R1"), ())
    assert set(seen) == {1, 2}
    assert all(opponent == Opponent([0] * 5, [0] * 5, acquired=[-1] * 5) for opponent in seen.values())
