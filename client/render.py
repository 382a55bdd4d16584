"""Plain and coloured text for cards, hands and events: how a terminal shows the game."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from protocol import Card
from server.engine import Event, View
from server.wire import event_to_wire

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
    """One line saying what happened: the server's wording, with the cards coloured."""
    return colour_cards_in(event_to_wire(event, names)["text"], colour)


# -- the wire view, as the networked client shows it --------------------------------

_CARD_WORD = re.compile(r"\b([RYGBK])(\d{1,2})\b")


def colour_cards_in(text: str, colour: bool) -> str:
    """Colour every card name in a line of text."""
    if not colour:
        return text
    return _CARD_WORD.sub(lambda m: f"{_ANSI[m.group(1)]}{m.group(0)}{_RESET}", text)


def wire_cards(cards: Iterable[str], colour: bool) -> str:
    return " ".join(colour_cards_in(card, colour) for card in cards) or "-"


def state_text(table: int, view: Mapping[str, Any], events: Sequence[Mapping[str, Any]], colour: bool) -> str:
    """The table after a change: what happened, every hand, and what the player to move may do."""
    lines = [colour_cards_in(f"  {event['text']}", colour) for event in events]
    names = view["names"]
    width = max(len(name) for name in names)
    lines.append(f"table {table} · {view['preset']} · turn {view['turn']} · deck {view['deck_size']} cards")
    for seat, (name, hand) in enumerate(zip(names, view["hands"], strict=True)):
        marker = ">" if seat == view["current"] and view["end_reason"] is None else " "
        you = " (you)" if seat == view["seat"] else ""
        lines.append(f" {marker} {name:<{width}} [{len(hand):>2}]  {wire_cards(hand, colour)}{you}")
    if view["end_reason"] is not None:
        winner = view["winner"]
        how = _ENDINGS.get(view["end_reason"], str(view["end_reason"]))
        lines.append(
            "game over: "
            + (f"{names[winner]} wins ({how})" if winner is not None else f"no winner ({how})")
            + "; 'leave' returns to the lobby"
        )
    elif view["legal"]:
        lines.append("your turn: " + legal_summary(view["legal"]))
    else:
        lines.append(f"{names[view['current']]} to play; may still {', '.join(still_possible(view))}")
    return "\n".join(lines)


#: Why a game ended (``end_reason`` on the wire), in words.
_ENDINGS = {
    "discard": "last cards discarded",
    "stolen": "last card stolen",
    "stalemate": "stalemate: every hand full, no group in any",
    "turn-limit": "the table's turn limit",
}


def still_possible(view: Mapping[str, Any]) -> list[str]:
    """What the player to move has not used up this turn (from the view's flags)."""
    if view["must_put_back"]:
        return ["put back a card"]
    options = [] if view["drew"] else ["draw"]
    options += [] if view["stole"] else ["steal"]
    options += ["draw-and-discard"] if view["preset"] == "five-colour" and not view["exchanged"] else []
    return [*options, "discard", "end the turn"]


def legal_summary(legal: Sequence[str]) -> str:
    """The legal actions, grouped: 'draw 1-3, steal, discard (2 groups), end'."""
    verbs: dict[str, int] = {}
    for action in legal:
        verb = action.split()[0]
        verbs[verb] = verbs.get(verb, 0) + 1
    parts = []
    for verb, count in verbs.items():
        if verb == "draw":
            parts.append(f"draw 1-{count}")
        elif verb == "discard":
            parts.append(f"discard ({count} group{'s' if count > 1 else ''})")
        elif verb == "steal":
            parts.append("steal NAME")
        elif verb == "putback":
            parts.append("putback CARD")
        else:
            parts.append(verb)
    return ", ".join(parts)
