"""``notty-server``'s ``--db``: taken before or after ``games`` and ``replay``; and a path that is no
notty database (a directory, a file that is not SQLite, a schema this notty does not know) refused
in one line naming it, by the server and the readers alike, with nothing written or changed.

Real ``notty-server`` processes, as an operator runs them."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import notty_server
from test_startup import SERVE, one_line

from server.cli import main
from server.lock import lock_path
from server.store import SCHEMA_VERSION, Store, StoreError

#: How ``games`` lists, and ``replay`` starts, the one game of conftest's ``recorded``.
LISTED = "game 1: classic, greedy-1 vs random-2"
REPLAYED = "game 1: classic, greedy-1 (greedy) vs random-2 (random)"


@pytest.fixture
def elsewhere(tmp_path: Path) -> dict[str, str]:
    """An environment whose default database is missing: a command that fell back to the default
    would say there is no database rather than list the one named."""
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}


# -- 1. --db before or after the command --------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["--db", "{db}", "games"],
        ["--db={db}", "games"],
        ["games", "--db", "{db}"],
        ["--db", "{db}", "replay", "1"],
        ["replay", "--db", "{db}", "1"],
        ["replay", "1", "--db={db}"],
        ["--d", "{db}", "games"],
        ["--d={db}", "replay", "1"],
    ],
    ids=[
        "db-games",
        "db=-games",
        "games-db",
        "db-replay",
        "replay-db-id",
        "replay-id-db",
        "abbreviated",
        "abbreviated=",
    ],
)
def test_db_is_taken_before_or_after_the_record_commands(
    recorded: Path, elsewhere: dict[str, str], command: list[str]
) -> None:
    ran = notty_server(*[word.format(db=recorded) for word in command], env=elsewhere)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout.splitlines()[0].startswith(LISTED if "games" in command else REPLAYED)


def test_a_db_after_the_command_wins_and_one_before_is_not_lost_to_the_commands_default(
    tmp_path: Path, recorded: Path, elsewhere: dict[str, str]
) -> None:
    empty = tmp_path / "empty.db"
    Store(empty).close()
    listed = notty_server("games", "--db", str(recorded), env=elsewhere)
    assert listed.stdout.startswith(LISTED)
    later = notty_server("--db", str(empty), "games", "--db", str(recorded), env=elsewhere)
    assert (later.returncode, later.stdout) == (0, listed.stdout)
    earlier = notty_server("--db", str(recorded), "games", env=elsewhere)
    assert (earlier.returncode, earlier.stdout) == (0, listed.stdout)
    before_only = notty_server("--db", str(empty), "games", env=elsewhere)
    assert (before_only.returncode, before_only.stdout) == (0, "no games recorded yet\n")


def test_the_help_says_where_db_goes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "(both take --db, before or after the command)" in said
    with pytest.raises(SystemExit):
        main(["--db", "x.db", "games", "--help"])
    assert capsys.readouterr().out.startswith("usage: notty-server games [-h] [--db DB]")


# -- 2. a --db that is no notty database ------------------------------------------------------------


def _directory(path: Path) -> str:
    path.mkdir()
    path.chmod(0o755)
    return "it is a directory, not a database file"


def _text(path: Path) -> str:
    path.write_text("these are my notes, not a database\n" * 20)
    return "it is not an SQLite database"


def _schema(version: int) -> Callable[[Path], str]:
    def make(path: Path) -> str:
        db = sqlite3.connect(path)  # rollback journal, as another program or notty to come might leave it
        db.execute("CREATE TABLE future (x)")
        db.execute(f"PRAGMA user_version = {version}")
        db.commit()
        db.close()
        if version > SCHEMA_VERSION:
            return f"has schema version {version}, newer than this notty's {SCHEMA_VERSION}"
        return f"its schema version is {version}, which no notty writes"

    return make


KINDS = {
    "directory": _directory,
    "not-sqlite": _text,
    "newer-schema": _schema(SCHEMA_VERSION + 1),
    "negative-schema": _schema(-1),
}
COMMANDS = {"serve": [*SERVE], "games": ["games"], "replay": ["replay", "1"]}


def _state(path: Path) -> tuple[object, ...]:
    """Everything about ``path`` and its directory that a refusal must leave as it was."""
    info = path.stat()
    content = sorted(p.name for p in path.iterdir()) if path.is_dir() else path.read_bytes()
    return stat.S_IMODE(info.st_mode), content, sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_db_that_is_no_notty_database_is_refused_in_one_line_changing_nothing(
    tmp_path: Path, elsewhere: dict[str, str], kind: str, command: str
) -> None:
    db = tmp_path / "given" / "notty.db"
    db.parent.mkdir()
    says = KINDS[kind](db)
    before = _state(db)
    ran = notty_server(*COMMANDS[command], "--db", str(db), env=elsewhere)
    assert ran.returncode == 1
    assert ran.stdout == ""
    line = one_line(ran.stderr)
    assert str(db) in line and says in line, line
    assert _state(db) == before
    assert not lock_path(db).exists()


@pytest.mark.parametrize("read_only", [False, True], ids=["writer", "reader"])
def test_another_programs_database_is_refused_and_gets_no_notty_tables(
    tmp_path: Path, read_only: bool
) -> None:
    db = tmp_path / "theirs.db"
    theirs = sqlite3.connect(db)
    theirs.execute("CREATE TABLE contacts (name TEXT)")  # user_version 0, as most programs leave it
    theirs.commit()
    theirs.close()
    before = db.read_bytes()
    with pytest.raises(StoreError, match=f"cannot use the database {db}: it is not a notty database"):
        Store(db, read_only=read_only)
    assert db.read_bytes() == before
    tables = sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert tables == [("contacts",)]


def test_the_default_database_lives_in_xdg_data_home_and_a_relative_one_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client ignored a relative XDG_STATE_HOME, as the spec says; the server honoured a
    relative XDG_DATA_HOME, so its record moved with the directory it was started in."""
    from server.store import default_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == tmp_path / "notty" / "notty.db"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".local" / "share" / "notty" / "notty.db"


def test_a_mistyped_command_is_named_with_a_guess_not_twenty_lines_of_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gmaes"]) == 2
    assert capsys.readouterr().err == "notty-server: error: unknown command 'gmaes'; did you mean 'games'?\n"
    assert main(["--db", str(tmp_path / "n.db"), "zzz"]) == 2
    said = capsys.readouterr().err
    assert "unknown command 'zzz'; the commands are games and replay" in said and said.count("\n") == 1
    assert not (tmp_path / "n.db").exists()  # nothing was served, nor made


@pytest.mark.parametrize(
    "command", [("--host", "127.0.0.1", "--port", "0"), ("games",)], ids=["serve", "games"]
)
def test_with_no_home_and_no_db_the_server_asks_for_one_and_makes_nothing(
    homeless: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    command: tuple[str, ...],
) -> None:
    """No HOME, and a user id the password database does not know (a container's): '~' stayed '~',
    and the server kept its record in a folder named '~' in the directory it was started in."""
    from server.store import NO_HOME

    assert main(list(command)) == 1
    assert NO_HOME in capsys.readouterr().err + caplog.text
    assert list(homeless.iterdir()) == []
