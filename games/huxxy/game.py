"""huxxy behind the game seam (:mod:`games`): settings, bots, matches, views and events.

The engine (:mod:`games.huxxy.engine`) knows nothing of tables or the wire;
this module turns it into what the platform asks for. Hands are hidden: a
seat's view holds its own hand, the table, the stock's size, every hand's
size and who has opened; a spectator's holds no hand. Each play of a table
turn is an action of its own, shown to everyone as it is made.

The deal is recorded whole (every hand in seat order, then the stock from the
top), so the stock's order is fixed from the start; each draw still records
the card it took as its chance outcome, and a replay given another card is
refused rather than followed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import attrs

from games._interface import (
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
from games._words import counted

from ._cards import Card, CardError, reading_order
from ._plays import Play
from .actions import (
    Action,
    Draw,
    End,
    Move,
    NoHolder,
    ParseError,
    Place,
    Undo,
    action_of,
    help_text,
    parse_action,
)
from .bots import BOTS, GREEDY, SeatView, hint_for, make_bot
from .engine import (
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_PLAYS,
    MAX_TURN_PLAYS,
    MIN_PLAYERS,
    Deal,
    DealError,
    Engine,
    IllegalAction,
    Reason,
    Rules,
    TurnEnded,
    display_order,
)

NAME = "huxxy"
JOKERS_VARIANT = "huxxy-jokers"
OPTIONS: dict[str, Option] = {}


def rules_for(settings: Settings) -> Rules:
    return Rules(settings.seats, settings.variant == JOKERS_VARIANT)


# -- events ---------------------------------------------------------------------------------------


@attrs.frozen
class Unresolved:
    """A ``move`` without ``from`` that no one group answers: refused when applied, once the rules
    that bar any move of the mover's now have had their say ("no group holds 7H" read as a slip of
    the card before opening, where no move is allowed)."""

    message: str


@attrs.frozen
class Started:
    first: int


@attrs.frozen
class Played:
    """One play as made: a new group's number filled in, and whether the play started it."""

    seat: int
    play: Play
    created: bool


@attrs.frozen
class Undone:
    seat: int
    play: Play


@attrs.frozen
class Drew:
    """A draw, after taking back ``taken_back`` plays: the card only the drawer sees."""

    seat: int
    card: Card
    taken_back: int


@attrs.frozen
class Ended:
    """A table turn ended."""

    seat: int
    turn: TurnEnded


@attrs.frozen
class GameEnded:
    outcome: Outcome


# -- the game -------------------------------------------------------------------------------------


class HuxxyGame:
    """The game huxxy, as the registry holds it."""

    def __init__(self) -> None:
        self.name = NAME
        self.title = "huxxy"
        self.variants = {
            NAME: Variant(
                NAME, MIN_PLAYERS, MAX_PLAYERS, "two packs, runs of alternating colours and N-of-a-kind"
            ),
            JOKERS_VARIANT: Variant(
                JOKERS_VARIANT, MIN_PLAYERS, MAX_PLAYERS, "the bonus version: two jokers join the packs"
            ),
        }
        self.options = OPTIONS
        self.bots = BOTS

    def settings(self, variant: str | None, seats: int, options: Mapping[str, Any]) -> Settings:
        chosen, filled = check_settings(self, variant, seats, options)
        return Settings(NAME, chosen.name, seats, filled)

    def offered(self, settings: Settings) -> None:
        """A new table may have every setting its rules allow."""

    def seat_bot(self, bot: str, settings: Settings) -> str:
        return bot

    def stand_in(self, settings: Settings) -> str:
        """``greedy``: as strong as the expert in measured games (bench/RESULTS.md), and faster."""
        return GREEDY

    def new_match(
        self, settings: Settings, names: Sequence[str], rng: random.Random, deal: DealRecord | None = None
    ) -> HuxxyMatch:
        rules = rules_for(settings)
        if len(names) != rules.players:
            raise ValueError(f"{len(names)} names for {rules.players} seats")
        dealt = Deal.shuffled(rules, rng) if deal is None else deal_from_record(deal, rules)
        return HuxxyMatch(settings, names, Engine(rules, dealt))

    def new_bot(self, name: str, settings: Settings, rng: random.Random) -> Any:
        return make_bot(name, rng)


def deal_to_record(deal: Deal) -> DealRecord:
    """Every hand in seat order, then the stock from the top; who starts."""
    cards = [str(card) for hand in deal.hands for card in hand] + [str(card) for card in deal.stock]
    return DealRecord(tuple(cards), deal.first)


def deal_from_record(record: DealRecord, rules: Rules) -> Deal:
    """The deal ``record`` holds; ``ValueError`` if it is not a deal for ``rules``."""
    try:
        cards = [Card.parse(token) for token in record.cards]
    except CardError as error:
        raise ValueError(f"not a deal of huxxy: {error}") from None
    dealt = rules.players * HAND_SIZE
    hands = tuple(tuple(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(rules.players))
    deal = Deal(hands, tuple(cards[dealt:]), record.first)
    try:
        deal.check(rules)
    except DealError as error:
        raise ValueError(f"not a deal of huxxy: {error}") from None
    return deal


def _words(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def _plays(count: int) -> str:
    return counted(count, "play")


class HuxxyMatch:
    """A huxxy game in progress; ``engine`` holds every hand, so it stays on the server."""

    def __init__(self, settings: Settings, names: Sequence[str], engine: Engine) -> None:
        self.settings = settings
        self.names = tuple(names)
        self.engine = engine
        self.opening: tuple[Any, ...] = (Started(engine.current),)

    @property
    def current(self) -> int:
        return self.engine.current

    @property
    def turn(self) -> int:
        """The turn under way, counted from 1 as the wire and the replay count them; once the game
        is over, the turn of its last move."""
        return self.engine.turn + 1

    @property
    def over(self) -> bool:
        return self.engine.over

    def deal_record(self) -> DealRecord:
        return deal_to_record(self.engine.deal)

    def legal_actions(self, seat: int) -> list[str]:
        """Every single play, and undo, end and draw as they apply (the first ``MAX_LEGAL`` go out)."""
        engine = self.engine
        if engine.over or seat != engine.current:
            return []
        actions = ["draw"]
        if engine.plays:
            actions.append("undo")
            if not engine.problems():
                actions.append("end")
        if len(engine.plays) >= MAX_PLAYS or not engine.plays_left:
            return actions
        groups = len(engine.table)
        for card in sorted(set(engine.hand(seat))):
            actions.append(str(Place((card,), None)))
            actions += [str(Place((card,), index)) for index in range(groups)]
        if engine.opened[seat] and engine.plays:
            for source, group in enumerate(engine.table):
                for card in sorted(set(group)):
                    actions.append(str(Move((card,), source, None)))
                    actions += [
                        str(Move((card,), source, index)) for index in range(groups) if index != source
                    ]
        return actions

    def parse_action(self, text: str) -> Action | Unresolved:
        try:
            return parse_action(text, self.engine.table, self.engine.rules.jokers)
        except NoHolder as error:  # refused as the mover applies it: the rules that bar a move come first
            return Unresolved(str(error))
        except ParseError as error:
            raise ActionError("bad-action", str(error)) from None

    def action_text(self, action: Action) -> str:
        return str(action)

    def apply(self, seat: int, action: Action | Unresolved, outcome: tuple[str, ...] | None = None) -> Step:
        engine = self.engine
        if not isinstance(action, Place | Move | Undo | Draw | End | Unresolved):
            raise ActionError("bad-action", help_text(engine.rules.jokers))
        if outcome and not isinstance(action, Draw):
            raise ActionError("bad-outcome", "only a draw has a chance outcome")
        try:
            events = self._apply(seat, action, outcome)
        except IllegalAction as error:
            message = error.message
            if error.reason is Reason.NOT_YOUR_TURN:
                message = f"it is {self.names[engine.current]}'s turn, not yours"
            raise ActionError("illegal-action", message, str(error.reason)) from None
        drawn = tuple(str(event.card) for event in events if isinstance(event, Drew))
        if engine.over:
            result = self.outcome()
            assert result is not None, "a game that is over has an outcome"
            events.append(GameEnded(result))
        return Step(tuple(events), drawn)

    def _apply(self, seat: int, action: Action | Unresolved, outcome: tuple[str, ...] | None) -> list[Any]:
        engine = self.engine
        if isinstance(action, Unresolved):
            engine.check_may_move(seat)  # not your turn, not opened, a first play not from the hand
            raise ActionError("bad-action", action.message)
        if isinstance(action, Place | Move):
            before = len(engine.table)
            made = engine.play(seat, action.plays(before))
            events: list[Any] = []
            for play in made:
                assert play.target is not None
                events.append(Played(seat, play, play.target >= before))
                before = max(before, play.target + 1)
            return events
        if isinstance(action, Undo):
            return [Undone(seat, engine.undo(seat))]
        if isinstance(action, Draw):
            card = None
            if outcome:
                try:
                    (card,) = (Card.parse(token) for token in outcome)
                except (CardError, ValueError):
                    raise ActionError("bad-outcome", "a draw's outcome is the one card drawn") from None
            engine.check_turn(seat)
            if card is not None and engine.stock[0] != card:
                raise ActionError("bad-outcome", "the recorded card is not the stock's top")
            drew = engine.draw(seat, card)
            return [Drew(seat, drew.card, drew.taken_back)]
        return [Ended(seat, engine.end(seat))]

    def outcome(self) -> Outcome | None:
        engine = self.engine
        if not engine.over:
            return None
        scores = engine.scores()
        points = ", ".join(f"{name} {scores[seat]}" for seat, name in enumerate(self.names))
        out = [seat for seat, hand in enumerate(engine.hands) if not hand]
        if out:
            text = f"{self.names[out[0]]} goes out; points left: {points}"
            return Outcome(engine.ranking(), "went-out", text, text_names_winner=False)
        text = f"the stock is used up; points left: {points}"
        return Outcome(engine.ranking(), "stock-exhausted", text, text_names_winner=False)

    def _seat_view(self, seat: int | None) -> SeatView:
        engine = self.engine
        own = seat is not None
        start = engine.turn_start() if own and seat == engine.current and engine.plays else None
        return SeatView(
            seat=-1 if seat is None else seat,
            jokers=engine.rules.jokers,
            hand=engine.hand(seat) if seat is not None else (),
            table=tuple(tuple(group) for group in engine.table),
            opened=tuple(engine.opened),
            sizes=engine.hand_sizes(),
            stock=engine.stock_size,
            current=engine.current,
            on_turn=own and seat == engine.current and not engine.over,
            plays=engine.plays,
            turn=engine.turn,
            start=start,
            plays_left=engine.plays_left if own and seat == engine.current else MAX_TURN_PLAYS,
        )

    def view(self, seat: int | None) -> Mapping[str, Any]:
        engine = self.engine
        on_turn = not engine.over
        return {
            "hand": None if seat is None else _words(sorted(engine.hand(seat), key=reading_order)),
            "table": [_words(display_order(group)) for group in engine.table],
            "invalid": engine.invalid_groups(),
            "stock": engine.stock_size,
            "sizes": list(engine.hand_sizes()),
            "opened": list(engine.opened),
            "plays": len(engine.plays) if on_turn else 0,
            "max_plays": MAX_PLAYS,
            # Of the plays a turn may make, undone ones counted: at its end, only 'draw' is left.
            "plays_left": engine.plays_left if on_turn else MAX_TURN_PLAYS,
            "placed": _words(engine.placed()) if on_turn else [],
        }

    def event(self, event: Any, seat: int | None) -> Mapping[str, Any]:
        """What happened, as ``seat`` is told it: its own moves in the second person ("you play 7H
        to group 3"), and the card it drew, which nobody else sees."""
        names = self.names

        def does(who: int, verb: str, verbs: str) -> str:  # "you play", "ann plays"
            return f"you {verb}" if who == seat else f"{names[who]} {verbs}"

        match event:
            case Started(first):
                return {
                    "kind": "started",
                    "text": f"{does(first, 'play', 'plays')} first",
                    "data": {"seat": first},
                }
            case Played(who, play, created):
                target = play.target
                assert target is not None
                where = f"a new group {target + 1}" if created else f"group {target + 1}"
                if play.source is None:
                    text = f"{does(who, 'play', 'plays')} {play.card} to {where}"
                else:
                    text = f"{does(who, 'move', 'moves')} {play.card} from group {play.source + 1} to {where}"
                data = {"seat": who, "card": str(play.card), "source": play.source, "target": target}
                return {"kind": "played", "text": text, "data": data}
            case Undone(who, play):
                target = play.target
                assert target is not None
                back = "the hand" if play.source is None else f"group {play.source + 1}"
                undoes = does(who, "undo", "undoes")
                text = f"{undoes} a play: {play.card} goes back from group {target + 1} to {back}"
                data = {"seat": who, "card": str(play.card), "source": play.source, "target": target}
                return {"kind": "undone", "text": text, "data": data}
            case Drew(who, card, taken_back):
                seen: dict[str, Any] = {"seat": who, "taken_back": taken_back}
                if who == seat:
                    seen["card"] = str(card)
                    back = f"take back {_plays(taken_back)} and " if taken_back else ""
                    return {"kind": "drew", "text": f"you {back}draw {card}", "data": seen}
                back = f"takes back {_plays(taken_back)} and " if taken_back else ""
                return {"kind": "drew", "text": f"{names[who]} {back}draws a card", "data": seen}
            case Ended(who, TurnEnded(placed, opened)):
                # Not "(an opening)": the client marks a move a bot made for you after it, and a
                # play-tester read "... (an opening) (played for you)".
                count = ("an opening of " if opened else "") + counted(len(placed), "card")
                text = f"{does(who, 'end', 'ends')} the turn, {count} from the hand"
                data = {"seat": who, "placed": _words(placed), "opened": opened}
                return {"kind": "turn-ended", "text": text, "data": data}
            case GameEnded(outcome):
                return {"kind": "game-ended", "text": outcome.text, "data": outcome.to_wire()}
        raise TypeError(f"not a huxxy event: {event!r}")

    def bot_view(self, seat: int) -> SeatView:
        return self._seat_view(seat)

    def fallback_action(self, seat: int) -> Action | None:
        """A draw: always allowed at one's turn (it takes back any plays first)."""
        if self.engine.over or seat != self.engine.current:
            return None
        return Draw()

    def position_text(self) -> list[str]:
        hands = (sorted(self.engine.hand(seat), key=reading_order) for seat in range(len(self.names)))
        return [" ".join(_words(hand)) or "nothing" for hand in hands]

    def hint(self, seat: int, adviser: Any | None = None) -> Callable[[], HintAnswer] | None:
        """The solver's best turn from the start of this turn, as commands to type: the turn that
        ``auto`` plays too (the stand-in is ``greedy``), so no adviser is asked."""
        view = self._seat_view(seat)
        return lambda: hint_for(view)

    def watcher_hint(self) -> None:
        return None  # hands are hidden

    def unfinished_turn(self) -> tuple[Undo, ...]:
        """An undo for each play of the turn under way: a turn counts only once it ends."""
        return tuple(Undo() for _ in self.engine.plays)

    def stand_in_began(self, seat: int, asked: Collection[str]) -> tuple[Any, ...]:
        """Nothing changes: every game of huxxy ends, as each turn draws or places a card."""
        return ()


__all__ = ["GAME", "GREEDY", "HuxxyGame", "HuxxyMatch", "action_of"]

GAME = HuxxyGame()
