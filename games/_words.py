"""Words that every game's texts share, from its engine's refusals to the server's log.

A module of its own, below ``games._ui``, so that an engine can use it without importing the UI.
"""

from __future__ import annotations


def counted(count: int, noun: str) -> str:
    """``count`` of ``noun``, plural unless one: '1 card', '3 plays'."""
    return f"{count} {noun}" + ("" if count == 1 else "s")
