"""Ochos Locos behind the game seam (:mod:`games`): settings, bots, matches, views and events.

The engine (:mod:`games.ochos_locos.engine`) knows nothing of tables or the
wire; this module is the one place that turns it into what the platform asks
for. Hands are hidden: a seat's view holds its own hand, the public discard
pile, the colour an 8 named, the draw pile's size and every hand's size; a
spectator's holds no hand.

Hints give the ``expert`` bot's move and why: how often each candidate won the
deals it played out, and what the table's draws showed the opponents lack.

The deal is recorded whole (every hand in seat order, the starting card, then
the draw pile from the top), so the draw pile's order is fixed from the start;
each draw still records the cards it took as its chance outcome, and a replay
given other cards is refused rather than followed.

Variants are the rules text's parts; ``part4`` (every switch, 2 to 6 players)
comes first and so is the default. Parts 1 to 3 are for 3 players, as the
rules text plays them. Who plays first is dealt too (the rules text's player 1
is whoever a table deals to start), so a table's creator has no standing edge.
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
    action_words,
    check_settings,
)
from games._words import counted

from .actions import Action, Draw, Play, TakeTwo
from .cards import COLOUR_WORDS, COLOURS, Card, CardError, read_colour
from .deal import Deal, DealError
from .engine import Game, PublicTurn, legal_actions
from .errors import IllegalAction, Reason
from .expert import COLOUR_MASK, TWOS, Position, Weighed, lacking, weigh
from .matching import RANK
from .rules import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules
from .strategy import rule_choice, rule_move

NAME = "ochos-locos"
#: The automatic strategy of the rules text: the bot ``new`` seats when told none.
RULE = "rule"
RANDOM = "random"
#: Plays out every move it could make in many sampled deals (:mod:`.expert`).
EXPERT = "expert"
BOTS = (RULE, EXPERT, RANDOM)
#: Sampled deals an expert move weighs: more is slower, and measured no stronger than 200.
EXPERT_WORLDS = 200
#: Players at a table of parts 1 to 3, as the rules text plays them.
CLASSIC_PLAYERS = 3

_SUMMARIES = {
    "part4": "2s and locos 8s, 2 to 6 players",
    "part1": "match colour or number; no playable card, draw",
    "part2": "a 2 must be answered with a 2 if the next player holds one, else they take two",
    "part3": "2s, and an 8 names the colour to follow",
}
OPTIONS: dict[str, Option] = {}
#: Names no card: a message naming a card may tell a seat what another seat holds.
ACTIONS_HELP = (
    f"actions: play CARD, play EIGHT COLOUR (an 8 and the colour it names: {COLOUR_WORDS}), draw, "
    "take two; a card is a colour R, Y, G or B and a number 1 to 8"
)


def rules_for(settings: Settings) -> Rules:
    return PRESETS[settings.variant].with_players(settings.seats)


# -- actions as text ------------------------------------------------------------------


def action_text(action: Action) -> str:
    """``play G3``, ``play R8 Y``, ``draw`` or ``take two``: :func:`parse_action` reads it back."""
    if isinstance(action, Play):
        return f"play {action.card}" if action.colour is None else f"play {action.card} {action.colour}"
    if isinstance(action, Draw):
        return "draw"
    return "take two"


def parse_action(text: str) -> Action:
    """The action ``text`` names (case does not matter); :class:`ActionError` ``bad-action`` if none.

    A refusal quotes only what was typed, as typed, and names no other card."""
    typed = action_words(text)  # play R8, Y as well as play R8 Y: as every game reads its cards
    words = [word.lower() for word in typed]
    if words == ["draw"]:
        return Draw()
    if words == ["take", "two"]:
        return TakeTwo()
    if words and words[0] == "play" and len(words) in (2, 3):
        try:
            card = Card.parse(typed[1].upper())
        except CardError:
            raise ActionError("bad-action", f"{typed[1]!r} is not a card; {ACTIONS_HELP}") from None
        if len(words) == 2:
            return Play(card)
        colour = read_colour(typed[2])
        if colour is None:
            raise ActionError("bad-action", f"{typed[2]!r} is not a colour: name it {COLOUR_WORDS}")
        return Play(card, colour)
    raise ActionError("bad-action", ACTIONS_HELP)


# -- events ---------------------------------------------------------------------------


@attrs.frozen
class Started:
    """The deal: the starting card turned up, and who plays first."""

    first: int
    start: Card


@attrs.frozen
class Played:
    seat: int
    card: Card
    colour: str | None
    won: bool


@attrs.frozen
class Took:
    """A draw (``penalty`` false) or taking two (true): the cards only the taker sees."""

    seat: int
    cards: tuple[Card, ...]
    penalty: bool


@attrs.frozen
class Ended:
    outcome: Outcome


# -- what a bot sees ------------------------------------------------------------------


class SeatView:
    """What one seat may see: its own hand and the public table; ``legal`` is empty off turn.

    A snapshot of immutable values, which later moves do not change. It is cheap to take, as a
    simulator takes one every move: the hand in rainbow order and the legal actions, which many
    bots never read, are worked out on first use from the hand as it was when the view was
    taken. It holds nothing of another seat's hand, nor of the draw pile but its size.
    """

    __slots__ = (
        "_hand",
        "_held",
        "_legal",
        "_on_turn",
        "named",
        "pile",
        "rules",
        "seat",
        "sizes",
        "stock",
        "top",
        "turns",
        "two_pending",
    )

    seat: int
    rules: Rules
    top: Card
    named: str | None
    two_pending: bool
    pile: tuple[Card, ...]
    sizes: tuple[int, ...]
    stock: int
    #: Every turn so far as the table saw it, from ``pile[0]``: who drew or could not answer what.
    turns: tuple[PublicTurn, ...]

    def __init__(
        self,
        seat: int,
        rules: Rules,
        held: tuple[Card, ...],
        top: Card,
        named: str | None,
        two_pending: bool,
        pile: tuple[Card, ...],
        sizes: tuple[int, ...],
        stock: int,
        on_turn: bool,
        turns: tuple[PublicTurn, ...] = (),
    ) -> None:
        """``held``: the seat's hand in any order; ``on_turn``: whether it is this seat's move."""
        self.seat, self.rules, self.top, self.named, self.two_pending = seat, rules, top, named, two_pending
        self.pile, self.sizes, self.stock, self.turns = pile, sizes, stock, turns
        self._held, self._on_turn = held, on_turn
        self._hand: tuple[Card, ...] | None = None
        self._legal: tuple[Action, ...] | None = None

    @property
    def hand(self) -> tuple[Card, ...]:
        """The seat's own hand, in rainbow order."""
        if self._hand is None:
            self._hand = tuple(sorted(self._held, key=RANK))
        return self._hand

    @property
    def legal(self) -> tuple[Action, ...]:
        """Every action the seat may take now, as the engine lists them; empty off turn."""
        if self._legal is None:
            self._legal = (
                tuple(legal_actions(self.rules, self._held, self.top, self.named, self.two_pending))
                if self._on_turn
                else ()
            )
        return self._legal

    def _fields(self) -> tuple[object, ...]:
        return (
            self.seat,
            self.rules,
            self.hand,
            self.top,
            self.named,
            self.two_pending,
            self.pile,
            self.sizes,
            self.stock,
            self.legal,
            self.turns,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeatView):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = ("seat", "rules", "hand", "top", "named", "two_pending", "pile", "sizes", "stock", "legal")
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, self._fields(), strict=False))
        return f"SeatView({shown}, turns={self.turns!r})"


class RuleBot:
    """The automatic strategy of the rules text, exactly as batch mode plays it."""

    name = RULE

    def choose(self, view: SeatView) -> Action:
        return rule_choice(view.hand, view.top, view.rules, view.named, view.two_pending)

    def catch_up(self, view: Any) -> None:
        return None


class RandomBot:
    """Any legal action, uniformly."""

    name = RANDOM

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: SeatView) -> Action:
        return self._rng.choice(view.legal)

    def catch_up(self, view: Any) -> None:
        return None


class ExpertBot:
    """Each legal move played out in many deals consistent with what the table has shown (:mod:`.expert`)."""

    name = EXPERT

    def __init__(self, rng: random.Random, worlds: int = EXPERT_WORLDS) -> None:
        # Its own generator when given the system's source (live play), so that a twin can sample
        # the very same deals: the deals it samples are its own, and reveal nothing of the table's.
        self._rng = random.Random(rng.getrandbits(64)) if isinstance(rng, random.SystemRandom) else rng
        self.worlds = worlds

    def twin(self) -> ExpertBot:
        """A copy that will choose as this bot would now: its generator's state copied, so a hint
        asked of it names the move ``auto`` then makes; the bot itself is left as it was."""
        twin = ExpertBot(random.Random(), self.worlds)
        twin._rng.setstate(self._rng.getstate())
        return twin

    def weigh(self, view: SeatView) -> list[Weighed]:
        """Every legal action with the deals it won, best first."""
        return weigh(position_of(view), self._rng, self.worlds)

    def choose(self, view: SeatView) -> Action:
        if len(view.legal) == 1:
            return view.legal[0]
        return self.weigh(view)[0].action

    def catch_up(self, view: Any) -> None:
        return None


def position_of(view: SeatView) -> Position:
    return Position(
        view.seat,
        view.rules,
        view.hand,
        view.pile,
        view.named,
        view.two_pending,
        view.stock,
        view.turns,
        view.legal,
    )


# -- the game and a match -------------------------------------------------------------


class OchosGame:
    """The game Ochos Locos, as the registry holds it."""

    def __init__(self) -> None:
        self.name = NAME
        self.title = "Ochos Locos"
        self.variants = {
            name: Variant(
                name,
                MIN_PLAYERS if name == "part4" else CLASSIC_PLAYERS,
                MAX_PLAYERS if name == "part4" else CLASSIC_PLAYERS,
                _SUMMARIES[name],
            )
            for name in ("part4", "part1", "part2", "part3")
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
        """``expert``: the bot whose move ``hint`` gives plays a person's turn on ``auto`` (a hint
        that named one move and an ``auto`` that played another confused a play-tester)."""
        return EXPERT

    def new_match(
        self, settings: Settings, names: Sequence[str], rng: random.Random, deal: DealRecord | None = None
    ) -> OchosMatch:
        rules = rules_for(settings)
        if len(names) != rules.players:
            raise ValueError(f"{len(names)} names for {rules.players} seats")
        if deal is None:
            dealt, first = Deal.shuffled(rules, rng), rng.randrange(rules.players)
        else:
            dealt, first = deal_from_record(deal, rules), deal.first
        return OchosMatch(settings, names, Game(rules, dealt, first))

    def new_bot(self, name: str, settings: Settings, rng: random.Random) -> RuleBot | ExpertBot | RandomBot:
        if name == RULE:
            return RuleBot()
        if name == EXPERT:
            return ExpertBot(rng)
        if name == RANDOM:
            return RandomBot(rng)
        raise ValueError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}")


def deal_to_record(deal: Deal, first: int) -> DealRecord:
    """Every hand in seat order, the starting card, then the draw pile from the top; who starts."""
    cards = [str(card) for hand in deal.hands for card in hand]
    return DealRecord((*cards, str(deal.start), *(str(card) for card in deal.stock)), first)


def deal_from_record(record: DealRecord, rules: Rules) -> Deal:
    """The deal ``record`` holds; ``ValueError`` if it is not a deal for ``rules``."""
    if not 0 <= record.first < rules.players:
        raise ValueError(f"seat {record.first} cannot start a game of {rules.players}")
    try:
        cards = [Card.parse(token) for token in record.cards]
    except CardError as error:
        raise ValueError(f"not a deal of Ochos Locos: {error}") from None
    dealt = rules.players * HAND_SIZE
    if len(cards) <= dealt:
        raise ValueError(f"not a deal of Ochos Locos: {len(cards)} cards")
    hands = tuple(tuple(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(rules.players))
    deal = Deal(hands, cards[dealt], tuple(cards[dealt + 1 :]))
    try:
        deal.check(rules)
    except DealError as error:
        raise ValueError(f"not a deal of Ochos Locos: {error}") from None
    return deal


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=RANK))


class OchosMatch:
    """An Ochos Locos game in progress; ``game`` is the engine (server-side only: it holds every hand)."""

    def __init__(self, settings: Settings, names: Sequence[str], game: Game) -> None:
        self.settings = settings
        self.names = tuple(names)
        self.game = game
        self._first = game.current
        self.opening: tuple[Any, ...] = (Started(game.current, game.top),)

    @property
    def current(self) -> int:
        return self.game.current

    @property
    def turn(self) -> int:
        return self.game.turn

    @property
    def over(self) -> bool:
        return self.game.over

    def deal_record(self) -> DealRecord:
        return deal_to_record(self.game.deal, self._first)

    def legal_actions(self, seat: int) -> list[str]:
        game = self.game
        if game.over or seat != game.current:
            return []
        return [action_text(action) for action in game.legal_actions()]

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def action_text(self, action: Action) -> str:
        return action_text(action)

    def apply(self, seat: int, action: Action, outcome: tuple[str, ...] | None = None) -> Step:
        game = self.game
        if not isinstance(action, Play | Draw | TakeTwo):
            raise ActionError("bad-action", ACTIONS_HELP)
        try:
            if outcome and not isinstance(action, Play):
                game.check(seat, action)
                count = 1 if isinstance(action, Draw) else 2
                expected = tuple(str(card) for card in game.stock[:count])
                if tuple(outcome) != expected:
                    raise ActionError("bad-outcome", "the recorded cards are not the draw pile's top")
            turn = game.apply(seat, action)  # checks first, and refused changes nothing
        except IllegalAction as error:
            message = error.message
            if error.reason is Reason.NOT_YOUR_TURN:  # the engine counts seats; a player knows names
                message = f"it is {self.names[game.current]}'s turn, not yours"
            raise ActionError("illegal-action", message, str(error.reason)) from None
        event: Played | Took
        if isinstance(action, Play):
            event = Played(seat, action.card, action.colour, turn.won)
        else:
            event = Took(seat, turn.took, isinstance(action, TakeTwo))
        if not game.over:
            return Step((event,), tuple(str(card) for card in turn.took) if turn.took else ())
        result = self.outcome()
        assert result is not None, "a game that is over has an outcome"
        return Step((event, Ended(result)), tuple(str(card) for card in turn.took))

    def outcome(self) -> Outcome | None:
        game = self.game
        seats = tuple(range(len(self.names)))
        if game.winner is not None:
            others = tuple(seat for seat in seats if seat != game.winner)
            return Outcome(((game.winner,), others), "empty-hand", f"{self.names[game.winner]} wins")
        if game.stalemate:
            return Outcome((seats,), "stalemate", "stalemate: a whole round with no card played or drawn")
        return None

    def _seat_view(self, seat: int | None) -> SeatView:
        game = self.game
        return SeatView(
            -1 if seat is None else seat,
            game.rules,
            () if seat is None else game.hand(seat),
            game.top,
            game.named,
            game.two_pending,
            game.pile,
            game.hand_sizes(),
            game.stock_size,
            seat is not None and seat == game.current and not game.over,
            game.public_history,
        )

    def view(self, seat: int | None) -> Mapping[str, Any]:
        game = self.game
        return {
            "hand": None if seat is None else _cards(_sorted(game.hand(seat))),
            "top": str(game.top),
            "named": game.named,
            "two_pending": game.two_pending,
            "pile": _cards(game.pile),
            "stock": game.stock_size,
            "sizes": list(game.hand_sizes()),
        }

    def event(self, event: Any, seat: int | None) -> Mapping[str, Any]:
        """What happened, as ``seat`` is told it: its own moves in the second person ("you play
        G3"), and the cards it drew, which nobody else sees."""
        names = self.names
        match event:
            case Started(first, start):
                starts = "you play first" if first == seat else f"{names[first]} plays first"
                text = f"{start} is turned up; {starts}"
                return {"kind": "started", "text": text, "data": {"seat": first, "card": str(start)}}
            case Played(who, card, colour, won) if who == seat:
                text = f"you play {card}" + (f" and name {colour}" if colour else "")
                text += " and are out" if won else ""
                data = {"seat": who, "card": str(card), "colour": colour}
                return {"kind": "played", "text": text, "data": data}
            case Played(who, card, colour, won):
                text = f"{names[who]} plays {card}" + (f" and names {colour}" if colour else "")
                text += " and is out" if won else ""
                data = {"seat": who, "card": str(card), "colour": colour}
                return {"kind": "played", "text": text, "data": data}
            case Took(who, cards, penalty):
                kind = "took-two" if penalty else "drew"
                if not cards:  # taking two from nothing still answers the 2: say which it was
                    what = "nothing to take for the 2" if penalty else "nothing to draw"
                    passes = f"you have {what} and pass" if who == seat else None
                    text = passes or f"{names[who]} has {what} and passes"
                    return {"kind": kind, "text": text, "data": {"seat": who, "count": 0}}
                if who == seat:
                    shown = " ".join(_cards(cards))
                    took = "take two" if len(cards) > 1 else "take the last card"
                    text = f"you {took}: {shown}" if penalty else f"you draw {shown}"
                    data = {"seat": who, "count": len(cards), "cards": _cards(cards)}
                    return {"kind": kind, "text": text, "data": data}
                verb = "takes" if penalty else "draws"
                text = f"{names[who]} {verb} {counted(len(cards), 'card')}"
                return {"kind": kind, "text": text, "data": {"seat": who, "count": len(cards)}}
            case Ended(outcome):
                return {"kind": "game-ended", "text": outcome.text, "data": outcome.to_wire()}
        raise TypeError(f"not an Ochos Locos event: {event!r}")

    def bot_view(self, seat: int) -> SeatView:
        return self._seat_view(seat)

    def fallback_action(self, seat: int) -> Action | None:
        """The automatic strategy's move: always legal."""
        game = self.game
        if game.over or seat != game.current:
            return None
        return rule_move(game)

    def position_text(self) -> list[str]:
        hands = (_sorted(self.game.hand(seat)) for seat in range(len(self.names)))
        return [" ".join(_cards(hand)) or "nothing" for hand in hands]

    def hint(self, seat: int, adviser: Any | None = None) -> Callable[[], HintAnswer] | None:
        """The expert's move and why; worked out off the table's thread, on a view taken now, by a
        twin of the seat's own expert (``adviser``, which plays the seat on ``auto``) if it has one."""
        view = self._seat_view(seat)
        names = self.names
        bot = adviser.twin() if isinstance(adviser, ExpertBot) else ExpertBot(random.SystemRandom())
        return lambda: expert_hint(view, names, bot)

    def watcher_hint(self) -> None:
        return None  # hands are hidden

    def unfinished_turn(self) -> tuple[Any, ...]:
        return ()  # every action is final as it is made

    def stand_in_began(self, seat: int, asked: Collection[str]) -> tuple[Any, ...]:
        """A bot playing for a person changes nothing: every game of Ochos Locos ends."""
        return ()


def expert_hint(view: SeatView, names: Sequence[str], bot: ExpertBot) -> HintAnswer:
    """What the expert would play from ``view``, with how its choices fared and what it read."""
    if not view.legal:
        return HintAnswer("it is not your turn" if view.seat >= 0 else "you are watching")
    if len(view.legal) == 1:
        action = view.legal[0]
        text = action_text(action)
        if isinstance(action, TakeTwo):
            why = "you hold no 2 to answer the 2 with"
        elif isinstance(action, Draw):
            why = _nothing_matches(view)
        else:
            why = "it is your only playable card"
        if isinstance(action, TakeTwo | Draw) and not view.stock:
            why += "; the draw pile is empty, so it passes your turn"
        return HintAnswer(f"{text}: {why}", (text,), {"action": text})
    weighed = bot.weigh(view)
    best = weighed[0]
    text = action_text(best.action)
    others = ", ".join(f"{action_text(w.action)} {w.rate:.0%}" for w in weighed[1:4])
    more = f" and {len(weighed) - 4} more" if len(weighed) > 4 else ""
    sentence = (
        f"{text}: it won {best.rate:.0%} of {best.games} deals played out from here (against {others}{more})"
    )
    read = _what_was_read(view, names)
    if read:
        sentence += f"; so far {read}"
    data = {"action": text, "percent_won": {action_text(w.action): round(100 * w.rate) for w in weighed}}
    return HintAnswer(sentence, (text,), data)


def _nothing_matches(view: SeatView) -> str:
    """Why a draw is the only move: after an 8 named a colour, the card to match is that colour or
    an 8, not the 8's own colour."""
    if view.named is not None:
        return f"nothing in your hand matches the colour named, {view.named}, or is an 8"
    return "nothing in your hand matches the top card"


def _what_was_read(view: SeatView, names: Sequence[str]) -> str:
    """What the table's draws have shown each opponent cannot hold, in words: ``Bob holds no Y``."""
    position = position_of(view)
    unseen = position.unseen()
    said = []
    for other, lack in sorted(lacking(position).items()):
        gone = [
            c
            for c, colour in enumerate(COLOURS)
            if unseen & COLOUR_MASK[c] and not unseen & COLOUR_MASK[c] & ~lack
        ]
        parts = [" or ".join(COLOURS[c] for c in gone)] if gone else []
        if view.rules.twos and unseen & TWOS and not unseen & TWOS & ~lack:
            parts.append("2")
        if parts:
            said.append(f"{names[other]} holds no {' and no '.join(parts)}")
    return "; ".join(said)


GAME = OchosGame()
