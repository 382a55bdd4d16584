"""A Ctrl-C while a console script is still starting ends it quietly, with status 130.

Trio and the games take a quarter of a second to import, and an interrupt then came out as a
traceback: the script pip generates imports the program before anything of ours can catch it.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import NoReturn

import pytest

from server import entry

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
#: Each script's arguments for a run that goes on until it is interrupted (or, for the server, stopped).
ARGS = {
    "notty-server": ("--host", "127.0.0.1", "--port", "0", "--db", "{tmp}/n.db"),
    "notty-client": (),  # against bots on a server of its own, waiting for its script on stdin
    "notty-sim": ("--games", "1000000", "--jobs", "1", "--no-progress"),
    "notty-watch": ("--delay", "10"),
    "notty-ochos": (),  # reading its deal from stdin
}


def test_every_console_script_imports_its_program_once_called() -> None:
    assert set(SCRIPTS) == set(ARGS)
    for script, target in SCRIPTS.items():
        module, _, function = target.partition(":")
        assert module == entry.__name__, script  # the module the generated script imports is tiny
        assert callable(getattr(entry, function)), script


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_an_interrupt_while_the_program_imports_ends_it_with_130(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(name: str) -> NoReturn:
        raise KeyboardInterrupt

    start = getattr(entry, SCRIPTS[script].partition(":")[2])
    monkeypatch.setattr(importlib, "import_module", interrupted)
    assert start() == 130
    assert capsys.readouterr() == ("", "")


class _Program:
    """A program whose main raises ``raised``, as if imported."""

    def __init__(self, raised: BaseException) -> None:
        self.raised = raised

    def main(self) -> NoReturn:
        raise self.raised


def test_an_exit_raised_beside_an_interrupt_ends_the_program_as_that_exit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Trio's tasks raise together: a Ctrl-C while the program exits left a group's traceback."""
    both = BaseExceptionGroup("tasks", [KeyboardInterrupt(), BaseExceptionGroup("inner", [SystemExit(3)])])
    monkeypatch.setattr(importlib, "import_module", lambda name: _Program(both))
    with pytest.raises(SystemExit) as ended:
        entry.server()
    assert ended.value.code == 3 and not isinstance(ended.value, BaseExceptionGroup)


def test_an_error_raised_beside_an_interrupt_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    both = BaseExceptionGroup("tasks", [KeyboardInterrupt(), SystemExit(3), ValueError("a bug")])
    monkeypatch.setattr(importlib, "import_module", lambda name: _Program(both))
    with pytest.raises(BaseExceptionGroup) as raised:
        entry.server()
    assert {type(error) for error in raised.value.exceptions} == {SystemExit, ValueError}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_ctrl_c_just_after_a_script_starts_prints_no_traceback(script: str, tmp_path: Path) -> None:
    """As the generated script runs it, from its first import; the interrupt at several moments, from
    within the imports to a program under way."""
    module, _, function = SCRIPTS[script].partition(":")
    code = f"import sys; print('ready', flush=True); from {module} import {function}; sys.exit({function}())"
    args = [arg.format(tmp=tmp_path) for arg in ARGS[script]]
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "dumb"}
    for delay in (0.05, 0.15, 0.4):
        with subprocess.Popen(
            [sys.executable, "-c", code, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            preexec_fn=_interruptible,
        ) as process:
            assert process.stdout is not None
            assert process.stdout.readline() == "ready\n"
            time.sleep(delay)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=30)
        assert "Traceback" not in err, (delay, err)
        stopped = script == "notty-server" and process.returncode == 0  # told to stop, it stopped
        assert process.returncode == 130 or stopped, (delay, process.returncode, err)


def _interruptible() -> None:
    """Ctrl-C as a terminal delivers it, even under a runner that started the tests ignoring SIGINT
    (which children inherit, and then Python installs no handler of its own)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
