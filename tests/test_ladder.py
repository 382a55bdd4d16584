"""bench/ladder.py: the schedule (every pair, both seat orders, the same deals) and a tiny end-to-end run."""

from __future__ import annotations

import importlib
import itertools
import shlex
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import position

from games.notty import CLASSIC

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
ladder = importlib.import_module("ladder")

BOTS = ("random", "greedy", "qlearn")
PRESETS = ("classic", "five-colour")
TRIO = ("greedy", "qlearn", "random")


def _schedule(bots=BOTS, deals=3, target=("expert-hard", "greedy"), target_deals=5, trio_deals=2):
    return ladder.schedule(
        bots,
        PRESETS,
        deals,
        seed=9,
        target=target,
        target_deals=target_deals,
        trio=TRIO,
        trio_deals=trio_deals,
    )


def test_every_pair_plays_both_seat_orders_on_the_same_deals() -> None:
    specs = _schedule()
    assert len(set(specs)) == len(specs), "a game is scheduled twice"
    assert {s.deal.seed for s in specs} == {9}
    heads_up = [s for s in specs if len(s.seats) == 2]
    for preset in PRESETS:
        for a, b in itertools.combinations(BOTS, 2):
            games = {
                (s.deal.index, s.seats)
                for s in heads_up
                if s.deal.preset == preset and set(s.seats) == {a, b}
            }
            assert games == {(i, seats) for i in range(3) for seats in ((a, b), (b, a))}
    # The target pair is not among the bots: its own games, classic only, deals 0..4.
    target = {(s.deal.preset, s.deal.index, s.seats) for s in heads_up if "expert-hard" in s.seats}
    pairs = (("expert-hard", "greedy"), ("greedy", "expert-hard"))
    assert target == {("classic", i, seats) for i in range(5) for seats in pairs}
    # 3 players: every deal of every preset in all 6 seat orders.
    trio = Counter((s.deal.preset, s.deal.index) for s in specs if len(s.seats) == 3)
    assert trio == {(p, i): 6 for p in PRESETS for i in range(2)}
    for (preset, index), _ in trio.items():
        orders = {s.seats for s in specs if len(s.seats) == 3 and s.deal == ladder.Deal(preset, index, 9)}
        assert orders == set(itertools.permutations(TRIO))
    assert len(specs) == 3 * 2 * 3 * 2 + 5 * 2 + 2 * 2 * 6


def test_the_target_shares_the_ladders_games() -> None:
    bots = ("random", "expert-hard", "greedy")
    specs = _schedule(bots=bots, deals=3, target_deals=5, trio_deals=0)
    # 3 pairs x 2 presets x 3 deals x 2 orders, plus the target's 2 extra classic deals x 2 orders.
    assert len(specs) == 3 * 2 * 3 * 2 + 2 * 2
    target = [s for s in specs if set(s.seats) == {"expert-hard", "greedy"} and s.deal.preset == "classic"]
    assert sorted({s.deal.index for s in target}) == list(range(5))
    assert len(target) == 10


def test_one_deal_starts_the_same_whoever_sits_where() -> None:
    deal = ladder.Deal("five-colour", 7, 3)
    starts = []
    for lineup, order in [
        (("random", "greedy"), (0, 1)),
        (("random", "greedy"), (1, 0)),
        (("expert-hard", "qlearn"), (1, 0)),
        (("greedy", "random", "greedy"), (2, 0, 1)),
        (("qlearn", "greedy", "random"), (0, 2, 1)),
    ]:
        game, bots = ladder.start_game(ladder.GameSpec(deal, lineup, order), max_turns=300)
        assert [bot.name for bot in bots] == [lineup[i] for i in order]
        players = len(lineup)
        starts.append((players, game.hands, game.current, game.deck_contents()))
    for players in (2, 3):
        same = [s[1:] for s in starts if s[0] == players]
        assert all(s == same[0] for s in same)
    other, _ = ladder.start_game(
        ladder.GameSpec(ladder.Deal("five-colour", 8, 3), ("random", "greedy"), (0, 1)), 300
    )
    assert other.hands != starts[0][1]


def _rows(output: str, first_cells: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in output.splitlines()
        if line.startswith(f"| {first_cells} |")
    ]


def _count(cell: str) -> int:
    return int(cell.split()[0])


def test_tiny_ladder_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    command = (
        "--bots random,greedy --presets classic --deals 2 --trio greedy,random,greedy --trio-deals 1 "
        "--target greedy,random --target-deals 3 --max-turns 20 --jobs 1 --markdown --no-progress"
    )
    code = ladder.main(shlex.split(command))
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("Machine: ")
    assert "Command: `" in out and "--deals 2" in out
    (pair,) = _rows(out, "classic | random vs greedy")
    games, a, b, _ended, stalemate, turn_limit = pair[2:8]
    assert int(games) == 4
    assert _count(a) + _count(b) + int(stalemate) + int(turn_limit) == 4
    (row,) = [row for row in _rows(out, "classic") if row[1].isdigit()]  # the 3-player table
    assert int(row[1]) == 6
    assert sum(_count(c) for c in row[2:5]) + int(row[6]) + int(row[7]) == 6
    assert "3 deals x 2 seat orders = 6 games" in out
    verdicts = [line.split(":")[0] for line in out.splitlines() if line.startswith("- ")]
    assert set(verdicts) <= {"- PASS", "- FAIL", "- SKIP"} and len(verdicts) >= 4
    assert "Wall time" in out


def test_results_and_timings_add_up_and_do_not_depend_on_workers() -> None:
    specs = ladder.schedule(
        ("random", "greedy"), ("classic",), 2, seed=5, trio=("random", "greedy", "random"), trio_deals=1
    )
    one, timings = ladder.run(specs, max_turns=15, jobs=1)
    two, timings_two = ladder.run(specs, max_turns=15, jobs=2)

    def same(records):
        return [(r.spec, r.winner, r.reason, r.turns, r.actions) for r in records]

    assert same(one) == same(two)
    # Every choose() call is timed once, under the bot that made it.
    assert sum(h.count for h in timings.values()) == sum(r.actions for r in one)
    assert {k: h.count for k, h in timings.items()} == {k: h.count for k, h in timings_two.items()}
    for lineup in (("random", "greedy"), ("random", "greedy", "random")):
        t = ladder.tally(one, lineup)
        assert t.games == (4 if len(lineup) == 2 else 6)
        assert sum(t.wins) + t.stalemates + t.turn_limits == t.games
    assert ladder.tally(one, ("greedy", "random")).wins == ladder.tally(one, ("random", "greedy")).wins[::-1]
    h = timings["greedy", "classic"]
    assert 0 < h.quantile(0.5) <= h.quantile(0.95) <= h.max


@pytest.mark.parametrize(
    ("hands", "dead"),
    [
        # R4 and R7 are all in the opponent's face-up hand: no draw finishes R5 R6, but any
        # card stolen does, and two drawn cards may then take Y9 out.
        (["R5 R6 Y9", "R4 R4 R7 R7"], False),
        # The same theft leaves two loose cards, which three draws cannot both place.
        (["R5 R6 Y9 B2", "R4 R4 R7 R7"], True),
        # A last card is no theft to count on: its owner would win.
        (["R5 R6 Y9", "R4"], True),
    ],
)
def test_a_dead_turn_counts_the_chance_of_stealing_first(hands: list[str], dead: bool) -> None:
    view = position(CLASSIC, hands).view(0)
    look = ladder.Outlook(CLASSIC)
    by_drawing = look.best_draw(look.flat(view.hand), look.flat(view.deck_contents().elements()))[0]
    assert by_drawing < ladder.DEAD_CHANCE
    assert ladder.is_dead(view) is dead
