"""The generic UI: any game the server hosts is playable, with nothing of it built into the client."""

from __future__ import annotations

import itertools
import random
from typing import Any

import hidden_game
import trio
from test_client_resume import Screen

from client import app
from client.catalog import Catalog, GameInfo
from client.generic import MOST_SHOWN, GenericUI
from client.session import read_view
from games import GAMES
from games._ui import TableView
from server.host import Host
from server.net import NottyServer

INFO = GameInfo.from_wire(
    {
        "name": "tiles",
        "title": "Tiles",
        "variants": [{"name": "square", "min_players": 2, "max_players": 4, "summary": "on a grid"}],
        "bots": ["plain"],
        "options": [{"name": "size", "summary": "", "default": 8, "low": 4, "high": 12}],
    }
)
UI = GenericUI(INFO)


def _view(**changes: Any) -> TableView:
    raw = {
        "game": "tiles", "variant": "square", "names": ["ann", "bo"], "seat": 1, "current": 1, "turn": 2,
        "legal": ["put a1 red", "put a1 blue", "put b2 red", "pass"], "result": None, "body": {"grid": []},
    }  # fmt: skip
    return read_view(raw | changes, UI)


def test_the_catalog_falls_back_on_the_generic_ui() -> None:
    ui = Catalog([INFO]).ui("tiles")
    assert isinstance(ui, GenericUI) and ui.variant_noun == "variant" and ui.default_bot is None


def test_help_comes_from_the_welcome() -> None:
    assert UI.help.splitlines() == [
        "  variants: square (2 to 4 players: on a grid)",
        "  bots: plain",
        "  options: size: size N, 4 to 12 (default 8)",
        "  at your turn, type an action as 'your turn' lists it",
    ]


def test_actions_are_sent_as_typed_and_any_word_may_be_one() -> None:
    assert UI.is_action("put") and UI.is_action("anything")
    assert UI.action("put", ["a1", "RED"], None) == "put a1 RED"  # the game judges it, not the client


def test_completion_follows_the_legal_actions_word_by_word() -> None:
    view = _view()
    assert UI.commands(view) == ("put", "pass") and UI.commands(None) == ()
    assert UI.complete(["put"], "", view) == ["a1", "b2"]
    assert UI.complete(["put", "a1"], "b", view) == ["blue"]
    assert UI.complete(["pass"], "", view) == [] and UI.complete(["put"], "", None) == []


def test_a_long_turn_shows_its_first_actions_and_counts_the_rest() -> None:
    legal = [f"put x{n}" for n in range(MOST_SHOWN + 5)]
    last = UI.state_text(1, _view(legal=legal), [], colour=False).splitlines()[-1]
    assert last.startswith("your turn: put x0, put x1,") and last.endswith(
        f"put x{MOST_SHOWN - 1}, and 5 more"
    )


def test_events_without_words_are_not_shown_and_the_body_never_is() -> None:
    events = [{"kind": "tick", "text": "", "data": {}}, {"kind": "put", "text": "ann puts a1", "data": {}}]
    lines = UI.state_text(1, _view(current=0, legal=[]), events, colour=True).splitlines()
    assert lines == [
        "  ann puts a1",
        "table 1 · tiles · square · turn 2",
        " > ann",
        "   bo  (you)",
        "ann to play",
    ]


async def test_the_real_client_plays_a_game_it_has_never_heard_of(monkeypatch: Any) -> None:
    """End to end: a server hosting the hidden-hand test game, and notty-client's own loop, scripted."""
    script = ["new hidden 2 random", "draw", "draw", "hint", "leave", "quit"]

    async def typed(terminal: Any, send: trio.MemorySendChannel[str | None]) -> None:
        async with send:
            for line in script:
                await send.send(line)
            await send.send(None)

    monkeypatch.setattr("client.terminal.read_lines", typed)
    tokens = (f"token{n:035d}" for n in itertools.count())
    games = {**{name: GAMES[name] for name in GAMES}, "hidden": hidden_game.GAME}
    host = Host(new_rng=lambda: random.Random(5), new_token=lambda: next(tokens), games=games)
    server = NottyServer(host)
    screen = Screen()
    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(server.serve, "127.0.0.1", 0)
        port = listener.socket.getsockname()[1]
        with trio.fail_after(20):
            code = await app.run(("127.0.0.1", port), "ann", screen)
        nursery.cancel_scope.cancel()
    shown = "\n".join(screen.lines)
    assert code == 0, shown
    assert sum(line.strip().startswith("you draw ") for line in screen.lines) == 2, shown  # ann's own cards
    assert "hint: play " in shown and "you left table 1" in shown
    assert "refused" not in shown and "cannot read" not in shown
