"""The bot ladder: every pair of bots heads-up on the same fixed deals, plus a 3-player round.

    .venv/bin/python bench/ladder.py [--bots random,greedy,qlearn,expert-easy,expert-medium,expert-hard]
        [--presets classic,five-colour] [--deals 200] [--target-deals 2000] [--trio expert-hard,greedy,qlearn]
        [--trio-deals 100] [--max-turns 300] [--jobs N] [--seed 4] [--markdown]
        [--only A,B | --target-only] [--plan]

What is played (every game with the turn cap, ``--max-turns``):

* **heads-up ladder** -- for every unordered pair of ``--bots`` and every preset,
  deals ``0 .. --deals - 1``, each played twice: the pair's first bot in seat 0,
  then swapped;
* **target** -- ``--target`` (expert-hard vs greedy) heads-up on classic, deals
  ``0 .. --target-deals - 1`` in both seat orders. Its first ``--deals`` deals
  are the ladder's own games for that pair, played once;
* **3-player round** -- ``--trio`` on every preset, deals ``0 .. --trio-deals - 1``,
  each in all 6 seat orders.

A deal is identified by (preset, deal index, ``--seed``) and nothing else: the
game's random source is seeded from it alone, so every pairing and both seat
orders start from the same hands and the same first seat (and, while their
draws line up, draw the same cards). Each bot's random source is seeded from
(deal, seating, seat, bot name). Seat names only label seats; the engine's
shuffle never reads them.

Reported: per pair and preset, each side's wins over all games with Wilson 95%
intervals, the share of games that ended with a winner (and how the others
ended), the mean turns to a win (``Game.turn``: turns of all players); a win
matrix; the 3-player round; for the expert levels, strength against budget
(each level against greedy, classic); per bot, the time of each ``choose`` call
(``time.perf_counter_ns`` inside the worker, kept as a log histogram with 2.2%
buckets: median, p95 and the exact max). Decision times on a shared machine
running ``--jobs`` workers are noisy; the jobs used are printed with them.

Then PASS/FAIL lines for the targets of issue 4: expert-hard wins >= 60% of the
target games against greedy with the lower Wilson 95% bound above 55%, and >= 80%
of those games end with a winner; expert-hard's win share against qlearn and
against random is higher than against greedy; expert-hard wins the 3-player
round; decision p95 under 100 ms at expert-medium and under 50 ms at expert-hard; at least 80% of the
target games end with a winner (lower 95% bound 78%); at most 5% of the expert's turns there begin dead
(3+ cards and under 0.1% chance of going out, drawing or stealing first).
A target whose games were not played prints SKIP.
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing
import os
import random
import shlex
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import attrs
from _machine import describe  # bench/ is on sys.path when this runs as a script

from games.notty import PRESETS, Rules, rules_from
from games.notty.bots import BOTS, Bot, make_bot
from games.notty.bots._base import victims
from games.notty.bots._outlook import Outlook
from games.notty.engine import Action, EndReason, Game, View
from games.notty.match import bot_seat_names, play_bots
from server.stats import wilson_interval

DEFAULT_BOTS = ("random", "greedy", "qlearn", "expert-easy", "expert-medium", "expert-hard")
DEFAULT_PRESETS = ("classic", "five-colour")
DEFAULT_TARGET = ("expert-hard", "greedy")
DEFAULT_TRIO = ("expert-hard", "greedy", "qlearn")
TARGET_PRESET = "classic"
EXPERT_LEVELS = ("expert-easy", "expert-medium", "expert-hard")
#: The champion must beat these by more than it beats the target's baseline (greedy).
WEAKER = ("qlearn", "random")

TARGET_WIN_SHARE = 0.60
TARGET_LOWER_BOUND = 0.55
TARGET_ENDED_SHARE = 0.80
TARGET_ENDED_LOWER_BOUND = 0.78
#: A turn begun with this many cards or more and a chance of going out under DEAD_CHANCE is dead.
DEAD_HAND = 3
DEAD_CHANCE = 0.001
TARGET_DEAD_SHARE = 0.05  # of the champion's turns in the target games
#: Decision-time p95 ceilings, in seconds.
TARGET_P95 = {"expert-medium": 0.100, "expert-hard": 0.050}  # seconds (issue 20: 50 ms at hard)


# -- what is played -------------------------------------------------------------------------------


@attrs.frozen(order=True)
class Deal:
    """One starting position: the game's random source depends on these three and nothing else."""

    preset: str
    index: int
    seed: int

    def rng(self) -> random.Random:
        return random.Random(f"notty-ladder:{self.seed}:{self.preset}:{self.index}")


@attrs.frozen(order=True)
class GameSpec:
    """One game: ``lineup[order[seat]]`` sits in ``seat``."""

    deal: Deal
    lineup: tuple[str, ...]  # the pairing, in its canonical order
    order: tuple[int, ...]  # which lineup member sits at each seat

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(self.lineup[i] for i in self.order)


def schedule(
    bots: Sequence[str],
    presets: Sequence[str],
    deals: int,
    *,
    seed: int,
    target: Sequence[str] = DEFAULT_TARGET,
    target_deals: int = 0,
    trio: Sequence[str] = (),
    trio_deals: int = 0,
) -> list[GameSpec]:
    """Every game of a ladder, each once (the target's first deals are the ladder's games)."""
    games: dict[GameSpec, None] = {}  # an ordered set
    swaps: tuple[tuple[int, ...], ...] = ((0, 1), (1, 0))
    pairs = list(itertools.combinations(bots, 2))
    for preset in presets:
        for pair in pairs:
            for index in range(deals):
                for order in swaps:
                    games[GameSpec(Deal(preset, index, seed), pair, order)] = None
    if target_deals > 0:
        a, b = target
        lineup = (a, b) if (b, a) not in pairs else (b, a)  # the ladder's order, so its games are shared
        for index in range(target_deals):
            for order in swaps:
                games[GameSpec(Deal(TARGET_PRESET, index, seed), lineup, order)] = None
    if trio and trio_deals > 0:
        for preset in presets:
            for index in range(trio_deals):
                for order in itertools.permutations(range(len(trio))):
                    games[GameSpec(Deal(preset, index, seed), tuple(trio), order)] = None
    return list(games)


def start_game(spec: GameSpec, max_turns: int) -> tuple[Game, list[Bot]]:
    """The game of ``spec`` before its first move, and its bots."""
    deal = spec.deal
    rules = rules_from(deal.preset, turn_limit=max_turns)
    game = Game(rules, bot_seat_names(spec.seats), deal.rng())
    seating = "/".join(spec.seats)
    bots = [
        make_bot(
            name,
            random.Random(f"notty-ladder-bot:{deal.seed}:{deal.preset}:{deal.index}:{seating}:{seat}:{name}"),
        )
        for seat, name in enumerate(spec.seats)
    ]
    return game, bots


# -- playing, in workers ------------------------------------------------------------------------


class Histogram:
    """Durations in ns, in logarithmic buckets 2**(1/32) (2.2%) wide: small to ship, mergeable."""

    STEPS = 32  # buckets per doubling

    def __init__(self) -> None:
        self.buckets: Counter[int] = Counter()
        self.count = 0
        self.total_ns = 0
        self.max_ns = 0

    def add(self, ns: int) -> None:
        self.buckets[int(math.log2(max(ns, 1)) * self.STEPS)] += 1
        self.count += 1
        self.total_ns += ns
        self.max_ns = max(self.max_ns, ns)

    def merge(self, other: Histogram) -> None:
        self.buckets.update(other.buckets)
        self.count += other.count
        self.total_ns += other.total_ns
        self.max_ns = max(self.max_ns, other.max_ns)

    def quantile(self, q: float) -> float:
        """The ``q`` quantile (nearest rank) in seconds, to within half a bucket (1.1%)."""
        if not self.count:
            return math.nan
        rank = max(1, math.ceil(q * self.count))
        seen = 0
        for bucket in sorted(self.buckets):
            seen += self.buckets[bucket]
            if seen >= rank:
                return min(2 ** ((bucket + 0.5) / self.STEPS), self.max_ns) / 1e9
        return self.max_ns / 1e9

    @property
    def max(self) -> float:
        return self.max_ns / 1e9

    @property
    def total(self) -> float:
        return self.total_ns / 1e9


#: Decision times by (bot name, preset).
Timings = dict[tuple[str, str], Histogram]


class TimedBot:
    """A bot whose every ``choose`` call is timed into a histogram."""

    def __init__(self, bot: Bot, histogram: Histogram) -> None:
        self.bot, self.histogram = bot, histogram
        self.name = bot.name
        self.turns = self.dead = 0  # turns begun, and of those, dead ones (see is_dead)
        self._turn = 0

    def choose(self, view: View) -> Action:
        if view.turn != self._turn:
            self._turn = view.turn
            self.turns += 1
            self.dead += is_dead(view)
        start = time.perf_counter_ns()
        action = self.bot.choose(view)
        self.histogram.add(time.perf_counter_ns() - start)
        return action


def is_dead(view: View) -> bool:
    """Does the seat to move begin its turn with a big hand that nothing this turn can take out?

    A turn's chance is that of its best plan: draw (0 to 3 cards), or steal first and
    choose the draw after seeing the stolen card (hands are face up, so each victim's
    odds are known). A last card is never counted as one to steal: its owner would win.
    """
    hand = view.hand
    if len(hand) < DEAD_HAND:
        return False
    look = _OUTLOOKS.get(view.rules) or _OUTLOOKS.setdefault(view.rules, Outlook(view.rules))
    mine, deck = look.flat(hand), look.flat(view.deck_contents().elements())
    if look.best_draw(mine, deck)[0] >= DEAD_CHANCE:
        return False
    seat = view.current if view.seat is None else view.seat
    return not any(
        look.steal_gain(mine, deck, look.flat(view.hands[victim])) >= DEAD_CHANCE
        for victim in victims(view, seat)
    )


#: The expert's own go-out arithmetic (the best chance a draw gives now), one per ruleset.
_OUTLOOKS: dict[Rules, Outlook] = {}


@attrs.frozen
class Record:
    spec: GameSpec
    winner: int | None  # seat
    reason: EndReason
    turns: int
    actions: int  # choose() calls, all seats
    seconds: float
    seat_turns: tuple[int, ...] = ()  # turns each seat began
    dead_turns: tuple[int, ...] = ()  # ... with DEAD_HAND cards or more and no chance (is_dead)

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.spec.seats[self.winner]

    @property
    def winner_member(self) -> int | None:
        """The winner as an index into ``spec.lineup``."""
        return None if self.winner is None else self.spec.order[self.winner]


def play(spec: GameSpec, max_turns: int, timings: Timings) -> Record:
    game, bots = start_game(spec, max_turns)
    timed = [
        TimedBot(bot, timings.setdefault((name, spec.deal.preset), Histogram()))
        for bot, name in zip(bots, spec.seats, strict=True)
    ]
    start = time.perf_counter()
    result = play_bots(game, timed)
    return Record(
        spec,
        result.winner,
        result.reason,
        result.turns,
        result.actions,
        time.perf_counter() - start,
        tuple(bot.turns for bot in timed),
        tuple(bot.dead for bot in timed),
    )


def _play_chunk(job: tuple[list[GameSpec], int]) -> tuple[list[Record], Timings]:
    specs, max_turns = job
    timings: Timings = {}
    return [play(spec, max_turns, timings) for spec in specs], timings


def _cost(spec: GameSpec) -> int:
    """A rough ordering of how slow a game is, so the slowest start first (and none is left last)."""
    return sum(3 if name.startswith("expert") else 1 for name in spec.lineup)


def run(
    specs: Sequence[GameSpec], max_turns: int, jobs: int, progress: Progress | None = None
) -> tuple[list[Record], Timings]:
    """Play every game, in ``jobs`` spawned processes (in this one if ``jobs`` is 1)."""
    ordered = sorted(specs, key=_cost, reverse=True)  # stable: groups stay together
    size = max(1, min(10, len(ordered) // (jobs * 16) or 1))
    chunks = [(ordered[i : i + size], max_turns) for i in range(0, len(ordered), size)]
    records: list[Record] = []
    timings: Timings = {}
    pool = None
    if jobs <= 1:
        results: Iterator[tuple[list[Record], Timings]] = map(_play_chunk, chunks)
    else:
        pool = multiprocessing.get_context("spawn").Pool(jobs)
        results = pool.imap_unordered(_play_chunk, chunks)
    try:
        for batch, batch_timings in results:
            records.extend(batch)
            for key, histogram in batch_timings.items():
                timings.setdefault(key, Histogram()).merge(histogram)
            if progress is not None:
                progress.advance(batch)
    finally:
        if progress is not None:
            progress.close()
        if pool is not None:
            pool.terminate()
    records.sort(key=lambda r: r.spec)
    return records, timings


class Progress:
    """Games done on stderr: one redrawn line on a terminal, else a line every 10% or every minute.

    The time left is estimated per pairing and preset from its games so far (an expert's game can
    cost a thousand times a greedy one); pairings not seen yet count at the mean of all games so far.
    """

    def __init__(self, specs: Sequence[GameSpec], jobs: int, tty: bool) -> None:
        self.left = Counter(_kind(spec) for spec in specs)
        self.played: Counter[tuple[str, ...]] = Counter()
        self.seconds: dict[tuple[str, ...], float] = {}
        self.total, self.jobs, self.tty = len(specs), jobs, tty
        self.done, self.start, self.drawn, self.tenths = 0, time.monotonic(), 0.0, 0

    def advance(self, batch: Sequence[Record]) -> None:
        for record in batch:
            kind = _kind(record.spec)
            self.left[kind] -= 1
            self.played[kind] += 1
            self.seconds[kind] = self.seconds.get(kind, 0.0) + record.seconds
        self.done += len(batch)
        now = time.monotonic()
        elapsed = now - self.start
        mean = sum(self.seconds.values()) / max(self.done, 1)
        left = sum(
            n * (self.seconds[k] / self.played[k] if self.played[k] else mean) for k, n in self.left.items()
        )
        line = f"{self.done}/{self.total} games, {_clock(elapsed)} elapsed, ~{_clock(left / self.jobs)} left"
        if self.tty:
            if now - self.drawn >= 0.1 or self.done == self.total:
                self.drawn = now
                width = 30
                filled = width * self.done // self.total
                sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {line} ")
                sys.stderr.flush()
        elif self.done * 10 // self.total > self.tenths or now - self.drawn >= 60:
            self.tenths, self.drawn = self.done * 10 // self.total, now
            print(f"ladder: {line}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _kind(spec: GameSpec) -> tuple[str, ...]:
    return (spec.deal.preset, *sorted(spec.lineup))


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02}:{seconds % 60:02}"


# -- summaries ----------------------------------------------------------------------------------


@attrs.frozen
class Tally:
    """How a set of games between the same lineup went; ``wins[i]`` for ``lineup[i]``."""

    lineup: tuple[str, ...]
    games: int
    wins: tuple[int, ...]
    stalemates: int
    turn_limits: int
    no_progress: int  # drawn: no hand changed for the rules' quiet rounds
    turns_to_win: float | None  # mean, over games with a winner
    seconds: float  # wall time spent playing them, summed

    @property
    def ended(self) -> int:
        return sum(self.wins)

    def share(self, member: int) -> float:
        return self.wins[member] / self.games if self.games else math.nan

    def interval(self, member: int) -> tuple[float, float]:
        return wilson_interval(self.wins[member], self.games)


def tally(records: Iterable[Record], lineup: Sequence[str]) -> Tally:
    """Games of exactly this lineup (heads-up: either order of the pair)."""
    lineup = tuple(lineup)
    wins = [0] * len(lineup)
    games = stalemates = turn_limits = no_progress = won_turns = 0
    seconds = 0.0
    for record in records:
        spec = record.spec
        if spec.lineup == lineup:
            member = record.winner_member
        elif len(lineup) == 2 and spec.lineup == lineup[::-1]:
            member = None if record.winner_member is None else 1 - record.winner_member
        else:
            continue
        games += 1
        seconds += record.seconds
        if member is not None:
            wins[member] += 1
            won_turns += record.turns
        elif record.reason is EndReason.STALEMATE:
            stalemates += 1
        elif record.reason is EndReason.TURN_LIMIT:
            turn_limits += 1
        elif record.reason is EndReason.NO_PROGRESS:
            no_progress += 1
    won = sum(wins)
    return Tally(
        lineup,
        games,
        tuple(wins),
        stalemates,
        turn_limits,
        no_progress,
        won_turns / won if won else None,
        seconds,
    )


def select(records: Iterable[Record], preset: str | None = None, deals: int | None = None) -> list[Record]:
    return [
        r
        for r in records
        if (preset is None or r.spec.deal.preset == preset) and (deals is None or r.spec.deal.index < deals)
    ]


def pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.1%}"


def wins_cell(t: Tally, member: int) -> str:
    low, high = t.interval(member)
    return f"{t.wins[member]} ({pct(t.share(member))}, {low:.1%}–{high:.1%})"


def ended_cell(t: Tally) -> str:
    return f"{pct(t.ended / t.games)}" if t.games else "n/a"


def turns_cell(t: Tally) -> str:
    return "–" if t.turns_to_win is None else f"{t.turns_to_win:.1f}"


def ms(seconds: float) -> str:
    return (
        "n/a" if math.isnan(seconds) else f"{seconds * 1e3:.3f}" if seconds < 0.01 else f"{seconds * 1e3:.1f}"
    )


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool], markdown: bool
) -> str:
    """A markdown table, or the same as fixed-width text."""
    if markdown:
        lines = [
            "| " + " | ".join(headers) + " |",
            "|" + "|".join("---:" if r else "---" for r in right) + "|",
        ]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(row) for row in rows)])


@attrs.frozen
class Config:
    bots: tuple[str, ...]
    presets: tuple[str, ...]
    deals: int
    target: tuple[str, str]
    target_deals: int
    trio: tuple[str, ...]
    trio_deals: int
    max_turns: int
    seed: int
    jobs: int


class Report:
    """Every section of the ladder's output, from the played games."""

    def __init__(self, config: Config, records: list[Record], timings: Timings, markdown: bool) -> None:
        self.config, self.records, self.timings, self.markdown = config, records, timings, markdown
        self.heads_up = [r for r in records if len(r.spec.lineup) == 2]
        self.three = [r for r in records if len(r.spec.lineup) == 3]
        self.ladder = select(self.heads_up, deals=config.deals)  # the same deals for every pair
        played = {frozenset(r.spec.lineup) for r in self.ladder}
        self.pairs = [p for p in itertools.combinations(config.bots, 2) if frozenset(p) in played]
        self.checks: list[tuple[str, bool | None]] = []

    def heading(self, text: str) -> str:
        return f"### {text}" if self.markdown else f"== {text}"

    def pairs_section(self) -> str:
        rows = []
        for preset in self.config.presets:
            games = select(self.ladder, preset)
            for a, b in self.pairs:
                t = tally(games, (a, b))
                if t.games:
                    rows.append(
                        [
                            preset,
                            f"{a} vs {b}",
                            str(t.games),
                            wins_cell(t, 0),
                            wins_cell(t, 1),
                            ended_cell(t),
                            str(t.stalemates),
                            str(t.turn_limits),
                            str(t.no_progress),
                            turns_cell(t),
                            f"{t.seconds / t.games:.2f}",
                        ]
                    )
        headers = [
            "preset",
            "pair (A vs B)",
            "games",
            "A wins (95% CI)",
            "B wins (95% CI)",
            "ended",
            "stalemate",
            "turn limit",
            "no progress",
            "turns to win",
            "s/game",
        ]
        return "\n".join(
            [
                self.heading("Heads-up ladder"),
                "",
                f"{self.config.deals} deals per pair and preset, each in both seat orders "
                f"(games = 2 x deals); {self.config.max_turns}-turn cap. Wins with Wilson 95% intervals; "
                "ended = share of games with a winner; turns to win = mean Game.turn of the games won "
                "(turns of all players); s/game = wall time per game in a worker.",
                "",
                table(headers, rows, [False, False, *[True] * (len(headers) - 2)], self.markdown),
            ]
        )

    def matrix_section(self) -> str:
        bots = [b for b in self.config.bots if any(b in p for p in self.pairs)]
        parts = [
            self.heading("Win matrix"),
            "",
            "Share of heads-up games the row bot won against the column bot (the rest: the column bot won "
            "or no one did).",
        ]
        for preset in self.config.presets:
            games = select(self.ladder, preset)
            rows = []
            for a in bots:
                row = [a]
                for b in bots:
                    t = tally(games, (a, b)) if a != b else None
                    row.append("–" if t is None or not t.games else pct(t.share(0)))
                rows.append(row)
            parts += [
                "",
                f"{preset}:",
                "",
                table(["", *bots], rows, [False, *[True] * len(bots)], self.markdown),
            ]
        return "\n".join(parts)

    def target_section(self) -> str:
        a, b = self.config.target
        games = select(self.heads_up, TARGET_PRESET, self.config.target_deals)
        t = tally(games, (a, b))
        lines = [self.heading(f"Target: {a} vs {b}, heads-up {TARGET_PRESET}"), ""]
        if not t.games:
            self.checks.append((f"{a} vs {b} target: not played", None))
            return "\n".join([*lines, "not played"])
        low, _ = t.interval(0)
        ended = t.ended / t.games
        e_low, e_high = wilson_interval(t.ended, t.games)
        lines += [
            f"{t.games // 2} deals x 2 seat orders = {t.games} games, {self.config.max_turns}-turn cap, "
            f"{t.seconds / t.games:.2f} s/game",
            f"  {a} wins:  {wins_cell(t, 0)}",
            f"  {b} wins:  {wins_cell(t, 1)}",
            f"  ended with a winner: {t.ended} ({pct(ended)}, {e_low:.1%}–{e_high:.1%}); "
            f"stalemate {t.stalemates}, turn limit {t.turn_limits}, no progress {t.no_progress}; "
            f"mean turns to a win {turns_cell(t)}",
        ]
        turns = dead = 0
        for record in games:
            if set(record.spec.lineup) != {a, b}:
                continue
            for seat, name in enumerate(record.spec.seats):
                if name == a and record.seat_turns:
                    turns += record.seat_turns[seat]
                    dead += record.dead_turns[seat]
        dead_share = dead / turns if turns else math.nan
        lines.append(
            f"  {a}'s turns begun with {DEAD_HAND}+ cards and under {DEAD_CHANCE:.1%} chance of going out: "
            f"{dead} of {turns} ({pct(dead_share)})"
        )
        share = t.share(0)
        self.checks += [
            (
                f"{a} vs {b}, {t.games} games: {a} wins {pct(share)} (target >= {TARGET_WIN_SHARE:.0%})",
                share >= TARGET_WIN_SHARE,
            ),
            (
                f"{a} vs {b}: lower 95% bound {low:.1%} (target > {TARGET_LOWER_BOUND:.0%})",
                low > TARGET_LOWER_BOUND,
            ),
            (
                f"{a} vs {b}: {pct(ended)} of games end with a winner within {self.config.max_turns} turns "
                f"(target >= {TARGET_ENDED_SHARE:.0%})",
                ended >= TARGET_ENDED_SHARE,
            ),
            (
                f"{a} vs {b}: lower 95% bound of games ended {e_low:.1%} "
                f"(target >= {TARGET_ENDED_LOWER_BOUND:.0%})",
                e_low >= TARGET_ENDED_LOWER_BOUND,
            ),
            (
                f"{a}: {pct(dead_share)} of its turns begin with {DEAD_HAND}+ cards and under "
                f"{DEAD_CHANCE:.1%} chance of going out (target <= {TARGET_DEAD_SHARE:.0%})",
                dead_share <= TARGET_DEAD_SHARE,
            ),
        ]
        return "\n".join(lines)

    def beats_checks(self) -> None:
        """The champion beats the weaker bots by more than it beats the baseline, on the same deals."""
        champion, baseline = self.config.target
        played = {frozenset(pair) for pair in self.pairs}
        against = tally(self.ladder, (champion, baseline))
        for weaker in WEAKER:
            if weaker in (champion, baseline):
                continue
            t = tally(self.ladder, (champion, weaker))
            text = f"{champion} vs {weaker}"
            if not {frozenset((champion, weaker)), frozenset((champion, baseline))} <= played:
                self.checks.append((f"{text} / vs {baseline}: not both played", None))
                continue
            ok = t.share(0) > t.share(1) and t.share(0) > against.share(0)
            self.checks.append(
                (
                    f"{text}: wins {pct(t.share(0))} to {pct(t.share(1))}, more than its "
                    f"{pct(against.share(0))} vs {baseline} ({t.games} games each, all presets)",
                    ok,
                )
            )

    def trio_section(self) -> str:
        trio = self.config.trio
        labels = [f"{n}#{trio[: i + 1].count(n)}" if trio.count(n) > 1 else n for i, n in enumerate(trio)]
        rows = []
        overall = tally(self.three, trio)
        for preset in (*self.config.presets, "all"):
            t = tally(select(self.three, None if preset == "all" else preset), trio)
            if t.games:
                rows.append(
                    [preset, str(t.games)]
                    + [wins_cell(t, i) for i in range(len(trio))]
                    + [
                        ended_cell(t),
                        str(t.stalemates),
                        str(t.turn_limits),
                        str(t.no_progress),
                        turns_cell(t),
                        f"{t.seconds / t.games:.2f}",
                    ]
                )
        heading = self.heading(f"3-player round: {', '.join(trio)}")
        champion = self.config.target[0]
        if not overall.games:
            if champion in trio or not trio:
                self.checks.append((f"{champion} wins the 3-player round: not played", None))
            return "\n".join([heading, "", "not played"])
        if champion in trio:
            i = trio.index(champion)
            best = max(w for j, w in enumerate(overall.wins) if j != i)
            self.checks.append(
                (
                    f"{champion} wins the 3-player round: {overall.wins[i]} wins of {overall.games} games "
                    f"(next best {best})",
                    overall.wins[i] > best,
                )
            )
        headers = [
            "preset",
            "games",
            *(f"{label} wins (95% CI)" for label in labels),
            "ended",
            "stalemate",
            "turn limit",
            "no progress",
            "turns to win",
            "s/game",
        ]
        return "\n".join(
            [
                heading,
                "",
                f"{self.config.trio_deals} deals per preset, each in all 6 seat orders.",
                "",
                table(headers, rows, [False, *[True] * (len(headers) - 1)], self.markdown),
            ]
        )

    def budget_section(self) -> str:
        baseline = self.config.target[1]
        rows = []
        for level in EXPERT_LEVELS:
            t = tally(select(self.heads_up, TARGET_PRESET), (level, baseline))
            h = self.timings.get((level, TARGET_PRESET))
            if not t.games:
                continue
            rows.append(
                [
                    level,
                    str(t.games),
                    wins_cell(t, 0),
                    wins_cell(t, 1),
                    ended_cell(t),
                    turns_cell(t),
                    ms(h.quantile(0.5)) if h else "n/a",
                    ms(h.quantile(0.95)) if h else "n/a",
                ]
            )
        lines = [
            self.heading(f"Expert strength against budget (vs {baseline}, heads-up {TARGET_PRESET})"),
            "",
        ]
        if not rows:
            return "\n".join([*lines, "no expert level played"])
        headers = [
            "level",
            "games",
            "expert wins (95% CI)",
            f"{baseline} wins",
            "ended",
            "turns to win",
            "decision median ms",
            "decision p95 ms",
        ]
        return "\n".join(
            [
                *lines,
                f"Every game played between the level and {baseline} on {TARGET_PRESET} (the target's extra "
                "deals included); decision times over all the level's classic games.",
                "",
                table(headers, rows, [False, *[True] * 7], self.markdown),
            ]
        )

    def timing_section(self) -> str:
        seats: Counter[tuple[str, str]] = Counter()
        for record in self.records:
            for name in record.spec.seats:
                seats[name, record.spec.deal.preset] += 1
        names = list(dict.fromkeys(name for name, _ in sorted(self.timings, key=lambda k: k[0])))
        order = [
            *(b for b in self.config.bots if b in names),
            *(n for n in names if n not in self.config.bots),
        ]
        rows = []
        for name in order:
            merged = Histogram()
            games = 0
            for preset in self.config.presets:
                h = self.timings.get((name, preset))
                if h is None:
                    continue
                merged.merge(h)
                games += seats[name, preset]
                rows.append(self._timing_row(name, preset, h, seats[name, preset]))
            if len(self.config.presets) > 1 and merged.count:
                rows.append(self._timing_row(name, "all", merged, games))
        for name, limit in TARGET_P95.items():
            merged = Histogram()
            for (bot, _), h in self.timings.items():
                if bot == name:
                    merged.merge(h)
            if not merged.count:
                self.checks.append((f"{name} decision p95: not played", None))
                continue
            p95 = merged.quantile(0.95)
            self.checks.append(
                (
                    f"{name} decision p95 {ms(p95)} ms over {merged.count} decisions "
                    f"(target < {ms(limit)} ms)",
                    p95 < limit,
                )
            )
        headers = [
            "bot",
            "preset",
            "games",
            "decisions",
            "per game",
            "median ms",
            "p95 ms",
            "max ms",
            "thinking s",
        ]
        return "\n".join(
            [
                self.heading("Decision time per bot"),
                "",
                f"Every choose() call, timed in the worker with time.perf_counter_ns; {self.config.jobs} "
                "worker process(es) on this machine, so other load shows up in the tails. games counts "
                "seats (a bot twice in a game counts twice); thinking s = all its decisions summed.",
                "",
                table(headers, rows, [False, False, *[True] * 7], self.markdown),
            ]
        )

    @staticmethod
    def _timing_row(name: str, preset: str, h: Histogram, games: int) -> list[str]:
        return [
            name,
            preset,
            str(games),
            str(h.count),
            f"{h.count / games:.1f}" if games else "n/a",
            ms(h.quantile(0.5)),
            ms(h.quantile(0.95)),
            ms(h.max),
            f"{h.total:.1f}",
        ]

    def checks_section(self) -> str:
        lines = [self.heading("Targets"), ""]
        for text, ok in self.checks:
            verdict = "SKIP" if ok is None else "PASS" if ok else "FAIL"
            lines.append(f"- {verdict}: {text}" if self.markdown else f"  [{verdict}] {text}")
        return "\n".join(lines)

    def render(self) -> str:
        sections = []
        if self.pairs:
            sections += [self.pairs_section(), self.matrix_section()]
        sections.append(self.target_section())
        if self.pairs:
            self.beats_checks()
        if self.config.trio and self.config.trio_deals:
            sections.append(self.trio_section())
        sections += [self.budget_section(), self.timing_section(), self.checks_section()]
        return "\n\n".join(sections)


# -- the command line ---------------------------------------------------------------------------


def _names(text: str, what: str, parser: argparse.ArgumentParser, known: Iterable[str]) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown {what} {', '.join(unknown)}: choose from {', '.join(known)}")
    return names


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=f"bots: {', '.join(BOTS)}; presets: {', '.join(PRESETS)}"
    )
    parser.add_argument("--bots", default=",".join(DEFAULT_BOTS), help="bots for the heads-up ladder")
    parser.add_argument(
        "--presets", default=",".join(DEFAULT_PRESETS), help="presets for the ladder and trio"
    )
    parser.add_argument(
        "--deals", type=int, default=200, help="heads-up deals per pair and preset (default 200)"
    )
    parser.add_argument("--target", default=",".join(DEFAULT_TARGET), help="the target pair (classic)")
    parser.add_argument(
        "--target-deals", type=int, default=2000, help="deals for the target pair (default 2000; 0: none)"
    )
    parser.add_argument("--trio", default=",".join(DEFAULT_TRIO), help="3 bots for the 3-player round")
    parser.add_argument(
        "--trio-deals", type=int, default=100, help="3-player deals per preset, x6 seat orders (default 100)"
    )
    parser.add_argument("--max-turns", type=int, default=300, help="turn cap per game (default 300; 0: none)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all)"
    )
    parser.add_argument("--seed", type=int, default=4, help="base seed of the deals (default 4)")
    parser.add_argument("--markdown", action="store_true", help="print tables ready for bench/RESULTS.md")
    only = parser.add_mutually_exclusive_group()
    only.add_argument(
        "--only", metavar="A,B", help="play just this pair's heads-up ladder (and the target if it is)"
    )
    only.add_argument("--target-only", action="store_true", help="play just the target games")
    parser.add_argument("--plan", action="store_true", help="print how many games would be played, and exit")
    parser.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    return parser


def config_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Config:
    bots = _names(args.bots, "bot(s)", parser, BOTS)
    if len(set(bots)) != len(bots):
        parser.error("--bots names a bot twice")
    presets = _names(args.presets, "preset(s)", parser, PRESETS)
    target = _names(args.target, "bot(s)", parser, BOTS)
    if len(target) != 2 or target[0] == target[1]:
        parser.error("--target takes two different bots")
    trio = _names(args.trio, "bot(s)", parser, BOTS)
    if trio and len(trio) != 3:
        parser.error("--trio takes 3 bots")
    for name in ("deals", "target_deals", "trio_deals", "max_turns"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be 0 or more")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    trio_deals = args.trio_deals
    if args.only:
        bots = _names(args.only, "bot(s)", parser, BOTS)
        if len(bots) != 2 or bots[0] == bots[1]:
            parser.error("--only takes two different bots")
        trio_deals = 0
    elif args.target_only:
        bots, trio_deals = (), 0
    target_deals = args.target_deals
    if args.only and set(bots) != set(target):
        target_deals = 0
    return Config(
        bots,
        presets,
        args.deals,
        (target[0], target[1]),
        target_deals,
        trio,
        trio_deals,
        args.max_turns,
        args.seed,
        args.jobs,
    )


def plan(config: Config) -> list[GameSpec]:
    return schedule(
        config.bots,
        config.presets,
        config.deals,
        seed=config.seed,
        target=config.target,
        target_deals=config.target_deals,
        trio=config.trio,
        trio_deals=config.trio_deals,
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(argv)
    config = config_from(args, parser)
    specs = plan(config)
    command = shlex.join([os.path.relpath(sys.executable), os.path.relpath(__file__), *argv])
    by_lineup = Counter(" vs ".join(s.lineup) + f" ({s.deal.preset})" for s in specs)
    if args.plan:
        for lineup, games in by_lineup.items():
            print(f"{games:8}  {lineup}")
        print(f"{len(specs):8}  games in all")
        return 0
    if not specs:
        parser.error("nothing to play")

    jobs = min(config.jobs, len(specs))
    start = time.perf_counter()
    progress = None if args.no_progress else Progress(specs, jobs, sys.stderr.isatty())
    try:
        records, timings = run(specs, config.max_turns, jobs, progress)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    wall = time.perf_counter() - start

    md = args.markdown
    head = [
        f"Machine: {describe()}.",
        f"Command: `{command}`" if md else f"Command: {command}",
        f"Settings: bots {','.join(config.bots) or '-'}; presets {','.join(config.presets)}; "
        f"{config.deals} heads-up deals; target {','.join(config.target)} x {config.target_deals} deals; "
        f"trio {','.join(config.trio) or '-'} x {config.trio_deals} deals; "
        f"{config.max_turns}-turn cap; seed {config.seed}; {jobs} job(s).",
    ]
    report = Report(attrs.evolve(config, jobs=jobs), records, timings, md)
    body = report.render()
    cpu = sum(r.seconds for r in records)
    tail = (
        f"Wall time {wall:.1f} s for {len(records)} games ({len(records) / wall:.1f} games/s on {jobs} "
        f"process(es); {cpu:.1f} s of play summed over workers)."
    )
    print("\n".join(head))
    print()
    print(body)
    print()
    print(tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
