"""Shared helpers for the engine and bot tests: build positions, snapshot games.

Tests import these directly (``from conftest import ...``); pytest puts this
directory on ``sys.path``.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, has_group, parse_cards
from games.notty.engine import Action, Game, IllegalAction, Rule
from protocol import PROTOCOL_VERSION, CreateTable, Welcome
from server.limits import DEFAULT_LIMITS, announced

#: What a server at its default limits says of them in its welcome.
LIMITS = announced(DEFAULT_LIMITS)
#: The welcome of a server that hosts no game, at its default limits.
WELCOME = Welcome(PROTOCOL_VERSION, "test", limits=LIMITS)

# No per-example deadlines: this is a noisy 2-core machine and speed lives in
# bench/. In CI, examples are derived from the test, so a red run reproduces.
settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, database=None)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# The programs under test size themselves by the terminal they are given, as they do for a person;
# COLUMNS and LINES exported by the runner (pytest-xdist's workers set 80 x 24) would override it.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)
# The programs under test on PATH, as for a person who installed them: the client tells its user to
# run 'notty-client ...' again by that name only where PATH finds it (client.app.program_as_run).
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

#: What a wrapped row's next row begins with, kept whole where it fits (client.sgr.wrap): a short
#: quoted command, a word and the number it names ('limit 20'), an option's name and its value; else
#: a word. Tests that rows are filled up to it.
ROW_START = re.compile(
    r"\(?'[^']*'\S*|(?:table|seat|turn|limit|quiet|time|group|game|round) \d+[,.;:)]?(?=\s|$)"
    r"|[a-z]+(?:_[a-z]+)+ \S+|\S+"
)

PRESETS = [CLASSIC, FIVE_COLOUR]
PRESET_IDS = [rules.name for rules in PRESETS]


def notty_table(
    variant: str = "classic",
    seats: int = 2,
    bots: tuple[str, ...] = (),
    *,
    level: str | None = None,
    turn_limit: int | None = None,
    **kwargs: Any,
) -> CreateTable:
    """A ``create_table`` for Notty, as a client asks for one (options only where given)."""
    given = (("level", level), ("turn_limit", turn_limit))
    options = {name: value for name, value in given if value is not None}
    return CreateTable("notty", seats, variant, bots, options, **kwargs)


def cards(text: str | Iterable[Card]) -> list[Card]:
    """``"R1 r2 R3"`` -> sorted cards (a hand is a sorted multiset)."""
    return sorted(parse_cards(text) if isinstance(text, str) else text)


def new_game(rules: Rules = CLASSIC, players: int = 2, seed: int | str = 0) -> Game:
    return Game(rules, [f"p{i}" for i in range(players)], random.Random(seed))


def set_position(
    game: Game,
    hands: Sequence[str | Iterable[Card]],
    *,
    current: int = 0,
    turn: int = 1,
    drew: bool = False,
    stole: bool = False,
    exchanged: bool = False,
    must_put_back: bool = False,
) -> Game:
    """Give each seat ``hands[seat]`` and put every other card of the deck in the deck.

    Keeps the invariant hands + deck == full deck, so conservation checks stay valid.
    """
    parsed = [cards(hand) for hand in hands]
    assert len(parsed) == len(game.names), "one hand per seat"
    full = Counter(game.rules.full_deck())
    held: Counter[Card] = Counter()
    for hand in parsed:
        held.update(hand)
    too_many = held - full
    assert not too_many, f"position uses cards the deck does not have: {too_many}"
    for seat, hand in enumerate(parsed):
        game.hands[seat] = list(hand)
    deck = list((full - held).elements())
    random.Random(len(deck)).shuffle(deck)
    game._deck = deck
    game.current, game.turn = current, turn
    game.drew, game.stole, game.exchanged, game.must_put_back = drew, stole, exchanged, must_put_back
    game.winner = game.end_reason = None
    # The position is where the turn under way began, with no quiet turns behind it (no-progress rule).
    game._turn_began = game._hands_now()
    game.quiet_turns = 0
    return game


def position(rules: Rules, hands: Sequence[str | Iterable[Card]], **kwargs: Any) -> Game:
    """A fresh game of ``len(hands)`` seats set to the given position."""
    return set_position(new_game(rules, len(hands)), hands, **kwargs)


def groupless(rules: Rules, size: int, avoid: Iterable[Card] = (), start: int = 0) -> list[Card]:
    """``size`` cards holding no valid group, none of them among ``avoid`` (a multiset).

    ``start`` rotates the colour order so that several such hands can share a deck.
    """
    available = Counter(rules.full_deck()) - Counter(avoid)
    colours = rules.colours[start:] + rules.colours[:start]
    order = sorted(available.elements(), key=lambda c: (colours.index(c.colour), c.number))
    hand: list[Card] = []
    for card in order:
        if len(hand) == size:
            break
        if not has_group([*hand, card], rules):
            hand.append(card)
    assert len(hand) == size, f"could not build a groupless hand of {size}"
    assert not has_group(hand, rules)
    return sorted(hand)


def groupless_hands(rules: Rules, sizes: Sequence[int]) -> list[list[Card]]:
    """Disjoint groupless hands of the given sizes (drawn from one deck)."""
    hands: list[list[Card]] = []
    used: list[Card] = []
    for i, size in enumerate(sizes):
        hand = groupless(rules, size, used, start=i)
        hands.append(hand)
        used.extend(hand)
    return hands


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything about a game that an action could change (deck order and rng included)."""
    return (
        tuple(tuple(hand) for hand in game.hands),
        tuple(game._deck),
        game.deck_size,
        game.current,
        game.turn,
        game.drew,
        game.stole,
        game.exchanged,
        game.must_put_back,
        game.winner,
        game.end_reason,
        game.quiet_turns,
        game._turn_began,
        game._rng.getstate(),
    )


def public_state(game: Game) -> tuple[Any, ...]:
    """The state two games that had the same outcomes must share (deck as a multiset)."""
    return (
        tuple(tuple(hand) for hand in game.hands),
        tuple(sorted(game.deck_contents().items())),
        game.deck_size,
        game.current,
        game.turn,
        game.drew,
        game.stole,
        game.exchanged,
        game.must_put_back,
        game.winner,
        game.end_reason,
    )


def assert_conserved(game: Game) -> None:
    """Every card of the deck is in exactly one place."""
    total: Counter[Card] = game.deck_contents()
    for hand in game.hands:
        total.update(hand)
    assert total == Counter(game.rules.full_deck())


def assert_refused(game: Game, action: Action, rule: Rule, **kwargs: Any) -> IllegalAction:
    """``action`` raises IllegalAction naming ``rule`` and changes nothing."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(action, **kwargs)
    assert info.value.rule is rule, f"{action} refused for {info.value.rule}, expected {rule}"
    assert snapshot(game) == before, f"refused {action} changed the game"
    return info.value


class ArmableRandom(random.Random):
    """A seeded Random that raises on any use once ``armed``: proves chance was not consulted."""

    armed = False

    def random(self) -> float:
        if self.armed:
            raise AssertionError("the rng was consulted although the outcome was given")
        return super().random()

    def getrandbits(self, k: int) -> int:
        if self.armed:
            raise AssertionError("the rng was consulted although the outcome was given")
        return super().getrandbits(k)


def restore(game: Game, snap: tuple[Any, ...]) -> None:
    """Put a game back to a :func:`snapshot` (to try one action after another)."""
    hands, deck, _, current, turn, drew, stole, exchanged, must_put_back, winner, reason, *rest = snap
    quiet, began, rng = rest
    for seat, hand in enumerate(hands):
        game.hands[seat] = list(hand)
    game._deck = list(deck)
    game.current, game.turn = current, turn
    game.drew, game.stole, game.exchanged, game.must_put_back = drew, stole, exchanged, must_put_back
    game.winner, game.end_reason = winner, reason
    game.quiet_turns, game._turn_began = quiet, began
    game._rng.setstate(rng)


class ServerProcess:
    """A real ``notty-server`` on a free port of 127.0.0.1, recording in ``db``; its log so far in ``log``."""

    def __init__(self, db: Path, *args: str) -> None:
        command = [str(Path(sys.executable).parent / "notty-server"), "--host", "127.0.0.1", "--port", "0"]
        command += ["--watch-delay", "0"]  # tables of bots alone at full speed: tests watch them to their end
        self.process = subprocess.Popen([*command, "--db", str(db), *args], stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        self.log: list[str] = []
        for line in self.process.stderr:
            self.log.append(line)
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if found:
                self.port = int(found.group(1))
                return
        raise AssertionError("notty-server did not start:\n" + "".join(self.log))

    def kill(self) -> None:
        """SIGKILL: no goodbye, no clean-up, as in a crash."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Real servers a test starts (append each): every one is stopped when the test ends."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.stop()


@pytest.fixture
def server_port(tmp_path: Path) -> Iterator[int]:
    """A real notty-server process on a free port, recording in a fresh database."""
    server = ServerProcess(tmp_path / "notty.db")
    try:
        yield server.port
    finally:
        server.stop()


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A database holding one whole game of two bots (classic, greedy-1 vs random-2): a replay of it
    prints hundreds of lines."""
    from test_host import Net  # here, not at the top: test_host imports this module

    from server.store import Store

    net = Net()
    net.client("eve").send(notty_table("classic", 2, ("greedy", "random"), bot_delay_ms=0, turn_limit=300))
    net.run_bots()
    path = tmp_path / "notty.db"
    store = Store(path)
    store.write(net.host.take_journal())
    store.close()
    return path


def notty_server(
    *args: str, prefix: Sequence[str] = (), timeout: float = 30, **options: Any
) -> subprocess.CompletedProcess[str]:
    """Run ``notty-server`` with ``args`` to its end: a start meant to fail, or ``games`` and ``replay``.

    ``prefix`` runs it through another command (``setpriv`` to run as another user, say); ``options``
    go to :func:`subprocess.run`."""
    command = [*prefix, str(Path(sys.executable).parent / "notty-server"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)


@pytest.fixture
def homeless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No home directory, as for a user id the password database lacks (a container's), no XDG
    directory named either; the current directory ``tmp_path``, which a program must leave alone."""
    import pwd

    def unknown(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    for name in ("HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", unknown)
    monkeypatch.chdir(tmp_path)
    return tmp_path
