"""Maximum discard by dynamic programming over numbers.

A discard is a set of disjoint groups. Sets live within one number and runs
within one colour, so we sweep the numbers 1..N once. At each number we choose
how many copies of each colour go into sets (``u``); every other copy extends
an open run of its colour or starts a new one. The state carried from one
number to the next is, per colour, the lengths of the runs still open, capped
at ``shortest_run`` (a run that long is complete: it may close at no cost).

Two facts keep the state space small and make the DP exact:

* a longer open run is never worse than a shorter one, so a free copy always
  extends a run or starts one (an unused copy is a run that never completes);
* a free copy extending an open run is never worse than starting a new run,
  so when at least as many copies arrive as runs are open, all runs extend.

When fewer copies arrive than runs are open, every choice of runs to extend
is tried: a complete run scores 1 at once, but an incomplete one carries cards
that only count if it completes, so neither dominates.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import combinations, product

Counts = tuple[int, ...]  # copies per colour at one number
RunState = tuple[int, ...]  # capped lengths of the open runs of one colour, longest first
# A per-colour move: (new run state, cards scored now, indices of the runs extended)
Move = tuple[RunState, int, tuple[int, ...]]


@cache
def run_moves(state: RunState, free: int, shortest: int) -> tuple[Move, ...]:
    """The ways ``free`` copies of one card can extend the open runs ``state`` (best per new state)."""
    opened = len(state)

    def gain(length: int) -> int:
        if length >= shortest:
            return 1
        return shortest if length + 1 == shortest else 0

    if free >= opened:
        grown = [min(length + 1, shortest) for length in state] + [1] * (free - opened)
        scored = sum(gain(length) for length in state)
        return ((tuple(sorted(grown, reverse=True)), scored, tuple(range(opened))),)

    best: dict[RunState, tuple[int, tuple[int, ...]]] = {}
    for chosen in combinations(range(opened), free):
        new = tuple(sorted((min(state[i] + 1, shortest) for i in chosen), reverse=True))
        scored = sum(gain(state[i]) for i in chosen)
        if new not in best or scored > best[new][0]:
            best[new] = (scored, chosen)
    return tuple((new, scored, chosen) for new, (scored, chosen) in best.items())


@cache
def set_options(counts: Counts, smallest_set: int) -> tuple[Counts, ...]:
    """Every way to put copies of one number into sets: ``u[c]`` copies of colour ``c``.

    ``u`` splits into sets of distinct colours, each at least ``smallest_set``
    big, exactly when ``sum(u) >= smallest_set * max(u)`` (deal the copies
    round-robin into ``max(u)`` sets). The empty choice comes first.
    """
    if sum(1 for x in counts if x) < smallest_set:
        return (tuple(0 for _ in counts),)
    options = [
        u for u in product(*(range(x + 1) for x in counts)) if not any(u) or sum(u) >= smallest_set * max(u)
    ]
    return tuple(sorted(options, key=sum))


Grid = tuple[Counts, ...]  # grid[n - 1][c]: copies of colour c, number n
Joint = tuple[RunState, ...]  # the run state of every colour
Step = tuple[Counts, tuple[Move, ...]]  # set usage and per-colour run moves at one number
Transition = tuple[Joint, int, Counts, tuple[Move, ...]]  # new state, cards scored, set usage, moves
Back = dict[Joint, tuple[Joint, Counts, tuple[Move, ...]]]  # new state -> how it was best reached


@lru_cache(maxsize=1 << 17)
def transitions(state: Joint, counts: Counts, shortest: int, smallest_set: int) -> tuple[Transition, ...]:
    """Every way from ``state`` past one number holding ``counts``, best per new state.

    The same (state, counts) pairs recur across numbers and hands, so caching
    this turns most of the sweep into dictionary lookups.
    """
    best: dict[Joint, Transition] = {}
    colours = range(len(counts))
    for used in set_options(counts, smallest_set):
        per_colour = [run_moves(state[c], counts[c] - used[c], shortest) for c in colours]
        base = sum(used)
        for moves in product(*per_colour):
            key = tuple(move[0] for move in moves)
            total = base + sum(move[1] for move in moves)
            if key not in best or total > best[key][1]:
                best[key] = (key, total, used, moves)
    return tuple(best.values())


def has_any_group(grid: Grid, shortest_run: int, smallest_set: int) -> bool:
    """A quick test that lets most group-less hands skip the sweep."""
    streaks = [0] * (len(grid[0]) if grid else 0)
    for counts in grid:
        present = 0
        for c, copies in enumerate(counts):
            if copies:
                present += 1
                streaks[c] += 1
                if streaks[c] >= shortest_run:
                    return True
            else:
                streaks[c] = 0
        if present >= smallest_set:
            return True
    return False


def max_discard_size(grid: Grid, shortest_run: int, smallest_set: int) -> int:
    """The largest number of cards that disjoint valid groups can cover."""
    if not has_any_group(grid, shortest_run, smallest_set):
        return 0
    return _sweep(grid, shortest_run, smallest_set, None)


def best_plan(grid: Grid, shortest_run: int, smallest_set: int) -> tuple[int, list[Step]]:
    """The maximum and, for each number, the choices that reach it.

    Callers skip hands with no group first (:func:`has_any_group`); the sweep
    would answer them correctly, only more slowly.
    """
    trail: list[Back] = []
    size = _sweep(grid, shortest_run, smallest_set, trail)
    # Walk back from the best final state (the last trail entry, keyed by ()).
    steps: list[Step] = []
    state = trail[-1][()][0]
    for back in reversed(trail[:-1]):
        prev, used, moves = back[state]
        steps.append((used, moves))
        state = prev
    steps.reverse()
    return size, steps


def _sweep(grid: Grid, shortest: int, smallest_set: int, trail: list[Back] | None) -> int:
    colours = len(grid[0]) if grid else 0
    empty: Joint = tuple(() for _ in range(colours))
    frontier: dict[Joint, int] = {empty: 0}
    for counts in grid:
        new: dict[Joint, int] = {}
        back: Back = {}
        if not any(counts):
            # Nothing at this number: every run closes, all states merge.
            state, value = max(frontier.items(), key=lambda item: item[1])
            new[empty] = value
            if trail is not None:
                back[empty] = (state, counts, tuple(run_moves(s, 0, shortest)[0] for s in state))
        else:
            for state, value in frontier.items():
                for key, gain, used, moves in transitions(state, counts, shortest, smallest_set):
                    total = value + gain
                    if total > new.get(key, -1):
                        new[key] = total
                        if trail is not None:
                            back[key] = (state, used, moves)
        frontier = new
        if trail is not None:
            trail.append(back)
    state, value = max(frontier.items(), key=lambda item: item[1])
    if trail is not None:
        trail.append({(): (state, (), ())})
    return value


def plan_groups(grid: Grid, steps: Sequence[Step], shortest: int) -> list[tuple[int, int, int, int]]:
    """Replay a plan into groups, as ``(kind, a, b, c)`` tuples, sets first.

    Kind 0 is a run: colour index ``a``, numbers ``b`` to ``c``. Kind 1 is a
    set: number ``a``, colours in bitmask ``b`` (``c`` unused).
    """
    colours = len(grid[0]) if grid else 0
    # Open runs of each colour by start number. Oldest first is longest first,
    # the order of the run state, and extending or appending keeps that order.
    open_runs: list[list[int]] = [[] for _ in range(colours)]
    sets: list[tuple[int, int, int, int]] = []
    runs: list[tuple[int, int, int, int]] = []
    number = 0
    for number, (counts, (used, moves)) in enumerate(zip(grid, steps, strict=True), start=1):
        copies = max(used, default=0)
        if copies:
            masks = [0] * copies
            slot = 0
            for c in range(colours):
                for _ in range(used[c]):
                    masks[slot % copies] |= 1 << c
                    slot += 1
            sets.extend((1, number, mask, 0) for mask in masks)
        for c in range(colours):
            starts = open_runs[c]
            free = counts[c] - used[c]
            if not starts and not free:
                continue
            chosen = moves[c][2]
            if len(chosen) < len(starts):  # some runs close here
                kept = []
                for i, start in enumerate(starts):
                    if i in chosen:
                        kept.append(start)
                    elif number - start >= shortest:
                        runs.append((0, c, start, number - 1))
                starts = kept
            if free > len(chosen):
                starts = starts + [number] * (free - len(chosen))
            open_runs[c] = starts
    for c, starts in enumerate(open_runs):
        for start in starts:
            if number + 1 - start >= shortest:
                runs.append((0, c, start, number))
    runs.sort()
    return sets + runs
