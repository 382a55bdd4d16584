"""Which implementation answers: the C extension :mod:`solver.notty._native` when it was built, else Python.

``pip install -e .`` compiles the extension when the machine has a C compiler (it is optional: a
failed build still installs). ``NOTTY_PURE_PYTHON=1`` in the environment forces the pure-Python
code even when the extension exists, and a module built from another version of ``_native.c``
(a stale build; ``pip install -e .`` again rebuilds it) is ignored. Both give the same answers,
group for group; the tests compare them.
"""

from __future__ import annotations

import os
from typing import Protocol

from games.notty import Card

Flat = tuple[int, ...]
Group = tuple[Card, ...]
# One ruleset for the extension's cached calls: colour index, numbers, copies, shortest run,
# smallest set, the card table, and the per-hand caches of best_discard and max_discard.
Info = tuple[
    tuple[int, ...],
    int,
    int,
    int,
    int,
    tuple[tuple[Card, ...], ...],
    dict[bytes, tuple[Group, ...]],
    dict[bytes, int],
]


class Native(Protocol):
    """What the extension offers (see ``_native.pyi``); None from a function means "ask Python"."""

    def grid(
        self, hand: object, colour_index: tuple[int, ...], numbers: int, copies: int
    ) -> bytes | None: ...

    def max_discard(
        self, grid: bytes, colours: int, copies: int, shortest: int, smallest: int
    ) -> int | None: ...

    def best_discard(self, hand: object, info: Info) -> list[Group] | None: ...

    def max_discard_of(self, hand: object, info: Info) -> int | None: ...

    def best_groups(
        self,
        grid: bytes,
        colours: int,
        copies: int,
        shortest: int,
        smallest: int,
        cards: tuple[tuple[Card, ...], ...],
    ) -> tuple[tuple[Card, ...], ...] | None: ...

    def finishers(
        self,
        hand: Flat,
        deck: Flat,
        draw: int,
        colours: int,
        numbers: int,
        shortest: int,
        smallest: int,
        max_states: int,
    ) -> tuple[frozenset[Flat], bool] | None: ...

    def finishing_ways(
        self,
        hand: Flat,
        deck: Flat,
        draw: int,
        colours: int,
        numbers: int,
        shortest: int,
        smallest: int,
        max_states: int,
    ) -> tuple[int, bool] | None: ...


#: The version of ``_native.c`` this code speaks to (its ``NATIVE_VERSION``).
VERSION = 2


def _load() -> Native | None:
    if os.environ.get("NOTTY_PURE_PYTHON", "").strip() not in ("", "0"):
        return None
    try:
        from . import _native
    except ImportError:
        return None
    if getattr(_native, "VERSION", None) != VERSION:  # built from another _native.c: rebuild to use it
        return None
    return _native


native: Native | None = _load()
