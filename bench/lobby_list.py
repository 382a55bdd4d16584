"""The lobby's table list: server CPU per ``list_tables``, kept between changes against built per request.

Any client may ask for the list, as often as its rate allows, and a server
holding many tables lists the newest 200. Building that list (every table's
map, checked against the protocol) costs milliseconds; the host now builds it
once per change to what it shows and answers every request from that, and on a
change checks again only the entries that changed.

The baseline, in the same run, is what each request cost before: build the
list, check it, and pack the checked message for the wire. The figure is the
host's answer plus the frame the server sends (``server.net.SharedFrames``: packed
once per change, as the list is built once), between other work:
a move at a table of the same host comes before every request, so caches are
as a server sees them, not warm from a tight loop. CPU time (``process_time``).

The second figure is a request right after a change at one table (a spectator
comes or goes, between every two requests, as a client looping watch and leave
could make it): the list is built again, the baseline checking every entry,
the host only the one that changed.

    .venv/bin/python bench/lobby_list.py [--tables 200] [--seats 2 8] [--requests 2000]
"""

from __future__ import annotations

import argparse
import random
import time

from _machine import describe  # bench/ is on sys.path when this runs as a script

from games import GAMES, Settings
from protocol import (
    MAX_NAME,
    PROTOCOL_VERSION,
    Act,
    CreateTable,
    Hello,
    Join,
    Leave,
    ListTables,
    ProtocolError,
    Seated,
    Tables,
    Watch,
    encode_frame,
)
from server.host import MAX_LISTED, Host
from server.net import SharedFrames
from server.tables import Seat, Table


def _host(tables: int, seats: int) -> Host:
    """A host holding ``tables`` waiting tables of ``seats`` long-named bot seats, and one game
    between two people (connections 1 and 2); connection 3 asks for the list."""
    tokens = (f"token{n:035d}" for n in range(10**6))
    host = Host(new_rng=lambda: random.Random(1), new_token=lambda: next(tokens))
    notty = GAMES["notty"]
    settings = Settings("notty", "classic", seats, {"level": "medium", "turn_limit": 0})
    for table_id in range(1, tables + 1):
        names = [f"{seat}".rjust(MAX_NAME, "x") for seat in range(seats)]
        host.tables[table_id] = Table(
            table_id, notty, settings, [Seat(name=name, bot="expert-medium") for name in names], None, 0.0, 0
        )
    host.driver.listing += 1
    host._next_table = tables + 1
    for conn in (1, 2, 3, 4):
        host.connect(conn)
        host.handle(conn, Hello(PROTOCOL_VERSION, f"p{conn}"), 0.0)
    (seated,) = [
        reply
        for _, reply in host.handle(1, CreateTable("notty", 2, "classic"), 0.0)
        if isinstance(reply, Seated)
    ]
    host.handle(2, Join(seated.table), 0.0)
    return host


def _between(host: Host) -> None:
    """Other work between two requests: a legal move at the playing table of another host, alike (a
    move at the measured one may change what its list shows: the turn)."""
    for table in host.tables.values():
        match = table.match
        if match is not None and not match.over:
            action = match.legal_actions(match.current)[0]
            host.handle(match.current + 1, Act(action), 0.0)
            return


def _as_before(host: Host) -> Tables:
    """The list as the host built it for every request before: cut to fit a frame, then checked
    (the checked message is what was packed)."""
    newest = sorted(host.tables.values(), key=lambda table: -table.id)[:MAX_LISTED]
    infos = [table.info() for table in newest]
    while True:
        try:
            encode_frame(Tables.unchecked(tables=infos).wire_body())
        except ProtocolError:
            infos = infos[: len(infos) * 3 // 4]
        else:
            return Tables(tuple(infos))


def _change(host: Host, watching: list[bool]) -> None:
    """A change the list shows: connection 4 watches the game played (the newest table), or leaves it."""
    host.handle(4, Leave() if watching[0] else Watch(max(host.tables)), 0.0)
    watching[0] = not watching[0]


def measure(tables: int, seats: int, requests: int, changed: bool) -> tuple[float, float, int]:
    """CPU microseconds a request: built per request (before), the host's (now); and the tables
    listed. ``changed``: a table changes before every request, so the host builds the list again."""
    host, other = _host(tables, seats), _host(tables, seats)
    frame = SharedFrames()  # the server's: the list packed once per change
    before = now = 0.0
    listed = 0
    watching = [False]
    for _ in range(requests):
        _between(other)
        if changed:
            _change(host, watching)
        start = time.process_time()
        encode_frame(_as_before(host).wire_body())
        before += time.process_time() - start
        _between(other)
        if changed:
            _change(host, watching)
        start = time.process_time()
        ((_, kept),) = host.handle(3, ListTables(), 0.0)
        assert isinstance(kept, Tables)
        frame.packed(kept)
        now += time.process_time() - start
        listed = len(kept.tables)
    return before / requests * 1e6, now / requests * 1e6, listed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 8])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"{'seats':>5} {'listed':>6} {'requests':<22} {'built per request':>18} {'host':>9} {'ratio':>6}")
    for seats in args.seats:
        for changed in (False, True):
            before, now, listed = measure(args.tables, seats, args.requests, changed)
            what = "after a change at one" if changed else "between changes"
            ratio = before / now
            print(f"{seats:>5} {listed:>6} {what:<22} {before:>15.0f} µs {now:>6.0f} µs {ratio:>5.1f}×")


if __name__ == "__main__":
    main()
