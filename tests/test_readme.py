"""The README's examples run, and its two commands are the ones the project uses."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
    assert blocks, "README has no Python examples"
    for block in blocks:
        namespace: dict[str, object] = {}
        exec(compile(block, "README.md", "exec"), namespace)


def test_solver_example_output_matches_readme() -> None:
    from protocol import PRESETS, parse_cards
    from solver import best_discard, max_discard

    hand = parse_cards("R6 B6 Y6 G7 G6 G5")
    shown = [" ".join(map(str, group)) for group in best_discard(hand, PRESETS["classic"])]
    assert shown == ["R6 Y6 B6", "G5 G6 G7"]
    assert "[(R6, Y6, B6), (G5, G6, G7)]" in README
    assert max_discard(hand, PRESETS["classic"]) == 6


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in README and "make play" in README
    assert re.search(r"^make test$", ci, flags=re.MULTILINE)
