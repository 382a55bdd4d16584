"""bench/faults.py, tiny: its check of the record against what players were shown runs, and passes.

It had been failing for every table since the view began to carry the result's game id and bot
seats (its stand-in table had no ``outcome``), so ``make bench`` ended in FAIL with nobody told."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "faults.py"


def test_a_few_kills_leave_every_acknowledged_view_in_the_record(tmp_path: Path) -> None:
    ran = subprocess.run(
        [sys.executable, str(BENCH), "--scenarios", "kill", "--kills", "3", "--kill-tables", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "PASS: 0 mismatch(es) in " in ran.stdout and "FAIL" not in ran.stdout
    assert "the record cannot be replayed" not in ran.stdout
