"""The marks a client leaves on the seats it sits at (client.tokens.SeatLocks), used as two clients would.

Each client holds an exclusive lock on a file of its seat's while it sits there, so a second client
offered the same token can tell the seat is played elsewhere, and by which process. flock locks
belong to an open file, not to a process, so two SeatLocks in this one process stand for two clients.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from client.tokens import SeatLocks

SERVER = "192.168.1.20:4008"
TOKEN = "s3cret-token-" + "x" * 27

pytestmark = pytest.mark.skipif(os.name != "posix", reason="seat locks use flock")


def test_a_seat_held_by_one_client_is_seen_held_by_another_until_it_is_given_up(tmp_path: Path) -> None:
    ours, theirs = SeatLocks(tmp_path / "in-use"), SeatLocks(tmp_path / "in-use")
    assert theirs.holder(SERVER, TOKEN) is None  # nobody sat there yet
    assert ours.hold(SERVER, TOKEN) is True
    assert ours.hold(SERVER, TOKEN) is True  # held already: still ours
    assert ours.holder(SERVER, TOKEN) is None  # ours is no other client's
    assert theirs.holder(SERVER, TOKEN) == os.getpid()  # the process that sits there
    assert theirs.hold(SERVER, TOKEN) is False
    theirs.discard(SERVER, TOKEN)  # a seat forgotten while another client sits there: its mark stays
    assert theirs.holder(SERVER, TOKEN) == os.getpid()
    ours.release(SERVER, TOKEN)
    assert list((tmp_path / "in-use").iterdir()) == []  # its file goes with its lock
    assert theirs.holder(SERVER, TOKEN) is None and theirs.hold(SERVER, TOKEN) is True
    ours.release(SERVER, TOKEN)  # not ours any more: nothing to do
    assert ours.holder(SERVER, TOKEN) == os.getpid()


def test_a_seat_held_by_a_client_killed_is_free_again_and_its_mark_is_cleared(tmp_path: Path) -> None:
    """Another process sits at the seat: it is named as the holder; killed, it leaves its file but
    not its lock, so the seat is free, and a forget removes the file."""
    sitting = (
        "import sys; from pathlib import Path; from client.tokens import SeatLocks; "
        f"print(SeatLocks(Path(sys.argv[1])).hold({SERVER!r}, {TOKEN!r}), flush=True); sys.stdin.read()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", sitting, str(tmp_path / "in-use")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "True"
        locks = SeatLocks(tmp_path / "in-use")
        assert locks.holder(SERVER, TOKEN) == child.pid and locks.hold(SERVER, TOKEN) is False
    finally:
        child.kill()
        child.wait()
    (path,) = (tmp_path / "in-use").iterdir()
    assert locks.holder(SERVER, TOKEN) is None  # the file left holds no one
    locks.discard(SERVER, TOKEN)
    assert not path.exists()


def test_a_seats_mark_names_neither_its_token_nor_its_server(tmp_path: Path) -> None:
    """The files are in the user's state folder, but a token is a secret: only a hash names its file,
    and the file holds the process id alone."""
    locks = SeatLocks(tmp_path / "in-use")
    assert locks.hold(SERVER, TOKEN) is True
    (path,) = (tmp_path / "in-use").iterdir()
    assert TOKEN not in path.name and "192.168" not in path.name
    assert path.read_text() == str(os.getpid())
    assert path.stat().st_mode & 0o777 == 0o600 and (tmp_path / "in-use").stat().st_mode & 0o777 == 0o700
    other = SeatLocks(tmp_path / "in-use")
    assert (
        other.holder(SERVER, TOKEN + "y") is None and other.hold("elsewhere:4008", TOKEN) is True
    )  # others'
    locks.release(SERVER, TOKEN)


def test_where_no_mark_can_be_made_a_seat_is_not_asked_about_again(tmp_path: Path) -> None:
    """A folder that cannot be made (a file in the way, say): no lock, said as None, not as 'held'."""
    (tmp_path / "in-use").write_text("not a folder")
    locks = SeatLocks(tmp_path / "in-use")
    assert locks.hold(SERVER, TOKEN) is None
    assert locks.holder(SERVER, TOKEN) is None
    locks.discard(SERVER, TOKEN)  # nothing there to clear: no error
