"""What a player types in huxxy, and the plays it stands for.

Groups are numbered from 1 for people and from 0 in the engine. One command
may make several plays of one kind (``play 7H 8S 9H`` starts a group of three);
``str(action)`` is the record's text, and :func:`parse_action` reads it back.

    play CARD... [to GROUP]          cards from your hand: to a group, or to a new one
    move CARD... from GROUP [to GROUP]  table cards from one group: to another, or a new one
    undo | draw | end
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import attrs

from games._interface import action_words

from ._cards import Card, CardError
from ._plays import Play


def help_text(jokers: bool) -> str:
    """What may be typed, said when something else was: ``XX`` only in a game with jokers."""
    return (
        "actions: play CARD... [to GROUP], move CARD... from GROUP [to GROUP], undo, end, draw; "
        "a card is a value (A 2-9 0 J Q K; 0 is ten) and a suit (S H D C)"
        + (", or XX" if jokers else "")
        + "; groups are numbered"
    )


class ParseError(ValueError):
    """Text that names no action; the message says what was expected."""


class NoHolder(ParseError):
    """A ``move`` that leaves out ``from``, where not one group alone holds its cards: a player who
    may not move table cards now is told that first (:meth:`Game.parse_action`)."""


@attrs.frozen
class Place:
    """Cards from the hand to group ``target`` (0-based), or all to one new group (``None``)."""

    cards: tuple[Card, ...]
    target: int | None

    def plays(self, groups: int) -> list[Play]:
        """The plays, on a table of ``groups`` groups: a new group is numbered ``groups``."""
        return _spread(self.cards, None, self.target, groups)

    def __str__(self) -> str:
        return f"play {_words(self.cards)}" + ("" if self.target is None else f" to {self.target + 1}")


@attrs.frozen
class Move:
    """Table cards from group ``source`` to group ``target``, or all to one new group (``None``)."""

    cards: tuple[Card, ...]
    source: int
    target: int | None

    def plays(self, groups: int) -> list[Play]:
        return _spread(self.cards, self.source, self.target, groups)

    def __str__(self) -> str:
        where = "" if self.target is None else f" to {self.target + 1}"
        return f"move {_words(self.cards)} from {self.source + 1}{where}"


@attrs.frozen
class Undo:
    def __str__(self) -> str:
        return "undo"


@attrs.frozen
class Draw:
    def __str__(self) -> str:
        return "draw"


@attrs.frozen
class End:
    def __str__(self) -> str:
        return "end"


Action = Place | Move | Undo | Draw | End


def _spread(cards: Sequence[Card], source: int | None, target: int | None, groups: int) -> list[Play]:
    if target is not None:
        return [Play(card, source, target) for card in cards]
    return [Play(card, source, None if i == 0 else groups) for i, card in enumerate(cards)]


def _words(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards))


def action_of(play: Play) -> Place | Move:
    """One play as a command of its own (a new group's later plays name it by number)."""
    if play.source is None:
        return Place((play.card,), play.target)
    return Move((play.card,), play.source, play.target)


def commands(plays: Sequence[Play], groups: int) -> list[Place | Move]:
    """``plays``, made from a table of ``groups`` groups, as few commands as say them: plays of one
    kind to one place run together, a new group's cards in one command."""
    said: list[Place | Move] = []
    for play in plays:
        last = said[-1] if said else None
        joins = (
            last is not None
            and (last.source if isinstance(last, Move) else None) == play.source
            and play.target is not None
            and (last.target == play.target or (last.target is None and play.target == groups - 1))
        )
        if joins and last is not None:
            said[-1] = attrs.evolve(last, cards=(*last.cards, play.card))
        else:
            said.append(action_of(play))
        if play.target is None:
            groups += 1
    return said


def parse_action(text: str, table: Sequence[Sequence[Card]] = (), jokers: bool = True) -> Action:
    """The action ``text`` names; :class:`ParseError` if it names none.

    ``table`` lets ``move 7H to 3`` leave out ``from`` when one group alone holds 7H; ``jokers``
    says whether the game has them, for the words of an error (``XX`` is read either way)."""
    words = action_words(text)  # play 4C, 5C as well as play 4C 5C: as Notty reads its cards
    verb = words[0].lower() if words else ""
    if len(words) == 1 and verb in ("undo", "draw", "end"):
        return Undo() if verb == "undo" else Draw() if verb == "draw" else End()
    if verb not in ("play", "move") or len(words) < 2:
        raise ParseError(help_text(jokers))
    said = clauses(words[1:])
    rest = said.pop("", [])
    target = _group(said["to"], "to") if "to" in said else None
    source: int | None = None
    if verb == "move" and "from" in said:
        source = _group(said["from"], "from")
    elif "from" in said:
        raise ParseError("play takes cards from your hand; to move a table card, say move CARD from GROUP")
    cards = _cards(rest, jokers)
    if verb == "play":
        return Place(cards, target)
    if source is None:
        source = holder(cards, table)
    if target == source:
        raise ParseError(same_group(cards, source, said_from="from" in said))
    return Move(cards, source, target)


def no_group(index: int, groups: int, *, target: bool) -> str:
    """Why a group number past the table's is refused; a target is most likely meant as a new group."""
    if groups == 0:
        said = f"there is no group {index + 1}: the table is empty"
    else:
        said = f"there is no group {index + 1}: groups are numbered 1 to {groups}"
    return f"{said}; 'to new' starts a new group" if target else said


def same_group(cards: Sequence[Card], group: int, *, said_from: bool) -> str:
    """Why a move to the group its cards are in is refused, in the words the player typed."""
    if said_from:
        return f"'from' and 'to' name the same group ({group + 1}): move the cards to another"
    held = "is" if len(cards) == 1 else "are"
    return f"{_words(cards)} {held} already in group {group + 1}: move to another group, or to new"


def clauses(words: Sequence[str]) -> dict[str, list[str]]:
    """The cards, and the words after ``to`` and after ``from``, in either order (``move 9C to 6
    from 5`` as well as ``move 9C from 5 to 6``); the cards are the words before either. A group
    may be said as people say it: ``to group 6``, ``to new group`` (:func:`said_group` knows the
    word)."""
    found: dict[str, list[str]] = {"": []}
    clause = ""
    for word in words:
        lowered = word.lower()
        if lowered in ("to", "from"):
            if lowered in found:
                raise ParseError(f"say {lowered!r} once")
            clause = lowered
            found[clause] = []
        elif clause and said_group(found[clause], lowered):
            continue
        else:
            found[clause].append(word)
    return found


def said_group(before: Sequence[str], word: str) -> bool:
    """Is ``word`` the word ``group``, said where a group is, after the words ``before`` it in a
    ``to`` or ``from`` clause: first (``to group 6``, ``to group new``) or after ``new`` (``to new
    group``), as people say it; the record's text says neither (``to 6``, nothing for new)."""
    return word.lower() == "group" and [said.lower() for said in before] in ([], ["new"])


def _group(words: Sequence[str], after: str) -> int | None:
    if len(words) != 1:
        raise ParseError(f"say one group after {after!r}: its number, or new")
    word = words[0].lower()
    if word == "new" and after == "to":
        return None
    if not (word.isascii() and word.isdigit()) or not 1 <= int(word) <= 999:  # int() refuses '²'
        raise ParseError(f"{words[0]!r} is not a group: groups are numbered from 1")
    return int(word) - 1


def _cards(words: Sequence[str], jokers: bool) -> tuple[Card, ...]:
    if not words:
        raise ParseError(f"name the cards; {help_text(jokers)}")
    if len(words) > 6:
        raise ParseError("a turn has at most 6 plays: name at most 6 cards")
    try:
        return tuple(Card.parse(word, jokers) for word in words)
    except CardError as error:
        raise ParseError(str(error)) from None


def holder(cards: Sequence[Card], table: Sequence[Sequence[Card]]) -> int:
    """The one group holding every card named, for a ``move`` that leaves out ``from``;
    :class:`ParseError` saying so if none or several do."""
    holders = [index for index, group in enumerate(table) if not Counter(cards) - Counter(group)]
    named = _words(cards)
    if len(holders) == 1:
        return holders[0]
    if not holders:
        raise NoHolder(f"no group holds {named}: say move CARD from GROUP")
    numbers = ", ".join(str(index + 1) for index in holders)
    raise NoHolder(f"groups {numbers} each hold {named}: say which, move {named} from GROUP")
