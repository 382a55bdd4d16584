"""Framing: a 4-byte big-endian length, then that many bytes of one msgpack map.

Sans-IO, after h11: feed bytes in with :meth:`FrameDecoder.receive_data`, take
whole frames out with :meth:`FrameDecoder.next_frame`. A frame whose header
announces more than the receiver's limit is refused as soon as the header
arrives, before any of its body is buffered.

Decoding costs time in proportion to the objects a body holds (a 64 KiB body
of empty maps took 14 ms), so a receiver can learn a whole frame's size before
decoding it (:meth:`FrameDecoder.next_size`) and charge for it, or drop it
unread (:meth:`FrameDecoder.skip`); and a server takes smaller frames from
clients than it sends, with fewer items in each list or map, since no client
message needs more.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

import msgpack

#: The largest frame body either side accepts (a contract: clients rely on it).
MAX_FRAME = 64 * 1024
#: The largest frame body a server accepts from a client: the largest client message its fields
#: allow (``create_table`` with 32 options, each name and value 64 four-byte characters) packs to
#: under 17 KiB, and any a client has reason to send to under 1 KiB.
MAX_CLIENT_FRAME = 32 * 1024
#: The most items one list or map may hold in a frame: the longest list of any message (``tables``).
MAX_ITEMS = 10_000
#: The same in a frame from a client: twice its longest list or map, a table's options (32), so
#: that a few too many are refused by the field's own check, which names the field.
MAX_CLIENT_ITEMS = 64

_HEADER = struct.Struct(">I")
#: The most unread bytes a receiver holds: two of the largest frames, headers included.
MAX_UNREAD = 2 * (MAX_FRAME + _HEADER.size)


class ProtocolError(ValueError):
    """The peer broke the protocol. ``code`` is stable (clients match on it).

    ``fatal`` errors leave the byte stream unusable (the connection must
    close); after any other, the next frame can still be read.
    """

    def __init__(self, code: str, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fatal = fatal


def _no_ext(code: int, data: bytes) -> Any:
    raise ProtocolError("bad-frame", f"msgpack extension types are not allowed (got type {code})")


def encode_frame(body: dict[str, Any]) -> bytes:
    """One frame holding ``body``, which must be a map with a string ``"type"``."""
    if not isinstance(body, dict) or not isinstance(body.get("type"), str):
        raise TypeError("a frame body is a dict with a string 'type'")
    payload: bytes = msgpack.packb(body, use_bin_type=True, default=_as_dict)
    if len(payload) > MAX_FRAME:
        raise ProtocolError("frame-too-large", f"frame of {len(payload)} bytes exceeds {MAX_FRAME}")
    return _HEADER.pack(len(payload)) + payload


def packed_size(value: Any) -> int:
    """The bytes ``value`` takes packed in a frame's body: what a list may still hold is summed
    from its items' sizes, without packing the list again for each try."""
    return len(msgpack.packb(value, use_bin_type=True, default=_as_dict))


def list_header_size(count: int) -> int:
    """The bytes msgpack puts before a list of ``count`` items."""
    return 1 if count < 16 else 3 if count < 2**16 else 5


def _as_dict(value: object) -> dict[Any, Any]:
    """Checked messages hold their maps as read-only mappings: they pack as maps."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot pack {type(value).__name__}")


def decode_body(payload: bytes, max_items: int = MAX_ITEMS) -> dict[str, Any]:
    """The map inside one frame body, decoded with msgpack's safe settings; a list or map of more
    than ``max_items`` items is refused as msgpack reads its header, before its items are built."""
    if not payload:
        raise ProtocolError("bad-frame", "a frame's body is empty: it must hold a map")
    try:
        body = msgpack.unpackb(
            payload,
            raw=False,
            strict_map_key=True,
            ext_hook=_no_ext,
            object_pairs_hook=_unique_keys,
            max_array_len=max_items,
            max_map_len=max_items,
        )
    except ProtocolError:
        raise
    except ValueError as error:
        if "exceeds max_" in str(error):  # msgpack read a list's or map's length, and stopped there
            raise ProtocolError(
                "bad-frame", f"a list or map in the frame holds more than {max_items} items"
            ) from None
        if "not allowed for map key" in str(error):  # an int, a float, a list... as a key
            raise ProtocolError("bad-frame", "map keys must be strings") from None
        if "incomplete input" in str(error):
            raise ProtocolError("bad-frame", "frame is not valid msgpack: it ends inside a value") from None
        raise ProtocolError("bad-frame", f"frame is not valid msgpack ({type(error).__name__})") from None
    except Exception as error:  # msgpack raises many kinds: all mean "not msgpack"
        raise ProtocolError("bad-frame", f"frame is not valid msgpack ({type(error).__name__})") from None
    if not isinstance(body, dict):
        raise ProtocolError("bad-frame", f"a frame must hold a map, not {type(body).__name__}")
    _check_plain(body)
    if not isinstance(body.get("type"), str):
        raise ProtocolError("bad-frame", "a frame's map must have a string key 'type'")
    return body


def _unique_keys(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """A map, refused if it names a key twice: msgpack would keep the last, and a reader that kept
    the first would read another message (``{"type": "ping", "type": "hello"}``)."""
    body = dict(pairs)
    if len(body) != len(pairs):
        raise ProtocolError("bad-frame", "a map in the frame names a key twice")
    return body


_PLAIN = (type(None), bool, int, float, str, bytes)


def _check_plain(value: Any) -> None:
    """Only plain data: msgpack decodes its timestamp extension without asking ``ext_hook``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    raise ProtocolError("bad-frame", "map keys must be strings")
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif not isinstance(item, _PLAIN):
            raise ProtocolError(
                "bad-frame", f"msgpack extension types are not allowed ({type(item).__name__})"
            )


class FrameDecoder:
    """Turns a byte stream into frame bodies.

    It holds at most :data:`MAX_UNREAD` unread bytes, two of the largest frames, whatever the
    frames it takes (a server's reader may get many small ones at once): a peer that sends faster
    than frames are taken out is refused rather than buffered.
    """

    def __init__(self, max_frame: int = MAX_FRAME, max_items: int = MAX_ITEMS) -> None:
        self._buffer = bytearray()
        self._max = max_frame
        self._max_items = max_items
        self._failed: ProtocolError | None = None
        self._checked = 0  # buffer offset of the first frame header not yet checked

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def receive_data(self, data: bytes) -> None:
        """Add bytes from the peer. Raises once the stream can no longer be trusted."""
        if self._failed:
            raise self._failed
        if len(self._buffer) + len(data) > MAX_UNREAD:
            self._fail("too-much-data", "too many unread bytes: read replies before sending more")
        self._buffer += data
        self._check_header()

    def next_size(self) -> int | None:
        """The body size of the next frame if all of it is here (not yet decoded), else ``None``."""
        if self._failed:
            raise self._failed
        if len(self._buffer) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack_from(self._buffer)
        return length if len(self._buffer) >= _HEADER.size + length else None

    def next_frame(self) -> dict[str, Any] | None:
        """The next whole frame's map, or ``None`` until more bytes arrive."""
        payload = self._take()
        return None if payload is None else decode_body(payload, self._max_items)

    def skip(self) -> bool:
        """Drop the next whole frame unread (not even copied); ``False`` if none is here yet."""
        length = self.next_size()
        if length is not None:
            self._drop(_HEADER.size + length)
        return length is not None

    def _take(self) -> bytes | None:
        length = self.next_size()
        if length is None:
            return None
        payload = bytes(self._buffer[_HEADER.size : _HEADER.size + length])
        self._drop(_HEADER.size + length)
        return payload

    def _drop(self, end: int) -> None:
        del self._buffer[:end]
        self._checked -= end

    def _check_header(self) -> None:
        """Refuse any oversized header in the buffer, not only the first, before its body is kept.

        Each header is checked once, as soon as all four of its bytes are here.
        """
        start = self._checked
        while start + _HEADER.size <= len(self._buffer):
            (length,) = _HEADER.unpack_from(self._buffer, start)
            if length > self._max:
                self._fail("frame-too-large", f"frame of {length} bytes announced; the limit is {self._max}")
            start += _HEADER.size + length
        self._checked = start

    def _fail(self, code: str, message: str) -> None:
        self._buffer.clear()
        self._failed = ProtocolError(code, message, fatal=True)
        raise self._failed
