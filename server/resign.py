"""Resigning, the same rule for every game the server hosts (docs/PROTOCOL.md, "Resigning").

A player who resigns is ranked last, below every seat that did not resign (seats that resigned
share last place). If the resignation leaves nobody else to play for, the game ends there: that
is when one seat alone has not resigned, or when every other seat that has not resigned is a
bot's (no person is left to play on). Otherwise (three or more seats, and another person still
playing) a bot plays the resigned seat to the end, so that the others finish the game they were
playing, and the game's own ending ranks them. Pure: the host and the replay both use it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from games import Outcome
from games._ui import spoken_list

#: The reason code of a game that ended because a player resigned.
RESIGNED = "resigned"

#: How a game ended, in words, by the reason code its record keeps (every game's, and the
#: server's own); a code not here is shown as it is.
REASONS = {
    "discard": "last cards discarded",
    "stolen": "last card stolen",
    "stalemate": "stalemate",
    "turn-limit": "turn limit",
    "no-progress": "no progress",
    "empty-hand": "last card played",
    "went-out": "went out",
    "stock-exhausted": "stock used up",
    RESIGNED: "the others resigned",
    "abandoned": "abandoned",
}


def ends_at_once(seats: int, resigned: Collection[int], people: Collection[int]) -> bool:
    """Does the game end now, with ``resigned`` (the seats that have resigned, the latest
    included) out of it? ``people``: the seats a person still plays (not a bot's, not given up)."""
    playing = [seat for seat in range(seats) if seat not in resigned]
    return len(playing) <= 1 or not any(seat in people for seat in playing)


def conceded(names: Sequence[str], resigned: Sequence[int]) -> Outcome:
    """The outcome of a game ended by resignation: those who did not resign share first place."""
    first = tuple(seat for seat in range(len(names)) if seat not in resigned)
    who = _names(names, resigned)
    if len(first) == 1:
        text = f"{who} resigned: {names[first[0]]} wins"
    else:
        text = f"{who} resigned: {_names(names, first)} share first place"
    return Outcome((first, tuple(sorted(resigned))), RESIGNED, text[:400])


def resigned_last(outcome: Outcome, names: Sequence[str], resigned: Sequence[int]) -> Outcome:
    """The game's own outcome with the seats in ``resigned`` moved to a shared last place
    (a bot played them to the end, which does not earn them a place)."""
    if not resigned:
        return outcome
    places = [tuple(seat for seat in place if seat not in resigned) for place in outcome.ranking]
    ranking = (*[place for place in places if place], tuple(sorted(resigned)))
    last = f"{_names(names, resigned)} resigned, so ranked last"
    if winners_resigned(outcome, resigned) and len(ranking) > 1:
        # The game's winners resigned (a bot went out for them, or had their last card stolen): the
        # game's own words ("ann wins: their last card was stolen") would name the one ranked last
        # the winner. Said instead as the client says a result: who is first, and why, and who is last;
        # with the game's own words where they name no winner ("bob goes out; points left: ..."), which
        # say why (a reason alone said "dee wins (went out", of one who had not, her points unsaid).
        first = ranking[0]
        placed = "wins" if len(first) == 1 else "share first place"
        why = REASONS.get(outcome.reason, outcome.reason.replace("-", " "))
        if not outcome.text_names_winner:
            why = outcome.text
        text = f"{_names(names, first)} {placed} ({why}; {last})"
    else:
        text = f"{outcome.text} ({last})"
    return Outcome(ranking, outcome.reason, text[:400], outcome.text_names_winner)


def winners_resigned(outcome: Outcome, resigned: Collection[int]) -> bool:
    """Did every seat the game's own ending places first resign, so that others are first instead?"""
    return bool(resigned) and bool(outcome.ranking) and set(outcome.ranking[0]) <= set(resigned)


def ending_told(event: Mapping[str, Any], result: Outcome) -> Mapping[str, Any]:
    """A game's ``game-ended`` event (its wire form) told as ``result`` says the game ended, for a
    game whose own winners resigned (:func:`winners_resigned`): its ``text`` is the result's, and
    the fields of its ``data`` that say the result (a ``winner``, a ``ranking``, a ``text``) are the
    result's too. Otherwise it read "ann wins", above a result ranking ann last."""
    data = event.get("data")
    if isinstance(data, Mapping):
        said = {
            "winner": result.winner,
            "ranking": [list(place) for place in result.ranking],
            "text": result.text,
        }
        data = {key: said.get(key, value) for key, value in data.items()}
    return {**event, "text": result.text, "data": data}


def _names(names: Sequence[str], seats: Sequence[int]) -> str:
    return spoken_list([names[seat] for seat in seats])
