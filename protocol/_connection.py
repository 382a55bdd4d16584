"""The connection state machine, one per side (after h11): which messages are legal when.

Both sides run the same machine. The server's replies move it along
(``welcome`` into the lobby, ``seated`` to a table, ``left`` back to the
lobby, ``goodbye`` to closed), whichever side is tracking them, so a client
and a server fed the same stream agree on the state.
"""

from __future__ import annotations

import enum
from typing import Any

from ._framing import MAX_CLIENT_FRAME, MAX_CLIENT_ITEMS, FrameDecoder, ProtocolError, encode_frame
from ._messages import (
    PROTOCOL_VERSION,
    VERSION,
    Act,
    AskHint,
    Autopilot,
    Bye,
    CreateTable,
    Error,
    Goodbye,
    Hello,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Notice,
    Ping,
    PlayForMe,
    Pong,
    Resign,
    Seated,
    Sender,
    Start,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
    message_from_wire,
)


class ConnectionState(enum.Enum):
    HELLO = "hello"  # nothing yet: the client must say hello, the server welcome
    LOBBY = "lobby"
    SEATED = "seated"  # holding a seat at a table
    WATCHING = "watching"  # a spectator at a table
    CLOSED = "closed"


_S = ConnectionState
_ANYWHERE = {ListTables, Ping, Bye}

#: What a client may send in each state.
CLIENT_MAY_SEND: dict[ConnectionState, frozenset[type[Message]]] = {
    _S.HELLO: frozenset({Hello}),
    _S.LOBBY: frozenset({CreateTable, Join, Watch, *_ANYWHERE}),
    _S.SEATED: frozenset({Start, Leave, Act, AskHint, PlayForMe, Autopilot, Resign, *_ANYWHERE}),
    _S.WATCHING: frozenset({Leave, AskHint, *_ANYWHERE}),
    _S.CLOSED: frozenset(),
}

_ALWAYS = {Error, Goodbye}
#: What a server may send in each state. Once closed, it may still say why (error) and goodbye.
SERVER_MAY_SEND: dict[ConnectionState, frozenset[type[Message]]] = {
    _S.HELLO: frozenset({Welcome, *_ALWAYS}),
    _S.LOBBY: frozenset({Tables, Seated, Watching, Pong, *_ALWAYS}),
    _S.SEATED: frozenset({Tables, State, Notice, Hint, Left, Pong, *_ALWAYS}),
    _S.WATCHING: frozenset({Tables, State, Notice, Hint, Left, Pong, *_ALWAYS}),
    _S.CLOSED: frozenset(_ALWAYS),
}

_NEXT_STATE: dict[type[Message], ConnectionState] = {
    Welcome: _S.LOBBY,
    Seated: _S.SEATED,
    Watching: _S.WATCHING,
    Left: _S.LOBBY,
    Goodbye: _S.CLOSED,
    Bye: _S.CLOSED,
}


class LocalProtocolError(ValueError):
    """We tried to send something the protocol does not allow now: a bug on our side."""


class Connection:
    """One side of a connection, sans-IO: bytes in, messages out; messages in, bytes out."""

    def __init__(self, our_role: Sender) -> None:
        self.our_role = our_role
        self.their_role = Sender.SERVER if our_role is Sender.CLIENT else Sender.CLIENT
        self.state = ConnectionState.HELLO
        # A server reads clients' small messages only; a client reads whatever the server sends.
        self._frames = (
            FrameDecoder(MAX_CLIENT_FRAME, MAX_CLIENT_ITEMS) if our_role is Sender.SERVER else FrameDecoder()
        )

    @staticmethod
    def allowed(sender: Sender, state: ConnectionState) -> frozenset[type[Message]]:
        return (CLIENT_MAY_SEND if sender is Sender.CLIENT else SERVER_MAY_SEND)[state]

    def receive_data(self, data: bytes) -> None:
        """Bytes from the peer. Raises a fatal :class:`ProtocolError` if the stream is broken."""
        try:
            self._frames.receive_data(data)
        except ProtocolError:
            self.state = ConnectionState.CLOSED
            raise

    def next_size(self) -> int | None:
        """The body size of the next message if all of it is here, before it is decoded (decoding
        takes time in proportion to its size: a server charges for it first), else ``None``."""
        return self._frames.next_size()

    def skip(self) -> None:
        """Drop the next message unread (one over the sender's rate, say): nothing else changes."""
        self._frames.skip()

    def next_event(self) -> Message | None:
        """The next message from the peer, or ``None`` until more bytes arrive.

        Raises :class:`ProtocolError` for a malformed message or one not allowed
        now; unless the error is ``fatal`` the connection goes on, unchanged.
        """
        try:
            body = self._frames.next_frame()
        except ProtocolError as error:
            if error.fatal:
                self.state = ConnectionState.CLOSED
            raise
        if body is None:
            return None
        if self.state is ConnectionState.HELLO:
            self._check_version(body)
        message = message_from_wire(body, self.their_role)
        if type(message) not in self.allowed(self.their_role, self.state):
            if self.state is ConnectionState.HELLO and self.their_role is Sender.CLIENT:
                raise ProtocolError("hello-first", f"say hello first, not {message.TYPE}")
            raise ProtocolError("not-now", f"{message.TYPE} is not allowed while {self.state.value}")
        self._advance(message)
        return message

    def _check_version(self, body: dict[str, Any]) -> None:
        """The peer's opening message speaks another version: refuse it (fatally) before reading the
        rest, which that version may shape differently, so its sender learns why and not just that
        a field is wrong."""
        opening = Hello if self.their_role is Sender.CLIENT else Welcome
        if body.get("type") != opening.TYPE:
            return
        try:
            version = VERSION.check(body.get("version"), f"{opening.TYPE}.version")
        except ProtocolError:
            return  # no version, or not one: the full check names the field
        if version != PROTOCOL_VERSION:
            self.state = ConnectionState.CLOSED
            raise ProtocolError(
                "version",
                f"protocol version {version} is not spoken here; this side speaks {PROTOCOL_VERSION}",
                fatal=True,
            )

    def send(self, message: Message, *, frame: bytes | None = None) -> bytes:
        """The bytes that carry ``message`` to the peer. ``frame`` is those bytes, packed before
        for another peer (a message sent to many, such as a server's list of tables, is packed once)."""
        if message.SENDER is not self.our_role:
            raise LocalProtocolError(f"a {self.our_role.value} does not send {message.TYPE}")
        if type(message) not in self.allowed(self.our_role, self.state):
            raise LocalProtocolError(f"cannot send {message.TYPE} while {self.state.value}")
        data = encode_frame(message.wire_body()) if frame is None else frame
        self._advance(message)
        return data

    def _advance(self, message: Message) -> None:
        self.state = _NEXT_STATE.get(type(message), self.state)
