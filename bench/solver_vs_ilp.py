"""Benchmark: the exact discard solver against an integer-programming baseline.

    .venv/bin/python bench/solver_vs_ilp.py [--hands 2000] [--seed 4008] [--cold] [--markdown]
        [--interleaved-hands 2000]

First, the figure that matters, **interleaved**, as a server or a simulator calls the solver:
uniform 20-card classic hands, one ILP solve before each solver call (so the solver never
runs back to back with itself), the move tables warmed on only 20 hands. Two ILPs are timed
on every hand, in this order: the ``prebuilt`` one (the whole deck's matrix built once per
ruleset, only the bounds per hand) and the ``per-hand`` one, built from the hand's own groups
(what a program asking one question would build); the solver's ``best_discard`` follows, its
per-hand cache cleared. This runs once with the C extension (``solver/notty/_native.c``, when
built) and once with the pure-Python code, each against the same hands. Ratios are medians over
hands of ILP time / solver time; the targets are best_discard >= 50x the per-hand ILP with a
p99 under 0.2 ms.

Then the back-to-back passes below (the earlier form of this benchmark).

The baseline is the textbook model solved by HiGHS through ``scipy.optimize.milp``:
one integer variable per candidate group (runs of ``shortest_run`` to
``2 * shortest_run - 1`` cards of each colour, sets of ``smallest_set`` up to
all colours at each number; longer runs split into these), bounded by
``copies``; one constraint per card: the groups using it take at most the
copies in the hand; maximise the cards covered.

Both answer the same seeded hands, in three classes:

* ``uniform classic``     -- 20 cards dealt from the 80-card classic deck;
* ``adversarial classic`` -- 20 cards from the 32 classic cards of 4 consecutive numbers;
* ``uniform five-colour`` -- 20 cards dealt from the 90-card five-colour deck.

What is timed, per hand, with ``time.perf_counter_ns`` (each method in a pass of
its own over a class's hands, so one method's cache footprint does not slow the
next; ratios pair the same hand's times):

* ``max_discard``  -- the public ``solver.max_discard(hand, rules)``, after clearing
  its per-hand caches (``solver.notty._api.clear_caches()``) so no hand is ever
  answered from a cache;
* ``best_discard`` -- the public ``solver.best_discard(hand, rules)`` (the groups
  too), with the same per-hand caches cleared;
* ``sweep alone`` -- the uncached sweep alone (the C extension's when the solver
  uses it, else ``_dp.max_discard_size``), on a grid of card counts built outside
  the timer (what ``max_discard`` costs without turning the hand into a grid);
* ``ILP``          -- building the hand's constraint bounds and ``milp`` (the
  constraint matrix is built once per ruleset, which favours the ILP).

The solver keeps three hand-independent memo tables (``solver.notty._dp.run_moves``,
``solver.notty._dp.set_options`` and ``solver.notty._dp.transitions``: the moves of one
colour's open runs, the set choices at one number, and the joint moves from one
run state past one number). Before each solver pass they are emptied and then
warmed on the same 500 other hands of the class, so every pass starts from the
same state (a later pass never profits from entries an earlier pass added for
the very hands it times), as in a long-running server; ``--cold`` clears them
before every timed call instead.

Every hand must get the same maximum from all four (``best_discard`` as the
total size of its groups, each group checked valid); any disagreement exits 1.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from itertools import combinations

import numpy as np
import scipy
from _machine import facts
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

import solver
import solver.notty._api
import solver.notty._dp
from games.notty import CLASSIC, FIVE_COLOUR, Card, Rules, classify_group
from solver.notty import _api, _dp, _impl

HAND_SIZE = 20
TARGET_RATIO = 20.0
TARGET_P99_MS = 1.0
INTERLEAVED_RATIO = 50.0
INTERLEAVED_P99_MS = 0.2
INTERLEAVED_WARMUP = 20
DP = "sweep alone"
SOLVER_CALLS = ("max_discard", "best_discard", DP)


# --------------------------------------------------------------------------- ILP baseline


class IlpModel:
    """The group-packing ILP of one ruleset; only the right-hand side depends on the hand."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.index = {
            Card(colour, number): i
            for i, (colour, number) in enumerate(
                (colour, number) for colour in rules.colours for number in range(1, rules.numbers + 1)
            )
        }
        groups: list[list[Card]] = []
        for colour in rules.colours:
            for length in range(rules.shortest_run, 2 * rules.shortest_run):
                for low in range(1, rules.numbers - length + 2):
                    groups.append([Card(colour, n) for n in range(low, low + length)])
        for number in range(1, rules.numbers + 1):
            for size in range(rules.smallest_set, len(rules.colours) + 1):
                for chosen in combinations(rules.colours, size):
                    groups.append([Card(colour, number) for colour in chosen])
        self.groups = groups
        rows = [self.index[card] for group in groups for card in group]
        cols = [g for g, group in enumerate(groups) for _ in group]
        self.matrix = csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(self.index), len(groups)))
        self.objective = -np.array([len(group) for group in groups], dtype=float)
        self.integrality = np.ones(len(groups))
        self.bounds = Bounds(0, rules.copies)

    def max_discard(self, hand: list[Card]) -> int:
        counts = np.zeros(len(self.index))
        for card in hand:
            counts[self.index[card]] += 1
        result = milp(
            self.objective,
            constraints=LinearConstraint(self.matrix, -np.inf, counts),
            integrality=self.integrality,
            bounds=self.bounds,
        )
        if not result.success:
            raise RuntimeError(f"milp failed: {result.message}")
        return round(-result.fun)


def per_hand_ilp(hand: list[Card], rules: Rules) -> int:
    """The same ILP, built from this hand's groups only: one row per card held, one column per
    run or set all of whose cards are held (runs of ``shortest_run`` to ``2 * shortest_run - 1``)."""
    counts: dict[Card, int] = {}
    for card in hand:
        counts[card] = counts.get(card, 0) + 1
    groups: list[list[Card]] = []
    for colour in rules.colours:
        for low in range(1, rules.numbers + 1):
            for length in range(rules.shortest_run, 2 * rules.shortest_run):
                run = [Card.of(colour, n) for n in range(low, low + length)]
                if low + length - 1 > rules.numbers or any(card not in counts for card in run):
                    break
                groups.append(run)
    for number in range(1, rules.numbers + 1):
        present = [colour for colour in rules.colours if Card.of(colour, number) in counts]
        for size in range(rules.smallest_set, len(present) + 1):
            for chosen in combinations(present, size):
                groups.append([Card.of(colour, number) for colour in chosen])
    if not groups:
        return 0
    rows_of = {card: i for i, card in enumerate(counts)}
    rows = [rows_of[card] for group in groups for card in group]
    cols = [g for g, group in enumerate(groups) for _ in group]
    matrix = csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(rows_of), len(groups)))
    result = milp(
        -np.array([len(group) for group in groups], dtype=float),
        constraints=LinearConstraint(matrix, -np.inf, np.array([float(n) for n in counts.values()])),
        integrality=np.ones(len(groups)),
        bounds=Bounds(0, rules.copies),
    )
    if not result.success:
        raise RuntimeError(f"milp failed: {result.message}")
    return round(-result.fun)


# --------------------------------------------------------------------------- hands


def uniform_hands(rules: Rules, count: int, rng: random.Random) -> list[list[Card]]:
    deck = rules.full_deck()
    return [rng.sample(deck, HAND_SIZE) for _ in range(count)]


def window_hands(rules: Rules, count: int, rng: random.Random, width: int = 4) -> list[list[Card]]:
    deck = rules.full_deck()
    hands = []
    for _ in range(count):
        low = rng.randint(1, rules.numbers - width + 1)
        pool = [card for card in deck if low <= card.number < low + width]
        hands.append(rng.sample(pool, HAND_SIZE))
    return hands


CLASSES: list[tuple[str, Rules, Callable[[Rules, int, random.Random], list[list[Card]]]]] = [
    ("uniform classic", CLASSIC, uniform_hands),
    ("adversarial classic", CLASSIC, window_hands),
    ("uniform five-colour", FIVE_COLOUR, uniform_hands),
]


# --------------------------------------------------------------------------- timing


WARMUP_HANDS = 500


def clear_tables() -> None:
    solver.notty._dp.run_moves.cache_clear()
    solver.notty._dp.set_options.cache_clear()
    solver.notty._dp.transitions.cache_clear()


IMPLEMENTATIONS = ("C extension", "pure Python")


def use(implementation: str) -> bool:
    """Make the solver answer with ``implementation``; False if it is not available here."""
    module = _impl.native if implementation == "C extension" else None
    if implementation == "C extension" and module is None:
        return False
    solver.notty._api._native = module
    solver.notty._chance._native = module
    _api.clear_caches()
    return True


class Interleaved:
    def __init__(self, implementation: str) -> None:
        self.implementation = implementation
        self.times: dict[str, list[float]] = {"prebuilt": [], "per-hand": [], "best_discard": []}
        self.disagreements: list[str] = []

    def stats(self, key: str) -> tuple[float, float]:
        values = sorted(self.times[key])
        return statistics.median(values), values[min(len(values) - 1, int(0.99 * len(values)))]

    def ratio(self, ilp: str, key: str = "best_discard") -> float:
        return statistics.median(i / s for i, s in zip(self.times[ilp], self.times[key], strict=True))

    def targets(self) -> list[tuple[str, bool]]:
        ratio, p99 = self.ratio("per-hand"), self.stats("best_discard")[1]
        return [
            (
                f"{self.implementation}, interleaved: best_discard median {ratio:.1f}x faster than the "
                f"per-hand ILP (target >= {INTERLEAVED_RATIO:.0f}x)",
                ratio >= INTERLEAVED_RATIO,
            ),
            (
                f"{self.implementation}, interleaved: best_discard p99 {p99:.3f} ms "
                f"(target < {INTERLEAVED_P99_MS:g} ms)",
                p99 < INTERLEAVED_P99_MS,
            ),
        ]


def run_interleaved(implementation: str, hands: list[list[Card]], warmup: list[list[Card]]) -> Interleaved:
    """An ILP solve (both kinds) before each solver call; move tables warmed on 20 hands only."""
    rules = CLASSIC
    model = IlpModel(rules)
    result = Interleaved(implementation)
    clear_tables()
    for hand in warmup[:INTERLEAVED_WARMUP]:
        solver.max_discard(hand, rules)
    for hand in hands:
        prebuilt, t_prebuilt = timed(lambda hand=hand: model.max_discard(hand))
        per_hand, t_per_hand = timed(lambda hand=hand: per_hand_ilp(hand, rules))
        _api.clear_caches()
        groups, t_solver = timed(lambda hand=hand: solver.best_discard(hand, rules))
        result.times["prebuilt"].append(t_prebuilt)
        result.times["per-hand"].append(t_per_hand)
        result.times["best_discard"].append(t_solver)
        covered = sum(len(group) for group in groups)  # type: ignore[attr-defined]
        if not prebuilt == per_hand == covered:
            shown = " ".join(str(card) for card in sorted(hand))
            result.disagreements.append(
                f"{shown}: prebuilt ILP {prebuilt}, per-hand ILP {per_hand}, best_discard {covered}"
            )
    return result


def timed(call: Callable[[], object]) -> tuple[object, float]:
    start = time.perf_counter_ns()
    value = call()
    return value, (time.perf_counter_ns() - start) / 1e6


class Result:
    def __init__(self, name: str, rules: Rules, hands: int) -> None:
        self.name, self.rules, self.hands = name, rules, hands
        self.agree = 0
        self.discarded = 0
        self.times: dict[str, list[float]] = {key: [] for key in (*SOLVER_CALLS, "ILP")}
        self.disagreements: list[str] = []

    def stats(self, key: str) -> tuple[float, float, float]:
        values = sorted(self.times[key])
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        return statistics.median(values), p99, values[-1]

    def ratio(self, key: str) -> float:
        """Median over hands of ILP time / solver time."""
        return statistics.median(i / s for i, s in zip(self.times["ILP"], self.times[key], strict=True))


def time_pass(call: Callable[[object], object], inputs: list[object], cold: bool) -> tuple[list, list[float]]:
    """One method over every hand of a class, in a pass of its own (timings are not
    disturbed by another method's cache footprint); the per-hand LRU is always cleared."""
    values, times = [], []
    for item in inputs:
        _api.clear_caches()
        if cold:
            clear_tables()
        value, elapsed = timed(lambda item=item: call(item))
        values.append(value)
        times.append(elapsed)
    return values, times


def run_class(
    name: str, rules: Rules, hands: list[list[Card]], cold: bool, warmup: list[list[Card]]
) -> Result:
    model = IlpModel(rules)
    result = Result(name, rules, len(hands))
    # The sweep alone, on grids of card counts built outside the timer: the C extension's when
    # the solver uses it, else the Python one.
    native = _api._native
    sweep: Callable[[object], object]
    if native is not None:
        grids: list[object] = [_api._bytes_grid(hand, rules) for hand in hands]
        colours = len(rules.colours)

        def sweep(grid: object) -> object:
            return native.max_discard(grid, colours, rules.copies, rules.shortest_run, rules.smallest_set)  # type: ignore[arg-type]
    else:
        grids = [solver.notty._api._grid(hand, rules) for hand in hands]

        def sweep(grid: object) -> object:
            return _dp.max_discard_size(grid, rules.shortest_run, rules.smallest_set)  # type: ignore[arg-type]

    passes = {
        "max_discard": (lambda hand: solver.max_discard(hand, rules), hands),
        "best_discard": (lambda hand: solver.best_discard(hand, rules), hands),
        DP: (sweep, grids),
        "ILP": (model.max_discard, hands),
    }
    answers = {}
    for key, (call, inputs) in passes.items():
        if key != "ILP":  # every solver pass starts from the same move tables, warmed on other hands
            clear_tables()
            if not cold:
                for hand in warmup:
                    solver.max_discard(hand, rules)
        answers[key], result.times[key] = time_pass(call, inputs, cold and key != "ILP")
    for i, hand in enumerate(hands):
        best, groups, dp, ilp = (answers[key][i] for key in passes)
        for group in groups:
            classify_group(group, rules)  # raises if the solver returned a non-group
        covered = sum(len(group) for group in groups)
        if best == ilp == covered == dp:
            result.agree += 1
            result.discarded += covered
        else:
            shown = " ".join(str(card) for card in sorted(hand))
            result.disagreements.append(
                f"{shown}: max_discard {best}, best_discard {covered}, max_discard_size {dp}, ILP {ilp}"
            )
    return result


# --------------------------------------------------------------------------- report


def machine() -> list[tuple[str, str]]:
    return [
        *facts(),
        ("scipy / numpy", f"{scipy.__version__} / {np.__version__} (milp: HiGHS)"),
    ]


def targets(results: list[Result]) -> list[tuple[str, bool]]:
    uniform = results[0]
    checks = []
    for key in SOLVER_CALLS:
        ratio = uniform.ratio(key)
        p99 = uniform.stats(key)[1]
        checks.append(
            (
                f"{key}: median {ratio:.1f}x faster than ILP (target >= {TARGET_RATIO:.0f}x)",
                ratio >= TARGET_RATIO,
            )
        )
        checks.append((f"{key}: p99 {p99:.3f} ms (target < {TARGET_P99_MS:g} ms)", p99 < TARGET_P99_MS))
    return checks


def implementation_name() -> str:
    return IMPLEMENTATIONS[0] if _api._native is not None else IMPLEMENTATIONS[1]


def print_interleaved(runs: list[Interleaved], args: argparse.Namespace, markdown: bool) -> None:
    text = (
        f"Interleaved: {args.interleaved_hands} uniform classic hands of {HAND_SIZE} cards, "
        f"seed {args.seed}; "
        f"before each best_discard call (its per-hand cache cleared) the prebuilt ILP and the per-hand "
        f"ILP solve the same hand; move tables warmed on {INTERLEAVED_WARMUP} hands. Times in ms; "
        "ratio = median over hands of ILP time / best_discard time."
    )
    print(text)
    print()
    print(
        "| solver | best_discard median | p99 | prebuilt ILP median | per-hand ILP median "
        "| prebuilt/solver | per-hand/solver | prebuilt/per-hand |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        median, p99 = r.stats("best_discard")
        pre, per = r.stats("prebuilt")[0], r.stats("per-hand")[0]
        print(
            f"| {r.implementation} | {median:.4f} | {p99:.4f} | {pre:.3f} | {per:.3f} | "
            f"{r.ratio('prebuilt'):.1f}x | {r.ratio('per-hand'):.1f}x | "
            f"{r.ratio('prebuilt', 'per-hand'):.2f}x |"
        )
    print()
    for r in runs:
        for text, ok in r.targets():
            verdict = "PASS" if ok else "FAIL"
            print(f"- {verdict}: {text}" if markdown else f"  [{verdict}] {text}")
    print()


def print_text(results: list[Result], args: argparse.Namespace) -> None:
    for key, value in machine():
        print(f"{key:14} {value}")
    print(f"back to back   solver: {implementation_name()}")
    caches = (
        "all solver caches cleared before every call"
        if args.cold
        else ("per-hand LRU cleared before every call; move tables warm")
    )
    print(f"hands          {args.hands} per class, {HAND_SIZE} cards, seed {args.seed}; {caches}")
    print()
    header = f"{'class':22} {'agree':>11} {'mean max':>8}  {'timed':20} {'median ms':>9} {'p99 ms':>8} "
    header += f"{'max ms':>8} {'ILP/solver':>10}"
    print(header)
    print("-" * len(header))
    for r in results:
        first = True
        for key in (*SOLVER_CALLS, "ILP"):
            median, p99, worst = r.stats(key)
            ratio = f"{r.ratio(key):9.1f}x" if key != "ILP" else ""
            lead = (
                f"{r.name:22} {r.agree:>5}/{r.hands:<5} {r.discarded / r.hands:8.2f}" if first else " " * 43
            )
            print(f"{lead}  {key:20} {median:9.3f} {p99:8.3f} {worst:8.3f} {ratio:>10}")
            first = False
    print()
    print("target check (uniform classic):")
    for text, ok in targets(results):
        print(f"  [{'PASS' if ok else 'FAIL'}] {text}")


def print_markdown(results: list[Result], args: argparse.Namespace) -> None:
    print(f"Back to back, solver: {implementation_name()}.")
    print()
    caches = (
        "all solver caches cleared before every call"
        if args.cold
        else "the solver's per-hand LRU cache cleared before every call (move tables warm)"
    )
    print(
        f"{args.hands} hands of {HAND_SIZE} cards per class, seed {args.seed}; {caches}. "
        "Times per solve in ms; ratio = median over hands of ILP time / solver time."
    )
    print()
    print(
        "| class | agree | mean max | solver call | median | p99 | max | ILP median | ILP p99 | ILP/solver |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        ilp_median, ilp_p99, _ = r.stats("ILP")
        for key in SOLVER_CALLS:
            median, p99, worst = r.stats(key)
            print(
                f"| {r.name} | {r.agree}/{r.hands} | {r.discarded / r.hands:.2f} | `{key}` | {median:.3f} "
                f"| {p99:.3f} | {worst:.3f} | {ilp_median:.3f} | {ilp_p99:.3f} | {r.ratio(key):.1f}x |"
            )
    print()
    for text, ok in targets(results):
        print(f"- {'PASS' if ok else 'FAIL'}: uniform classic, {text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per class (default 2000)")
    parser.add_argument("--seed", type=int, default=4008, help="seed for the hands (default 4008)")
    parser.add_argument("--cold", action="store_true", help="also clear the solver's move tables per call")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table for bench/RESULTS.md")
    parser.add_argument(
        "--interleaved-hands", type=int, default=2000, help="hands for the interleaved figure (default 2000)"
    )
    args = parser.parse_args(argv)
    if args.hands < 1 or args.interleaved_hands < 1:
        parser.error("--hands and --interleaved-hands must be at least 1")
    default = implementation_name()

    # Warm the imports and HiGHS on hands not measured; each solver pass re-warms the
    # move tables (unless --cold) on WARMUP_HANDS other hands of its class.
    warm = random.Random(args.seed ^ 0x5EED)
    warmups = {}
    for name, rules, deal in CLASSES:
        model = IlpModel(rules)
        warmups[name] = deal(rules, WARMUP_HANDS, warm)
        for hand in warmups[name][:50]:
            solver.best_discard(hand, rules)
            model.max_discard(hand)

    # The interleaved figure, for each implementation available, on the same hands.
    if args.markdown:
        print(f"Machine: {'; '.join(f'{k} {v}' for k, v in machine())}.")
    else:
        for key, value in machine():
            print(f"{key:14} {value}")
    print()
    hands = uniform_hands(CLASSIC, args.interleaved_hands, random.Random(args.seed * 31 + 7))
    runs = [run_interleaved(name, hands, warmups["uniform classic"]) for name in IMPLEMENTATIONS if use(name)]
    use(default)
    print_interleaved(runs, args, args.markdown)
    sys.stdout.flush()

    results = []
    for index, (name, rules, deal) in enumerate(CLASSES):
        hands = deal(rules, args.hands, random.Random(args.seed * 31 + index))
        results.append(run_class(name, rules, hands, args.cold, warmups[name]))

    (print_markdown if args.markdown else print_text)(results, args)
    bad = [line for r in (*runs, *results) for line in r.disagreements]
    if bad:
        print(f"\n{len(bad)} DISAGREEMENTS:", file=sys.stderr)
        for line in bad[:20]:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
