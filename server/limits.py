"""The server's abuse limits: what one client, or many, may cost it.

A LAN server still meets buggy clients, scripts stuck in a loop and the odd
port scanner. Each limit here bounds one resource (time, CPU, memory, the
number of connections or tables); ``docs/SERVER.md`` says what a client hears
when it hits one. The shell (:mod:`server.net`) enforces them; this module only
holds the numbers and the flags that set them. The token bucket that counts
them, kept free of clocks so it can be tested exactly, is the protocol's
(:mod:`protocol._rates`): a client paces itself with the same one.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
from collections.abc import Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

import attrs

from games._words import counted

# The bucket and the cost of a message are the protocol's, which a client counts with too: here
# they are the server's as well.
from protocol import CHARGE_BYTES as CHARGE_BYTES
from protocol import MAX_BURST, MAX_RATE
from protocol import TokenBucket as TokenBucket
from protocol import message_cost as message_cost

#: Rate-limited messages in a row, with none accepted between, before the connection is
#: closed: a client that floods gets this many ``rate-limit`` errors, then goodbye, so what
#: the server writes back stays bounded however fast it sends.
MAX_REFUSALS = 10


def _positive(instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not value > 0 or value == float("inf"):  # `not >` also catches nan
        raise ValueError(f"{attribute.name} must be a positive, finite number, not {value!r}")


@attrs.frozen
class Limits:
    """Every limit in one place, so the CLI, the shell and the tests agree on them."""

    hello_seconds: float = attrs.field(default=10.0, validator=_positive)
    idle_seconds: float = attrs.field(default=60.0, validator=_positive)
    rate: float = attrs.field(default=20.0, validator=_positive)
    burst: int = attrs.field(default=40, validator=_positive)
    hint_rate: float = attrs.field(default=0.5, validator=_positive)
    hint_burst: int = attrs.field(default=3, validator=_positive)
    max_connections: int = attrs.field(default=2000, validator=_positive)
    max_tables: int = attrs.field(default=1000, validator=_positive)
    # From one address, so that a single client cannot take every connection or every table.
    connections_per_address: int = attrs.field(default=200, validator=_positive)
    tables_per_address: int = attrs.field(default=50, validator=_positive)
    # What one address may have recorded: games of bots alone play unattended and as fast as the
    # CPU allows, so they are few at once and paced; and games begun (any kind) are so many an hour.
    bot_tables_per_address: int = attrs.field(default=2, validator=_positive)
    games_per_hour: int = attrs.field(default=60, validator=_positive)
    bot_only_delay: float = attrs.field(default=0.2, validator=_positive)
    queue: int = attrs.field(default=256, validator=_positive)
    queue_bytes: int = attrs.field(default=1 << 20, validator=_positive)
    # Every client's queue together: past it, the client with the most queued is dropped.
    queue_total_bytes: int = attrs.field(default=128 << 20, validator=_positive)
    abandon_seconds: float = attrs.field(default=43200.0, validator=_positive)
    # One address's share over all its connections, which the per-connection rates alone would let
    # grow with connections_per_address: five connections' messages, four connections' hints (and
    # never less than one connection's, whatever the flags say).
    address_rate: float = attrs.field(default=100.0, validator=_positive)
    address_burst: int = attrs.field(default=200, validator=_positive)
    address_hint_rate: float = attrs.field(default=2.0, validator=_positive)
    address_hint_burst: int = attrs.field(default=6, validator=_positive)
    # New connections from one address: a client that is turned away, or closed for flooding, and
    # connects again at once costs the server an accept and a refusal each time, thousands a second.
    connection_rate: float = attrs.field(default=10.0, validator=_positive)
    connection_burst: int = attrs.field(default=60, validator=_positive)
    # Bot and hint jobs waiting for a worker thread before hints are refused (bots never are).
    work_queue: int = attrs.field(default=256, validator=_positive)


@attrs.define
class Allowance:
    """One address's share, over all its connections: its messages, its hints, its new connections."""

    messages: TokenBucket
    hints: TokenBucket
    connections: TokenBucket

    def full(self, now: float) -> bool:
        """Grown back in full: forgetting it and making a new one changes nothing."""
        return self.messages.full(now) and self.hints.full(now) and self.connections.full(now)


#: The server log's lines about one address's connections: a burst, then so many a second. A
#: client that connects and closes in a loop wrote two lines a connection, 660 KiB a second.
LOG_LINES_BURST = 30
LOG_LINES_RATE = 1.0
#: Addresses whose log allowance is kept before those grown back in full are forgotten.
LOG_ADDRESSES = 4096
#: Autopilot switches of one seat: a burst, then one every so many seconds. Each is a line of the
#: record and a notice to everyone at the table: an audit switched it 19 times a second.
AUTOPILOT_BURST = 10
AUTOPILOT_EVERY = 10.0


class LogAllowance:
    """How many lines the log may still say about each address's connections (see above).

    :meth:`take` says whether a line may be written and how many were left out since the last
    one, for that line to say so: what one client can make the log grow by stays bounded.
    """

    def __init__(self, rate: float = LOG_LINES_RATE, burst: int = LOG_LINES_BURST) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, TokenBucket] = {}
        self._left_out: dict[str, int] = {}
        self._swept: float | None = None  # when the full table was last swept of what it may forget

    def take(self, address: str, now: float) -> int | None:
        """``None``: leave this line out. Else the lines left out before it (0 for none)."""
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= LOG_ADDRESSES and (self._swept is None or now - self._swept >= 1):
                self._swept = now  # at most a sweep a second, however many new addresses come
                self._forget(now)
            if len(self._buckets) >= LOG_ADDRESSES:  # thousands of addresses at once: not one more
                return None
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
        if not bucket.take(now):
            self._left_out[address] = self._left_out.get(address, 0) + 1
            return None
        return self._left_out.pop(address, 0)

    def _forget(self, now: float) -> None:
        """An address with its whole allowance back is like a new one (what was left out of its
        lines goes unsaid: it has been quiet since for as long as its burst takes to grow back)."""
        for address, bucket in list(self._buckets.items()):
            if bucket.full(now):
                del self._buckets[address]
                self._left_out.pop(address, None)


#: While the host answers a client's message: the log's allowance, the client's address (as the
#: caps count it) and the time by the shell's clock. Set by the shell around each answer.
ANSWERING: ContextVar[tuple[LogAllowance, str, float] | None] = ContextVar("notty_answering", default=None)


#: ``extra`` for a line about a game's own course (begun, over): news of everyone's game at the
#: table, never charged to the client whose message brought it about (a review saw another
#: address's spent allowance drop the start of ann's game).
GAME_LINE: Mapping[str, object] = MappingProxyType({"uncounted": True})
#: ... and for the first traceback of a kind of host failure: news for the operator, whoever's
#: message brought it about.
FIRST_FAILURE = GAME_LINE


class LinesOfAnAnswer(logging.Filter):
    """Lines the host writes while it answers a client (a seat joined, an autopilot switched, a
    table created) count against that client's address's allowance of log lines, as its
    connection lines do: an audit switched an autopilot on and off 19 times a second, each
    switch a line, which could grow the log by a gigabyte a day. Lines of the server's own doing
    (a bot's move, a timer), and a game's start and end (``GAME_LINE``), are not counted."""

    def filter(self, record: logging.LogRecord) -> bool:
        answering = ANSWERING.get()
        if answering is None or getattr(record, "uncounted", False):
            return True
        allowance, address, now = answering
        left_out = allowance.take(address, now)
        if left_out is None:
            return False
        if left_out:
            said = counted(left_out, "line")
            record.msg = f"{record.getMessage()} ({said} about {address} left out before this one)"
            record.args = None
        return True


#: How much of an IPv6 address one remote machine may be taken to own: its network's /64.
IPV6_PREFIX = 64


def counted_address(host: str, local: str | None = None) -> str:
    """The address the per-address caps count a peer under; ``local`` is the server's end.

    An IPv4 peer counts as its own address. A host on the internet is
    usually given a whole /64 and can pick any address in it, so a remote
    IPv6 peer counts as its /64. On the server's own network every machine
    shares that /64, so there (and for link-local peers) each address counts
    alone, as in IPv4. Anything unparsable counts as itself.
    """
    ip = _parse(host)
    if ip is None:
        return host
    if not isinstance(ip, ipaddress.IPv6Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    network = ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False)
    server = None if local is None else _parse(local)
    if ip.is_link_local or ip.is_loopback or (server is not None and server in network):
        return host
    return str(network)


def _parse(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])  # without a zone (fe80::1%eth0)
    except ValueError:
        return None


#: The limits a server runs with unless told otherwise.
DEFAULT_LIMITS = Limits()


def announced(limits: Limits) -> dict[str, int]:
    """What the welcome says of ``limits`` (protocol ``LIMITS``): the rate and burst each connection
    is held to, for messages and for hints, so that a client can keep to them. Never more than the
    server allows: rates are rounded down to a thousandth of a message a second, and a burst beyond
    the protocol's bound goes down to it."""
    return {
        "rate_per_1000s": _per_1000s(limits.rate),
        "burst": _burst(limits.burst),
        "hint_rate_per_1000s": _per_1000s(limits.hint_rate),
        "hint_burst": _burst(limits.hint_burst),
    }


def _per_1000s(rate: float) -> int:
    """``rate`` a second as messages per 1000 seconds: the rate given, to a thousandth (``0.3`` is
    300), or just under it. One under a thousandth a second, which no server has reason to set (it
    would take over a quarter of an hour to earn back a message), is said as one: the least the
    protocol can say."""
    count = round(rate * 1000)
    if count / 1000 > rate:
        count -= 1
    return min(max(count, 1), MAX_RATE)


def _burst(burst: float) -> int:
    return min(max(int(burst), 1), MAX_BURST)


# -- command-line flags ---------------------------------------------------------------

#: flag -> (Limits field, type, what it limits)
_FLAGS: dict[str, tuple[str, type, str]] = {
    "--hello-timeout": ("hello_seconds", float, "seconds a new connection has to say hello"),
    "--idle-timeout": (
        "idle_seconds",
        float,
        "seconds without a whole message from a client before it is dropped (send ping)",
    ),
    "--rate": ("rate", float, "messages a second each connection may send, on average"),
    "--burst": ("burst", int, "messages a connection may send at once, above the rate"),
    "--hint-rate": ("hint_rate", float, "hints a second each connection may ask for, on average"),
    "--hint-burst": ("hint_burst", int, "hints a connection may ask for at once"),
    "--max-connections": ("max_connections", int, "connections at once; more are refused"),
    "--max-tables": ("max_tables", int, "tables at once; creating more is refused"),
    "--max-connections-per-address": (
        "connections_per_address",
        int,
        "connections at once from one address; more are refused",
    ),
    "--max-tables-per-address": (
        "tables_per_address",
        int,
        "tables created from one address that are still open; creating more is refused",
    ),
    "--max-bot-tables-per-address": (
        "bot_tables_per_address",
        int,
        "tables of bots alone (no human seat) created from one address that are still open",
    ),
    "--max-games-per-hour": (
        "games_per_hour",
        int,
        "tables one address may create in an hour, each a game the record keeps",
    ),
    "--bot-only-delay": (
        "bot_only_delay",
        float,
        "seconds between moves, at the least, at a table where nobody plays their own seat (bots alone, "
        "autopilots, stand-ins)",
    ),
    "--abandon-after": ("abandon_seconds", float, "seconds a game with nobody at it is kept for its players"),
    "--queue": ("queue", int, "messages waiting for a slow client before it is dropped"),
    "--queue-bytes": ("queue_bytes", int, "bytes waiting for a slow client before it is dropped"),
    "--queue-total-bytes": (
        "queue_total_bytes",
        int,
        "bytes waiting for all clients together before the one with the most is dropped",
    ),
    "--address-rate": ("address_rate", float, "messages a second one address may send, on average"),
    "--address-burst": ("address_burst", int, "messages one address may send at once, above its rate"),
    "--address-hint-rate": ("address_hint_rate", float, "hints a second one address may ask for, on average"),
    "--address-hint-burst": ("address_hint_burst", int, "hints one address may ask for at once"),
    "--connection-rate": (
        "connection_rate",
        float,
        "new connections a second one address may open, on average; more are turned away",
    ),
    "--connection-burst": ("connection_burst", int, "new connections one address may open at once"),
    "--work-queue": ("work_queue", int, "hints waiting for their thread; more are refused"),
}


def _positive_number(kind: type) -> Any:
    def parse(text: str) -> float | int:
        try:
            value: float | int = kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}") from None
        if not value > 0:  # also refuses nan
            raise argparse.ArgumentTypeError(f"must be more than 0, not {text!r}")
        if value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be finite, not {text!r}")
        return value

    return parse


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every limit, each defaulting to :class:`Limits`' value."""
    group = parser.add_argument_group("limits", "what one client, or all of them, may cost the server")
    for flag, (field, kind, text) in _FLAGS.items():
        default = getattr(DEFAULT_LIMITS, field)
        shown = f"{default:g}" if isinstance(default, float) else str(default)
        group.add_argument(
            flag,
            dest=field,
            type=_positive_number(kind),
            default=default,
            metavar="N",
            help=f"{text} (default {shown})",
        )


def limits_from_args(args: argparse.Namespace) -> Limits:
    """The limits the flags of :func:`add_limit_arguments` asked for."""
    return Limits(**{field: getattr(args, field) for field, _, _ in _FLAGS.values()})
