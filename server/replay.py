"""Recorded games as text: the list of games, and one game move by move through its game's seam.

This is the operator's view of the record: each seat's holding, hidden cards
and all, is :meth:`games.Match.position_text` (one string per seat, in seat
order); each move's events are told as a spectator was told them
(:meth:`games.Match.event`), with the cards chance gave it, which the record
holds and a spectator of a game with hidden hands was not shown (a draw's). A move a bot made on
a person's seat (after they resigned or left, or the rest of a turn out of time) is marked
``(bot for ann)``, or it would read as the person's own; where nothing else says why, with the
reason: ``(bot for ann: auto)``, ``autopilot``, or ``away`` (a stand-in past the grace).
"""

from __future__ import annotations

import collections
import random
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TextIO

from games import DEFAULT_GAME, GAMES, Game, Match, Step, changed_options
from games._ui import game_and_variant, spoken_list
from games._words import counted

from .journal import TAKEN_BACK, SavedGame
from .record import dealt, replay_move
from .resign import REASONS, RESIGNED, ending_told, resigned_last, winners_resigned
from .store import GameSummary
from .tables import ABANDONED


def print_games(games: Iterable[GameSummary], out: TextIO) -> None:
    shown = False
    for game in games:
        shown = True
        try:
            out.write(_game_line(game))
        except (ValueError, TypeError, IndexError, KeyError, OverflowError) as error:  # one damaged row
            out.write(f"game {game.id}: its record is damaged ({error}); the other games are listed\n")
    if not shown:
        out.write("no games recorded yet\n")


def _game_line(game: GameSummary) -> str:
    """One game as ``games`` lists it."""
    why = REASONS.get(game.reason or "", game.reason)
    if game.reason == "resigned" and len(game.ranking) > 1:  # "the others" of one is bob: name them
        why = f"{spoken_list([game.names[seat] for seat in _in_order_resigned(game)])} resigned"
    if game.ended_at is None:
        result = "unfinished"
    elif len(game.ranking) > 2:  # a game that ranks every seat (not only a winner and the rest)
        places = ", ".join(" = ".join(game.names[seat] for seat in place) for place in game.ranking)
        result = f"{why}; ranked {places}"  # the ending first: "ranked ann, bob (went out)" read as bob's
    elif game.winner is None and len(game.ranking) > 1:  # those who resigned ranked last, the rest first
        first = [game.names[seat] for seat in game.ranking[0]]
        if game.reason != "resigned" and game.resigned:  # a bot went out for one who had resigned
            why = f"{why}; {spoken_list([game.names[seat] for seat in game.resigned])} resigned"
        placed = "share first place" if len(first) > 1 else "came first"
        result = f"{spoken_list(first)} {placed} ({why})"
    elif game.winner is None:
        result = f"no winner ({why})"
    else:
        result = f"{game.names[game.winner]} won ({why})"
    return (
        f"game {game.id}: {_label(game.game, game.variant)}, {' vs '.join(_seats(game))}, "
        f"started {_when(game.started_at)}, {counted(game.moves, 'move')}, {result}\n"
    )


def _in_order_resigned(game: GameSummary) -> list[int]:
    """The seats ranked below the first (who resigned), in the order they resigned, as the game's
    result named them; any the record does not say resigned (a damaged one), after them by seat."""
    order = {seat: index for index, seat in enumerate(game.resigned)}
    ranked = [seat for place in game.ranking[1:] for seat in place]
    return sorted(ranked, key=lambda seat: (order.get(seat, len(order)), seat))


def print_game(saved: SavedGame, out: TextIO, games: Mapping[str, Game] = GAMES) -> None:
    """Every move with what it did, replayed from the recorded deal and chance outcomes.

    ``ValueError`` says, in words, why a record cannot be replayed (a game this
    server does not host, or a damaged record); the moves before it are printed.
    """
    begun = saved.begun
    if begun.game not in games:
        raise ValueError(f"it is a game of {begun.game}, which this server does not host")
    # A seat whose person left shows the bot that played on for it, from where it took over (below).
    names = [
        seat.name + (f" ({seat.bot})" if seat.bot and index not in saved.left else "")
        for index, seat in enumerate(begun.seats)
    ]
    out.write(f"game {begun.table}: {_label(begun.game, begun.variant)}, {' vs '.join(names)}\n")
    if changed := changed_options(begun.settings, games[begun.game]):  # rules not the variant's own, say
        out.write(f"      played with {changed}\n")
    match = dealt(begun, random.Random(0), games)  # no chance left to the rng: every outcome is recorded
    for name, holding in zip(match.names, match.position_text(), strict=True):
        out.write(f"      {name} is dealt {holding}\n")
    for event in match.opening:
        out.write(f"      {match.event(event, None)['text']}\n")
    notes: dict[int, list[str]] = {}  # what befell seats' people, by the moves before it
    for seat, after in saved.resigned:
        notes.setdefault(after, []).append(f"{match.names[seat]} resigns")
    for seat, after in saved.left_after:
        bot = begun.seats[seat].bot
        notes.setdefault(after, []).append(f"{match.names[seat]} leaves: {bot or 'a bot'} plays on")
    timed_out: dict[int, list[int]] = {}  # the seats whose turn ran out, by the moves before it
    for seat, after in saved.timed_out:
        notes.setdefault(after, []).append(
            f"{match.names[seat]}'s time runs out: a bot plays the rest of the turn"
        )
        timed_out.setdefault(after, []).append(seat)
    # From which move on a bot played each seat its person gave up (resigned, or left): its moves
    # are marked, as those of a turn that ran out of time are, or they read as the person's own.
    given_up: dict[int, int] = {}
    for seat, after in (*saved.resigned, *saved.left_after):
        given_up[seat] = min(after, given_up.get(seat, after))
    ran_out: dict[int, int] = {}  # the turn, by seat, whose rest a bot played
    for move in saved.moves:
        _said(notes.get(move.number - 1, ()), out)
        turn = match.turn
        ran_out |= dict.fromkeys(timed_out.get(move.number - 1, ()), turn)
        step = replay_move(match, move)
        told = _told(match, move.seat, step, [seat for seat, _ in saved.resigned])
        if move.by == TAKEN_BACK:
            told = _marked(told, match.names[move.seat], TAKEN_BACK_TAG)
        elif move.by or move.number > given_up.get(move.seat, move.number) or ran_out.get(move.seat) == turn:
            told = _by_a_bot(told, match.names[move.seat], move.by)
        texts = "; ".join(told)
        out.write(f"{move.number:5}. turn {turn}: {texts}\n")
    _said(notes.get(len(saved.moves), ()), out)
    held = ", ".join(
        f"{name} {holding}" for name, holding in zip(match.names, match.position_text(), strict=True)
    )
    when = "after the last recorded move" if saved.over is None else "at the end"
    out.write(f"      in hand {when}: {held}\n")
    if saved.over is None:
        # The record cannot say whether its server runs now: both cases, not "when it runs again".
        out.write("(unfinished: under way while its server runs, and resumed when it runs again)\n")
    elif saved.over.reason == ABANDONED:
        out.write("(abandoned: nobody was left at the table)\n")
    elif saved.over.reason == RESIGNED or (saved.resigned and len(saved.over.ranking) > 1):
        # The ranking, each who resigned marked so: not a list of those who resigned. Also where the
        # game ended by itself after a resignation (a bot going out for one who resigned, who is last).
        resigned = {seat for seat, _ in saved.resigned}
        named = [name + (" (resigned)" if seat in resigned else "") for seat, name in enumerate(match.names)]
        ranking = ", then ".join(" = ".join(named[seat] for seat in place) for place in saved.over.ranking)
        how = "ended by resignation" if saved.over.reason == RESIGNED else "those who resigned rank last"
        out.write(f"({how}; ranking: {ranking})\n")


def _told(match: Match, seat: int, step: Step, resigned: Sequence[int] = ()) -> list[str]:
    """A move's events as a spectator was told them, and the cards chance gave it where they were
    not shown: after the event that showed them to the seat that moved, as Notty's replay always
    read ("bob draws a card: 9D", as "bob draws 1 card: R7"). The operator's alone: no player is sent it.
    The game's end, where its own winners had ``resigned``, is told as the players were told it: as
    the result says it (server.tables.states), not "ann wins" of one ranked last."""
    wire = [match.event(event, None) for event in step.events]
    own = match.outcome() if resigned and match.over else None
    if own is not None and winners_resigned(own, resigned):
        result = resigned_last(own, match.names, resigned)
        wire = [ending_told(told, result) if told.get("kind") == "game-ended" else told for told in wire]
    texts = [told["text"] for told in wire]
    cards = collections.Counter(step.outcome)
    mover = match.names[seat]
    if not cards or cards <= _words(" ".join(texts), mover):
        return texts
    shown = [cards <= _words(match.event(event, seat)["text"], mover) for event in step.events]
    at = shown.index(True) if any(shown) else 0
    texts[at] += ": " + " ".join(step.outcome)
    return texts


def _by_a_bot(texts: list[str], name: str, by: str = "") -> list[str]:
    """A move a bot made for ``name``'s person, marked so as the client marks one made for you ("you
    draw 1 card: R3 (played for you)"): with the move, its first event that names the mover, before
    what follows it ("ann ends the turn (bot for ann); bob to play"); after them all where none does
    (a turn's end that is the game's end alone: "the game ended at its turn limit ..."). ``by``, the
    record's reason, is said where no line of the replay says it (``auto``, autopilot, away)."""
    tag = BOT_FOR_BECAUSE.format(name=name, why=by) if by in SAID_WHY else BOT_FOR.format(name=name)
    return _marked(texts, name, tag)


def _marked(texts: list[str], name: str, tag: str) -> list[str]:
    """``tag`` after the move of ``name``'s it says something of (see _by_a_bot)."""
    at = next((index for index, text in enumerate(texts) if text.startswith(f"{name} ")), None)
    if at is None:
        return [*texts[:-1], f"{texts[-1]} {tag}"] if texts else texts
    move, semicolon, after = texts[at].partition("; ")
    return [*texts[:at], f"{move} {tag}{semicolon}{after}", *texts[at + 1 :]]


#: Marks a move a bot made on a person's seat: after a resignation, a ``leave``, or a turn out of time,
#: which a line of its own says.
BOT_FOR = "(bot for {name})"
#: ... and where no line says why: the person asked for it, or was away.
BOT_FOR_BECAUSE = "(bot for {name}: {why})"
SAID_WHY = frozenset({"auto", "autopilot", "away"})
#: Marks a play the server took back because the game ended in the middle of its turn.
TAKEN_BACK_TAG = "(taken back: the game ended in the middle of the turn)"


def _words(text: str, mover: str) -> collections.Counter[str]:
    """The words of an event's text, less the first mention of the player who moved: one named ``JD``
    who draws the card JD is told "JD draws a card", which names the player, not the card."""
    text = re.sub(rf"(?<!\w){re.escape(mover)}(?!\w)", " ", text, count=1)
    return collections.Counter(re.findall(r"\w+", text))


def _said(notes: Sequence[str], out: TextIO) -> None:
    """Say where in the moves a player left or resigned (server.resign says what follows from it)."""
    for note in notes:
        out.write(f"      {note}\n")


def _seats(game: GameSummary) -> list[str]:
    """Each seat's name, and what became of its person: a seat given up shows the bot that played on."""
    notes = game.notes if len(game.notes) == len(game.names) else ("",) * len(game.names)
    return [f"{name} ({note})" if note else name for name, note in zip(game.names, notes, strict=True)]


def _label(game: str, variant: str) -> str:
    """A game as the record lists it: the default game by its variant alone, as it always has
    been; any other by its name and variant."""
    return variant if game == DEFAULT_GAME else game_and_variant(game, variant)


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))
