"""bench/lobby_list.py, tiny: both its settings run, and a change at one table makes the host build the
list again (so the figure measures that) while the list stays the one a fresh build gives."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
lobby_list = importlib.import_module("lobby_list")


def test_a_tiny_run_of_the_lobby_bench_lists_every_table_and_rebuilds_after_a_change() -> None:
    for changed in (False, True):
        before, now, listed = lobby_list.measure(20, 2, 4, changed)
        assert listed == 21 and before > 0 and now > 0  # the 20 waiting, and the one played at
    host = lobby_list._host(5, 2)
    built = host.table_list()
    lobby_list._change(host, [False])
    assert host.table_list() is not built and host.table_list() == host.build_table_list()
