"""huxxy's bots, and the hint: each plans a whole table turn, then makes it one play at a time.

A bot is asked for one action at a time, as a person types them. It works out
its turn once, from the turn's start, and then follows it. Plays already made
that it did not plan (a person's, before a stand-in or the autopilot took the
seat, or made before a server restart) are kept as far as they begin the same
turn, in whatever order (:mod:`._resume`); only the rest are undone. A bot that
draws instead draws at once: the draw takes back every play made, as a person's does.

- ``random``: draws, or makes a turn picked at random among the simple ones
  (one card added to a group, or a new group of three from the hand).
- ``greedy``: the solver's best turn (:func:`solver.huxxy.best_turn`), else draws.
- ``expert``: the solver's turns weighed (:mod:`.expert`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import attrs

from games._interface import HintAnswer

from ._cards import Card
from ._groups import opening_points, score, valid_group
from ._plays import Play, as_made
from ._resume import adopt
from .actions import Action, Draw, End, Undo, action_of, commands
from .engine import MAX_PLAYS, MAX_TURN_PLAYS, OPENING_POINTS

RANDOM, GREEDY, EXPERT = "random", "greedy", "expert"
#: The states a hint's search may visit for turns that move table cards: about a second on the
#: standard machine. A hint is asked for by any player, so it is bounded; bots search them in full.
HINT_VISITS = 10_000
#: ... and the sets of cards and of parts of a turn it may weigh for turns without moves: a hand
#: of 60 cards, drawn for turn after turn, took seconds of the hint thread without a bound; with
#: it, some 0.1 s, and a turn as good or nearly (docs/HUXXY.md). Mid-game hands never reach it.
HINT_SETS = 20_000
#: The same bound for bots (which plan in threads the server's tables share), wider: some 0.2 s
#: on such a hand; none of the bench's 400 mid-game positions comes near it.
BOT_SETS = 50_000
BOTS = (GREEDY, EXPERT, RANDOM)

Table = tuple[tuple[Card, ...], ...]


@attrs.frozen
class SeatView:
    """What one seat may see: its own hand, the table and every seat's public state.

    ``start`` is the hand and table as the turn found them, while the seat's own turn has plays
    made (else ``None``); ``plays`` are this turn's plays so far, and ``plays_left`` how many
    more it may make, undone ones counted (a stand-in may inherit a turn that has spent most)."""

    seat: int
    jokers: bool
    hand: tuple[Card, ...]
    table: Table
    opened: tuple[bool, ...]
    sizes: tuple[int, ...]
    stock: int
    current: int
    on_turn: bool
    plays: tuple[Play, ...]
    turn: int
    start: tuple[tuple[Card, ...], Table] | None = None
    plays_left: int = MAX_TURN_PLAYS

    def turn_start(self) -> tuple[tuple[Card, ...], Table]:
        """The hand and table this turn began with (the plays so far taken back)."""
        return self.start if self.start is not None else (self.hand, self.table)


class PlanningBot:
    """Plans a turn at its first action (:meth:`plan`: the plays, or none to draw), then makes it."""

    name = GREEDY

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._turn = -1
        self._plan: tuple[Play, ...] = ()

    def plan(self, hand: Sequence[Card], table: Table, view: SeatView, most: int) -> tuple[Play, ...]:
        """The turn to make from ``hand`` and ``table`` (the turn's start), in at most ``most`` plays."""
        from solver.huxxy import best_turn

        turn = best_turn(hand, table, view.opened[view.seat], max_plays=most, most_sets=BOT_SETS)
        return () if turn is None else turn.plays

    def choose(self, view: SeatView) -> Action:
        made = view.plays
        if view.turn != self._turn:
            self._turn = view.turn
            hand, table = view.turn_start()
            for most in within(view):
                self._plan = adopt(self.plan(hand, table, view, most), made, hand, table, MAX_PLAYS)
                if new_plays(self._plan, made, len(table)) <= view.plays_left:
                    break
        plan = self._plan
        if not plan:  # a draw takes back every play made first: one take-back, not an undo a play
            return Draw()
        if made != as_made(plan[: len(made)], len(view.turn_start()[1])):
            return Undo()
        if len(made) == len(plan):
            return End()
        return action_of(plan[len(made)])

    def catch_up(self, view: SeatView) -> None:
        return None


class GreedyBot(PlanningBot):
    name = GREEDY


class RandomBot(PlanningBot):
    """A simple turn picked at random, or a draw (one chance in as many as there are turns, plus one)."""

    name = RANDOM

    def plan(self, hand: Sequence[Card], table: Table, view: SeatView, most: int) -> tuple[Play, ...]:
        turns = [turn for turn in simple_turns(hand, table, view.opened[view.seat]) if len(turn) <= most]
        choice = self._rng.randrange(len(turns) + 1)
        return turns[choice] if choice < len(turns) else ()


def within(view: SeatView) -> tuple[int, ...]:
    """The most plays to plan a turn in: :data:`MAX_PLAYS`, then, if the turn's plays left (undone
    ones counted) cannot make what that plan adds to the plays made, no more than are left."""
    return (MAX_PLAYS,) if view.plays_left >= MAX_PLAYS else (MAX_PLAYS, view.plays_left)


def kept_plays(plan: Sequence[Play], made: Sequence[Play], groups: int) -> int:
    """How many of the plays made begin ``plan`` (from the turn's start): those not undone."""
    same = [a == b for a, b in zip(made, as_made(plan, groups), strict=False)]
    return same.index(False) if False in same else len(same)


def new_plays(plan: Sequence[Play], made: Sequence[Play], groups: int) -> int:
    """The plays ``plan`` still makes after the plays made that begin it."""
    return len(plan) - kept_plays(plan, made, groups)


def simple_turns(hand: Sequence[Card], table: Table, opened: bool) -> list[tuple[Play, ...]]:
    """One hand card added to a group that stays valid, or a new group of three hand cards (before
    opening only those worth an opening)."""
    distinct = sorted(set(hand))
    turns: list[tuple[Play, ...]] = []
    if opened:
        turns += [
            (Play(card, None, index),)
            for card in distinct
            for index, group in enumerate(table)
            if valid_group((*group, card))
        ]
    for trio in sorted(set(combinations(sorted(hand), 3))):
        if valid_group(trio) and (opened or opening_points(trio) >= OPENING_POINTS):
            new = len(table)
            turns.append((Play(trio[0], None, None), Play(trio[1], None, new), Play(trio[2], None, new)))
    return turns


def make_bot(name: str, rng: random.Random) -> PlanningBot:
    if name == GREEDY:
        return GreedyBot(rng)
    if name == RANDOM:
        return RandomBot(rng)
    if name == EXPERT:
        from .expert import ExpertBot

        return ExpertBot(rng)
    raise ValueError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}")


def hint_for(view: SeatView) -> HintAnswer:
    """The solver's best turn from the start of this turn, as the commands to type: the plays
    already made that begin it are kept, and only those after them undone."""
    if view.seat < 0:
        return HintAnswer("you are watching")
    if not view.on_turn:
        return HintAnswer("it is not your turn")
    from solver.huxxy import best_turn

    hand, table = view.turn_start()
    opened = view.opened[view.seat]
    made = view.plays
    for most in within(view):
        turn = best_turn(hand, table, opened, max_plays=most, most_visits=HINT_VISITS, most_sets=HINT_SETS)
        plays = () if turn is None else adopt(turn.plays, made, hand, table, MAX_PLAYS)  # begun with the
        if new_plays(plays, made, len(table)) <= view.plays_left:  # plays made that it can keep
            break
    draw = f"draw (it takes back your {_plays(len(made))} first)" if made else "draw"
    if turn is not None and not turn.plays:
        why = "the search stopped at its limit before it found a turn (one that moves table cards may exist)"
        return HintAnswer(f"{draw}: {why}", ("draw",), {"placed": [], "points": 0})
    if turn is None:
        why = (
            f"this turn may make {_plays(view.plays_left)} more ({MAX_TURN_PLAYS} a turn, undone ones"
            " counted), too few for a turn that places a card"
            if most < MAX_PLAYS
            else f"no turn of at most {MAX_PLAYS} plays places a card"
            if opened
            else f"no opening of {OPENING_POINTS} points can be made from your hand"
        )
        return HintAnswer(f"{draw}: {why}", ("draw",), {"placed": [], "points": 0})
    kept = kept_plays(plays, made, len(table))
    undo = ["undo"] * (len(made) - kept)
    groups = len(table) + sum(1 for play in plays[:kept] if play.target is None)
    said = [str(command) for command in commands(plays[kept:], groups)]
    placed = len(turn.placed)
    # An opening counts its points as the rule does (a joker 0); after it, what leaves the hand (a joker 48).
    points = (
        _count(score(turn.placed), "point") + " out of your hand"
        if opened
        else _count(opening_points(turn.placed), "opening point")
    )
    text = "; ".join([*said, "end"]) + (
        f": places {_count(placed, 'card')} ({points}) in {len(plays)} of {MAX_PLAYS} plays"
    )
    if undo and not kept:
        text = f"from the start of your turn (undo your {_plays(len(undo))} first): {text}"
    elif undo:
        text = f"undo your last {_plays(len(undo))} (keep the first {_plays(kept)}), then: {text}"
    elif kept == len(plays):
        text = f"your {_plays(kept)} so far make the best turn: {text}"
    elif kept:
        text = f"after your {_plays(kept)} so far: {text}"
    if not turn.exact:
        text += " (the search stopped at its limit: a better turn may exist)"
    data = {"placed": [str(card) for card in turn.placed], "points": score(turn.placed)}
    return HintAnswer(text, (*undo, *said, "end"), data)


def _plays(count: int) -> str:
    return _count(count, "play")


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"
