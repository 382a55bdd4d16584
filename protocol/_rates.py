"""What a message costs its sender, and the token bucket it is charged from.

A server holds each connection to a rate and a burst of messages, and of hints
(docs/PROTOCOL.md, the error ``rate-limit``); a client that keeps to them is
never refused for them. Both sides count alike with what is here: the server
to enforce its limits, a client to pace what it sends. Kept free of clocks, as
the rest of the package is of I/O: the caller says what time it is.
"""

from __future__ import annotations

import attrs

#: A message costs one token of its sender's allowance for each KiB of its body begun: reading
#: one takes time in proportion to its size (a body of 8 KiB of empty maps, 2 ms), and a cost
#: per message alone let a client within its rate keep the server busy with the biggest ones.
CHARGE_BYTES = 1024


def message_cost(size: int, burst: float) -> float:
    """What a message body of ``size`` bytes costs a bucket that holds at most ``burst``: never more
    than the bucket can hold, so that any message a client may send is taken in time."""
    return float(min(max(1, -(-size // CHARGE_BYTES)), burst))


@attrs.define
class TokenBucket:
    """At most ``burst`` at once, ``rate`` a second on average; the caller says what time it is.

    Taking the time as an argument keeps the bucket exact under test and lets the shell
    use Trio's clock.
    """

    rate: float
    burst: float
    tokens: float = attrs.field(default=attrs.Factory(lambda self: float(self.burst), takes_self=True))
    stamp: float | None = None  # when tokens was last brought up to date

    def available(self, now: float) -> float:
        """The tokens there are at ``now``."""
        if self.stamp is None or now > self.stamp:  # a clock that steps back mints nothing
            if self.stamp is not None:
                self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
        return self.tokens

    def full(self, now: float) -> bool:
        """Grown back to its burst: no different from a new bucket."""
        return self.available(now) >= self.burst

    def take(self, now: float, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if there are that many; a refusal spends nothing."""
        if self.available(now) >= cost:
            self.tokens -= cost
            return True
        return False
