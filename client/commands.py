"""What the user types, turned into protocol messages: pure, so it is tested without a terminal.

The client never decides the rules; it only catches what it can see is
wrong before bothering the server (an unknown card, a group that is not one),
and says why at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from protocol import (
    BOT_NAMES,
    DEFAULT_LEVEL,
    LEVELS,
    MAX_TURN_LIMIT,
    PRESETS,
    Act,
    AskHint,
    CardError,
    ConnectionState,
    CreateTable,
    InvalidGroup,
    Join,
    Leave,
    ListTables,
    Message,
    PlayForMe,
    Start,
    Watch,
    classify_group,
    parse_cards,
)

HELP = """\
commands:
  tables                      list the tables on this server
  new [PRESET] [SEATS] [BOT|human...] [LEVEL] [limit TURNS]
                              create a table and sit at it, e.g. 'new classic 3 expert greedy hard';
                              name who sits in the other seats: a bot, or 'human' to keep a seat
                              for a friend ('new human': a table for two people); name none and they
                              are expert bots; seats left unnamed stay open; LEVEL, anywhere in the
                              line, is how well the expert bots play: easy, medium (the default) or hard;
                              'limit 200', anywhere too, ends the game with no winner after 200 turns
  join TABLE [SEAT]           take a seat        watch TABLE    watch a table
  start                       start now; expert bots take the empty seats (creator only)
  draw N                      draw 1-3 cards     steal NAME     steal from a player
  discard CARDS               e.g. 'discard R3 R4 R5'
  dd                          draw-and-discard (five-colour); then 'putback CARD'
  hint                        the most you can discard now, and how
  auto                        let the server play the rest of your turn
  end                         end your turn      leave          leave the table
  help                        this text          quit           leave the server"""

COMMANDS = (
    "tables",
    "new",
    "join",
    "watch",
    "start",
    "draw",
    "steal",
    "discard",
    "dd",
    "putback",
    "hint",
    "auto",
    "end",
    "leave",
    "help",
    "quit",
)

#: Commands that are game actions: in scripted use they wait for the player's turn.
GAME_ACTIONS = frozenset({"draw", "steal", "discard", "dd", "putback", "end", "auto"})


@attrs.frozen
class Reply:
    """What a typed line means: messages to send, text to show the user, or both."""

    messages: tuple[Message, ...] = ()
    say: str = ""
    quit: bool = False
    action: bool = False  # a game action: scripted use waits for the player's turn


def interpret(line: str, view: Mapping[str, Any] | None) -> Reply:
    """The meaning of one typed line, given the latest view of our table (if any)."""
    words = line.split()
    if not words:
        return Reply()
    verb, args = words[0].lower(), words[1:]
    try:
        return _interpret(verb, args, view)
    except (CardError, ValueError) as error:
        return Reply(say=str(error))


#: Commands complete in one word: anything after one is a mistake, not to be dropped silently.
_ALONE = frozenset({"tables", "start", "leave", "hint", "auto", "end"})


def _interpret(verb: str, args: Sequence[str], view: Mapping[str, Any] | None) -> Reply:
    if verb in _ALONE and args:
        return Reply(say=f"'{verb}' takes nothing after it")
    match verb:
        case "help" | "?":
            return Reply(say=HELP)
        case "quit" | "exit":
            return Reply(quit=True)
        case "tables":
            return Reply((ListTables(),))
        case "new":
            return Reply((_new_table(args),))
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
        case "draw":
            if len(args) != 1 or not is_number(args[0]):
                return Reply(say="usage: draw N (1 to 3)")
            return _act(f"draw {int(args[0])}")
        case "steal":
            if len(args) != 1:
                return Reply(say="usage: steal NAME")
            return _act(f"steal {_seat_of(args[0], view)}")
        case "discard":
            cards = parse_cards(" ".join(args))
            if not cards:
                return Reply(say="usage: discard CARDS, e.g. discard R3 R4 R5")
            if view is not None and view.get("preset") in PRESETS:
                try:
                    classify_group(cards, PRESETS[view["preset"]])
                except InvalidGroup as error:
                    return Reply(say=f"not a group: {error}")
            return _act("discard " + " ".join(str(card) for card in cards))
        case "dd" if not args:
            return _act("dd")
        case "putback" | "dd":
            (card,) = parse_cards(" ".join(args)) if len(args) == 1 else (None,)
            if card is None:
                return Reply(say="usage: putback CARD")
            return _act(f"putback {card}")
        case "end":
            return _act("end")
    return Reply(say=f"unknown command {verb!r}; type 'help' for the commands")


def _act(text: str) -> Reply:
    return Reply((Act(text),), action=True)


#: The bot ``new`` seats unless told otherwise: it plays at the table's level.
DEFAULT_BOT = "expert"
#: The word in ``new`` for a seat kept for a person, who joins it later.
HUMAN = "human"
#: The word in ``new`` before a turn limit: a game of bots need not go on for ever.
LIMIT = "limit"
#: What may sit in a seat ``new`` names.
_PLAYERS = (*BOT_NAMES, HUMAN)


def _new_table(args: Sequence[str]) -> CreateTable:
    words = [word.lower() for word in args]
    turn_limit = 0
    if LIMIT in words:
        at = words.index(LIMIT)
        turns = words[at + 1] if at + 1 < len(words) else ""
        if not is_number(turns) or not 1 <= int(turns) <= MAX_TURN_LIMIT:
            raise ValueError(f"'limit' takes a number of turns, 1 to {MAX_TURN_LIMIT:,}, e.g. 'limit 200'")
        turn_limit = int(turns)
        del words[at : at + 2]
        if LIMIT in words:
            raise ValueError("one limit, please")
    levels = {word for word in words if word in LEVELS}
    if len(levels) > 1:
        raise ValueError(f"one level, please, not {' and '.join(sorted(levels, key=LEVELS.index))}")
    level = levels.pop() if levels else DEFAULT_LEVEL
    rest = [word for word in words if word not in LEVELS]
    preset = "classic"
    if rest and not is_number(rest[0]) and rest[0] not in _PLAYERS:
        preset = rest.pop(0)
        if preset not in PRESETS:
            raise ValueError(
                f"{preset!r} is neither a preset ({', '.join(PRESETS)}) nor a player ({', '.join(_PLAYERS)})"
            )
    if rest and is_number(rest[0]):
        seats = int(rest.pop(0))
        others = rest or [DEFAULT_BOT] * (seats - 1)  # what sits in the other seats
    elif rest:  # no count: one seat each for the players named, and one for you
        seats, others = len(rest) + 1, rest
    else:
        seats, others = 2, [DEFAULT_BOT]
    if any(is_number(word) for word in others):
        raise ValueError("the number of seats goes first: new [PRESET] [SEATS] [BOT|human...] [LEVEL]")
    bots = [word for word in others if word != HUMAN]
    if not 2 <= seats <= 3:
        raise ValueError("a table has 2 or 3 seats")
    if HUMAN in others and len(others) >= seats:
        raise ValueError(f"{len(others)} players besides you do not fit at {seats} seats")
    if len(bots) > seats:
        raise ValueError(f"{len(bots)} bots do not fit at {seats} seats")
    return CreateTable(preset, seats, tuple(bots), level=level, turn_limit=turn_limit)


def _number(text: str, what: str) -> int:
    if not is_number(text):
        raise ValueError(f"{what} must be a number, not {text!r}")
    return int(text)


def is_number(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes '²', which ``int`` refuses."""
    return text.isascii() and text.isdigit()


def _seat_of(name: str, view: Mapping[str, Any] | None) -> int:
    if is_number(name):
        return int(name)
    if view is None:
        raise ValueError("you are not at a table")
    names = [str(n).lower() for n in view["names"]]
    if name.lower() not in names:
        raise ValueError(f"no player called {name!r}; players are {', '.join(view['names'])}")
    return names.index(name.lower())


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
            return "not connected yet: wait a moment"
        case _:
            return "the connection is closed"


def completions(before: str, text: str, view: Mapping[str, Any] | None, tables: Sequence[int]) -> list[str]:
    """What tab may complete ``text`` to: the word being typed, after ``before`` on the line."""
    words = before.split()
    if not words:
        candidates: Sequence[str] = COMMANDS
    elif words[0].lower() == "new":
        candidates = [*PRESETS, *_PLAYERS, *LEVELS, LIMIT]
    elif words[0].lower() in ("join", "watch"):
        candidates = [str(table) for table in tables]
    else:
        hand = list(view["hands"][view["seat"]]) if view and view["seat"] is not None else []
        candidates = hand + (list(view["names"]) if view else [])
    return sorted({word for word in candidates if word.lower().startswith(text.lower())})
