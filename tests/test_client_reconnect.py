"""``notty-client`` reconnecting within bounds: each try connects and is welcomed within
``--connect-timeout`` (and what is left of the reconnect budget), a port that takes the connection and
never answers counts as lost and is tried again, and once the budget is spent the client ends with
status 1, saying it lost the connection, rather than waiting for ever.

The real client runs as a subprocess with a piped script, through a loopback proxy in front of a real
``notty-server``: the proxy forwards the first connection, and the test cuts it. The one thing changed
in the child is the reconnect budget (:data:`client.app.RECONNECT_SECONDS`, 30 s), set to
:data:`BUDGET` so that a test waits seconds, not half a minute; everything else is ``notty-client``'s
own ``main``.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
import threading
import time
from pathlib import Path

import pexpect
import pytest
from conftest import ServerProcess
from pexpect.popen_spawn import PopenSpawn
from test_client import pipe

#: The reconnect budget in the child, in seconds, and each try's ``--connect-timeout``.
BUDGET, TRY = 5.0, 1.5
#: ``notty-client`` itself, with only the reconnect budget shortened.
CLIENT = f"import sys; from client import app; app.RECONNECT_SECONDS = {BUDGET!r}; sys.exit(app.main())"


class Proxy:
    """A loopback proxy that forwards its first connection to ``target`` and no other.

    Later connections are ``silent`` ones (accepted, held open, never answered), up to ``silent``
    of them, then forwarded again; or, with ``unreachable``, never accepted at all: the listener's
    backlog is full, so a connect's SYN goes unanswered, as from a host that is gone.
    """

    def __init__(self, target: int, silent: int = 1_000, unreachable: bool = False) -> None:
        self.target, self.silent, self.unreachable = target, silent, unreachable
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)  # one connection waiting fills the queue (Linux): see cut()
        self.port = self.listener.getsockname()[1]
        self.ends: list[socket.socket] = []  # every socket of ours, closed at the end
        self.forwarded: list[socket.socket] = []  # live forwarded connections, both ends
        self.held = 0  # silent connections so far
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        first = True
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:  # closed: the test is over
                return
            self.ends.append(near)
            if first or self.held >= self.silent:
                far = socket.create_connection(("127.0.0.1", self.target))
                self.ends.append(far)
                self.forwarded += [near, far]
                threading.Thread(target=pipe, args=(near, far), daemon=True).start()
                threading.Thread(target=pipe, args=(far, near), daemon=True).start()
            else:
                self.held += 1  # accepted, never read from nor written to
            if first and self.unreachable:
                return  # nothing is accepted again
            first = False

    def cut(self) -> None:
        """Drop the forwarded connection (after, when ``unreachable``, filling the backlog)."""
        if self.unreachable:
            filler = socket.create_connection(("127.0.0.1", self.port), timeout=5)  # queued, never accepted
            self.ends.append(filler)
        for end in self.forwarded:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
        self.forwarded = []

    def close(self) -> None:
        self.listener.close()
        for end in self.ends:
            with contextlib.suppress(OSError):
                end.close()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Seat tokens go to a temporary directory, never the real home."""
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "dumb"}


def _client(port: int, env: dict[str, str], *script: str) -> PopenSpawn:
    """The client on a pipe (stderr too), given ``script``'s lines; its input is left open."""
    child = PopenSpawn(
        [sys.executable, "-c", CLIENT, f"127.0.0.1:{port}", "--name", "fay", "--connect-timeout", str(TRY)],
        env=env,
        encoding="utf-8",
        timeout=20,
    )
    for line in script:
        child.sendline(line)
    return child


def _stop(child: PopenSpawn | None) -> None:
    """A client still running when its test ends (one that failed) is killed, not left behind."""
    if child is not None and child.proc.poll() is None:
        child.kill(9)
        child.wait()


def _ends(child: PopenSpawn, within: float) -> tuple[int | None, str]:
    """Wait ``within`` seconds for the client to end: its status and everything it said last."""
    child.expect(pexpect.EOF, timeout=within)
    return child.wait(), child.before


@pytest.mark.parametrize("unreachable", [False, True], ids=["accepted-never-answered", "never-accepted"])
def test_a_client_that_cannot_reconnect_gives_up_once_the_budget_is_spent(
    server_port: int, env: dict[str, str], unreachable: bool
) -> None:
    proxy, child = Proxy(server_port, unreachable=unreachable), None
    try:
        child = _client(proxy.port, env, "tables")
        child.expect("connected to notty")
        child.expect("no tables now")
        proxy.cut()
        cut = time.monotonic()
        child.expect(r"connection lost \(the server closed the connection\); reconnecting")
        child.sendline("tables")  # waits for a welcome (the old client tried it on the silent port)
        status, said = _ends(child, within=BUDGET + 10)
        took = time.monotonic() - cut
    finally:
        _stop(child)
        proxy.close()
    assert status == 1
    lines = said.strip().splitlines()
    lost = f"notty-client: lost the connection to 127.0.0.1:{proxy.port}: the server closed the connection"
    # What its tries met since, not only why it first dropped.
    not_back = rf"; not back within {BUDGET:g} s \(the last try: no answer within [\d.]+ s\)"
    assert len(lines) == 1 and re.fullmatch(re.escape(lost) + not_back, lines[0]), lines
    assert "not connected yet" not in said
    assert BUDGET - 0.5 <= took < BUDGET + 3  # the budget, with no connect or welcome overrunning it
    if not unreachable:
        assert proxy.held >= 2  # a connection taken and never answered was given up, and tried again


def test_a_reconnect_that_meets_a_silent_port_tries_again_and_resumes_the_seat(
    server_port: int, env: dict[str, str]
) -> None:
    proxy, child = Proxy(server_port, silent=1), None  # the first reconnect meets silence, then the server
    try:
        child = _client(proxy.port, env, "new classic 2 greedy")
        child.expect(r"you sit at table (\d+), seat 1")
        table = child.match.group(1)
        child.expect("your turn")
        proxy.cut()
        child.expect(r"connection lost \(the server closed the connection\); reconnecting")
        child.expect(
            rf"connected to notty \(asking for your seat at table {table} back\)", timeout=BUDGET + 5
        )
        child.expect(rf"you sit at table {table}, seat 1")
        assert proxy.held == 1
        child.sendeof()  # the script's end: the client says bye, keeping the seat
        status, said = _ends(child, within=15)
    finally:
        _stop(child)
        proxy.close()
    assert status == 0
    assert "Traceback" not in said


def test_a_client_turned_away_for_connecting_too_fast_tries_again_by_itself(
    servers: list[ServerProcess], tmp_path: Path, env: dict[str, str]
) -> None:
    """A server restarting with many players behind one address (a NAT, a tunnel) turns away those past
    its connection burst: the client quit on ``connecting-too-fast``, though a moment later it is let in."""
    server = ServerProcess(tmp_path / "rate.db", "--connection-rate", "0.5", "--connection-burst", "1")
    servers.append(server)
    first = socket.create_connection(("127.0.0.1", server.port))  # the address's one connection at once
    child = None
    try:
        child = _client(server.port, env, "tables")
        child.expect("the server takes connections from this address more slowly just now; trying again")
        child.expect("connected to notty", timeout=BUDGET + 5)
        child.expect("no tables now")
        child.sendeof()
        status, said = _ends(child, within=15)
    finally:
        _stop(child)
        first.close()
    assert status == 0
    assert "Traceback" not in said
