"""The console scripts' entry points (pyproject.toml), kept apart from their programs.

The script pip generates imports its entry point's module before anything can catch a Ctrl-C, and
Trio and the games take a quarter of a second to import: an interrupt then came out as a traceback.
Here each program is imported once called, so an interrupt while it starts ends it as one a moment
later does, quietly with status 130. This module imports nothing that takes time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def _run(program: str) -> int:
    try:
        try:
            main: Callable[[], int] = importlib.import_module(program).main
            return main()
        except* KeyboardInterrupt:  # in the imports, or before the program catches it itself
            pass
    except BaseExceptionGroup as group:
        # What an interrupt left of a group (Trio's tasks raise together): an exit raised beside it
        # ends the program as that exit would alone, not as a traceback of the group.
        exits, others = group.split(SystemExit)
        if exits is None or others is not None:
            raise
        raise _first(exits) from None
    return 130


def _first(group: BaseExceptionGroup[SystemExit]) -> SystemExit:
    leaf = group.exceptions[0]
    return leaf if isinstance(leaf, SystemExit) else _first(leaf)


def server() -> int:
    return _run("server.cli")


def client() -> int:
    return _run("client.app")


def sim() -> int:
    return _run("server.sim")


def watch() -> int:
    return _run("client.watch")


def ochos() -> int:
    return _run("games.ochos_locos.batch")
