"""``notty-watch``: watch bots play one game in the terminal, action by action."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Sequence

from client.output import stdout_to_nowhere
from games._words import counted
from games.notty import PRESETS
from games.notty.bots import BOTS, Bot
from games.notty.engine import Action, Event, Game, TurnEnded
from games.notty.game import BOT_TURN_LIMIT
from games.notty.match import lineup, play_bots, seeded_game
from games.notty.ui import ENDS_A_TURN, colour_cards_in, hand_lines, turn_end_text
from games.notty.wire import event_to_wire


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="notty-watch", description="Watch bots play a game of Notty.")
    parser.add_argument(
        "--players",
        default="greedy,random,greedy",
        help=f"2 or 3 bots from: {', '.join(BOTS)} (default greedy,random,greedy)",
    )
    parser.add_argument(
        "--preset", default="classic", help=f"ruleset: {', '.join(PRESETS)} (default classic)"
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="replay a particular game (default: a fresh one)"
    )
    parser.add_argument(
        "--max-turns",
        type=int,
        default=BOT_TURN_LIMIT,  # as at a table with a bot, and in notty-sim
        help=f"stop with no winner after this many turns (default {BOT_TURN_LIMIT}; 0: never)",
    )
    parser.add_argument(
        "--delay", type=float, default=None, help="seconds between turns (default 0.3 on a terminal)"
    )
    parser.add_argument("--no-colour", action="store_true", help="plain text")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.preset not in PRESETS:  # in the flag's own word: Notty calls its variants presets
        parser.error(f"--preset: no preset {args.preset!r}: presets are {', '.join(PRESETS)}")
    try:
        rules, players = lineup(args.players, args.preset, args.max_turns)
    except ValueError as error:
        parser.error(str(error))
    if args.delay is not None and not 0 <= args.delay <= 60:  # also refuses nan
        parser.error("--delay must be between 0 and 60 seconds")
    tty = sys.stdout.isatty()
    colour = tty and not args.no_colour and "NO_COLOR" not in os.environ
    delay = args.delay if args.delay is not None else (0.3 if tty else 0.0)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    names = [f"{name}-{seat + 1}" for seat, name in enumerate(players)]
    game, bots = seeded_game(rules, players, seed, seat_names=names)
    try:
        _watch(game, bots, seed, colour, delay)
    except KeyboardInterrupt:
        print("\nstopped")
        return 130
    except BrokenPipeError:  # piped into e.g. head, which has seen enough
        stdout_to_nowhere()
    return 0


def _watch(game: Game, bots: Sequence[Bot], seed: int, colour: bool, delay: float) -> None:
    names = game.names
    rules = game.rules

    def event_text(event: Event) -> str:
        return colour_cards_in(event_to_wire(event, names, rules)["text"], colour)

    limits = f"turn limit {rules.turn_limit or 'none'}"
    if rules.quiet_rounds:
        rounds = f"{rules.quiet_rounds} whole round{'s' if rules.quiet_rounds > 1 else ''}"
        limits += f", drawn once no hand changes for {rounds}"
    print(
        f"notty-watch: {rules.name}, {' vs '.join(names)}, {limits}, seed {seed} (replay with --seed {seed})"
    )
    for event in game.opening:
        print(event_text(event))
    print(_table_text(game, colour))

    def show(game: Game, seat: int, action: Action, events: list[Event]) -> None:
        ended = game.end_reason is not None and game.end_reason.value in ENDS_A_TURN
        if ended and not any(isinstance(event, TurnEnded) for event in events):  # the limit, no progress
            print(f"  {turn_end_text(seat, names)}")  # the engine tells the end alone: its turn ended too
        for event in events:
            print(f"  {event_text(event)}")
        if any(isinstance(event, TurnEnded) for event in events) or game.over:
            print(_table_text(game, colour), flush=True)
            if delay and not game.over:
                time.sleep(delay)

    play_bots(game, bots, on_step=show)


def _table_text(game: Game, colour: bool) -> str:
    """Every hand with its size, the deck, and whose turn it is: the client's look, seen by no seat."""
    seen = game.view()
    hands = hand_lines(seen.names, seen.hands, None if seen.over else seen.current, None, colour)
    return "\n".join([f"turn {seen.turn} · deck {counted(seen.deck_size, 'card')}", *hands])


if __name__ == "__main__":
    sys.exit(main())
