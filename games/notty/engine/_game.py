"""The authoritative game: a pure state machine. No IO, no clock, no global randomness.

Randomness comes from the injected ``rng`` (``random.Random`` seeded in tests
and simulations, ``secrets.SystemRandom()`` in live play: see server/tables.py's ``own_stream``). Every chance
outcome can instead be supplied by the caller (the deal as ``Game(..., deal=...)``,
each move's as ``apply(..., outcome=...)``), so the same engine serves play,
search, replay and recovery after a crash.
"""

from __future__ import annotations

import bisect
import random
from collections import Counter
from collections.abc import Sequence

import attrs

from games.notty import Card, Rules, classify_group

from ._actions import Action, Discard, Draw, DrawDiscard, EndTurn, PutBack, Steal
from ._errors import IllegalAction, Rule
from ._events import (
    Discarded,
    Drew,
    DrewToExchange,
    EndReason,
    Event,
    GameEnded,
    GameStarted,
    ReturnedCard,
    Stole,
    TurnEnded,
    TurnLimitSet,
)
from ._legal import check, legal_actions, stuck
from ._view import View

Outcome = Card | tuple[Card, ...]


def outcome_of(events: Sequence[Event]) -> Outcome | None:
    """The chance outcome one move's events record, in the form ``Game.apply(outcome=...)`` takes:
    so a move can be replayed exactly."""
    for event in events:
        match event:
            case Drew(_, cards):
                return cards
            case Stole(_, _, card) | DrewToExchange(_, card):
                return card
    return None


@attrs.frozen
class Deal:
    """The opening chance outcome: the shuffled deck (hands are dealt from its end) and who starts.

    Recording it, with each move's outcome, is enough to rebuild a game exactly.
    """

    order: tuple[Card, ...]
    first: int


class Game:
    """One game of Notty between seats ``0 .. len(names) - 1``."""

    def __init__(
        self, rules: Rules, names: Sequence[str], rng: random.Random, *, deal: Deal | None = None
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, not {rules!r}")
        if isinstance(names, str) or not all(isinstance(name, str) and name for name in names):
            raise ValueError(f"names must be a list of non-empty strings, not {names!r}")
        if len(set(names)) != len(names):
            raise ValueError(f"seat names must differ: {list(names)}")
        if not all(hasattr(rng, method) for method in ("shuffle", "sample", "randrange")):
            raise TypeError("rng must be a random source such as random.Random or secrets.SystemRandom")
        if not rules.min_players <= len(names) <= rules.max_players:
            raise ValueError(
                f"{rules.name} is for {rules.min_players} to {rules.max_players} players, not {len(names)}"
            )
        self.rules = rules
        self.names = tuple(names)
        self._rng = rng
        if deal is None:
            deck = rules.full_deck()
            rng.shuffle(deck)
        else:
            _check_deal(deal, rules, len(names))
            deck = list(deal.order)
        order = tuple(deck)
        self.hands: list[list[Card]] = []
        for _ in names:
            self.hands.append(sorted(deck[-rules.hand_size :]))
            del deck[-rules.hand_size :]
        # The deck has no meaningful order: draws take a uniformly random card,
        # which is the same as reshuffling whenever cards go back.
        self._deck = deck
        self.current = rng.randrange(len(names)) if deal is None else deal.first
        self.deal = Deal(order, self.current)
        self.turn = 1
        self.drew = self.stole = self.exchanged = self.must_put_back = False
        # The no-progress rule: each hand as the turn under way began, and how many turns in a row
        # have ended with every hand as it began (a pure function of the moves: replay rebuilds it).
        self._turn_began = self._hands_now()
        self.quiet_turns = 0
        self.winner: int | None = None
        self.end_reason: EndReason | None = None
        self.opening: list[Event] = [GameStarted(self.current)]
        self.opening.extend(self._check_stalemate())

    # -- what anyone may know -------------------------------------------------

    @property
    def deck_size(self) -> int:
        return len(self._deck)

    @property
    def over(self) -> bool:
        return self.end_reason is not None

    def view(self, seat: int | None = None) -> View:
        """What ``seat`` sees (``None``: a spectator). Never the deck's order."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < len(self.names)):
            raise ValueError(f"there is no seat {seat}")
        hands = self._hands_now()
        return View(
            rules=self.rules,
            names=self.names,
            seat=seat,
            hands=hands,
            deck_size=len(self._deck),
            current=self.current,
            turn=self.turn,
            drew=self.drew,
            stole=self.stole,
            exchanged=self.exchanged,
            must_put_back=self.must_put_back,
            winner=self.winner,
            end_reason=self.end_reason,
            quiet_turns=self.quiet_turns,
            unchanged=hands == self._turn_began,
        )

    def legal_actions(self) -> list[Action]:
        """The current player's legal actions, in a stable order."""
        return legal_actions(self)

    def deck_contents(self) -> Counter[Card]:
        return Counter(self._deck)

    # -- changing the game -----------------------------------------------------

    def apply(
        self, action: Action, *, seat: int | None = None, outcome: Outcome | None = None
    ) -> list[Event]:
        """Take ``action`` for ``seat`` (default: the current player) and say what happened.

        Raises :class:`IllegalAction` and changes nothing if the rules forbid it.
        ``outcome`` fixes the chance outcome (drawn cards, stolen card) instead of
        sampling it, e.g. to replay a recorded game.
        """
        actor = self.current if seat is None else seat
        check(self, actor, action)
        match action:
            case Draw(count):
                cards = self._chance_from_deck(outcome, count)
                return self._draw(actor, cards)
            case Steal(victim):
                card = self._chance_steal(outcome, victim)
                return self._steal(actor, victim, card)
            case Discard(cards):
                self._no_outcome(outcome)
                return self._discard(actor, cards)
            case DrawDiscard():
                (card,) = self._chance_from_deck(outcome, 1)
                self._take(actor, card)
                self.exchanged = self.must_put_back = True
                return [DrewToExchange(actor, card)]
            case PutBack(card):
                self._no_outcome(outcome)
                self._give(actor, card)
                self.must_put_back = False
                return [ReturnedCard(actor, card)]
            case EndTurn():
                self._no_outcome(outcome)
                return self._end_turn(actor)
        raise TypeError(f"not an action: {action!r}")  # pragma: no cover

    def _draw(self, seat: int, cards: tuple[Card, ...]) -> list[Event]:
        for card in cards:
            self._take(seat, card)
        self.drew = True
        return [Drew(seat, cards), *self._check_stalemate()]

    def _steal(self, seat: int, victim: int, card: Card) -> list[Event]:
        victim_hand = self.hands[victim]
        del victim_hand[bisect.bisect_left(victim_hand, card)]
        bisect.insort(self.hands[seat], card)
        self.stole = True
        events: list[Event] = [Stole(seat, victim, card)]
        if not victim_hand:
            events.append(self._finish(victim, EndReason.STOLEN))
        else:
            events.extend(self._check_stalemate())
        return events

    def _discard(self, seat: int, cards: tuple[Card, ...]) -> list[Event]:
        kind = classify_group(cards, self.rules)
        for card in cards:
            self._give(seat, card)
        events: list[Event] = [Discarded(seat, cards, kind)]
        if not self.hands[seat]:
            events.append(self._finish(seat, EndReason.DISCARD))
        return events

    def _end_turn(self, seat: int) -> list[Event]:
        hands = self._hands_now()
        self.quiet_turns = self.quiet_turns + 1 if hands == self._turn_began else 0
        self._turn_began = hands
        quiet = self.rules.quiet_rounds
        if quiet and self.quiet_turns >= quiet * len(self.names):
            return [self._finish(None, EndReason.NO_PROGRESS)]
        limit = self.rules.turn_limit
        if limit and self.turn >= limit:
            return [self._finish(None, EndReason.TURN_LIMIT)]
        self.current = (seat + 1) % len(self.names)
        self.turn += 1
        self.drew = self.stole = self.exchanged = False
        return [TurnEnded(seat, self.current, self.turn)]

    def _hands_now(self) -> tuple[tuple[Card, ...], ...]:
        """Every hand as a multiset (hands are kept sorted, so equal tuples are equal multisets)."""
        return tuple(map(tuple, self.hands))

    def set_turn_limit(self, turn_limit: int) -> list[Event]:
        """Give the game a turn limit while it is played (a table's limit set when a bot begins to play
        for a person). Only a game with no limit gets one, and only from the turn under way on, so
        the game so far is what it would have been had it had this limit from the start: its record
        can keep the limit as the table's from the start and replay it exactly."""
        if self.over or self.rules.turn_limit or not self.turn <= turn_limit:
            raise ValueError(
                f"a game at turn {self.turn} with turn limit {self.rules.turn_limit} cannot take {turn_limit}"
            )
        self.rules = self.rules.replace(turn_limit=turn_limit)
        return [TurnLimitSet(turn_limit)]

    def _finish(self, winner: int | None, reason: EndReason) -> GameEnded:
        self.winner, self.end_reason = winner, reason
        return GameEnded(winner, reason)

    def _check_stalemate(self) -> list[Event]:
        """Every hand at the limit with no group in it: nobody can ever act again."""
        rules = self.rules
        if all(stuck(hand, rules) for hand in self.hands):
            return [self._finish(None, EndReason.STALEMATE)]
        return []

    # -- moving cards ------------------------------------------------------------

    def _take(self, seat: int, card: Card) -> None:
        """Move ``card`` from the deck to a hand."""
        deck = self._deck
        i = deck.index(card)
        deck[i] = deck[-1]
        deck.pop()
        bisect.insort(self.hands[seat], card)

    def _give(self, seat: int, card: Card) -> None:
        """Move ``card`` from a hand back into the deck."""
        hand = self.hands[seat]
        del hand[bisect.bisect_left(hand, card)]
        self._deck.append(card)

    # -- chance --------------------------------------------------------------------

    def _chance_from_deck(self, outcome: Outcome | None, count: int) -> tuple[Card, ...]:
        if outcome is None:
            deck, rng = self._deck, self._rng
            picks = rng.sample(range(len(deck)), count)
            return tuple(deck[i] for i in picks)
        cards = (outcome,) if isinstance(outcome, Card) else tuple(outcome)
        if len(cards) != count or Counter(cards) - Counter(self._deck):
            raise IllegalAction(
                Rule.IMPOSSIBLE_OUTCOME, f"cannot draw {' '.join(map(str, cards))} from this deck"
            )
        return cards

    def _chance_steal(self, outcome: Outcome | None, victim: int) -> Card:
        hand = self.hands[victim]
        if outcome is None:
            return hand[self._rng.randrange(len(hand))]
        if not isinstance(outcome, Card) or outcome not in hand:
            raise IllegalAction(Rule.IMPOSSIBLE_OUTCOME, f"seat {victim} does not hold {outcome}")
        return outcome

    @staticmethod
    def _no_outcome(outcome: Outcome | None) -> None:
        if outcome is not None:
            raise IllegalAction(Rule.IMPOSSIBLE_OUTCOME, "this action has no chance outcome")


def _check_deal(deal: Deal, rules: Rules, players: int) -> None:
    if not isinstance(deal, Deal):
        raise TypeError(f"deal must be a Deal, not {deal!r}")
    if Counter(deal.order) != Counter(rules.full_deck()):
        raise ValueError(f"a {rules.name} deal must order exactly the full deck")
    if type(deal.first) is not int or not 0 <= deal.first < players:
        raise ValueError(f"there is no seat {deal.first!r} to start")
