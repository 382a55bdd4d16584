"""``notty-server``: host Notty tables on the LAN."""

from __future__ import annotations

import argparse
import logging
import random
import secrets
import signal
import sys
from collections.abc import Sequence

import trio

from protocol import DEFAULT_PORT

from .host import Host
from .net import NottyServer

log = logging.getLogger("notty.server")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="notty-server", description="Host Notty tables for players on your network."
    )
    parser.add_argument("--host", default=None, help="address to listen on (default: every interface)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 picks one)"
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="seconds a dropped player keeps their seat before a bot stands in",
    )
    parser.add_argument("--name", default="notty", help="the server's name, shown to clients")
    return parser


def make_host(name: str, grace: float) -> Host:
    """A host for live play: unpredictable deals and unguessable seat tokens."""
    return Host(
        new_rng=lambda: random.Random(secrets.randbits(128)),
        new_token=lambda: secrets.token_urlsafe(32),
        name=name,
        grace=grace,
    )


async def run(host: str | None, port: int, name: str, grace: float) -> None:
    server = NottyServer(make_host(name, grace))
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve, host, port)

            async def stop_on_signal() -> None:
                async for signum in signals:
                    log.info("%s: telling clients and stopping", signal.Signals(signum).name)
                    await server.shutdown()
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(stop_on_signal)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        _parser().error("--port must be 0 to 65535")
    if args.grace < 0:
        _parser().error("--grace must be 0 or more")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    try:
        trio.run(run, args.host, args.port, args.name, args.grace)
    except OSError as error:
        log.error("cannot listen on port %d: %s", args.port, error.strerror or error)
        return 1
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
