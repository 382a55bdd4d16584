"""What the user types, turned into protocol messages: pure, so it is tested without a terminal.

The client's own commands (tables, seats, hints) are here; a game's commands are its UI's
(:mod:`games._ui`), and ``new`` is read against the server's welcome (:mod:`client.new`). The
client never decides the rules; it only catches what it can see is wrong before bothering the
server (an unknown card, a group that is not one), and says why at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from games._ui import GameUI, TableView, is_number, nothing_after
from protocol import (
    Act,
    AskHint,
    ConnectionState,
    CreateTable,
    Join,
    Leave,
    ListTables,
    Message,
    PlayForMe,
    Start,
    Watch,
)

from .catalog import Catalog
from .new import USAGE, new_table, new_words

HELP = f"""\
commands:
  tables                      list the tables on this server
  {USAGE}
                              create a table and sit at it; name who sits in the other seats: a bot,
                              or 'human' to keep a seat for a friend; seats left unnamed stay open;
                              one of an option's choices, or 'NAME VALUE', anywhere in the line sets it
  join TABLE [SEAT]           take a seat        watch TABLE    watch a table
  start                       start now; bots take the empty seats (creator only)
  hint                        the game's best move for you now
  auto                        let the server play the rest of your turn
  leave                       leave the table    help           this text
  quit                        leave the server"""

#: The client's own commands; each game adds its own (:meth:`games._ui.GameUI.commands`).
COMMANDS = ("tables", "new", "join", "watch", "start", "hint", "auto", "leave", "help", "quit")

#: Commands complete in one word: anything after one is a mistake, not to be dropped silently.
_ALONE = frozenset({"tables", "start", "leave", "hint", "auto"})

NOT_CONNECTED = "not connected yet: wait a moment"


@attrs.frozen
class Reply:
    """What a typed line means: messages to send, text to show the user, or both."""

    messages: tuple[Message, ...] = ()
    say: str = ""
    quit: bool = False
    action: bool = False  # a game action: scripted use waits for the player's turn


def interpret(line: str, catalog: Catalog | None, game: GameUI | None, view: TableView | None) -> Reply:
    """The meaning of one typed line, given the server's games (``None`` before its welcome), the
    UI of the game at our table (``None`` if none is known) and its latest view (if any)."""
    words = line.split()
    if not words:
        return Reply()
    verb, args = words[0].lower(), words[1:]
    try:
        return _interpret(verb, args, catalog, game, view)
    except ValueError as error:  # the UIs', the protocol's and our own refusals: nothing is sent
        return Reply(say=str(error))


def _interpret(
    verb: str, args: Sequence[str], catalog: Catalog | None, game: GameUI | None, view: TableView | None
) -> Reply:
    if verb in _ALONE:
        nothing_after(verb, args)
    match verb:
        case "help" | "?":
            return Reply(say=help_text(catalog))
        case "quit" | "exit":
            return Reply(quit=True)
        case "tables":
            return Reply((ListTables(),))
        case "new":
            if catalog is None:
                return Reply(say=NOT_CONNECTED)
            return Reply((new_table(args, catalog),))
        case "join":
            if not 1 <= len(args) <= 2:
                return Reply(say="usage: join TABLE [SEAT]")
            return Reply(
                (Join(_number(args[0], "table"), _number(args[1], "seat") if len(args) > 1 else None),)
            )
        case "watch":
            if len(args) != 1:
                return Reply(say="usage: watch TABLE")
            return Reply((Watch(_number(args[0], "table")),))
        case "start":
            return Reply((Start(),))
        case "leave":
            return Reply((Leave(),))
        case "hint":
            return Reply((AskHint(),))
        case "auto":
            return Reply((PlayForMe(),), action=True)
    ui = _ui_for_verb(verb, catalog, game)
    if ui is None:
        return Reply(say=f"unknown command {verb!r}; type 'help' for the commands")
    return Reply((Act(ui.action(verb, args, view)),), action=True)


def _ui_for_verb(verb: str, catalog: Catalog | None, game: GameUI | None) -> GameUI | None:
    """The UI whose command ``verb`` is: our game's, or, away from one, the first that has it."""
    if game is not None:
        return game if game.is_action(verb) else None
    return None if catalog is None else catalog.ui_claiming(verb)


def help_text(catalog: Catalog | None) -> str:
    """The client's commands, then each hosted game's."""
    if catalog is None:
        return HELP
    games = [f"{game.title} ({game.name}):\n{catalog.ui(game.name).help}" for game in catalog.games.values()]
    return "\n".join([HELP, *games])


def _number(text: str, what: str) -> int:
    if not is_number(text):
        raise ValueError(f"{what} must be a number, not {text!r}")
    return int(text)


def why_not(message: Message, state: ConnectionState, table: int | None) -> str:
    """Why the protocol will not send ``message`` now, in the user's words, and what to do instead."""
    somewhere = isinstance(message, (CreateTable, Join, Watch))
    where = "" if table is None else f" {table}"
    match state:
        case ConnectionState.SEATED if somewhere:
            return f"you are already at table{where}: 'leave' it first"
        case ConnectionState.WATCHING if somewhere:
            return f"you are watching table{where}: 'leave' it first"
        case ConnectionState.WATCHING:
            return "you are only watching: 'leave', then 'join' a table to play"
        case ConnectionState.LOBBY:
            return "you are not at a table: 'new' makes one, 'join TABLE' takes a seat"
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
) -> list[str]:
    """What tab may complete ``text`` to: the word being typed, after ``before`` on the line."""
    words = before.lower().split()
    if not words:
        candidates = [*COMMANDS, *_game_commands(catalog, game, view)]
    elif words[0] == "new":
        candidates = new_words(catalog) if catalog is not None else []
    elif words[0] in ("join", "watch"):
        candidates = [str(table) for table in tables]
    else:
        ui = _ui_for_verb(words[0], catalog, game)
        return [] if ui is None else list(dict.fromkeys(ui.complete(words, text, view)))  # the UI's order
    return sorted({word for word in candidates if word.lower().startswith(text.lower())})


def _game_commands(catalog: Catalog | None, game: GameUI | None, view: TableView | None) -> list[str]:
    """Our game's commands; away from a game, those of every game with a UI of its own."""
    if game is not None:
        return list(game.commands(view))
    uis = catalog.own_uis() if catalog is not None else []
    return [command for ui in uis for command in ui.commands(None)]
