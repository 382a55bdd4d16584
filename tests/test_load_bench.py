"""bench/load.py end to end, tiny: the three servers come up, games are played, nothing is dropped."""

from __future__ import annotations

import importlib
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from games import GAMES
from protocol import PROTOCOL_VERSION, Sender, message_from_wire

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
load = importlib.import_module("load")


def test_a_tiny_load_run_plays_games_without_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert load.main(["--clients", "6", "--seconds", "1", "--warmup", "0.2", "--turn-limit", "10"]) == 0
    out = capsys.readouterr().out
    echo = re.search(r"bare Trio echo\s+([\d,]+) round trips/s", out)
    fanout = re.search(r"fan-out floor\s+([\d,]+) answers/s", out)
    game = re.search(r"notty-server\s+([\d,]+) actions/s", out)
    assert echo and int(echo.group(1).replace(",", "")) > 0, out
    assert fanout and int(fanout.group(1).replace(",", "")) > 0, out
    assert game and int(game.group(1).replace(",", "")) > 0, out
    assert "PASS: 0 error(s) or dropped game(s)" in out, out
    cpu = re.search(
        r"CPU: notty-server ([\d,]+) us of server CPU per action, the echo server ([\d,]+) us per "
        r"round trip: CPU ratio ([\d.]+)%",
        out,
    )
    assert cpu, out
    game_us, echo_us = (int(cpu.group(i).replace(",", "")) for i in (1, 2))
    assert game_us > 0 and echo_us > 0, out
    assert float(cpu.group(3)) == pytest.approx(100 * echo_us / game_us, abs=1.5), out
    finished = re.search(r"(\d+) finished inside the window", out)
    assert finished and int(finished.group(1)) > 0, out  # a 10-turn limit ends games, and tables re-form


def _view(legal: list[str], drew: bool = False, stole: bool = False) -> dict[str, Any]:
    """A v6 view envelope around Notty's body, as far as the scripted seat reads it."""
    body = {"hands": [[], [], []], "deck_size": 60, "drew": drew, "stole": stole, "exchanged": False,
            "must_put_back": False}  # fmt: skip
    return {"game": "notty", "variant": "classic", "names": ["a", "b", "c"], "seat": 0, "current": 0,
            "turn": 1, "legal": legal, "result": None, "body": body}  # fmt: skip


def test_the_scripted_seat_discards_first_draws_once_then_ends() -> None:
    view = _view(["discard R1 R2 R3", "draw 1", "draw 2", "end"])
    assert load.choose(view, random.Random(1)) == "discard R1 R2 R3"
    view = _view(["draw 1", "draw 2", "end"])
    assert load.choose(view, random.Random(1)) == "draw 1"
    view = _view(["steal 1", "end"], drew=True)
    assert load.choose(view, random.Random(1)) == "end"


def test_the_load_asks_for_notty_classic_in_protocol_v9() -> None:
    assert PROTOCOL_VERSION == 9
    settings = load.Settings(6, 1.0, 0.2, 20, 0.0, 1)
    wire = load.create_table(settings).to_wire()
    assert message_from_wire(wire, Sender.CLIENT) == load.create_table(settings)
    assert (wire["game"], wire["variant"], wire["seats"], wire["bots"]) == ("notty", "classic", 3, [])
    assert wire["options"] == {"turn_limit": 20}
    GAMES["notty"].settings(wire["variant"], wire["seats"], wire["options"])  # the game accepts them
