"""A small game with hidden hands and a hidden stock, kept in tests to hold the platform to private views.

Cards ``A1`` to ``D6``. Each seat is dealt four cards nobody else sees; the
rest is the stock, face down, in an order nobody sees. On your turn you play
a card from your hand onto the public pile, or draw the stock's top card,
which only you see. Emptying your hand wins; after ``turn_limit`` turns the
smallest hands rank first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import attrs

from games import (
    ActionError,
    DealRecord,
    HintAnswer,
    Option,
    Outcome,
    Settings,
    Step,
    Variant,
    check_settings,
)

DECK = tuple(f"{suit}{rank}" for suit in "ABCD" for rank in range(1, 7))
HAND = 4


@attrs.frozen
class Play:
    card: str

    def __str__(self) -> str:
        return f"play {self.card}"


@attrs.frozen
class Draw:
    def __str__(self) -> str:
        return "draw"


@attrs.frozen
class Played:
    seat: int
    card: str


@attrs.frozen
class Drew:
    seat: int
    card: str


@attrs.frozen
class Ended:
    text: str


class HiddenMatch:
    def __init__(self, settings: Settings, names: Sequence[str], rng: random.Random, deal: DealRecord | None):
        self.settings = settings
        self.names = tuple(names)
        self._rng = rng
        if deal is None:
            order = list(DECK)
            rng.shuffle(order)
            deal = DealRecord(tuple(order), rng.randrange(len(names)))
        if sorted(deal.cards) != sorted(DECK) or not 0 <= deal.first < len(names):
            raise ValueError("not a deal of this game")
        self._deal = deal
        cards = list(deal.cards)
        self.hands = [sorted(cards[HAND * i : HAND * (i + 1)]) for i in range(len(names))]
        self.stock = cards[HAND * len(names) :]  # the top is the end
        self.pile: list[str] = []
        self._current = deal.first
        self._turn = 1
        self._outcome: Outcome | None = None
        self.opening: tuple[Any, ...] = ()

    @property
    def current(self) -> int:
        return self._current

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def over(self) -> bool:
        return self._outcome is not None

    def deal_record(self) -> DealRecord:
        return self._deal

    def legal_actions(self, seat: int) -> list[str]:
        if self.over or seat != self._current:
            return []
        return [f"play {card}" for card in self.hands[seat]] + (["draw"] if self.stock else [])

    def parse_action(self, text: str) -> Play | Draw:
        words = text.split()
        if words == ["draw"]:
            return Draw()
        if len(words) == 2 and words[0] == "play" and words[1].upper() in DECK:
            return Play(words[1].upper())
        raise ActionError("bad-action", "actions: play CARD, draw")

    def action_text(self, action: Play | Draw) -> str:
        return str(action)

    def apply(self, seat: int, action: Play | Draw, outcome: tuple[str, ...] | None = None) -> Step:
        if self.over:
            raise ActionError("illegal-action", "the game is over", "game-over")
        if seat != self._current:
            raise ActionError("illegal-action", "it is not your turn", "not-your-turn")
        events: list[Any]
        if isinstance(action, Play):
            if action.card not in self.hands[seat]:
                raise ActionError("illegal-action", f"you do not hold {action.card}", "not-in-hand")
            self.hands[seat].remove(action.card)
            self.pile.append(action.card)
            events = [Played(seat, action.card)]
            chance: tuple[str, ...] = ()
        else:
            if not self.stock:
                raise ActionError("illegal-action", "the stock is empty", "stock-empty")
            if outcome and outcome != (self.stock[-1],):
                raise ActionError("bad-outcome", "that card is not on top of the stock")
            card = self.stock.pop()
            self.hands[seat] = sorted([*self.hands[seat], card])
            events = [Drew(seat, card)]
            chance = (card,)
        if not self.hands[seat]:
            self._outcome = Outcome(
                ((seat,), tuple(s for s in range(len(self.names)) if s != seat)),
                "empty-hand",
                f"{self.names[seat]} wins",
            )
        elif self._turn >= int(self.settings.options["turn_limit"]):
            sizes = sorted({len(hand) for hand in self.hands})
            ranking = tuple(tuple(s for s, h in enumerate(self.hands) if len(h) == n) for n in sizes)
            self._outcome = Outcome(ranking, "turn-limit", "the turn limit is reached")
        else:
            self._current = (seat + 1) % len(self.names)
            self._turn += 1
        if self._outcome is not None:
            events.append(Ended(self._outcome.text))
        return Step(tuple(events), chance)

    def outcome(self) -> Outcome | None:
        return self._outcome

    def view(self, seat: int | None) -> Mapping[str, Any]:
        return {
            "hand": None if seat is None else list(self.hands[seat]),
            "sizes": [len(hand) for hand in self.hands],
            "pile": list(self.pile),
            "stock": len(self.stock),
        }

    def event(self, event: Any, seat: int | None) -> Mapping[str, Any]:
        match event:
            case Played(who, card):
                return {"kind": "played", "text": f"{self.names[who]} plays {card}", "data": {"seat": who}}
            case Drew(who, card) if who == seat:
                return {"kind": "drew", "text": f"you draw {card}", "data": {"seat": who, "card": card}}
            case Drew(who, _):
                return {"kind": "drew", "text": f"{self.names[who]} draws a card", "data": {"seat": who}}
            case Ended(text):
                return {"kind": "game-ended", "text": text, "data": {}}
        raise TypeError(event)

    def bot_view(self, seat: int) -> tuple[list[str], bool]:
        return list(self.hands[seat]), bool(self.stock)

    def fallback_action(self, seat: int) -> Play | Draw | None:
        if self.over or seat != self._current:
            return None
        return Draw() if self.stock else Play(self.hands[seat][0])

    def position_text(self) -> list[str]:
        return [" ".join(hand) or "nothing" for hand in self.hands]

    def hint(self, seat: int, adviser: Any | None = None) -> Callable[[], HintAnswer] | None:
        hand = list(self.hands[seat])
        return lambda: HintAnswer(f"play {hand[0]}", (f"play {hand[0]}",), {"card": hand[0]})

    def watcher_hint(self) -> None:
        return None  # hands are hidden

    def unfinished_turn(self) -> tuple[Any, ...]:
        return ()  # every action is final as it is made

    def stand_in_began(self, seat: int, asked: Collection[str]) -> tuple[Any, ...]:
        return ()


class RandomBot:
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: tuple[list[str], bool]) -> Play | Draw:
        hand, stock = view
        options: list[Play | Draw] = [Play(card) for card in hand] + ([Draw()] if stock else [])
        return self._rng.choice(options)

    def catch_up(self, view: Any) -> None:
        return None


class HiddenGame:
    def __init__(self) -> None:
        self.name = "hidden"
        self.title = "Hidden"
        self.variants = {"standard": Variant("standard", 2, 4, "four hidden cards each")}
        limit = Option("turn_limit", "turns before the smallest hand wins", 30, low=1, high=500)
        self.options = {"turn_limit": limit}
        self.bots = ("random",)

    def settings(self, variant: str | None, seats: int, options: Mapping[str, Any]) -> Settings:
        chosen, filled = check_settings(self, variant, seats, options)
        return Settings(self.name, chosen.name, seats, filled)

    def offered(self, settings: Settings) -> None:
        """A new table may have every setting."""

    def seat_bot(self, bot: str, settings: Settings) -> str:
        return bot

    def stand_in(self, settings: Settings) -> str:
        return "random"

    def new_match(
        self, settings: Settings, names: Sequence[str], rng: random.Random, deal: DealRecord | None = None
    ) -> HiddenMatch:
        return HiddenMatch(settings, names, rng, deal)

    def new_bot(self, name: str, settings: Settings, rng: random.Random) -> RandomBot:
        return RandomBot(rng)


GAME = HiddenGame()


def secrets_from(match: HiddenMatch, seat: int | None) -> frozenset[str]:
    """The cards ``seat`` must not learn now: other seats' hands and the whole stock."""
    others = [hand for index, hand in enumerate(match.hands) if index != seat]
    return frozenset(card for hand in others for card in hand) | frozenset(match.stock)
