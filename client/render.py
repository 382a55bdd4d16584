"""Plain and coloured text for cards, hands and events: how a terminal shows the game."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocol import Card
from server.engine import (
    Discarded,
    Drew,
    DrewToExchange,
    Event,
    GameEnded,
    GameStarted,
    ReturnedCard,
    Stole,
    TurnEnded,
    View,
)

_ANSI = {"R": "\x1b[1;31m", "Y": "\x1b[1;33m", "G": "\x1b[1;32m", "B": "\x1b[1;34m", "K": "\x1b[1;90m"}
_RESET = "\x1b[0m"


def card_text(card: Card, colour: bool) -> str:
    return f"{_ANSI[card.colour]}{card}{_RESET}" if colour else str(card)


def cards_text(cards: Iterable[Card], colour: bool) -> str:
    return " ".join(card_text(card, colour) for card in sorted(cards)) or "-"


def table_text(view: View, colour: bool) -> str:
    """Every hand with its size, the deck, and whose turn it is."""
    width = max(len(name) for name in view.names)
    lines = [f"turn {view.turn} · deck {view.deck_size} cards"]
    for seat, (name, hand) in enumerate(zip(view.names, view.hands, strict=True)):
        marker = ">" if seat == view.current and not view.over else " "
        lines.append(f" {marker} {name:<{width}} [{len(hand):>2}]  {cards_text(hand, colour)}")
    return "\n".join(lines)


def event_text(event: Event, names: Sequence[str], colour: bool) -> str:
    """One line saying what happened."""
    match event:
        case GameStarted(first):
            return f"{names[first]} starts"
        case Drew(seat, cards):
            count = len(cards)
            return f"{names[seat]} draws {count} card{'s' if count > 1 else ''}: {cards_text(cards, colour)}"
        case Stole(seat, victim, card):
            return f"{names[seat]} steals {card_text(card, colour)} from {names[victim]}"
        case Discarded(seat, cards, kind):
            return f"{names[seat]} discards the {kind.value} {cards_text(cards, colour)}"
        case DrewToExchange(seat, card):
            return f"{names[seat]} draws {card_text(card, colour)} to exchange"
        case ReturnedCard(seat, card):
            return f"{names[seat]} puts back {card_text(card, colour)}"
        case TurnEnded(seat, _next_seat, _turn):
            return f"{names[seat]} ends the turn"
        case GameEnded(winner, reason):
            if winner is None:
                return f"game over, no winner ({reason.value.replace('-', ' ')})"
            how = (
                "by discarding their last cards"
                if reason.value == "discard"
                else "as their last card was stolen"
            )
            return f"{names[winner]} wins {how}"
    raise TypeError(f"not an event: {event!r}")  # pragma: no cover
