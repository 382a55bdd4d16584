"""The rules of a turn, as checks over public state.

Legality depends only on what every player can see, so the same code serves
the engine (before it changes anything) and the bots and clients (over a view).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from games._words import counted
from games.notty import PRESETS, Card, InvalidGroup, Rules, classify_group, has_group, valid_groups

from ._actions import Action, Discard, Draw, DrawDiscard, EndTurn, PutBack, Steal
from ._errors import IllegalAction, Rule
from ._events import EndReason


class TurnState(Protocol):
    """What legality depends on; both a :class:`Game` and a :class:`View` have it."""

    @property
    def rules(self) -> Rules: ...
    @property
    def hands(self) -> Sequence[Sequence[Card]]: ...
    @property
    def deck_size(self) -> int: ...
    @property
    def current(self) -> int: ...
    @property
    def drew(self) -> bool: ...
    @property
    def stole(self) -> bool: ...
    @property
    def exchanged(self) -> bool: ...
    @property
    def must_put_back(self) -> bool: ...
    @property
    def end_reason(self) -> EndReason | None: ...


def check(state: TurnState, seat: int, action: Action) -> None:
    """Raise :class:`IllegalAction` naming the rule, if ``seat`` may not take ``action`` now."""
    if state.end_reason is not None:
        raise IllegalAction(Rule.GAME_OVER, "the game is over")
    if seat != state.current:
        raise IllegalAction(Rule.NOT_YOUR_TURN, f"it is seat {state.current}'s turn, not seat {seat}'s")
    if state.must_put_back and not isinstance(action, PutBack):
        raise IllegalAction(
            Rule.PUT_BACK_FIRST, "draw-and-discard: put a card back before doing anything else"
        )
    rules, hand = state.rules, state.hands[seat]
    limit = rules.hand_limit
    match action:
        case Draw(count):
            if state.drew:
                raise IllegalAction(Rule.DRAW_ONCE, "you have already drawn this turn")
            if not 1 <= count <= rules.max_draw:
                raise IllegalAction(Rule.DRAW_COUNT, f"draw 1 to {rules.max_draw} cards, not {count}")
            if count > state.deck_size:
                raise IllegalAction(
                    Rule.DECK_TOO_SMALL,
                    f"the deck has {counted(state.deck_size, 'card')}; cannot draw {count}",
                )
            if limit and len(hand) + count > limit:
                raise IllegalAction(
                    Rule.HAND_LIMIT,
                    f"drawing {count} would take your hand of {len(hand)} past the limit of {limit}",
                )
        case Steal(victim):
            if state.stole:
                raise IllegalAction(Rule.STEAL_ONCE, "you have already stolen this turn")
            if not 0 <= victim < len(state.hands):
                raise IllegalAction(Rule.NO_SUCH_SEAT, f"there is no seat {victim}")
            if victim == seat:
                raise IllegalAction(Rule.STEAL_FROM_SELF, "steal from another player, not yourself")
            if rules.at_limit(len(hand)):
                raise IllegalAction(Rule.HAND_LIMIT, f"your hand is at the limit of {limit}: cannot steal")
            if not state.hands[victim]:
                raise IllegalAction(Rule.EMPTY_HAND, f"seat {victim} has no cards")
            if len(state.hands[victim]) == 1 and not rules.last_card_stolen_wins:
                raise IllegalAction(Rule.LAST_CARD, "these rules do not allow stealing a last card")
        case Discard(cards):
            _check_in_hand(hand, cards)
            try:
                classify_group(cards, rules)
            except InvalidGroup as error:
                raise IllegalAction(Rule.INVALID_GROUP, str(error)) from None
        case DrawDiscard():
            if not rules.draw_and_discard:
                raise IllegalAction(Rule.NO_DRAW_AND_DISCARD, _no_draw_and_discard(rules))
            if state.exchanged:
                raise IllegalAction(
                    Rule.DRAW_AND_DISCARD_ONCE, "you have already used draw-and-discard this turn"
                )
            if rules.at_limit(len(hand)):
                raise IllegalAction(
                    Rule.HAND_LIMIT, f"your hand is at the limit of {limit}: cannot draw-and-discard"
                )
            if not state.deck_size:
                raise IllegalAction(Rule.DECK_TOO_SMALL, "the deck is empty")
        case PutBack(card):
            if not rules.draw_and_discard:  # nothing to finish: say why, as 'dd' does
                raise IllegalAction(Rule.NO_DRAW_AND_DISCARD, _no_draw_and_discard(rules))
            if not state.must_put_back:
                raise IllegalAction(Rule.NOTHING_TO_PUT_BACK, "put back only after draw-and-discard")
            _check_in_hand(hand, (card,))
        case EndTurn():
            pass


def draw_room(rules: Rules, hand_size: int, deck_size: int) -> int:
    """The most cards a hand of ``hand_size`` may draw now (0: none), if it has not drawn yet."""
    room = rules.hand_limit - hand_size if rules.hand_limit else rules.max_draw
    return max(0, min(rules.max_draw, deck_size, room))


def stuck(hand: Sequence[Card], rules: Rules) -> bool:
    """At the limit with no group: its owner can neither draw, steal nor discard."""
    return rules.at_limit(len(hand)) and not has_group(hand, rules)


def is_legal(state: TurnState, seat: int, action: Action) -> bool:
    """:func:`check` as a yes or no, for players weighing their options."""
    try:
        check(state, seat, action)
    except IllegalAction:
        return False
    return True


def _check_in_hand(hand: Sequence[Card], cards: Sequence[Card]) -> None:
    missing = Counter(cards) - Counter(hand)
    if missing:
        shown = " ".join(str(card) for card in sorted(missing.elements()))
        raise IllegalAction(Rule.NOT_IN_HAND, f"not in your hand: {shown}")


def legal_actions(state: TurnState) -> list[Action]:
    """Every action the current player may take now (none once the game is over)."""
    if state.end_reason is not None:
        return []
    seat, rules = state.current, state.rules
    hand = state.hands[seat]
    if state.must_put_back:
        return [PutBack(card) for card in sorted(set(hand))]
    actions: list[Action] = [Discard(group) for group in valid_groups(hand, rules)]
    if not state.drew:
        actions.extend(Draw(n) for n in range(1, draw_room(rules, len(hand), state.deck_size) + 1))
    if not state.stole and not rules.at_limit(len(hand)):
        for victim, other in enumerate(state.hands):
            if victim != seat and other and (len(other) > 1 or rules.last_card_stolen_wins):
                actions.append(Steal(victim))
    if rules.draw_and_discard and not state.exchanged and not rules.at_limit(len(hand)) and state.deck_size:
        actions.append(DrawDiscard())
    actions.append(EndTurn())
    return actions


def _no_draw_and_discard(rules: Rules) -> str:
    """Whose rules have none: the preset's, or a table's that turned its preset's off (five-colour
    has draw-and-discard: "the five-colour rules have none" would be untrue)."""
    preset = PRESETS.get(rules.name)
    whose = "this table's" if preset is not None and preset.draw_and_discard else f"the {rules.name}"
    return f"{whose} rules have no draw-and-discard"
