"""Fuzzing the wire protocol: whatever a peer sends, the only failure is a ProtocolError.

Byte streams of real, broken and random frames, cut into random chunks, go into a Connection of either role;
random msgpack values (deep, huge, with extension types) go into decode_body; random and mutated maps go into
message_from_wire, and random values into every field that holds a game's data. Accepted messages must be
exactly what the document allows, and refusals must be the documented kind. The sample messages, the
game-data fields and the state model come from test_wire.py.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_wire import (
    DATA_FIELDS,
    DATA_IDS,
    FIELDS,
    LIMIT,
    LIMITS_VALUE,
    SAMPLES,
    V2_HELLO,
    DataField,
    frame,
    model_may_send,
    model_next,
)

from protocol import (
    MAX_FRAME,
    MESSAGES,
    PROTOCOL_VERSION,
    Connection,
    ConnectionState,
    Hello,
    LocalProtocolError,
    Message,
    ProtocolError,
    Sender,
    Welcome,
    decode_body,
    encode_frame,
    message_from_wire,
)

CLIENT, SERVER = Sender.CLIENT, Sender.SERVER
FUZZ = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TYPES = sorted({t for (_, t) in MESSAGES})
#: Field names, and the keys of the maps inside them (the envelope, results, tables, games, options).
NESTED = {
    "kind", "text", "data", "seats", "card", "body", "result", "ranking", "reason", "legal", "current",
    "turn", "names", "seat", "game", "variant", "options", "default", "choices", "low", "high", "variants",
    "bots", "title", "min_players", "max_players", "summary", "connected", "started", "over", "spectators",
}  # fmt: skip
NAMES = sorted({name for fields in FIELDS.values() for name in fields} | {"type"} | NESTED)
INTERESTING_TEXT = [
    *TYPES, *NAMES, "", "R1", "R10", "K3", "r1", "ann", "a" * 32, "a" * 65, "draw 2", "end", "classic",
    "notty", "five-colour", "expert", "medium", "not-now", "é", "\x00", "\n", "\u2028", "x" * 401, "k" * 64,
    "k" * 65,
]  # fmt: skip
INTERESTING_INT = [
    0, 1, 2, 3, -1, 1000, 1001, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, -(2**63), 2**64 - 1,
]  # fmt: skip

# -- values ------------------------------------------------------------------------------------------------


def _leaves(packable: bool) -> st.SearchStrategy[Any]:
    ints = st.integers(-(2**63), 2**64 - 1) if packable else st.integers()
    parts = [
        st.none(),
        st.booleans(),
        ints,
        st.sampled_from(INTERESTING_INT),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
        st.sampled_from(INTERESTING_TEXT),
        st.binary(max_size=12),
        st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=8)),
        st.builds(msgpack.Timestamp, st.integers(-(2**33), 2**33), st.integers(0, 999_999_999)),
    ]
    if not packable:
        parts.append(st.integers(-(2**200), 2**200))
    return st.one_of(parts)


def _keys(packable: bool) -> st.SearchStrategy[Any]:
    keys: list[st.SearchStrategy[Any]] = [st.sampled_from(NAMES), st.text(max_size=8), st.binary(max_size=4)]
    keys += [st.integers(-5, 5), st.none(), st.booleans(), st.floats(allow_nan=False)]
    return st.one_of(keys)


def values(packable: bool = True) -> st.SearchStrategy[Any]:
    return st.recursive(
        _leaves(packable),
        lambda children: st.one_of(
            st.lists(children, max_size=6),
            st.dictionaries(_keys(packable), children, max_size=6),
        ),
        max_leaves=40,
    )


def bodies(packable: bool = True) -> st.SearchStrategy[dict[Any, Any]]:
    """Maps that look like messages: usually a real type and real field names, with random values."""
    kind = st.one_of(st.sampled_from(TYPES), values(packable))
    return st.builds(
        lambda t, rest, named: {**rest, **named, "type": t},
        kind,
        st.dictionaries(_keys(packable), values(packable), max_size=4),
        st.dictionaries(st.sampled_from(NAMES), values(packable), max_size=8),
    )


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


def _delete(value: Any, path: tuple[Any, ...]) -> Any:
    head, rest = path[0], path[1:]
    if not rest:
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if k != head}
        return [v for i, v in enumerate(value) if i != head]
    if isinstance(value, dict):
        return {**value, head: _delete(value[head], rest)}
    copy = list(value)
    copy[head] = _delete(copy[head], rest)
    return copy


@st.composite
def mutated(draw: st.DrawFn, packable: bool = True) -> tuple[dict[Any, Any], Sender]:
    """A real message's wire map with a few random changes deep inside."""
    message = draw(st.sampled_from(SAMPLES))
    body: Any = message.to_wire()
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(body))
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if how == "delete" and path:
            body = _delete(body, path)
        elif how == "add":
            target: Any = body
            for step in path:
                target = target[step]
            if isinstance(target, dict):
                body = _replace(body, path, {**target, draw(_keys(packable)): draw(values(packable))})
            elif isinstance(target, list):
                body = _replace(body, path, [*target, draw(values(packable))])
        elif path:
            body = _replace(body, path, draw(values(packable)))
    sender = draw(st.sampled_from([message.SENDER, message.SENDER, CLIENT, SERVER]))
    return body, sender


# -- message_from_wire -------------------------------------------------------------------------------------


def _check_message_from_wire(body: Any, sender: Sender) -> None:
    try:
        message = message_from_wire(body, sender)
    except ProtocolError as error:
        assert error.code in ("unknown-message", "bad-message"), error.code
        assert not error.fatal
        assert isinstance(error.message, str) and error.message
        return
    assert isinstance(message, Message)
    assert MESSAGES[(sender, body["type"])] is type(message)
    # What was accepted is valid and comes back the same, whichever way it travels.
    assert message_from_wire(message.to_wire(), sender) == message
    assert type(message)(**{k: v for k, v in message.to_wire().items() if k != "type"}) == message
    packed = msgpack.packb(message.to_wire(), use_bin_type=True)
    if len(packed) <= MAX_FRAME:
        assert message_from_wire(decode_body(packed), sender) == message


@FUZZ
@given(bodies(packable=False), st.sampled_from([CLIENT, SERVER]))
def test_random_maps_only_raise_protocol_errors(body: dict[Any, Any], sender: Sender) -> None:
    _check_message_from_wire(body, sender)


@FUZZ
@given(mutated(packable=False))
def test_mutated_messages_only_raise_protocol_errors(case: tuple[dict[Any, Any], Sender]) -> None:
    _check_message_from_wire(*case)


@FUZZ
@given(mutated(packable=True))
def test_mutated_messages_over_the_wire(case: tuple[dict[Any, Any], Sender]) -> None:
    body, sender = case
    try:
        payload = msgpack.packb(body, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return
    try:
        decoded = decode_body(payload)
    except ProtocolError as error:
        assert error.code == "bad-frame" and not error.fatal
        return
    _check_message_from_wire(decoded, sender)


# -- game data -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", DATA_FIELDS, ids=DATA_IDS)
@FUZZ
@given(data=st.data())
def test_random_values_as_game_data_only_raise_protocol_errors(field: DataField, data: st.DataObject) -> None:
    """Anything at all where a game's data goes (a body, an event's data, a hint's, options): accepted
    and sent on unchanged, or refused as a bad message; as Python values and as msgpack."""
    value = data.draw(values(packable=data.draw(st.booleans())))
    _check_message_from_wire(field.put(value), field.sender)
    try:
        payload = msgpack.packb(field.put(value), use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return
    try:
        decoded = decode_body(payload)
    except ProtocolError as error:
        assert error.code == "bad-frame" and not error.fatal
        return
    _check_message_from_wire(decoded, field.sender)


# -- decode_body -------------------------------------------------------------------------------------------


def _check_decode(payload: bytes) -> None:
    try:
        body = decode_body(payload)
    except ProtocolError as error:
        assert error.code == "bad-frame" and not error.fatal and error.message
        return
    assert isinstance(body, dict) and isinstance(body["type"], str)
    assert all(isinstance(key, str | bytes) for key in body)


@FUZZ
@given(values(packable=True))
def test_random_msgpack_values_decode_or_are_refused(value: Any) -> None:
    try:
        payload = msgpack.packb(value, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return
    _check_decode(payload)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_decode_or_are_refused(payload: bytes) -> None:
    _check_decode(payload)


@FUZZ
@given(st.sampled_from(SAMPLES), st.integers(0, 200), st.binary(min_size=1, max_size=4))
def test_corrupted_real_bodies_decode_or_are_refused(message: Message, where: int, junk: bytes) -> None:
    payload = msgpack.packb(message.to_wire(), use_bin_type=True)
    where %= len(payload)
    _check_decode(payload[:where] + junk + payload[where + len(junk) :])
    _check_decode(payload[:where])


# -- byte streams into a Connection ------------------------------------------------------------------------


def _packed_frame(value: Any) -> bytes:
    try:
        return frame(msgpack.packb(value, use_bin_type=True))
    except (OverflowError, TypeError, ValueError):
        return b""


SEGMENTS = st.one_of(
    st.sampled_from([encode_frame(m.to_wire()) for m in SAMPLES]),  # real frames, legal now or not
    st.sampled_from([encode_frame(m.to_wire()) for m in SAMPLES]),
    st.sampled_from(  # openings of other versions: a version 2 client's hello, byte for byte, and others
        [
            V2_HELLO,
            encode_frame(Hello(version=1, name="x").to_wire()),
            _packed_frame({"type": "welcome", "version": 2, "server": "x"}),
            _packed_frame({"type": "hello", "version": PROTOCOL_VERSION, "name": "ann", "games": ["notty"]}),
            _packed_frame({"type": "welcome", "version": 2, "server": "old", "level": "hard"}),
        ]
    ),
    bodies(packable=True).map(_packed_frame),
    mutated(packable=True).map(lambda case: _packed_frame(case[0])),
    st.binary(max_size=40),
    st.integers(0, 2**32 - 1).map(lambda n: struct.pack(">I", n)),  # a lone header, often huge
    # Big bodies are filled with 0xc1 (never valid msgpack, and as a header far over the limit): a stream
    # knocked out of step then fails fast. Runs of empty frames stay short; test_wire times a long one.
    st.integers(0, MAX_FRAME + 8).map(lambda n: struct.pack(">I", n) + b"\xc1" * n),
    st.integers(0, 4096).map(bytes),  # a run of empty frames
    st.integers(2, 3).map(
        lambda k: (struct.pack(">I", MAX_FRAME) + b"\xc1" * MAX_FRAME) * k
    ),  # over the bound
)


Step = tuple[bytes, bool] | Message  # bytes from the peer (and whether to read events then), or a send


@st.composite
def streams(draw: st.DrawFn) -> tuple[Sender, list[Step]]:
    """A connection's role, and what happens to it: chunks of the peer's bytes, with our own sends between."""
    role = draw(st.sampled_from([SERVER, CLIENT]))
    hello, welcome = Hello(PROTOCOL_VERSION, "ann"), Welcome(PROTOCOL_VERSION, "s", limits=LIMITS_VALUE)
    opening = encode_frame((hello if role is SERVER else welcome).to_wire())
    segments = draw(st.lists(SEGMENTS, max_size=10))
    if draw(st.booleans()):
        segments.insert(0, opening)
    data = b"".join(segments)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=12)))
    steps: list[Step] = []
    for start, end in itertools.pairwise([0, *cuts, len(data)]):
        steps.append((data[start:end], draw(st.booleans()) or draw(st.booleans())))  # usually read then
        ours = [m for m in SAMPLES if m.SENDER is role]
        steps += draw(st.lists(st.sampled_from(ours) | st.sampled_from(SAMPLES), max_size=3))
    return role, steps


@settings(FUZZ, max_examples=300)
@given(streams())
def test_byte_streams_only_raise_protocol_errors(case: tuple[Sender, list[Step]]) -> None:
    """Whatever arrives: only ProtocolError, only what the document allows is accepted, a bounded buffer."""
    role, steps = case
    connection = Connection(role)
    peer = connection.their_role
    state = "hello"  # the document's state for this connection

    def drain() -> None:
        nonlocal state
        for _ in range(connection._frames.buffered // 4 + 2):  # each frame takes at least 4 bytes
            before = connection.state
            assert before is ConnectionState(state)
            try:
                message = connection.next_event()
            except ProtocolError as error:
                assert isinstance(error.message, str) and error.message
                if error.fatal:
                    assert connection.state is ConnectionState.CLOSED
                    state = "closed"
                    return
                assert connection.state is before, "a non-fatal error changed the state"
                continue
            finally:
                assert connection._frames.buffered <= LIMIT
            if message is None:
                return
            assert message.SENDER is peer
            assert message.TYPE in model_may_send(peer, state), f"{message.TYPE} accepted while {state}"
            state = model_next(message, state)
            assert connection.state is ConnectionState(state)
            event(f"accepted {message.TYPE} -> {state}")
        raise AssertionError("next_event never returned None")

    for step in steps:
        if isinstance(step, Message):
            if step.SENDER is role and step.TYPE in model_may_send(role, state):
                assert connection.send(step) == encode_frame(step.to_wire())
                state = model_next(step, state)
                event(f"sent {step.TYPE} -> {state}")
            else:
                with pytest.raises(LocalProtocolError):
                    connection.send(step)
            assert connection.state is ConnectionState(state)
            continue
        chunk, read = step
        try:
            connection.receive_data(chunk)
        except ProtocolError as error:
            assert error.fatal and error.code in ("frame-too-large", "too-much-data")
            assert connection.state is ConnectionState.CLOSED
            state = "closed"
        assert connection._frames.buffered <= LIMIT
        if read:
            drain()
    drain()
