"""Engine objects in wire form: views and events as the protocol's maps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol import Card

from .engine import (
    Discarded,
    Drew,
    DrewToExchange,
    Event,
    Game,
    GameEnded,
    GameStarted,
    ReturnedCard,
    Stole,
    TurnEnded,
    View,
    legal_actions,
)


def view_to_wire(view: View) -> dict[str, Any]:
    """Everything ``view.seat`` may see, including the actions it may take now."""
    legal = [str(action) for action in legal_actions(view)] if view.my_turn else []
    return {
        "preset": view.rules.name,
        "names": list(view.names),
        "seat": view.seat,
        "hands": [_cards(hand) for hand in view.hands],
        "deck_size": view.deck_size,
        "current": view.current,
        "turn": view.turn,
        "drew": view.drew,
        "stole": view.stole,
        "exchanged": view.exchanged,
        "must_put_back": view.must_put_back,
        "winner": view.winner,
        "end_reason": None if view.end_reason is None else view.end_reason.value,
        "legal": legal,
    }


def seat_view(shared: dict[str, Any], game: Game, seat: int) -> dict[str, Any]:
    """``view_to_wire(game.view(seat))`` from the spectators' form: hands are face up, so a
    seat's view adds only whose it is and, on its turn, what it may do."""
    view = dict(shared)
    view["seat"] = seat
    if seat == game.current and not game.over:
        view["legal"] = [str(action) for action in legal_actions(game.view(seat))]
    return view


def event_to_wire(event: Event, names: Sequence[str]) -> dict[str, Any]:
    """An event as a map with a ``kind``, its facts, and a line of ``text`` for people."""
    fields: dict[str, Any]
    match event:
        case GameStarted(first):
            fields = {"kind": "game-started", "seat": first}
            text = f"{names[first]} starts"
        case Drew(seat, cards):
            fields = {"kind": "drew", "seat": seat, "cards": _cards(cards)}
            text = f"{names[seat]} draws {len(cards)} card{'s' if len(cards) > 1 else ''}: {_shown(cards)}"
        case Stole(seat, victim, card):
            fields = {"kind": "stole", "seat": seat, "victim": victim, "card": str(card)}
            text = f"{names[seat]} steals {card} from {names[victim]}"
        case Discarded(seat, cards, kind):
            fields = {"kind": "discarded", "seat": seat, "cards": _cards(cards), "group": kind.value}
            text = f"{names[seat]} discards the {kind.value} {_shown(cards)}"
        case DrewToExchange(seat, card):
            fields = {"kind": "drew-to-exchange", "seat": seat, "card": str(card)}
            text = f"{names[seat]} draws {card} to exchange"
        case ReturnedCard(seat, card):
            fields = {"kind": "put-back", "seat": seat, "card": str(card)}
            text = f"{names[seat]} puts back {card}"
        case TurnEnded(seat, next_seat, turn):
            fields = {"kind": "turn-ended", "seat": seat, "next_seat": next_seat, "turn": turn}
            text = f"{names[seat]} ends the turn; {names[next_seat]} to play"
        case GameEnded(winner, reason):
            fields = {"kind": "game-ended", "winner": winner, "reason": reason.value}
            if winner is None:
                text = f"game over, no winner ({reason.value.replace('-', ' ')})"
            elif reason.value == "discard":
                text = f"{names[winner]} wins by discarding their last cards"
            else:
                text = f"{names[winner]} wins: their last card was stolen"
        case _:  # pragma: no cover
            raise TypeError(f"not an event: {event!r}")
    fields["text"] = text
    return fields


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def _shown(cards: Sequence[Card]) -> str:
    return " ".join(_cards(sorted(cards)))
