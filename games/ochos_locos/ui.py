"""Ochos Locos in the terminal client: its commands, help, completion, and how a table, an event
and a hint look (:class:`games._ui.GameUI`). Only the vocabulary (cards, colours) is imported,
never the engine: what may be played comes from the view's legal actions, the server's word.

A seat's view holds its own hand; a spectator's holds none. Either way the table shows every
hand's size, whose turn it is, the top card and the colour an 8 named, the draw pile's size and
a 2 waiting to be answered.
"""

from __future__ import annotations

import re
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
    colour_cards,
    coloured,
    count_cards,
    game_over_line,
    legal_verbs,
    next_words,
    nothing_after,
    read_cards,
    seat_lines,
    to_play,
)

from .cards import COLOUR_NAMES, COLOUR_WORDS, COLOURS, Card, CardError, read_colour
from .matching import EIGHT
from .rules import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, PRESETS

HELP = """\
  new ochos-locos [VARIANT] [SEATS] [BOT|human...] [time SECONDS]
                      e.g. 'new ochos-locos part4 4 rule expert'; VARIANT is
                      part4 (the default: 2s and locos 8s, 2 to 6 players, 3
                      if you give no number and name no players), part1, part2
                      or part3 (3 players each); name no players and rule bots
                      take every other seat; name some and the seats left over
                      stay open for people to join, until 'start' puts expert
                      bots in them; bots are rule (the default: the rules'
                      automatic strategy), expert (plays each move it could
                      make out in a few hundred deals that fit what the table
                      has shown, and keeps the one that wins most) and random
                      (any legal move)
  play CARD           e.g. 'play G3': a card matching the top card's colour or
                      number
  play EIGHT COLOUR   e.g. 'play R8 Y' or 'play R8 yellow': an 8, naming the
                      colour to follow (R, Y, G or B, or red, yellow, green or
                      blue)
  draw                draw a card, when you hold none you may play
  take two            take two cards, when a 2 is played and you hold no 2 to
                      answer it
  hint                the expert bot's move and why: how often each move you
                      may make won the deals it played out from here, and what
                      the others' draws have shown they lack"""

COMMANDS = ("play", "draw", "take")

_CARD_WORD = re.compile(r"\b([RYGB])([1-8])\b")
#: Marks a card of the hand that may be played now.
PLAYABLE = "*"


@attrs.frozen
class Body:
    """Ochos Locos's part of a view: this seat's hand (``None`` for a spectator), the top card and
    the colour an 8 named, whether a 2 waits to be answered, the discard pile, the draw pile's size
    and every hand's size."""

    hand: tuple[Card, ...] | None
    top: Card
    named: str | None
    two_pending: bool
    pile: tuple[Card, ...]
    stock: int
    sizes: tuple[int, ...]


#: How the table's line of the card to match begins (:attr:`games._ui.GameUI.in_sight`).
TOP_CARD = "top card: "


class OchosUI:
    """Ochos Locos's part of the terminal client (:class:`games._ui.GameUI`)."""

    help = HELP
    variant_noun = "variant"
    default_bot = "rule"
    filler_bot = "expert"  # the game's stand-in: what 'start' seats in empty seats
    default_seats = 3  # "3 players by default"
    watchers_hint = False  # hands are hidden
    number_words: Mapping[str, NumberWord] = MappingProxyType({})
    asides: Mapping[str, str] = MappingProxyType({})
    in_sight = TOP_CARD  # what a card played must match: a play-test's 40x10 window hid it

    def listed_options(self, options: Mapping[str, Any], bots: Sequence[str | None]) -> Mapping[str, Any]:
        return options

    def commands(self, view: TableView | None) -> tuple[str, ...]:
        """At our turn, the first words of the legal actions; else every command."""
        if view is not None and view.legal:
            return legal_verbs(view)
        return COMMANDS

    def caution(self, action: str, view: TableView | None) -> str | None:
        return None  # no move here hands another player the game

    def is_action(self, verb: str) -> bool:
        return verb in COMMANDS

    def action(self, verb: str, args: Sequence[str], view: TableView | None) -> str:
        match verb:
            case "play":
                return _play(args, view)
            case "draw":
                nothing_after(verb, args)
                return _checked("draw", view)
            case "take":
                if [arg.lower() for arg in args] not in (["two"], ["2"]):  # 'take 2' as it is said
                    raise CommandError("usage: take two")
                return _checked("take two", view)
        raise CommandError(f"{verb!r} is not an Ochos Locos command")

    def complete(self, words: Sequence[str], text: str, view: TableView | None) -> list[str]:
        """Only what is legal now: the playable cards after ``play``, the colours after an 8 that
        names one (their letters; a name once more than its first letter is typed: ``ye``,
        ``yellow``), ``two`` after ``take``."""
        options = next_words(words, text, view)
        if len(text) < 2 or len(words) != 2 or words[0].lower() != "play":
            return options
        letters = next_words(words, "", view)  # the colours this 8 may name
        names = [COLOUR_NAMES[letter] for letter in COLOURS if letter in letters]
        return options + [name for name in names if name.startswith(text.lower())]

    def read_body(self, body: Any, names: Sequence[str]) -> Body:
        if not isinstance(body, Mapping):
            raise GameDataError("body: not a map")
        hand = body.get("hand")
        sizes = body.get("sizes")
        if not isinstance(sizes, list | tuple) or len(sizes) != len(names):
            raise GameDataError(f"body.sizes: not a hand size for each of {len(names)} players")
        if not all(type(size) is int and size >= 0 for size in sizes):
            raise GameDataError("body.sizes: not numbers of cards")
        stock = body.get("stock")
        if type(stock) is not int or stock < 0:
            raise GameDataError("body.stock: not a number of cards")
        named = body.get("named")
        if named is not None and (not isinstance(named, str) or len(named) != 1 or named not in COLOURS):
            raise GameDataError("body.named: not a colour (R, Y, G or B) or null")
        two_pending = body.get("two_pending")
        if type(two_pending) is not bool:
            raise GameDataError("body.two_pending: not true or false")
        (top,) = _cards([body.get("top")], "body.top")
        return Body(
            hand=None if hand is None else tuple(sorted(_cards(hand, "body.hand"), key=lambda c: c.rank)),
            top=top,
            named=named,
            two_pending=two_pending,
            pile=tuple(_cards(body.get("pile"), "body.pile")),
            stock=stock,
            sizes=tuple(sizes),
        )

    def state_text(
        self, table: int, view: TableView, events: Sequence[Mapping[str, Any]], colour: bool, width: int = 80
    ) -> str:
        body = _body(view)
        lines = [colour_cards_in(f"  {event['text']}", colour) for event in events if event.get("text")]
        lines.append(
            f"table {table} · {view.variant} · turn {view.turn} · draw pile {count_cards(body.stock)}"
        )
        lines += seat_lines(
            view.names, [f" [{size:>2}]" for size in body.sizes], view.to_move, view.seat, view.bots
        )
        lines.append(table_line(body, colour))
        if body.hand is not None:
            lines.append(f"your hand: {hand_text(body.hand, playable_cards(view.legal), colour)}")
        if view.result is not None:
            lines.append(game_over_line(view.result.text))
        elif view.legal:
            if body.stock == 0 and {"draw", "take two"} & set(view.legal):  # a line of its own: the
                lines.append(EMPTY_DRAW_PILE)  # turn line lists the legal actions alone, as scripts read it
            lines.append("your turn: " + legal_summary(view.legal))
        else:
            lines.append(to_play(view))
        return "\n".join(lines)

    def rules(
        self, variant: str | None, view: TableView | None = None, options: Mapping[str, Any] | None = None
    ) -> str:
        return rules_text(variant)

    def hint_text(self, text: str, actions: Sequence[str], data: Any, colour: bool) -> str:
        # The action is a word; anything else (the expert's rates, say) is the game's to add.
        if not isinstance(data, Mapping) or not isinstance(data.get("action", ""), str):
            raise GameDataError("hint data: not a map of words")
        lines = [colour_cards_in(f"hint: {text or 'nothing to suggest'}", colour)]
        lines += [f"      type: {action}" for action in actions]
        return "\n".join(lines)


UI: GameUI = OchosUI()


# -- the look ------------------------------------------------------------------------


def rules_text(variant: str | None) -> str:
    """Ochos Locos's rules in a few lines, the switches read from the presets (``PRESETS``): the
    variant ``variant``'s, or every variant's. docs/OCHOS-LOCOS.md is the whole text."""
    names = [variant] if variant is not None and variant in PRESETS else list(PRESETS)
    with_twos = [name for name in names if PRESETS[name].twos]
    with_eights = [name for name in names if PRESETS[name].eights]
    some = f"{MIN_PLAYERS}-{MAX_PLAYERS}"  # part4 reads the table's size; the others are for 3
    players = some if names == ["part4"] else f"{some} (part4; 3 in the others)" if "part4" in names else "3"
    lines = [
        f"Ochos Locos ({', '.join(names)}): be the first to empty your hand.",
        f"  32 cards, {' '.join(COLOURS)} x 1 to 8; {HAND_SIZE} dealt to each player, one card turned up",
        f"    starts the pile; players: {players}",
        "  on your turn play a card of the top card's colour or number ('play G3'): you",
        "    must play if you can, else 'draw' (the card drawn is not played this turn)",
    ]
    if with_twos:
        which = "" if with_twos == names else f" ({', '.join(with_twos)})"
        # Not "a 2, or 'take two'": that reads as a choice, and 'take two' is refused while you hold a 2.
        lines += [
            f"  2s{which}: a 2 must be answered with a 2 if you hold one;",
            "    only with no 2 do you 'take two': two cards, turn lost; the penalty never",
            "    builds up, and a 2 turned up to start the pile asks for nothing",
        ]
    if with_eights:
        which = "" if with_eights == names else f" ({', '.join(with_eights)})"
        lines += [
            f"  8s{which}: an 8, not as your last card, names a colour ('play R8 Y';",
            "    'play R8 yellow' too): the next player plays that colour or an 8",
        ]
    lines += [
        "  no winner: a whole round with no card played and nothing to draw (stalemate)",
        "  hint: the expert bot's move and why: how often each move you may make won the",
        "    deals it played out from here, and what the others' draws showed they lack",
        "  the notty project has the whole rules: docs/OCHOS-LOCOS.md",
    ]
    return "\n".join(lines)


def colour_cards_in(text: str, colour: bool) -> str:
    """Colour every card name in a line of text (the server's wording, say)."""
    return colour_cards(text, colour, _CARD_WORD)


def colour_name(letter: str, colour: bool) -> str:
    return coloured(letter, letter, colour)


def playable_cards(legal: Sequence[str]) -> set[str]:
    """The cards the legal actions play (``play G3``, ``play R8 Y``)."""
    return {parts[1] for parts in map(str.split, legal) if len(parts) >= 2 and parts[0] == "play"}


def hand_text(hand: Sequence[Card], playable: set[str], colour: bool) -> str:
    """The hand in rainbow order, each card that may be played now marked ``*``; ``-`` if empty."""
    words = [
        colour_cards_in(str(card), colour) + (PLAYABLE if str(card) in playable else "") for card in hand
    ]
    return " ".join(words) or "-"


def table_line(body: Body, colour: bool) -> str:
    """The top card, the colour an 8 named, and a 2 waiting to be answered."""
    line = f"{TOP_CARD}{colour_cards_in(str(body.top), colour)}"
    if body.named is not None:
        line += f" · colour named: {colour_name(body.named, colour)}"
    if body.two_pending:
        line += " · a 2 to answer: play a 2 or take two"
    return line


#: What a draw does when there is nothing to draw: the turn passes.
#: Said "draw pile", as the rules and the table line say (huxxy's word is "stock"); 80 columns.
EMPTY_DRAW_PILE = "the draw pile is empty: drawing or taking two takes nothing and passes your turn"


def legal_summary(legal: Sequence[str]) -> str:
    """The legal actions, an 8's four colours as one: 'play G3, play R8 COLOUR, draw'."""
    parts: dict[str, None] = {}
    for action in legal:
        words = action.split()
        if len(words) == 3 and words[0] == "play":
            parts[f"play {words[1]} COLOUR"] = None
        else:
            parts[action] = None
    return ", ".join(parts)


# -- reading what was typed and what arrived ---------------------------------------------


def _cards(cards: Any, where: str) -> list[Card]:
    return read_cards(cards, where, Card.parse)


def _body(view: TableView) -> Body:
    """The body this UI read; a view read by another game's UI is a bug in the client."""
    assert isinstance(view.body, Body), f"not an Ochos Locos view: {view.body!r}"
    return view.body


def _play(args: Sequence[str], view: TableView | None) -> str:
    """``play CARD`` or ``play EIGHT COLOUR``, checked against the legal actions at our turn."""
    args = action_words(" ".join(args))
    if len(args) not in (1, 2):
        raise CommandError("usage: play CARD, or play EIGHT COLOUR (e.g. play R8 Y)")
    try:
        card = Card.parse(args[0].upper())
    except CardError as error:
        raise CommandError(str(error)) from None
    text = f"play {card}"
    if len(args) == 2:
        named = read_colour(args[1])
        if named is None and card.number != EIGHT:
            # 'play B4 B6' is two cards; 'play G2 x' neither two cards nor a card and a colour.
            only = f"play {card} (only an 8 is followed by a colour)"
            if not _is_card(args[1]):
                raise CommandError(f"{args[1]!r} is not a card or a colour: {only}")
            raise CommandError(f"one card a turn: {only}")
        if named is None:
            raise CommandError(f"{args[1]!r} is not a colour: name it {COLOUR_WORDS}")
        text += f" {named}"
    hand = None if view is None else _body(view).hand
    if hand is not None and card not in hand:  # first: nothing else about a card we lack matters
        raise CommandError(f"you hold no {card}")
    if view is None or not view.legal:
        return text  # not our turn: the server judges it
    if text in view.legal:
        return text
    if any(action.startswith(f"{text} ") for action in view.legal):
        raise CommandError(f"name a colour after the 8: play {card} {COLOUR_WORDS}")
    if len(args) == 2 and f"play {card}" in view.legal:
        # An 8 names none as the last card, or where the rules have no naming eights; no other card ever.
        last = hand is not None and len(hand) == 1
        named = (
            "as your last card, an 8 names no colour"
            if last
            else f"an 8 names no colour in {view.variant} (it does in part3 and part4)"
        )
        why = named if card.number == EIGHT else "only an 8 names a colour"
        raise CommandError(f"{why}: play {card}")
    raise CommandError(
        f"{card} cannot be played {_on_what(_body(view))}; you may {legal_summary(view.legal)}"
    )


def _is_card(text: str) -> bool:
    try:
        Card.read(text)
    except CardError:
        return False
    return True


def _on_what(body: Body) -> str:
    """What a card must match now, said as the reason one does not: "on Y8 (G named)"."""
    if body.two_pending:
        return f"on {body.top}: a 2 must be answered with a 2"
    named = f" ({COLOUR_NAMES[body.named]} named)" if body.named else ""
    return f"on {body.top}{named}"


def _checked(text: str, view: TableView | None) -> str:
    """``draw`` or ``take two``, refused at our turn when it is not one of the legal actions, saying
    the rule: one who can play must (and a 2 must be answered with a 2 by one who holds one)."""
    if view is not None and view.legal and text not in view.legal:
        pending = _body(view).two_pending
        if text == "take two":
            why = "a 2 must be answered with a 2, and you hold one" if pending else "there is no 2 to answer"
        elif pending:
            why = "a 2 is answered with a 2, or by taking two: not by drawing"
        elif any(action.startswith("play ") for action in view.legal):
            why = "you must play when you can"
        else:
            why = f"you may not {text} now"
        raise CommandError(f"{why}; you may {legal_summary(view.legal)}")
    return text
