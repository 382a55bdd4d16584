"""A real notty-server process killed with SIGKILL mid-game and restarted on the same database."""

from __future__ import annotations

import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from conftest import ServerProcess, notty_table

from games.notty import CLASSIC
from protocol import (
    PROTOCOL_VERSION,
    Act,
    Connection,
    Error,
    Goodbye,
    Hello,
    Join,
    ListTables,
    Message,
    Notice,
    Ping,
    Pong,
    Seated,
    Sender,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
)

BIN = Path(sys.executable).parent


#: These players act at machine speed, far over the default message rate meant for people.
FAST = (
    "--rate",
    "10000",
    "--burst",
    "10000",
    "--address-rate",
    "10000",
    "--address-burst",
    "10000",
    "--bot-only-delay",
    "0.001",
)


class Player:
    """A blocking protocol client: enough to play, watch and resume."""

    def __init__(self, port: int, name: str, token: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        self.protocol = Connection(Sender.CLIENT)
        self.name = name
        self.token: str | None = None
        self.table: int | None = None
        self.view: dict[str, Any] | None = None
        self.events: list[str] = []  # every event's text, in the order seen
        self.send(Hello(PROTOCOL_VERSION, name, token))
        assert isinstance(self.receive(), Welcome)

    def send(self, message: Message) -> None:
        self.sock.sendall(self.protocol.send(message))

    def receive(self) -> Message:
        while (message := self.protocol.next_event()) is None:
            data = self.sock.recv(65536)
            assert data, "the server closed the connection"
            self.protocol.receive_data(data)
        match message:
            case Seated(table, _, token):
                self.table, self.token = table, token
            case Watching(table):
                self.table = table
            case Error(code, text, _) if code != "shutting-down":  # a stopping server says so: no refusal
                raise AssertionError(f"{self.name} was refused: {code}: {text}")
            case State(_, view, events):
                self.view = dict(view)
                self.events += [event["text"] for event in events]
        return message

    def expect(self, kind: type[Message]) -> Any:
        while not isinstance(message := self.receive(), kind):
            pass
        return message

    def close(self) -> None:
        self.sock.close()


def play_turns(players: list[Player], rng: random.Random, actions: int, calm: bool = False) -> None:
    """The player whose turn it is acts; everyone reads the state that follows.

    ``calm``: no discard and no theft, the only moves that can end a game before its turn limit
    (about 1 deal in 300 ended within 25 random moves, and a test that meant to kill a game
    under way then met a finished one).
    """
    for _ in range(actions):
        view = players[0].view
        assert view is not None
        if view["result"] is not None:
            return
        mover = players[view["current"]]
        assert mover.view is not None
        legal = mover.view["legal"]
        quiet = [action for action in legal if not action.startswith(("discard", "steal"))]
        mover.send(Act(rng.choice(quiet if calm and quiet else legal)))
        for player in players:
            player.expect(State)


def conserved(view: dict[str, Any]) -> bool:
    body = view["body"]
    held = Counter(card for hand in body["hands"] for card in hand)
    return sum(held.values()) + body["deck_size"] == len(CLASSIC.full_deck())


def test_killed_mid_game_the_server_restores_it_exactly_and_the_players_finish_it(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db, *FAST))
    ann = Player(server.port, "ann")
    ann.send(notty_table("classic", 2, turn_limit=40))
    ann.expect(Seated)
    bob = Player(server.port, "bob")
    assert ann.table is not None
    bob.send(Join(ann.table))
    bob.expect(Seated)
    ann.expect(State)
    bob.expect(State)
    players = [ann, bob]  # seats 0 and 1
    play_turns(players, random.Random(8), 25, calm=True)
    before = {player.name: player.view for player in players}
    assert before["ann"] is not None and before["ann"]["turn"] > 1 and before["ann"]["result"] is None

    server.kill()
    for player in players:
        player.close()
    servers.append(server := ServerProcess(db, *FAST))

    resumed = [Player(server.port, player.name, player.token) for player in players]
    for player, old in zip(resumed, players, strict=True):
        assert player.expect(Seated).table == old.table
        player.expect(State)
        assert player.view == before[player.name], "the restored game differs from the one killed"
        assert player.view is not None and conserved(player.view)

    play_turns(resumed, random.Random(9), 10_000)
    for player in resumed:
        assert player.view is not None and player.view["result"] is not None
        player.close()
    server.stop()

    listing = subprocess.run(
        [str(BIN / "notty-server"), "games", "--db", str(db)], capture_output=True, text=True, check=True
    ).stdout
    assert re.search(rf"game {ann.table}: classic, ann vs bob, .*(won|no winner)", listing), listing
    replay = subprocess.run(
        [str(BIN / "notty-server"), "replay", str(ann.table), "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "with no winner" in replay or "is drawn" in replay or "wins" in replay


def _watching_bots(server: ServerProcess, events: int, **options: Any) -> Player:
    """cy, watching a new table of three bots (classic) once it has seen ``events`` of their moves."""
    watcher = Player(server.port, "cy")
    watcher.send(notty_table("classic", 3, ("greedy", "greedy", "random"), **options))
    watcher.expect(Watching)
    while len(watcher.events) < events:
        watcher.expect(State)
    return watcher


def test_killed_while_bots_play_nothing_anyone_saw_is_lost(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """A kill at an arbitrary moment: every move a watcher saw is in the record, in order."""
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db, *FAST))
    watcher = _watching_bots(server, 60, bot_delay_ms=0, turn_limit=300)
    server.kill()  # the bots are still playing: the kill lands between two of their moves
    watcher.close()
    seen = watcher.events
    assert watcher.view is not None and watcher.view["result"] is None

    servers.append(server := ServerProcess(db, *FAST))
    again = Player(server.port, "cy")
    assert watcher.table is not None
    again.send(Watch(watcher.table))
    again.expect(Watching)
    again.expect(State)
    assert again.view is not None and conserved(again.view)
    assert again.view["turn"] >= watcher.view["turn"]
    while again.view["result"] is None:  # someone watches, so the bots play on to the end
        again.expect(State)
    again.close()
    server.stop()

    replay = subprocess.run(
        [str(BIN / "notty-server"), "replay", str(watcher.table), "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    not_moves = (" is dealt ", "in hand at the end: ")  # nor the line of the options played with
    lines = replay[2:] if replay[1].startswith("      played with ") else replay[1:]
    recorded = [line.strip() for line in lines if not any(words in line for words in not_moves)]
    texts = [text.split(": ", 1)[1] if ". turn " in text else text for text in recorded]
    moves = "; ".join(texts)
    assert moves.startswith("; ".join(seen)), "a move the watcher saw is missing from the record"
    assert again.events[-1] in texts[-1]


def test_a_stopped_server_keeps_a_watched_game_of_bots_as_it_was_for_the_restart(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """SIGTERM says goodbye to everyone: the watcher's going must not end the game (it was recorded
    as abandoned), nor may the bots play on, unseen, while the goodbyes leave."""
    db = tmp_path / "notty.db"
    paced = ("--watch-delay", "0.05")
    servers.append(server := ServerProcess(db, *paced))
    watcher = _watching_bots(server, 10, bot_delay_ms=50, turn_limit=0)
    server.stop()  # SIGTERM
    watcher.expect(Goodbye)
    watcher.close()
    last = watcher.view
    assert last is not None and last["result"] is None

    servers.append(server := ServerProcess(db, *paced))
    again = Player(server.port, "cy")
    assert watcher.table is not None
    again.send(Watch(watcher.table))  # refused (no such table) if the game had been given up
    again.expect(Watching)
    again.expect(State)
    assert again.view is not None and again.view["result"] is None
    assert (again.view["turn"], again.view["body"]) == (last["turn"], last["body"])  # not a move more
    again.close()


def test_a_server_paused_past_the_idle_timeout_reads_what_waited_before_judging_a_client_silent(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """A host's Ctrl-Z, or a laptop asleep, for longer than --idle-timeout: every client was dropped
    as the server woke ('nothing heard from you'), its pings waiting unread."""
    servers.append(server := ServerProcess(tmp_path / "notty.db", "--idle-timeout", "2"))
    player = Player(server.port, "ann")
    server.process.send_signal(signal.SIGSTOP)
    try:
        time.sleep(2.5)  # past the deadline the hello set
        player.send(Ping(7))  # waits in the server's socket
        time.sleep(0.2)
    finally:
        server.process.send_signal(signal.SIGCONT)
    assert player.expect(Pong).nonce == 7  # not an idle-timeout
    player.send(ListTables())
    player.expect(Tables)
    player.close()


def test_a_hangup_stops_the_server_as_sigterm_does(tmp_path: Path, servers: list[ServerProcess]) -> None:
    """The host's terminal or ssh session closing (SIGHUP) killed the server without a word: no log
    line, no goodbye, its clients told only that the connection was lost."""
    servers.append(server := ServerProcess(tmp_path / "notty.db"))
    player = Player(server.port, "ann")
    server.process.send_signal(signal.SIGHUP)
    player.expect(Goodbye)
    player.close()
    assert server.process.wait(timeout=10) == 0
    assert server.process.stderr is not None
    assert "SIGHUP: telling clients and stopping" in server.process.stderr.read()


def test_under_nohup_a_hangup_leaves_the_server_serving(tmp_path: Path, servers: list[ServerProcess]) -> None:
    ignoring = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup starts it: inherited, and kept
    try:
        servers.append(server := ServerProcess(tmp_path / "notty.db"))
    finally:
        signal.signal(signal.SIGHUP, ignoring)
    server.process.send_signal(signal.SIGHUP)
    player = Player(server.port, "ann")
    player.send(ListTables())
    player.expect(Tables)
    player.close()
    assert server.process.poll() is None


def _listed(player: Player, table: int | None) -> dict[str, Any] | None:
    """``table`` as the lobby's list shows it to ``player`` now (``None``: not listed)."""
    player.send(ListTables())
    listed = player.expect(Tables).tables
    info = next((info for info in listed if info["table"] == table), None)
    return None if info is None else {**info, "bots": list(info["bots"])}


def test_a_restored_game_of_bots_alone_that_nobody_watches_again_closes_as_a_live_one_does(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """Live, a game of bots alone closes as its last watcher goes: its bots play only while someone
    watches. Restored, its watcher gone with the server, it stayed listed as paused for the 12
    hours of --abandon-after; it now waits the grace a person's seat gets, then closes."""
    db = tmp_path / "notty.db"
    paced = ("--watch-delay", "0.05")  # the kill lands mid-game
    servers.append(server := ServerProcess(db, *paced))
    watcher = _watching_bots(server, 10, bot_delay_ms=50, turn_limit=0)
    server.kill()
    watcher.close()
    assert watcher.view is not None and watcher.view["result"] is None

    servers.append(server := ServerProcess(db, *paced, "--grace", "1"))
    dee = Player(server.port, "dee")
    assert _listed(dee, watcher.table) is not None  # for the grace, its watcher may come back
    deadline = time.monotonic() + 10
    while _listed(dee, watcher.table) is not None:
        assert time.monotonic() < deadline, "the game of bots alone nobody watches is still listed"
        time.sleep(0.1)
    dee.close()
    server.stop()
    listing = subprocess.run(
        [str(BIN / "notty-server"), "games", "--db", str(db)], capture_output=True, text=True, check=True
    ).stdout
    assert re.search(rf"game {watcher.table}: .*abandoned", listing), listing


def test_a_bot_standing_in_for_a_dropped_person_stands_in_after_a_restart_and_stops_when_they_are_back(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """cy dropped; past the grace a bot played for her, and the list showed her seat a bot's. After a
    restart it showed it hers, her person counted as just dropped: the record now keeps the
    stand-in, and that it stopped once she was back."""
    db = tmp_path / "notty.db"
    servers.append(server := ServerProcess(db, *FAST, "--grace", "0.3"))
    cy = Player(server.port, "cy")
    cy.send(notty_table("classic", 2, ("random",), bot_delay_ms=3000))
    cy.expect(State)
    assert cy.view is not None
    while cy.view["current"] != 0:
        cy.expect(State)
    cy.send(Act("end"))  # random's turn, its move 3 s away: nothing is played before the kills
    cy.expect(State)
    eve = Player(server.port, "eve")  # someone at the table: the stand-in starts only then
    eve.send(Watch(cy.table))
    eve.expect(Watching)
    cy.close()
    while eve.expect(Notice).kind != "stand-in":
        pass
    before = _listed(eve, cy.table)
    assert before is not None and before["bots"] == [0, 1], before  # "cy (bot), random-2 (bot)"

    server.kill()
    eve.close()
    servers.append(server := ServerProcess(db, *FAST, "--grace", "0.3"))
    dee = Player(server.port, "dee")
    after = _listed(dee, cy.table)
    assert after is not None and after["bots"] == before["bots"], after
    assert [seat["name"] for seat in after["seats"]] == ["cy", "random-2"]

    back = Player(server.port, "cy", cy.token)  # she is back: the bot stops, and stays stopped
    back.expect(Seated)
    assert (_listed(dee, cy.table) or {}).get("bots") == [1]
    server.kill()
    back.close()
    dee.close()
    servers.append(server := ServerProcess(db, *FAST, "--grace", "30"))
    again = _listed(Player(server.port, "dee"), cy.table)
    assert again is not None and again["bots"] == [1], again
