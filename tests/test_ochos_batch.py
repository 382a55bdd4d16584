"""``notty-ochos``, the batch mode, through the real command: the seed's two samples,
hand-built games for parts 2 to 4 checked turn by turn against the rules text, and
malformed input (one stderr line naming the line, exit status 2)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.ochos_locos import PRESETS, full_deck
from games.ochos_locos.batch import InputError, play, read_deal
from games.ochos_locos.deal import Deal

COMMAND = str(Path(sys.executable).parent / "notty-ochos")


def run(text: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([COMMAND, *args], input=text, capture_output=True, text=True, timeout=30)


def lines(*rows: str) -> str:
    return "".join(f"{row}\n" for row in rows)


SAMPLE_1 = lines(
    "Y3 Y7 Y8 B1 B7",
    "R8 Y1 G4 G8 B8",
    "R3 R4 R7 Y6 B5",
    "B3",
    "R2 G5 B6 Y5 G3 G2 Y4 R1 G1 Y2 G6 B4 R5 G7 R6 B2",
)
SAMPLE_1_OUT = lines(
    "0: B3",
    "1: B1",
    "2: B8",
    "3: B5",
    "1: B7",
    "2: DRAW",
    "3: R7",
    "1: Y7",
    "2: Y1",
    "3: Y6",
    "1: Y3",
    "2: DRAW",
    "3: R3",
    "1: DRAW",
    "2: R2",
    "3: R4 (WINNER)",
)
SAMPLE_2 = lines(
    "R1 R4 G2 G8 B2",
    "R2 R8 Y7 Y8 B3",
    "R3 R6 Y3 G4 G5",
    "B6",
    "Y2 B7 Y1 G6 Y5 G7 R5 R7 G1 Y4 B5 G3 B1 B8 B4 Y6",
)
SAMPLE_2_OUT = lines(
    "0: B6",
    "1: B2",
    "2: B3",
    "3: R3",
    "1: R1",
    "2: R2",
    "3: R6",
    "1: R4",
    "2: R8",
    "3: DRAW",
    "1: G8",
    "2: Y8",
    "3: Y2",
    "1: G2 (WINNER)",
)


@pytest.mark.parametrize(("given", "expected"), [(SAMPLE_1, SAMPLE_1_OUT), (SAMPLE_2, SAMPLE_2_OUT)])
@pytest.mark.parametrize("args", [(), ("--part", "1")])
def test_seed_samples(given: str, expected: str, args: tuple[str, ...]) -> None:
    result = run(given, *args)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == expected


def test_part2_take_two() -> None:
    given = lines(
        "R5 G7 Y5 B5 G8",
        "G2 R4 B2 B7 Y2",
        "G4 B3 B4 G6 Y4",
        "R8",
        "B8 Y3 B1 G1 R2 R6 G5 Y1 B6 Y7 R7 R1 G3 Y8 Y6 R3",
    )
    expected = [
        "0: R8",
        "1: R5",  # 8s: G8 (1) vs reds: R5 (1); N > C fails, so the lowest red
        "2: R4",  # 5s: none; reds: R4
        "3: Y4",  # 4s: Y4 G4 B4 (3) > reds (0): the first 4 in rainbow order
        "1: Y5",  # 4s none, yellows Y5
        "2: Y2",  # 5s none, yellows Y2: a 2, to be answered
        "3: TAKE TWO",  # no 2: takes B8 Y3
        "1: DRAW",  # the Y2 is matched normally now: no yellow, no 2; takes B1
        "2: G2",  # 2s: G2 B2 (2) > yellows (0): G2 first in rainbow order, a new 2
        "3: TAKE TWO",  # the penalty does not build up: takes G1 R2, two cards
        "1: G7",  # 2s none, greens G7 G8: the lowest
        "2: B7",  # 7s: B7 (1) > greens (0)
        "3: B3",  # 7s none, blues B3 B4 B8: the lowest
        "1: B1",  # 3s none, blues B5 B1: the lowest
        "2: B2 (WINNER)",  # the last card
    ]
    result = run(given, "--part", "2")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == expected


def test_part3_loco_and_an_eight_as_last_card() -> None:
    given = lines(
        "B6 R1 Y5 R4 G3",
        "B5 B7 R5 G1 Y3",
        "B1 G8 Y1 B8 R7",
        "Y2",
        "G6 B3 G2 Y8 R2 R3 G5 R6 G7 B4 Y4 Y7 G4 R8 Y6 B2",
    )
    expected = [
        "0: Y2",  # the starting 2 does not trigger the penalty
        "1: Y5",
        "2: R5",  # 5s: B5 R5 (2) > yellows: Y3 (1): R5 first in rainbow order
        "3: R7",  # G8 and B8 do not match R5; 5s none, reds R7
        "1: R1",
        "2: G1",  # 1s: G1 (1) > reds (0)
        "3: G8 LOCO Y",  # the playable 8 is preferred; left B1 Y1 B8: yellow first in rainbow order
        "1: DRAW",  # must match yellow or an 8: B6 R4 G3 do not; takes G6
        "2: Y3",
        "3: Y1",  # B8 does not match Y3; yellows Y1
        "1: DRAW",  # takes B3
        "2: DRAW",  # B5 B7 on Y1: takes G2
        "3: B1",  # B8 does not match Y1; 1s: B1
        "1: B3",  # blues B6 B3: the lowest
        "2: B5",
        "3: B8 (WINNER)",  # an 8 as the last card names nothing
    ]
    result = run(given, "--part", "3")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == expected


def test_part4_six_players_empty_draw_pile_and_stalemate() -> None:
    given = lines(
        "6",
        "R2 R7 Y4 G4 G5",
        "R4 G6 B8 Y6 R8",
        "G3 Y7 G7 B3 B4",
        "G1 B2 B5 B6 Y5",
        "B7 R6 Y1 G2 R3",
        "Y8 R5 B1 Y2 G8",
        "Y3",
        "R1",
    )
    expected = [
        "0: Y3",
        "1: Y4",
        "2: Y6",  # 4s: R4 (1), yellows: Y6 (1): colour on a tie; R8 B8 do not match Y4
        "3: Y7",
        "4: Y5",
        "5: Y1",
        "6: Y8 LOCO R",  # G8 does not match Y1, Y8 does; left R5 B1 Y2 G8: red first
        "1: R2",  # red named: R2 R7, the lowest; a 2 to answer
        "2: TAKE TWO",  # no 2: takes R1, all there is
        "3: DRAW",  # the draw pile is empty: printed, takes nothing
        "4: B2",  # a card played ends that quiet turn
        "5: G2",
        "6: Y2",
        "1: TAKE TWO",  # nothing left to take
        "2: DRAW",  # nobody holds a yellow or a 2, and B8 R8 do not match Y2
        "3: DRAW",
        "4: DRAW",
        "5: DRAW",
        "6: DRAW",  # every player has had a turn with no card played and nothing left to draw
        "STALEMATE",
    ]
    result = run(given, "--part", "4")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == expected


def test_part4_with_three_players_plays_as_part3() -> None:
    given = lines(
        "B6 R1 Y5 R4 G3",
        "B5 B7 R5 G1 Y3",
        "B1 G8 Y1 B8 R7",
        "Y2",
        "G6 B3 G2 Y8 R2 R3 G5 R6 G7 B4 Y4 Y7 G4 R8 Y6 B2",
    )
    assert run("3\n" + given, "--part", "4").stdout == run(given, "--part", "3").stdout


def test_blank_lines_and_crlf_are_tolerated() -> None:
    given = "\r\n" + SAMPLE_1.replace("\n", "\r\n\r\n")
    assert run(given).stdout == SAMPLE_1_OUT


@pytest.mark.parametrize(("given", "expected"), [(SAMPLE_1, SAMPLE_1_OUT), (SAMPLE_2, SAMPLE_2_OUT)])
def test_cards_are_read_in_any_case_and_written_in_upper_case(given: str, expected: str) -> None:
    """As at a table (``play g3``): the batch input refused ``b5``."""
    for typed in (given.lower(), given.swapcase()):
        result = run(typed)
        assert (result.returncode, result.stderr, result.stdout) == (0, "", expected)


def test_at_a_terminal_it_says_what_to_type_and_how_to_end() -> None:
    """It waited in silence, as if it had hung, for input a person did not know to type."""
    child = pexpect.spawn(COMMAND, encoding="utf-8", timeout=30)
    child.expect_exact("type a line each for the 3 hands, the starting card and the draw pile")
    child.expect_exact("then Ctrl-D\r\n")
    for row in SAMPLE_1.splitlines():
        child.sendline(row)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert child.before.endswith(SAMPLE_1_OUT.replace("\n", "\r\n"))  # after the lines typed, echoed
    four = pexpect.spawn(COMMAND, ["--part", "4"], encoding="utf-8", timeout=30)
    four.expect_exact("type the number of players, then a line each for the hands, the starting card")
    four.sendeof()
    four.expect(pexpect.EOF)
    four.close()
    assert four.exitstatus == 2 and "line 1: missing: expected the number of players" in four.before


def replace_line(text: str, number: int, new: str) -> str:
    rows = text.splitlines()
    rows[number - 1] = new
    return lines(*rows)


@pytest.mark.parametrize(
    ("given", "args", "needle"),
    [
        (replace_line(SAMPLE_1, 2, "R8 Y1 G4 G9 B8"), (), "line 2: 'G9' is not a card"),
        (replace_line(SAMPLE_1, 3, "R3 R4 R7 Y6 b9"), (), "line 3: 'b9' is not a card"),  # as typed
        (replace_line(SAMPLE_1, 3, "R3 R4 R7 Y6 y3"), (), "line 3: Y3 appears twice (also on line 1)"),
        (replace_line(SAMPLE_1, 3, "R3 R4 R7 Y6 Y3"), (), "line 3: Y3 appears twice (also on line 1)"),
        (replace_line(SAMPLE_1, 1, "Y3 Y7 Y8 B1 Y3"), (), "line 1: Y3 appears twice (also on this line)"),
        (replace_line(SAMPLE_1, 1, "Y3 Y7 Y8 B1"), (), "line 1: player 1's hand has 4 cards, expected 5"),
        (replace_line(SAMPLE_1, 4, "B3 B5"), (), "line 4: "),
        (replace_line(SAMPLE_1, 5, "R2 G5 B6"), (), "line 5: the draw pile has 3 cards, expected 16"),
        (
            replace_line(SAMPLE_1, 5, "R2"),
            (),
            "line 5: the draw pile has 1 card, expected 16",
        ),  # not "1 cards"
        (lines(*SAMPLE_1.splitlines()[:4]), (), "line 5: missing: expected the draw pile"),
        (SAMPLE_1 + "G8\n", (), "line 6: unexpected"),
        ("", (), "line 1: missing"),
        (SAMPLE_1, ("--part", "4"), "line 1: 'Y3 Y7 Y8 B1 B7' is not a number of players"),
        ("7\n" + SAMPLE_1, ("--part", "4"), "line 1: the game is for 2 to 6 players, not 7"),
        ("1\n" + SAMPLE_1, ("--part", "4"), "line 1: the game is for 2 to 6 players, not 1"),
        ("2\n" + SAMPLE_1, ("--part", "4"), "line 6: unexpected"),
        ("2\n" + SAMPLE_1.replace("\nB3\n", "\n"), ("--part", "4"), "line 4: the starting card has 5 cards"),
        (SAMPLE_1, ("--part", "5"), "--part"),
        (SAMPLE_1, ("--bogus",), "--bogus"),
    ],
)
def test_malformed_input_is_one_line_and_exit_2(given: str, args: tuple[str, ...], needle: str) -> None:
    result = run(given, *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert needle in result.stderr
    assert "Traceback" not in result.stderr


def test_input_that_is_not_text() -> None:
    result = subprocess.run([COMMAND], input=b"\xff\xfe\x00", capture_output=True, timeout=30)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1


# In-process properties of the reader and the printer.

TOKENS = st.sampled_from([*map(str, full_deck()), "G9", "X1", "r3", "8", "", "\t", "3", "7"])


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(TOKENS, max_size=18).map(" ".join), max_size=10), part=st.integers(1, 4))
def test_reading_any_text_deals_or_names_a_line(rows: list[str], part: int) -> None:
    try:
        rules, deal = read_deal("\n".join(rows), PRESETS[f"part{part}"], players_line=part == 4)
    except InputError as error:
        assert re.match(r"line \d+: ", str(error)), error
        assert "\n" not in str(error)
    else:
        deal.check(rules)


LINE = re.compile(r"[1-6]: (DRAW|TAKE TWO|[RYGB][1-8]( LOCO [RYGB])?( \(WINNER\))?)")


@settings(max_examples=100, deadline=None)
@given(part=st.integers(1, 4), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_printed_games_are_in_the_rules_format(part: int, players: int, seed: int) -> None:
    rules = PRESETS[f"part{part}"].with_players(players if part == 4 else 3)
    deal = Deal.shuffled(rules, random.Random(seed))
    out = play(rules, deal)
    assert out[0] == f"0: {deal.start}"
    body, last = out[1:-1], out[-1]
    assert all(LINE.fullmatch(line) and "WINNER" not in line for line in body), body
    assert last == "STALEMATE" or (LINE.fullmatch(last) and last.endswith(" (WINNER)"))
    seats = [int(line.split(":")[0]) for line in out[1:] if line != "STALEMATE"]
    assert seats == [turn % rules.players + 1 for turn in range(len(seats))]
    if part < 2:
        assert "TAKE TWO" not in "\n".join(out)
    if part < 3:
        assert "LOCO" not in "\n".join(out)
    # Reading the deal back as batch input gives the same game.
    text = "".join(f"{' '.join(map(str, row))}\n" for row in (*deal.hands, (deal.start,), deal.stock))
    if part == 4:
        text = f"{players}\n{text}"
    assert read_deal(text, PRESETS[f"part{part}"], players_line=part == 4) == (rules, deal)
