"""The full-screen client's input line, with no curses in it: keys in, the line and its cursor out.

:mod:`client.screen` turns what curses reads into the key names here (``"left"``, ``"ctrl-w"``, a
typed character...) and draws :meth:`LineEditor.visible`; keeping the editing apart makes every key
testable without a terminal. The keys are readline's (Emacs mode) as far as a one-line prompt needs
them: Left/Right, Home/End (Ctrl-A/E), Backspace/Delete, Ctrl-U (to the start), Ctrl-W (a word back),
Up/Down through the history, Tab completion, Enter, and Ctrl-D on an empty line for the end of input.

A terminal sends a key that is not a character as an escape sequence. curses names those its
terminal description lists; :class:`EscapeReader` reads the others whole, so that one the editor
does not know (Alt and a key, a function key, a TERM that does not match the terminal) is dropped
rather than typed into the line, and Home, End, Delete and the arrows act however they arrive.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from .sgr import columns, fit

#: What completes a word: the line before it and the word so far in, the options out, in the
#: order to list them (:meth:`client.session.Session.completions`).
Completer = Callable[[str, str], list[str]]

#: The history keeps this many lines; older ones go.
HISTORY_LINES = 1000

#: The names :meth:`LineEditor.press` knows besides a single printable character.
KEYS = frozenset(
    {
        "left", "right", "home", "end", "backspace", "delete", "up", "down", "tab", "enter",
        "ctrl-a", "ctrl-e", "ctrl-u", "ctrl-w", "ctrl-d",
    }
)  # fmt: skip

ESC = "\x1b"
_ARROWS_HOME_END = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end"}
#: The escape sequences :class:`EscapeReader` makes keys of, in the forms terminals send for them
#: (xterm's, the Linux console's, rxvt's, tmux's and screen's): CSI (``ESC [``) and SS3 (``ESC O``).
#: Page Up and Page Down are the screen's (they scroll its log), not the editor's.
SEQUENCES = {
    **{f"{ESC}{kind}{final}": key for kind in "[O" for final, key in _ARROWS_HOME_END.items()},
    f"{ESC}[1~": "home", f"{ESC}[7~": "home",
    f"{ESC}[4~": "end", f"{ESC}[8~": "end",
    f"{ESC}[3~": "delete",
    f"{ESC}[5~": "pageup", f"{ESC}[6~": "pagedown",
    f"{ESC}OM": "enter",  # the keypad's Enter
}  # fmt: skip
#: A sequence longer than this is none of :data:`SEQUENCES`: only its start is kept, until its end.
SEQUENCE_LIMIT = 16


@attrs.frozen
class Effect:
    """What a key did beyond editing: a line entered, options to list, or the end of input."""

    line: str | None = None  # Enter: the line, to act on
    options: tuple[str, ...] = ()  # Tab with more than one way on: every option, for the log
    end: bool = False  # Ctrl-D on an empty line: no more input (as at the end of a pipe)


class LineEditor:
    """One line being typed, its cursor, and the lines entered before it."""

    def __init__(self, complete: Completer | None = None) -> None:
        self.text = ""
        self.cursor = 0  # characters before it
        self.history: list[str] = []
        self.complete = complete
        self._back = 0  # how far up the history the line shown is (0: the line being typed)
        self._draft = ""  # the line being typed, kept while the history is shown

    def press(self, key: str) -> Effect:
        """Act on one key: a printable character is typed; a name in :data:`KEYS` edits or acts;
        anything else changes nothing."""
        text, cursor = self.text, self.cursor
        match key:
            case "left":
                self.cursor = max(0, cursor - 1)
            case "right":
                self.cursor = min(len(text), cursor + 1)
            case "home" | "ctrl-a":
                self.cursor = 0
            case "end" | "ctrl-e":
                self.cursor = len(text)
            case "backspace" if cursor:
                self._set(text[: cursor - 1] + text[cursor:], cursor - 1)
            case "delete":
                self._set(text[:cursor] + text[cursor + 1 :], cursor)
            case "ctrl-d" if not text:
                return Effect(end=True)
            case "ctrl-d":
                self._set(text[:cursor] + text[cursor + 1 :], cursor)
            case "ctrl-u":
                self._set(text[cursor:], 0)
            case "ctrl-w":
                start = len(text[:cursor].rstrip(" "))
                start = text.rfind(" ", 0, start) + 1
                self._set(text[:start] + text[cursor:], start)
            case "up":
                self._recall(self._back + 1)
            case "down":
                self._recall(self._back - 1)
            case "tab":
                return Effect(options=self._complete())
            case "enter":
                return Effect(line=self._enter())
            case _ if len(key) == 1 and key.isprintable():
                self._set(text[:cursor] + key + text[cursor:], cursor + 1)
        return Effect()

    def visible(self, width: int) -> tuple[str, int]:
        """The part of the line that fits ``width`` columns, and the cursor's column in it: the
        line scrolls sideways to keep the cursor in view. Columns, not characters: a wide
        character takes two."""
        if width <= 1:
            return "", 0
        start, used = self.cursor, 0
        # As far back as leaves the cursor in view: it may sit after the last character.
        while start and used + columns(self.text[start - 1]) <= width - 1:
            start -= 1
            used += columns(self.text[start])
        return fit(self.text[start:], width), used

    # -- the keys' work ------------------------------------------------------------------

    def _set(self, text: str, cursor: int) -> None:
        self.text, self.cursor = text, cursor

    def _enter(self) -> str:
        line = self.text
        if line.strip() and (not self.history or self.history[-1] != line):
            self.history.append(line)
            del self.history[:-HISTORY_LINES]
        self._set("", 0)
        self._back, self._draft = 0, ""
        return line

    def _recall(self, back: int) -> None:
        """Show the line ``back`` entries up the history (0: the line that was being typed)."""
        if not 0 <= back <= len(self.history) or back == self._back:
            return
        if self._back == 0:
            self._draft = self.text
        self._back = back
        line = self._draft if back == 0 else self.history[-back]
        self._set(line, len(line))

    def _complete(self) -> tuple[str, ...]:
        """Complete the word before the cursor as far as every option agrees; the options, when
        there is more than one."""
        if self.complete is None:
            return ()
        before_cursor = self.text[: self.cursor]
        start = before_cursor.rfind(" ") + 1
        word = before_cursor[start:]
        options = self.complete(before_cursor[:start], word)
        if not options:
            return ()
        if len(options) == 1:
            self._replace_word(start, options[0] + " ")
            return ()
        prefix = common_prefix(options)
        if len(prefix) >= len(word) and prefix != word:  # longer, or the options' case: 'r' -> 'R'
            self._replace_word(start, prefix)
        return tuple(options)

    def _replace_word(self, start: int, new: str) -> None:
        """Put ``new`` for the word from ``start`` to the cursor, the cursor after it: after its
        space when it ends in one (a whole word), else still in the word (a common prefix)."""
        rest = self.text[self.cursor :]
        if new.endswith(" ") and rest.startswith(" "):
            new = new[:-1] + rest[0]  # the space already there is the word's: no second one
            rest = rest[1:]
        self._set(self.text[:start] + new + rest, start + len(new))


#: A key as the terminal library reads it: a character, or a number for a key it named itself
#: (curses's ``KEY_LEFT``...), which this module passes on without knowing what it is.
RawKey = str | int


class EscapeReader:
    """Escape sequences read whole, one key at a time: what the keys typed make.

    Every key but ESC passes as it is. After ESC the reader gathers a sequence and gives the key
    it is in :data:`SEQUENCES`, or nothing: one it does not know is dropped whole, never typed.
    A sequence is CSI (``ESC [``, parameter bytes, then one final byte 0x40-0x7E), SS3 (``ESC O``
    and one byte), or ESC and one other key (Alt and that key, or a key the library named after
    ESC). A control character or a non-ASCII one cannot be in a sequence: it ends the sequence,
    dropped, and acts itself (Enter still enters). ESC again drops what was gathered and starts
    anew. ESC alone (the Esc key) waits for more: the caller, after a pause with nothing more to
    read, calls :meth:`give_up`, so the key typed after it acts.
    """

    def __init__(self) -> None:
        self._sequence = ""  # gathered so far: empty, or ESC and what followed it

    @property
    def waiting(self) -> bool:
        """Whether a sequence is begun and not ended: the next key may be its."""
        return bool(self._sequence)

    def give_up(self) -> None:
        """Nothing more came: what was gathered (the Esc key alone, say) is dropped."""
        self._sequence = ""

    def read(self, key: RawKey) -> RawKey | None:
        """The key ``key`` makes: itself, the key a sequence it ends names, or ``None`` (part of a
        sequence, or a sequence ended that names no key the editor or the screen knows)."""
        sequence = self._sequence
        if key == ESC:
            self._sequence = ESC
            return None
        if not sequence:
            return key
        if isinstance(key, int) or (sequence == ESC and key not in ("[", "O")):
            self._sequence = ""  # Alt and a key
            return None
        if not (len(key) == 1 and " " <= key <= "~"):  # cannot be in a sequence: it ends it, and acts
            self._sequence = ""
            return key
        sequence = (sequence + key)[:SEQUENCE_LIMIT]
        # ESC [ or ESC O, begun; ESC [ [ too: the Linux console's F1 is ESC [ [ A.
        if len(sequence) == 2 or sequence == ESC + "[[":
            ended = False
        else:
            ended = sequence[1] == "O" or "@" <= key <= "~"  # SS3's one byte; CSI's final byte
        if not ended:
            self._sequence = sequence
            return None
        self._sequence = ""
        return SEQUENCES.get(sequence)


def common_prefix(words: list[str]) -> str:
    """The longest start every word shares (case counts: a completion is typed as it is offered)."""
    first, last = min(words), max(words)
    length = 0
    while length < min(len(first), len(last)) and first[length] == last[length]:
        length += 1
    return first[:length]
