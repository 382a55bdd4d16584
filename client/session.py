"""The client's state and logic, sans-IO: messages in, lines to show and messages to send out;
typed lines in, messages out. :mod:`client.app` is the Trio shell around it (the connection,
reconnecting, the heartbeat, the terminal), as :mod:`server.net` is around the server's host.

A session outlives its connections: a dropped one is replaced and the seat resumed with the
token kept here (and on disk, through a :class:`client.tokens.SeatStore`, when given one).
"""

from __future__ import annotations

import math
import shlex
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from games import Outcome
from games._ui import BOT_PLAYS_YOUR_TURN, GameDataError, GameUI, TableView, bot_plays_our_turn, is_number
from protocol import (
    AWAY_MOVES,
    GAME_ENDED,
    PROTOCOL_VERSION,
    AskHint,
    Bye,
    ConnectionState,
    CreateTable,
    Error,
    Goodbye,
    Hello,
    Hint,
    Join,
    Leave,
    Left,
    ListTables,
    Message,
    Notice,
    Pong,
    Seated,
    State,
    Tables,
    Watch,
    Watching,
    Welcome,
)

from .catalog import Catalog, paused_note, table_line
from .commands import (
    GAME_OVER,
    Reply,
    bots_besides,
    completions,
    elsewhere,
    interpret,
    leaves_by_itself,
    no_seat,
    why_not,
)
from .generic import plain_hint
from .sgr import plain, reflow
from .tokens import SeatStore, StoredSeat

#: What we are told of our own seat's notices, in our own words: each answers what we asked.
OWN_NOTICES = {
    "autopilot-on": "autopilot on: the server plays your turns until 'auto off'",
    "autopilot-off": "autopilot off: you play your own turns again",
    "resigned": "you resigned: you are ranked last in this game ('leave' returns to the lobby)",
}
#: The answer to 'auto on' or 'auto off' that changed nothing, by whether autopilot is on.
AUTOPILOT_ALREADY = {
    True: "autopilot is already on: the server plays your turns until 'auto off'",
    False: "autopilot was not on: you play your own turns",
}
#: The stand-in that takes our seat after we resigned (a game that goes on), in our own words.
RESIGNED_STAND_IN = "a bot plays your seat to the end of the game"
#: Said over the table written into the log, where the window is too short for its pane to show it all.
TABLE_INTO_LOG = "the whole table, since the window shows only part of it (PageUp scrolls the log back):"
#: Back after the grace ran out: a bot played our turns meanwhile, and stops now.
BACK = "you are back: a bot played your turns while you were away, and stops now"
#: What the server's goodbye says when it answers our ``bye``: no news (another reason is).
BYE = "bye"
#: The answers to a hello's seat token that no seat here holds it: gone (its game over, say), of a
#: game the server stopped unrecorded, which its next start restores, or of a game in another
#: record than the server keeps (started on another database), which it restores on its own.
SEAT_NOT_HERE = frozenset({"bad-token", "game-stopped", "other-record"})
#: The errors that answer a ``watch`` (docs/PROTOCOL.md): any other is about something else.
WATCH_REFUSALS = frozenset({"no-such-table", "too-many-watchers", "not-now"})
#: What heads the last move, shown again with the table when a seat is taken back.
LAST_MOVE = "what happened last, before you were back:"
#: What heads the moves a seat taken over from another client of ours here was last shown there.
TAKEN_OVER = "the last moves, before you took your seat over:"
#: Heads the first moves of a game we sit at, as it begins.
GAME_BEGINS = "the game begins:"
#: What another 'hint' is answered while one is on its way: it is not sent.
HINT_ON_ITS_WAY = "a hint is on its way: wait for it"
#: Why a script's game action is refused, not held for a turn of ours that will not come (the
#: server's words for the same refusals).
#: The width a table is laid out for when the terminal's is not known (a pipe).
LAYOUT_WIDTH = 80
RESIGNED = "you resigned: a bot plays your seat to the end ('leave' returns to the lobby)"
#: With no address: the client's own server, and a game at it, begun for the player at once.
BUILT_IN_ARRIVAL = (
    "no server given: a game of classic Notty begins against the expert bot, on this client's own "
    "server ('notty-client HOST:PORT' plays with others on theirs)"
)
#: 'new' typed there during that game: what it takes to start another.
BUILT_IN_NEW = "you are at table {table}, this client's own game: 'leave' ends it, then that 'new' starts one"
#: Quitting mid-game with no address: the server was the client's own, and stops with it.
BUILT_IN_GAME_ENDS = (
    "the game at table {table} ends here: it was played on the client's built-in server, which stops "
    "with it (a notty-server keeps a game for you to come back to)"
)


@attrs.frozen
class Output:
    """What a message from the server calls for: lines to show, and messages to send once shown.

    ``lines`` is what the line-mode client prints. The full-screen client (:mod:`client.screen`)
    shows the table apart from the log of what happened: for a State, ``log`` is its events (and
    what follows the table, such as a game's end), ``table`` the table as the game's UI draws it,
    in colour (the screen reads the codes), and ``moves`` the events highlighted over the table.
    """

    lines: tuple[str, ...] = ()
    send: tuple[Message, ...] = ()
    log: tuple[str, ...] | None = None  # None: the log shows ``lines``
    table: str | None = None  # the table now, for its own pane; None: unchanged
    moves: tuple[str, ...] | None = None  # None: the log's lines
    # Why a line typed earlier is refused, now that the server's answer says (a script stops there).
    refused: str | None = None

    @property
    def log_lines(self) -> tuple[str, ...]:
        """What the full screen's log shows of this output, a line each."""
        texts = self.lines if self.log is None else self.log
        return tuple(line for text in texts for line in text.split("\n"))

    @property
    def move_lines(self) -> tuple[str, ...]:
        """What the full screen highlights over the table, a line each: the moves, not what the
        client says after them (a game's end summary, a turn's time) nor how the game ended, which
        the table's last line says (a play-test read the end twice there, in two wordings)."""
        texts = self.log_lines if self.moves is None else self.moves
        return tuple(line for text in texts for line in text.split("\n"))

    def adding(self, lines: Sequence[str]) -> Output:
        """This output with ``lines`` after it, in line mode and in the log."""
        log = None if self.log is None else (*self.log, *lines)
        return attrs.evolve(self, lines=(*self.lines, *lines), log=log)


class Session:
    """One player's client: what it knows of the server, its table and its game."""

    def __init__(
        self,
        name: str,
        *,
        interactive: bool = False,
        colour: bool = False,
        seats: SeatStore | None = None,
        server: str = "",
        built_in: bool = False,
    ) -> None:
        self.name = name
        self.program = "notty-client"  # the command that runs this client, as its user can type it
        self.flags = ""  # and the options it was run with that the command to run it again keeps
        self.built_in = built_in  # our server runs in this process, and its games end with us
        self.interactive, self.colour = interactive, colour
        self.seats = seats  # where the seat token is kept between runs; None: not kept
        self.server = server  # this server's key in ``seats``
        self.catalog: Catalog | None = None  # the games the server hosts, from its welcome
        self.table: int | None = None
        self.token: str | None = None
        self.stopped = False  # the server could not record our table's game, and is stopping it
        # The seat our hello offered is of a game the server stopped so (game-stopped): kept on disk
        # for its next start, which restores the game; the server's words.
        self.seat_stopped: str | None = None
        self.view: TableView | None = None
        # When the timed turn under way ends, by ``clock`` (the view's turn_left, counted from its
        # arrival), for a status line that counts down; None where no turn is being timed.
        self.clock: Callable[[], float] = time.monotonic
        self.turn_ends: float | None = None
        self.game: str | None = None  # the game at our table, once known
        self.game_over = False
        self.replies = 0  # messages a script waiting for an answer counts (not pongs, not news)
        self.open_seats = 0  # seats the table we asked for keeps for others to join
        self.tables_seen: list[int] = []  # the numbers in the last table list, for tab completion
        # The columns a table is laid out for (the terminal's, as it is now); None: a pipe's 80.
        self.layout_width: Callable[[], int | None] = lambda: None
        self.table_pane = False  # the table has a pane of its own (the full screen), always drawn
        self.table_clipped = False  # ... but the window is too short for all its rows
        self.waiting: list[int] = []  # the tables in the last list with a seat open: 'join' alone
        self._listed_before_table = False  # a game went by since that list: not one to join by
        self.tables_asked = 0  # table lists asked for and not yet answered; any other is seat news
        self._games_of: dict[int, str] = {}  # each table's game, from every list seen
        self._seats_of: dict[int, int] = {}  # each table's number of seats, from every list seen
        self._listed: dict[int, Mapping[str, Any]] = {}  # each table as the last list said it
        # What each list asked for and not yet answered is for, in order: the table and seat of a
        # 'join' whose seat its answer tells of (Reply.seat_asked), or None (the list itself).
        self._lists_for: deque[tuple[int, int] | None] = deque()
        self._seat_to_ask: tuple[int, int] | None = None  # typed; its list not yet sent
        self.goodbye: str | None = None  # why the server said goodbye, once it has
        self.said_bye = False  # we said bye first: the server's goodbye is only its answer
        self._refused: str | None = None  # the text of the last refusal shown
        self.welcome_heard = False  # on this connection (a goodbye before the welcome is none)
        self.connection_down = False  # lost, and not yet welcomed again: the status line says so
        # The server said, on this connection, that it is stopping (error shutting-down): it keeps
        # its games, so it is worth reconnecting to, as after a dropped connection.
        self.shutting_down = False
        # The server turned this connection away for connecting too fast (error connecting-too-fast),
        # and why: a moment later it takes one, so the client tries again by itself.
        self.too_fast: str | None = None
        self.arrived = False  # the server has seated us (or let us watch) on this connection
        self.unsaved: str | None = None  # why our seat could not be kept on disk, if it could not
        # The name our seat is kept under on disk: its name at the table, once known (None: not kept).
        self.kept_as: str | None = None
        self._holding: str | None = None  # the token of the seat this client holds the lock of
        self._back = False  # a kept seat taken back: its first view repeats the last move, said as such
        # The seat is taken over from another notty-client here that plays it now: the moves the server
        # counts as missed were that client's to see, our seat's its person's own, not a bot's.
        self.taking_over = False
        self._joining: str | None = None  # the game of the table we asked to sit or watch at
        # The table we joined, still to say what it waits for: its news that follows our seat says.
        self._joined: int | None = None
        self._bots_only = 0  # the seats of a table asked for with a bot in each: we are to watch it
        self._armed: str | None = None  # the command that, typed next, confirms the last (leave, resign)
        self._armed_at: tuple[int | None, int | None] = (None, None)  # the table and turn it was asked at
        # A hint asked for and not yet answered (by the hint, or an error): another waits for it, so
        # that 30 'hint' lines pasted at once send one, not a flood the server ends the connection for.
        self._hint_asked = False
        # A 'hint' typed on the full screen and not yet sent: another typed meanwhile waits for it
        # too (:meth:`answered_as_typed`), until it is sent, is not to be, or an answer comes.
        self._hint_typed = False
        self.resigned = False  # we resigned the game at our table: a bot plays our seat
        self._autopilot = False  # our seat is on autopilot, as the server's notices to us said
        self._told_known_as: tuple[int, str] | None = None  # the table and name we were told we play as
        self._told_turn_time: int | None = None  # the table whose turn time we were told
        self._view_table: int | None = None  # the table ``view`` is of, until we sit again
        self._seat: int | None = None  # our seat at our table, once seated
        self._seat_name: str | None = None  # its name, as the news of a table not yet begun says it
        # This connection's hello offered a seat token: the server's answer to it (seated, or
        # bad-token with the list of tables) is where we arrive, not the arrival's list.
        self.offered_seat = False
        # ... and the server has not answered it yet: a script's lines wait for that answer.
        self.seat_unanswered = False
        # The table we watched when the connection went, asked to watch again on the new one (as a
        # seat is asked back), until the server answers: a script's lines wait for that answer too.
        self.rewatching: int | None = None
        # The table line mode printed last, as it was drawn: a view that changes nothing in it and
        # brings no news is not printed again.
        self._table_shown: tuple[int, str] | None = None
        # The live game we watched and left for another table ('watch 5' from table 3): watched
        # again if the server refuses the other (a mistyped number, a full table), until it answers.
        self._switching_from: int | None = None

    # -- what we say ---------------------------------------------------------------

    def hello(self) -> Hello:
        """The first message on each connection: it resumes our seat, if we hold one."""
        self.open_seats = self._bots_only = 0  # a table asked for on a lost connection is not waiting here
        self.welcome_heard = self.shutting_down = False
        self.too_fast = self._refused = None
        self._lists_for.clear()  # a list asked for on a lost connection is not answered on this one
        self._seat_to_ask = None  # nor is a 'join T S' typed while it was down
        self._switching_from = None  # nor is a table left for another watched again on it
        self.tables_seen = []  # a list from before (a server since restarted): Tab offers the next one's
        self.offered_seat = self.seat_unanswered = self.token is not None
        return Hello(PROTOCOL_VERSION, self.name, self.token)

    def arrival(self, built_in: bool) -> Reply:
        """What to ask for once welcomed the first time: at the built-in server a table (a plain
        ``new``), or, for a person arriving without a seat, what could be joined. A seat offered
        and gone (bad-token) asks for that list itself, maybe before this: it is shown once."""
        if built_in:  # a new user typed the README's 'new ...' here, and was told to leave first
            return attrs.evolve(self.typed("new"), say=BUILT_IN_ARRIVAL)
        return Reply(
            (ListTables(),) if self.interactive and self.token is None and not self.offered_seat else ()
        )

    def quits(self, line: str) -> bool:
        """Does ``line`` end the client? Asking changes nothing (``typed`` notes confirmations)."""
        return interpret(line, self.catalog, self.game_ui(), self.view).quit

    def typed(self, line: str) -> Reply:
        over = self.view is not None and self.view.over  # then 'resign' is refused as the end says
        # A seat already given up to a bot (we resigned) needs no warning before 'leave', unless the
        # game goes as we do: nobody else plays at the table.
        given_up = self.resigned and self._armed is None and not bots_besides(self.view)
        armed = "leave" if given_up else self._armed_still()
        self._armed = None  # a confirmation holds for the next command only, refused here or not
        # From a game over, or one we watch, as from the lobby, another table is joined ('join 3' is, too).
        leaves = self.table is None or leaves_by_itself(self._our_view(), self.token is None)
        if [word.lower() for word in line.split()] == ["join"] and leaves:
            if len(self.waiting) != 1:  # the one table that waits for players, or say which
                return Reply(say=self._which_to_join(), refused=True)
            line = f"join {self.waiting[0]}"
        if self.resigned and not over and [word.lower() for word in line.split()[:1]] == ["resign"]:
            return Reply(say=f"already done: {RESIGNED}", refused=True)
        hint = _asks_hint(line)
        if hint and self._hint_asked:
            self._hint_typed = False
            return Reply(say=HINT_ON_ITS_WAY, refused=True)
        ui, seats = self.game_ui(), self._seats_of
        reply = interpret(
            line,
            self.catalog,
            ui,
            self.view,
            armed,
            self.interactive,
            seats,
            self.table,
            self.game,
            view_current=not self.connection_down,  # the turn may have moved on: not judged on it
            watching=self.table is not None and self.token is None,
            listed=self._listed.get(self.table) if self.table is not None else None,
        )
        if hint and not reply.messages:  # refused here: no hint goes on its way
            self._hint_typed = False
        verb = line.split()[0].lower() if line.split() else ""
        width = self.layout_width()
        if verb == "rules" and reply.say and not reply.refused and width is not None and width < LAYOUT_WIDTH:
            reply = attrs.evolve(reply, say=reflow(reply.say, width))  # laid out for 80 columns
        if self.resigned and not over and (reply.action or (ui is not None and ui.is_action(verb))):
            return Reply(say=RESIGNED, refused=True)  # not "not your turn", nor "a bot plays this turn"
        # Set by a switch only: a line typed while its answer is on its way ('help') keeps it.
        if (switching := self._switching(reply)) is not None:
            self._switching_from = switching
            if self.game is not None:
                self._games_of[switching] = self.game  # what it plays, if watched again
        self._seat_to_ask = reply.seat_asked
        self._armed = reply.arm  # a confirmation holds for the next command only
        self._armed_at = self._where_now()
        if reply.show_table:
            return self._table_again()
        words = line.split()
        asked = (
            int(words[1])
            if words and words[0].lower() == "join" and len(words) > 1 and is_number(words[1])
            else None
        )
        stays = self.table is not None and not leaves_by_itself(self._our_view(), self.token is None)
        watched = self.token is None and asked == self.table is not None and self._our_view() is not None
        if reply.refused and (stays or watched) and words[0].lower() in ("join", "watch"):
            # Where we are comes first: from a table, no other can be joined or watched (a game over,
            # or one we watch, is left by itself: what is wrong with the line is what to say); nor
            # a seat taken at the game we watch.
            said = elsewhere(self.table, self.token is None, asked, self._our_view())
            return attrs.evolve(reply, say=said)
        return reply

    def _armed_still(self) -> str | None:
        """The command that confirms the last one, if it still may. A move's confirmation (a theft's
        caution) holds at the turn it was asked at only: typed turns later, after a turn that timed
        out, it would send a theft the player was never warned of in that position. A 'leave' or
        'resign' is the same whatever moves were made meanwhile."""
        if self._armed in ("leave", "resign"):
            return self._armed
        return self._armed if self._where_now() == self._armed_at else None

    def _where_now(self) -> tuple[int | None, int | None]:
        """Our table and its turn: where a confirmation is asked, and holds."""
        return self.table, None if self.view is None else self.view.turn

    def _switching(self, reply: Reply) -> int | None:
        """The live game we watch, if ``reply`` leaves it for another table."""
        view = self._our_view()  # None: its game has not begun
        leaves = len(reply.messages) == 2 and isinstance(reply.messages[0], Leave)
        watching = self.table is not None and self.token is None
        return self.table if leaves and watching and not (view is not None and view.over) else None

    def answered_as_typed(self, line: str) -> str | None:
        """What the full screen answers ``line`` with as it is typed, rather than acting on it once
        the lines typed before it have been: another 'hint' while one is on its way, or typed and
        not yet sent. Acted on in turn, such a line came after the answer, when the server answers
        fast, and sent another for the same position: six typed at once showed three hints alike
        among three "on its way". Else ``None``: ``line`` goes to be acted on as usual."""
        if not _asks_hint(line) or self.connection_down:  # down: not sent, as the client says
            return None
        if self._hint_asked or self._hint_typed:
            return HINT_ON_ITS_WAY
        self._hint_typed = True
        return None

    def sending(self, message: Message) -> None:
        """Note what a message about to go out means for the replies it will get."""
        if isinstance(message, CreateTable):  # before sending: the reply may be read first
            self.open_seats = message.seats - 1 - len(message.bots)
            self._joining = message.game
            self._bots_only = message.seats if len(message.bots) == message.seats else 0
        elif isinstance(message, Join | Watch):
            self._joining = self._games_of.get(message.table)
            self._bots_only = 0
        elif isinstance(message, ListTables):
            self.tables_asked += 1
            self._lists_for.append(self._seat_to_ask)
            self._seat_to_ask = None
        elif isinstance(message, AskHint):
            self._hint_asked, self._hint_typed = True, False

    def why_not(self, message: Message, state: ConnectionState) -> str:
        """Why the protocol will not send ``message`` where we are: it is not sent."""
        if isinstance(message, AskHint):
            self._hint_typed = False
        if self.built_in and isinstance(message, CreateTable) and state is ConnectionState.SEATED:
            return BUILT_IN_NEW.format(table=self.table)
        return why_not(message, state, self.table, self._our_view())

    def _our_view(self) -> TableView | None:
        """The view of the table we are at, once its game has begun (``None`` before: no view yet)."""
        return self.view if self.table is not None and self._view_table == self.table else None

    def completions(self, before: str, text: str) -> list[str]:
        where = None if self.table is None else "watching" if self.token is None else "seated"
        return completions(
            before, text, self.catalog, self.game_ui(), self.view, self.tables_seen, where, self.game
        )

    def bye(self) -> Bye:
        """Our last words: the server's goodbye after them is its answer, not news to show."""
        self.said_bye = True
        return Bye()

    def leaving(self) -> list[str]:
        """On quitting: a seat in a game under way is kept (and we say how to take it back); one at
        a table still waiting is freed by the server, so it is not worth keeping. A seat taken from
        disk that the server has not yet given back (it was stopping, say) stays as it was. The
        built-in server stops with us: its game is lost, and a player told nothing expected it back."""
        if self.built_in and self.token is not None and self.view is not None and not self.game_over:
            return [BUILT_IN_GAME_ENDS.format(table=self.table)]
        if self.seats is None or self.token is None or self.game_over:
            return []
        if self.view is None:
            if self.arrived:  # seated, and no game began: the server frees the seat as we go
                self.drop_seat()
            return []
        if self.unsaved:  # the server holds it for its grace, but no run of ours can take it back
            return [f"your seat at table {self.table} could not be kept on this machine ({self.unsaved})"]
        again = self.command_to_resume()
        if again is None:  # perhaps another run forgot it ('--forget'): no promise the command breaks
            return [f"your seat at table {self.table} is no longer kept on this machine"]
        # The command on a line of its own, to copy whole: wrapped with the words, it broke.
        return [f"your seat at table {self.table} is kept; to take it back, run:", f"  {again}"]

    def command_to_resume(self) -> str | None:
        """The command that takes our seat back, as kept on disk now: the name it has at its table
        (``ann-2`` where another ``ann`` sat: the name given would find the other's seat), and our
        table where that name holds a seat kept after ours (which the name alone takes back). None
        if the seat is not kept."""
        seats = self.seats
        if seats is None or self.token is None or self.kept_as is None or self.table is None:
            return None
        ours = StoredSeat(self.token, self.table)
        kept = seats.seats(self.server, self.kept_as)
        if ours not in kept:
            return None
        again = f"{self.program} {self.server} --name {shlex.quote(self.kept_as)}"
        again += f" --table {self.table}" if kept[-1] != ours else ""
        return again + ("" if self.interactive else " --resume") + self.flags  # a script resumes when asked

    # -- what we hear --------------------------------------------------------------

    def receive(self, message: Message) -> Output:
        """What ``message`` from the server changes, and what to show and ask for because of it."""
        # A hint's answer; or a new connection, or another table: a hint asked at the old one goes unanswered.
        if isinstance(message, Hint | Error | Welcome | Seated | Watching | Left):
            self._hint_asked = self._hint_typed = False
        if isinstance(message, Seated) or (isinstance(message, Error) and message.code in SEAT_NOT_HERE):
            self.seat_unanswered = False  # the seat offered in the hello is ours again, or gone
        self.hold_seat()  # if not yet: a client we took the seat over from may be gone by now
        if isinstance(message, Pong):
            return Output()  # the heartbeat's answer: not news, and not the reply a script waits for
        if isinstance(message, Notice) and message.kind == "timed-out":
            self.turn_ends = None  # a bot plays the rest: no turn's time to count down (until a view)
        if isinstance(message, Notice) and self._about_me(message):
            return Output((self._own_notice(message),))
        if isinstance(message, Notice):
            return Output((notice_line(message),))  # news of the table: not a reply either
        if isinstance(message, Tables) and not self.tables_asked:
            self._note_tables(message.tables)  # news of our waiting table: not the list to complete
            lines = [self._table_line(info) for info in message.tables]  # from, nor a reply
            lines += self._our_seat_named(message.tables) + self._what_we_wait_for(message.tables)
            return Output(tuple(lines))
        self.replies += 1
        return self._answer(message)

    def _answer(self, message: Message) -> Output:
        match message:
            case Welcome(_, server, games):
                self.catalog = Catalog.from_welcome(games)
                self.welcome_heard, self.connection_down = True, False
                if self.token is None and (self.table is not None or self.rewatching is not None):
                    return self._watch_again(server)
                # Only asked for: the server may answer bad-token (a table that had not begun, a
                # game over), and a line claiming "resuming" was then followed by "is gone".
                asking = ""
                if self.token:
                    at = f" at table {self.table}" if self.table is not None else ""
                    asking = f" (asking for your seat{at} back)"
                return Output((f"connected to {server}{asking}",))
            case Tables(tables):
                self.tables_asked -= 1
                asked_for = self._lists_for.popleft() if self._lists_for else None
                tables = tuple(sorted(tables, key=lambda info: info["table"]))  # oldest first
                self._note_tables(tables)
                self.tables_seen = [info["table"] for info in tables]
                # Of the lists asked for only: news of our own table is not what 'join' alone takes.
                self._listed_before_table = False
                self.waiting = [
                    info["table"]
                    for info in tables
                    if not info["started"]
                    and not info["over"]
                    and any(seat["name"] is None and seat["bot"] is None for seat in info["seats"])
                ]
                if asked_for is not None:  # sent for a 'join' of a seat past any table's: say why not
                    return self._no_such_seat(*asked_for, tables)
                lines = [self._table_line(info) for info in tables] + paused_note(tables)
                lines += self._our_seat_named(tables)
                return Output(tuple(lines or ["no tables now: 'new' creates one"]))
            case Seated(table, seat, token):
                self._switching_from = None
                return Output(tuple(self._seated(table, seat, token)))
            case Watching(table):
                self._switching_from = None
                self.table, self.game, self.arrived = table, self._joining, True
                self._view_table = None  # a watcher back after a drop sees the table, not a move alone
                seats, self._bots_only = self._bots_only, 0
                if self.rewatching is not None:
                    self.rewatching = None
                    return Output((f"you are watching table {table} again",))
                if seats:  # 'new' named a bot for every seat: say why we watch rather than play
                    bots = f"bots sit in all {seats} of its seats, as you asked"
                    return Output((f"you are watching table {table}: {bots} (name one fewer to play)",))
                return Output((f"you are watching table {table}",))
            case Left(table) if (
                self.stopped and (self.view is not None or self._back) and self.token is not None
            ):
                # The server could not record the game and stopped it: its seat is kept on disk,
                # for the token resumes it once the server is back. (A game we never saw begin
                # was not recorded at all: nothing to keep. One whose seat we took back was, though
                # the stop held back its first view.)
                return Output(self._keep_stopped_seat(f"table {table} stopped"))
            case Error("game-stopped", _, _):
                # The seat our hello offered is of such a game, and the server has not restarted
                # since: kept as well (it was forgotten as gone, and the game then restored without it).
                # Only a hello offering a token is so answered, and we hold a token only with its table.
                stopped = f"the server stopped your game at table {self.table}, since it could not record it"
                kept = self._keep_stopped_seat(stopped)
                self.seat_stopped = stopped
                return Output(kept, (ListTables(),) if self.interactive else ())
            case Error("other-record", _, _):
                # A server started on another database: the one with ours restores the game (it was
                # forgotten as gone, and every seat of every game with it).
                elsewhere = (
                    f"the server does not keep the record your game at table {self.table} is in "
                    "(was it started on another database?)"
                )
                kept = self._keep_stopped_seat(elsewhere, "once it runs on its own record again")
                self.seat_stopped = elsewhere
                return Output(kept, (ListTables(),) if self.interactive else ())
            case Left(table):
                self.back_to_lobby()
                return Output((f"you left table {table}",))
            case Error("not-recorded", text, _):
                self.stopped = True
                return Output((f"the server stopped your game: {text}",))
            case State(table, view, events):
                before = self.view
                shown = self._state(table, view, events)
                read = self.view is not before  # a view this client could not read changes nothing
                over = read and view["result"] is not None
                if read:
                    shown = shown.adding(self._known_as(table))
                return shown.adding(end_summary(view)) if over else shown
            case Hint(text, actions, data):
                return Output((self._hint(text, actions, data),))
            case Error("bad-token", refusal, _):
                gone = f" at table {self.table}" if self.table is not None else ""
                self.back_to_lobby()
                ended = refusal.partition(f": {GAME_ENDED}")[2]  # the server still knew how it ended
                why = (
                    f": its game is over, {ended}"
                    if ended
                    else " (its game is over, or had not begun: a seat is kept only once the game starts)"
                )
                line = f"your seat{gone} is gone{why}; you are in the lobby"
                # as on arriving without a seat: show a person what could be joined
                return Output((line,), (ListTables(),) if self.interactive else ())
            case Error("shutting-down", _, _):
                self.shutting_down = True  # what it means, the client says as it reconnects
                return Output()
            case Error("connecting-too-fast", text, _):
                self.too_fast = text  # what it means, the client says as it tries again
                return Output()
            case Goodbye(reason) if self.shutting_down or self.too_fast:
                self.goodbye = reason
                return Output()
            case Error("resumed-elsewhere", text, _):
                # The seat is the other connection's now, and so is its token on disk: nothing of
                # it is ours to keep, drop or speak of on leaving.
                self.let_seat_go()
                self.token = None
                return Output((text,))
            case Error("turn-time", text, _):
                return Output((text,))  # news of our turn, not the refusal of anything we sent
            case Error(code, text, _) if self.rewatching is not None and code in WATCH_REFUSALS:
                # The answer to watching again the table we watched: it is gone, or may not be watched.
                table, self.rewatching = self.rewatching, None
                why = "is gone" if code == "no-such-table" else f"could not be watched again ({text})"
                line = f"table {table} {why}, so you are not watching it: you are in the lobby"
                # as on arriving without a seat: show a person what could be joined
                return Output((line,), (ListTables(),) if self.interactive else ())
            case Error(code, text, rule):
                self.open_seats = 0  # perhaps the table we asked for: no seat waits now
                self._refused = text
                # The code is for a script to match; a person reads the words (two play-testers
                # took "[opening-short]" for debugging output left in).
                said = "" if self.interactive else f" [{rule or code}]"
                refused = Output((f"refused: {text}{said}",))
                came_from, self._switching_from = self._switching_from, None
                if came_from is None or self.table is not None:  # not left yet: the leave was refused
                    return refused
                # Left for another table that was refused: back to the game we watched, as if the
                # connection had dropped (it may have ended meanwhile: then we stay in the lobby).
                self.rewatching = came_from
                return Output(refused.lines, (Watch(came_from),))
            case Goodbye(reason):
                self.goodbye = reason
                if reason == self._refused or (self.said_bye and reason == BYE):  # said, or answers ours
                    return Output()
                return Output((f"server says goodbye: {reason}",))
        return Output()

    def _watch_again(self, server: str) -> Output:
        """Welcomed again after we watched a table (or were asking to watch it again): a watcher
        holds no seat for the hello to take back, so the table is asked for by a ``watch``, as the
        user would; a game of bots alone is kept after a restart only for a watcher to come back to
        it. A game that was over is not: that table goes once nobody is at it."""
        watched = self.table if self.table is not None else self.rewatching
        assert watched is not None
        over = self.table is not None and self.game_over
        if self.table is not None and self.game is not None:  # the game it plays, for 'watching'
            self._games_of[watched] = self.game
        self.back_to_lobby()
        if over:
            self.rewatching = None
            ended = f"the game you watched at table {watched} is over"
            return Output((f"connected to {server}; you are in the lobby ({ended})",))
        self.rewatching = watched
        return Output((f"connected to {server} (watching table {watched} again)",), (Watch(watched),))

    def _about_me(self, notice: Notice) -> bool:
        """A notice of our own autopilot or resignation, of the bot that plays our seat since we
        resigned, or of our coming back to a seat a bot played, which we are told in our own words
        (not "a bot plays for ann", to ann)."""
        view = self.view
        mine = view is not None and notice.table == self.table and notice.seat == view.seat
        news = (notice.kind == "stand-in" and self.resigned) or notice.kind == "returned"
        return mine and (notice.kind in OWN_NOTICES or news)

    def _own_notice(self, notice: Notice) -> str:
        if notice.kind == "stand-in":  # news that follows our resignation, not an answer
            return RESIGNED_STAND_IN
        if notice.kind == "returned":  # news, not an answer: the bot played for us while we were away
            return BACK
        self.replies += 1  # the answer to our own 'auto on', 'auto off' or 'resign'
        if notice.kind == "resigned":
            self.resigned = True
        on = notice.kind == "autopilot-on"
        if notice.kind in ("autopilot-on", "autopilot-off"):
            was, self._autopilot = self._autopilot, on
            if was == on:  # asked for what already was: nothing changed
                return AUTOPILOT_ALREADY[on]
        return OWN_NOTICES[notice.kind]

    def _seated(self, table: int, seat: int, token: str) -> list[str]:
        self.table, self.token, self.arrived = table, token, True
        self.hold_seat()  # before the game begins too: a seat at a table waiting is resumed as well
        self._seat, self._seat_name, self._view_table = seat, None, None
        self._autopilot = False  # a new seat, or one resumed: the server says again if it is on
        self._back = self.kept_as is not None
        self.game = self._joining or self.game
        problem = None
        if self.kept_as is None:  # a new seat (one resumed is kept already), on disk before we say so
            # Not over a seat kept under our name at this table: another client of ours, named as we
            # asked, holds it, and ours has another name here ('ann-2'), which its first view says.
            other = None if self.seats is None else self.seats.get(self.server, self.name, table)
            if other is None or other.token == token:
                problem = self.unsaved = self.keep_seat(self.name)
        lines = [f"you sit at table {table}, seat {seat + 1}"]  # numbered from 1, as people count
        if problem:
            lines.append(f"(your seat will not be resumed after a restart: {problem})")
        if self.open_seats > 0:
            lines += _waiting_for(self.open_seats, table, None, self.game_ui())
        self._joined = table if self.open_seats <= 0 else None  # a table's news follows if it waits
        self.open_seats = 0
        return lines

    def _state(self, table: int, raw: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Output:
        catalog = self.catalog or Catalog(())
        ui = catalog.ui(raw["game"])
        try:
            view = read_view(raw, ui)
        except GameDataError as error:
            return Output((f"the server sent a table this client cannot read ({error}); nothing changed",))
        # The view this one follows, at this table since we sat or came back (a resume repeats the
        # last move, which alone would not show the table).
        before = self.view if self._view_table == table else None
        if before is None and self.waiting:  # a game under way here: the last list is old by its end
            self._listed_before_table, self.waiting = True, []
        self.view, self.game, self._view_table = view, view.game, table
        self._joined = None  # the game has begun: nothing to wait for
        self.turn_ends = None if view.turn_left is None or view.over else self.clock() + view.turn_left
        self.game_over = view.over
        if self.game_over and view.seat is not None:
            self.drop_seat()  # nothing left to resume
        kept = self._kept_by_name_here(view)
        width = self.layout_width() or LAYOUT_WIDTH
        text = ui.state_text(table, view, events, self.colour, width)
        bare = ui.state_text(table, view, (), self.colour, width)
        above = bool(events) and text.endswith("\n" + bare)  # a UI writes the events above the table
        if not events:
            happened: tuple[str, ...] = ()
        elif above:  # what is before the table
            happened = tuple(text[: -len(bare) - 1].split("\n"))
        else:  # a UI that lays its text out otherwise: the server's own words for the events
            happened = tuple(f"  {event['text']}" for event in events if event.get("text"))
        away, taken_over = view.away, False
        if self.taking_over and before is None:  # the first view since: a later drop is a drop again
            self.taking_over = False
            if away:  # (not "while you were away": it was played, on the other client)
                away, taken_over, happened = 0, True, (TAKEN_OVER, *happened)
                text = "\n".join([*happened, bare]) if above else text
        # Back from a drop, every move of our seat in what we missed was a bot's; shown again, the
        # last move is marked as it was live, where the server says a bot made it for us.
        played_for_us = bool(away) or _played_for_us(before, view)
        played_for_us |= view.played_for is not None and view.played_for == view.seat
        ours_to_a_bot = bot_plays_our_turn(view)
        if played_for_us or ours_to_a_bot:
            happened = tuple(_played_for_you(line) for line in happened) if played_for_us else happened
            happened = tuple(_bot_turn(line) for line in happened) if ours_to_a_bot else happened
            happened = (while_away(away), *_turns_a_bot_played(happened)) if away else happened
            text = "\n".join([*happened, bare]) if above else text
        back, self._back = self._back and before is None and not taken_over, False
        if before is None and not back and happened and view.seat is not None and view.turn == 1 and above:
            # A play-test's creator, whose table filled as a friend joined, read only 'bob joined the
            # table' and 'you play first', and typed 'start' into a game already begun.
            happened = (GAME_BEGINS, *happened)
            text = "\n".join([*happened, bare])
        if back and happened and not away:
            # A play-tester back after a drop read the move they had made before it as a new one.
            happened = (LAST_MOVE, *happened)
            text = "\n".join([*happened, bare]) if above else text
        table_text = bare if self.colour else ui.state_text(table, view, (), True, width)
        if happened and not away and _within_a_bots_turn(before, view):
            shown: tuple[str, ...] = happened
        elif view.result is not None and above:
            # The end: the table's last line says the result (and the summary your place), so the
            # event that said it too is not printed a line above (the full screen's log keeps it).
            said = view.result.text
            shown = ("\n".join([*(line for line in happened if not _says(plain(line).strip(), said)), bare]),)
        elif not happened and before is not None and self._table_shown == (table, bare):
            shown = ()  # the table as line mode printed it last, with nothing new: seen twice on coming back
        else:
            shown = (text,)
        if shown and plain(shown[-1]).endswith(plain(bare)):
            self._table_shown = (table, bare)
        ended = view.result.text if view.result is not None else None
        moves = tuple(line for line in happened if ended is None or not _says(plain(line).strip(), ended))
        # In the full screen's log, the moves under a heading (the last move, those made while we
        # were away, the game's first) end with an empty line: the moves that follow at once were
        # read as its too. Not set in further: a play-tester read 4 columns there and 2 everywhere
        # else, the same lines in plain mode included (where the table printed after them ends them).
        headed = bool(happened) and happened[0] in (LAST_MOVE, GAME_BEGINS, TAKEN_OVER, while_away(away))
        logged = (*happened, "") if headed else happened
        output = Output(shown, log=logged, table=table_text, moves=moves)
        if view.turn_seconds and self._told_turn_time != table and not view.over:
            self._told_turn_time = table  # once a table: the status line keeps showing it
            output = output.adding(
                [f"each turn here has {view.turn_seconds} s: past it, a bot plays the rest of it"]
            )
        left = view.turn_left
        if before is None and left is not None and left < view.turn_seconds and view.current == view.seat:
            # Back at our seat mid-turn: the time ran on while we were away (a play-test came back
            # with 5 s left, told nothing, and was timed out).
            said = f"has {left} s left: past it," if left else "has no time left:"
            output = output.adding([f"your turn {said} a bot plays the rest of it"])
        return output.adding(kept)

    def _kept_by_name_here(self, view: TableView) -> list[str]:
        """Keep our seat under the name it has at its table, now that a view says it: the name run
        again resumes it by. Why not, if it could not be kept (a line to show)."""
        if self.token is None or view.seat is None or view.over or self.unsaved or self.seats is None:
            return []
        held = view.names[view.seat]
        if self.kept_as is not None and self.kept_as.lower() == held.lower():
            # Another client of ours, named as we asked, may have written over our entry as we both
            # sat (it then moves to its own name here, 'ann-2'): ours is put back, at the next view.
            stored = self.seats.get(self.server, held, self.table)
            if stored is not None and stored.token == self.token:
                return []
        problem = self.unsaved = self.keep_seat(held)
        return [f"(your seat will not be resumed after a restart: {problem})"] if problem else []

    @property
    def autopilot(self) -> bool:
        """Is our seat on autopilot, as the server's notices to us said? Not once we resigned: the
        bot then plays as our stand-in, and 'auto off' is refused."""
        return self._autopilot and not self.resigned

    def known_as(self) -> str:
        """The name we play under at our table: ours, or the one the server gave us there (``ann-2``,
        where another player had ours); the full screen's status line shows it."""
        view = self.view
        if view is not None and view.seat is not None and view.seat < len(view.names):
            return view.names[view.seat]
        return self._seat_name or self.name

    def _our_seat_named(self, tables: Sequence[Mapping[str, Any]]) -> list[str]:
        """Our seat's name, as a list of tables says it: told as we sit, not when the game begins."""
        ours = [info for info in tables if info["table"] == self.table]
        if not ours or self._seat is None or self._seat >= len(ours[0]["seats"]):
            return []
        self._seat_name = ours[0]["seats"][self._seat]["name"]
        return self._known_as(ours[0]["table"])

    def _what_we_wait_for(self, tables: Sequence[Mapping[str, Any]]) -> list[str]:
        """Once, as the table we joined first shows its seats: what begins its game. A play-tester who
        joined was told only where they sat, and typed a move before the game had begun; told from
        the list seen before joining, it could be out of date (a seat taken since, by our join the last)."""
        ours = [info for info in tables if info["table"] == self._joined and self._joined == self.table]
        if not ours or self._seat is None or ours[0]["started"] or ours[0]["over"]:
            return []
        self._joined = None
        info, seat = ours[0], self._seat
        free = sum(1 for index, other in enumerate(info["seats"]) if other["name"] is None and index != seat)
        people = [
            other["name"]
            for index, other in enumerate(info["seats"])
            if other["name"] is not None and other["bot"] is None and index != seat
        ]
        # The first still seated may start it (its creator, or who took over as they left); with
        # nobody else seated, our join made the table ours.
        return _waiting_for(free, info["table"], people[0] if people else None, self.game_ui())

    def _known_as(self, table: int) -> list[str]:
        """Say once, at a table where our seat has another name than ours, which one: the others
        name us by it (Notty's 'steal ann-2'). The server numbers a name another player there has;
        a seat resumed from disk keeps the name it was taken under."""
        name = self.known_as()
        if name == self.name or self._told_known_as == (table, name) or self.game_over:
            return []
        self._told_known_as = (table, name)
        return [f"you play as '{name}' at this table: the others know your seat by that name"]

    def table_text(self, colour: bool = True) -> str | None:
        """The table as it stands, laid out for the terminal's width now (the full screen draws it
        again after a resize, in colour: it reads the codes); ``None`` away from a table's game."""
        if self.view is None or self.table is None:
            return None
        ui = (self.catalog or Catalog(())).ui(self.view.game)
        return ui.state_text(self.table, self.view, (), colour, self.layout_width() or LAYOUT_WIDTH)

    def _table_again(self) -> Reply:
        """``table``: line mode prints the table at each turn and move, and it scrolls away."""
        if self.table is None:
            lobby = "you are not at a table: 'tables' lists them, 'join TABLE' takes a seat"
            return Reply(say=lobby, refused=True)
        drawn = self.table_text(self.colour) if self._view_table == self.table else None
        if drawn is None:
            return Reply(say=f"the game at table {self.table} has not begun: its table shows when it starts")
        if self.table_pane and not self.table_clipped:
            return Reply(say="the table is at the top of the screen; it is drawn again at each move")
        if self.table_pane:  # a play-test at 40x12 was told the table was there, its groups hidden
            return Reply(say=f"{TABLE_INTO_LOG}\n{drawn}")
        return Reply(say=drawn)

    def _hint(self, text: str, actions: Sequence[str], data: Any) -> str:
        view = self._our_view()
        if view is not None and view.seat is None and 0 <= view.current < len(view.names):
            # A watcher's: for the hand to play (the server answers for the position as it is, or not at
            # all); a card to put back is named, but nothing is for a watcher to type.
            lines = self._hint_lines(text, actions, data).split("\n")
            shown = "\n".join(line for line in lines if not plain(line).lstrip().startswith("type: "))
            return f"for {view.names[view.current]}, whose turn it is:\n" + shown
        return self._hint_lines(text, actions, data)

    def _hint_lines(self, text: str, actions: Sequence[str], data: Any) -> str:
        ui = self.game_ui()
        if ui is None:
            return plain_hint(text, actions)
        try:
            return ui.hint_text(text, actions, data, self.colour)
        except GameDataError as error:
            return f"the server sent a hint this client cannot read ({error})"

    def _no_such_seat(self, table: int, seat: int, tables: Sequence[Mapping[str, Any]]) -> Output:
        """'join TABLE SEAT' of a seat no table has, at a table no list had shown: refused, now that
        the list says how many seats it has (it said "no table has more than 8" of a table of 3)."""
        count = next((len(info["seats"]) for info in tables if info["table"] == table), None)
        why = no_seat(seat, table, count)
        if count is None:
            why = (
                f"there is no seat {seat} at table {table}: the server lists no table {table} "
                "('tables' shows its list)"
            )
        return Output((why,), refused=why)

    def _note_tables(self, tables: Sequence[Mapping[str, Any]]) -> None:
        self._games_of.update((info["table"], info["game"]) for info in tables)
        self._seats_of.update((info["table"], len(info["seats"])) for info in tables)
        spared = {info["table"] for info in tables} | {self.table, self.rewatching, self._switching_from}
        for known in (self._games_of, self._seats_of):  # a long session sees tables come and go:
            gone = sorted(number for number in known if number not in spared)  # the oldest of the rest go
            for number in gone[: max(0, len(known) - TABLES_REMEMBERED)]:
                del known[number]
        # (only the tables of this list and ours: a table listed once and gone is not kept for ever)
        keep = {number: info for number, info in self._listed.items() if number == self.table}
        self._listed = keep | {info["table"]: info for info in tables}

    def _which_to_join(self) -> str:
        """Why a bare ``join`` names no table: none or several in the last list wait for players."""
        if self._listed_before_table:
            return "usage: join TABLE [SEAT]: a game went by since the last list ('tables' lists them now)"
        if not self.waiting:
            return "usage: join TABLE [SEAT]: no table listed last waits for players ('tables' lists them)"
        numbers = [str(table) for table in self.waiting]
        tables = ", ".join(numbers[:-1]) + f" and {numbers[-1]}"
        if len(numbers) > 3:
            commands = f"'join' and its number ('join {numbers[0]}')"
        else:
            commands = ", ".join(f"'join {number}'" for number in numbers[:-1]) + f" or 'join {numbers[-1]}'"
        return f"join which table? {tables} wait for players: type {commands}"

    def _table_line(self, info: Mapping[str, Any]) -> str:
        return table_line(info, self.catalog or Catalog(()), self.table)

    # -- where we are ----------------------------------------------------------------

    def game_ui(self) -> GameUI | None:
        """The UI of the game at our table, once we know which game that is."""
        if self.game is None or self.catalog is None:
            return None
        return self.catalog.ui(self.game)

    def my_turn(self) -> bool:
        view = self.view
        return (
            view is not None
            and not view.over
            and view.seat is not None
            and view.current == view.seat
            and bool(view.legal)
        )

    def no_turn_to_come(self) -> str | None:
        """Why no turn of ours will come at our table, if none will: the game is over, or we resigned
        (a bot plays our seat). A script's game action is refused then, not held for it."""
        if self.game_over:
            return GAME_OVER
        return RESIGNED if self.resigned else None

    def waiting_for_turn(self) -> bool:
        """Do we hold a seat, not given up, in a game under way, at someone else's turn?"""
        view = self.view
        playing = view is not None and view.seat is not None and not view.over and not self.resigned
        return playing and not self.my_turn()

    def waits_for_turn(self, message: Message) -> bool:
        """Does a script wait for its turn before sending ``message``, though it is no game action? A
        hint does: it is advice for one's own turn, and some games (huxxy, Ochos Locos) give it only
        then, so a hint asked at once would be lost to 'it is not your turn'."""
        return isinstance(message, AskHint) and not self.interactive and self.waiting_for_turn()

    def keep_seat(self, name: str) -> str | None:
        """Save our seat for the next run under ``name`` (moved there from the name it was kept
        under, if another); why not, if it could not be saved."""
        if self.seats is None or self.token is None or self.table is None:
            return None
        problem = self.seats.put(self.server, name, StoredSeat(self.token, self.table))
        if problem is None:
            if self.kept_as is not None and self.kept_as.lower() != name.lower():
                self.seats.forget(self.server, self.kept_as, self.token)
            self.kept_as = name
        return problem

    def _keep_stopped_seat(self, stopped: str, when: str = "once the server is back") -> tuple[str, ...]:
        """Our table's game is not here now (stopped unrecorded, or in another record): leave it
        for the lobby, its seat kept on disk (the server ``when`` restores the game), and say how to
        take it back then."""
        command = self.command_to_resume()
        self.let_seat_go()  # kept, but no longer played here: a client run again may take it
        self.token = None
        self.back_to_lobby()
        if command is None:
            return (f"{stopped}: the server keeps its game, but this machine could not keep your seat",)
        return (f"{stopped}; {when}, resume it with:", f"  {command}")

    def drop_seat(self) -> None:
        self.let_seat_go()
        if self.seats is not None and self.token is not None and self.kept_as is not None:
            self.seats.forget(self.server, self.kept_as, self.token)

    def hold_seat(self) -> None:
        """Mark our seat as played by this client, so that another of this user's does not take it
        over unasked (client.tokens.SeatLocks): once seated, and until that holds (a client we took
        the seat over from still going), again at each message."""
        if self.seats is None or self.token is None or self._holding == self.token or self.game_over:
            return  # (a game over is forgotten: no file is left behind for it)
        if self._holding is not None:  # another seat's, before: no longer ours
            self.let_seat_go()
        if self.seats.locks.hold(self.server, self.token) is not False:  # held, or cannot be here
            self._holding = self.token

    def let_seat_go(self) -> None:
        """Our seat is no longer played here (given up, over, or another connection's now)."""
        if self.seats is not None and self._holding is not None:
            self.seats.locks.release(self.server, self._holding)
        self._holding = None

    def turn_time_left(self) -> int | None:
        """Whole seconds left of the timed turn under way, as last told; None where none is timed."""
        if self.turn_ends is None or self.view is None or self.view.over:
            return None
        return max(0, math.ceil(self.turn_ends - self.clock()))

    def back_to_lobby(self) -> None:
        """No table any more: nothing to resume, nothing to show, no game whose end stops a script."""
        self.drop_seat()
        self.table, self.token, self.view, self.game, self._joining = None, None, None, None, None
        self.arrived, self.unsaved, self.kept_as = False, None, None
        self.game_over = False  # else a script's moves at its next table are dropped as too late
        self.open_seats = 0
        self.stopped = False
        self.seat_stopped = None
        self.resigned = False
        self._autopilot = False  # the seat it was on is not ours any more
        self._seat = self._seat_name = None
        self._hint_asked = False  # the server answers no hint asked at a table we left


#: What each kind of notice says, by the name of the player it is about (and its seconds).
_NOTICES = {
    "joined": "{name} joined the table",
    "left": "{name} left the table",
    "dropped": "{name} dropped; their seat is held for {seconds} s",
    "returned": "{name} is back",
    "stand-in": "a bot plays for {name}",
    "timed-out": "{name}'s turn ran out of time ({seconds} s): a bot plays the rest of it",
}


def _asks_hint(line: str) -> bool:
    return [word.lower() for word in line.split()] == ["hint"]


def notice_line(notice: Notice) -> str:
    """A notice in one line, in this client's words for the kinds it knows, else the server's; the
    server's too where they begin with ours and say more ("ann left the table; bob may now start
    it early")."""
    wording = _NOTICES.get(notice.kind)
    if wording is None or ("{seconds}" in wording and notice.seconds is None):
        return notice.text
    ours = wording.format(name=notice.name, seconds=notice.seconds)
    return notice.text if notice.text.startswith(ours) else ours


#: Tables whose game and size the client remembers from lists gone by (for 'join N' or 'watch N' of a
#: table the last list did not show): past it the oldest (lowest-numbered) no list shows now are
#: forgotten, so a session of days holds no more than the server's tables and these.
TABLES_REMEMBERED = 256


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def end_summary(raw: Mapping[str, Any]) -> list[str]:
    """What a finished game's last view adds to its game-over line, which says how the game ended
    (in the game's words, under the table): your place, how many turns and how long it took, and
    the id to replay it by (from a server that says them). The result is said there, not again.

    Your place is a win, a loss or a first place shared, or (where the ranking has more places than a
    winner and the rest) the place itself; a game with no winner at all (every seat ranked alike) and
    a spectator's are told only that the game ended."""
    result = raw["result"]
    ranking, seat = result["ranking"], raw["seat"]
    first = tuple(ranking[0]) if ranking else ()
    if seat is None or (len(ranking) <= 1 and len(first) != 1):  # watched, or no winner
        how = "the game ended"
    elif first == (seat,):
        how = "you won"
    elif seat in first:
        how = "you shared first place"
    elif len(ranking) > 2 and any(seat in tied for tied in ranking):  # more places than a winner and
        at = next(index for index, tied in enumerate(ranking) if seat in tied)  # the rest (huxxy's points)
        above = sum(len(tied) for tied in ranking[:at])  # places as people count them: 1, 2, 2, 4
        nth = ORDINALS[above] if above < len(ORDINALS) else f"{above + 1}th"
        seats = sum(len(tied) for tied in ranking)
        how = f"you shared {nth} place" if len(ranking[at]) > 1 else f"you came {nth} of {seats}"
    else:
        how = "you lost"
    turns = f"{raw['turn']} turn{'s' if raw['turn'] != 1 else ''}"
    took = f", in {duration(result['seconds'])}" if "seconds" in result else ""
    lines = [f"{how} after {turns}{took}"]
    if "game_id" in result:
        game = result["game_id"]
        replay = f"'notty-server replay {game}' replays it"
        lines.append(f"this was game {game} of the server's record: on its machine, {replay}")
    return lines


def duration(seconds: int) -> str:
    """``52 s``, ``4 min 12 s``, ``1 h 3 min``: as a person says how long a game took."""
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def read_view(raw: Mapping[str, Any], ui: GameUI) -> TableView:
    """A view's envelope (its shape checked by the protocol) with every seat it names at the table,
    and its body as ``ui`` reads it; :class:`GameDataError` if either is not so."""
    names = tuple(raw["names"])
    result = raw["result"]
    ranking = tuple(tuple(place) for place in result["ranking"]) if result is not None else ()
    seats = [raw["current"], *([] if raw["seat"] is None else [raw["seat"]])]
    seats += [seat for place in ranking for seat in place]
    bots = frozenset(raw.get("bots", ()))  # optional: the seats a bot plays now
    kept = frozenset(raw.get("kept", ()))  # and those a person holds, there or away
    seats += bots | kept
    seats += [] if raw.get("played_for") is None else [raw["played_for"]]
    if not names or any(seat >= len(names) for seat in seats):
        raise GameDataError(f"view: a seat beyond the {len(names)} players")
    return TableView(
        game=raw["game"],
        variant=raw["variant"],
        names=names,
        seat=raw["seat"],
        current=raw["current"],
        turn=raw["turn"],
        legal=tuple(raw["legal"]),
        result=None if result is None else Outcome(ranking, result["reason"], result["text"]),
        body=ui.read_body(raw["body"], names),
        bots=bots,
        kept=kept,
        bot_turn=raw.get("bot_turn", raw["current"] in bots and result is None),  # older servers: bots'
        turn_seconds=raw.get("turn_seconds", 0),
        away=raw.get("away", 0),
        turn_left=raw.get("turn_left"),
        played_for=raw.get("played_for"),
    )


#: Marks a move a bot made on our seat, for us: our 'auto', autopilot, or a time run out.
PLAYED_FOR_YOU = "(played for you)"


def _played_for_us(before: TableView | None, view: TableView) -> bool:
    """Are ``view``'s events a move made on our seat by a bot? They follow ``before``, in which it
    was our seat's turn, and a bot's to play (the server says so before its first move)."""
    return (
        before is not None
        and (before.game, before.names) == (view.game, view.names)
        and bot_plays_our_turn(before)
    )


def _waiting_for(free: int, table: int, starter: str | None, ui: GameUI | None) -> list[str]:
    """What begins the game of a table still waiting: ``free`` seats taken, or a 'start' (ours, or
    ``starter``'s). Nothing where no seat is free (the game's first view follows)."""
    if free <= 0:
        return []
    others = "1 more player" if free == 1 else f"{free} more players"
    bots = f"{ui.filler_bot} bots" if ui is not None and ui.filler_bot else "bots"
    if starter is None:
        then = f"'start' begins now, with {bots} in the empty seats"
        return [f"waiting for {others}: they type 'join {table}'; {then}"]
    return [f"waiting for {others}, or for {starter} to 'start' (with {bots} in the empty seats)"]


def while_away(moves: int) -> str:
    """What heads the moves made while we were away (``moves`` of them; the server sends the last
    :data:`protocol.AWAY_MOVES` at most). Not their number: a move can take several lines (a huxxy
    'play' of six cards), and a game's news (a turn limit set for a stand-in) counts as one."""
    return (
        "while you were away (the earliest moves are left out):"
        if moves > AWAY_MOVES
        else "while you were away:"
    )


def _turns_a_bot_played(lines: Sequence[str]) -> list[str]:
    """The moves made while we were away, each turn handed to our seat that a bot then played (a
    move of ours follows it: none of them was ours) worded as live, "...; a bot plays your turn"."""
    ours = [index for index, line in enumerate(lines) if plain(line).lstrip(" ").startswith("you ")]
    return [_bot_turn(line) if ours and ours[-1] > index else line for index, line in enumerate(lines)]


def _played_for_you(line: str) -> str:
    """A line of a move a bot made on our seat, marked so where the server words the move as ours
    ("you draw 1 card: R3 (played for you)"); the mark goes with the move, before what follows it
    ("you end the turn (played for you); bob to play"). Any other line is left as it is."""
    if not plain(line).lstrip(" ").startswith("you "):
        return line
    move, semicolon, after = line.partition("; ")
    return f"{move} {PLAYED_FOR_YOU}{semicolon}{after}"


def _bot_turn(line: str) -> str:
    """A turn's end that hands the turn to our seat, when a bot is to play it: not "your turn" to a
    player who resigned or is on autopilot, under the status that says a bot plays it."""
    return (
        line.removesuffix("; your turn") + f"; {BOT_PLAYS_YOUR_TURN}"
        if line.endswith("; your turn")
        else line
    )


def _says(line: str, result: str) -> bool:
    """Does an event's ``line`` say the game's ``result``: the same words, or those before a note
    the server added ("ann wins by discarding their last cards (bob resigned, so ranked last)"; "ann
    wins; but bob and cy share first place (ann resigned, ...)", where a bot went out for ann)?"""
    return line == result or result.startswith((f"{line} (", f"{line}; but "))


def _within_a_bots_turn(before: TableView | None, view: TableView) -> bool:
    """Is ``view`` a move within a turn already under way, made by a bot (a person's too: 'auto',
    autopilot, a time run out)? Line mode shows such a move as its line alone: a huxxy bot's six
    plays printed the whole table six times, seconds apart. The table comes again as each turn
    begins, whenever we may act, and at the end; a person's own moves each show it, since the
    others follow that turn as it is played."""
    return (
        before is not None
        and (before.game, before.names, before.turn) == (view.game, view.names, view.turn)
        and not view.legal
        and not view.over
        and view.bot_turn
    )
