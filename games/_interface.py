"""The seam between the platform and a game: what the host, store, simulator and client may ask.

A game is an object satisfying :class:`Game` (its settings, bots and how to
start a :class:`Match`); a match is one game in progress. Everything the
platform sends a viewer comes from the match, built for that viewer
(:meth:`Match.view`, :meth:`Match.event`), so a game with hidden hands never
depends on the host to hide them. Chance is explicit, as in OpenSpiel: the
deal and every move's chance outcome are records, and applying a move with
its recorded outcome replays it exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol

import attrs


class SettingsError(ValueError):
    """Settings a game cannot be played with; the message says why, in words a player reads."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class ActionError(ValueError):
    """An action refused: unreadable (``bad-action``) or against the rules (``illegal-action``,
    with the ``rule`` it breaks). The match is unchanged."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.rule = code, message, rule


@attrs.frozen
class Variant:
    name: str
    min_players: int
    max_players: int
    summary: str


@attrs.frozen
class Option:
    """A setting a table may change: a whole number in ``low..high`` or one of ``choices``.

    ``bot_default``, if not ``None``, is its default at a table where a bot plays (a bot seat, or
    empty seats filled by bots on an early start): Notty's ``turn_limit`` is 0 (never) at a table
    of people and 300 where a bot plays. The server applies it (:func:`bot_defaults`); the welcome
    does not carry it, so say it in ``summary``.
    """

    name: str
    summary: str
    default: int | str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    bot_default: int | str | None = None

    def check(self, value: object) -> int | str:
        if self.choices:
            if value not in self.choices:
                raise SettingsError(
                    "bad-option", f"{self.name} is one of {', '.join(self.choices)}, not {value!r}"
                )
            return str(value)
        if type(value) is not int or not self.low <= value <= self.high:
            raise SettingsError(
                "bad-option", f"{self.name} is a whole number from {self.low} to {self.high}, not {value!r}"
            )
        return value

    def describe(self) -> dict[str, Any]:
        shape: dict[str, Any] = (
            {"choices": list(self.choices)}
            if self.choices
            else {
                "low": self.low,
                "high": self.high,
            }
        )
        return {"name": self.name, "summary": self.summary, "default": self.default, **shape}


def _sorted(options: Mapping[str, int | str]) -> dict[str, int | str]:
    return dict(sorted(options.items()))


@attrs.frozen
class Settings:
    """A table's game as validated by the game: every option present, defaults filled in."""

    game: str
    variant: str
    seats: int
    options: Mapping[str, int | str] = attrs.field(converter=_sorted)

    def __hash__(self) -> int:
        return hash((self.game, self.variant, self.seats, tuple(self.options.items())))


@attrs.frozen
class DealRecord:
    """The opening chance outcome as the record keeps it: tokens the game reads back, and who starts."""

    cards: tuple[str, ...]
    first: int


@attrs.frozen
class Outcome:
    """How a match ended: every seat ranked (``ranking[0]`` is first place; seats tied share a
    place), a stable ``reason`` code and a sentence for people."""

    ranking: tuple[tuple[int, ...], ...]
    reason: str
    text: str
    #: Does ``text`` say who won ("ann wins")? Not where it says how the game ended and the standing
    #: behind the ranking (huxxy: "bob goes out; points left: ..."), which a re-ranking keeps.
    text_names_winner: bool = True

    @property
    def winner(self) -> int | None:
        """The seat alone in first place, if the match has one."""
        first = self.ranking[0] if self.ranking else ()
        return first[0] if len(first) == 1 else None

    def to_wire(self) -> dict[str, Any]:
        return {"ranking": [list(place) for place in self.ranking], "reason": self.reason, "text": self.text}


@attrs.frozen
class Step:
    """What one applied action did: the game's events, and the chance outcome to record
    (tokens; empty if chance played no part)."""

    events: tuple[Any, ...]
    outcome: tuple[str, ...]


@attrs.frozen
class HintAnswer:
    """A hint: a sentence or two, the actions to type in order, and data the game's client renders."""

    text: str
    actions: tuple[str, ...] = ()
    data: Mapping[str, Any] = attrs.Factory(dict)


class Bot(Protocol):
    """A policy over what one seat may see (:meth:`Match.bot_view`); actions as the match takes them."""

    @property
    def name(self) -> str: ...

    def choose(self, view: Any) -> Any: ...

    def catch_up(self, view: Any) -> None: ...


class Match(Protocol):
    """One game in progress between seats ``0 .. len(names) - 1``."""

    @property
    def settings(self) -> Settings: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def opening(self) -> Sequence[Any]:
        """What the deal itself caused (who starts, an immediate end), for those there from the start."""
        ...

    @property
    def current(self) -> int: ...

    @property
    def turn(self) -> int: ...

    @property
    def over(self) -> bool: ...

    def deal_record(self) -> DealRecord: ...

    def legal_actions(self, seat: int) -> list[str]:
        """What ``seat`` may do now, as text it could type (empty when it is not theirs to act)."""
        ...

    def parse_action(self, text: str) -> Any:
        """The action ``text`` names; :class:`ActionError` (``bad-action``) if it names none."""
        ...

    def apply(self, seat: int, action: Any, outcome: tuple[str, ...] | None = None) -> Step:
        """Take ``action`` for ``seat``; ``outcome`` replays a recorded chance outcome instead of
        drawing one. :class:`ActionError` and no change if it is not allowed."""
        ...

    def action_text(self, action: Any) -> str:
        """``action`` as the record keeps it: :meth:`parse_action` reads it back."""
        ...

    def outcome(self) -> Outcome | None: ...

    def view(self, seat: int | None) -> Mapping[str, Any]:
        """The game's part of what ``seat`` (``None``: a spectator) may see now; never what
        another seat keeps hidden, nor the order of a stock."""
        ...

    def event(self, event: Any, seat: int | None) -> Mapping[str, Any]:
        """``event`` as ``seat`` may see it: ``{"kind", "text", "data"}``."""
        ...

    def bot_view(self, seat: int) -> Any:
        """What the game's bots choose from for ``seat``: only what that seat may see."""
        ...

    def fallback_action(self, seat: int) -> Any | None:
        """What to do for ``seat`` when its bot fails: something always legal, or ``None``."""
        ...

    def position_text(self) -> list[str]:
        """Each seat's holding in words, in seat order (Notty: ``"R3 R4 Y9"``), nothing hidden: for
        the operator's replay of the record."""
        ...

    def hint(self, seat: int, adviser: Any | None = None) -> Callable[[], HintAnswer] | None:
        """A pure job answering ``seat``'s hint, over a snapshot (the host runs it off the event
        loop); ``None`` if the game gives no hints. ``adviser``: the bot that plays the seat on
        ``auto``, if the host has one; a hint that names a bot's move asks a copy of it (taken now),
        so that ``auto`` then does what the hint said."""
        ...

    def watcher_hint(self) -> Callable[[], HintAnswer] | None:
        """A pure job answering a watcher's hint: where every hand is face up (Notty), the solver's
        answer for the hand of the seat to play, without what only its player can use (commands to
        type, advice for its own turn); ``None`` where hands are hidden: a hint would tell a watcher
        what a seat keeps from the others."""
        ...

    def unfinished_turn(self) -> Sequence[Any]:
        """The actions that take back what the turn under way has done and not yet made final, for a
        game ending in its middle (a resignation): the host applies and records them like any
        other, so the final position and its replay show the table as the turn found it. Empty
        when every action is final as it is made (Notty, Ochos Locos)."""
        ...

    def stand_in_began(self, seat: int, asked: Collection[str]) -> Sequence[Any]:
        """A bot has begun to play for ``seat``'s person (gone past the server's grace, or given the
        seat up). The match may change its ``settings`` for it, leaving alone the options named in
        ``asked`` (the table's creator chose them), and returns events telling everyone at the
        table (empty: nothing changed). The record keeps the new settings as the match's from its
        start, so a change must leave what was played as it was (Notty gives a table with no turn
        limit one, 300 turns after those played). Most games change nothing: ``return ()``."""
        ...


class Game(Protocol):
    """A game the server hosts; the registry (:data:`games.GAMES`) maps its ``name`` to it."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def variants(self) -> Mapping[str, Variant]:
        """Every variant by name; the first is the default."""
        ...

    @property
    def options(self) -> Mapping[str, Option]: ...

    @property
    def bots(self) -> tuple[str, ...]:
        """The bots a table may seat, by name."""
        ...

    def settings(self, variant: str | None, seats: int, options: Mapping[str, Any]) -> Settings:
        """Validated settings, defaults filled in; :class:`SettingsError` saying what is wrong."""
        ...

    def offered(self, settings: Settings) -> None:
        """What a server offers a new table beyond what the game's rules allow: :class:`SettingsError`
        for settings it will not host. Checked as a table is created, never on a record: a game
        recorded under other limits is restored and replayed as it was played."""
        ...

    def seat_bot(self, bot: str, settings: Settings) -> str:
        """The bot a seat asked to hold ``bot`` gets (a level-less name may take the table's level)."""
        ...

    def stand_in(self, settings: Settings) -> str:
        """The bot, as a seat would ask for it, that plays for a dropped player, a timed-out turn or
        ``auto``, and fills the seats left empty when a table starts early."""
        ...

    def new_match(
        self, settings: Settings, names: Sequence[str], rng: random.Random, deal: DealRecord | None = None
    ) -> Match:
        """A new match: dealt from ``rng``, or exactly as ``deal`` records it."""
        ...

    def new_bot(self, name: str, settings: Settings, rng: random.Random) -> Bot: ...


def hands_hidden(title: str) -> str:
    """Why a watcher has no hint in a game that keeps each hand hidden (:meth:`Match.watcher_hint`):
    the server's refusal, and the client's where it knows before asking."""
    return f"{title} keeps each hand hidden: only a player has hints, for their own hand"


def describe(game: Game) -> dict[str, Any]:
    """What a server's welcome says of a game, so clients need not hard-code it."""
    return {
        "name": game.name,
        "title": game.title,
        "variants": [
            {"name": v.name, "min_players": v.min_players, "max_players": v.max_players, "summary": v.summary}
            for v in game.variants.values()
        ],
        "bots": list(game.bots),
        "options": [option.describe() for option in game.options.values()],
    }


def bot_defaults(game: Game, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` for a table where a bot plays: each option not given takes its
    :attr:`Option.bot_default`, if it has one (a value given, the default included, stays)."""
    filled = {
        name: option.bot_default
        for name, option in game.options.items()
        if option.bot_default is not None and name not in options
    }
    return {**options, **filled}


def changed_options(settings: Settings, game: Game) -> str:
    """The options of ``settings`` that are not ``game``'s defaults, as people write them
    ('smallest_set 4, turn_limit 300'); '' for none."""
    return ", ".join(
        f"{name} {value}"
        for name, value in settings.options.items()
        if name in game.options and value != game.options[name].default
    )


def check_settings(
    game: Game, variant: str | None, seats: int, options: Mapping[str, Any]
) -> tuple[Variant, dict[str, int | str]]:
    """The checks every game's :meth:`Game.settings` starts with: a known variant, a seat count it
    allows, known options with acceptable values (defaults filled in)."""
    name = next(iter(game.variants)) if variant is None else variant
    chosen = game.variants.get(name)
    if chosen is None:
        raise SettingsError(
            "unknown-variant",
            f"{game.name} has no variant {name!r}: variants are {', '.join(game.variants)}",
        )
    if not chosen.min_players <= seats <= chosen.max_players:
        raise SettingsError(
            "bad-seats",
            f"{game.name} {chosen.name} is for {range_text(chosen.min_players, chosen.max_players)} players, "
            f"not {seats}",
        )
    unknown = sorted(set(options) - set(game.options))
    if unknown:
        known = ", ".join(game.options) or "none"
        raise SettingsError("bad-option", f"{game.name} has no option {unknown[0]!r}: options are {known}")
    filled = {
        name: option.check(options[name]) if name in options else option.default
        for name, option in game.options.items()
    }
    return chosen, filled


def range_text(low: int, high: int) -> str:
    """``3``, ``2 or 3``, ``2 to 4``: how many seats or players a variant has, as said (the server's
    refusal and the client's own, alike)."""
    return str(low) if low == high else f"{low} or {high}" if high == low + 1 else f"{low} to {high}"


def action_words(text: str) -> list[str]:
    """The words of an action or a list of cards as typed: commas separate cards as spaces do
    (``discard R3, R4,R5``), in every game alike, whether the client or the server reads them."""
    return text.replace(",", " ").split()
