"""notty-sim and notty-watch: statistics, seating, determinism and the command lines."""

from __future__ import annotations

import json
import re

import hidden_game
import pytest

from client import watch
from games import GAMES
from games.notty.game import BOT_TURN_LIMIT
from server import sim
from server.stats import wilson_interval


def test_wilson_interval_known_values() -> None:
    # Reference values (Wilson 1927; as computed by statsmodels proportion_confint(method="wilson")).
    low, high = wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4)
    assert high == pytest.approx(0.3662, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_seating_rotates_every_player_through_every_seat() -> None:
    players = ("greedy", "random", "greedy")
    firsts = [sim.seating(players, i)[0] for i in range(6)]
    assert sorted(firsts) == [0, 0, 1, 1, 2, 2]
    for i in range(6):
        assert sorted(sim.seating(players, i)) == [0, 1, 2]


def _config(games: int = 6, players: tuple[str, ...] = ("greedy", "random")) -> sim.SimConfig:
    settings = GAMES["notty"].settings("classic", len(players), {"turn_limit": 40})
    return sim.SimConfig(settings, players, games, seed=11)


def test_results_do_not_depend_on_worker_count() -> None:
    config = _config()
    one = sorted(sim.run(config, jobs=1), key=lambda o: o.index)
    two = sorted(sim.run(config, jobs=2), key=lambda o: o.index)
    assert one == two
    assert [o.index for o in one] == list(range(config.games))


def test_summary_counts_add_up() -> None:
    config = _config(games=8, players=("greedy", "greedy", "random"))
    outcomes = [sim.play_one(config, i) for i in range(config.games)]
    summary = sim.summarise(config, outcomes, seconds=1.0, jobs=1)
    assert [b["bot"] for b in summary["bots"]] == ["greedy#1", "greedy#2", "random"]
    wins = sum(b["wins"] for b in summary["bots"])
    assert wins + summary["no_winner"]["total"] == config.games
    none = dict(summary["no_winner"])
    assert none.pop("total") == sum(none.values())
    assert "turn_limit" in none  # Notty has a turn limit: counted even when no game reached it
    assert all(o.turns <= 40 for o in outcomes)
    for bot in summary["bots"]:
        low, high = bot["ci95"]
        assert low <= bot["win_rate"] <= high


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = sim.main(
        [
            "--games",
            "4",
            "--players",
            "greedy,random",
            "--seed",
            "3",
            "--max-turns",
            "30",
            "--jobs",
            "1",
            "--json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 4
    assert summary["max_turns"] == 30
    assert summary["players"] == ["greedy", "random"]
    assert set(summary) >= {"bots", "no_winner", "mean_turns", "games_per_second"}


def test_cli_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    code = sim.main(
        [
            "--games",
            "3",
            "--players",
            "random,random,random",
            "--preset",
            "five-colour",
            "--max-turns",
            "20",
            "--jobs",
            "1",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "3 games of five-colour" in out
    assert re.search(r"random#1\s+\d+\s+[\d.]+%\s+\[", out)
    assert "games/s" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "greedy,nobody"], "unknown bot"),
        (["--players", "greedy"], "2 or 3 players"),
        (["--players", "greedy,,random"], "a player's name is missing in 'greedy,,random'"),
        (["--preset", "poker"], "no variant 'poker'"),
        (["--variant", "poker"], "variants are classic, five-colour"),
        (["--game", "poker"], "invalid choice"),
        (["--max-turns", "100001"], "turn_limit is a whole number from 0 to 100000"),
        (["--games", "0"], "--games"),
        (["--max-turns", "-1"], "--max-turns"),
    ],
)
def test_cli_rejects_bad_arguments(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        sim.main(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_watch_prints_a_whole_game_in_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert watch.main(["--seed", "5", "--max-turns", "12", "--players", "greedy,random"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out  # not a terminal: no colour codes
    assert "seed 5" in out
    assert "turn limit 12" in out.splitlines()[0]  # the limit, said at the start
    assert "with no winner" in out or "is drawn" in out or " wins " in out
    # The same seed shows the same game.
    assert watch.main(["--seed", "5", "--max-turns", "12", "--players", "greedy,random"]) == 0
    assert capsys.readouterr().out == out


def test_watch_names_a_wrong_preset_in_its_own_flags_words(capsys: pytest.CaptureFixture[str]) -> None:
    """It said "notty has no variant 'five'" for '--preset five': there is no --variant to look for."""
    with pytest.raises(SystemExit) as exit_info:
        watch.main(["--preset", "five"])
    assert exit_info.value.code == 2
    assert "--preset: no preset 'five': presets are classic, five-colour" in capsys.readouterr().err


def test_watch_stops_at_the_turn_limit_of_every_other_game_of_bots(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It stopped at 200 turns where tables with a bot, notty-sim and the ladder stop at 300."""
    assert BOT_TURN_LIMIT == sim.DEFAULT_MAX_TURNS
    assert watch.main(["--seed", "5", "--players", "greedy,random"]) == 0
    assert f"turn limit {BOT_TURN_LIMIT}," in capsys.readouterr().out.splitlines()[0]
    (limit,) = [action for action in watch._parser()._actions if action.dest == "max_turns"]
    assert f"(default {BOT_TURN_LIMIT};" in str(limit.help)


def test_the_simulator_plays_any_registered_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the seam alone: a game with hidden hands, its own bots and its own reasons."""
    monkeypatch.setattr(sim, "GAMES", {**GAMES, "hidden": hidden_game.GAME})
    args = ["--game", "hidden", "--players", "random,random,random", "--games", "9", "--jobs", "1", "--json"]
    assert sim.main([*args, "--max-turns", "12"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["game"], summary["variant"], summary["max_turns"]) == ("hidden", "standard", 12)
    assert "preset" not in summary  # the seam's word, not Notty's
    assert sum(bot["wins"] for bot in summary["bots"]) + summary["no_winner"]["total"] == 9
    # Its own reasons, and the simulator's turn limit; not Notty's stalemate.
    assert set(summary["no_winner"]) == {"total", "turn_limit"}
    assert sim.main([*args, "--max-turns", "12"]) == 0
    again = json.loads(capsys.readouterr().out)
    for key in ("seconds", "games_per_second"):
        del summary[key], again[key]
    assert again == summary  # the same seed plays the same games
    assert sim.main([*args[:-1], "--max-turns", "12"]) == 0
    assert "9 games of hidden standard: random vs random vs random" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        sim.main(["--game", "hidden", "--players", "greedy,random"])
    assert "unknown bot(s) greedy: bots are random" in capsys.readouterr().err


def test_a_game_without_a_turn_limit_is_summarised_in_its_own_terms(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ochos Locos: the seam's ``variant``, no turn limit, and only the game's own reasons."""
    args = ["--game", "ochos-locos", "--variant", "part3", "--players", "rule,rule,rule", "--jobs", "1"]
    assert sim.main([*args, "--games", "60", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["game"], summary["variant"], summary["max_turns"]) == ("ochos-locos", "part3", None)
    none = dict(summary["no_winner"])
    assert set(none) <= {"total", "stalemate"}  # no Notty turn limit to count
    assert none.pop("total") == sum(none.values())
    assert sum(bot["wins"] for bot in summary["bots"]) + summary["no_winner"]["total"] == 60
    assert sim.main([*args, "--games", "3"]) == 0
    assert (
        "3 games of ochos-locos part3: rule vs rule vs rule (seed 0, turn limit none)"
        in capsys.readouterr().out
    )


@pytest.mark.parametrize(
    ("game", "players"), [("notty", ["greedy", "random"]), ("ochos-locos", ["rule", "random"])]
)
def test_with_no_players_named_each_game_plays_its_own_first_bot_against_random(
    game: str, players: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The default was greedy,random for every game: Ochos Locos has no greedy, so it failed."""
    assert sim.main(["--game", game, "--games", "2", "--jobs", "1", "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == players


def test_a_missing_players_name_is_shown_with_an_example_of_the_games_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        sim.main(["--game", "ochos-locos", "--players", "rule,,random", "--jobs", "1"])
    assert "e.g. rule,random" in capsys.readouterr().err


def test_a_variant_named_after_its_game_is_named_once_in_the_report() -> None:
    """A play-test read '10 games of huxxy huxxy: greedy vs random'."""
    assert sim._label({"game": "huxxy", "variant": "huxxy"}) == "huxxy"
    assert sim._label({"game": "huxxy", "variant": "huxxy-jokers"}) == "huxxy-jokers"
    assert sim._label({"game": "ochos-locos", "variant": "part3"}) == "ochos-locos part3"
    assert sim._label({"game": "notty", "variant": "classic"}) == "classic"


def test_the_progress_bar_shows_at_once_and_every_game_is_played_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A play-test waited 27 s on a blank screen: the bar showed only once 25 huxxy games had ended."""
    sim._ProgressBar(3000)
    assert "0/3000 games" in capsys.readouterr().err
    assert sorted(outcome.index for outcome in sim.run(_config(games=7), jobs=1)) == list(range(7))
