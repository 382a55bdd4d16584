"""The ``expert`` bot: plans each turn by the exact chances of going out.

Hands are face up and the deck's contents are known, so a draw is a chance
event with odds the bot computes exactly (:mod:`solver.notty._chance`); it never
looks at the deck's order. Each turn it

1. goes out at once whenever its whole hand can be discarded;
2. steals when the card it would get (at random) raises its chance of going
   out now, or when the theft lowers an opponent's chance of going out next
   turn; holding one card it steals first whenever the card it would get
   gives a better chance this turn than drawing does (a thief takes one of
   two cards back either way, so the lone card is not lost, and a turn spent
   drawing two that fail leaves three cards and a dead turn after it);
   it never steals a last card, which would make that player the
   winner, and it frees an opponent stuck at the hand limit, since only a
   free opponent takes cards it cannot use off its hands; the freed
   opponent robs it back, so unless a card it holds would give that
   opponent a group, it draws one that might (half the deck does);
3. draws the number of cards (0 to 3) that maximises the chance of going out
   now plus the worth of what it keeps if the draw fails, and with nothing in
   reach draws one card a turn to build from, while its hand is small (one
   or two cards, or more when no thief is thinning it).
   Heads-up, it counts on a theft to thin its hand only as often as it has
   seen one, and at any table not at all once rounds pass with nobody
   acting: careful bots that each waited for a theft passed for ever;
4. keeps the hand with the best chance of going out after an opponent
   steals one of its cards at random: at ``hard``, over its next two turns,
   which values complete groups held beside a card or two that do not fit,
   since a theft will likely take those and leave the groups.

Levels are budgets of the same bot: how many ways of keeping a hand it
weighs, how many of its turns it plays out to weigh them, and whether it
weighs its opponents' chances. Sampling draws to see past the draw itself was
tried and lost to the exact view at several times the cost (bench/RESULTS.md),
so no level does it.
"""

from __future__ import annotations

import copy
import random

import attrs

from games.notty import Card, Rules, has_group, valid_groups
from solver import Flat, best_discard, max_discard, unflatten

from ..engine import Action, Discard, Draw, DrawDiscard, EndTurn, PutBack, Steal, View, is_legal, stuck
from ._base import Bot, an_opponent_can_act, victims
from ._outlook import Outlook, minus, plus, size
from ._thefts import Thefts

#: How well an ``expert`` plays, weakest first: a table's ``level`` option names one.
LEVELS = ("easy", "medium", "hard")


@attrs.frozen
class Budget:
    keep_options: int  # single groups weighed, besides keeping all and discarding the most
    weigh_keeping: bool  # weigh what to keep against a theft, or discard all it can
    weigh_opponents: bool  # steal to stop a threat, and play faster while one looms
    turns_ahead: int  # how many of its own turns it plays out when weighing a hand to keep


BUDGETS = {
    "easy": Budget(keep_options=0, weigh_keeping=False, weigh_opponents=False, turns_ahead=1),
    "medium": Budget(keep_options=4, weigh_keeping=True, weigh_opponents=False, turns_ahead=1),
    "hard": Budget(keep_options=16, weigh_keeping=True, weigh_opponents=True, turns_ahead=2),
}

#: A chance of going out next turn, against the same chance now.
NEXT_TURN = 0.9
#: Drawing changes the hand kept; the bot counts what it would keep without drawing at this share.
AFTER_DRAW = 0.5
#: The two-turn view costs the square of the hand's size: bigger hands get the one-turn view.
TWO_TURNS_UP_TO = 8
#: With nothing in reach, draw one card a turn while the hand is smaller than this.
BUILD_UP_TO = 8
#: A hand bigger than this, with nothing in reach, is left for a thief to thin rather than built on.
THIN_FROM = 2
#: With no opponent able to steal, build up to this many cards below the hand limit.
FREE_MARGIN = 4
#: A stolen card rarely fits: a theft must add at least this much to the chances.
STEAL_MIN = 0.03
#: What freeing a stuck opponent is worth: their thefts are our only way to shed cards that do not fit.
UNSTICK = 0.1
#: A theft seen less often than this is not counted on: with nothing in reach, build instead of waiting.
RATE_BUILD = 0.2
#: After this many rounds in a row in which no hand changed, nobody is acting: build rather than wait.
QUIET_ROUNDS = 2
#: A thief seen robbing our hand this often robs it every turn: nothing is gained by trading with it.
HABITUAL = 0.8
#: What a theft does to a hand's chances (an opponent's, robbed by us; ours, robbed before our next
#: turn, weighing what to keep) is weighed for hands up to this size (the presets' limit): one card of
#: a bigger hand changes them little, and weighing each of its cards took seconds of CPU a move at a
#: table with no hand limit, whose hands grow to 70 cards. A bigger hand of ours discards all it can.
WEIGH_THEFT_UP_TO = 20


class ExpertBot(Bot):
    name = "expert"

    def __init__(self, rng: random.Random, level: str = "hard") -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: levels are {', '.join(LEVELS)}")
        self.level = level
        self.name = f"expert-{level}"
        self.budget = BUDGETS[level]
        self._rng = rng  # unused: every decision is exact; kept so all bots are built alike
        self._outlooks: dict[Rules, Outlook] = {}
        self.thefts = Thefts()
        self._plan: tuple[tuple[int, int], list[tuple[Card, ...]]] | None = None
        self._freed: tuple[tuple[int, int], int] | None = None  # (turn, seat), victim: a stuck hand robbed

    def choose(self, view: View) -> Action:
        seat = view.current if view.seat is None else view.seat
        rules = view.rules
        if rules not in self._outlooks:
            self._outlooks[rules] = Outlook(rules)
        self.thefts.watch(view, seat)
        return _Decision(self, self._outlooks[rules], view, seat).choose()

    def catch_up(self, view: View) -> None:
        self.thefts.watch(view, view.current if view.seat is None else view.seat)

    def twin(self) -> ExpertBot:
        """A copy that decides as this bot would now, sharing nothing it changes: a hint asks it
        what ``auto`` would do, off the table's thread, and the table's bot plays on unchanged."""
        twin = ExpertBot(self._rng, self.level)
        twin.thefts = copy.copy(self.thefts)  # counts, and the last view seen (immutable)
        plan = self._plan  # read once: a bot playing in a worker thread may be changing it
        twin._plan = None if plan is None else (plan[0], list(plan[1]))
        twin._freed = self._freed
        return twin


class _Decision:
    """One choice, over one view."""

    def __init__(self, bot: ExpertBot, look: Outlook, view: View, seat: int) -> None:
        self.bot, self.look, self.view, self.seat = bot, look, view, seat
        self.budget = bot.budget
        self.rules = view.rules
        self.hand = view.hands[seat]
        self.mine = look.flat(self.hand)
        self.deck = look.flat(view.deck_contents().elements())
        self._kept: dict[tuple[Flat, Flat, bool], tuple[float, Flat]] = {}

    def choose(self) -> Action:
        view, hand, rules = self.view, self.hand, self.rules
        if view.must_put_back:
            return PutBack(self._put_back())
        if hand and max_discard(hand, rules) == len(hand):
            return Discard(best_discard(hand, rules)[0])
        planned = self._planned_discard()
        if planned is not None:
            return planned
        if not view.stole and not view.drew:
            target = self._steal_target()
            if target is not None:
                if not an_opponent_can_act(view, self.seat):  # a stuck one, freed: it robs us back
                    self.bot._freed = ((view.turn, self.seat), target)
                return Steal(target)
        if not view.drew:
            count = self._draw_count() or self._feeding_draw()
            if count:
                return Draw(count)
        if rules.draw_and_discard and self._allowed(DrawDiscard()):
            return DrawDiscard()  # a free look: the card goes back if it does not help
        return self._end_turn()

    # -- stealing ---------------------------------------------------------------------

    def _steal_target(self) -> int | None:
        look, view = self.look, self.view
        mine_now = look.best_draw(self.mine, self.deck)[0]
        lone = size(self.mine) == 1
        best, target = (0.0 if lone else STEAL_MIN), None
        for victim in victims(view, self.seat):
            cards = view.hands[victim]
            theirs = look.flat(cards)
            gain = look.steal_gain(self.mine, self.deck, theirs)
            frees = stuck(cards, self.rules) and not an_opponent_can_act(self.view, self.seat)
            if lone and not frees and gain <= max(mine_now, self._last_taken()):
                continue  # a lone card: steal for a better chance now than drawing, or than waiting
            value = gain - mine_now
            if self.budget.weigh_opponents and size(theirs) <= WEIGH_THEFT_UP_TO:
                value += look.best_draw(theirs, self.deck)[0] - look.after_steal(theirs, self.deck)
            if frees or (stuck(cards, self.rules) and not mine_now and size(self.mine) >= 2):
                value += UNSTICK
            if value > best:
                best, target = value, victim
        if target is None and not mine_now and size(self.mine) >= BUILD_UP_TO:
            target = self._churn_target()
        return target

    def _feeding_draw(self) -> int:
        """One card, when this turn's theft freed a stuck opponent and no card we hold would give it a group.

        The freed opponent robs us back at once; the cards that then pass
        between our two hands never gave it a group, so it would be stuck
        again. Half the deck's cards complete one of a stuck hand's groups: one
        drawn is the way out for both of us.
        """
        freed, self.bot._freed = self.bot._freed, None
        if freed is None or freed[0] != (self.view.turn, self.seat) or not self._allowed(Draw(1)):
            return 0
        theirs = self.view.hands[freed[1]]
        return 0 if any(has_group((*theirs, card), self.rules) for card in set(self.hand)) else 1

    def _churn_target(self) -> int | None:
        """With nothing in reach and no room to build, trade cards with the biggest hand.

        Two careful players can otherwise sit on hands that never change; a
        theft changes both hands, and invites one back that sheds a card. Not
        heads-up against an opponent who robs nearly every hand: passing, the
        hand shrinks a card a turn, where a theft of ours keeps it at its size
        (a hand of 9 grown while ``greedy`` was stuck then began some 60 turns
        in a row out of reach). Against a careful thief, and at a bigger table
        (where a theft is counted on without being seen), trading still pays:
        without it, two experts ended 68% of their games, not 79%, and three
        a fifth, not three quarters.
        """
        if len(self.view.hands) == 2 and self._robbed(self.mine) >= HABITUAL:  # not once it stops
            return None
        return self._biggest_victim()

    def _biggest_victim(self) -> int | None:
        """The biggest hand that may be robbed now (ties: the first in seat order), if any."""
        hands = self.view.hands
        return max(victims(self.view, self.seat), key=lambda victim: len(hands[victim]), default=None)

    # -- drawing ----------------------------------------------------------------------

    def _draw_count(self) -> int:
        look = self.look
        room = look.draw_room(self.mine, self.deck) if self._allowed(Draw(1)) else 0
        if not room:
            return 0
        future = NEXT_TURN * (1.0 - self._threat())
        kept = self._keep(self.mine, self.deck)[0]
        best_value, best_count, best_now = future * kept, 0, 0.0
        for k in range(1, room + 1):
            p = look.chance(self.mine, self.deck, k)
            best_now = max(best_now, p)
            value = p + (1.0 - p) * future * kept * AFTER_DRAW
            if value > best_value + 1e-12:
                best_value, best_count = value, k
        waiting = best_now < 1e-12 and size(self.mine) >= 2 and self._robbed(self.mine) < RATE_BUILD
        if best_value < 1e-12 or waiting:  # nothing in reach, nor a theft likely to bring it: build
            if not waiting and size(self.mine) > THIN_FROM and self._robbed(self.mine):
                return 0  # but a thief is thinning this hand: a card drawn a turn would only keep it big
            return 1 if size(self.mine) < self._build_cap() else 0
        return best_count

    def _build_cap(self) -> int:
        """How big a hand to build with nothing in reach: small while thieves thin it, else near the limit."""
        if self._robbable(self.mine):
            return BUILD_UP_TO
        return (self.rules.hand_limit or 24) - FREE_MARGIN

    def _threat(self) -> float:
        """The best chance any opponent has of going out on their next turn (0 unless weighed)."""
        if not self.budget.weigh_opponents:
            return 0.0
        return max(
            (
                self.look.best_draw(self.look.flat(cards), self.deck)[0]
                for seat, cards in enumerate(self.view.hands)
                if seat != self.seat
            ),
            default=0.0,
        )

    # -- keeping ----------------------------------------------------------------------

    def _keep(self, hand: Flat, deck: Flat, cheap: bool = False) -> tuple[float, Flat]:
        """The worth of the best hand to end the turn with, and the cards to discard for it.

        ``cheap`` asks for the one-turn view, for callers that weigh many hands.
        Deciding not to draw and then ending the turn ask about the same hand, so
        answers are remembered for this decision.
        """
        key = (hand, deck, cheap)
        if key not in self._kept:
            self._kept[key] = self._weigh_keeping(hand, deck, cheap)
        return self._kept[key]

    def _weigh_keeping(self, hand: Flat, deck: Flat, cheap: bool) -> tuple[float, Flat]:
        options = self._discard_options(hand)
        if not self.budget.weigh_keeping or size(hand) > WEIGH_THEFT_UP_TO:
            return 0.0, options[-1]
        best_value, best_removed = -1.0, options[0]
        for removed in options:
            kept = minus(hand, removed)
            after = plus(deck, removed)
            if self.budget.turns_ahead > 1 and size(kept) <= TWO_TURNS_UP_TO and not cheap:
                value = self.look.two_turns(
                    kept, after, self._robbed(kept), NEXT_TURN, AFTER_DRAW, self._last_taken()
                )
            else:
                value = self.look.after_steal(kept, after, self._robbed(kept), self._last_taken())
            if value > best_value + 1e-12 or (
                value > best_value - 1e-12 and size(removed) > size(best_removed)
            ):
                best_value, best_removed = value, removed
        return best_value, best_removed

    def _discard_options(self, hand: Flat) -> list[Flat]:
        """Keep everything; each of the largest single groups; discard the most (last)."""
        nothing = tuple(0 for _ in hand)
        cards = unflatten(hand, self.rules)
        best = best_discard(cards, self.rules)
        if not best:
            return [nothing]
        singles = sorted(valid_groups(cards, self.rules), key=len, reverse=True)
        return [
            nothing,
            *(self.look.flat(group) for group in singles[: self.budget.keep_options]),
            self.look.flat([card for group in best for card in group]),
        ]

    def _robbed(self, kept: Flat) -> float:
        """The chance that an opponent steals from this hand (two or more cards) before our next turn.

        Heads-up, the one opponent's record says how likely that is: `greedy`
        robs every hand it can, while a careful player steals only what it needs,
        and two bots that each waited for the other's theft would pass for ever.
        At a bigger table the thieves rob each other's big hands, so what they
        took from ours says little; counting a theft there as certain, as the
        bot always did, measured far stronger (88% of the five-colour 3-player
        round against 20%, bench/RESULTS.md). But when rounds pass in which
        nobody acts, no theft is coming at any table: three experts waited for
        ever. One quiet round is not enough: `random` often passes, and waiting
        for it pays.
        """
        if not self._robbable(kept) or self.bot.thefts.quiet >= QUIET_ROUNDS:
            return 0.0
        if len(self.view.hands) > 2:
            return 1.0
        rate = self.bot.thefts.rate()
        return rate if rate >= RATE_BUILD else 0.0

    def _robbable(self, kept: Flat) -> bool:
        """Can some opponent steal from this hand (other than its last card)?"""
        return size(kept) >= 2 and an_opponent_can_act(self.view, self.seat)

    def _last_taken(self) -> float:
        """The chance that a lone card is stolen before our next turn, which wins.

        None once rounds pass with nobody acting: two experts each holding one card and waiting for
        the other to take it passed until the no-progress rule drew the game.
        """
        if self.bot.thefts.quiet >= QUIET_ROUNDS or not an_opponent_can_act(self.view, self.seat):
            return 0.0
        return self.bot.thefts.last_taken()

    def _end_turn(self) -> Action:
        _, removed = self._keep(self.mine, self.deck)
        if not size(removed):
            return self._no_draw_by_default() or EndTurn()
        groups = best_discard(unflatten(removed, self.rules), self.rules)
        self.bot._plan = ((self.view.turn, self.seat), groups[1:])
        return Discard(groups[0])

    def _no_draw_by_default(self) -> Action | None:
        """A move that changes a hand, when ending the turn unchanged would draw the game for no
        progress: a game drawn is one nobody wins, and a card drawn or taken keeps it going.
        (A hint's adviser that told a player holding one card to pass three times walked them into
        that draw.)"""
        view, quiet = self.view, self.rules.quiet_rounds
        if not quiet or not view.unchanged:
            return None
        if view.quiet_turns + 1 < quiet * len(view.hands):
            return None
        if self._allowed(Draw(1)):
            return Draw(1)
        target = self._biggest_victim()
        return None if target is None else Steal(target)

    def _planned_discard(self) -> Action | None:
        """The rest of the groups chosen earlier this turn, one action at a time."""
        plan, self.bot._plan = self.bot._plan, None
        if plan is None or plan[0] != (self.view.turn, self.seat) or not plan[1]:
            return None
        group, *rest = plan[1]
        if not self._allowed(Discard(group)):
            return None
        self.bot._plan = (plan[0], rest)
        return Discard(group)

    # -- draw-and-discard -----------------------------------------------------------------

    def _put_back(self) -> Card:
        """The card whose return leaves the best hand: one that goes out now, if any."""
        best_value, best_card = -1.0, self.hand[-1]
        for card in sorted(set(self.hand)):
            rest = list(self.hand)
            rest.remove(card)
            if not rest or max_discard(rest, self.rules) == len(rest):
                return card
            if self.budget.weigh_keeping:
                returned = plus(self.deck, self.look.flat([card]))
                value = self._keep(self.look.flat(rest), returned, cheap=True)[0]
            else:
                value = max_discard(rest, self.rules)
            if value > best_value:
                best_value, best_card = value, card
        return best_card

    def _allowed(self, action: Action) -> bool:
        return is_legal(self.view, self.seat, action)
