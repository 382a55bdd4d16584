"""The wire protocol, where mutation testing found the wire tests silent: the frame limit is the
documented 64 KiB itself (not whatever MAX_FRAME holds), a frame packs plain data only, what a
refusal quotes, and equality of messages holding maps."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

from protocol import (
    Act,
    Autopilot,
    CreateTable,
    FrameDecoder,
    Join,
    Notice,
    ProtocolError,
    Sender,
    encode_frame,
    message_from_wire,
)


def test_the_frame_limit_is_64_kib_as_documented() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(struct.pack(">I", 64 * 1024))  # a body of exactly 64 KiB may follow
    assert decoder.next_frame() is None
    with pytest.raises(ProtocolError) as info:
        FrameDecoder().receive_data(struct.pack(">I", 64 * 1024 + 1))
    assert info.value.code == "frame-too-large" and info.value.fatal


@pytest.mark.parametrize("value", [{("a", 1)}, frozenset({("b", 2)}), object()])
def test_a_frame_refuses_a_value_that_is_not_plain_data(value: object) -> None:
    with pytest.raises(TypeError):
        encode_frame({"type": "x", "value": value})


def refusal(build: Callable[[], object]) -> str:
    with pytest.raises(ProtocolError) as info:
        build()
    assert info.value.code == "bad-message"
    return info.value.message


def test_a_refused_field_names_the_kind_it_got_nil_for_none() -> None:
    nil_table = refusal(lambda: Join(table=None))  # type: ignore[arg-type]
    assert nil_table == "join.table: expected a whole number, got nil"
    text_table = refusal(lambda: Join(table="3"))  # type: ignore[arg-type]
    assert text_table == "join.table: expected a whole number, got str"
    nil_switch = refusal(lambda: Autopilot(on=None))  # type: ignore[arg-type]
    assert nil_switch == "autopilot.on: expected true or false, got nil"


def test_a_refusal_quotes_at_most_40_characters_of_what_it_refused() -> None:
    action = " " + "a" * 60  # padded: no action
    assert f"{action[:40]!r} does not match" in refusal(lambda: Act(action=action))
    kind = "x" * 60
    text = refusal(lambda: Notice(table=1, seat=0, name="ann", kind=kind, text="hi"))
    assert f"{kind[:40]!r} is not one of" in text
    key = "k" * 70
    assert f"key {ascii(key)[:40]} is not" in refusal(lambda: CreateTable("notty", 2, options={key: 1}))


def test_messages_whose_maps_differ_are_not_equal() -> None:
    easy = CreateTable("notty", 2, options={"level": "easy"})
    assert easy == CreateTable("notty", 2, options={"level": "easy"})
    assert hash(easy) == hash(CreateTable("notty", 2, options={"level": "easy"}))
    assert easy != CreateTable("notty", 2, options={"level": "hard"})
    assert easy != CreateTable("notty", 2, options={})
    assert easy.options == {"level": "easy"} and easy.options != {"level": "hard"}
    assert easy.options != [("level", "easy")]  # type: ignore[comparison-overlap]


@pytest.mark.parametrize("kind", [None, 1, ["hello"], {"a": 1}])
def test_a_message_whose_type_is_no_text_is_an_unknown_message(kind: object) -> None:
    with pytest.raises(ProtocolError) as info:
        message_from_wire({"type": kind}, Sender.CLIENT)
    assert info.value.code == "unknown-message"
