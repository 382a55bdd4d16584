"""What the terminal client asks of a game: its commands, help, completion and look.

The client (``client/``) speaks for the platform: tables, seats, hints asked
for, the envelope every view shares. For what happens inside a game it asks
that game's UI: ``games/<name>/ui.py``, a module whose ``UI`` satisfies
:class:`GameUI`, imported only when the client meets the game (:func:`ui_for`).
A game without one is still playable: the client falls back on a generic UI
that prints events' text and the legal actions and sends what is typed as it
was typed.

Everything a UI reads came from the network: a body or a hint it cannot read is
a :class:`GameDataError`, which the client reports and ignores, never a crash.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import attrs

from ._interface import Outcome
from ._words import counted


class GameDataError(ValueError):
    """Game data from the server (a view's body, a hint's data) that a UI cannot read; says where."""


class CommandError(ValueError):
    """A typed command that means nothing, or nothing allowed; the message says why, for the player."""


@attrs.frozen
class TableView:
    """A view as the client keeps it: the envelope every game shares, checked by the client, and
    the ``body`` as the game's UI read it (:meth:`GameUI.read_body`)."""

    game: str
    variant: str
    names: tuple[str, ...]
    seat: int | None  # None: a spectator
    current: int
    turn: int
    legal: tuple[str, ...]
    result: Outcome | None  # how the game ended, if it has
    body: Any
    bots: frozenset[int] = frozenset()  # the seats a bot plays now: its own, a stand-in, or a resigner's
    kept: frozenset[int] = frozenset()  # the seats a person holds, there or away: the game waits for them
    played_for: int | None = None  # the seat a bot made the events' move on for its person
    bot_turn: bool = False  # a bot plays the turn under way (also for a person: 'auto', a time run out)
    turn_seconds: int = 0  # the table's turn time (0: none)
    away: int = 0  # back from a drop: the moves made while we were away, whose events this view follows
    turn_left: int | None = None  # seconds left of a person's timed turn under way (None: not said)

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def to_move(self) -> int | None:
        """The seat to move, if the game is not over."""
        return None if self.over else self.current


@attrs.frozen
class NumberWord:
    """A word of the game's own that sets a number option in ``new``, followed by its value
    (Notty: ``limit 200`` sets ``turn_limit``); ``low`` may be above the option's own least
    value when that value means "none" and so is not worth typing."""

    option: str
    low: int
    what: str  # what the number counts, for the error: "a number of turns"
    example: int | None = None  # a value to show in the error


class GameUI(Protocol):
    """A game's part of the terminal client. Attributes may be plain class attributes."""

    @property
    def help(self) -> str:
        """The game's lines of ``help``, laid out like the client's own (two-space indent,
        descriptions from column 23); its ``new`` line ends with ``[time SECONDS]``, the turn time
        every game's tables take (:mod:`client.new`). Each command's entry starts a line of its own,
        its description's further lines indented deeper: ``help WORD`` shows a command's entries."""
        ...

    @property
    def variant_noun(self) -> str:
        """What the game calls its variants, in messages and help (Notty: ``preset``)."""
        ...

    @property
    def default_bot(self) -> str | None:
        """The bot ``new`` seats when told nothing; ``None``: the first of the bots the server lists."""
        ...

    @property
    def filler_bot(self) -> str | None:
        """The bot the server seats in the seats left empty on ``start`` (the game's stand-in);
        ``None``: not known, so not named."""
        ...

    @property
    def watchers_hint(self) -> bool:
        """May a watcher ask for a hint (about the hand of the seat to play)? Where every hand is
        face up (Notty); a game with hidden hands gives hints to its players alone."""
        ...

    @property
    def default_seats(self) -> int | None:
        """The seats ``new`` makes when told no number and no players, as the game's rules say
        (huxxy: 4); ``None``: the fewest its variant allows. Kept within what the variant allows."""
        ...

    @property
    def number_words(self) -> Mapping[str, NumberWord]:
        """Words for ``new`` besides the options' own names: ``{"limit": NumberWord(...)}``."""
        ...

    @property
    def asides(self) -> Mapping[str, str]:
        """Phrases a player may type that are no command of the game, each (its words in lower case)
        with the answer naming what does it: huxxy's ``take back``, its rules' words, answered with
        ``undo`` and ``draw``. At the game's table a line beginning with one is answered so, before
        any guess at a spelling or word of another game's command (Ochos Locos's ``take``)."""
        ...

    @property
    def in_sight(self) -> str | None:
        """How the line of the table a player must see to move begins, where one line is it (Ochos
        Locos: ``top card: ``, which a card played must match): a window too short for the whole
        table keeps it in sight after the hand (:mod:`client.screen`); ``None`` where none is."""
        ...

    def listed_options(self, options: Mapping[str, Any], bots: Sequence[str | None]) -> Mapping[str, Any]:
        """Of a table's ``options``, those worth naming in its line of the lobby's list, where ``bots``
        play (each seat a bot plays, by the bot's name as listed; ``None``: the game's stand-in
        playing for a person). Notty names its level only where an expert plays at it; most games
        name them all: ``return options``."""
        ...

    def commands(self, view: TableView | None) -> tuple[str, ...]:
        """The game commands tab may complete at the start of a line."""
        ...

    def is_action(self, verb: str) -> bool:
        """Whether ``verb`` (lower case) is a game command: a script waits for its turn to send it."""
        ...

    def action(self, verb: str, args: Sequence[str], view: TableView | None) -> str:
        """The action text to send for a typed game command (``steal bob`` -> ``steal 1``), checked
        as far as the view allows; :class:`ValueError` (e.g. :class:`CommandError`) says why not."""
        ...

    def caution(self, action: str, view: TableView | None) -> str | None:
        """What a person should know before ``action`` is sent, when it does what they may not mean
        (Notty: stealing a last card makes its holder the winner); the client then asks for the same
        command again. ``None``: send it."""
        ...

    def complete(self, words: Sequence[str], text: str, view: TableView | None) -> list[str]:
        """What the word beginning ``text`` may be after ``words`` (the command, lower case, and
        any arguments typed before it). Notty: cards after ``discard``, names after ``steal``."""
        ...

    def read_body(self, body: Any, names: Sequence[str]) -> Any:
        """The view's ``body`` as this UI renders it; :class:`GameDataError` if it cannot."""
        ...

    def state_text(
        self, table: int, view: TableView, events: Sequence[Mapping[str, Any]], colour: bool, width: int = 80
    ) -> str:
        """The table after a change: what happened (``events``, oldest first), the position, and
        who is to do what (or how the game ended); laid out, where the game can, for a terminal
        ``width`` columns wide (a line longer than that is wrapped by the client, its further rows
        indented)."""
        ...

    def hint_text(self, text: str, actions: Sequence[str], data: Any, colour: bool) -> str:
        """A hint answer; :class:`GameDataError` if ``data`` cannot be read."""
        ...

    def rules(
        self, variant: str | None, view: TableView | None = None, options: Mapping[str, Any] | None = None
    ) -> str:
        """The game's rules in a few lines, for ``rules``: those of ``variant`` (the one at our
        table, ``view`` its view, whose table may have changed some, or before the game's first
        view ``options``, the table's as listed), or of every variant when ``None``. Short, true
        to the game's rules document (named at the end), and saying what a hint shows."""
        ...


def ui_for(game: str) -> GameUI | None:
    """The UI of ``game`` (``games.<game>.ui.UI``, imported on first use), or ``None`` if the game
    has none here: the client then plays it through its generic UI. Only games this install
    registers are looked for, so a server's word can import nothing else."""
    if game not in _LOADED:
        from . import GAMES  # its names only: no game is imported by asking for them

        _LOADED[game] = None
        if game in tuple(GAMES):
            module = f"games.{game.replace('-', '_')}.ui"
            try:
                _LOADED[game] = importlib.import_module(module).UI
            except ModuleNotFoundError as error:
                if error.name != module:  # a module the UI itself needs: a real fault
                    raise
    return _LOADED[game]


_LOADED: dict[str, GameUI | None] = {}


# -- helpers every UI may share -------------------------------------------------------


#: The most digits a number typed may have.
MAX_DIGITS = 18


def spoken_list(words: Sequence[str]) -> str:
    """``ann``, ``ann and bob``, ``ann, bob and cy``: names in a sentence."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def is_number(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also takes '²', which ``int`` refuses), and few enough of
    them to read: ``int`` refuses a string of thousands (no count, table or seat is that big)."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


def nothing_after(verb: str, args: Sequence[str]) -> None:
    """Refuse words after a command complete in itself: ``end now`` is a mistake, not an ``end``.
    Said as every usage is, with why: the line is the word alone."""
    if args:
        raise CommandError(f"usage: {verb} ('{verb}' takes nothing after it)")


def game_and_variant(game: str, variant: str, title: str | None = None) -> str:
    """A game and its variant in a few words (``Notty classic``); a variant named after its game
    (``huxxy-jokers``, ``huxxy``) says both alone."""
    return variant if variant.startswith(game) else f"{title or game} {variant}"


def did_you_mean(word: str, choices: Iterable[str], begun_only: Collection[str] = ()) -> str:
    """``"did you mean 'discard'?"`` for the choice closest to a mistyped ``word`` (any case), or
    ``""`` when none is close: for a refusal to say what was probably meant. A word that begins
    one choice alone was cut short ('res' is 'resign', not the closer-spelled 'rules'). The choices
    in ``begun_only`` are offered only so: a play-test's 'clear' was asked if it meant 'leave'."""
    by_lower = {choice.lower(): choice for choice in choices}
    begun = [lower for lower in by_lower if lower.startswith(word.lower())]
    if len(begun) == 1:
        return f"did you mean {by_lower[begun[0]]!r}?"
    spelled = [lower for lower in by_lower if lower not in begun_only]
    close = difflib.get_close_matches(word.lower(), spelled, n=1, cutoff=0.6)
    return f"did you mean {by_lower[close[0]]!r}?" if close else ""


#: How a seat's line ends (:func:`seat_lines`): this client's seat, a seat a bot plays now, and this
#: client's seat while a bot plays it (after a resignation), which says so once, not "(you) (bot)".
YOU, BOT, BOT_FOR_YOU = "(you)", "(bot)", "(a bot plays for you)"
#: This client's own seat's line, however it is played: for a screen to keep it in sight.
OUR_SEAT = re.compile(rf" (?:{re.escape(YOU)}|{re.escape(BOT_FOR_YOU)})$")
#: ... and the line of a hidden hand, where a game shows it apart from the seats (huxxy, Ochos Locos).
OUR_HAND = re.compile(r"your hand: ")


def seat_lines(
    names: Sequence[str],
    details: Sequence[str],
    to_move: int | None,
    you: int | None,
    bots: Collection[int] = (),
) -> list[str]:
    """A line per seat, ``>`` marking the one ``to_move`` (``None`` once the game is over), and
    tagged :data:`YOU`, :data:`BOT` (a person's seat may be a stand-in's) or :data:`BOT_FOR_YOU`:
    the name, then ``details[seat]`` (what the game shows of the seat)."""
    width = max(len(name) for name in names)
    lines = []
    for seat, (name, detail) in enumerate(zip(names, details, strict=True)):
        marker = ">" if seat == to_move else " "
        tag = (BOT_FOR_YOU if seat in bots else YOU) if seat == you else (BOT if seat in bots else "")
        lines.append(f" {marker} {name:<{width}}{detail} {tag}".rstrip())
    return lines


CardT = TypeVar("CardT")


def read_cards(cards: Any, where: str, parse: Callable[[str], CardT]) -> list[CardT]:
    """The cards a body or hint lists at ``where``, each word read by the game's ``parse``
    (which raises ``ValueError`` for a word that is no card)."""
    if not isinstance(cards, list | tuple) or not all(isinstance(card, str) for card in cards):
        raise GameDataError(f"{where}: not a list of cards")
    try:
        return [parse(card) for card in cards]
    except ValueError as error:
        raise GameDataError(f"{where}: {error}") from None


def count_cards(cards: int) -> str:
    return counted(cards, "card")


#: Whose turn it is when a bot plays our seat's: 'auto', autopilot, a time run out (or a resignation).
BOT_PLAYS_YOUR_TURN = "a bot plays your turn"


def bot_plays_our_turn(view: TableView) -> bool:
    """Is it our seat's turn, in a game under way, with a bot playing it (autopilot, a resignation,
    'auto', a time run out)?"""
    return view.seat is not None and view.current == view.seat and view.bot_turn and not view.over


def to_play(view: TableView) -> str:
    """Whose turn it is, when it is not ours to act in: ``bob to play``; our own seat's, played by
    a bot, in our words (not ``ann to play``, to ann)."""
    return BOT_PLAYS_YOUR_TURN if bot_plays_our_turn(view) else f"{view.names[view.current]} to play"


def game_over_line(outcome: str) -> str:
    """The last line of a finished game's table, whatever the game: how it ended, and what next."""
    return f"game over: {outcome}; 'leave' returns to the lobby"


#: Bold terminal colours by a card's colour letter, the same in every game.
ANSI = {"R": "\x1b[1;31m", "Y": "\x1b[1;33m", "G": "\x1b[1;32m", "B": "\x1b[1;34m", "K": "\x1b[1;90m"}
RESET = "\x1b[0m"


def coloured(letter: str, text: str, colour: bool) -> str:
    """``text`` in the colour whose letter is ``letter`` (as it is without ``colour``)."""
    return f"{ANSI[letter]}{text}{RESET}" if colour else text


def colour_cards(text: str, colour: bool, card_word: re.Pattern[str]) -> str:
    """Colour every card ``card_word`` finds in ``text`` (its first group is the colour letter)."""
    if not colour:
        return text
    return card_word.sub(lambda m: coloured(m.group(1), m.group(0), True), text)


def next_words(words: Sequence[str], text: str, view: TableView | None) -> list[str]:
    """The next word of any legal action that begins with the words typed so far (any case),
    starting with ``text``: completion that offers only what is legal now."""
    if view is None:
        return []
    return [word for word in words_after(view.legal, words) if word.lower().startswith(text.lower())]


def words_after(phrases: Iterable[str], words: Sequence[str]) -> list[str]:
    """The word of each phrase that follows the ``words`` typed of it (any case), once each, in
    order: none of a phrase typed whole."""
    typed = [word.lower() for word in words]
    found = []
    for phrase in phrases:
        parts = phrase.split()
        if len(parts) > len(typed) and [part.lower() for part in parts[: len(typed)]] == typed:
            found.append(parts[len(typed)])
    return list(dict.fromkeys(found))


def legal_verbs(view: TableView) -> tuple[str, ...]:
    """The first words of the legal actions, once each: the commands this turn may take."""
    return tuple(dict.fromkeys(action.split()[0] for action in view.legal))
