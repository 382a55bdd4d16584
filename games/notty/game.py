"""Notty behind the game seam (:mod:`games`): its settings, bots, matches, views and hints.

The engine (:mod:`games.notty.engine`) knows nothing of tables or the wire;
this module is the one place that turns it into what the platform asks for.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import attrs

from games._interface import (
    ActionError,
    Bot,
    DealRecord,
    HintAnswer,
    Option,
    Outcome,
    Settings,
    SettingsError,
    Step,
    Variant,
    check_settings,
)
from solver import all_best_discards, best_discard, max_discard, outs

from ._advice import TurnAdvice, put_back_chances, turn_advice
from ._cards import Card, CardError
from ._rules import (
    CLASSIC,
    PRESETS,
    PRESETS_OWN,
    TABLE_FIELDS,
    Rules,
    RulesError,
    option_value,
    table_fields,
    with_table_options,
)
from .bots import BOTS, LEVELS, ExpertBot, make_bot
from .engine import (
    Action,
    ActionSyntaxError,
    Deal,
    EndTurn,
    Game,
    GameEnded,
    IllegalAction,
    PutBack,
    Rule,
    Steal,
    View,
    parse_action,
)
from .engine import Outcome as Chance
from .engine import outcome_of as chance_of
from .ui import EMPTIES_THE_HAND, MILLION, TurnHint, advice_lines, percent
from .wire import event_to_wire, hint_data, seats_named, view_body

NAME = "notty"
#: The bot that plays at the table's level: seats named so, stand-ins, and early-start fillers.
EXPERT = "expert"
DEFAULT_LEVEL = "medium"
#: The most turns a table's limit may be.
MAX_TURN_LIMIT = 100_000
#: The turn limit of a table where a bot plays, unless its creator gave one (0 included): at its
#: creation with a bot seat, or when a bot first stands in for a person at a table with none (then
#: this many turns after those already played).
BOT_TURN_LIMIT = 300
#: The no-progress rule's default (``Rules.quiet_rounds``), and the most rounds a table may set.
QUIET_ROUNDS = 3
MAX_QUIET_ROUNDS = 1000
#: The most a table may set ``hand_limit`` to: past the deck, it is no limit at all.
MAX_HAND_LIMIT = 99
#: The most cards a table may deal each player: the presets' hand limit.
MAX_CARDS_DEALT = 20
#: A hint lists at most this many other best discards.
MAX_ALTERNATIVES = 10
#: ... found within this many states of their search: a hand of the presets' limit needs some 120 at
#: most, a hand of 70 cards (a table with no hand limit) tens of thousands, a second of CPU a hint.
ALTERNATIVES_SEARCHED = 2_000


def _by_preset(field: str) -> str:
    """A field's value in each preset, as the options' summaries say it: '5 in classic, 4 in five-colour'."""

    def said(value: object) -> str:
        return {True: "yes", False: "no"}.get(value, str(value)) if isinstance(value, bool) else str(value)

    return ", ".join(f"{said(getattr(rules, field))} in {name}" for name, rules in PRESETS.items())


OPTIONS = {
    "level": Option(
        "level", "how well the table's expert bots play, stand-ins included", DEFAULT_LEVEL, choices=LEVELS
    ),
    "turn_limit": Option(
        "turn_limit",
        f"the game ends with no winner after this many turns (0: never); unless given, none at a "
        f"table of people and {BOT_TURN_LIMIT} where a bot plays",
        0, low=0, high=MAX_TURN_LIMIT, bot_default=BOT_TURN_LIMIT,
    ),
    "quiet_rounds": Option(
        "quiet_rounds",
        "the game is drawn when no hand has changed for this many whole rounds (0: never)",
        QUIET_ROUNDS, low=0, high=MAX_QUIET_ROUNDS,
    ),
    # The rules text lets a table override a preset's fields: this one, which both presets share,
    # is the one it names (0 reproduces the older classic game, which had none).
    "hand_limit": Option(
        "hand_limit",
        "the most cards a hand may hold (0: no limit; at least the cards dealt)",
        CLASSIC.hand_limit, low=0, high=MAX_HAND_LIMIT,
    ),
    # The preset's other fields but its deck and its players (a table's seats are its own already):
    # 0, or "preset", keeps the preset's value, which differs between them.
    "cards_dealt": Option(
        "cards_dealt",
        f"the cards dealt to each player (0: the preset's, {_by_preset('hand_size')})",
        0, low=0, high=MAX_CARDS_DEALT,
    ),
    "shortest_run": Option(
        "shortest_run",
        f"the fewest cards a run may have (0: the preset's, {_by_preset('shortest_run')})",
        0, low=0, high=max(rules.numbers for rules in PRESETS.values()),
    ),
    "smallest_set": Option(
        "smallest_set",
        f"the fewest cards a set may have (0: the preset's, {_by_preset('smallest_set')})",
        0, low=0, high=max(len(rules.colours) for rules in PRESETS.values()),
    ),
    "draw_and_discard": Option(
        "draw_and_discard",
        f"whether a turn may draw a card and put one back ({_by_preset('draw_and_discard')})",
        PRESETS_OWN, choices=(PRESETS_OWN, "yes", "no"),
    ),
    "last_card_stolen_wins": Option(
        "last_card_stolen_wins",
        f"whether a player whose last card is stolen wins ({_by_preset('last_card_stolen_wins')})",
        PRESETS_OWN, choices=(PRESETS_OWN, "yes", "no"),
    ),
}  # fmt: skip
_SUMMARIES = {
    "classic": "four colours, 1 to 10 twice over: runs of 3+, sets of 3+",
    "five-colour": "five colours with draw-and-discard",
}


def bot_at_level(bot: str, level: str) -> str:
    """The bot a seat named ``bot`` gets at a table of ``level``: a plain ``expert`` plays at the
    table's level; any other name (``expert-hard``, ``greedy``...) is taken as given."""
    return f"{EXPERT}-{level}" if bot == EXPERT else bot


def rules_for(settings: Settings) -> Rules:
    options = settings.options
    preset = PRESETS[settings.variant]
    played = preset.replace(turn_limit=int(options["turn_limit"]), quiet_rounds=int(options["quiet_rounds"]))
    return with_table_options(played, options)


#: The fewest cards a table's runs and sets may have: groups of 2 make every hand mostly groups, and
#: the solver's and the expert's work on a hand grows past seconds a move (36 s measured, 25 cards).
SMALLEST_GROUP = 3


def _playable(rules: Rules) -> None:
    """What :class:`Rules` allows but no table could play: a group size no group can reach."""
    if rules.shortest_run > rules.numbers:
        raise RulesError(
            f"shortest_run {rules.shortest_run} is more than the {rules.numbers} numbers of a {rules.name} "
            "colour: no run could be made"
        )
    if rules.smallest_set > len(rules.colours):
        raise RulesError(
            f"smallest_set {rules.smallest_set} is more than the {len(rules.colours)} colours of "
            f"{rules.name}: no set could be made"
        )


def _too_small(name: str, size: int) -> str:
    why = f": with groups of {size}, hints and bots would take too long a move" if size > 1 else ""
    return f"{name} must be at least {SMALLEST_GROUP}, not {size}{why}"


def _offered(rules: Rules) -> None:
    """What this server will not host though the rules allow it: groups too small to serve, and a
    game nobody could win (no hand may hold a group, and every hand is full from the deal or a last
    card may not be stolen)."""
    for name, size in (("shortest_run", rules.shortest_run), ("smallest_set", rules.smallest_set)):
        if size < SMALLEST_GROUP:
            raise RulesError(_too_small(name, size))
    if rules.hand_limit and rules.hand_size == rules.hand_limit < rules.smallest_group:
        raise RulesError(
            f"cards_dealt {rules.hand_size} fills every hand to hand_limit {rules.hand_limit}, below the "
            f"smallest group ({rules.smallest_group} cards): nobody could draw, steal or discard, and the "
            "game would end at the deal in a stalemate"
        )
    if rules.hand_limit and rules.hand_limit < rules.smallest_group and not rules.last_card_stolen_wins:
        raise RulesError(
            f"hand_limit {rules.hand_limit} is below the smallest group ({rules.smallest_group} cards) and a "
            "last card may not be stolen: no hand could ever be emptied, so nobody could win"
        )


class NottyGame:
    """The game Notty, as the registry holds it."""

    def __init__(self) -> None:
        self.name = NAME
        self.title = "Notty"
        self.variants = {
            name: Variant(name, rules.min_players, rules.max_players, _SUMMARIES.get(name, name))
            for name, rules in PRESETS.items()
        }
        self.options = OPTIONS
        self.bots = tuple(BOTS)

    def settings(self, variant: str | None, seats: int, options: Mapping[str, Any]) -> Settings:
        chosen, filled = check_settings(self, variant, seats, options)
        preset = table_fields(PRESETS[chosen.name])
        for name, value in filled.items():  # one the preset has already is its own: not named as a change
            if name in TABLE_FIELDS and name != "hand_limit" and option_value(name, value) == preset[name]:
                filled[name] = self.options[name].default
        for name in ("shortest_run", "smallest_set"):  # no group of 1: said with this server's least,
            size = filled.get(name, 0)  # not the rules' 2, which the next try would be refused
            if isinstance(size, int) and 0 < size < 2:
                raise SettingsError("bad-option", _too_small(name, size))
        settings = Settings(NAME, chosen.name, seats, filled)
        try:  # the fields together: a hand limit below the cards dealt, say
            _playable(rules_for(settings))
        except RulesError as error:
            raise SettingsError("bad-option", str(error)) from None
        return settings

    def offered(self, settings: Settings) -> None:
        try:
            _offered(rules_for(settings))
        except RulesError as error:
            raise SettingsError("bad-option", str(error)) from None

    def seat_bot(self, bot: str, settings: Settings) -> str:
        return bot_at_level(bot, str(settings.options["level"]))

    def stand_in(self, settings: Settings) -> str:
        return EXPERT

    def new_match(
        self, settings: Settings, names: Sequence[str], rng: random.Random, deal: DealRecord | None = None
    ) -> NottyMatch:
        order = None if deal is None else Deal(tuple(Card.parse(card) for card in deal.cards), deal.first)
        return NottyMatch(settings, Game(rules_for(settings), names, rng, deal=order))

    def new_bot(self, name: str, settings: Settings, rng: random.Random) -> Bot:
        return make_bot(name, rng)


class NottyMatch:
    """A Notty game in progress. Hands are face up, so every viewer's body is the same: it is
    built once per position and shared, as is each event's wire form (but for the seats it names,
    each told it in the second person)."""

    def __init__(self, settings: Settings, game: Game) -> None:
        self.settings = settings
        self.game = game
        self.names = game.names
        self.opening = tuple(game.opening)
        self._body: dict[str, Any] | None = None
        self._events: dict[int, tuple[Any, dict[str, Any]]] = {}

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
        deal = self.game.deal
        return DealRecord(tuple(str(card) for card in deal.order), deal.first)

    def legal_actions(self, seat: int) -> list[str]:
        game = self.game
        if seat != game.current or game.over:
            return []
        return [str(action) for action in game.legal_actions()]

    def parse_action(self, text: str) -> Action:
        try:
            return parse_action(text)
        except ActionSyntaxError as error:
            raise ActionError("bad-action", str(error)) from None

    def action_text(self, action: Action) -> str:
        return str(action)

    def apply(self, seat: int, action: Action, outcome: tuple[str, ...] | None = None) -> Step:
        game = self.game
        try:
            events = game.apply(action, seat=seat, outcome=_chance(outcome) if outcome else None)
        except IllegalAction as error:
            message = error.message
            if error.rule is Rule.NOT_YOUR_TURN:  # the engine counts seats; a player knows names
                message = f"it is {game.names[game.current]}'s turn, not yours"
            raise ActionError("illegal-action", message, str(error.rule)) from None
        self._body = None
        self._events = {}
        return Step(tuple(events), _tokens(chance_of(events)))

    def unfinished_turn(self) -> tuple[Any, ...]:
        return ()  # every action is final as it is made

    def stand_in_began(self, seat: int, asked: Collection[str]) -> tuple[Any, ...]:
        """A bot began to play for ``seat``'s person: a table with no turn limit, unless its creator
        asked for none, now ends with no winner :data:`BOT_TURN_LIMIT` turns after those played."""
        game = self.game
        limit = game.turn - 1 + BOT_TURN_LIMIT
        if "turn_limit" in asked or game.rules.turn_limit or game.over or limit > MAX_TURN_LIMIT:
            return ()
        events = game.set_turn_limit(limit)
        self.settings = Settings(
            self.settings.game,
            self.settings.variant,
            self.settings.seats,
            {**self.settings.options, "turn_limit": limit},
        )
        self._body = None
        return tuple(events)

    def outcome(self) -> Outcome | None:
        game = self.game
        if game.end_reason is None:
            return None
        end = GameEnded(game.winner, game.end_reason)
        text = event_to_wire(end, game.names, game.rules)["text"]
        seats = range(len(game.names))
        if game.winner is None:
            return Outcome((tuple(seats),), game.end_reason.value, text)
        others = tuple(seat for seat in seats if seat != game.winner)
        return Outcome(((game.winner,), others), game.end_reason.value, text)

    def view(self, seat: int | None) -> Mapping[str, Any]:
        if self._body is None:
            self._body = view_body(self.game.view(None))
        return self._body

    def event(self, event: Any, seat: int | None) -> Mapping[str, Any]:
        """The event's wire form: told in the second person to a seat it names ("you draw ..."),
        and alike to everyone else, who share one copy."""
        if seat is not None and seat in seats_named(event):
            return event_to_wire(event, self.game.names, self.game.rules, seat)
        cached = self._events.get(id(event))
        if cached is None or cached[0] is not event:
            wire = event_to_wire(event, self.game.names, self.game.rules)
            cached = self._events[id(event)] = (event, wire)
        return cached[1]

    def bot_view(self, seat: int) -> Any:
        return self.game.view(seat)

    def fallback_action(self, seat: int) -> Action | None:
        """End the turn; in the middle of draw-and-discard, put a card back first (the rules
        require one, and any will do)."""
        game = self.game
        if game.over or seat != game.current:
            return None
        if game.must_put_back:
            return parse_action(f"putback {game.hands[seat][-1]}")
        return EndTurn()

    def position_text(self) -> list[str]:
        return [" ".join(str(card) for card in hand) or "nothing" for hand in self.game.hands]

    def hint(self, seat: int, adviser: Any | None = None) -> Callable[[], HintAnswer] | None:
        game = self.game
        hand, rules = tuple(game.hands[seat]), game.rules
        put_back = game.must_put_back and game.current == seat
        own = game.view(seat) if game.current == seat and not game.over else None  # advice for the turn
        twin = adviser.twin() if isinstance(adviser, ExpertBot) else None  # taken now, on the host's loop
        return lambda: make_hint(hand, rules, put_back, own, twin)

    def watcher_hint(self) -> Callable[[], HintAnswer]:
        """Hands are face up: the hand to play's best discard, its alternatives and outs, as its
        player's hint gives them, with no command to type (the watcher has no seat to act for)."""
        game = self.game
        hand, rules, put_back = tuple(game.hands[game.current]), game.rules, game.must_put_back

        def solve() -> HintAnswer:  # midway through a draw-and-discard: the card to put back, then
            answer = make_hint(hand, rules, put_back)
            return HintAnswer(
                text=answer.text, actions=answer.actions[:1] if put_back else (), data=answer.data
            )

        return solve


def make_hint(
    hand: Sequence[Card],
    rules: Rules,
    put_back: bool = False,
    own: View | None = None,
    adviser: ExpertBot | None = None,
) -> HintAnswer:
    """The solver's answer for a hand: its best discard, the other optimal ones, and the outs;
    given the asker's ``own`` view on their turn, advice for the turn as well (:mod:`._advice`),
    with the move of ``adviser`` (the bot that plays the seat on ``auto``; a fresh expert if none).

    Midway through a draw-and-discard (``put_back``) a card must go back first (see
    :func:`_put_back`, or the adviser's choice); the answer's first action puts it back, whatever
    follows."""
    if put_back and hand:
        card, why = _put_back(hand, rules, own)
        chosen = adviser.choose(own) if adviser is not None and own is not None else None
        if isinstance(chosen, PutBack) and chosen.card != card:
            card, why = chosen.card, "the card 'auto' would put back: it keeps the hand it rates best"
        after = None if own is None else _put_back_in(own, card)
        then = make_hint(_without(hand, card), rules, own=after, adviser=adviser)
        text = f"put back {card} first ({why}), then: {then.text}"
        return HintAnswer(text=text, actions=(f"putback {card}", *then.actions), data=then.data)
    best = best_discard(hand, rules)
    best_cards = tuple(sorted(card for group in best for card in group))
    found = all_best_discards(hand, rules, ALTERNATIVES_SEARCHED)
    alternatives = [d for d in found if d != best_cards][:MAX_ALTERNATIVES]
    empties = bool(hand) and len(best_cards) == len(hand)
    gains = [] if empties else outs(hand, rules)  # (no card drawn could add to all of them)
    groups = [tuple(str(card) for card in group) for group in best]
    if groups:
        text = f"discard {len(best_cards)} cards: " + "  ".join(" ".join(group) for group in groups)
    else:
        text = "nothing can be discarded now"
    if empties and own is not None:  # on our turn: said, where the advice for the turn would be
        text = f"{text}; {EMPTIES_THE_HAND}"
    data = hint_data(best, alternatives, gains, rules)
    if own is not None and len(best_cards) < len(hand):  # a hand that can go out now needs no advice
        turn = advice_hint(turn_advice(own, adviser), own.names)
        data["turn"] = attrs.asdict(turn)
        text = "; ".join([text, *advice_lines(turn, colour=False, groups=bool(groups))])
    return HintAnswer(text=text, actions=tuple("discard " + " ".join(group) for group in groups), data=data)


def advice_hint(advice: TurnAdvice, names: Sequence[str]) -> TurnHint:
    """The advice as a hint carries it: its actions as a player types them (a victim by name)."""

    def typed(action: Action) -> str:
        return f"steal {names[action.victim]}" if isinstance(action, Steal) else str(action)

    chances = tuple((typed(plan.first), per_million(plan.chance)) for plan in advice.plans)
    return TurnHint(chances, typed(advice.expert), advice.exchange_unweighed, advice.full, advice.bounded)


def per_million(chance: float) -> int:
    """A chance in millionths, never rounded to nil or to a certainty it is not."""
    if chance <= 0.0 or chance >= 1.0:
        return MILLION if chance >= 1.0 else 0
    return min(MILLION - 1, max(1, round(chance * MILLION)))


def _put_back_in(view: View, card: Card) -> View:
    """``view`` once ``card`` is put back (the deck's contents follow from the hands; its size is one
    more). Whether every hand is as the turn began is left as it was: the view cannot say."""
    seat = view.current
    hands = tuple(tuple(_without(hand, card)) if at == seat else hand for at, hand in enumerate(view.hands))
    return attrs.evolve(view, hands=hands, must_put_back=False, deck_size=view.deck_size + 1)


def _put_back(hand: Sequence[Card], rules: Rules, own: View | None = None) -> tuple[Card, str]:
    """The card to put back midway through a draw-and-discard, and a true reason for it.

    Given the asker's ``own`` view, the one that gives the best chance of going out this turn, if
    any does (:func:`._advice.put_back_chances`: as the hint's draw-and-discard plan weighed it).
    Else the one whose return leaves the most to discard; of those, the one whose return leaves the
    best outs (their gains summed, then their number: where the put-back changes nothing that can
    be discarded now, what the hand may still become is what differs); then the one that the
    fewest other cards could make a group with (:func:`_partners`: keep near-groups together);
    then one the best discard leaves out, the highest first."""
    chances = {} if own is None else put_back_chances(own)
    if chances and max(chances.values()) > 0:
        card = max(sorted(chances), key=chances.__getitem__)
        return card, f"it gives the best chance of going out this turn, {percent(per_million(chances[card]))}"
    used = {card for group in best_discard(hand, rules) for card in group}
    worth = {}
    for card in set(hand):
        rest = _without(hand, card)
        gains = [out.gain for out in outs(rest, rules)]
        worth[card] = (
            max_discard(rest, rules),
            sum(gains),
            len(gains),
            -_partners(card, rest, rules),
            card not in used,
            card,
        )
    card = max(worth, key=worth.__getitem__)
    best = worth[card]
    rivals = [w for w in worth.values() if w[0] == best[0]]  # as much to discard: the outs decide
    if any(w[0] < best[0] for w in worth.values()):
        return card, "it leaves the most to discard"
    if any(w[1] < best[1] for w in rivals):
        if all(w[2] <= best[2] for w in rivals):
            return card, "it keeps the most outs"
        return card, "it keeps the outs worth the most"
    if any(w[2] < best[2] for w in rivals):
        return card, "it keeps the most outs"
    if any(w[3] < best[3] for w in rivals):
        return card, "the fewest cards could make a group with it"
    return card, "any card would do as well"


def _partners(card: Card, rest: Sequence[Card], rules: Rules) -> int:
    """How many different cards of ``rest`` could be in a group with ``card``: its colour within a
    shortest run of it, or its number in another colour."""
    return sum(
        1
        for other in set(rest)
        if (other.colour == card.colour and 0 < abs(other.number - card.number) < rules.shortest_run)
        or (other.number == card.number and other.colour != card.colour)
    )


def _without(hand: Sequence[Card], card: Card) -> list[Card]:
    rest = list(hand)
    rest.remove(card)
    return rest


def _chance(tokens: tuple[str, ...]) -> Chance:
    """A recorded chance outcome in the form the engine takes: one card, or the cards drawn."""
    try:
        cards = tuple(Card.parse(token) for token in tokens)
    except CardError as error:
        raise ActionError("bad-outcome", f"a recorded outcome is not cards: {error}") from None
    return cards[0] if len(cards) == 1 else cards


def _tokens(chance: Chance | None) -> tuple[str, ...]:
    if chance is None:
        return ()
    return (str(chance),) if isinstance(chance, Card) else tuple(str(card) for card in chance)


GAME = NottyGame()
