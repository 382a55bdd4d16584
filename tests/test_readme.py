"""The README's examples run, and its two commands are the ones the project uses."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS: dict[str, list[str]] = PYPROJECT["project"]["optional-dependencies"]

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def test_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
    assert blocks, "README has no Python examples"
    for block in blocks:
        namespace: dict[str, object] = {}
        exec(compile(block, "README.md", "exec"), namespace)


def test_solver_example_output_matches_readme() -> None:
    from games.notty import PRESETS, parse_cards
    from solver import best_discard, max_discard

    hand = parse_cards("R6 B6 Y6 G7 G6 G5")
    shown = [" ".join(map(str, group)) for group in best_discard(hand, PRESETS["classic"])]
    assert shown == ["R6 Y6 B6", "G5 G6 G7"]
    assert "[(R6, Y6, B6), (G5, G6, G7)]" in README
    assert max_discard(hand, PRESETS["classic"]) == 6


def test_readme_names_each_games_own_stand_in_bot() -> None:
    """The README said the ``expert`` fills empty seats and stands in, in every game; huxxy's is
    ``greedy`` and Ochos Locos's ``rule`` (each game's ``stand_in``)."""
    from games import GAMES

    said = re.search(r"The bot that fills empty seats on `start`.*?\.\n", README, flags=re.DOTALL)
    assert said, "README no longer says which bot stands in"
    text = " ".join(said.group(0).split())
    for game in GAMES.values():
        variant = next(iter(game.variants.values()))
        bot = game.stand_in(game.settings(variant.name, variant.min_players, {}))
        named = re.search(rf"\b{re.escape(game.title)}\b[^;]*?`([\w-]+)`", text)
        assert named and named.group(1) == bot, (game.title, bot, text)


def test_readme_links_stay_inside_the_project() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert local, "README links to no document of its own"
    for link in local:
        target = (ROOT / link).resolve()
        assert target.is_relative_to(ROOT), f"README links outside the project: {link}"
        assert target.exists(), f"README links to a missing file: {link}"


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^make play$", README, flags=re.MULTILINE)
    assert re.search(r"^make test$", README, flags=re.MULTILINE)
    assert re.search(r"^make test$", ci, flags=re.MULTILINE)


def _dry_run(target: str) -> list[str]:
    """What ``make <target>`` runs from scratch (a new venv included), without running any of it."""
    result = subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", target],
        cwd=ROOT,
        env={**os.environ, "MAKEFLAGS": ""},  # not a parent make's flags (make test runs this)
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.splitlines()


def _installs(commands: list[str]) -> list[str]:
    """What each ``pip install`` of the project installs: ``.``, ``.[test]``..."""
    found = []
    for command in commands:
        if re.search(r"\bpip install\b", command) and "--upgrade pip" not in command:
            project = re.search(r"-e\s+'?(\.[^'\s]*)'?", command)
            assert project, f"a pip install that does not install the project: {command}"
            found.append(project.group(1))
    return found


@needs_make
def test_the_readme_commands_do_what_it_says() -> None:
    play = _dry_run("play")
    assert play[-1] == ".venv/bin/notty-client", play  # then plays
    test = _dry_run("test")
    checks = [
        ".venv/bin/ruff check .",
        ".venv/bin/ruff format --check .",
        ".venv/bin/mypy",
        ".venv/bin/pytest --numprocesses auto",
    ]
    assert test[-4:] == checks, test  # every check, the tests on every core


@needs_make
def test_each_command_installs_only_the_extras_it_needs() -> None:
    assert _installs(_dry_run("play")) == ["."]  # the runtime only: no test or bench extra
    for target in ("sim", "watch", "server"):
        assert _installs(_dry_run(target)) == ["."], target
    assert _installs(_dry_run("test")) == [".[test]"]
    assert _installs(_dry_run("bench")) == [".[bench]"]
    assert _installs(_dry_run("ladder")) == [".[bench]"]


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower() for requirement in requirements}


def test_the_runtime_dependencies_hold_nothing_only_tests_or_benchmarks_need() -> None:
    runtime = _names(PYPROJECT["project"]["dependencies"])
    for extra in ("test", "bench"):
        assert not runtime & _names(EXTRAS[extra]), extra
    assert {"scipy", "numpy"} <= _names(EXTRAS["bench"])
    assert {"mypy", "ruff", "hypothesis", "pytest"} <= _names(EXTRAS["test"])


@needs_make
def test_switching_commands_installs_what_is_missing_and_again_after_a_change(tmp_path: Path) -> None:
    """Run the Makefile for real against a stand-in venv whose programs only log how they were called."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for source in ("setup.py", "solver/notty/_native.c"):  # the solver's C extension: a change rebuilds it
        (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / source, tmp_path / source)
    log = tmp_path / "calls.log"
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for program in ("python", "notty-client", "notty-sim", "notty-watch", "notty-server", "ruff", "mypy",
                    "pytest"):  # fmt: skip
        path = bin_dir / program
        path.write_text(f'#!/bin/sh\necho "{program} $*" >> "{log}"\n', encoding="ascii")
        path.chmod(0o755)

    def make(target: str) -> list[str]:
        log.write_text("")
        env = {**os.environ, "MAKEFLAGS": ""}
        subprocess.run(["make", "-s", target], cwd=tmp_path, env=env, capture_output=True, check=True)
        return [line for line in log.read_text().splitlines() if " pip install " in line]

    assert make("play") == ["python -m pip install --quiet -e ."]
    assert make("play") == []
    assert make("test") == ["python -m pip install --quiet -e .[test]"]
    assert make("test") == []
    assert make("play") == []  # the test install holds the runtime
    assert make("bench") == ["python -m pip install --quiet -e .[bench]"]
    assert make("ladder") == [] and make("test") == [] and make("play") == []
    with open(tmp_path / "pyproject.toml", "a", encoding="utf-8") as pyproject:
        pyproject.write("\n# changed\n")
    assert make("play") == ["python -m pip install --quiet -e ."]
    assert make("test") == ["python -m pip install --quiet -e .[test]"]
    assert make("play") == []
    assert make("ladder") == ["python -m pip install --quiet -e .[bench]"]
    native = tmp_path / "solver/notty/_native.c"
    os.utime(native, (native.stat().st_mtime + 10,) * 2)
    assert make("play") == ["python -m pip install --quiet -e ."]
    assert make("test") == ["python -m pip install --quiet -e .[test]"]
    stamps = sorted(path.name.rsplit("-", 1) for path in (tmp_path / ".venv").glob(".installed-*"))
    assert [kind for kind, _ in stamps] == [".installed-bench", ".installed-runtime", ".installed-test"]
    assert len({checksum for _, checksum in stamps}) == 1, stamps  # the old ones are gone
