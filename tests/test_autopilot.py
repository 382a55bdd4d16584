"""``auto on`` / ``auto off``: the server plays every one of a seat's turns until it is switched off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import notty_table as notty
from test_host import Client as HostClient
from test_host import Net
from test_net import Client, server_port  # noqa: F401  (the fixture, by name)

from protocol import (
    Act,
    Autopilot,
    Error,
    Join,
    Notice,
    ProtocolError,
    Seated,
    Sender,
    State,
    Watch,
    message_from_wire,
)
from server.journal import AutopilotSet
from server.limits import AUTOPILOT_BURST, AUTOPILOT_EVERY
from server.store import Store


def _two_people(net: Net) -> tuple[HostClient, HostClient]:
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2, bot_delay_ms=0, turn_limit=300))[0].table
    bob.send(Join(table))
    return ann, bob


def _play_turn(client: HostClient) -> None:
    """The client plays its whole turn by hand: ends it as soon as the game allows."""
    seat = client.view["seat"]
    while client.view["current"] == seat and client.view["result"] is None:
        legal = client.view["legal"]
        draw = next((action for action in legal if action.startswith("draw")), legal[0])
        client.send(Act("end" if "end" in legal else draw))


def _notices(client: HostClient, kind: str) -> list[Notice]:
    return [m for m in client.inbox if isinstance(m, Notice) and m.kind == kind]


def test_the_messages_are_validated() -> None:
    assert message_from_wire({"type": "autopilot", "on": True}, Sender.CLIENT) == Autopilot(True)
    for bad in ({"type": "autopilot"}, {"type": "autopilot", "on": 1}, {"type": "autopilot", "on": "yes"}):
        with pytest.raises(ProtocolError) as info:
            message_from_wire(bad, Sender.CLIENT)
        assert info.value.code == "bad-message"
    with pytest.raises(ProtocolError):
        Autopilot(on=None)  # type: ignore[arg-type]


def test_autopilot_plays_every_turn_of_its_seat_only_until_switched_off() -> None:
    net = Net()
    ann, bob = _two_people(net)
    table = ann.table
    ann.send(Autopilot(True))
    assert [n.seat for n in _notices(ann, "autopilot-on")] == [0]  # the seat is told, and the table
    assert [n.seat for n in _notices(bob, "autopilot-on")] == [0]
    assert table.seats[0].autopilot and not table.seats[1].autopilot
    for _ in range(3):  # turn after turn, ann's are played for her; bob's wait for bob
        net.run_bots()
        assert table.match is not None and table.match.current == 1 and not table.over
        _play_turn(bob)
    ann.send(Autopilot(False))
    assert [n.seat for n in _notices(bob, "autopilot-off")] == [0]
    net.run_bots()
    if table.match.current == 0:  # ann's own again: no bot plays it
        assert net.run_bots() == 0 and table.match.current == 0


def test_a_turn_under_way_is_finished_by_the_bot() -> None:
    net = Net()
    ann, bob = _two_people(net)
    table = ann.table
    assert table.match is not None
    seat = table.match.current
    mover = (ann, bob)[seat]
    mover.send(Act("draw 1"))  # the turn has begun
    turn = table.match.turn
    assert net.run_bots() == 0  # nobody plays it for them yet
    mover.send(Autopilot(True))
    assert net.run_bots() > 0  # the bot finished it, and stopped at the other seat's turn
    assert table.match.turn == turn + 1 and table.match.current == 1 - seat


def test_nobody_switches_another_seats_autopilot() -> None:
    net = Net()
    ann, bob = _two_people(net)
    eve = net.client("eve")
    eve.send(Watch(ann.table.id))
    bob.send(Autopilot(True))
    assert not ann.table.seats[0].autopilot and ann.table.seats[1].autopilot
    # A spectator holds no seat: the host refuses it (the protocol would not even send it).
    (refused,) = net.host.handle(eve.id, Autopilot(True), net.now)
    assert isinstance(refused[1], Error) and refused[1].code == "not-seated"
    assert not ann.table.seats[0].autopilot


def test_autopilot_is_refused_outside_a_game_under_way() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2))  # waits for a second player
    (refused,) = ann.send(Autopilot(True))
    assert isinstance(refused, Error) and refused.code == "not-started"


def test_autopilot_is_recorded_and_restored(tmp_path: Path) -> None:
    net = Net()
    ann, _ = _two_people(net)
    ann.send(Autopilot(True))
    ann.send(Autopilot(True))  # no change: said again, not recorded again
    records = net.host.take_journal()
    assert [r for r in records if isinstance(r, AutopilotSet)] == [AutopilotSet(ann.table.id, 0, True)]
    store = Store(tmp_path / "notty.db")
    store.write(records)
    (saved,) = store.unfinished()
    assert saved.autopilot == frozenset({0})
    again = Net(seed=9)
    again.host.restore(saved, 0.0)
    restored = again.host.tables[ann.table.id]
    assert restored.seats[0].autopilot and not restored.seats[1].autopilot
    store.close()


def test_switching_autopilot_too_often_is_refused_and_changes_nothing() -> None:
    """An audit switched autopilot on and off 19 times a second: each switch a line of the record,
    a line of the log and a notice to everyone at the table. A seat has a burst of switches, then
    one every few seconds."""
    net = Net()
    ann, bob = _two_people(net)
    net.host.take_journal()
    for switch in range(AUTOPILOT_BURST):
        ann.send(Autopilot(switch % 2 == 0))
    assert ann.table.seats[0].autopilot is False  # switched on, off, ..., off
    told = len(_notices(bob, "autopilot-on"))
    (refused,) = ann.send(Autopilot(True))
    assert isinstance(refused, Error) and refused.code == "switched-too-often"
    assert refused.message == (
        f"your autopilot was switched too often: it stays off; switch it again in {AUTOPILOT_EVERY:g} s"
    )
    assert not ann.table.seats[0].autopilot and len(_notices(bob, "autopilot-on")) == told
    assert len([r for r in net.host.take_journal() if isinstance(r, AutopilotSet)]) == AUTOPILOT_BURST
    ann.send(Autopilot(False))  # asking for what it is changes nothing: answered, never refused
    assert isinstance(ann.inbox[-1], Notice) and ann.inbox[-1].kind == "autopilot-off"
    assert not bob.table.seats[1].switches.tokens < AUTOPILOT_BURST  # another seat's are its own
    net.now += AUTOPILOT_EVERY
    ann.send(Autopilot(True))
    assert ann.table.seats[0].autopilot and _notices(bob, "autopilot-on")[-1].seat == 0


def _ready(view: Any) -> bool:
    return view["result"] is not None or (view["current"] == view["seat"] and bool(view["legal"]))


async def _notice(client: Client, kind: str) -> Notice:
    while (notice := await client.expect(Notice)).kind != kind:
        pass
    return notice


async def test_autopilot_survives_a_reconnect(server_port: int) -> None:  # noqa: F811
    ann = await Client.connect(server_port, "ann")
    bob = await Client.connect(server_port, "bob")
    await ann.send(notty("classic", 2, bot_delay_ms=0, turn_limit=300))
    seated = await ann.expect(Seated)
    await bob.send(Join(seated.table))
    await bob.expect(Seated)
    await ann.send(Autopilot(True))
    told = await _notice(ann, "autopilot-on")
    assert told.seat == 0
    await ann.stream.aclose()  # ann's connection drops; her autopilot stays on
    ann = await Client.connect(server_port, "ann", seated.token)
    await ann.expect(Seated)
    again = await _notice(ann, "autopilot-on")  # the resumed seat is reminded
    assert again.seat == 0
    # Bob plays his turns by hand; every one of ann's is played for her, across the drop.
    turns = 0
    with trio.fail_after(30):
        while turns < 4:
            view = await bob.state_when(_ready)
            if view["result"] is not None:
                break
            await bob.send(Act("end" if "end" in view["legal"] else "draw 1"))
            turns += 1
    # Bob's turn came round again and again: each of ann's in between was played for her.
    assert turns == 4
    played_for_ann = [m.view for m in bob.seen if isinstance(m, State) and m.view["current"] == 0]
    assert played_for_ann


def test_asking_again_for_the_autopilot_one_has_tells_only_the_asker() -> None:
    """Everyone hears of a change; a request that changes nothing is answered to its sender alone,
    so that a client repeating it cannot fill every other screen (and outgoing queue) at the table."""
    net = Net()
    ann, bob = _two_people(net)
    ann.send(Autopilot(True))
    for _ in range(5):
        (again,) = ann.send(Autopilot(True))
        assert isinstance(again, Notice) and again.kind == "autopilot-on" and again.seat == 0
    assert len(_notices(bob, "autopilot-on")) == 1
    ann.send(Autopilot(False))
    assert len(_notices(bob, "autopilot-off")) == 1


def test_a_move_its_autopilot_made_is_still_marked_after_a_restart(tmp_path: Path) -> None:
    """A play-test: after a server restart a player on autopilot was shown its last move as its own."""
    net = Net()
    ann, _ = _two_people(net)
    table = ann.table
    ann.send(Autopilot(True))
    for _ in range(50):
        if table.last_played_for == 0:
            break
        net.run_bots(limit=1)
    assert table.last_played_for == 0
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    (saved,) = store.unfinished()
    again = Net(seed=9)
    again.host.restore(saved, 0.0)
    assert again.host.tables[table.id].last_played_for == 0
    store.close()
