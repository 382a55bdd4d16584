"""The line-mode client's fixes from a play test (issue 21): the prompt drawn once, a piped script
that neither resumes an old seat nor hides a refusal, hints' alternatives in groups, holding checked
before grouping, "did you mean", ``steal`` alone, and ``rules``.

The end-to-end tests drive the real ``notty-client`` against a real ``notty-server`` on
127.0.0.1: through a pty as a person would, or through a pipe as a script would.
"""

from __future__ import annotations

import collections
import io
import itertools
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest
import trio
from test_client_exit import _listed
from test_client_session import NOTTY, PARLOUR, TOKEN, notty_view, table_info, welcomed
from test_huxxy_ui import HUXXY, MY_TURN, huxxy_view
from test_ochos_ui import OCHOS, ochos_view

from client.app import Client, _carry_out
from client.commands import NOT_AT_A_TABLE
from client.session import HINT_ON_ITS_WAY, Session
from client.sgr import columns, parse, plain, render, wrap
from client.terminal import Terminal
from games.notty import PRESETS, parse_cards
from games.notty.game import make_hint
from protocol import (
    Act,
    AskHint,
    ConnectionState,
    CreateTable,
    Error,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Seated,
    State,
    Tables,
    Watch,
    Watching,
)

BIN = Path(sys.executable).parent
#: Line mode on a pty: ``["--plain"]`` once the client has a full-screen mode.
PLAIN: list[str] = ["--plain"]


@pytest.fixture
def state_home(tmp_path: Path) -> Path:
    """Seat tokens the clients keep go to a temporary directory, never the real home."""
    return tmp_path / "state"


def _env(state_home: Path) -> dict[str, str]:
    env = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": str(state_home)}
    env.pop("NO_COLOR", None)
    return env


def _spawn(state_home: Path, *args: str) -> tuple[pexpect.spawn, io.StringIO]:
    """The client on a pty in line mode, and everything it prints."""
    child = pexpect.spawn(
        str(BIN / "notty-client"), [*PLAIN, *args], env=_env(state_home), encoding="utf-8", timeout=20
    )
    child.setwinsize(40, 160)
    transcript = io.StringIO()
    child.logfile_read = transcript
    return child, transcript


# -- 1. the prompt is drawn once ---------------------------------------------------------------


def _garbled_prompts(transcript: str) -> list[str]:
    """Prompts drawn twice in a row, or missing their first letters, with what surrounds them."""
    doubled = re.finditer("notty> notty> ", transcript)
    found = [transcript[max(0, m.start() - 20) : m.end() + 20] for m in doubled]
    for m in re.finditer(r"y> ", transcript):  # every 'y> ' on the screen ends a whole prompt
        if transcript[max(0, m.start() - 4) : m.end()] != "notty> ":
            found.append(transcript[max(0, m.start() - 20) : m.end() + 20])
    return found


def test_the_prompt_is_drawn_once_after_refusals_and_answers(server_port: int, state_home: Path) -> None:
    child, transcript = _spawn(state_home, f"127.0.0.1:{server_port}", "--name", "ann")
    child.expect("connected to")
    child.expect("no tables now")
    child.sendline("new classic 2 human")
    child.expect("waiting for 1 more player")
    lines = [
        "discard Z9",  # refused by the client itself
        "tables",  # answered by the server
        "discard R1 R2",
        "hint",
        "dicard R1",
        "discard Z9",
        "help",
        "fly",
        "end",
        "tables",
        "discard Z9",
    ]
    for line in lines:
        child.sendline(line)
        time.sleep(0.2)  # a person's pace: each line meets the prompt the last one left
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert transcript.getvalue().count("'Z9' is not a card") == 3
    assert _garbled_prompts(transcript.getvalue()) == []


# -- 2. a script neither resumes an old seat unasked nor hides a refusal ---------------------------


def _script(state_home: Path, port: int, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The client fed ``script`` from a pipe, run to its end."""
    return subprocess.run(
        [str(BIN / "notty-client"), f"127.0.0.1:{port}", "--name", "eve", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(state_home),
    )


def _table(output: str) -> str:
    found = re.search(r"you sit at table (\d+), seat 1", output)
    assert found, output
    return found.group(1)


def test_a_script_run_twice_plays_its_own_game_and_resumes_only_when_asked(
    server_port: int, state_home: Path
) -> None:
    script = "new classic 2 greedy\nhint\n"  # the game is under way when the input ends
    first = _script(state_home, server_port, script)
    assert first.returncode == 0, first.stderr
    table = _table(first.stdout)
    again = f"notty-client 127.0.0.1:{server_port} --name eve --resume"
    assert f"your seat at table {table} is kept; to take it back, run:\n  {again}\n" in first.stdout
    second = _script(state_home, server_port, script)
    assert second.returncode == 0, second.stderr
    assert "(asking for your seat" not in second.stdout and "already at table" not in second.stdout
    assert f"not resuming your seat at table {table}" in second.stdout
    assert _table(second.stdout) != table  # a table of its own, not the first run's game
    resumed = _script(state_home, server_port, "hint\n", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"asking for your seat at table {_table(second.stdout)} back" in resumed.stdout


def test_a_script_stops_and_exits_1_at_the_line_the_server_refuses(
    server_port: int, state_home: Path
) -> None:
    result = _script(state_home, server_port, "new classic 2 human\n\nhint\nnew classic 3\n")
    assert result.returncode == 1
    assert "refused: the game has not started" in result.stdout
    assert "notty-client: the server refused line 3 of the script ('hint'): the game has not started" in (
        result.stderr
    )
    assert "already at table" not in result.stdout  # the line after it was not acted on


def test_a_script_stops_and_exits_1_at_a_line_the_client_refuses_itself(
    server_port: int, state_home: Path
) -> None:
    """A card the client does not know is refused before it is sent: a script stops there too."""
    result = _script(state_home, server_port, "new classic 2 greedy\ndiscard Z9 Z10 Z11\ndraw 1\n")
    assert result.returncode == 1, result.stdout
    assert "notty-client: the client refused line 2 of the script ('discard Z9 Z10 Z11'): " in result.stderr
    assert "eve draws" not in result.stdout  # the line after it was not acted on


def test_resume_and_forget_are_one_or_the_other(state_home: Path) -> None:
    result = _script(state_home, 1, "", "--resume", "--forget")
    assert result.returncode == 2 and "not allowed with argument" in result.stderr


# -- 3. a hint's alternatives in their groups ----------------------------------------------------

#: The play test's hand: R10 Y10 B10 with R5 R6 R7, or R5 G5 B5 with R10 Y10 B10.
PLAY_TEST_HAND = "R5 G5 B5 R10 Y10 B10 Y1 R6 R7 G9"


def _hint_lines(data: dict[str, object]) -> list[str]:
    session = welcomed()
    session.receive(Seated(3, 0, TOKEN))
    session.receive(State(3, notty_view(current=0), ()))
    return [line for text in session.receive(Hint("", (), data)).lines for line in text.splitlines()]


def test_a_hints_alternatives_are_shown_as_their_groups() -> None:
    hint = make_hint(parse_cards(PLAY_TEST_HAND), PRESETS["classic"])
    Hint(hint.text, hint.actions, hint.data)  # checked on construction: within the bounds for hint data
    assert hint.data["alternatives"] == [["R5", "R10", "Y10", "G5", "B5", "B10"]]  # as older clients read
    assert hint.data["alternative_groups"] == [[["R5", "G5", "B5"], ["R10", "Y10", "B10"]]]
    assert _hint_lines(dict(hint.data))[:2] == [
        "hint: discard 6 cards: R10 Y10 B10  R5 R6 R7",
        "      or: R5 G5 B5  R10 Y10 B10",
    ]


def test_a_hint_from_an_older_server_shows_each_alternative_as_its_cards() -> None:
    hint = make_hint(parse_cards(PLAY_TEST_HAND), PRESETS["classic"])
    older = {key: value for key, value in hint.data.items() if key != "alternative_groups"}
    assert _hint_lines(older)[1] == "      or: R5 R10 Y10 G5 B5 B10"


@pytest.mark.parametrize(
    ("groups", "says"),
    [
        ([[["R5", "G5", "B5"]]], "alternative_groups[0]: not the cards of hint data.alternatives[0]"),
        ([], "alternative_groups: not the groups of each alternative"),
        ([[["R5", "Q5"]]], "alternative_groups[0][0]: 'Q5' is not a card"),
    ],
)
def test_alternative_groups_that_do_not_fit_the_alternatives_are_refused(groups: object, says: str) -> None:
    hint = make_hint(parse_cards(PLAY_TEST_HAND), PRESETS["classic"])
    data = {**hint.data, "alternative_groups": groups}
    lines = _hint_lines(data)
    assert len(lines) == 1 and says in lines[0] and "cannot read" in lines[0]


# -- 4. holding is checked first --------------------------------------------------------------


def _notty(hand: list[str], names: tuple[str, ...] = ("ann", "bob"), variant: str = "classic") -> Session:
    """Ann at a Notty table, holding ``hand``, at her turn."""
    session = welcomed()
    session.receive(Seated(3, 0, TOKEN))
    hands = [hand, *(["Y5"] for _ in names[1:])]
    view = notty_view(variant=variant, names=list(names), current=0, legal=["end"], body={"hands": hands})
    session.receive(State(3, view, ()))
    return session


def _refusal(session: Session, line: str) -> str:
    reply = session.typed(line)
    assert reply.messages == (), line
    return reply.say


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("discard B2 B3", "you do not hold B3"),  # the play test: not "a group needs at least 3 cards"
        ("discard B3 B4 B5", "you do not hold B3 or B5"),
        ("discard G1 G2 G3", "you do not hold G1, G2 or G3"),
        ("discard R1 R1 R1", "you hold 1 R1, not 3"),
        ("discard b2 X9", "'X9' is not a card"),
        ("putback G7", "you do not hold G7"),
        ("dd G7", "you do not hold G7"),
        ("discard B2 R2", "not a group"),  # held: then judged as a group
    ],
)
def test_cards_named_are_checked_as_held_before_anything_else(line: str, says: str) -> None:
    assert says in _refusal(_notty(["B2", "R2", "R1", "B4", "Y9"]), line)


def test_cards_held_are_sent() -> None:
    session = _notty(["B2", "B3", "B4", "G7"], variant="five-colour")
    assert session.typed("discard b2 B3 b4").messages == (Act("discard B2 B3 B4"),)
    assert session.typed("putback g7").messages == (Act("putback G7"),)


def test_ochos_locos_checks_holding_first_at_any_turn() -> None:
    session = welcomed(OCHOS)
    session.receive(Seated(3, 0, TOKEN))
    session.receive(State(3, ochos_view(), ()))  # bob's turn: the server would say only that
    assert _refusal(session, "play R5") == "you hold no R5"
    assert session.typed("play G3").messages == (Act("play G3"),)  # held: the server judges the turn


# -- 5. did you mean ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("dicsard R1", "unknown command 'dicsard'; did you mean 'discard'?"),
        ("tabels", "unknown command 'tabels'; did you mean 'tables'?"),
        ("xyzzy", "unknown command 'xyzzy'; type 'help' for the commands"),  # nothing close: no guess
        ("res", "unknown command 'res'; did you mean 'resign'?"),  # cut short: the one it begins
        ("clear", "unknown command 'clear'; type 'help' for the commands"),  # not 'leave', spelled alike
        ("lea", "unknown command 'lea'; did you mean 'leave'?"),  # but cut short, as ever
        ("steal bbo", "no player called 'bbo'; did you mean 'bob'? the others are bob"),  # not ann, ourselves
        ("steal zed", "no player called 'zed'; the others are bob"),
        ("new clasic", "nor a player (random, greedy, qlearn, expert, expert-easy"),
        ("new clasic", "; did you mean 'classic'?"),
        ("new five-color", "; did you mean 'five-colour'?"),
        ("new classic 3 gredy", "'gredy' is not a player here: players are random, greedy"),
        ("new classic 3 gredy", "; did you mean 'greedy'?"),
    ],
)
def test_a_mistyped_word_gets_a_guess(line: str, says: str) -> None:
    assert says in _refusal(_notty(["B2"], names=("ann", "bob")), line)


def test_a_command_of_another_game_says_whose_it_is_not_a_guess() -> None:
    """The play-test: at a huxxy table 'take two' got "did you mean 'tables'?", 'steal bob' "'start'?"."""
    session = welcomed(NOTTY, OCHOS, HUXXY)
    session.receive(Seated(3, 0, TOKEN))
    session.receive(State(3, MY_TURN, ()))
    for line, says in [
        (
            "take two",
            "'take' is a command of Ochos Locos; this table plays huxxy (type 'help' for its commands)",
        ),
        ("steal bob", "'steal' is a command of Notty; this table plays huxxy (type 'help' for its commands)"),
        ("drwa", "unknown command 'drwa'; did you mean 'draw'?"),  # a typo of ours is still guessed at
    ]:
        assert _refusal(session, line) == says
    alone = welcomed(HUXXY)  # a verb of no game the server hosts: unknown, as before
    alone.receive(Seated(3, 0, TOKEN))
    alone.receive(State(3, MY_TURN, ()))
    assert _refusal(alone, "steal bob").startswith("unknown command 'steal'")


def test_take_back_at_a_huxxy_table_names_huxxys_own_take_backs() -> None:
    """The play-test: 'take back' (the rules' words) was answered "'take' is a command of Ochos Locos;
    this table plays huxxy", as if to switch games; huxxy takes back with 'undo' and 'draw'."""
    says = (
        "to take back: 'undo' takes back your last play of this turn; "
        "'draw' takes back the whole turn, then draws a card (your turn ends)"
    )
    for games in ((NOTTY, OCHOS, HUXXY), (HUXXY,)):  # not a guess either ('tables') where Ochos is not
        session = welcomed(*games)
        session.receive(Seated(3, 0, TOKEN))
        session.receive(State(3, MY_TURN, ()))
        for line in ("take back", "Take Back", "take back my play"):
            assert _refusal(session, line) == says
    session = welcomed(NOTTY, OCHOS, HUXXY)
    session.receive(Seated(3, 0, TOKEN))
    session.receive(State(3, MY_TURN, ()))
    assert _refusal(session, "take two").startswith("'take' is a command of Ochos Locos")  # Ochos's own
    nottys = welcomed(NOTTY, OCHOS, HUXXY)  # only huxxy answers it
    nottys.receive(Seated(3, 0, TOKEN))
    nottys.receive(State(3, notty_view(current=0, legal=["end"]), ()))
    assert _refusal(nottys, "take back").startswith("'take' is a command of Ochos Locos")


# -- 6. steal alone ------------------------------------------------------------------------------


def test_steal_alone_takes_from_the_only_opponent() -> None:
    assert _notty(["B2"]).typed("steal").messages == (Act("steal 1"),)
    assert _notty(["B2"]).typed("steal Bob").messages == (Act("steal 1"),)


def test_steal_alone_among_three_asks_whom() -> None:
    session = _notty(["B2"], names=("ann", "bob", "cy"))
    assert _refusal(session, "steal") == "steal from whom? 'steal bob' or 'steal cy'"
    assert session.typed("steal cy").messages == (Act("steal 2"),)


def test_steal_takes_the_start_of_one_players_name() -> None:
    """'steal exp' was refused ("no player called 'exp'; did you mean 'expert-3'?"), though tab would
    have completed it: a start that names one other player names them."""
    session = _notty(["B2"], names=("ann", "bob", "expert-3"))
    assert session.typed("steal exp").messages == (Act("steal 2"),)
    assert session.typed("steal B").messages == (Act("steal 1"),)
    both = _notty(["B2"], names=("ann", "bob", "bobby"))
    assert _refusal(both, "steal bo") == "'bo' could be bob or bobby: type more of the name"
    assert both.typed("steal bob").messages == (Act("steal 1"),)  # a whole name is never ambiguous
    assert _refusal(both, "steal a").startswith("no player called 'a'")  # only ourselves start so


def test_steal_the_start_of_two_players_names_is_ambiguous_and_names_both() -> None:
    """A play-test at 'new classic 3 expert expert': 'steal expert' said "no player called 'expert';
    did you mean 'expert-3'?", one of two equal matches picked. It changes nothing."""
    session = _notty(["B2"], names=("p3", "expert-2", "expert-3"))
    reply = session.typed("steal expert")
    assert reply.refused and reply.messages == ()
    assert reply.say == "'expert' could be expert-2 or expert-3: type more of the name"
    assert _refusal(session, "steal EXP").startswith("'EXP' could be expert-2 or expert-3")
    assert session.typed("steal expert-3").messages == (Act("steal 2"),)
    greedy = _notty(["B2"], names=("p3", "expert-2", "greedy-3"))  # a unique start still names its player
    assert greedy.typed("steal greedy").messages == (Act("steal 2"),)


def test_steal_a_seat_number_counts_seats_as_the_client_shows_them_from_1() -> None:
    """'steal 2' robbed the player in seat 3: the number went to the server, whose seats count from 0."""
    session = _notty(["B2"], names=("ann", "bob", "cy"))
    assert session.typed("steal 3").messages == (Act("steal 2"),)
    assert session.typed("steal 2").messages == (Act("steal 1"),)
    assert _refusal(session, "steal 4") == "there is no seat 4: seats are 1 to 3"
    assert _refusal(session, "steal 0") == "there is no seat 0: seats are 1 to 3"
    named = _notty(["B2"], names=("ann", "3", "cy"))  # a name may be digits: the name wins
    assert named.typed("steal 3").messages == (Act("steal 1"),)


def test_a_hint_waits_for_the_one_asked_before_it() -> None:
    """Thirty 'hint' lines pasted at once sent thirty, past the server's hint rate: it ended the
    connection. One is sent; the others are refused here until its answer, a hint or an error, comes."""
    session = _notty(["B2"])
    asked = session.typed("hint")
    assert asked.messages == (AskHint(),)
    session.sending(AskHint())
    assert _refusal(session, "hint") == "a hint is on its way: wait for it"
    assert session.typed("draw 1").messages == (Act("draw 1"),)  # only another hint waits
    session.receive(Hint("draw 1", ("draw 1",)))
    assert session.typed("hint").messages == (AskHint(),)
    session.sending(AskHint())
    session.receive(Error("rate-limit", "too many hints"))  # refused: its answer all the same
    assert session.typed("hint").messages == (AskHint(),)
    session.sending(AskHint())  # and left before its answer, which the server then never sends:
    session.sending(Leave())
    session.receive(Left(3))
    session.receive(Seated(4, 0, TOKEN))  # at the next table a hint is not held back for ever
    assert session.typed("hint").messages == (AskHint(),)


def test_a_hint_typed_while_another_is_typed_or_on_its_way_is_answered_as_it_is_typed() -> None:
    """Six 'hint' lines typed fast on the full screen showed three hints alike among three "on its
    way": the lines are acted on one after another, and one acted on after the answer had come sent
    another, for the same position. The screen asks as each line is typed; only the first is sent."""
    session = _notty(["B2"])
    assert session.answered_as_typed("hint") is None  # the first: acted on in turn
    assert session.answered_as_typed("Hint") == HINT_ON_ITS_WAY  # typed before the first was acted on
    assert session.answered_as_typed("draw 1") is None  # only another hint waits
    asked = session.typed("hint")  # the first, acted on
    assert asked.messages == (AskHint(),)
    session.sending(AskHint())
    assert session.answered_as_typed("hint") == HINT_ON_ITS_WAY  # typed while it is on its way
    session.receive(Hint("draw 1", ("draw 1",)))
    assert session.answered_as_typed("hint") is None  # typed after the answer: asked again
    assert session.typed("hint").messages == (AskHint(),)
    session.sending(AskHint())
    session.receive(Error("server-busy", "the server is busy: try the hint again in a moment"))
    assert session.answered_as_typed("hint") is None  # refused: its answer all the same
    # A hint typed that is not to be sent holds none back: refused here, or by the protocol.
    watcher = welcomed()
    watcher.receive(Watching(4))
    watcher.receive(State(4, huxxy_view(seat=None, body={"hand": []}), ()))  # hands hidden: no hints
    assert watcher.answered_as_typed("hint") is None and watcher.typed("hint").refused
    assert watcher.answered_as_typed("hint") is None
    lobby = welcomed()
    assert lobby.answered_as_typed("hint") is None and lobby.typed("hint").messages == (AskHint(),)
    lobby.why_not(AskHint(), ConnectionState.LOBBY)  # the client's send finds it may not go
    assert lobby.answered_as_typed("hint") is None
    session.connection_down = True  # the client says what typed then is not sent
    assert session.answered_as_typed("hint") is None


def test_steal_alone_away_from_a_seat_says_how() -> None:
    # In the lobby, as every other move there (a play-tester was told "usage: steal NAME" for 'steal'
    # and "you are not at a table" for 'steal bob').
    assert _refusal(welcomed(), "steal") == NOT_AT_A_TABLE


# -- 7. rules ------------------------------------------------------------------------------------


def test_rules_at_a_table_are_its_games_and_variants() -> None:
    text = _refusal(_notty(["B2"], variant="five-colour"), "rules")
    assert text.startswith("Notty (five-colour):") and "a set: 4+ cards" in text and "classic" not in text
    assert "if your last card is stolen, you win" in text and "outs" in text
    assert "(no wrap: 8 9 1 is no run)" in text  # five-colour's numbers stop at 9: '9 10 1' was no example
    classic = _refusal(_notty(["B2"], variant="classic"), "rules")
    assert "(no wrap: 9 10 1 is no run)" in classic


def test_rules_in_the_lobby_list_the_games_and_rules_game_shows_one() -> None:
    session = welcomed(NOTTY, OCHOS, PARLOUR)
    listing = _refusal(session, "rules")
    assert "rules notty" in listing and "rules ochos-locos" in listing and "rules parlour" in listing
    assert _refusal(session, "rules notty").startswith("Notty (classic, five-colour):")
    assert _refusal(session, "rules OCHOS-LOCOS").startswith("Ochos Locos (part1, part2, part3, part4):")
    assert "Parlour (parlour): this client has no rules of its own" in _refusal(session, "rules parlour")
    assert _refusal(session, "rules noty") == "no game 'noty' here; did you mean 'notty'?"
    assert _refusal(session, "rules poker") == "no game 'poker' here; games are notty, ochos-locos, parlour"
    assert _refusal(session, "rules notty now") == "usage: rules [GAME]"
    assert "rules [GAME]" in _refusal(session, "help")


# -- 8. a script's hint waits for its turn where the game hints only then ---------------------------


@pytest.mark.parametrize("game", ["huxxy", "ochos-locos"])
def test_a_scripts_hint_in_a_game_that_hints_only_at_ones_turn_waits_for_it(
    server_port: int, state_home: Path, game: str
) -> None:
    """After 'auto' the bot's turn begins (a bot takes a second to move): the hint asked then comes
    at the script's next turn, not as 'it is not your turn', and the script goes on."""
    result = _script(state_home, server_port, f"new {game} 2\nauto\nhint\nauto\n")
    assert result.returncode == 0, result.stderr
    out = plain(result.stdout)
    assert "not your turn" not in out, out
    lines = out.splitlines()
    (hint,) = [at for at, line in enumerate(lines) if line.startswith("hint: ")]
    whose = [line for line in lines[:hint] if re.match(r"(your turn|\S+ to play)\b", line)]
    assert whose[-1].startswith("your turn"), out  # the table last shown before the hint: our turn
    assert len([line for line in whose if line.startswith("your turn")]) >= 2  # after the bot's turn


# -- 9. line mode at a terminal wraps prose to its width ------------------------------------------


def test_line_mode_at_a_terminal_wraps_prose_and_the_tables_rows_to_its_width(
    server_port: int, state_home: Path
) -> None:
    width = 30
    child, transcript = _spawn(state_home, f"127.0.0.1:{server_port}", "--name", "ann")
    child.setwinsize(40, width)
    child.expect("no tables now")
    child.sendline("new poker")
    child.expect(r"human\)")
    child.sendline("new classic 2 greedy")
    child.expect("you sit at table")
    child.sendline("tables")
    child.expect(r"you\s+are\s+here")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    shown = plain(re.sub(r"notty> \r\x1b\[K", "", transcript.getvalue())).splitlines()  # prompts redrawn
    assert [line for line in shown if columns(line) > width] == []
    seat = re.compile(r" [ >] \S+ *\[ ?\d+\]  \S")
    seats = [at for at, line in enumerate(shown) if seat.match(line)]
    assert len(seats) >= 2
    for at in seats:  # a seat's row goes on in indented rows, to its tag, as on the full screen
        hung = itertools.takewhile(
            lambda line: line.startswith("   ") and not seat.match(line), shown[at + 1 :]
        )
        rows = [shown[at], *hung]
        assert len(rows) > 1 and re.search(r"\((you|bot)\)$", rows[-1]), "\n".join(shown)
    refusal = next(at for at, line in enumerate(shown) if line.startswith("'poker' is neither"))
    assert shown[refusal + 1].startswith("  ") and shown[refusal + 1][2] != " "  # a hanging indent
    listed = max(at for at, line in enumerate(shown) if line.startswith("table ") and "Notty classic" in line)
    rows = [shown[listed], *itertools.takewhile(lambda line: line.startswith("  "), shown[listed + 1 :])]
    assert len(rows) > 1 and " ".join(row.strip() for row in rows).endswith("· you are here")


def test_line_mode_wraps_a_full_hand_at_80_columns_as_the_full_screen_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 20-card hand ran past 80 columns: the terminal broke it at its edge, mid-word, leaving
    ' (bot)' alone at the start of the next line. Line mode now wraps a table's row as the full
    screen's pane does, going on under the cards."""
    hand = [f"{colour}{number}" for colour in "RY" for number in range(1, 11)]
    view = notty_view(names=["bob", "expert-2"], current=1, bots=[1], body={"hands": [["B3", "B7"], hand]})
    session = welcomed()
    session.receive(Seated(3, 0, TOKEN))
    output = session.receive(State(3, view, ()))
    terminal = Terminal(interactive=False, colour=False, wrap=True)
    monkeypatch.setattr(terminal, "width", lambda: 80)
    terminal.output(output)
    printed = capsys.readouterr().out.splitlines()
    assert [line for line in printed if columns(line) > 80] == []
    (row,) = [line for line in (output.table or "").splitlines() if "expert-2 [20]" in line]
    assert columns(plain(row)) > 80
    pane = [plain(render(spans)).rstrip() for spans in wrap(parse(row), 80)]  # as the full screen's
    assert pane[1] == " " * plain(row).index("R1") + "(bot)"  # under the cards, not at the edge
    at = printed.index(pane[0])
    assert printed[at : at + 2] == pane


def test_line_mode_on_a_narrow_terminal_wraps_each_help_description_as_one(
    server_port: int, state_home: Path
) -> None:
    """The help is laid out for 80 columns; at 60 a description is wrapped whole, not each of its
    laid-out lines broken again into a long row and a short one."""
    child, transcript = _spawn(state_home, f"127.0.0.1:{server_port}", "--name", "ann")
    child.setwinsize(40, 60)
    child.expect("no tables now")
    child.sendline("help all")  # the client's commands, then every game's
    child.expect("leave the server")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    shown = plain(re.sub(r"notty> \r\x1b\[K", "", transcript.getvalue())).splitlines()
    assert [line for line in shown if columns(line) > 60] == []
    join = next(at for at, line in enumerate(shown) if line.startswith("  join TABLE [SEAT]"))
    rows = [shown[join], *itertools.takewhile(lambda line: line.startswith(" " * 22), shown[join + 1 :])]
    said = " ".join(row.strip() for row in rows)
    waiting = "the one table waiting for players in the last list"
    assert said.endswith(
        f"{waiting}; at a table whose game is over, or one you only watch, it leaves that table first"
    )
    assert len(rows) == 5 and all(columns(row) > 50 for row in rows[:-1]), rows  # full rows, none cut short


def test_a_pipe_gets_its_lines_whole_whatever_the_terminals_width(server_port: int, state_home: Path) -> None:
    env = {**_env(state_home), "COLUMNS": "30"}
    result = subprocess.run(
        [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "eve"],
        input="new poker\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if line.startswith("'poker' is neither"))
    assert line.endswith("expert-hard, human)")


# -- 'new' at a game that is over ------------------------------------------------------------------


def test_new_at_a_game_that_is_over_leaves_it_then_asks_for_the_table() -> None:
    """A play-test typed 'new classic 2 expert' as their game ended and was told "'leave' it first":
    at a game that is over, 'new' is 'leave', then 'new'; at one waiting or under way, it stays one
    request, which the protocol refuses where we are."""
    create = welcomed().typed("new classic 2 greedy").messages
    session = welcomed()
    session.receive(Seated(3, 0, TOKEN))
    assert session.typed("new classic 2 greedy").messages == create  # waiting for the game
    session.receive(State(3, notty_view(), ()))
    assert session.typed("new classic 2 greedy").messages == create  # under way
    assert "new" not in session.completions("", "n") and session.completions("new cl", "cl") == []
    result = {"ranking": [[1], [0]], "reason": "discard", "text": "bob wins by discarding their last cards"}
    session.receive(State(3, notty_view(result=result), ()))
    assert session.typed("new classic 2 greedy").messages == (Leave(), *create)
    assert session.completions("", "n") == ["new"] and "classic" in session.completions("new cl", "cl")
    watcher = welcomed()
    watcher.receive(Watching(4))
    watcher.receive(State(4, notty_view(seat=None, result=result), ()))
    assert watcher.typed("new classic 2 greedy").messages == (Leave(), *create)


FINISHED = {"ranking": [[1], [0]], "reason": "discard", "text": "bob wins by discarding their last cards"}


def test_join_and_watch_at_a_game_that_is_over_leave_it_then_ask_as_new_does() -> None:
    """A play-test at a finished table: 'watch 3' and 'join 10' were told "'leave' it first", while
    'new' there leaves by itself. At a game under way, or a waiting table, they still may not."""
    session = _listed(welcomed(), {5: 2})
    session.receive(Seated(3, 0, TOKEN))
    assert session.typed("join 5").messages == (Join(5, None),)  # waiting for the game: refused as sent
    session.receive(State(3, notty_view(), ()))
    for line, message in [("join 5", Join(5, None)), ("watch 5", Watch(5))]:
        assert session.typed(line).messages == (message,)  # under way: the protocol refuses it
        said = session.why_not(message, ConnectionState.SEATED)
        assert said == "you are already at table 3: 'leave' it first"
    assert session.completions("", "j") == [] and session.completions("watch ", "") == []
    session.receive(State(3, notty_view(result=FINISHED), ()))
    assert session.typed("join 5").messages == (Leave(), Join(5, None))
    assert session.typed("join 5 2").messages == (Leave(), Join(5, 1))
    assert session.typed("watch 5").messages == (Leave(), Watch(5))
    assert session.completions("", "j") == ["join"] and session.completions("watch ", "") == ["5"]
    # Its own table: leaving it frees no seat there, and the game is in sight already.
    assert session.typed("join 3").messages == (Join(3, None),)
    over = "the game at table 3 is over: its seats are not free again ('new' makes another table)"
    assert session.why_not(Join(3, None), ConnectionState.SEATED) == over
    assert session.typed("watch 3").messages == (Watch(3),)
    seen = "you see table 3 already: its game is over ('new' makes another table)"
    assert session.why_not(Watch(3), ConnectionState.SEATED) == seen
    # What is wrong with the line itself is what is said, not "'leave' it first".
    # 'join' alone goes by a list: not one seen before this game, but one asked for after it.
    gone_by = "usage: join TABLE [SEAT]: a game went by since the last list ('tables' lists them now)"
    assert _refusal(session, "join") == gone_by
    session.sending(ListTables())
    session.receive(Tables([table_info(3, ["ann", "bob"]) | {"over": True}, table_info(6, ["cy", None])]))
    assert session.typed("join").messages == (Leave(), Join(6, None))  # it said "usage: join ..."
    assert _refusal(session, "watch x") == "table must be a number, not 'x'"
    watcher = _listed(welcomed(), {5: 2})
    watcher.receive(Watching(4))
    watcher.receive(State(4, notty_view(seat=None, result=FINISHED), ()))
    assert watcher.typed("join 5").messages == (Leave(), Join(5, None))
    assert watcher.typed("watch 5").messages == (Leave(), Watch(5))
    assert watcher.typed("watch 4").messages == (Watch(4),)
    assert watcher.why_not(Watch(4), ConnectionState.WATCHING) == "you are already watching table 4"


def test_a_script_at_a_finished_game_joins_and_watches_another_table(
    server_port: int, state_home: Path
) -> None:
    """Through the real client and server: the leave is answered before the table is asked for."""
    waiting = subprocess.Popen(
        [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", "kit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(state_home),
    )
    try:
        assert waiting.stdin is not None and waiting.stdout is not None
        waiting.stdin.write("new classic 2 human\n")
        waiting.stdin.flush()
        table = _table(waiting.stdout.readline() + waiting.stdout.readline())  # kit waits at it
        for line, then in [
            ("watch", f"you are watching table {table}"),
            ("join", f"you sit at table {table}, seat 2"),
        ]:
            script = f"new classic 2 greedy\nresign yes\n{line} {table}\ntables\n"
            result = _script(state_home, server_port, script)
            assert result.returncode == 0, result.stdout + result.stderr
            finished = re.findall(r"you sit at table (\d+), seat 1", result.stdout)[0]
            assert f"you left table {finished}\n{then}" in result.stdout, result.stdout
            assert "'leave' it first" not in result.stdout
    finally:
        waiting.kill()
        waiting.wait()


def test_a_script_watching_a_table_watches_another_and_joins_one(server_port: int, state_home: Path) -> None:
    """Through the real client and server: 'watch' and 'join' from a table we watch leave it first
    (a play-test was told "'leave' it first"), the leave answered before the next table is asked for."""
    waiting = []
    try:
        for name in ("kit", "lee"):
            person = subprocess.Popen(
                [str(BIN / "notty-client"), f"127.0.0.1:{server_port}", "--name", name],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=_env(state_home),
            )
            waiting.append(person)
            assert person.stdin is not None and person.stdout is not None
            person.stdin.write("new classic 2 human\n")
            person.stdin.flush()
        first, second = (_table(p.stdout.readline() + p.stdout.readline()) for p in waiting if p.stdout)
        script = f"watch {first}\nwatch {second}\njoin {first}\ntables\n"
        result = _script(state_home, server_port, script)
        assert result.returncode == 0, result.stdout + result.stderr
        assert (
            f"you are watching table {first}\nyou left table {first}\nyou are watching table {second}\n"
            f"you left table {second}\nyou sit at table {first}, seat 2"
        ) in result.stdout, result.stdout
        assert "'leave' it first" not in result.stdout
    finally:
        for person in waiting:
            person.kill()
            person.wait()


def test_a_person_types_new_as_their_game_ends_and_sits_at_a_new_table(
    server_port: int, state_home: Path
) -> None:
    child, transcript = _spawn(state_home, f"127.0.0.1:{server_port}", "--name", "ann")
    child.expect("connected to")
    child.sendline("new classic 2 greedy")
    child.expect(r"you sit at table (\d+), seat 1")
    first = child.match.group(1)
    child.expect("your turn")
    child.sendline("resign yes")
    child.expect("game over: ")
    child.sendline("new classic 2 greedy")
    child.expect(rf"you left table {first}")
    child.expect(r"you sit at table (\d+), seat 1")
    second = child.match.group(1)
    assert second != first
    child.expect("your turn")
    child.sendline("new classic 2 greedy")  # a game under way: refused, as ever
    child.expect(rf"you are already at table {second}: 'leave' it first")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert "'leave' it first" not in transcript.getvalue().split(f"you left table {first}")[0]


def test_a_script_that_ends_its_game_and_types_new_plays_at_a_new_table(
    server_port: int, state_home: Path
) -> None:
    script = "new classic 2 greedy\nresign yes\nnew classic 2 greedy\nhint\n"
    result = _script(state_home, server_port, script)
    assert result.returncode == 0, result.stdout + result.stderr
    tables = re.findall(r"you sit at table (\d+), seat 1", result.stdout)
    assert len(tables) == 2 and tables[0] != tables[1], result.stdout
    assert f"you left table {tables[0]}" in result.stdout
    assert "hint: " in result.stdout  # the script went on at the new table


class _Terminal:
    interactive = True

    def __init__(self) -> None:
        self.shown: list[str] = []

    def show(self, text: str) -> None:
        self.shown.append(text)


class _LeavingClient:
    """Enough of :class:`client.app.Client` for ``_carry_out``: it answers a ``leave`` with
    ``answers`` (each after a pause), and refuses a table asked for from a table, as the protocol does."""

    def __init__(self, session: Session, nursery: trio.Nursery, answers: list[Message]) -> None:
        self.session, self.nursery, self.answers = session, nursery, answers
        self.protocol = type("P", (), {"state": ConnectionState.SEATED})()
        self.errors: collections.Counter[str] = collections.Counter()
        self.refused, self.sent = None, []
        self.changed = trio.Event()
        self.received = 0

    def deliver(self, message: Message) -> None:
        if isinstance(message, Error):
            self.errors[message.code] += 1
        if isinstance(message, Left):
            self.protocol.state = ConnectionState.LOBBY
        self.session.receive(message)
        self.received += 1
        self.changed.set()
        self.changed = trio.Event()

    async def send(self, message: Message) -> str | None:
        if isinstance(message, CreateTable) and self.protocol.state is not ConnectionState.LOBBY:
            return "refused by the protocol: still at a table"
        self.sent.append(message)
        if isinstance(message, Leave):

            async def server() -> None:
                for answer in self.answers:
                    await trio.sleep(0.01)
                    self.deliver(answer)

            self.nursery.start_soon(server)
        return None

    wait_for = Client.wait_for  # the real client's wait, on this one's ``changed``


def _new_at_a_finished_game(
    answers: list[Message], line: str = "new classic 2 greedy"
) -> tuple[str | None, list[Message], _Terminal]:
    session = welcomed()
    session.receive(Seated(3, 0, TOKEN))
    result = {"ranking": [[1], [0]], "reason": "discard", "text": "bob wins by discarding their last cards"}
    session.receive(State(3, notty_view(result=result), ()))
    reply = session.typed(line)
    assert isinstance(reply.messages[0], Leave)
    terminal = _Terminal()
    outcome: list[Any] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            client = _LeavingClient(session, nursery, answers)
            outcome.append(await _carry_out(client, reply, terminal, answered=False))  # type: ignore[arg-type]
            outcome.append(client.sent)

    trio.run(main)
    return outcome[0], outcome[1], terminal


def test_new_at_a_finished_game_waits_for_the_leave_itself_not_for_any_error() -> None:
    """A review found an error answering something else (a hint's 'server-busy') ended the wait: the
    new table was then refused as asked for from a table, and the 'left' that followed left the
    player in the lobby with no table and a refusal that said otherwise."""
    unsent, sent, _ = _new_at_a_finished_game([Error("server-busy", "the server is busy"), Left(3)])
    assert unsent is None and [type(message) for message in sent] == [Leave, CreateTable]


def test_new_at_a_finished_game_whose_leave_is_refused_asks_for_no_table() -> None:
    unsent, sent, terminal = _new_at_a_finished_game([Error("not-at-table", "you are not at a table")])
    assert [type(message) for message in sent] == [Leave]
    assert unsent is not None and "not asked for" in unsent and terminal.shown == [unsent]
    for line, said in [("join 5", "table 5 was not joined"), ("watch 5", "table 5 was not watched")]:
        unsent, sent, _ = _new_at_a_finished_game([Error("not-at-table", "you are not at a table")], line)
        assert [type(message) for message in sent] == [Leave]
        assert unsent == f"{said}: the server has not said you left this one"


async def test_lines_kept_after_a_refusal_outlive_a_connection_lost_among_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """'steal zed' refused, then 'hint' and 'quit' typed after it: the hint is carried out still,
    and the connection drops as it goes. The quit must not be lost with it: the client, reconnecting,
    quits (before, the kept lines died with the connection's loop, and the next one waited for a
    line for ever)."""
    from test_client_session import TURN_START, seated

    from client import app

    session = welcomed(interactive=True)
    seated(session, notty_view(current=0, legal=TURN_START, body={"drew": False}))
    terminal = Terminal(interactive=True, colour=False)
    terminal.line_reader(session)
    said: list[str] = []
    monkeypatch.setattr(terminal, "show", said.append)

    async def carry_out(client: Client, reply: Any, terminal: Terminal, answered: bool) -> None:
        if AskHint() in reply.messages:
            raise app.ConnectionLost("gone")

    monkeypatch.setattr(app, "_carry_out", carry_out)
    client = Client(terminal, session)
    send, lines = trio.open_memory_channel[str | None](10)
    for line in ("steal zed", "hint", "quit"):  # typed together: the first refused
        send.send_nowait(line)
    with pytest.raises(app.ConnectionLost):
        await app._commands(client, lines, terminal)
    assert list(client.kept) == [None]  # the quit, after the hint that was on its way
    with trio.move_on_after(2) as waited, trio.CancelScope() as scope:
        await app._answer_while_away(lines, terminal, client, scope)
    assert client.quit_away and not waited.cancelled_caught
