"""huxxy as people play it: the real ``notty-client`` on ptys, reading the table
``games/huxxy/ui.py`` draws (numbered groups, invalid ones marked, the hand, every seat's size and
opening) and typing what it shows, against a real ``notty-server`` over TCP whose bots wait 20 ms
a move (:data:`test_ochos_pty.LAUNCH`).

Deals are random: each test plays from whatever hand it is dealt, as a person would. Nobody has
opened at a person's first turn (a first turn is before anyone's second), which is what the
refusals here rely on.
"""

from __future__ import annotations

import io
import os
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pexpect
import pytest
from test_ochos_pty import FastServer, plain
from test_screen import Person as ScreenPerson

BIN = Path(sys.executable).parent
CARD = r"(?:[A2-90JQK][SHDC]|XX)"
HEADER = re.compile(r"^table (\d+) · (\S+) · turn (\d+) · stock (\d+) cards? · plays this turn (\d)/6$", re.M)
SEAT = re.compile(r"^ ([> ]) (\S+)\s+\[\s*(\d+)\] (opened|not opened)( \(you\))?( \(bot\))?$")
CELL = re.compile(rf"(?<!\S)(\d+)([ !]) ((?:{CARD} )*{CARD}|\(empty\))(?!\S)")
#: The line naming the invalid groups, at our turn or at another player's.
INVALID_NAMED = re.compile(
    r"^! (?:invalid: groups? ([\d, ]+);|.+'s turn so far leaves groups? ([\d, ]+) invalid$)"
)
#: A colour code, as the client writes around a red card.
SGR = r"(?:\x1b\[[0-9;]*m)*"


def drawn(text: str) -> str:
    """A pattern for ``text`` as the terminal is sent it: any card in it may be coloured."""
    parts = re.split(rf"(?<!\S)({CARD})(?![\w])", text)
    return "".join(
        SGR + re.escape(part) + SGR if index % 2 else re.escape(part) for index, part in enumerate(parts)
    )


#: The last line of every table drawn: what the reader may do, whose turn it is, or the end.
LAST = r"(your turn: [^\r\n]*|\S+ to play[^\r\n]*|game over: [^\r\n]*)\r\n"


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    server = FastServer(tmp_path / "notty.db")
    try:
        yield server.port
    finally:
        server.stop()
        print("notty-server's log, its end:\n" + "".join(server.log[-60:]))


@dataclass(frozen=True)
class Table:
    """The last table a client drew, as a person reads it."""

    turn: int
    stock: int
    plays: int
    sizes: dict[str, int]  # by name, in seat order
    opened: dict[str, bool]
    to_move: str | None
    groups: dict[int, list[str]]  # by number, from 1
    invalid: set[int]
    hand: list[str] | None
    last: str  # 'your turn: ...', 'NAME to play', 'game over: ...'

    @property
    def mine(self) -> bool:
        return self.last.startswith("your turn: ")


def read_table(text: str) -> Table:
    """The last table in ``text`` (plain), checked against itself."""
    headers = list(HEADER.finditer(text))
    assert headers, f"no table drawn in:\n{text}"
    header = headers[-1]
    lines = text[header.end() :].strip("\n").split("\n")
    sizes: dict[str, int] = {}
    opened: dict[str, bool] = {}
    to_move = None
    while (seat := SEAT.match(lines[0])) is not None:
        lines.pop(0)
        sizes[seat.group(2)] = int(seat.group(3))
        opened[seat.group(2)] = seat.group(4) == "opened"
        to_move = seat.group(2) if seat.group(1) == ">" else to_move
    groups: dict[int, list[str]] = {}
    invalid: set[int] = set()
    hand = None
    while lines:
        line = lines.pop(0)
        if line.startswith("your hand: "):
            hand = line.removeprefix("your hand: ").split()
            assert all(re.fullmatch(CARD, card) for card in hand), line
        elif re.match(LAST.removesuffix(r"\r\n"), line):
            last = line
            break
        elif named := INVALID_NAMED.match(line):  # ours, or another's turn (a name may hold digits)
            numbers = named.group(1) or named.group(2)
            assert {int(n) for n in re.findall(r"\d+", numbers)} == invalid, line
        elif line != "the table is empty":
            for number, mark, cards in CELL.findall(line):
                groups[int(number)] = [] if cards == "(empty)" else cards.split()
                if mark == "!":
                    invalid.add(int(number))
                    assert line.count("!") == 1 or "invalid" not in line, line
    else:
        raise AssertionError(f"a table with no last line:\n{text}")
    assert sorted(groups) == list(range(1, len(groups) + 1)), text
    assert sum(sizes.values()) + sum(map(len, groups.values())) + int(header.group(4)) == 104, text
    return Table(
        int(header.group(3)),
        int(header.group(4)),
        int(header.group(5)),
        sizes,
        opened,
        to_move,
        groups,
        invalid,
        hand,
        last,
    )


class Player:
    """``notty-client --plain`` on a pty, everything it printed kept."""

    def __init__(self, port: int, state_home: Path, name: str) -> None:
        self.name = name
        env = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": str(state_home)}
        env.pop("NO_COLOR", None)
        self.log = io.StringIO()
        self.child = pexpect.spawn(
            str(BIN / "notty-client"),
            [f"127.0.0.1:{port}", "--name", name, "--plain"],
            env=env,
            encoding="utf-8",
            timeout=20,
        )
        self.child.logfile_read = self.log
        self.child.setwinsize(40, 160)
        self.since = ""  # what was shown since the last table was read, in plain text
        self.expect("connected to")

    def expect(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        """Wait for ``pattern``; fail at once if the connection is lost meanwhile."""
        lost = self.child.expect([pattern, r"connection lost \([^\r\n]*"], timeout=timeout)
        match = self.child.match
        assert isinstance(match, re.Match)
        assert lost == 0, match.group(0)
        self.since += plain(self.child.before + match.group(0))
        return match

    def table(self, timeout: float = 20) -> Table:
        """The next table drawn."""
        self.since = ""
        self.expect(LAST, timeout)
        return read_table(self.since)

    def table_after(self, said: str) -> Table:
        """The table drawn after the client says ``said`` (a line, exactly)."""
        self.since = ""
        self.expect(drawn(said) + r"\r\n")
        before = self.since
        found = self.table()
        self.since = before + self.since
        return found

    def turn(self, timeout: float) -> Table | None:
        """The next table if one is drawn within ``timeout`` seconds and it is our turn there."""
        try:
            found = self.table(timeout)
        except pexpect.TIMEOUT:
            return None
        return found if found.mine else None

    def refused(self, line: str, says: str) -> None:
        """Type ``line``: ``says`` comes back, and no table (nothing happened)."""
        self.since = ""
        self.child.sendline(line)
        self.expect(drawn(says))
        assert not HEADER.search(self.since), self.since

    def check_log(self) -> None:
        """Nothing the server sent was refused by the client: no lost connection, no unread table."""
        log = plain(self.log.getvalue())
        faults = [line for line in log.split("\n") if "connection lost" in line or "cannot read" in line]
        assert not faults and "Traceback" not in log, faults or log[-3000:]

    def quit(self) -> int:
        self.child.sendline("quit")
        self.child.expect(pexpect.EOF)
        self.child.close()
        self.check_log()
        return int(self.child.exitstatus or 0)


def first_turn(people: list[Player], seen: dict[str, Table]) -> tuple[Player, Table]:
    """Whoever of ``people`` has a turn first, and the table then (``seen``: the tables read)."""
    for person in people:
        if seen[person.name].mine:
            return person, seen[person.name]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for person in people:
            found = person.turn(0.1)
            if found is not None:
                return person, found
    raise AssertionError("no person's turn came")


def test_two_people_and_two_bots_play_huxxy_over_tcp(port: int, tmp_path: Path) -> None:
    """Both people see the table; each play appears to the other as it is made; undo, an end
    refused with its reasons, a draw that takes the plays back; then the game goes on."""
    state_home = tmp_path / "state"
    ann = Player(port, state_home, "ann")
    ann.child.sendline("new huxxy 4 human random random")
    table = int(ann.expect(r"you sit at table (\d+), seat 1").group(1))
    bob = Player(port, state_home, "bob")
    bob.child.sendline(f"join {table}")
    bob.expect(rf"you sit at table {table}, seat 2")
    seen = {person.name: person.table() for person in (ann, bob)}
    ann.check_log()
    bob.check_log()
    for name, shown in seen.items():  # the same table, each with a hand of its own
        assert list(shown.sizes) == ["ann", "bob", "random-3", "random-4"]
        assert shown.hand is not None and len(shown.hand) == shown.sizes[name] == 12
        assert not any(shown.opened.values()) or shown.turn > 1
    assert seen["ann"].hand != seen["bob"].hand or seen["ann"].hand is None

    mover, start = first_turn([ann, bob], seen)
    watcher = bob if mover is ann else ann
    name = mover.name
    assert start.to_move == name and start.last.endswith("an opening needs 24 points from your hand")
    assert start.hand is not None and not start.opened[name]
    groups = len(start.groups)

    # A card to a new group: both see it as it is made, marked invalid.
    card = start.hand[0]
    mover.child.sendline(f"play {card}")
    new = groups + 1
    told = f"  {name} plays {card} to a new group {new}"
    after = mover.table_after(f"  you play {card} to a new group {new}")  # in the mover's own words
    assert after.groups[new] == [card] and new in after.invalid and after.plays == 1
    assert after.hand is not None and sorted(after.hand) == sorted(start.hand[1:])
    assert after.last.startswith("your turn: play, undo or draw · 1 of 6 plays made")  # no end: invalid
    assert f" {new}! {card}  invalid" in mover.since or groups >= 6
    other = watcher.table_after(told)
    assert other.groups == after.groups and other.invalid == {new} and other.sizes[name] == 11
    assert other.last == f"{name} to play: 1 of 6 plays made"

    # An end the rules refuse: the group named, and the opening's points short.
    points = {"A": 1, "0": 10, "J": 11, "Q": 12, "K": 13}
    value = points.get(card[0]) or int(card[0])
    mover.refused(
        "end",
        f"refused: group {new} ({card}) is not valid: it has 1 card; a group needs at least 3; "
        f"an opening needs 24 points from your hand: these plays make {value}, {24 - value} short",
    )
    # Out of turn, the client says whose turn it is; before opening, it refuses a move.
    watcher.refused("draw", f"it is {name}'s turn, not yours")
    mover.refused(f"move {card} from {new} to new", "until you have opened you may only play cards")

    # Undo: the card goes back, for both.
    mover.child.sendline("undo")
    told = f"  {name} undoes a play: {card} goes back from group {new} to the hand"
    undone = mover.table_after(f"  you undo a play: {card} goes back from group {new} to the hand")
    assert undone.groups == start.groups and undone.hand == start.hand and undone.plays == 0
    assert watcher.table_after(told).groups == start.groups

    # TAB lists the hand's cards after 'play', in the order the hand shows them (A, 2..10, J, Q, K),
    # not as readline sorts strings ('0H 3C 6H ... AH JD KH QD'); two of them go to a new group.
    mover.child.send("play \t\t")
    listed = mover.expect(r"\r\n([^\r\n]*)\r\nnotty> play ").group(1).split()
    assert listed == list(dict.fromkeys(start.hand)), (listed, start.hand)
    two = start.hand[-2:]
    mover.child.sendline(" ".join(two))
    mover.expect(drawn(f"  you play {two[1]} to group {new}"))
    made = mover.table()
    assert sorted(made.groups[new]) == sorted(two) and made.plays == 2
    watcher.expect(drawn(f"  {name} plays {two[0]} to a new group {new}"))
    watcher.expect(drawn(f"  {name} plays {two[1]} to group {new}"))

    # A draw takes both plays back and ends the turn; the others see a card drawn, not which.
    mover.child.sendline("draw")
    took = mover.expect(rf"  you take back 2 plays and draw {SGR}({CARD}){SGR}\r\n").group(1)
    drew = mover.table()
    assert drew.hand is not None and sorted(drew.hand) == sorted([*start.hand, took])
    assert drew.groups == start.groups and drew.turn == start.turn + 1 and drew.plays == 0
    watcher.expect(drawn(f"  {name} takes back 2 plays and draws a card") + r"\r\n")
    assert took not in watcher.since.split("draws a card")[-1].split("\n")[0]

    # The game goes on: the other person's turn comes, and a draw ends it.
    deadline = time.monotonic() + 20
    while (turn := watcher.turn(1)) is None:
        assert time.monotonic() < deadline, "the other person's turn never came"
    assert turn.turn > start.turn and turn.to_move == watcher.name and turn.hand is not None
    watcher.child.sendline("draw")
    card = watcher.expect(rf"  you draw {SGR}({CARD}){SGR}\r\n").group(1)
    later = watcher.table()
    assert later.hand is not None and sorted(later.hand) == sorted([*turn.hand, card])
    assert later.turn == turn.turn + 1 and later.stock == turn.stock - 1
    assert ann.quit() == 0 and bob.quit() == 0


def test_the_full_screen_draws_the_numbered_groups_and_the_hand(port: int, tmp_path: Path) -> None:
    """At 80 by 24, against a bot: the hand on the table pane, and a group played shows there with
    its number and its mark."""
    dee = ScreenPerson(tmp_path, f"127.0.0.1:{port}", "--name", "dee", rows=24, cols=80)
    dee.see("connected to")
    dee.enter("new huxxy 2 random")
    dee.see(r"your turn\s*$", timeout=20)
    assert " · huxxy · table " in dee.row(0)  # the variant named like its game is said once
    hand = dee.see(rf"^your hand: ((?:{CARD} ?)+)").group(1).split()
    assert len(hand) == 12
    assert re.search(r"^ > dee\s+\[12\] not opened \(you\)", dee.text(), re.M)
    groups = len(re.findall(rf"(?<!\S)\d+[ !] {CARD}", dee.text()))
    dee.enter(f"play {hand[0]}")
    number = groups + 1
    dee.see(rf"(?<!\S){number}! {hand[0]}(?!\S)")
    dee.see(r"your turn: play, undo or draw · 1 of 6 plays made")
    assert re.search(rf"^your hand: {' '.join(hand[1:])}\s*$", dee.text(), re.M), dee.text()
    assert dee.row(1).strip() == f"you play {hand[0]} to a new group {number}"  # the last action, on top
    dee.enter("quit")
    assert dee.finish() == 0
