"""The solver's two implementations: the C extension (solver/notty/_native.c) and the pure-Python code.

Each public answer is checked in both against the brute-force oracles of test_solver.py and
test_chance.py, and the two against each other: the same maximum, the very same groups from
``best_discard``, the same finishing draws and the same chances, to the bit.
The compiled half is skipped (saying so) where the extension was not built.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_chance import TINY, deals, oracle
from test_solver import any_hand, best_of, check_groups, custom_hands, hands

from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, parse_cards, rules_from
from solver import (
    Flat,
    best_discard,
    bounded_chance,
    chance_flat,
    finishing_draws,
    flatten,
    max_discard,
    outs,
)
from solver.notty import _api, _chance, _impl

NATIVE = _impl.native
needs_native = pytest.mark.skipif(
    NATIVE is None, reason="the C extension is not built (or NOTTY_PURE_PYTHON is set)"
)
ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def implementation(native: bool) -> Iterator[None]:
    """Answer with the C extension or with Python, from empty per-hand caches."""
    saved = _api._native, _chance._native
    module = NATIVE if native else None
    _api._native = _chance._native = module
    _api.clear_caches()
    _chance._finishers.cache_clear()
    try:
        yield
    finally:
        _api._native, _chance._native = saved
        _api.clear_caches()
        _chance._finishers.cache_clear()


def both(call):  # type: ignore[no-untyped-def]
    """``call()`` answered by Python, then by the extension (when built)."""
    with implementation(False):
        python = call()
    if NATIVE is None:
        return python, python
    with implementation(True):
        return python, call()


# --------------------------------------------------------------------------- the discard solver


@settings(max_examples=400, deadline=None)
@given(st.one_of(any_hand(max_size=20), hands(max_size=40), custom_hands()))
def test_both_give_the_same_groups_and_the_oracles_maximum(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    (py_best, py_max), (c_best, c_max) = both(lambda: (best_discard(hand, rules), max_discard(hand, rules)))
    assert c_best == py_best  # the same groups, in the same order
    assert c_max == py_max
    if len(hand) <= 20:
        assert py_max == best_of(hand, rules)
    check_groups(hand, c_best, rules)
    assert sum(map(len, c_best)) == c_max


@settings(max_examples=100, deadline=None)
@given(any_hand(max_size=14))
def test_both_give_the_same_outs(case: tuple[Rules, list[Card]]) -> None:
    rules, hand = case
    python, native = both(lambda: outs(hand, rules))
    assert native == python


def test_whole_decks_and_unpackable_rules() -> None:
    """Every card of a deck; and a ruleset the extension leaves to Python (9 copies, runs of 12)."""
    big = rules_from("classic", hand_limit=0, copies=9, numbers=14, shortest_run=12)
    for rules in (CLASSIC, FIVE_COLOUR, big):
        hand = rules.full_deck()[: 3 * len(rules.colours) * rules.numbers]
        python, native = both(lambda rules=rules, hand=hand: best_discard(hand, rules))
        assert native == python
        assert sum(map(len, native)) == max_discard(hand, rules)
    if NATIVE is not None:
        assert NATIVE.max_discard(bytes(14 * 4), 4, 9, 12, 3) is None  # 4 colours x 9 runs x 4 bits > 64


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_bad_hands_are_refused_alike(native: bool) -> None:
    with implementation(native):
        with pytest.raises(ValueError, match="not in the classic deck"):
            best_discard([Card.of("K", 1)], CLASSIC)
        with pytest.raises(ValueError, match="not in the classic deck"):
            max_discard(iter([Card.of("R", 11)]), CLASSIC)
        with pytest.raises(ValueError, match="more than 2 copies"):
            max_discard([Card.of("R", 1)] * 3, CLASSIC)
        run = tuple(parse_cards("R1 R2 R3"))
        assert best_discard(iter(run), CLASSIC) == [run]


# --------------------------------------------------------------------------- going out by drawing


@pytest.mark.parametrize("rules", [CLASSIC, FIVE_COLOUR, TINY], ids=["classic", "five-colour", "tiny"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_both_find_the_oracles_finishing_draws(rules: Rules, data: st.DataObject) -> None:
    hand, deck, k = data.draw(deals(rules))
    found, chance = oracle(hand, deck, k, rules)
    flat_hand, flat_deck = flatten(hand, rules), flatten(deck, rules)
    (py_draws, py_chance), (c_draws, c_chance) = both(
        lambda: (finishing_draws(hand, deck, k, rules), chance_flat(flat_hand, flat_deck, k, rules))
    )
    assert c_draws == py_draws
    assert {tuple(sorted(d)) for d in c_draws} == found
    assert c_chance == py_chance  # to the bit: the same count of ways over the same total
    assert py_chance == pytest.approx(float(chance), abs=1e-12)


def test_bigger_hands_and_draws_agree() -> None:
    """Full-sized hands and draws of 4 (beyond what the oracle can try in a test)."""
    rng = random.Random(20)
    for rules, hand, deck in _shuffled_positions(rng, 5, 14, 40):
        draw = rng.randint(1, 4)
        python, native = both(
            lambda hand=hand, deck=deck, draw=draw, rules=rules: (
                _chance._finishers(hand, deck, draw, *_chance._shape(rules), 0),
                chance_flat(hand, deck, draw, rules),
            )
        )
        assert native == python


def test_both_stop_at_the_same_state_with_the_same_draws_found() -> None:
    """A search bounded in states stops at the same one in C and in Python: the same draws, the same
    lower bound, and the same word on whether it was whole."""
    rng = random.Random(21)
    stopped = 0
    for rules, hand, deck in _shuffled_positions(rng, 24, 40, 12):
        draw, states = rng.randint(1, 3), rng.choice((50, 500, 3000))
        python, native = both(
            lambda hand=hand, deck=deck, draw=draw, rules=rules, states=states: (
                _chance._finishers(hand, deck, draw, *_chance._shape(rules), states),
                _bounded(hand, deck, draw, rules, states),
            )
        )
        assert native == python
        stopped += not python[0][1]
    assert stopped >= 6  # the bound was met, not only searches that ended by themselves


def _shuffled_positions(
    rng: random.Random, least: int, most: int, each: int
) -> Iterator[tuple[Rules, Flat, Flat]]:
    """``each`` hands a preset of ``least`` to ``most`` cards from a shuffled deck, and the deck left."""
    for rules in (CLASSIC, FIVE_COLOUR):
        for _ in range(each):
            full = rules.full_deck()
            rng.shuffle(full)
            h = rng.randint(least, most)
            yield rules, flatten(full[:h], rules), flatten(full[h:], rules)


def _bounded(hand: Flat, deck: Flat, draw: int, rules: Rules, states: int) -> tuple[float, bool]:
    with patch.object(_chance, "SEARCH_STATES", states):
        return bounded_chance(hand, deck, draw, rules)


# --------------------------------------------------------------------------- choosing the implementation


@needs_native
def test_the_environment_forces_pure_python() -> None:
    probe = (
        "from solver.notty import _api, _chance, _impl\nprint(_impl.native, _api._native, _chance._native)"
    )
    env = {**os.environ, "NOTTY_PURE_PYTHON": "1"}
    shown = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert shown == ["None", "None", "None"]
    env["NOTTY_PURE_PYTHON"] = "0"
    shown = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "_native" in shown


@needs_native
def test_a_stale_build_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module built from another version of _native.c (left in the tree) is not used."""
    assert _impl._load() is NATIVE
    monkeypatch.setattr(NATIVE, "VERSION", _impl.VERSION + 1)
    assert _impl._load() is None


def test_answers_are_fresh_lists() -> None:
    hand = parse_cards("R1 R2 R3 Y5 G5 B5")
    first = best_discard(hand, CLASSIC)
    first.clear()
    assert best_discard(hand, CLASSIC) == best_discard(tuple(hand), CLASSIC) != []
