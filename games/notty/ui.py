"""Notty in the terminal client: its commands, help, completion, and how a table, a hint and the
game's end look (:class:`games._ui.GameUI`). Only the vocabulary (cards, rules, groups) is
imported, never the engine: the client need not load it to play."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from games._interface import action_words
from games._ui import (
    BOT_PLAYS_YOUR_TURN,
    CommandError,
    GameDataError,
    GameUI,
    NumberWord,
    TableView,
    colour_cards,
    did_you_mean,
    game_over_line,
    is_number,
    legal_verbs,
    nothing_after,
    read_cards,
    seat_lines,
    spoken_list,
    to_play,
    words_after,
)
from games._words import counted

from ._cards import Card, CardError
from ._endings import end_text, whole_rounds
from ._groups import InvalidGroup, classify_group, has_group
from ._rules import (
    CLASSIC,
    PRESETS,
    PRESETS_OWN,
    TABLE_FIELDS,
    Rules,
    RulesError,
    with_table_fields,
    with_table_options,
)

HELP = """\
  new [PRESET] [SEATS] [BOT|human...] [LEVEL] [limit N] [quiet N] [time SECONDS]
                      e.g. 'new classic 3 expert greedy hard'; PRESET is
                      classic (the default) or five-colour; 2 or 3 seats (2 if
                      you give no number and name no players); name no players
                      and expert bots take every other seat ('new' alone: you
                      against one expert bot); name some and the seats left
                      over stay open for people to join, until 'start' puts
                      expert bots in them ('new human': a table for two
                      people); bots are expert (the default: it plays by the
                      exact chances of going out), greedy (the solver's best
                      discard, a theft from the biggest hand, one card drawn),
                      qlearn (a policy learned in self-play) and random (any
                      legal move); LEVEL, anywhere in the line, is how well
                      the expert bots play: easy, medium (the default) or hard
                      (expert-easy, expert-medium and expert-hard keep their
                      own level whatever the table's); 'limit 200', anywhere
                      too, ends the game with no winner after 200 turns (where
                      a bot plays, the limit is 300 unless given; 'limit 0':
                      never); 'quiet 5' draws the game once no hand has
                      changed for 5 whole rounds (3 unless given; 'quiet 0':
                      never); and a table may change its preset's rules:
                      hand_limit N (0: none), cards_dealt N, shortest_run N,
                      smallest_set N (0: the preset's), draw_and_discard
                      yes|no|preset, last_card_stolen_wins yes|no|preset
                      ('rules' at the table says what it plays)
  draw N              draw 1-3 cards
  steal [NAME]        steal from a player (NAME: not needed when you have one
                      opponent); a last card asks first: its holder would win
  discard CARDS       e.g. 'discard R3 R4 R5'
  dd                  draw-and-discard (five-colour, or a table that sets
                      draw_and_discard yes); then 'putback CARD'
  end                 end your turn
  hint                the most you can discard now, and how; on your turn, the
                      chance each way to draw or steal gives of going out this
                      turn, and the move 'auto' would make; while you watch,
                      the most the player to move can discard"""

COMMANDS = ("draw", "steal", "discard", "dd", "putback", "end")
#: The bot the table's level is for, and the stand-in for a person (``expert-hard`` keeps its own).
EXPERT = "expert"

#: Why a game ended (the result's ``reason``), in words.
ENDINGS = {
    "discard": "last cards discarded",
    "stolen": "last card stolen",
    "stalemate": "stalemate: every hand full, no group in any",
    "turn-limit": "the table's turn limit",
    "no-progress": "no progress: no hand changed for whole rounds",
    "resigned": "the others resigned",  # not "bob wins (resigned)", as if bob had
}

#: The body's turn flags, in :class:`Body`'s order.
_FLAGS = ("drew", "stole", "exchanged", "must_put_back")
#: A hint's advice: the longest command it may hold (a discard of a full hand, or a long name), and
#: the most plans it may list.
MAX_COMMAND, MAX_PLANS = 200, 16
MILLION = 1_000_000
#: The body's counts of how a game may end with no winner, in :class:`Body`'s order (a server
#: before the no-progress rule sends none of them).
_COUNTS = ("turn_limit", "quiet_rounds", "quiet_turns")
_CARD_WORD = re.compile(r"\b([RYGBK])(\d{1,2})\b")
#: A put-back hint's reason, as the server words it: "put back R8 first (it keeps the most outs), ...".
_WHY_PUT_BACK = re.compile(r"put back \S+ first \(([^()]{1,80})\)")
#: What a hint says of a discard that empties the hand, after it: the server's words, read back.
EMPTIES_THE_HAND = "that empties your hand: you win"


@attrs.frozen
class Body:
    """Notty's part of a view: every hand (face up), the deck's size, and what the player to move
    has used up this turn."""

    hands: tuple[tuple[Card, ...], ...]
    deck_size: int
    drew: bool
    stole: bool
    exchanged: bool
    must_put_back: bool
    turn_limit: int | None = None  # the table's turn limit (0: none); None: not said
    quiet_rounds: int | None = None  # whole rounds without a change that draw the game (0: never)
    quiet_turns: int | None = None  # turns in a row without a change so far
    rules: Mapping[str, int | bool] = attrs.field(factory=dict)  # the table's own (TABLE_FIELDS)


@attrs.frozen
class HintData:
    """The solver's answer: how many cards the best discard holds, its groups, the other best
    discards as their groups (a server before ``alternative_groups`` sends each as one list of
    cards, kept here as one group), and the cards that would let more be discarded (with how many
    more)."""

    size: int
    best: tuple[tuple[str, ...], ...]
    alternatives: tuple[tuple[tuple[str, ...], ...], ...]
    outs: tuple[tuple[str, int], ...]
    turn: TurnHint | None = None  # on the asker's own turn (a server before it sends none)


@attrs.frozen
class TurnHint:
    """Advice for the turn under way: each plan open to the player with its chance of going out
    this turn, in millionths (game data carries no floats; a chance that is not nil is never
    rounded to nil), the plan as a command typed (``draw 2``; ``steal bob`` and ``dd``, each then
    followed by the best draw); the ``expert`` bot's next command in the player's place; whether
    draw-and-discard was open but not weighed (a big hand); whether the hand is at its limit
    with a group to discard first (then there is room to draw); and whether some chance is a lower
    bound (a hand of dozens of cards, too big to weigh every draw)."""

    chances: tuple[tuple[str, int], ...]
    expert: str
    exchange_unweighed: bool = False
    full: bool = False
    bounded: bool = False


class NottyUI:
    """Notty's part of the terminal client (:class:`games._ui.GameUI`)."""

    help = HELP
    variant_noun = "preset"
    default_bot = EXPERT
    filler_bot = EXPERT  # the game's stand-in: what 'start' seats in empty seats
    default_seats = None  # the rules name no number: the fewest, a game against one bot
    watchers_hint = True  # hands are face up: a watcher may ask about the hand to play
    number_words: Mapping[str, NumberWord] = MappingProxyType(
        {
            "limit": NumberWord("turn_limit", 0, "a number of turns", 200),
            "quiet": NumberWord("quiet_rounds", 0, "a number of whole rounds", 3),
        }
    )
    asides: Mapping[str, str] = MappingProxyType({})
    in_sight = None  # every hand is a seat's line, kept as such

    def listed_options(self, options: Mapping[str, Any], bots: Sequence[str | None]) -> Mapping[str, Any]:
        """The level only where an expert plays at it (the table's own expert, at its level, or a
        stand-in for a person): the other bots (greedy, qlearn, an expert of a level of its own)
        play alike at any level, so 'level hard' beside greedy and qlearn alone read as if they
        played harder. A rule the table keeps as its preset's is not named."""
        at_level = (EXPERT, f"{EXPERT}-{options.get('level')}")
        dropped = {name for name, value in options.items() if name in TABLE_FIELDS and value == PRESETS_OWN}
        if not any(bot is None or bot in at_level for bot in bots):
            dropped.add("level")
        return {name: value for name, value in options.items() if name not in dropped}

    def commands(self, view: TableView | None) -> tuple[str, ...]:
        """At our turn, the first words of the legal actions (after 'dd', 'putback' alone); else
        every command."""
        if view is not None and view.legal:
            return legal_verbs(view)
        return COMMANDS

    def is_action(self, verb: str) -> bool:
        return verb in COMMANDS

    def action(self, verb: str, args: Sequence[str], view: TableView | None) -> str:
        match verb:
            case "draw":
                # Every count the rules refuse is answered here, alike: 'draw -1' was given the usage,
                # 'draw 4' the server's refusal in other words.
                most = _most_drawn(view)
                if len(args) != 1 or not is_number(args[0]) or not 1 <= int(args[0]) <= most:
                    not_this = f", not {args[0]!r}" if len(args) == 1 else ""
                    raise CommandError(f"usage: draw N (1 to {most}){not_this}")
                return f"draw {int(args[0])}"
            case "steal":
                if not args:
                    return f"steal {_only_victim(view)}"
                return f"steal {_seat_of(' '.join(args), view)}"  # a name may hold spaces
            case "discard":
                return "discard " + _cards_text(_group(args, view))
            case "dd" if not args:
                return "dd"
            case "putback" | "dd":  # 'dd CARD': the putback that finishes a draw-and-discard
                if len(args) != 1:
                    raise CommandError("usage: putback CARD")
                (card,) = _named(args, view)
                _check_held([card], view)
                return f"putback {card}"
            case "end":
                nothing_after(verb, args)
                return "end"
        raise CommandError(f"{verb!r} is not a Notty command")

    def caution(self, action: str, view: TableView | None) -> str | None:
        """A theft of a last card makes its holder the winner: a play-test took it, following the
        hint's outs, and lost at once. Only a theft the server would take: where the rules forbid
        stealing a last card, its refusal says so."""
        verb, _, victim = action.partition(" ")
        if verb != "steal" or view is None or action not in view.legal:
            return None
        seat = int(victim)  # our own action's: a seat of the view's (a hand for each name)
        if len(_body(view).hands[seat]) != 1:
            return None
        name = view.names[seat]
        return f"{name} holds one card: stealing it makes {name} the winner; type it again to steal it anyway"

    def complete(self, words: Sequence[str], text: str, view: TableView | None) -> list[str]:
        if view is None:
            return []
        found: Iterable[str]
        verb = words[0].lower()
        if verb == "steal":  # a name may hold spaces: its next word, after those typed
            victims = (
                _legal_victims(view)
                if view.legal
                else [n for i, n in enumerate(view.names) if i != view.seat]
            )
            found = words_after(victims, words[1:])
        elif view.legal and verb == "discard":  # our turn: cards that go on with a group to discard
            found = _discard_words(view, words[1:])
        elif view.legal and len(words) == 1:  # our turn: counts to draw, cards we may put back
            found = words_after(view.legal, ["putback" if verb == "dd" else verb])
        elif verb in ("discard", "putback", "dd") and view.seat is not None:
            found = dict.fromkeys(str(card) for card in _body(view).hands[view.seat])  # in hand order
        else:
            return []
        return [word for word in found if word.lower().startswith(text.lower())]

    def read_body(self, body: Any, names: Sequence[str]) -> Body:
        if not isinstance(body, Mapping):
            raise GameDataError("body: not a map")
        hands = body.get("hands")
        if not isinstance(hands, list | tuple) or len(hands) != len(names):
            raise GameDataError(f"body.hands: not a hand for each of {len(names)} players")
        deck_size = body.get("deck_size")
        if type(deck_size) is not int or deck_size < 0:
            raise GameDataError("body.deck_size: not a number of cards")
        for key in _FLAGS:
            if type(body.get(key)) is not bool:
                raise GameDataError(f"body.{key}: not true or false")
        for key in _COUNTS:
            count = body.get(key)
            if count is not None and (type(count) is not int or count < 0):
                raise GameDataError(f"body.{key}: not a whole number")
        said: dict[str, Any] = {key: bool(body[key]) for key in _FLAGS}
        said.update((key, body.get(key)) for key in _COUNTS)
        return Body(
            tuple(tuple(sorted(_cards(hand, f"body.hands[{seat}]"))) for seat, hand in enumerate(hands)),
            deck_size,
            rules=_table_fields(body.get("rules", {})),
            **said,
        )

    def state_text(
        self, table: int, view: TableView, events: Sequence[Mapping[str, Any]], colour: bool, width: int = 80
    ) -> str:
        body = _body(view)
        lines = [
            colour_cards_in(f"  {event['text']}", colour) for event in _with_the_last_turns_end(view, events)
        ]
        turn = f"turn {view.turn}" + (f" of {body.turn_limit}" if body.turn_limit else "")
        quiet = _quiet(body) if view.result is None else ""  # a count towards an end that has come
        played = table_rules(view)
        # The rules the table set, not its counts to an end (a limit of 300 at every table of bots)
        own = played is not None and bool(_fields_set(played, PRESETS[view.variant]))
        variant = f"{view.variant}, own rules ('rules')" if own else view.variant  # not the preset's alone
        lines.append(f"table {table} · {variant} · {turn} · deck {counted(body.deck_size, 'card')}{quiet}")
        lines += hand_lines(view.names, body.hands, view.to_move, view.seat, colour, view.bots)
        if view.result is not None:
            lines.append(game_over_line(end_line(view, body)))
        elif view.legal:
            lines.append("your turn: " + legal_summary(view.legal, one_opponent=len(view.names) == 2))
        else:
            whose = to_play(view)
            it = "it " if whose == BOT_PLAYS_YOUR_TURN else ""  # "a bot plays your turn; it may still ..."
            still = " still" if body.drew or body.stole or body.exchanged else ""  # not as the turn begins
            lines.append(f"{whose}; {it}may{still} {', '.join(still_possible(view))}")
        return "\n".join(lines)

    def rules(
        self, variant: str | None, view: TableView | None = None, options: Mapping[str, Any] | None = None
    ) -> str:
        if view is not None and view.variant == variant:
            return rules_text(variant, table_rules(view))
        if options is not None and variant in PRESETS and _as_options(options):
            try:
                return rules_text(variant, with_table_options(PRESETS[variant], options))
            except RulesError:  # options the server would not have set: the preset's
                pass
        return rules_text(variant)

    def hint_text(self, text: str, actions: Sequence[str], data: Any, colour: bool) -> str:
        hint = read_hint(data)
        lines, said = [], "hint"
        back = actions[0].split() if actions and actions[0].startswith("putback ") else []
        if len(back) == 2:  # midway through a draw-and-discard: a card goes back first
            try:
                Card.parse(back[1])
            except CardError:
                raise GameDataError(f"hint actions[0]: {back[1]!r} is not a card") from None
            found = _WHY_PUT_BACK.match(text)  # the server's reason, where it gives one
            why = f": {found.group(1)}" if found else ""
            lines.append(f"hint: put back {colour_cards_in(back[1], colour)} first{why}")
            lines.append(f"      type: {colour_cards_in(actions[0], colour)}")  # what must come first
            said, actions = "then", actions[1:]
        if not hint.size:
            lines.append(f"{said}: nothing can be discarded now")
        else:
            lines.append(f"{said}: discard {hint.size} cards: {groups_text(hint.best, colour)}")
        # one group a command, as the rules discard them
        lines += [f"      type: {colour_cards_in(action, colour)}" for action in actions]
        if hint.size:
            lines += [f"      or: {groups_text(other, colour)}" for other in hint.alternatives]
        if hint.size and text.endswith(EMPTIES_THE_HAND):  # nothing more to advise, nor outs to draw
            lines.append(f"      {EMPTIES_THE_HAND}")
        if hint.outs:
            lines.append(
                "outs: " + ", ".join(f"{colour_cards_in(card, colour)} (+{gain})" for card, gain in hint.outs)
            )
        if hint.turn is not None:
            lines += advice_lines(hint.turn, colour, once_back=len(back) == 2, groups=bool(hint.size))
        return "\n".join(lines)


UI: GameUI = NottyUI()


# -- the look ------------------------------------------------------------------------


def rules_text(variant: str | None, table: Rules | None = None) -> str:
    """Notty's rules in a few lines, their numbers read from the presets (``PRESETS``), so they
    say what the server plays: the preset ``variant``'s, or every preset's; or ``table``'s, a
    table's rules, with what it changed from its preset said first. docs/RULES.md is the whole
    text."""
    presets = (
        [table] if table is not None else [PRESETS[variant]] if variant in PRESETS else list(PRESETS.values())
    )
    lines = [f"Notty ({', '.join(rules.name for rules in presets)}): be the first to empty your hand."]
    if table is not None and table.name in PRESETS:
        lines += _changed_fields(table, PRESETS[table.name])
    for rules in presets:
        name = f"{rules.name}: " if len(presets) > 1 else ""
        lines += [
            f"  {name}cards {' '.join(rules.colours)}, 1 to {rules.numbers}, {rules.copies} of each "
            f"({rules.deck_size} cards); hand limit {rules.hand_limit or 'none'};",
            f"    {rules.hand_size} dealt to each of {rules.min_players}-{rules.max_players} players; "
            f"a run: {rules.shortest_run}+ cards; a set: {rules.smallest_set}+ cards",
        ]
    dd = any(rules.draw_and_discard for rules in presets)
    victim = all(rules.last_card_stolen_wins for rules in presets)
    lines += [
        "  runs are of one colour, numbers in a row; sets of one number, no colour twice",
        "  all hands are face up. On your turn, in any order, then 'end':",
        f"    draw 1 to {presets[0].max_draw} cards (once; not past the hand limit)",
        "    steal a random card from another player (once; not at the hand limit"
        + ("" if victim else "; never a last card")
        + ")",
        f"    discard runs and sets, as many as you like ({_no_wrap(presets)})",
    ]
    if dd:
        which = "" if table is not None else ", five-colour"  # (a table may have it in classic)
        lines.append(f"    draw-and-discard (once{which}; not at the limit): 'dd', 'putback'")
    lines += [
        "  you win, at once, when your hand is empty: by discarding your last cards"
        + ("\n    or by theft: if your last card is stolen, you win (not the thief)" if victim else ""),
        "  no winner: every hand at the limit with no group in any (stalemate);",
        f"    {_no_winner_counts(presets[0], table is not None)}",
        "  hint: your best discard; its outs are the cards that, if you drew them,",
        "    would let you discard more, and how many more: 'R7 (+3)'",
        "  the notty project has the whole rules: docs/RULES.md",
    ]
    return "\n".join(lines)


def _no_winner_counts(rules: Rules, at_a_table: bool) -> str:
    """How the no-progress rule and the turn limit end a game: a table's own numbers, where it is
    one (its rules left out its 'quiet 2' and 'limit 40', which the lobby's list showed), else the
    default with where a table sets its own."""
    quiet = rules.quiet_rounds
    if not at_a_table:
        return f"no hand changed for {quiet} whole rounds (or the table's 'quiet'); the turn limit"
    progress = f"no hand changed for {whole_rounds(quiet)}" if quiet else "no rule of no progress"
    limit = f"the turn limit, {rules.turn_limit} turns" if rules.turn_limit else "no turn limit"
    return f"{progress}; {limit}"


def _no_wrap(presets: Sequence[Rules]) -> str:
    """Runs do not wrap, in the cards of the preset meant: '9 10 1 is no run', or '8 9 1' where the
    numbers stop at 9 (five-colour); in words when the rules of several are read together."""
    tops = {rules.numbers for rules in presets}
    if len(tops) > 1:
        return "no wrap after the top number"
    (top,) = tops
    return f"no wrap: {top - 1} {top} 1 is no run"


def end_line(view: TableView, body: Body) -> str:
    """How the game ended, as what it is: a win, or a draw and the rule that made it; and who
    resigned, ranked last though a bot played their seat to the end (as the server's result says)."""
    assert view.result is not None
    winner, reason = view.result.winner, view.result.reason
    ranking = view.result.ranking
    why = ENDINGS.get(reason, reason)
    if reason == "resigned" and len(ranking) > 1:  # name who resigned: "the others" of one is bob
        why = f"{spoken_list([view.names[seat] for place in ranking[1:] for seat in place])} resigned"
    last = _ranked_last(view.result.text)
    note = f"; {last}" if last else ""  # after the why, in its brackets
    if winner is not None:
        return f"{view.names[winner]} wins ({why}{note})"
    first = ranking[0] if len(ranking) > 1 else ()  # a draw ranks everyone alike: no winner
    if len(first) > 1 and reason == "resigned":  # a resignation left only bots: they share first place
        return f"{spoken_list([view.names[seat] for seat in first])} share first place ({why})"
    if len(first) > 1 and reason not in ENDS_A_TURN:  # a resigned seat's bot went out: ranked last, so
        sharing = spoken_list([view.names[seat] for seat in first])  # the others share first place
        return f"{sharing} share first place ({why}{note})"
    if (reason == "no-progress" and body.quiet_rounds) or (reason == "turn-limit" and body.turn_limit):
        said = end_text(
            None, reason, view.names, quiet_rounds=body.quiet_rounds or 0, turn_limit=body.turn_limit or 0
        )
        return said + (f" ({last})" if last else "")
    return f"no winner ({ENDINGS.get(reason, reason)}{note})"


#: The note the server adds to a game's own result for the seats that resigned (server/resign.py).
_RANKED_LAST = " resigned, so ranked last)"


def _ranked_last(text: str) -> str:
    """Who resigned and was ranked last, as the server's result text notes it at its end ("bob
    resigned, so ranked last", after the ending's words where the game's winner resigned: "ann and
    cy share first place (last card stolen; bob resigned, so ranked last)"); ``""`` if it notes
    none. (Names hold no brackets nor semicolons.)"""
    if not text.endswith(_RANKED_LAST) or " (" not in text:
        return ""
    note = text[text.rindex(" (") + 2 : -1]
    return note[note.rfind("; ") + 2 :] if "; " in note else note


#: The results a turn's end brings about: the game ends then, and no one is to play next.
ENDS_A_TURN = frozenset({"turn-limit", "no-progress"})


def turn_end_text(seat: int, names: Sequence[str], you: int | None = None) -> str:
    """The end of the turn that ended the game (its event, as the engine has it, is the game's end
    alone): said before that end, as every other turn's end is ("you" for our own seat)."""
    return "you end the turn" if seat == you else f"{names[seat]} ends the turn"


def _with_the_last_turns_end(view: TableView, events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``events``, with the end of the turn before the game's end when that end came of it (the
    turn limit reached, or no progress): without it the last turn read as cut off by the end."""
    if view.result is None or view.result.reason not in ENDS_A_TURN:
        return list(events)
    kinds = [event.get("kind") for event in events]
    if "game-ended" not in kinds or "turn-ended" in kinds:
        return list(events)
    at = kinds.index("game-ended")
    ended = {"kind": "turn-ended", "text": turn_end_text(view.current, view.names, view.seat), "data": {}}
    return [*events[:at], ended, *events[at:]]


def _quiet(body: Body) -> str:
    """Turns in a row with no hand changed, once there have been some, of the turns that draw the game
    (its whole rounds, each a turn of every seat); nothing once this turn has drawn or stolen (the
    count, of turns ended, starts again at its end)."""
    if not body.quiet_turns or not body.quiet_rounds or body.drew or body.stole or body.exchanged:
        return ""
    limit = body.quiet_rounds * len(body.hands)  # in turns, as the count is: not "4 turns (3 rounds ...)"
    rounds = whole_rounds(body.quiet_rounds)
    return f" · no hand changed for {body.quiet_turns} of the {limit} turns ({rounds}) that draw the game"


def colour_cards_in(text: str, colour: bool) -> str:
    """Colour every card name in a line of text (the server's wording, say)."""
    return colour_cards(text, colour, _CARD_WORD)


def cards_text(cards: Iterable[Card | str], colour: bool) -> str:
    """Cards as they are given, space separated (``-`` for none)."""
    return " ".join(colour_cards_in(str(card), colour) for card in cards) or "-"


def groups_text(groups: Iterable[Iterable[Card | str]], colour: bool) -> str:
    """Groups of cards, two spaces between groups: ``R5 G5 B5  R10 Y10 B10``."""
    return "  ".join(cards_text(group, colour) for group in groups)


def hand_lines(
    names: Sequence[str],
    hands: Sequence[Sequence[Card]],
    to_move: int | None,
    you: int | None,
    colour: bool,
    bots: Collection[int] = (),
) -> list[str]:
    """A line per seat: its name, how many cards it holds, and the cards (hands are face up)."""
    return seat_lines(
        names, [f" [{len(hand):>2}]  {cards_text(hand, colour)}" for hand in hands], to_move, you, bots
    )


def still_possible(view: TableView) -> list[str]:
    """What the player to move may still do this turn, as everyone sees it: only the mover is sent
    the legal actions, but the hands are face up, so the limits that rule the rest are public."""
    body = _body(view)
    if body.must_put_back:
        return ["put back a card"]
    rules = table_rules(view)
    hand = body.hands[view.current]
    full = rules is not None and rules.at_limit(len(hand))
    lone = rules is not None and not rules.last_card_stolen_wins  # a last card may not be stolen
    others = any(len(other) > lone for seat, other in enumerate(body.hands) if seat != view.current)
    options = [] if body.drew or full or not body.deck_size else ["draw"]
    options += [] if body.stole or full or not others else ["steal"]
    if rules is not None and rules.draw_and_discard and not body.exchanged and not full and body.deck_size:
        options.append("draw-and-discard")
    options += ["discard"] if rules is None or has_group(hand, rules) else []
    return [*options, "end the turn"]


def legal_summary(legal: Sequence[str], *, one_opponent: bool = False) -> str:
    """The legal actions, grouped: 'draw 1-3, steal NAME, discard (any of 2 groups), end' (a lone
    opponent needs no name: 'steal'). Groups may share cards, so "4 groups" read as four to discard."""
    verbs: dict[str, int] = {}
    for action in legal:
        verb = action.split()[0]
        verbs[verb] = verbs.get(verb, 0) + 1
    parts = []
    for verb, count in verbs.items():
        if verb == "draw":
            parts.append("draw 1" if count == 1 else f"draw 1-{count}")
        elif verb == "discard":
            parts.append("discard (1 group)" if count == 1 else f"discard (any of {count} groups)")
        elif verb == "steal":
            parts.append("steal" if one_opponent else "steal NAME")
        elif verb == "putback":
            parts.append("putback CARD")
        else:
            parts.append(verb)
    return ", ".join(parts)


# -- reading what was typed and what arrived ---------------------------------------------


def _cards(cards: Any, where: str) -> list[Card]:
    return read_cards(cards, where, Card.parse)


def _table_fields(fields: Any) -> dict[str, int | bool]:
    """The body's ``rules`` (a server before them sends none), checked field by field: a number
    where the preset has one, true or false where it has that."""
    if not isinstance(fields, Mapping):
        raise GameDataError("body.rules: not a map")
    read: dict[str, int | bool] = {}
    for name, value in fields.items():
        if name not in TABLE_FIELDS:
            raise GameDataError(f"body.rules: no rule {name!r}")
        kind = type(getattr(CLASSIC, TABLE_FIELDS[name]))
        least = 0 if name == "hand_limit" else 1  # (0: no limit; no number of the others may be 0)
        if type(value) is not kind or (kind is int and value < least):
            raise GameDataError(
                f"body.rules.{name}: not {'true or false' if kind is bool else 'a whole number'}"
            )
        read[name] = value
    return read


def _as_options(options: Mapping[str, Any]) -> bool:
    """Whether a table's options, as the lobby's list says them, set its rules as a server would:
    each a whole number (not true or false) or a word of ours."""
    values = [options.get(name, PRESETS_OWN) for name in TABLE_FIELDS]
    return all((type(value) is int and value >= 0) or value in (PRESETS_OWN, "yes", "no") for value in values)


def table_rules(view: TableView | None) -> Rules | None:
    """The rules of the table ``view`` is of: its preset's with what the table set; ``None`` for a
    preset this client does not know. Rules that cannot be (a server's bug) read as the preset's."""
    preset = None if view is None else PRESETS.get(view.variant)
    if preset is None or view is None or not isinstance(view.body, Body):
        return preset
    body = view.body
    try:
        rules = with_table_fields(preset, dict(body.rules))
        if body.turn_limit is not None:  # the table's, where the server says them
            rules = attrs.evolve(rules, turn_limit=body.turn_limit)
        if body.quiet_rounds is not None:
            rules = attrs.evolve(rules, quiet_rounds=body.quiet_rounds)
        return rules
    except RulesError:
        return preset


def _changed_fields(table: Rules, preset: Rules) -> list[str]:
    """The lines saying what a table changed from its preset, if anything: 'cards dealt 7 (5)'
    under a heading that names the preset."""

    def said(name: str, rules: Rules) -> str:
        value = getattr(rules, TABLE_FIELDS[name])
        word = name.replace("_", " ")
        if name == "hand_limit":
            return f"hand limit {value or 'none'}"
        return f"{word}: {'yes' if value else 'no'}" if isinstance(value, bool) else f"{word} {value}"

    changed = [
        f"    {said(name, table)} ({said(name, preset).rpartition(' ')[2]})"
        for name in _fields_set(table, preset)
    ]
    return [f"  this table's own rules ({preset.name}'s in brackets):", *changed] if changed else []


def _fields_set(table: Rules, preset: Rules) -> list[str]:
    """The rules (:data:`TABLE_FIELDS`) a table set otherwise than its preset."""
    return [name for name, field in TABLE_FIELDS.items() if getattr(table, field) != getattr(preset, field)]


def _body(view: TableView) -> Body:
    """The body this UI read; a view read by another game's UI is a bug in the client."""
    assert isinstance(view.body, Body), f"not a Notty view: {view.body!r}"
    return view.body


def _seat_of(name: str, view: TableView | None) -> int:
    """The seat of the player ``name``, or of seat ``name`` as the client numbers seats, from 1 (the
    wire's seats count from 0); a player's name wins over a number (names may be digits), and the
    start of one other player's name (``exp`` for ``expert-3``) names that player; the start of
    several (``expert`` for ``expert-2`` and ``expert-3``) is refused naming them, not one guessed."""
    if view is None:
        raise CommandError("you are not at a table")
    names = [n.lower() for n in view.names]
    if name.lower() not in names and is_number(name):
        if not 1 <= int(name) <= len(names):
            raise CommandError(f"there is no seat {int(name)}: seats are 1 to {len(names)}")
        return int(name) - 1
    starting = [seat for seat, n in enumerate(names) if n.startswith(name.lower()) and seat != view.seat]
    if name.lower() not in names and len(starting) == 1:  # 'steal exp' for expert-3, as it completes
        return starting[0]
    if name.lower() not in names and starting:  # 'expert' begins expert-2 and expert-3: not a guess
        could = " or ".join([", ".join(view.names[seat] for seat in starting[:-1]), view.names[starting[-1]]])
        raise CommandError(f"{name!r} could be {could}: type more of the name")
    if name.lower() not in names:
        others = [n for seat, n in enumerate(view.names) if seat != view.seat]
        guess = did_you_mean(name, others)
        # (not our own name: we cannot rob ourselves)
        players = (
            f"the others are {', '.join(others)}"
            if view.seat is not None
            else f"players are {', '.join(others)}"
        )
        raise CommandError(f"no player called {name!r}; " + (f"{guess} {players}" if guess else players))
    return names.index(name.lower())


def _legal_victims(view: TableView) -> list[str]:
    """The names of those we may rob now, by the legal actions."""
    seats = [
        action.split()[1]
        for action in view.legal
        if action.split()[0] == "steal" and len(action.split()) == 2
    ]
    return [view.names[int(seat)] for seat in seats if seat.isdigit() and int(seat) < len(view.names)]


def _discard_words(view: TableView, typed: Sequence[str]) -> list[str]:
    """The cards, in hand order, that with those ``typed`` still make part of a group we may discard."""
    if view.seat is None:
        return []
    have = Counter(word.upper() for word in typed)
    wanted: Counter[str] = Counter()
    for action in view.legal:
        if action.split()[0] == "discard":
            group = Counter(action.split()[1:])
            if not have - group:  # every card typed is in this group (as many times)
                wanted |= group - have
    return [card for card in dict.fromkeys(map(str, _body(view).hands[view.seat])) if wanted[card]]


def _most_drawn(view: TableView | None) -> int:
    """The most cards a turn may draw by the rules of the table's preset (any preset's, unknown)."""
    rules = None if view is None else PRESETS.get(view.variant)
    return rules.max_draw if rules is not None else max(preset.max_draw for preset in PRESETS.values())


def _only_victim(view: TableView | None) -> int:
    """``steal`` with no name: the one other player, if there is only one; else whom to name."""
    if view is None or view.seat is None:
        raise CommandError("usage: steal NAME")
    others = [seat for seat in range(len(view.names)) if seat != view.seat]
    if len(others) == 1:
        return others[0]
    robbed = set(_legal_victims(view))  # on our turn: not a hand the rules keep (a last card, say)
    names = " or ".join(
        f"'steal {view.names[seat]}'" for seat in others if not robbed or view.names[seat] in robbed
    )
    raise CommandError(f"steal from whom? {names}")


def _check_held(cards: Sequence[Card], view: TableView | None) -> None:
    """Refuse cards our hand does not hold (as many times as named), before anything else is
    said of them: a group of cards we lack is not worth judging. Only a seated view shows it."""
    if view is None or view.seat is None:
        return
    hand = _body(view).hands[view.seat]
    missing = [card for card in dict.fromkeys(cards) if card not in hand]
    if missing:
        lacking = [str(card) for card in missing]
        either = lacking[0] if len(lacking) == 1 else f"{', '.join(lacking[:-1])} or {lacking[-1]}"
        raise CommandError(f"you do not hold {either}")
    for card in dict.fromkeys(cards):
        named, held = cards.count(card), hand.count(card)
        if named > held:
            raise CommandError(f"you hold {held} {card}, not {named}")


def _named(words: Sequence[str], view: TableView | None) -> list[Card]:
    """The cards ``words`` name, each one of the table's preset (when it is known): classic has
    no K and no 11, so naming one is a mistake to say, not a card we do not hold."""
    rules = table_rules(view)
    if rules is None:
        return [Card.parse(word) for word in words]
    variant = view.variant if view is not None else rules.name
    colours = ", ".join(rules.colours)
    deck = f"a {variant} card is a colour letter ({colours}) and a number (1 to {rules.numbers})"
    cards = []
    for word in words:
        try:
            card = Card.parse(word)
        except CardError:
            raise CommandError(f"{word!r} is not a card: {deck}, e.g. {rules.colours[0]}3") from None
        if card.colour not in rules.colours or card.number > rules.numbers:
            raise CommandError(f"there is no {card} in {variant}: {deck}")
        cards.append(card)
    return cards


def _group(args: Sequence[str], view: TableView | None) -> list[Card]:
    """The cards typed after ``discard``: held (when our hand is known), then a group (when the
    table's preset is known)."""
    cards = _named(action_words(" ".join(args)), view)
    if not cards:
        raise CommandError("usage: discard CARDS, e.g. discard R3 R4 R5")
    _check_held(cards, view)
    rules = table_rules(view)
    if rules is not None:
        try:
            classify_group(cards, rules)
        except InvalidGroup as error:
            raise CommandError(f"not a group: {error}") from None
    return cards


def _cards_text(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)


def read_hint(data: Any) -> HintData:
    """A hint's data (``{size, best, alternatives, alternative_groups, outs}``; a server before
    ``alternative_groups`` sends none), checked; :class:`GameDataError` if not."""
    if not isinstance(data, Mapping):
        raise GameDataError("hint data: not a map")
    size = data.get("size")
    if type(size) is not int or size < 0:
        raise GameDataError("hint data.size: not a number of cards")
    groups: dict[str, tuple[tuple[str, ...], ...]] = {}
    for key in ("best", "alternatives"):
        value = data.get(key)
        if not isinstance(value, list | tuple):
            raise GameDataError(f"hint data.{key}: not a list of groups")
        groups[key] = tuple(
            tuple(map(str, _cards(group, f"hint data.{key}[{i}]"))) for i, group in enumerate(value)
        )
    outs = data.get("outs")
    if not isinstance(outs, list | tuple) or not all(
        isinstance(out, Mapping) and type(out.get("gain")) is int for out in outs
    ):
        raise GameDataError("hint data.outs: not a list of cards with gains")
    cards = _cards([out.get("card") for out in outs], "hint data.outs")
    gains = tuple((str(card), int(out["gain"])) for card, out in zip(cards, outs, strict=True))
    alternatives = _alternative_groups(data, groups["alternatives"])
    return HintData(size, groups["best"], alternatives, gains, _turn_hint(data.get("turn")))


def _turn_hint(turn: Any) -> TurnHint | None:
    """The hint's ``turn``, checked (absent: ``None``)."""
    if turn is None:
        return None
    if not isinstance(turn, Mapping):
        raise GameDataError("hint data.turn: not a map")
    chances, expert = turn.get("chances"), turn.get("expert")
    if not isinstance(chances, list | tuple) or len(chances) > MAX_PLANS:
        raise GameDataError(f"hint data.turn.chances: not a list of at most {MAX_PLANS} plans")
    for at, pair in enumerate(chances):
        where = f"hint data.turn.chances[{at}]"
        if not isinstance(pair, list | tuple) or len(pair) != 2 or not _command(pair[0]):
            raise GameDataError(f"{where}: not a plan and its chance")
        if type(pair[1]) is not int or not 0 <= pair[1] <= MILLION:
            raise GameDataError(f"{where}: not a chance in millionths")
    if not _command(expert):
        raise GameDataError("hint data.turn.expert: not a command")
    flags = {key: turn.get(key, False) for key in ("exchange_unweighed", "full", "bounded")}
    for key, value in flags.items():
        if type(value) is not bool:
            raise GameDataError(f"hint data.turn.{key}: not true or false")
    return TurnHint(tuple((str(plan), int(chance)) for plan, chance in chances), str(expert), **flags)


def _command(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_COMMAND


def advice_lines(turn: TurnHint, colour: bool, once_back: bool = False, groups: bool = False) -> list[str]:
    """The turn's advice in words: the chance each plan gives of going out now (those that give
    one), and the move ``auto`` would make (the expert's, as it plays the seat): going out now is
    not the whole game, since cards drawn in vain stay in the hand, so no plan is called best.
    ``once_back``: the advice is for the hand once the hint's card is put back (midway through a
    draw-and-discard), and says so; ``groups``: the hand holds groups it could discard now."""
    lines = ["your hand is at or near its limit: discard first to make room to draw"] if turn.full else []
    some = [f"{percent(chance)} {_plan_words(plan, colour)}" for plan, chance in turn.chances if chance]
    if some:
        lines.append(
            f"chances of going out this turn{', at least' if turn.bounded else ''}: " + ", ".join(some)
        )
    elif turn.bounded:
        lines.append("this turn, no draw or theft was found that empties your hand")
    else:
        lines.append("this turn, no draw or theft can empty your hand")
    if turn.bounded:  # the search stopped before it had weighed every draw
        lines[-1] += " (a hand this big is not weighed with every draw)"
    if turn.exchange_unweighed:
        lines[-1] += " (draw-and-discard first is not weighed for a hand this big)"
    when = "once it is back, 'auto' would" if once_back else "'auto' would now"
    return [*lines, f"{when}: {_command_words(turn.expert, colour)}{_keeping(turn, groups)}"]


def _keeping(turn: TurnHint, groups: bool) -> str:
    """Why ending the turn beats discarding the groups the hint names: said, or it reads as a
    contradiction (a play-tester was told to discard a set, then that the expert would end the turn)."""
    if not groups or turn.expert != "end":
        return ""
    return " and keep the groups: a thief takes a card at random, likelier one that fits no group"


def _plan_words(plan: str, colour: bool) -> str:
    verb, _, rest = plan.partition(" ")
    if verb == "draw" and rest:
        return f"drawing {rest}"
    if verb == "steal" and rest:
        return f"stealing from {rest} first"
    if verb == "dd" and not rest:
        return "with 'dd' first"
    return f"with {colour_cards_in(plan, colour)}"


def _command_words(command: str, colour: bool) -> str:
    verb, _, rest = command.partition(" ")
    if verb == "steal" and rest:  # as it is typed, too: a play-test typed 'steal from greedy-2'
        return f"steal from {rest} ('steal {rest}')"
    if verb == "end" and not rest:
        return "end the turn"
    if verb == "dd" and not rest:
        return "draw-and-discard ('dd')"
    return colour_cards_in(command, colour)


def percent(per_million: int) -> str:
    """A chance in millionths as a player reads it: to a tenth of a percent, and never as nil or a
    certainty that it is not."""
    if 0 < per_million < MILLION // 1000:
        return "under 0.1%"
    if MILLION - MILLION // 1000 < per_million < MILLION:
        return "over 99.9%"
    return f"{per_million / (MILLION // 100):.1f}%"


def _alternative_groups(
    data: Mapping[str, Any], alternatives: tuple[tuple[str, ...], ...]
) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Each alternative as its groups: ``alternative_groups``, checked to hold the same cards as
    ``alternatives``; without it (an older server), each alternative as one group."""
    grouped = data.get("alternative_groups")
    if grouped is None:
        return tuple((alternative,) for alternative in alternatives)
    if not isinstance(grouped, list | tuple) or len(grouped) != len(alternatives):
        raise GameDataError("hint data.alternative_groups: not the groups of each alternative")
    found = []
    for i, (groups, alternative) in enumerate(zip(grouped, alternatives, strict=True)):
        where = f"hint data.alternative_groups[{i}]"
        if not isinstance(groups, list | tuple):
            raise GameDataError(f"{where}: not a list of groups")
        read = tuple(tuple(map(str, _cards(group, f"{where}[{j}]"))) for j, group in enumerate(groups))
        if sorted(card for group in read for card in group) != sorted(alternative):
            raise GameDataError(f"{where}: not the cards of hint data.alternatives[{i}]")
        found.append(read)
    return tuple(found)
