"""``notty-ochos``: the problem set's batch mode, stdin to stdout, every seat on the automatic strategy.

At a terminal it first says, on stderr, what to type and that Ctrl-D ends it: a person
otherwise faced a program waiting in silence. Cards are read in any case, as at a table.

Malformed input gets one line on stderr naming the input line and what is wrong,
and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

import attrs

from games._words import counted

from .cards import DECK_SIZE, Card, CardError
from .deal import Deal, DealError
from .engine import Game, Turn
from .rules import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules, RulesError
from .strategy import rule_move

#: A safety net far above any real game (each play or draw shrinks a finite
#: measure, and at most ``players`` idle turns pass between two of them).
MAX_TURNS = 10_000


class InputError(ValueError):
    """Malformed batch input; the message names the line."""


@attrs.frozen
class _Line:
    number: int
    text: str


def read_deal(text: str, rules: Rules, players_line: bool) -> tuple[Rules, Deal]:
    """The rules (with the table size, if the input gives it) and the deal ``text`` describes.

    Blank lines are skipped; line numbers count every line, as an editor does.
    """
    lines = [_Line(number, raw.strip()) for number, raw in enumerate(text.splitlines(), 1) if raw.strip()]
    if players_line:
        if not lines:
            raise InputError("line 1: missing: expected the number of players")
        first, lines = lines[0], lines[1:]
        rules = rules.with_players(_players(first))
    expected = rules.players + 2
    what = [f"player {seat + 1}'s hand" for seat in range(rules.players)] + [
        "the starting card",
        "the draw pile",
    ]
    if len(lines) < expected:
        last = lines[-1].number if lines else (first.number if players_line else 0)
        raise InputError(
            f"line {last + 1}: missing: expected {what[len(lines)]} "
            f"({expected} lines of cards for {rules.players} players, got {len(lines)})"
        )
    if len(lines) > expected:
        raise InputError(
            f"line {lines[expected].number}: unexpected: the input ends with the draw pile on line "
            f"{lines[expected - 1].number} ({expected} lines of cards for {rules.players} players)"
        )
    stock_size = DECK_SIZE - rules.players * HAND_SIZE - 1
    sizes = [HAND_SIZE] * rules.players + [1, stock_size]
    seen: dict[Card, int] = {}
    rows: list[tuple[Card, ...]] = []
    for line, name, size in zip(lines, what, sizes, strict=True):
        row = tuple(_cards(line, seen))
        if len(row) != size:
            raise InputError(f"line {line.number}: {name} has {counted(len(row), 'card')}, expected {size}")
        rows.append(row)
    hands = tuple(rows[: rules.players])
    return rules, Deal(hands, rows[-2][0], rows[-1])


def _players(line: _Line) -> int:
    try:
        players = int(line.text)
    except ValueError:
        raise InputError(f"line {line.number}: {line.text!r} is not a number of players") from None
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InputError(
            f"line {line.number}: the game is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players} "
            f"({MAX_PLAYERS} hands of {HAND_SIZE} and a starting card leave a draw pile of one)"
        )
    return players


def _cards(line: _Line, seen: dict[Card, int]) -> Iterator[Card]:
    for token in line.text.split():
        try:
            card = Card.read(token)  # any case, as at a table: the output writes G3
        except CardError as error:
            raise InputError(f"line {line.number}: {error}") from None
        if card in seen:
            where = "this line" if seen[card] == line.number else f"line {seen[card]}"
            raise InputError(f"line {line.number}: {card} appears twice (also on {where})")
        seen[card] = line.number
        yield card


def describe(turn: Turn) -> str:
    """One turn as batch mode prints it: ``2: R8 LOCO Y``, ``3: DRAW``, ``1: G2 (WINNER)``."""
    text = f"{turn.seat + 1}: {turn.action}"
    return f"{text} (WINNER)" if turn.won else text


def play(rules: Rules, deal: Deal) -> list[str]:
    """The whole game with the automatic strategy in every seat, as the lines batch mode prints."""
    game = Game(rules, deal)
    out = [f"0: {deal.start}"]
    while not game.over and game.turn <= MAX_TURNS:
        out.append(describe(game.apply(game.current, rule_move(game))))
    if game.stalemate:
        out.append("STALEMATE")
    return out


def prompt(part: int) -> str:
    """What to type, for a person at a terminal; on stderr, so that what is printed on stdout is the
    batch output alone."""
    if part == 4:
        lines = "the number of players, then a line each for the hands"
    else:
        lines = f"a line each for the {PRESETS[f'part{part}'].players} hands"
    rest = "the starting card and the draw pile (top first), cards like G3; then Ctrl-D"
    return f"notty-ochos: type {lines}, {rest}"


class _Parser(argparse.ArgumentParser):
    """Command-line mistakes are one line and exit 2, like malformed input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(
        prog="notty-ochos", description="Play Ochos Locos from a deal on stdin, every seat by rule."
    )
    parser.add_argument(
        "--part", type=int, choices=(1, 2, 3, 4), default=1, help="which part's rules (default 1)"
    )
    args = parser.parse_args(argv)
    if sys.stdin.isatty():  # a person typing, who would otherwise wait on a silent program
        print(prompt(args.part), file=sys.stderr, flush=True)
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as error:
        print(f"notty-ochos: input is not UTF-8 text (byte {error.start})", file=sys.stderr)
        return 2
    try:
        rules, deal = read_deal(text, PRESETS[f"part{args.part}"], players_line=args.part == 4)
    except InputError as error:
        print(f"notty-ochos: {error}", file=sys.stderr)
        return 2
    try:
        out = play(rules, deal)
    except (DealError, RulesError) as error:  # read_deal checks all of this first; never a traceback
        print(f"notty-ochos: {error}", file=sys.stderr)
        return 2
    try:
        sys.stdout.write("".join(f"{line}\n" for line in out))
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that stopped early (``| head``) is not an error
        sys.stdout = None  # nothing left to flush at exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
