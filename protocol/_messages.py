"""Every message of the wire protocol, as frozen classes that validate every field.

A message is built either locally (``Join(table=3)``) or from a decoded frame
(:func:`message_from_wire`); both paths run the same checks, so neither side
can send or accept a malformed message. ``docs/PROTOCOL.md`` documents them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, ClassVar, Self, cast

import attrs

from ._fields import Bool, Data, FrozenMap, Int, List, Map, OneOf, Optional, Spec, Str, invalid
from ._framing import ProtocolError

#: Both sides send this in their first message; a mismatch ends the connection.
#: Version 2 added ``create_table.level``; version 3 hosts many games: ``create_table`` names
#: a game, a variant and options, the welcome lists the games, and views, events and hints
#: carry a body each game defines; version 4 adds seat news (``notice``), autopilot and resigning,
#: bots and turns in the table list, and a finished game's record id and duration; version 5 adds
#: the view's ``bot_turn`` and ``turn_seconds``; version 6 the view's ``away``; version 7 the view's
#: ``turn_left``; version 8 the welcome's ``limits``, so that a client keeps to a server's own rates;
#: version 9 the view's and the table map's ``kept``, so that a seat a bot plays for a person away is
#: not taken for a bot's own, and the view's ``played_for``, so that a move shown again is marked as
#: one a bot made for its person.
PROTOCOL_VERSION = 9

#: What ``hello.version`` and ``welcome.version`` may hold.
VERSION = Int(1, 65535)

#: The port a server listens on unless told otherwise.
DEFAULT_PORT = 4008

#: The most seats a table may have, in any game.
MAX_SEATS = 8
#: Watchers of one table: the table list carries the count, within this bound.
MAX_SPECTATORS = 10_000
#: The most legal actions a view lists; a game may allow more, which a player can still type.
MAX_LEGAL = 1000
#: How a ``bad-token`` error's message goes on when the server still knows how the seat's game
#: ended: the result's text follows (a client may show it as the server words it).
GAME_ENDED = "its game is over: "
#: The most moves a player back from a drop is shown of those made while they were away (the view's ``away``).
AWAY_MOVES = 30
TABLE_ID = Int(1, 2**31 - 1)
SEAT = Int(0, MAX_SEATS - 1)
#: The longest player name; a server that makes a name unique at a table keeps to it too.
MAX_NAME = 24
#: A player's name, as ``hello`` carries it; clients check names they are given against it.
NAME = Str(1, MAX_NAME, r"[A-Za-z0-9][A-Za-z0-9 _.-]*")
TOKEN = Str(32, 64, r"[A-Za-z0-9_-]+")
CODE = Str(1, 40, r"[a-z][a-z0-9-]*")
GAME_NAME = Str(1, 32, r"[a-z][a-z0-9-]*")
VARIANT = Str(1, 32, r"[a-z0-9][a-z0-9-]*")
BOT = Str(1, 24, r"[a-z0-9][a-z0-9-]*")
#: A table's options: names to numbers or words, as the game's ``options`` in the welcome describe.
OPTIONS = Data(depth=1, most=32, text=64, mapping=True)
#: An action in its text form, e.g. "discard R3 R4 R5"; the game parses it. Never blank, nor
#: padded: a client may take its first word as the verb.
ACTION = Str(1, 400, r"\S(?:.*\S)?")


class Sender(enum.Enum):
    CLIENT = "client"
    SERVER = "server"


def field(spec: Spec, default: Any = attrs.NOTHING, kw_only: bool = False) -> Any:
    return attrs.field(default=default, kw_only=kw_only, metadata={"spec": spec})


class Message:
    """Shared behaviour: validation on construction and the wire form."""

    TYPE: ClassVar[str]
    SENDER: ClassVar[Sender]

    def __attrs_post_init__(self) -> None:
        for attribute in _fields(type(self)):
            value = getattr(self, attribute.name)
            checked = attribute.metadata["spec"].check(value, f"{self.TYPE}.{attribute.name}")
            object.__setattr__(self, attribute.name, checked)

    @classmethod
    def unchecked(cls, **fields: Any) -> Self:
        """Build a message without checking its fields.

        Only for a sender whose values are right by construction (the server's
        views and events come from its own engine), where checking every card of
        every state costs more than the move itself. Whatever arrives from the
        wire is always checked; tests hold both paths to the same bytes.
        """
        message = object.__new__(cls)
        for attribute in _fields(cls):
            value = fields.pop(attribute.name, attribute.default)
            if value is attrs.NOTHING:
                raise TypeError(f"{cls.TYPE} needs {attribute.name}")
            object.__setattr__(message, attribute.name, value)
        if fields:
            raise TypeError(f"{cls.TYPE} has no field(s) {', '.join(sorted(fields))}")
        return message

    def to_wire(self) -> dict[str, Any]:
        """The wire form in plain lists and dicts, as a peer decodes it."""
        plain: dict[str, Any] = _plain(self.wire_body())
        return plain

    def wire_body(self) -> dict[str, Any]:
        """The wire form sharing this message's values, for packing at once
        (:func:`encode_frame` packs tuples and maps as they are): no copy."""
        body: dict[str, Any] = {"type": self.TYPE}
        for attribute in _fields(type(self)):
            body[attribute.name] = getattr(self, attribute.name)
        return body


_FIELDS: dict[type[Message], tuple[attrs.Attribute[Any], ...]] = {}


def _fields(cls: type[Message]) -> tuple[attrs.Attribute[Any], ...]:
    """A class's fields, looked up once: every message built or sent asks."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(attrs.fields(cast(Any, cls)))
    return found


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value


# -- client to server ------------------------------------------------------------


@attrs.frozen
class Hello(Message):
    """First message from a client. ``token`` resumes a seat held since a dropped connection."""

    TYPE = "hello"
    SENDER = Sender.CLIENT
    version: int = field(VERSION)
    name: str = field(NAME)
    token: str | None = field(Optional(TOKEN), None)


@attrs.frozen
class ListTables(Message):
    TYPE = "list_tables"
    SENDER = Sender.CLIENT


@attrs.frozen
class CreateTable(Message):
    """A new table of ``game``; its creator takes seat 0 unless every seat is a bot.

    ``variant`` nil means the game's default; ``bots`` names the bot for each
    bot seat (the last seats); ``options`` are the game's (the welcome lists
    them), defaults filling the rest; ``turn_seconds`` 0 means no turn time
    limit; ``bot_delay_ms`` paces the bots.
    """

    TYPE = "create_table"
    SENDER = Sender.CLIENT
    game: str = field(GAME_NAME)
    seats: int = field(Int(1, MAX_SEATS))
    variant: str | None = field(Optional(VARIANT), None)
    bots: tuple[str, ...] = field(List(BOT, MAX_SEATS), ())
    options: Mapping[str, Any] = field(OPTIONS, FrozenMap({}))
    turn_seconds: int = field(Int(0, 3600), 0)
    bot_delay_ms: int = field(Int(0, 10_000), 1000)


@attrs.frozen
class Join(Message):
    """Take a free seat at a table (the first free one if ``seat`` is nil)."""

    TYPE = "join"
    SENDER = Sender.CLIENT
    table: int = field(TABLE_ID)
    seat: int | None = field(Optional(SEAT), None)


@attrs.frozen
class Watch(Message):
    TYPE = "watch"
    SENDER = Sender.CLIENT
    table: int = field(TABLE_ID)


@attrs.frozen
class Start(Message):
    """Start the game now (the table's creator only); bots take the empty seats."""

    TYPE = "start"
    SENDER = Sender.CLIENT


@attrs.frozen
class Leave(Message):
    TYPE = "leave"
    SENDER = Sender.CLIENT


@attrs.frozen
class Act(Message):
    """A game action in its text form, as the view's ``legal`` lists them (Notty: ``draw 2``,
    ``steal 1``, ``discard R3 R4 R5``, ``end``)."""

    TYPE = "act"
    SENDER = Sender.CLIENT
    action: str = field(ACTION)


@attrs.frozen
class AskHint(Message):
    TYPE = "hint"
    SENDER = Sender.CLIENT


@attrs.frozen
class PlayForMe(Message):
    """Let the server's bot play the rest of this turn."""

    TYPE = "auto"
    SENDER = Sender.CLIENT


@attrs.frozen
class Autopilot(Message):
    """Let the server's bot play every one of your turns (``on``), a turn under way included,
    until you send it again with ``on`` false; it outlasts a dropped connection."""

    TYPE = "autopilot"
    SENDER = Sender.CLIENT
    on: bool = field(Bool())


@attrs.frozen
class Resign(Message):
    """Concede the game; it cannot be undone (docs/PROTOCOL.md says how each game ranks it)."""

    TYPE = "resign"
    SENDER = Sender.CLIENT


@attrs.frozen
class Ping(Message):
    TYPE = "ping"
    SENDER = Sender.CLIENT
    nonce: int = field(Int(0, 2**32 - 1))


@attrs.frozen
class Bye(Message):
    """The client is leaving; the server closes the connection."""

    TYPE = "bye"
    SENDER = Sender.CLIENT


# -- server to client --------------------------------------------------------------

SEAT_INFO = Map({"name": Optional(NAME), "bot": Optional(BOT), "connected": Bool()})
TABLE_INFO = Map(
    {
        "table": TABLE_ID,
        "game": GAME_NAME,
        "variant": VARIANT,
        "seats": List(SEAT_INFO, MAX_SEATS),
        "started": Bool(),
        "over": Bool(),
        "spectators": Int(0, MAX_SPECTATORS),
        "turn_seconds": Int(0, 3600),
        "options": OPTIONS,
        # The turn of a game under way (nil otherwise), and the seats a bot plays now: its own, or a
        # stand-in for its person.
        "turn": Optional(Int(1, 2**31 - 1)),
        "bots": List(SEAT, MAX_SEATS),
        # The seats a person holds, there or away: while one is, the game waits for them.
        "kept": List(SEAT, MAX_SEATS),
    },
)
#: How a game ended: every seat ranked, first place first (seats tied share a place); and, from a
#: server that says so, the id its record keeps the game under (``notty-server replay ID``) and
#: the seconds it took, by the wall clock, from its start.
RESULT = Map(
    {
        "ranking": List(List(SEAT, MAX_SEATS), MAX_SEATS),
        "reason": CODE,
        "text": Str(1, 400),
        "game_id": TABLE_ID,
        "seconds": Int(0, 2**31 - 1),
    },
    optional=frozenset({"game_id", "seconds"}),
)
#: The envelope every game's view shares; ``body`` is the game's own (docs/GAMES.md).
VIEW = Map(
    {
        "game": GAME_NAME,
        "variant": VARIANT,
        "names": List(NAME, MAX_SEATS),
        "seat": Optional(SEAT),
        "current": SEAT,
        "turn": Int(1, 2**31 - 1),
        "legal": List(ACTION, MAX_LEGAL),
        "result": Optional(RESULT),
        "body": Data(mapping=True),
        "bots": List(SEAT, MAX_SEATS),  # the seats a bot plays now, as in the table map
        "bot_turn": Bool(),  # a bot plays the turn under way: the seat's own, or one for its person
        "turn_seconds": Int(0, 3600),  # the table's turn time, as in the table map
        "away": Int(1, 2**31 - 1),  # to a player back from a drop: the moves made while they were away
        "turn_left": Int(0, 3600),  # seconds left of a person's turn under way, where turns are timed
        "kept": List(SEAT, MAX_SEATS),  # the seats a person holds, there or away, as in the table map
        "played_for": SEAT,  # the seat a bot made the events' move on for its person
    },
    optional=frozenset({"bots", "bot_turn", "turn_seconds", "away", "turn_left", "kept", "played_for"}),
)
EVENT = Map({"kind": CODE, "text": Str(0, 400), "data": Data(depth=4, mapping=True)})
VARIANT_INFO = Map(
    {
        "name": VARIANT,
        "min_players": Int(1, MAX_SEATS),
        "max_players": Int(1, MAX_SEATS),
        "summary": Str(0, 200),
    }
)
OPTION_INFO = Map(
    {
        "name": Str(1, 32, r"[a-z][a-z0-9_]*"),
        "summary": Str(0, 200),
        "default": Data(depth=0, text=64),
        "choices": List(Str(1, 32), 32),
        "low": Int(-(2**31), 2**31),
        "high": Int(-(2**31), 2**31),
    },
    optional=frozenset({"choices", "low", "high"}),
)
#: A game a server hosts, as its welcome describes it.
GAME_INFO = Map(
    {
        "name": GAME_NAME,
        "title": Str(1, 64),
        "variants": List(VARIANT_INFO, 32),
        "bots": List(BOT, 64),
        "options": List(OPTION_INFO, 32),
    }
)
#: The most a welcome's rates say, in messages per 1000 seconds: a million a second.
MAX_RATE = 10**9
#: The most a welcome's bursts say.
MAX_BURST = 2**31 - 1
#: The limits a server holds each connection to, as its welcome says them (docs/SERVER.md, Limits):
#: messages at ``rate_per_1000s`` on average and ``burst`` at once (a message counts once for each
#: KiB of its body begun, :func:`protocol.message_cost`), and hints at ``hint_rate_per_1000s`` and
#: ``hint_burst`` at once besides. A rate is a whole number of messages per 1000 seconds: exact for
#: any rate given to a thousandth of a message a second, with no float on the wire. A server rounds
#: its rates down, and a burst above :data:`MAX_BURST` to it, so that a client that keeps to what it
#: says is never refused for it.
LIMITS = Map(
    {
        "rate_per_1000s": Int(1, MAX_RATE),
        "burst": Int(1, MAX_BURST),
        "hint_rate_per_1000s": Int(1, MAX_RATE),
        "hint_burst": Int(1, MAX_BURST),
    }
)


@attrs.frozen
class Welcome(Message):
    """First message from the server, answering a valid :class:`Hello`: its name, the games it
    hosts, and the :data:`LIMITS` it holds this connection to (given by name: ``limits=``)."""

    TYPE = "welcome"
    SENDER = Sender.SERVER
    version: int = field(VERSION)
    server: str = field(Str(1, 64))
    games: tuple[Mapping[str, Any], ...] = field(List(GAME_INFO, 32), ())
    limits: Mapping[str, int] = field(LIMITS, kw_only=True)


@attrs.frozen
class Tables(Message):
    TYPE = "tables"
    SENDER = Sender.SERVER
    tables: tuple[Mapping[str, Any], ...] = field(List(TABLE_INFO, 10_000))


@attrs.frozen
class Seated(Message):
    """You hold ``seat`` at ``table``; keep ``token`` secret to resume after a drop."""

    TYPE = "seated"
    SENDER = Sender.SERVER
    table: int = field(TABLE_ID)
    seat: int = field(SEAT)
    token: str = field(TOKEN)


@attrs.frozen
class Watching(Message):
    TYPE = "watching"
    SENDER = Sender.SERVER
    table: int = field(TABLE_ID)


@attrs.frozen
class Left(Message):
    """You are back in the lobby."""

    TYPE = "left"
    SENDER = Sender.SERVER
    table: int = field(TABLE_ID)


@attrs.frozen
class State(Message):
    """The table as you may see it, after ``events`` (oldest first) changed it."""

    TYPE = "state"
    SENDER = Sender.SERVER
    table: int = field(TABLE_ID)
    view: Mapping[str, Any] = field(VIEW)
    events: tuple[Mapping[str, Any], ...] = field(List(EVENT, 1000))


@attrs.frozen
class Hint(Message):
    """The game's best move for you: in words (``text``), as actions to type in order, and as
    ``data`` the game's client may show its own way (Notty: the discard, the alternatives, the outs)."""

    TYPE = "hint"
    SENDER = Sender.SERVER
    text: str = field(Str(0, 2000))
    actions: tuple[str, ...] = field(List(ACTION, 50), ())
    data: Mapping[str, Any] = field(Data(mapping=True), FrozenMap({}))


@attrs.frozen
class Error(Message):
    """A refusal. Nothing changed. ``rule`` names the game rule an action broke, if any."""

    TYPE = "error"
    SENDER = Sender.SERVER
    code: str = field(CODE)
    message: str = field(Str(1, 500))
    rule: str | None = field(Optional(CODE), None)


#: What a notice may tell of a seat: its player took it or gave it up, their connection dropped
#: (the seat is held), they came back to it, a bot began to play it for them, their turn ran out
#: of time; they turned their autopilot on or off, or resigned.
NOTICE_KINDS = (
    "joined", "left", "dropped", "returned", "stand-in", "timed-out",
    "autopilot-on", "autopilot-off", "resigned",
)  # fmt: skip
#: The longest notice text.
MAX_NOTICE_TEXT = 200


@attrs.frozen
class Notice(Message):
    """Something happened to a seat at your table that the game's events do not tell: ``kind``
    says what (one of :data:`NOTICE_KINDS`), ``text`` says it in words for a client that does not
    know the kind, ``seconds`` is how long a dropped seat is held or the turn time that ran out."""

    TYPE = "notice"
    SENDER = Sender.SERVER
    table: int = field(TABLE_ID)
    seat: int = field(SEAT)
    name: str = field(NAME)
    kind: str = field(OneOf(NOTICE_KINDS))
    text: str = field(Str(1, MAX_NOTICE_TEXT))
    seconds: int | None = field(Optional(Int(0, 2**31 - 1)), None)


@attrs.frozen
class Pong(Message):
    TYPE = "pong"
    SENDER = Sender.SERVER
    nonce: int = field(Int(0, 2**32 - 1))


@attrs.frozen
class Goodbye(Message):
    """The server is closing this connection (shutdown, a fatal error, or after :class:`Bye`)."""

    TYPE = "goodbye"
    SENDER = Sender.SERVER
    reason: str = field(Str(1, 500))


MESSAGES: dict[tuple[Sender, str], type[Message]] = {
    (cls.SENDER, cls.TYPE): cls
    for cls in (
        Hello, ListTables, CreateTable, Join, Watch, Start, Leave, Act, AskHint, PlayForMe, Autopilot,
        Resign, Ping, Bye,
        Welcome, Tables, Seated, Watching, Left, State, Notice, Hint, Error, Pong, Goodbye,
    )
}  # fmt: skip


def message_from_wire(body: Mapping[str, Any], sender: Sender) -> Message:
    """The message a decoded frame from ``sender`` holds, or :class:`ProtocolError` saying what is wrong."""
    kind = body.get("type")
    cls = MESSAGES.get((sender, kind)) if isinstance(kind, str) else None
    if cls is None:
        known = sorted(t for s, t in MESSAGES if s is sender)
        raise ProtocolError(
            "unknown-message", f"unknown message type {kind!r}; {sender.value}s send {', '.join(known)}"
        )
    fields = {attribute.name: attribute for attribute in _fields(cls)}
    unknown = sorted(ascii(key) for key in body if key != "type" and key not in fields)
    if unknown:
        raise invalid(cls.TYPE, f"unknown field(s) {', '.join(unknown)}")
    missing = sorted(name for name, a in fields.items() if a.default is attrs.NOTHING and name not in body)
    if missing:
        raise invalid(cls.TYPE, f"missing field(s) {', '.join(missing)}")
    return cls(**{name: body[name] for name in fields if name in body})
