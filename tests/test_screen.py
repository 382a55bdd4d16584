"""The full-screen client as a person sees it: the real ``notty-client`` on a pty, against a real
server, its output fed into a VT100 screen emulator (pyte), and the screen read back: the status
line, the table pane, the log and the input line. Then the pure parts: the SGR parser and what the
session gives the screen."""

from __future__ import annotations

import curses
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pexpect
import pyte
import pytest
import trio
import trio.testing
from pyte.screens import Margins
from test_client_session import notty_view, welcomed

from client.commands import echoed
from client.screen import LOG_LINES, Screen, _drawn_in, _with_our_lines, drawable, wrapped_text
from client.session import HINT_ON_ITS_WAY, Output, Session
from client.sgr import PLAIN, Span, Style, columns, fit, parse, plain, render, wrap
from client.terminal import Terminal
from games._ui import ANSI, coloured
from protocol import Seated, State

BIN = Path(sys.executable).parent
ROWS, COLS = 30, 100
#: Where the screen's parts are: the status line on top, the input line at the bottom.
STATUS = 0


class Emulator(pyte.Screen):
    """pyte's screen with the three xterm sequences curses uses that pyte lacks: scrolling the
    region up (SU) and down (SD), and repeating the last character (REP)."""

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self.last_drawn = " "

    def draw(self, data: str) -> None:
        super().draw(data)
        if data:
            self.last_drawn = data[-1]

    def scroll_up(self, count: int = 1, *_: Any, **__: Any) -> None:
        self._scroll(count or 1, lambda margins: margins.bottom, self.index)

    def scroll_down(self, count: int = 1, *_: Any, **__: Any) -> None:
        self._scroll(count or 1, lambda margins: margins.top, self.reverse_index)

    def repeat(self, count: int = 1, *_: Any, **__: Any) -> None:
        self.draw(self.last_drawn * (count or 1))

    def _scroll(self, count: int, line: Callable[[Margins], int], step: Callable[[], None]) -> None:
        margins = self.margins or Margins(0, self.lines - 1)
        y, x = self.cursor.y, self.cursor.x
        self.cursor.y = line(margins)
        for _ in range(count):
            step()
        self.cursor.y, self.cursor.x = y, x


class EmulatorStream(pyte.Stream):
    csi: ClassVar[dict[str, str]] = {**pyte.Stream.csi, "S": "scroll_up", "T": "scroll_down", "b": "repeat"}


class Person:
    """A person at a terminal of ``rows`` by ``cols`` running ``notty-client args`` (through ``sh``,
    which records the terminal's settings before and after it, in ``tty_before`` and ``tty_after``)."""

    def __init__(self, tmp_path: Path, *args: str, rows: int = ROWS, cols: int = COLS, **env: str) -> None:
        environment = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": str(tmp_path / "state"), **env}
        if "NO_COLOR" not in env:
            environment.pop("NO_COLOR", None)
        self.tty_before, self.tty_after = tmp_path / "tty-before", tmp_path / "tty-after"
        # sh outlives a Ctrl-C (caught, so the client gets it as usual) to record the settings after.
        script = 'trap : INT; stty -g > "$0-before"; "$@"; status=$?; stty -g > "$0-after"; '
        script += 'echo "exit $status"'
        self.child = pexpect.spawn(
            "/bin/sh",
            ["-c", script, str(tmp_path / "tty"), str(BIN / "notty-client"), *args],
            env=environment,
            encoding="utf-8",
            timeout=20,
            dimensions=(rows, cols),
        )
        self.screen = Emulator(cols, rows)
        self.stream = EmulatorStream(self.screen)
        self.output = ""  # everything the terminal was sent

    # -- reading the screen ----------------------------------------------------------------

    def pump(self) -> None:
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=0.05)
            except (pexpect.TIMEOUT, pexpect.EOF):
                return
            self.output += data
            self.stream.feed(data)

    @property
    def rows(self) -> list[str]:
        return list(self.screen.display)

    def row(self, number: int) -> str:
        return self.rows[number]

    def text(self) -> str:
        return "\n".join(self.rows)

    def wait(self, ready: Callable[[], Any], what: str, timeout: float = 20) -> Any:
        """Read the screen until ``ready()`` is true (returning its value); fail showing the screen."""
        deadline = time.monotonic() + timeout
        while True:
            self.pump()
            if found := ready():
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {what}; the screen:\n{self.text()}")

    def see(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        found = self.wait(lambda: re.search(pattern, self.text(), re.MULTILINE), repr(pattern), timeout)
        match: re.Match[str] = found
        return match

    def log(self) -> list[str]:
        """The log's rows, oldest first: between its rule and the input line."""
        rows = self.rows
        rule = next(number for number, row in enumerate(rows) if row.startswith("── log"))
        return [row.rstrip() for row in rows[rule + 1 : -1]]

    def input_line(self) -> str:
        return self.rows[-1].rstrip()

    # -- acting ----------------------------------------------------------------------------

    def type(self, keys: str) -> None:
        self.child.send(keys)

    def enter(self, line: str) -> None:
        self.child.send(line + "\r")

    def resize(self, rows: int, cols: int) -> None:
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def finish(self) -> int:
        """Wait for the program (and ``sh``) to end: the client's exit status."""
        self.child.expect(pexpect.EOF)
        self.output += self.child.before or ""
        self.stream.feed(self.child.before or "")
        found = re.search(r"exit (\d+)", self.output)
        assert found, self.output[-2000:]
        return int(found.group(1))

    def terminal_restored(self) -> bool:
        """The terminal's settings after the client are what they were before it."""
        return self.tty_before.read_text() == self.tty_after.read_text()


UP, PAGE_UP, PAGE_DOWN = "\x1bOA", "\x1b[5~", "\x1b[6~"  # as xterm sends them in keypad mode
CTRL_U = "\x15"


def _my_turn(person: Person) -> Any:
    return person.see(r"your turn\s*$", timeout=30)  # on the status line, at its right end


def _hands(person: Person) -> dict[str, list[str]]:
    """Each seat's cards as the table pane shows them: ``name [ n]  cards``."""
    hands = {}
    for row in person.rows[1:]:
        if row.startswith("── log"):
            break
        found = re.match(r" [> ] (\S+)\s+\[\s*(\d+)\]\s+(.*?)(?: \(you\))?(?: \(bot\))?\s*$", row)
        if found:
            cards = found.group(3).split()
            assert len(cards) == int(found.group(2)), row  # the size shown is the cards shown
            hands[found.group(1)] = cards
    return hands


def _card_colours(person: Person, card: str) -> set[str]:
    """The colours the table pane draws ``card`` in, where it first shows it."""
    for number, row in enumerate(person.rows[1:], 1):
        found = re.search(rf"(?<!\S){card}(?=\*?(?!\S))", row)  # Ochos Locos marks a playable card R5*
        if found:
            return {person.screen.buffer[number][x].fg for x in range(found.start(), found.end())}
    raise AssertionError(f"{card} is not on the screen:\n{person.text()}")


def _time_left(status: str) -> int:
    found = re.search(r"(\d+) s left of", status)
    return int(found.group(1)) if found else 10**6


def test_a_person_plays_on_the_full_screen(server_port: int, tmp_path: Path) -> None:
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann")
    ann.see("connected to")
    assert ann.row(STATUS).startswith(f" 127.0.0.1:{server_port} · lobby · ann")
    assert "\x1b[?1049h" in ann.output  # the full screen, not line mode
    ann.enter("new classic 2 greedy time 900")
    ann.see(r"you sit at table (\d+), seat 1")
    _my_turn(ann)

    # The status line: server, game and variant, table, turn of limit, turn time, name and seat, whose turn.
    status = ann.row(STATUS)
    # (at 80 columns the turn time is kept and the server's address left out)
    where = r" notty classic · table \d+ · turn \d+ of 300 · \d+ s left of 900"  # counted down
    assert re.match(where + r" · ann, seat 1 +your turn  $", status), status
    at = status.index("your turn")
    assert ann.screen.buffer[STATUS][1].reverse and not ann.screen.buffer[STATUS][at].reverse  # it stands out
    # The turn's time left counts down by itself, nothing typed (it said "900 s a turn" throughout).
    first = _time_left(status)
    ann.wait(lambda: _time_left(ann.row(STATUS)) < first, "the time left counted down")
    # The table pane: every hand with its size, the deck, what may be done.
    hands = _hands(ann)
    assert set(hands) == {"ann", "greedy-2"}
    assert _card_colours(ann, hands["ann"][0]) <= {"red", "brown", "green", "blue", "brightblack"}  # coloured
    assert re.search(r"^table \d+ · classic · turn \d+ of 300 · deck \d+ cards", ann.text(), re.MULTILINE)
    # (a dealt hand holding a group offers its discard first)
    assert re.search(r"^your turn: (discard \((any of )?\d+ groups?\), )?draw 1-3", ann.text(), re.MULTILINE)
    assert ann.input_line() == "notty>"

    # Tab completes by the command: a command at the start of the line (at our turn, one we may use).
    ann.type("dra\t")
    ann.wait(lambda: ann.input_line() == "notty> draw", "dra<Tab> completed")
    ann.type(CTRL_U)
    ann.wait(lambda: ann.input_line() == "notty>", "the line cleared")

    before = len(hands["ann"])
    ann.enter("draw 1")
    drawn = ann.see(r"you draw 1 card: ([RYGBK]\d+)").group(1)  # her own move, in her own words
    ann.wait(lambda: len(_hands(ann).get("ann", [])) == before + 1, "ann's hand one card bigger")
    assert drawn in _hands(ann)["ann"]
    # The last action, highlighted above the table.
    last = ann.row(1)
    assert last.strip() == f"you draw 1 card: {drawn}", last
    assert all(char.bold for char in ann.screen.buffer[1].values() if char.data != " ")
    assert any(row.strip() == f"you draw 1 card: {drawn}" for row in ann.log())
    assert "notty> draw 1" in ann.log()

    ann.enter("draw 1")  # a second draw in one turn: the server refuses it, and says why
    ann.see(r"refused: .*")
    assert any(row.startswith("refused: ") for row in ann.log())

    ann.enter("end")
    ann.see(r"you end the turn")
    assert any(row.strip().startswith("you end the turn") for row in ann.log())
    # The table pane is not in the log: the table's header never is.
    assert not any(row.startswith("table ") and "deck" in row for row in ann.log())

    # History: Up recalls the last line entered.
    ann.type(UP)
    ann.wait(lambda: ann.input_line() == "notty> end", "Up recalling 'end'")
    ann.type(CTRL_U)

    # Wider: the screen is laid out again, the rule and the status line to the new width.
    ann.resize(34, 120)
    ann.wait(lambda: ann.row(33).startswith("notty>"), "the input line at row 33")
    ann.wait(lambda: any(row == "── log " + "─" * 113 for row in ann.rows), "the log's rule 120 wide")
    ann.wait(lambda: re.search(r"(your turn|greedy-2 to play)  $", ann.row(STATUS)), "whose turn at its end")
    # Narrower: long lines wrap at the new width, the input line at the new bottom.
    ann.resize(20, 60)
    ann.wait(lambda: ann.row(19).startswith("notty>") and ann.row(STATUS).endswith("  "), "laid out at 60")
    assert any(row == "── log " + "─" * 53 for row in ann.rows)
    # A play-test at 60 columns never saw its time run down: the countdown outranks all but the turn.
    counted = re.compile(r" (table \d+ · )?turn \d+ of 300 · \d+ s left of 900 +your turn  $")
    ann.wait(lambda: counted.match(ann.row(STATUS)) is not None, "the time left at 60 columns, at our turn")

    ann.enter("quit")
    assert ann.finish() == 0
    assert ann.terminal_restored()
    back = ann.output[ann.output.rindex("\x1b[?1049l") :]  # what follows the full screen
    said = re.sub(r"\s*\r\n\s*", " ", back)  # wrapped at spaces to the terminal's width
    kept = r"your seat at table \d+ is kept; to take it back, run: notty-client 127\.0\.0\.1:\d+ --name ann"
    assert re.search(kept, said)


def test_the_status_line_says_when_a_bot_plays_our_turn(server_port: int, tmp_path: Path) -> None:
    """On autopilot the status line named us as the one to play ('ann to play'), as if another."""
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann")
    ann.see("connected to")
    # Three players: heads-up against greedy, the autopilot could win in 9 turns, before the resizing below.
    ann.enter("new classic 3 greedy qlearn")
    _my_turn(ann)
    ann.enter("auto on")
    ann.wait(lambda: ann.row(STATUS).endswith(" a bot plays your turn  "), "the status line on autopilot")
    assert " ann to play" not in ann.row(STATUS)
    # At every turn, not only ours: a play-test found no sign of it on the screen but the log's line.
    ann.wait(lambda: " · autopilot on " in ann.row(STATUS), "autopilot named on the status line")
    # Narrower, it is kept over our name (a play-test lost it at 60 columns), and a turn limit that
    # does not fit is left out, not cut ("turn 52 of 30", read as past the limit of 300).
    ann.resize(24, 60)
    ann.wait(lambda: "autopilot on" in ann.row(STATUS) and "ann, seat 1" not in ann.row(STATUS), "at 60")
    ann.resize(24, 40)
    # (whole or not at all: "turn 9 of 300" fits in 40 columns beside it, "turn 52 of 300" does not)
    ann.wait(
        lambda: re.match(r" turn \d+(?: of 300)? +a bot plays your turn", ann.row(STATUS)) is not None,
        "at 40",
    )
    ann.resize(24, 80)
    ann.enter("auto off")
    ann.wait(lambda: "autopilot" not in ann.row(STATUS), "the status line without autopilot")
    ann.enter("quit")


def test_hint_typed_six_times_fast_shows_one_hint_and_answers_each_other_once(
    server_port: int, tmp_path: Path
) -> None:
    """A play-test typed 'hint' six times fast at its huxxy turn and saw three hints alike mixed with
    three "a hint is on its way": a line acted on after the answer came sent another, for the same
    position. One hint is asked for; every other line is answered as it is typed, under it."""
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann", rows=50)
    ann.see("connected to")
    ann.enter("new huxxy 2 greedy")
    _my_turn(ann)
    ann.type("hint\r" * 6)
    ann.wait(lambda: any(row.startswith("hint: ") for row in ann.log()), "the hint")
    time.sleep(0.5)  # any other hint sent would be answered by now
    ann.pump()
    log = ann.log()
    first = log.index("notty> hint")
    typed = log[first : first + 11]
    assert [row for row in typed if row.startswith("notty> ") or row == HINT_ON_ITS_WAY] == [
        "notty> hint",
        *["notty> hint", HINT_ON_ITS_WAY] * 5,
    ], log
    assert sum(row.startswith("hint: ") for row in log) == 1, log
    ann.enter("quit")


def test_lines_pasted_together_each_show_above_their_own_answer(server_port: int, tmp_path: Path) -> None:
    """A play-test pasted three lines at its turn and saw them one above the other, then the first's
    answer, then the second's refusal, which so read as the third's. Each goes to the log as it is
    acted on; the first, with none before it, at once."""
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann", rows=50)
    ann.see("connected to")
    ann.enter("new classic 2 greedy")
    _my_turn(ann)
    ann.type("draw 1\rdraw 1\rend\r")
    ann.wait(lambda: any("not carried out" in row for row in ann.log()), "the third line dropped")
    log = ann.log()
    first = log.index("notty> draw 1")
    drew = next(n for n, row in enumerate(log) if row.startswith("  you draw"))
    second = log.index("notty> draw 1", first + 1)
    assert first < drew < second, log  # the second line under the first's answer
    assert "drawn" in " ".join(log[second + 1 : second + 3]), log  # and its refusal under it
    assert "notty> end" not in log, log  # named as not carried out, never shown as typed
    ann.enter("quit")


async def test_a_line_entered_as_the_one_before_it_is_taken_shows_after_that_one() -> None:
    """A review: a key that came as one line's handling ended, while the next line waiting was taken
    from the queue and not yet shown, went to the log at once, above it. Lines show in their order."""
    screen = Screen(None, False)
    screen.draw = lambda: None  # type: ignore[method-assign]
    send, lines = trio.open_memory_channel[str | None](8)
    async with trio.open_nursery() as nursery:  # the client waits for a line: shown as entered
        nursery.start_soon(lines.receive)
        await trio.testing.wait_all_tasks_blocked()
        screen._entered("A", send)
    screen.taking("A")
    screen._entered("B", send)  # while A is acted on: shown as it is taken
    screen.show("  answer to A")
    screen.line_handled()
    assert lines.receive_nowait() == "B"  # taken, as the client reads on, and not yet shown ...
    screen._entered("C", send)  # ... when C comes
    for line in ("B", "C"):
        screen.taking(line)
        screen.show(f"  answer to {line}")
        screen.line_handled()
    assert screen.log == [
        "notty> A",
        "  answer to A",
        "notty> B",
        "  answer to B",
        "notty> C",
        "  answer to C",
    ]


def test_the_log_scrolls_back_and_forth(server_port: int, tmp_path: Path) -> None:
    bea = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "bea", rows=14, cols=80)
    bea.see("connected to")
    for number in range(12):
        bea.enter(f"say{number}")  # unknown commands: each a line entered and a line answered
    bea.see("unknown command 'say11'")
    assert "notty> say0" not in bea.log()
    bea.type(PAGE_UP)
    bea.wait(lambda: "scrolled back" in bea.text(), "the log scrolled back")
    bea.type(PAGE_UP + PAGE_UP + PAGE_UP)
    bea.wait(lambda: "notty> say0" in bea.log(), "the oldest lines")
    bea.type(PAGE_DOWN * 6)
    bea.wait(lambda: "scrolled back" not in bea.text() and "notty> say11" in bea.log(), "the newest lines")
    bea.enter("quit")
    assert bea.finish() == 0


def test_other_games_are_drawn_by_their_own_renderer_and_no_colour_means_none(
    server_port: int, tmp_path: Path
) -> None:
    cy = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "cy", NO_COLOR="1")
    cy.see("connected to")
    cy.enter("new ochos-locos 3 rule rule")
    hand = cy.see(r"^your hand: (\S+)").group(1).rstrip("*")
    assert re.search(r"^top card: [RYGB]\d", cy.text(), re.MULTILINE)
    assert "ochos-locos part4" in cy.row(STATUS)
    assert _card_colours(cy, hand) == {"default"}  # the colour codes dropped, not printed
    assert "\x1b[31m" not in cy.output and "[1;3" not in cy.text()
    cy.enter("quit")
    assert cy.finish() == 0


def test_ctrl_c_quits_and_gives_the_terminal_back(server_port: int, tmp_path: Path) -> None:
    dee = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "dee")
    dee.see("connected to")
    dee.type("\x03")
    assert dee.finish() == 130
    assert dee.terminal_restored()


def test_quitting_the_built_in_game_says_after_the_full_screen_that_the_game_ends(tmp_path: Path) -> None:
    """With no address the server is the client's own: the game goes with it, and the terminal says
    so once the full screen is gone, where a server's seat is said to be kept."""
    fay = Person(tmp_path, "--name", "fay")
    fay.see(r"you sit at table 1, seat 1")
    fay.wait(lambda: re.search(r"turn \d+ of 300", fay.row(STATUS)), "the game under way")
    fay.enter("quit")
    assert fay.finish() == 0
    said = re.sub(r"\s*\r\n\s*", " ", fay.output[fay.output.rindex("\x1b[?1049l") :])
    assert "the game at table 1 ends here: it was played on the client's built-in server" in said


def test_an_error_gives_the_terminal_back_and_says_what_it_was(tmp_path: Path) -> None:
    eve = Person(tmp_path, "127.0.0.1:1", "--name", "eve")  # no server there
    assert eve.finish() == 2
    assert eve.terminal_restored()
    assert "\x1b[?1049h" in eve.output  # the screen was up,
    after = eve.output.split("\x1b[?1049l")[-1]
    assert "notty-client: cannot connect to 127.0.0.1:1" in after  # and what went wrong is said after it


@pytest.mark.parametrize(("flag", "env"), [("--plain", {}), ("", {"TERM": "dumb"})])
def test_plain_and_a_dumb_terminal_keep_line_mode(
    server_port: int, tmp_path: Path, flag: str, env: dict[str, str]
) -> None:
    flo = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "flo", *filter(None, [flag]), **env)
    flo.see("connected to")
    flo.enter("quit")
    assert flo.finish() == 0
    assert "\x1b[?1049h" not in flo.output  # no full screen


def test_wide_characters_wrap_and_scroll_by_the_columns_they_take(server_port: int, tmp_path: Path) -> None:
    """Counted as characters, a line of wide characters ran past the screen's edge: the log's rows
    wrote over each other and the input line showed neither its end nor the cursor under it."""
    gil = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "gil", rows=14, cols=40)
    gil.see("connected to")
    gil.type("日本語" * 10)  # 30 characters, 60 columns
    gil.wait(lambda: gil.input_line().endswith("語日本語"), "the end of the line typed")
    assert gil.screen.cursor.x == 39  # after the last character, at the screen's edge
    gil.type("\r")
    gil.wait(lambda: "unknown command" in gil.log(), "the refusal in the log")  # not the welcome's 'help'
    rows = gil.log()
    said = rows.index("unknown command")  # the word is too long to follow it on its row
    # The whole command, as typed, 18 wide characters on the quote's row (2 columns of hanging indent,
    # the quote, 36 columns: 39), the rest on the next; every row after the first hangs 2 columns in.
    assert rows[said + 1 : said + 4] == [
        "  '" + "日本語" * 6,
        "  " + "日本語" * 4 + "'; type",
        "  'help' for the commands",
    ]
    gil.enter("quit")
    assert gil.finish() == 0


def test_the_screen_takes_the_terminals_size_not_an_exported_columns_and_lines(
    server_port: int, tmp_path: Path
) -> None:
    """Exported COLUMNS and LINES laid out 5,000 columns on an 80-column terminal, the status's
    'your turn' and the input line off the screen, until the window was resized."""
    ida = Person(
        tmp_path, f"127.0.0.1:{server_port}", "--name", "ida", rows=24, cols=80, COLUMNS="5000", LINES="5"
    )
    ida.see("connected to")
    assert ida.row(23).startswith("notty>")  # the input line on the terminal's last row
    assert ida.row(0).rstrip().endswith("lobby · ida")  # the status line as wide as the terminal
    ida.enter("quit")
    assert ida.finish() == 0


def test_under_the_c_locale_the_screen_spells_what_curses_cannot_draw(
    server_port: int, tmp_path: Path
) -> None:
    """Python speaks UTF-8 under the C locale, curses ASCII: the screen asked Python, and the status
    line's '·' and the log's rule were dropped."""
    ida = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ida", LC_ALL="C", LANG="C")
    ida.see("connected to")
    assert ida.row(0).strip() == f"127.0.0.1:{server_port} - lobby - ida"
    assert any(row.startswith("-- log ---") for row in ida.rows)
    ida.enter("quit")
    assert ida.finish() == 0


def test_a_terminal_without_the_characters_drawn_gets_them_column_for_column() -> None:
    """Curses dropped what the locale's encoding lacks, and the next redraw of that line landed a
    column off for each: a Latin-1 or ASCII table read 'turn 1 2f 300'."""
    assert drawable("table 1 · classic · turn 1", "utf-8") == "table 1 · classic · turn 1"
    assert drawable("table 1 · classic ─…", "ascii") == "table 1 - classic -."
    assert drawable("李 é ·", "latin-1") == "?? é ·"  # a wide character keeps its two columns
    assert drawable("R3 R4", "ascii") == "R3 R4"
    assert (
        _drawn_in("ANSI_X3.4-1968") == "ascii" and _drawn_in("UTF-8") == "utf-8"
    )  # as the C library names them
    assert (
        _drawn_in("") == _drawn_in("NO-SUCH-CODESET") == "ascii"
    )  # no codec for it: what every terminal draws


def test_the_help_shown_then_narrowed_wraps_each_description_as_one(server_port: int, tmp_path: Path) -> None:
    """The help is laid out for 80 columns. Shrunk to 60, the log showed each laid-out line broken
    again, a long row and a short one ("as the commands to" above "type"); a description is now
    wrapped as one, at whatever width the screen has."""
    ida = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ida", rows=40, cols=80)
    ida.see("connected to")
    ida.enter("help all")
    ida.see("scrolled back")  # longer than the log: read from its start, as any answer is
    assert ida.log()[0] == "commands:"
    ida.type(PAGE_DOWN * 4)
    ida.see("commands to")  # huxxy's help comes last: its hint's description ends the log
    assert ida.log()[-2:] == [
        "  hint                the solver's best turn from your hand, as the commands to",
        "                      type",
    ]  # as laid out
    ida.resize(40, 60)
    ida.wait(lambda: ida.log()[-1].strip().endswith("as the commands to type"), "the description as one")
    assert ida.log()[-2:] == [
        "  hint                the solver's best turn from your",
        "                      hand, as the commands to type",
    ]
    ida.enter("quit")
    assert ida.finish() == 0


def test_back_from_ctrl_z_the_screen_is_laid_out_for_the_windows_size_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A window resized while the client was stopped told the shell, not the client: the screen kept
    the old layout (its status line cut, no prompt in sight) until a key was pressed."""
    sizes: list[tuple[int, int]] = []
    drawn: list[bool] = []
    monkeypatch.setattr(os, "get_terminal_size", lambda fd: os.terminal_size((50, 12)))
    monkeypatch.setattr(curses, "resizeterm", lambda lines, columns: sizes.append((lines, columns)))
    monkeypatch.setattr(Screen, "draw", lambda self: drawn.append(True))

    class Window:
        def clear(self) -> None:
            pass

    Screen(Window(), colour=False).resumed()
    assert sizes == [(12, 50)] and drawn == [True]


def test_what_is_said_after_quitting_is_kept_when_the_log_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full log drops its oldest line for each new one: the lines said after the user quit (how
    to take a kept seat back) must still be printed once the terminal is back."""
    monkeypatch.setattr(Screen, "draw", lambda self: None)  # no terminal here
    screen = Screen(None, colour=False)
    for number in range(LOG_LINES):
        screen.show(f"line {number}")
    assert screen.press("\x04") == (None, True)  # Ctrl-D on an empty line: the end of input
    screen.show("your seat at table 3 is kept: run notty-client again to take it back")
    assert screen.farewell() == ["your seat at table 3 is kept: run notty-client again to take it back"]
    assert len(screen.log) == LOG_LINES


def test_after_quitting_only_the_clients_own_words_are_printed_wrapped_at_spaces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After 'quit' mid-game the terminal got the bots' moves and 'server says goodbye' under the
    farewell, and the farewell broke wherever the terminal did ('127.0.0.1:47' / '611')."""
    monkeypatch.setattr(Screen, "draw", lambda self: None)  # no terminal here
    screen = Screen(None, colour=False)
    screen.press("\x04")  # the end of input: quitting
    kept = "your seat at table 3 is kept: run notty-client 127.0.0.1:47611 --name dee again to take it back"
    screen.show(kept)
    screen.output(Output(("  greedy-2 draws 1 card: G2",), log=("  greedy-2 draws 1 card: G2",)))
    screen.output(Output(("server says goodbye: bye",)))
    assert screen.farewell() == [kept]
    assert screen.farewell(60) == [
        "your seat at table 3 is kept: run notty-client",
        "  127.0.0.1:47611 --name dee again to take it back",
    ]


def test_input_that_has_ended_ends_the_screen_instead_of_spinning(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal gone without a hang-up leaves stdin readable for ever with nothing in it: the key
    reader must take that as the end of input, not wake up again and again."""

    class Gone:
        def get_wch(self) -> str:
            raise curses.error("no input")

    read, write = os.pipe()
    os.close(write)  # at end of file: always readable, never a key
    monkeypatch.setattr(Screen, "draw", lambda self: None)  # no terminal here
    monkeypatch.setattr(sys, "stdin", os.fdopen(read))
    screen = Screen(Gone(), colour=False)

    async def read_all() -> list[str | None]:
        send, receive = trio.open_memory_channel[str | None](10)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(screen.read_keys, send)
            with trio.fail_after(10):
                return [line async for line in receive]

    started = time.process_time()
    assert trio.run(read_all) == [None]
    assert time.process_time() - started < 2  # it paused between wakings, then stopped
    sys.stdin.close()


# -- the pure parts --------------------------------------------------------------------


def test_a_line_too_long_for_any_command_is_echoed_by_its_start() -> None:
    """A pasted 1,120-character line filled 11 rows of the log above its refusal (a play-test)."""
    assert echoed("draw 2") == "draw 2"
    assert echoed("x" * 500) == "x" * 500  # as long as a command may be: whole
    assert echoed("y" * 1120) == "y" * 60 + "… (1,120 characters)"


def test_the_colour_codes_our_uis_write_become_styles() -> None:
    for letter, number in zip("RGYBK", (1, 2, 3, 4, 0), strict=True):
        (span,) = parse(coloured(letter, "X3", True))
        assert span == Span("X3", Style(bold=True, colour=number, bright=letter == "K")), letter
    assert set(ANSI) == set("RGYBK")  # a colour added to the UIs needs a test here
    line = f"  ann discards {coloured('R', 'R3', True)} {coloured('B', 'B4', True)}"
    assert parse(line) == [
        Span("  ann discards "),
        Span("R3", Style(bold=True, colour=1)),
        Span(" "),
        Span("B4", Style(bold=True, colour=4)),
    ]
    assert plain(line) == "  ann discards R3 B4"
    assert parse(render(parse(line))) == parse(line)  # render writes back what parse reads
    assert parse("\x1b[31mred\x1b[39m back \x1b[1mbold\x1b[22m not") == [
        Span("red", Style(colour=1)),
        Span(" back "),
        Span("bold", Style(bold=True)),
        Span(" not"),
    ]
    assert parse("\x1b[1;31ma\x1b[mb")[1] == Span("b", PLAIN)  # an empty SGR resets


def test_every_other_escape_and_control_is_dropped() -> None:
    """A server's text cannot move the cursor, clear the screen or retitle the window."""
    assert plain("a\x1b[2Jb\x1b[10;10Hc\x1b]0;title\x07d\x1bMe\x07f\x1b") == "abc0;titledef"
    assert plain("x\ty\x00z\x1b[?1049l") == "x yz"
    assert parse("\x1b[38;5;196mX\x1b[4mY")[0].style == PLAIN  # codes our UIs never write: no style


def test_wrapping_keeps_cards_whole_and_styles_on_every_row() -> None:
    red = Style(bold=True, colour=1)
    spans = [Span(" > ann [ 5]  "), Span("R10", red), Span(" "), Span("R11", red)]
    rows = wrap(spans, 16)
    assert ["".join(span.text for span in row) for row in rows] == [" > ann [ 5]  ", "   R10 R11"]
    assert rows[1] == [Span("   "), Span("R10", red), Span(" "), Span("R11", red)]  # the indent plain
    assert _texts(wrap([Span("abcdefghij")], 6)) == ["abcdef", "  ghij"]
    assert _texts(wrap([Span("abcdefghij")], 4)) == ["abcd", "  ef", "  gh", "  ij"]
    assert wrap([], 10) == [[]]


def _texts(rows: list[list[Span]]) -> list[str]:
    return ["".join(span.text for span in row) for row in rows]


def _rows(rows: list[list[Span]]) -> list[str]:
    """Each row's text, less the space it was broken at."""
    return [text.rstrip(" ") for text in _texts(rows)]


def test_wrapping_keeps_a_quoted_command_on_one_row_where_it_fits() -> None:
    """A play-test at 60 columns: a table's line ended in "'join" on one row, "2'" on the next."""
    line = "table 2: Notty classic, waiting, seats: bob, (free) · 'join 2'"
    assert _rows(wrap(parse(line), 60)) == [
        "table 2: Notty classic, waiting, seats: bob, (free) ·",
        "  'join 2'",
    ]
    assert _rows(wrap(parse(line), 40)) == [
        "table 2: Notty classic, waiting, seats:",
        "  bob, (free) · 'join 2'",
    ]
    # An apostrophe opens no command; one too long for a row is broken as any text is.
    said = "bob's turn: type 'help WORD' for bob's help"
    assert _rows(wrap(parse(said), 24)) == ["bob's turn: type", "  'help WORD' for bob's", "  help"]
    assert _rows(wrap(parse("type 'a b c d e f g h'"), 12)) == ["type 'a b c", "  d e f g h'"]


def test_wrapping_keeps_an_option_with_its_value_and_a_word_with_its_number() -> None:
    """A play-test read the lobby's list with "hand_limit" at the end of one row and its "5" starting
    the next: an option's name stays with its value, a word with the number it names ('limit 200'),
    where the two fit a row."""
    line = "table 12: classic, hand_limit 5, draw_and_discard yes, limit 200, waiting"
    assert _rows(wrap(parse(line), 30)) == [
        "table 12: classic,",
        "  hand_limit 5,",
        "  draw_and_discard yes,",
        "  limit 200, waiting",
    ]
    assert _rows(wrap(parse("a draw_and_discard yes"), 20)) == ["a draw_and_discard", "  yes"]  # too long
    assert _rows(wrap(parse("after limit 200"), 12)) == ["after", "  limit 200"]
    assert _rows(wrap(parse("make 1 to 6 plays"), 8)) == ["make 1", "  to 6", "  plays"]  # prose: no names
    assert _rows(wrap(parse("R1 R2 R3 R4"), 6)) == ["R1 R2", "  R3", "  R4"]  # cards are no names
    outs = "outs: G6 (+1), G10 (+1), B2 (+2)"  # a hint's: each card with what it adds
    assert _rows(wrap(parse(outs), 20)) == ["outs: G6 (+1),", "  G10 (+1), B2 (+2)"]


def test_wrapping_hangs_a_help_lines_rows_under_its_description() -> None:
    """Wrapped, a help line's description went on in the command column: its rows after the first
    start under the description, any other line's two columns in from its own indentation, and
    never more than half the width in."""
    line = [
        Span("  hint"),
        Span("  "),
        Span("the expert's move and why: how often each won", Style(bold=True)),
    ]
    assert _texts(wrap(line, 30)) == [
        "  hint  the expert's move and ",
        "        why: how often each ",
        "        won",
    ]
    assert all(span.style == Style(bold=True) for span in wrap(line, 30)[1][1:])  # the style kept
    help_line = "  auto on / auto off  autopilot: the server plays every one of your turns until 'auto off'"
    assert _texts(wrap(parse(help_line), 60)) == [
        "  auto on / auto off  autopilot: the server plays every one ",
        "                      of your turns until 'auto off'",
    ]
    # Under the description only if it starts in the first half of the line; else indentation + 2.
    assert _texts(wrap(parse("  a long term of many words  x y"), 20)) == [
        "  a long term of ",
        "    many words  x y",
    ]
    assert _texts(wrap(parse("    bob draws 1 card: Y5 and plays"), 20)) == [
        "    bob draws 1 ",
        "      card: Y5 and ",
        "      plays",
    ]
    # Never more than half the width in: a narrow screen still shows the text.
    assert _texts(wrap(parse("  hint                the expert's move and why"), 20)) == [
        "  hint              ",
        "          the ",
        "          expert's ",
        "          move and ",
        "          why",
    ]
    # The spaces a row is broken at do not start the next one; wide characters count 2.
    assert _texts(wrap(parse("  hint        blah blah"), 10)) == ["  hint    ", "     blah ", "     blah"]
    assert _texts(wrap(parse("  說明  日本語 日本語 日本語"), 20)) == [
        "  說明  日本語 ",
        "        日本語 ",
        "        日本語",
    ]


def test_wrapping_counts_the_columns_a_character_takes() -> None:
    assert columns("R10") == 3 and columns("日本") == 4 and columns("e\u0301") == 1
    assert fit("日本語", 5) == "日本" and fit("ab", 5) == "ab"
    wide = [Span("日本語日本 語日")]  # 7 wide characters and a space: 15 columns
    assert _texts(wrap(wide, 8)) == ["日本語日", "  本 ", "  語日"]  # the rows after the first hang
    assert _texts(wrap(wide, 12)) == ["日本語日本 ", "  語日"]
    assert ["".join(s.text for s in row) for row in wrap([Span("日本")], 1)] == ["日", "本"]  # one apiece


def test_a_state_gives_the_screen_its_events_and_its_table_apart() -> None:
    """Line mode prints the State's text as ever; the screen gets the events for its log, and the
    table in colour for its pane."""
    session = welcomed()
    session.receive(Seated(3, 0, "t" * 40))
    events = ({"kind": "draw", "text": "bob draws 1 card: Y5", "data": {}},)
    out = session.receive(State(3, notty_view(), events))
    plain_text = "\n".join(out.lines)
    assert plain_text.startswith("  bob draws 1 card: Y5\ntable 3 · classic · turn 12")  # unchanged
    assert out.log == ("  bob draws 1 card: Y5",)
    assert out.table is not None and "\x1b[1;31mR1\x1b[0m" in out.table  # coloured for the screen
    assert plain(out.table) == plain_text.split("\n", 1)[1]  # the same table, without the events
    quiet = session.receive(State(3, notty_view(turn=13), ()))
    assert quiet.log == () and quiet.log_lines == ()


def test_the_end_of_a_game_reads_once_over_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A play-test read the end twice in the table pane, in two wordings: the game's last event
    highlighted over the table ("bob wins by discarding their last cards", with the summary after
    it) and the table's last line ("game over: bob wins (last cards discarded)"). The last move is
    highlighted, the table's last line says how the game ended; the log keeps the event and the
    summary, for after the table is gone."""
    monkeypatch.setattr(Screen, "draw", lambda self: None)  # no terminal here
    screen = Screen(None, colour=False)
    session = screen.session = welcomed()
    session.receive(Seated(3, 0, "t" * 40))
    moved, won = "bob discards the run Y3 Y4 Y5", "bob wins by discarding their last cards"
    events = (
        {"kind": "discarded", "text": moved, "data": {}},
        {"kind": "game-ended", "text": won, "data": {}},
    )
    result = {"ranking": [[1], [0]], "reason": "discard", "text": won, "seconds": 252, "game_id": 12}
    view = notty_view(result=result, body={"hands": [["R1", "R2"], []]})
    screen.output(session.receive(State(3, view, events)))
    rows = screen._pane_rows(100)
    pane = ["".join(span.text for span in row).strip() for row, _ in rows]
    assert [text for text, (_, look) in zip(pane, rows, strict=True) if look] == [moved]  # highlighted
    assert [text for text in pane if "wins" in text] == [
        "game over: bob wins (last cards discarded); 'leave' returns to the lobby"
    ]
    assert not any(text.startswith(("you lost", "this was game")) for text in pane)
    log = [line.strip() for line in screen.log]
    assert log[-4:-2] == [moved, won] and log[-2].startswith("you lost after 12 turns")
    # A game's end alone (a resignation's, say) leaves the last move highlighted.
    screen.output(Output(log=("you lost after 12 turns, in 4 min 12 s",), table=screen.table, moves=()))
    assert "".join(span.text for span in screen._pane_rows(100)[0][0]).strip() == moved


def test_the_end_of_a_game_reads_once_on_the_full_screen(server_port: int, tmp_path: Path) -> None:
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann")
    ann.see("connected to")
    ann.enter("new classic 2 greedy limit 2")
    _my_turn(ann)
    ann.enter("auto on")
    ann.wait(lambda: ann.row(STATUS).endswith(" game over  "), "the game's end on the status line")
    ann.see(r"^the game ended after 2 turns")  # the summary, in the log
    rule = next(number for number, row in enumerate(ann.rows) if row.startswith("── log"))
    pane = [row.strip() for row in ann.rows[1:rule]]
    ending = "the game ended at its turn limit (2 turns) with no winner"
    said = [row for row in pane if ending in row]
    assert said == [f"game over: {ending}; 'leave' returns to the lobby"], pane  # the table's last line
    assert re.fullmatch(r"you end the turn \(played for you\)|greedy-2 ends the turn", pane[0]), pane
    assert not any(row.startswith(("the game ended after", "this was game")) for row in pane), pane
    assert ending in [row.strip() for row in ann.log()]  # the log keeps it
    ann.enter("quit")
    assert ann.finish() == 0


def test_a_table_that_has_not_begun_says_so_rather_than_not_at_a_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Screen, "draw", lambda self: None)  # no terminal here
    screen = Screen(None, colour=False)
    screen.session = Session("ann")
    screen.session.table, screen.session.token = 4, "t" * 40  # a seat kept on disk, not yet resumed:
    (row, _), *rest = screen._pane_rows(200)
    assert "".join(span.text for span in row).startswith("not at a table")  # nothing said of it yet
    screen.session.arrived = True
    (row, _), *rest = screen._pane_rows(200)
    said = "".join(span.text for span in row)
    assert (
        said.startswith("table 4: the game has not begun; its creator's 'start' begins it now") and not rest
    )
    screen.session.token = None  # watching: no seat to start from
    (row, _), *_ = screen._pane_rows(200)
    assert (
        "".join(span.text for span in row) == "table 4: the game has not begun; 'leave' returns to the lobby"
    )
    screen.session = Session("ann")  # in the lobby, at 40 columns: wrapped, not cut at "'ne"
    rows = ["".join(span.text for span in row).strip() for row, _ in screen._pane_rows(40)]
    assert " ".join(rows) == "not at a table: 'tables' lists them, 'new' makes one, 'help' says more"
    assert all(len(row) <= 40 for row in rows) and len(rows) == 2


def test_a_window_too_short_for_the_table_shows_its_end_and_says_what_is_above(
    server_port: int, tmp_path: Path
) -> None:
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann")
    ann.see("connected to")
    ann.enter("new classic 2 greedy")
    _my_turn(ann)
    ann.resize(8, 60)
    ann.wait(lambda: "'table', or a taller window, shows all)" in ann.row(1), "the rows above counted")
    assert re.match(r"^your turn: ", ann.row(4)), ann.rows  # what may be done, above the log's one row
    assert ann.row(5).startswith("── log") and ann.input_line() == "notty>"
    ann.enter("table")  # the whole table, into the log (PageUp reads the rows the pane hides) ...
    ann.wait(lambda: ann.input_line() == "notty>", "the line taken")
    ann.resize(30, 60)  # ... as a taller window shows
    ann.wait(lambda: any(row.startswith("the whole table, since") for row in ann.log()), "'table' in the log")
    ann.resize(8, 40)  # too narrow for the sentence: the count alone, not cut off mid-sentence
    ann.wait(
        lambda: re.match(r"^\(\d+ rows (above|not shown)\)\s*$", ann.row(1)) is not None, "the count alone"
    )


class Window:
    """A curses window of ``rows`` by ``cols`` that keeps the text written to it, a row a line."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.erase()

    def getmaxyx(self) -> tuple[int, int]:
        return self.rows, self.cols

    def erase(self) -> None:
        self.text = [" " * self.cols for _ in range(self.rows)]

    def addstr(self, y: int, x: int, text: str, _attribute: int = 0) -> None:
        self.text[y] = (self.text[y][:x] + text + self.text[y][x + len(text) :])[: self.cols]

    def move(self, y: int, x: int) -> None: ...

    def noutrefresh(self) -> None: ...

    def log(self) -> list[str]:
        """The log's rows: between its rule and the input line."""
        rule = next(number for number, row in enumerate(self.text) if row.startswith("── log"))
        return [row.rstrip() for row in self.text[rule + 1 : -1]]


def test_an_answer_longer_than_the_log_is_shown_from_its_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """On an 8-row screen a refusal wrapped over more rows than the log has showed its last rows
    alone, mid-sentence: an answer the log is too short for shows its first rows, and PageDown the
    rest. One that fits, as on 24 rows, shows whole, and the log goes on showing the newest lines."""
    monkeypatch.setattr(curses, "doupdate", lambda: None)  # no terminal here
    window = Window(8, 40)
    screen = Screen(window, colour=False)
    words = "the server says why it refuses this line, in more words than the log of a small screen has the"
    words += " rows for, and then some"
    screen.output(Output((f"refused: {words}",)))
    rows = [
        "refused: the server says why it refuses",
        "  this line, in more words than the log",
        "  of a small screen has the rows for,",
        "  and then some",
    ]
    assert window.log() == rows[:3]  # its start, where it was its end
    assert window.text[3].startswith("── log (scrolled back: PageDown, End) ")
    screen.output(Output(("  bob draws 1 card: Y5",), table="the table"))  # the game goes on: it stays
    assert window.log() == rows[:3]
    screen.press(curses.KEY_NPAGE)
    screen.draw()
    assert window.log() == [*rows[2:], "  bob draws 1 card: Y5"] and window.text[3].startswith("── log ──")
    window.rows = 24  # taller: it all fits, and the newest lines show as they come
    screen.output(Output((f"refused: {words}",)))
    assert window.log()[-4:] == rows and not any("scrolled back" in row for row in window.text)
    screen.show("a line")
    assert window.log()[-1] == "a line"


def test_a_resize_keeps_the_line_read_at_the_top_of_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """A play-test, scrolled back into the help, resized the window and was sent pages away: the log
    kept its place as rows counted from the newest, and rewrapping changed how many there were."""
    monkeypatch.setattr(curses, "doupdate", lambda: None)  # no terminal here
    window = Window(16, 80)
    screen = Screen(window, colour=False)
    words = " ".join(["words"] * 20)  # 119 characters: 2 rows at 80 columns, 3 at 50
    for n in range(60):
        screen.output(Output((f"line {n:02} {words}",), table="the table"))
    for _ in range(5):
        screen.press(curses.KEY_PPAGE)
    screen.draw()

    def on_top() -> int:  # the line whose row is the log's top one (a line wraps to 3 rows at most)
        at, row = next((at, row) for at, row in enumerate(window.log()) if row.startswith("line "))
        return int(row.split()[1]) - (1 if at else 0)

    read = on_top()
    assert read < 55  # scrolled back
    for cols, rows in ((50, 16), (80, 10), (120, 30), (80, 16)):
        window.rows, window.cols = rows, cols
        screen.draw()
        assert on_top() == read, (cols, rows)


def test_end_and_a_tab_list_bring_the_log_back_to_its_newest_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """A play-test, scrolled back by a long answer: Tab's list went below, out of sight, and only
    PageDown, a page at a time, or a line typed, led back to the newest lines."""
    monkeypatch.setattr(curses, "doupdate", lambda: None)  # no terminal here
    window = Window(8, 40)
    screen = Screen(window, colour=False)
    screen.output(Output(("\n".join(f"line {n} of a long answer" for n in range(20)),)))
    assert window.log()[0] == "line 0 of a long answer"  # held at its start
    screen.press(curses.KEY_END)
    screen.draw()
    assert window.log()[-1] == "line 19 of a long answer" and window.text[3].startswith("── log ──")
    screen.output(Output(("\n".join(f"line {n} of another" for n in range(20)),)))
    assert window.log()[0] == "line 0 of another"
    screen.editor.complete = lambda before, word: [w for w in ("table", "tables") if w.startswith(word)]
    for key in "ta":
        screen.press(key)
    screen.press("\t")  # 'ta': table, tables: listed, and shown
    screen.draw()
    assert window.log()[-1] == "  table  tables" and window.text[3].startswith("── log ──")


def test_a_window_too_short_for_the_table_still_shows_our_own_seat(server_port: int, tmp_path: Path) -> None:
    """Notty lists the seats in order, ours first here: cut from the top, the table hid our own hand
    (huxxy and Ochos Locos keep theirs on a line near the end)."""
    dee = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "dee")
    dee.see("connected to")
    dee.enter("new classic 3 greedy greedy")
    dee.see(r"dee\s+\[ ?\d+\].*\(you\)")
    dee.resize(8, 60)
    ours = re.compile(r"dee\s+\[ ?\d+\].*\(you\)")
    dee.wait(
        lambda: "rows not shown" in dee.row(1), "the rows not shown counted"
    )  # ours kept: not only above
    for _ in range(3):  # as the bots play, the table is drawn again: our seat stays each time
        dee.wait(lambda: any(ours.search(row) for row in dee.rows[2:5]), "our own seat in the short pane")
        assert not any(ours.search(row) for row in dee.rows[5:]), dee.rows
        time.sleep(0.5)
    dee.enter("quit")
    assert dee.finish() == 0


def test_a_window_too_short_for_a_huxxy_table_keeps_the_hand_before_our_seat(
    server_port: int, tmp_path: Path
) -> None:
    """A play-tester's 7-row window showed their seat's line and the turn line, and not the hand."""
    eve = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "eve")
    eve.see("connected to")
    eve.enter("new huxxy 2 greedy")
    eve.see(r"your hand: ")
    eve.resize(7, 80)  # 4 rows for the table: the count of those above, the hand and the turn line
    eve.wait(lambda: "rows above" in eve.row(1), "the rows above counted")  # the end alone: all above
    eve.wait(lambda: eve.row(2).startswith("your hand: "), "the hand in the short pane")
    eve.resize(8, 80)  # a row more: our seat too, above the hand
    eve.wait(lambda: re.search(r"eve\s+\[\d+\].*\(you\)", eve.row(2)) is not None, "our seat as well")
    assert eve.row(3).startswith("your hand: "), eve.rows
    # Lines are hidden between our seat and the hand: the count says so, not only "above" (a
    # play-test took the groups shown for the whole table).
    assert eve.row(1).startswith("(") and "rows not shown" in eve.row(1), eve.rows
    # Another: the table's first line, with the stock (a play-tester's short Ochos Locos window hid it).
    eve.resize(9, 80)
    eve.wait(lambda: eve.row(2).startswith("table "), "the table's first line as well")
    assert re.search(r"eve\s+\[\d+\].*\(you\)", eve.row(3)) and eve.row(4).startswith("your hand: ")
    eve.enter("quit")
    assert eve.finish() == 0


def test_a_window_too_short_for_an_ochos_locos_table_keeps_the_top_card_in_sight(
    server_port: int, tmp_path: Path
) -> None:
    """A play-tester's 40x10 window showed the hand and 'your turn: play R6' but not the top card it
    must match, nor the colour an 8 named: the game's line to see to move is kept after the hand."""
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann")
    ann.see("connected to")
    ann.enter("new ochos-locos 3 rule rule")
    ann.see(r"your hand: ")
    ann.resize(10, 40)
    ann.wait(lambda: "rows not shown" in ann.row(1) or "rows above" in ann.row(1), "the short pane")
    for _ in range(3):  # as the bots play, the table is drawn again: the top card stays each time
        ann.wait(lambda: any(row.startswith("top card: ") for row in ann.rows[2:7]), "the top card")
        ann.wait(lambda: any(row.startswith("your hand: ") for row in ann.rows[2:7]), "the hand")
        time.sleep(0.3)
    ann.enter("quit")
    assert ann.finish() == 0


def test_our_seat_is_kept_by_dropping_whole_lines_never_part_of_the_last_or_of_ours() -> None:
    """Rows for our seat once took the place of whatever rows came first below the cut: the turn
    line shown as 'group), end', or our own wrapped line cut to its first rows."""

    def rows(*lines: tuple[str, int]) -> tuple[list[tuple[list[Span], int]], list[int]]:
        pane, starts = [], []
        for text, count in lines:
            starts.append(len(pane))
            pane += [([Span(f"{text}.{n}")], 0) for n in range(count)]
        return pane, starts

    def shown(pane: list[tuple[list[Span], int]]) -> list[str]:
        return [spans[0].text for spans, _ in pane]

    # header, our seat, bob, cy, the turn line over two rows; 4 rows to show
    pane, starts = rows(("head", 1), ("ann", 1), ("bob", 1), ("cy", 1), ("turn", 2))
    assert shown(_with_our_lines(pane, [[1]], starts, len(pane) - 4)) == ["ann.0", "cy.0", "turn.0", "turn.1"]
    assert shown(_with_our_lines(pane, [[1]], starts, len(pane) - 3)) == ["ann.0", "turn.0", "turn.1"]
    # our seat over three rows, the cut inside it: the whole of it, then the end
    pane, starts = rows(("head", 1), ("ann", 3), ("bob", 1), ("turn", 1))
    assert shown(_with_our_lines(pane, [[1, 2, 3]], starts, 1)) == [
        "ann.0",
        "ann.1",
        "ann.2",
        "bob.0",
        "turn.0",
    ]
    assert shown(_with_our_lines(pane, [[1, 2, 3]], starts, 2)) == ["ann.0", "ann.1", "ann.2", "turn.0"]
    # no room for our line beside the last: the whole lines at the end alone, not our line's tail
    assert shown(_with_our_lines(pane, [[1, 2, 3]], starts, 3)) == ["bob.0", "turn.0"]
    # a spectator: the whole lines below the cut, never the tail of the one it cuts
    pane, starts = rows(("head", 1), ("bob", 1), ("result", 3), ("next", 1))
    assert shown(_with_our_lines(pane, [], starts, 3)) == ["next.0"]
    assert shown(_with_our_lines(pane, [], starts, 2)) == ["result.0", "result.1", "result.2", "next.0"]
    pane, starts = rows(("head", 1), ("turn", 4))  # the last line longer than the room: its end
    assert shown(_with_our_lines(pane, [], starts, 2)) == ["turn.1", "turn.2", "turn.3"]
    pane, starts = rows(("ann", 1), ("turn", 3))
    assert shown(_with_our_lines(pane, [[0]], starts, 1)) == ["turn.0", "turn.1", "turn.2"]
    # A hand on a line of its own comes before our seat's line: a play-tester's short huxxy window
    # showed the seat and the turn line, and not the hand.
    pane, starts = rows(("head", 1), ("ann", 1), ("bob", 1), ("group", 2), ("hand", 1), ("turn", 1))
    assert shown(_with_our_lines(pane, [[5], [1]], starts, 5)) == ["hand.0", "turn.0"]
    assert shown(_with_our_lines(pane, [[5], [1]], starts, 4)) == ["ann.0", "hand.0", "turn.0"]
    assert shown(_with_our_lines(pane, [[5], [1]], starts, 3)) == ["ann.0", "hand.0", "turn.0"]  # lines whole
    assert shown(_with_our_lines(pane, [[5], [1]], starts, 2)) == [
        "ann.0",
        "group.0",
        "group.1",
        "hand.0",
        "turn.0",
    ]
    pane, starts = rows(("head", 1), ("ann", 1), ("hand", 2), ("turn", 1))  # the hand cut: whole again
    assert shown(_with_our_lines(pane, [[2, 3], [1]], starts, 2)) == ["hand.0", "hand.1", "turn.0"]
    assert shown(_with_our_lines(pane, [[2, 3], [1]], starts, 3)) == ["turn.0"]  # no room beside the last


def test_tab_again_on_the_same_line_lists_its_options_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Screen, "draw", lambda self: None)  # no terminal here
    screen = Screen(None, colour=False)
    screen.editor.complete = lambda before, word: ["Y1", "Y6"] if word.startswith("Y") else []
    for key in "play Y":
        screen.press(key)
    for _ in range(3):
        screen.press("\t")
    assert screen.log.count("  Y1  Y6") == 1
    screen.press("\x7f")  # the line changes: Tab lists again
    screen.press("Y")
    screen.press("\t")
    assert screen.log.count("  Y1  Y6") == 2


def test_unknown_escape_sequences_are_dropped_whole(server_port: int, tmp_path: Path) -> None:
    """An unknown sequence's characters were typed into the line (``abc[99~def``), Alt-b typed
    ``b``, and with a TERM that does not match the terminal End typed ``[4~``. Now an unknown
    sequence is dropped whole, raw Home/End/Delete act, and a lone Esc swallows nothing after it."""
    hal = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "hal")
    hal.see("connected to")
    for keys in ["abc", "\x1b[99~", "def"]:
        hal.type(keys)
        time.sleep(0.1)
    hal.wait(lambda: hal.input_line() == "notty> abcdef", "the sequence dropped, 'def' after 'abc'")
    for keys in ["\x1bb", "\x1b[1;5D", "\x1bOx", "g"]:  # Alt-b, Ctrl-Left, an SS3 the editor lacks
        hal.type(keys)
        time.sleep(0.1)
    hal.wait(lambda: hal.input_line() == "notty> abcdefg", "Alt-b, Ctrl-Left and ESC O x dropped")
    # xterm's terminfo knows Home and End as ESC O H and ESC O F: these forms reach the editor raw.
    for keys in ["\x1b[1~", "X", "\x1b[4~", "Y", "\x1b[H", "\x1b[3~", "\x1b[F", "Z"]:
        hal.type(keys)
        time.sleep(0.1)
    hal.wait(lambda: hal.input_line() == "notty> abcdefgYZ", "raw Home, End and Delete acting")
    hal.type("\x1b")  # the Esc key alone: after a pause, what is typed next is typed
    time.sleep(0.5)
    hal.type("h")
    hal.wait(lambda: hal.input_line() == "notty> abcdefgYZh", "the key after a lone Esc typed")
    hal.type(CTRL_U + "quit\r")
    assert hal.finish() == 0


def test_raw_page_up_and_down_scroll_the_log_and_a_sequence_read_in_pieces_is_one_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a TERM that does not match the terminal, Page Up arrives as ``ESC [ 5 ~``, not as
    curses's KEY_PPAGE: it scrolls the log, and types nothing."""
    monkeypatch.setattr(Screen, "draw", lambda self: None)  # no terminal here
    screen = Screen(None, colour=False)
    screen._log_height = 3
    for key in "\x1b[5~":
        assert screen.press(key) == (None, False)
    assert screen.scroll == 2 and screen.editor.text == ""
    for key in "\x1b[6~\x1bOM":  # Page Down; the keypad's Enter
        line, _ = screen.press(key)
    assert screen.scroll == 0 and line == ""


def test_help_in_the_lobby_of_an_80_by_24_screen_fits_it(server_port: int, tmp_path: Path) -> None:
    """A play-test: 'help' in the lobby printed about 100 lines, the commands and every game's, and
    the screen showed the end of huxxy's. It is an overview that fits, saying how to get the rest."""
    ann = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "ann", rows=24, cols=80)
    ann.see("no tables now")
    ann.enter("help")
    ann.see(r"help all +every")
    log = ann.log()
    assert "notty> help" in log, ann.text()  # the line typed, and all that answers it, on the screen
    shown = "\n".join(log[log.index("notty> help") :])
    assert all(f"  {command} " in shown for command in ("tables", "new", "join", "watch", "rules", "quit"))
    for game in ("notty", "ochos-locos", "huxxy"):  # the games hosted, each with how to get its commands
        assert re.search(rf"^  help {game} ", shown, re.MULTILINE), shown
    assert "discard CARDS" not in shown and "take two" not in shown  # no game's commands themselves
    ann.enter("quit")
    assert ann.finish() == 0


KEPT = "your seat at table 4 is kept: run notty-client 127.0.0.1:47311 --name bob again to take it back"


def test_what_was_said_on_stderr_under_the_screen_is_wrapped_at_spaces() -> None:
    """A play-test's Ctrl-C at 60 columns: 'run notty-client 127.0.0.1:473' / '11 --name bob again'."""
    rows = wrapped_text(KEPT + "\n", 60).split("\n")
    assert rows[-1] == "" and all(len(row) <= 60 for row in rows)
    assert any("127.0.0.1:47311" in row for row in rows), rows  # the address whole on one row
    assert " ".join(row.strip() for row in rows if row) == KEPT
    assert wrapped_text(KEPT, None) == KEPT and wrapped_text("", 60) == ""


def test_last_words_in_line_mode_are_wrapped_to_the_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = Terminal(interactive=False, colour=False, wrap=True)
    monkeypatch.setattr(terminal, "width", lambda: 60)
    terminal.last_words([KEPT])  # stderr to a file (captured): the command in it kept whole
    assert capsys.readouterr().err == KEPT + "\n"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    terminal.last_words([KEPT])
    rows = capsys.readouterr().err.split("\n")
    assert all(len(row) <= 60 for row in rows) and " ".join(row.strip() for row in rows if row) == KEPT


def test_a_short_pane_keeps_huxxys_turn_whole_where_it_goes_on_a_second_line(
    server_port: int, tmp_path: Path
) -> None:
    """At 60 columns huxxy's turn goes on an indented second line. A short pane kept our seat and
    hand, and only that second line of the turn ('  an opening needs 24 points ...'), without the
    commands it goes on from."""
    eve = Person(tmp_path, f"127.0.0.1:{server_port}", "--name", "eve", cols=60)
    eve.see("connected to")
    eve.enter("new huxxy 2 greedy")
    _my_turn(eve)
    eve.see(r"your hand: ")
    eve.resize(8, 60)
    eve.wait(lambda: "rows not shown" in eve.row(1) or "rows above" in eve.row(1), "the short pane")
    eve.pump()
    pane = eve.rows[1:5]
    eve.enter("quit")
    assert any(row.startswith("your turn: ") for row in pane), "\n".join(pane)
