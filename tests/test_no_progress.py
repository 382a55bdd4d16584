"""No table runs for ever (issue 20): the no-progress rule, and the turn limit a table gets where a
bot plays.

The rule (docs/RULES.md): once ``quiet_rounds`` whole rounds in a row (that many turns of each
player) end with every hand as it began its turn, the game is drawn at once, reason
``no-progress``. A table where a bot plays has a turn limit of 300 unless its creator gave one
(``turn_limit 0`` included); a stand-in for a person at a table with none gives it one.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from conftest import PRESET_IDS, PRESETS, cards, notty_table, position
from hypothesis import given, settings
from hypothesis import strategies as st
from test_host import Net
from test_net import Client, _my_turn

from client import watch
from games import GAMES, Outcome, bot_defaults
from games._ui import TableView
from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, RulesError, rules_from
from games.notty.engine import (
    Discard,
    Draw,
    DrawDiscard,
    EndReason,
    EndTurn,
    Game,
    GameEnded,
    PutBack,
    Steal,
    TurnEnded,
    TurnLimitSet,
)
from games.notty.game import BOT_TURN_LIMIT, NottyMatch
from games.notty.match import seeded_game
from games.notty.ui import UI as NOTTY_UI
from games.notty.wire import view_body
from protocol import Act, CreateTable, Join, Leave, Seated, Start, State, Tables, Watch
from server.host import Host
from server.journal import GameBegun, Moved, OptionsChanged, SavedGame, SeatRecord
from server.limits import Limits
from server.net import NottyServer
from server.record import rebuild
from server.store import MIGRATIONS, Store

presets = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)


def passing_game(rules: Rules, players: int, seed: int = 5) -> Game:
    return Game(rules, [f"p{i}" for i in range(players)], random.Random(seed))


# -- the rule in the engine -------------------------------------------------------------------


def test_both_presets_draw_after_three_quiet_rounds_and_the_field_is_checked() -> None:
    assert CLASSIC.quiet_rounds == 3 and FIVE_COLOUR.quiet_rounds == 3
    assert rules_from("classic", quiet_rounds=0).quiet_rounds == 0
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(RulesError, match="quiet_rounds"):
            CLASSIC.replace(quiet_rounds=bad)


@presets
@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("quiet", [1, 3])
def test_the_game_is_drawn_at_exactly_quiet_rounds_whole_rounds_and_not_a_turn_earlier(
    rules: Rules, players: int, quiet: int
) -> None:
    game = passing_game(rules.replace(quiet_rounds=quiet), players)
    for turn in range(1, quiet * players):
        (ended,) = game.apply(EndTurn())
        assert isinstance(ended, TurnEnded) and not game.over
        assert game.quiet_turns == turn and game.view().quiet_turns == turn
    assert game.apply(EndTurn()) == [GameEnded(None, EndReason.NO_PROGRESS)]
    assert game.over and game.winner is None and game.end_reason is EndReason.NO_PROGRESS
    assert game.turn == quiet * players  # the game ends in the turn that completed the rounds


@presets
def test_quiet_rounds_zero_turns_the_rule_off(rules: Rules) -> None:
    game = passing_game(rules.replace(quiet_rounds=0), 3)
    for _ in range(600):
        game.apply(EndTurn())
    assert not game.over and game.quiet_turns == 600


def test_any_hand_changed_starts_the_count_again() -> None:
    rules = CLASSIC.replace(quiet_rounds=2)  # 4 quiet turns between two players draw the game
    game = position(rules, ["Y7 G9 B1", "R1 R2 R3 B5 B9 Y2"])  # seat 0 to move
    for change in (Draw(1), Steal(0), Discard(tuple(cards("R1 R2 R3")))):
        for _ in range(3):
            game.apply(EndTurn())
        assert game.quiet_turns == 3 and game.current == 1 and not game.over
        game.apply(change)
        # Told as 0 at once: a table line said "no hand changed for 3 of the 4 turns" under a discard.
        assert view_body(game.view(1))["quiet_turns"] == 0 and game.quiet_turns == 3
        game.apply(EndTurn())
        assert game.quiet_turns == 0 and not game.over  # a hand changed: counted from nothing again
    for _ in range(3):
        game.apply(EndTurn())
    assert not game.over
    assert game.apply(EndTurn()) == [GameEnded(None, EndReason.NO_PROGRESS)]


def test_a_turn_that_leaves_every_hand_as_it_began_is_quiet() -> None:
    """Drawing three cards and discarding exactly them, or a draw-and-discard that puts back the
    card it drew, changes no hand: the position is the same, so the turn counts as quiet."""
    game = position(CLASSIC, ["Y7 G9", "B1 B5 B9 Y2"])
    game.apply(Draw(3), outcome=tuple(cards("R4 R5 R6")))
    game.apply(Discard(tuple(cards("R4 R5 R6"))))
    game.apply(EndTurn())
    assert game.quiet_turns == 1
    five = position(FIVE_COLOUR, ["Y7 G9 K1", "B1 B5 B9 Y2"])
    five.apply(DrawDiscard(), outcome=Card.parse("R4"))
    five.apply(PutBack(Card.parse("R4")))
    five.apply(EndTurn())
    assert five.quiet_turns == 1
    kept = position(FIVE_COLOUR, ["Y7 G9 K1", "B1 B5 B9 Y2"])
    kept.apply(DrawDiscard(), outcome=Card.parse("R4"))
    kept.apply(PutBack(Card.parse("K1")))  # a different card back: the hand changed
    kept.apply(EndTurn())
    assert kept.quiet_turns == 0


def test_a_win_in_the_turn_that_would_complete_the_rounds_is_a_win() -> None:
    game = position(CLASSIC.replace(quiet_rounds=1), ["R1 R2 R3", "B1 B5 B9 Y2"], current=1)
    game.apply(EndTurn())
    assert game.quiet_turns == 1
    assert game.apply(Discard(tuple(cards("R1 R2 R3"))))[-1] == GameEnded(0, EndReason.DISCARD)


def test_no_progress_comes_before_the_turn_limit_when_both_end_the_same_turn() -> None:
    game = passing_game(CLASSIC.replace(quiet_rounds=1, turn_limit=2), 2)
    game.apply(EndTurn())
    assert game.apply(EndTurn()) == [GameEnded(None, EndReason.NO_PROGRESS)]


def _recount(hands_at_turn_ends: Sequence[tuple[tuple[Card, ...], ...]]) -> int:
    """An independent count of the quiet turns at the end: turns whose end matches the last's."""
    quiet = 0
    for before, after in itertools.pairwise(hands_at_turn_ends):
        quiet = quiet + 1 if before == after else 0
    return quiet


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    rules=st.sampled_from(PRESETS),
    players=st.sampled_from([2, 3]),
    quiet=st.integers(1, 3),
    pass_often=st.floats(0.3, 0.95),
)
def test_random_play_is_drawn_exactly_when_the_last_rounds_changed_no_hand(
    seed: int, rules: Rules, players: int, quiet: int, pass_often: float
) -> None:
    """Random legal play, passing often: at every turn's end the engine's count is a recount from
    the hands, the game is drawn the moment it reaches quiet × players, and never otherwise; a
    game with a turn limit always ends by one of its rules."""
    rules = rules.replace(quiet_rounds=quiet, turn_limit=150)
    game = passing_game(rules, players, seed)
    rng = random.Random(seed)
    turn_ends = [tuple(map(tuple, game.hands))]  # the hands as each turn began
    while not game.over:
        legal = game.legal_actions()
        if EndTurn() in legal and rng.random() < pass_often:
            action: Any = EndTurn()
        else:
            action = rng.choice(legal)
        events = game.apply(action)
        if isinstance(action, EndTurn) and not any(
            isinstance(e, GameEnded) and e.reason is not EndReason.NO_PROGRESS for e in events
        ):
            turn_ends.append(tuple(map(tuple, game.hands)))
            assert game.quiet_turns == _recount(turn_ends)
            drawn = game.end_reason is EndReason.NO_PROGRESS
            assert drawn == (game.quiet_turns >= quiet * players)
    assert game.end_reason is not None
    if game.end_reason is EndReason.NO_PROGRESS:
        assert game.quiet_turns == quiet * players


# -- the record ---------------------------------------------------------------------------------


def _recorded(match: NottyMatch, table: int = 1) -> GameBegun:
    deal = match.deal_record()
    settings_ = match.settings
    seats = tuple(SeatRecord(name, "greedy", None) for name in match.names)
    return GameBegun(
        table, "notty", settings_.variant, settings_.options, 0, 0, seats, deal.cards, deal.first
    )


def _play_quietly(match: NottyMatch, rng: random.Random, moves: list[Moved], stop: int) -> None:
    """Draw now and then, pass mostly, until ``stop`` moves or the end; every move recorded."""
    while not match.over and len(moves) < stop:
        seat = match.current
        legal = match.legal_actions(seat)
        text = "draw 1" if "draw 1" in legal and rng.random() < 0.15 else "end"
        step = match.apply(seat, match.parse_action(text))
        moves.append(Moved(1, len(moves) + 1, seat, text, step.outcome))


@pytest.mark.parametrize("stop", [5, 11, 1000])
def test_a_rebuilt_game_has_the_same_quiet_count_and_ends_at_the_same_move(stop: int) -> None:
    notty = GAMES["notty"]
    settings_ = notty.settings("classic", 3, {})
    assert settings_.options["quiet_rounds"] == 3
    live = notty.new_match(settings_, ["ann", "bob", "cy"], random.Random(4))
    assert isinstance(live, NottyMatch)
    moves: list[Moved] = []
    _play_quietly(live, random.Random(9), moves, stop)
    rebuilt = rebuild(SavedGame(_recorded(live), tuple(moves)), random.Random(0))
    assert isinstance(rebuilt, NottyMatch)
    assert rebuilt.game.quiet_turns == live.game.quiet_turns
    assert (rebuilt.over, rebuilt.game.end_reason, rebuilt.turn) == (
        live.over,
        live.game.end_reason,
        live.turn,
    )
    if stop == 1000:
        assert live.game.end_reason is EndReason.NO_PROGRESS
        outcome = rebuilt.outcome()
        assert outcome is not None and outcome.reason == "no-progress" and outcome.ranking == ((0, 1, 2),)
        assert outcome.text == "the game is drawn: no hand changed for 3 whole rounds (no progress)"
    else:  # both go on alike: the next passes end them on the same move
        while not live.over:
            for match in (live, rebuilt):
                match.apply(match.current, match.parse_action("end"))
            assert rebuilt.game.quiet_turns == live.game.quiet_turns and rebuilt.over == live.over


def _v2_database(path: Path) -> sqlite3.Connection:
    """A database as notty wrote it before the no-progress rule (schema version 2)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(f"BEGIN; {MIGRATIONS[0]}; {MIGRATIONS[1]}; PRAGMA user_version = 2; COMMIT;")
    return db


def test_a_game_recorded_before_the_rule_replays_without_it(tmp_path: Path) -> None:
    """Ten passes in a row between two players: five whole rounds. Recorded before the rule, the
    game goes on as it did; its options gain quiet_rounds 0."""
    old_rules = CLASSIC.replace(quiet_rounds=0)
    old = Game(old_rules, ["ann", "bob"], random.Random(3))
    for _ in range(10):
        old.apply(EndTurn())
    path = tmp_path / "v2.db"
    db = _v2_database(path)
    db.execute(
        "INSERT INTO games (id, game, variant, options, bot_delay, turn_seconds, deal, first, started_at)"
        " VALUES (1, 'notty', 'classic', '{\"level\":\"hard\",\"turn_limit\":0}', 0, 0, ?, ?, 0)",
        (" ".join(str(card) for card in old.deal.order), old.deal.first),
    )
    db.executemany(
        "INSERT INTO seats (game, seat, name, bot, token_hash) VALUES (1, ?, ?, NULL, NULL)",
        [(0, "ann"), (1, "bob")],
    )
    db.executemany(
        "INSERT INTO moves (game, number, seat, action, outcome, at) VALUES (1, ?, ?, 'end', '', 0)",
        [(number, (old.deal.first + number - 1) % 2) for number in range(1, 11)],
    )
    db.execute(  # another game's record is left as it is
        "INSERT INTO games (id, game, variant, options, bot_delay, turn_seconds, deal, first, started_at)"
        " VALUES (2, 'ochos-locos', 'part4', '{}', 0, 0, '', 0, 0)"
    )
    store = Store(path)
    rows = dict(db.execute("SELECT id, options FROM games"))
    assert rows == {1: '{"level":"hard","quiet_rounds":0,"turn_limit":0}', 2: "{}"}
    saved = store.game(1)
    assert saved is not None and saved.begun.options["quiet_rounds"] == 0
    match = rebuild(saved, random.Random(0))
    assert isinstance(match, NottyMatch)
    assert not match.over and match.turn == 11 and match.game.rules.quiet_rounds == 0
    assert match.game.quiet_turns == 10
    store.close()


def test_a_changed_turn_limit_is_stored_and_the_game_rebuilds_with_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "notty.db")
    notty = GAMES["notty"]
    match = notty.new_match(notty.settings("classic", 2, {}), ["ann", "bob"], random.Random(1))
    assert isinstance(match, NottyMatch)
    begun = _recorded(match, table=7)
    moves = []
    for number in range(1, 4):
        seat = match.current
        step = match.apply(seat, match.parse_action("draw 1"))
        moves.append(Moved(7, 2 * number - 1, seat, "draw 1", step.outcome))
        match.apply(seat, match.parse_action("end"))
        moves.append(Moved(7, 2 * number, seat, "end", ()))
    assert match.turn == 4
    (limit_set,) = match.stand_in_began(1, ())
    assert limit_set == TurnLimitSet(3 + BOT_TURN_LIMIT) and match.settings.options["turn_limit"] == 303
    store.write([begun, *moves, OptionsChanged(7, match.settings.options)])
    saved = store.game(7)
    assert saved is not None and saved.begun.options["turn_limit"] == 303
    rebuilt = rebuild(saved, random.Random(0))
    assert isinstance(rebuilt, NottyMatch)
    assert rebuilt.game.rules.turn_limit == 303 and rebuilt.turn == 4 and rebuilt.settings == match.settings
    store.close()


def test_the_turn_limit_changes_only_from_none_and_never_into_the_past() -> None:
    game = passing_game(CLASSIC.replace(quiet_rounds=0), 2)
    for _ in range(4):
        game.apply(EndTurn())
    with pytest.raises(ValueError):
        game.set_turn_limit(4)  # turn 5 is under way
    assert game.set_turn_limit(5) == [TurnLimitSet(5)]
    with pytest.raises(ValueError):
        game.set_turn_limit(400)  # it has one now
    assert game.apply(EndTurn()) == [GameEnded(None, EndReason.TURN_LIMIT)]


# -- tables: the defaults and what players see ------------------------------------------------


def test_bot_defaults_fill_only_what_was_not_asked() -> None:
    notty = GAMES["notty"]
    assert bot_defaults(notty, {}) == {"turn_limit": BOT_TURN_LIMIT}
    assert bot_defaults(notty, {"turn_limit": 0}) == {"turn_limit": 0}
    assert bot_defaults(notty, {"level": "hard"}) == {"level": "hard", "turn_limit": BOT_TURN_LIMIT}
    assert bot_defaults(GAMES["ochos-locos"], {}) == {}  # its games end: no turn limit to give


def _limit_of(state: State) -> int:
    return int(state.view["body"]["turn_limit"])


def test_tables_where_bots_play_get_a_limit_unless_one_was_asked_for() -> None:
    net = Net()
    ann, bob, cy, dee = (net.client(name) for name in ("ann", "bob", "cy", "dee"))
    ann.send(notty_table("classic", 2, ("greedy",)))
    assert _limit_of(ann.last(State)) == 300 and ann.table.settings.options["turn_limit"] == 300
    bob.send(notty_table("classic", 2, ("greedy",), turn_limit=0))  # never, as asked
    assert _limit_of(bob.last(State)) == 0
    cy.send(notty_table("classic", 2, ("greedy",), turn_limit=50))
    assert _limit_of(cy.last(State)) == 50
    dee.send(notty_table("classic", 2))  # people alone: no limit
    assert dee.table.settings.options["turn_limit"] == 0
    assert dee.last(Tables).tables[0]["options"]["turn_limit"] == 0
    eve = net.client("eve")
    eve.send(notty_table("classic", 3))
    eve.send(Start())  # bots fill the empty seats: they play here
    assert _limit_of(eve.last(State)) == 300
    fay = net.client("fay")
    fay.send(notty_table("classic", 3, turn_limit=0))
    fay.send(Start())
    assert _limit_of(fay.last(State)) == 0


def test_a_creator_of_a_waiting_table_with_a_bot_is_shown_its_limit() -> None:
    net = Net()
    ann = net.client("ann")
    replies = ann.send(notty_table("classic", 3, ("expert",)))
    assert isinstance(replies[0], Seated)
    (listed,) = replies[-1].tables
    assert listed["options"]["turn_limit"] == 300 and not listed["started"]


def _people_table(net: Net, **options: Any) -> tuple[Any, Any, int]:
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty_table("classic", 2, **options))[0].table
    bob.send(Join(table))
    return ann, bob, table


def _play_to_turn(people: Sequence[Any], turn: int) -> None:
    """Draw in every other turn (so no two quiet turns come in a row) until ``turn`` begins."""
    while people[0].view["turn"] < turn:
        mover = next(p for p in people if p.view["current"] == p.view["seat"])
        mover.send(Act("end" if "end" in mover.view["legal"] and mover.view["body"]["drew"] else "draw 1"))
        assert mover.view["result"] is None


def test_a_stand_in_gives_a_table_with_no_limit_one_and_everyone_is_told() -> None:
    net = Net(grace=30)
    ann, bob, table = _people_table(net)
    _play_to_turn([ann, bob], 6)
    net.drop(bob)
    assert net.host.tables[table].settings.options["turn_limit"] == 0  # within the grace: nothing yet
    net.host.take_journal()
    net.tick(31)  # past the grace: a bot plays for bob
    told = ann.last(State)
    (event,) = told.events
    assert event["kind"] == "turn-limit-set" and event["data"] == {"turn_limit": 5 + 300}
    assert "ends with no winner after turn 305" in event["text"]
    assert _limit_of(told) == 305 and told.view["turn"] == 6
    assert net.host.tables[table].settings.options["turn_limit"] == 305
    assert OptionsChanged(table, net.host.tables[table].settings.options) in net.host.take_journal()
    again = net.client("bob2")
    again.send(Watch(table))
    assert _limit_of(again.last(State)) == 305  # anyone arriving sees it too
    net.tick(31)
    assert ann.last(State) is told  # said once


def test_a_seat_given_up_with_leave_gives_the_table_a_limit_too() -> None:
    net = Net()
    ann, bob, _ = _people_table(net)
    bob.send(Leave())
    assert ann.last(State).events[0]["kind"] == "turn-limit-set"
    assert _limit_of(ann.last(State)) == 300


def test_a_table_asked_to_have_no_limit_keeps_none_when_a_bot_stands_in() -> None:
    net = Net(grace=30)
    ann, bob, table = _people_table(net, turn_limit=0)
    net.drop(bob)
    net.tick(31)
    assert net.host.tables[table].settings.options["turn_limit"] == 0
    assert all(
        event["kind"] != "turn-limit-set"
        for message in ann.inbox
        if isinstance(message, State)
        for event in message.events
    )


def test_a_table_asked_to_have_no_limit_keeps_none_after_a_restart_too(tmp_path: Path) -> None:
    """The record keeps which options the creator chose: the stand-in a restart brings back for a
    seat given up must not give the table the limit its creator said no to."""
    net = Net()
    ann, bob, table = _people_table(net, turn_limit=0)
    bob.send(Leave())  # a bot plays bob's seat on: no limit, as asked
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    (saved,) = store.unfinished()
    assert saved.begun.asked is not None and "turn_limit" in saved.begun.asked
    restarted = Net()
    restarted.host.restore(saved, 0.0)
    assert restarted.host.tables[table].settings.options["turn_limit"] == 0
    back = restarted.client("ann", token=ann.last(Seated).token)
    assert back.view["body"]["turn_limit"] == 0
    assert back.last(State).events == ()  # and nothing said is shown as the last move
    # A game recorded before the record kept them: the stand-in gives it a limit, as it did then,
    # and what that says is not shown as the table's last move after the restart either.
    older = Net()
    older.host.restore(attrs.evolve(saved, begun=attrs.evolve(saved.begun, asked=None)), 0.0)
    assert older.host.tables[table].settings.options["turn_limit"] == BOT_TURN_LIMIT  # from turn 1
    assert older.client("ann", token=ann.last(Seated).token).last(State).events == ()


def _heads_up_body(quiet_rounds: int, quiet_turns: int) -> dict[str, Any]:
    """A Notty body on the wire, heads-up, at a table of 300 turns with the no-progress rule."""
    return {
        "hands": [["R1"], ["Y2"]],
        "deck_size": 70,
        **dict.fromkeys(("drew", "stole", "exchanged", "must_put_back"), False),
        "turn_limit": 300,
        "quiet_rounds": quiet_rounds,
        "quiet_turns": quiet_turns,
    }


def test_the_client_shows_the_limit_and_the_end_as_what_it_is() -> None:
    body = _heads_up_body(3, 4)
    read = NOTTY_UI.read_body(body, ["ann", "bob"])
    view = TableView("notty", "classic", ("ann", "bob"), 0, 1, 12, (), None, read)
    header = NOTTY_UI.state_text(3, view, [], colour=False).splitlines()[0]
    assert header == (
        "table 3 · classic · turn 12 of 300 · deck 70 cards · no hand changed for 4 of the 6 turns "
        "(3 whole rounds) that draw the game"
    )
    one = NOTTY_UI.read_body({**body, "quiet_rounds": 1, "quiet_turns": 1}, ["ann", "bob"])
    header = NOTTY_UI.state_text(3, attrs.evolve(view, body=one), [], colour=False).splitlines()[0]
    assert header.endswith(" · no hand changed for 1 of the 2 turns (1 whole round) that draw the game")
    for flag in ("drew", "stole", "exchanged"):  # a hand changed this turn: the count starts again
        changed = NOTTY_UI.read_body({**body, flag: True}, ["ann", "bob"])
        seen = TableView("notty", "classic", ("ann", "bob"), 0, 1, 12, (), None, changed)
        header = NOTTY_UI.state_text(3, seen, [], colour=False).splitlines()[0]
        assert header == "table 3 · classic · turn 12 of 300 · deck 70 cards", flag
    for reason, says in (
        ("no-progress", "the game is drawn: no hand changed for 3 whole rounds (no progress)"),
        ("turn-limit", "the game ended at its turn limit (300 turns) with no winner"),
    ):
        over = TableView(
            "notty", "classic", ("ann", "bob"), 0, 1, 12, (), Outcome(((0, 1),), reason, "x"), read
        )
        shown = NOTTY_UI.state_text(3, over, [], colour=False).splitlines()
        assert shown[-1] == f"game over: {says}; 'leave' returns to the lobby"
        # the count towards a draw stops with the game: "no hand changed for 4 turns" said after its end
        assert shown[0] == "table 3 · classic · turn 12 of 300 · deck 70 cards", reason


def test_one_quiet_round_is_said_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    """A table at 'quiet 1' was drawn "for 1 whole rounds", and the client and notty-watch said so too."""
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(CreateTable("notty", 2, "classic", (), {"quiet_rounds": 1}, bot_delay_ms=0))[0].table
    bob.send(Join(table))
    match: Any = ann.table.match
    for _ in range(2):  # a whole round with no hand changed
        (ann, bob)[match.current].send(Act("end"))
    said = "the game is drawn: no hand changed for 1 whole round (no progress)"
    assert ann.view["result"]["reason"] == "no-progress" and ann.view["result"]["text"] == said
    body = _heads_up_body(1, 0)
    read = NOTTY_UI.read_body(body, ["ann", "bob"])
    over = TableView(
        "notty", "classic", ("ann", "bob"), 0, 1, 2, (), Outcome(((0, 1),), "no-progress", "x"), read
    )
    assert NOTTY_UI.state_text(3, over, [], colour=False).splitlines()[-1] == (
        f"game over: {said}; 'leave' returns to the lobby"
    )
    game, bots = seeded_game(CLASSIC.replace(quiet_rounds=1), ["greedy", "greedy"], 1)
    watch._watch(game, bots, 1, colour=False, delay=0)
    assert (
        ", drawn once no hand changes for 1 whole round, seed 1 " in capsys.readouterr().out.splitlines()[0]
    )


# -- over TCP ---------------------------------------------------------------------------------


@pytest.fixture
async def tcp_port() -> AsyncIterator[int]:
    tokens = (f"token{n:035d}" for n in itertools.count())
    seeds = itertools.count(1)
    host = Host(new_rng=lambda: random.Random(next(seeds)), new_token=lambda: next(tokens), grace=0.3)
    server = NottyServer(host, limits=Limits(rate=1000, burst=1000))
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(server.serve, "127.0.0.1", 0)
        yield listeners[0].socket.getsockname()[1]
        nursery.cancel_scope.cancel()


async def test_over_tcp_a_bot_table_has_300_turns_an_explicit_0_none(tcp_port: int) -> None:
    ann = await Client.connect(tcp_port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0))
    await ann.expect(Seated)
    view = await ann.state_when(_my_turn)
    assert view["body"]["turn_limit"] == 300 and view["body"]["quiet_rounds"] == 3
    bob = await Client.connect(tcp_port, "bob")
    await bob.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0, turn_limit=0))
    await bob.expect(Seated)
    assert (await bob.state_when(_my_turn))["body"]["turn_limit"] == 0
    cy = await Client.connect(tcp_port, "cy")
    await cy.send(notty_table("classic", 3, ("greedy",)))  # waits for a person: the creator is shown it
    await cy.expect(Seated)
    listed = await cy.expect(Tables)
    assert listed.tables[0]["options"]["turn_limit"] == 300


async def test_over_tcp_a_stand_in_sets_a_limit_and_the_table_is_told(tcp_port: int) -> None:
    ann = await Client.connect(tcp_port, "ann")
    await ann.send(notty_table("classic", 2))
    table = (await ann.expect(Seated)).table
    bob = await Client.connect(tcp_port, "bob")
    await bob.send(Join(table))
    await bob.expect(Seated)
    first = await ann.expect(State)
    assert first.view["body"]["turn_limit"] == 0
    await bob.stream.aclose()  # bob's connection goes; after the grace a bot plays for him
    with trio.fail_after(10):
        while True:
            state = await ann.expect(State)
            kinds = [event["kind"] for event in state.events]
            if "turn-limit-set" in kinds:
                break
    (event,) = [event for event in state.events if event["kind"] == "turn-limit-set"]
    assert event["data"]["turn_limit"] == state.view["turn"] - 1 + 300
    assert state.view["body"]["turn_limit"] == event["data"]["turn_limit"]
