"""Text with ANSI colour codes, as the games' UIs write it, turned into styled spans for curses.

A game's UI colours its text for a terminal (:func:`games._ui.coloured`: ``ESC[1;31m`` ...
``ESC[0m``); the full-screen client cannot print those codes into a curses window, so it reads
them here into :class:`Style` s and lets :mod:`client.screen` map each to a curses attribute. Only
what our UIs emit is understood: reset (0), bold (1, and 22 to end it), the eight foreground
colours (30-37, 39 for the default) and their bright forms (90-97). Any other escape sequence,
and any other control character, is dropped, so text from a server cannot move the cursor.
Lines are measured in terminal columns (:func:`columns`), not characters: a wide character (CJK,
most emoji) takes two, so a line of them counted as characters would run past the screen's edge.
Pure: no curses.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Sequence

import attrs


@attrs.frozen
class Style:
    """How a span looks: bold or not, and its foreground colour (0-7: black, red, green, yellow,
    blue, magenta, cyan, white; ``None``: the terminal's own), bright or not."""

    bold: bool = False
    colour: int | None = None
    bright: bool = False


PLAIN = Style()


@attrs.frozen
class Span:
    text: str
    style: Style = PLAIN


#: A control sequence (CSI ... final byte), a two-character escape, or a lone ESC.
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_]|$)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def parse(text: str) -> list[Span]:
    """``text`` as spans of one style each, the colour codes read and every other escape dropped;
    a line's style starts plain."""
    spans: list[Span] = []
    style = PLAIN
    at = 0
    for escape in _ESCAPE.finditer(text):
        _add(spans, text[at : escape.start()], style)
        code = escape.group(0)
        if code.startswith("\x1b[") and code.endswith("m"):
            style = _apply(style, code[2:-1])
        at = escape.end()
    _add(spans, text[at:], style)
    return spans


def render(spans: Sequence[Span]) -> str:
    """Spans as text with the colour codes :func:`parse` reads (bold, a colour, bright): its inverse."""
    text = ""
    for span in spans:
        style = span.style
        if style == PLAIN:
            text += span.text
            continue
        codes = ["1"] if style.bold else []
        if style.colour is not None:
            codes.append(str((90 if style.bright else 30) + style.colour))
        text += f"\x1b[{';'.join(codes)}m{span.text}\x1b[0m"
    return text


def plain(text: str) -> str:
    """``text`` without its colour codes (or any other escape)."""
    return "".join(span.text for span in parse(text))


def _add(spans: list[Span], text: str, style: Style) -> None:
    text = _CONTROL.sub("", text.replace("\t", " "))
    if not text:
        return
    if spans and spans[-1].style == style:
        spans[-1] = Span(spans[-1].text + text, style)
    else:
        spans.append(Span(text, style))


def _apply(style: Style, parameters: str) -> Style:
    """The style after an SGR sequence's parameters (``"1;31"``; empty is a reset)."""
    for parameter in parameters.split(";") if parameters else ["0"]:
        if not parameter.isdigit():
            continue  # not ours (a private or malformed parameter): ignored
        code = int(parameter)
        if code == 0:
            style = PLAIN
        elif code == 1:
            style = attrs.evolve(style, bold=True)
        elif code == 22:
            style = attrs.evolve(style, bold=False)
        elif 30 <= code <= 37:
            style = attrs.evolve(style, colour=code - 30, bright=False)
        elif code == 39:
            style = attrs.evolve(style, colour=None, bright=False)
        elif 90 <= code <= 97:
            style = attrs.evolve(style, colour=code - 90, bright=True)
    return style


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes: two for each wide character, none for a combining
    one (an accent drawn over the character before it), one for any other."""
    return len(text) if text.isascii() else sum(map(_columns, text))


def fit(text: str, width: int) -> str:
    """The start of ``text`` that fits in ``width`` columns."""
    used = 0
    for at, char in enumerate(text):
        used += _columns(char)
        if used > width:
            return text[:at]
    return text


def _columns(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Me", "Mn", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def wrap(spans: list[Span], width: int) -> list[list[Span]]:
    """The spans of one line in rows of at most ``width`` columns, broken after a space where
    one is near (a card is not split between rows), else wherever the row is full. An empty line
    is one empty row.

    The rows after the first hang: they start under the line's description column when the line
    is laid out as a help line is (indent, term, a gap of two spaces or more in the first half
    of the line, description), under the line's own start if it is a description alone (8 columns
    in or more), else two columns in from the line's own indentation; never more than half the
    width in, so a narrow screen still has room for the text. A row does not start
    with the spaces it was broken at."""
    if width < 1:
        return [[]]
    cells = [(char, span.style) for span in spans for char in span.text]
    sizes = [_columns(char) for char, _ in cells]
    text = "".join(char for char, _ in cells)
    hang = min(_hanging_indent(text), width // 2)
    whole = _inside_commands(text, min(width - hang, COMMAND_KEPT)) | _before_values(text, width - hang)
    rows: list[list[Span]] = []
    start, left = 0, sum(sizes)  # the first cell not yet in a row, and the columns from it on
    room = width  # the columns the next row has for cells
    while left > room and start < len(cells) - 1:  # the last cell, alone, is the last row
        end, used = start, 0
        while used + sizes[end] <= room:  # as many cells as fill the row (they cannot run out)
            used += sizes[end]
            end += 1
        end = max(end, start + 1)  # a wide character in a row one column wide: alone, cut off
        spaces = [at for at in range(end - 1, start, -1) if cells[at][0] == " "]
        cut = next((at + 1 for at in spaces if at not in whole), spaces[0] + 1 if spaces else end)
        rows.append(_spans(cells[start:cut], hang if rows else 0))
        left -= sum(sizes[start:cut])
        start, room = cut, width - hang
        while start < len(cells) and cells[start][0] == " ":  # the break's spaces, at the row's end
            left -= sizes[start]
            start += 1
    if start < len(cells) or not rows:
        rows.append(_spans(cells[start:], hang if rows else 0))
    return rows


def wrap_lines(lines: Sequence[str], width: int) -> list[list[Span]]:
    """``lines`` (with colour codes) in rows of at most ``width`` columns, as :func:`wrap` makes them,
    each description whole again first where its text was laid out over several lines.

    Help texts are laid out for 80 columns: a description goes on in lines of its own, starting
    under itself (:func:`continues`). Wrapping each of those lines to a narrower screen would
    break them twice, a long row and a short one each. Where a description's lines all fit they
    are kept as laid out; where one does not, the description is wrapped as one line."""
    rows: list[list[Span]] = []
    for block in blocks(lines):
        if len(block) > 1 and any(columns(plain(line)) > width for line in block):
            block = [" ".join([block[0], *(line.lstrip(" ") for line in block[1:])])]
        rows += [row for line in block for row in wrap(parse(line), width)]
    return rows


#: The longest quoted command a row is not broken in: one to type ('join 12', 'new human'), not
#: a long example, whose row would otherwise end early ("e.g." alone on a row).
COMMAND_KEPT = 30
#: A quoted command in a line ('join 2', 'help WORD'): its opening quote at the line's start or
#: after a space or a parenthesis (not an apostrophe: "bob's"), its closing one before a space,
#: punctuation or the line's end.
_QUOTED = re.compile(r"(?<![^\s(])'[^'\s][^']*'(?=[\s,.;:)]|$)")


def _inside_commands(text: str, longest: int) -> set[int]:
    """Where the spaces inside ``text``'s quoted commands are, of those that fit a row of
    ``longest`` columns with what follows them up to the next space: a row is broken elsewhere
    where it can be. A play-test at 60 columns read "'join" at the end of a row and "2'" at the
    start of the next, which cannot be copied and typed."""
    kept = set()
    for found in _QUOTED.finditer(text):
        end = text.find(" ", found.end())  # what follows it up to there stays with it ("'join 2',")
        unit = text[found.start() : len(text) if end < 0 else end]
        if columns(unit) < longest:  # and a row needs a space after it to break at
            kept |= {found.start() + at for at, char in enumerate(found.group()) if char == " "}
    return kept


#: An option's name (``hand_limit``), which stays with whatever value follows it ...
_OPTION_NAME = re.compile(r"[a-z]+(?:_[a-z]+)+")
#: ... and the words that name a thing by a number after them (``limit 200,``, ``table 12:``); not
#: every word before a number: prose ("make 1 to 6 plays") would break a row early for nothing.
_NUMBERED = frozenset({"table", "seat", "turn", "limit", "quiet", "time", "group", "game", "round"})
_NAMED_NUMBER = re.compile(r"\d+[,.;:)]?")
#: A count in brackets, which stays with the word before it: a hint's outs ("B2 (+2),").
_COUNT_AFTER = re.compile(r"\([+-]?\d+\)[,.;:]?")


def _before_values(text: str, longest: int) -> set[int]:
    """Where the spaces between a name and its value are (and a card and its count in brackets), of
    those that fit a row of ``longest`` columns together: a row is broken elsewhere where it can be.
    A play-test read a table's list at 60 columns with "hand_limit" ending one row and its "5"
    starting the next, and a hint's outs with "B2" ending a row and its "(+2)" starting the next."""
    kept = set()
    words = text.split(" ")
    at = 0
    for word, after in itertools.pairwise(words):
        at += len(word)
        named = (
            _OPTION_NAME.fullmatch(word)
            or (word.lower() in _NUMBERED and _NAMED_NUMBER.fullmatch(after))
            or _COUNT_AFTER.fullmatch(after)
        )
        if named and columns(f"{word} {after}") < longest:
            kept.add(at)
        at += 1
    return kept


def reflow(text: str, width: int) -> str:
    """A text laid out for 80 columns as the games' rules are (a title, then items two columns in,
    each item's further lines two columns deeper unless it ends in ':' to introduce a list), for
    a terminal ``width`` columns wide: each item's lines joined, then wrapped as :func:`wrap`
    wraps a line, its further rows two columns in. Wrapped line by line, a 60-column terminal
    showed each item as a long row and a short one, twice over ("hand limit" / "20")."""
    items: list[str] = []
    for line in text.split("\n"):
        bare, above = plain(line), plain(items[-1]) if items else ""
        goes_on = bare.strip() and above.strip() and not above.rstrip().endswith(":")
        if goes_on and _indent(bare) == _indent(above) + 2 >= 4:  # an item's further line (not the title's)
            items[-1] += " " + line.lstrip(" ")
        else:
            items.append(line)
    return "\n".join(coloured(row) for item in items for row in wrap(parse(item), width))


def coloured(row: Sequence[Span]) -> str:
    """A wrapped row, back in colour codes, without the space it was broken at."""
    last = [Span(row[-1].text.rstrip(" "), row[-1].style)] if row else []
    return render([*row[:-1], *last])


def _indent(line: str) -> int:
    return columns(line) - columns(line.lstrip(" "))


def blocks(lines: Sequence[str]) -> list[list[str]]:
    """``lines`` in runs of a first line and the lines that go on with its text (:func:`continues`)."""
    runs: list[list[str]] = []
    for line in lines:
        if runs and continues(plain(runs[-1][-1]), plain(line)):
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


#: A description's further lines start this far in, or further: a help line's description column.
_DEEP = 8


def continues(above: str, line: str) -> bool:
    """Does ``line`` go on with the text of the line ``above`` it (both without colour codes)?

    So it does when it holds text alone, starting where the text above starts: under the
    description of a help line (a term, a gap of two spaces or more, a description), or under a
    line of description alone. Both must start at least 8 columns in, so that lines of a list or
    a table, which start nearer the edge, are never run together."""
    indent = _indent(line)
    if indent < _DEEP or not line.strip() or not above.strip() or _TWO_COLUMNS.match(line):
        return False
    return indent == _text_column(above)


def _text_column(line: str) -> int | None:
    """Where the text of a line starts: its description's column, or its own indent if it is deep."""
    found = _TWO_COLUMNS.match(line)
    if found and 2 * columns(line[: found.start(2)]) <= columns(line):
        return columns(found.group(0))
    indent = _indent(line)
    return indent if indent >= _DEEP else None


#: A line laid out as a help line is: indent, a term (words one space apart), a gap, a description.
_TWO_COLUMNS = re.compile(r"( *)\S+(?: \S+)*( {2,})(?=\S)")


def _hanging_indent(text: str) -> int:
    """How far in the rows after the first of a wrapped ``text`` start: under its description,
    if it has one in the first half of the line, or under its own start if it is deep, else two
    columns in from its indentation."""
    column = _text_column(text)
    return column if column is not None else _indent(text) + 2


def _spans(cells: list[tuple[str, Style]], indent: int = 0) -> list[Span]:
    spans: list[Span] = [Span(" " * indent)] if indent else []
    for char, style in cells:
        _add(spans, char, style)
    return spans
