"""huxxy's rules as a pure state machine: a deal goes in, plays, undos, draws and turn ends are applied.

The engine never draws on chance itself: the deal (every hand, the stock's
order and who starts) is given, by a shuffle from an injected
``random.Random`` in live play or by a record in a replay. Every refused
action raises :class:`IllegalAction` before anything changes.

A table turn is built play by play, each shown as it happens; the table may be
invalid while it is built. ``undo`` takes back the last play, ``draw`` takes
back the whole turn and then draws, and ``end`` checks the table and the
opening before the turn passes on. Groups emptied during a turn keep their
number until it ends, so the plays of one turn can name groups throughout.
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import attrs

from games._words import counted

from ._cards import CARDS, COPIES, JOKER, SUITS, VALUES, Card, reading_order
from ._groups import SMALLEST_GROUP, opening_points, score, valid_group
from ._plays import Play
from .actions import no_group

HAND_SIZE = 12
#: The most plays one table turn may make.
MAX_PLAYS = 6
#: Plays a turn may make, those undone counted: not a rule of the game but a bound on a turn's
#: record (play and undo again and again, every one of them a move kept). No player comes near it.
MAX_TURN_PLAYS = 60
#: The points an opening turn must play from the hand (a joker counts 0).
OPENING_POINTS = 24
MIN_PLAYERS, MAX_PLAYERS = 2, 4
JOKERS = 2


@attrs.frozen
class Rules:
    players: int
    jokers: bool

    @property
    def deck_size(self) -> int:
        return len(CARDS) * COPIES + (JOKERS if self.jokers else 0)


def full_deck(rules: Rules) -> list[Card]:
    """Two packs, and the jokers of the bonus version, in a fixed order."""
    return [card for card in CARDS for _ in range(COPIES)] + ([JOKER] * JOKERS if rules.jokers else [])


#: Why a table card may not be moved yet: before opening, and as a turn's first play (said by the
#: client too, before it sends the move). A play-test met the second with nothing to do next.
MOVE_NOT_OPENED = "until you have opened you may only play cards from your hand, not move table cards"
MOVE_FIRST = "a turn's first play must be a card from your hand: play one, then move table cards"


class Reason(enum.StrEnum):
    """The rule a refused action breaks; the value is a stable code for clients."""

    GAME_OVER = "game-over"
    NOT_YOUR_TURN = "not-your-turn"
    NOT_HELD = "not-held"
    NO_SUCH_GROUP = "no-such-group"
    NOT_IN_GROUP = "not-in-group"
    SAME_GROUP = "same-group"
    NOT_OPENED = "not-opened"
    FIRST_FROM_HAND = "first-from-hand"
    TOO_MANY_PLAYS = "too-many-plays"
    TOO_MANY_TRIES = "too-many-tries"
    NOTHING_TO_UNDO = "nothing-to-undo"
    NOTHING_PLAYED = "nothing-played"
    INVALID_TABLE = "invalid-table"
    OPENING_SHORT = "opening-short"


class IllegalAction(ValueError):
    """An action the rules do not allow now. The game is unchanged."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message

    def __str__(self) -> str:
        return f"{self.message} [{self.reason}]"


class DealError(ValueError):
    """Cards that are not a deal of this game's pack."""


@attrs.frozen
class Deal:
    """Every hand in seat order, the stock from the top down, and who plays first."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    first: int

    @classmethod
    def shuffled(cls, rules: Rules, rng: random.Random) -> Deal:
        deck = full_deck(rules)
        rng.shuffle(deck)
        hands = tuple(tuple(deck[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(rules.players))
        return cls(hands, tuple(deck[rules.players * HAND_SIZE :]), rng.randrange(rules.players))

    def check(self, rules: Rules) -> None:
        """:class:`DealError` unless this deals exactly the pack, twelve cards a hand."""
        if len(self.hands) != rules.players:
            raise DealError(f"{len(self.hands)} hands for {rules.players} players")
        if not 0 <= self.first < rules.players:
            raise DealError(f"seat {self.first} cannot start a game of {rules.players}")
        for seat, hand in enumerate(self.hands):
            if len(hand) != HAND_SIZE:
                raise DealError(f"player {seat + 1}'s hand has {len(hand)} cards, not {HAND_SIZE}")
        dealt = Counter(card for hand in self.hands for card in hand) + Counter(self.stock)
        if dealt != Counter(full_deck(rules)):
            raise DealError("the cards are not the pack: some missing or dealt twice")


def display_order(cards: Sequence[Card]) -> list[Card]:
    """A group as people read it: a run by value, N-of-a-kind by suit; a joker last, except in a
    valid run whose joker has one place: there it stands in that place, in a gap or before a run
    up to a king (``9C XX JS QH KC``, ``XX JS QH KC``). One that could extend either end stays last.

    The order depends on the cards alone (not on how they were played), so it tells nothing."""
    ordered = sorted(cards, key=reading_order)
    if not ordered or not ordered[-1].is_joker or not valid_group(ordered):
        return ordered  # no joker, or not valid (mid-turn): as sorted
    *naturals, joker = ordered
    if len({card.value for card in naturals}) == 1:
        return ordered  # N-of-a-kind
    gaps = [place for place, (low, high) in enumerate(pairwise(naturals), 1) if high.value > low.value + 1]
    if gaps:
        (place,) = gaps  # a valid run with one joker has at most one gap, of one value
    else:
        place = 0 if naturals[-1].value == len(VALUES) else len(naturals)  # no card above a king
    return [*naturals[:place], joker, *naturals[place:]]


def group_problem(cards: Sequence[Card]) -> str | None:
    """Why a group is not valid, in words (``None`` if it is)."""
    if valid_group(cards):
        return None
    naturals = [card for card in cards if not card.is_joker]
    if len(cards) < SMALLEST_GROUP:
        return f"it has {counted(len(cards), 'card')}; a group needs at least {SMALLEST_GROUP}"
    if len(naturals) < len(cards) - 1:
        return "it holds more than one joker"
    values = {card.value for card in naturals}
    if len(values) == 1:
        suits = Counter(card.suit for card in naturals)
        if len(cards) <= 4:
            return "an N-of-a-kind of 3 or 4 cards needs every suit different"
        if max(suits.values()) > COPIES:
            return "it holds a card more often than two packs have it"
        if len(naturals) < len(cards) and len(suits) == len(SUITS):
            return "a joker stands only for a card the group does not hold, and this one holds every suit"
        return "an N-of-a-kind of more than 4 cards needs every suit present"
    if len(values) != len(naturals):
        return "a run holds each value once, and an N-of-a-kind one value"
    ordered = sorted(naturals, key=lambda card: card.value)
    gaps = sum(later.value - earlier.value - 1 for earlier, later in pairwise(ordered))
    if gaps > len(cards) - len(naturals):
        return "a run's values must follow on, with no gap"
    alternating = all(later.red != earlier.red for earlier, later in pairwise(ordered))
    if alternating and len(naturals) == len(VALUES) and len(cards) > len(naturals):
        return "a run from A to K is full: the joker has no place (an ace is low only)"
    return "a run's colours must alternate, red and black"


@attrs.frozen
class Drew:
    """What a draw did: the card taken, and how many plays it took back first."""

    card: Card
    taken_back: int


@attrs.frozen
class TurnEnded:
    """A table turn ended: the hand cards it placed, and whether it was the seat's opening."""

    placed: tuple[Card, ...]
    opened: bool


class Engine:
    """One game of huxxy; holds every hand, so it lives on the server only."""

    def __init__(self, rules: Rules, deal: Deal) -> None:
        deal.check(rules)
        self.rules = rules
        self.deal = deal
        self.hands: list[list[Card]] = [list(hand) for hand in deal.hands]
        self._stock: list[Card] = list(reversed(deal.stock))  # the top is the end: pop() draws it
        self.table: list[list[Card]] = []
        self.opened: list[bool] = [False] * rules.players
        self.current = deal.first
        #: The turn under way, from 0 (once the game is over, the turn that ended it).
        self.turn = 0
        self.over = False
        self._made: list[Play] = []  # each play as made: a new group's target filled in
        self._start: tuple[list[Card], list[list[Card]]] | None = None
        self._tried = 0  # plays made this turn, those undone counted (MAX_TURN_PLAYS)
        #: Every card ever laid on the table: what all have seen, whoever holds it now.
        self.shown: set[Card] = set()

    # -- what may be seen ---------------------------------------------------------------------------

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock from the top down (server side only: never sent to anyone)."""
        return tuple(reversed(self._stock))

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self.hands[seat])

    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(hand) for hand in self.hands)

    @property
    def plays(self) -> tuple[Play, ...]:
        """This turn's plays so far, as made (a new group's number filled in)."""
        return tuple(self._made)

    @property
    def plays_left(self) -> int:
        """The plays this turn may still make, those undone counted (:data:`MAX_TURN_PLAYS`)."""
        return MAX_TURN_PLAYS - self._tried

    def turn_start(self) -> tuple[tuple[Card, ...], tuple[tuple[Card, ...], ...]]:
        """The current player's hand and the table as this turn found them (before its plays)."""
        hand, table = self._start if self._start is not None else (self.hands[self.current], self.table)
        return tuple(hand), tuple(tuple(group) for group in table)

    def placed(self) -> tuple[Card, ...]:
        """The hand cards this turn's plays have put on the table so far."""
        return tuple(play.card for play in self._made if play.source is None)

    def problems(self) -> list[str]:
        """Why the current turn cannot end now, in words; empty if it can."""
        if not self._made:
            return [nothing_played(self.plays_left)]
        return self._invalid_groups() + self._opening_short()

    def invalid_groups(self) -> list[int]:
        """The groups (0-based) that are not valid now: only ever during a table turn."""
        return [index for index, group in enumerate(self.table) if group and not valid_group(group)]

    def _invalid_groups(self) -> list[str]:
        return [
            f"group {index + 1} ({' '.join(map(str, display_order(self.table[index])))}) is not valid: "
            f"{group_problem(self.table[index])}"
            for index in self.invalid_groups()
        ]

    def _points_short(self) -> int:
        """The points this turn's opening still lacks (0 once opened, or enough placed)."""
        if self.opened[self.current]:
            return 0
        return max(0, OPENING_POINTS - opening_points(self.placed()))

    def _opening_short(self) -> list[str]:
        short = self._points_short()
        if not short:
            return []
        # A play-test counted its joker as the card it stands for.
        joker = " (a joker counts 0)" if any(card.is_joker for card in self.placed()) else ""
        return [
            f"an opening needs {OPENING_POINTS} points from your hand: these plays make "
            f"{OPENING_POINTS - short}{joker}, {short} short"
        ]

    def scores(self) -> tuple[int, ...]:
        return tuple(score(hand) for hand in self.hands)

    def ranking(self) -> tuple[tuple[int, ...], ...]:
        """Seats by increasing points left in hand, ties sharing a place."""
        scores = self.scores()
        return tuple(
            tuple(seat for seat in range(self.rules.players) if scores[seat] == points)
            for points in sorted(set(scores))
        )

    # -- actions ------------------------------------------------------------------------------------

    def check_turn(self, seat: int) -> None:
        if self.over:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if seat != self.current:
            raise IllegalAction(Reason.NOT_YOUR_TURN, f"it is player {self.current + 1}'s turn")

    def check_may_move(self, seat: int) -> None:
        """:class:`IllegalAction` unless ``seat`` may move a table card now, wherever it is."""
        self.check_turn(seat)
        self._check_may_move(seat, len(self._made))

    def _check_may_move(self, seat: int, made: int) -> None:
        if not self.opened[seat]:
            raise IllegalAction(Reason.NOT_OPENED, MOVE_NOT_OPENED)
        if made == 0:
            raise IllegalAction(Reason.FIRST_FROM_HAND, MOVE_FIRST)

    def check_plays(self, seat: int, plays: Sequence[Play]) -> None:
        """:class:`IllegalAction` unless ``plays``, made in order from now, are each allowed."""
        self.check_turn(seat)
        if len(self._made) + len(plays) > MAX_PLAYS:
            blocked = blocked_end(self.invalid_groups(), self._points_short())
            raise IllegalAction(
                Reason.TOO_MANY_PLAYS, too_many_plays(MAX_PLAYS, len(self._made), len(plays), blocked)
            )
        if self._tried + len(plays) > MAX_TURN_PLAYS:
            left = MAX_TURN_PLAYS - self._tried
            # A play-test with one play left was told none was; a play of one card was then made.
            room = f"{counted(left, 'more play')}, too few for {len(plays)}; " if left else ""
            if not self._made:  # a play-test with nothing on the table was told to end it
                then = "play fewer, or 'draw'" if left else "'draw' is all that is left"
            elif blocked := blocked_end(self.invalid_groups(), self._points_short()):
                then = f"{blocked}: undo a play, or 'draw' to take it all back and draw"
            else:
                then = "end it, or 'draw' to take it all back and draw"
            then = room + then
            raise IllegalAction(
                Reason.TOO_MANY_TRIES,
                f"this turn has made {self._tried} plays, undone ones counted, and may make at most"
                f" {MAX_TURN_PLAYS}: {then}",
            )
        held = Counter(self.hands[seat])
        hand = held.copy()
        groups = [Counter(group) for group in self.table]
        made = len(self._made)
        for play in plays:
            if play.source is None:
                if hand[play.card] == 0:
                    raise IllegalAction(Reason.NOT_HELD, _not_held(play.card, held, plays))
                hand[play.card] -= 1
            else:
                self._check_may_move(seat, made)
                if not 0 <= play.source < len(groups):
                    missing = no_group(play.source, len(groups), target=False)
                    raise IllegalAction(Reason.NO_SUCH_GROUP, missing)
                if groups[play.source][play.card] == 0:
                    raise IllegalAction(Reason.NOT_IN_GROUP, f"group {play.source + 1} holds no {play.card}")
                if play.target == play.source:
                    raise IllegalAction(
                        Reason.SAME_GROUP, f"{play.card} is already in group {play.source + 1}"
                    )
                groups[play.source][play.card] -= 1
            if play.target is None:
                groups.append(Counter([play.card]))
            elif not 0 <= play.target < len(groups):
                raise IllegalAction(Reason.NO_SUCH_GROUP, no_group(play.target, len(groups), target=True))
            else:
                groups[play.target][play.card] += 1
            made += 1

    def play(self, seat: int, plays: Sequence[Play]) -> list[Play]:
        """Make ``plays`` in order (all or none); returns them as made, new groups numbered."""
        self.check_plays(seat, plays)
        if self._start is None:
            self._start = (list(self.hands[seat]), [list(group) for group in self.table])
        made = []
        for play in plays:
            if play.source is None:
                self.hands[seat].remove(play.card)
            else:
                self.table[play.source].remove(play.card)
            if play.target is None:
                self.table.append([play.card])
                play = Play(play.card, play.source, len(self.table) - 1)
            else:
                self.table[play.target].append(play.card)
            self.shown.add(play.card)
            self._made.append(play)
            made.append(play)
        self._tried += len(made)
        return made

    def undo(self, seat: int) -> Play:
        """Take back the last play of this turn; returns it as it was made."""
        self.check_turn(seat)
        if not self._made:
            raise IllegalAction(Reason.NOTHING_TO_UNDO, "nothing has been played this turn to undo")
        play = self._made.pop()
        assert play.target is not None
        self.table[play.target].remove(play.card)
        if play.target == len(self.table) - 1 and not self.table[-1] and self._created(play):
            self.table.pop()
        if play.source is None:
            self.hands[seat].append(play.card)
        else:
            self.table[play.source].append(play.card)
        if not self._made:
            self._restore()
        return play

    def _created(self, play: Play) -> bool:
        """Did ``play`` start its target group (no group of that number at the turn's start)?"""
        assert self._start is not None and play.target is not None
        started = play.target >= len(self._start[1])
        return started and not any(earlier.target == play.target for earlier in self._made)

    def _restore(self) -> None:
        """The hand and table as the turn found them."""
        if self._start is not None:
            hand, table = self._start
            self.hands[self.current] = list(hand)
            self.table = [list(group) for group in table]
        self._start = None
        self._made = []

    def draw(self, seat: int, card: Card | None = None) -> Drew:
        """Take back this turn's plays, if any, then take the stock's top card; the turn ends.

        ``card``, from a record, must be the top card: a replay that disagrees is refused."""
        self.check_turn(seat)
        top = self._stock[-1]
        if card is not None and card != top:
            raise ValueError(f"the record says {card} was drawn; the stock's top is another card")
        taken_back = len(self._made)
        self._restore()
        self.hands[seat].append(self._stock.pop())
        self.over = not self._stock
        self._pass_turn()
        return Drew(top, taken_back)

    def end(self, seat: int) -> TurnEnded:
        """End a table turn: the table must be valid and an opening must reach its points."""
        self.check_turn(seat)
        if not self._made:
            raise IllegalAction(Reason.NOTHING_PLAYED, nothing_played(self.plays_left))
        invalid, short = self._invalid_groups(), self._opening_short()
        if invalid or short:
            raise IllegalAction(
                Reason.INVALID_TABLE if invalid else Reason.OPENING_SHORT, "; ".join(invalid + short)
            )
        placed = self.placed()
        opening = not self.opened[seat]
        self.opened[seat] = True
        self.table = [display_order(group) for group in self.table if group]
        self._start, self._made = None, []
        self.over = not self.hands[seat]
        self._pass_turn()
        return TurnEnded(placed, opening)

    def _pass_turn(self) -> None:
        """The next seat's turn; once the game is over nobody's: the count stays at the last turn."""
        self._tried = 0
        if not self.over:
            self.turn += 1
            self.current = (self.current + 1) % self.rules.players

    def cards_in_play(self) -> Counter[Card]:
        """Every card: hands, table and stock (the pack, whatever has happened)."""
        total = Counter(self._stock)
        for hand in self.hands:
            total.update(hand)
        for group in self.table:
            total.update(group)
        return total


def nothing_played(plays_left: int) -> str:
    """Why a turn with no play on the table cannot end (or undo): and what it may do instead, which
    is only to draw once it has made every play a turn may, undone ones counted (a play-test played
    and undid a card 30 times, then was told to "play a card")."""
    if plays_left > 0:
        return "nothing has been played this turn: play a card, or draw"
    return (
        f"nothing has been played this turn, and it may make no more plays ({MAX_TURN_PLAYS} a turn, undone"
        " ones counted): draw"
    )


def too_many_plays(most: int, made: int, asked: int, blocked: str = "") -> str:
    """Why ``asked`` more plays do not fit in a turn that has made ``made`` of its ``most``; with every
    play made, what may be done instead: ending only when nothing (``blocked``) stops it."""
    if made >= most:
        full = f"a turn has at most {most} plays, and all {most} are made"
        if blocked:
            return f"{full}; the turn cannot end while {blocked}: undo a play, or draw"
        return f"{full}: end the turn, or undo a play"
    return f"a turn has at most {most} plays: {most - made} left, too few for {asked}"


def blocked_end(invalid: Sequence[int], short: int) -> str:
    """What stops a turn's end, in a few words ('' when nothing does): the groups (0-based) not
    valid, and the points an opening lacks."""
    numbers = [str(index + 1) for index in invalid]
    reasons = []
    if len(numbers) == 1:
        reasons.append(f"group {numbers[0]} is not valid")
    elif numbers:
        reasons.append(f"groups {', '.join(numbers[:-1])} and {numbers[-1]} are not valid")
    if short:
        reasons.append(f"the opening is {short} point{'s' if short != 1 else ''} short")
    return " and ".join(reasons)


def _not_held(card: Card, held: Counter[Card], plays: Sequence[Play]) -> str:
    if not held[card]:
        return f"you do not hold {card}"
    wanted = sum(1 for play in plays if play.source is None and play.card == card)
    return f"you hold {held[card]} {card}, not {wanted}"
