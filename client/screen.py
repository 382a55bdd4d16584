"""The full-screen client: what ``notty-client`` shows at a terminal (``--plain``: line mode).

Line mode reprints the whole table after every event, so a long game is a scrollback no one can
read. Here the screen is laid out once and redrawn in place::

    status line    server · game and variant · table · turn N of LIMIT · you and your seat
                   (· autopilot on) · whose turn
    table pane     the last thing that happened, highlighted, over the table as the game's UI draws it
    ── log ──      every other line the session says: events, replies, refusals, hints, notices
    notty> _       the input line: history, editing and completion

Decisions, and why:

- **curses from the standard library, driven by Trio directly.** Trio waits for stdin to be readable
  (:func:`trio.lowlevel.wait_readable`) and the keys are read with curses in no-delay mode, so there
  is one event loop, no second framework (Textual and prompt_toolkit run on asyncio and would need
  Trio's guest mode) and no new runtime dependency. The line editing is :mod:`client.editor`,
  which knows nothing of curses.
- **Every game through its own renderer.** The table pane is ``ui.state_text(table, view, (),
  colour=True)`` of the session's view (the game's UI, or :mod:`client.generic` for a game the
  client has none for); the colour codes in it are read by :mod:`client.sgr` into curses
  attributes. Colour pairs are used when the terminal has colours and ``NO_COLOR`` is not set;
  otherwise the codes are dropped and only bold and reverse mark things.
- **Escape sequences are read whole** (:class:`client.editor.EscapeReader`): curses names the keys
  its terminal description lists; any other sequence (Alt and a key, a key that description lacks
  when TERM does not match the terminal) arrives as its characters, and is dropped whole, or acts
  if it is a form of Home, End, Delete, an arrow or Page Up/Down. curses, in no-delay mode, does
  not wait after an ESC; the screen does, :data:`ESCAPE_WAIT` for the rest of a sequence that
  comes in two reads, and then drops it: the Esc key alone swallows nothing typed after it.
- **Resizing**: the terminal's SIGWINCH reaches Trio (and ``KEY_RESIZE``, should curses see it
  first); either way the screen takes the new size and is laid out again.
- **Long lines wrap with a hanging indent** (:func:`client.sgr.wrap`): a help line's continuation
  rows start under its description, not in its command column, and any other line's two columns
  in from its own indentation (at most half the width in), so a wrapped line reads as one. A
  description laid out over several lines for 80 columns is wrapped as one line
  (:func:`client.sgr.wrap_lines`) when the screen is narrower, not broken twice.
- **An answer longer than the log is read from its start**: what the client or the server says
  (a refusal, a list, the help), not a game's moves, shows its first rows with the log scrolled
  back to them, PageDown the rest; a small screen's log of a row or two showed a refusal's last
  words alone. One that fits leaves the log following the newest lines.
- **The terminal is always given back** as it was: the screen runs inside ``try``/``finally`` (as
  :func:`curses.wrapper` does), on quitting, on Ctrl-C and on errors. What was written to stderr
  meanwhile, and what was said after ``quit`` (where a kept seat is), is printed once it is.

The connection, reconnecting, the heartbeat and the commands are :mod:`client.app`'s, as in line
mode: this module is only another :class:`client.terminal.Terminal`, with its own line reader.
"""

from __future__ import annotations

import codecs
import contextlib
import curses
import functools
import io
import locale
import math
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any

import trio

from games._ui import OUR_HAND, OUR_SEAT, game_and_variant, to_play

from .commands import echoed
from .editor import EscapeReader, LineEditor, RawKey
from .output import ascii_spelling
from .session import Output, Session
from .sgr import Span, Style, columns, continues, fit, parse, plain, wrap, wrap_lines
from .terminal import LineReader, Terminal, queue_typed

PROMPT = "notty> "
#: How often the status line's count of a timed turn looks whether a turn has begun (see _count_down).
COUNT_DOWN_LOOK = 0.25
#: The log keeps this many lines; older ones go.
LOG_LINES = 5000
#: The log's least height when the table is tall; the table pane gives way.
LEAST_LOG = 3
#: Wakings in a row with nothing to read that mean the input has ended, and the pause after each.
EMPTY_WAKES = 50
EMPTY_PAUSE = 0.01
#: The last action's lines shown above the table, at most.
LAST_ACTION_LINES = 3
#: How long an escape sequence begun may wait for its rest; after that it is dropped (the Esc key
#: alone). A terminal writes a sequence at once: only a slow link splits it, and by far less.
ESCAPE_WAIT = 0.1

#: Keys curses names, as the editor names them.
_KEYS = {
    curses.KEY_LEFT: "left",
    curses.KEY_RIGHT: "right",
    curses.KEY_HOME: "home",
    curses.KEY_END: "end",
    curses.KEY_BACKSPACE: "backspace",
    curses.KEY_DC: "delete",
    curses.KEY_UP: "up",
    curses.KEY_DOWN: "down",
    curses.KEY_ENTER: "enter",
}
#: Control characters, as the editor names them.
_CONTROLS = {
    "\n": "enter",
    "\r": "enter",
    "\t": "tab",
    "\x7f": "backspace",
    "\x08": "backspace",
    "\x01": "ctrl-a",
    "\x04": "ctrl-d",
    "\x05": "ctrl-e",
    "\x15": "ctrl-u",
    "\x17": "ctrl-w",
}


def usable() -> bool:
    """Whether curses knows this terminal (``TERM`` names one it has a description of)."""
    try:
        curses.setupterm(os.environ.get("TERM"), sys.stdout.fileno())
    except curses.error:
        return False
    return True


async def play(run: Callable[[Terminal], Awaitable[int]]) -> int:
    """Run the client (``run``: :func:`client.app.run` but for its terminal) on a full screen;
    its exit status. The terminal is restored whatever happens."""
    stderr = io.StringIO()  # written while the screen is up it would be lost, or garble it
    screen: Screen | None = None
    try:
        # SIGWINCH goes to Trio before curses starts: then curses, finding a handler, leaves it be.
        with (
            trio.open_signal_receiver(signal.SIGWINCH) as resizes,
            contextlib.redirect_stderr(stderr),
            _curses() as window,
        ):
            screen = Screen(window, curses.has_colors() and "NO_COLOR" not in os.environ)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(screen.follow_resizes, resizes)
                code = await run(screen)
                nursery.cancel_scope.cancel()
    finally:
        width = _terminal_width()
        with contextlib.suppress(OSError):  # a terminal closed under us: nobody is left to tell
            if screen is not None:
                for line in screen.farewell(width):
                    sys.stdout.write(line + "\n")
                sys.stdout.flush()
            said = stderr.getvalue()
            sys.stderr.write(wrapped_text(said, width) if sys.stderr.isatty() else said)  # a file: kept whole
    return code


def _with_our_lines(
    pane: list[tuple[list[Span], int]], keeps: Sequence[Sequence[int]], starts: list[int], cut: int
) -> list[tuple[list[Span], int]]:
    """The rows a pane too short for its table shows: the whole lines from ``cut`` on (its end:
    whose turn, what may be done), never the tail of a line cut above them, but with our own
    lines whole above them if the cut would hide any of them: ``keeps``, each a line's rows, the
    most wanted first (a hand of its own before our seat's line: a play-tester's short window kept
    the seat and lost the hand). Only whole lines make room for them, from the top of what is
    shown, never the last line; a line kept takes room only if every line before it in ``keeps``
    has it too."""
    shown = len(pane) - cut
    whole = next((start for start in starts if start >= cut), None)
    best = pane[cut:] if whole is None else pane[whole:]  # None: the last line alone is too long
    for wanted in range(1, len(keeps) + 1):
        kept = sorted(row for rows in keeps[:wanted] for row in rows)
        fits = [
            start
            for start in starts
            if len([row for row in kept if row < start]) + len(pane) - start <= shown
        ]
        if not fits:  # the last line alone takes the room: it stays
            break
        best = [pane[row] for row in kept if row < fits[0]] + pane[fits[0] :]
    return best


def wrapped_text(text: str, width: int | None) -> str:
    """What was said on stderr while the screen was up (a seat kept, on Ctrl-C), wrapped as
    :meth:`Screen.farewell` wraps what was said on quitting: a play-test's broke mid-address."""
    if width is None or not text:
        return text
    lines = text.removesuffix("\n").split("\n")
    rows = ["".join(span.text for span in row).rstrip() for row in wrap_lines(lines, width)]
    return "\n".join(rows) + ("\n" if text.endswith("\n") else "")


def _terminal_width() -> int | None:
    """The width of the terminal the client was run in, once the screen has given it back."""
    try:
        return os.get_terminal_size(sys.__stdout__.fileno() if sys.__stdout__ else 1).columns or None
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def _curses() -> Any:
    """The screen, set up as a full-screen program needs it, and given back as it was."""
    locale.setlocale(locale.LC_CTYPE, "")  # curses draws what the locale's encoding can
    # The window's size from the terminal, not from COLUMNS and LINES: exported, they laid out
    # 5,000 columns on an 80-column terminal (the input line off the screen) until a resize.
    # (curses.use_env(False) would take terminfo's 80x24 instead, whatever the window.)
    exported = {name: os.environ.pop(name) for name in ("COLUMNS", "LINES") if name in os.environ}
    try:
        window = curses.initscr()
    finally:
        os.environ.update(exported)
    try:
        curses.noecho()
        curses.cbreak()  # keys at once; Ctrl-C still interrupts
        window.keypad(True)
        window.nodelay(True)
        curses.set_escdelay(25)
        with contextlib.suppress(curses.error):
            curses.curs_set(1)
        yield window
    finally:
        # Each step alone: a terminal closed under us (its hangup ignored) refuses them all.
        for step in (functools.partial(window.keypad, False), curses.nocbreak, curses.echo, curses.endwin):
            with contextlib.suppress(curses.error):
                step()


def _drawn_in(codeset: str) -> str:
    """The codec for a locale's ``codeset``; ASCII, which every terminal draws, where Python knows
    none by that name (spelling for it then fails with a LookupError)."""
    try:
        return codecs.lookup(codeset).name
    except LookupError:
        return "ascii"


def drawable(text: str, encoding: str) -> str:
    """``text`` as a terminal of ``encoding`` can draw it, in as many columns: what it lacks spelled
    in ASCII and cut or padded to its width (``…`` as ``.``, a wide character as ``??``). Curses
    dropped such a character, and the next redraw of that line landed a column off for each: a
    non-UTF-8 locale's table read ``turn 1 2f 300``."""
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        pass
    else:
        return text
    drawn = []
    for char in text:
        try:
            char.encode(encoding)
        except UnicodeEncodeError:
            width = columns(char)
            char = (ascii_spelling(char) + "?" * width)[:width]
        drawn.append(char)
    return "".join(drawn)


class Looks:
    """Curses attributes: for the styles the games' colour codes give, and the screen's own marks."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour
        self._pairs: dict[tuple[int, bool], int] = {}
        self.your_turn = curses.A_BOLD
        if not colour:
            return
        curses.start_color()
        background = -1
        try:
            curses.use_default_colors()
        except curses.error:
            background = curses.COLOR_BLACK
        bright = curses.COLORS >= 16
        for number in range(8):
            curses.init_pair(1 + number, number, background)
            self._pairs[number, False] = curses.color_pair(1 + number)
            if bright:
                curses.init_pair(9 + number, 8 + number, background)
                self._pairs[number, True] = curses.color_pair(9 + number)
        curses.init_pair(17, curses.COLOR_BLACK, curses.COLOR_YELLOW)
        self.your_turn = curses.color_pair(17) | curses.A_BOLD

    def of(self, style: Style) -> int:
        """The attribute of a span: its colour and boldness, or nothing without colour."""
        if not self.colour:
            return 0
        attribute = curses.A_BOLD if style.bold else 0
        if style.colour is None:
            return attribute
        if (style.colour, style.bright) in self._pairs:
            return attribute | self._pairs[style.colour, style.bright]
        if style.colour == curses.COLOR_BLACK:  # grey on eight colours: black may not show at all
            return curses.A_DIM | self._pairs[curses.COLOR_WHITE, False]
        return attribute | curses.A_BOLD | self._pairs[style.colour, False]


class Screen(Terminal):
    """A :class:`client.terminal.Terminal` that draws the full screen: what the session shows goes to
    the log (a State's table to its pane), and typed keys come from the editor."""

    def __init__(self, window: Any, colour: bool) -> None:
        # What curses draws in (see drawable): the locale's, not Python's, which is UTF-8 under the C
        # locale whatever the terminal takes.
        self._encoding = _drawn_in(locale.nl_langinfo(locale.CODESET))
        super().__init__(interactive=True, colour=True)  # the texts carry colour; :class:`Looks` reads it
        self.window = window
        self.looks = Looks(colour)
        self.session: Session | None = None
        self.editor = LineEditor()
        self.escapes = EscapeReader()
        self.log: list[str] = []
        self.table: str | None = None  # the table pane's text, as the game's UI drew it
        self.last_action: tuple[str, ...] = ()
        self.last_action_at: int | None = None  # its table: another table's is not shown
        self.scroll = 0  # log rows scrolled back from the newest
        # Where the newest answer starts in the log, while the log is too short for it: its first rows
        # are shown, the log scrolled back to them (an 8-row screen showed a refusal's last row alone).
        self._answer_at: int | None = None
        # Where the log, scrolled back, showed its top row when last drawn (:meth:`_top_row`).
        self._top: tuple[int, ...] | None = None
        self._listed: tuple[str, ...] | None = None  # the options the last key (a Tab) listed
        self.farewell_lines: list[str] | None = None  # what was said since the user quit
        self._log_height = 1
        self._width = 80
        self._handling = False  # a line entered is being acted on
        self._echoed_ahead: str | None = None  # a line entered with none before it: in the log already

    def typed_ahead(self) -> list[str]:
        """None wait in the terminal: the keys are read as they come, the lines queued at once."""
        return []

    def taking(self, line: str) -> None:
        """A line entered while another is acted on, or waits to be, goes to the log as it is acted
        on in turn: three pasted lines showed one above the other, and the first one's refusal under
        the third. One entered with none before it went to the log at once (:meth:`_entered`)."""
        self._handling = True
        self.say_dropped()  # a run of lines dropped as the queue was full is over: named, before this one
        if line is self._echoed_ahead:  # that very line (one kept after a refusal is another)
            self._echoed_ahead = None
            return
        self._echo(line)
        self.draw()

    def line_handled(self) -> None:
        super().line_handled()
        self._handling = False

    def _entered(self, line: str, send: trio.MemorySendChannel[str | None]) -> None:
        """Queue a line entered; to the log now if the client waits for one, so none is before it."""
        # The client waits for a line (not merely between two: one taken from the queue, and not yet
        # shown, would then show under this one, as a review found).
        if not self._handling and send.statistics().tasks_waiting_receive:
            self._echo(line)
            # Handed to the client waiting for a line, perhaps not yet taken: the next wait for it.
            self._echoed_ahead, self._handling = line, True
        queue_typed(send, line, self)

    def _echo(self, line: str) -> None:
        self._add_to_log([PROMPT + echoed(line)], farewell=False)  # a quit's: not what was said after it

    # -- what the session shows ------------------------------------------------------

    def show(self, text: str) -> None:
        self._add_to_log(text.split("\n"), answer=True)
        self.draw()

    def layout_width(self) -> int | None:
        """The table pane's width: the window's, now."""
        return None if self.window is None else max(1, self.window.getmaxyx()[1])

    def output(self, output: Output) -> None:
        # after quitting, the game's news is not ours; what comes without a table is an answer (a refusal)
        self._add_to_log(output.log_lines, farewell=False, answer=output.table is None)
        if output.table is not None:
            self.table = output.table
            if moves := output.move_lines:  # none (the game's end alone): the last move stays
                self.last_action = moves[-LAST_ACTION_LINES:]
                self.last_action_at = None if self.session is None else self.session.table
        self.draw()

    def farewell(self, width: int | None = None) -> list[str]:
        """What this client said after the user quit (a kept seat, say), for the terminal once it is
        back: wrapped to its ``width`` (where known) at spaces, not wherever the terminal breaks."""
        lines = self.farewell_lines or []
        if width is None:
            return [plain(line) for line in lines]
        return ["".join(span.text for span in row).rstrip() for row in wrap_lines(lines, width)]

    def _add_to_log(self, lines: Iterable[str], farewell: bool = True, answer: bool = False) -> None:
        """Add ``lines`` to the log; an ``answer`` (what the client or the server says, not a game's
        moves) that comes while the newest lines are shown is read from its start if the log is too
        short for it (:meth:`_draw_log`)."""
        lines = list(lines)
        if self.scroll:  # scrolled back: what the user reads stays where it is
            self.scroll += len(wrap_lines(lines, self._width))
        elif answer and lines and self._answer_at is None:
            self._answer_at = len(self.log)
        self.log += lines
        if len(self.log) > LOG_LINES:
            dropped = len(self.log) - LOG_LINES
            del self.log[:dropped]
            if self._answer_at is not None:
                self._answer_at = None if self._answer_at < dropped else self._answer_at - dropped
            if self._top is not None:  # its line moved up with the others, or is gone
                self._top = None if self._top[0] < dropped else (self._top[0] - dropped, *self._top[1:])
        if self.farewell_lines is not None and farewell:  # kept apart: a full log drops its oldest lines
            self.farewell_lines += lines

    # -- what is typed -------------------------------------------------------------

    def line_reader(self, session: Session) -> LineReader:
        self.session = session
        self.quits = session.quits
        session.table_pane = True
        self.editor.complete = session.completions
        return self.read_keys

    async def read_keys(self, send: trio.MemorySendChannel[str | None]) -> None:
        """Read keys as they come, edit the line, and send each line entered (``None``: the end).

        Input that is readable again and again with no key in it has ended (the terminal is gone
        without a hang-up): that is the end too, rather than a loop spinning for ever. An escape
        sequence begun waits :data:`ESCAPE_WAIT` at most for its rest, then is dropped.
        """
        self.draw()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._count_down)
            await self._read_keys(send)
            nursery.cancel_scope.cancel()

    async def _read_keys(self, send: trio.MemorySendChannel[str | None]) -> None:
        empty = 0
        async with send:
            while True:
                with trio.move_on_after(ESCAPE_WAIT if self.escapes.waiting else math.inf) as waiting:
                    await trio.lowlevel.wait_readable(sys.stdin.fileno())
                if waiting.cancelled_caught:
                    self.escapes.give_up()  # the Esc key alone, or a sequence cut short
                    continue
                keys = self._keys()
                empty = 0 if keys else empty + 1
                if empty >= EMPTY_WAKES:
                    await send.send(None)
                    return
                if not keys:
                    await trio.sleep(EMPTY_PAUSE)
                    continue
                for key in keys:
                    line, end = self.press(key)
                    if line is not None:  # never waits: a paste fills the queue, and the rest is dropped
                        self._entered(line, send)
                    if end:
                        await send.send(None)
                        return
                self.draw()

    async def _count_down(self) -> None:
        """Redraw the status line as a timed turn's seconds go by: nothing else draws it while
        nobody types and no message comes. A turn that begins is noticed within ``COUNT_DOWN_LOOK``."""
        shown: int | None = None
        while True:
            await trio.sleep(min(self._next_tick(), COUNT_DOWN_LOOK))
            left = None if self.session is None else self.session.turn_time_left()
            if left != shown:
                shown = left
                self.draw()

    def _next_tick(self) -> float:
        """Seconds until the status line's count of a turn's time left next changes (inf: none)."""
        session = self.session
        if session is None or session.turn_time_left() is None or session.turn_ends is None:
            return math.inf
        return (session.turn_ends - session.clock()) % 1.0 + 0.01

    def _keys(self) -> list[RawKey]:
        """Every key curses has now (a string, or a number for a key it names)."""
        keys: list[RawKey] = []
        while True:
            try:
                keys.append(self.window.get_wch())
            except curses.error:  # no more for now
                return keys

    def press(self, raw: RawKey) -> tuple[str | None, bool]:
        """Act on one key as curses read it (a character of an escape sequence gathered until
        its end): the line entered, if any, and whether input ended."""
        if raw == curses.KEY_RESIZE:  # not typed: it neither ends a sequence nor is one's
            curses.update_lines_cols()
            self.window.clear()
            return None, False
        key = self.escapes.read(raw)
        if key is None:
            return None, False
        if key in (curses.KEY_PPAGE, curses.KEY_NPAGE, "pageup", "pagedown"):
            step = max(1, self._log_height - 1)
            up = key in (curses.KEY_PPAGE, "pageup")
            self.scroll = max(0, self.scroll + (step if up else -step))
            self._answer_at = None  # scrolled by hand from here on
            return None, False
        if key == "\x0c":  # Ctrl-L: draw everything again
            self.window.clear()
            return None, False
        name = _KEYS.get(key, "") if isinstance(key, int) else _CONTROLS.get(key, key)
        if name in ("end", "ctrl-e"):  # the line's end, and the log's newest lines: the way back down
            self.scroll, self._answer_at = 0, None
        effect = self.editor.press(name)
        if effect.options and effect.options != self._listed:  # Tab again: they are in the log already
            self.scroll, self._answer_at = 0, None  # shown where the user looks: at the newest lines
            self._add_to_log(["  " + "  ".join(effect.options)])
        self._listed = effect.options if name == "tab" else None  # any other key: Tab lists again
        if effect.line is not None:
            self.scroll, self._answer_at = 0, None
            if self.session is not None and self.session.quits(effect.line):
                self.farewell_lines = []
            if self.session is not None and (said := self.session.answered_as_typed(effect.line)):
                # answered here, under the line, and not acted on: ahead of any line waiting
                self._echo(effect.line)
                self._add_to_log([said], answer=True)
                return None, effect.end
        if effect.end:
            self.farewell_lines = []
        return effect.line, effect.end

    # -- resizing ------------------------------------------------------------------------

    async def follow_resizes(self, resizes: AsyncIterator[int]) -> None:
        async for _ in resizes:
            self._resized()

    def resumed(self) -> None:
        """Back from Ctrl-Z: curses has given the screen back, but a window resized meanwhile told
        the shell, not us, and kept the old layout until a key was pressed."""
        self._resized()

    def _resized(self) -> None:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno() if sys.__stdout__ else 1)
        except OSError:
            return
        with contextlib.suppress(curses.error):  # a size curses cannot take: draw in the old one
            curses.resizeterm(size.lines, size.columns)
        self.window.clear()  # everything again: the terminal has moved what it showed
        if self.session is not None and self.table is not None:  # laid out again for the new width
            self.table = self.session.table_text() or self.table
        self.draw()

    # -- drawing -------------------------------------------------------------------------

    def draw(self) -> None:
        """Lay the screen out for its size now and draw it; curses sends only what changed."""
        height, width = self.window.getmaxyx()
        self._width = max(1, width)
        self.window.erase()
        if height < 1 or width < 1:
            return
        self._put(0, 0, " " * width, curses.A_REVERSE)
        self._status(width)
        pane, ours, starts = self._pane(width)
        room = max(0, height - 3)  # the status, the log's rule and the input line
        # The log keeps LEAST_LOG rows if the table fits beside them; else the table takes all but one.
        fits = len(pane) <= room - LEAST_LOG
        pane_height = min(len(pane), room if room <= 1 else room - LEAST_LOG if fits else room - 1)
        if self.session is not None:  # 'table' then writes the whole of it into the log
            self.session.table_clipped = pane_height < len(pane)
        if pane_height < len(pane):  # too short for the whole table: its end (your turn), and your seat
            cut = len(pane) - pane_height + (1 if pane_height > 1 else 0)
            visible = _with_our_lines(pane, ours, starts, cut) if pane_height > 1 else pane[cut:]
            cut = len(pane) - len(visible)
            # Lines of ours kept from above the end: what is not shown is between them too, not only
            # above (a play-test took the groups shown for the whole table).
            where = "above" if pane[len(pane) - len(visible) :] == visible else "not shown"
            more = f"({cut} rows {where}: 'table', or a taller window, shows all)"
            if len(more) > width:  # cut off, it would break mid-sentence: the count alone fits more
                more = f"({cut} rows {where})"
            pane = ([([Span(more)], curses.A_DIM)] if pane_height > 1 else []) + visible
            pane_height = min(pane_height, len(pane))  # rows a partial line would have had: the log's
        for row, (spans, extra) in enumerate(pane[:pane_height]):
            self._put_spans(1 + row, spans, extra)
        rule = 1 + pane_height
        self._log_height = max(0, room - pane_height)
        self._draw_log(rule + 1, self._log_height, width)
        title = "── log " + ("(scrolled back: PageDown, End) " if self.scroll else "")
        if rule < height - 1:
            self._put(rule, 0, (title + "─" * width)[:width], curses.A_DIM)
        shown, cursor = self.editor.visible(max(1, width - len(PROMPT)))
        self._put(height - 1, 0, PROMPT + shown, curses.A_BOLD)
        with contextlib.suppress(curses.error):
            self.window.move(height - 1, min(width - 1, len(PROMPT) + cursor))
        self.window.noutrefresh()
        curses.doupdate()

    def _status(self, width: int) -> None:
        session = self.session
        if session is None:
            return
        view = session.view
        whose, look = "", 0
        short_turn = ""
        # In the order shown, each with what it is worth keeping when the line is short (most: 5).
        parts: list[tuple[str, float]] = [(session.server or "built-in server", 1)]
        if view is not None:
            limit = getattr(view.body, "turn_limit", None)  # a game whose body says one (Notty's)
            turn = f"turn {view.turn}"
            if isinstance(limit, int) and limit:  # said short where the line is (a play-test read "of 30")
                turn, short_turn = f"{turn} of {limit}", turn
            seat = f"seat {view.seat + 1}" if view.seat is not None else "watching"
            game = game_and_variant(view.game, view.variant)  # a variant named as its game: once
            parts += [(game, 2), (f"table {session.table}", 3), (turn, 5)]
            left = session.turn_time_left()
            if left is not None:  # a person's timed turn under way: counted down, a second at a time
                # Kept over all but the turn: at 60 columns a play-test saw none, then a bot took over.
                parts.append((f"{left} s left of {view.turn_seconds}", 4.5))
            elif view.turn_seconds and not view.over:
                parts.append((f"{view.turn_seconds} s a turn", 2.5))  # kept over the game (the table says it)
            parts.append((f"{session.known_as()}, {seat}", 4))
            if session.autopilot and not view.over:  # else only the log said so, and it scrolls away
                parts.append(("autopilot on", 4.2))  # over our name: at 60 columns a play-test lost it
            if view.over:
                whose, look = "game over", curses.A_REVERSE | curses.A_BOLD
            elif session.connection_down:  # the log says why; the table stands as last seen
                whose, look = "reconnecting", curses.A_REVERSE
            elif session.my_turn():
                whose, look = "your turn", self.looks.your_turn  # not reversed: it stands out of the bar
            else:  # another's turn, or ours while a bot plays it ('auto', autopilot, a time run out)
                whose, look = to_play(view), curses.A_REVERSE
        elif session.table is not None:
            parts += [(f"table {session.table}, before the start", 3), (session.known_as(), 4)]
        else:
            parts += [("lobby", 3), (session.name, 4)]
        room = width - 2 - (len(whose) + 4 if whose else 0)
        while len(parts) > 1 and len(" · ".join(text for text, _ in parts)) > room:
            parts.remove(min(parts, key=lambda part: part[1]))
        shown = " · ".join(text for text, _ in parts)
        if len(shown) > room and short_turn:  # the turn alone, and too long: without its limit
            shown = short_turn
        self._put(0, 1, shown[: max(0, room)], curses.A_REVERSE)
        if whose:
            self._put(0, max(0, width - len(whose) - 3), f" {whose} ", look)

    def _pane_rows(self, width: int) -> list[tuple[list[Span], int]]:
        """The table pane's rows, each with an attribute for the whole row: the last action,
        highlighted, over the table; a word when there is no table."""
        return self._pane(width)[0]

    def _pane(self, width: int) -> tuple[list[tuple[list[Span], int]], list[list[int]], list[int]]:
        """The table pane's rows (:meth:`_pane_rows`), the rows of lines to keep in sight (a hand
        shown on a line of its own, the line the game says a player must see to move, then our seat's
        line, then the table's first line: a play-tester's short window hid the draw pile's size, and
        another's Ochos Locos's top card), and where each line's rows start."""
        session = self.session
        if session is not None and session.arrived and session.table is not None and session.view is None:
            seated = (
                "its creator's 'start' begins it now, bots taking the empty seats; " if session.token else ""
            )
            waiting = f"table {session.table}: the game has not begun; {seated}'leave' returns to the lobby"
            return [(row, 0) for row in wrap(parse(waiting), width)], [], [0]
        if session is None or session.view is None or self.table is None:
            away = "not at a table: 'tables' lists them, 'new' makes one, 'help' says more"
            return [(row, 0) for row in wrap(parse(away), width)], [], [0]
        last = self.last_action if self.last_action_at == session.table else ()
        ui = session.game_ui()
        in_sight = None if ui is None else ui.in_sight
        rows: list[tuple[list[Span], int]] = []
        hand: list[int] = []
        needed: list[int] = []  # the line to see to move, where the game says one is (after the hand)
        seat: list[int] = []
        header: list[int] = []
        starts: list[int] = []
        lines = [(line, curses.A_BOLD) for line in last] + [(line, 0) for line in self.table.split("\n")]
        for index, (line, look) in enumerate(lines):
            wrapped = wrap(parse(line), width)
            here = range(len(rows), len(rows) + len(wrapped))
            if index >= len(last):  # kept in sight when the table is cut
                if index == len(last):
                    header += here
                elif OUR_HAND.match(plain(line)):
                    hand += here
                elif in_sight is not None and plain(line).startswith(in_sight):
                    needed += here
                elif OUR_SEAT.search(plain(line)):
                    seat += here
            starts.append(len(rows))
            rows += [(row, look) for row in wrapped]
        # The table's last line may go on in lines indented under it (huxxy's turn, packed to 80
        # columns): one line here, kept whole or cut above, so that a short pane never shows its
        # end without its start, "your turn: ...".
        end = len(lines) - 1
        while end > len(last) and plain(lines[end][0]).startswith("  "):
            starts.pop()
            end -= 1
        return rows, [ours for ours in (hand, needed, seat, header) if ours], starts

    def _draw_log(self, top: int, height: int, width: int) -> None:
        if height <= 0:
            return
        if self._answer_at is not None:  # the answer's first rows, and PageDown for the rest
            self.scroll = max(0, len(wrap_lines(self.log[self._answer_at :], width)) - height)
            if not self.scroll:  # it fits: the log shows the newest lines again as they come
                self._answer_at = None
        elif self.scroll and self._top is not None and self._top[3:] != (width, height):
            self.scroll = self._scroll_to(self._top, height, width)  # resized: the same line on top
        wanted = height + self.scroll
        rows: list[list[Span]] = []  # newest first
        blocks: list[tuple[int, int]] = []  # each block's first line and rows, newest first
        end = len(self.log)
        while end and len(rows) < wanted:  # a block at a time: a description laid out over lines is one
            start = self._block_start(end)
            wrapped = wrap_lines(self.log[start:end], width)
            rows += reversed(wrapped)
            blocks.append((start, len(wrapped)))
            end = start
        self.scroll = max(0, min(self.scroll, len(rows) - height))
        self._top = self._top_row(blocks, height, width) if self.scroll else None
        shown = rows[self.scroll : self.scroll + height]
        for row, spans in enumerate(reversed(shown)):
            self._put_spans(top + height - len(shown) + row, spans)

    def _block_start(self, end: int) -> int:
        """The first line of the block ending before ``end``: a description laid out over lines."""
        start = end - 1
        while start and continues(plain(self.log[start - 1]), plain(self.log[start])):
            start -= 1
        return start

    def _top_row(self, blocks: Sequence[tuple[int, int]], height: int, width: int) -> tuple[int, ...]:
        """Where the log, scrolled back, shows its top row: the block's first line, the row of it,
        its rows, at the width and height drawn (:meth:`_scroll_to` finds it again once resized)."""
        top, seen = self.scroll + height - 1, 0
        for start, count in blocks:
            if top < seen + count:
                return start, count - 1 - (top - seen), count, width, height
            seen += count
        return blocks[-1][0], 0, blocks[-1][1], width, height

    def _scroll_to(self, where: tuple[int, ...], height: int, width: int) -> int:
        """How far back to scroll for the row :meth:`_top_row` found to be on top again, now that the
        window is ``width`` by ``height``: rows counted from the newest moved as lines rewrapped, and
        a play-test reading the help was sent pages away by a resize."""
        line, row, count = where[:3]
        if line >= len(self.log):
            return self.scroll
        below = 0  # rows from the top block's first line to the newest, at the new width
        end, first = len(self.log), 0
        while end > line:
            start = self._block_start(end)
            first = len(wrap_lines(self.log[start:end], width))
            below += first
            end = start
        row = min(first - 1, round(row * first / count)) if count else 0
        return max(0, below - row - height)

    def _put_spans(self, y: int, spans: list[Span], extra: int = 0) -> None:
        x = 0
        for span in spans:
            self._put(y, x, span.text, self.looks.of(span.style) | extra)
            x += columns(span.text)

    def _put(self, y: int, x: int, text: str, attribute: int = 0) -> None:
        height, width = self.window.getmaxyx()
        if not 0 <= y < height or x >= width:
            return
        text = drawable(fit(text, width - x), self._encoding)
        with contextlib.suppress(curses.error):  # the bottom right cell cannot take the cursor after it
            self.window.addstr(y, x, text, attribute)
