"""The client's ``help`` and every game's ``help`` and ``rules`` fit an 80-column terminal: in
``--plain`` mode a longer line breaks wherever the terminal breaks it, mid-word. Their two-column
layout (a command, its description at a fixed column) stays readable on a narrower full screen,
where :func:`client.sgr.wrap` hangs a description's rows under the description. And what they
say is so: every bot a game offers is named, Ochos Locos's hint is the expert's, and the whole
rules are pointed to where a player on another machine can find them."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import ROW_START

from client.catalog import Catalog
from client.commands import HELP, help_heading, help_text, interpret, lobby_help
from client.new import new_table
from client.sgr import COMMAND_KEPT, blocks, columns, parse, wrap, wrap_lines
from games import GAMES, describe

WIDTH = 80
#: Where the help's descriptions start.
DESCRIPTION = 22
CATALOG = Catalog.from_welcome([describe(game) for game in GAMES.values()])
#: Every help of the client's: 'help all', and the lobby's overview.
EVERY = help_text(CATALOG, every=True)
HELPS = [EVERY, help_text(CATALOG)]


def _too_long(text: str) -> list[str]:
    return [line for line in text.splitlines() if columns(line) > WIDTH]


def test_the_clients_help_fits_80_columns() -> None:
    assert _too_long(HELP) == []
    # One sentence a line: one broken in two was set ragged on a narrow terminal, and a wide one
    # showed the break ("resign," ending a line at 160 columns, "leave)" starting the next).
    assert "at a table, 'help' shows its commands (hint, auto, leave...) and its game's" in help_text(CATALOG)
    assert all(help_heading(game.title, game.name) in EVERY for game in CATALOG.games.values())  # each game's
    assert _too_long(EVERY) == []
    assert _too_long(help_text(CATALOG)) == []


def test_the_lobbys_help_is_an_overview_that_fits_an_80_by_24_screen() -> None:
    """A play-test: 'help' in the lobby was the client's commands and every game's, about 100 lines,
    and an 80x24 screen showed the end of huxxy's. In the lobby it is its commands, the games hosted
    with the command that shows each one's help, and 'help all'; on the full screen's log (20 rows
    in the lobby at 24) with the line typed."""
    text = help_text(CATALOG)
    assert len(text.splitlines()) <= 19, text
    assert text.startswith("commands in the lobby:\n  tables ")
    for game in CATALOG.games.values():
        (line,) = [line for line in text.splitlines() if line.startswith(f"  help {game.name} ")]
        assert game.title in line and all(variant in text for variant in game.variants), line
        said = interpret(f"help {game.name}", CATALOG, None, None)  # and what it names says that game's
        assert said.say.startswith(help_heading(game.title, game.name) + "\n") and not said.refused
    assert help_heading("huxxy", "huxxy") == "huxxy:"  # a play-test read 'huxxy (huxxy):'
    assert help_heading("Ochos Locos", "ochos-locos") == "Ochos Locos (ochos-locos):"
    assert re.search(r"^  help all +every command", text, re.MULTILINE)
    assert "discard CARDS" not in text and "take two" not in text  # no game's own commands
    assert help_text(CATALOG, "notty").startswith(HELP)  # at a table, as ever


def test_a_game_whose_name_leaves_no_room_has_its_line_of_the_lobbys_help_below_it() -> None:
    from test_client_session import PARLOUR

    long = {**PARLOUR, "name": "a-very-long-game-name"}
    text = lobby_help(Catalog.from_welcome([long]))
    below = " " * DESCRIPTION + "Parlour: duel (the default) or grand"
    assert f"  help a-very-long-game-name\n{below}\n" in text


@pytest.mark.parametrize("word", ["new", "play", "draw", "hint", "help", "huxxy", "part2", "xyzzy"])
def test_help_on_one_word_fits_80_columns(word: str) -> None:
    assert _too_long(interpret(f"help {word}", CATALOG, None, None).say) == []


@pytest.mark.parametrize("game", list(GAMES))
def test_each_games_help_fits_80_columns(game: str) -> None:
    assert _too_long(CATALOG.ui(game).help) == []


@pytest.mark.parametrize(
    ("game", "variant"), [(name, variant) for name in GAMES for variant in [*GAMES[name].variants, None]]
)
def test_each_games_rules_fit_80_columns(game: str, variant: str | None) -> None:
    assert _too_long(CATALOG.ui(game).rules(variant)) == []


def test_the_help_keeps_its_two_columns() -> None:
    """Each command line's description starts at one column; a description's further lines start
    there too."""
    for line in "\n".join(HELPS).splitlines():
        if not line.startswith("  ") or columns(line) <= DESCRIPTION:
            continue
        if line[2] == " ":  # a description's further line
            assert re.match(rf" {{{DESCRIPTION}}}\S", line), line
        elif re.search(r"\S  +\S", line):  # a command, then its description
            assert re.match(rf"  \S.{{{DESCRIPTION - 5}}}  \S", line), line


def test_a_wrapped_help_lines_rows_start_under_its_description() -> None:
    """On a full screen narrower than the help, a description goes on under itself, never in the
    command column."""
    wrapped = 0
    for line in EVERY.splitlines():
        if not re.match(rf"  \S.{{{DESCRIPTION - 5}}}  \S", line):
            continue
        rows = ["".join(span.text for span in row) for row in wrap(parse(line), 60)]
        wrapped += len(rows) > 1
        assert all(re.match(rf" {{{DESCRIPTION}}}\S", row) for row in rows[1:]), rows
    assert wrapped  # some were


@pytest.mark.parametrize("width", [44, 52, 60, 71, 79])  # from 44 on, rows hang at the description
def test_a_narrower_screen_wraps_each_description_as_one(width: int) -> None:
    """A description laid out over lines for 80 columns is wrapped whole on a narrower screen: each
    of its rows holds as much as fits, rather than each laid-out line breaking into a long row and
    a short one (which then ends mid-sentence above a row that would have had room)."""
    under = re.compile(rf" {{{DESCRIPTION}}}\S")  # a line of description alone
    beside = re.compile(rf"  \S.{{{DESCRIPTION - 5}}}  \S")  # a command, then its description
    runs: list[list[str]] = []  # a description's lines: its first, then those starting under it
    for line in EVERY.splitlines():
        if runs and under.match(line) and (under.match(runs[-1][-1]) or beside.match(runs[-1][-1])):
            runs[-1].append(line)
        else:
            runs.append([line])
    rows_checked = 0
    for run in runs:
        rows = ["".join(span.text for span in row).rstrip() for row in wrap_lines(run, width)]
        for row, after in itertools.pairwise(rows):
            if not under.match(after):
                continue  # a command alone on its line, its description on the next
            rows_checked += 1
            first = ROW_START.match(after.lstrip())  # a word, or what is kept whole
            assert first is not None
            if columns(first.group()) > COMMAND_KEPT + 2:
                first = re.match(r"\S+", after.lstrip())
                assert first is not None
            assert columns(row) + 1 + columns(first.group()) >= width, (row, after)  # no room for it
    assert rows_checked > 20


@pytest.mark.parametrize(
    ("game", "variant"), [(name, variant) for name in GAMES for variant in [*GAMES[name].variants, None]]
)
def test_the_rules_lines_are_never_run_together(game: str, variant: str | None) -> None:
    """The rules' lines are a list, items and sub-items: each stays a line of its own, however
    narrow the screen."""
    assert all(len(block) == 1 for block in blocks(CATALOG.ui(game).rules(variant).splitlines()))


@pytest.mark.parametrize("game", list(GAMES))
def test_the_help_names_every_bot(game: str) -> None:
    """Notty's named none: 'help new' said only that unnamed seats are expert bots."""
    said = CATALOG.ui(game).help
    assert all(re.search(rf"\b{bot}\b", said) for bot in CATALOG.games[game].bots), said


def test_ochos_locos_says_its_hint_is_the_experts() -> None:
    """The hint is the expert's move, with how often each move won the deals it played out: not
    what the rules' automatic strategy would play."""
    ui = CATALOG.ui("ochos-locos")
    for text in (ui.help, ui.rules(None), ui.rules("part1")):
        hint = text[text.index("  hint") :]
        assert "automatic strategy" not in hint
        assert "expert" in hint and "played out" in " ".join(hint.split())


@pytest.mark.parametrize("game", list(GAMES))
def test_the_rules_say_whose_documents_hold_the_whole_rules(game: str) -> None:
    """A player on another machine has no docs/ of their own: the line says it is the project's."""
    for variant in [*GAMES[game].variants, None]:
        (line,) = [line for line in CATALOG.ui(game).rules(variant).splitlines() if "the whole rules" in line]
        assert "notty project" in line and re.search(r"docs/[A-Z-]+\.md", line), line


def test_every_usage_of_new_shows_the_turn_time() -> None:
    """``time SECONDS`` is every game's (client/new.py): the client's ``new`` line, each game's, and
    the usage a misplaced word is answered with all show it, not the client's line alone."""
    usages = [line for line in EVERY.splitlines() if line.startswith("  new ")]
    assert len(usages) == 1 + len(CATALOG.games)  # the client's, then each game's
    assert all(line.endswith(" [time SECONDS]") for line in usages), usages
    for game in CATALOG.games:
        said = interpret(f"new {game} human 2", CATALOG, None, None).say  # the count after a player
        assert "goes first: new " in said and said.endswith(" [time SECONDS]"), said


@pytest.mark.parametrize("game", list(GAMES))
def test_the_help_says_who_takes_the_seats_no_one_is_named_for(game: str) -> None:
    """Notty's 'name no one else and they are expert bots' read, to a newcomer, as if naming no
    one made everyone a bot: its help, and each game's, says what 'new' does with no player named
    (every other seat a bot) and with some (the rest stay open, until 'start' fills them)."""
    ui = CATALOG.ui(game)
    said = " ".join(ui.help.split())
    (bot,) = set(new_table([game], CATALOG).bots)  # no player named: every other seat the default bot
    assert f"name no players and {bot} bots take every other seat" in said, said
    most = next(iter(CATALOG.games[game].variants.values())).max_players
    assert new_table([game, str(most), bot], CATALOG).bots == (bot,)  # some named: the rest open
    assert f"seats left over stay open for people to join, until 'start' puts {ui.filler_bot} bots" in said
