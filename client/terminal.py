"""The line-mode terminal: text shown above the line being typed, and the lines typed, read in a thread.

readline draws the prompt and edits the line (history, completion) in the input thread, while the
Trio thread shows what the server says: :class:`Terminal` keeps the two from drawing over each
other. The full screen (:mod:`client.screen`) is another :class:`Terminal`, with its own reader.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import locale
import os
import sys
import termios
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import trio

from .session import Output, Session
from .sgr import blocks, coloured, columns, parse, plain, wrap, wrap_lines

#: Lines typed at a terminal that may wait their turn to be sent (:class:`client.pace.Pace`): ten
#: seconds' worth at a server's default rate. A line typed while this many wait is dropped, and said
#: so: a paste of any length holds no more than this in memory.
LINES_HELD = 200
#: What a line dropped so says, for the first of a run of them.
NOT_SENT_HELD = (
    "not sent, {held} lines are waiting to go already: {line} (nor what you type before they have "
    "gone: type it again then)"
)

#: What the lines dropped after the first of a run say, once every line held has been acted on: a
#: paste's tail went unseen, its first line alone named, and that at once, far above by then.
ALSO_NOT_SENT = "not sent either, {which} typed after '{first}' while {held} waited: {lines}"
#: How many lines typed a notice of lines not sent or not carried out names: '...' stands for the rest.
DROPPED_NAMED = 6
#: The most characters of each such line it shows.
NAMED_LENGTH = 60

#: What a quit typed while the queue is full says: it is carried out next.
QUIT_AHEAD = "quitting now: the {held} lines waiting are not sent"

#: What feeds :func:`client.app._play` the lines typed, then ``None`` at the end of input.
LineReader = Callable[[trio.MemorySendChannel[str | None]], Awaitable[None]]


class Terminal:
    """Where text goes: plain for pipes; on a terminal, printed above the line being typed, and (with
    ``wrap``) wrapped to the terminal's width, as the full screen wraps it: broken at spaces, with a
    hanging indent, never mid-word as the terminal itself would. A game's table keeps its layout
    where it fits; a row wider than the terminal goes on in rows of its own, indented, as in the
    full screen's table pane. Output to a pipe is never wrapped (scripts read it).

    On a terminal the prompt is drawn by readline, in the input thread, while text to show comes
    from the Trio thread: ``drawing`` keeps the two apart, so that text never lands between a
    prompt asked for and the prompt drawn (which drew it twice, or cut its first letters). The
    input thread holds it from asking for a line until readline has drawn the prompt.
    """

    def __init__(self, interactive: bool, colour: bool, wrap: bool = False) -> None:
        self.interactive, self.colour, self.wrap = interactive, colour, wrap
        self._table: frozenset[str] = frozenset()  # the lines of the table being shown, as they read
        self.prompt = "notty> "
        self.prompt_drawn = False  # readline has drawn the prompt and reads what is typed
        self.drawing = threading.Lock()
        self._reading = threading.Lock()  # held while readline reads a line from the terminal
        self.line_in_flight = False  # a line readline has read, not yet in the queue
        self._handled = trio.Event()
        self.holding = False  # the line being acted on waits its turn to be sent (:class:`client.pace.Pace`)
        self.dropping = False  # the last line typed was dropped: the queue of lines held was full
        self.dropped: list[str] = []  # the first lines dropped after the first of this run, to be named
        self.dropped_count = 0  # how many were dropped after the first: a paste may hold any number
        self.first_dropped = ""  # the first of the run, named at once
        self.waiting: Callable[[], int] = lambda: 0  # how many lines typed wait in the queue now
        self.quit_typed = False  # a quit typed while the queue was full: it goes ahead of those lines
        self.quits: Callable[[str], bool] = lambda line: False  # does a line typed end the client?
        self._reading_modes: list[Any] | None = None  # the terminal's modes as readline reads in them
        self.input_lost: str | None = None  # why the input could not be read on, if that ended it

    def show(self, text: str) -> None:
        text = self._wrapped(text)
        # A bounded wait: readline draws the prompt at once, and a stuck thread must not hang us.
        locked = self.drawing.acquire(timeout=1) if self.interactive else False
        try:
            if self.interactive and self.prompt_drawn:
                buffer = typed_so_far()
                write_out("\r\x1b[K" + text + "\n" + self.prompt + buffer)
            else:
                write_out(text + "\n")
        finally:
            if locked:
                self.drawing.release()

    def read_line(self) -> str | None:
        """A line typed at the prompt (``None`` at the end of input); run in the input thread."""
        import readline

        READING.set()  # for good: the thread may come back for another line as the client ends
        self.drawing.acquire()
        held = True

        def prompt_drawn() -> None:  # readline's pre-input hook: the prompt is on the screen
            nonlocal held
            with contextlib.suppress(termios.error):  # the terminal as readline set it up to read
                self._reading_modes = termios.tcgetattr(sys.stdin.fileno())
            if held:
                self.prompt_drawn, held = True, False
                self.drawing.release()

        readline.set_pre_input_hook(prompt_drawn)
        line = None
        try:
            with self._reading:  # the terminal's input is readline's until the line is read
                line = _input(self.prompt)
                self.line_in_flight = line is not None  # read, and not yet queued
            return line
        finally:
            if not held:
                self.drawing.acquire()
            if line is None:  # Ctrl-D, after the prompt: what is said next starts a line of its own
                write_out("\n")
            self.prompt_drawn = False
            self.drawing.release()

    def resumed(self) -> None:
        """Back from Ctrl-Z (``fg``). The shell left the terminal as it likes it, so readline, still
        reading a line, got it cooked: no prompt, the keys echoed twice, Tab and Ctrl-U dead, and the
        line typed before joined to the next ('dis' + 'table'). Its modes are put back, and the
        prompt drawn again with the line so far."""
        locked = self.drawing.acquire(timeout=1) if self.interactive else False
        try:
            # Readline still reading (the prompt stays drawn a moment after it returns a line).
            if self.prompt_drawn and self._reading.locked() and self._reading_modes is not None:
                with contextlib.suppress(termios.error):
                    termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, self._reading_modes)
                write_out("\r\x1b[K" + self.prompt + typed_so_far())
        finally:
            if locked:
                self.drawing.release()

    def last_words(self, lines: Sequence[str]) -> None:
        """What is said as the client ends without the user quitting (the server ended the
        connection) or on Ctrl-C: on stderr, which the full screen prints once it has given the
        terminal back (:func:`client.screen.play`); in line mode below the prompt, if one is up."""
        locked = self.drawing.acquire(timeout=1) if self.interactive else False
        try:
            if self.prompt_drawn:
                write_out("\n")
            wrap = sys.stderr.isatty()  # not where it goes to a file: a command to run again stays whole
            for line in lines:  # wrapped as 'quit' wraps them (a play-test's broke mid-address)
                sys.stderr.write((self._wrapped(line) if wrap else line) + "\n")
            sys.stderr.flush()
        finally:
            if locked:
                self.drawing.release()

    def taking(self, line: str) -> None:
        """``line``, typed, is acted on now: readline showed it as it was typed."""
        self.say_dropped()

    def say_dropped(self, now: bool = False) -> None:
        """Name the lines dropped after the first of a run (:data:`NOT_SENT_HELD` named that one),
        once the lines held are all taken: said as the paste's first lines are, it scrolled away
        under the answers to the 200 lines held (a play-test); ``now``: whatever waits."""
        if self.dropped_count and (now or not self.waiting()):
            lines, count, self.dropped, self.dropped_count = self.dropped, self.dropped_count, [], 0
            which = "the line" if count == 1 else f"the {count:,} lines"
            first, named = named_lines([self.first_dropped]), named_lines(lines, count)
            self.show(ALSO_NOT_SENT.format(which=which, first=first, held=LINES_HELD, lines=named))

    def line_handled(self) -> None:
        """The last line typed was acted on and what it said at once was shown: ask for the next."""
        self._handled.set()

    def line_waits(self, waits: bool) -> None:
        """The line being acted on waits its turn to be sent (``waits``), or no longer does. While it
        waits the next lines are read, to wait after it (:data:`LINES_HELD` at most): readline goes
        on drawing what is typed, rather than the terminal echoing it raw between prompts."""
        self.holding = waits
        if waits:
            self._handled.set()

    def typed_ahead(self) -> list[str]:
        """The lines typed or pasted that wait in the terminal, not yet read (the reader reads the
        next only once a line is handled): taken from it, so that they are not carried out."""
        if not self.interactive or not sys.stdin.isatty():
            return []
        if not self._reading.acquire(blocking=False):  # readline reads on: what it reads is carried out
            return []
        import fcntl

        lines: list[str] = []
        fd = sys.stdin.fileno()
        try:  # the terminal is in canonical mode between lines: whole lines alone can be read
            while int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, bytes(4)), sys.byteorder) > 0:
                lines += os.read(fd, 65536).decode("utf-8", "replace").splitlines()
        except OSError:
            pass
        finally:
            self._reading.release()
        return lines

    async def until_handled(self) -> None:
        if not self.holding:
            await self._handled.wait()
        self._handled = trio.Event()

    def output(self, output: Output) -> None:
        """What a message from the server calls for showing: its lines (the full screen shows the
        table apart, :class:`client.screen.Screen`)."""
        rows = () if output.table is None else output.table.split("\n")
        self._table = frozenset(plain(row) for row in rows)  # lines each wrapped alone (see _wrapped)
        try:
            for line in output.lines:
                self.show(line)
        finally:
            self._table = frozenset()

    def _wrapped(self, text: str) -> str:
        """``text`` with each line wider than the terminal wrapped to its width. A line of the table
        being shown is wrapped alone, as the full screen's pane wraps it (a seat's row goes on under
        its cards); left whole, the terminal broke a 20-card hand at its edge, mid-word, ' (bot)'
        alone at the start of the next row."""
        width = self.width()
        if width is None:
            return text
        rows = []
        for block in blocks(text.split("\n")):
            bare = [plain(line) for line in block]
            if all(columns(line) <= width for line in bare):
                rows += block
            elif any(line in self._table for line in bare):
                rows += [coloured(row) for line in block for row in wrap(parse(line), width)]
            else:
                rows += [coloured(row) for row in wrap_lines(block, width)]
        return "\n".join(rows)

    def layout_width(self) -> int | None:
        """The columns a game lays its table out for: the terminal's now, if it has one."""
        return self.width()

    def width(self) -> int | None:
        """The terminal's width now (it follows resizes), if text is wrapped to it."""
        if not self.wrap:
            return None
        try:
            return os.get_terminal_size(sys.stdout.fileno()).columns or None
        except (OSError, ValueError):  # not a terminal after all, or stdout closed
            return None

    def line_reader(self, session: Session) -> LineReader:
        """What reads the lines typed here: stdin, with readline's editing, history and completion at
        a terminal (the full screen has its own editor)."""
        self.quits = session.quits
        if self.interactive:
            import readline

            readline.set_completer(_completer(session))
            readline.set_completer_delims(" ")
            readline.parse_and_bind("tab: complete")
            _completions_unsorted()
        return functools.partial(read_lines, self)


class OutputLost(Exception):
    """stdout took no more: its reader gone (``| head``), its disk full, its terminal closed. The
    client ends as it would on ``quit`` (:func:`client.app.run`), saying on stderr what it can."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.error = error


def write_out(text: str) -> None:
    """Write ``text`` to stdout at once; :class:`OutputLost` if it cannot be."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as error:
        raise OutputLost(error) from error


async def read_lines(terminal: Terminal, send: trio.MemorySendChannel[str | None]) -> None:
    """Lines from stdin, read in a thread (readline's editing and history on a terminal). Input
    that cannot be read (a terminal closed, the write-only stdin ``nohup`` gives) ends as a script
    ends: an OSError there ended the client with a traceback."""
    async with send:
        while True:
            try:
                if terminal.interactive:
                    line = await trio.to_thread.run_sync(terminal.read_line, abandon_on_cancel=True)
                else:
                    line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
                    line = line.rstrip("\n") if line else None
            except OSError as error:
                # Not a nohup's stdin (write-only) nor a terminal closed: a script that cannot be read
                # part of the way stops there, and says so, not as if it had ended.
                if not (error.errno == errno.EBADF or (error.errno == errno.EIO and terminal.interactive)):
                    terminal.input_lost = error.strerror or str(error)
                line = None
            if line is not None and terminal.interactive:
                queue_typed(send, line, terminal)
                terminal.line_in_flight = False
            else:  # a script's line waits for room (the pipe holds the rest), as the end of input does
                await send.send(line)
            if line is None:
                return
            if terminal.interactive:  # the next prompt comes after what this line says at once
                await terminal.until_handled()


def queue_typed(send: trio.MemorySendChannel[str | None], line: str, terminal: Terminal) -> None:
    """Queue a line typed at a terminal to be acted on, in turn. Pasted lines come faster than the
    server takes them (:class:`client.pace.Pace`): at most :data:`LINES_HELD` wait, and a line typed
    beyond them is dropped, the first of a run of them said, rather than held without end. A quit is
    never dropped: it goes ahead of the lines waiting, which are not sent (Ctrl-C would do the same)."""
    terminal.waiting = lambda: send.statistics().current_buffer_used
    try:
        send.send_nowait(line)
    except trio.WouldBlock:
        if terminal.quits(line):
            terminal.quit_typed = True
            terminal.say_dropped(now=True)  # before it goes: nothing after it is said
            terminal.show(QUIT_AHEAD.format(held=LINES_HELD))
            return
        if not line.strip():
            return  # a blank line: nothing is lost
        if not terminal.dropping:
            terminal.say_dropped(now=True)  # the run before this one, not yet said: before it
            terminal.first_dropped = line.strip()
            terminal.show(NOT_SENT_HELD.format(held=LINES_HELD, line=named_lines([line.strip()])))
        else:  # named once the run is over: the first few, and how many in all
            terminal.dropped_count += 1
            if len(terminal.dropped) < DROPPED_NAMED:
                terminal.dropped.append(line.strip())
        terminal.dropping = True
    else:
        terminal.dropping = False
        terminal.say_dropped()


def named_lines(lines: Sequence[str], count: int | None = None) -> str:
    """Lines typed, as a notice names them: the first :data:`DROPPED_NAMED` (each cut to
    :data:`NAMED_LENGTH` characters: a pasted line may be long), then '...' for the rest, of
    ``count`` in all (``len(lines)`` unless given)."""
    shown = [line if len(line) <= NAMED_LENGTH else line[: NAMED_LENGTH - 3] + "..." for line in lines]
    more = (len(lines) if count is None else count) > DROPPED_NAMED
    return "; ".join(shown[:DROPPED_NAMED]) + ("; ..." if more else "")


def _input(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def typed_so_far() -> str:
    """The line being typed at the prompt, or "" when readline cannot say.

    A copy of readline's own buffer, where it can be reached: ``readline.get_line_buffer()`` decodes
    it in two passes over the C string while the input thread, inside readline without the GIL, may
    be changing it, and glibc then aborts the process (status 134 in a test, twelve lines typed
    ahead as refusals were printed); a copy torn that way shows a wrong line for one redraw at worst.
    ``get_line_buffer`` also raises ValueError for a NUL typed or pasted into the line, which
    crashed the client as it printed above the prompt."""
    buffer = line_buffer()
    if buffer is not None:
        return (buffer.value or b"").decode(locale.getpreferredencoding(False), "replace")
    import readline

    try:
        return readline.get_line_buffer()
    except ValueError:
        return ""


@functools.cache
def line_buffer() -> ctypes.c_char_p | None:
    """readline's ``rl_line_buffer`` (GNU readline's name, and libedit's), or None where it cannot be
    reached: then :func:`typed_so_far` asks the readline module."""
    try:
        import readline

        return ctypes.c_char_p.in_dll(ctypes.CDLL(readline.__file__), "rl_line_buffer")
    except (ImportError, OSError, ValueError, AttributeError):
        return None


def _completions_unsorted() -> None:
    """Have readline list completions in the session's order (a huxxy hand's: A, 2 to 10, J, Q, K),
    not sorted as strings ('0H 3C ... AH JD KH QD'): GNU readline's ``rl_sort_completion_matches``,
    which no inputrc setting reaches (the session gives each option once). Left as it is where it
    cannot be reached (libedit)."""
    try:
        import readline

        ctypes.c_int.in_dll(ctypes.CDLL(readline.__file__), "rl_sort_completion_matches").value = 0
    except (ImportError, OSError, ValueError, AttributeError):
        pass


def _completer(session: Session) -> Any:
    def complete(text: str, state: int) -> str | None:
        import readline

        line = typed_so_far()
        before = line[: readline.get_begidx()]  # the cursor may be mid-line
        options = session.completions(before, text)
        # Python's readline appends no space: the next word may follow at once. Not where one follows
        # the word already, as the full screen's editor does ('ste' before ' bob' made 'steal  bob').
        if len(options) == 1 and not line[readline.get_endidx() :].startswith(" "):
            options = [options[0] + " "]
        return options[state] if state < len(options) else None

    return complete


#: An input thread reads lines with :meth:`Terminal.read_line`: the client does not wait for it as it
#: ends (Trio abandons it, blocked in ``input()``, or about to call it for a line typed ahead).
READING = threading.Event()
