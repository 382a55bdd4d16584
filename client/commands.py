"""What the user types, turned into protocol messages: pure, so it is tested without a terminal.

The client's own commands (tables, seats, hints) are here; a game's commands are its UI's
(:mod:`games._ui`), and ``new`` is read against the server's welcome (:mod:`client.new`). The
client never decides the rules; it only catches what it can see is wrong before bothering the
server (an unknown card, a group that is not one), and says why at once.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from games import hands_hidden
from games._ui import (
    MAX_DIGITS,
    GameUI,
    TableView,
    bot_plays_our_turn,
    did_you_mean,
    is_number,
    nothing_after,
    spoken_list,
)
from protocol import (
    MAX_SEATS,
    Act,
    AskHint,
    Autopilot,
    ConnectionState,
    CreateTable,
    Join,
    Leave,
    ListTables,
    Message,
    PlayForMe,
    Resign,
    Start,
    Watch,
)

from .catalog import Catalog
from .new import USAGE, new_table, new_words

HELP = f"""\
commands:
  tables              list the tables on this server
  {USAGE}
                      create a table and sit at it; name who sits in the other
                      seats: a bot, or 'human' to keep a seat for a friend; name
                      no one and bots take them all (each game's help says
                      which); name some and the rest stay open for people; you
                      take the first seat, the bots the last ones; one of an
                      option's choices, or 'NAME VALUE', anywhere in the line,
                      sets it; 'time 60' gives each turn 60 seconds, past which
                      a bot plays the rest of it; at a table whose game is over,
                      or one you only watch, it leaves that table first
  join TABLE [SEAT]   take a seat (numbered from 1); 'join' alone: the one
                      table waiting for players in the last list; at a table
                      whose game is over, or one you only watch, it leaves that
                      table first
  watch TABLE         watch a table; at a table whose game is over, or one you
                      only watch, it leaves that table first
  start               start now; bots take the empty seats (creator only)
  hint                the game's best move for you now; while you watch a game
                      whose hands are face up, for the player to move
  table               show the table again
  auto                let the server play the rest of your turn
  auto on / auto off  autopilot: the server plays every one of your turns
                      until 'auto off'
  resign              concede the game (asks you to confirm: 'resign' again,
                      or 'resign yes')
  leave               leave the table (in a game under way, asks you to
                      confirm: a bot takes your seat for the rest of the game;
                      with no other person there, the game ends unless watched)
  help [all | WORD]   this text, with the commands of your table's game (in the
                      lobby, an overview); 'all': every game's; WORD: a
                      command's lines, or a game's help ('help notty')
  rules [GAME]        the rules of your game (or of GAME)
  quit                leave the server"""

#: The client's own commands; each game adds its own (:meth:`games._ui.GameUI.commands`).
COMMANDS = (
    "tables", "new", "join", "watch", "start", "hint", "table", "auto", "resign", "leave", "help", "rules",
    "quit",
)  # fmt: skip

#: Commands complete in one word: anything after one is a mistake, not to be dropped silently ('quit
#: table' quit the server where 'leave' was meant, while 'end now' was refused).
_ALONE = frozenset({"tables", "start", "leave", "hint", "table", "quit", "exit"})

#: The commands that change nothing, here or at the server, whatever their answer: no line can count
#: on one, so a refused one stops no line typed after it, and one typed after a refused line is
#: carried out still (a 'hint' typed again while one was on its way stopped the next as if it were a
#: move the next one counted on).
CHANGES_NOTHING = frozenset({"hint", "help", "?", "rules", "table", "tables"})

NOT_CONNECTED = "not connected yet: wait a moment"
WATCHING = "you are only watching: 'join TABLE' takes a seat at another table, 'new' makes one"
#: ... where the game is played by bots alone for us: leaving it ends it, which 'leave' warns of.
WATCHING_BOTS = "you are only watching: 'leave', then 'join' a table to play"
GAME_OVER = "the game is over: 'leave' returns to the lobby"
#: Why a move of ours is not made while a bot plays our turn: the card named may well be gone already.
BOT_PLAYS_IT = "a bot plays this turn of yours ('auto', autopilot, or its time ran out): wait for it to end"
NOT_AT_A_TABLE = "you are not at a table: 'new' makes one, 'join TABLE' takes a seat"
#: Commands that give up a seat or the client: a guess at a mistyped word offers them only when the
#: word begins one ('lea'), never for one spelled alike.
SEAT_LOSING = frozenset({"leave", "resign", "quit"})
#: The longest line read as a command: the longest any game needs is under 100 characters.
MAX_LINE = 500
#: How much of a line longer than that is repeated back (the screen's log, a script's refusal): its start.
ECHOED_START = 60
#: Why a line read from bytes that are not UTF-8 is refused (Python reads them as surrogate escapes,
#: which, echoed back, showed as '\udcff').
NOT_UTF8 = "that line is not valid UTF-8 text"
#: The largest table number the protocol carries (``join`` and ``watch``): none is beyond it.
MAX_TABLE = 2**31 - 1


@attrs.frozen
class Reply:
    """What a typed line means: messages to send, text to show the user, or both."""

    messages: tuple[Message, ...] = ()
    say: str = ""
    quit: bool = False
    action: bool = False  # a game action: scripted use waits for the player's turn
    arm: str | None = None  # a command that, typed as the very next one, confirms this one
    refused: bool = False  # ``say`` is why the line was refused (a script stops there)
    show_table: bool = False  # the table again, as the session last drew it
    # 'join TABLE SEAT' of a seat past any table's, at a table no list has shown: the table and the
    # seat typed, refused once the list sent for says how many seats the table has (client.session).
    seat_asked: tuple[int, int] | None = None


#: What ``leave`` says, and sends nothing, during a game under way: the next ``leave`` sends it.
LEAVE_WARNING = "leaving hands your seat to a bot for the rest of the game; type 'leave' again to leave"
#: ... where every other seat is a bot's: a game of bots alone is played only while someone watches.
LEAVE_ALONE_WARNING = (
    "no other person plays here: as you leave the game ends unfinished, unless someone watches it;"
    " type 'leave' again to leave"
)
#: ... to a watcher of a game every seat of which a bot plays (a play-tester's went unwarned).
LEAVE_WATCHED_WARNING = (
    "bots play every seat here, and a game of bots alone is played only while someone watches: "
    "unless another watches it, it ends unfinished as you leave; type 'leave' again to leave"
)
#: What ``resign`` says first: ``resign`` as the next command, or ``resign yes``, sends it.
RESIGN_WARNING = (
    "resigning cannot be undone: you are ranked last in this game; "
    "type 'resign' again (or 'resign yes') to resign"
)


def interpret(
    line: str,
    catalog: Catalog | None,
    game: GameUI | None,
    view: TableView | None,
    armed: str | None = None,
    ask: bool = True,
    seats: Mapping[int, int] | None = None,
    table: int | None = None,
    playing: str | None = None,
    view_current: bool = True,
    watching: bool = False,
    listed: Mapping[str, Any] | None = None,
) -> Reply:
    """The meaning of one typed line, given the server's games (``None`` before its welcome), the
    UI of the game at our table (``None`` if none is known), its latest view (if any), and the
    command the last line asked to have confirmed (``armed``: see :attr:`Reply.arm`). ``ask``:
    confirm what cannot be undone first (a person typing; a script's lines are meant as written).
    ``seats``: the number of seats of each table the lists seen named (a table's seats never change).
    ``table``: the table we sit at or watch (whose game may not be known yet: joined by number).
    ``view_current``: ``view`` is the table as it stands (not while the connection is down), so a
    person's move out of turn is refused as such. ``watching``: at ``table`` we watch, and hold no seat.
    ``listed``: ``table`` as the lobby's list last said it (its variant and options: what 'rules'
    says before the game's first view)."""
    words = line.split()
    if not words:
        return Reply(arm=armed)  # a blank line is no command: a confirmation still stands
    if len(line) > MAX_LINE:  # not echoed back in a refusal: a pasted page would fill the screen
        return Reply(
            say=f"that line has {len(line):,} characters; no command has more than {MAX_LINE}", refused=True
        )
    if not is_text(line):  # before any word of it is read, and echoed back, as a card or a name
        return Reply(say=NOT_UTF8, refused=True)
    verb, args = words[0].lower(), words[1:]
    try:
        at = playing or (view.game if view is not None else None)  # before the start, no view says it
        return _interpret(
            verb,
            args,
            catalog,
            game,
            view,
            armed if ask else verb,
            seats or {},
            table,
            at,
            ask and view_current,
            watching,
            listed,
        )
    except ValueError as error:  # the UIs', the protocol's and our own refusals: nothing is sent
        return Reply(say=str(error), refused=True)


def is_text(line: str) -> bool:
    """Was ``line`` read from valid UTF-8? Bytes that are not are read as surrogate escapes
    (stdin's errors are ``surrogateescape``), which no text holds."""
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def echoed(line: str) -> str:
    """A typed line as the full screen's log repeats it: one too long for any command (it is
    refused) by its start and its length, not a pasted page of wrapped rows above the refusal."""
    if len(line) <= MAX_LINE:
        return line
    return f"{line[:ECHOED_START]}… ({len(line):,} characters)"


def quoted_line(line: str) -> str:
    """A script's line as its refusal on stderr names it: in quotes, one too long for any command cut
    as :func:`echoed` cuts it (``'xxxx…' (200,000 characters)``), and one not valid UTF-8 as the bytes
    read (``b'\\xff\\xfe'``), not the surrogate escapes Python read them as."""
    text: str | bytes = line if is_text(line) else line.encode("utf-8", "surrogateescape")
    if len(line) <= MAX_LINE:
        return repr(text)
    return f"{text[:ECHOED_START]!r}… ({len(line):,} characters)"


def changes_nothing(line: str) -> bool:
    """Is ``line`` a command that changes nothing (:data:`CHANGES_NOTHING`)?"""
    words = line.split()
    return bool(words) and words[0].lower() in CHANGES_NOTHING


def _interpret(
    verb: str,
    args: Sequence[str],
    catalog: Catalog | None,
    game: GameUI | None,
    view: TableView | None,
    armed: str | None = None,
    seats: Mapping[int, int] | None = None,
    table: int | None = None,
    playing: str | None = None,
    person: bool = True,
    watching: bool = False,
    listed: Mapping[str, Any] | None = None,
) -> Reply:
    if verb in _ALONE:
        nothing_after(verb, args)
    watched_hint = verb == "hint" and _watchers_hint(game, view)
    if verb == "hint" and not watched_hint and _watching_live(view) and game is not None:
        # Why not, as the server says it: a play-test was told it only watched, as if a seat would do.
        title = (catalog.title_of(game) if catalog is not None else None) or "this game"
        return Reply(say=hands_hidden(title), refused=True)
    if verb in ("hint", "auto", "resign") and not watched_hint and (why := _nothing_to_play(view)):
        return Reply(say=why, refused=True)  # as a game command is: the server's would read otherwise
    match verb:
        case "help" | "?":
            if args and [word.lower() for word in args] != ["all"]:  # never refused: a script goes on
                # On the command named first: 'help auto on' and 'help steal bob' are about a command.
                return Reply(say=help_on(args[0], catalog, playing))
            return Reply(say=help_text(catalog, playing, every=bool(args)))
        case "rules":
            return Reply(say=rules_text(args, catalog, game, view, listed))
        case "quit" | "exit":
            return Reply(quit=True)
        case "tables":
            return Reply((ListTables(),))
        case "new":
            if catalog is None:
                return Reply(say=NOT_CONNECTED, refused=True)
            return _elsewhere_from(new_table(args, catalog), table, view, watching)
        case "join":
            if not 1 <= len(args) <= 2:
                return Reply(say="usage: join TABLE [SEAT]", refused=True)
            number = _table(args[0])
            try:
                seat = _seat(args[1], number, seats or {}) if len(args) > 1 else None
            except UnlistedSeat as unlisted:
                if table is not None and not (view is not None and view.over):
                    raise  # where we are comes first: the session says so
                # No message can ask for it, and this table's seats are not known here: the list says.
                return Reply((ListTables(),), seat_asked=(number, unlisted.seat))
            return _elsewhere_from(Join(number, seat), table, view, watching)
        case "watch":
            if len(args) != 1:
                return Reply(say="usage: watch TABLE", refused=True)
            return _elsewhere_from(Watch(_table(args[0])), table, view, watching)
        case "start":
            return Reply((Start(),))
        case "leave":
            if armed != "leave" and _playing(view):
                return Reply(say=LEAVE_ALONE_WARNING if bots_besides(view) else LEAVE_WARNING, arm="leave")
            if armed != "leave" and _watching_bots_alone(view):
                return Reply(say=LEAVE_WATCHED_WARNING, arm="leave")
            return Reply((Leave(),))
        case "hint":
            return Reply((AskHint(),))
        case "table":
            return Reply(show_table=True)
        case "auto":
            return _auto(args)
        case "resign":
            return _resign(args, view, armed)
    ui = _ui_for_verb(verb, catalog, game)
    if ui is None and (aside := _aside(verb, args, game)):
        return Reply(say=aside, refused=True)
    if ui is None and (other := _other_games_command(verb, catalog, game)):
        return Reply(say=other, refused=True)
    if ui is None:
        commands = [*COMMANDS, *_game_commands(catalog, game, view, every=True)]
        guess = did_you_mean(verb, commands, begun_only=SEAT_LOSING)  # never 'leave' for 'clear'
        unknown = f"unknown command {verb!r}; " + (guess or "type 'help' for the commands")
        return Reply(say=unknown, refused=True)
    if ui.is_action(verb) and (why := _nothing_to_play(view)):  # before its usage
        return Reply(say=why, refused=True)
    if ui.is_action(verb) and person and view is not None and (why := _not_ours_now(view)):
        # Checked against the hand the bot plays, a move was refused for a card it had put back;
        # out of turn, for a card just played ("you hold no B8"). (A script's move waits for a
        # turn of ours: it is not refused.)
        return Reply(say=why, refused=True)
    try:
        action = ui.action(verb, args, view)
    except ValueError:
        if table is None and game is None:
            # Away from a table: not the usage of a game guessed at ('steal' alone said "usage: steal
            # NAME" in the lobby, where 'steal bob' and every other move are told this).
            return Reply(say=NOT_AT_A_TABLE, refused=True)
        raise
    if person and armed != action and (caution := ui.caution(action, view)):
        return Reply(say=caution, arm=action)  # the same command next sends it
    return Reply((Act(action),), action=True)


def _elsewhere_from(
    message: CreateTable | Join | Watch, table: int | None, view: TableView | None, watching: bool
) -> Reply:
    """``new``, ``join`` or ``watch``, from ``table`` if we are at one. Where leaving loses nothing
    (:func:`leaves_by_itself`) it is 'leave', then the message, so a player at a game's end, or a
    watcher going to another table, need not be told to leave first (the client sends the second
    once the server says we left, :func:`client.app._carry_out`). A watcher may also join the table
    it watches before its game begins: leaving it may free the seat asked for. Otherwise (a seat in
    a game not over, or the table we see already) it is the message alone, which the protocol
    refuses where we are (:func:`why_not`)."""
    ours = isinstance(message, Join | Watch) and message.table == table
    sits_down = watching and view is None and isinstance(message, Join)
    if table is not None and (sits_down or (not ours and leaves_by_itself(view, watching))):
        return Reply((Leave(), message))
    return Reply((message,))


def _aside(verb: str, args: Sequence[str], game: GameUI | None) -> str | None:
    """At a table, the answer its game gives a phrase that is no command of its own (huxxy's
    ``take back``: :attr:`games._ui.GameUI.asides`), if the line begins with one."""
    if game is None:
        return None
    typed = [verb, *(word.lower() for word in args)]
    for phrase, answer in game.asides.items():
        words = phrase.split()
        if typed[: len(words)] == words:
            return answer
    return None


def _other_games_command(verb: str, catalog: Catalog | None, game: GameUI | None) -> str | None:
    """At a table, a command of other games the server hosts, not of this one: said as such, since a
    guess at a spelling of this game's ('take' as 'table') would mislead."""
    if game is None or catalog is None:
        return None
    ours, titles = catalog.title_of(game), catalog.titles_claiming(verb)  # ours has no such command
    if ours is None or not titles:
        return None
    games = " and ".join(filter(None, [", ".join(titles[:-1]), titles[-1]]))
    return f"{verb!r} is a command of {games}; this table plays {ours} (type 'help' for its commands)"


def _nothing_to_play(view: TableView | None) -> str | None:
    """Why nothing may be played at our table, if nothing may: we watch, or the game is over."""
    if view is None or (view.seat is not None and not view.over):
        return None
    if view.seat is not None:
        return GAME_OVER
    return WATCHING_BOTS if _watching_bots_alone(view) else WATCHING


def _watching_live(view: TableView | None) -> bool:
    """Do we watch a game under way?"""
    return view is not None and view.seat is None and not view.over


def _watchers_hint(game: GameUI | None, view: TableView | None) -> bool:
    """Do we watch a game under way whose watchers may ask for a hint (its hands are face up)?"""
    return game is not None and game.watchers_hint and _watching_live(view)


def leaves_by_itself(view: TableView | None, watching: bool) -> bool:
    """Do ``new``, ``join`` and ``watch`` leave our table first by themselves? At a game that is over
    (nothing is lost), and where we watch a game that goes on without us; not where we play, nor
    where we are the watcher a game of bots alone is played for ('leave' warns of that first)."""
    return _over(view) or (watching and not _watching_bots_alone(view))


def _over(view: TableView | None) -> bool:
    """Is the game at our table over? Then ``new``, ``join`` and ``watch`` leave it, as ``leave``
    would, without a word."""
    return view is not None and view.over


def _not_ours_now(view: TableView) -> str | None:
    """Why a move of ours is not for now, if it is not: a bot plays our turn, or it is another's."""
    if bot_plays_our_turn(view):
        return BOT_PLAYS_IT
    if view.seat is not None and not view.over and view.current != view.seat:
        return f"it is {view.names[view.current]}'s turn, not yours"
    return None


def bots_besides(view: TableView | None) -> bool:
    """Do bots play every seat but ours (their own, or a stand-in's), none of them held for a
    person away? Once we leave, the server plays such a game only while someone watches it."""
    if view is None or view.seat is None:
        return False
    others = [seat for seat in range(len(view.names)) if seat != view.seat]
    return all(seat in view.bots and seat not in view.kept for seat in others)


def _watching_bots_alone(view: TableView | None) -> bool:
    """Do we watch a game under way that bots alone play, no seat held for a person away (a bot
    standing in for one is not a bot's own seat: the game waits for them as we go)?"""
    return _watching_live(view) and view is not None and len(view.bots) == len(view.names) and not view.kept


def _playing(view: TableView | None) -> bool:
    """Do we hold a seat in a game under way? Giving it up then cannot be taken back."""
    return view is not None and view.seat is not None and not view.over


def _auto(args: Sequence[str]) -> Reply:
    """``auto``: the rest of this turn; ``auto on`` / ``auto off``: every turn, until switched off."""
    if not args:
        return Reply((PlayForMe(),), action=True)
    if len(args) == 1 and args[0].lower() in ("on", "off"):
        return Reply((Autopilot(args[0].lower() == "on"),))
    usage = "usage: auto (the rest of this turn), auto on, auto off (every turn until off)"
    return Reply(say=usage, refused=True)


def _resign(args: Sequence[str], view: TableView | None, armed: str | None) -> Reply:
    """``resign`` asks first; ``resign`` again as the next command, or ``resign yes``, sends it."""
    if args and [word.lower() for word in args] != ["yes"]:
        return Reply(say="usage: resign (then resign again to confirm), or resign yes", refused=True)
    if args or armed == "resign" or not _playing(view):  # not playing: the server says why not
        return Reply((Resign(),))
    return Reply(say=RESIGN_WARNING, arm="resign")


def _ui_for_verb(verb: str, catalog: Catalog | None, game: GameUI | None) -> GameUI | None:
    """The UI whose command ``verb`` is: our game's, or, away from one, the first that has it."""
    if game is not None:
        return game if game.is_action(verb) else None
    return None if catalog is None else catalog.ui_claiming(verb)


def rules_text(
    args: Sequence[str],
    catalog: Catalog | None,
    game: GameUI | None,
    view: TableView | None,
    listed: Mapping[str, Any] | None = None,
) -> str:
    """``rules``: those of the game at our table (by its view, or before the first by its line in
    the lobby's list, ``listed``); away from one, which games have rules to ask for; ``rules GAME``:
    that game's (each game's UI writes its own, :meth:`GameUI.rules`); ``rules VARIANT``: its
    game's, for that variant (a variant's name says which game, as in ``new``)."""
    if len(args) > 1:
        raise ValueError("usage: rules [GAME]")
    if not args and game is not None and view is None and listed is not None:
        return game.rules(str(listed["variant"]), None, listed["options"])
    if not args and game is not None:
        return game.rules(view.variant if view is not None else None, view)
    if catalog is None:
        return NOT_CONNECTED
    if not args:
        width = max((len(name) for name in catalog.games), default=0)
        lines = [f"  rules {name:<{width}}  {info.title}" for name, info in catalog.games.items()]
        return "\n".join(["the rules of each game here:", *lines])
    name = args[0].lower()
    if name not in catalog.games:
        of = next((info.name for info in catalog.games.values() if name in info.variants), None)
        if of is not None:
            return catalog.ui(of).rules(name)
        variants = [variant for info in catalog.games.values() for variant in info.variants]
        guess = did_you_mean(name, [*catalog.games, *variants])
        raise ValueError(f"no game {name!r} here; " + (guess or f"games are {', '.join(catalog.games)}"))
    same = view is not None and view.game == name
    return catalog.ui(name).rules(view.variant if view is not None and same else None, view if same else None)


#: The lobby's commands, as :data:`HELP` says them (without what each says of a table's game over).
LOBBY_HELP = f"""\
commands in the lobby:
  tables              list the tables on this server
  {USAGE}
                      create a table and sit at it ('help new' says how)
  join TABLE [SEAT]   take a seat (numbered from 1); 'join' alone: the one
                      table waiting for players in the last list
  watch TABLE         watch a table
  rules [GAME]        a game's rules
  help WORD           a command's lines ('help new', 'help join')
  quit                leave the server"""
#: What the lobby's help says of the commands at a table, which 'help' there shows.
AT_A_TABLE = "at a table, 'help' shows its commands (hint, auto, leave...) and its game's"


def help_text(catalog: Catalog | None, at: str | None = None, every: bool = False) -> str:
    """The client's commands, then each hosted game's; at a table of the game ``at`` (unless
    ``every`` game's are asked for), that game's alone, last, where the screen ends: a first-time
    player's own commands were two pages up, under two other games'. In the lobby (no ``at``), an
    overview that fits a screen: its commands, the games hosted and how to get each one's help (every
    game's was about 100 lines, and an 80x24 screen showed the end of the last game's)."""
    if catalog is None:
        return HELP
    if at is None and not every:
        return lobby_help(catalog)
    shown = [game for game in catalog.games.values() if every or at is None or game.name == at] or list(
        catalog.games.values()
    )
    games = [f"{help_heading(game.title, game.name)}\n{catalog.ui(game.name).help}" for game in shown]
    others = len(shown) < len(catalog.games)
    return "\n".join([HELP, *games] + (["(the other games' commands: 'help all')"] if others else []))


def lobby_help(catalog: Catalog) -> str:
    """``help`` in the lobby: its commands, then each game hosted, by the command that shows its
    help, with its variants (the first the default), and the commands at a table."""
    games = []
    for game in catalog.games.values():
        names = list(game.variants)
        variants = [f"{names[0]} (the default)", *names[1:]] if len(names) > 1 else []
        listed = ", ".join(variants[:-1]) + f" or {variants[-1]}" if variants else ""
        games.append(_entry(f"help {game.name}", f"{game.title}: {listed}" if listed else game.title))
    heading = ["the games here, and how to get each one's commands:"] if games else []
    every = _entry("help all", "every command: the client's, then every game's")
    return "\n".join([LOBBY_HELP, *heading, *games, every, AT_A_TABLE])


def _entry(command: str, description: str) -> str:
    """A help entry laid out as :data:`HELP`'s: the command, and its description from column
    :data:`DESCRIPTION` (on the next line, under a command too long to leave it room)."""
    lines = textwrap.wrap(description, WIDTH - DESCRIPTION)
    first = f"  {command}"
    if len(first) > DESCRIPTION - 2:
        return "\n".join([first, *(" " * DESCRIPTION + line for line in lines)])
    rest = [" " * DESCRIPTION + line for line in lines[1:]]
    return "\n".join([first.ljust(DESCRIPTION) + lines[0], *rest])


#: Other words for a client command, as ``interpret`` reads them.
_ALIASES = {"?": "help", "exit": "quit"}


def help_on(word: str, catalog: Catalog | None, at: str | None = None) -> str:
    """``help WORD``: the lines of ``help`` about a command (the client's, and those of the game
    at our table, or of every game away from one), or a game's whole help (named by the game or
    a variant, as ``rules`` takes it); for a word it knows nothing of, what it does know. Never a
    refusal: a script asking for help is not a move gone wrong."""
    typed = word if len(word) <= ECHOED else word[:ECHOED] + "…"  # as typed, cut short if long
    word = _ALIASES.get(word.lower(), word.lower())
    if word == "all":
        return help_text(catalog, at, every=True)
    games = {} if catalog is None else catalog.games
    named = games.get(word) or next((info for info in games.values() if word in info.variants), None)
    if catalog is not None and named is not None:
        body = f"{help_heading(named.title, named.name)}\n{catalog.ui(named.name).help}"
        return f"{body}\n(its rules: 'rules {named.name}'; every command: 'help all')"
    here = [name for name in games if name == at] or list(games)
    # A command's own entries first: 'help auto' also gave hint's, whose text speaks of 'auto'.
    for named_only in (True, False):
        found = [_about(word, HELP, named_only), *_games_about(word, catalog, here, named_only)]
        if not any(found) and at in games:  # another game's command, at a table of this one: said so
            found = _games_about(word, catalog, [name for name in games if name != at], named_only)
            found += [f"(this table plays {games[at].title})"] if found else []
        if any(found):
            return "\n".join(block for block in found if block)
    # Of any game: 'new' makes a table of any, wherever we are.
    taking = [name for name in games if catalog is not None and word in _new_words(catalog, name)]
    if taking and catalog is not None:  # a bot, a level, an option: 'help hard' knew nothing
        blocks = _games_about("new", catalog, taking) or [_about("new", HELP)]  # a game's own, or ours
        titles = spoken_list([catalog.games[name].title for name in taking])
        return "\n".join([f"{typed!r} is a word 'new' takes ({titles}):", *blocks])
    known = _help_commands(catalog, here)
    guess = did_you_mean(word, [*known, *games])
    lines = [f"no help on {typed!r}" + (f"; {guess}" if guess else ""), "'help WORD' knows these words:"]
    # Laid out as help is (a term, then its text), so a narrower terminal wraps it as it wraps help.
    for term, words in (("commands", known), ("games", list(games))):
        if words:
            lines += textwrap.wrap(
                ", ".join(words), WIDTH, initial_indent=f"  {term:<10}", subsequent_indent=" " * 12
            )
    return "\n".join(lines)


def _help_commands(catalog: Catalog | None, here: Sequence[str]) -> list[str]:
    """The commands ``help WORD`` knows: the client's, and those of the games ``here``."""
    return list(
        dict.fromkeys([*COMMANDS, *(command for name in here for command in _commands(catalog, name))])
    )


def help_words(catalog: Catalog | None, at: str | None = None) -> list[str]:
    """What ``help`` takes, as tab offers it: the commands it knows (of the game at our table,
    ``at``, or of every game away from one), the games, and ``all``."""
    games = [] if catalog is None else list(catalog.games)
    here = [name for name in games if name == at] or games
    return [*_help_commands(catalog, here), *games, "all"]


def _games_about(
    word: str, catalog: Catalog | None, names: Sequence[str], named_only: bool = True
) -> list[str]:
    """Each of the games ``names``' lines about ``word``, under its title, as ``help`` shows them."""
    if catalog is None:
        return []
    found = [
        (catalog.games[name].title, name, _about(word, catalog.ui(name).help, named_only)) for name in names
    ]
    return [f"{help_heading(title, name)}\n{lines}" for title, name, lines in found if lines]


def _new_words(catalog: Catalog, game: str) -> set[str]:
    """The words a game's ``new`` takes besides its variants: its bots, its options' names and
    choices, the words that set a number ('limit 200'), and 'human'."""
    info = catalog.games[game]
    words = {"human", *info.bots, *catalog.ui(game).number_words}
    for option in info.options.values():
        words |= {option.name, *(str(choice) for choice in option.choices)}
    return {word.lower() for word in words}


def _commands(catalog: Catalog | None, game: str) -> tuple[str, ...]:
    return () if catalog is None else catalog.ui(game).commands(None)


#: The columns help is laid out for (tests/test_help_text.py); the most of a word it echoes.
WIDTH, ECHOED = 80, 20
#: The column a help entry's description starts at.
DESCRIPTION = 22


def _entries(text: str) -> list[list[str]]:
    """A help text's entries: a command's line (indented two spaces), with its description's."""
    entries: list[list[str]] = []
    for line in text.splitlines():
        if re.match(r"  \S", line):
            entries.append([line])
        elif entries and line.startswith("   "):
            entries[-1].append(line)
    return entries


def help_heading(title: str, name: str) -> str:
    """A game's help under its title, with the name typed for it where that is another word:
    'Ochos Locos (ochos-locos):', but 'huxxy:' (a play-test read 'huxxy (huxxy):')."""
    return f"{title}:" if title == name else f"{title} ({name}):"


def _about(word: str, text: str, named_only: bool = False) -> str:
    """The entries of a game's help for the command ``word``; failing those (unless
    ``named_only``), any that speaks of it as typed ('putback' is in the line of 'dd', whose second
    half it is)."""
    entries = _entries(text)
    found = [entry for entry in entries if entry[0].split()[0].rstrip(":") == word]
    if not found and not named_only:
        quoted = re.compile(rf"'{re.escape(word)}\b")
        found = [entry for entry in entries if quoted.search(" ".join(entry))]
    return "\n".join(line for entry in found for line in entry)


def _number(text: str, what: str) -> int:
    if not is_number(text):
        shown = repr(text[:20]) + ("…" if len(text) > 20 else "")
        if text.isascii() and text.isdigit():
            raise ValueError(f"there is no {what} {shown}: no {what} number has over {MAX_DIGITS} digits")
        raise ValueError(f"{what} must be a number, not {shown}")
    return int(text)


def _table(text: str) -> int:
    """A table's number, as ``join`` and ``watch`` name it; one no server could have is refused here,
    in words (the protocol's own would name its fields)."""
    number = _number(text, "table")
    if not 1 <= number <= MAX_TABLE:
        raise ValueError(f"there is no table {number}: 'tables' lists them")
    return number


class UnlistedSeat(ValueError):
    """A seat number past any table's (:data:`protocol.MAX_SEATS`), at a table no list has shown: a
    ``join`` cannot ask for it, and what its table has is not known without a list."""

    def __init__(self, seat: int, table: int) -> None:
        super().__init__(no_seat(seat, table, None))
        self.seat = seat


def _seat(text: str, table: int, seats: Mapping[int, int]) -> int:
    """A seat of ``table`` as people number them, from 1 (the wire's index, from 0), which has
    ``seats[table]`` seats if a list named it (else at most :data:`protocol.MAX_SEATS`, as every table)."""
    number = _number(text, "seat")
    count = seats.get(table)
    if not 1 <= number <= (MAX_SEATS if count is None else count):
        if count is None and number > 0:
            raise UnlistedSeat(number, table)
        raise ValueError(no_seat(number, table, count))
    return number - 1


def no_seat(number: int, table: int, count: int | None) -> str:
    """Why seat ``number`` (as people number them) of ``table`` cannot be taken: past its ``count``
    seats, if a list said how many it has (``None``: none did)."""
    if count is not None:
        has = f": it has seats 1 to {count}"
    elif number == 0:
        has = ": seats are numbered from 1"
    else:  # a table no list has shown
        has = f": no table has more than {MAX_SEATS} ('tables' lists them, with their seats)"
    return f"there is no seat {number} at table {table}{has}"


def elsewhere(
    table: int | None, watching: bool, asked: int | None = None, view: TableView | None = None
) -> str:
    """Why a table cannot be made, joined or watched from where we are: at ``table`` already.
    ``asked``: the table named to join; ``view``: our table's, once its game has begun. Joining
    the table we watch once its game has begun is no matter of leaving first: its seats are taken
    (leaving, then joining, was refused in turn). Before that, leaving may lead to a free seat."""
    where = "" if table is None else f" {table}"
    if asked is not None and asked == table and view is not None and view.over:
        return f"the game at table{where} is over: its seats are not free again ('new' makes another table)"
    if watching and asked is not None and asked == table and view is not None:
        return f"the game at table{where} is under way and its seats are taken: you can only watch it"
    if watching and _watching_bots_alone(view):  # why not by itself, as from any other game watched
        return (
            f"you are watching table{where}, where bots alone play: 'leave' it first (it warns you: the"
            " game is played only while someone watches)"
        )
    if watching:
        return f"you are watching table{where}: 'leave' it first"
    return f"you are already at table{where}: 'leave' it first"


def why_not(
    message: Message, state: ConnectionState, table: int | None, view: TableView | None = None
) -> str:
    """Why the protocol will not send ``message`` now, in the user's words, and what to do instead;
    ``view``: our table's, once its game has begun."""
    somewhere = isinstance(message, (CreateTable, Join, Watch))
    match state:
        case ConnectionState.SEATED | ConnectionState.WATCHING if somewhere:
            watching = state is ConnectionState.WATCHING
            if watching and isinstance(message, Watch) and message.table == table:
                return f"you are already watching table {table}"  # nothing to leave for
            if isinstance(message, Watch) and message.table == table and view is not None and view.over:
                return f"you see table {table} already: its game is over ('new' makes another table)"
            asked = message.table if isinstance(message, Join) else None
            return elsewhere(table, watching, asked, view)
        case ConnectionState.WATCHING:
            return WATCHING_BOTS if _watching_bots_alone(view) else WATCHING
        case ConnectionState.LOBBY:
            return NOT_AT_A_TABLE
        case ConnectionState.HELLO:
            return NOT_CONNECTED
        case _:
            return "the connection is closed"


def completions(
    before: str,
    text: str,
    catalog: Catalog | None,
    game: GameUI | None,
    view: TableView | None,
    tables: Sequence[int],
    where: str | None = None,
    at: str | None = None,
) -> list[str]:
    """What tab may complete ``text`` to: the word being typed, after ``before`` on the line.
    ``where``: ``"seated"`` or ``"watching"`` at a table (its game begun or not), ``None`` in the
    lobby; ``at``: the game at that table, once known. Only what may be accepted there and then is
    offered."""
    words = before.lower().split()
    watching = where == "watching"
    if not words:
        candidates = [
            *_client_commands(view, where, _watchers_hint(game, view)),
            *_now(catalog, game, view, where),
        ]
    elif words[0] in ("join", "watch", "new") and where is not None and not leaves_by_itself(view, watching):
        return []  # refused at a table: 'leave' it first (where nothing is lost, they leave it themselves)
    elif words[0] == "new":
        candidates = new_words(catalog, words[1:]) if catalog is not None else []
    elif words[0] in ("join", "watch"):
        if len(words) > 1:
            return []  # join's seat: the list does not say which are free
        numbers = [str(table) for table in sorted(set(tables))]  # as numbers: 9 before 12
        return [number for number in numbers if number.startswith(text)]
    elif words[0] == "rules":
        candidates = [] if catalog is None or len(words) > 1 else _rules_words(catalog)
    elif words[0] in ("help", "?"):
        candidates = [] if len(words) > 1 else help_words(catalog, at)
    elif words[0] == "auto":
        candidates = [] if len(words) > 1 else ["on", "off"]
    else:
        ui = _ui_for_verb(words[0], catalog, game)
        if ui is None or (where is not None and words[0] not in _now(catalog, game, view, where)):
            return []  # at a table, a game command that would be refused now ('play' after 6 plays)
        return list(dict.fromkeys(ui.complete(words, text, view)))  # the UI's order
    return sorted({word for word in candidates if word.lower().startswith(text.lower())})


def _rules_words(catalog: Catalog) -> list[str]:
    """What ``rules`` takes: a game, or one of its variants."""
    return [word for game in catalog.games.values() for word in (game.name, *game.variants)]


def _client_commands(view: TableView | None, where: str | None = None, hint: bool = False) -> list[str]:
    """The client's commands that may be accepted now: at a table, none that goes to another
    (``new``, ``join``, ``watch``: 'leave' first; but each leaves a game that is over, or one we
    watch, :func:`leaves_by_itself`); none that needs a seat while we watch (``hint``: unless
    ``hint``, the game's watchers may ask), nor a game under way once it is over; no ``start`` once
    the game has begun, nor for a watcher; in the lobby, none that needs a table."""
    stays = where is not None and not leaves_by_itself(view, where == "watching")
    barred = {"join", "watch", "new"} if stays else set()
    if where == "watching" or (view is not None and (view.seat is None or view.over)):
        barred |= {"auto", "resign"} if hint else {"hint", "auto", "resign"}
    if view is not None or where == "watching":
        barred.add("start")
    if view is None:
        barred.add("table")  # no game's table to show
    if where is None:  # the lobby: nothing that needs a table
        barred |= {"start", "hint", "auto", "resign", "leave"}
    return [command for command in COMMANDS if command not in barred]


def _now(
    catalog: Catalog | None, game: GameUI | None, view: TableView | None, where: str | None
) -> list[str]:
    """Our game's commands that may be accepted now: only at our turn at a table (none in the lobby,
    where Tab offered 'draw' to be refused with "you are not at a table"; none before the game
    begins, while we watch, at another's turn, once we resigned or the game is over)."""
    if where is None or view is None or view.seat is None or not view.legal:
        return []
    return _game_commands(catalog, game, view)


def _game_commands(
    catalog: Catalog | None, game: GameUI | None, view: TableView | None, every: bool = False
) -> list[str]:
    """Our game's commands (none while we watch): those it takes now, or ``every`` one (a typo may
    be of a command that is not for now); away from a game, those of every game with a UI of its own."""
    if view is not None and view.seat is None:
        return []
    if game is not None:
        return list(game.commands(None if every else view))
    uis = catalog.own_uis() if catalog is not None else []
    return [command for ui in uis for command in ui.commands(None)]
