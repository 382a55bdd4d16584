"""huxxy in the terminal client: its commands, help, completion, and how a table, an event and a
hint look (:class:`games._ui.GameUI`). Only the vocabulary (cards, points, the turn's limits) is
imported, never the engine's play: the server judges every play; the client refuses at once only
what the view shows is wrong (a card not held, a group that is not there, a move before opening).

The table is drawn with its groups numbered as players type them (from 1), one a line while they
are few; a longer table shares lines in columns (or, when its groups are too long for two
columns, side by side as many a line as fit), so that it stays whole in an 80 by 24 screen,
whose table pane the full-screen client cuts at the bottom (where the hand is) when it is too tall.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from games._interface import action_words
from games._ui import (
    CommandError,
    GameDataError,
    GameUI,
    NumberWord,
    TableView,
    coloured,
    count_cards,
    game_over_line,
    is_number,
    nothing_after,
    read_cards,
    seat_lines,
    to_play,
)
from games._words import counted

from ._cards import Card, CardError, reading_order
from ._groups import opening_points
from .actions import ParseError, clauses, holder, no_group, said_group, same_group
from .engine import (
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_PLAYS,
    MAX_TURN_PLAYS,
    MIN_PLAYERS,
    MOVE_FIRST,
    MOVE_NOT_OPENED,
    OPENING_POINTS,
    blocked_end,
    nothing_played,
    too_many_plays,
)

HELP = """\
  new huxxy [VARIANT] [SEATS] [BOT|human...] [time SECONDS]
                      e.g. 'new huxxy 4 greedy expert random'; VARIANT is
                      huxxy (the default) or huxxy-jokers (two jokers join the
                      packs); 2 to 4 seats (4 if you give no number and name
                      no players); name no players and greedy bots take every
                      other seat; name some and the seats left over stay open
                      for people to join, until 'start' puts greedy bots in
                      them; bots are greedy (the default: the solver's best
                      turn), expert and random
  play CARD... [to GROUP]
                      cards from your hand: 'play 7H 8S 9H' starts a new group
                      with them, 'play 7H to 3' adds to group 3 ('to new': a
                      new group)
  move CARD... [from GROUP] [to GROUP]
                      table cards, once you have opened: 'move 5C from 2 to 4';
                      'move 5C from 2' starts a new group; 'move 5C to 4' when
                      one group holds 5C
  undo                take back your last play of this turn
  end                 end your turn: every group valid (an opening: 24 points
                      from your hand)
  draw                take back this turn's plays, then draw a card: your turn
                      ends
  hint                the solver's best turn from your hand, as the commands to
                      type"""

COMMANDS = ("play", "move", "undo", "end", "draw")

#: What ``take back`` is answered with (:attr:`games._ui.GameUI.asides`): the commands that take back.
TAKE_BACK = (
    "to take back: 'undo' takes back your last play of this turn; "
    "'draw' takes back the whole turn, then draws a card (your turn ends)"
)

#: A card word in any text: value and suit, or a joker.
_CARD_WORD = re.compile(r"(?<![\w])([A2-90JQK][SHDC]|XX)(?![\w])")
#: The columns a table is laid out in: an 80-column terminal, less a margin.
WIDTH = 78
MARGIN = 2
#: Below this many columns every group takes a line of its own, whatever the table's size.
NARROWEST = 20
#: Up to this many groups the table takes one line each; more share lines, in columns.
ONE_A_LINE = 6
MAX_COLUMNS = 4
#: The mark of a group not valid now (only ever during a turn).
INVALID = "!"
#: The word after an invalid group's cards, in every layout.
INVALID_WORD = "invalid"
#: The turn line's columns at most, in an 80-column terminal: its last column left free.
TURN_WIDTH = 79


@attrs.frozen
class Body:
    """huxxy's part of a view: this seat's hand (``None`` for a spectator), the table's groups
    (0-based here; a group emptied mid-turn keeps its place), the groups not valid now, the
    stock's size, every hand's size and opening, and this turn's plays and hand cards placed."""

    hand: tuple[Card, ...] | None
    table: tuple[tuple[Card, ...], ...]
    invalid: frozenset[int]
    stock: int
    sizes: tuple[int, ...]
    opened: tuple[bool, ...]
    plays: int
    max_plays: int
    placed: tuple[Card, ...]
    plays_left: int = MAX_TURN_PLAYS  # the turn's, undone plays counted (a server before it: not said)


class HuxxyUI:
    """huxxy's part of the terminal client (:class:`games._ui.GameUI`)."""

    help = HELP
    variant_noun = "variant"
    default_bot = "greedy"
    filler_bot = "greedy"  # the game's stand-in: what 'start' seats in empty seats
    default_seats = MAX_PLAYERS  # "4 players (a table may also be created for 2 or 3)"
    watchers_hint = False  # hands are hidden
    number_words: Mapping[str, NumberWord] = MappingProxyType({})
    #: The rules' "take the whole table turn back", typed as a command: what does it here.
    asides: Mapping[str, str] = MappingProxyType({"take back": TAKE_BACK})
    in_sight = None  # the table is its groups, many lines: 'table' shows them all

    def listed_options(self, options: Mapping[str, Any], bots: Sequence[str | None]) -> Mapping[str, Any]:
        return options

    def commands(self, view: TableView | None) -> tuple[str, ...]:
        """Every command; at our turn, those the turn line offers (:func:`turn_lines`): 'play' with
        cards in hand and plays left, 'move' once opened and a play made, 'undo' and 'end' only when
        they may be taken (no 'end' while a group is invalid or an opening short)."""
        if view is not None and view.legal and view.seat is not None:
            return tuple(_turn_verbs(view, _body(view)))
        return COMMANDS

    def caution(self, action: str, view: TableView | None) -> str | None:
        return None  # no move here hands another player the game

    def is_action(self, verb: str) -> bool:
        return verb in COMMANDS

    def action(self, verb: str, args: Sequence[str], view: TableView | None) -> str:
        body = None if view is None else _body(view)
        ours = view is not None and body is not None and view.seat is not None and bool(view.legal)
        match verb:
            case "play" | "move":
                jokers = view is None or view.variant != "huxxy"  # no table: either variant
                typed = _parse(verb, args, jokers)
                if not jokers and any(card.is_joker for card in typed.cards):
                    raise CommandError("there are no jokers in huxxy: huxxy-jokers has two")
                return typed.checked(body, view.seat if view is not None and ours else None)
            case "undo" | "end" | "draw":
                nothing_after(verb, args)
                if ours and body is not None and verb != "draw" and body.plays == 0:
                    if verb == "undo":
                        raise CommandError("nothing has been played this turn to undo")
                    raise CommandError(nothing_played(body.plays_left))
                return verb
        raise CommandError(f"{verb!r} is not a huxxy command")

    def complete(self, words: Sequence[str], text: str, view: TableView | None) -> list[str]:
        """The cards in hand after ``play``, those on the table after ``move`` (once we have
        opened); then ``from`` and the groups holding the cards named, ``to`` and the other groups
        (and ``new``)."""
        body = None if view is None else _body(view)
        if words and words[0] == "move" and body is not None and not _may_move(view, body):
            return []  # table cards are not ours to move: a spectator's, or before we have opened
        return [word for word in _next_words(words, body) if word.lower().startswith(text.lower())]

    def read_body(self, body: Any, names: Sequence[str]) -> Body:
        if not isinstance(body, Mapping):
            raise GameDataError("body: not a map")
        hand = body.get("hand")
        table = body.get("table")
        if not isinstance(table, list | tuple):
            raise GameDataError("body.table: not a list of groups")
        groups = tuple(tuple(_cards(group, f"body.table[{index}]")) for index, group in enumerate(table))
        invalid = body.get("invalid")
        if not isinstance(invalid, list | tuple) or not all(
            type(index) is int and 0 <= index < len(groups) for index in invalid
        ):
            raise GameDataError(f"body.invalid: not numbers of groups (0 to {len(groups) - 1})")
        stock = body.get("stock")
        if type(stock) is not int or stock < 0:
            raise GameDataError("body.stock: not a number of cards")
        sizes = body.get("sizes")
        if not isinstance(sizes, list | tuple) or len(sizes) != len(names):
            raise GameDataError(f"body.sizes: not a hand size for each of {len(names)} players")
        if not all(type(size) is int and size >= 0 for size in sizes):
            raise GameDataError("body.sizes: not numbers of cards")
        opened = body.get("opened")
        if not isinstance(opened, list | tuple) or len(opened) != len(names):
            raise GameDataError(f"body.opened: not true or false for each of {len(names)} players")
        if not all(type(flag) is bool for flag in opened):
            raise GameDataError("body.opened: not true or false")
        max_plays = body.get("max_plays")
        if type(max_plays) is not int or max_plays < 1:
            raise GameDataError("body.max_plays: not a number of plays")
        plays = body.get("plays")
        if type(plays) is not int or not 0 <= plays <= max_plays:
            raise GameDataError(f"body.plays: not a number of plays, 0 to {max_plays}")
        plays_left = body.get("plays_left", MAX_TURN_PLAYS)
        if type(plays_left) is not int or not 0 <= plays_left <= MAX_TURN_PLAYS:
            raise GameDataError(f"body.plays_left: not a number of plays, 0 to {MAX_TURN_PLAYS}")
        return Body(
            hand=None if hand is None else tuple(sorted(_cards(hand, "body.hand"), key=reading_order)),
            table=groups,
            invalid=frozenset(invalid),
            stock=stock,
            sizes=tuple(sizes),
            opened=tuple(opened),
            plays=plays,
            max_plays=max_plays,
            placed=tuple(_cards(body.get("placed"), "body.placed")),
            plays_left=plays_left,
        )

    def state_text(
        self, table: int, view: TableView, events: Sequence[Mapping[str, Any]], colour: bool, width: int = 80
    ) -> str:
        body = _body(view)
        lines = [colour_cards_in(f"  {event['text']}", colour) for event in events if event.get("text")]
        header = f"table {table} · {view.variant} · turn {view.turn} · stock {count_cards(body.stock)}"
        plays = f"{body.plays}/{body.max_plays}"
        brief = f"table {table} · {view.variant} · turn {view.turn} · stock {body.stock} · plays {plays}"
        # In a narrow terminal, shorter rather than split: a play-test at 60 columns read 'plays' and
        # '0/6' on two lines.
        fitting = [f"{header} · plays this turn {plays}", f"{header} · plays {plays}", brief]
        if view.over:  # no turn under way to count the plays of
            lines.append(header)
        else:
            lines.append(next((line for line in fitting if len(line) <= width - MARGIN), brief))
        details = [
            f" [{size:>2}] {'opened' if opened else 'not opened'}"
            for size, opened in zip(body.sizes, body.opened, strict=True)
        ]
        lines += seat_lines(view.names, details, view.to_move, view.seat, view.bots)
        mover = None if view.seat == view.current else view.names[view.current]
        lines += table_lines(body, colour, width - MARGIN, mover)
        if body.hand is not None:
            lines.append(f"your hand: {colour_cards_in(cards_text(body.hand), colour) or '-'}")
        lines += turn_lines(view, body, width - 1)
        return "\n".join(lines)

    def hint_text(self, text: str, actions: Sequence[str], data: Any, colour: bool) -> str:
        if not isinstance(data, Mapping):
            raise GameDataError("hint data: not a map")
        if "placed" in data:
            _cards(data["placed"], "hint data.placed")
        points = data.get("points", 0)
        if type(points) is not int or points < 0:
            raise GameDataError("hint data.points: not a number of points")
        lines = [colour_cards_in(f"hint: {text or 'nothing to suggest'}", colour)]
        lines += [colour_cards_in(f"      type: {action}", colour) for action in actions]
        return "\n".join(lines)

    def rules(
        self, variant: str | None, view: TableView | None = None, options: Mapping[str, Any] | None = None
    ) -> str:
        return rules_text(variant)


UI: GameUI = HuxxyUI()


# -- the look ------------------------------------------------------------------------


def rules_text(variant: str | None) -> str:
    """huxxy's rules in a few lines (``variant``'s, or both variants' when ``None``); the whole
    text is docs/HUXXY.md."""
    jokers = variant != "huxxy"
    only = variant == "huxxy-jokers"
    pack = "two packs, two jokers (106 cards)" if only else "two packs (104 cards)"
    names = variant if variant in ("huxxy", "huxxy-jokers") else "huxxy, huxxy-jokers"
    lines = [
        f"huxxy ({names}): place every card of your hidden hand on the table",
        f"  {pack}; {HAND_SIZE} cards to each of {MIN_PLAYERS}-{MAX_PLAYERS} players; a card is",
        "    a value (A 2-9 0 J Q K; 0 is ten) and a suit (S H D C; H and D are red)",
        "  a group is a run: 3 or more cards of consecutive values, red and black",
        "    alternating (ace low only), or N-of-a-kind: 3 or more of one value (3 or 4",
        "    cards: every suit different; more than 4: every suit present)",
    ]
    if jokers:
        which = "the two jokers" if only else "two jokers (huxxy-jokers)"
        jokers_text = (
            f"{which}, written XX: at most one to a group, as a card the group lacks that makes it valid;"
            " 0 towards an opening, 48 left in a hand"
        )  # its breaks depend on how the jokers are named: a short line was left in the middle
        lines += textwrap.wrap(jokers_text, 79, initial_indent="  ", subsequent_indent="    ")
    lines += [
        f"  your turn: 'draw' a card, or make 1 to {MAX_PLAYS} plays: a card from your hand to a",
        "    group or a new one ('play'), or, once opened, a table card to another",
        "    group ('move'); the first play is from your hand; groups are numbered from 1",
        "  the table may be invalid while you play; 'end' needs every group valid;",
        "    'undo' takes back a play; 'draw' takes back the whole turn, then draws",
        "  opening: your first turn on the table plays from your hand only, and at least",
        f"    {OPENING_POINTS} points (A 1, 2 to 10 their number, J 11, Q 12, K 13)",
        "  the end: an empty hand, or the stock used up; fewest points in hand first;",
        "    ties share a place. hint: the solver's best turn, as commands to type",
        "  the notty project has the whole rules: docs/HUXXY.md",
    ]
    return "\n".join(lines)


def colour_cards_in(text: str, colour: bool) -> str:
    """Every card in ``text`` coloured: hearts and diamonds red, a joker yellow, spades and clubs
    as the terminal writes."""
    if not colour:
        return text
    return _CARD_WORD.sub(lambda found: _coloured_card(found.group(0)), text)


def _coloured_card(word: str) -> str:
    if word == "XX":
        return coloured("Y", word, True)
    return coloured("R", word, True) if word[1] in "HD" else word


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards))


def group_cells(body: Body) -> list[str]:
    """Each group as a person reads it: its number (from 1), ``!`` if it is not valid now, its
    cards (an emptied group: ``(empty)``), and then, if it is not valid, the word ``invalid``."""
    return [
        f"{index + 1:>2}{INVALID if index in body.invalid else ' '} {cards_text(group) or '(empty)'}"
        + (f"  {INVALID_WORD}" if index in body.invalid else "")
        for index, group in enumerate(body.table)
    ]


def table_lines(body: Body, colour: bool, width: int = WIDTH, mover: str | None = None) -> list[str]:
    """The table: a group a line while they are few, else in as many columns (up to
    ``MAX_COLUMNS``, numbered down each column) as fit ``width``, or failing that lined up
    across the lines, an invalid group's word included; then the invalid ones named. A group is
    never split between lines: where no two fit side by side, each has a line of its own.

    ``mover``: whose unfinished turn left groups invalid, when it is not the reader's own (a watcher
    or another player read "every group must be valid to end the turn" as said to them)."""
    cells = group_cells(body)
    if not cells:
        return ["the table is empty"]
    if len(cells) <= ONE_A_LINE or width < NARROWEST:
        lines = cells
    else:
        lines = _columns(cells, width) or _grid(cells, width) or _flow(cells, width)
    lines = [colour_cards_in(line.rstrip(), colour) for line in lines]
    if body.invalid:
        numbers = ", ".join(str(index + 1) for index in sorted(body.invalid))
        which = "group" + ("s" if len(body.invalid) > 1 else "")
        if mover is None:
            lines.append(f"{INVALID} invalid: {which} {numbers}; every group must be valid to end the turn")
        else:
            lines.append(f"{INVALID} {mover}'s turn so far leaves {which} {numbers} invalid")
    return lines


def _columns(cells: Sequence[str], width: int) -> list[str] | None:
    """``cells`` in the most columns that fit ``width``, numbered down each, or ``None`` if two do not."""
    for wanted in range(min(MAX_COLUMNS, len(cells)), 1, -1):
        rows = math.ceil(len(cells) / wanted)
        lines = _side_by_side([cells[start : start + rows] for start in range(0, len(cells), rows)], width)
        if lines is not None:
            return lines
    return None


def _grid(cells: Sequence[str], width: int) -> list[str] | None:
    """``cells`` in reading order, lined up in the most columns that fit ``width``, or ``None`` if
    two do not: where a column of groups cannot be as long as another, the groups still line up."""
    for wanted in range(min(MAX_COLUMNS, len(cells)), 1, -1):
        lines = _side_by_side([list(cells[column::wanted]) for column in range(wanted)], width)
        if lines is not None:
            return lines
    return None


def _side_by_side(columns: Sequence[Sequence[str]], width: int) -> list[str] | None:
    """``columns`` (the first the longest) side by side, each as wide as its widest cell, or
    ``None`` if they do not fit ``width``."""
    widths = [max(map(len, column)) for column in columns]
    if sum(widths) + 3 * (len(columns) - 1) > width:
        return None
    return [
        "   ".join(
            column[row].ljust(wide) for column, wide in zip(columns, widths, strict=True) if row < len(column)
        )
        for row in range(len(columns[0]))
    ]


def _flow(cells: Sequence[str], width: int) -> list[str]:
    """``cells`` side by side in reading order, as many a line as fit ``width``: for long groups,
    which no two columns fit, so that a tall table still leaves the hand on the screen."""
    lines: list[str] = []
    for cell in cells:
        if lines and len(lines[-1]) + 3 + len(cell) <= width:
            lines[-1] += "   " + cell
        else:
            lines.append(cell)
    return lines


def _spent(body: Body) -> bool:
    """Has the turn made every play a turn may, undone ones counted, with room left among its six?"""
    return body.plays < body.max_plays and body.plays_left == 0


def _turn_verbs(view: TableView, body: Body) -> list[str]:
    """The commands our turn may take now, in the order the turn line names them."""
    assert view.seat is not None
    room = body.plays < body.max_plays and not _spent(body)
    verbs = (["play"] if room and body.hand else []) + (
        ["move"] if room and body.opened[view.seat] and body.plays else []
    )
    verbs += ["undo"] if body.plays else []
    verbs += ["end"] if "end" in view.legal else []  # not while a group is invalid or an opening short
    return [*verbs, "draw"]


def turn_lines(view: TableView, body: Body, width: int = TURN_WIDTH) -> list[str]:
    """Who is to do what: at our turn, the commands that apply, the plays made and an opening's
    points so far; else whose turn it is; or how the game ended. In lines of at most ``width``
    columns (an 80-column terminal's, less one), each after the first indented, as the clients
    indent a line they wrap: one line said it all, before an opening, in up to 150 columns, which the
    terminal broke mid-word."""
    if view.result is not None:  # broken after a clause or a player's points, not within a name
        return _packed(re.split(r"(?<=[,;:]) ", game_over_line(view.result.text)), width, " ")
    made = f"{body.plays} of {body.max_plays} plays made"
    if not view.legal or view.seat is None:
        return [to_play(view) + (f": {made}" if body.plays else "")]  # a name is short enough
    opened = body.opened[view.seat]
    verbs = _turn_verbs(view, body)
    parts = [
        "your turn: " + ", ".join(verbs[:-1]) + f" or {verbs[-1]}" if len(verbs) > 1 else "your turn: draw"
    ]
    if _spent(body):
        parts.append(f"no plays left ({MAX_TURN_PLAYS} a turn, undone ones counted)")
    elif body.plays_left < body.max_plays - body.plays:  # fewer than the six allow: say so
        parts.append(
            f"{counted(body.plays_left, 'play')} left ({MAX_TURN_PLAYS} a turn, undone ones counted)"
        )
    if not body.plays:
        parts += [] if opened else [f"an opening needs {OPENING_POINTS} points from your hand"]
        return _packed(parts, width)
    parts.append(made)
    if not opened:
        points = opening_points(body.placed)
        if points < OPENING_POINTS:
            joker = " (a joker counts 0)" if any(card.is_joker for card in body.placed) else ""
            parts.append(f"{points} of {OPENING_POINTS} points to open{joker}")
        elif body.invalid:  # not "enough to open" while 'end' is refused for a group
            parts.append(f"{points} points: enough to open once every group is valid")
        else:
            parts.append(f"{points} points: enough to open")
    return _packed(parts, width)


def _packed(parts: Sequence[str], width: int, separator: str = " · ") -> list[str]:
    """``parts`` joined by ``separator``, as many a line as fit ``width``, a part never split; the
    lines after the first indented two columns."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(separator) + len(part) <= width:
            lines[-1] += separator + part
        else:
            lines.append(f"  {part}" if lines else part)
    return lines


# -- reading what was typed and what arrived ---------------------------------------------


def _cards(cards: Any, where: str) -> list[Card]:
    return read_cards(cards, where, Card.parse)


def _body(view: TableView) -> Body:
    """The body this UI read; a view read by another game's UI is a bug in the client."""
    assert isinstance(view.body, Body), f"not a huxxy view: {view.body!r}"
    return view.body


USAGE = {
    "play": "usage: play CARD... [to GROUP], e.g. 'play 7H 8S 9H' (a new group) or 'play 7H to 3'",
    "move": "usage: move CARD... [from GROUP] [to GROUP], e.g. 'move 5C from 2 to 4'",
}


@attrs.frozen
class Typed:
    """A ``play`` or ``move`` as typed: the cards, and the groups (0-based) named, if any."""

    verb: str
    cards: tuple[Card, ...]
    source: int | None  # move only: None when left out
    target: int | None  # None: a new group

    def text(self) -> str:
        words = [self.verb, cards_text(self.cards)]
        if self.source is not None:
            words.append(f"from {self.source + 1}")
        if self.target is not None:
            words.append(f"to {self.target + 1}")
        return " ".join(words)

    def checked(self, body: Body | None, seat: int | None) -> str:
        """The action's text, after the checks ``body`` allows: the hand (always), and, at our turn
        (``seat`` given), the groups, an opening and the plays left. A move naming no group to take
        from is sent naming the one group that holds its cards."""
        if body is None or body.hand is None:
            return self.text()
        if self.verb == "play":
            _check_held(self.cards, body.hand)
        if seat is None:
            return self.text()
        if body.plays + len(self.cards) > body.max_plays:
            short = 0 if body.opened[seat] else max(0, OPENING_POINTS - opening_points(body.placed))
            blocked = blocked_end(sorted(body.invalid), short)
            raise CommandError(too_many_plays(body.max_plays, body.plays, len(self.cards), blocked))
        groups = len(body.table)
        if self.verb == "play":
            if self.target is not None and self.target >= groups:
                raise CommandError(no_group(self.target, groups, target=True))
            return self.text()
        # A move of cards in our hand that no group holds: a play, which the rules below do not bar
        # (a play-test was told the turn's first play must be from the hand, of a card in it).
        to_a_group = self.target is None or self.target < groups  # else the group named is what is wrong
        held = _in_hand(self.cards, body.hand)
        if self.source is None and to_a_group and held and not _holders(self.cards, body.table):
            play = attrs.evolve(self, verb="play").text()
            named = cards_text(self.cards)
            one = len(self.cards) == 1
            raise CommandError(
                f"{named} {'is' if one else 'are'} in your hand: '{play}' plays {'it' if one else 'them'}"
            )
        # A move is judged in the engine's order: the rules that bar any move now (not opened, the
        # turn's first play) before the groups it names, the group it takes from before the other.
        if not body.opened[seat]:
            raise CommandError(MOVE_NOT_OPENED)
        if not body.plays:
            raise CommandError(MOVE_FIRST)
        source = self.source if self.source is not None else _holder(self.cards, body.table)
        if source >= groups:
            raise CommandError(no_group(source, groups, target=False))
        missing = Counter(self.cards) - Counter(body.table[source])
        if missing:
            raise CommandError(f"group {source + 1} holds no {cards_text(sorted(missing.elements()))}")
        if source == self.target:
            raise CommandError(same_group(self.cards, source, said_from=self.source is not None))
        if self.target is not None and self.target >= groups:
            raise CommandError(no_group(self.target, groups, target=True))
        return attrs.evolve(self, source=source).text()


def _parse(verb: str, args: Sequence[str], jokers: bool) -> Typed:
    """``play CARD... [to GROUP]`` or ``move CARD... [from GROUP] [to GROUP]``; CommandError if not.
    ``jokers``: whether the game has them (a card's error names ``XX`` only then). Cards may be
    separated by commas too, as in Notty: ``play 5S,5H,5C``."""
    args = action_words(" ".join(args))
    try:
        said = clauses(args)
    except ParseError as error:
        raise CommandError(f"{error}; {USAGE[verb]}") from None
    args = said.pop("")
    target: int | None = None
    if "to" in said:
        if len(said["to"]) != 1:
            raise CommandError(f"say one group after 'to': its number, or new; {USAGE[verb]}")
        target = None if said["to"][0].lower() == "new" else _group_number(said["to"][0])
    source: int | None = None
    if "from" in said:
        if verb == "play":
            raise CommandError("play takes cards from your hand; to move a table card: move CARD from GROUP")
        if len(said["from"]) != 1:
            raise CommandError(f"say one group after 'from': its number; {USAGE[verb]}")
        source = _group_number(said["from"][0])
    if not args:
        raise CommandError(USAGE[verb])
    if len(args) > MAX_PLAYS:
        raise CommandError(f"a turn has at most {MAX_PLAYS} plays: name at most {MAX_PLAYS} cards")
    try:
        cards = tuple(Card.parse(arg, jokers) for arg in args)
    except CardError as error:
        raise CommandError(str(error)) from None
    return Typed(verb, cards, source, target)


def _group_number(word: str) -> int:
    """A group's number as typed, 0-based; one past the table's groups is refused by the check
    that knows how many there are (:meth:`Typed.checked`), in the same words at any size."""
    if word.isascii() and word.isdigit() and not is_number(word):
        shown = word if len(word) <= 20 else f"{word[:20]}..."  # cut only where it is cut
        raise CommandError(f"there is no group {shown}: no table has that many")
    if not is_number(word) or int(word) < 1:
        raise CommandError(f"{word[:20]!r} is not a group: groups are numbered from 1")
    return int(word) - 1


def _check_held(cards: Sequence[Card], hand: Sequence[Card]) -> None:
    held = Counter(hand)
    for card, wanted in Counter(cards).items():
        if held[card] == 0:
            raise CommandError(f"you do not hold {card}")
        if wanted > held[card]:
            raise CommandError(f"you hold {held[card]} {card}, not {wanted}")


def _holder(cards: Sequence[Card], table: Sequence[Sequence[Card]]) -> int:
    try:
        return holder(cards, table)
    except ParseError as error:
        raise CommandError(str(error)) from None


def _next_words(words: Sequence[str], body: Body | None) -> list[str]:
    """What may follow ``words`` (the command, lower case, and the arguments typed so far)."""
    if not words or words[0] not in ("play", "move") or body is None:
        return []
    verb, rest = words[0], _without_group([word.lower() for word in words[1:]])
    groups = [str(index + 1) for index in range(len(body.table))]
    if rest[-2:] == ["to", "new"] and words[-1].lower() == "new":
        return ["group"]  # 'to new group', as people say it
    if rest and rest[-1] == "to":
        if "from" in rest[:-2]:
            source: str | None = rest[rest.index("from") + 1]
        else:  # the one group holding the cards named is where they come from
            named = _named(rest[:-1])
            holders = _holders(named, body.table)
            source = str(holders[0] + 1) if verb == "move" and named and len(holders) == 1 else None
        new = [] if words[-1].lower() == "group" else ["new"]  # 'to group new' is read, but reads oddly
        return [*(group for group in groups if group != source), *new]
    if "to" in rest:
        return []
    named = _named(rest[: rest.index("from")] if "from" in rest else rest)
    if verb == "play":
        if "from" in rest or body.hand is None:
            return []
        left = Counter(body.hand) - Counter(named)
        cards = [str(card) for card in dict.fromkeys(body.hand) if left[card]]
        return cards + (["to"] if named else [])
    holders = _holders(named, body.table)
    if rest and rest[-1] == "from":
        return [str(index + 1) for index in holders]
    if "from" in rest:
        return ["to"]
    more = dict.fromkeys(
        card for index in holders for card in sorted(Counter(body.table[index]) - Counter(named))
    )
    return [str(card) for card in more] + (["from", "to"] if named and holders else [])


def _without_group(words: Sequence[str]) -> list[str]:
    """``words`` without the word ``group`` where a group is said with it (``to group 3``, ``to new
    group``), as :func:`clauses` reads them."""
    kept: list[str] = []
    clause: list[str] | None = None  # the words kept since the last 'to' or 'from'
    for word in words:
        if clause is not None and said_group(clause, word):
            continue
        kept.append(word)
        clause = [] if word in ("to", "from") else None if clause is None else [*clause, word]
    return kept


def _in_hand(cards: Sequence[Card], hand: Sequence[Card]) -> bool:
    return not Counter(cards) - Counter(hand)


def _holders(cards: Sequence[Card], table: Sequence[Sequence[Card]]) -> list[int]:
    """The groups holding every one of ``cards``."""
    return [index for index, group in enumerate(table) if not Counter(cards) - Counter(group)]


def _may_move(view: TableView | None, body: Body) -> bool:
    """Could this seat move table cards: seated, and opened?"""
    return view is not None and view.seat is not None and body.opened[view.seat]


def _named(words: Sequence[str]) -> list[Card]:
    """The cards among ``words`` (a word that is no card is left out: completion never refuses)."""
    cards = []
    for word in words:
        try:
            cards.append(Card.parse(word))
        except CardError:
            continue
    return cards
