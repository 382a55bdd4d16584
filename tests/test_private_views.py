"""Private views: nothing a connection receives holds another seat's hidden cards or the stock's order.

Every registered game, and a small hidden-hand game kept in tests
(``hidden_game.py``), is driven through the host by random play: legal and
illegal actions, hints, watching, dropping and resuming. Each message is
checked as it is delivered, against what its receiver may not know at that
moment. The check itself is held to account: a host that copied one seat's
view to the others must fail it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import hidden_game
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_host import Client, Net

from games import GAMES, Game, Match
from protocol import Act, AskHint, CreateTable, Join, Message, Seated, Watch
from server import tables

#: Stock windows this long never turn up in a message by chance (Notty's hands are sorted).
WINDOW = 6
TOKEN = re.compile(r"[A-Za-z0-9]+")


def notty_secrets(match: Any, seat: int | None) -> tuple[frozenset[str], list[str]]:
    """Notty keeps nothing from a viewer: hands are face up, and the deck's contents follow.

    Nor is the deck's list order a secret: every draw samples it at random, and
    discards are appended in the order they were shown (a discarded run
    B4 … B9 made the list end with it, which this check took for a leak)."""
    return frozenset(), []


def ochos_secrets(match: Any, seat: int | None) -> tuple[frozenset[str], list[str]]:
    """Ochos Locos hides every other hand and the draw pile."""
    game = match.game
    others = [game.hand(index) for index in range(len(match.names)) if index != seat]
    stock = [str(card) for card in game.stock]
    return frozenset(str(card) for hand in others for card in hand) | frozenset(stock), stock


def huxxy_secrets(match: Any, seat: int | None) -> tuple[frozenset[str], list[str]]:
    """huxxy hides every other hand and the stock's order; but two packs hold two of each card, so a
    card a viewer holds, or sees on the table, or saw laid there once (``engine.shown``), is no
    secret whoever holds its twin. Nor is the word ``XX``: every help text says a joker is written so
    (tests/test_huxxy_game.py holds views and events to account for jokers too)."""
    engine = match.engine
    others = {str(card) for index, hand in enumerate(engine.hands) if index != seat for card in hand}
    seen = {str(card) for group in engine.table for card in group} | {str(card) for card in engine.shown}
    seen.add("XX")
    if seat is not None:
        seen |= {str(card) for card in engine.hand(seat)}
    return frozenset(others - seen), [str(card) for card in engine.stock]


def hidden_secrets(match: Any, seat: int | None) -> tuple[frozenset[str], list[str]]:
    return hidden_game.secrets_from(match, seat), list(match.stock)


#: What each game keeps from a viewer: cards they must not see, and the stock's order.
SECRETS: dict[str, Callable[[Any, int | None], tuple[frozenset[str], list[str]]]] = {
    "notty": notty_secrets,
    "ochos-locos": ochos_secrets,
    "huxxy": huxxy_secrets,
    "hidden": hidden_secrets,
}
ALL_GAMES: Mapping[str, Game] = {**{name: GAMES[name] for name in GAMES}, "hidden": hidden_game.GAME}


def test_every_registered_game_is_covered() -> None:
    assert set(GAMES) <= set(SECRETS)


def words(value: Any) -> Iterator[str]:
    """Every word of every string in a message, in order."""
    if isinstance(value, str):
        yield from TOKEN.findall(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from words(key)
            yield from words(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from words(item)


class Watched(Net):
    """A host whose every delivery is checked against what its receiver may know."""

    def __init__(self, games: Mapping[str, Game], seed: int) -> None:
        super().__init__(grace=5.0, games=games, seed=seed)
        self.said: dict[int, set[str]] = {}  # words each connection typed itself
        self.checked = 0

    def deliver(self, outgoing: list[tuple[int, Message]]) -> None:
        for conn, message in outgoing:
            self.check(conn, message)
        super().deliver(outgoing)

    def check(self, conn: int, message: Message) -> None:
        session = self.host.sessions.get(conn)
        if session is None or session.table is None or session.table not in self.host.tables:
            return
        match = self.host.tables[session.table].match
        if match is None:
            return
        hidden, stock = SECRETS[match.settings.game](match, session.seat)
        seen = list(words(message.to_wire()))
        leaked = (set(seen) & hidden) - self.said.get(conn, set())
        assert not leaked, f"{message.TYPE} to seat {session.seat} shows {sorted(leaked)}: {message}"
        windows = {tuple(stock[i : i + WINDOW]) for i in range(len(stock) - WINDOW + 1)}
        for i in range(len(seen) - WINDOW + 1):
            assert tuple(seen[i : i + WINDOW]) not in windows, f"{message.TYPE} shows the stock's order"
        self.checked += 1

    def typed(self, client: Client, text: str) -> None:
        self.said.setdefault(client.id, set()).update(TOKEN.findall(text))
        client.send(Act(text))


def play(game_name: str, seed: int, steps: int) -> Watched:
    """Random play at one table of ``game_name``: every seat a person, one spectator."""
    rng = random.Random(seed)
    game = ALL_GAMES[game_name]
    variant = rng.choice(list(game.variants.values()))
    seats = rng.randint(variant.min_players, variant.max_players)
    net = Watched(ALL_GAMES, seed)
    people = [net.client(f"p{i}") for i in range(seats)]
    people[0].send(CreateTable(game_name, seats, variant.name))
    table = net.host.sessions[people[0].id].table
    assert table is not None
    for person in people[1:]:
        person.send(Join(table))
    spectator = net.client("eve")
    spectator.send(Watch(table))
    match: Match | None = net.host.tables[table].match
    assert match is not None
    vocabulary = sorted({word for line in match.position_text() for word in TOKEN.findall(line)})
    for _ in range(steps):
        if match.over:
            break
        seat = rng.randrange(seats)
        person = people[seat]
        roll = rng.random()
        if person.closed:  # come back with the seat's token
            token = next(m.token for m in person.inbox if isinstance(m, Seated))
            people[seat] = net.client(f"p{seat}", token)
        elif roll < 0.6 and match.current == seat:
            net.typed(person, rng.choice(match.legal_actions(seat)))
        elif roll < 0.75:  # something perhaps illegal, naming whatever cards exist
            verb = rng.choice(["play", "discard", "putback", "steal", "draw"])
            net.typed(person, f"{verb} {' '.join(rng.sample(vocabulary, 2))}")
        elif roll < 0.85:
            person.send(AskHint())
        elif roll < 0.9:
            net.drop(person)
            net.tick(6.0)  # past the grace: a stand-in plays, and its moves are broadcast
            net.run_bots(limit=20)
        else:
            net.run_bots(limit=5)
    return net


@settings(max_examples=30, deadline=None)
@given(game=st.sampled_from(sorted(ALL_GAMES)), seed=st.integers(0, 2**32), steps=st.integers(5, 120))
def test_nothing_a_viewer_receives_holds_what_is_hidden_from_them(game: str, seed: int, steps: int) -> None:
    net = play(game, seed, steps)
    assert net.checked > 0


def test_a_host_that_copied_one_view_to_every_seat_would_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tables.states

    def copied(table: Any, events: Any, to: Any, **more: Any) -> list[tuple[int, Message]]:
        viewers = list(to)
        first = real(table, events, viewers[:1], **more)
        return [(conn, first[0][1]) for conn, _ in viewers] if first else []

    monkeypatch.setattr(tables, "states", copied)
    with pytest.raises(AssertionError, match="shows"):
        play("hidden", seed=1, steps=50)
