"""The wire protocol (protocol/: framing, field specs, messages, connection), checked against its contract.

The contract (docs/PROTOCOL.md): a frame is a 4-byte big-endian unsigned length and then that many bytes
of one msgpack map with a string key "type"; a header announcing more than 64 KiB is refused as soon as it
arrives; bodies are decoded with raw=False and strict_map_key=True and no extension types; every message is
a frozen class that validates every field (naming the field when it refuses one), and the data a game defines
(a view's body, an event's data, a hint's data, a table's options) within documented bounds; a state machine
refuses messages illegal in the current state; the first message of each side carries the protocol version,
read before anything else in it (a version 2 client gets the fatal ``version`` error, not ``bad-message``).

The field tables below are written from the document, not read from the code, so a spec that drifts from the
contract breaks them. ``SAMPLES``, ``FIELDS`` and ``DATA_FIELDS`` are shared with test_wire_fuzz.py.
"""

from __future__ import annotations

import functools
import itertools
import random
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import attrs
import msgpack
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from protocol import (
    CLIENT_MAY_SEND,
    MAX_CLIENT_FRAME,
    MAX_CLIENT_ITEMS,
    MAX_FRAME,
    MAX_ITEMS,
    MAX_NAME,
    MAX_SEATS,
    MESSAGES,
    PROTOCOL_VERSION,
    SERVER_MAY_SEND,
    Act,
    AskHint,
    Autopilot,
    Bye,
    Connection,
    ConnectionState,
    CreateTable,
    Error,
    FrameDecoder,
    Goodbye,
    Hello,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    LocalProtocolError,
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
    decode_body,
    encode_frame,
    message_from_wire,
)

CLIENT, SERVER = Sender.CLIENT, Sender.SERVER
LIMIT = 2 * (MAX_FRAME + 4)  # the most unread bytes a receiver holds


def frame(payload: bytes) -> bytes:
    """A frame around raw bytes (no checks: for frames the encoder would refuse)."""
    return struct.pack(">I", len(payload)) + payload


def packed(value: Any) -> bytes:
    """A frame holding ``value`` packed as the contract says (str as str, bytes as bin)."""
    return frame(msgpack.packb(value, use_bin_type=True))


def plain(value: Any) -> Any:
    """``value`` as a message stores it: every list a tuple, all the way down."""
    if isinstance(value, list | tuple):
        return tuple(plain(item) for item in value)
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    return value


def decode_all(data: bytes) -> list[dict[str, Any]]:
    decoder = FrameDecoder()
    decoder.receive_data(data)
    bodies = []
    while (body := decoder.next_frame()) is not None:
        bodies.append(body)
    assert decoder.buffered == 0
    return bodies


# --------------------------------------------------------------------------- field tables, from the document


class Bad(NamedTuple):
    value: Any
    path: str = ""  # where below the field the error points, e.g. ".deck_size" or "[1].seats[1].connected"
    word: str = ""  # a word the error must also contain (a missing or unknown key's name)


@attrs.frozen
class F:
    """What one value may hold: some values it accepts (the first is the usual one) and some it refuses."""

    good: tuple[Any, ...]
    bad: tuple[Bad, ...]


#: Characters no text may hold: controls, the line and paragraph separators, and lone surrogates (which
#: UTF-8 cannot encode, so only a local sender could try them).
CONTROL = (
    *("\x00", "\t", "\n", "\r", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\u2028", "\u2029"),
    *("\ud800", "\udfff"),
)


def Int_(low: int, high: int) -> F:
    wrong = [None, True, False, float(low), float("nan"), str(low), bytes([low % 256]), [low], {"n": low}]
    out_of_range = [low - 1, high + 1, -1 - 2**63, 2**63, 2**64, -(2**64), 2**100]
    return F(
        (low, high, (low + high) // 2),
        tuple(Bad(v) for v in [*wrong, *(v for v in out_of_range if not low <= v <= high)]),
    )


def Bool_() -> F:
    return F((False, True), tuple(Bad(v) for v in (None, 0, 1, 1.0, "true", b"\x01", [True], {"b": True})))


def Str_(
    low: int,
    high: int,
    make: Callable[[int], str] = lambda n: "a" * n,
    good: Iterable[str] = (),
    bad: Iterable[str] = (),
) -> F:
    """Text of ``low..high`` characters; ``make(n)`` is a valid text of length n."""
    shortest = max(low, 2)
    controls = [make(shortest)[:-1] + c for c in CONTROL] + [c + make(shortest)[1:] for c in ("\x00", "\n")]
    refused: list[Any] = [make(high + 1), *controls, *bad, None, True, 1, 1.5, make(shortest).encode(), ["a"]]
    refused.append({"a": "a"})
    if low > 0:
        refused.append(make(low - 1))
    return F((make(max(low, 1)), make(low), make(high), *good), tuple(Bad(v) for v in refused))


def nil(inner: F) -> F:
    """``inner`` or nil."""
    return F((*inner.good, None), tuple(b for b in inner.bad if not (b.value is None and b.path == "")))


def List_(item: F, most: int) -> F:
    first = item.good[0]
    good: list[Any] = [[first], [], [first] * most]
    good += [list(item.good[i : i + most]) for i in range(0, len(item.good), most)]
    good.append(tuple(item.good[:most]))  # built locally, a tuple is as good as a list
    refused = [Bad([first] * (most + 1)), *(Bad(v) for v in (None, True, 7, "R1", b"R1", {"0": first}))]
    refused += [Bad([first, b.value], f"[1]{b.path}", b.word) for b in item.bad]
    return F(tuple(good), tuple(refused))


def Map_(fields: dict[str, F], omittable: Iterable[str] = ()) -> F:
    """A map with exactly these keys (those in ``omittable`` may be left out)."""
    omit = frozenset(omittable)
    sample = {key: spec.good[0] for key, spec in fields.items()}
    good: list[Any] = [sample, {k: v for k, v in sample.items() if k not in omit}]
    good += [{**sample, key: value} for key, spec in fields.items() for value in spec.good[1:]]
    refused = [Bad(v) for v in (None, True, 3, "map", b"map", [], [sample])]
    refused += [Bad({**sample, "colour": "R"}, "", "colour"), Bad({**sample, "": 1})]
    refused += [
        Bad({k: v for k, v in sample.items() if k != key}, "", key) for key in fields if key not in omit
    ]
    refused += [
        Bad({**sample, key: b.value}, f".{key}{b.path}", b.word)
        for key, spec in fields.items()
        for b in spec.bad
    ]
    return F(tuple(good), tuple(refused))


def nest(levels: int, leaf: Any = 0) -> Any:
    """``leaf`` inside ``levels`` lists: ``nest(2) == [[0]]``."""
    for _ in range(levels):
        leaf = [leaf]
    return leaf


#: Map keys that game data refuses: not text, empty, too long, or holding a control character.
BAD_KEYS: tuple[Any, ...] = (1, -1, None, True, b"k", 1.5, "", "k" * 65, "a\nb", "\x7f", "\u2028", "\x00")
#: Values of a type that game data does not have.
NOT_DATA: tuple[Any, ...] = (1.5, float("nan"), b"x", bytearray(b"x"), {1, 2}, frozenset(), 1j, object())
OUT_OF_RANGE = (2**64, -(2**63) - 1, 2**100)


def Data_(depth: int, most: int, text: int, mapping: bool, usual: Iterable[Any] = ()) -> F:
    """Game data as the document bounds it: nil, bool, int -2**63..2**64-1, text of 0..``text``
    printable chars, lists, maps with text keys of 1..64 printable chars; at most ``most`` items in
    each list or map and ``depth`` levels of them; a map at the top if ``mapping``. ``usual`` are
    the values a game really sends (the first is the usual one)."""
    scalars: list[Any] = [None, True, False, 0, -(2**63), 2**64 - 1, "", "a" * text, "é🃏" * (text // 2)]
    good: list[Any] = list(usual)
    bad: list[Bad] = []
    if mapping:
        good += [
            {},
            {"k": nest(depth - 1)},  # exactly as deep as allowed
            {f"k{i}": i for i in range(most)},
            {"K" * 64: 0, "é": "a" * text, **{f"s{i}": v for i, v in enumerate(scalars)}},
        ]
        if depth >= 2:
            good += [{"k": [0] * most}, {"k": {"m": nest(depth - 2, "x")}}]
        bad += [Bad(v) for v in (None, [], ["k"], "k", 1, True, 1.5, b"k")]  # not a map
        bad.append(Bad({"k": nest(depth)}, ".k" + "[0]" * (depth - 1)))  # one level too deep
        bad.append(Bad({f"k{i}": i for i in range(most + 1)}))
        bad += [Bad({key: 0}) for key in BAD_KEYS]
        bad.append(Bad({"k": "a" * (text + 1)}, ".k"))
        bad += [Bad({"k": "a" + c}, ".k") for c in CONTROL]
        bad += [Bad({"k": v}, ".k") for v in (*NOT_DATA, *OUT_OF_RANGE)]
        if depth >= 2:
            bad += [Bad({"k": [0] * (most + 1)}, ".k"), Bad({"k": [1.5]}, ".k[0]")]
            bad += [Bad({"k": [{"ok": 0, key: 0}]}, ".k[0]") for key in BAD_KEYS]
            bad += [Bad({"k": {"m": "a\n"}}, ".k.m"), Bad({"a": 1, "k": [0, 2**64]}, ".k[1]")]
    else:
        good += scalars
        if depth >= 1:
            good += [nest(depth), [0] * most, {"k": 1}]
        bad.append(Bad(nest(depth + 1), "[0]" * depth))
        bad += [Bad("a" * (text + 1)), *(Bad("a" + c) for c in CONTROL)]
        bad += [Bad(v) for v in (*NOT_DATA, *OUT_OF_RANGE)]
    return F(tuple(good), tuple(bad))


TABLE_ID = Int_(1, 2**31 - 1)
SEAT = Int_(0, 7)
#: A version field: this version is the usual value (another is refused by a Connection, not by the message).
VERSION = F((PROTOCOL_VERSION, *Int_(1, 65535).good), Int_(1, 65535).bad)
NAME = Str_(
    1, 24, good=("Ann Lee_1.-", "0", "Z9"), bad=(" ann", "-ann", ".a", "ann!", "änn", "a\u00a0b", "a/b")
)
TOKEN = Str_(32, 64, good=("Ab0_-" * 8,), bad=("a" * 31 + "=", "a" * 31 + " ", "a" * 31 + "+", "é" * 32))
CODE = Str_(1, 40, good=("not-now", "a1-", "z"), bad=("A", "1a", "-a", "a_b", "a b", "é"))
ACTION = Str_(1, 400, good=("discard R3 R4 R5", "draw 2", "é" * 400, "🃏" * 400))
TEXT = Str_(0, 400, good=("ann draws 2 cards: R4 Y9", "é" * 400))
GAME_NAME = Str_(1, 32, good=("notty", "ochos-locos", "a1-"), bad=("Notty", "1a", "-a", "a_b", "a b", "é"))
VARIANT = Str_(1, 32, good=("classic", "five-colour", "0"), bad=("Classic", "-a", "a b", "a_b", "é"))
BOT = Str_(1, 24, good=("greedy", "expert-hard", "0"), bad=("Greedy", "-a", "a b", "a_b", "é"))

NOTTY_BODY = {
    "hands": [["R1", "R2", "Y10"], ["K3"]],
    "deck_size": 40,
    "drew": False,
    "stole": False,
    "exchanged": False,
    "must_put_back": False,
}
#: A body of a game with hidden hands: your cards, and how many the others hold.
HIDDEN_BODY = {"hand": ["3H", "QS"], "counts": [2, 5, 5, 5], "table": [["4D", "5D", "6D"]], "stock": 31}
NOTTY_HINT = {
    "size": 3,
    "best": [["R3", "R4", "R5"]],
    "alternatives": [["Y1", "Y2", "Y3"]],
    "outs": [{"card": "R6", "gain": 1}],
}
NOTTY_OPTIONS = {"level": "hard", "turn_limit": 0}

BODY = Data_(6, 1000, 2000, mapping=True, usual=(NOTTY_BODY, HIDDEN_BODY))
EVENT_DATA = Data_(4, 1000, 2000, mapping=True, usual=({"seat": 0, "cards": ["R4", "Y9"]}, {"seat": 1}))
HINT_DATA = Data_(6, 1000, 2000, mapping=True, usual=(NOTTY_HINT,))
OPTIONS = Data_(1, 32, 64, mapping=True, usual=(NOTTY_OPTIONS, {"level": "easy"}))
OPTION_DEFAULT = Data_(0, 1000, 64, mapping=False, usual=("medium", 0))

SEAT_INFO = Map_({"name": nil(NAME), "bot": nil(BOT), "connected": Bool_()})
TABLE_INFO = Map_(
    {
        "table": TABLE_ID,
        "game": GAME_NAME,
        "variant": VARIANT,
        "seats": List_(SEAT_INFO, 8),
        "started": Bool_(),
        "over": Bool_(),
        "spectators": Int_(0, 10_000),
        "turn_seconds": Int_(0, 3600),
        "options": OPTIONS,
        "turn": nil(Int_(1, 2**31 - 1)),
        "bots": List_(SEAT, 8),
        "kept": List_(SEAT, 8),
    },
)
RESULT = Map_(
    {
        "ranking": List_(List_(SEAT, 8), 8),
        "reason": CODE,
        "text": Str_(1, 400, good=("bob wins by discarding their last cards",)),
        "game_id": TABLE_ID,
        "seconds": Int_(0, 2**31 - 1),
    },
    omittable=("game_id", "seconds"),
)
VIEW = Map_(
    {
        "game": GAME_NAME,
        "variant": VARIANT,
        "names": List_(NAME, 8),
        "seat": nil(SEAT),
        "current": SEAT,
        "turn": Int_(1, 2**31 - 1),
        "legal": List_(ACTION, 1000),
        "result": nil(RESULT),
        "body": BODY,
        "bots": List_(SEAT, 8),
    },
    omittable=("bots",),
)
EVENT = Map_({"kind": CODE, "text": TEXT, "data": EVENT_DATA})
VARIANT_INFO = Map_(
    {"name": VARIANT, "min_players": Int_(1, 8), "max_players": Int_(1, 8), "summary": Str_(0, 200)}
)
OPTION_INFO = Map_(
    {
        "name": Str_(1, 32, good=("turn_limit", "level", "a1_"), bad=("Level", "1a", "_a", "a-b", "a b")),
        "summary": Str_(0, 200),
        "default": OPTION_DEFAULT,
        "choices": List_(Str_(1, 32, good=("medium", "Hard cases")), 32),
        "low": Int_(-(2**31), 2**31),
        "high": Int_(-(2**31), 2**31),
    },
    omittable=("choices", "low", "high"),
)
GAME_INFO = Map_(
    {
        "name": GAME_NAME,
        "title": Str_(1, 64, good=("Notty", "Ochos Locos")),
        "variants": List_(VARIANT_INFO, 32),
        "bots": List_(BOT, 64),
        "options": List_(OPTION_INFO, 32),
    }
)
#: A rate, in messages per 1000 seconds (a whole number: never a float), up to a million a second.
RATE = F((20_000, 500, 3_500, *Int_(1, 10**9).good), Int_(1, 10**9).bad)
#: The limits a server holds each connection to, as its welcome says them (version 8).
LIMITS = Map_(
    {
        "rate_per_1000s": RATE,
        "burst": Int_(1, 2**31 - 1),
        "hint_rate_per_1000s": RATE,
        "hint_burst": Int_(1, 2**31 - 1),
    }
)


#: Every field of every message: what it accepts and refuses.
FIELDS: dict[type[Message], dict[str, F]] = {
    Hello: {"version": VERSION, "name": NAME, "token": nil(TOKEN)},
    ListTables: {},
    CreateTable: {
        "game": GAME_NAME,
        "seats": Int_(1, 8),
        "variant": nil(VARIANT),
        "bots": List_(BOT, 8),
        "options": OPTIONS,
        "turn_seconds": Int_(0, 3600),
        "bot_delay_ms": Int_(0, 10_000),
    },
    Join: {"table": TABLE_ID, "seat": nil(SEAT)},
    Watch: {"table": TABLE_ID},
    Start: {},
    Leave: {},
    Act: {"action": ACTION},
    AskHint: {},
    PlayForMe: {},
    Autopilot: {"on": Bool_()},
    Resign: {},
    Ping: {"nonce": Int_(0, 2**32 - 1)},
    Bye: {},
    Welcome: {
        "version": VERSION,
        "server": Str_(1, 64, good=("notty 0.1.0", "é" * 64)),
        "games": List_(GAME_INFO, 32),
        "limits": LIMITS,
    },
    Tables: {"tables": List_(TABLE_INFO, 10_000)},
    Seated: {"table": TABLE_ID, "seat": SEAT, "token": TOKEN},
    Watching: {"table": TABLE_ID},
    Left: {"table": TABLE_ID},
    State: {"table": TABLE_ID, "view": VIEW, "events": List_(EVENT, 1000)},
    Hint: {
        "text": Str_(0, 2000, good=("discard 3 cards: R3 R4 R5", "é" * 2000)),
        "actions": List_(ACTION, 50),
        "data": HINT_DATA,
    },
    Error: {
        "code": CODE,
        "message": Str_(1, 500, good=("draw 1 to 3 cards, not 4", "é" * 500)),
        "rule": nil(CODE),
    },
    Pong: {"nonce": Int_(0, 2**32 - 1)},
    Notice: {
        "table": TABLE_ID,
        "seat": SEAT,
        "name": NAME,
        "kind": F(
            ("dropped", "joined", "left", "returned", "stand-in", "timed-out"),
            tuple(Bad(v) for v in ("exploded", "Dropped", "dropped ", "", None, 1, ["left"])),
        ),
        "text": Str_(1, 200, good=("bob dropped; their seat is held for 60 s", "é" * 200)),
        "seconds": nil(Int_(0, 2**31 - 1)),
    },
    Goodbye: {"reason": Str_(1, 500, good=("bye",))},
}

#: The fields that may be left out, and their values then.
DEFAULTS: dict[type[Message], dict[str, Any]] = {
    Hello: {"token": None},
    CreateTable: {"variant": None, "bots": (), "options": {}, "turn_seconds": 0, "bot_delay_ms": 1000},
    Join: {"seat": None},
    Welcome: {"games": ()},
    Hint: {"actions": (), "data": {}},
    Error: {"rule": None},
    Notice: {"seconds": None},
}

FIELD_CASES = [(cls, name) for cls, fields in FIELDS.items() for name in fields]
FIELD_IDS = [f"{cls.TYPE}.{name}" for cls, name in FIELD_CASES]


def full_body(cls: type[Message]) -> dict[str, Any]:
    """A valid wire body of ``cls`` with every field present, built from the table above."""
    return {"type": cls.TYPE, **{name: spec.good[0] for name, spec in FIELDS[cls].items()}}


def kwargs_of(body: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "type"}


# --------------------------------------------------------------------------- sample messages

TOKEN_VALUE = "k3J_-" * 8
INFO = {
    "table": 7,
    "game": "notty",
    "variant": "classic",
    "seats": [
        {"name": "ann", "bot": None, "connected": True},
        {"name": None, "bot": "expert-hard", "connected": False},
    ],
    "started": True,
    "over": False,
    "spectators": 2,
    "turn_seconds": 30,
    "options": NOTTY_OPTIONS,
    "turn": 4,
    "bots": [1],
    "kept": [0],
}
NOTTY_INFO = {
    "name": "notty",
    "title": "Notty",
    "variants": [
        {"name": "classic", "min_players": 2, "max_players": 3, "summary": "four colours"},
        {"name": "five-colour", "min_players": 2, "max_players": 3, "summary": "five colours"},
    ],
    "bots": ["random", "greedy", "qlearn", "expert", "expert-easy", "expert-medium", "expert-hard"],
    "options": [
        {"name": "level", "summary": "how well", "default": "medium", "choices": ["easy", "medium", "hard"]},
        {"name": "turn_limit", "summary": "turns", "default": 0, "low": 0, "high": 100_000},
    ],
}
VIEW_VALUE = {
    "game": "notty",
    "variant": "classic",
    "names": ["ann", "greedy"],
    "seat": 0,
    "current": 0,
    "turn": 1,
    "legal": ["draw 1", "draw 2", "draw 3", "steal 1", "end"],
    "result": None,
    "body": NOTTY_BODY,
}
EVENTS_VALUE = [
    {"kind": "game-started", "text": "ann starts", "data": {"seat": 0}},
    {"kind": "drew", "text": "ann draws 2 cards: R4 Y9", "data": {"seat": 0, "cards": ["R4", "Y9"]}},
    {"kind": "stole", "text": "", "data": {"seat": 1, "victim": 0, "card": "R4"}},
    {"kind": "discarded", "text": "run", "data": {"seat": 0, "cards": ["R3", "R4", "R5"], "group": "run"}},
    {"kind": "turn-ended", "text": "next", "data": {"seat": 0, "next_seat": 1, "turn": 2}},
    {"kind": "game-ended", "text": "stalemate", "data": {"winner": None, "reason": "stalemate"}},
]
RESULT_VALUE = {
    "ranking": [[1], [0]],
    "reason": "discard",
    "text": "greedy wins by discarding their last cards",
}
EIGHT = [f"p{i}" for i in range(8)]
#: What a server at its default limits says of them: 20 messages a second, 40 at once; a hint every
#: two seconds, 3 at once.
LIMITS_VALUE = {"rate_per_1000s": 20_000, "burst": 40, "hint_rate_per_1000s": 500, "hint_burst": 3}

#: At least one valid message of every type; the first of each type is the "usual" one.
SAMPLES: list[Message] = [
    Hello(version=PROTOCOL_VERSION, name="ann"),
    Hello(version=PROTOCOL_VERSION, name="Ann Lee_1.-", token=TOKEN_VALUE),
    ListTables(),
    CreateTable(game="notty", seats=2),
    CreateTable(
        game="notty",
        seats=3,
        variant="five-colour",
        bots=["greedy", "random"],
        options={"level": "hard", "turn_limit": 100_000},
        turn_seconds=3600,
        bot_delay_ms=0,
    ),
    CreateTable(game="notty", seats=3, variant="classic", bots=["expert", "expert-easy"], options={}),
    CreateTable(game="ochos-locos", seats=8, bots=["random"] * 7),
    Join(table=1),
    Join(table=2**31 - 1, seat=7),
    Watch(table=3),
    Start(),
    Leave(),
    Act(action="discard R3 R4 R5"),
    Act(action="é🃏" * 200),
    AskHint(),
    PlayForMe(),
    Autopilot(on=True),
    Autopilot(on=False),
    Resign(),
    Ping(nonce=0),
    Ping(nonce=2**32 - 1),
    Bye(),
    Welcome(version=PROTOCOL_VERSION, server="notty 0.1.0", games=[NOTTY_INFO], limits=LIMITS_VALUE),
    Welcome(version=PROTOCOL_VERSION, server="notty 0.1.0", limits=LIMITS_VALUE),
    Welcome(
        version=PROTOCOL_VERSION,
        server="notty 0.1.0",
        limits={"rate_per_1000s": 1, "burst": 1, "hint_rate_per_1000s": 10**9, "hint_burst": 2**31 - 1},
    ),
    Tables(tables=[]),
    Tables(tables=[INFO, {**INFO, "table": 8, "seats": [], "options": {}}]),
    Tables(tables=[{**INFO, "turn": 12, "bots": [1]}, {**INFO, "table": 9, "turn": None, "bots": []}]),
    Seated(table=1, seat=0, token=TOKEN_VALUE),
    Seated(table=1, seat=7, token=TOKEN_VALUE),
    Watching(table=1),
    Left(table=1),
    State(table=1, view=VIEW_VALUE, events=EVENTS_VALUE),
    State(table=1, view={**VIEW_VALUE, "seat": None, "result": RESULT_VALUE, "legal": []}, events=[]),
    State(
        table=1,
        view={
            **VIEW_VALUE,
            "result": {**RESULT_VALUE, "game_id": 1, "seconds": 252},
            "legal": [],
            "bots": [1],
        },
        events=[],
    ),
    State(
        table=2,
        view={
            **VIEW_VALUE,
            "game": "huxxy",
            "variant": "standard",
            "names": EIGHT,
            "seat": 7,
            "current": 7,
            "body": HIDDEN_BODY,
            "result": {"ranking": [[2], [0, 7], [1, 3, 4, 5, 6]], "reason": "out", "text": "p2 goes out"},
        },
        events=[{"kind": "drew", "text": "p7 draws a card", "data": {"seat": 7}}],
    ),
    Hint(text="discard 3 cards: R3 R4 R5", actions=["discard R3 R4 R5"], data=NOTTY_HINT),
    Hint(text=""),
    Error(code="not-now", message="join is not allowed while seated"),
    Error(code="illegal-action", message="draw 1 to 3 cards, not 4", rule="draw-count"),
    Notice(table=1, seat=1, name="bob", kind="dropped", text="bob dropped; held for 60 s", seconds=60),
    Notice(table=2**31 - 1, seat=7, name="Ann Lee_1.-", kind="stand-in", text="a bot plays for Ann Lee_1.-"),
    Pong(nonce=12345),
    Goodbye(reason="bye"),
]
SAMPLE_IDS = [f"{m.TYPE}-{m.SENDER.value}-{i}" for i, m in enumerate(SAMPLES)]
FIRST: dict[type[Message], Message] = {}
for _sample in SAMPLES:
    FIRST.setdefault(type(_sample), _sample)


def test_tables_cover_every_message_and_field() -> None:
    """A new message or field must be added to these tests (and to the document)."""
    assert set(FIELDS) == set(MESSAGES.values()) == {type(m) for m in SAMPLES}
    for cls, fields in FIELDS.items():
        assert [a.name for a in attrs.fields(cls)] == list(fields), cls.TYPE
        assert MESSAGES[(cls.SENDER, cls.TYPE)] is cls
    for cls, defaults in DEFAULTS.items():
        assert set(defaults) <= set(FIELDS[cls])


def test_protocol_version_is_nine_and_seats_go_up_to_eight() -> None:
    """Version 3 hosts many games (create_table names a game, the welcome lists them, and views,
    events and hints carry a body each game defines); version 4 adds seat news; version 5 the view's
    bot_turn and turn_seconds, which a version 4 client would refuse; version 6 the view's away,
    which a version 5 client would refuse; version 7 the view's turn_left; version 8 the welcome's
    limits, which a version 7 client would refuse; version 9 the view's and the table map's kept,
    which a version 8 client would refuse. Up to 8 seats."""
    assert PROTOCOL_VERSION == 9
    assert MAX_SEATS == 8


# --------------------------------------------------------------------------- framing: round trips


def test_documented_hello_frame_bytes() -> None:
    """The hex example of docs/PROTOCOL.md, byte for byte."""
    expected = bytes.fromhex(
        "00 00 00 25 84 a4 74 79 70 65 a5 68 65 6c 6c 6f a7 76 65 72 73 69 6f 6e 09"
        " a4 6e 61 6d 65 a3 61 6e 6e a5 74 6f 6b 65 6e c0"
    )
    hello = Hello(version=PROTOCOL_VERSION, name="ann")
    assert encode_frame(hello.to_wire()) == expected
    assert Connection(CLIENT).send(hello) == expected
    assert message_from_wire(decode_all(expected)[0], CLIENT) == hello


@pytest.mark.parametrize("message", SAMPLES, ids=SAMPLE_IDS)
def test_every_message_round_trips(message: Message) -> None:
    data = encode_frame(message.to_wire())
    (length,) = struct.unpack(">I", data[:4])
    assert length == len(data) - 4
    body = msgpack.unpackb(data[4:], raw=False)  # an ordinary msgpack map: any msgpack library reads it
    assert isinstance(body, dict) and body["type"] == message.TYPE
    (decoded,) = decode_all(data)
    again = message_from_wire(decoded, message.SENDER)
    assert again == message
    assert type(again) is type(message)
    assert encode_frame(again.to_wire()) == data
    assert again.to_wire() == message.to_wire() == decoded


@pytest.mark.parametrize("message", SAMPLES, ids=SAMPLE_IDS)
def test_every_message_round_trips_through_connections(message: Message) -> None:
    """Sent by a Connection of its sender's role, received by the other side's, in a state that allows it."""
    state = next(s for s in MODEL_STATES if type(message).TYPE in model_may_send(message.SENDER, s))
    pair = Pair.in_state(state)
    assert pair.deliver(message) == message


def test_messages_keep_no_lists_and_are_frozen() -> None:
    for message in SAMPLES:
        received = message_from_wire(decode_all(encode_frame(message.to_wire()))[0], message.SENDER)
        for attribute in attrs.fields(type(message)):
            value = getattr(received, attribute.name)
            assert value == plain(value)  # lists became tuples, all the way down
            assert not _contains_list(value), f"{message.TYPE}.{attribute.name} holds a list"
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                setattr(received, attribute.name, value)
        with pytest.raises((attrs.exceptions.FrozenInstanceError, AttributeError)):
            received.colour = "R"  # type: ignore[attr-defined]


def _contains_list(value: Any) -> bool:
    if isinstance(value, list):
        return True
    if isinstance(value, tuple):
        return any(_contains_list(item) for item in value)
    if isinstance(value, Mapping):
        return any(_contains_list(item) for item in value.values())
    return False


@pytest.mark.parametrize("message", SAMPLES, ids=SAMPLE_IDS)
def test_messages_are_hashable_values(message: Message) -> None:
    copy = message_from_wire(message.to_wire(), message.SENDER)
    assert hash(copy) == hash(message)
    assert len({copy, message}) == 1


def test_nested_maps_cannot_change_after_validation() -> None:
    state = message_from_wire(FIRST[State].to_wire(), SERVER)
    tables = message_from_wire(Tables(tables=[INFO]).to_wire(), SERVER)
    assert isinstance(state, State) and isinstance(tables, Tables)
    for mapping, key, value in [
        (state.view, "turn", -5),
        (state.view["body"], "deck_size", -5),
        (state.events[0], "kind", "x"),
        (state.events[0]["data"], "seat", 9),
        (tables.tables[0], "table", 0),
        (tables.tables[0]["seats"][0], "connected", "yes"),
        (tables.tables[0]["options"], "level", "impossible"),
    ]:
        with pytest.raises(TypeError):
            mapping[key] = value  # type: ignore[index]
    assert state == FIRST[State]


def test_lists_come_back_as_tuples() -> None:
    state = message_from_wire(FIRST[State].to_wire(), SERVER)
    assert isinstance(state, State)
    assert state.events[1]["data"]["cards"] == ("R4", "Y9")
    assert state.view["body"]["hands"] == (("R1", "R2", "Y10"), ("K3",))
    assert state.view["legal"][0] == "draw 1" and isinstance(state.view["legal"], tuple)
    assert CreateTable(game="notty", seats=2, bots=["greedy"]).bots == ("greedy",)
    welcome = message_from_wire(FIRST[Welcome].to_wire(), SERVER)
    assert isinstance(welcome, Welcome)
    assert welcome.games[0]["options"][0]["choices"] == ("easy", "medium", "hard")


ALL_FRAMES = b"".join(encode_frame(m.to_wire()) for m in SAMPLES)
ALL_BODIES = [m.to_wire() for m in SAMPLES]


def test_many_frames_in_one_chunk() -> None:
    assert len(ALL_FRAMES) < LIMIT
    assert decode_all(ALL_FRAMES) == ALL_BODIES


def test_frames_fed_one_byte_at_a_time() -> None:
    decoder = FrameDecoder()
    bodies = []
    ends = set()
    position = 0
    for message in SAMPLES:
        position += len(encode_frame(message.to_wire()))
        ends.add(position)
    for i in range(len(ALL_FRAMES)):
        decoder.receive_data(ALL_FRAMES[i : i + 1])
        body = decoder.next_frame()
        if i + 1 in ends:
            assert body is not None, f"a frame ends at byte {i + 1} but was not returned"
            bodies.append(body)
            assert decoder.buffered == 0
        else:
            assert body is None, f"a frame came out at byte {i + 1}, before its end"
        assert decoder.next_frame() is None
    assert bodies == ALL_BODIES


@pytest.mark.parametrize("split", range(len(encode_frame(FIRST[State].to_wire())) + 1))
def test_a_frame_split_at_every_boundary(split: int) -> None:
    data = encode_frame(FIRST[State].to_wire()) + encode_frame(Pong(nonce=1).to_wire())
    decoder = FrameDecoder()
    decoder.receive_data(data[:split])
    first = decoder.next_frame()
    assert (first is None) == (split < len(data) - len(encode_frame(Pong(nonce=1).to_wire())))
    decoder.receive_data(data[split:])
    bodies = [first] if first is not None else []
    while (body := decoder.next_frame()) is not None:
        bodies.append(body)
    assert bodies == [FIRST[State].to_wire(), Pong(nonce=1).to_wire()]


@settings(max_examples=60)
@given(st.lists(st.integers(0, len(ALL_FRAMES)), max_size=30))
def test_frames_split_anywhere(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(ALL_FRAMES)]
    decoder = FrameDecoder()
    bodies = []
    for start, end in itertools.pairwise(points):
        decoder.receive_data(ALL_FRAMES[start:end])
        while (body := decoder.next_frame()) is not None:
            bodies.append(body)
    assert bodies == ALL_BODIES
    assert decoder.buffered == 0


def test_truncated_frames_just_wait() -> None:
    data = encode_frame(FIRST[Hello].to_wire())
    for cut in range(len(data)):
        decoder = FrameDecoder()
        decoder.receive_data(data[:cut])
        for _ in range(3):
            assert decoder.next_frame() is None
        assert decoder.buffered == cut
        connection = Connection(SERVER)
        connection.receive_data(data[:cut])
        assert connection.next_event() is None
        assert connection.state is ConnectionState.HELLO
    decoder = FrameDecoder()
    decoder.receive_data(b"")
    assert decoder.next_frame() is None


def test_encoding_uses_str_for_text_and_bin_for_bytes() -> None:
    """msgpack's modern format: text is str (str8 from 32 bytes), bytes are bin."""
    payload = encode_frame({"type": "x", "t": "a" * 40, "b": b"\x01\x02"})[4:]
    assert b"\xa1t\xd9\x28" + b"a" * 40 in payload
    assert b"\xa1b\xc4\x02\x01\x02" in payload
    token = encode_frame(Seated(table=1, seat=0, token=TOKEN_VALUE).to_wire())
    assert b"\xa5token\xd9\x28" + TOKEN_VALUE.encode() in token


def test_encode_frame_needs_a_map_with_a_string_type() -> None:
    for body in ([], "hello", {"version": 1}, {"type": 1}, {"type": b"hello"}, {"type": None}):
        with pytest.raises(TypeError):
            encode_frame(body)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- framing: size limits


def _body_of_size(size: int) -> dict[str, Any]:
    """A frame body that packs to exactly ``size`` bytes."""
    for pad in range(size - 32, size):
        body = {"type": "ping", "pad": "x" * pad}
        if len(msgpack.packb(body, use_bin_type=True)) == size:
            return body
    raise AssertionError(size)


def test_a_frame_of_exactly_max_frame_is_accepted() -> None:
    body = _body_of_size(MAX_FRAME)
    data = encode_frame(body)
    assert len(data) == MAX_FRAME + 4
    decoder = FrameDecoder()
    decoder.receive_data(data[:4])
    assert decoder.next_frame() is None
    decoder.receive_data(data[4:])
    assert decoder.next_frame() == body
    assert decoder.buffered == 0


def test_encode_frame_refuses_a_body_over_max_frame() -> None:
    with pytest.raises(ProtocolError) as info:
        encode_frame(_body_of_size(MAX_FRAME + 1))
    assert info.value.code == "frame-too-large"


@pytest.mark.parametrize("announced", [MAX_FRAME + 1, MAX_FRAME + 2, 2**24, 2**32 - 1])
def test_an_oversized_header_is_refused_as_soon_as_it_arrives(announced: int) -> None:
    header = struct.pack(">I", announced)
    decoder = FrameDecoder()
    for byte in header[:3]:
        decoder.receive_data(bytes([byte]))
        assert decoder.next_frame() is None
    with pytest.raises(ProtocolError) as info:
        decoder.receive_data(header[3:])  # the fourth header byte: no body byte has been sent
    assert info.value.code == "frame-too-large"
    assert info.value.fatal is True
    assert str(MAX_FRAME) in info.value.message
    assert decoder.buffered == 0
    # It stays failed: nothing more is read or buffered.
    for attempt in (lambda: decoder.receive_data(encode_frame(Ping(nonce=1).to_wire())), decoder.next_frame):
        with pytest.raises(ProtocolError) as again:
            attempt()
        assert again.value.code == "frame-too-large" and again.value.fatal
        assert decoder.buffered == 0


def test_an_oversized_header_after_a_complete_frame_is_refused_when_reached() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame(Ping(nonce=1).to_wire()))
    assert decoder.next_frame() == Ping(nonce=1).to_wire()
    with pytest.raises(ProtocolError) as info:
        decoder.receive_data(struct.pack(">I", MAX_FRAME + 1))
    assert info.value.code == "frame-too-large" and info.value.fatal


def test_an_oversized_header_behind_unread_frames_is_refused_before_its_body_is_buffered() -> None:
    """However the stream is cut, no byte of the oversized frame's body is ever held."""
    before = encode_frame(Ping(nonce=1).to_wire()) + encode_frame(FIRST[State].to_wire())
    header_end = len(before) + 4
    stream = before + struct.pack(">I", MAX_FRAME + 1) + bytes(1000)
    for cut in range(len(stream) + 1):
        decoder = FrameDecoder()
        refusal: ProtocolError | None = None
        for chunk in (stream[:cut], stream[cut:]):
            try:
                decoder.receive_data(chunk)
            except ProtocolError as error:
                refusal = error
                break
            assert decoder.buffered <= header_end, f"cut at {cut}: oversized body bytes were buffered"
        if refusal is None:  # not refused yet: the frames before it may come out first, then the refusal
            bodies = []
            with pytest.raises(ProtocolError) as info:
                for _ in range(3):
                    bodies.append(decoder.next_frame())
            refusal = info.value
            assert bodies == [Ping(nonce=1).to_wire(), FIRST[State].to_wire()][: len(bodies)]
        assert refusal.code == "frame-too-large" and refusal.fatal, cut


def test_the_unread_bytes_bound() -> None:
    """Two whole frames' worth of unread bytes are held; one more byte is refused (too-much-data)."""
    full = encode_frame(_body_of_size(MAX_FRAME))
    decoder = FrameDecoder()
    decoder.receive_data(full)
    decoder.receive_data(full)
    assert decoder.buffered == LIMIT
    with pytest.raises(ProtocolError) as info:
        decoder.receive_data(b"\x00")
    assert info.value.code == "too-much-data" and info.value.fatal
    assert decoder.buffered == 0
    with pytest.raises(ProtocolError) as again:
        decoder.next_frame()
    assert again.value.code == "too-much-data"


class _CountingHeader:
    """Stands in for the framing module's header struct, counting header reads."""

    def __init__(self, real: Any) -> None:
        self.real, self.reads = real, 0
        self.size = real.size

    def unpack_from(self, buffer: Any, offset: int = 0) -> tuple[int, ...]:
        self.reads += 1
        return self.real.unpack_from(buffer, offset)  # type: ignore[no-any-return]

    def pack(self, *values: int) -> bytes:
        return self.real.pack(*values)  # type: ignore[no-any-return]


def test_a_flood_of_tiny_frames_costs_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counted, not timed: each header may be read a bounded number of times, however
    # many frames wait in the buffer (re-walking them all per frame was quadratic).
    import protocol._framing as framing

    counter = _CountingHeader(framing._HEADER)
    monkeypatch.setattr(framing, "_HEADER", counter)
    frames = 8192
    connection = Connection(SERVER)
    connection.receive_data(bytes(4 * frames))  # empty frames: each one a bad-frame refusal
    refused = 0
    while True:
        try:
            if connection.next_event() is None:
                break
        except ProtocolError as error:
            assert error.code == "bad-frame" and not error.fatal
            refused += 1
    assert refused == frames
    assert counter.reads <= 3 * frames + 10, f"{counter.reads} header reads for {frames} frames"


def test_reading_frames_frees_room() -> None:
    small = encode_frame(Ping(nonce=7).to_wire())
    decoder = FrameDecoder()
    total = 0
    for _ in range(10 * LIMIT // len(small)):
        decoder.receive_data(small)
        total += 1
        assert decoder.next_frame() == Ping(nonce=7).to_wire()
        assert decoder.buffered == 0
    assert total * len(small) > LIMIT


def test_many_small_unread_frames_hit_the_bound() -> None:
    small = encode_frame(Ping(nonce=7).to_wire())
    decoder = FrameDecoder()
    with pytest.raises(ProtocolError) as info:
        for _ in range(LIMIT // len(small) + 2):
            decoder.receive_data(small)
            assert decoder.buffered <= LIMIT
    assert info.value.code == "too-much-data"


def test_one_chunk_over_the_bound_is_refused_at_once() -> None:
    connection = Connection(SERVER)
    with pytest.raises(ProtocolError) as info:
        connection.receive_data(bytes(LIMIT + 1))
    assert info.value.code == "too-much-data" and info.value.fatal
    assert connection.state is ConnectionState.CLOSED


def test_oversized_frames_through_a_connection_close_it() -> None:
    connection = Connection(SERVER)
    with pytest.raises(ProtocolError) as info:
        connection.receive_data(struct.pack(">I", MAX_FRAME + 1))
    assert info.value.code == "frame-too-large" and info.value.fatal
    assert connection.state is ConnectionState.CLOSED
    with pytest.raises(ProtocolError):
        connection.receive_data(encode_frame(FIRST[Hello].to_wire()))
    with pytest.raises(ProtocolError):
        connection.next_event()
    assert connection.state is ConnectionState.CLOSED


# --------------------------------------------------------------------------- framing: malformed bodies

NOT_A_FRAME_BODY = {
    "int": packed(1),
    "nil": packed(None),
    "string": packed("hello"),
    "binary": packed(b"hello"),
    "list": packed(["hello"]),
    "list-of-map": packed([{"type": "hello"}]),
    "float": packed(1.5),
    "bool": packed(True),
    "no-type": packed({"version": 1, "name": "ann"}),
    "empty-map": packed({}),
    "type-int": packed({"type": 1}),
    "type-nil": packed({"type": None}),
    "type-list": packed({"type": ["hello"]}),
    "type-map": packed({"type": {"hello": 1}}),
    "type-bin": packed({"type": b"hello", "version": 1, "name": "ann"}),
    "type-bool": packed({"type": True}),
    "int-key": packed({"type": "ping", 1: 2}),
    "int-key-only": packed({1: "ping"}),
    "nil-key": packed({"type": "ping", None: 1}),
    "float-key": packed({"type": "ping", 1.5: 1}),
    "bool-key": packed({"type": "ping", True: 1}),
    "array-key": packed({"type": "ping", (1, 2): 1}),
    "nested-int-key": packed({"type": "state", "table": 1, "view": {1: 2}, "events": []}),
    "deep-int-key": packed({"type": "tables", "tables": [{"seats": [{0: 1}]}]}),
    "ext": packed({"type": "ping", "nonce": msgpack.ExtType(1, b"x")}),
    "ext-type": packed({"type": msgpack.ExtType(0, b"hello")}),
    "ext-nested": packed({"type": "act", "action": [msgpack.ExtType(127, b"")]}),
    "ext-negative": frame(b"\x82\xa4type\xa4ping\xa5nonce\xd7\xfb" + bytes(8)),
    "timestamp-bad-length": frame(b"\x82\xa4type\xa4ping\xa5nonce\xd4\xff\x00"),
    "ext-body": packed(msgpack.ExtType(2, b"{}")),
    "garbage-c1": frame(b"\xc1"),
    "garbage-text": frame(b"hello, world"),
    "empty": frame(b""),
    "truncated-map": frame(msgpack.packb({"type": "ping", "nonce": 1})[:-1]),
    "truncated-str": frame(b"\x81\xa4type\xdb\x00\x01\x00\x00abc"),
    "huge-array-claim": frame(b"\xdd\xff\xff\xff\xff"),
    "huge-map-claim": frame(b"\xdf\xff\xff\xff\xff"),
    "huge-bin-claim": frame(b"\xc6\xff\xff\xff\xff"),
    "two-objects": frame(msgpack.packb({"type": "ping", "nonce": 1}) + msgpack.packb({"type": "bye"})),
    "trailing-byte": frame(msgpack.packb({"type": "ping", "nonce": 1}) + b"\x00"),
    "bad-utf8-str": frame(b"\x81\xa4type\xa2\xff\xfe"),
    "bad-utf8-key": frame(b"\x82\xa4type\xa4ping\xa2\xc3\x28\x01"),
    "surrogate-utf8": frame(b"\x81\xa4type\xa3\xed\xa0\x80"),
    "deep-nesting": frame(b"\x81\xa4type" + b"\x91" * 8_000 + b"\xc0"),  # within a client's frame
    "deep-map-nesting": frame(b"\x81\xa4type" + b"\x81\xa1k" * 2_700 + b"\xc0"),
    # A key twice: msgpack keeps the last, and a reader keeping the first would read a ping.
    "duplicate-type": frame(b"\x82\xa4type\xa4ping\xa4type\xa5hello"),
    "duplicate-nested-key": frame(b"\x82\xa4type\xa4ping\xa5nonce\x82\xa1a\x01\xa1a\x02"),
}


@pytest.mark.parametrize("data", NOT_A_FRAME_BODY.values(), ids=NOT_A_FRAME_BODY.keys())
def test_malformed_bodies_are_refused_and_the_next_frame_still_decodes(data: bytes) -> None:
    assert len(data) <= MAX_FRAME + 4
    good = encode_frame(Ping(nonce=9).to_wire())
    decoder = FrameDecoder()
    decoder.receive_data(data + good)
    with pytest.raises(ProtocolError) as info:
        decoder.next_frame()
    assert info.value.code == "bad-frame"
    assert info.value.fatal is False
    assert info.value.message and info.value.message == str(info.value)
    assert decoder.next_frame() == Ping(nonce=9).to_wire()
    with pytest.raises(ProtocolError) as direct:
        decode_body(data[4:])
    assert direct.value.code == "bad-frame" and not direct.value.fatal


@pytest.mark.parametrize("data", NOT_A_FRAME_BODY.values(), ids=NOT_A_FRAME_BODY.keys())
def test_malformed_bodies_do_not_disturb_a_connection(data: bytes) -> None:
    connection = Connection(SERVER)
    connection.receive_data(data)
    with pytest.raises(ProtocolError) as info:
        connection.next_event()
    assert not info.value.fatal
    assert connection.state is ConnectionState.HELLO
    connection.receive_data(encode_frame(FIRST[Hello].to_wire()))
    assert connection.next_event() == FIRST[Hello]


def test_ext_type_errors_say_so() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_body(msgpack.packb({"type": "ping", "nonce": msgpack.ExtType(1, b"x")}))
    assert "extension" in info.value.message


@pytest.mark.parametrize(
    "body",
    [
        {"type": "ping", "nonce": msgpack.Timestamp(0, 0)},
        {"type": "act", "action": msgpack.Timestamp(1_700_000_000, 5)},
        {"type": "create_table", "game": "notty", "seats": 2, "bots": [msgpack.Timestamp(2**40, 0)]},
        {"type": "hint", "text": "", "data": {"when": msgpack.Timestamp(0, 0)}},
        {"type": "hello", "version": 1, "name": "ann", "when": msgpack.Timestamp(-1, 0)},
    ],
    ids=["int-field", "str-field", "nested", "game-data", "unknown-field"],
)
def test_timestamps_are_refused_and_the_next_frame_still_decodes(body: dict[str, Any]) -> None:
    """A msgpack timestamp is an extension type (-1): it never becomes a message field."""
    connection = Connection(SERVER)
    connection.receive_data(packed(body) + encode_frame(FIRST[Hello].to_wire()))
    with pytest.raises(ProtocolError) as info:
        connection.next_event()
    assert not info.value.fatal
    assert connection.next_event() == FIRST[Hello]


def test_decode_body_refuses_timestamps() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_body(msgpack.packb({"type": "ping", "nonce": msgpack.Timestamp(0, 0)}))
    assert info.value.code == "bad-frame"


def test_binary_keys_are_refused_by_a_connection() -> None:
    """strict_map_key=True still admits bin keys; they must not become fields."""
    bodies = [
        {"type": "ping", b"nonce": 1},
        {"type": "ping", "nonce": 1, b"nonce": 2},
        {"type": "state", "table": 1, "view": {**VIEW_VALUE, b"seat": 0}, "events": []},
        {"type": "state", "table": 1, "view": {**VIEW_VALUE, "body": {b"hands": []}}, "events": []},
    ]
    for body, sender in zip(bodies, (CLIENT, CLIENT, SERVER, SERVER), strict=True):
        connection = Connection(SERVER if sender is CLIENT else CLIENT)
        connection.receive_data(packed(body))
        with pytest.raises(ProtocolError) as info:
            connection.next_event()
        assert info.value.code in ("bad-frame", "bad-message") and not info.value.fatal


def test_decode_body_refuses_binary_keys() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_body(msgpack.packb({"type": "ping", b"nonce": 1}, use_bin_type=True))
    assert info.value.code == "bad-frame"


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (msgpack.packb({"type": "ping", 1: 2}), "map keys must be strings"),
        (msgpack.packb({"type": "ping", 1.5: 2}), "map keys must be strings"),
        (b"", "a frame's body is empty: it must hold a map"),
        (msgpack.packb({"type": "ping"})[:-2], "frame is not valid msgpack: it ends inside a value"),
    ],
)
def test_a_bad_body_is_told_what_is_wrong_in_words(payload: bytes, said: str) -> None:
    """An audit sent a map with an integer key and an empty body, and read "frame is not valid
    msgpack (ValueError)" for both: the name of a Python exception, not what was wrong."""
    with pytest.raises(ProtocolError) as info:
        decode_body(payload)
    assert info.value.code == "bad-frame" and info.value.message == said


def test_raw_bytes_where_text_is_expected() -> None:
    body = {"type": "act", "action": b"end"}
    connection = Connection(SERVER)
    connection.receive_data(packed(body))
    with pytest.raises(ProtocolError) as info:
        connection.next_event()
    assert info.value.code == "bad-message" and "act.action" in info.value.message
    # Packed the old way (no bin type), bytes are str: then they are text.
    assert message_from_wire(
        decode_body(msgpack.packb({"type": "act", "action": b"end"}, use_bin_type=False)), CLIENT
    ) == Act(action="end")


# --------------------------------------------------------------------------- messages: every field


def _refuses(call: Callable[[], Any], where: str, word: str) -> str | None:
    """None if ``call`` raised a non-fatal bad-message naming ``where`` (and ``word``), else the problem."""
    try:
        result = call()
    except ProtocolError as error:
        if error.code != "bad-message" or error.fatal:
            return f"code {error.code!r} fatal={error.fatal}: {error.message}"
        if where not in error.message or word not in error.message:
            return f"error does not name {where!r} {word!r}: {error.message}"
        return None
    return f"accepted as {result!r:.200}"


@pytest.mark.parametrize(("cls", "name"), FIELD_CASES, ids=FIELD_IDS)
def test_field_accepts_its_values(cls: type[Message], name: str) -> None:
    for value in FIELDS[cls][name].good:
        body = {**full_body(cls), name: value}
        received = message_from_wire(body, cls.SENDER)
        assert type(received) is cls
        assert getattr(received, name) == plain(value)
        built = cls(**kwargs_of(body))
        assert built == received
        wire = received.to_wire()
        if len(msgpack.packb(wire, use_bin_type=True)) <= MAX_FRAME:
            assert message_from_wire(decode_all(encode_frame(wire))[0], cls.SENDER) == received


@pytest.mark.parametrize(("cls", "name"), FIELD_CASES, ids=FIELD_IDS)
def test_field_refuses_wrong_values_and_names_the_field(cls: type[Message], name: str) -> None:
    problems = []
    for bad in FIELDS[cls][name].bad:
        where = f"{cls.TYPE}.{name}{bad.path}"
        body = {**full_body(cls), name: bad.value}
        for how, call in (
            ("from the wire", lambda body=body: message_from_wire(body, cls.SENDER)),
            ("built locally", lambda body=body: cls(**kwargs_of(body))),
        ):
            problem = _refuses(call, where, bad.word)
            if problem:
                problems.append(f"{where} = {bad.value!r:.80} {how}: {problem}")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize(("cls", "name"), FIELD_CASES, ids=FIELD_IDS)
def test_wrong_values_over_the_wire_are_not_fatal(cls: type[Message], name: str) -> None:
    """The same refusals through a Connection: non-fatal, and the next frame is read."""
    receiver = Connection(SERVER if cls.SENDER is CLIENT else CLIENT)
    follow = (
        Hello(version=PROTOCOL_VERSION, name="ann")
        if cls.SENDER is CLIENT
        else Welcome(version=PROTOCOL_VERSION, server="s", limits=LIMITS_VALUE)
    )
    follow_frame = encode_frame(follow.to_wire())
    checked = 0
    for bad in FIELDS[cls][name].bad:
        try:
            data = packed({**full_body(cls), name: bad.value})
        except (OverflowError, TypeError, ValueError):
            continue  # not representable in msgpack (e.g. 2**64)
        largest, most = (
            (MAX_CLIENT_FRAME, MAX_CLIENT_ITEMS) if cls.SENDER is CLIENT else (MAX_FRAME, MAX_ITEMS)
        )
        if len(data) > largest + 4:
            continue
        receiver.receive_data(data)
        with pytest.raises(ProtocolError) as info:
            receiver.next_event()
        assert not info.value.fatal
        assert receiver.state is ConnectionState.HELLO
        checked += 1
        if not _text_keys_only(bad.value):  # msgpack's strict_map_key: refused as a frame
            assert info.value.code == "bad-frame", (bad, info.value.message)
            continue
        if _most_items(bad.value) > most:  # refused as msgpack reads the length, before the field
            assert info.value.code == "bad-frame", (bad, info.value.message)
            assert f"more than {most} items" in info.value.message
            continue
        assert info.value.code == "bad-message", (bad, info.value.message)
        assert f"{cls.TYPE}.{name}{bad.path}" in info.value.message
    assert checked
    receiver.receive_data(follow_frame)
    assert receiver.next_event() == follow


def _most_items(value: Any) -> int:
    """The most items of any list or map in ``value``."""
    if isinstance(value, Mapping):
        return max([len(value), *(_most_items(item) for item in value.values())])
    if isinstance(value, list | tuple):
        return max([len(value), *(_most_items(item) for item in value)])
    return 0


def _text_keys_only(value: Any) -> bool:
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and _text_keys_only(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return all(_text_keys_only(item) for item in value)
    return True


@pytest.mark.parametrize("cls", list(FIELDS), ids=[f"{c.TYPE}-{c.SENDER.value}" for c in FIELDS])
def test_missing_fields(cls: type[Message]) -> None:
    defaults = DEFAULTS.get(cls, {})
    for name in FIELDS[cls]:
        body = {k: v for k, v in full_body(cls).items() if k != name}
        if name in defaults:
            received = message_from_wire(body, cls.SENDER)
            assert getattr(received, name) == defaults[name]
            assert getattr(cls(**kwargs_of(body)), name) == defaults[name]
        else:
            with pytest.raises(ProtocolError) as info:
                message_from_wire(body, cls.SENDER)
            assert info.value.code == "bad-message" and not info.value.fatal
            assert cls.TYPE in info.value.message and name in info.value.message
            assert "missing" in info.value.message
            with pytest.raises((ProtocolError, TypeError)):
                cls(**kwargs_of(body))
    # Only the documented fields may be left out.
    minimal = {k: v for k, v in full_body(cls).items() if k not in defaults}
    assert type(message_from_wire(minimal, cls.SENDER)) is cls


@pytest.mark.parametrize("cls", list(FIELDS), ids=[f"{c.TYPE}-{c.SENDER.value}" for c in FIELDS])
@pytest.mark.parametrize("extra", ["colour", "Type", "", "version2", "nonce ", "é"])
def test_unknown_fields_are_refused(cls: type[Message], extra: str) -> None:
    if extra in FIELDS[cls]:
        pytest.skip("a real field")
    with pytest.raises(ProtocolError) as info:
        message_from_wire({**full_body(cls), extra: 1}, cls.SENDER)
    assert info.value.code == "bad-message" and not info.value.fatal
    assert cls.TYPE in info.value.message and "unknown" in info.value.message
    if extra:
        assert extra in info.value.message or ascii(extra) in info.value.message


def test_unknown_field_of_another_type_is_refused() -> None:
    for body in ({"type": "ping", "nonce": 1, 5: 1}, {"type": "ping", "nonce": 1, None: 1}):
        with pytest.raises(ProtocolError) as info:
            message_from_wire(body, CLIENT)
        assert info.value.code == "bad-message"


@pytest.mark.parametrize(
    ("body", "sender"),
    [
        ({"type": "welcome", "version": 1, "server": "s"}, CLIENT),
        ({"type": "hello", "version": 1, "name": "ann"}, SERVER),
        ({"type": "nope"}, CLIENT),
        ({"type": "nope"}, SERVER),
        ({"type": ""}, CLIENT),
        ({"type": "HELLO", "version": 1, "name": "ann"}, CLIENT),
        ({"type": "hello "}, CLIENT),
        ({"type": "__class__"}, CLIENT),
        ({"type": 1}, CLIENT),
        ({}, SERVER),
    ],
)
def test_unknown_message_types(body: dict[str, Any], sender: Sender) -> None:
    with pytest.raises(ProtocolError) as info:
        message_from_wire(body, sender)
    assert info.value.code == "unknown-message" and not info.value.fatal
    known = sorted(cls.TYPE for (s, _), cls in MESSAGES.items() if s is sender)
    assert all(t in info.value.message for t in known)


def test_hint_means_a_request_from_a_client_and_an_answer_from_the_server() -> None:
    assert message_from_wire({"type": "hint"}, CLIENT) == AskHint()
    with pytest.raises(ProtocolError) as info:
        message_from_wire({"type": "hint"}, SERVER)
    assert info.value.code == "bad-message"
    with pytest.raises(ProtocolError):
        message_from_wire({"type": "hint", "text": "", "actions": [], "data": {}}, CLIENT)


@pytest.mark.parametrize(
    ("build", "where"),
    [
        (lambda: Hello(version=True, name="ann"), "hello.version"),
        (lambda: Hello(version=1, name="ann\n"), "hello.name"),
        (lambda: Hello(version=1, name="ann", token="short"), "hello.token"),
        (lambda: Join(table=0), "join.table"),
        (lambda: Join(table=1, seat=8), "join.seat"),
        (lambda: Ping(nonce=2**32), "ping.nonce"),
        (lambda: Ping(nonce=-1), "ping.nonce"),
        (lambda: Ping(nonce=1.0), "ping.nonce"),
        (lambda: CreateTable(game="notty", seats=True), "create_table.seats"),
        (lambda: CreateTable(game="notty", seats=9), "create_table.seats"),
        (lambda: CreateTable(game="Notty", seats=2), "create_table.game"),
        (lambda: CreateTable(game="notty", seats=2, variant=""), "create_table.variant"),
        (lambda: CreateTable(game="notty", seats=2, bots="greedy"), "create_table.bots"),
        (lambda: CreateTable(game="notty", seats=2, bots=None), "create_table.bots"),
        (lambda: CreateTable(game="notty", seats=2, bots=["a"] * 9), "create_table.bots"),
        (lambda: CreateTable(game="notty", seats=2, options=None), "create_table.options"),
        (
            lambda: CreateTable(game="notty", seats=2, options={"level": ["hard"]}),
            "create_table.options.level",
        ),
        (lambda: CreateTable(game="notty", seats=2, options={"level": 1.5}), "create_table.options.level"),
        (lambda: Act(action=""), "act.action"),
        (lambda: Act(action="a" * 401), "act.action"),
        (lambda: Act(action="   "), "act.action"),
        (lambda: Act(action=" end"), "act.action"),
        (lambda: Act(action="end "), "act.action"),
        (lambda: State(table=1, view={**VIEW_VALUE, "legal": [" "]}, events=[]), "state.view.legal[0]"),
        (lambda: Hint(text="", actions=["draw 1", ""]), "hint.actions[1]"),
        (lambda: Seated(table=1, seat=None, token=TOKEN_VALUE), "seated.seat"),
        (lambda: State(table=1, view={**VIEW_VALUE, "turn": 0}, events=[]), "state.view.turn"),
        (lambda: State(table=1, view={**VIEW_VALUE, "current": 8}, events=[]), "state.view.current"),
        (lambda: State(table=1, view={**VIEW_VALUE, "names": EIGHT * 2}, events=[]), "state.view.names"),
        (
            lambda: State(table=1, view={**VIEW_VALUE, "body": {"hands": [["R1", 1.5]]}}, events=[]),
            "state.view.body.hands[0][1]",
        ),
        (lambda: State(table=1, view={**VIEW_VALUE, "body": []}, events=[]), "state.view.body"),
        (
            lambda: State(
                table=1, view={**VIEW_VALUE, "result": {**RESULT_VALUE, "ranking": [[8]]}}, events=[]
            ),
            "state.view.result.ranking[0][0]",
        ),
        (lambda: State(table=1, view={**VIEW_VALUE, "result": {}}, events=[]), "state.view.result"),
        (lambda: State(table=1, view=VIEW_VALUE, events=[{"kind": "drew"}]), "state.events[0]"),
        (
            lambda: State(table=1, view=VIEW_VALUE, events=[{"kind": "x", "text": 1, "data": {}}]),
            "state.events[0].text",
        ),
        (
            lambda: State(table=1, view=VIEW_VALUE, events=[{"kind": "x", "text": "", "data": {"": 1}}]),
            "state.events[0].data",
        ),
        (lambda: Welcome(version=3, server="s", games=[{}], limits=LIMITS_VALUE), "welcome.games[0]"),
        (
            lambda: Welcome(
                version=3, server="s", games=[{**NOTTY_INFO, "bots": ["Expert"]}], limits=LIMITS_VALUE
            ),
            "welcome.games[0].bots[0]",
        ),
        (lambda: Welcome(version=8, server="s", limits={**LIMITS_VALUE, "rate": 20}), "welcome.limits"),
        (
            lambda: Welcome(version=8, server="s", limits={**LIMITS_VALUE, "rate_per_1000s": 20.0}),
            "welcome.limits.rate_per_1000s",
        ),
        (lambda: Tables(tables=[{**INFO, "seats": [{"name": "a"}]}]), "tables.tables[0].seats[0]"),
        (lambda: Hint(text="x", data={"outs": [{"card": "R1", "gain": 0.5}]}), "hint.data.outs[0].gain"),
        (lambda: Hint(text="x", actions=["end"] * 51), "hint.actions"),
        (lambda: Hint(text="x", data=None), "hint.data"),
        (lambda: Error(code="Bad", message="m"), "error.code"),
        (lambda: Goodbye(reason=""), "goodbye.reason"),
    ],
)
def test_building_an_invalid_message_locally_raises(build: Callable[[], Message], where: str) -> None:
    with pytest.raises(ProtocolError) as info:
        build()
    assert info.value.code == "bad-message"
    assert where in info.value.message


def test_positional_and_missing_arguments() -> None:
    assert Join(5) == Join(table=5, seat=None)
    with pytest.raises(TypeError):
        Join()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Ping(nonce=1, colour="R")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "code",
    [
        "frame-too-large", "too-much-data", "version", "bad-frame", "unknown-message",
        "bad-message", "hello-first", "not-now", "illegal-action",
    ],
)  # fmt: skip
def test_every_documented_error_code_fits_an_error_message(code: str) -> None:
    assert Error(code=code, message="x").code == code


def test_a_deeply_nested_value_is_refused_not_recursed() -> None:
    deep: Any = "R1"
    for _ in range(5000):
        deep = [deep]
    for body, sender in (
        ({"type": "hint", "text": "", "data": {"best": deep}}, SERVER),
        ({"type": "state", "table": 1, "view": {**VIEW_VALUE, "body": {"b": deep}}, "events": []}, SERVER),
        ({"type": "create_table", "game": "notty", "seats": 2, "options": {"o": deep}}, CLIENT),
        ({"type": "act", "action": deep}, CLIENT),
        ({"type": "state", "table": 1, "view": {**VIEW_VALUE, "legal": deep}, "events": []}, SERVER),
    ):
        with pytest.raises(ProtocolError) as info:
            message_from_wire(body, sender)
        assert info.value.code == "bad-message"


# --------------------------------------------------------------------------- the connection state machine

S = ConnectionState
MODEL_STATES = ("hello", "lobby", "seated", "watching", "closed")

#: The state table of docs/PROTOCOL.md, by message type.
MODEL_CLIENT_MAY_SEND = {
    "hello": {"hello"},
    "lobby": {"list_tables", "create_table", "join", "watch", "ping", "bye"},
    "seated": {"list_tables", "start", "leave", "act", "hint", "auto", "autopilot", "resign", "ping", "bye"},
    "watching": {"list_tables", "leave", "hint", "ping", "bye"},
    "closed": set(),
}
MODEL_SERVER_MAY_SEND = {
    "hello": {"welcome", "error", "goodbye"},
    "lobby": {"tables", "seated", "watching", "pong", "error", "goodbye"},
    "seated": {"tables", "state", "notice", "hint", "left", "pong", "error", "goodbye"},
    "watching": {"tables", "state", "notice", "hint", "left", "pong", "error", "goodbye"},
    "closed": {"error", "goodbye"},
}
MODEL_MOVES = {
    (SERVER, "welcome"): "lobby",
    (SERVER, "seated"): "seated",
    (SERVER, "watching"): "watching",
    (SERVER, "left"): "lobby",
    (SERVER, "goodbye"): "closed",
    (CLIENT, "bye"): "closed",
}


def model_may_send(sender: Sender, state: str) -> set[str]:
    return (MODEL_CLIENT_MAY_SEND if sender is CLIENT else MODEL_SERVER_MAY_SEND)[state]


def model_next(message: Message, state: str) -> str:
    return MODEL_MOVES.get((message.SENDER, message.TYPE), state)


def test_state_tables_match_the_document() -> None:
    for state in MODEL_STATES:
        assert {c.TYPE for c in CLIENT_MAY_SEND[S(state)]} == MODEL_CLIENT_MAY_SEND[state]
        assert {c.TYPE for c in SERVER_MAY_SEND[S(state)]} == MODEL_SERVER_MAY_SEND[state]
        assert all(c.SENDER is CLIENT for c in CLIENT_MAY_SEND[S(state)])
        assert all(c.SENDER is SERVER for c in SERVER_MAY_SEND[S(state)])
    assert {s.value for s in ConnectionState} == set(MODEL_STATES)


class Pair:
    """A client Connection and a server Connection, each fed the other's bytes."""

    def __init__(self) -> None:
        self.client = Connection(CLIENT)
        self.server = Connection(SERVER)
        self.state = "hello"  # the model's state

    def ends(self, sender: Sender) -> tuple[Connection, Connection]:
        return (self.client, self.server) if sender is CLIENT else (self.server, self.client)

    def deliver(self, message: Message) -> Message | None:
        sender, receiver = self.ends(message.SENDER)
        data = sender.send(message)
        assert data == encode_frame(message.to_wire())
        self.state = model_next(message, self.state)
        assert sender.state is S(self.state), f"sender after {message.TYPE}"
        receiver.receive_data(data)
        received = receiver.next_event()
        assert received == message
        assert receiver.next_event() is None
        assert receiver.state is sender.state is S(self.state), f"receiver after {message.TYPE}"
        return received

    @classmethod
    def in_state(cls, state: str) -> Pair:
        pair = cls()
        for message in PATHS[state]:
            pair.deliver(message)
        assert pair.client.state is pair.server.state is S(state)
        return pair


HELLO = Hello(version=PROTOCOL_VERSION, name="ann")
WELCOME = Welcome(version=PROTOCOL_VERSION, server="notty 0.1.0", limits=LIMITS_VALUE)
PATHS: dict[str, list[Message]] = {
    "hello": [],
    "lobby": [HELLO, WELCOME],
    "seated": [HELLO, WELCOME, Join(table=1), Seated(table=1, seat=0, token=TOKEN_VALUE)],
    "watching": [HELLO, WELCOME, Watch(table=1), Watching(table=1)],
    "closed": [HELLO, WELCOME, Bye()],
}


def test_a_whole_session() -> None:
    """The documented flows, tracked identically by both sides."""
    pair = Pair()
    steps: list[tuple[Message, str]] = [
        (HELLO, "hello"),
        (WELCOME, "lobby"),
        (ListTables(), "lobby"),
        (Tables(tables=[INFO]), "lobby"),
        (Ping(nonce=1), "lobby"),
        (Pong(nonce=1), "lobby"),
        (CreateTable(game="notty", seats=2, bots=["greedy"]), "lobby"),
        (Seated(table=1, seat=0, token=TOKEN_VALUE), "seated"),
        (FIRST[State], "seated"),
        (AskHint(), "seated"),
        (FIRST[Hint], "seated"),
        (Act(action="draw 4"), "seated"),
        (Error(code="illegal-action", message="draw 1 to 3 cards, not 4", rule="draw-count"), "seated"),
        (Act(action="draw 2"), "seated"),
        (PlayForMe(), "seated"),
        (Autopilot(on=True), "seated"),
        (Autopilot(on=False), "seated"),
        (Start(), "seated"),
        (ListTables(), "seated"),
        (Tables(tables=[]), "seated"),
        (Ping(nonce=2), "seated"),
        (Pong(nonce=2), "seated"),
        (Leave(), "seated"),
        (FIRST[State], "seated"),  # in flight before the server saw leave
        (Left(table=1), "lobby"),
        (Watch(table=1), "lobby"),
        (Watching(table=1), "watching"),
        (FIRST[State], "watching"),
        (AskHint(), "watching"),
        (FIRST[Hint], "watching"),
        (ListTables(), "watching"),
        (Tables(tables=[INFO]), "watching"),
        (Ping(nonce=3), "watching"),
        (Pong(nonce=3), "watching"),
        (Leave(), "watching"),
        (Left(table=1), "lobby"),
        (Join(table=1, seat=1), "lobby"),
        (Error(code="seat-taken", message="seat 1 is taken"), "lobby"),
        (Join(table=1), "lobby"),
        (Seated(table=1, seat=1, token=TOKEN_VALUE), "seated"),
        (Bye(), "closed"),
        (Goodbye(reason="bye"), "closed"),
    ]
    for message, state in steps:
        pair.deliver(message)
        assert pair.client.state is pair.server.state is S(state), message


def test_the_server_may_say_goodbye_in_every_state() -> None:
    for state in MODEL_STATES:
        pair = Pair.in_state(state)
        pair.deliver(Error(code="shutdown", message="the server is stopping"))
        pair.deliver(Goodbye(reason="shutdown"))
        assert pair.client.state is pair.server.state is S.CLOSED


ILLEGAL_RECEIVES = [
    (state, cls)
    for state in MODEL_STATES
    for cls in FIELDS
    if cls.TYPE not in model_may_send(cls.SENDER, state)
]


@pytest.mark.parametrize(
    ("state", "cls"), ILLEGAL_RECEIVES, ids=[f"{s}-{c.SENDER.value}-{c.TYPE}" for s, c in ILLEGAL_RECEIVES]
)
def test_messages_illegal_now_are_refused_and_change_nothing(state: str, cls: type[Message]) -> None:
    pair = Pair.in_state(state)
    sender, receiver = pair.ends(cls.SENDER)
    message = FIRST[cls]
    with pytest.raises(LocalProtocolError):
        sender.send(message)
    assert sender.state is S(state)
    receiver.receive_data(encode_frame(message.to_wire()))  # a peer that ignores its own state machine
    with pytest.raises(ProtocolError) as info:
        receiver.next_event()
    expected = "hello-first" if state == "hello" and cls.SENDER is CLIENT else "not-now"
    assert info.value.code == expected
    assert not info.value.fatal
    assert cls.TYPE in info.value.message
    assert receiver.state is sender.state is S(state)
    # The connection goes on: a legal message is still read.
    legal = [m for m in SAMPLES if m.SENDER is cls.SENDER and m.TYPE in model_may_send(cls.SENDER, state)]
    if legal:
        pair.deliver(legal[0])


SEND_CASES = [(state, cls) for state in MODEL_STATES for cls in FIELDS]


@pytest.mark.parametrize(
    ("state", "cls"), SEND_CASES, ids=[f"{s}-{c.SENDER.value}-{c.TYPE}" for s, c in SEND_CASES]
)
def test_what_each_side_may_send(state: str, cls: type[Message]) -> None:
    pair = Pair.in_state(state)
    message = FIRST[cls]
    own, other = pair.ends(cls.SENDER)
    with pytest.raises(LocalProtocolError):
        other.send(message)  # never the other role's messages
    assert other.state is S(state)
    if cls.TYPE in model_may_send(cls.SENDER, state):
        pair.deliver(message)
        assert pair.state == model_next(message, state)
    else:
        with pytest.raises(LocalProtocolError):
            own.send(message)
        assert own.state is S(state)


def test_a_refused_send_produces_no_bytes_and_leaves_the_stream_clean() -> None:
    pair = Pair.in_state("lobby")
    with pytest.raises(LocalProtocolError):
        pair.client.send(Act(action="end"))
    data = pair.client.send(Ping(nonce=4))
    assert data == encode_frame(Ping(nonce=4).to_wire())


def test_a_message_from_the_wrong_role_is_an_unknown_message() -> None:
    for receiver_role, message in ((SERVER, WELCOME), (CLIENT, HELLO), (SERVER, Pong(nonce=1))):
        receiver = Connection(receiver_role)
        receiver.receive_data(encode_frame(message.to_wire()))
        with pytest.raises(ProtocolError) as info:
            receiver.next_event()
        assert info.value.code == "unknown-message" and not info.value.fatal
        assert receiver.state is S.HELLO


def test_hello_first() -> None:
    server = Connection(SERVER)
    for message in (ListTables(), Join(table=1), Ping(nonce=1), Bye()):
        server.receive_data(encode_frame(message.to_wire()))
        with pytest.raises(ProtocolError) as info:
            server.next_event()
        assert info.value.code == "hello-first" and not info.value.fatal
        assert server.state is S.HELLO
    server.receive_data(encode_frame(HELLO.to_wire()))
    assert server.next_event() == HELLO


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, 7, 8, 10, 65535])
def test_a_client_of_another_version_is_refused_fatally(version: int) -> None:
    server = Connection(SERVER)
    server.receive_data(encode_frame(Hello(version=version, name="ann").to_wire()))
    with pytest.raises(ProtocolError) as info:
        server.next_event()
    assert info.value.code == "version" and info.value.fatal
    assert str(version) in info.value.message
    assert server.state is S.CLOSED
    # It may still say why, and goodbye; nothing else.
    assert server.send(Error(code="version", message=info.value.message[:500])) == encode_frame(
        Error(code="version", message=info.value.message[:500]).to_wire()
    )
    server.send(Goodbye(reason="version"))
    for message in (WELCOME, Tables(tables=[]), Pong(nonce=1)):
        with pytest.raises(LocalProtocolError):
            server.send(message)
    assert server.state is S.CLOSED
    # And it no longer takes requests.
    server.receive_data(encode_frame(ListTables().to_wire()))
    with pytest.raises(ProtocolError):
        server.next_event()
    assert server.state is S.CLOSED


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, 7, 8, 10, 65535])
def test_a_server_of_another_version_is_refused_fatally(version: int) -> None:
    """Its version, not its fields, is what is wrong: a welcome before version 8 says no limits."""
    pair = Pair()
    pair.deliver(HELLO)
    pair.client.receive_data(encode_frame({"type": "welcome", "version": version, "server": "old"}))
    with pytest.raises(ProtocolError) as info:
        pair.client.next_event()
    assert info.value.code == "version" and info.value.fatal
    assert pair.client.state is S.CLOSED
    for message in (ListTables(), Bye(), HELLO):
        with pytest.raises(LocalProtocolError):
            pair.client.send(message)


def test_versions_outside_the_field_range_are_bad_messages() -> None:
    for version in (0, 65536, -1):
        server = Connection(SERVER)
        server.receive_data(packed({"type": "hello", "version": version, "name": "ann"}))
        with pytest.raises(ProtocolError) as info:
            server.next_event()
        assert info.value.code == "bad-message" and "hello.version" in info.value.message


def test_hello_and_welcome_are_only_the_first_messages() -> None:
    pair = Pair.in_state("lobby")
    with pytest.raises(LocalProtocolError):
        pair.client.send(HELLO)
    with pytest.raises(LocalProtocolError):
        pair.server.send(WELCOME)
    pair.server.receive_data(encode_frame(HELLO.to_wire()))
    with pytest.raises(ProtocolError) as info:
        pair.server.next_event()
    assert info.value.code == "not-now"
    pair.client.receive_data(encode_frame(WELCOME.to_wire()))
    with pytest.raises(ProtocolError) as info:
        pair.client.next_event()
    assert info.value.code == "not-now"
    assert pair.client.state is pair.server.state is S.LOBBY


@pytest.mark.parametrize("state", MODEL_STATES[:-1])
@pytest.mark.parametrize(
    "poison",
    [struct.pack(">I", MAX_FRAME + 1), bytes(LIMIT + 1)],
    ids=["frame-too-large", "too-much-data"],
)
def test_after_a_fatal_framing_error_only_error_and_goodbye(state: str, poison: bytes) -> None:
    pair = Pair.in_state(state)
    with pytest.raises(ProtocolError) as info:
        pair.server.receive_data(poison)
    assert info.value.fatal
    assert pair.server.state is S.CLOSED
    pair.client.receive_data(pair.server.send(Error(code=info.value.code, message="closing")))
    assert isinstance(pair.client.next_event(), Error)
    pair.client.receive_data(pair.server.send(Goodbye(reason=info.value.code)))
    assert isinstance(pair.client.next_event(), Goodbye)
    assert pair.client.state is pair.server.state is S.CLOSED
    with pytest.raises(LocalProtocolError):
        pair.server.send(Pong(nonce=1))
    with pytest.raises(ProtocolError) as again:
        pair.server.receive_data(encode_frame(Ping(nonce=1).to_wire()))
    assert again.value.fatal


def test_a_client_hit_by_a_fatal_framing_error_is_closed() -> None:
    pair = Pair.in_state("seated")
    with pytest.raises(ProtocolError):
        pair.client.receive_data(struct.pack(">I", 2**32 - 1))
    assert pair.client.state is S.CLOSED
    with pytest.raises(LocalProtocolError):
        pair.client.send(Act(action="end"))


@pytest.mark.parametrize("state", ["lobby", "seated", "watching"])
def test_non_fatal_errors_change_no_state(state: str) -> None:
    pair = Pair.in_state(state)
    for data in (packed({"type": "ping", "nonce": -1}), packed([1]), packed({"type": "nope"})):
        pair.server.receive_data(data)
        with pytest.raises(ProtocolError) as info:
            pair.server.next_event()
        assert not info.value.fatal
        assert pair.server.state is S(state)
    pair.deliver(Ping(nonce=5))
    pair.deliver(Pong(nonce=5))


def test_frames_after_bye_in_the_same_chunk_are_still_read() -> None:
    pair = Pair.in_state("lobby")
    data = pair.client.send(Bye())
    pair.server.receive_data(data + encode_frame(Ping(nonce=1).to_wire()) + encode_frame(Bye().to_wire()))
    assert pair.server.next_event() == Bye()
    for _ in range(2):
        with pytest.raises(ProtocolError) as info:
            pair.server.next_event()
        assert info.value.code == "not-now"
    assert pair.server.next_event() is None
    assert pair.server.state is S.CLOSED


def test_bye_closes_and_later_messages_are_not_now() -> None:
    pair = Pair.in_state("seated")
    pair.deliver(Bye())
    # Replies already on their way when the server read bye: the client refuses them without closing harder.
    pair.client.receive_data(encode_frame(FIRST[State].to_wire()))
    with pytest.raises(ProtocolError) as info:
        pair.client.next_event()
    assert info.value.code == "not-now" and not info.value.fatal
    pair.deliver(Goodbye(reason="bye"))
    pair.server.receive_data(encode_frame(Ping(nonce=1).to_wire()))
    with pytest.raises(ProtocolError) as info:
        pair.server.next_event()
    assert info.value.code == "not-now"


@pytest.mark.parametrize("state", MODEL_STATES)
def test_an_oversized_message_is_refused_when_sent_and_moves_nothing(state: str) -> None:
    """A message valid field by field can still exceed a frame: sending it raises and sends nothing."""
    big_tables = Tables(tables=[INFO] * 2000)
    pair = Pair.in_state(state)
    if "tables" in model_may_send(SERVER, state):
        with pytest.raises((ProtocolError, LocalProtocolError)):
            pair.server.send(big_tables)
        assert pair.server.state is S(state)
        pair.deliver(Tables(tables=[INFO]))


@settings(max_examples=150)
@given(st.lists(st.sampled_from(SAMPLES), max_size=40))
def test_random_walks_agree_with_the_document(messages: list[Message]) -> None:
    """Any sequence: each message is sent if the document allows it now, else refused by both ends."""
    pair = Pair()
    for message in messages:
        sender, receiver = pair.ends(message.SENDER)
        if message.TYPE in model_may_send(message.SENDER, pair.state):
            pair.deliver(message)
            continue
        with pytest.raises(LocalProtocolError):
            sender.send(message)
        receiver.receive_data(encode_frame(message.to_wire()))
        with pytest.raises(ProtocolError) as info:
            receiver.next_event()
        assert info.value.code in ("not-now", "hello-first") and not info.value.fatal
        assert sender.state is receiver.state is S(pair.state)


# --------------------------------------------------------------------------- many games (version 3)


def test_the_welcome_lists_the_games_a_server_hosts() -> None:
    """What the registry says of each game fits the welcome, and a client reads it back unchanged."""
    from games import GAMES, describe

    welcome = Welcome(
        version=PROTOCOL_VERSION,
        server="notty 0.1.0",
        games=[describe(game) for game in GAMES.values()],
        limits=LIMITS_VALUE,
    )
    pair = Pair()
    pair.deliver(HELLO)
    received = pair.deliver(welcome)
    assert isinstance(received, Welcome)
    assert [game["name"] for game in received.games] == list(GAMES)
    notty = received.games[0]
    assert notty["name"] == "notty"
    assert {variant["name"] for variant in notty["variants"]} == {"classic", "five-colour"}
    assert "expert" in notty["bots"]
    assert {option["name"]: option["default"] for option in notty["options"]} == {
        "level": "medium",
        "turn_limit": 0,
        "quiet_rounds": 3,
        "hand_limit": 20,
        "cards_dealt": 0,
        "shortest_run": 0,
        "smallest_set": 0,
        "draw_and_discard": "preset",
        "last_card_stolen_wins": "preset",
    }


def test_a_welcome_without_games_lists_none() -> None:
    body = {"type": "welcome", "version": 3, "server": "s", "limits": LIMITS_VALUE}
    assert message_from_wire(body, SERVER) == Welcome(3, "s", (), limits=LIMITS_VALUE)


def test_create_table_names_a_game_a_variant_seats_bots_and_options() -> None:
    pair = Pair.in_state("lobby")
    request = CreateTable(
        game="notty",
        seats=3,
        variant="five-colour",
        bots=["expert"],
        options={"level": "hard", "turn_limit": 200},
    )
    assert request.to_wire() == {
        "type": "create_table",
        "game": "notty",
        "seats": 3,
        "variant": "five-colour",
        "bots": ["expert"],
        "options": {"level": "hard", "turn_limit": 200},
        "turn_seconds": 0,
        "bot_delay_ms": 1000,
    }
    assert pair.deliver(request) == request
    # Left out: the game's default variant, no bots, the game's default options.
    bare = message_from_wire({"type": "create_table", "game": "notty", "seats": 2}, CLIENT)
    assert isinstance(bare, CreateTable)
    assert (bare.variant, bare.bots, dict(bare.options)) == (None, (), {})


@pytest.mark.parametrize(
    ("options", "where"),
    [
        ({"level": ["hard"]}, "create_table.options.level"),  # options are names to single values
        ({"level": {"is": "hard"}}, "create_table.options.level"),
        ({"level": 1.5}, "create_table.options.level"),
        ({"level": "h" * 65}, "create_table.options.level"),
        ({f"o{i}": 0 for i in range(33)}, "create_table.options"),
        ({"o" * 65: 0}, "create_table.options"),
        ({1: 0}, "create_table.options"),
        ([["level", "hard"]], "create_table.options"),
        ("level=hard", "create_table.options"),
    ],
)
def test_table_options_are_a_small_flat_map(options: Any, where: str) -> None:
    body = {"type": "create_table", "game": "notty", "seats": 2, "options": options}
    with pytest.raises(ProtocolError) as info:
        message_from_wire(body, CLIENT)
    assert info.value.code == "bad-message" and not info.value.fatal
    assert info.value.message.startswith(f"{where}: ")


@pytest.mark.parametrize("seats", range(1, 9))
def test_tables_have_up_to_eight_seats(seats: int) -> None:
    names = EIGHT[:seats]
    assert CreateTable(game="any", seats=seats, bots=["random"] * seats).seats == seats
    assert Join(table=1, seat=seats - 1).seat == seats - 1
    assert Seated(table=1, seat=seats - 1, token=TOKEN_VALUE).seat == seats - 1
    view = {**VIEW_VALUE, "names": names, "seat": seats - 1, "current": seats - 1}
    view["result"] = {"ranking": [[seat] for seat in range(seats)], "reason": "out", "text": "over"}
    pair = Pair.in_state("seated")
    pair.deliver(State(table=1, view=view, events=[]))
    seat_info = {"name": None, "bot": None, "connected": False}
    pair.deliver(Tables(tables=[{**INFO, "seats": [seat_info] * seats}]))


@pytest.mark.parametrize(
    ("build", "where"),
    [
        (lambda: CreateTable(game="any", seats=9), "create_table.seats"),
        (lambda: CreateTable(game="any", seats=0), "create_table.seats"),
        (lambda: CreateTable(game="any", seats=8, bots=["random"] * 9), "create_table.bots"),
        (lambda: Join(table=1, seat=8), "join.seat"),
        (lambda: Seated(table=1, seat=8, token=TOKEN_VALUE), "seated.seat"),
        (lambda: State(table=1, view={**VIEW_VALUE, "names": [*EIGHT, "p8"]}, events=[]), "state.view.names"),
        (lambda: State(table=1, view={**VIEW_VALUE, "seat": 8}, events=[]), "state.view.seat"),
        (
            lambda: Tables(tables=[{**INFO, "seats": [{"name": None, "bot": None, "connected": False}] * 9}]),
            "tables.tables[0].seats",
        ),
    ],
)
def test_a_ninth_seat_is_refused(build: Callable[[], Message], where: str) -> None:
    with pytest.raises(ProtocolError) as info:
        build()
    assert info.value.code == "bad-message" and info.value.message.startswith(f"{where}: ")


def test_a_result_ranks_every_seat() -> None:
    """Places first to last; seats tied share a place; nil while the game goes on."""
    for ranking in ([[0], [1, 2]], [[0, 1, 2]], [[3], [1], [0], [2]], [[seat] for seat in range(8)]):
        result = {"ranking": ranking, "reason": "discard", "text": "over"}
        state = State(table=1, view={**VIEW_VALUE, "result": result, "legal": []}, events=[])
        again = message_from_wire(decode_all(encode_frame(state.to_wire()))[0], SERVER)
        assert isinstance(again, State) and again.view["result"]["ranking"] == plain(ranking)
    assert FIRST[State].view["result"] is None  # type: ignore[attr-defined]
    for result, where in (
        ({"ranking": [[0]], "reason": "discard"}, "state.view.result"),
        (
            {
                "ranking": [[0]],
                "reason": "discard",
                "text": "",
            },
            "state.view.result.text",
        ),
        ({"ranking": [[0]], "reason": "Discard", "text": "x"}, "state.view.result.reason"),
        ({"ranking": [0, 1], "reason": "discard", "text": "x"}, "state.view.result.ranking[0]"),
        ({"ranking": [[0]] * 9, "reason": "discard", "text": "x"}, "state.view.result.ranking"),
        ({"ranking": [[0]], "reason": "discard", "text": "x", "winner": 0}, "state.view.result"),
    ):
        with pytest.raises(ProtocolError) as info:
            State(table=1, view={**VIEW_VALUE, "result": result}, events=[])
        assert info.value.message.startswith(f"{where}: "), info.value.message


# --------------------------------------------------------------------------- versions: a v2 client

#: A version 2 client's first frame, byte for byte (version 2's document gave it in hex).
V2_HELLO = bytes.fromhex(
    "00 00 00 25 84 a4 74 79 70 65 a5 68 65 6c 6c 6f a7 76 65 72 73 69 6f 6e 02"
    " a4 6e 61 6d 65 a3 61 6e 6e a5 74 6f 6b 65 6e c0"
)


def test_a_version_2_client_gets_the_fatal_version_error_and_a_goodbye() -> None:
    server = Connection(SERVER)
    server.receive_data(V2_HELLO + encode_frame(ListTables().to_wire()))
    with pytest.raises(ProtocolError) as info:
        server.next_event()
    assert info.value.code == "version" and info.value.fatal
    assert "2" in info.value.message and str(PROTOCOL_VERSION) in info.value.message
    assert server.state is S.CLOSED
    # error and goodbye have the shape they had in version 2, so the old client reads why.
    data = server.send(Error(code="version", message=info.value.message)) + server.send(
        Goodbye(reason="version")
    )
    assert decode_all(data) == [
        {"type": "error", "code": "version", "message": info.value.message, "rule": None},
        {"type": "goodbye", "reason": "version"},
    ]
    with pytest.raises(LocalProtocolError):
        server.send(WELCOME)
    with pytest.raises(ProtocolError) as after:
        server.next_event()  # what the old client sent next is not read as a request
    assert after.value.code == "not-now"


@pytest.mark.parametrize(
    "body",
    [
        {"type": "hello", "version": 2, "name": "ann", "token": None},
        {"type": "hello", "version": 2, "name": "ann", "token": "k3J_-" * 8},
        {"type": "hello", "version": 2, "name": "ann", "level": "hard"},  # a field this version lacks
        {"type": "hello", "version": 2},  # or without one this version needs
        {"type": "hello", "version": 1, "name": "a" * 100},
        {"type": "hello", "version": 8, "name": "ann", "token": None},  # the last version
        {"type": "hello", "version": 10, "name": "ann", "games": ["notty"], "token": 7},
        {"type": "hello", "version": 65535, "name": None},
    ],
)
def test_a_hello_of_another_version_is_a_version_error_whatever_else_it_holds(body: dict[str, Any]) -> None:
    """The version is read first: a client of another version learns that, not which field it got wrong."""
    server = Connection(SERVER)
    server.receive_data(packed(body))
    with pytest.raises(ProtocolError) as info:
        server.next_event()
    assert info.value.code == "version" and info.value.fatal
    assert str(body["version"]) in info.value.message
    assert server.state is S.CLOSED


@pytest.mark.parametrize(
    "body",
    [
        {"type": "welcome", "version": 2, "server": "notty 0.0.9"},
        {"type": "welcome", "version": 6, "server": "notty 0.1.0", "games": []},
        {"type": "welcome", "version": 7, "server": "notty 0.1.0", "games": []},  # no limits
        {"type": "welcome", "version": 8, "server": "notty 0.1.0", "games": []},  # the last version
        {"type": "welcome", "version": 10, "server": "notty 9", "games": [{"name": "chess"}], "motd": "hi"},
    ],
)
def test_a_welcome_of_another_version_is_a_version_error_whatever_else_it_holds(body: dict[str, Any]) -> None:
    pair = Pair()
    pair.deliver(HELLO)
    pair.client.receive_data(packed(body))
    with pytest.raises(ProtocolError) as info:
        pair.client.next_event()
    assert info.value.code == "version" and info.value.fatal
    assert pair.client.state is S.CLOSED


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ({"type": "hello", "version": 9, "name": "ann", "level": "hard"}, "level"),
        ({"type": "hello", "version": 9}, "name"),
        ({"type": "hello", "version": "2", "name": "ann"}, "hello.version"),
        ({"type": "hello", "version": 2.0, "name": "ann"}, "hello.version"),
        ({"type": "hello", "version": True, "name": "ann"}, "hello.version"),
        ({"type": "hello", "version": None, "name": "ann"}, "hello.version"),
        ({"type": "hello", "name": "ann"}, "version"),
    ],
)
def test_a_hello_of_this_version_or_of_none_is_checked_field_by_field(
    body: dict[str, Any], word: str
) -> None:
    server = Connection(SERVER)
    server.receive_data(packed(body) + encode_frame(HELLO.to_wire()))
    with pytest.raises(ProtocolError) as info:
        server.next_event()
    assert info.value.code == "bad-message" and not info.value.fatal
    assert word in info.value.message
    assert server.next_event() == HELLO


def test_a_late_hello_of_another_version_is_only_not_now() -> None:
    pair = Pair.in_state("seated")
    pair.server.receive_data(V2_HELLO)
    with pytest.raises(ProtocolError) as info:
        pair.server.next_event()
    assert info.value.code == "not-now" and not info.value.fatal
    assert pair.server.state is S.SEATED


# --------------------------------------------------------------------------- game data: the Data spec

#: Text without the characters game data refuses.
PRINTABLE = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="\u2028\u2029")


@attrs.frozen
class DataField:
    """A field holding game data, with the bounds the document gives it."""

    where: str  # as a refusal names it
    depth: int
    most: int
    text: int
    mapping: bool
    sender: Sender
    put: Callable[[Any], dict[str, Any]]  # a whole message body with the value in place


OTHER_OPTION = {"name": "o", "summary": "", "default": 0}
DATA_FIELDS = [
    DataField("hint.data", 6, 1000, 2000, True, SERVER, lambda v: {**full_body(Hint), "data": v}),
    DataField(
        "state.view.body", 6, 1000, 2000, True, SERVER,
        lambda v: {"type": "state", "table": 1, "view": {**VIEW_VALUE, "body": v}, "events": []},
    ),
    DataField(
        "state.events[0].data", 4, 1000, 2000, True, SERVER,
        lambda v: {**full_body(State), "view": VIEW_VALUE, "events": [{**EVENTS_VALUE[0], "data": v}]},
    ),
    DataField(
        "create_table.options", 1, 32, 64, True, CLIENT,
        lambda v: {**full_body(CreateTable), "options": v},
    ),
    DataField(
        "tables.tables[0].options", 1, 32, 64, True, SERVER,
        lambda v: {"type": "tables", "tables": [{**INFO, "options": v}]},
    ),
    DataField(
        "welcome.games[0].options[1].default", 0, 1000, 64, False, SERVER,
        lambda v: {
            "type": "welcome",
            "version": 3,
            "server": "s",
            "games": [{**NOTTY_INFO, "options": [NOTTY_INFO["options"][0], {**OTHER_OPTION, "default": v}]}],
            "limits": LIMITS_VALUE,
        },
    ),
]  # fmt: skip
DATA_IDS = [field.where for field in DATA_FIELDS]


@functools.cache
def game_data(depth: int, text: int, mapping: bool) -> st.SearchStrategy[Any]:
    """Any game data within these bounds (lists and maps kept small)."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**63), 2**64 - 1),
        st.sampled_from([-(2**63), 2**63 - 1, 2**63, 2**64 - 1]),
        st.text(PRINTABLE, max_size=min(text, 10)),
        st.sampled_from(["", "a" * text, "é" * text, "🃏" * text]),
    )
    if depth == 0:
        return leaves
    inner = game_data(depth - 1, text, False)
    keys = st.one_of(
        st.text(PRINTABLE, min_size=1, max_size=8), st.sampled_from(["k" * 64, "🃏" * 64, "type"])
    )
    maps = st.dictionaries(keys, inner, max_size=3)
    return maps if mapping else st.one_of(leaves, st.lists(inner, max_size=3), maps)


def _path_text(path: tuple[Any, ...]) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


def _placed(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """``value`` with ``new`` at ``path`` (a list index one past the end appends, a new key adds)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _placed(value.get(head), rest, new)}
    copy = list(value)
    if head == len(copy):
        copy.append(None)
    copy[head] = _placed(copy[head], rest, new)
    return copy


def _slots(value: Any, path: tuple[Any, ...], depth: int) -> Iterable[tuple[tuple[Any, ...], int]]:
    """Every place in ``value`` a value could go (each item, one more item of each list and map),
    with the depth the spec still allows there."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield (*path, index), depth - 1
            yield from _slots(item, (*path, index), depth - 1)
        yield (*path, len(value)), depth - 1
    elif isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key), depth - 1
            yield from _slots(item, (*path, key), depth - 1)
        yield (*path, "new-key"), depth - 1


def _maps(value: Any, path: tuple[Any, ...] = ()) -> Iterable[tuple[Any, ...]]:
    if isinstance(value, dict):
        yield path
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for step, item in items:
            yield from _maps(item, (*path, step))


@st.composite
def one_fault(draw: st.DrawFn, field: DataField) -> tuple[Any, str]:
    """Valid data for ``field`` with one thing wrong in it, and where the refusal must point."""
    value = draw(game_data(field.depth, field.text, field.mapping))
    slots = list(_slots(value, (), field.depth))
    if not field.mapping:
        slots.append(((), field.depth))
    kinds = ["deep", "long-text", "bad-char", "not-data", "out-of-range"]
    maps = list(_maps(value))
    if maps:
        kinds.append("bad-key-here")
    if field.mapping:
        kinds.append("not-a-map")
    kind = draw(st.sampled_from(kinds))
    if kind == "not-a-map":
        top = draw(st.one_of(st.lists(game_data(0, 10, False), max_size=3), game_data(0, 10, False)))
        return top, ""
    if kind == "bad-key-here":
        path = draw(st.sampled_from(maps))
        bad_key = draw(st.one_of(st.sampled_from(BAD_KEYS), st.integers(), st.binary(max_size=3)))
        target: Any = value
        for step in path:
            target = target[step]
        return _placed(value, path, {**target, bad_key: 0}), _path_text(path)
    path, depth = draw(st.sampled_from(slots))
    if depth >= 1:
        kind = draw(st.sampled_from([kind, "long-list", "long-map", "bad-key"]))
    fault: Any
    below = ""
    match kind:
        case "deep":
            fault, below = nest(depth + 1), "[0]" * depth
        case "long-text":
            fault = "a" * (field.text + 1)
        case "bad-char":
            around = draw(st.text(PRINTABLE, max_size=field.text // 2 - 1))
            fault = around + draw(st.sampled_from(CONTROL)) + around
        case "not-data":
            fault = draw(st.one_of(st.sampled_from(NOT_DATA), st.floats(), st.binary()))
        case "out-of-range":
            fault = draw(st.one_of(st.integers(min_value=2**64), st.integers(max_value=-(2**63) - 1)))
        case "long-list":
            fault = [0] * (field.most + 1)
        case "long-map":
            fault = {f"k{i}": 0 for i in range(field.most + 1)}
        case _:  # a map with a key that is not short printable text
            bad_key = draw(
                st.one_of(
                    st.sampled_from(BAD_KEYS),
                    st.integers(),
                    st.text(PRINTABLE, min_size=65, max_size=70),
                    st.builds(lambda a, c: a + c, st.text(PRINTABLE, max_size=5), st.sampled_from(CONTROL)),
                )
            )
            fault = {bad_key: 0}
    return _placed(value, path, fault), _path_text(path) + below


def _built_locally(field: DataField, value: Any) -> Message:
    body = field.put(value)
    return MESSAGES[(field.sender, body["type"])](**kwargs_of(body))


@pytest.mark.parametrize("field", DATA_FIELDS, ids=DATA_IDS)
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_game_data_within_its_bounds_is_accepted_and_round_trips(
    field: DataField, data: st.DataObject
) -> None:
    value = data.draw(game_data(field.depth, field.text, field.mapping))
    body = field.put(value)
    received = message_from_wire(body, field.sender)
    assert received == _built_locally(field, value)
    assert received.to_wire() == body  # lists stay lists on the wire; nothing added, nothing lost
    payload = msgpack.packb(received.to_wire(), use_bin_type=True)
    if len(payload) <= MAX_FRAME:
        assert message_from_wire(decode_body(payload), field.sender) == received
        assert decode_body(payload) == body


@pytest.mark.parametrize("field", DATA_FIELDS, ids=DATA_IDS)
@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_game_data_out_of_bounds_is_refused_naming_where(field: DataField, data: st.DataObject) -> None:
    """Too deep, too long, a key that is not short text, a control character, a type that is not
    data: a non-fatal bad-message naming the field, down to the item at fault."""
    value, below = data.draw(one_fault(field))
    where = field.where + below
    for how, call in (
        ("from the wire", lambda: message_from_wire(field.put(value), field.sender)),
        ("built locally", lambda: _built_locally(field, value)),
    ):
        with pytest.raises(ProtocolError) as info:
            call()
        assert info.value.code == "bad-message" and not info.value.fatal, how
        assert info.value.message.startswith(f"{where}: "), (how, where, info.value.message)
        Error(code=info.value.code, message=info.value.message[:500])  # and it can be passed on
    try:
        payload = msgpack.packb(field.put(value), use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return  # not representable in msgpack: no peer can send it
    try:
        decoded = decode_body(payload)
    except ProtocolError as error:  # keys that are not text never get past the framing
        assert error.code == "bad-frame" and not error.fatal
        return
    with pytest.raises(ProtocolError) as info:
        message_from_wire(decoded, field.sender)
    assert info.value.code == "bad-message" and not info.value.fatal


@pytest.mark.parametrize("field", DATA_FIELDS, ids=DATA_IDS)
def test_game_data_at_its_exact_bounds(field: DataField) -> None:
    """The most items, characters and levels are accepted; one more of any is refused."""
    at_limit: list[Any] = ["a" * field.text, "🃏" * field.text, -(2**63), 2**64 - 1]
    over: list[tuple[Any, str]] = [("a" * (field.text + 1), ""), (2**64, ""), (-(2**63) - 1, "")]
    if field.mapping:
        at_limit = [{"k": item} for item in at_limit] + [{"k": nest(field.depth - 1)}, {"k" * 64: 0}]
        at_limit.append({f"k{i}": 0 for i in range(field.most)})
        over = [({"k": item}, f".k{path}") for item, path in over]
        over += [({"k": nest(field.depth)}, ".k" + "[0]" * (field.depth - 1)), ({"k" * 65: 0}, "")]
        over.append(({f"k{i}": 0 for i in range(field.most + 1)}, ""))
    else:
        at_limit.append(nest(field.depth))
        over.append((nest(field.depth + 1), "[0]" * field.depth))
    for value in at_limit:
        assert message_from_wire(field.put(value), field.sender).to_wire() == field.put(value)
    for value, below in over:
        with pytest.raises(ProtocolError) as info:
            message_from_wire(field.put(value), field.sender)
        assert info.value.message.startswith(f"{field.where}{below}: "), info.value.message


# --------------------------------------------------------------------------- unchecked states


def _notty_states(seed: int, moves: int) -> Iterator[tuple[int | None, dict[str, Any], tuple[Any, ...]]]:
    """A real Notty match played at random: after each move, for every seat and a spectator, the
    envelope a host builds around the game's body, and the events as that viewer sees them."""
    from games.notty.game import GAME

    settings = GAME.settings("five-colour", 3, {})
    match = GAME.new_match(settings, ["ann", "bob", "cy"], random.Random(seed))
    rng = random.Random(seed)
    events: list[Any] = list(match.opening)
    for _ in range(moves + 1):
        outcome = match.outcome()
        for seat in (None, 0, 1, 2):
            view = {
                "game": settings.game,
                "variant": settings.variant,
                "names": list(match.names),
                "seat": seat,
                "current": match.current,
                "turn": match.turn,
                "legal": [] if seat is None else match.legal_actions(seat),
                "result": None if outcome is None else outcome.to_wire(),
                "body": match.view(seat),
            }
            yield seat, view, tuple(match.event(event, seat) for event in events)
        if match.over:
            return
        legal = match.legal_actions(match.current)
        events = list(match.apply(match.current, match.parse_action(rng.choice(legal))).events)


def _same_bytes(table: int, view: Mapping[str, Any], events: tuple[Any, ...]) -> None:
    fast = State.unchecked(table=table, view=view, events=events)
    checked = State(table, view, events)
    data = encode_frame(checked.wire_body())
    assert encode_frame(fast.wire_body()) == data == encode_frame(checked.to_wire())
    assert message_from_wire(decode_all(data)[0], SERVER) == checked


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 80), order=st.randoms(use_true_random=False))
def test_a_state_built_unchecked_is_the_checked_one_byte_for_byte(
    seed: int, moves: int, order: random.Random
) -> None:
    """A host builds states unchecked from its own game: they must pack exactly as the checked
    message does, for every viewer, whatever order the host writes the envelope's keys in."""
    for _, view, events in _notty_states(seed, moves):
        _same_bytes(7, view, events)
        keys = list(view)
        order.shuffle(keys)
        _same_bytes(7, {key: view[key] for key in keys}, events)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    body=game_data(6, 2000, True),
    data=st.lists(game_data(4, 2000, True), max_size=3),
    seat=st.one_of(st.none(), st.integers(0, 7)),
    over=st.booleans(),
    order=st.randoms(use_true_random=False),
)
def test_any_valid_state_built_unchecked_is_the_checked_one_byte_for_byte(
    body: dict[str, Any], data: list[Any], seat: int | None, over: bool, order: random.Random
) -> None:
    result = {"ranking": [[1], [0, 2]], "reason": "out", "text": "bob goes out"} if over else None
    view = {**VIEW_VALUE, "names": EIGHT, "seat": seat, "result": result, "body": body}
    keys = list(view)
    order.shuffle(keys)
    events = tuple({"kind": "moved", "text": f"move {i}", "data": item} for i, item in enumerate(data))
    try:
        encode_frame(State(3, view, events).wire_body())
    except ProtocolError as error:  # more than one frame holds (a few 2,000-emoji strings): never sent
        assert error.code == "frame-too-large"
        assume(False)
    _same_bytes(3, {key: view[key] for key in keys}, events)


@pytest.mark.parametrize("message", SAMPLES, ids=SAMPLE_IDS)
def test_every_sample_built_unchecked_from_its_wire_form_packs_the_same(message: Message) -> None:
    wire = message.to_wire()
    fast = type(message).unchecked(**kwargs_of(wire))
    assert encode_frame(fast.wire_body()) == encode_frame(message.wire_body()) == encode_frame(wire)


def test_an_unchecked_message_still_needs_every_field_and_no_other() -> None:
    with pytest.raises(TypeError, match="needs view"):
        State.unchecked(table=1, events=())
    with pytest.raises(TypeError, match="no field"):
        State.unchecked(table=1, view=VIEW_VALUE, events=(), extra=1)
    assert Pong.unchecked(nonce=3) == Pong(3)
    assert Hint.unchecked(text="t") == Hint(text="t")  # defaults fill in, as for the checked one


# --------------------------------------------------------------------------- errors can be passed on

REFUSED_BODIES = [
    ({"type": "ping", "nonce": "1"}, CLIENT),
    ({"type": "nope" * 1000}, CLIENT),
    ({"type": "ping\n\x00"}, CLIENT),
    ({"type": "act", "action": "x" * 10_000}, CLIENT),
    ({"type": "hello", "version": 1, "name": "\u2028" * 24}, CLIENT),
    ({"type": "join", "table": 1, "k" * 5000: 1}, CLIENT),
    (
        {"type": "state", "table": 1, "view": {**VIEW_VALUE, "names": ["R1", "é\x85" * 30]}, "events": []},
        SERVER,
    ),
    ({"type": "hint", "text": "", "data": {"\u2028" * 64: 1}}, SERVER),
    ({"type": "hint", "text": "", "data": {"k" * 5000: 1}}, SERVER),
    ({"type": "hint", "text": "", "data": {"é\x85" * 20: {"\x00" * 30: 1}}}, SERVER),
    ({"type": "hint", "text": "", "data": {"k": "\x85" * 5000}}, SERVER),
]


@pytest.mark.parametrize(("body", "sender"), REFUSED_BODIES)
def test_refusals_can_be_passed_on_in_an_error_message(body: dict[str, Any], sender: Sender) -> None:
    """A server answers a refusal with error(code, message[:500]): that message must itself be valid."""
    with pytest.raises(ProtocolError) as info:
        message_from_wire(body, sender)
    Error(code=info.value.code, message=info.value.message[:500])


@pytest.mark.parametrize(
    ("body", "sender"),
    [
        ({"type": "ping", "nonce": 1, "a\nb": 1}, CLIENT),
        ({"type": "state", "table": 1, "view": {**VIEW_VALUE, "\x00": 1}, "events": []}, SERVER),
    ],
    ids=["top-level-key", "nested-key"],
)
def test_refusals_naming_unknown_keys_can_be_passed_on(body: dict[str, Any], sender: Sender) -> None:
    with pytest.raises(ProtocolError) as info:
        message_from_wire(body, sender)
    Error(code=info.value.code, message=info.value.message[:500])


# -- what a server reads from clients, and reading a frame's size before its body ---------------------------


def test_the_largest_client_message_the_fields_allow_fits_a_clients_frame() -> None:
    """A create_table with every field at its longest, in four-byte characters where the field allows
    any: the server's smaller limit on clients' frames refuses no message a client may send."""
    wide = "\U0001f0a1"  # a playing card: four bytes of UTF-8
    largest = CreateTable(
        game="g" * 32,
        seats=MAX_SEATS,
        variant="v" * 32,
        bots=["b" * 24] * MAX_SEATS,
        options={f"{n:02}" + wide * 62: wide * 64 for n in range(32)},
        turn_seconds=3600,
        bot_delay_ms=10_000,
    )
    frame = encode_frame(largest.to_wire())
    assert 16 * 1024 < len(frame) - 4 < 17 * 1024 < MAX_CLIENT_FRAME  # as PROTOCOL.md says: under 17 KiB
    server = Connection(SERVER)
    server.receive_data(
        encode_frame(Hello(version=PROTOCOL_VERSION, name="n" * MAX_NAME, token="t" * 64).to_wire())
    )
    assert isinstance(server.next_event(), Hello)
    server.state = ConnectionState.LOBBY  # as once it has said welcome
    server.receive_data(frame)
    assert server.next_event() == largest


def test_a_server_refuses_a_client_frame_over_its_limit_at_the_header_and_a_client_does_not() -> None:
    server, client = Connection(SERVER), Connection(CLIENT)
    client.receive_data(struct.pack(">I", MAX_CLIENT_FRAME + 1))  # a server's frames may be bigger
    with pytest.raises(ProtocolError) as info:
        server.receive_data(struct.pack(">I", MAX_CLIENT_FRAME + 1))
    assert info.value.code == "frame-too-large" and info.value.fatal
    assert f"the limit is {MAX_CLIENT_FRAME}" in info.value.message
    assert server.state is ConnectionState.CLOSED and client.state is ConnectionState.HELLO


@pytest.mark.parametrize("container", ["list", "map"])
def test_a_list_or_map_over_the_senders_bound_is_refused_as_its_length_is_read(container: str) -> None:
    def body(items: int) -> dict[str, Any]:  # 10,000 items fit a frame only if each takes 5 bytes or so
        many = [0] * items if container == "list" else dict.fromkeys(itertools.islice(_keys(), items))
        return {"type": "ping", "nonce": many}

    for receiver, most in ((Connection(SERVER), MAX_CLIENT_ITEMS), (Connection(CLIENT), MAX_ITEMS)):
        receiver.state = ConnectionState.LOBBY
        receiver.receive_data(packed(body(most)))
        with pytest.raises(ProtocolError) as within:  # as many as the bound: read, then refused
            receiver.next_event()
        assert within.value.code != "bad-frame"
        receiver.receive_data(packed(body(most + 1)))
        with pytest.raises(ProtocolError) as over:
            receiver.next_event()
        assert over.value.code == "bad-frame" and not over.value.fatal
        assert over.value.message == f"a list or map in the frame holds more than {most} items"


def _keys() -> Iterator[str]:
    return ("".join(chars) for chars in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=3))


def test_a_frames_size_is_known_before_its_body_is_decoded_and_it_may_be_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import protocol._framing as framing

    decoded: list[int] = []
    real = framing.decode_body

    def counting(payload: bytes, max_items: int = MAX_ITEMS) -> dict[str, Any]:
        decoded.append(len(payload))
        return real(payload, max_items)

    monkeypatch.setattr(framing, "decode_body", counting)
    first, second = packed({"type": "ping", "nonce": 1}), packed({"type": "ping", "nonce": 2})
    connection = Connection(SERVER)
    connection.state = ConnectionState.LOBBY
    connection.receive_data(first + second[:-1])
    assert connection.next_size() == len(first) - 4
    connection.next_size()  # asking again changes nothing
    connection.skip()
    assert connection.next_size() is None  # the second is not all here yet
    connection.skip()  # nothing whole to skip: nothing happens
    connection.receive_data(second[-1:])
    assert connection.next_size() == len(second) - 4
    assert decoded == []
    assert connection.next_event() == Ping(2)
    assert decoded == [len(second) - 4]
