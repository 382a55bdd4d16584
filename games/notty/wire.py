"""Notty's engine objects in wire form: the view's body, each event and a hint's data as the protocol
carries them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.notty import Card, Rules
from solver import Out, best_discard

from ._endings import end_text
from ._rules import PRESETS, TABLE_FIELDS, table_fields
from .engine import (
    Discarded,
    Drew,
    DrewToExchange,
    Event,
    GameEnded,
    GameStarted,
    ReturnedCard,
    Stole,
    TurnEnded,
    TurnLimitSet,
    View,
)


def view_body(view: View) -> dict[str, Any]:
    """The game's part of a view: every hand (Notty's hands are face up), the deck's size, what
    the player to move has used up this turn, and how the game may end with no winner: the turn
    limit (0: none), the rounds without a change that draw it (0: never) and the turns in a row
    that have passed without one; and the rules the table set that are not its preset's, so that a
    client checks and says what this table plays. Never the deck's order."""
    return {
        "hands": [_cards(hand) for hand in view.hands],
        "deck_size": view.deck_size,
        "drew": view.drew,
        "stole": view.stole,
        "exchanged": view.exchanged,
        "must_put_back": view.must_put_back,
        "turn_limit": view.rules.turn_limit,
        "quiet_rounds": view.rules.quiet_rounds,
        # 0 once this turn has changed a hand (a discard, say): the count starts again at its end, and
        # a table line said "no hand changed for 2 of the 9 turns" under a discard just made.
        "quiet_turns": view.quiet_turns if view.unchanged else 0,
        **_own_rules(view.rules),
    }


def _own_rules(rules: Rules) -> dict[str, Any]:
    """``{"rules": ...}``, the rules a table set that differ from its preset's (every one, for rules
    of no preset), or nothing: sent with every move to every seat, most tables have none."""
    fields = table_fields(rules)
    preset = PRESETS.get(rules.name)
    if preset is not None:
        fields = {
            name: value for name, value in fields.items() if value != getattr(preset, TABLE_FIELDS[name])
        }
    return {"rules": fields} if fields else {}


def event_to_wire(
    event: Event, names: Sequence[str], rules: Rules | None = None, seat: int | None = None
) -> dict[str, Any]:
    """An event as the protocol carries it: a ``kind``, a line of ``text`` for people, and its facts
    as ``data``. ``rules`` (the game's) puts numbers in the words for an end with no winner.
    ``seat``: the viewer's, told its own moves in the second person ("you draw 2 cards: R3 Y7"),
    and named "you" where another's move names it ("bob steals R3 from you"); the result, the same
    for everyone, is told alike to all."""

    def who(at: int) -> str:
        return "you" if at == seat else names[at]

    def does(at: int, verb: str) -> str:  # "ann draws", "you draw": the verb as it is after "you"
        return f"you {verb}" if at == seat else f"{names[at]} {_third_person(verb)}"

    fields: dict[str, Any]
    match event:
        case GameStarted(first):
            fields = {"kind": "game-started", "seat": first}
            text = f"{does(first, 'play')} first"
        case Drew(actor, cards):
            fields = {"kind": "drew", "seat": actor, "cards": _cards(cards)}
            text = f"{does(actor, 'draw')} {len(cards)} card{'s' if len(cards) > 1 else ''}: {_shown(cards)}"
        case Stole(actor, victim, card):
            fields = {"kind": "stole", "seat": actor, "victim": victim, "card": str(card)}
            text = f"{does(actor, 'steal')} {card} from {who(victim)}"
        case Discarded(actor, cards, kind):
            fields = {"kind": "discarded", "seat": actor, "cards": _cards(cards), "group": kind.value}
            text = f"{does(actor, 'discard')} the {kind.value} {_shown(cards)}"
        case DrewToExchange(actor, card):
            fields = {"kind": "drew-to-exchange", "seat": actor, "card": str(card)}
            text = f"{does(actor, 'draw')} {card} to exchange"
        case ReturnedCard(actor, card):
            fields = {"kind": "put-back", "seat": actor, "card": str(card)}
            text = f"{does(actor, 'put')} back {card}"
        case TurnEnded(actor, next_seat, turn):
            fields = {"kind": "turn-ended", "seat": actor, "next_seat": next_seat, "turn": turn}
            after = "your turn" if next_seat == seat else f"{names[next_seat]} to play"
            text = f"{does(actor, 'end')} the turn; {after}"
        case TurnLimitSet(turn_limit):
            fields = {"kind": "turn-limit-set", "turn_limit": turn_limit}
            text = (
                f"a bot now plays at this table, so it has a turn limit: the game ends with no winner "
                f"after turn {turn_limit}"
            )
        case GameEnded(winner, reason):
            fields = {"kind": "game-ended", "winner": winner, "reason": reason.value}
            quiet, limit = (0, 0) if rules is None else (rules.quiet_rounds, rules.turn_limit)
            text = end_text(winner, reason.value, names, quiet_rounds=quiet, turn_limit=limit)
        case _:  # pragma: no cover
            raise TypeError(f"not an event: {event!r}")
    kind = fields.pop("kind")
    return {"kind": kind, "text": text, "data": fields}


def seats_named(event: Event) -> frozenset[int]:
    """The seats an event's words name, each told it in the second person (:func:`event_to_wire`):
    whoever else sees it is told it alike."""
    match event:
        case GameStarted(first):
            return frozenset({first})
        case Drew(actor, _) | Discarded(actor, _, _) | DrewToExchange(actor, _) | ReturnedCard(actor, _):
            return frozenset({actor})
        case Stole(actor, victim, _):
            return frozenset({actor, victim})
        case TurnEnded(actor, next_seat, _):
            return frozenset({actor, next_seat})
    return frozenset()


def _third_person(verb: str) -> str:
    """The verb after a name: 'draw' -> 'draws' (every verb an event uses takes an s)."""
    return f"{verb}s"


def hint_data(
    best: Sequence[Sequence[Card]], alternatives: Sequence[Sequence[Card]], gains: Sequence[Out], rules: Rules
) -> dict[str, Any]:
    """A hint's ``data``: the best discard's groups, the other best discards (each as its cards,
    which clients before ``alternative_groups`` read, and as its groups, in the same order) and the
    outs. An alternative's groups are the solver's best discard of its own cards, all of them."""
    return {
        "size": sum(len(group) for group in best),
        "best": [_cards(group) for group in best],
        "alternatives": [_cards(discard) for discard in alternatives],
        "alternative_groups": [
            [_cards(group) for group in best_discard(discard, rules)] for discard in alternatives
        ],
        "outs": [{"card": str(out.card), "gain": out.gain} for out in gains],
    }


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def _shown(cards: Sequence[Card]) -> str:
    return " ".join(_cards(sorted(cards)))
