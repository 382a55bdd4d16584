"""The ``qlearn`` baseline: the tabular Q-learning agent of the public five-colour Notty.

A faithful reimplementation, kept as the anchor that stronger bots must beat.
Its whole world is four small numbers (the *state*):

* its own hand size, ``min(size // 5, 3)``;
* the deck size: 0 below 30 cards, 1 below 60, else 2;
* whether it holds a group it could discard (0 or 1);
* the opponents' average hand size (integer average), bucketed like its own.

In each state it picks one of six *action types* (the original's names) by a
learned value; everything else is a fixed hand-written rule:

``draw_multiple``         draw 2 cards; 1 at 18 cards or more, 3 at 6 or fewer (clipped to what is legal)
``steal``                 from the opponent with the most cards (ties: the next to play)
``draw_discard_draw``     draw-and-discard's first step
``draw_discard_discard``  put back the least connected card (the only type while a put-back is pending)
``discard_group``         the largest single valid group
``next_turn``             end the turn

Learning (offline self-play only, see :mod:`games.notty.bots.qlearn_train`) is
one-step Q-learning with the original's rewards and constants. The shipped bot
plays the trained tables (``qlearn_tables.json``) frozen: argmax of Q over the
legal action types, ties broken with its own random source.
"""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from collections.abc import Sequence
from importlib import resources
from typing import Final, TypedDict

from games.notty import Card, Rules, has_group, valid_groups

from ..engine import (
    Action,
    Discard,
    Draw,
    DrawDiscard,
    EndTurn,
    PutBack,
    Steal,
    View,
    draw_room,
    is_legal,
)
from ._base import Bot, opponents

DRAW_MULTIPLE: Final = "draw_multiple"
STEAL: Final = "steal"
DRAW_DISCARD_DRAW: Final = "draw_discard_draw"
DRAW_DISCARD_DISCARD: Final = "draw_discard_discard"
DISCARD_GROUP: Final = "discard_group"
NEXT_TURN: Final = "next_turn"
#: The six action types, in the order availability lists them.
ACTIONS: Final = (DRAW_MULTIPLE, STEAL, DRAW_DISCARD_DRAW, DRAW_DISCARD_DISCARD, DISCARD_GROUP, NEXT_TURN)

#: The original's learning constants.
ALPHA: Final = 0.1
GAMMA: Final = 0.9
EPSILON: Final = 0.2
EPSILON_DECAY: Final = 0.9995
EPSILON_MIN: Final = 0.05

#: The original's rewards: winning replaces the action's own reward.
WIN_REWARD: Final = 100.0
ACTION_REWARDS: Final = {
    DISCARD_GROUP: 10.0,
    DRAW_MULTIPLE: -0.5,
    DRAW_DISCARD_DRAW: -0.5,
    STEAL: 0.5,
    NEXT_TURN: -1.0,
    DRAW_DISCARD_DISCARD: -0.1,
}
#: Reward shaping: per card the hand shrank by.
SHRINK_REWARD: Final = 2.0

State = tuple[int, int, int, int]
QTable = dict[str, dict[str, float]]  # state key -> action type -> value


class PresetTable(TypedDict):
    """One preset's trained table, as shipped in ``qlearn_tables.json``."""

    games: int
    seed: int
    epsilon: float
    q: QTable


TABLES_FILE: Final = "qlearn_tables.json"


# --------------------------------------------------------------------------- the state


def size_bucket(size: int) -> int:
    """A hand size (or the opponents' average) in 4 buckets: 0-4, 5-9, 10-14, 15+."""
    return min(size // 5, 3)


def deck_bucket(size: int) -> int:
    return 0 if size < 30 else 1 if size < 60 else 2


def state_of(view: View, seat: int, group: bool | None = None) -> State:
    """``seat``'s state in ``view`` (``group``: whether its hand holds a group, if already known)."""
    hand = view.hands[seat]
    if group is None:
        group = has_group(hand, view.rules)
    others = [len(view.hands[other]) for other in opponents(view, seat)]
    average = sum(others) // len(others) if others else 0
    return (size_bucket(len(hand)), deck_bucket(view.deck_size), int(group), size_bucket(average))


def state_key(state: State) -> str:
    """``(1, 2, 0, 1)`` -> ``"1,2,0,1"``: the table's (JSON) key for a state."""
    return ",".join(map(str, state))


# --------------------------------------------------------------------------- the hand-written parts


def draw_count(view: View, seat: int) -> int:
    """2 cards; 1 at 18 or more, 3 at 6 or fewer; then no more than the rules, deck and limit allow."""
    size = len(view.hands[seat])
    wanted = 1 if size >= 18 else 3 if size <= 6 else 2
    return max(1, min(wanted, draw_room(view.rules, size, view.deck_size)))


def steal_target(view: View, seat: int) -> int | None:
    """The opponent with the most cards that ``seat`` may steal from (ties: the next to play)."""
    victims = [other for other in opponents(view, seat) if is_legal(view, seat, Steal(other))]
    return max(victims, key=lambda other: len(view.hands[other]), default=None)


def largest_group(hand: Sequence[Card], rules: Rules) -> tuple[Card, ...] | None:
    """The largest single valid group (ties: the first in :func:`protocol.valid_groups` order)."""
    return max(valid_groups(hand, rules), key=len, default=None)


def connection(card: Card, hand: Sequence[Card]) -> int:
    """How well ``card`` fits ``hand`` (which holds it): 2 per card of its colour, 2 per card of its
    number (itself included in both), 3 per card of its colour one number away."""
    return _connections(hand)[card]


def _connections(hand: Sequence[Card]) -> dict[Card, int]:
    colours = Counter(card.colour for card in hand)
    numbers = Counter(card.number for card in hand)
    held = Counter((card.colour, card.number) for card in hand)
    return {
        card: 2 * colours[card.colour]
        + 2 * numbers[card.number]
        + 3 * (held[card.colour, card.number - 1] + held[card.colour, card.number + 1])
        for card in hand
    }


def least_connected(hand: Sequence[Card]) -> Card:
    """The card to put back: the lowest :func:`connection` (ties: the first in canonical order)."""
    scores = _connections(hand)
    return min(sorted(scores), key=scores.__getitem__)


def available(view: View, seat: int, group: bool | None = None) -> list[str]:
    """The action types ``seat`` may take now, in :data:`ACTIONS` order (none if it is not its turn).

    ``group``: whether the hand holds a group, if already known.
    """
    if view.over or view.current != seat:
        return []
    if view.must_put_back:
        return [DRAW_DISCARD_DISCARD]
    hand = view.hands[seat]
    types = []
    if is_legal(view, seat, Draw(1)):
        types.append(DRAW_MULTIPLE)
    if steal_target(view, seat) is not None:
        types.append(STEAL)
    if is_legal(view, seat, DrawDiscard()):
        types.append(DRAW_DISCARD_DRAW)
    if has_group(hand, view.rules) if group is None else group:
        types.append(DISCARD_GROUP)
    types.append(NEXT_TURN)
    return types


def engine_action(view: View, seat: int, kind: str) -> Action:
    """The engine action for an available action type."""
    hand = view.hands[seat]
    if kind == DRAW_MULTIPLE:
        return Draw(draw_count(view, seat))
    if kind == STEAL:
        victim = steal_target(view, seat)
        assert victim is not None, "steal chosen with nobody to steal from"
        return Steal(victim)
    if kind == DRAW_DISCARD_DRAW:
        return DrawDiscard()
    if kind == DRAW_DISCARD_DISCARD:
        return PutBack(least_connected(hand))
    if kind == DISCARD_GROUP:
        group = largest_group(hand, view.rules)
        assert group is not None, "discard_group chosen with no group in hand"
        return Discard(group)
    return EndTurn()


# --------------------------------------------------------------------------- learning


def reward(kind: str, size_before: int, size_after: int) -> float:
    """The original's reward for taking ``kind``: 100 for emptying the hand, else the action's own
    reward; plus 2 per card the hand shrank by."""
    base = WIN_REWARD if size_after == 0 else ACTION_REWARDS[kind]
    return base + SHRINK_REWARD * max(0, size_before - size_after)


def q_update(
    q: QTable,
    state: State,
    kind: str,
    gain: float,
    next_state: State,
    next_kinds: Sequence[str],
    alpha: float = ALPHA,
    gamma: float = GAMMA,
) -> float:
    """``Q[s,a] += alpha * (r + gamma * max_a' Q[s',a'] - Q[s,a])``, the max over no actions being 0.

    Changes ``q`` in place and returns the new ``Q[s,a]``.
    """
    after = q.get(state_key(next_state), {})
    best_next = max((after.get(k, 0.0) for k in next_kinds), default=0.0)
    row = q.setdefault(state_key(state), {})
    old = row.get(kind, 0.0)
    row[kind] = new = old + alpha * (gain + gamma * best_next - old)
    return new


class Learner:
    """A Q table being learned, with its exploration rate; shared by every seat in self-play."""

    def __init__(
        self,
        q: QTable | None = None,
        *,
        epsilon: float = EPSILON,
        alpha: float = ALPHA,
        gamma: float = GAMMA,
        decay: float = EPSILON_DECAY,
        floor: float = EPSILON_MIN,
    ) -> None:
        self.q: QTable = {} if q is None else q
        self.epsilon, self.alpha, self.gamma, self.decay, self.floor = epsilon, alpha, gamma, decay, floor
        self.steps = 0

    def learn(
        self, state: State, kind: str, gain: float, next_state: State, next_kinds: Sequence[str]
    ) -> None:
        q_update(self.q, state, kind, gain, next_state, next_kinds, self.alpha, self.gamma)
        self.steps += 1
        self.epsilon = max(self.floor, self.epsilon * self.decay)


# --------------------------------------------------------------------------- the shipped tables


@functools.cache
def load_tables() -> dict[str, PresetTable]:
    """The trained tables shipped with the package, read once."""
    text = resources.files("games.notty.bots").joinpath(TABLES_FILE).read_text(encoding="utf-8")
    tables: dict[str, PresetTable] = json.loads(text)
    return tables


def table_for(rules: Rules) -> QTable:
    """The table for these rules: by preset, i.e. by whether the rules have draw-and-discard."""
    return load_tables()["five-colour" if rules.draw_and_discard else "classic"]["q"]


# --------------------------------------------------------------------------- the bot


class QLearnBot(Bot):
    """Plays a Q table: frozen (the shipped tables) unless given a :class:`Learner` to train."""

    name = "qlearn"

    def __init__(self, rng: random.Random, *, learner: Learner | None = None) -> None:
        self._rng = rng
        self._learner = learner
        self._pending: tuple[int, State, str, int] | None = None  # seat, state, type, hand size

    def choose(self, view: View) -> Action:
        seat = view.current if view.seat is None else view.seat
        group = has_group(view.hands[seat], view.rules)
        kinds = available(view, seat, group)
        if not kinds:  # not this seat's turn: nothing it may do
            return EndTurn()
        state = state_of(view, seat, group)
        kind = self._pick(state, kinds, view.rules)
        if self._learner is not None:
            self._pending = (seat, state, kind, len(view.hands[seat]))
        return engine_action(view, seat, kind)

    def _pick(self, state: State, kinds: list[str], rules: Rules) -> str:
        learner = self._learner
        if learner is not None and self._rng.random() < learner.epsilon:
            return self._rng.choice(kinds)
        q = table_for(rules) if learner is None else learner.q
        row = q.get(state_key(state), {})
        values = [row.get(kind, 0.0) for kind in kinds]
        best = max(values)
        ties = [kind for kind, value in zip(kinds, values, strict=True) if value == best]
        return ties[0] if len(ties) == 1 else self._rng.choice(ties)

    def observe(self, view: View) -> None:
        """Training only: learn from the action just chosen, given the view right after it."""
        if self._learner is None or self._pending is None:
            return
        seat, state, kind, size_before = self._pending
        self._pending = None
        gain = reward(kind, size_before, len(view.hands[seat]))
        group = has_group(view.hands[seat], view.rules)
        self._learner.learn(state, kind, gain, state_of(view, seat, group), available(view, seat, group))
