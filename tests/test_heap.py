"""The server's heap: what start-up made is frozen out of the garbage collector's walk before serving."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import trio

from server import cli, heap


def test_settle_loads_every_game_and_the_solver_then_freezes_them() -> None:
    """A fresh interpreter: nothing frozen before, every game and huxxy's solver loaded and frozen after
    (unloaded, they would be made on a bot's first turn and walked by every full collection)."""
    code = (
        "import gc, sys\n"
        "from server import heap\n"
        "before = gc.get_freeze_count()\n"
        "heap.settle()\n"
        "loaded = all(m in sys.modules for m in ('games.notty.game', 'games.ochos_locos.game',"
        " 'games.huxxy.game', 'solver.huxxy'))\n"
        "print(before, gc.get_freeze_count() > 10_000, loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["0", "True", "True"]


class Settled(Exception):
    """Raised by a stand-in for :func:`heap.settle`, to show the server reached it."""


def test_the_server_settles_its_heap_before_serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def settle() -> None:
        raise Settled

    def serve(*args: object) -> None:
        raise AssertionError("the server began serving with its heap unsettled")

    monkeypatch.setattr(heap, "settle", settle)
    monkeypatch.setattr(trio, "run", serve)
    with pytest.raises(Settled):
        cli.main(["--port", "0", "--db", str(tmp_path / "games.db")])
