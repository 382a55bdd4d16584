"""The heap a long-running server settles into: start-up objects frozen out of the collector's walk.

A full collection walks every object the collector tracks. A server's modules,
the games' tables and the solvers' precomputed tables are made once at start-up
and live for ever, yet each full pass walked them all again, 30-160 ms landing
on whichever solve was running (bench/RESULTS.md, huxxy's 6-play solver). Frozen
(:func:`gc.freeze`), they are left out: a full pass then costs what play makes.
"""

from __future__ import annotations

import gc

from games import GAMES


def settle() -> None:
    """Load every game the server hosts, then freeze what exists: call once, before serving."""
    for name in GAMES:
        GAMES[name]  # imports the game, its engine and the modules its bots and hints use
    import solver.huxxy  # noqa: F401  (the solver's tables: loaded on a bot's first turn otherwise)

    gc.collect()
    gc.freeze()
