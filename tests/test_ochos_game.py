"""Ochos Locos behind the game seam: whole games of bots, the record rebuilding the match,
actions as text, refusals that change nothing, and what each seat is shown."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import GAMES, ActionError, DealRecord, Match, SettingsError
from games.autoplay import play_match, seeded_match
from games.ochos_locos.actions import Draw, Play, TakeTwo
from games.ochos_locos.cards import Card
from games.ochos_locos.game import (
    ExpertBot,
    OchosMatch,
    SeatView,
    Took,
    action_text,
    expert_hint,
    parse_action,
)
from games.ochos_locos.rules import PRESETS

GAME = GAMES["ochos-locos"]
VARIANT_SEATS = [("part1", 3), ("part2", 3), ("part3", 3), ("part4", 2), ("part4", 4), ("part4", 6)]


def ochos(match: Match) -> OchosMatch:
    assert isinstance(match, OchosMatch)
    return match


def test_registered_under_its_hyphenated_name() -> None:
    assert "ochos-locos" in GAMES and GAME.name == "ochos-locos"
    assert next(iter(GAME.variants)) == "part4"
    assert GAME.settings(None, 3, {}).variant == "part4"
    with pytest.raises(SettingsError):
        GAME.settings("part1", 4, {})
    with pytest.raises(SettingsError):
        GAME.settings("part4", 7, {})
    assert GAME.stand_in(GAME.settings(None, 3, {})) == "expert"  # the bot whose move 'hint' gives
    assert set(GAME.bots) == {"rule", "expert", "random"}


@pytest.mark.parametrize(("variant", "seats"), VARIANT_SEATS)
def test_a_whole_game_of_rule_bots_ends_in_a_win_or_a_stalemate(variant: str, seats: int) -> None:
    settings_ = GAME.settings(variant, seats, {})
    for seed in range(10):
        match, bots = seeded_match(GAME, settings_, ["rule"] * seats, seed)
        played = play_match(match, bots)
        assert match.over and match.legal_actions(match.current) == []
        places = sorted(seat for place in played.outcome.ranking for seat in place)
        assert places == list(range(seats))
        if played.outcome.reason == "empty-hand":
            winner = played.outcome.winner
            assert winner is not None and ochos(match).game.hand(winner) == ()
        else:
            assert played.outcome.reason == "stalemate" and len(played.outcome.ranking) == 1


def test_rule_bots_play_the_automatic_strategy() -> None:
    """The ``rule`` bot, choosing from a seat's view, moves as the engine's strategy does."""
    from games.ochos_locos.strategy import rule_move

    settings_ = GAME.settings("part3", 3, {})
    match, bots = seeded_match(GAME, settings_, ["rule"] * 3, 7)
    while not match.over:
        seat = match.current
        chosen = bots[seat].choose(match.bot_view(seat))
        assert chosen == rule_move(ochos(match).game)
        match.apply(seat, chosen)


def record(match: Match, bots: list[Any]) -> list[tuple[int, str, tuple[str, ...]]]:
    moves: list[tuple[int, str, tuple[str, ...]]] = []

    def keep(match: Match, seat: int, action: Any, step: Any) -> None:
        moves.append((seat, match.action_text(action), step.outcome))

    play_match(match, bots, keep)
    return moves


@settings(max_examples=25, deadline=None)
@given(
    variant_seats=st.sampled_from(VARIANT_SEATS),
    seed=st.integers(0, 2**32),
    bot=st.sampled_from(["rule", "random"]),
)
def test_the_record_rebuilds_the_live_match(variant_seats: tuple[str, int], seed: int, bot: str) -> None:
    variant, seats = variant_seats
    settings_ = GAME.settings(variant, seats, {})
    live, bots = seeded_match(GAME, settings_, [bot] * seats, seed)
    deal = live.deal_record()
    moves = record(live, bots)
    # A record carries tokens: rebuild from them alone, with a source of chance that is never used.
    again = GAME.new_match(settings_, live.names, random.Random(-1), DealRecord(deal.cards, deal.first))
    for seat, text, outcome in moves:
        again.apply(seat, again.parse_action(text), outcome)
    assert ochos(again).game.snapshot() == ochos(live).game.snapshot()
    assert again.outcome() == live.outcome()
    assert again.position_text() == live.position_text()
    assert again.deal_record() == deal
    for seat in [None, *range(seats)]:
        assert again.view(seat) == live.view(seat)


def test_a_replay_given_other_cards_is_refused() -> None:
    settings_ = GAME.settings("part1", 3, {})
    for seed in range(50):
        match, bots = seeded_match(GAME, settings_, ["rule"] * 3, seed)
        while not match.over:
            seat = match.current
            action = bots[seat].choose(match.bot_view(seat))
            if isinstance(action, Draw) and ochos(match).game.stock_size > 1:
                wrong = (str(ochos(match).game.stock[1]),)
                before = ochos(match).game.snapshot()
                with pytest.raises(ActionError) as refused:
                    match.apply(seat, action, wrong)
                assert refused.value.code == "bad-outcome"
                assert ochos(match).game.snapshot() == before
                return
            match.apply(seat, action)
    pytest.fail("no draw in 50 games")


def test_a_deal_record_that_is_no_deal_is_refused() -> None:
    settings_ = GAME.settings("part1", 3, {})
    match, _ = seeded_match(GAME, settings_, ["rule"] * 3, 1)
    cards = match.deal_record().cards
    for bad in [
        DealRecord(cards, 3),
        DealRecord(cards, -1),
        DealRecord(cards[:-1], 0),
        DealRecord((cards[1], *cards[1:]), 0),
        DealRecord(("Z9", *cards[1:]), 0),
    ]:
        with pytest.raises(ValueError):
            GAME.new_match(settings_, match.names, random.Random(1), bad)


ACTIONS = st.one_of(
    st.just(Draw()),
    st.just(TakeTwo()),
    st.builds(Play, st.builds(Card, st.sampled_from("RYGB"), st.integers(1, 8))),
    st.builds(Play, st.builds(Card, st.sampled_from("RYGB"), st.just(8)), st.sampled_from("RYGB")),
)


@given(ACTIONS)
def test_action_text_round_trips(action: Any) -> None:
    text = action_text(action)
    assert parse_action(text) == action
    assert parse_action(text.upper()) == action
    assert parse_action(f"  {text}  ") == action


def test_action_text_reads_as_the_issue_writes_it() -> None:
    assert parse_action("play G3") == Play(Card("G", 3))
    assert parse_action("play R8 Y") == Play(Card("R", 8), "Y")
    assert parse_action("play R8, Y") == Play(Card("R", 8), "Y")  # commas separate, in every game
    assert parse_action("play R8,Y") == Play(Card("R", 8), "Y")
    assert parse_action("draw") == Draw()
    assert parse_action("take two") == TakeTwo()
    for bad in ["", "play", "play Z3", "play G9", "play R8 P", "play R8 Y G", "draw 2", "take", "pass"]:
        with pytest.raises(ActionError) as refused:
            parse_action(bad)
        assert refused.value.code == "bad-action"


def test_an_eights_colour_may_be_named_by_its_name_and_is_written_as_its_letter() -> None:
    """``play Y8 red`` was refused ("'red' is not a colour"): a new player types the name."""
    for typed, letter in [("red", "R"), ("Yellow", "Y"), ("GREEN", "G"), ("blue", "B"), ("b", "B")]:
        action = parse_action(f"play Y8 {typed}")
        assert action == Play(Card("Y", 8), letter), typed
        assert action_text(action) == f"play Y8 {letter}"  # what the record and the legal actions hold
        assert str(action) == f"Y8 LOCO {letter}"  # and the batch output
    for bad in ["purple", "re", "reds", "R8", "rouge"]:
        with pytest.raises(ActionError) as refused:
            parse_action(f"play Y8 {bad}")
        assert refused.value.message == (
            f"{bad!r} is not a colour: name it R, Y, G or B, or red, yellow, green or blue"
        )


def test_a_colour_named_by_its_name_is_played_and_recorded_as_its_letter() -> None:
    settings_ = GAME.settings("part3", 3, {})
    for seed in range(200):
        match, _ = seeded_match(GAME, settings_, ["rule"] * 3, seed)
        seat = match.current
        eights = [text for text in match.legal_actions(seat) if text.endswith(" Y")]
        if eights:
            break
    else:
        raise AssertionError("no deal gives the first player an 8 to play")
    card = eights[0].split()[1]
    match.apply(seat, match.parse_action(f"play {card} yellow"))
    assert match.action_text(match.parse_action(f"play {card} YELLOW")) == f"play {card} Y"
    assert ochos(match).view(None)["named"] == "Y"


def test_legal_actions_are_text_for_the_seat_to_move_only() -> None:
    settings_ = GAME.settings("part3", 3, {})
    for seed in range(30):
        match, bots = seeded_match(GAME, settings_, ["random"] * 3, seed)
        while not match.over:
            seat = match.current
            legal = match.legal_actions(seat)
            assert legal and all(match.action_text(match.parse_action(text)) == text for text in legal)
            assert all(match.legal_actions(other) == [] for other in range(3) if other != seat)
            match.apply(seat, bots[seat].choose(match.bot_view(seat)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), junk=st.lists(st.integers(0, 10**6), min_size=1, max_size=30))
def test_a_refused_action_leaves_the_match_unchanged(seed: int, junk: list[int]) -> None:
    settings_ = GAME.settings("part4", 4, {})
    match, bots = seeded_match(GAME, settings_, ["random"] * 4, seed)
    every = [f"play {colour}{number}" for colour in "RYGB" for number in range(1, 9)]
    every += [f"play {colour}8 {named}" for colour in "RYGB" for named in "RYGB"]
    every += ["draw", "take two"]
    for pick in junk:
        if match.over:
            break
        seat, text = pick % 4, every[pick % len(every)]
        before = ochos(match).game.snapshot()
        views = [match.view(s) for s in [None, 0, 1, 2, 3]]
        allowed = text in match.legal_actions(seat)
        try:
            match.apply(seat, match.parse_action(text))
        except ActionError as error:
            assert not allowed and error.code == "illegal-action" and error.rule
            assert ochos(match).game.snapshot() == before
            assert [match.view(s) for s in [None, 0, 1, 2, 3]] == views
        else:
            assert allowed
        if not match.over:
            match.apply(match.current, bots[match.current].choose(match.bot_view(match.current)))


def test_not_your_turn_names_whose_turn_it_is() -> None:
    settings_ = GAME.settings("part1", 3, {})
    match, _ = seeded_match(GAME, settings_, ["rule"] * 3, 3)
    with pytest.raises(ActionError) as refused:
        match.apply((match.current + 1) % 3, match.parse_action("draw"))
    assert refused.value.rule == "not-your-turn"
    assert refused.value.message == f"it is {match.names[match.current]}'s turn, not yours"


def test_who_plays_first_is_dealt_and_recorded() -> None:
    settings_ = GAME.settings("part4", 4, {})
    firsts = {seeded_match(GAME, settings_, ["rule"] * 4, seed)[0].current for seed in range(60)}
    assert firsts == {0, 1, 2, 3}
    match, _ = seeded_match(GAME, settings_, ["rule"] * 4, 1)
    assert match.deal_record().first == match.current
    again = GAME.new_match(settings_, match.names, random.Random(0), match.deal_record())
    assert again.current == match.current and again.view(None) == match.view(None)


def test_views_and_events_show_each_seat_only_its_own_cards() -> None:
    settings_ = GAME.settings("part2", 3, {})
    for seed in range(40):
        match, bots = seeded_match(GAME, settings_, ["rule"] * 3, seed)
        game = ochos(match).game
        assert match.view(None)["hand"] is None
        assert match.event(match.opening[0], None)["data"]["card"] == str(game.top)
        while not match.over:
            seat = match.current
            for viewer in range(3):
                view = match.view(viewer)
                assert sorted(view["hand"]) == sorted(str(card) for card in game.hand(viewer))
                assert view["sizes"] == list(game.hand_sizes()) and view["stock"] == game.stock_size
                assert view["pile"][-1] == view["top"] == str(game.top)
            step = match.apply(seat, bots[seat].choose(match.bot_view(seat)))
            if step.outcome:
                took = list(step.outcome)
                mine = match.event(step.events[0], seat)
                assert mine["data"]["cards"] == took
                for other in [None, *(s for s in range(3) if s != seat)]:
                    theirs = match.event(step.events[0], other)
                    assert "cards" not in theirs["data"] and theirs["data"]["count"] == len(took)
                    assert not set(took) & set(theirs["text"].split())
                return
    pytest.fail("nobody drew in 40 games")


def test_taking_two_when_one_card_is_left_says_the_last_card() -> None:
    match, _ = seeded_match(GAME, GAME.settings("part2", 3, {}), ["rule"] * 3, 1)
    two = match.event(Took(0, (Card.parse("B6"), Card.parse("R1")), True), 0)["text"]
    one = match.event(Took(0, (Card.parse("B6"),), True), 0)["text"]
    assert (two, one) == ("you take two: B6 R1", "you take the last card: B6")  # not "take two: B6"
    # Nothing left to take: the 2 is still answered, and said so (not "nothing to draw", a play-test)
    assert match.event(Took(0, (), True), 0)["text"] == "you have nothing to take for the 2 and pass"
    assert match.event(Took(0, (), True), 1)["text"].endswith(" has nothing to take for the 2 and passes")
    assert match.event(Took(0, (), False), 1)["text"].endswith(" has nothing to draw and passes")


async def test_the_real_client_plays_ochos_locos_through_its_own_ui(monkeypatch: Any) -> None:
    """End to end over TCP: ``new ochos-locos 3 rule rule``, then a person's move, typed as text."""
    import itertools

    import trio
    from test_client_resume import Screen

    from client import app
    from server.host import Host
    from server.net import NottyServer

    tokens = (f"token{n:035d}" for n in itertools.count())
    host = Host(new_rng=lambda: random.Random(5), new_token=lambda: next(tokens))
    played: list[str] = []

    async def typed(terminal: Any, send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            await send.send("new ochos-locos 3 rule rule")
            with trio.fail_after(10):
                while not host.tables or next(iter(host.tables.values())).match is None:
                    await trio.sleep(0.01)
                match = next(iter(host.tables.values())).match
                assert match is not None
                while match.current != 0 and not match.over:
                    await trio.sleep(0.01)
            if not match.over:
                played.append(match.legal_actions(0)[0])
                await send.send(played[0])
                await trio.sleep(0.2)
            for line in ["leave", "quit"]:
                await send.send(line)
            await send.send(None)

    monkeypatch.setattr("client.terminal.read_lines", typed)
    server = NottyServer(host)
    screen = Screen()
    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(server.serve, "127.0.0.1", 0)
        port = listener.socket.getsockname()[1]
        with trio.fail_after(20):
            code = await app.run(("127.0.0.1", port), "ann", screen)
        nursery.cancel_scope.cancel()
    shown = "\n".join(screen.lines)
    assert code == 0, shown
    assert "is turned up" in shown and "you left table 1" in shown, shown
    assert "refused" not in shown and "cannot read" not in shown, shown
    assert played, shown
    if played[0].startswith("play"):
        assert f"you play {played[0].split()[1]}" in shown, shown  # ann's own move, on her screen
    else:
        said = ("you draw", "you take two", "you take the last card", "nothing to draw")
        assert any(words in shown for words in said), shown


def test_a_hint_is_the_experts_legal_move_with_its_reason() -> None:
    """The hint is what the expert bot would play from the seat's own view, said with its figures."""
    settings_ = GAME.settings("part3", 3, {})
    for seed in range(4):
        match, bots = seeded_match(GAME, settings_, ["rule"] * 3, seed)
        while not match.over:
            seat = match.current
            job = match.hint(seat)
            assert job is not None
            answer = job()
            legal = match.legal_actions(seat)
            assert len(answer.actions) == 1 and answer.actions[0] in legal
            assert answer.text.startswith(answer.actions[0] + ": ")
            view = match.bot_view(seat)
            if len(legal) > 1:
                assert "deals played out from here" in answer.text, answer.text
                same = expert_hint(view, match.names, ExpertBot(random.Random(seed)))
                assert same.actions == (match.action_text(ExpertBot(random.Random(seed)).choose(view)),)
            other = match.hint((seat + 1) % 3)
            assert other is not None and other().text == "it is not your turn"
            match.apply(seat, bots[seat].choose(view))


def test_a_hint_to_draw_from_an_empty_draw_pile_says_the_turn_passes() -> None:
    rules = PRESETS["part1"]
    hand, top = (Card.parse("Y5"), Card.parse("R1")), Card.parse("G6")
    for stock, says in [(0, "; the draw pile is empty, so it passes your turn"), (5, "")]:
        view = SeatView(0, rules, hand, top, None, False, (top,), (2, 3, 3), stock, True)
        answer = expert_hint(view, ["ann", "bob", "cy"], ExpertBot(random.Random(0)))
        assert answer.text == f"draw: nothing in your hand matches the top card{says}", answer.text


def test_a_hint_to_draw_after_an_eight_names_the_colour_to_match() -> None:
    """The play-test's position, G8 named R and a hand of Y2 B6, and one where a G6 does match the top
    card's colour yet may not be played."""
    rules, top = PRESETS["part3"], Card.parse("G8")
    for hand in ("Y2 B6", "Y2 G6"):
        cards = tuple(Card.parse(word) for word in hand.split())
        view = SeatView(0, rules, cards, top, "R", False, (top,), (2, 3, 3), 5, True)
        answer = expert_hint(view, ["ann", "bob", "cy"], ExpertBot(random.Random(0)))
        assert answer.text == "draw: nothing in your hand matches the colour named, R, or is an 8", (
            answer.text
        )


@pytest.mark.parametrize("stop", [0, 5, 12, None])
def test_the_store_rebuilds_a_game_and_replays_it(tmp_path: Any, stop: int | None) -> None:
    """Through the server's own record: stored, rebuilt at any point, and replayed for the operator."""
    import io

    from server.journal import GameBegun, GameOver, Moved, SeatRecord
    from server.record import rebuild
    from server.replay import print_game
    from server.store import Store

    store = Store(tmp_path / "notty.db")
    settings_ = GAME.settings("part3", 3, {})
    match, bots = seeded_match(GAME, settings_, ["rule", "random", "rule"], "store")
    deal = match.deal_record()
    seats = tuple(SeatRecord(name, "rule", None) for name in match.names)
    store.write([GameBegun(4, GAME.name, "part3", settings_.options, 0.0, 0, seats, deal.cards, deal.first)])
    moves: list[Moved] = []
    while not match.over and (stop is None or len(moves) < stop):
        seat = match.current
        action = bots[seat].choose(match.bot_view(seat))
        step = match.apply(seat, action)
        moves.append(Moved(4, len(moves) + 1, seat, match.action_text(action), step.outcome))
    store.write(moves)
    if match.over:
        outcome = match.outcome()
        assert outcome is not None
        store.write([GameOver(4, outcome.winner, outcome.reason)])
    saved = store.game(4)
    assert saved is not None
    again = rebuild(saved, random.Random(0))
    assert ochos(again).game.snapshot() == ochos(match).game.snapshot()
    out = io.StringIO()
    print_game(saved, out)
    text = out.getvalue()
    assert text.startswith("game 4: ochos-locos part3") and "is turned up" in text
    assert sum(". turn " in line for line in text.splitlines()) == len(moves)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 6))
def test_a_bot_view_is_a_snapshot_that_later_moves_do_not_change(seed: int, seats: int) -> None:
    """A view works out its sorted hand and legal actions when first asked, perhaps after more moves:
    from the hand it was taken with, so it shows the position it was taken in, and that seat's only."""
    match, bots = seeded_match(GAME, GAME.settings("part4", seats, {}), ["random"] * seats, seed)
    game = ochos(match).game
    while not match.over:
        seat, waiting = match.current, (match.current + 1) % seats
        late, early, off_turn = match.bot_view(seat), match.bot_view(seat), match.bot_view(waiting)
        legal, hand = tuple(game.legal_actions()), tuple(sorted(game.hand(seat), key=lambda card: card.rank))
        assert (early.legal, early.hand) == (legal, hand)
        pile, turns = game.pile, game.public_history
        match.apply(seat, bots[seat].choose(match.bot_view(seat)))
        assert (late.legal, late.hand, late.pile, late.turns) == (legal, hand, pile, turns)
        assert late == early and off_turn.legal == () and off_turn.seat == waiting
        assert off_turn.hand == tuple(sorted(game.hand(waiting), key=lambda card: card.rank))  # unchanged


@pytest.mark.parametrize(
    ("game", "variant", "seats", "says"),
    [
        ("ochos-locos", "part3", 2, "ochos-locos part3 is for 3 players, not 2"),
        ("notty", "classic", 4, "notty classic is for 2 or 3 players, not 4"),
        ("huxxy", "huxxy", 5, "huxxy huxxy is for 2 to 4 players, not 5"),
    ],
)
def test_a_table_of_the_wrong_size_is_refused_in_words(
    game: str, variant: str, seats: int, says: str
) -> None:
    """It said "for 3 to 3 players"."""
    with pytest.raises(SettingsError) as refused:
        GAMES[game].settings(variant, seats, {})
    assert str(refused.value) == says


def test_the_hint_names_the_move_auto_then_makes() -> None:
    """The hint asked a fresh expert and 'auto' played the `rule` bot: a play-tester saw them differ.
    Now 'auto' plays the expert, and the hint asks a twin of that very bot, its random deals included,
    in live play too (the system's source, whose state cannot be copied, seeds a generator of its own)."""
    settings = GAME.settings(None, 3, {})
    rule = GAME.new_bot("rule", settings, random.Random(0))
    compared = 0
    for seed in range(10):
        match = GAME.new_match(settings, ["ann", "bob", "cy"], random.Random(seed))
        auto = GAME.new_bot(GAME.stand_in(settings), settings, random.SystemRandom())
        while not match.over and compared < 8:
            seat = match.current
            view = match.bot_view(seat)
            if seat == 0 and len(view.legal) > 1:
                job = match.hint(0, auto)
                assert job is not None
                said = job().actions
                action = auto.choose(view)
                assert said == (action_text(action),)
                compared += 1
            else:
                action = (auto if seat == 0 else rule).choose(view)
            match.apply(seat, action)
    assert compared == 8
