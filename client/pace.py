"""Keeping to the rates a server allows, so that a paste waits its turn rather than be refused."""

from __future__ import annotations

from collections.abc import Mapping

from protocol import AskHint, Bye, Message, TokenBucket, message_cost

#: What a client keeps to until a server's welcome says its own limits: a server's defaults
#: (docs/SERVER.md, Limits), as a welcome says them (:data:`protocol.LIMITS`).
DEFAULT_SERVER_LIMITS: Mapping[str, int] = {
    "rate_per_1000s": 20_000,
    "burst": 40,
    "hint_rate_per_1000s": 500,
    "hint_burst": 3,
}


class Pace:
    """The rates the server holds a connection to, as its welcome says them (until one does, a
    server's defaults), kept to here: a message waits its turn rather than be refused, since ten
    refused in a row end the connection (a person who pasted 80 lines was cut off). Only half of each
    burst is spent at once: the rest is room for the network, which may deliver together messages
    sent apart."""

    def __init__(self, limits: Mapping[str, int] = DEFAULT_SERVER_LIMITS) -> None:
        messages, hints = _allowances(limits)
        self.messages, self.hints = TokenBucket(*messages), TokenBucket(*hints)
        # The sizes of what this connection sent before its welcome; None once welcomed.
        self._unwelcomed: list[int] | None = None

    def connecting(self) -> None:
        """A new connection: what it sends before its welcome (the hello) the server charges on its
        own terms, which the welcome says (:meth:`follow`)."""
        self._unwelcomed = []

    def follow(self, limits: Mapping[str, int], now: float) -> None:
        """Keep to ``limits`` from ``now`` on: a welcome's, on each connection. What was spent stays
        spent (no more is in hand than the new burst allows), since the server's allowance for an
        address outlasts a connection."""
        for bucket, (rate, burst) in zip((self.messages, self.hints), _allowances(limits), strict=True):
            in_hand = bucket.available(now)
            bucket.rate, bucket.burst, bucket.tokens = rate, burst, min(in_hand, float(burst))
        # The hello was charged on the server's terms: with a burst of 1 it left nothing in hand
        # there, and the next message, sent at once by the defaults' reckoning, was refused.
        spent = sum(message_cost(size, self.messages.burst) for size in self._unwelcomed or ())
        self.messages.tokens = max(0.0, min(self.messages.tokens, self.messages.burst - spent))
        self._unwelcomed = None

    def wait(self, message: Message, size: int, now: float) -> float:
        """Seconds until ``message``, of a body ``size`` bytes long, may go; 0: now, and it is charged
        as the server will charge it. A ``bye`` goes at once: the server never refuses one."""
        if isinstance(message, Bye):
            return 0.0
        needs = [(self.messages, message_cost(size, self.messages.burst))]
        if isinstance(message, AskHint):
            needs.append((self.hints, 1.0))
        wait = max((cost - bucket.available(now)) / bucket.rate for bucket, cost in needs)
        if wait > 0:
            return wait
        for bucket, cost in needs:
            bucket.take(now, cost)
        if self._unwelcomed is not None:
            self._unwelcomed.append(size)
        return 0.0


def _allowances(limits: Mapping[str, int]) -> tuple[tuple[float, int], tuple[float, int]]:
    """What :class:`Pace` keeps to of a welcome's limits, for messages and for hints: the rate a
    second, and what may go at once: half the message burst, one less than the hint burst (at least
    one of each)."""
    messages = (limits["rate_per_1000s"] / 1000, max(1, limits["burst"] // 2))
    hints = (limits["hint_rate_per_1000s"] / 1000, max(1, limits["hint_burst"] - 1))
    return messages, hints
