"""Output where the terminal or the pipe falls short.

A terminal whose encoding lacks some of what the programs write (Latin-1, ASCII) gets it spelled in
ASCII: a table line's ``·`` as ``-``, a cut text's ``…`` as ``...``, ``é`` as ``e``, anything else as
``?``. Output goes through a codec error handler (:data:`OUTPUT_ERRORS`, installed by
:mod:`server.entry`); the full screen spells column for column (``client.screen``), as its layout
was measured. A stdout that takes no more (its reader gone, its disk full) is pointed at the null
device (:func:`stdout_to_nowhere`, :func:`output_lost`). Cheap to import: every program's start-up loads it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import unicodedata
from collections.abc import Sequence

#: Characters the programs print (a table line's ``·``, a cut text's ``…``, the full screen's rules)
#: as a terminal that has no such characters spells them.
ASCII_SPELLINGS = {"·": "-", "…": "...", "─": "-", "—": "--", "–": "-"}
#: The codec error handler the programs' output uses (:func:`spelled_in_ascii`).
OUTPUT_ERRORS = "notty-ascii"


def ascii_spelling(char: str) -> str:
    """``char`` in ASCII: as :data:`ASCII_SPELLINGS` says, else without its accents, else ``?``."""
    return (
        ASCII_SPELLINGS.get(char)
        or unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
        or "?"
    )


def spelled_in_ascii(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: the characters ``error`` could not encode, spelled in ASCII."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(map(ascii_spelling, error.object[error.start : error.end])), error.end


def stdout_to_nowhere() -> None:
    """Point stdout at the null device, once it takes no more: Python flushes it again as it exits,
    and a failure there prints a traceback of its own."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    finally:
        os.close(null)


def output_lost(error: OSError, kept: Sequence[str] = (), *, at_terminal: bool = False) -> int:
    """Once stdout took no more (``error``), point it at nothing and say so on stderr; the exit
    status. A reader that stopped (``| head``) has seen enough, which is no error, nor is a terminal
    closed (``at_terminal``: where nobody is left to read anything); anything else (a full disk, an
    I/O error on a file) is, in one line. ``kept``: lines stderr may still carry (the client's word
    on where its seat is kept)."""
    stdout_to_nowhere()
    done = error.errno == errno.EPIPE or (error.errno == errno.EIO and at_terminal)
    with contextlib.suppress(OSError):
        if not done:
            program = os.path.basename(sys.argv[0])
            sys.stderr.write(
                f"{program}: could not write its output ({error.strerror or error}): it stopped\n"
            )
        for line in kept:
            sys.stderr.write(line + "\n")
    return 0 if done else 1
