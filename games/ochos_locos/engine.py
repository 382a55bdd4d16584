"""The rules engine: a pure state machine over seats 0 … players - 1.

Build a :class:`Game` from a :class:`Rules` and a :class:`Deal` (or
:meth:`Game.new` with an injected random source); ask ``legal_actions()``;
``apply(seat, action)`` returns the :class:`Turn` it made or raises
:class:`IllegalAction` saying why, having changed nothing: every check runs
before the first change.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from .actions import Action, Draw, Play, TakeTwo, play
from .cards import COLOURS, Card
from .deal import Deal
from .errors import IllegalAction, Reason
from .matching import EIGHT, TWO, matches, playable
from .rules import Rules

#: Cards a player who cannot answer a 2 takes.
PENALTY = 2
_DRAW = Draw()
_TAKE_TWO = TakeTwo()


def legal_actions(
    rules: Rules, hand: Sequence[Card], top: Card, named: str | None, two_pending: bool
) -> list[Action]:
    """Every action a player holding ``hand`` may take on ``top`` (the game not over): the
    playable cards in rainbow order, an 8 that names a colour once for each colour; or the
    one forced move, draw or take two."""
    cards = playable(hand, top, named, two_pending)
    if not cards:
        return [_TAKE_TWO if two_pending else _DRAW]
    naming = rules.eights and len(hand) > 1  # as in ``Game.names_colour``
    actions: list[Action] = []
    for card in cards:
        if naming and card.number == EIGHT:
            actions.extend(play(card, colour) for colour in COLOURS)
        else:
            actions.append(play(card))
    return actions


@attrs.frozen
class Turn:
    """One turn as it happened: who, what, the cards it took, and whether it won the game."""

    seat: int
    action: Action
    took: tuple[Card, ...] = ()
    won: bool = False

    def public(self) -> PublicTurn:
        return PublicTurn(self.seat, self.action, len(self.took))


@attrs.frozen
class PublicTurn:
    """A turn as every seat saw it: the cards a draw took are counted, not named."""

    seat: int
    action: Action
    took: int = 0


class Game:
    """One game of Ochos Locos, from the deal to a winner or a stalemate."""

    def __init__(self, rules: Rules, deal: Deal, first: int = 0) -> None:
        """``first``: the seat that plays first (the rules text's player 1 is seat 0)."""
        deal.check(rules)
        if type(first) is not int or not 0 <= first < rules.players:
            raise ValueError(f"seat {first!r} cannot play first at a table of {rules.players}")
        self.rules = rules
        #: As dealt, for a record to replay the game from.
        self.deal = deal
        self._hands = [list(hand) for hand in deal.hands]
        self._pile = [deal.start]
        # Top of the draw pile last, so drawing is a pop.
        self._stock = list(reversed(deal.stock))
        self._named: str | None = None
        self._two_pending = False  # the starting card never triggers the penalty
        self._idle = 0  # turns in a row that played no card and found nothing to draw
        self.current = first
        self.turn = 1
        self.winner: int | None = None
        self.stalemate = False
        self.history: list[Turn] = []
        self._public: list[PublicTurn] = []

    @classmethod
    def new(cls, rules: Rules, rng: random.Random) -> Game:
        """A game dealt at random from ``rng``."""
        return cls(rules, Deal.shuffled(rules, rng))

    # What everyone can see.

    @property
    def over(self) -> bool:
        return self.winner is not None or self.stalemate

    @property
    def top(self) -> Card:
        """The discard pile's top card."""
        return self._pile[-1]

    @property
    def named(self) -> str | None:
        """The colour the 8 on top named (rule ``eights``), else ``None``."""
        return self._named

    @property
    def two_pending(self) -> bool:
        """A 2 was just played (rule ``twos``): the player to move must answer it or take two."""
        return self._two_pending

    @property
    def pile(self) -> tuple[Card, ...]:
        """The discard pile, bottom first (public: every card on it was played face up)."""
        return tuple(self._pile)

    @property
    def public_history(self) -> tuple[PublicTurn, ...]:
        """Every turn so far as the table saw it: with the pile's first card, all that was public."""
        return tuple(self._public)

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(map(len, self._hands))

    # What only some may see.

    def hand(self, seat: int) -> tuple[Card, ...]:
        """A seat's hand, in the order its cards came (private to that seat)."""
        return tuple(self._hands[seat])

    @property
    def stock(self) -> tuple[Card, ...]:
        """The draw pile from top to bottom (secret from every seat)."""
        return tuple(reversed(self._stock))

    def snapshot(self) -> tuple[object, ...]:
        """Everything that makes up the state, to compare two moments."""
        return (
            tuple(map(tuple, self._hands)),
            tuple(self._pile),
            tuple(self._stock),
            self._named,
            self._two_pending,
            self._idle,
            self.current,
            self.turn,
            self.winner,
            self.stalemate,
            len(self.history),
        )

    # Moves.

    def playable(self, seat: int | None = None) -> list[Card]:
        """The cards ``seat`` (default: the player to move) could play on the pile now."""
        hand = self._hands[self.current if seat is None else seat]
        return playable(hand, self.top, self._named, self._two_pending)

    def names_colour(self, card: Card, seat: int | None = None) -> bool:
        """Whether playing ``card`` must name a colour: an 8 under ``eights`` that is not the last card."""
        hand = self._hands[self.current if seat is None else seat]
        return self.rules.eights and card.number == EIGHT and len(hand) > 1

    def legal_actions(self) -> list[Action]:
        """Every action the player to move may take; empty once the game is over."""
        if self.over:
            return []
        return legal_actions(self.rules, self._hands[self.current], self.top, self._named, self._two_pending)

    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` unless ``seat`` may take ``action`` now."""
        if self.over:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if seat != self.current:
            raise IllegalAction(Reason.NOT_YOUR_TURN, f"it is player {self.current + 1}'s turn")
        hand = self._hands[seat]
        if isinstance(action, Play):
            self._check_play(hand, action)
        elif isinstance(action, Draw):
            if self._two_pending:
                raise IllegalAction(Reason.MUST_ANSWER_TWO, "a 2 was played: answer it with a 2 or take two")
            if self.playable():
                raise IllegalAction(Reason.MUST_PLAY, "you hold a playable card, so you must play")
        else:
            if not self._two_pending:
                raise IllegalAction(Reason.NO_TWO_TO_ANSWER, "there is no 2 to answer")
            if self.playable():
                raise IllegalAction(Reason.MUST_PLAY, "you hold a 2, so you must answer with it")

    def _check_play(self, hand: Sequence[Card], play: Play) -> None:
        card = play.card
        if card not in hand:
            raise IllegalAction(Reason.NOT_HELD, f"you do not hold {card}")
        if self._two_pending and card.number != TWO:
            raise IllegalAction(Reason.MUST_ANSWER_TWO, f"a 2 was played: {card} does not answer it")
        if not matches(card, self.top, self._named):
            colour = self.top.colour if self._named is None else self._named
            raise IllegalAction(
                Reason.NO_MATCH, f"{card} matches neither colour {colour} nor number {self.top.number}"
            )
        naming = self.names_colour(card)
        if naming and play.colour is None:
            raise IllegalAction(Reason.MUST_NAME_COLOUR, f"playing {card} you must name a colour")
        if not naming and play.colour is not None:
            if not self.rules.eights:
                why = "these rules have no naming eights"
            elif card.number == EIGHT:
                why = "an 8 played as the last card names nothing"
            else:
                why = "only an 8 names a colour"
            raise IllegalAction(Reason.MUST_NOT_NAME_COLOUR, f"{card} names no colour: {why}")

    def apply(self, seat: int, action: Action) -> Turn:
        """Take ``action`` for ``seat``; the turn passes on unless it won the game."""
        self.check(seat, action)
        hand = self._hands[seat]
        rules = self.rules
        if isinstance(action, Play):
            card = action.card
            hand.remove(card)
            self._pile.append(card)
            self._named = action.colour
            self._two_pending = rules.twos and card.number == TWO
            self._idle = 0
            turn = Turn(seat, action, (), not hand)
            self._public.append(PublicTurn(seat, action, 0))
        else:
            if isinstance(action, Draw):
                took = self._take(hand, 1)
            else:
                took = self._take(hand, PENALTY)
                self._two_pending = False
            # The rules' stalemate: "a whole round ... with no card played and
            # nothing left to draw". A turn that took a card had something to draw.
            self._idle = 0 if took else self._idle + 1
            turn = Turn(seat, action, took)
            self._public.append(PublicTurn(seat, action, len(took)))
        self.history.append(turn)
        if turn.won:
            self.winner = seat
            self._two_pending = False
        elif self._idle >= rules.players:
            self.stalemate = True
        else:
            self.current = (seat + 1) % rules.players
            self.turn += 1
        return turn

    def _take(self, hand: list[Card], count: int) -> tuple[Card, ...]:
        took = tuple(self._stock.pop() for _ in range(min(count, len(self._stock))))
        hand.extend(took)
        return took
