"""Mid-game huxxy positions for the benchmarks, taken from games of four ``greedy`` bots.

    .venv/bin/python bench/huxxy_positions.py --write   # play the games again, rewrite the file

A position is the start of a turn with 8 to 12 groups on the table: the table
and whether the player to move has opened, as the game had them, and a hand
of 12 cards. Hands that size are rare at that stage (greedy players have
placed most of theirs; 1 turn in 6 games had one), so the player's own hand is
topped up with the stock's next cards, as if they had drawn, or cut to 12 at
random: the hand is real cards that player could hold, the table a real one.
At most three positions come from one game, at least three turns apart.

Playing the games takes minutes, so the positions are kept in
``bench/huxxy_positions.json`` (cards as the rules write them) and
:func:`positions` reads them from there: the same positions for every run
and every benchmark.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import attrs

from games.huxxy import Card

HAND_SIZE = 12
FEWEST_GROUPS, MOST_GROUPS = 8, 12
PER_GAME, APART = 3, 3
STORE = Path(__file__).with_name("huxxy_positions.json")
#: How many of each kind the file holds.
KEPT = 200
KINDS = ("plain", "jokers")


@attrs.frozen
class Position:
    """What the player to move knows: their hand, the table, and whether they have opened."""

    hand: tuple[Card, ...]
    table: tuple[tuple[Card, ...], ...]
    opened: bool


def positions(count: int, seed: int, jokers: bool = False) -> list[Position]:
    """``count`` positions (at most :data:`KEPT`), a fixed sample for each ``seed``."""
    stored = _read()["jokers" if jokers else "plain"]
    if count > len(stored):
        raise ValueError(f"{STORE.name} holds {len(stored)} positions of that kind, not {count}")
    chosen = random.Random(seed).sample(range(len(stored)), count)
    return [stored[index] for index in chosen]


def others(chosen: list[Position], jokers: bool = False) -> list[Position]:
    """The stored positions of that kind not in ``chosen``: to warm caches on without favouring them."""
    return [position for position in _read()["jokers" if jokers else "plain"] if position not in chosen]


def _read() -> dict[str, list[Position]]:
    raw = json.loads(STORE.read_text(encoding="utf-8"))
    return {
        kind: [
            Position(
                tuple(Card.parse(card) for card in item["hand"].split()),
                tuple(tuple(Card.parse(card) for card in group.split()) for group in item["table"]),
                item["opened"],
            )
            for item in items
        ]
        for kind, items in raw.items()
    }


def from_games(count: int, jokers: bool, seed: int = 2201) -> list[Position]:
    """Play games of four greedy bots until ``count`` positions are found."""
    from games.huxxy.game import GAME

    found: list[Position] = []
    game = 0
    settings = GAME.settings("huxxy-jokers" if jokers else "huxxy", 4, {})
    while len(found) < count:
        rng = random.Random(f"{seed}/{jokers}/{game}")
        match = GAME.new_match(settings, ["a", "b", "c", "d"], rng)
        bots = [GAME.new_bot("greedy", settings, random.Random(rng.random())) for _ in range(4)]
        taken, last = 0, -APART
        while not match.over and taken < PER_GAME and len(found) < count:
            seat = match.current
            view = match.bot_view(seat)
            fits = FEWEST_GROUPS <= len(view.table) <= MOST_GROUPS and match.turn - last >= APART
            if not view.plays and fits:
                hand = list(view.hand)
                hand += list(match.engine.stock[: max(0, HAND_SIZE - len(hand))])
                rng.shuffle(hand)
                found.append(Position(tuple(hand[:HAND_SIZE]), view.table, view.opened[seat]))
                taken, last = taken + 1, match.turn
            match.apply(seat, bots[seat].choose(view))
        game += 1
        print(f"  {len(found)} positions from {game} games", file=sys.stderr)
    return found


def _text(position: Position) -> dict[str, object]:
    return {
        "hand": " ".join(map(str, position.hand)),
        "table": [" ".join(map(str, group)) for group in position.table],
        "opened": position.opened,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="rewrite bench/huxxy_positions.json from bot games")
    parser.add_argument("--write", action="store_true", help="play the games and rewrite the file")
    parser.add_argument("--count", type=int, default=KEPT)
    args = parser.parse_args(argv)
    if not args.write:
        stored = _read()
        held = ", ".join(f"{len(items)} {kind}" for kind, items in stored.items())
        print(f"{held} positions in {STORE.name}")
        return 0
    kinds = {kind: [_text(p) for p in from_games(args.count, kind == "jokers")] for kind in KINDS}
    STORE.write_text(json.dumps(kinds, indent=0) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
