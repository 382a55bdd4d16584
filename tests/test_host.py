"""The server's sans-IO core, driven through real protocol connections (no network)."""

from __future__ import annotations

import io
import itertools
import logging
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import hidden_game
import pytest
from conftest import notty_table as notty
from hypothesis import given, settings
from hypothesis import strategies as st

import server.host as host_module
import server.tables as tables_module
from client.session import Session
from games import GAMES, Game, HintAnswer, Settings
from games.notty.bots import BOTS, ExpertBot, GreedyBot, RandomBot
from games.notty.bots import LEVELS as BOT_LEVELS
from games.notty.engine import Draw
from protocol import (
    AWAY_MOVES,
    GAME_ENDED,
    MAX_LEGAL,
    MAX_NAME,
    MAX_SEATS,
    MAX_SPECTATORS,
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Autopilot,
    Bye,
    Connection,
    ConnectionState,
    CreateTable,
    Error,
    Goodbye,
    Hello,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Notice,
    Ping,
    PlayForMe,
    Pong,
    ProtocolError,
    Resign,
    Seated,
    Sender,
    Start,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
    encode_frame,
)
from server.host import OTHER_RECORD, Host, record_of, seat_token
from server.net import SharedFrames
from server.replay import print_game
from server.store import Store
from server.tables import Seat, Table, states


class Net:
    """Clients wired to a Host through encoded frames, as over TCP; time is explicit."""

    def __init__(self, grace: float = 30.0, games: Mapping[str, Game] = GAMES, seed: int = 1) -> None:
        tokens = (f"{n:040d}" for n in itertools.count())
        seeds = itertools.count(seed)
        self.host = Host(
            new_rng=lambda: random.Random(next(seeds)),
            new_token=lambda: next(tokens),
            grace=grace,
            games=games,
        )
        self.now = 0.0
        self.stores = True  # every change is stored as soon as it is made (see deliver)
        self.clients: dict[int, Client] = {}
        self._ids = itertools.count(1)

    def client(self, name: str, token: str | None = None) -> Client:
        client = Client(self, next(self._ids))
        self.clients[client.id] = client
        self.host.connect(client.id)
        client.send(Hello(PROTOCOL_VERSION, name, token))
        return client

    def deliver(self, outgoing: list[tuple[int, Message]]) -> None:
        # The lobby's list is kept between changes: whatever just happened, it is what a fresh one shows.
        assert self.host.table_list() == self.host.build_table_list()
        # As the shell tells it once what the host journaled is stored: here, at once, unless a
        # test says when (the ends of games gone meanwhile are then known recorded).
        stored = self.host.stored() if self.stores else []
        for conn, message in [*outgoing, *stored]:
            client = self.clients.get(conn)
            if client is None or client.closed:
                continue
            client.client_side.receive_data(client.server_side.send(message))
            received = client.client_side.next_event()
            # The host builds states unchecked: the checked decoding must give the very same message.
            assert received is not None and received.to_wire() == message.to_wire()
            client.inbox.append(received)

    def run_bots(self, limit: int = 10_000) -> int:
        """Let bots act until none is due; returns how many actions they took."""
        taken = 0
        while taken < limit:
            jobs = self.host.bot_jobs()
            if not jobs:
                return taken
            for job in jobs:
                self.deliver(self.host.bot_acted(job, job.bot.choose(job.view), self.now))
                taken += 1
        return taken

    def drop(self, client: Client) -> None:
        client.closed = True
        self.deliver(self.host.disconnect(client.id, self.now))

    def tick(self, seconds: float) -> None:
        self.now += seconds
        self.deliver(self.host.tick(self.now))


class Client:
    def __init__(self, net: Net, conn_id: int) -> None:
        self.net, self.id = net, conn_id
        self.client_side = Connection(Sender.CLIENT)
        self.server_side = Connection(Sender.SERVER)
        self.inbox: list[Message] = []
        self.closed = False

    def send(self, message: Message) -> list[Message]:
        """Send, and return what arrived in reply."""
        start = len(self.inbox)
        self.server_side.receive_data(self.client_side.send(message))
        received = self.server_side.next_event()
        assert received == message
        host = self.net.host
        self.net.deliver(host.handle(self.id, received, self.net.now))
        self.net.deliver([reply for job in host.hint_jobs() for reply in host.hint_ready(job, job.solve())])
        return self.inbox[start:]

    def ask_hint(self) -> None:
        """Ask for a hint and leave its job out, as the shell has not yet worked it out."""
        self.server_side.receive_data(self.client_side.send(AskHint()))
        self.net.deliver(self.net.host.handle(self.id, self.server_side.next_event(), self.net.now))

    def last(self, kind: type[Message]) -> Any:
        return next(m for m in reversed(self.inbox) if isinstance(m, kind))

    @property
    def view(self) -> Any:
        return self.last(State).view

    @property
    def table(self) -> Table:
        """The host's table this client sits at or watches."""
        session = self.net.host.sessions[self.id]
        assert session.table is not None
        return self.net.host.tables[session.table]


def expert_level(bot: object) -> str:
    """The level of an expert bot (and fails for any other bot)."""
    assert isinstance(bot, ExpertBot), f"{bot!r} is not the expert"
    return bot.level


def test_hello_welcome_and_table_list() -> None:
    net = Net()
    ann = net.client("ann")
    assert isinstance(ann.inbox[0], Welcome)
    assert ann.client_side.state is ConnectionState.LOBBY
    (tables,) = ann.send(ListTables())
    assert isinstance(tables, Tables) and tables.tables == ()
    assert ann.send(Ping(7)) == [Pong(7)]


def test_a_whole_game_against_a_bot() -> None:
    net = Net()
    ann = net.client("ann")
    replies = ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    assert isinstance(replies[0], Seated) and replies[0].seat == 0
    assert ann.client_side.state is ConnectionState.SEATED
    assert isinstance(replies[1], State)
    assert replies[1].events[0]["kind"] == "game-started"
    # Play greedily by hand until the game ends (or a generous cap).
    for _ in range(400):
        net.run_bots()
        view = ann.view
        if view["result"] is not None:
            break
        assert view["current"] == 0 and view["legal"]
        legal = view["legal"]
        choice = next((a for a in legal if a.startswith("discard")), None) or (
            "draw 1" if "draw 1" in legal else "end"
        )
        replies = ann.send(Act(choice))
        assert not any(isinstance(m, Error) for m in replies), replies
    assert ann.view["turn"] > 1
    assert sum(len(h) for h in ann.view["body"]["hands"]) + ann.view["body"]["deck_size"] == 80


def test_illegal_actions_are_refused_with_the_rule_and_change_nothing() -> None:
    net = Net()
    ann = net.client("ann")
    bob = net.client("bob")
    table = ann.send(notty("classic", 2))[0].table
    bob.send(Join(table))
    current = ann.view["current"]
    mover, waiter = (ann, bob) if current == 0 else (bob, ann)
    before = mover.view
    (error,) = waiter.send(Act("draw 1"))
    assert isinstance(error, Error) and error.code == "illegal-action" and error.rule == "not-your-turn"
    assert error.message == f"it is {['ann', 'bob'][current]}'s turn, not yours"
    (error,) = mover.send(Act("draw 4"))
    assert error.rule == "draw-count"
    (error,) = mover.send(Act("discard R1 R2"))
    assert error.rule in {"not-in-hand", "invalid-group"}
    (error,) = mover.send(Act("fly away"))
    assert error.code == "bad-action"
    assert mover.view == before  # no state was sent: nothing changed


def test_two_humans_and_a_bot_all_see_every_change() -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("five-colour", 3, ("random",), bot_delay_ms=0))[0].table
    assert not any(isinstance(m, State) for m in ann.inbox)  # waiting for bob
    bob.send(Join(table))
    net.run_bots()
    assert ann.view["body"]["hands"] == bob.view["body"]["hands"]
    assert ann.view["seat"] == 0 and bob.view["seat"] == 1
    assert ann.view["names"] == ("ann", "bob", "random-3")


def test_spectator_sees_all_hands_but_cannot_act() -> None:
    net = Net()
    ann, eve = net.client("ann"), net.client("eve")
    table = ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))[0].table
    replies = eve.send(Watch(table))
    assert isinstance(replies[0], Watching) and isinstance(replies[1], State)
    assert eve.view["seat"] is None and eve.view["legal"] == ()
    assert eve.view["body"]["hands"] == ann.view["body"]["hands"]
    with pytest.raises(ValueError):  # the protocol itself forbids a spectator's act
        eve.client_side.send(Act("end"))


def test_every_spectator_is_sent_one_state_packed_once() -> None:
    """A security review: a move cost one view and one packing per watcher, and one address may
    watch a table 200 times over. Spectators see the same, so it is made and packed once."""
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))[0].table
    watchers = [net.client(name) for name in ("eve", "cat", "dan")]
    for watcher in watchers:
        watcher.send(Watch(table))
    bob.send(Watch(table))
    match = ann.table.match
    assert match is not None
    out = states(ann.table, match.opening, ann.table.viewers())
    sent = {conn: message for conn, message in out}
    spectators = [sent[client.id] for client in (*watchers, bob)]
    assert all(state is spectators[0] for state in spectators)  # one object for all of them
    assert sent[ann.id] is not spectators[0] and sent[ann.id].view["seat"] == 0
    assert spectators[0].view["seat"] is None and spectators[0].view["legal"] == []
    frames = SharedFrames()
    frame = frames.packed(spectators[0])
    assert frame == encode_frame(spectators[0].wire_body())
    assert frames.packed(sent[ann.id]) == encode_frame(sent[ann.id].wire_body())
    again = frames.packed(spectators[1])
    assert again == frame and all(frames.packed(state) is again for state in spectators[2:])


def test_creator_starts_early_and_bots_fill_the_seats() -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 3))[0].table
    bob.send(Join(table))
    (error,) = bob.send(Start())
    assert error.code == "not-creator"
    replies = ann.send(Start())
    assert isinstance(replies[0], State)
    assert ann.view["names"][2] == "expert-3"
    assert [seat.bot for seat in ann.table.seats] == [None, None, "expert-medium"]
    assert expert_level(ann.table.bots[2]) == "medium"


def test_a_player_named_like_a_filling_bot_can_still_start_early() -> None:
    net = Net()
    ann = net.client("expert-3")
    table = ann.send(notty("classic", 3))[0].table
    replies = ann.send(Start())
    assert isinstance(replies[0], State), replies
    names = ann.view["names"]
    assert names[0] == "expert-3" and len({name.casefold() for name in names}) == 3
    assert [seat.bot for seat in net.host.tables[table].seats] == [None, "expert-medium", "expert-medium"]


@pytest.mark.parametrize(
    ("first", "second", "given"),
    [
        ("ann", "ann", "ann-2"),
        ("Ann", "ann", "ann-2"),  # names that differ only in case could not be told apart in `steal ann`
        ("x" * 24, "x" * 24, "x" * 22 + "-2"),  # a numbered name still fits the protocol's limit
        ("ann", "You", "You-2"),  # every client says "you" for its reader's seat: "you draws" misled
    ],
)
def test_a_second_player_of_the_same_name_gets_a_name_of_their_own(
    first: str, second: str, given: str
) -> None:
    net = Net()
    ann, bob = net.client(first), net.client(second)
    table = ann.send(notty("classic", 2))[0].table
    bob.send(Join(table))  # the game starts: every state is checked as a client decodes it (Net.deliver)
    assert list(bob.view["names"]) == [first, given]


@pytest.mark.parametrize("how", ["leave", "drop"])
def test_when_the_creator_goes_before_the_start_the_next_player_may_start(how: str) -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 3))[0].table
    bob.send(Join(table))
    assert bob.send(Start())[0].code == "not-creator"  # not while ann is here
    if how == "leave":
        ann.send(Leave())
    else:
        net.drop(ann)
    replies = bob.send(Start())
    assert isinstance(replies[0], State), replies
    assert list(bob.view["names"]) == ["expert-1", "bob", "expert-3"]


def test_a_table_kept_only_by_a_spectator_can_be_started_by_the_next_to_sit() -> None:
    net = Net()
    ann, bob, cat = net.client("ann"), net.client("bob"), net.client("cat")
    table = ann.send(notty("classic", 3))[0].table
    cat.send(Watch(table))
    ann.send(Leave())  # nobody seated: cat's watching keeps the table
    bob.send(Join(table))
    replies = bob.send(Start())
    assert isinstance(replies[0], State), replies


def test_everyone_at_a_waiting_table_sees_who_comes_and_goes() -> None:
    net = Net()
    ann, bob, cat = net.client("ann"), net.client("bob"), net.client("cat")
    table = ann.send(notty("classic", 3))[0].table

    def seats_ann_saw() -> list[str | None]:
        (info,) = ann.inbox[-1].tables
        assert info["table"] == table and not info["started"]
        return [seat["name"] for seat in info["seats"]]

    seated, news = bob.send(Join(table))  # the newcomer learns its seat, and what the table waits for now
    assert isinstance(seated, Seated) and isinstance(news, Tables)
    assert [seat["name"] for seat in news.tables[0]["seats"]] == ["ann", "bob", None]
    assert seats_ann_saw() == ["ann", "bob", None]
    bob.send(Leave())
    assert seats_ann_saw() == ["ann", None, None]
    cat.send(Join(table))
    assert seats_ann_saw() == ["ann", "cat", None]
    net.drop(cat)
    assert seats_ann_saw() == ["ann", None, None]
    seen = len(ann.inbox)
    ann.send(Leave())  # the last one out: nobody is left to tell, and the table goes
    assert len(ann.inbox) == seen + 1 and table not in net.host.tables


def test_lobby_refusals() -> None:
    net = Net()
    ann, bob, cat = net.client("ann"), net.client("bob"), net.client("cat")
    refused = ann.send(Join(99))[0]
    assert refused.code == "no-such-table"
    assert refused.message == "there is no table 99 (any more): 'tables' lists them now"
    assert ann.send(notty("poker", 2))[0].code == "unknown-variant"
    assert ann.send(CreateTable("poker", 2))[0].code == "unknown-game"
    assert ann.send(notty("classic", 5))[0].code == "bad-seats"
    assert ann.send(notty("classic", 2, ("wizard",)))[0].code == "unknown-bot"
    table = ann.send(notty("classic", 2))[0].table
    taken = bob.send(Join(table, 0))[0]  # said without a number: people count seats from 1, the wire from 0
    # A play-test was told only that the seat was taken: which are free, and what takes one.
    free = f"that seat at table {table} is taken: seat 2 is free ('join {table}' takes it)"
    assert (taken.code, taken.message) == ("seat-taken", free)
    three = net.client("dan").send(notty("classic", 3))[0].table
    said = net.client("eve").send(Join(three, 0))[0].message
    assert said.endswith(f"seats 2, 3 are free ('join {three}' takes the first)")
    beyond = bob.send(Join(table, 2))[0]
    assert (beyond.code, beyond.message) == ("no-such-seat", f"table {table} has no such seat (it has 2)")
    bob.send(Join(table))
    assert cat.send(Join(table))[0].code == "game-started"


def test_hint_and_play_for_me() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    net.run_bots()
    (hint,) = ann.send(AskHint())
    assert isinstance(hint, Hint)
    best = hint.data["best"]
    assert hint.data["size"] == sum(len(group) for group in best)
    assert hint.actions == tuple("discard " + " ".join(group) for group in best)  # commands to type
    hand = ann.view["body"]["hands"][0]
    assert all(card in hand for group in best for card in group)
    advice = hint.data["turn"]  # her turn: advice for it too, in game data (no floats)
    assert all(type(chance) is int for _, chance in advice["chances"]) and advice["expert"]
    assert "this turn" in hint.text
    (own,) = ann.send(PlayForMe())  # ann's view again: no moves listed while the bot plays
    assert isinstance(own, State) and own.view["legal"] == () and own.view["bot_turn"] is True
    turn = ann.view["turn"]
    net.run_bots()
    assert ann.view["turn"] > turn  # the bot finished ann's turn and the opponent played
    assert ann.view["current"] == 0  # and it is ann's own turn again: auto was for one turn


def test_the_hint_names_the_move_auto_then_makes() -> None:
    """The host asks a copy of the bot that plays the seat on 'auto' (at the table's level, with
    what it has watched): a play-tester was told one move by the hint and saw 'auto' make another."""
    compared = 0
    for seed in range(1, 6):
        net = Net(seed=seed)
        ann = net.client("ann")
        ann.send(notty("five-colour", 2, ("greedy",), bot_delay_ms=0))
        while ann.view["result"] is None and compared < 40:
            net.run_bots()
            if ann.view["result"] is not None:
                break
            (hint,) = ann.send(AskHint())
            ann.send(PlayForMe())
            (job,) = net.host.bot_jobs()
            action = job.bot.choose(job.view)
            if "turn" in hint.data:
                said = hint.data["turn"]["expert"]
                victim = getattr(action, "victim", None)
                assert said == (str(action) if victim is None else f"steal {ann.view['names'][victim]}")
                compared += 1
            net.deliver(net.host.bot_acted(job, action, net.now))
    assert compared >= 20


def test_a_hint_asked_while_its_seat_s_bot_plays_the_turn_asks_no_twin_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A review: the twin is taken on the event loop while that bot may be choosing in a worker thread
    (ann typed 'auto', then 'hint'), its state half changed: a fresh adviser answers then."""
    from games.notty.game import NottyMatch

    asked: list[object] = []
    real = NottyMatch.hint
    monkeypatch.setattr(
        NottyMatch, "hint", lambda self, seat, adviser=None: asked.append(adviser) or real(self, seat)
    )
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    net.run_bots()
    ann.send(AskHint())
    ann.send(PlayForMe())
    (_job,) = net.host.bot_jobs()  # ann's bot is out, playing her turn
    (hint,) = ann.send(AskHint())
    assert isinstance(hint, Hint)
    assert asked[0] is ann.table.bots[0] and asked[1] is None


def test_a_watcher_asks_for_the_hint_of_the_hand_to_play_where_hands_are_face_up() -> None:
    """Notty's hands are face up: a watcher's hint is the solver's answer for the seat to play, with no
    command to type; two watchers asking at once share one job (a review: each queued a solve of the
    same position), and each has it out. Where hands are hidden it is refused: the hint would tell a
    watcher what a seat keeps from the others."""
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    net.run_bots()
    watchers = [net.client("cat"), net.client("dan")]
    for watcher in watchers:
        watcher.send(Watch(ann.table.id))
    jobs_before = len(net.host._hints_out)
    answers = []
    for watcher in watchers:  # both asked before either is answered
        start = len(watcher.inbox)
        watcher.ask_hint()
        assert watcher.inbox[start:] == []  # no 'hint-pending': the other watcher's is not theirs
    jobs = net.host.hint_jobs()
    assert len(jobs) == 1 and len(net.host._hints_out) == jobs_before + 2
    (refused,) = watchers[1].send(AskHint())  # the shared one is still theirs to wait for
    assert isinstance(refused, Error) and refused.code == "hint-pending"
    for job in jobs:
        net.deliver(net.host.hint_ready(job, job.solve()))
    assert len(net.host._hints_out) == jobs_before and not net.host._watchers_waiting
    for watcher in watchers:
        answers.append(watcher.last(Hint))
    view = watchers[0].view
    hand = view["body"]["hands"][view["current"]]
    for hint in answers:
        assert hint.actions == () and "turn" not in hint.data  # nothing to type, no advice for a turn
        assert all(card in hand for group in hint.data["best"] for card in group)
    player = ann.send(AskHint())[-1]  # the player's own hint is unchanged: commands to type, advice
    assert isinstance(player, Hint) and "turn" in player.data
    # A third watcher's, for the same position, is the one worked out already: no job, answered at once.
    third = net.client("fay")
    third.send(Watch(ann.table.id))
    third.ask_hint()
    assert net.host.hint_jobs() == [] and third.last(Hint) == answers[-1]
    again = watchers[0].send(AskHint())
    assert isinstance(again[-1], Hint)  # answered, so no longer out
    bob = net.client("bob")
    bob.send(CreateTable("huxxy", 2, bots=("greedy",), bot_delay_ms=0))
    hidden = net.client("eve")
    hidden.send(Watch(bob.table.id))
    (refused,) = hidden.send(AskHint())
    assert isinstance(refused, Error) and refused.code == "no-hints"
    assert refused.message == "huxxy keeps each hand hidden: only a player has hints, for their own hand"


def test_a_watchers_hint_is_worked_out_again_once_the_game_moves_on() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    net.run_bots()
    cat = net.client("cat")
    cat.send(Watch(ann.table.id))
    first = cat.send(AskHint())[-1]
    assert isinstance(first, Hint) and ann.table.watched_hint == (ann.table.moves, first)
    ann.send(Act("end"))  # the position changes: the hint kept is of one gone
    cat.ask_hint()
    (job,) = net.host.hint_jobs()  # worked out anew
    net.deliver(net.host.hint_ready(job, job.solve()))
    assert cat.last(Hint).data["best"] is not None and ann.table.watched_hint[0] == ann.table.moves


def _watched(*names: str) -> tuple[Net, Client, list[Client]]:
    """A Notty table of ann and greedy, ann to play, watched by ``names``."""
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
    net.run_bots()
    watchers = [net.client(name) for name in names]
    for watcher in watchers:
        watcher.send(Watch(ann.table.id))
    return net, ann, watchers


def test_watchers_sharing_a_hint_job_each_get_its_answer_where_they_still_watch() -> None:
    """The answer of a job watchers share goes to each still watching that table: stale to all when the
    game moved on, to none who left; and none of them is left with a hint out that never comes."""
    net, ann, watchers = _watched("cat", "dan", "eve")
    for watcher in watchers:
        watcher.ask_hint()
    (job,) = net.host.hint_jobs()
    watchers[2].send(Leave())  # gone from the table: not told
    left_at = len(watchers[2].inbox)
    ann.send(Act("end"))  # the position asked about is gone
    net.deliver(net.host.hint_ready(job, job.solve()))
    for watcher in watchers[:2]:
        stale = watcher.last(Error)
        assert stale is not None and stale.code == "hint-stale"
    assert not [told for told in watchers[2].inbox[left_at:] if isinstance(told, Hint | Error)]
    assert not net.host._hints_out and not net.host._watchers_waiting
    net.run_bots()
    for watcher in watchers[:2]:  # asked again: no 'hint-pending' left behind
        assert isinstance(watcher.send(AskHint())[-1], Hint)


def test_watchers_share_the_job_of_the_position_now_while_one_of_a_position_gone_is_out() -> None:
    """A review: the job to share was kept by table, so once the game moved on under a slow solve,
    every watcher asking about the new position queued a solve of its own until the old one ended."""
    net, ann, watchers = _watched("cat", "dan", "eve")
    watchers[0].ask_hint()
    (old,) = net.host.hint_jobs()
    ann.send(Act("end"))  # the bot's turn: not played yet, so the position stays until it is
    watchers[1].ask_hint()
    watchers[2].ask_hint()
    (new,) = net.host.hint_jobs()  # one solve of the position now, for both
    net.deliver(net.host.hint_ready(new, new.solve()))
    net.deliver(net.host.hint_ready(old, old.solve()))
    assert watchers[0].last(Error).code == "hint-stale"
    assert watchers[1].last(Hint) == watchers[2].last(Hint)
    assert not net.host._hints_out and not net.host._watchers_waiting


def test_an_answer_that_fails_leaves_no_watcher_sharing_it_waiting_for_ever() -> None:
    """A review: a shared job whose answer could not be sent (a game's hint the protocol refuses)
    raised before the other watchers' hints were marked answered: each was told 'hint-pending' at
    that table for as long as it stayed connected."""
    net, _, watchers = _watched("cat", "dan")
    for watcher in watchers:
        watcher.ask_hint()
    (job,) = net.host.hint_jobs()
    with pytest.raises(ProtocolError):
        net.host.hint_ready(job, HintAnswer("x", (), {"a": object()}))  # type: ignore[dict-item]
    assert not net.host._hints_out and not net.host._watchers_waiting
    for watcher in watchers:
        assert isinstance(watcher.send(AskHint())[-1], Hint)


def test_a_watcher_gone_to_another_table_may_ask_there_while_the_first_hint_is_out() -> None:
    """A review: watcher hints were kept by connection alone, so a watcher that asked, went to watch
    another table and asked again was told to wait for a hint that would never be sent."""
    net = Net()
    tables = []
    for name in ("ann", "bob"):
        player = net.client(name)
        player.send(notty("classic", 2, ("greedy",), bot_delay_ms=0))
        net.run_bots()
        tables.append(player.table.id)
    cat = net.client("cat")
    cat.send(Watch(tables[0]))
    cat.ask_hint()  # out, not yet answered
    cat.send(Leave())
    cat.send(Watch(tables[1]))
    (hint,) = [reply for reply in cat.send(AskHint()) if isinstance(reply, Hint | Error)]
    assert isinstance(hint, Hint)  # not 'hint-pending'


def test_a_watchers_hint_midway_through_a_draw_and_discard_names_the_card_to_put_back() -> None:
    """A review: the watcher's hint weighed a hand one card too big, the card drawn not yet put back."""
    net = Net()
    ann = net.client("ann")
    ann.send(notty("five-colour", 2, ("greedy",), bot_delay_ms=0))
    net.run_bots()
    ann.send(Act("dd"))
    assert ann.view["body"]["must_put_back"]
    cat = net.client("cat")
    cat.send(Watch(ann.table.id))
    hint = cat.send(AskHint())[-1]
    assert isinstance(hint, Hint)
    assert (
        len(hint.actions) == 1 and hint.actions[0].startswith("putback ") and hint.text.startswith("put back")
    )


def test_no_hint_and_no_play_for_me_once_the_game_is_over() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0, turn_limit=2))
    for _ in range(3):
        net.run_bots()
        if ann.view["result"] is None:
            ann.send(Act("end"))
    assert ann.view["result"]["reason"] == "turn-limit"
    for ask in (AskHint(), PlayForMe()):
        (error,) = ann.send(ask)
        assert isinstance(error, Error) and error.code == "game-over" and "'leave'" in error.message


def test_drop_and_resume_with_token_then_stand_in_after_grace() -> None:
    net = Net(grace=30)
    ann = net.client("ann")
    seated = ann.send(notty("classic", 2, ("greedy",), bot_delay_ms=0, level="easy"))[0]
    net.run_bots()
    hands = ann.view["body"]["hands"]
    net.drop(ann)
    assert net.run_bots() == 0  # nobody there: bots wait
    again = net.client("ann", token=seated.token)
    assert isinstance(again.inbox[1], Seated) and again.inbox[1].seat == 0
    assert again.view["body"]["hands"] == hands  # the full current view on resume
    net.drop(again)
    net.tick(31)  # past the grace, but nobody is there: no stand-in yet (nor a turn limit for it)
    assert not net.host.tables[seated.table].seats[0].stand_in
    eve = net.client("eve")
    eve.send(Watch(seated.table))
    net.tick(0)  # the next tick with someone there (a quarter of a second, live) starts it
    assert net.host.tables[seated.table].seats[0].stand_in
    assert net.run_bots(limit=50) > 0
    assert net.client("mallory", token="x" * 40).inbox[-1].code == "bad-token"


def test_a_player_back_after_a_drop_and_a_new_spectator_see_the_last_move() -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    seated = ann.send(notty("classic", 2))[0]
    bob.send(Join(seated.table))
    mover = ann if ann.view["current"] == 0 else bob
    mover.send(Act("draw 2"))
    mover.send(Act("end"))
    live = {client.id: client.last(State).events for client in (ann, bob)}
    assert any(event["text"] for event in live[ann.id])
    net.drop(ann)
    again = net.client("ann", token=seated.token)
    assert again.last(State).events == live[ann.id]  # as ann saw it live, not an empty log
    eve = net.client("eve")
    eve.send(Watch(seated.table))
    assert eve.last(State).events == tuple(
        net.host.tables[seated.table].match.event(event, None)  # type: ignore[union-attr]
        for event in net.host.tables[seated.table].last_events
    )
    # The same move, as a player saw it (each seat it names is told it in its own words: "your turn").
    facts = [(event["kind"], event["data"]) for event in eve.last(State).events]
    assert facts == [(event["kind"], event["data"]) for event in live[bob.id]]


@pytest.mark.parametrize(
    ("game", "moves"),
    [("notty", 3), ("notty", AWAY_MOVES + 7), ("huxxy", 3), ("huxxy", AWAY_MOVES + 7), ("ochos-locos", 3)],
)
def test_a_player_back_after_a_drop_sees_the_moves_made_while_away(game: str, moves: int) -> None:
    """Only the last move came back: a stand-in's moves on the seat, and the others', were never
    shown. Now the moves made while away come back (the last AWAY_MOVES of them), in the seat's
    words, with how many there were."""
    net = Net(grace=10)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(CreateTable(game, 2, None, (), {}, bot_delay_ms=0))[0].table
    token = bob.send(Join(table))[0].token  # type: ignore[attr-defined]
    eve = net.client("eve")
    eve.send(Watch(table))
    ann.send(Autopilot(True))  # the server plays ann's turns; bob's, once a bot stands in
    seen = len(eve.inbox)
    net.drop(bob)
    net.tick(11)  # a bot stands in for bob, and the game may say so (Notty: a turn limit)
    net.run_bots(limit=moves)
    made = [message.events for message in eve.inbox[seen:] if isinstance(message, State) and message.events]
    assert len(made) >= moves
    back = net.client("bob", token=token)
    state = back.last(State)
    assert state.view["away"] == len(made)
    shown = made[-AWAY_MOVES:]
    assert [event["kind"] for event in state.events] == [event["kind"] for move in shown for event in move]
    texts = [event["text"] for event in state.events]
    assert any(text.startswith("you ") for text in texts)  # bob's own seat, by the stand-in, as his
    assert any(text.startswith("ann ") for text in texts)
    again = net.client("bob", token=token)  # nothing missed: the last move alone, as before
    assert "away" not in again.last(State).view
    assert again.last(State).events == state.events[-len(made[-1]) :]


def test_after_a_restart_a_player_back_and_a_new_spectator_see_the_last_recorded_move(tmp_path: Path) -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    seated = ann.send(notty("classic", 2))[0]
    bob.send(Join(seated.table))
    mover, other = (ann, bob) if ann.view["current"] == 0 else (bob, ann)
    mover.send(Act("draw 2"))  # the turn is still under way at the restart
    live = {client.id: client.last(State).events for client in (ann, bob)}
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    (saved,) = store.unfinished()
    restarted = Net()
    restarted.host.restore(saved, 0.0)
    back = restarted.client("ann" if mover is ann else "bob", token=mover.last(Seated).token)
    assert back.last(State).events == live[mover.id]
    eve = restarted.client("eve")
    eve.send(Watch(seated.table))
    assert [event["text"] for event in eve.last(State).events] == [event["text"] for event in live[other.id]]


def test_the_creator_resuming_its_seat_from_a_new_connection_can_still_start_the_table() -> None:
    net = Net()
    ann = net.client("ann")
    seated = ann.send(notty("classic", 3))[0]
    again = net.client("ann", token=seated.token)  # the old connection is still open: it is evicted
    assert isinstance(again.inbox[1], Seated)
    evicted = ann.inbox[-2:]
    assert [type(message) for message in evicted] == [Error, Goodbye]
    assert evicted[0].code == "resumed-elsewhere"  # type: ignore[attr-defined]
    bob = net.client("bob")
    bob.send(Join(seated.table))
    assert bob.send(Start())[0].code == "not-creator"
    assert not any(isinstance(message, State) for message in again.inbox)
    again.send(Start())
    assert again.view is not None and again.view["names"][:2] == ("ann", "bob")  # started: a bot in seat 3


def test_turn_time_limit_hands_the_turn_to_the_server() -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2, turn_seconds=10))[0].table
    bob.send(Join(table))
    mover = ann if ann.view["current"] == 0 else bob
    net.tick(11)
    assert mover.last(Error).code == "turn-time"
    turn = mover.view["turn"]
    net.run_bots(limit=20)
    assert mover.view["turn"] == turn + 1


def test_leave_and_bye() -> None:
    net = Net()
    ann = net.client("ann")
    table = ann.send(notty("classic", 2))[0].table
    assert ann.send(Leave()) == [Left(table)]
    assert ann.client_side.state is ConnectionState.LOBBY
    assert ann.send(ListTables())[0].tables == ()  # an empty table that never started goes away
    assert ann.send(Bye()) == [Goodbye("bye")]
    assert ann.client_side.state is ConnectionState.CLOSED


def test_the_table_list_fits_in_one_frame_however_many_tables() -> None:
    net = Net()
    clients = [net.client(f"p{i}") for i in range(450)]
    for client in clients:
        client.send(notty("classic", 2))
    (tables,) = clients[0].send(ListTables())  # delivered through a real frame, or it would raise
    assert len(tables.tables) == 200
    # the newest 200, listed oldest first
    assert [info["table"] for info in tables.tables] == list(range(251, 451))


def test_a_list_of_tables_of_many_seats_is_cut_to_fit_one_frame() -> None:
    net = Net()
    ann = net.client("ann")
    notty = GAMES["notty"]
    settings_ = Settings("notty", "classic", MAX_SEATS, {"level": "medium", "turn_limit": 0})
    for table_id in range(1, 301):  # as a game of eight seats with the longest names would list
        seats = [Seat(name=f"{seat}".rjust(MAX_NAME, "x"), bot="expert-medium") for seat in range(MAX_SEATS)]
        net.host.tables[table_id] = Table(table_id, notty, settings_, seats, None, 0.0, 0)
    net.host.driver.listing += 1  # tables put in by hand: say so, as the host's own changes do
    (tables,) = ann.send(ListTables())  # delivered through a real frame, or it would raise
    listed = [info["table"] for info in tables.tables]
    # the newest that fit, listed oldest first: as many as fit, not one more
    assert 0 < len(listed) < 200 and listed == list(range(301 - len(listed), 301))
    one_more = net.host.tables[300 - len(listed)].info()
    with pytest.raises(ProtocolError):
        encode_frame(Tables.unchecked(tables=(one_more, *tables.tables)).wire_body())


def test_a_refused_message_leaves_the_lobbys_list_as_built() -> None:
    """A refusal changes nothing, so the next list_tables is the one built before: otherwise a
    refused join before each list_tables made every request rebuild the list (a cheap way to make
    the server spend milliseconds a request for everyone)."""
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    seated = ann.send(notty("classic", 2))[0]
    (before,) = bob.send(ListTables())
    built = net.host.table_list()
    refusals = [(bob, Join(2**31 - 1)), (bob, Watch(2**31 - 1)), (bob, notty("five-colour", 8))]
    refusals += [(ann, Autopilot(True)), (ann, Resign())]  # no game under way yet
    for client, refused in refusals:
        assert isinstance(client.send(refused)[0], Error), refused
        assert net.host.table_list() is built
    bob.send(Watch(seated.table))  # a change: the list is built again, and shows it
    assert net.host.table_list() is not built and net.host.table_list() != before


def test_a_rebuilt_list_checks_only_the_entries_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    net = Net()
    clients = [net.client(f"p{i}") for i in range(5)]
    for client in clients:
        client.send(notty("classic", 2))
    net.host.table_list()
    checked: list[int] = []
    real = host_module.TABLE_INFO

    class Counting:
        def check(self, value: Any, where: str) -> Any:
            checked.append(value["table"])
            return real.check(value, where)

    monkeypatch.setattr(host_module, "TABLE_INFO", Counting())
    net.client("eve").send(Watch(clients[2].table.id))
    assert [info["table"] for info in net.host.table_list().tables] == [1, 2, 3, 4, 5]
    assert checked == [clients[2].table.id]  # its spectators changed; the other four were checked before
    wrong = clients[3].table.id
    info = Table.info
    monkeypatch.setattr(
        Table, "info", lambda table: {**info(table), "spectators": -1 if table.id == wrong else 0}
    )
    net.host.driver.listing += 1
    with pytest.raises(ProtocolError):  # a game describing its table wrongly is caught, as before
        net.host.table_list()


# -- the table's level: how well its expert bots play ---------------------------------------


def test_the_games_level_option_and_the_bots_agree_on_the_levels() -> None:
    level = GAMES["notty"].options["level"]
    assert level.choices == BOT_LEVELS and level.default == "medium"
    assert all(f"expert-{level}" in BOTS for level in BOT_LEVELS)


def test_expert_seats_play_at_the_tables_level_and_other_bots_as_named() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 3, ("expert", "greedy"), bot_delay_ms=0, level="hard"))
    table = ann.table
    assert table.settings.options["level"] == "hard"
    assert ann.view["names"] == ("ann", "expert-2", "greedy-3")
    assert expert_level(table.bots[1]) == "hard"
    assert isinstance(table.bots[2], GreedyBot)
    assert expert_level(table.bots[0]) == "hard"  # ann's stand-in, should she need one
    (listing,) = ann.send(ListTables())
    (info,) = listing.tables
    assert info["options"]["level"] == "hard"
    assert [seat["bot"] for seat in info["seats"]] == [None, "expert-hard", "greedy"]


def test_an_expert_named_with_its_level_keeps_that_level() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("five-colour", 3, ("expert-easy", "random"), bot_delay_ms=0, level="hard"))
    table = ann.table
    assert ann.view["names"] == ("ann", "expert-easy-2", "random-3")
    assert expert_level(table.bots[1]) == "easy"
    assert isinstance(table.bots[2], RandomBot)
    assert expert_level(table.bots[0]) == "hard"


def test_a_table_is_medium_unless_told() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("expert",), bot_delay_ms=0))
    assert ann.table.settings.options["level"] == "medium"
    assert expert_level(ann.table.bots[1]) == "medium"
    assert expert_level(ann.table.bots[0]) == "medium"
    assert ann.send(ListTables())[0].tables[0]["options"]["level"] == "medium"


def test_an_unknown_level_is_refused_and_changes_nothing() -> None:
    net = Net()
    ann = net.client("ann")
    # The protocol carries any option; the game refuses what it does not know, in words.
    (refused,) = ann.send(notty("classic", 2, ("expert",), level="wizard"))
    assert isinstance(refused, Error) and refused.code == "bad-option"
    assert "level is one of easy, medium, hard" in refused.message
    (refused,) = ann.send(CreateTable("notty", 2, options={"colour": "red"}))
    assert refused.code == "bad-option" and "'colour'" in refused.message
    assert net.host.tables == {}
    # A v2 request (a preset, no game) is not half understood: the protocol refuses it.
    body = {"type": "create_table", "preset": "classic", "seats": 2, "bots": ["expert"], "level": "hard"}
    ann.server_side.receive_data(encode_frame(body))
    with pytest.raises(ProtocolError) as bad:
        ann.server_side.next_event()
    assert bad.value.code == "bad-message" and not bad.value.fatal
    assert ann.server_side.state is ConnectionState.LOBBY
    assert ann.send(ListTables())[0].tables == ()  # the connection goes on; still no table


def test_the_bots_that_fill_empty_seats_on_start_play_at_the_tables_level() -> None:
    net = Net()
    ann = net.client("ann")
    ann.send(notty("classic", 3, level="easy"))
    ann.send(Start())
    table = ann.table
    assert ann.view["names"] == ("ann", "expert-2", "expert-3")
    assert [seat.bot for seat in table.seats] == [None, "expert-easy", "expert-easy"]
    assert [expert_level(table.bots[i]) for i in range(3)] == ["easy", "easy", "easy"]


def _mover_of_two(net: Net, **settings: Any) -> Client:
    """ann and bob at a new table with these settings: whichever of them is to move."""
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2, **settings))[0].table
    bob.send(Join(table))
    return ann if ann.view["current"] == 0 else bob


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_play_for_me_is_the_expert_at_the_tables_level(level: str) -> None:
    net = Net()
    mover = _mover_of_two(net, level=level)
    assert net.host.bot_jobs() == []  # humans on both seats: no bot plays
    assert [type(message) for message in mover.send(PlayForMe())] == [State]
    (job,) = net.host.bot_jobs()
    assert job.seat == mover.view["seat"] and job.delay == 0
    assert job.bot is mover.table.bots[job.seat]
    assert expert_level(job.bot) == level
    turn = mover.view["turn"]
    net.deliver(net.host.bot_acted(job, job.bot.choose(job.view), net.now))
    net.run_bots(limit=20)
    assert mover.view["turn"] == turn + 1  # the expert finished the turn, and only that one


def test_while_a_bot_plays_a_persons_turn_they_are_not_asked_and_cannot_move() -> None:
    """A person's own move after 'auto', autopilot or a time run out was taken, between the bot's:
    two players took turns at one seat, and the view still asked them for a move."""
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2, turn_seconds=10))[0].table
    bob.send(Join(table))
    mover, other = (ann, bob) if ann.view["current"] == 0 else (bob, ann)
    assert mover.view["legal"] and mover.view["bot_turn"] is False and mover.view["turn_seconds"] == 10
    # 'auto': the view says so at once, and the person's own move is refused until the turn ends
    mover.send(PlayForMe())
    assert mover.view["legal"] == () and mover.view["bot_turn"] is True
    refused = mover.send(Act("end"))
    assert [(error.code, error.message) for error in refused if isinstance(error, Error)] == [
        ("played-for-you", "you asked the server to play the rest of this turn ('auto')")
    ]
    net.run_bots(limit=20)
    assert other.view["current"] == other.view["seat"] and other.view["legal"] and not other.view["bot_turn"]
    # A time run out: the view lists no moves, and a move is refused in the time-out's words.
    net.tick(11)
    assert other.last(Error).code == "turn-time"
    assert other.view["legal"] == () and other.view["bot_turn"] is True
    assert [error.code for error in other.send(Act("end")) if isinstance(error, Error)] == ["turn-time"]
    net.run_bots(limit=20)
    # Autopilot: refused while on; turned off mid-turn, the seat is asked for its moves again.
    assert mover.view["current"] == mover.view["seat"] and mover.view["legal"]
    mover.send(Autopilot(True))
    assert mover.view["legal"] == () and mover.view["bot_turn"] is True
    assert [error.message for error in mover.send(Act("end")) if isinstance(error, Error)] == [
        "you are on autopilot: the server plays your turns ('auto off' to play them yourself)"
    ]
    (job,) = net.host.bot_jobs()
    net.deliver(net.host.bot_acted(job, Draw(1), net.now))  # the bot's first move: the turn goes on
    assert mover.view["bot_turn"] is True and other.view["bot_turn"] is True  # the others see it now
    mover.send(Autopilot(False))
    assert mover.view["legal"] and mover.view["bot_turn"] is False  # asked again, not left waiting
    assert not [error for error in mover.send(Act("end")) if isinstance(error, Error)]  # theirs again
    assert other.view["current"] == other.view["seat"]


def test_a_player_whose_time_ran_out_while_away_is_told_on_return() -> None:
    """The turn was played the moment they came back, with no word of why."""
    net = Net(grace=60)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2, turn_seconds=10))[0].table
    bob.send(Join(table))
    name, mover = ("ann", ann) if ann.view["current"] == 0 else ("bob", bob)
    token = mover.last(Seated).token
    net.drop(mover)
    net.tick(11)  # the time runs out within the grace: nobody to tell
    back = net.client(name, token=token)
    assert back.last(Error).code == "turn-time"
    assert back.last(Error).message == "your time for this turn ran out: the server plays the rest of it"
    assert back.view["bot_turn"] is True and back.view["legal"] == ()


def test_a_view_says_how_long_a_persons_timed_turn_has_left() -> None:
    """A play-test came back to its seat with 5 s of its turn left, told nothing, and was timed out:
    the view now says what is left of a person's timed turn (not a bot's, nor where turns are untimed)."""
    net = Net(grace=60)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2, turn_seconds=10))[0].table
    bob.send(Join(table))
    name, mover, other = ("ann", ann, bob) if ann.view["current"] == 0 else ("bob", bob, ann)
    assert mover.view["turn_left"] == other.view["turn_left"] == 10  # public: everyone sees the clock
    net.tick(3.5)
    mover.send(Act("draw 1"))
    assert mover.view["turn_left"] == 7  # 6.5 s, rounded up
    token = mover.last(Seated).token
    net.drop(mover)
    net.tick(4)
    back = net.client(name, token=token)
    assert back.view["turn_left"] == 3 and back.view["legal"]
    back.send(PlayForMe())  # a bot plays it now: no time is counted for it
    assert "turn_left" not in back.view  # (the others see it with the bot's first move)
    net.run_bots(limit=20)
    assert other.view["current"] == other.view["seat"] and other.view["turn_left"] == 10
    untimed = _mover_of_two(Net())
    assert "turn_left" not in untimed.view


def test_a_turns_clock_stops_while_the_table_is_paused_with_nobody_at_it() -> None:
    """A play-test quit at its turn against a bot and came back 22 s later: the lobby had called the
    table paused, but its 20 s turn had run out and been played for it."""
    net = Net(grace=60)
    ann = net.client("ann")
    ann.send(notty("classic", 2, ("greedy",), turn_seconds=10))
    net.run_bots(limit=20)
    assert ann.view["current"] == ann.view["seat"] and ann.view["turn_left"] == 10
    token = ann.last(Seated).token
    net.tick(2)
    net.drop(ann)
    net.tick(1)  # nobody at the table: paused from here on
    net.tick(30)
    back = net.client("ann", token=token)
    assert back.view["turn_left"] == 7 and back.view["legal"]  # 3 s went, not 33
    assert not any(isinstance(message, Error) and message.code == "turn-time" for message in back.inbox)
    net.tick(1)  # the table goes on: its clock with it
    net.tick(6.5)
    assert back.last(Error).code == "turn-time"


def test_a_pause_takes_none_of_a_turns_time_not_even_of_a_turn_begun_during_it() -> None:
    """A bot's move already under way as the last person left began the next turn after the pause
    had: taking the whole pause off that turn gave its player 13 s of a 10 s turn."""
    game = GAMES["notty"]
    table = Table(1, game, game.settings("classic", 2, {}), [Seat("a"), Seat("b")], None, 0, 10)
    table.turn_started, table.empty_since = 0.0, 4.0  # played 4 s, then nobody was there
    assert table.turn_elapsed(30.0) == 4.0  # paused
    table.unpause(30.0)
    assert table.turn_elapsed(30.0) == 4.0 and table.turn_elapsed(31.5) == 5.5 and table.empty_since is None
    table.turn_started, table.empty_since = 7.0, 4.0  # the turn began 3 s into the pause
    table.unpause(20.0)
    assert table.turn_elapsed(20.0) == 0.0 and table.turn_elapsed(30.0) == 10.0


def test_a_turn_out_of_time_is_finished_by_the_expert_at_the_tables_level() -> None:
    net = Net()
    mover = _mover_of_two(net, turn_seconds=10, level="hard")
    net.tick(11)
    assert mover.last(Error).code == "turn-time"
    (job,) = net.host.bot_jobs()
    assert job.seat == mover.view["seat"]
    assert expert_level(job.bot) == "hard"


def test_a_dropped_player_gets_the_expert_at_the_tables_level() -> None:
    net = Net(grace=30)
    mover = _mover_of_two(net, level="easy")
    seat = mover.view["seat"]
    net.drop(mover)
    net.tick(29)
    assert net.host.bot_jobs() == []  # still within the grace
    net.tick(2)
    (job,) = net.host.bot_jobs()
    assert job.seat == seat
    assert expert_level(job.bot) == "easy"
    table = net.host.tables[job.table]
    moves = table.moves
    net.deliver(net.host.bot_acted(job, job.bot.choose(job.view), net.now))
    assert table.moves == moves + 1  # the stand-in acted for the dropped player


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 60), seat=st.sampled_from([None, 0, 1, 2]))
def test_a_state_built_unchecked_is_the_checked_one_byte_for_byte(
    seed: int, moves: int, seat: int | None
) -> None:
    game = GAMES["notty"]
    settings_ = game.settings("five-colour", 3, {})
    seats = [Seat("a"), Seat("b", bot="greedy"), Seat("c", autopilot=True)]  # bot_turn both ways
    table = Table(7, game, settings_, seats, creator=None, bot_delay=0, turn_seconds=seed % 3601)
    match = table.match = game.new_match(settings_, ["a", "b", "c"], random.Random(seed))
    rng = random.Random(seed)
    events: list[Any] = list(match.opening)
    for _ in range(moves):
        if match.over:
            break
        legal = match.legal_actions(match.current)
        events = list(match.apply(match.current, match.parse_action(rng.choice(legal))).events)
    ((_, fast),) = states(table, events, [(1, seat)])
    assert isinstance(fast, State)
    checked = State(7, fast.view, fast.events)
    assert (
        encode_frame(fast.wire_body()) == encode_frame(checked.wire_body()) == encode_frame(checked.to_wire())
    )


def test_an_unchecked_message_still_needs_every_field_and_no_other() -> None:
    with pytest.raises(TypeError, match="needs view"):
        State.unchecked(table=1, events=())
    with pytest.raises(TypeError, match="no field"):
        State.unchecked(table=1, view={}, events=(), extra=1)
    assert Pong.unchecked(nonce=3) == Pong(3)


def test_names_the_server_gives_seats_keep_within_a_players_name() -> None:
    long_bot = "robot-with-a-long-name-x"  # as long as a bot's name may be

    class LongNamedBots(hidden_game.HiddenGame):
        def __init__(self) -> None:
            super().__init__()
            self.name, self.bots = "long", (long_bot,)

        def stand_in(self, settings: Any) -> str:
            return long_bot

    net = Net(games={"long": LongNamedBots()})
    ann = net.client("a" * MAX_NAME)
    ann.send(CreateTable("long", 4, bots=(long_bot,)))
    ann.send(Start())  # the two empty seats get stand-ins, named after them
    names = ann.view["names"]  # delivered through real frames: a name too long would not decode
    assert len(names) == 4 and len({name.casefold() for name in names}) == 4
    assert all(len(name) <= MAX_NAME for name in names)
    assert names[1].endswith("-2") and names[3].endswith("-4")


def test_a_view_lists_at_most_the_legal_actions_the_protocol_carries() -> None:
    class ManyWays(hidden_game.HiddenMatch):
        def legal_actions(self, seat: int) -> list[str]:
            offered = super().legal_actions(seat)
            return offered + [f"wait {n}" for n in range(1500)] if offered else []

    class Generous(hidden_game.HiddenGame):
        def new_match(self, settings: Any, names: Any, rng: Any, deal: Any = None) -> ManyWays:
            return ManyWays(settings, names, rng, deal)

    net = Net(games={"hidden": Generous()})
    ann, bob = net.client("ann"), net.client("bob")
    ann.send(CreateTable("hidden", 2))
    bob.send(Join(ann.last(Seated).table))
    mover = ann if ann.view["current"] == 0 else bob
    legal = mover.view["legal"]  # delivered through real frames: more would not decode
    assert len(legal) == MAX_LEGAL and legal[0].startswith(("play", "draw"))
    mover.send(Act(legal[0]))  # the view's actions still work
    assert mover.view["turn"] == 2


def test_a_replay_says_where_a_turn_ran_out_of_time(tmp_path: Path) -> None:
    """The bot's plays that finished a timed-out turn read as the person's own."""
    net = Net()
    mover = _mover_of_two(net, turn_seconds=10)
    seat, moves = mover.view["seat"], mover.table.moves
    name = mover.view["names"][seat]
    net.tick(11)
    net.run_bots(limit=20)
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    saved = store.game(mover.table.id)
    store.close()
    assert saved is not None and saved.timed_out == ((seat, moves),)
    out = io.StringIO()
    print_game(saved, out)
    lines = out.getvalue().splitlines()
    at = lines.index(f"      {name}'s time runs out: a bot plays the rest of the turn")
    assert lines[at + 1].lstrip().startswith(f"{moves + 1}. turn")


def test_a_turn_out_of_time_stays_the_bots_after_a_restart(tmp_path: Path) -> None:
    """Restored, the turn went back to its person with a fresh clock, though the record said a bot
    played the rest of it; a turn begun after the time-out is the person's own again."""
    net = Net()
    mover = _mover_of_two(net, turn_seconds=10)
    seat = mover.view["seat"]
    net.tick(11)  # the time runs out; the server stops before the bot has moved
    store = Store(tmp_path / "notty.db")
    store.write(net.host.take_journal())
    saved = store.game(mover.table.id)
    assert saved is not None and saved.timed_out
    restarted = Net()
    restarted.host.restore(saved, 0.0)
    restored = restarted.host.tables[mover.table.id]
    assert restored.match is not None and restored.match.current == seat
    assert restored.seats[seat].timed_out and restored.seats[seat].bot_controls
    # once the bot has finished that turn and another seat has moved, the time-out is history
    net.run_bots(limit=40)
    store.write(net.host.take_journal())
    later = store.game(mover.table.id)
    store.close()
    assert later is not None and later.moves[-1].seat == seat  # the bot's last move ended that turn
    assert mover.table.match is not None and mover.table.match.current != seat
    again = Net()
    again.host.restore(later, 0.0)
    assert not any(other.timed_out or other.auto for other in again.host.tables[mover.table.id].seats)


def test_a_table_takes_as_many_watchers_as_the_table_list_can_count() -> None:
    """Past 10,000 watchers of one table, every 'tables' failed: the list's count is bounded."""
    net = Net()
    ann = net.client("ann")
    table = ann.send(notty("classic", 2))[0].table
    host = net.host
    for conn in range(1000, 1000 + MAX_SPECTATORS):
        host.connect(conn)
        host.handle(conn, Hello(PROTOCOL_VERSION, "w"), 0.0)
        host.handle(conn, Watch(table), 0.0)
    eve = net.client("eve")
    (refused,) = eve.send(Watch(table))
    assert isinstance(refused, Error) and refused.code == "too-many-watchers"
    assert refused.message == f"table {table} has 10000 watchers, the most a table may have"
    (listed,) = eve.send(ListTables())
    assert isinstance(listed, Tables) and listed.tables[0]["spectators"] == MAX_SPECTATORS


def test_names_differing_only_in_spaces_nobody_sees_are_told_apart() -> None:
    """'ann' and 'ann ' sat at one table, as two players nobody could tell apart."""
    net = Net()
    ann, other = net.client("ann"), net.client("ann ")
    table = ann.send(notty("classic", 3))[0].table
    other.send(Join(table))
    spaced = net.client("bo   b")
    spaced.send(Join(table))
    assert ann.view["names"] == ("ann", "ann-2", "bo b")


def test_a_player_back_after_the_game_ended_is_not_told_a_bot_stops() -> None:
    """Back after the game ended (bob resigned while ann's stand-in played), ann read "you are back:
    a bot played your turns while you were away, and stops now" under the result."""
    net = Net(grace=10)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2))[0].table
    bob.send(Join(table))
    token = ann.last(Seated).token
    net.drop(ann)
    net.tick(11)
    assert net.host.tables[table].seats[0].stand_in
    bob.send(Resign())
    assert net.host.tables[table].over
    back = net.client("ann", token=token)
    assert back.view["result"] is not None
    notices = [message for message in back.inbox if isinstance(message, Notice)]
    assert not [notice for notice in notices if notice.kind == "returned"], notices
    assert [message.text for message in bob.inbox if isinstance(message, Notice)][-1] == "ann is back"


def test_a_player_back_to_a_game_that_ended_and_went_away_is_told_how_it_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Away while the other resigned and left, ann came back to 'your seat is gone (its game is
    over, or had not begun ...)': never told she had won, nor the game's number. The server keeps
    the results of the last games that went away, by seat token, for as many seats as it says."""
    monkeypatch.setattr(tables_module, "ENDED_KEPT", 1)
    net = Net(grace=10)
    tokens: list[str] = []
    for _ in range(2):
        ann, bob = net.client("ann"), net.client("bob")
        table = ann.send(notty("classic", 2))[0].table
        bob.send(Join(table))
        tokens.append(ann.last(Seated).token)
        net.drop(ann)
        bob.send(Resign())
        bob.send(Leave())
        assert table not in net.host.tables  # gone: nobody is at it
        back = net.client("ann", token=tokens[-1])
        (gone,) = [message for message in back.inbox if isinstance(message, Error)]
        assert gone.code == "bad-token"
        assert gone.message.endswith(f": {GAME_ENDED}bob resigned: ann wins (game {table})"), gone.message
        said = Session("ann", interactive=True)
        said.table = table
        assert said.receive(gone).lines == (
            f"your seat at table {table} is gone: its game is over, bob resigned: ann wins (game {table}); "
            "you are in the lobby",
        )
        back.send(Bye())
    assert len(net.host.driver.ended) == 1  # (bob gave his seats up): the first game forgotten
    stale = net.client("ann", token=tokens[0])
    assert stale.last(Error).code == "bad-token" and GAME_ENDED not in stale.last(Error).message


@pytest.mark.parametrize("recorded", [True, False])
def test_a_token_of_a_game_gone_is_answered_once_the_store_says_whether_its_end_was_recorded(
    recorded: bool,
) -> None:
    """A game that ended and went away before the store had its end: a token offered meanwhile was
    told the result, even if the end then went unrecorded and the next start restored the game.
    It waits for the store's word: over if the end was recorded, stopped (kept) if not."""
    net = Net(grace=10)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2))[0].table
    bob.send(Join(table))
    token = ann.last(Seated).token
    net.drop(ann)
    net.stores = False  # what follows waits for the store
    bob.send(Resign())
    bob.send(Leave())
    assert table not in net.host.tables and not net.host.driver.ended
    back = net.client("ann", token=token)
    assert [type(message) for message in back.inbox] == [Welcome]  # not yet answered
    net.deliver(net.host.stored(() if recorded else {table: "disk I/O error"}))
    net.stores = True
    assert [type(message) for message in back.inbox] == [Welcome, Error]
    if recorded:
        assert back.last(Error).code == "bad-token" and GAME_ENDED in back.last(Error).message
    else:
        assert back.last(Error).code == "game-stopped" and f"table {table}" in back.last(Error).message
    again = net.client("ann", token=token)  # and so is every token offered from now on
    assert again.last(Error) == back.last(Error)


@pytest.mark.parametrize("recorded", [True, False])
def test_a_token_given_up_is_kept_as_stopped_if_its_leave_goes_unrecorded_whoever_is_still_here(
    recorded: bool,
) -> None:
    """ann left and her connection went in the round whose record then failed: a leaver's token was
    kept as stopped only for a connection still there to be told so, and one offered before the
    store's word was answered bad-token at once. The restart restores her seat, for that token."""
    net = Net(grace=10)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2))[0].table
    bob.send(Join(table))
    token = ann.last(Seated).token
    net.stores = False
    ann.send(Leave())
    net.drop(ann)
    back = net.client("ann", token=token)
    assert [type(message) for message in back.inbox] == [Welcome]  # not yet answered
    failed = {} if recorded else {table: "disk I/O error"}
    net.deliver(net.host.stored(failed) + net.host.halt(failed, "disk I/O error"))
    net.stores = True
    assert back.last(Error).code == ("bad-token" if recorded else "game-stopped")
    assert net.client("ann", token=token).last(Error) == back.last(Error)


def test_a_player_back_on_a_new_connection_before_the_old_one_was_found_dead_sees_the_moves() -> None:
    """A connection gone half-open (a laptop asleep) is found dead only at the idle timeout; back
    from another connection, the player was shown only the last move. What was sent since the old
    one was last heard from counts as missed."""
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(notty("classic", 2))[0].table
    token = bob.send(Join(table))[0].token  # type: ignore[attr-defined]
    if ann.view["current"] != 0:
        bob.send(Act("end"))  # bob's last word: from here on, his connection is silent
    ann.send(Act("draw 1"))
    ann.send(Act("end"))
    back = net.client("bob", token=token)  # the old connection is still attached: it is evicted
    state = back.last(State)
    assert state.view["away"] == 2
    assert [event["kind"] for event in state.events] == ["drew", "turn-ended"]


def test_the_log_names_a_tables_game_once_where_its_variant_is_named_after_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """'table 1 created: huxxy huxxy, 4 seats': the game named twice, its variant being its name."""
    caplog.set_level(logging.INFO, logger="notty.host")
    net = Net()
    ann = net.client("ann")
    for variant, said in [("huxxy", "huxxy"), ("huxxy-jokers", "huxxy-jokers"), ("classic", "notty classic")]:
        game = "notty" if variant == "classic" else "huxxy"
        ann.send(CreateTable(game, 2, variant, ("greedy",), {}, bot_delay_ms=0))
        created = [record.getMessage() for record in caplog.records if " created by " in record.getMessage()]
        assert created[-1].split(": ", 1)[1].startswith(f"{said}, 2 seats, bots greedy"), created
        assert "{" not in created[-1]  # a table's options, not Python's dict of all of them
        ann.send(Leave())
    # Who made it, and only the options it does not take as the game's defaults, as people write them.
    ann.send(CreateTable("notty", 3, "classic", ("greedy", "random"), {"hand_limit": 12}, bot_delay_ms=0))
    created = [record.getMessage() for record in caplog.records if " created by " in record.getMessage()]
    head, _, options = created[-1].partition(", played with ")
    assert head.endswith(" created by ann: notty classic, 3 seats, bots greedy, random")
    assert options == "hand_limit 12, turn_limit 300"


def test_a_seat_token_says_its_record_and_one_of_another_record_is_told_so_not_gone() -> None:
    ours, theirs = "0123456789ab", "ba9876543210"
    token = seat_token(ours)
    assert len(token) == 55 and token.startswith(ours) and record_of(token) == ours
    assert seat_token(ours) != token  # random past the record's id
    assert record_of(seat_token(None)) is None  # the built-in server's: the random part alone
    net = Net()
    net.host.record = ours
    other = net.client("ann", token=theirs + token[12:])
    error = other.last(Error)
    assert (error.code, error.message) == ("other-record", OTHER_RECORD)
    for unknown in (ours + "A" * 43, "x" * 43, "Z" * 12 + "A" * 43):  # of ours, or of no record
        assert net.client("bob", token=unknown).last(Error).code == "bad-token"
