"""The server over real TCP on 127.0.0.1 (port 0), with a minimal client speaking the protocol."""

from __future__ import annotations

import itertools
import random
import socket
import struct
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from conftest import notty_table

from games import HintAnswer
from games.notty import game as notty_game
from games.notty.engine import Action, View
from protocol import (
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Connection,
    Error,
    Goodbye,
    Hello,
    Hint,
    Join,
    ListTables,
    Message,
    Ping,
    Pong,
    Seated,
    Sender,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
    encode_frame,
)
from server.host import Host
from server.journal import Moved
from server.limits import Limits
from server.net import NottyServer
from server.store import Store


class Client:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.protocol = Connection(Sender.CLIENT)
        self.seen: list[Message] = []

    @classmethod
    async def connect(cls, port: int, name: str, token: str | None = None) -> Client:
        client = cls(await trio.open_tcp_stream("127.0.0.1", port))
        await client.send(Hello(PROTOCOL_VERSION, name, token))
        assert isinstance(await client.receive(), Welcome)
        return client

    async def send(self, message: Message) -> None:
        await self.stream.send_all(self.protocol.send(message))

    async def receive(self, timeout: float = 10) -> Message:
        with trio.fail_after(timeout):
            while (message := self.protocol.next_event()) is None:
                data = await self.stream.receive_some(65536)
                if not data:
                    raise EOFError("server closed the connection")
                self.protocol.receive_data(data)
        self.seen.append(message)
        return message

    async def expect(self, kind: type[Message], timeout: float = 10) -> Any:
        """Read until a message of ``kind`` arrives (others are kept in ``seen``)."""
        with trio.fail_after(timeout):
            while not isinstance(message := await self.receive(), kind):
                pass
        return message

    async def state_when(self, ready: Callable[[Any], bool], timeout: float = 30) -> Any:
        with trio.fail_after(timeout):
            while True:
                state = await self.expect(State)
                if ready(state.view):
                    return state.view


@pytest.fixture
async def server_port() -> AsyncIterator[int]:
    tokens = (f"token{n:035d}" for n in itertools.count())
    seeds = itertools.count(1)
    host = Host(new_rng=lambda: random.Random(next(seeds)), new_token=lambda: next(tokens), grace=0.5)
    server = NottyServer(host, limits=Limits(queue=8, rate=1000, burst=1000))
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(server.serve, "127.0.0.1", 0)
        yield listeners[0].socket.getsockname()[1]
        nursery.cancel_scope.cancel()


def _my_turn(view: Any) -> bool:
    return view["result"] is not None or (view["current"] == view["seat"] and bool(view["legal"]))


async def test_whole_game_against_a_bot_to_the_end(server_port: int) -> None:
    ann = await Client.connect(server_port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0, turn_limit=40))
    seated = await ann.expect(Seated)
    assert seated.seat == 0
    while True:
        view = await ann.state_when(_my_turn)
        if view["result"] is not None:
            break
        legal = view["legal"]
        action = next((a for a in legal if a.startswith("discard")), None) or (
            "draw 1" if "draw 1" in legal else "end"
        )
        await ann.send(Act(action))
    assert view["result"]["reason"] in {"discard", "stolen", "turn-limit", "stalemate", "no-progress"}
    ended = [e for m in ann.seen if isinstance(m, State) for e in m.events if e["kind"] == "game-ended"]
    assert len(ended) == 1
    assert sum(len(hand) for hand in view["body"]["hands"]) + view["body"]["deck_size"] == 80


async def test_two_humans_a_bot_and_a_spectator(server_port: int) -> None:
    ann = await Client.connect(server_port, "ann")
    bob = await Client.connect(server_port, "bob")
    eve = await Client.connect(server_port, "eve")
    await ann.send(notty_table("classic", 3, ("greedy",), bot_delay_ms=0))
    table = (await ann.expect(Seated)).table
    await bob.send(Join(table))
    assert (await bob.expect(Seated)).seat == 1
    await eve.send(Watch(table))
    assert isinstance(await eve.receive(), Watching)
    eve_view = (await eve.expect(State)).view
    assert eve_view["seat"] is None and eve_view["legal"] == ()
    assert len(eve_view["body"]["hands"]) == 3 and all(eve_view["body"]["hands"])  # every hand is visible
    # Whoever is to move acts; everyone sees the same hands afterwards.
    mover = ann if eve_view["current"] == 0 else bob if eve_view["current"] == 1 else None
    if mover is not None:
        await mover.send(Act("end"))
    await ann.send(Ping(5))
    assert (await ann.expect(Pong)).nonce == 5
    # A spectator's act, forced past its own state machine, is refused by the server.
    frame = msgpack.packb({"type": "act", "action": "end"})
    await eve.stream.send_all(struct.pack(">I", len(frame)) + frame)
    raw = await eve.stream.receive_some(65536)
    eve.protocol.receive_data(raw)
    errors = []
    while (message := eve.protocol.next_event()) is not None:
        if isinstance(message, Error):
            errors.append(message)
    while not errors:
        errors = [m for m in [await eve.receive()] if isinstance(m, Error)]
    assert errors[0].code == "not-now"


async def test_illegal_actions_and_bad_frames_over_tcp(server_port: int) -> None:
    ann = await Client.connect(server_port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0))
    await ann.state_when(_my_turn)
    await ann.send(Act("draw 9"))
    error = await ann.expect(Error)
    assert error.code == "illegal-action" and error.rule == "draw-count"
    await ann.send(AskHint())
    hint = await ann.expect(Hint)
    assert hint.data["size"] == sum(len(g) for g in hint.data["best"])
    # Garbage inside a well-formed frame: refused, and the connection goes on.
    await ann.stream.send_all(struct.pack(">I", 3) + b"\xc1\xc1\xc1")
    assert (await ann.expect(Error)).code == "bad-frame"
    await ann.send(Ping(1))
    assert (await ann.expect(Pong)).nonce == 1


async def test_oversized_frame_is_refused_before_its_body(server_port: int) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", server_port)
    await stream.send_all(struct.pack(">I", 64 * 1024 + 1))  # the header alone
    client = Client(stream)  # only to decode what the server says
    messages = []
    with trio.fail_after(5):
        while True:
            data = await stream.receive_some(65536)
            if not data:
                break
            client.protocol.receive_data(data)
            while (message := client.protocol.next_event()) is not None:
                messages.append(message)
    assert isinstance(messages[0], Error) and messages[0].code == "frame-too-large"
    assert isinstance(messages[-1], Goodbye)


async def test_drop_and_resume_with_the_token(server_port: int) -> None:
    ann = await Client.connect(server_port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0))
    token = (await ann.expect(Seated)).token
    view = await ann.state_when(_my_turn)
    await ann.stream.aclose()
    again = await Client.connect(server_port, "ann", token=token)
    seated = await again.expect(Seated)
    assert seated.seat == 0
    resumed = (await again.expect(State)).view
    assert resumed["body"]["hands"] == view["body"]["hands"]


async def test_a_client_that_stops_reading_is_dropped_and_others_play_on(server_port: int) -> None:
    eve = await Client.connect(server_port, "eve")
    eve.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    await eve.send(notty_table("classic", 2, ("greedy", "greedy"), turn_limit=100_000))
    ann = await Client.connect(server_port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0, turn_limit=30))
    await ann.expect(Seated)
    # eve never reads; ann's game goes on regardless and she is answered promptly.
    for _ in range(5):
        view = await ann.state_when(_my_turn, timeout=10)
        if view["result"] is not None:
            break
        await ann.send(Act("end"))
    await ann.send(Ping(9))
    assert (await ann.expect(Pong, timeout=5)).nonce == 9
    # Eventually the server gives up on eve: her stream ends.
    with trio.fail_after(30):
        while await eve.stream.receive_some(65536):
            await trio.sleep(0.05)


async def test_an_unknown_level_is_refused_and_the_connection_goes_on(server_port: int) -> None:
    ann = await Client.connect(server_port, "ann")
    await ann.send(notty_table("classic", 2, ("expert",), level="wizard"))
    error = await ann.expect(Error)
    assert error.code == "bad-option" and "level is one of easy, medium, hard" in error.message
    body = {"type": "create_table", "preset": "classic", "seats": 2, "bots": ["expert"], "level": "hard"}
    await ann.stream.send_all(encode_frame(body))  # a v2 request: refused whole, not half understood
    error = await ann.expect(Error)
    assert error.code == "bad-message" and "preset" in error.message
    await ann.send(ListTables())
    assert (await ann.expect(Tables)).tables == ()  # no table was made


class SlowBot:
    """A bot that thinks for a long time (as the expert at its hardest may), in whatever thread it is run."""

    def __init__(self, bot: Any, seconds: float) -> None:
        self.bot, self.name, self.seconds = bot, bot.name, seconds
        self.threads: list[int] = []

    def choose(self, view: View) -> Action:
        self.threads.append(threading.get_ident())
        time.sleep(self.seconds)
        action: Action = self.bot.choose(view)
        return action


async def test_a_thinking_bot_does_not_hold_up_the_server(
    server_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[SlowBot] = []
    real = notty_game.make_bot

    def make_slow_bot(name: str, rng: random.Random) -> SlowBot:
        made.append(SlowBot(real(name, rng), seconds=1.0))
        return made[-1]

    monkeypatch.setattr(notty_game, "make_bot", make_slow_bot)
    ann = await Client.connect(server_port, "ann")
    await ann.send(notty_table("classic", 2, ("expert",), bot_delay_ms=0, turn_limit=40))
    view = (await ann.expect(State)).view
    if view["current"] == 0:
        await ann.send(Act("end"))
        await ann.state_when(lambda v: v["current"] == 1)
    # The bot is thinking now; the server still answers at once.
    started = trio.current_time()
    await ann.send(Ping(3))
    assert (await ann.expect(Pong, timeout=5)).nonce == 3
    assert trio.current_time() - started < 0.6
    await ann.state_when(_my_turn)  # and the bot's move arrives when it is done
    (bot,) = [bot for bot in made if bot.threads]
    assert bot.name == "expert-medium"
    assert threading.get_ident() not in bot.threads  # it thought in a worker thread


class CountingStore(Store):
    """The real store, noting each transaction's records and whether a client had been told of them."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.batches: list[list[Any]] = []

    def write(self, records: Any) -> None:
        records = list(records)
        self.batches.append(records)
        super().write(records)


async def test_replies_wait_for_their_moves_to_be_stored_and_one_commit_serves_a_round(
    tmp_path: Path,
) -> None:
    store = CountingStore(tmp_path / "notty.db")
    tokens = (f"token{n:035d}" for n in itertools.count())
    host = Host(new_rng=lambda: random.Random(3), new_token=lambda: next(tokens))
    server = NottyServer(host, store=store)
    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(server.serve, "127.0.0.1", 0)
        port = listener.socket.getsockname()[1]
        ann = await Client.connect(port, "ann")
        bob = await Client.connect(port, "bob")
        await ann.send(notty_table("classic", 2))
        table = (await ann.expect(Seated)).table
        await bob.send(Join(table))
        await bob.expect(Seated)
        view = (await ann.expect(State)).view
        await bob.expect(State)
        mover = ann if view["current"] == 0 else bob
        # Two moves in one write: the server reads both in one round, and stores both in one commit.
        both = encode_frame(Act("draw 1").to_wire()) + encode_frame(Act("end").to_wire())
        await mover.stream.send_all(both)
        await mover.expect(State)
        saved = store.game(table)
        assert saved is not None and len(saved.moves) == 2  # stored before the first reply was sent
        moved = [[type(record) for record in batch] for batch in store.batches if Moved in map(type, batch)]
        assert moved == [[Moved, Moved]]
        await mover.expect(State)
        nursery.cancel_scope.cancel()


async def test_a_hint_the_server_cannot_send_is_answered_with_an_error(
    server_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's hint with data the wire does not carry costs that hint, not the asker's answer."""
    answers = iter([HintAnswer("bad", ("end",), {"rate": 0.5}), HintAnswer("end: fine", ("end",))])
    monkeypatch.setattr(
        "games.notty.game.NottyMatch.hint", lambda self, seat, adviser=None: lambda: next(answers)
    )
    ann = await Client.connect(server_port, "ann")
    await ann.send(notty_table("classic", 2, ("greedy",), bot_delay_ms=0))
    await ann.state_when(_my_turn)
    await ann.send(AskHint())
    error = await ann.expect(Error)
    assert error.code == "internal-error"
    await ann.send(AskHint())  # the failed hint is no longer out
    assert (await ann.expect(Hint)).text == "end: fine"
