"""Commands that print end quietly, status 0, when their reader goes away (``... | head``); and
``make watch`` shows two bots, paced, in a game that ends."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import notty_table

from games.notty.bots import BOTS
from protocol import PROTOCOL_VERSION, Hello
from server.cli import _parser, make_host
from server.tables import own_stream

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", [["replay", "1"], ["games"]])
def test_a_reader_that_stops_reading_ends_the_command_quietly(recorded: Path, command: list[str]) -> None:
    program = str(Path(sys.executable).parent / "notty-server")
    process = subprocess.Popen(
        [program, *command, "--db", str(recorded)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first line: every write fails
    error = process.stderr.read().decode()
    status = process.wait(timeout=60)
    assert (status, error) == (0, "")


def test_the_replay_is_printed_whole_when_read_whole(recorded: Path) -> None:
    program = str(Path(sys.executable).parent / "notty-server")
    done = subprocess.run([program, "replay", "1", "--db", str(recorded)], capture_output=True, text=True)
    assert done.returncode == 0 and len(done.stdout.splitlines()) > 20 and done.stderr == ""


def test_make_watch_shows_two_bots_paced_until_the_game_ends() -> None:
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^watch:.*\n\t(.+)$", makefile, re.MULTILINE)
    assert recipe is not None
    command = recipe.group(1)
    players = re.search(r"--players (\S+)", command)
    assert players is not None
    bots = players.group(1).split(",")
    assert len(bots) == 2 and all(bot in BOTS for bot in bots)
    delay = re.search(r"--delay (\S+)", command)
    assert delay is not None and float(delay.group(1)) >= 0.5  # a person can follow it
    turns = re.search(r"--max-turns (\d+)", command)
    assert turns is not None and (int(turns.group(1)) == 0 or int(turns.group(1)) >= 500)


def test_bots_alone_are_paced_for_a_watcher_only_when_the_server_says_so() -> None:
    def first_delay(host: Any, **asked: Any) -> float:
        host.connect(1)
        host.handle(1, Hello(PROTOCOL_VERSION, "eve"), 0.0)
        host.handle(1, notty_table("classic", 2, ("greedy", "random"), **asked), 0.0)
        (job,) = host.bot_jobs()
        return float(job.delay)

    assert _parser().parse_args([]).watch_delay == 1  # by default a person watching bots can follow them
    assert first_delay(make_host("n", 1.0, watch_delay=0.0)) == 0.2  # the bot-only floor alone
    paced = make_host("n", 1.0, watch_delay=1.5)
    assert first_delay(paced) == 1.0  # as its creator asked (bot_delay_ms defaults to 1000)
    assert first_delay(make_host("n", 1.0, watch_delay=0.5)) == 0.5  # within the server's bound
    assert first_delay(make_host("n", 1.0, watch_delay=1.5), bot_delay_ms=0) == 0.2


def test_a_live_server_deals_from_the_system_source_and_a_seeded_host_replays() -> None:
    """The deck order must not come from a generator whose state a player could work out."""
    host = make_host("n", 1.0)
    host.connect(1)
    host.handle(1, Hello(PROTOCOL_VERSION, "eve"), 0.0)
    host.handle(1, notty_table("classic", 2, ("greedy", "random")), 0.0)
    (table,) = host.tables.values()
    assert isinstance(table.match.game._rng, random.SystemRandom)
    seeded = [own_stream(random.Random(7)).random() for _ in range(2)]
    assert seeded[0] == seeded[1]  # a seeded host's tables get the same games every run
