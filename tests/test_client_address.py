"""``notty-client``'s address (``:PORT``, IPv6 with and without a port, and bad ones refused as
usage errors) and its handshake timeout: a port that takes the connection and never answers ends
the client, in every mode, rather than holding it for ever.

The end-to-end tests run the real ``notty-client``, against a real ``notty-server`` or a silent
listener on 127.0.0.1."""

from __future__ import annotations

import errno
import os
import pwd
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from client.address import parse_address
from client.app import CONNECT_TIMEOUT, REFUSED, _why_not_connected, login_name, program_as_run
from protocol import DEFAULT_PORT

BIN = Path(sys.executable).parent


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Seat tokens go to a temporary directory, never the real home."""
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm"}


# -- 3. the address -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("example.com", ("example.com", DEFAULT_PORT)),
        ("example.com:4000", ("example.com", 4000)),
        ("192.168.1.20:4008", ("192.168.1.20", 4008)),
        (":4000", ("localhost", 4000)),
        ("::1", ("::1", DEFAULT_PORT)),  # a bare IPv6 address's last group is no port
        ("fe80::1:4000", ("fe80::1:4000", DEFAULT_PORT)),
        ("[::1]", ("::1", DEFAULT_PORT)),
        ("[::1]:4000", ("::1", 4000)),
        ("[fe80::1%eth0]:65535", ("fe80::1%eth0", 65535)),
    ],
)
def test_addresses_parse_to_host_and_port(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("host:", "the port must be a number from 1 to 65535, not nothing"),
        (":", "the port must be a number from 1 to 65535, not nothing"),
        ("host:99999", "the port must be a number from 1 to 65535, not '99999'"),
        ("host:0", "the port must be a number from 1 to 65535, not '0'"),
        ("host:abc", "the port must be a number from 1 to 65535, not 'abc'"),
        ("[::1]:x", "the port must be a number from 1 to 65535, not 'x'"),
        ("[::1", "an IPv6 address in '[' needs its ']'"),
        ("[::1]4000", "after ']' comes ':PORT' or nothing"),
        ("[example.com]:4000", "brackets hold an IPv6 address"),
        ("[]:4000", "brackets hold an IPv6 address"),
        ("a:b:c", "not an IPv6 address (one with a port goes in brackets"),
        ("4008", "a port alone is written with its colon, :4008"),
        ("1", "a port alone is written with its colon, :1"),
        ("65535", "a port alone is written with its colon, :65535"),
    ],
)
def test_a_bad_address_is_refused_saying_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_address(text)
    assert str(refused.value).startswith(f"bad address {text!r}: ")
    assert says in str(refused.value)


@pytest.mark.parametrize("text", ["0", "00", "65536", "99999999999"])
def test_digits_alone_that_are_no_port_are_not_suggested_as_one(text: str) -> None:
    """``notty-client 0`` once said to write ``:0``, which is refused in turn."""
    with pytest.raises(ValueError) as refused:
        parse_address(text)
    assert str(refused.value) == (
        f"bad address {text!r}: a port alone is written with its colon (:PORT), and the port must be "
        f"a number from 1 to 65535, not {text!r}"
    )
    with pytest.raises(ValueError):  # what it would have suggested is no port either
        parse_address(f":{text}")


@pytest.mark.parametrize("text", ["host:", "host:99999", "host:abc", "[::1"])
def test_notty_client_with_a_bad_address_is_a_usage_error(text: str, env: dict[str, str]) -> None:
    ran = subprocess.run(
        [str(BIN / "notty-client"), text], input="", capture_output=True, text=True, env=env, timeout=30
    )
    assert ran.returncode == 2
    assert ran.stdout == ""
    lines = ran.stderr.splitlines()
    assert lines[0].startswith("usage: notty-client ") and "Traceback" not in ran.stderr
    assert [line for line in lines if line.startswith("notty-client:")] == lines[-1:]  # argparse's one line
    assert lines[-1].startswith(f"notty-client: error: bad address {text!r}: ")


def test_colon_port_reaches_a_real_server_on_this_machine(server_port: int, env: dict[str, str]) -> None:
    ran = subprocess.run(
        [str(BIN / "notty-client"), f":{server_port}", "--name", "sam"],
        input="tables\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout.startswith("connected to notty\n")
    assert "no tables now" in ran.stdout


# -- 4. a listener that never answers ---------------------------------------------------------------


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts every connection and never says a word."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:  # closed: the test is over
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        thread.join(timeout=5)
        for connection in accepted:
            connection.close()


def _silent(port: int, timeout: str = "1") -> str:
    return (
        f"notty-client: 127.0.0.1:{port} accepted the connection but did not answer as a notty server "
        f"within {timeout} s"
    )


def _script(port: int, env: dict[str, str], lines: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``notty-client`` fed ``lines`` from a pipe, with a 1 s --connect-timeout; and how long it took."""
    started = time.monotonic()
    ran = subprocess.run(
        [str(BIN / "notty-client"), f"127.0.0.1:{port}", "--connect-timeout", "1"],
        input=lines,
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    return ran, time.monotonic() - started


def test_a_script_pointed_at_a_silent_listener_gives_up_at_the_timeout(
    silent_port: int, env: dict[str, str]
) -> None:
    ran, took = _script(silent_port, env, "tables\nnew classic 2 greedy\n")
    assert ran.returncode == 1
    assert ran.stderr == _silent(silent_port) + "\n"
    assert ran.stdout == ""  # no line of the script was tried on it
    assert 1 <= took < CONNECT_TIMEOUT  # the timeout given, not the default


@pytest.mark.parametrize("mode", [["--plain"], []], ids=["line-mode", "full-screen"])
def test_a_person_at_a_terminal_is_not_left_waiting_on_a_silent_listener(
    silent_port: int, env: dict[str, str], mode: list[str]
) -> None:
    child = pexpect.spawn(
        str(BIN / "notty-client"),
        [f"127.0.0.1:{silent_port}", *mode, "--connect-timeout", "1.5"],
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(30, 200),
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert _silent(silent_port, "1.5") in child.before


@pytest.fixture
def unreachable_port() -> Iterator[int]:
    """A port on 127.0.0.1 whose connects hang, as a gone host's do: its listener accepts nothing, and
    its queue (``listen(0)``) is full with one connection, so Linux drops every later SYN."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    filler = socket.create_connection(("127.0.0.1", port), timeout=5)  # queued, never accepted
    try:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        except TimeoutError:
            pass  # it hangs, as it should
        else:
            pytest.skip("this system takes a connection beyond a full listen queue")
        yield port
    finally:
        filler.close()
        listener.close()


def test_a_server_that_never_takes_the_connection_cannot_be_connected_to_status_2(
    unreachable_port: int, env: dict[str, str]
) -> None:
    """As refused or an unknown host (status 2), unlike a port that takes the connection and never
    answers (status 1): the message says which, the README too."""
    ran, took = _script(unreachable_port, env, "tables\n")
    assert ran.returncode == 2
    assert (
        ran.stderr
        == f"notty-client: cannot connect to 127.0.0.1:{unreachable_port}: no connection within 1 s\n"
    )
    assert ran.stdout == ""
    assert 1 <= took < CONNECT_TIMEOUT  # the timeout given, not the system's own (minutes)


@pytest.fixture
def refused_port() -> int:
    """A port on 127.0.0.1 nothing listens on: bound, then closed, so a connect to it is refused."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        return int(unused.getsockname()[1])


def test_a_refused_connection_says_it_was_refused_status_2(refused_port: int, env: dict[str, str]) -> None:
    """It said only "all attempts to connect to 127.0.0.1:PORT failed", trio's words, not why."""
    ran, _ = _script(refused_port, env, "tables\n")
    assert ran.returncode == 2
    assert ran.stderr == (
        f"notty-client: cannot connect to 127.0.0.1:{refused_port}: "
        "connection refused (is the server running, on that port?)\n"
    )
    assert ran.stdout == ""


def test_each_reason_a_host_could_not_be_connected_to_is_said_once() -> None:
    attempts = [
        OSError(errno.ENETUNREACH, "Error connecting to ('::1', 4008): Network is unreachable"),
        ConnectionRefusedError(errno.ECONNREFUSED, "Error connecting to ('127.0.0.1', 4008): refused"),
        ConnectionRefusedError(errno.ECONNREFUSED, "Error connecting to ('127.0.0.2', 4008): refused"),
    ]
    failed = OSError("all attempts to connect to example.com:4008 failed")
    failed.__cause__ = ExceptionGroup("all attempts", attempts)
    assert _why_not_connected(failed) == f"{os.strerror(errno.ENETUNREACH)}; {REFUSED}"
    unknown = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert _why_not_connected(unknown) == "Name or service not known"  # said by itself, as before


def test_the_readme_gives_each_way_of_not_getting_an_answer_its_status() -> None:
    readme = " ".join((Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8").split())
    assert (
        "with status 2 when it cannot connect (refused, an unknown host, or no connection within the "
        "timeout), with status 1 when the connection was taken but no notty server answered on it within "
        "the timeout"
    ) in readme


@pytest.mark.parametrize("seconds", ["0", "-1", "nan"])
def test_a_connect_timeout_that_is_no_wait_is_a_usage_error(seconds: str, env: dict[str, str]) -> None:
    ran = subprocess.run(
        [str(BIN / "notty-client"), "127.0.0.1:1", "--connect-timeout", seconds],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert ran.returncode == 2
    assert ran.stderr.splitlines()[-1] == (
        "notty-client: error: argument --connect-timeout: it must be more than 0 seconds"
    )


def test_the_help_documents_the_address_forms_and_the_timeout(env: dict[str, str]) -> None:
    ran = subprocess.run(
        [str(BIN / "notty-client"), "--help"], capture_output=True, text=True, env=env, timeout=30
    )
    said = " ".join(ran.stdout.split())
    assert ":PORT: this machine; IPv6 as ::1, or [::1]:PORT" in said
    assert (
        "--connect-timeout SECONDS give up if the server has not connected and answered within this "
        f"many seconds (default {CONNECT_TIMEOUT:g})"
    ) in said


def test_the_client_says_to_run_itself_again_as_the_user_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A docs check was told 'run: notty-client ...' by a client 'make play' had started as
    .venv/bin/notty-client, and got 'command not found': the bare name only where PATH finds it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "notty-client"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert program_as_run(str(program)) == str(program)
    assert program_as_run("my dir/notty-client") == "'my dir/notty-client'"  # quoted, to paste
    monkeypatch.setenv("PATH", str(bin_dir))
    assert program_as_run(str(program)) == "notty-client"
    other = tmp_path / "other" / "notty-client"  # another install than the one PATH finds: its path
    assert program_as_run(str(other)) == str(other)
    assert program_as_run("/usr/lib/python3/client/__main__.py") == "notty-client"  # not run by name


def test_the_default_name_is_the_login_name_even_where_user_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """A docs check with USER unset played as 'player', where the help says "your login name"."""
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(variable, raising=False)
    assert login_name() == pwd.getpwuid(os.getuid()).pw_name
    monkeypatch.setenv("LOGNAME", "zoe")
    assert login_name() == "zoe"
