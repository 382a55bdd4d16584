"""The wire protocol (protocol/: framing, field specs, messages, connection), checked against its contract.

The contract (docs/PROTOCOL.md): a frame is a 4-byte big-endian unsigned length and then that many bytes
of one msgpack map with a string key "type"; a header announcing more than 64 KiB is refused as soon as it
arrives; bodies are decoded with raw=False and strict_map_key=True and no extension types; every message is
a frozen class that validates every field (naming the field when it refuses one); a state machine refuses
messages illegal in the current state; the first message of each side carries the protocol version.

The field tables below are written from the document, not read from the code, so a spec that drifts from the
contract breaks them. ``SAMPLES`` and ``FIELDS`` are shared with test_wire_fuzz.py.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import attrs
import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    CLIENT_MAY_SEND,
    MAX_FRAME,
    MESSAGES,
    PROTOCOL_VERSION,
    SERVER_MAY_SEND,
    Act,
    AskHint,
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
    Ping,
    PlayForMe,
    Pong,
    ProtocolError,
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


CONTROL = ("\x00", "\t", "\n", "\r", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\u2028", "\u2029")


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


def OneOf_(*values: str) -> F:
    """Exactly one of these words."""
    near = [v.upper() for v in values] + [v + " " for v in values] + [" " + values[0], values[0] + "\x00"]
    wrong = [None, True, 1, 1.5, values[0].encode(), [values[0]], {values[0]: 1}, "", "expert", "a" * 100]
    return F(values, tuple(Bad(v) for v in [*near, *wrong]))


TABLE_ID = Int_(1, 2**31 - 1)
SEAT = Int_(0, 2)
NAME = Str_(
    1, 24, good=("Ann Lee_1.-", "0", "Z9"), bad=(" ann", "-ann", ".a", "ann!", "änn", "a\u00a0b", "a/b")
)
TOKEN = Str_(32, 64, good=("Ab0_-" * 8,), bad=("a" * 31 + "=", "a" * 31 + " ", "a" * 31 + "+", "é" * 32))
CODE = Str_(1, 40, good=("not-now", "a1-", "z"), bad=("A", "1a", "-a", "a_b", "a b", "é"))
CARD = Str_(
    2,
    3,
    make=lambda n: {2: "R1", 3: "R10"}.get(n, "R" + "1" * (n - 1)),
    good=("Y9", "G5", "B3", "K7", "K10"),
    bad=("r1", "X1", "R0", "R", "R01", "1R", "R 1", "RR", "R1 ", "R100"),
)
CARDS = List_(CARD, 200)
GROUPS = List_(CARDS, 100)
ACTION = Str_(1, 400, good=("discard R3 R4 R5", "draw 2", "é" * 400, "🃏" * 400))
TEXT = Str_(0, 400, good=("ann draws 2 cards: R4 Y9", "é" * 400))

LOWER = Str_(1, 32, good=("classic", "five-colour", "0"), bad=("Classic", "a b", "a_b", "é"))
LEVEL = OneOf_("medium", "easy", "hard")
SEAT_INFO = Map_({"name": nil(NAME), "bot": nil(Str_(1, 16, good=("greedy",))), "connected": Bool_()})
TABLE_INFO = Map_(
    {
        "table": TABLE_ID,
        "preset": Str_(1, 32, good=("classic", "five-colour")),
        "seats": List_(SEAT_INFO, 3),
        "started": Bool_(),
        "over": Bool_(),
        "spectators": Int_(0, 10_000),
        "turn_seconds": Int_(0, 3600),
        "turn_limit": Int_(0, 100_000),
        "level": LEVEL,
    }
)
VIEW = Map_(
    {
        "preset": LOWER,
        "names": List_(NAME, 3),
        "seat": nil(SEAT),
        "hands": List_(CARDS, 3),
        "deck_size": Int_(0, 1000),
        "current": SEAT,
        "turn": Int_(1, 2**31 - 1),
        "drew": Bool_(),
        "stole": Bool_(),
        "exchanged": Bool_(),
        "must_put_back": Bool_(),
        "winner": nil(SEAT),
        "end_reason": nil(CODE),
        "legal": List_(ACTION, 1000),
    }
)
EVENT = Map_(
    {
        "kind": CODE,
        "seat": nil(SEAT),
        "victim": SEAT,
        "cards": CARDS,
        "card": CARD,
        "group": CODE,
        "next_seat": SEAT,
        "turn": Int_(1, 2**31 - 1),
        "winner": nil(SEAT),
        "reason": CODE,
        "text": TEXT,
    },
    omittable=("seat", "victim", "cards", "card", "group", "next_seat", "turn", "winner", "reason"),
)
BOT = Str_(1, 16, good=("greedy", "random-2"), bad=("Greedy", "a b", "a_b"))


#: Every field of every message: what it accepts and refuses.
FIELDS: dict[type[Message], dict[str, F]] = {
    Hello: {"version": Int_(1, 65535), "name": NAME, "token": nil(TOKEN)},
    ListTables: {},
    CreateTable: {
        "preset": LOWER,
        "seats": Int_(2, 3),
        "bots": List_(BOT, 3),
        "turn_seconds": Int_(0, 3600),
        "bot_delay_ms": Int_(0, 10_000),
        "turn_limit": Int_(0, 100_000),
        "level": LEVEL,
    },
    Join: {"table": TABLE_ID, "seat": nil(SEAT)},
    Watch: {"table": TABLE_ID},
    Start: {},
    Leave: {},
    Act: {"action": ACTION},
    AskHint: {},
    PlayForMe: {},
    Ping: {"nonce": Int_(0, 2**32 - 1)},
    Bye: {},
    Welcome: {"version": Int_(1, 65535), "server": Str_(1, 64, good=("notty 0.1.0", "é" * 64))},
    Tables: {"tables": List_(TABLE_INFO, 10_000)},
    Seated: {"table": TABLE_ID, "seat": SEAT, "token": TOKEN},
    Watching: {"table": TABLE_ID},
    Left: {"table": TABLE_ID},
    State: {"table": TABLE_ID, "view": VIEW, "events": List_(EVENT, 1000)},
    Hint: {
        "size": Int_(0, 1000),
        "best": GROUPS,
        "alternatives": GROUPS,
        "outs": List_(Map_({"card": CARD, "gain": Int_(1, 1000)}), 200),
    },
    Error: {
        "code": CODE,
        "message": Str_(1, 500, good=("draw 1 to 3 cards, not 4", "é" * 500)),
        "rule": nil(CODE),
    },
    Pong: {"nonce": Int_(0, 2**32 - 1)},
    Goodbye: {"reason": Str_(1, 500, good=("bye",))},
}

#: The fields that may be left out, and their values then.
DEFAULTS: dict[type[Message], dict[str, Any]] = {
    Hello: {"token": None},
    CreateTable: {"bots": (), "turn_seconds": 0, "bot_delay_ms": 1000, "turn_limit": 0, "level": "medium"},
    Join: {"seat": None},
    Error: {"rule": None},
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
    "preset": "classic",
    "seats": [
        {"name": "ann", "bot": None, "connected": True},
        {"name": None, "bot": "greedy", "connected": False},
    ],
    "started": True,
    "over": False,
    "spectators": 2,
    "turn_seconds": 30,
    "turn_limit": 0,
    "level": "hard",
}
VIEW_VALUE = {
    "preset": "classic",
    "names": ["ann", "greedy"],
    "seat": 0,
    "hands": [["R1", "R2", "Y10"], ["K3"]],
    "deck_size": 40,
    "current": 0,
    "turn": 1,
    "drew": False,
    "stole": False,
    "exchanged": False,
    "must_put_back": False,
    "winner": None,
    "end_reason": None,
    "legal": ["draw 1", "draw 2", "draw 3", "steal 1", "end"],
}
EVENTS_VALUE = [
    {"kind": "game-started", "seat": 0, "text": "ann starts"},
    {"kind": "drew", "seat": 0, "cards": ["R4", "Y9"], "text": "ann draws 2 cards: R4 Y9"},
    {"kind": "stole", "seat": 1, "victim": 0, "card": "R4", "text": ""},
    {"kind": "discarded", "seat": 0, "cards": ["R3", "R4", "R5"], "group": "run", "text": "run"},
    {"kind": "turn-ended", "seat": 0, "next_seat": 1, "turn": 2, "text": "next"},
    {"kind": "game-ended", "winner": None, "reason": "stalemate", "text": "stalemate"},
]

#: At least one valid message of every type; the first of each type is the "usual" one.
SAMPLES: list[Message] = [
    Hello(version=PROTOCOL_VERSION, name="ann"),
    Hello(version=PROTOCOL_VERSION, name="Ann Lee_1.-", token=TOKEN_VALUE),
    ListTables(),
    CreateTable(preset="classic", seats=2),
    CreateTable(
        preset="five-colour",
        seats=3,
        bots=["greedy", "random"],
        turn_seconds=3600,
        bot_delay_ms=0,
        turn_limit=100_000,
        level="hard",
    ),
    CreateTable(preset="classic", seats=3, bots=["expert", "expert-easy"], level="easy"),
    Join(table=1),
    Join(table=2**31 - 1, seat=2),
    Watch(table=3),
    Start(),
    Leave(),
    Act(action="discard R3 R4 R5"),
    Act(action="é🃏" * 200),
    AskHint(),
    PlayForMe(),
    Ping(nonce=0),
    Ping(nonce=2**32 - 1),
    Bye(),
    Welcome(version=PROTOCOL_VERSION, server="notty 0.1.0"),
    Tables(tables=[]),
    Tables(tables=[INFO, {**INFO, "table": 8, "seats": []}]),
    Seated(table=1, seat=0, token=TOKEN_VALUE),
    Watching(table=1),
    Left(table=1),
    State(table=1, view=VIEW_VALUE, events=EVENTS_VALUE),
    State(
        table=1,
        view={**VIEW_VALUE, "seat": None, "winner": 1, "end_reason": "discard", "legal": []},
        events=[],
    ),
    Hint(
        size=3, best=[["R3", "R4", "R5"]], alternatives=[["Y1", "Y2", "Y3"]], outs=[{"card": "R6", "gain": 1}]
    ),
    Hint(size=0, best=[], alternatives=[], outs=[]),
    Error(code="not-now", message="join is not allowed while seated"),
    Error(code="illegal-action", message="draw 1 to 3 cards, not 4", rule="draw-count"),
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


def test_protocol_version_is_two() -> None:
    """Version 2 added create_table.level and the table map's level (a version 1 peer refuses both)."""
    assert PROTOCOL_VERSION == 2


# --------------------------------------------------------------------------- framing: round trips


def test_documented_hello_frame_bytes() -> None:
    """The hex example of docs/PROTOCOL.md, byte for byte."""
    expected = bytes.fromhex(
        "00 00 00 25 84 a4 74 79 70 65 a5 68 65 6c 6c 6f a7 76 65 72 73 69 6f 6e 02"
        " a4 6e 61 6d 65 a3 61 6e 6e a5 74 6f 6b 65 6e c0"
    )
    hello = Hello(version=2, name="ann")
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
        (state.view, "deck_size", -5),
        (state.events[0], "seat", 9),
        (tables.tables[0], "table", 0),
        (tables.tables[0]["seats"][0], "connected", "yes"),
    ]:
        with pytest.raises(TypeError):
            mapping[key] = value  # type: ignore[index]
    assert state == FIRST[State]


def test_lists_come_back_as_tuples() -> None:
    state = message_from_wire(FIRST[State].to_wire(), SERVER)
    assert isinstance(state, State)
    assert state.events[1]["cards"] == ("R4", "Y9")
    assert state.view["hands"] == (("R1", "R2", "Y10"), ("K3",))
    assert CreateTable(preset="classic", seats=2, bots=["greedy"]).bots == ("greedy",)


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
    "deep-nesting": frame(b"\x81\xa4type" + b"\x91" * 60_000 + b"\xc0"),
    "deep-map-nesting": frame(b"\x81\xa4type" + b"\x81\xa1k" * 20_000 + b"\xc0"),
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
        {"type": "create_table", "preset": "classic", "seats": 2, "bots": [msgpack.Timestamp(2**40, 0)]},
        {"type": "hello", "version": 1, "name": "ann", "when": msgpack.Timestamp(-1, 0)},
    ],
    ids=["int-field", "str-field", "nested", "unknown-field"],
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
    ]
    for body, sender in zip(bodies, (CLIENT, CLIENT, SERVER), strict=True):
        connection = Connection(SERVER if sender is CLIENT else CLIENT)
        connection.receive_data(packed(body))
        with pytest.raises(ProtocolError) as info:
            connection.next_event()
        assert info.value.code in ("bad-frame", "bad-message") and not info.value.fatal


def test_decode_body_refuses_binary_keys() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_body(msgpack.packb({"type": "ping", b"nonce": 1}, use_bin_type=True))
    assert info.value.code == "bad-frame"


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
        else Welcome(version=PROTOCOL_VERSION, server="s")
    )
    follow_frame = encode_frame(follow.to_wire())
    checked = 0
    for bad in FIELDS[cls][name].bad:
        try:
            data = packed({**full_body(cls), name: bad.value})
        except (OverflowError, TypeError, ValueError):
            continue  # not representable in msgpack (e.g. 2**64)
        if len(data) > MAX_FRAME + 4:
            continue
        receiver.receive_data(data)
        with pytest.raises(ProtocolError) as info:
            receiver.next_event()
        assert info.value.code == "bad-message", (bad, info.value.message)
        assert not info.value.fatal
        assert f"{cls.TYPE}.{name}{bad.path}" in info.value.message
        assert receiver.state is ConnectionState.HELLO
        checked += 1
    assert checked
    receiver.receive_data(follow_frame)
    assert receiver.next_event() == follow


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
        message_from_wire({"type": "hint", "size": 0, "best": [], "alternatives": [], "outs": []}, CLIENT)


@pytest.mark.parametrize(
    ("build", "where"),
    [
        (lambda: Hello(version=True, name="ann"), "hello.version"),
        (lambda: Hello(version=1, name="ann\n"), "hello.name"),
        (lambda: Hello(version=1, name="ann", token="short"), "hello.token"),
        (lambda: Join(table=0), "join.table"),
        (lambda: Join(table=1, seat=3), "join.seat"),
        (lambda: Ping(nonce=2**32), "ping.nonce"),
        (lambda: Ping(nonce=-1), "ping.nonce"),
        (lambda: Ping(nonce=1.0), "ping.nonce"),
        (lambda: CreateTable(preset="classic", seats=True), "create_table.seats"),
        (lambda: CreateTable(preset="classic", seats=2, bots="greedy"), "create_table.bots"),
        (lambda: CreateTable(preset="classic", seats=2, bots=None), "create_table.bots"),
        (lambda: CreateTable(preset="classic", seats=2, bots=["a"] * 4), "create_table.bots"),
        (lambda: Act(action=""), "act.action"),
        (lambda: Act(action="a" * 401), "act.action"),
        (lambda: Seated(table=1, seat=None, token=TOKEN_VALUE), "seated.seat"),
        (lambda: State(table=1, view={**VIEW_VALUE, "deck_size": -1}, events=[]), "state.view.deck_size"),
        (
            lambda: State(table=1, view={**VIEW_VALUE, "hands": [["R1", "x"]]}, events=[]),
            "state.view.hands[0][1]",
        ),
        (lambda: State(table=1, view=VIEW_VALUE, events=[{"kind": "drew"}]), "state.events[0]"),
        (lambda: State(table=1, view=VIEW_VALUE, events=[{"kind": "x", "text": 1}]), "state.events[0].text"),
        (lambda: Tables(tables=[{**INFO, "seats": [{"name": "a"}]}]), "tables.tables[0].seats[0]"),
        (
            lambda: Hint(size=0, best=[], alternatives=[], outs=[{"card": "R1", "gain": 0}]),
            "hint.outs[0].gain",
        ),
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
        ({"type": "hint", "size": 0, "best": deep, "alternatives": [], "outs": []}, SERVER),
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
    "seated": {"list_tables", "start", "leave", "act", "hint", "auto", "ping", "bye"},
    "watching": {"list_tables", "leave", "ping", "bye"},
    "closed": set(),
}
MODEL_SERVER_MAY_SEND = {
    "hello": {"welcome", "error", "goodbye"},
    "lobby": {"tables", "seated", "watching", "pong", "error", "goodbye"},
    "seated": {"tables", "state", "hint", "left", "pong", "error", "goodbye"},
    "watching": {"tables", "state", "left", "pong", "error", "goodbye"},
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
WELCOME = Welcome(version=PROTOCOL_VERSION, server="notty 0.1.0")
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
        (CreateTable(preset="classic", seats=2, bots=["greedy"]), "lobby"),
        (Seated(table=1, seat=0, token=TOKEN_VALUE), "seated"),
        (FIRST[State], "seated"),
        (AskHint(), "seated"),
        (FIRST[Hint], "seated"),
        (Act(action="draw 4"), "seated"),
        (Error(code="illegal-action", message="draw 1 to 3 cards, not 4", rule="draw-count"), "seated"),
        (Act(action="draw 2"), "seated"),
        (PlayForMe(), "seated"),
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


@pytest.mark.parametrize("version", [1, 3, 65535])
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


@pytest.mark.parametrize("version", [1, 3, 65535])
def test_a_server_of_another_version_is_refused_fatally(version: int) -> None:
    pair = Pair()
    pair.deliver(HELLO)
    pair.client.receive_data(encode_frame(Welcome(version=version, server="future").to_wire()))
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


# --------------------------------------------------------------------------- the table level (version 2)


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_table_level_round_trips_both_ways(level: str) -> None:
    pair = Pair.in_state("lobby")
    request = CreateTable(preset="classic", seats=3, bots=["expert"], level=level)
    assert request.to_wire()["level"] == level
    assert pair.deliver(request) == request
    pair = Pair.in_state("seated")
    listing = Tables(tables=[{**INFO, "level": level}])
    received = pair.deliver(listing)
    assert isinstance(received, Tables) and received.tables[0]["level"] == level


def test_a_table_level_defaults_to_medium_and_only_levels_are_accepted() -> None:
    body = {"type": "create_table", "preset": "classic", "seats": 2}
    assert CreateTable(preset="classic", seats=2).level == "medium"
    received = message_from_wire(body, CLIENT)
    assert isinstance(received, CreateTable) and received.level == "medium"
    for bad in ("expert", "Hard", "impossible", "", 2, None):
        with pytest.raises(ProtocolError) as info:
            message_from_wire({**body, "level": bad}, CLIENT)
        assert info.value.code == "bad-message" and not info.value.fatal
        assert "create_table.level" in info.value.message
    info_without_level = {key: value for key, value in INFO.items() if key != "level"}
    with pytest.raises(ProtocolError) as info:
        message_from_wire({"type": "tables", "tables": [info_without_level]}, SERVER)
    assert "level" in info.value.message


# --------------------------------------------------------------------------- errors can be passed on

REFUSED_BODIES = [
    ({"type": "ping", "nonce": "1"}, CLIENT),
    ({"type": "nope" * 1000}, CLIENT),
    ({"type": "ping\n\x00"}, CLIENT),
    ({"type": "act", "action": "x" * 10_000}, CLIENT),
    ({"type": "hello", "version": 1, "name": "\u2028" * 24}, CLIENT),
    ({"type": "join", "table": 1, "k" * 5000: 1}, CLIENT),
    (
        {"type": "state", "table": 1, "view": {**VIEW_VALUE, "hands": [["R1", "é\x85" * 30]]}, "events": []},
        SERVER,
    ),
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
