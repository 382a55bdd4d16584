"""bench/ochos_expert.py: every seat plays the same deal, and a tiny run reports and judges its figures."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
bench = importlib.import_module("ochos_expert")


def test_a_deal_is_the_same_from_every_seat_and_only_the_expert_moves() -> None:
    """Playing deal 3 with the expert in each seat: the rule seats' results differ only through it."""
    results = [bench.play("part3", 3, 3, seat, 19, 10) for seat in range(3)]
    assert all(won == (winner == seat) for seat, (winner, won, _) in enumerate(results))
    assert all(all(t >= 0 for t in times) for _, _, times in results)
    # The same deal for the same seat plays the same game: it is fixed by the seed alone.
    assert bench.play("part3", 3, 3, 1, 19, 10)[:2] == results[1][:2]


def test_a_tiny_run_prints_its_figures_and_a_verdict(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["ochos_expert.py", "--deals", "2", "--heads-up-deals", "2", "--worlds", "8", "--jobs", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    status = bench.main()
    out = capsys.readouterr().out
    assert "machine:" in out and "3 players, part 3" in out and "heads-up, part 4" in out
    assert "6 games" in out and "4 games" in out
    verdicts = [line.strip() for line in out.splitlines() if line.strip().startswith(("PASS", "FAIL"))]
    assert len(verdicts) == 2
    assert status == (0 if all(v.startswith("PASS") for v in verdicts) else 1)


def test_the_limits_run_reports_each_way_of_knowing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["ochos_expert.py", "--limits", "2", "--worlds", "8", "--jobs", "1"])
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert "as it ships" in out and "told the other hands" in out and "reading nothing" in out
