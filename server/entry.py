"""The console scripts' entry points (pyproject.toml), kept apart from their programs.

The script pip generates imports its entry point's module before anything can catch a Ctrl-C, and
Trio and the games take a quarter of a second to import: an interrupt then came out as a traceback.
Here each program is imported once called, so an interrupt while it starts ends it as one a moment
later does, quietly with status 130. This module imports nothing that takes time.

While the program is imported a Ctrl-C is only noted, and acted on once the import is done: raised
at once it could land in code that runs inside the import machinery (a module lock's weakref
callback), which Python reports as "Exception ignored" with a traceback, and then drops, so the
program went on as if nothing had been typed. What comes before this module runs (Python's own
start-up, the site module, the installed package's path hooks) no code of the project can catch.
"""

from __future__ import annotations

import codecs
import importlib
import io
import os
import sys
from types import FrameType, ModuleType  # as importlib, loaded with Python itself
from typing import Any


def _run(program: str) -> int:
    try:
        try:
            _standard_streams()
            module = _imported(program)
            if module is None:
                return 130
            _tolerant_output()
            try:
                code: int = module.main()
                sys.stdout.flush()  # here, where a failure can still be said
            except OSError as error:
                if not getattr(error, STDOUT_FAILED, False):
                    raise
                from client.output import output_lost

                return output_lost(error)
            return code
        except* KeyboardInterrupt:  # before the program catches it itself
            pass
    except BaseExceptionGroup as group:
        # What an interrupt left of a group (Trio's tasks raise together): an exit raised beside it
        # ends the program as that exit would alone, not as a traceback of the group.
        exits, others = group.split(SystemExit)
        if exits is None or others is not None:
            raise
        raise _first(exits) from None
    return 130


def _standard_streams() -> None:
    """Give a stream the program was started without (``>&-``, ``<&-``) the null device.

    Python makes it ``None``, and the first use of it ended the program with a traceback. The
    descriptor is filled too, so that no socket or database the program opens later takes its
    number, to be written to by whatever writes there."""
    streams = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))
    for fd, _, _ in streams:
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # takes the lowest number free: ``fd``, those below being open
    for fd, name, mode in streams:
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115 (for life)


def _tolerant_output() -> None:
    """Write what the terminal's encoding cannot carry in ASCII, rather than end with a traceback,
    and mark a failure to write stdout as such (:class:`_Stdout`).

    Python speaks UTF-8 where the locale is C, but a terminal set to Latin-1 or ASCII (or a
    ``PYTHONIOENCODING`` saying so) took a table line's ``·`` as a fatal UnicodeEncodeError.
    stderr keeps Python's own escapes, which say exactly what a traceback held."""
    from client.output import OUTPUT_ERRORS, spelled_in_ascii

    codecs.register_error(OUTPUT_ERRORS, spelled_in_ascii)
    stdout = sys.stdout
    if not isinstance(stdout, io.TextIOWrapper) or stdout is not sys.__stdout__:
        return  # not the process's own stdout (a test's capture): left as it is
    stdout.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_Stdout(stdout.fileno(), "w", closefd=False)),
        encoding=stdout.encoding,
        errors=OUTPUT_ERRORS,
        line_buffering=stdout.line_buffering,
        write_through=stdout.write_through,
    )


#: The attribute an OSError raised by writing stdout carries (:class:`_Stdout`).
STDOUT_FAILED = "notty_stdout_failed"


class _Stdout(io.FileIO):
    """stdout's file, whose write errors say that they are stdout's: a program that meets one (a full
    disk) ends in one line (:func:`client.output.output_lost`), where ``notty-sim >/dev/full`` ended with a
    traceback; an OSError from anything else still shows its own."""

    def write(self, data: Any, /) -> int:
        try:
            return super().write(data)
        except OSError as error:
            setattr(error, STDOUT_FAILED, True)
            raise


def _imported(program: str) -> ModuleType | None:
    """The module ``program``, imported with a Ctrl-C only noted meanwhile (a second one is raised);
    ``None`` if one came. Python's own handler is put back before the program runs: Trio takes over
    only from that one."""
    import signal  # here, not above: it takes a millisecond, and the script imports this module unguarded

    interrupted = False

    def noted(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupted
        if interrupted:  # a second one: an import that hangs is not waited for
            raise KeyboardInterrupt
        interrupted = True

    # Only in place of Python's own (not where SIGINT is ignored), and in the main thread alone.
    ours = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if ours:
        try:
            signal.signal(signal.SIGINT, noted)
        except ValueError:  # not the main thread: an interrupt is not for us to note
            ours = False
    try:
        module = importlib.import_module(program)
    finally:
        if ours and signal.getsignal(signal.SIGINT) is noted:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    return None if interrupted else module


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
