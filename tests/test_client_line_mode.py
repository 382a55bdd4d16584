"""What line mode prints of a game, from what a real host sends (:class:`test_host.Net`) read by the
client's sans-IO session: a seat's own moves in its own words, those a bot made for it marked so, the
end of the last turn before a turn limit's end, and how a game ended said once.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_host import Client, Net

from client.session import AUTOPILOT_ALREADY, OWN_NOTICES, PLAYED_FOR_YOU, TABLE_INTO_LOG, Output, Session
from client.sgr import plain
from protocol import AWAY_MOVES, Act, Autopilot, CreateTable, Join, Resign, Seated, Watch

#: Each game, with a bot of its own to play against.
AGAINST = {"notty": "greedy", "ochos-locos": "rule", "huxxy": "greedy"}


def outputs(client: Client) -> list[Output]:
    """Everything ``client`` was sent, as the client shows it, message by message."""
    session = Session("someone")  # the name it asked for: the server's is in what it was sent
    return [session.receive(message) for message in client.inbox]


def printed(client: Client) -> list[str]:
    """What line mode printed for ``client``, a line each."""
    return [line for output in outputs(client) for text in output.lines for line in text.split("\n")]


@pytest.mark.parametrize("game", list(AGAINST))
def test_your_moves_read_you_and_those_a_bot_made_for_you_say_so(game: str) -> None:
    """Ann on autopilot read her own moves as 'ann plays ...', beside 'you draw ...' (the card drawn,
    which only she sees): in the second person now, marked as played for her; the others go on
    reading her moves as hers."""
    net = Net()
    ann, eve = net.client("ann"), net.client("eve")
    table = ann.send(CreateTable(game, 2, None, (AGAINST[game],), {}, bot_delay_ms=0))[0].table
    eve.send(Watch(table))
    ann.send(Autopilot(True))
    net.run_bots(limit=40)
    mine = [line for line in printed(ann) if line.startswith("  you ") and " first" not in line]
    assert mine, printed(ann)
    assert all(PLAYED_FOR_YOU in line for line in mine), mine
    ended = (ann.view["result"] or {}).get("text")  # how the game ended, if it did: alike to all
    assert not [line for line in printed(ann) if line.startswith("  ann ") and line.strip() != ended]
    theirs = printed(eve)
    assert [line for line in theirs if line.startswith("  ann ")]
    assert not [
        line for line in theirs if line.startswith("  ") and ("you " in line or PLAYED_FOR_YOU in line)
    ]
    # A turn a bot plays for ann says so where the others read whose turn it is.
    assert any(re.match(r"a bot plays your turn\b", line) for line in printed(ann))
    assert not any("ann to play" in line for line in printed(ann))
    # Nor is the turn handed to her "your turn": a bot is to play it.
    assert not [line for line in printed(ann) if line.endswith("; your turn")]
    if game == "notty":  # the game whose turn ends name who plays next
        assert any(line.endswith("; a bot plays your turn") for line in printed(ann)), printed(ann)


def test_your_own_moves_read_you_without_a_mark() -> None:
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(CreateTable("notty", 2, "classic", (), {}, bot_delay_ms=0))[0].table
    bob.send(Join(table))
    first = ann.view["current"]
    (mover, name), (other, other_name) = [(ann, "ann"), (bob, "bob")][:: 1 if first == 0 else -1]
    mover.send(Act("draw 1"))
    mover.send(Act("end"))
    assert re.search(r"^  you draw 1 card: \S+$", "\n".join(printed(mover)), re.M)
    assert f"  you end the turn; {other_name} to play" in printed(mover)
    assert f"  {name} ends the turn; your turn" in printed(other)
    assert re.search(rf"^  {name} draws 1 card: \S+$", "\n".join(printed(other)), re.M)
    assert not any(PLAYED_FOR_YOU in line for line in printed(mover) + printed(other))


@pytest.mark.parametrize(
    ("options", "ending"),
    [
        ({"turn_limit": 2}, "the game ended at its turn limit (2 turns) with no winner"),
        ({"quiet_rounds": 1}, "the game is drawn: no hand changed for 1 whole round (no progress)"),
    ],
)
def test_the_turn_that_reaches_the_limit_ends_before_the_game_does(
    options: dict[str, Any], ending: str
) -> None:
    """The turn limit (or no progress) ends the game as the last turn ends: its end line was lost,
    the ending said in its place, and in line mode said three times (event, game over, summary)."""
    net = Net()
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(CreateTable("notty", 2, "classic", (), options, bot_delay_ms=0))[0].table
    bob.send(Join(table))
    for _ in range(2):
        (ann, bob)[ann.view["current"]].send(Act("end"))
    assert ann.view["result"]["text"] == ending
    last = ann.view["current"]  # whose turn's end ended the game
    for viewer in (ann, bob):
        seat = viewer.view["seat"]
        ended = "  you end the turn" if seat == last else f"  {('ann', 'bob')[last]} ends the turn"
        lines = printed(viewer)
        over = lines.index(f"game over: {ending}; 'leave' returns to the lobby")
        header = max(at for at, line in enumerate(lines[:over]) if line.startswith("table "))
        assert lines[header - 1] == ended, lines
        assert re.fullmatch(r"the game ended after 2 turns, in \d+ s", lines[over + 1]), lines
        assert sum(ending.split(":")[0] in line for line in lines) == 1, lines  # said once
        # The full screen's log keeps the move and the event: the table, with its last line, is apart.
        log = outputs(viewer)[-1].log_lines
        assert log[:2] == (ended, f"  {ending}") and log[2].startswith("the game ended after 2 turns"), log


@pytest.mark.parametrize("game", ["ochos-locos", "huxxy"])
def test_line_mode_says_how_the_game_ended_once(game: str) -> None:
    """'bob wins' three times over: the event, the game-over line and the summary."""
    net = Net()
    ann = net.client("ann")
    ann.send(CreateTable(game, 2, None, (AGAINST[game],), {}, bot_delay_ms=0))
    ann.send(Autopilot(True))
    net.run_bots()
    result = ann.view["result"]
    assert result is not None
    lines = printed(ann)
    (over,) = [index for index, line in enumerate(lines) if line.startswith("game over: ")]
    end = next(index for index in range(over + 1, len(lines)) if not lines[index].startswith("  "))
    said = " ".join(line.strip() for line in lines[over:end])  # a line too long for 80 columns goes on
    assert said == f"game over: {result['text']}; 'leave' returns to the lobby", lines
    assert not [line for line in lines[:over] + lines[end:] if result["text"] in line], lines
    summary = lines[end]
    places = "you won|you lost|you shared first place|the game ended"
    assert re.fullmatch(rf"({places}) after \d+ turns, in \d+ s", summary), summary
    assert f"  {result['text']}" in outputs(ann)[-1].log_lines  # the full screen's log keeps the event


def test_notty_tells_each_seat_its_own_part_in_a_move_as_yours() -> None:
    """The thief, the one robbed, the one to play next: each in their own words; the others, and
    a spectator, alike, in the third person."""
    from games.notty import Card
    from games.notty.engine import Stole, TurnEnded
    from games.notty.wire import event_to_wire, seats_named

    names = ["ann", "bob", "cy"]
    stole, ended = Stole(0, 1, Card.parse("R3")), TurnEnded(0, 1, 5)
    assert [event_to_wire(stole, names, seat=seat)["text"] for seat in (0, 1, 2, None)] == [
        "you steal R3 from bob",
        "ann steals R3 from you",
        "ann steals R3 from bob",
        "ann steals R3 from bob",
    ]
    assert [event_to_wire(ended, names, seat=seat)["text"] for seat in (0, 1, 2)] == [
        "you end the turn; bob to play",
        "ann ends the turn; your turn",
        "ann ends the turn; bob to play",
    ]
    assert seats_named(stole) == seats_named(ended) == {0, 1}


@pytest.mark.parametrize("game", list(AGAINST))
def test_table_shows_the_table_again_as_last_drawn(game: str) -> None:
    """Line mode prints the table at each turn and move, and it scrolls away: 'table' prints it
    again, as the last state drew it, for a seat and for a watcher alike."""
    net = Net()
    ann, eve = net.client("ann"), net.client("eve")
    table = ann.send(CreateTable(game, 2, None, (AGAINST[game],), {}, bot_delay_ms=0))[0].table
    eve.send(Watch(table))
    net.run_bots(limit=3)
    for client in (ann, eve):
        session = Session("someone")
        drawn = [output.table for output in map(session.receive, client.inbox) if output.table is not None]
        assert drawn, client.inbox
        again = session.typed("table")
        assert (again.say, again.refused, again.messages) == (plain(drawn[-1]), False, ())
        assert f"table {table}" in again.say
        session.table_pane = True  # the full screen draws the table in a pane of its own
        assert "top of the screen" in session.typed("table").say
        # ... unless the window is too short for it all: a play-test at 40x12 was told the table was
        # there, with its groups hidden. It goes into the log, where PageUp reaches every row.
        session.table_clipped = True
        assert session.typed("table").say == f"{TABLE_INTO_LOG}\n{plain(drawn[-1])}"


def test_table_away_from_a_game_says_why_it_shows_nothing() -> None:
    net = Net()
    ann = net.client("ann")
    session = Session("ann")
    lobby = session.typed("table")
    assert lobby.refused and "not at a table" in lobby.say and "'tables'" in lobby.say
    assert "table" in session.typed("table now").say  # one word: anything after it is a mistake
    ann.send(CreateTable("notty", 2, "classic", (), {}, bot_delay_ms=0))
    for message in ann.inbox:
        session.receive(message)
    waiting = session.typed("table")
    assert not waiting.refused and "has not begun" in waiting.say and not waiting.messages


def test_back_from_a_drop_the_moves_made_while_away_are_shown_a_bots_on_our_seat_marked() -> None:
    """A player back after a stand-in played for them saw only the last move: their 3 plays taken
    back and a card drawn for them went unsaid. Line mode now prints every move made while they
    were away, under a line saying so, the stand-in's moves on their seat marked as played for them."""
    net = Net(grace=10)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(CreateTable("notty", 2, "classic", (), {}, bot_delay_ms=0))[0].table
    token = bob.send(Join(table))[0].token  # type: ignore[attr-defined]
    ann.send(Autopilot(True))
    net.drop(bob)
    net.tick(11)  # past the grace: a bot stands in for bob
    net.run_bots(limit=12)
    back = net.client("bob", token=token)
    lines = printed(back)
    heads = [line for line in lines if line.startswith("while you were away")]
    assert heads == ["while you were away:"], lines
    after = lines[lines.index(heads[0]) + 1 :]
    ours = [line for line in after if line.startswith("  you ")]
    assert ours and all(PLAYED_FOR_YOU in line for line in ours), after
    assert [line for line in after if line.startswith("  ann ") and PLAYED_FOR_YOU not in line]
    # A turn handed to bob that a bot then played reads as it did live, not as bob's to play.
    handed = [line for line in after if line.startswith("  ann ends the turn; ")]
    assert handed and all(line.endswith("; a bot plays your turn") for line in handed[:-1]), after
    if back.view["current"] != back.view["seat"]:
        assert handed[-1].endswith("; a bot plays your turn"), after
    more = Net(grace=10)  # more moves than are kept: the header says some are left out
    ann, bob = more.client("ann"), more.client("bob")
    table = ann.send(CreateTable("notty", 2, "classic", (), {}, bot_delay_ms=0))[0].table
    token = bob.send(Join(table))[0].token  # type: ignore[attr-defined]
    ann.send(Autopilot(True))
    more.drop(bob)
    more.tick(11)
    more.run_bots(limit=AWAY_MOVES + 5)
    assert "while you were away (the earliest moves are left out):" in printed(
        more.client("bob", token=token)
    )


def test_auto_on_or_off_that_changes_nothing_says_so() -> None:
    """'auto off' with autopilot never on answered 'autopilot off: you play your own turns again'."""
    net = Net(grace=60)
    ann = net.client("ann")
    table = ann.send(CreateTable("huxxy", 2, None, ("greedy",), {}, bot_delay_ms=0))[0].table
    seated = ann.last(Seated)
    answers = []
    for on in (False, True, True, False):
        start = len(ann.inbox)
        ann.send(Autopilot(on))
        session = Session("ann")
        for message in ann.inbox[:start]:
            session.receive(message)
        said = [line for message in ann.inbox[start:] for line in session.receive(message).lines]
        answers.append(said[:1])  # (then the table, when who plays the turn changes)
    assert answers == [
        [AUTOPILOT_ALREADY[False]],
        [OWN_NOTICES["autopilot-on"]],
        [AUTOPILOT_ALREADY[True]],
        [OWN_NOTICES["autopilot-off"]],
    ], answers
    ann.send(Autopilot(True))
    session = Session("ann")  # the same client, from its first connection to its second
    for message in ann.inbox:
        session.receive(message)
    net.drop(ann)
    session.hello()  # it connects again
    back = net.client("ann", token=seated.token)
    assert back.view is not None and table == back.last(Seated).table
    lines = [line for message in back.inbox for line in session.receive(message).lines]
    assert OWN_NOTICES["autopilot-on"] in lines, lines  # resumed on autopilot: said as it is, not 'already'


def test_a_turn_handed_to_us_while_away_that_nobody_played_still_reads_as_ours() -> None:
    """Back within the grace to a game ann resigned: "ann ends the turn; a bot plays your turn",
    though the game ended before anyone played it. Only a turn a move of ours follows was a bot's."""
    net = Net(grace=30)
    ann, bob = net.client("ann"), net.client("bob")
    table = ann.send(CreateTable("notty", 2, "classic", (), {}, bot_delay_ms=0))[0].table
    token = bob.send(Join(table))[0].token  # type: ignore[attr-defined]
    if ann.view["current"] != 0:
        bob.send(Act("end"))
    net.drop(bob)
    ann.send(Act("draw 1"))
    ann.send(Act("end"))
    ann.send(Resign())
    lines = printed(net.client("bob", token=token))
    assert "  ann ends the turn; your turn" in lines, lines
    assert not [line for line in lines if "a bot plays your turn" in line], lines


def _autopilot_moved_last(net: Net, table: int) -> bool:
    """Play bots until the last move is one ann's autopilot made (seat 0); whether it came."""
    for _ in range(200):
        if net.host.tables[table].last_played_for == 0:
            return True
        net.run_bots(limit=1)
    return False


def test_a_player_back_is_shown_their_last_move_a_bot_made_marked_as_played_for_them() -> None:
    """A play-test: back at its seat on autopilot, a client was shown the last move again as its
    own ('you end the turn; qlearn-2 to play'), where it had read '(played for you)' live."""
    net = Net()
    ann = net.client("ann")
    seated = ann.send(CreateTable("notty", 2, "classic", ("greedy",), {}, bot_delay_ms=0))[0]
    assert isinstance(seated, Seated)
    ann.send(Autopilot(True))
    assert _autopilot_moved_last(net, seated.table)
    net.drop(ann)
    back = net.client("ann", token=seated.token)
    assert back.view["played_for"] == 0
    ours = [line for line in printed(back) if line.startswith("  you ")]
    assert ours and all(PLAYED_FOR_YOU in line for line in ours), printed(back)
    watcher = net.client("eve")  # shown the same move: ann's, not a move of theirs
    watcher.send(Watch(seated.table))
    assert not any(PLAYED_FOR_YOU in line for line in printed(watcher))
