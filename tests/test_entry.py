"""A Ctrl-C while a console script is still starting ends it quietly, with status 130.

Trio and the games take a quarter of a second to import, and an interrupt then came out as a
traceback: the script pip generates imports the program before anything of ours can catch it.
"""

from __future__ import annotations

import codecs
import importlib
import os
import shlex
import signal
import subprocess
import sys
import time
import tomllib
import weakref
from pathlib import Path
from typing import NoReturn

import pexpect
import pytest

from client.output import OUTPUT_ERRORS, spelled_in_ascii
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


def test_what_a_terminal_cannot_encode_is_spelled_in_ascii() -> None:
    codecs.register_error(OUTPUT_ERRORS, spelled_in_ascii)
    text = "table 1 · Zoë … ─ 李"
    assert text.encode("ascii", OUTPUT_ERRORS) == b"table 1 - Zoe ... - ?"
    assert text.encode("latin-1", OUTPUT_ERRORS) == "table 1 · Zoë ... - ?".encode("latin-1")
    with pytest.raises(UnicodeDecodeError):  # reading is not its business
        b"\xff".decode("ascii", OUTPUT_ERRORS)


#: A short run of each script that ends by itself (the client: its script is the empty input).
SHORT_RUNS = {
    "notty-sim": ("--games", "2", "--jobs", "1", "--no-progress"),
    "notty-server": ("--help",),
    "notty-client": ("--name", "ann"),  # against bots on a server of its own
    "notty-watch": ("--delay", "0"),  # a whole game of two bots
    "notty-ochos": ("--help",),  # (its deal comes on stdin)
}


@pytest.mark.parametrize("closed", ["<&-", ">&-", "2>&-", "<&- >&- 2>&-"])
@pytest.mark.parametrize("script", sorted(SHORT_RUNS))
def test_a_script_started_without_a_standard_stream_runs_without_it(
    script: str, closed: str, tmp_path: Path
) -> None:
    """Python makes a stream closed at the start None: the client ended with a traceback at
    ``sys.stdout.isatty()`` (as started by a launcher that gives it no output)."""
    program = [
        str(Path(sys.executable).parent / script),
        *(arg.format(tmp=tmp_path) for arg in SHORT_RUNS[script]),
    ]
    ran = subprocess.run(
        ["sh", "-c", f"exec {shlex.join(program)} {closed}"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    assert (ran.returncode, ran.stderr) == (0, ""), ran.stdout
    if ">&-" not in closed:
        assert ran.stdout  # it said what it says


@pytest.mark.parametrize("script", ["notty-sim", "notty-watch", "notty-client"])
def test_a_script_whose_output_cannot_be_written_says_so_in_one_line(script: str, tmp_path: Path) -> None:
    """``notty-sim >/dev/full`` ended with an OSError's traceback."""
    program = [
        str(Path(sys.executable).parent / script),
        *(arg.format(tmp=tmp_path) for arg in SHORT_RUNS[script]),
    ]
    with open("/dev/full", "w") as full:
        ran = subprocess.run(
            program,
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        )
    said = f"{script}: could not write its output (No space left on device): it stopped\n"
    assert (ran.returncode, ran.stderr) == (1, said)


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


def test_an_interrupt_the_import_machinery_would_swallow_still_ends_the_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Ctrl-C that lands in code Python runs from a weakref callback while it imports (importlib's
    module locks have them) was printed as "Exception ignored" with a traceback, and then dropped:
    the program started as if nothing had been typed."""
    started: list[str] = []

    class Program:
        @staticmethod
        def main() -> int:
            started.append("main")
            return 0

    def importing(name: str) -> type[Program]:
        class Lock:
            pass

        lock = Lock()
        _callback = weakref.ref(lock, lambda _: signal.raise_signal(signal.SIGINT))
        del lock  # the callback runs, and the interrupt lands in it
        return Program

    monkeypatch.setattr(importlib, "import_module", importing)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, as a script has
    try:
        assert entry.client() == 130
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # for Trio to take over
    finally:
        signal.signal(signal.SIGINT, previous)
    assert started == []


def test_a_second_interrupt_while_the_program_imports_is_not_held_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first is noted, to act on once the import is done; a second stops an import that hangs."""

    def importing(name: str) -> NoReturn:
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGINT)
        raise AssertionError("the import went on after a second interrupt")

    monkeypatch.setattr(importlib, "import_module", importing)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert entry.server() == 130
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("script", ["notty-client", "notty-server"])
def test_ctrl_c_at_a_terminal_while_the_program_starts_ends_it_quietly(script: str, tmp_path: Path) -> None:
    """Ctrl-C typed at a terminal, at many moments while the program is imported and starts: never a
    traceback, never "Exception ignored", and never a program that goes on (the client used to, now
    and then, when the interrupt was dropped). Python's own start-up, before any line of the project
    runs, is not tried: an interrupt there is Python's to report."""
    module, _, function = SCRIPTS[script].partition(":")
    code = f"import sys; print('ready', flush=True); from {module} import {function}; sys.exit({function}())"
    plain = ["--plain"] if script == "notty-client" else []  # line mode: its own start, not curses's
    args = [arg.format(tmp=tmp_path) for arg in ARGS[script]] + plain
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path), "TERM": "xterm"}
    for delay in (0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.14, 0.2, 0.3):
        child = pexpect.spawn(sys.executable, ["-c", code, *args], env=env, encoding="utf-8", timeout=15)
        child.expect("ready")
        time.sleep(delay)
        child.sendintr()
        child.expect(pexpect.EOF)  # a program that went on would time out here
        child.close()
        said = child.before
        assert "Traceback" not in said and "Exception ignored" not in said, (delay, said)
        stopped = script == "notty-server" and child.exitstatus == 0  # told to stop, it stopped
        assert child.exitstatus == 130 or stopped, (delay, child.exitstatus, child.signalstatus, said)
