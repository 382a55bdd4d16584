"""The game record: SQLite storage, exact rebuilds, restoring a host, and the replay command."""

from __future__ import annotations

import io
import itertools
import random
import re
import sqlite3
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import hidden_game
import pytest
import trio
from conftest import notty_table
from hypothesis import given, settings
from hypothesis import strategies as st

from games import GAMES, Match, Step
from games.autoplay import play_match, seeded_match
from games.notty import CLASSIC, FIVE_COLOUR
from games.notty.bots import ExpertBot
from games.notty.engine import Action, Deal, EndTurn, Game, View
from games.notty.game import NottyMatch
from protocol import (
    GAME_ENDED,
    PROTOCOL_VERSION,
    Act,
    Autopilot,
    Error,
    Hello,
    Join,
    Leave,
    PlayForMe,
    Seated,
    State,
    Welcome,
)
from server import cli, net
from server import replay as server_replay
from server.host import Host
from server.journal import GameBegun, GameOver, Moved, SavedGame, SeatLeft, SeatRecord
from server.record import dealt, rebuild, replay_move
from server.replay import print_game, print_games
from server.store import SCHEMA_VERSION, Store, StoreError

TOKENS = [f"token-{n:02d}-" + "x" * 30 for n in range(100)]


def engine(match: Match | None) -> Game:
    """The engine game behind a Notty match."""
    assert isinstance(match, NottyMatch)
    return match.game


def snapshot(game: Game) -> dict[str, Any]:
    """Everything that makes a position: hands, deck contents, whose turn, per-turn state, result."""
    return {
        "view": game.view(),
        "deck": game.deck_contents(),
        "deck_order": list(game._deck),  # same deal + same moves: even the internal order agrees
    }


def new_host(store: Store, seed: int = 0) -> Host:
    tokens = iter(TOKENS)
    return Host(
        new_rng=lambda: random.Random(seed),
        new_token=lambda: next(tokens),
        first_table=store.next_table_id(),
    )


def play(host: Host, store: Store, table: int, rng: random.Random, steps: int) -> None:
    """Random legal moves for the humans (connections 1 and 2 hold seats 0 and 1), journalled."""
    match = host.tables[table].match
    assert match is not None
    for _ in range(steps):
        if match.over:
            return
        action = rng.choice(match.legal_actions(match.current))
        out = host.handle(match.current + 1, Act(action), 0.0)
        assert not any(isinstance(message, Error) for _, message in out), out
        store.write(host.take_journal())


def seat_two(host: Host, store: Store, preset: str = "classic", turn_limit: int = 0) -> int:
    for conn, name in ((1, "ann"), (2, "bob")):
        host.connect(conn)
        host.handle(conn, Hello(PROTOCOL_VERSION, name), 0.0)
    out = host.handle(1, notty_table(preset, 2, turn_limit=turn_limit), 0.0)
    (seated,) = [m for _, m in out if isinstance(m, Seated)]
    host.handle(2, Join(seated.table), 0.0)
    store.write(host.take_journal())
    return seated.table


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "notty.db")


# -- the engine's deal --------------------------------------------------------------------


@pytest.mark.parametrize("rules", [CLASSIC, FIVE_COLOUR], ids=["classic", "five-colour"])
def test_a_recorded_deal_deals_the_same_game(rules: Any) -> None:
    original = Game(rules, ["a", "b", "c"], random.Random(5))
    again = Game(rules, ["a", "b", "c"], random.Random(99), deal=original.deal)
    assert snapshot(again) == snapshot(original)
    assert again.deal == original.deal


def test_a_deal_that_is_not_the_full_deck_is_refused() -> None:
    deal = Game(CLASSIC, ["a", "b"], random.Random(1)).deal
    with pytest.raises(ValueError, match="full deck"):
        Game(CLASSIC, ["a", "b"], random.Random(1), deal=Deal(deal.order[1:], 0))
    with pytest.raises(ValueError, match="full deck"):
        Game(FIVE_COLOUR, ["a", "b"], random.Random(1), deal=deal)
    with pytest.raises(ValueError, match="no seat"):
        Game(CLASSIC, ["a", "b"], random.Random(1), deal=Deal(deal.order, 2))


# -- the database ----------------------------------------------------------------------------


def _moves(store: Store, count: int) -> int:
    """``count`` lone moves, each its own transaction (as the server writes them); the table's id."""
    table = seat_two(new_host(store), store)
    for number in range(1, count + 1):
        store.write([Moved(table, number, 0, "draw 1", ("R1",))])
    return table


@pytest.mark.parametrize("inline", [True, False])
def test_checkpoints_run_inside_writes_only_when_inline(tmp_path: Path, inline: bool) -> None:
    path = tmp_path / "notty.db"
    store = Store(path, checkpoint_inline=inline)
    before = path.stat().st_size
    _moves(store, 1500)  # well past SQLite's 1,000-page checkpoint
    grew = path.stat().st_size > before  # only a checkpoint writes to the database file itself
    assert grew == inline


async def test_a_checkpoint_from_a_worker_thread_moves_the_log_into_the_database(tmp_path: Path) -> None:
    path = tmp_path / "notty.db"
    store = Store(path, checkpoint_inline=False)
    table = _moves(store, 300)
    before = path.stat().st_size
    await trio.to_thread.run_sync(store.checkpoint)
    assert path.stat().st_size > before
    Path(f"{path}-wal").unlink()  # what the log held is in the database file now
    store.close()
    saved = Store(path).game(table)
    assert saved is not None and len(saved.moves) == 300


def test_a_checkpoint_never_creates_a_database_nor_writes_one_put_in_its_place(tmp_path: Path) -> None:
    path, other = tmp_path / "notty.db", tmp_path / "other.db"
    store = Store(path, checkpoint_inline=False)
    for name in ("notty.db", "notty.db-wal", "notty.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)  # deleted under a running server
    store.checkpoint()  # the server's next look (keep_in_place) puts it back
    assert not path.exists()
    Store(other).close()
    other.replace(path)
    replacement = path.read_bytes()
    store.checkpoint()  # one opened by name took the file for ours, and wrote our log into it
    assert path.read_bytes() == replacement and sorted(tmp_path.iterdir()) == [path]


async def test_the_server_checkpoints_its_store_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(net, "CHECKPOINT_SECONDS", 0.01)
    store = Store(tmp_path / "notty.db", checkpoint_inline=False)
    threads: list[str] = []
    monkeypatch.setattr(store, "checkpoint", lambda: threads.append(threading.current_thread().name))
    server = net.NottyServer(new_host(store), store=store)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve, "127.0.0.1", 0)
        with trio.fail_after(5):
            while len(threads) < 3:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert threading.main_thread().name not in threads


def test_a_new_database_gets_the_current_schema_in_wal_mode(tmp_path: Path) -> None:
    Store(tmp_path / "a.db").close()
    db = sqlite3.connect(tmp_path / "a.db")
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    Store(tmp_path / "a.db").close()  # opening again migrates nothing and loses nothing
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def test_a_database_from_a_newer_notty_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION + 1,)


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot use"):
        Store(path)


def test_a_batch_is_stored_whole_or_not_at_all(store: Store) -> None:
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(1), 3)
    before = store.game(table)
    assert before is not None and len(before.moves) == 3
    fresh = Moved(table, 4, 0, "end", ())
    duplicate = Moved(table, 1, 0, "end", ())
    with pytest.raises(sqlite3.IntegrityError):
        store.write([fresh, duplicate])
    assert store.game(table) == before


def test_tokens_are_stored_only_as_hashes(tmp_path: Path) -> None:
    store = Store(tmp_path / "notty.db")
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(2), 5)
    store.close()
    raw = b"".join(path.read_bytes() for path in tmp_path.iterdir())
    assert TOKENS[0].encode() not in raw and TOKENS[1].encode() not in raw
    saved = Store(tmp_path / "notty.db").game(table)
    assert saved is not None and all(len(seat.token_hash or b"") == 32 for seat in saved.begun.seats)


# -- rebuilding --------------------------------------------------------------------------------


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 120),
    preset=st.sampled_from(["classic", "five-colour"]),
)
def test_a_stored_game_rebuilds_exactly_at_any_point(
    tmp_path_factory: pytest.TempPathFactory, seed: int, steps: int, preset: str
) -> None:
    store = Store(tmp_path_factory.mktemp("db") / "notty.db")
    host = new_host(store, seed)
    table = seat_two(host, store, preset)
    play(host, store, table, random.Random(seed), steps)
    live = engine(host.tables[table].match)
    saved = store.game(table)
    assert saved is not None
    assert snapshot(engine(rebuild(saved, random.Random(0)))) == snapshot(live)
    assert (table in {s.begun.table for s in store.unfinished()}) == (not live.over)
    assert (saved.over is not None) == live.over
    full = Counter(live.rules.full_deck())
    assert sum((Counter(hand) for hand in live.hands), Counter()) + live.deck_contents() == full


def test_a_restored_host_holds_the_seats_for_their_tokens(store: Store) -> None:
    host = new_host(store)
    table = seat_two(host, store, turn_limit=500)
    play(host, store, table, random.Random(3), 17)
    live = engine(host.tables[table].match)

    again = new_host(store)
    for saved in store.unfinished():
        again.restore(saved, now=100.0)
    assert snapshot(engine(again.tables[table].match)) == snapshot(live)
    assert again.take_journal() == []  # restoring records nothing new
    again.connect(7)
    out = again.handle(7, Hello(PROTOCOL_VERSION, "ann", TOKENS[0]), 101.0)
    kinds = [type(message) for _, message in out]
    assert Seated in kinds and State in kinds
    state = next(message for _, message in out if isinstance(message, State))
    assert state.to_wire()["view"]["body"]["hands"] == [[str(c) for c in hand] for hand in live.hands]
    # New tables never reuse a recorded game's number.
    again.connect(8)
    again.handle(8, Hello(PROTOCOL_VERSION, "cy"), 0.0)
    out = again.handle(8, notty_table("classic", 2), 0.0)
    (seated,) = [m for _, m in out if isinstance(m, Seated)]
    assert seated.table > table


def bots_play(host: Host, store: Store, moves: int) -> None:
    """The bots' moves, each journalled before the next, as the server runs them."""
    for _ in range(moves):
        jobs = host.bot_jobs()
        if not jobs:
            return
        (job,) = jobs
        host.bot_acted(job, job.bot.choose(job.view), 0.0)
        store.write(host.take_journal())


def expert_against_greedy(host: Host, store: Store) -> int:
    """A table of ``expert`` (seat 0) and ``greedy``, its creator watching so that the bots play."""
    host.connect(1)
    host.handle(1, Hello(PROTOCOL_VERSION, "ann"), 0.0)
    out = host.handle(1, notty_table("classic", 2, ("expert", "greedy"), level="hard", bot_delay_ms=0), 0.0)
    store.write(host.take_journal())
    (state,) = [m for _, m in out if isinstance(m, State)]
    return state.table


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(1, 300))
def test_a_restored_bot_remembers_what_it_saw_and_chooses_as_it_would_have(
    tmp_path_factory: pytest.TempPathFactory, seed: int, moves: int
) -> None:
    store = Store(tmp_path_factory.mktemp("db") / "notty.db")
    host = new_host(store, seed)
    table = expert_against_greedy(host, store)
    bots_play(host, store, moves)
    live = host.tables[table]
    game = engine(live.match)
    again = new_host(store, seed + 1)
    for saved in store.unfinished():
        again.restore(saved, now=0.0)
    if game.over:
        assert table not in again.tables
        return
    restored = again.tables[table]
    expert, twin = live.bots[0], restored.bots[0]
    assert isinstance(expert, ExpertBot) and isinstance(twin, ExpertBot)
    assert vars(twin.thefts) == vars(expert.thefts)  # how often it was robbed, and the last position it saw
    seat = game.current
    view = game.view(seat)
    assert restored.bots[seat].choose(view) == live.bots[seat].choose(view)


class Recorder:
    """A bot that only notes what it is shown."""

    name = "recorder"

    def __init__(self, log: list[tuple[str, int, View]], seat: int, fails: bool = False) -> None:
        self.log, self.seat, self.fails = log, seat, fails

    def choose(self, view: View) -> Action:
        self.log.append(("choose", self.seat, view))
        if self.fails:
            raise RuntimeError("a bot bug")
        return EndTurn()

    def catch_up(self, view: View) -> None:
        self.log.append(("catch_up", self.seat, view))
        if self.fails:
            raise RuntimeError("a bot bug")


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 60), own=st.sampled_from([(), (0,), (0, 1)]))
def test_a_rebuild_shows_each_seat_the_positions_it_moved_from(
    tmp_path_factory: pytest.TempPathFactory, seed: int, steps: int, own: tuple[int, ...]
) -> None:
    store = Store(tmp_path_factory.mktemp("db") / "notty.db")
    host = new_host(store, seed)
    table = seat_two(host, store)
    play(host, store, table, random.Random(seed), steps)
    saved = store.game(table)
    assert saved is not None
    shown: list[tuple[str, int, View]] = []
    game = rebuild(saved, random.Random(0), {seat: Recorder(shown, seat) for seat in (0, 1)}, own)
    # Every move's position, to the seat that made it: caught up on, except that a bot that made
    # its seat's moves (``own``) chooses again in the turn still under way.
    replay = dealt(saved.begun, random.Random(0))
    expected = []
    for move in saved.moves:
        expected.append((move.seat, replay.bot_view(move.seat)))
        replay_move(replay, move)

    def how(seat: int, view: View) -> str:
        return "choose" if seat in own and view.turn == game.turn and not game.over else "catch_up"

    assert shown == [(how(seat, view), seat, view) for seat, view in expected]


def test_a_restored_stand_in_for_a_human_catches_up_but_never_chooses(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan made from a position its human then moved on from would be stale when it stands in."""
    host = new_host(store)
    table = seat_two(host, store)
    game = engine(host.tables[table].match)
    host.handle(game.current + 1, Act("draw 1"), 0.0)  # a turn under way, played by a person
    store.write(host.take_journal())
    calls: list[str] = []
    monkeypatch.setattr(ExpertBot, "choose", lambda bot, view: calls.append("choose"))
    monkeypatch.setattr(ExpertBot, "catch_up", lambda bot, view: calls.append("catch_up"))
    again = new_host(store)
    (saved,) = store.unfinished()
    again.restore(saved, now=0.0)
    assert calls == ["catch_up"]


def test_a_bot_that_fails_to_catch_up_costs_its_memory_not_the_game(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(6), 9)  # mid-turn or not, both seats have moved
    live = engine(host.tables[table].match)
    assert not live.over
    saved = store.game(table)
    assert saved is not None
    shown: list[tuple[str, int, View]] = []
    failing = {seat: Recorder(shown, seat, fails=True) for seat in (0, 1)}
    assert snapshot(engine(rebuild(saved, random.Random(0), failing, own=(0, 1)))) == snapshot(live)
    assert len(shown) == len(saved.moves)  # every position was still offered
    assert f"table {table}: the bot at seat" in caplog.text


def test_a_seat_left_for_good_stays_with_its_stand_in(store: Store) -> None:
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(4), 4)
    host.handle(2, Leave(), 0.0)
    store.write(host.take_journal())
    again = new_host(store)
    (saved,) = store.unfinished()
    assert saved.left == frozenset({1})
    assert saved.moves and saved.left_after == ((1, len(saved.moves)),)  # left after every move so far
    again.restore(saved, now=0.0)
    seats = again.tables[table].seats
    assert seats[1].stand_in and not seats[0].stand_in
    assert seats[0].dropped_at == 0.0  # the human who did not leave is held for the grace period


def test_where_a_seat_left_survives_a_later_move_written_at_the_same_time(tmp_path: Path) -> None:
    """A leave and the moves after it can be written in one commit, at one time: the record keeps
    the move count, so the replay's "bob leaves" line is not put after those moves."""
    store = Store(tmp_path / "notty.db", clock=lambda: 7.0)  # every write stamped alike
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(4), 4)
    played = store.game(table)
    assert played is not None
    before = len(played.moves)
    host.handle(2, Leave(), 0.0)
    later = [Moved(table, before + n, 0, "end", ()) for n in (1, 2)]
    store.write([*host.take_journal(), *later])
    saved = store.game(table)
    assert saved is not None and len(saved.moves) == before + 2
    assert saved.left_after == ((1, before),)
    store.close()


def test_a_game_given_up_as_a_player_left_lists_no_bot_as_playing_on(store: Store) -> None:
    """'games' said 'bob (left: bot expert-medium played on)' of a game abandoned at once."""
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(4), 2)
    host.handle(2, Leave(), 0.0)
    store.write([*host.take_journal(), GameOver(table, None, "abandoned")])
    listed = io.StringIO()
    print_games(store.games(), listed)
    assert "ann vs bob (left)," in listed.getvalue(), listed.getvalue()


def test_a_leave_recorded_without_its_move_count_is_placed_by_its_time(tmp_path: Path) -> None:
    """Records from before schema 7 hold only when the seat was left."""
    times = iter([1.0, 2.0, 3.0, 4.0, 5.0])
    store = Store(tmp_path / "notty.db", clock=lambda: next(times))
    host = new_host(store)
    table = seat_two(host, store)  # written at 1.0
    store.write([Moved(table, 1, 0, "end", ())])  # 2.0
    store.write([SeatLeft(table, 1)])  # 3.0, as a server before schema 7 wrote it
    store.write([Moved(table, 2, 1, "end", ())])  # 4.0
    saved = store.game(table)
    assert saved is not None and saved.left_after == ((1, 1),)
    store.close()


def test_a_finished_game_is_not_restored_but_can_be_replayed(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = new_host(store)
    table = seat_two(host, store, turn_limit=6)
    live = engine(host.tables[table].match)
    dealt_hands = [tuple(hand) for hand in live.hands]  # as the live game dealt them, not as rebuilt
    play(host, store, table, random.Random(5), 1000)
    game = engine(host.tables[table].match)
    assert game.over
    assert store.unfinished() == []
    saved = store.game(table)
    assert saved is not None and saved.over is not None
    store.close()

    assert cli.main(["games", "--db", str(tmp_path / "notty.db")]) == 0
    listing = capsys.readouterr().out
    assert f"game {table}: classic, ann vs bob" in listing and "no winner (turn limit)" in listing

    assert cli.main(["replay", str(table), "--db", str(tmp_path / "notty.db")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"game {table}: classic, ann vs bob"
    assert lines[1] == "      played with turn_limit 6"  # what is not the game's default
    for line, name, hand in zip(lines[2:4], ("ann", "bob"), dealt_hands, strict=True):
        assert line.split()[:3] == [name, "is", "dealt"]
        assert sorted(line.split()[3:]) == sorted(str(card) for card in hand)
    assert len([line for line in lines if ". turn " in line]) == len(saved.moves)
    assert lines[-2].endswith("the game ended at its turn limit (6 turns) with no winner")
    prefix, held = lines[-1].strip().split(": ", 1)
    assert prefix == "in hand at the end"
    for part, name, hand in zip(held.split(", "), ("ann", "bob"), game.hands, strict=True):
        assert part.split()[0] == name and sorted(part.split()[1:]) == sorted(str(card) for card in hand)


def test_a_replay_says_where_a_person_left_and_which_bot_played_on(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """The header said 'bob (expert-medium)', as if a bot had sat there from the deal, and no line
    said when bob left; 'games' said it."""
    host = new_host(store)
    table = seat_two(host, store, turn_limit=6)
    play(host, store, table, random.Random(5), 1000)
    saved = store.game(table)
    assert saved is not None and len(saved.moves) > 3
    seats = (saved.begun.seats[0], attrs.evolve(saved.begun.seats[1], bot="expert-medium"))
    left = attrs.evolve(
        saved, begun=attrs.evolve(saved.begun, seats=seats), left=frozenset({1}), left_after=((1, 3),)
    )
    print_game(left, sys.stdout)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"game {table}: classic, ann vs bob"
    at = lines.index("      bob leaves: expert-medium plays on")
    assert lines[at - 1].lstrip().startswith("3. turn") and lines[at + 1].lstrip().startswith("4. turn")


def test_a_replay_marks_the_moves_a_bot_made_for_a_person_who_left_or_ran_out_of_time(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """As after a resignation: from bob's leaving on, and for the rest of a turn of ann's that ran
    out of time, the moves are marked as a bot's for that person, as the client marks a move made
    for you; none before, and none of another turn."""
    host = new_host(store)
    table = seat_two(host, store, turn_limit=8)
    play(host, store, table, random.Random(5), 1000)
    saved = store.game(table)
    assert saved is not None
    moves = saved.moves
    # The time ran out after the first of two moves of one turn of ann's.
    at = next(i for i in range(len(moves) - 1) if moves[i].seat == moves[i + 1].seat == 0)
    seats = (saved.begun.seats[0], attrs.evolve(saved.begun.seats[1], bot="expert-medium"))
    changed = attrs.evolve(
        saved,
        begun=attrs.evolve(saved.begun, seats=seats),
        left=frozenset({1}),
        left_after=((1, 3),),
        timed_out=((0, moves[at].number),),
    )
    print_game(changed, sys.stdout)
    numbered = (re.match(r" *(\d+)\. ", line) for line in capsys.readouterr().out.splitlines())
    told = {int(found.group(1)): found.string for found in numbered if found}
    marked = {number for number, line in told.items() if "(bot for " in line}
    bobs = {move.number for move in moves if move.seat == 1 and move.number > 3}
    rest = {move.number for move in itertools.takewhile(lambda move: move.seat == 0, moves[at + 1 :])}
    assert bobs and rest and marked == bobs | rest, (marked, bobs, rest)
    assert all("(bot for bob)" in told[number] for number in bobs)
    assert all("(bot for ann)" in told[number] for number in rest)


def test_a_replay_says_why_a_bot_played_a_persons_move(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay showed the moves of 'auto', of autopilot and of a stand-in for a dropped player as
    the person's own: the record now keeps why a bot made each, and the replay says it."""
    host = new_host(store)
    table = seat_two(host, store)
    match = host.tables[table].match
    assert match is not None
    first = match.current  # asks for 'auto' on this turn; the other seat turns autopilot on
    other = 1 - first
    host.handle(first + 1, PlayForMe(), 0.0)
    bots_play(host, store, 1)  # a move of the turn 'auto' plays
    host.handle(other + 1, Autopilot(True), 0.0)
    store.write(host.take_journal())
    while match.current != other:
        bots_play(host, store, 1)  # the rest of the turn 'auto' plays
    bots_play(host, store, 1)  # one move of autopilot's
    host.handle(other + 1, Autopilot(False), 0.0)
    host.disconnect(first + 1, 0.0)
    host.tick(host.grace + 1)  # past the grace: a bot stands in for the dropped seat
    store.write(host.take_journal())
    rng = random.Random(3)
    for _ in range(60):  # the person at the other seat plays their own turns
        if match.over:
            break
        if match.current == other:
            host.handle(other + 1, Act(rng.choice(match.legal_actions(other))), 0.0)
            store.write(host.take_journal())
        else:
            bots_play(host, store, 1)
    saved = store.game(table)
    assert saved is not None
    made = {move.number: move.by for move in saved.moves}
    seats = {move.number: move.seat for move in saved.moves}
    assert made[1] == "auto" and "autopilot" in made.values() and "away" in made.values()
    assert {by for number, by in made.items() if seats[number] == other} == {"", "autopilot"}
    print_game(saved, sys.stdout)
    numbered = (re.match(r" *(\d+)\. ", line) for line in capsys.readouterr().out.splitlines())
    told = {int(found.group(1)): found.string for found in numbered if found}
    names = ("ann", "bob")
    for number, by in made.items():
        if by:
            assert f"(bot for {names[seats[number]]}: {by})" in told[number], told[number]
        else:
            assert "(bot for" not in told[number], told[number]


def test_a_replay_of_an_unfinished_game_does_not_say_its_server_is_stopped(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """A play-test read "it goes on when the server runs again" of a game its running server was playing."""
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(5), 3)
    saved = store.game(table)
    assert saved is not None and saved.over is None
    print_game(saved, sys.stdout)
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == "(unfinished: under way while its server runs, and resumed when it runs again)"


def test_replay_explains_what_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["replay", "3", "--db", str(tmp_path / "none.db")]) == 1
    assert "no database" in capsys.readouterr().err
    Store(tmp_path / "empty.db").close()
    assert cli.main(["replay", "3", "--db", str(tmp_path / "empty.db")]) == 1
    assert "no game 3" in capsys.readouterr().err
    assert cli.main(["games", "--db", str(tmp_path / "empty.db")]) == 0
    assert "no games recorded yet" in capsys.readouterr().out


def test_a_damaged_record_costs_its_game_not_the_others(store: Store) -> None:
    host = new_host(store)
    first = seat_two(host, store)
    play(host, store, first, random.Random(6), 5)
    begun = store.game(first)
    assert begun is not None
    broken = SavedGame(
        GameBegun(**{**_fields(begun.begun), "table": 99, "deal": begun.begun.deal[1:]}),
        (),
    )
    again = new_host(store)
    with pytest.raises(ValueError):
        again.restore(broken, now=0.0)
    assert 99 not in again.tables
    again.restore(begun, now=0.0)
    assert first in again.tables


def test_a_row_whose_options_are_not_json_costs_its_game_not_the_others(store: Store) -> None:
    host = new_host(store)
    first, second = seat_two(host, store), seat_two(host, store)
    store._db.execute("UPDATE games SET options = '{not json' WHERE id = ?", (first,))
    assert [saved.begun.table for saved in store.unfinished()] == [second]


def test_the_list_of_games_names_a_damaged_row_and_lists_the_others(store: Store) -> None:
    host = new_host(store)
    tables = [seat_two(host, store) for _ in range(4)]
    store._db.execute("UPDATE games SET ranking = '[9,9]', ended_at = 1 WHERE id = ?", (tables[0],))
    store._db.execute("UPDATE games SET started_at = 1e300 WHERE id = ?", (tables[1],))
    store._db.execute("DELETE FROM seats WHERE game = ?", (tables[2],))
    listed = io.StringIO()
    print_games(store.games(), listed)
    lines = listed.getvalue().splitlines()
    assert len(lines) == 4 and f"game {tables[3]}: classic, " in listed.getvalue()
    assert f"game {tables[1]}: its record is damaged" in listed.getvalue()


def _fields(begun: GameBegun) -> dict[str, Any]:
    return attrs.asdict(begun, recurse=False)


def test_a_game_of_bots_nobody_watches_is_abandoned_in_the_record(store: Store) -> None:
    host = new_host(store)
    host.connect(1)
    host.handle(1, Hello(PROTOCOL_VERSION, "cy"), 0.0)
    out = host.handle(1, notty_table("classic", 2, ("greedy", "random")), 0.0)
    (table,) = {message.table for _, message in out if isinstance(message, State)}
    for job in host.bot_jobs():
        host.bot_acted(job, job.bot.choose(job.view), 0.0)
    host.disconnect(1, 1.0)
    store.write(host.take_journal())
    assert table not in host.tables
    assert store.unfinished() == []
    saved = store.game(table)
    assert saved is not None and saved.over is not None and saved.over.reason == "abandoned"
    assert len(saved.moves) == 1


def test_an_older_database_is_migrated_forward_keeping_its_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    store = Store(path)
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(7), 9)
    before = store.game(table)
    store.close()
    from server import store as store_module

    step = "ALTER TABLE games ADD COLUMN note TEXT DEFAULT 'migrated';"
    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, step))
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    again = Store(path)
    assert again.game(table) == before
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION + 1,)
    assert db.execute("SELECT note FROM games").fetchall() == [("migrated",)]


def test_a_game_nobody_comes_back_to_is_abandoned_after_the_limit_and_not_before(store: Store) -> None:
    host = Host(
        new_rng=lambda: random.Random(0), new_token=iter(TOKENS).__next__, abandon_after=100.0, grace=5.0
    )
    table = seat_two(host, store)
    play(host, store, table, random.Random(8), 3)
    host.disconnect(1, 10.0)
    host.tick(11.0)  # bob is still here: nothing starts the clock
    host.disconnect(2, 20.0)
    host.tick(20.0)  # the clock starts: nobody is at the table
    host.tick(119.0)
    assert table in host.tables
    host.connect(3)  # ann comes back in time: the clock stops
    host.handle(3, Hello(PROTOCOL_VERSION, "ann", TOKENS[0]), 119.5)
    host.tick(119.6)
    host.disconnect(3, 130.0)
    host.tick(130.0)
    host.tick(229.0)
    assert table in host.tables
    host.tick(230.5)
    assert table not in host.tables
    store.write(host.take_journal())
    host.stored()  # as the shell tells it
    saved = store.game(table)
    assert saved is not None and saved.over is not None and saved.over.reason == "abandoned"
    assert store.unfinished() == []
    host.connect(4)
    out = host.handle(4, Hello(PROTOCOL_VERSION, "ann", TOKENS[0]), 231.0)
    assert any(isinstance(message, Error) and message.code == "bad-token" for _, message in out)


def test_any_game_is_listed_and_replayed_through_its_seam(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game with hidden hands: the operator's replay shows every holding, and the moves as a
    spectator saw them."""
    game = hidden_game.GAME
    settings = game.settings(None, 3, {"turn_limit": 9})
    match, bots = seeded_match(game, settings, ["random"] * 3, "replay")
    deal = match.deal_record()
    seats = tuple(SeatRecord(name, "random", None) for name in match.names)
    dealt_holdings = match.position_text()
    store.write([GameBegun(5, "hidden", "standard", settings.options, 0.0, 0, seats, deal.cards, deal.first)])
    moves: list[Moved] = []

    def record(_: Match, seat: int, action: Any, step: Step) -> None:
        moves.append(Moved(5, len(moves) + 1, seat, match.action_text(action), step.outcome))

    played = play_match(match, bots, record)
    store.write([*moves, GameOver(5, played.outcome.winner, played.outcome.reason)])

    print_games(store.games(), sys.stdout)
    assert "game 5: hidden standard, random-1 vs random-2 vs random-3, " in capsys.readouterr().out
    saved = store.game(5)
    assert saved is not None
    print_game(saved, sys.stdout, {"hidden": game})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "game 5: hidden standard, random-1 (random) vs random-2 (random) vs random-3 (random)"
    assert lines[1] == "      played with turn_limit 9"
    assert lines[2:5] == [
        f"      {name} is dealt {holding}" for name, holding in zip(match.names, dealt_holdings, strict=True)
    ]
    turns = [line.split(": ", 1)[1] for line in lines if ". turn " in line]
    assert len(turns) == len(moves)
    drawn = [(move.outcome[0], text) for move, text in zip(moves, turns, strict=True) if move.outcome]
    assert drawn and all(text.endswith(f" draws a card: {card}") for card, text in drawn)  # hidden from all
    assert lines[-1] == "      in hand at the end: " + ", ".join(
        f"{name} {holding}" for name, holding in zip(match.names, match.position_text(), strict=True)
    )


@pytest.mark.parametrize(
    ("name", "variant", "players"),
    [
        ("notty", "classic", ["greedy", "random"]),
        ("huxxy", None, ["greedy", "random", "greedy"]),
        ("ochos-locos", "part3", ["rule", "random", "rule"]),
    ],
)
def test_a_replay_shows_the_cards_each_draw_gave(
    name: str, variant: str | None, players: list[str], store: Store
) -> None:
    """huxxy's and Ochos Locos' replay said "bob draws a card", as a spectator is told it, though the
    record holds the card: the operator's replay shows it, as Notty's always has ("draws 1 card: R7").
    Everything else reads as a spectator was told it."""
    game = GAMES[name]
    settings = game.settings(variant, len(players), {})
    match, bots = seeded_match(game, settings, players, "draws")
    deal = match.deal_record()
    seats = tuple(SeatRecord(seat, bot, None) for seat, bot in zip(match.names, players, strict=True))
    store.write(
        [GameBegun(8, name, settings.variant, settings.options, 0.0, 0, seats, deal.cards, deal.first)]
    )
    moves: list[Moved] = []
    told: list[str] = []  # each move as a spectator was told it

    def record(_: Match, seat: int, action: Any, step: Step) -> None:
        moves.append(Moved(8, len(moves) + 1, seat, match.action_text(action), step.outcome))
        told.append("; ".join(match.event(event, None)["text"] for event in step.events))

    play_match(match, bots, record)
    store.write(moves)
    saved = store.game(8)
    assert saved is not None
    out = io.StringIO()
    print_game(saved, out)
    lines = [line.split(": ", 1)[1] for line in out.getvalue().splitlines() if ". turn " in line]
    assert len(lines) == len(moves)
    added = 0
    for move, seen, line in zip(moves, told, lines, strict=True):
        assert Counter(move.outcome) <= Counter(re.findall(r"\w+", line)), line
        if line != seen:  # the cards, after the event that drew them
            added += 1
            cards = ": " + " ".join(move.outcome)
            assert move.outcome and cards in line and line.replace(cards, "", 1) == seen, (line, seen)
    if name == "notty":  # every hand is open: a spectator saw every card
        assert added == 0
    else:
        assert added == sum(1 for move in moves if move.outcome) > 0
    if name == "ochos-locos":
        assert any(re.search(r"takes 2 cards: \w+ \w+", line) for line in lines)


def test_a_game_the_record_left_unended_is_closed_on_restore_not_brought_back(store: Store) -> None:
    host = new_host(store)
    table = seat_two(host, store, turn_limit=6)
    play(host, store, table, random.Random(5), 1000)
    saved = store.game(table)
    assert saved is not None and saved.over is not None
    unended = attrs.evolve(saved, over=None)  # as if the record had lost its end
    again = new_host(store, seed=1)
    again.restore(unended, 0.0)
    assert table not in again.tables  # nobody could play it: it is over
    (ended,) = again.take_journal()
    again.stored()  # as the shell says once it is
    assert isinstance(ended, GameOver) and (ended.table, ended.reason) == (table, saved.over.reason)
    assert again._next_table > table  # its number is still not given to another table
    again.connect(7)  # a player back with the token is told how it ended, as after any game that went
    (gone,) = [
        m for _, m in again.handle(7, Hello(PROTOCOL_VERSION, "ann", TOKENS[0]), 1.0) if isinstance(m, Error)
    ]
    assert (
        gone.code == "bad-token" and f": {GAME_ENDED}" in gone.message and f"(game {table})" in gone.message
    )


def test_a_game_closed_on_restore_whose_end_cannot_be_recorded_is_stopped_not_over(store: Store) -> None:
    """The end a restore finds is recorded by the first write after it: if that fails, the next start
    finds the game unended again, and a token offered meanwhile is kept (game-stopped), not told
    the result to be forgotten."""
    host = new_host(store)
    table = seat_two(host, store, turn_limit=6)
    play(host, store, table, random.Random(5), 1000)
    saved = store.game(table)
    assert saved is not None and saved.over is not None
    again = new_host(store, seed=1)
    again.restore(attrs.evolve(saved, over=None), 0.0)
    again.connect(7)
    assert [type(m) for _, m in again.handle(7, Hello(PROTOCOL_VERSION, "ann", TOKENS[0]), 1.0)] == [Welcome]
    ((_, stopped),) = again.stored({table: "disk I/O error"})  # the shell's word: not recorded
    assert isinstance(stopped, Error) and stopped.code == "game-stopped"


def test_the_record_keeps_how_every_seat_ranked(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    host = new_host(store)
    table = seat_two(host, store, turn_limit=6)
    play(host, store, table, random.Random(5), 1000)
    match = host.tables[table].match
    assert match is not None and match.over
    outcome = match.outcome()
    assert outcome is not None
    saved = store.game(table)
    assert saved is not None and saved.over is not None
    assert saved.over.ranking == outcome.ranking and len({s for place in outcome.ranking for s in place}) == 2
    # A game that ranks every seat is listed by its ranking, not only by a winner.
    seats = tuple(SeatRecord(name, "random", None) for name in ("ann", "bob", "cy"))
    store.write([GameBegun(9, "hidden", "standard", {"turn_limit": 5}, 0.0, 0, seats, hidden_game.DECK, 0)])
    store.write([GameOver(9, 1, "turn-limit", ((1,), (0, 2)))])
    store.write([GameBegun(10, "hidden", "standard", {"turn_limit": 5}, 0.0, 0, seats, hidden_game.DECK, 0)])
    store.write([GameOver(10, 2, "turn-limit", ((2,), (0,), (1,)))])
    print_games(store.games(), sys.stdout)
    listing = capsys.readouterr().out
    assert "game 10: hidden standard, ann vs bob vs cy, " in listing
    assert "turn limit; ranked cy, ann, bob" in listing  # the ending first: not read as bob's
    assert "bob won (turn limit)" in listing  # a winner and the rest: said as before


def test_a_seat_given_up_with_leave_cannot_be_resumed_with_its_token_now_or_after_a_restart(
    store: Store,
) -> None:
    host = new_host(store)
    table = seat_two(host, store)
    play(host, store, table, random.Random(5), 4)
    host.handle(1, Leave(), 1.0)  # ann gives her seat up for good: a bot plays it
    store.write(host.take_journal())
    host.stored()  # as the shell tells it
    host.connect(3)
    out = host.handle(3, Hello(PROTOCOL_VERSION, "ann", TOKENS[0]), 2.0)
    assert [m.code for _, m in out if isinstance(m, Error)] == ["bad-token"]
    restored = new_host(store, seed=1)
    (saved,) = store.unfinished()
    restored.restore(saved, 3.0)
    for conn, token, resumed in ((1, TOKENS[0], False), (2, TOKENS[1], True)):
        restored.connect(conn)
        out = restored.handle(conn, Hello(PROTOCOL_VERSION, "x", token), 4.0)
        assert any(isinstance(m, Seated) for _, m in out) is resumed, out


@pytest.mark.parametrize(
    ("moves", "winner", "reason", "says"),
    [
        (1, 0, "stolen", ", 1 move, ann won (last card stolen)\n"),
        (2, 1, "discard", ", 2 moves, bob won (last cards discarded)\n"),
        (0, 0, "resigned", ", 0 moves, ann won (bob resigned)\n"),
        (9, None, "no-progress", ", 9 moves, no winner (no progress)\n"),
        (9, 1, "went-out", ", 9 moves, bob won (went out)\n"),
        (9, 0, "something-new", ", 9 moves, ann won (something-new)\n"),
    ],
)
def test_the_games_list_says_how_each_ended_in_words(
    moves: int, winner: int | None, reason: str, says: str
) -> None:
    """It said 'ann won (stolen)', as if the win were, and '1 moves'."""
    from server.replay import print_games
    from server.store import GameSummary

    ranking = ((winner,), (1 - winner,)) if winner is not None else ((0, 1),)
    summary = GameSummary(3, "notty", "classic", ("ann", "bob"), moves, 0.0, 60.0, winner, reason, ranking)
    listed = io.StringIO()
    print_games([summary], listed)
    assert listed.getvalue().endswith(says), listed.getvalue()


# -- a record no server wrote: one game refused for what it says, never every game ----------------------


def _two_games(path: Path) -> tuple[int, int]:
    """Two unfinished games of ann and bob in a database at ``path``, a few moves each (the first a draw)."""
    store = Store(path)
    host = new_host(store)
    tables = []
    for _ in range(2):
        table = seat_two(host, store)
        assert host.handle(host.tables[table].match.current + 1, Act("draw 1"), 0.0)  # type: ignore[union-attr]
        store.write(host.take_journal())
        play(host, store, table, random.Random(table), 4)
        tables.append(table)
    store.close()
    return tables[0], tables[1]


@pytest.mark.parametrize(
    ("sql", "why"),
    [  # found by an audit of the record: each crashed the server, stalled a table or broke the lobby
        (
            "UPDATE games SET bot_delay = 'abc' WHERE id = {t}",
            "its bot delay 'abc' is not 0 to 3,600 seconds",
        ),
        (
            "UPDATE games SET bot_delay = 1e300 WHERE id = {t}",
            "its bot delay 1e+300 is not 0 to 3,600 seconds",
        ),
        ("UPDATE games SET turn_seconds = 'x' WHERE id = {t}", "its turn time 'x' is not 0 to 3,600 seconds"),
        ("UPDATE games SET turn_seconds = -5 WHERE id = {t}", "its turn time -5 is not 0 to 3,600 seconds"),
        ("UPDATE games SET started_at = 'x' WHERE id = {t}", "its start time 'x' is not a time"),
        (
            "UPDATE seats SET name = 'x' || char(10) || 'y' WHERE game = {t} AND seat = 0",
            "is not one a player",
        ),
        (
            "UPDATE seats SET seat = 5 WHERE game = {t} AND seat = 1",
            "its seats are numbered [0, 5], not 0 to 1",
        ),
        ("DELETE FROM moves WHERE game = {t} AND number = 2", "its moves are not numbered 1, 2, 3"),
        (
            "UPDATE moves SET number = number + 100 WHERE game = {t} AND number >= 3",
            "its moves are not numbered",
        ),
    ],
)
def test_a_stored_game_no_server_wrote_is_refused_saying_why_and_the_others_are_restored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, sql: str, why: str
) -> None:
    damaged, intact = _two_games(tmp_path / "notty.db")
    with sqlite3.connect(tmp_path / "notty.db") as db:
        db.execute(sql.format(t=damaged))
    store = Store(tmp_path / "notty.db")
    assert [saved.begun.table for saved in store.unfinished()] == [intact]
    (said,) = [r.getMessage() for r in caplog.records if "could not read game" in r.getMessage()]
    assert said.startswith(f"could not read game {damaged}: ") and why in said, said


def test_a_byte_that_is_not_utf8_refuses_its_game_not_the_database(tmp_path: Path) -> None:
    """It stopped the server from starting at all, naming neither the game nor a fix."""
    damaged, named = _two_games(tmp_path / "notty.db")
    with sqlite3.connect(tmp_path / "notty.db") as db:
        db.execute(
            f"UPDATE moves SET action = CAST(X'64726177FF31' AS TEXT) WHERE game = {damaged} AND number = 1"
        )
        db.execute(f"UPDATE seats SET name = CAST(X'616EFF6E' AS TEXT) WHERE game = {named} AND seat = 1")
    store = Store(tmp_path / "notty.db")
    (saved,) = store.unfinished()  # the name 'an\ufffdn' is no player's: that game is refused as it is read
    assert saved.begun.table == damaged and saved.moves[0].action == "draw\ufffd1"
    with pytest.raises(ValueError):  # and 'draw\ufffd1' is no action: the restore refuses this one alone
        rebuild(saved, random.Random(0))
    assert {summary.id for summary in store.games()} == {damaged, named}  # 'games' lists them all


def test_a_draw_recorded_with_no_card_is_refused_not_drawn_afresh(tmp_path: Path) -> None:
    """Replayed with no outcome, the draw took a fresh random card: another game at each restart."""
    damaged, _ = _two_games(tmp_path / "notty.db")
    with sqlite3.connect(tmp_path / "notty.db") as db:
        db.execute(f"UPDATE moves SET outcome = '' WHERE game = {damaged} AND number = 1")
    saved = Store(tmp_path / "notty.db").game(damaged)
    assert saved is not None
    with pytest.raises(ValueError, match="move 1 drew or stole, and its record says nothing of what"):
        rebuild(saved, random.Random(0))


def test_a_stored_number_past_the_protocols_tables_does_not_number_new_tables(tmp_path: Path) -> None:
    """One row numbered 2**31 - 1 made every create_table fail (seated.table out of range)."""
    _two_games(tmp_path / "notty.db")
    with sqlite3.connect(tmp_path / "notty.db") as db:
        db.execute(
            "INSERT INTO games (id, game, variant, options, bot_delay, turn_seconds, deal, first, started_at,"
            " ended_at, reason) VALUES (2147483647, 'notty', 'classic', '{}', 0, 0, '', 0, 0, 1, 'abandoned')"
        )
    assert Store(tmp_path / "notty.db").next_table_id() == 3


def test_a_database_created_through_a_link_to_no_file_yet_is_the_users_alone(tmp_path: Path) -> None:
    """Made by SQLite at the link's target, it was readable by everyone (names and token hashes)."""
    target = tmp_path / "elsewhere" / "target.db"
    target.parent.mkdir()
    link = tmp_path / "link.db"
    link.symlink_to(target)
    Store(link).close()
    assert target.exists() and (target.stat().st_mode & 0o777) == 0o600


def test_a_replay_shows_a_card_drawn_by_a_player_named_like_it() -> None:
    """The card was taken as shown when any word of the spectator's text was the card: a player named
    ``JD`` drawing the card JD read only "JD draws a card"."""

    class Told:  # what _told reads of a match: the names, and each event as a seat is told it
        names = ("JD", "bob")

        def event(self, event: str, seat: int | None) -> dict[str, str]:
            return {"text": f"{event} draws a card" + ("" if seat is None else ": JD")}

    step = Step(events=("JD",), outcome=("JD",))
    assert server_replay._told(Told(), 0, step) == ["JD draws a card: JD"]  # type: ignore[arg-type]
    shown = Step(events=("bob",), outcome=("JD",))
    Told.event = lambda self, event, seat: {"text": f"{event} draws JD"}  # type: ignore[method-assign]
    assert server_replay._told(Told(), 1, shown) == ["bob draws JD"]  # type: ignore[arg-type]


def test_each_record_has_an_id_of_its_own_for_as_long_as_its_file_lasts(tmp_path: Path) -> None:
    first, second = Store(tmp_path / "a.db"), Store(tmp_path / "b.db")
    ids = first.record_id, second.record_id
    assert all(re.fullmatch(r"[0-9a-f]{12}", found) for found in ids) and ids[0] != ids[1]
    first.close()
    second.close()
    assert Store(tmp_path / "a.db").record_id == ids[0]
    assert Store(tmp_path / "a.db", read_only=True).record_id == ids[0]


def test_a_record_id_that_is_not_one_of_ours_is_said_as_damage(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    Store(path).close()
    for change in (
        "DELETE FROM record",
        "INSERT INTO record (id) VALUES ('0123456789ab')",
        "UPDATE record SET id = 'x'",
    ):
        db = sqlite3.connect(path)
        db.execute(change)
        db.commit()
        db.close()
        store = Store(path)
        with pytest.raises(StoreError, match="it is damaged \\(its record id is"):
            _ = store.record_id
        store.close()
        db = sqlite3.connect(path)
        db.executescript("DELETE FROM record; INSERT INTO record (id) VALUES ('abcdefabcdef');")
        db.close()
