"""The client's sans-IO session: what it shows and sends for each message and typed line.

No terminal, no socket: messages go in as the protocol delivers them, lines come out. The
welcome is the one a real server sends (``games.describe``), plus a game with no UI of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from conftest import LIMITS

from client.catalog import Catalog
from client.commands import BOT_PLAYS_IT, Reply, changes_nothing, help_on
from client.session import LAST_MOVE, RESIGNED, TABLES_REMEMBERED, Session, end_summary
from client.sgr import wrap_lines
from client.tokens import SeatStore, StoredSeat
from games import GAMES, describe
from games._ui import ui_for
from protocol import (
    PROTOCOL_VERSION,
    Act,
    AskHint,
    Bye,
    ConnectionState,
    CreateTable,
    Error,
    Goodbye,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Notice,
    Pong,
    Seated,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
)

NOTTY = describe(GAMES["notty"])
#: A game the server hosts and this client has no UI for.
PARLOUR = {
    "name": "parlour",
    "title": "Parlour",
    "variants": [
        {"name": "duel", "min_players": 2, "max_players": 2, "summary": "one against one"},
        {"name": "grand", "min_players": 3, "max_players": 6, "summary": ""},
    ],
    "bots": ["dummy", "sharp"],
    "options": [
        {"name": "speed", "summary": "how fast", "default": "slow", "choices": ["slow", "quick"]},
        {"name": "points", "summary": "to win", "default": 100, "low": 10, "high": 500},
    ],
}
TOKEN = "t" * 40
#: What a client quitting a game under way says of its seat at table 3 (the command follows).
KEPT = "your seat at table 3 is kept; to take it back, run:"
#: A server's games as the client reads its welcome: Notty, and one it has no UI for.
CATALOG = Catalog.from_welcome([NOTTY, PARLOUR])


def welcomed(*games: Mapping[str, Any], **settings: Any) -> Session:
    """A session its server has welcomed, hosting ``games`` (Notty alone unless told)."""
    session = Session("ann", **settings)
    session.receive(Welcome(PROTOCOL_VERSION, "test", games or (NOTTY,), limits=LIMITS))
    return session


def notty_view(**changes: Any) -> dict[str, Any]:
    """A Notty view as the wire carries it; ``changes`` to the envelope, ``body`` merged into its body."""
    body = {
        "hands": [["R1", "R2"], ["Y5"]],
        "deck_size": 77,
        "drew": True,
        "stole": False,
        "exchanged": False,
        "must_put_back": False,
    } | changes.pop("body", {})
    view = {
        "game": "notty",
        "variant": "classic",
        "names": ["ann", "bob"],
        "seat": 0,
        "current": 1,
        "turn": 12,
        "legal": [],
        "result": None,
        "body": body,
    }
    return view | changes


def seated(session: Session, view: Mapping[str, Any], table: int = 3) -> list[str]:
    """Sit ``session`` at ``table`` and show it ``view``: the lines the state printed."""
    session.receive(Seated(table, 0 if view["seat"] is None else view["seat"], TOKEN))
    return shown(session, State(table, view, ()))


def shown(session: Session, message: Message) -> list[str]:
    return [line for text in session.receive(message).lines for line in text.splitlines()]


def table(
    variant: str, seats: int, bots: Sequence[str] = (), game: str = "notty", **options: Any
) -> CreateTable:
    return CreateTable(game, seats, variant, tuple(bots), options)


# -- the welcome -----------------------------------------------------------------------


def test_the_welcome_says_which_games_the_server_hosts() -> None:
    session = Session("ann")
    assert session.typed("new").say == "not connected yet: wait a moment"  # nothing known yet
    out = session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY, PARLOUR), limits=LIMITS))
    assert out.lines == ("connected to test",)
    assert session.catalog is not None
    notty, parlour = session.catalog.games.values()
    assert (notty.name, notty.title, list(notty.variants)) == ("notty", "Notty", ["classic", "five-colour"])
    assert "expert-hard" in notty.bots and notty.options["level"].choices == ("easy", "medium", "hard")
    assert (notty.options["turn_limit"].low, notty.options["turn_limit"].high) == (0, 100_000)
    assert parlour.variants["grand"].max_players == 6 and parlour.options["points"].default == 100


def test_a_watcher_welcomed_again_watches_its_table_again_unless_its_game_was_over() -> None:
    """A play-test: after a restart the client said only that 'watch 14' would watch table 14 again,
    and the server gave up the game of bots alone nobody came back to watch."""
    session = welcomed()
    session.sending(Watch(14))
    session.receive(Watching(14))
    session.receive(State(14, notty_view(seat=None), ()))
    session.hello()
    out = session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    assert out.lines == ("connected to test (watching table 14 again)",) and out.send == (Watch(14),)
    session.hello()  # dropped again before the server answered: asked again on the next connection
    out = session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    assert out.send == (Watch(14),)
    session.sending(Watch(14))
    assert shown(session, Watching(14)) == ["you are watching table 14 again"]
    assert session.game == "notty" and session.rewatching is None
    session.receive(
        State(14, notty_view(seat=None, result={"ranking": [[0], [1]], "reason": "x", "text": "y"}), ())
    )
    session.hello()
    out = session.receive(
        Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS)
    )  # a game over: nothing to watch
    assert out.lines == (
        "connected to test; you are in the lobby (the game you watched at table 14 is over)",
    )
    assert out.send == () and session.table is None and session.rewatching is None


def test_only_a_watch_refusal_answers_watching_again() -> None:
    """A review: any error that came while the client watched again was taken for the watch's answer
    (a rate-limit said the table 'could not be watched again')."""
    session = welcomed()
    session.sending(Watch(14))
    session.receive(Watching(14))
    session.receive(State(14, notty_view(seat=None), ()))
    session.hello()
    session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    assert shown(session, Error("rate-limit", "too fast")) == ["refused: too fast [rate-limit]"]  # a script's
    person = welcomed(interactive=True)  # a person reads the words alone
    assert shown(person, Error("not-your-turn", "it is bob's turn", "turn")) == ["refused: it is bob's turn"]
    assert session.rewatching == 14  # still waiting for the watch's own answer
    assert shown(session, Error("no-such-table", "there is no table 14"))[0].startswith("table 14 is gone")
    assert session.rewatching is None


def test_a_join_typed_while_the_connection_was_down_is_not_answered_by_a_later_list() -> None:
    """A review: 'join 5 99' typed while down left its seat to ask, and the next table list, asked for
    another reason on the next connection, was read as its answer."""
    session = welcomed()
    session.typed("join 5 99")
    session.hello()
    session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    session.sending(ListTables())
    lines = shown(session, Tables(()))
    assert not any("seat 99" in line for line in lines)


def test_a_seat_offered_back_is_named_on_arrival_as_asked_for_not_resumed() -> None:
    """A play-test read "(resuming your seat at table 21)" and on the next line "your seat at table 21
    is gone": the welcome only says what was asked; the server's answer says how it went."""
    session = Session("ann")
    session.token, session.table = TOKEN, 7
    out = session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    assert out.lines == ("connected to test (asking for your seat at table 7 back)",)
    assert "resum" not in out.lines[0]
    gone = shown(
        session, Error("bad-token", "that seat token is not valid here (its game is over, or you left it)")
    )
    assert gone[0].startswith("your seat at table 7 is gone (")
    back = Session("ann")
    back.token, back.table = TOKEN, 7
    back.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    assert shown(back, Seated(7, 0, TOKEN)) == ["you sit at table 7, seat 1"]  # the answer that says so


def test_help_all_lists_the_clients_commands_then_each_games() -> None:
    help_text = welcomed(NOTTY, PARLOUR).typed("help all").say
    assert help_text.startswith("commands:\n  tables")
    assert "new [GAME] [VARIANT] [SEATS] [BOT|human...] [OPTION...]" in help_text
    notty = help_text.index("Notty (notty):")
    parlour = help_text.index("Parlour (parlour):")
    assert notty < help_text.index("discard CARDS") < parlour
    assert "variants: duel (2 players: one against one); grand (3 to 6 players)" in help_text[parlour:]
    assert "speed: slow, quick (default slow)" in help_text[parlour:]


def test_help_at_a_table_lists_its_games_commands_alone_and_help_all_every_games() -> None:
    """A first-time player's commands were two pages up, under two other games' (a play-test)."""
    session = welcomed(NOTTY, PARLOUR)
    session.receive(Seated(3, 0, "t" * 32))
    session.receive(State(3, notty_view(), ()))
    here = session.typed("help").say
    assert "Notty (notty):" in here and "Parlour (parlour):" not in here
    assert here.endswith("(the other games' commands: 'help all')")
    every = session.typed("help all").say
    assert "Notty (notty):" in every and "Parlour (parlour):" in every and "help all')" not in every
    unknown = session.typed("help me")  # a word help knows nothing of: said, and never a refusal
    lobby = welcomed(NOTTY, PARLOUR).typed("help").say  # in the lobby, an overview: each game's help apart
    assert "  help notty " in lobby and "  help parlour " in lobby and "  help all " in lobby
    assert "Notty (notty):" not in lobby and "discard CARDS" not in lobby
    assert not unknown.refused and unknown.say.startswith("no help on 'me'")


def test_help_on_a_command_shows_its_lines_of_the_help() -> None:
    """A play-test: 'help new', 'help play' said only the usage of help, and stopped a script."""
    session = welcomed(NOTTY, PARLOUR)
    new = session.typed("help new")
    assert not new.refused and new.say.startswith("  new [GAME] [VARIANT]")
    assert "  new [PRESET] [SEATS]" in new.say and "tables" not in new.say  # Notty's 'new' too, not the rest
    leave = session.typed("help LEAVE").say
    assert leave.startswith("  leave ") and "a bot takes your seat" in leave and "quit" not in leave
    steal = session.typed("help steal").say
    assert steal.splitlines() == [
        "Notty (notty):",
        "  steal [NAME]        steal from a player (NAME: not needed when you have one",
        "                      opponent); a last card asks first: its holder would win",
    ]
    assert "'putback CARD'" in session.typed("help putback").say  # said in the line of 'dd'


def test_help_on_a_game_is_its_help_and_at_a_table_a_command_is_its_games() -> None:
    session = welcomed(NOTTY, PARLOUR)
    notty = session.typed("help notty").say
    assert notty.startswith("Notty (notty):\n") and "discard CARDS" in notty and "rules notty" in notty
    assert session.typed("help five-colour").say == notty  # a variant says which game, as in 'rules'
    assert session.typed("help parlour").say.startswith("Parlour (parlour):\n  variants: duel")
    session.receive(Seated(3, 0, TOKEN))
    session.receive(State(3, notty_view(), ()))
    hint = session.typed("help hint").say
    assert hint.startswith("  hint                the game's best move") and "Notty (notty):" in hint


def test_help_on_an_unknown_word_lists_what_help_knows_without_refusing() -> None:
    reply = welcomed(NOTTY, PARLOUR).typed("help stael")
    assert not reply.refused
    assert reply.say.startswith(
        "no help on 'stael'; did you mean 'steal'?\n"
        "'help WORD' knows these words:\n  commands  tables, new, join"
    )
    said = " ".join(reply.say.split())
    assert "steal, discard" in said and "games notty, parlour" in said
    assert all(len(line) <= 80 for line in reply.say.splitlines())
    # A play-test at 60 columns: each line was wrapped alone, a long row and a short one. Laid
    # out as help is, each list is wrapped whole: every row of it full but its last.
    rows = ["".join(span.text for span in row).rstrip() for row in wrap_lines(reply.say.split("\n"), 60)]
    commands = [row for row in rows[2:] if not row.startswith("  games")]
    assert commands[0].startswith("  commands  ") and all(row.startswith(" " * 12) for row in commands[1:])
    assert all(52 <= len(row) <= 60 for row in commands[:-1]), rows


@pytest.mark.parametrize("word", ["hard", "Greedy", "expert", "level", "expert-hard", "turn_limit"])
def test_help_on_a_word_new_takes_gives_the_lines_of_new(word: str) -> None:
    """A play-test: 'help limit' gave new's lines, but 'help hard' and 'help greedy' said "no help",
    and 'help level' guessed 'leave'."""
    for at in (None, "parlour"):
        said = help_on(word.lower(), CATALOG, at)
        assert said.startswith(f"{word.lower()!r} is a word 'new' takes (Notty):\nNotty (notty):\n  new "), (
            said
        )
        assert "Parlour" not in said  # a word of Notty's new alone
    # A game with no help of its own for 'new': the client's.
    assert help_on("quick", CATALOG).startswith("'quick' is a word 'new' takes (Parlour):\n  new [GAME]")


def test_help_on_a_command_names_its_own_lines_not_those_that_speak_of_it() -> None:
    """A play-test: 'help auto' gave hint's lines too, whose text says what 'auto' would do."""
    said = help_on("auto", CATALOG, "notty")
    assert said.startswith("  auto ") and "  hint " not in said
    assert help_on("putback", CATALOG, "notty").startswith("Notty (notty):\n  dd ")  # said of in dd's


def test_help_on_a_command_with_its_arguments_is_help_on_the_command() -> None:
    """A review found 'help auto on' gave auto's lines, then "no help on 'on'" and the list of
    commands; and a long word was echoed whole, a pasted line of them hundreds of times."""
    session = welcomed(NOTTY, PARLOUR)
    assert session.typed("help steal bob").say == session.typed("help steal").say
    assert "no help on" not in session.typed("help auto on").say
    long = session.typed("help " + "Z" * 400).say.splitlines()[0]
    assert long.startswith("no help on '" + "Z" * 20 + "…'") and len(long) < 80  # as typed, cut short
    assert session.typed("help " + "x " * 240).say.count("no help on") == 1


def test_help_at_a_table_still_waiting_for_players_lists_its_games_commands_alone() -> None:
    """No view says the game before it starts, which is when a first-time player reads help."""
    session = welcomed(NOTTY, PARLOUR)
    for message in session.typed("new classic 2 human").messages:
        session.sending(message)
    session.receive(Seated(3, 0, "t" * 32))
    assert session.view is None
    here = session.typed("help").say
    assert "Notty (notty):" in here and "Parlour (parlour):" not in here


def test_a_game_with_a_ui_gets_its_own_and_any_other_none() -> None:
    ui = ui_for("notty")
    assert ui is not None and ui.is_action("discard") and not ui.is_action("tables")
    assert ui_for("parlour") is None
    assert ui_for("no-such-game") is None


# -- new, read against the welcome -----------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [  # every example README gives
        ("new", table("classic", 2, ["expert"])),
        ("new 3", table("classic", 3, ["expert", "expert"])),
        ("new hard", table("classic", 2, ["expert"], level="hard")),
        ("new classic 2 human", table("classic", 2)),
        ("new classic 3 expert hard", table("classic", 3, ["expert"], level="hard")),
        ("new five-colour 3 expert greedy easy", table("five-colour", 3, ["expert", "greedy"], level="easy")),
        ("new classic 2 greedy", table("classic", 2, ["greedy"])),
        ("new limit 200 classic 2 greedy", table("classic", 2, ["greedy"], turn_limit=200)),
        ("new classic 2 limit 200 greedy", table("classic", 2, ["greedy"], turn_limit=200)),
        ("new notty five-colour human", table("five-colour", 2)),  # the game named, as with several
        ("new turn_limit 9", table("classic", 2, ["expert"], turn_limit=9)),  # the option's own name
        ("new level easy 3", table("classic", 3, ["expert", "expert"], level="easy")),
    ],
)
def test_new_reads_the_welcome(line: str, expected: CreateTable) -> None:
    reply = welcomed().typed(line)
    assert reply.say == ""
    assert reply.messages == (expected,)


@pytest.mark.parametrize(
    ("line", "seconds", "expected"),
    [
        ("new time 60", 60, table("classic", 2, ["expert"])),
        ("new classic 2 human time 30", 30, table("classic", 2)),
        ("new huxxy time 90 2", 90, table("huxxy", 2, ["greedy"], game="huxxy")),
        ("new TIME 3600 hard", 3600, table("classic", 2, ["expert"], level="hard")),
        ("new time 0", 0, table("classic", 2, ["expert"])),  # no turn time, as without the word
    ],
)
def test_new_gives_every_turn_the_time_asked_for(line: str, seconds: int, expected: CreateTable) -> None:
    """The client had no word for a turn time: only a raw create_table could set one."""
    hosted = (NOTTY, describe(GAMES["huxxy"]))
    reply = welcomed(*hosted).typed(line)
    assert reply.say == ""
    assert reply.messages == (attrs.evolve(expected, turn_seconds=seconds),)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("new time", "'time' takes a number of seconds, 10 to 3,600 (0: no turn time), e.g. 'time 60'"),
        ("new time 3601", "'time' takes a number of seconds, 10 to 3,600 (0: no turn time)"),
        ("new time 9", "'time' takes a number of seconds, 10 to 3,600"),  # over before the table is read
        ("new tiem 20", "did you mean 'time'?"),
        ("new time soon 2", "'time' takes a number of seconds"),
        ("new time -5", "'time' takes a number of seconds"),
        ("new time 30 classic time 40", "one time, please"),
    ],
)
def test_a_turn_time_new_cannot_give_is_refused_in_words(line: str, says: str) -> None:
    reply = welcomed().typed(line)
    assert reply.messages == ()
    assert says in reply.say, reply.say


def test_the_built_in_servers_first_table_is_a_plain_new() -> None:
    session = welcomed(interactive=True)
    assert session.arrival(built_in=True).messages == (table("classic", 2, ["expert"]),)
    assert session.arrival(built_in=False).messages == (ListTables(),)  # a person sees the tables
    assert welcomed(interactive=False).arrival(built_in=False).messages == ()  # a script does not


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("new parlour", table("duel", 2, ["dummy"], game="parlour")),  # its first bot: it names no default
        ("new grand", table("grand", 3, ["dummy", "dummy"], game="parlour")),  # a variant names its game
        (
            "new parlour grand 4 sharp human quick",
            table("grand", 4, ["sharp"], game="parlour", speed="quick"),
        ),
        ("new points 250 parlour", table("duel", 2, ["dummy"], game="parlour", points=250)),
        ("new hard", table("classic", 2, ["expert"], level="hard")),  # the first game is the default
    ],
)
def test_new_plays_any_game_the_server_lists(line: str, expected: CreateTable) -> None:
    assert welcomed(NOTTY, PARLOUR).typed(line).messages == (expected,)


@pytest.mark.parametrize(
    ("line", "expected"),
    [  # huxxy: "4 players (a table may also be created for 2 or 3)"; Ochos Locos: "3 players by default"
        ("new huxxy", table("huxxy", 4, ["greedy"] * 3, game="huxxy")),
        ("new huxxy-jokers", table("huxxy-jokers", 4, ["greedy"] * 3, game="huxxy")),
        ("new huxxy 2", table("huxxy", 2, ["greedy"], game="huxxy")),
        ("new huxxy expert", table("huxxy", 2, ["expert"], game="huxxy")),  # the players named: theirs
        ("new ochos-locos", table("part4", 3, ["rule"] * 2, game="ochos-locos")),
        ("new part1", table("part1", 3, ["rule"] * 2, game="ochos-locos")),
    ],
)
def test_new_alone_makes_the_table_the_games_rules_call_for(line: str, expected: CreateTable) -> None:
    """'new huxxy' made a table for two, the fewest the game allows, where its rules say four."""
    hosted = (NOTTY, describe(GAMES["huxxy"]), describe(GAMES["ochos-locos"]))
    assert welcomed(*hosted).typed(line).messages == (expected,)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("new notty parlour", "one game, please, not notty and parlour"),
        ("new parlour 7", "a Parlour duel table has 2 seats"),  # not named: the game's title, and the variant
        ("new parlour 5", "a Parlour duel table has 2 seats; grand takes 5"),  # and another that fits
        ("new grand 9", "a Parlour grand table has 3 to 6 seats"),
        (
            "new parlour wizard",
            "'wizard' is neither a game (notty, parlour), a variant of parlour (duel, grand)",
        ),
        (
            "new parlour expert",
            "'expert' plays at notty tables, not at parlour tables; players are dummy, sharp",
        ),
        ("new parlour points 5", "'points' takes a whole number, 10 to 500"),
        ("new parlour speed fast", "'speed' takes one of slow, quick"),
        ("new parlour slow quick", "one speed, please, not slow and quick"),
        ("new 3 notty", "the game goes first"),
        ("new 3 classic", "the preset goes first"),
        ("new 3 greedy nobody", "'nobody' is not a player here: players are random, greedy"),
        ("new parlour 2 hard", "'hard' sets an option that notty tables have and parlour tables do not"),
    ],
)
def test_new_says_what_is_wrong_and_sends_nothing(line: str, says: str) -> None:
    reply = welcomed(NOTTY, PARLOUR).typed(line)
    assert reply.messages == ()
    assert says in reply.say


#: The games a real server hosts, as its welcome describes them.
HOSTED = tuple(describe(GAMES[name]) for name in ("notty", "ochos-locos", "huxxy"))


@pytest.mark.parametrize(
    ("line", "says"),
    [  # The play-test: "a part4 table has 2 to 6 seats", a variant never typed; "a classic table has 2 or
        # 3 seats" for three names, without saying that they and you make 4. The same words whether the
        # variant was typed or not: "a classic table" typed, "a Notty classic table" not.
        ("new ochos-locos 7", "an Ochos Locos part4 table has 2 to 6 seats"),
        ("new 4", "a Notty classic table has 2 or 3 seats"),
        ("new classic 4", "a Notty classic table has 2 or 3 seats"),
        ("new notty classic 4", "a Notty classic table has 2 or 3 seats"),
        ("new part4 7", "an Ochos Locos part4 table has 2 to 6 seats"),
        (
            "new classic expert expert expert",
            "a Notty classic table has 2 or 3 seats: the 3 players named and you make 4",
        ),
        (
            "new ochos-locos part1 rule",
            "an Ochos Locos part1 table has 3 seats: the player named and you make 2",
        ),
        ("new huxxy 4 greedy", ""),  # a count typed fits: the table is asked for
        ("new huxxy 5", "a huxxy table has 2 to 4 seats"),  # the play-test: "a huxxy huxxy table"
        ("new huxxy-jokers 5", "a huxxy-jokers table has 2 to 4 seats"),
        ("new 2 2", "two numbers of seats, 2 and 2: give one, after the preset"),  # not "seats go first"
        ("new classic five-colour", "two presets, classic and five-colour: a table plays one"),
        (
            "new 2 classic",  # this one does
            "the preset goes first: new [GAME] [PRESET] [SEATS] [BOT|human...] [OPTION...] [time SECONDS]",
        ),
    ],
)
def test_a_count_of_seats_that_does_not_fit_names_the_game_and_variant_and_how_it_came_about(
    line: str, says: str
) -> None:
    reply = welcomed(*HOSTED).typed(line)
    assert reply.say == says and bool(reply.messages) == (not says), reply


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("new huxxy limit 5", "'limit' sets an option that notty tables have and huxxy tables do not"),
        ("new ochos-locos limit 5", "'limit' sets an option that notty tables have and ochos-locos tables"),
        ("new huxxy quiet 2", "'quiet' sets an option that notty tables have and huxxy tables do not"),
        ("new huxxy turn_limit 50", "'turn_limit' sets an option that notty tables have and huxxy"),
        ("new huxxy level easy", "'level' sets an option that notty tables have and huxxy tables do not"),
        ("new huxxy hard", "'hard' sets an option that notty tables have and huxxy tables do not"),
        ("new limit 5 huxxy", "'limit' sets an option that notty tables have and huxxy tables do not"),
        ("new huxxy 2 limit 5", "'limit' sets an option that notty tables have and huxxy tables do not"),
        ("new ochos-locos 3 rule quiet_rounds 4", "'quiet_rounds' sets an option that notty tables have"),
        ("new huxxy expert hard", "'hard' sets an option that notty tables have and huxxy tables do not"),
    ],
)
def test_another_games_option_is_named_as_theirs_wherever_it_stands(line: str, says: str) -> None:
    reply = welcomed(*HOSTED).typed(line)
    assert reply.messages == () and reply.say.startswith(says), reply.say
    assert "did you mean" not in reply.say
    assert "players are" not in reply.say  # who plays there is beside the point (a play-tester)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            "new huxxy five-colour",
            "'five-colour' is a preset of notty, not a variant of huxxy (huxxy, huxxy-jokers)",
        ),
        (
            "new five-colour huxxy",
            "'five-colour' is a preset of notty, not a variant of huxxy (huxxy, huxxy-jokers)",
        ),
        (
            "new notty huxxy-jokers",
            "'huxxy-jokers' is a variant of huxxy, not a preset of notty (classic, five-colour)",
        ),
        ("new huxxy 3 five-colour", "'five-colour' is a preset of notty, not a variant of huxxy"),
        (
            "new huxxy 4 qlearn",
            "'qlearn' plays at notty tables, not at huxxy tables; players are greedy, expert, random, human",
        ),
        ("new huxxy 3 rule", "'rule' plays at ochos-locos tables, not at huxxy tables; players are"),
        (
            "new huxxy expert-hard",
            "'expert-hard' plays at notty tables, not at huxxy tables; players are greedy",
        ),
        ("new ochos-locos 3 expert qlearn", "'qlearn' plays at notty tables, not at ochos-locos tables"),
    ],
)
def test_another_games_variant_or_player_is_named_as_theirs(line: str, says: str) -> None:
    reply = welcomed(*HOSTED).typed(line)
    assert reply.messages == () and reply.say.startswith(says), reply.say


def test_a_player_of_another_game_still_gets_a_guess_at_ours() -> None:
    said = welcomed(*HOSTED).typed("new huxxy 3 expert expert-easy").say
    assert said.startswith("'expert-easy' plays at notty tables") and said.endswith(
        "; did you mean 'expert'?"
    )


@pytest.mark.parametrize("games", [HOSTED, (NOTTY, PARLOUR)], ids=["hosted", "parlour"])
def test_a_guess_at_a_word_of_new_is_never_the_word_itself(games: tuple[Mapping[str, Any], ...]) -> None:
    from client.new import new_words

    session = welcomed(*games)
    assert session.catalog is not None
    for game in session.catalog.games:
        for word in set(new_words(session.catalog)):
            for line in (f"new {game} {word} 5", f"new {game} 2 {word} 5", f"new {word} 5 {game}"):
                assert f"did you mean {word!r}" not in session.typed(line).say, line
    assert session.typed("new clasic").say.endswith("; did you mean 'classic'?")  # a guess still comes


def test_a_server_with_no_game_it_can_start_says_so() -> None:
    session = welcomed({**PARLOUR, "variants": []})  # no variant: no table could be made
    assert session.typed("new").say == "this server hosts no game this client can start"


# -- tables ----------------------------------------------------------------------------


def table_info(number: int, names: list[str | None], game: str = "notty", **options: Any) -> dict[str, Any]:
    seats = [{"name": name, "bot": None, "connected": name is not None} for name in names]
    variant = "classic" if game == "notty" else "duel"
    settings = {"level": "medium", "turn_limit": 0} if game == "notty" else {"speed": "slow", "points": 100}
    return {
        "table": number, "game": game, "variant": variant, "seats": seats, "started": False, "over": False,
        "spectators": 0, "turn_seconds": 0, "options": settings | options, "turn": None, "bots": [],
        "kept": [index for index, name in enumerate(names) if name is not None],
    }  # fmt: skip


def test_tables_show_their_variant_and_options() -> None:
    session = welcomed()
    session.sending(ListTables())
    lines = shown(session, Tables([table_info(3, ["ann", None]), table_info(4, ["bob"], turn_limit=200)]))
    assert lines == [
        "table 3: classic, waiting, seats: ann, (free) · 'join 3'",  # no expert: no level (below)
        "table 4: classic, limit 200, waiting, seats: bob · 'watch 4'",
    ]
    several = welcomed(NOTTY, PARLOUR)
    several.sending(ListTables())
    lines = shown(several, Tables([table_info(3, [None, None]), table_info(5, [None, None], "parlour")]))
    assert lines[0].startswith("table 3: Notty classic, waiting")
    assert lines[1].startswith(
        "table 5: Parlour duel, speed slow, waiting"
    )  # points at the default: not shown


def test_a_tables_level_shows_only_where_an_expert_plays_at_it() -> None:
    """The level is how well the table's experts play: the list said 'level hard' of a table whose
    only bot was greedy or qlearn, as if they played harder."""
    session = welcomed()
    seats = [{"name": "ann", "bot": None, "connected": True}]
    started = {"started": True, "turn": 4}

    def line(*bots: tuple[str | None, str], level: str = "hard") -> str:
        theirs = [{"name": name, "bot": bot, "connected": bot is not None} for bot, name in bots]
        info = table_info(3, [], level=level) | started | {"seats": [*seats, *theirs]}
        session.sending(ListTables())
        (said,) = shown(session, Tables([info | {"bots": list(range(1, 1 + len(bots)))}]))
        return said

    assert line(("greedy", "greedy-2"), ("qlearn", "qlearn-3")).startswith("table 3: classic, playing")
    assert "level hard" in line(("greedy", "greedy-2"), ("expert-hard", "expert-3"))  # the table's expert
    assert "level easy" not in line(("expert-hard", "expert-2"), level="easy")  # one of its own level
    assert "level hard" in line((None, "bob"))  # a stand-in for a person: the expert, at the level


def test_seat_news_is_shown_but_is_neither_the_list_to_complete_from_nor_a_reply() -> None:
    session = welcomed()
    session.sending(ListTables())  # 'tables' was typed
    replies = session.replies
    session.receive(Tables([table_info(3, [None, None]), table_info(7, ["ann", None])]))
    assert session.tables_seen == [3, 7] and session.replies == replies + 1
    session.table = 7
    lines = shown(session, Tables([table_info(7, ["ann", "bob"])]))  # unasked: bob sat down
    assert lines == ["table 7: classic, waiting, seats: ann, bob · you are here"]
    assert session.tables_seen == [3, 7]  # 'join 3' still completes
    assert session.replies == replies + 1  # a script waiting for a reply still waits


def test_a_pong_is_neither_shown_nor_a_reply() -> None:
    session = welcomed()
    replies = session.replies
    assert session.receive(Pong(1)).lines == () and session.replies == replies


def test_joining_a_listed_table_knows_its_game_before_the_game_starts() -> None:
    session = welcomed(NOTTY, PARLOUR)
    session.sending(ListTables())
    session.receive(Tables([table_info(5, ["bob", None], "parlour")]))
    session.sending(session.typed("join 5").messages[0])
    session.receive(Seated(5, 1, TOKEN))
    assert session.typed("wave").messages == (Act("wave"),)  # parlour's: sent as typed
    assert session.typed("wave").action  # and a script waits for its turn to send it


def test_join_alone_takes_the_one_table_waiting_for_players_or_says_which() -> None:
    session = welcomed()
    assert session.typed("join").say.startswith("usage: join TABLE [SEAT]: no table listed last waits")
    session.sending(ListTables())
    started = table_info(2, ["cy", None]) | {"started": True}
    session.receive(Tables([started, table_info(3, ["bob", None]), table_info(4, ["dee", "eve"])]))
    assert session.typed("join").messages == (Join(3, None),)  # 2 has begun, 4 is full
    session.sending(ListTables())
    session.receive(Tables([table_info(3, ["bob", None]), table_info(5, [None, None])]))
    said = session.typed("JOIN")
    assert (
        said.messages == ()
        and said.say == "join which table? 3 and 5 wait for players: type 'join 3' or 'join 5'"
    )
    session.sending(ListTables())
    session.receive(Tables([table_info(number, [None, None]) for number in (3, 5, 6, 8)]))
    said = session.typed("join")
    assert (
        said.say == "join which table? 3, 5, 6 and 8 wait for players: type 'join' and its number ('join 3')"
    )


def test_joining_a_table_still_waiting_says_what_begins_its_game() -> None:
    """A play-tester who joined was told only "you sit at table 3, seat 2", and typed a move
    before the game had begun: the creator had not typed 'start', and one seat was still free.
    It is said from the table's news that follows the seat, not from the last list, which a
    review found could be out of date."""
    session = welcomed()
    session.sending(ListTables())
    bot = {"name": "greedy-4", "bot": "greedy", "connected": True}
    listed = table_info(3, ["ann", None, None])
    session.receive(Tables([listed | {"seats": [*listed["seats"], bot]}, table_info(5, ["cy", None])]))
    session.sending(session.typed("join 3").messages[0])
    assert shown(session, Seated(3, 1, TOKEN)) == ["you sit at table 3, seat 2"]
    now = table_info(3, ["ann", "zed", None])
    lines = shown(session, Tables([now | {"seats": [*now["seats"], bot]}]))
    assert lines[-1] == (
        "waiting for 1 more player, or for ann to 'start' (with expert bots in the empty seats)"
    )
    assert shown(session, Tables([table_info(3, ["ann", "zed", None])]))[-1].startswith("table 3:")  # once
    session.receive(Left(3))
    session.sending(session.typed("join 5").messages[0])  # the last seat: the game's view follows
    assert shown(session, Seated(5, 1, TOKEN)) == ["you sit at table 5, seat 2"]
    session.receive(Left(5))


def test_a_join_says_what_the_table_waits_for_now_not_as_last_listed() -> None:
    """Listed with two seats free; one was taken since: our join took the last, and the game's
    first view follows with no word of waiting (a review)."""
    session = welcomed()
    session.sending(ListTables())
    session.receive(Tables([table_info(3, ["ann", None, None])]))
    session.sending(session.typed("join 3").messages[0])
    assert shown(session, Seated(3, 2, TOKEN)) == ["you sit at table 3, seat 3"]
    assert not any("waiting" in line for line in shown(session, State(3, notty_view(), [])))


def test_a_refused_join_leaves_no_waiting_line_for_the_next_seat() -> None:
    """After a refused join, a table of our own with a bot in the other seat (its game begins at
    once) was said to wait for 2 more players, or for ann to start (a review)."""
    session = welcomed()
    session.sending(ListTables())
    session.receive(Tables([table_info(3, ["ann", None, None])]))
    session.sending(session.typed("join 3").messages[0])
    session.receive(Error("table-full", "table 3 has no free seat", None))
    session.sending(table("classic", 2, ["medium"]))
    assert shown(session, Seated(8, 0, TOKEN)) == ["you sit at table 8, seat 1"]


def test_joining_a_table_nobody_else_sits_at_says_we_may_start_it() -> None:
    """A table kept by a spectator after everyone left has no creator: who sits first may start it
    (the line named 'its creator', who was nobody)."""
    session = welcomed()
    session.sending(ListTables())
    session.receive(Tables([table_info(4, [None, None])]))
    session.sending(session.typed("join 4").messages[0])
    shown(session, Seated(4, 0, TOKEN))
    lines = shown(session, Tables([table_info(4, ["ann", None])]))
    assert lines[-1] == (
        "waiting for 1 more player: they type 'join 4'; "
        "'start' begins now, with expert bots in the empty seats"
    )


def test_join_alone_goes_by_the_lists_asked_for_not_news_of_our_own_table() -> None:
    """The one-table list of our own new table, news and not asked for, replaced the last list:
    after leaving that table (gone with us), 'join' alone sent a join to it."""
    session = welcomed()
    session.sending(ListTables())
    session.receive(Tables([table_info(3, ["bob", None]), table_info(5, [None, None])]))
    session.sending(session.typed("new classic 2 human").messages[0])
    session.receive(Seated(9, 0, TOKEN))
    session.receive(Tables([table_info(9, ["ann", None])]))  # our own table, unasked
    session.receive(Left(9))
    said = session.typed("join")
    assert said.messages == () and said.say.startswith("join which table? 3 and 5 wait for players")


def test_join_alone_does_not_go_by_a_list_seen_before_a_game_we_have_played_since() -> None:
    """A play-test: a list showed table 3 waiting; a whole game later, 'join' alone sent a join to
    table 3, long gone, though the lobby had other tables waiting."""
    session = welcomed()
    session.sending(ListTables())
    session.receive(Tables([table_info(3, ["bob", None])]))
    session.sending(session.typed("new classic 2 greedy").messages[0])
    session.receive(Seated(9, 0, TOKEN))
    session.receive(State(9, notty_view(), []))  # the game was played
    session.receive(Left(9))
    said = session.typed("join")
    assert said.messages == () and said.refused
    assert (
        said.say == "usage: join TABLE [SEAT]: a game went by since the last list ('tables' lists them now)"
    )
    session.sending(ListTables())
    session.receive(Tables([table_info(7, ["cy", None])]))
    assert session.typed("join").messages == (Join(7, None),)  # a list asked for since goes again


def test_a_table_waiting_for_people_says_how_they_join_and_who_fills_the_rest() -> None:
    session = welcomed()
    session.sending(session.typed("new classic 3 human human").messages[0])
    lines = shown(session, Seated(4, 0, TOKEN))
    assert lines == [
        "you sit at table 4, seat 1",
        "waiting for 2 more players: they type 'join 4'; "
        "'start' begins now, with expert bots in the empty seats",
    ]
    ochos = welcomed(describe(GAMES["ochos-locos"]))  # its 'new' seats rule bots, and 'start' experts
    ochos.sending(ochos.typed("new ochos-locos 4 human human human").messages[0])
    assert shown(ochos, Seated(5, 0, TOKEN))[1].endswith("with expert bots in the empty seats")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_games_ui_names_the_bot_the_server_fills_empty_seats_with(name: str) -> None:
    """A play-tester was told 'rule bots' would fill an Ochos Locos table, and got experts."""
    game = GAMES[name]
    ui = ui_for(name)
    assert ui is not None and ui.filler_bot == game.stand_in(game.settings(None, 2, {}))


# -- a Notty table ------------------------------------------------------------------------


def test_a_notty_table_is_shown_as_ever() -> None:
    session = welcomed()
    lines = seated(session, notty_view())
    assert lines == [
        "table 3 · classic · turn 12 · deck 77 cards",
        "   ann [ 2]  R1 R2 (you)",
        " > bob [ 1]  Y5",
        "bob to play; may still steal, end the turn",
    ]
    assert session.view is not None and session.game == "notty" and not session.my_turn()


def test_a_hint_is_shown_with_its_groups_alternatives_and_outs() -> None:
    session = welcomed()
    seated(session, notty_view(current=0, legal=["draw 1", "end"]))
    data = {
        "size": 6,
        "best": [["R6", "Y6", "B6"], ["G5", "G6", "G7"]],
        "alternatives": [["R6", "Y6", "G6", "B6"]],
        "outs": [{"card": "K6", "gain": 1}, {"card": "G8", "gain": 1}],
    }
    commands = ("discard R6 Y6 B6", "discard G5 G6 G7")
    lines = shown(session, Hint("discard 6 cards: R6 Y6 B6  G5 G6 G7", commands, data))
    assert lines == [
        "hint: discard 6 cards: R6 Y6 B6  G5 G6 G7",
        "      type: discard R6 Y6 B6",
        "      type: discard G5 G6 G7",
        "      or: R6 Y6 G6 B6",
        "outs: K6 (+1), G8 (+1)",
    ]
    nothing = {"size": 0, "best": [], "alternatives": [], "outs": []}
    assert shown(session, Hint("nothing can be discarded now", (), nothing)) == [
        "hint: nothing can be discarded now"
    ]


def test_colour_marks_the_cards() -> None:
    session = welcomed(colour=True)
    lines = seated(session, notty_view())
    assert "\x1b[1;31mR1\x1b[0m \x1b[1;31mR2\x1b[0m (you)" in lines[1]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"hands": [["R1"]]}, "body.hands: not a hand for each of 2 players"),
        ({"hands": [["R1"], ["X9"]]}, "body.hands[1]: 'X9' is not a card"),
        ({"hands": [["R1"], "Y5"]}, "body.hands[1]: not a list of cards"),
        ({"deck_size": -1}, "body.deck_size: not a number of cards"),
        ({"deck_size": True}, "body.deck_size: not a number of cards"),
        ({"drew": 1}, "body.drew: not true or false"),
        ({"must_put_back": None}, "body.must_put_back: not true or false"),
    ],
)
def test_a_malformed_notty_body_is_refused_and_changes_nothing(body: dict[str, Any], says: str) -> None:
    session = welcomed()
    seated(session, notty_view())
    before = session.view
    (line,) = shown(session, State(3, notty_view(turn=13, body=body), ()))
    assert line.startswith("the server sent a table this client cannot read (body.")
    assert line.endswith("); nothing changed") and says in line
    assert session.view is before


@pytest.mark.parametrize(
    ("view", "says"),
    [
        (notty_view(current=2), "view: a seat beyond the 2 players"),
        (notty_view(seat=5), "view: a seat beyond the 2 players"),
        (
            notty_view(result={"ranking": [[0], [1, 2]], "reason": "discard", "text": "ann wins"}),
            "view: a seat beyond the 2 players",
        ),
    ],
)
def test_a_view_naming_seats_nobody_holds_is_refused(view: dict[str, Any], says: str) -> None:
    session = welcomed()
    lines = shown(session, State(3, view, ()))
    assert lines == [f"the server sent a table this client cannot read ({says}); nothing changed"]
    assert session.view is None


def test_a_malformed_hint_is_refused() -> None:
    session = welcomed()
    seated(session, notty_view())
    lines = shown(
        session, Hint("discard", (), {"size": 3, "best": [["R1", "Q2"]], "alternatives": [], "outs": []})
    )
    assert lines == ["the server sent a hint this client cannot read (hint data.best[0]: 'Q2' is not a card: "
                     "colour letters are R, Y, G, B, K)"]  # fmt: skip


@pytest.mark.parametrize("started", [True, False])
def test_a_seat_resumed_elsewhere_is_neither_kept_nor_forgotten_here(tmp_path: Path, started: bool) -> None:
    store = SeatStore(tmp_path / "seats.json")
    session = welcomed(seats=store, server="h:1")
    if started:
        seated(session, notty_view())
    else:
        session.receive(Seated(3, 0, TOKEN))
    why = "your seat was resumed from another connection, which has it now"
    assert shown(session, Error("resumed-elsewhere", why)) == [why]
    shown(session, Goodbye(why))
    assert session.leaving() == []  # no "your seat is kept": running again would take it back
    assert store.get("h:1", "ann") == StoredSeat(TOKEN, 3)  # the other connection's, on disk still


def test_quitting_a_game_on_the_built_in_server_says_the_game_ends_with_it() -> None:
    """No seat is kept with no address: the server is the client's own. Quitting mid-game says so,
    rather than nothing (a server's seat is said to be kept); nothing to say before or after a game."""
    session = welcomed(built_in=True)
    session.receive(Seated(3, 0, TOKEN))
    assert session.leaving() == []  # no game began: nothing is lost
    seated(session, notty_view())
    (line,) = session.leaving()
    assert line.startswith("the game at table 3 ends here: it was played on the client's built-in server")
    assert "kept" not in line.partition("(")[0]
    result = {"ranking": [[1], [0]], "reason": "stolen", "text": "bob wins: their last card was stolen"}
    shown(session, State(3, notty_view(result=result), ()))
    assert session.leaving() == []  # over: nothing to come back to anyway


def test_a_seat_is_kept_under_the_name_it_has_at_its_table(tmp_path: Path) -> None:
    """Two clients named ann at one table (the server names the second ann-2) kept one seat between
    them: each is kept under its name there, and quitting names the command that takes it back."""
    store = SeatStore(tmp_path / "seats.json")
    names = {"names": ["ann", "ann-2"]}
    ann = welcomed(seats=store, server="h:1", interactive=True)
    ann.receive(Seated(3, 0, "a" * 40))
    twin = welcomed(seats=store, server="h:1", interactive=True)
    twin.receive(Seated(3, 1, "b" * 40))  # not over ann's seat: its own name here is not yet known
    assert store.seats("h:1", "ann") == [StoredSeat("a" * 40, 3)]
    shown(ann, State(3, notty_view(**names), ()))
    shown(twin, State(3, notty_view(seat=1, **names), ()))
    assert store.seats("h:1", "ann") == [StoredSeat("a" * 40, 3)]
    assert store.seats("h:1", "ann-2") == [StoredSeat("b" * 40, 3)]
    assert twin.leaving() == [KEPT, "  notty-client h:1 --name ann-2"]
    assert ann.leaving() == [KEPT, "  notty-client h:1 --name ann"]
    ann.program = ".venv/bin/notty-client"  # run by a path, as 'make play' runs it: said so
    assert ann.leaving() == [KEPT, "  .venv/bin/notty-client h:1 --name ann"]
    ann.flags = " --plain"  # and in line mode, where it was (a play-test's came back full screen)
    assert ann.leaving() == [KEPT, "  .venv/bin/notty-client h:1 --name ann --plain"]


def test_two_clients_of_one_name_sitting_at_once_each_keep_their_seat(tmp_path: Path) -> None:
    """A review found a race: the twin looked for a seat kept under ann at table 3 before ann had
    kept hers, then wrote over it; its first view moved it to ann-2 and dropped its entry under
    ann, so ann's seat was kept nowhere. Ann's next view puts hers back."""
    store = SeatStore(tmp_path / "seats.json")
    names = {"names": ["ann", "ann-2"]}
    ann = welcomed(seats=store, server="h:1", interactive=True)
    ann.receive(Seated(3, 0, "a" * 40))
    store.put("h:1", "ann", StoredSeat("b" * 40, 3))  # the twin's write, as the race made it
    twin = welcomed(seats=store, server="h:1", interactive=True)
    twin.token, twin.table, twin.kept_as = "b" * 40, 3, "ann"
    shown(twin, State(3, notty_view(seat=1, **names), ()))
    assert store.seats("h:1", "ann") == []  # ann's seat kept nowhere, for now
    shown(ann, State(3, notty_view(**names), ()))
    assert store.seats("h:1", "ann") == [StoredSeat("a" * 40, 3)]
    assert store.seats("h:1", "ann-2") == [StoredSeat("b" * 40, 3)]


def test_a_seat_kept_under_the_name_given_moves_to_its_name_at_the_table(tmp_path: Path) -> None:
    """A file of the earlier client kept ann-2's seat under ann: resumed, it moves to ann-2, so that
    ann's own seat may be kept too."""
    store = SeatStore(tmp_path / "seats.json")
    store.put("h:1", "ann", StoredSeat("b" * 40, 3))
    twin = Session("ann", seats=store, server="h:1", interactive=True)
    twin.token, twin.table, twin.kept_as = "b" * 40, 3, "ann"  # as the client resumes what it kept
    twin.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    twin.receive(Seated(3, 1, "b" * 40))
    shown(twin, State(3, notty_view(seat=1, names=["ann", "ann-2"]), ()))
    assert store.seats("h:1", "ann") == [] and store.seats("h:1", "ann-2") == [StoredSeat("b" * 40, 3)]
    assert twin.leaving() == [KEPT, "  notty-client h:1 --name ann-2"]
    store.put("h:1", "ann-2", StoredSeat("c" * 40, 4))  # another game of ann-2's, kept meanwhile
    assert twin.leaving() == [KEPT, "  notty-client h:1 --name ann-2 --table 3"]
    store.forget("h:1", "ann-2", "b" * 40)  # another run forgot it ('--forget'): no promise now
    assert twin.leaving() == ["your seat at table 3 is no longer kept on this machine"]


def test_the_end_of_a_game_forgets_the_seat(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    session = welcomed(seats=store, server="h:1")
    seated(session, notty_view())
    assert store.get("h:1", "ann") == StoredSeat(TOKEN, 3)
    # A play-test at 60 columns: the command to run, wrapped with the words, broke; on a line of
    # its own it is copied whole. A script's session (not interactive) resumes only when asked.
    assert session.leaving() == [KEPT, "  notty-client h:1 --name ann --resume"]
    result = {"ranking": [[1], [0]], "reason": "stolen", "text": "bob wins: their last card was stolen"}
    lines = shown(session, State(3, notty_view(result=result), ()))
    assert lines[-2:] == [
        "game over: bob wins (last card stolen); 'leave' returns to the lobby",
        "you lost after 12 turns",  # the end's summary: the line above says how
    ]
    assert session.game_over and store.get("h:1", "ann") is None
    assert session.leaving() == []


def test_a_game_the_server_stopped_keeps_its_seat_for_when_the_server_is_back(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    session = welcomed(seats=store, server="h:1")
    seated(session, notty_view())
    stopped = shown(session, Error("not-recorded", "the server could not record the last change at table 3"))
    assert stopped == ["the server stopped your game: the server could not record the last change at table 3"]
    assert shown(session, Left(3)) == [
        # a script's session: it resumes only when asked, so the command asks
        "table 3 stopped; once the server is back, resume it with:",
        "  notty-client h:1 --name ann --resume",
    ]
    assert session.table is None and store.get("h:1", "ann") == StoredSeat(TOKEN, 3)
    seated(session, notty_view(), table=4)  # a table left as usual afterwards is forgotten as usual
    assert shown(session, Left(4)) == ["you left table 4"] and store.get("h:1", "ann") is None
    session.receive(Seated(5, 0, TOKEN))  # a game stopped before it began was never recorded:
    shown(session, Error("not-recorded", "the server could not record the start of the game at table 5"))
    assert shown(session, Left(5)) == ["you left table 5"] and store.get("h:1", "ann") is None


def test_a_seat_offered_back_whose_game_the_server_stopped_is_kept_for_when_it_is_back(
    tmp_path: Path,
) -> None:
    """An adversarial test: a client back before the server's restart was told its seat was gone,
    and forgot its token; the restart then brought the game back with nobody to resume the seat."""
    store = SeatStore(tmp_path / "seats.json")
    store.put("h:1", "ann", StoredSeat(TOKEN, 3))
    for interactive in (True, False):
        session = Session("ann", seats=store, server="h:1", interactive=interactive)
        session.token, session.table, session.kept_as = TOKEN, 3, "ann"  # as the client resumes it
        assert session.hello().token == TOKEN
        session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
        out = session.receive(Error("game-stopped", "the game at table 3 was stopped, ..."))
        assert list(out.lines) == [
            "the server stopped your game at table 3, since it could not record it; once the server is"
            " back, resume it with:",
            "  notty-client h:1 --name ann" + ("" if interactive else " --resume"),
        ]
        assert out.send == ((ListTables(),) if interactive else ())  # a person sees what could be joined
        assert store.get("h:1", "ann") == StoredSeat(TOKEN, 3)  # kept
        assert session.table is None and session.token is None and not session.seat_unanswered
        assert session.seat_stopped is not None  # what a script asked to resume it is told


def test_a_seat_taken_back_whose_game_stops_before_its_first_view_is_kept(tmp_path: Path) -> None:
    """A client run again took its seat back (--resume) in the round whose record the store could not
    write: the server held back the table's view, and stopped the game, which its next start restores
    for the token. The client took the game for one it never saw begin, and forgot the token."""
    store = SeatStore(tmp_path / "seats.json")
    store.put("h:1", "ann", StoredSeat(TOKEN, 3))
    session = Session("ann", seats=store, server="h:1")
    session.token, session.table, session.kept_as = TOKEN, 3, "ann"  # as the client resumes it
    session.hello()
    session.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    session.receive(Seated(3, 0, TOKEN))
    shown(session, Error("not-recorded", "the server could not record the last change at table 3"))
    assert shown(session, Left(3)) == [
        "table 3 stopped; once the server is back, resume it with:",
        "  notty-client h:1 --name ann --resume",
    ]
    assert session.table is None and store.get("h:1", "ann") == StoredSeat(TOKEN, 3)


def test_a_seat_at_a_table_not_yet_playing_is_not_kept_on_quitting(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    session = welcomed(seats=store, server="h:1")
    session.receive(Seated(3, 0, TOKEN))
    assert session.leaving() == [] and store.get("h:1", "ann") is None


def test_a_seat_from_disk_the_server_has_not_given_back_yet_is_kept_on_quitting(tmp_path: Path) -> None:
    """Quitting before the server seated us again (it was stopping, or we pressed Ctrl-C at once)
    used to forget the seat on disk, so the next run could not take it back."""
    store = SeatStore(tmp_path / "seats.json")
    store.put("h:1", "ann", StoredSeat(TOKEN, 3))
    session = welcomed(seats=store, server="h:1")
    session.token, session.table = TOKEN, 3  # as the client resumes a seat kept on disk
    assert session.leaving() == [] and store.get("h:1", "ann") == StoredSeat(TOKEN, 3)


def test_a_lost_seat_sends_a_person_back_to_the_tables() -> None:
    person = welcomed(interactive=True)
    person.table = 7
    out = person.receive(Error("bad-token", "no such seat"))
    assert out.lines[0].startswith("your seat at table 7 is gone") and out.send == (ListTables(),)
    assert person.table is None
    assert welcomed().receive(Error("bad-token", "no such seat")).send == ()  # a script gets no list


def test_a_seat_from_disk_that_is_gone_lists_the_tables_once() -> None:
    """The bad-token asked for the list, and so did the arrival that followed the welcome (the seat
    already dropped): "no tables now" was said twice."""
    person = Session("ann", interactive=True)
    person.token, person.table = TOKEN, 2  # as the client resumes a seat kept on disk
    assert person.hello().token == TOKEN
    person.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    assert person.receive(Error("bad-token", "no such seat")).send == (ListTables(),)
    assert person.arrival(built_in=False).messages == ()  # the list is asked for once
    person.hello()  # a later connection, with no seat to offer: the arrival asks
    assert person.arrival(built_in=False).messages == (ListTables(),)
    seated = Session("ann", interactive=True)
    seated.token, seated.table = TOKEN, 2
    seated.hello()
    seated.receive(Welcome(PROTOCOL_VERSION, "test", (NOTTY,), limits=LIMITS))
    assert seated.arrival(built_in=False).messages == ()  # the seat comes back: no list


# -- a game with no UI of its own -------------------------------------------------------------


def parlour_view(**changes: Any) -> dict[str, Any]:
    view = {
        "game": "parlour", "variant": "grand", "names": ["ann", "bob", "cy"], "seat": 0, "current": 0,
        "turn": 4, "legal": ["play 3", "play 7", "pass"], "result": None, "body": {"whatever": [1, 2]},
    }  # fmt: skip
    return view | changes


def test_a_game_with_no_ui_is_shown_and_played_generically() -> None:
    session = welcomed(NOTTY, PARLOUR)
    session.receive(Seated(5, 0, TOKEN))
    events = ({"kind": "played", "text": "cy plays 5", "data": {"card": 5}},)
    lines = shown(session, State(5, parlour_view(), events))
    assert lines == [
        "  cy plays 5",
        "table 5 · parlour · grand · turn 4",
        " > ann (you)",
        "   bob",
        "   cy",
        "your turn: play 3, play 7, pass",
    ]
    assert session.my_turn()
    reply = session.typed("play 7")
    assert reply.messages == (Act("play 7"),) and reply.action
    assert session.typed("tables").messages == (ListTables(),)  # the client's own commands stay its own
    assert session.completions("", "p") == ["pass", "play"]
    assert session.completions("play ", "") == ["3", "7"]
    hint = shown(session, Hint("play the 7", ("play 7",), {}))
    assert hint == ["hint: play the 7", "      type: play 7"]
    result = {"ranking": [[2], [0, 1]], "reason": "out", "text": "cy wins"}
    assert shown(session, State(5, parlour_view(result=result, legal=[]), ()))[-2:] == [
        "game over: cy wins; 'leave' returns to the lobby",
        "you lost after 4 turns",
    ]


def test_line_mode_shows_a_bots_moves_within_its_turn_as_lines_and_the_table_as_turns_begin() -> None:
    """A huxxy bot's six plays printed the whole table six times, seconds apart, for every bot."""
    session = welcomed(NOTTY, PARLOUR)
    session.receive(Seated(5, 0, TOKEN))
    bot_turn = parlour_view(current=2, legal=[], bots=[2])
    played = ({"kind": "played", "text": "cy plays 5", "data": {}},)
    assert (
        shown(session, State(5, bot_turn, ()))[0] == "table 5 · parlour · grand · turn 4"
    )  # the turn begins
    reply = session.receive(State(5, bot_turn, played))
    assert reply.lines == ("  cy plays 5",)  # a move within the bot's turn: its line alone
    assert reply.log == ("  cy plays 5",) and reply.table is not None  # the full screen keeps its pane
    ended = ({"kind": "ended", "text": "cy ends the turn", "data": {}},)
    lines = shown(session, State(5, parlour_view(turn=5), ended))  # our turn: the table again
    assert lines[:2] == ["  cy ends the turn", "table 5 · parlour · grand · turn 5"]
    assert lines[-1] == "your turn: play 3, play 7, pass"
    # a person's moves each show the table, since the others follow that turn as it is played
    person = parlour_view(turn=6, current=1, legal=[])
    shown(session, State(5, person, ()))
    assert shown(session, State(5, person, played))[1] == "table 5 · parlour · grand · turn 6"
    # back after a drop, mid-way through a bot's turn: the table, not the move repeated alone
    shown(session, State(5, bot_turn | {"turn": 6}, ()))
    session.receive(Seated(5, 0, TOKEN))
    assert shown(session, State(5, bot_turn | {"turn": 6}, played))[1] == "table 5 · parlour · grand · turn 6"
    # and a bot's move ending the game shows how it ended
    result = {"ranking": [[2], [0, 1]], "reason": "out", "text": "cy wins"}
    shown(session, State(5, bot_turn | {"turn": 7}, ()))
    over = shown(session, State(5, bot_turn | {"turn": 7, "result": result}, played))
    assert "game over: cy wins; 'leave' returns to the lobby" in over


def test_a_turn_the_server_plays_for_us_shows_as_lines_and_the_turn_time_is_told_once() -> None:
    """With 'auto', autopilot or a time run out, our own turn printed the table after every move,
    under 'your turn: ...'; and nothing at the table said it had a turn time."""
    session = welcomed(NOTTY, PARLOUR)
    session.receive(Seated(5, 0, TOKEN))
    ours = parlour_view(turn_seconds=30)
    first = shown(session, State(5, ours, ()))
    assert first[-1] == "each turn here has 30 s: past it, a bot plays the rest of it"
    played = ({"kind": "played", "text": "ann plays 5", "data": {}},)
    served = parlour_view(turn_seconds=30, legal=[], bot_turn=True)  # the server plays our turn
    assert shown(session, State(5, served, played)) == ["  ann plays 5"]  # told once a table
    reply = session.receive(State(5, parlour_view(turn=5, current=1, legal=[], turn_seconds=30), ()))
    assert not any("30 s" in line for line in reply.lines)
    # A server that does not say whose turn a bot plays: the seats it names as bots' are taken
    older = welcomed(NOTTY, PARLOUR)
    older.receive(Seated(5, 0, TOKEN))
    shown(older, State(5, parlour_view(current=1, legal=[], bots=[1]), ()))
    assert shown(older, State(5, parlour_view(current=1, legal=[], bots=[1]), played)) == ["  ann plays 5"]


def test_back_at_our_seat_mid_turn_we_are_told_how_long_the_turn_has_left() -> None:
    """A play-test came back with 5 s of its turn left, told nothing, and was timed out."""
    session = welcomed(NOTTY, PARLOUR)
    session.receive(Seated(5, 0, TOKEN))
    fresh = shown(session, State(5, parlour_view(turn_seconds=30, turn_left=30), ()))
    assert not any("left" in line for line in fresh)  # a whole turn: the status line says 30 s a turn
    later = shown(session, State(5, parlour_view(turn_seconds=30, turn_left=21), ()))
    assert not any("s left" in line for line in later)  # our own moves go on within it: no news
    session.receive(Seated(5, 0, TOKEN))  # back after a drop, the turn half gone
    back = shown(session, State(5, parlour_view(turn_seconds=30, turn_left=5), ()))
    assert back[-1] == "your turn has 5 s left: past it, a bot plays the rest of it"
    session.receive(Seated(5, 0, TOKEN))
    theirs = shown(session, State(5, parlour_view(turn_seconds=30, turn_left=5, current=1, legal=[]), ()))
    assert not any("s left" in line for line in theirs)  # another's turn: theirs to watch


def test_the_time_left_of_a_timed_turn_counts_from_the_view_that_told_it() -> None:
    now = [100.0]
    session = welcomed(NOTTY, PARLOUR)
    session.clock = lambda: now[0]
    session.receive(Seated(5, 0, TOKEN))
    assert session.turn_time_left() is None  # nothing told yet
    session.receive(State(5, parlour_view(turn_seconds=30, turn_left=12), ()))
    now[0] += 3.2
    assert session.turn_time_left() == 9  # 8.8 s, rounded up as the server rounds
    now[0] += 60
    assert session.turn_time_left() == 0
    session.receive(State(5, parlour_view(turn_seconds=30, bot_turn=True, legal=[]), ()))  # a bot's turn
    assert session.turn_time_left() is None
    session.receive(State(5, parlour_view(turn_seconds=30, turn_left=4, current=1, legal=[]), ()))
    assert session.turn_time_left() == 4  # bob's turn, counted down for us too
    session.receive(Notice(5, 1, "bob", "timed-out", "bob's turn ran out of time (30 s)"))
    assert session.turn_time_left() is None  # a bot plays it: it stood at 0 until the bot's first move


def test_a_scripts_hint_waits_for_its_turn_and_a_persons_is_asked_at_once() -> None:
    """Advice for one's own turn, which some games give only then: a script holds it back until its
    turn (a hint asked at once would come back 'it is not your turn' and be lost); a person who asks
    off turn is answered at once."""
    script, person = welcomed(NOTTY, PARLOUR), welcomed(NOTTY, PARLOUR, interactive=True)
    for session in (script, person):
        session.receive(Seated(5, 0, TOKEN))
        session.receive(State(5, parlour_view(current=1, legal=[]), ()))
    assert script.waits_for_turn(AskHint()) and not person.waits_for_turn(AskHint())
    assert not script.waits_for_turn(Leave())  # only a hint
    script.receive(State(5, parlour_view(), ()))  # our turn
    assert not script.waits_for_turn(AskHint())
    lobby = welcomed(NOTTY)
    assert not lobby.waits_for_turn(AskHint())  # no seat: nothing to wait for


def test_away_from_a_game_its_commands_are_the_games_with_a_ui() -> None:
    session = welcomed(NOTTY, PARLOUR)
    assert session.typed("draw 1").messages == (Act("draw 1"),)  # Notty's, refused later as not seated
    assert session.typed("wave").say.startswith("unknown command 'wave'")  # parlour's are not guessed


def test_a_variant_named_after_its_game_is_said_alone() -> None:
    from games._ui import game_and_variant

    assert game_and_variant("huxxy", "huxxy-jokers", "huxxy") == "huxxy-jokers"
    assert game_and_variant("huxxy", "huxxy") == "huxxy"
    assert game_and_variant("notty", "classic", "Notty") == "Notty classic"
    assert game_and_variant("ochos-locos", "part4", "Ochos Locos") == "Ochos Locos part4"


# -- the end of a game, and a resignation, in words that read right -----------------------------


#: Result texts as the games and the server write them (games/*/game.py, server/resign.py).
WON, RESIGNED_WON = "ann wins", "bob resigned: ann wins"
LAST = "ann wins (bob resigned, so ranked last)"  # a bot played bob's seat on (server/resign.py)
HOW, WHY = "ann wins by discarding their last cards", "ann wins: their last card was stolen"
POINTS = "the stock is used up; points left: ann 3, bob 9, cy 3"
LIMIT = "the game ended at its turn limit (300 turns) with no winner"
QUIET = "the game is drawn: no hand changed for 4 whole rounds"
STALEMATE = "stalemate: a whole round with no card played or drawn"


@pytest.mark.parametrize(
    ("seat", "ranking", "text", "says"),
    [
        # Your place, the turns: the result itself is the game-over line's, just above, not said again.
        (0, [[0], [1]], WON, "you won after 12 turns"),
        (0, [[0], [1]], RESIGNED_WON, "you won after 12 turns"),
        (0, [[0], [1]], HOW, "you won after 12 turns"),
        (0, [[0], [1]], WHY, "you won after 12 turns"),
        (0, [[0], [2], [1]], LAST, "you won after 12 turns"),
        (1, [[0], [1]], WON, "you lost after 12 turns"),
        (1, [[0], [1]], RESIGNED_WON, "you lost after 12 turns"),
        # A first place shared, above someone: no draw.
        (0, [[0, 2], [1]], POINTS, "you shared first place after 12 turns"),
        (1, [[0, 2], [1]], POINTS, "you lost after 12 turns"),
        # More places than a winner and the rest (huxxy): the place, not "you lost" for second of four.
        (1, [[0], [1], [3], [2]], POINTS, "you came second of 4 after 12 turns"),
        (2, [[0], [1], [3], [2]], POINTS, "you came fourth of 4 after 12 turns"),
        (1, [[0], [1, 3], [2]], POINTS, "you shared second place after 12 turns"),
        (0, [[0], [1, 3], [2]], POINTS, "you won after 12 turns"),
        (2, [[0], [1, 3], [2]], POINTS, "you came fourth of 4 after 12 turns"),  # 1, 2, 2, 4: not third
        (3, [[0, 1], [3], [2]], POINTS, "you came third of 4 after 12 turns"),
        # Every seat ranked alike, or a spectator: the game ended ('no winner', 'drawn': the line above).
        (0, [[0, 1]], LIMIT, "the game ended after 12 turns"),
        (1, [[0, 1]], QUIET, "the game ended after 12 turns"),
        (None, [[0, 1]], STALEMATE, "the game ended after 12 turns"),
        (None, [[0], [1]], WON, "the game ended after 12 turns"),
    ],
)
def test_the_end_summary_says_a_win_a_loss_a_shared_first_place_not_the_result_again(
    seat: int | None, ranking: list[list[int]], text: str, says: str
) -> None:
    result = {"ranking": ranking, "reason": "any", "text": text}
    names = ["ann", "bob", "cy", "dee"][: max(seat for place in ranking for seat in place) + 1]
    assert end_summary(notty_view(result=result, legal=[], seat=seat, names=names)) == [says]


def test_a_turn_out_of_time_is_news_not_a_refusal_and_the_list_says_a_tables_turn_time() -> None:
    """'refused: your time is up ... [turn-time]', though nothing was sent; and no list said that a
    table had a turn time at all (a play-test)."""
    session = welcomed()
    said = shown(session, Error("turn-time", "your time is up: the server plays the rest of this turn"))
    assert said == ["your time is up: the server plays the rest of this turn"]
    session.sending(ListTables())
    (line,) = shown(session, Tables([table_info(3, ["bob", None]) | {"turn_seconds": 30}]))
    assert line.startswith("table 3: classic, 30 s a turn, waiting, seats: bob")


def test_a_player_given_another_name_at_a_table_is_told_it_once() -> None:
    """The server seats a second 'ann' as 'ann-2': the others steal from 'ann-2', and the full
    screen's status line said 'ann'."""
    session = welcomed()
    view = notty_view(names=["ann", "ann-2"], seat=1, current=0)
    told = "you play as 'ann-2' at this table: the others know your seat by that name"
    assert told in seated(session, view)
    assert session.known_as() == "ann-2"
    assert told not in shown(session, State(3, view, ()))  # once
    mine = welcomed()
    assert not any("you play as" in line for line in seated(mine, notty_view(names=["ann", "bob"], seat=0)))
    assert mine.known_as() == "ann"
    waiting = welcomed()  # told as we sit at a table not yet begun, from its news, not at its start
    waiting.receive(Seated(5, 1, TOKEN))
    news = shown(waiting, Tables([table_info(5, ["Ann", "ann-2", None])]))
    assert "you play as 'ann-2' at this table: the others know your seat by that name" in news
    assert waiting.known_as() == "ann-2"
    resumed = welcomed()  # 'ann' today, back at a seat taken as 'Annie'
    assert "you play as 'Annie' at this table: the others know your seat by that name" in seated(
        resumed, notty_view(names=["Annie", "bob"], seat=0)
    )


def test_a_player_who_resigned_is_told_of_the_bot_in_their_seat_in_their_own_words() -> None:
    """The stand-in notice the server sends after a resignation in a game that goes on said "a bot
    plays for ann", to ann."""
    session = welcomed()
    three = notty_view(names=["ann", "bob", "cy"], current=1, body={"hands": [["R1"], ["Y5"], ["B2"]]})
    seated(session, three)
    replies = session.replies
    resigned = Notice(3, 0, "ann", "resigned", "ann resigned: a bot plays their seat to the end, and ...")
    assert shown(session, resigned) == [
        "you resigned: you are ranked last in this game ('leave' returns to the lobby)"
    ]
    assert session.replies == replies + 1  # the answer to 'resign'
    own = ["a bot plays your seat to the end of the game"]
    assert shown(session, Notice(3, 0, "ann", "stand-in", "a bot plays for ann")) == own
    assert session.replies == replies + 1  # news, not an answer: a script's next line waits for its own
    assert shown(session, Notice(3, 1, "bob", "stand-in", "a bot plays for bob")) == ["a bot plays for bob"]
    assert (
        session.no_turn_to_come()
        == "you resigned: a bot plays your seat to the end ('leave' returns to the lobby)"
    )
    for again in ("resign", "resign yes"):  # asked to confirm again, as if it were still to do
        reply = session.typed(again)
        assert reply.refused and reply.messages == () and reply.say.startswith("already done: you resigned")
    over = {"ranking": [[1], [2], [0]], "reason": "discard", "text": "bob wins"}
    hands = {"hands": [["R1"], [], ["B2"]]}
    session.receive(State(3, notty_view(names=["ann", "bob", "cy"], result=over, body=hands), ()))
    assert session.typed("resign").say == "the game is over: 'leave' returns to the lobby"  # no bot plays on


def test_the_end_does_not_repeat_a_winners_line_that_the_result_says_was_ranked_last() -> None:
    """A bot went out for ann, who had resigned: the result now says who is first instead ("ann wins;
    but bob and cy share first place (...)"), and the event's "ann wins" was printed above it again."""
    session = welcomed(NOTTY, PARLOUR)
    session.receive(Seated(5, 1, TOKEN))
    shown(session, State(5, parlour_view(seat=1, current=0, legal=[]), ()))
    text = "ann wins; but bob and cy share first place (ann resigned, so ranked last)"
    result = {"ranking": [[1, 2], [0]], "reason": "out", "text": text}
    won = ({"kind": "played", "text": "ann wins", "data": {}},)
    lines = shown(session, State(5, parlour_view(seat=1, current=0, legal=[], result=result), won))
    assert "  ann wins" not in lines and any(text in line for line in lines)


def test_a_goodbye_that_repeats_the_refusal_before_it_is_not_shown_again() -> None:
    """Turned away at a cap, a client printed the refusal, then 'server says goodbye:' with the same
    words, then the same again as its last words."""
    session = welcomed(NOTTY)
    why = "200 connections from 127.0.0.1 are open, the most one address may have: close one first"
    assert shown(session, Error("too-many-connections", why)) == [f"refused: {why} [too-many-connections]"]
    assert shown(session, Goodbye(why)) == [] and session.goodbye == why
    other = welcomed(NOTTY)
    assert shown(other, Goodbye("bye")) == ["server says goodbye: bye"]


def test_the_goodbye_that_answers_our_bye_is_not_shown() -> None:
    """A script at the end of its input said bye, and printed 'server says goodbye: bye' on its
    stdout whenever the answer arrived before it closed."""
    session = welcomed(NOTTY)
    assert session.bye() == Bye()
    assert shown(session, Goodbye("bye")) == [] and session.goodbye == "bye"
    stopping = welcomed(NOTTY)  # a goodbye for another reason, crossing our bye, is still news
    stopping.bye()
    why = "the server is stopping"
    assert shown(stopping, Goodbye(why)) == [f"server says goodbye: {why}"]


async def test_the_count_down_goes_on_when_a_timed_turn_begins_with_nothing_typed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The full screen's countdown was scheduled only as its key loop began to wait: a turn that began
    later (after a bot's move) stood still until a key was pressed."""
    from client.screen import Screen

    class Drawn:  # what the countdown task uses of a screen: its session, and drawing
        _next_tick = Screen._next_tick
        _count_down = Screen._count_down

        def __init__(self, session: Session) -> None:
            self.session, self.draws = session, 0

        def draw(self) -> None:
            self.draws += 1

    session = welcomed(NOTTY, PARLOUR)
    session.clock = trio.current_time
    session.receive(Seated(5, 0, TOKEN))
    screen = Drawn(session)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(screen._count_down)  # type: ignore[arg-type]
        await trio.sleep(1)  # no timed turn: nothing to count
        assert screen.draws == 0
        session.receive(State(5, parlour_view(turn_seconds=30, turn_left=30), ()))
        await trio.sleep(3.5)
        assert screen.draws >= 3  # noticed, then a second at a time: 30, 29, 28, 27
        nursery.cancel_scope.cancel()


def test_a_view_that_changes_nothing_shown_is_not_printed_again() -> None:
    """A play-test back at its seat read the same table twice, around 'you are back: ...': a view
    with no news and the table as printed last is not printed again (the full screen's pane takes it)."""
    moved = ({"kind": "played", "text": "bob draws a card", "data": {}},)
    ann = welcomed(NOTTY)
    ann.receive(Seated(3, 0, TOKEN))
    assert shown(ann, State(3, notty_view(), moved))  # news and the table
    again = ann.receive(State(3, notty_view(), ()))
    assert again.lines == () and again.table is not None
    assert shown(ann, State(3, notty_view(current=0), ()))  # the table changed: printed
    assert "table 3 · classic" in (ann.typed("table").say or "")  # asked for: shown again, always


def test_a_game_we_sit_at_says_it_begins() -> None:
    """A play-test's creator, whose table filled as a friend joined, read only 'bob joined the table'
    and 'you play first', and typed 'start' into a game already begun."""
    opening = ({"kind": "began", "text": "you play first", "data": {}},)
    ann = welcomed(NOTTY)
    ann.receive(Seated(3, 0, TOKEN))
    output = ann.receive(State(3, notty_view(turn=1, current=0), opening))
    assert output.lines[0].split("\n")[:2] == ["the game begins:", "  you play first"]
    # In the full screen's log as in plain mode: set in 2 columns, as every move (a play-tester read 4).
    assert output.log_lines[:3] == ("the game begins:", "  you play first", "")
    assert "the game begins:" not in shown(ann, State(3, notty_view(turn=1, current=1), opening))  # news
    eve = welcomed(NOTTY)  # a watcher arriving is shown the game as it stands
    eve.receive(Watching(3))
    assert "the game begins:" not in shown(eve, State(3, notty_view(seat=None, turn=1), opening))


def test_the_last_move_shown_again_on_taking_a_seat_back_is_said_to_be_the_last() -> None:
    """Back after a drop, a play-tester read 'you move 8S from group 2 to group 3', the move they had
    made before it, with nothing to say it was not a new one."""
    moved = ({"kind": "played", "text": "bob draws a card", "data": {}},)
    back = welcomed(NOTTY)
    back.token, back.table, back.kept_as = TOKEN, 3, "ann"  # as the client resumes what it kept
    back.receive(Seated(3, 0, TOKEN))
    output = back.receive(State(3, notty_view(), moved))
    lines = [line for text in output.lines for line in text.split("\n")]
    assert lines[0] == LAST_MOVE and "bob draws a card" in lines[1]
    # A play-test: in the full screen's log the moves that followed at once read as the heading's
    # too. Its own end with an empty line, set in as every move is (a play-tester read 4 columns).
    assert output.log_lines[:3] == (LAST_MOVE, "  bob draws a card", "")
    after = back.receive(State(3, notty_view(turn=13), moved))
    assert LAST_MOVE not in after.lines and after.log_lines[0] == "  bob draws a card"  # news
    new = welcomed(NOTTY)  # a seat just taken: its first moves are news too
    new.receive(Seated(3, 0, TOKEN))
    assert LAST_MOVE not in shown(new, State(3, notty_view(), moved))


def test_tab_offers_no_table_of_a_list_from_before_a_reconnection() -> None:
    """Tab completed table numbers from the last list even after a restart had closed those tables."""
    session = welcomed()
    session.sending(ListTables())
    session.receive(Tables((table_info(7, ["bob", None]),)))
    assert session.tables_seen == [7] and "7" in session.completions("join ", "")
    session.hello()
    assert session.tables_seen == [] and session.completions("join ", "") == []


def test_a_move_typed_while_a_bot_plays_our_turn_is_refused_saying_so() -> None:
    """A play-tester's time ran out mid-turn; 'putback Y1', typed after the bot had put Y1 back,
    was refused "you do not hold Y1": checked against the hand the bot was playing."""
    session = welcomed(interactive=True)
    seated(session, notty_view(current=0, bot_turn=True))
    reply = session.typed("discard R1 R2 R3")
    assert reply.refused and reply.say == BOT_PLAYS_IT and not reply.messages
    for line in ("auto off", "auto on", "resign yes", "hint"):  # what is not a move goes as ever
        assert not session.typed(line).refused, line
    seated(session, notty_view(current=1))  # bob's turn: said before the cards are looked at
    assert session.typed("discard R1 R2 R3").say == "it is bob's turn, not yours"
    script = welcomed()  # a script's move waits for a turn of ours: it is not refused
    seated(script, notty_view(current=0, bot_turn=True))
    assert not script.typed("end").refused
    seated(session, notty_view(current=0))  # our turn again, ours to play: checked as ever
    assert session.typed("discard R1 R2 R3").say != BOT_PLAYS_IT
    session.resigned = True  # a bot plays every turn of ours to the end: that is what is said
    for line in ("discard R1 R2 R3", "auto", "end"):
        assert session.typed(line) == Reply(say=RESIGNED, refused=True), line


def test_a_seat_is_marked_as_played_here_while_seated_and_not_after_its_game(tmp_path: Path) -> None:
    """The lock a seated client holds (client.tokens.SeatLocks): taken once seated, before any view;
    let go at the game's end, and not taken again by the next message (a file left per game)."""
    store = SeatStore(tmp_path / "seats.json")
    session = welcomed(interactive=True, seats=store, server="h:1")
    in_use = tmp_path / "in-use"
    session.receive(Seated(3, 0, TOKEN))
    assert store.locks.holder("h:1", TOKEN) is None and len(list(in_use.iterdir())) == 1  # ours
    over = {"ranking": [[0], [1]], "reason": "went-out", "text": "ann wins"}
    seated(session, notty_view(result=over))
    session.receive(Pong(1))
    assert list(in_use.iterdir()) == []


def test_a_move_typed_while_the_connection_is_down_is_not_judged_on_the_turn_last_seen() -> None:
    session = welcomed(interactive=True)
    seated(session, notty_view(current=1))
    session.connection_down = True  # the turn may have come round meanwhile: the client says why not sent
    assert session.typed("end").messages == (Act("end"),)


def test_tab_in_the_lobby_offers_no_game_command() -> None:
    """A play-tester's 'dr' Tab in the lobby completed to 'draw', refused with "you are not at a
    table": only what may be accepted there is offered."""
    session = welcomed()
    assert session.completions("", "dr") == [] and session.completions("", "st") == []
    offered = session.completions("", "")
    assert "new" in offered and "tables" in offered and "draw" not in offered and "steal" not in offered
    assert not {"start", "hint", "auto", "resign", "leave"} & set(offered)  # each needs a table


def test_with_no_address_new_says_how_to_leave_the_clients_own_game_for_another() -> None:
    """A play-tester with no address typed the README's 'new ochos-locos' and was told only to
    leave table 1 first: the game is the client's own, begun for them, and says so."""
    session = welcomed(built_in=True)
    arrival = session.arrival(True)
    assert arrival.messages and "this client's own server" in arrival.say
    session.sending(arrival.messages[0])
    session.receive(Seated(1, 0, TOKEN))
    session.receive(State(1, notty_view(), []))
    said = session.typed("new classic greedy")
    why = session.why_not(said.messages[0], ConnectionState.SEATED)  # the protocol will not send it
    assert why == "you are at table 1, this client's own game: 'leave' ends it, then that 'new' starts one"


def test_a_watcher_leaving_a_game_of_bots_alone_is_warned_first() -> None:
    """A play-tester, the only watcher of a game of bots, typed 'leave' to watch another table: the
    game ended unfinished, with no word of it (a person who leaves such a game is warned)."""
    session = welcomed(interactive=True)  # a script means what it types: nothing to confirm
    session.sending(Watch(5))
    session.receive(Watching(5))
    session.receive(State(5, notty_view(seat=None, bots=[0, 1], body={"hand": None}), []))
    first = session.typed("leave")
    assert first.messages == () and first.say.startswith("bots play every seat here")
    assert session.typed("leave").messages == (Leave(),)
    session.receive(Left(5))
    session.sending(Watch(6))
    session.receive(Watching(6))
    session.receive(State(6, notty_view(seat=None, bots=[1]), []))  # a person plays: nothing to warn of
    assert session.typed("leave").messages == (Leave(),)
    session.receive(Left(6))
    # A play-test: a bot stood in for ann, away past the grace, and the watcher was warned the game
    # would end as it left; it waits for her, her seat still hers.
    session.sending(Watch(7))
    session.receive(Watching(7))
    session.receive(State(7, notty_view(seat=None, bots=[0, 1], kept=[0], body={"hand": None}), []))
    assert session.typed("leave").messages == (Leave(),)
    assert session.typed("watch 8").messages == (Leave(), Watch(8))  # leaves by itself, as from any game


@pytest.mark.parametrize("game", ["huxxy", "ochos-locos"])
def test_a_watcher_asking_a_hint_where_hands_are_hidden_is_told_why_not(game: str) -> None:
    """A play-test watching huxxy typed 'hint' and was told only that it watched (at Ochos Locos,
    played by bots alone, to 'leave', then 'join'): a seat there would not answer for another's hand."""
    from test_huxxy_ui import huxxy_view
    from test_ochos_ui import ochos_view

    session = welcomed(describe(GAMES[game]), interactive=True)
    session.sending(Watch(5))
    session.receive(Watching(5))
    view = huxxy_view(seat=None, body={"hand": None}) if game == "huxxy" else ochos_view(seat=None)
    session.receive(State(5, view, ()))
    reply = session.typed("hint")
    title = GAMES[game].title
    assert reply.refused and reply.messages == ()
    assert reply.say == f"{title} keeps each hand hidden: only a player has hints, for their own hand"


# -- a move that hands another player the game is asked about first ------------------------------


def test_stealing_a_last_card_is_asked_about_first_and_the_same_command_sends_it() -> None:
    """A play-test stole an opponent's one card, as the hint's outs named it, and lost at once."""
    session = welcomed(interactive=True)
    legal = ["steal 1", "draw 1", "draw 2", "draw 3", "end"]
    seated(session, notty_view(current=0, legal=legal, body={"drew": False}))  # bob holds one card: Y5
    first = session.typed("steal bob")
    assert first.messages == () and not first.refused
    warning = "bob holds one card: stealing it makes bob the winner; type it again to steal it anyway"
    assert first.say == warning
    assert session.typed("steal 2").messages == (Act("steal 1"),)  # the same theft, however named
    # Asked again, another command between: the question stands no longer.
    assert session.typed("steal bob").messages == ()
    session.typed("end")
    assert session.typed("steal bob").messages == ()


def test_a_theft_from_a_bigger_hand_and_a_scripts_theft_are_sent_at_once() -> None:
    session = welcomed(interactive=True)
    legal = ["steal 1", "end"]
    seated(session, notty_view(current=0, legal=legal, body={"drew": False, "hands": [["R1"], ["Y5", "Y6"]]}))
    assert session.typed("steal bob").messages == (Act("steal 1"),)
    script = welcomed()  # a script's lines mean what they say
    seated(script, notty_view(current=0, legal=legal, body={"drew": False}))
    assert script.typed("steal bob").messages == (Act("steal 1"),)
    # Where the rules forbid the theft of a last card, the server's refusal says why: not "bob wins".
    seated(session, notty_view(current=0, legal=["end"], body={"drew": False}))
    assert session.typed("steal bob").messages == (Act("steal 1"),)


@pytest.mark.parametrize(
    ("line", "changes"),
    [("hint", False), ("  HINT ", False), ("?", False), ("help steal", False), ("rules huxxy", False),
     ("table", False), ("tables", False), ("steal 2", True), ("hints", True), ("", True), ("auto on", True)],
)  # fmt: skip
def test_what_a_refused_line_cannot_stop_is_what_changes_nothing(line: str, changes: bool) -> None:
    """A line typed after a refused one is dropped unless it changes nothing: a move, or 'auto',
    must never slip through, nor a word that merely starts like a command."""
    assert changes_nothing(line) is not changes


#: The actions open at the start of a Notty turn, a theft of bob's one card among them.
TURN_START = ["steal 1", "draw 1", "draw 2", "draw 3", "end"]


def test_a_thefts_caution_holds_at_the_turn_it_was_asked_at_only() -> None:
    """Asked at turn 12, with nothing typed after: the turn ran out (a bot played it), and at turn 14
    bob held one card again. 'steal bob' must ask again, not send a theft that makes bob the winner."""
    session = welcomed(interactive=True)
    seated(session, notty_view(current=0, turn=12, legal=TURN_START, body={"drew": False}))
    asked = session.typed("steal bob")
    assert asked.messages == () and "makes bob the winner" in asked.say
    hands = [["R1", "R2", "G7"], ["Y5", "Y6"]]
    shown(session, State(3, notty_view(current=1, turn=13, legal=[], body={"hands": hands}), ()))
    hands = [["R1", "R2", "G7"], ["Y9"]]
    shown(
        session,
        State(3, notty_view(current=0, turn=14, legal=TURN_START, body={"drew": False, "hands": hands}), ()),
    )
    again = session.typed("steal bob")
    assert again.messages == () and "makes bob the winner" in again.say
    assert session.typed("steal bob").messages == (Act("steal 1"),)  # the next line, the same turn: sent


@pytest.mark.parametrize("between", ["hint", "join", "resign"])
def test_a_line_refused_between_a_caution_and_its_command_again_ends_the_caution(between: str) -> None:
    """A confirmation holds for the very next command, whatever answers it: here a second hint
    refused as on its way, a 'join' with no table to name, a 'resign' asked to be confirmed."""
    session = welcomed(interactive=True)
    seated(session, notty_view(current=0, legal=TURN_START, body={"drew": False}))
    if between == "hint":
        assert session.typed("hint").messages == (AskHint(),)
        session.sending(AskHint())
    assert session.typed("steal bob").messages == ()
    assert session.typed(between).messages == ()
    assert session.typed("steal bob").messages == ()


def test_autopilot_is_not_said_on_once_we_left_its_seat_or_resigned() -> None:
    """The full screen's status line says 'autopilot on' while this is true: not at a table watched
    after leaving the seat that had it, nor once we resigned (a stand-in plays, 'auto off' is refused)."""
    session = welcomed(interactive=True)
    seated(session, notty_view(current=1))
    session.receive(Notice(3, 0, "ann", "autopilot-on", "ann is on autopilot"))
    assert session.autopilot
    session.receive(Left(3))
    session.receive(Watching(7))
    shown(session, State(7, notty_view(seat=None, names=["cy", "dan"], current=0), ()))
    assert not session.autopilot
    session = welcomed(interactive=True)
    seated(
        session, notty_view(names=["ann", "bob", "cy"], body={"hands": [["R1"], ["Y5"], ["G2"]]}, current=1)
    )
    session.receive(Notice(3, 0, "ann", "autopilot-on", "ann is on autopilot"))
    session.receive(Notice(3, 0, "ann", "resigned", "ann resigned: a bot plays their seat to the end"))
    assert session.resigned and not session.autopilot


def test_tables_seen_in_lists_gone_by_are_remembered_only_so_far() -> None:
    """What each table plays is kept from list to list (for 'join N' of a table the last list did not
    show), but a session of days must not keep every table it ever saw: past TABLES_REMEMBERED the
    oldest no list shows now are forgotten; a table of the list shown never is."""
    session = welcomed(NOTTY, PARLOUR)
    first = TABLES_REMEMBERED + 40
    session.sending(ListTables())
    session.receive(Tables([table_info(1, [None, None])]))
    session.sending(Join(1, None))
    seated(session, notty_view(), table=1)  # at table 1 all along, which no list shows again
    for start in range(2, first, 20):  # lists of 20 tables, each a later 20
        session.sending(ListTables())
        session.receive(
            Tables([table_info(number, [None, None], "parlour") for number in range(start, start + 20)])
        )
    session.sending(ListTables())
    now = [table_info(number, [None, None]) for number in range(first, first + TABLES_REMEMBERED + 5)]
    session.receive(Tables(now))  # more tables listed at once than remembered from before: all kept

    def joining(number: int) -> str | None:
        session.sending(Join(number, None))
        return session._joining

    assert joining(first) == "notty" and joining(first + TABLES_REMEMBERED + 4) == "notty"
    assert joining(first - 1) is None  # gone by, and past the bound: forgotten
    assert joining(2) is None
    assert session._games_of.get(1) == "notty"  # but not the table we are at
