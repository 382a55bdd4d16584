"""A database written by the first release (schema version 1, Notty only) migrates on open, and
its games come back exactly: rebuilt through the game seam, and restored by a host.

The first release's schema and its writes are kept here as it shipped them, so
these tests hold whatever later migrations do to :data:`server.store.MIGRATIONS`.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from conftest import snapshot
from hypothesis import given, settings
from hypothesis import strategies as st

from games import GAMES, Settings
from games.notty import TABLE_FIELDS, Card, rules_from
from games.notty.bots import Bot, ExpertBot, make_bot
from games.notty.engine import Game, outcome_of
from games.notty.game import NottyMatch
from protocol import PROTOCOL_VERSION, Hello, Seated, State
from server.host import Host
from server.journal import GameBegun, Moved, SeatRecord
from server.record import rebuild
from server.store import MIGRATIONS, SCHEMA_VERSION, Store, StoreError

#: The schema of the first release, to the letter: what databases written by it hold.
V1_SCHEMA = """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,          -- the table's number on the server
        preset TEXT NOT NULL,
        turn_limit INTEGER NOT NULL,
        level TEXT NOT NULL,
        bot_delay REAL NOT NULL,
        turn_seconds INTEGER NOT NULL,
        deal TEXT NOT NULL,              -- the shuffled deck, cards separated by spaces
        first INTEGER NOT NULL,
        started_at REAL NOT NULL,        -- seconds since the epoch
        ended_at REAL,                   -- NULL while the game is unfinished
        winner INTEGER,
        reason TEXT
    );
    CREATE TABLE seats (
        game INTEGER NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        bot TEXT,                        -- NULL for a human
        token_hash BLOB,                 -- sha256 of the seat token, never the token
        left_at REAL,                    -- when the human gave the seat up for good
        PRIMARY KEY (game, seat)
    );
    CREATE TABLE moves (
        game INTEGER NOT NULL REFERENCES games(id),
        number INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        outcome TEXT NOT NULL,           -- cards chance gave, separated by spaces; '' if none
        at REAL NOT NULL,
        PRIMARY KEY (game, number)
    );
    CREATE INDEX unfinished_games ON games(id) WHERE ended_at IS NULL;
    """

TOKENS = [f"token-{n:02d}-" + "x" * 30 for n in range(10)]


@attrs.frozen
class OldSeat:
    name: str
    bot: str | None  # as the first release stored it: a plain "expert" already at the table's level
    token: str | None = None
    left: bool = False


@attrs.define
class OldGame:
    """A game as the first release's host played it, with what its store was asked to write."""

    table: int
    game: Game
    level: str
    seats: Sequence[OldSeat]
    moves: list[tuple[int, str, tuple[str, ...]]] = attrs.Factory(list)  # seat, action, outcome

    def play(self, rng: random.Random, steps: int) -> None:
        """Random legal moves, each with the cards chance gave, as the old host recorded them."""
        for _ in range(steps):
            if self.game.over:
                return
            self.move(rng.choice(self.game.legal_actions()))

    def move(self, action: Any) -> None:
        seat = self.game.current
        chance = outcome_of(self.game.apply(action, seat=seat))
        cards = () if chance is None else (chance,) if isinstance(chance, Card) else chance
        self.moves.append((seat, str(action), tuple(str(card) for card in cards)))


def v1_database(path: Path) -> sqlite3.Connection:
    """A new database as the first release made one."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(f"BEGIN; {V1_SCHEMA}; PRAGMA user_version = 1; COMMIT;")
    return db


def write_v1(db: sqlite3.Connection, old: OldGame, now: float = 1000.0) -> None:
    """The rows the first release's store wrote for ``old``, statement for statement."""
    game = old.game
    db.execute(
        "INSERT INTO games (id, preset, turn_limit, level, bot_delay, turn_seconds, deal, first,"
        " started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            old.table,
            game.rules.name,
            game.rules.turn_limit,
            old.level,
            0.5,
            30,
            " ".join(str(card) for card in game.deal.order),
            game.deal.first,
            now,
        ),
    )
    db.executemany(
        "INSERT INTO seats (game, seat, name, bot, token_hash) VALUES (?, ?, ?, ?, ?)",
        [(old.table, index, seat.name, seat.bot, _hash(seat.token)) for index, seat in enumerate(old.seats)],
    )
    for number, (seat, action, outcome) in enumerate(old.moves, start=1):
        db.execute(
            "INSERT INTO moves (game, number, seat, action, outcome, at) VALUES (?, ?, ?, ?, ?, ?)",
            (old.table, number, seat, action, " ".join(outcome), now + number),
        )
    for index, seat in enumerate(old.seats):
        if seat.left:
            db.execute(
                "UPDATE seats SET left_at = ? WHERE game = ? AND seat = ?", (now + 1, old.table, index)
            )
    if game.end_reason is not None:
        db.execute(
            "UPDATE games SET ended_at = ?, winner = ?, reason = ? WHERE id = ?",
            (now + 10_000, game.winner, game.end_reason.value, old.table),
        )


def _hash(token: str | None) -> bytes | None:
    return None if token is None else hashlib.sha256(token.encode()).digest()


def humans(*names: str) -> list[OldSeat]:
    return [OldSeat(name, None, TOKENS[index]) for index, name in enumerate(names)]


def old_game(
    table: int, preset: str, seats: Sequence[OldSeat], seed: int, turn_limit: int = 0, level: str = "medium"
) -> OldGame:
    rules = rules_from(preset, turn_limit=turn_limit, quiet_rounds=0)  # before the no-progress rule
    return OldGame(table, Game(rules, [seat.name for seat in seats], random.Random(seed)), level, seats)


def matched(match: Any) -> Game:
    """The engine game a rebuilt Notty match holds."""
    assert isinstance(match, NottyMatch)
    return match.game


# -- the schema --------------------------------------------------------------------------------


def test_the_first_schema_is_never_edited() -> None:
    """Databases out there are at version 1: migration 1 must stay what made them."""
    assert MIGRATIONS[0] == V1_SCHEMA


def test_a_v1_database_migrates_on_open_to_the_game_and_its_options(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    db = v1_database(path)
    one = old_game(1, "classic", humans("ann", "bob"), seed=1, turn_limit=200, level="hard")
    one.play(random.Random(1), 30)
    two = old_game(2, "five-colour", [*humans("cy"), OldSeat("expert-2", "expert-easy")], seed=2)
    for old in (one, two):
        write_v1(db, old)

    store = Store(path)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
    assert "preset" not in columns and "level" not in columns and "turn_limit" not in columns
    assert {"game", "variant", "options"} <= set(columns)
    stored = dict(db.execute("SELECT id, options FROM games").fetchall())
    # Played before the no-progress rule, they keep playing (and replay) without it.
    assert stored == {
        1: '{"level":"hard","quiet_rounds":0,"turn_limit":200}',
        2: '{"level":"medium","quiet_rounds":0,"turn_limit":0}',
    }
    assert all(list(json.loads(text)) == sorted(json.loads(text)) for text in stored.values())

    saved = store.game(1)
    assert saved is not None
    assert saved.begun == GameBegun(
        table=1,
        game="notty",
        variant="classic",
        options={"level": "hard", "quiet_rounds": 0, "turn_limit": 200},
        bot_delay=0.5,
        turn_seconds=30,
        seats=(SeatRecord("ann", None, _hash(TOKENS[0])), SeatRecord("bob", None, _hash(TOKENS[1]))),
        deal=tuple(str(card) for card in one.game.deal.order),
        first=one.game.deal.first,
    )
    assert saved.moves == tuple(
        Moved(1, number, seat, action, outcome) for number, (seat, action, outcome) in enumerate(one.moves, 1)
    )
    options = {"level": "hard", "quiet_rounds": 0, "turn_limit": 200}
    assert saved.begun.settings == Settings("notty", "classic", 2, options)
    listed = {(summary.id, summary.game, summary.variant, summary.names) for summary in store.games()}
    assert listed == {
        (1, "notty", "classic", ("ann", "bob")),
        (2, "notty", "five-colour", ("cy", "expert-2")),
    }
    store.close()
    Store(path).close()  # opening again migrates nothing
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def test_new_games_are_written_beside_the_migrated_ones(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    write_v1(v1_database(path), old_game(4, "classic", humans("ann", "bob"), seed=4))
    store = Store(path)
    assert store.next_table_id() == 5
    begun = GameBegun(5, "notty", "five-colour", {"turn_limit": 9, "level": "easy"}, 0.0, 0, (), ("R1",), 0)
    store.write([begun])
    saved = store.game(5)
    assert saved is not None and saved.begun == begun
    assert list(saved.begun.options) == ["level", "turn_limit"]


@pytest.mark.parametrize("broken", ["SELECT no_such_function();", "ALTER TABLE games DROP COLUMN nope;"])
def test_a_failed_migration_leaves_the_database_at_its_last_good_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    path = tmp_path / "v1.db"
    old = old_game(1, "classic", humans("ann", "bob"), seed=3)
    old.play(random.Random(3), 12)
    write_v1(db := v1_database(path), old)
    before = db.execute("SELECT * FROM games").fetchall()
    from server import store as store_module

    # The real second step, then one that fails: nothing of the second step may stay.
    monkeypatch.setattr(store_module, "MIGRATIONS", (MIGRATIONS[0], MIGRATIONS[1] + broken))
    with pytest.raises(StoreError, match="cannot use the database"):
        Store(path)
    assert db.execute("PRAGMA user_version").fetchone() == (1,)
    assert db.execute("SELECT * FROM games").fetchall() == before  # preset, turn_limit, level as they were
    monkeypatch.undo()
    saved = Store(path).game(1)  # the next start migrates it after all
    assert saved is not None and len(saved.moves) == len(old.moves)


# -- the games ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 150),
    preset=st.sampled_from(["classic", "five-colour"]),
    players=st.sampled_from([2, 3]),
    turn_limit=st.sampled_from([0, 25]),
    level=st.sampled_from(["easy", "medium", "hard"]),
)
def test_an_unfinished_v1_game_rebuilds_through_the_seam_exactly(
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    steps: int,
    preset: str,
    players: int,
    turn_limit: int,
    level: str,
) -> None:
    path = tmp_path_factory.mktemp("db") / "v1.db"
    old = old_game(7, preset, humans(*["ann", "bob", "cy"][:players]), seed, turn_limit, level)
    old.play(random.Random(seed), steps)
    write_v1(v1_database(path), old)

    store = Store(path)
    saved = store.game(7)
    assert saved is not None
    assert (saved.over is None) == (not old.game.over)
    assert [s.begun.table for s in store.unfinished()] == ([] if old.game.over else [7])
    made_now = GAMES["notty"].settings(
        preset, players, {"level": level, "turn_limit": turn_limit, "quiet_rounds": 0}
    )
    # A record of before a table could set its rules (its hand limit...) holds none: the preset's,
    # as rules_for reads it.
    for name in TABLE_FIELDS:
        del made_now.options[name]
    assert saved.begun.settings == made_now
    match = rebuild(saved, random.Random(0))
    rebuilt = matched(match)
    # Hands, deck (its order too), whose turn, the turn's flags, the result, and the rules.
    assert snapshot(rebuilt)[:-1] == snapshot(old.game)[:-1]  # all but the rng, which serves what follows
    assert rebuilt.view() == old.game.view()
    assert (match.current, match.turn, match.over) == (old.game.current, old.game.turn, old.game.over)


def test_a_host_restores_a_v1_game_and_its_players_resume(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    db = v1_database(path)
    seats = [*humans("ann", "bob"), OldSeat("expert-3", "expert-hard")]
    old = old_game(3, "classic", seats, seed=11, turn_limit=400, level="easy")
    old.play(random.Random(11), 40)
    assert not old.game.over
    finished = old_game(2, "classic", humans("dee", "eve"), seed=5, turn_limit=3)
    finished.play(random.Random(5), 1000)
    assert finished.game.over
    write_v1(db, finished)
    write_v1(db, old)

    store = Store(path)
    host = Host(new_rng=lambda: random.Random(0), new_token=iter(TOKENS[5:]).__next__, first_table=4)
    for saved in store.unfinished():
        host.restore(saved, now=0.0)
    assert list(host.tables) == [3]
    table = host.tables[3]
    # (the rules a table may set, options since, filled in as the preset's when the host checks them)
    options = {"level": "easy", "quiet_rounds": 0, "turn_limit": 400, "hand_limit": 20}
    options |= {name: GAMES["notty"].options[name].default for name in TABLE_FIELDS if name != "hand_limit"}
    assert table.settings == Settings("notty", "classic", 3, options)
    assert snapshot(matched(table.match))[:-1] == snapshot(old.game)[:-1]
    # The humans' stand-ins play at the recorded level; the expert seat keeps its own.
    levels = {seat: bot.level for seat, bot in table.bots.items() if isinstance(bot, ExpertBot)}
    assert levels == {0: "easy", 1: "easy", 2: "hard"}
    assert host.take_journal() == []  # restoring records nothing new

    host.connect(1)
    out = host.handle(1, Hello(PROTOCOL_VERSION, "bob", TOKENS[1]), 1.0)
    (seated,) = [message for _, message in out if isinstance(message, Seated)]
    assert (seated.table, seated.seat) == (3, 1)
    (state,) = [message for _, message in out if isinstance(message, State)]
    view = state.to_wire()["view"]
    assert view["turn"] == old.game.turn and view["current"] == old.game.current


def test_a_restored_v1_expert_remembers_what_it_saw(tmp_path: Path) -> None:
    """Bots that played a v1 game catch up on it: the expert knows how often it was robbed."""
    path = tmp_path / "v1.db"
    seats = [OldSeat("expert-hard-1", "expert-hard"), OldSeat("greedy-2", "greedy")]
    old = old_game(1, "classic", seats, seed=21, turn_limit=300)
    live: list[Bot] = [make_bot("expert-hard", random.Random(1)), make_bot("greedy", random.Random(2))]
    while len(old.moves) < 120 and not old.game.over:
        seat = old.game.current
        old.move(live[seat].choose(old.game.view(seat)))
    assert not old.game.over
    write_v1(v1_database(path), old)

    (saved,) = Store(path).unfinished()
    host = Host(new_rng=lambda: random.Random(0), new_token=iter(TOKENS).__next__)
    host.restore(saved, now=0.0)
    twin = host.tables[1].bots[0]
    expert = live[0]
    assert isinstance(twin, ExpertBot) and isinstance(expert, ExpertBot)
    assert vars(twin.thefts) == vars(expert.thefts)
    view = old.game.view(old.game.current)
    assert host.tables[1].bots[old.game.current].choose(view) == live[old.game.current].choose(view)


def test_replay_of_a_v1_game_reads_as_it_did(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from server import cli

    path = tmp_path / "v1.db"
    db = v1_database(path)
    old = old_game(6, "five-colour", [*humans("ann"), OldSeat("greedy-2", "greedy")], seed=6, turn_limit=8)
    old.play(random.Random(6), 1000)
    write_v1(db, old)
    db.close()
    assert cli.main(["games", "--db", str(path)]) == 0
    assert "game 6: five-colour, ann vs greedy-2, " in capsys.readouterr().out
    assert cli.main(["replay", "6", "--db", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "game 6: five-colour, ann vs greedy-2 (greedy)"
    assert len([line for line in lines if ". turn " in line]) == len(old.moves)
    assert lines[-1].strip() == "in hand at the end: " + ", ".join(
        f"{name} {' '.join(str(card) for card in sorted(hand)) or 'nothing'}"
        for name, hand in zip(old.game.names, old.game.hands, strict=True)
    )


def test_a_saved_game_from_an_unknown_game_is_refused_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from server import cli

    store = Store(tmp_path / "notty.db")
    store.write([GameBegun(1, "chess", "standard", {}, 0.0, 0, (SeatRecord("ann", None, None),), (), 0)])
    store.close()
    assert cli.main(["replay", "1", "--db", str(tmp_path / "notty.db")]) == 1
    assert "game 1 cannot be replayed: it is a game of chess, which this server does not host" in (
        capsys.readouterr().err
    )
