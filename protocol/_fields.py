"""Field specs: what each message field may hold, checked on the way in and out.

Every field of every message names a spec; the spec checks the value (types,
ranges, lengths, nested shapes) and says what was wrong, and describes itself
for the protocol document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from ._framing import ProtocolError


def invalid(where: str, problem: str) -> ProtocolError:
    return ProtocolError("bad-message", f"{where}: {problem}")


class Spec:
    def check(self, value: Any, where: str) -> Any:
        """The value as the message stores it (lists become tuples), or :class:`ProtocolError`."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@attrs.frozen
class Int(Spec):
    low: int
    high: int

    def check(self, value: Any, where: str) -> int:
        if type(value) is not int:
            raise invalid(where, f"expected a whole number, got {_kind(value)}")
        if not self.low <= value <= self.high:
            raise invalid(where, f"{value} is outside {self.low}..{self.high}")
        return value

    def describe(self) -> str:
        return f"int {self.low}..{self.high}"


@attrs.frozen
class Bool(Spec):
    def check(self, value: Any, where: str) -> bool:
        if type(value) is not bool:
            raise invalid(where, f"expected true or false, got {_kind(value)}")
        return value

    def describe(self) -> str:
        return "bool"


#: Text without control characters (C0, DEL, C1, the line and paragraph separators), nor lone
#: surrogates, which no UTF-8 encodes: a checked message always packs.
_PRINTABLE = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]*")


@attrs.frozen
class Str(Spec):
    """Text without control characters, ``low..high`` characters long, optionally matching ``pattern``."""

    low: int
    high: int
    pattern: str | None = None

    def check(self, value: Any, where: str) -> str:
        if type(value) is not str:
            raise invalid(where, f"expected text, got {_kind(value)}")
        if not self.low <= len(value) <= self.high:
            raise invalid(where, f"length {len(value)} is outside {self.low}..{self.high}")
        if not _PRINTABLE.fullmatch(value):
            raise invalid(where, "control characters and lone surrogates are not allowed")
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            raise invalid(where, f"{value[:40]!r} does not match {self.pattern}")
        return value

    def describe(self) -> str:
        shape = f"str {self.low}..{self.high} chars"
        return f"{shape} matching `{self.pattern}`" if self.pattern else shape


@attrs.frozen
class OneOf(Spec):
    """One of a few words, given in ``values``."""

    values: tuple[str, ...]

    def check(self, value: Any, where: str) -> str:
        if type(value) is not str:
            raise invalid(where, f"expected text, got {_kind(value)}")
        if value not in self.values:
            raise invalid(where, f"{value[:40]!r} is not one of {', '.join(self.values)}")
        return value

    def describe(self) -> str:
        return "one of " + ", ".join(f"`{value}`" for value in self.values)


@attrs.frozen
class Optional(Spec):
    """The inner spec, or nil."""

    inner: Spec

    def check(self, value: Any, where: str) -> Any:
        return None if value is None else self.inner.check(value, where)

    def describe(self) -> str:
        return f"{self.inner.describe()} or nil"


@attrs.frozen
class List(Spec):
    item: Spec
    most: int

    def check(self, value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise invalid(where, f"expected a list, got {_kind(value)}")
        if len(value) > self.most:
            raise invalid(where, f"{len(value)} items; at most {self.most}")
        return tuple(self.item.check(item, f"{where}[{i}]") for i, item in enumerate(value))

    def describe(self) -> str:
        return f"list (at most {self.most}) of {self.item.describe()}"


@attrs.frozen
class Map(Spec):
    """A map with exactly these string keys (those in ``optional`` may be absent)."""

    fields: Mapping[str, Spec]
    optional: frozenset[str] = frozenset()

    def check(self, value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise invalid(where, f"expected a map, got {_kind(value)}")
        unknown = sorted(ascii(key) for key in value if key not in self.fields)
        if unknown:
            raise invalid(where, f"unknown key(s) {', '.join(unknown)}")
        missing = sorted(set(self.fields) - set(value) - self.optional)
        if missing:
            raise invalid(where, f"missing key(s) {', '.join(missing)}")
        # In the order the sender wrote them: a message built unchecked from the same map packs
        # to the same bytes as the checked one, whatever its order.
        fields = self.fields
        return FrozenMap({key: fields[key].check(item, f"{where}.{key}") for key, item in value.items()})

    def describe(self) -> str:
        parts = [
            f"{key}{'?' if key in self.optional else ''}: {spec.describe()}"
            for key, spec in self.fields.items()
        ]
        return "{" + ", ".join(parts) + "}"


#: The longest key of a map in game data.
DATA_KEY = 64


@attrs.frozen
class Data(Spec):
    """Data a game defines (a view's body, an event's facts, a hint's data, a table's options): nil,
    booleans, whole numbers, printable text, lists, and maps whose keys are printable text of
    1..:data:`DATA_KEY` characters; at most ``most`` items in a list or map, at most ``text``
    characters in a text, lists and maps nested at most ``depth`` deep. ``mapping`` asks for a map
    at the top. The protocol checks this shape; the game that reads the data checks its meaning."""

    depth: int = 6
    most: int = 1000  # items in one list or map
    text: int = 2000  # characters in one text
    mapping: bool = False

    def check(self, value: Any, where: str) -> Any:
        if self.mapping and not isinstance(value, Mapping):
            raise invalid(where, f"expected a map, got {_kind(value)}")
        return self._check(value, where, self.depth)

    def _check(self, value: Any, where: str, depth: int) -> Any:
        if value is None or type(value) is bool:
            return value
        if type(value) is int:
            if not -(2**63) <= value < 2**64:
                raise invalid(where, f"{value} is outside -2**63..2**64-1")
            return value
        if type(value) is str:
            if len(value) > self.text:
                raise invalid(where, f"length {len(value)} is outside 0..{self.text}")
            if not _PRINTABLE.fullmatch(value):
                raise invalid(where, "control characters and lone surrogates are not allowed")
            return value
        if not isinstance(value, list | tuple | Mapping):
            raise invalid(where, f"{_kind(value)} is not game data")
        if depth <= 0:
            raise invalid(where, f"nested deeper than {self.depth}")
        if len(value) > self.most:
            raise invalid(where, f"{len(value)} items; at most {self.most}")
        if not isinstance(value, Mapping):
            return tuple(self._check(item, f"{where}[{i}]", depth - 1) for i, item in enumerate(value))
        checked = {}
        for key, item in value.items():
            if type(key) is not str or not 1 <= len(key) <= DATA_KEY or not _PRINTABLE.fullmatch(key):
                shown = ascii(key)[:40]
                raise invalid(where, f"key {shown} is not a text of 1..{DATA_KEY} printable characters")
            checked[key] = self._check(item, f"{where}.{key}", depth - 1)
        return FrozenMap(checked)

    def describe(self) -> str:
        top = "a map of game data" if self.mapping else "game data"
        return (
            f"{top} (nil, bool, int, str of 0..{self.text} chars, lists, maps with str keys of "
            f"1..{DATA_KEY} chars; at most {self.most} items in each list or map, nested at most "
            f"{self.depth} deep)"
        )


class FrozenMap(Mapping[str, Any]):
    """A validated map that cannot change afterwards (and so can be hashed, like its message)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Any]) -> None:
        self._items = dict(items)

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._items.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    def __repr__(self) -> str:
        return repr(self._items)


def _kind(value: Any) -> str:
    return "nil" if value is None else type(value).__name__
