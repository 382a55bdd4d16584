"""The full-screen client's input line, without a terminal: keys in, the line and its cursor out."""

from __future__ import annotations

import pytest
from test_client_session import notty_view, welcomed

from client.editor import HISTORY_LINES, SEQUENCES, Effect, EscapeReader, LineEditor, RawKey, common_prefix
from client.session import Session
from protocol import Seated, State


def typed(text: str, editor: LineEditor | None = None) -> LineEditor:
    editor = editor or LineEditor()
    for char in text:
        editor.press(char)
    return editor


def shown(editor: LineEditor) -> str:
    """The line with the cursor as ``|``."""
    return editor.text[: editor.cursor] + "|" + editor.text[editor.cursor :]


def test_typing_and_moving_the_cursor() -> None:
    editor = typed("draw 2")
    assert shown(editor) == "draw 2|"
    for key, after in [
        ("left", "draw |2"),
        ("backspace", "draw|2"),
        ("3", "draw3|2"),
        ("home", "|draw32"),
        ("left", "|draw32"),  # nothing before the start
        ("delete", "|raw32"),
        ("backspace", "|raw32"),  # nothing to delete before the start
        ("end", "raw32|"),
        ("right", "raw32|"),  # nor after the end
        ("delete", "raw32|"),
        ("ctrl-a", "|raw32"),
        ("right", "r|aw32"),
        ("ctrl-e", "raw32|"),
        ("\x00", "raw32|"),  # not a key, nor printable: nothing
        ("pagedown", "raw32|"),
    ]:
        assert editor.press(key) == Effect(), key
        assert shown(editor) == after, key


def test_ctrl_u_deletes_to_the_start_and_ctrl_w_a_word_back() -> None:
    editor = typed("discard R3 R4  R5")
    editor.press("ctrl-w")
    assert shown(editor) == "discard R3 R4  |"
    editor.press("ctrl-w")  # the spaces and the word before them
    assert shown(editor) == "discard R3 |"
    for _ in range(2):
        editor.press("left")
    editor.press("ctrl-w")  # mid-word: what is before the cursor, back to the space
    assert shown(editor) == "discard |3 "
    editor.press("ctrl-u")
    assert shown(editor) == "|3 "


def test_enter_gives_the_line_and_keeps_it_in_the_history() -> None:
    editor = typed("draw 1")
    assert editor.press("enter") == Effect(line="draw 1")
    assert shown(editor) == "|"
    assert editor.press("enter") == Effect(line="")  # an empty line is entered, not kept
    typed("draw 1", editor).press("enter")  # the same again is kept once
    typed("end", editor).press("enter")
    assert editor.history == ["draw 1", "end"]


def test_up_and_down_walk_the_history_and_come_back_to_the_line_being_typed() -> None:
    editor = LineEditor()
    for line in ("tables", "new 3", "hint"):
        typed(line, editor).press("enter")
    typed("dra", editor)
    editor.press("up")
    assert shown(editor) == "hint|"
    editor.press("up")
    editor.press("up")
    assert shown(editor) == "tables|"
    editor.press("up")  # the oldest: stays
    assert shown(editor) == "tables|"
    editor.press("down")
    assert shown(editor) == "new 3|"
    editor.press("down")
    editor.press("down")
    assert shown(editor) == "dra|"  # the draft is back
    editor.press("down")
    assert shown(editor) == "dra|"
    editor.press("up")
    editor.press("backspace")
    assert editor.press("enter") == Effect(line="hin")  # a recalled line edited is a new line
    assert editor.history == ["tables", "new 3", "hint", "hin"]


def test_the_history_keeps_the_newest_lines_only() -> None:
    editor = LineEditor()
    for number in range(HISTORY_LINES + 5):
        typed(f"say{number}", editor).press("enter")
    assert len(editor.history) == HISTORY_LINES
    assert editor.history[0] == "say5" and editor.history[-1] == f"say{HISTORY_LINES + 4}"


def test_ctrl_d_ends_the_input_on_an_empty_line_only() -> None:
    editor = typed("ab")
    editor.press("home")
    assert editor.press("ctrl-d") == Effect()  # deletes under the cursor
    assert shown(editor) == "|b"
    editor.press("delete")
    assert editor.press("ctrl-d") == Effect(end=True)


def _session_at_a_table() -> Session:
    session = welcomed()
    session.receive(Seated(3, 0, "t" * 40))
    legal = ["discard R1 R3 B2", "draw 1", "steal 1", "end"]  # our turn (B2 stands in, as a card of it)
    session.receive(
        State(3, notty_view(current=0, legal=legal, body={"hands": [["R3", "R1", "B2"], ["Y5"]]}), ())
    )
    return session


def test_tab_completes_a_command_with_a_space_after_it() -> None:
    editor = typed("disc", LineEditor(_session_at_a_table().completions))
    assert editor.press("tab") == Effect()
    assert shown(editor) == "discard |"


def test_tab_completes_as_far_as_the_options_agree_and_lists_them_in_the_games_order() -> None:
    editor = typed("discard ", LineEditor(_session_at_a_table().completions))
    assert editor.press("tab") == Effect(options=("R1", "R3", "B2"))  # the hand's order, not sorted
    assert shown(editor) == "discard |"
    typed("r", editor)
    assert editor.press("tab") == Effect(options=("R1", "R3"))
    assert shown(editor) == "discard R|"  # as the options spell it
    typed("3", editor)
    editor.press("tab")
    assert shown(editor) == "discard R3 |"
    assert editor.press("tab") == Effect(options=("R1", "B2"))  # the next card: R3 is typed, and held once


def test_tab_completes_the_word_at_the_cursor_mid_line() -> None:
    editor = typed("ste bob", LineEditor(_session_at_a_table().completions))
    for _ in range(4):
        editor.press("left")
    editor.press("tab")
    assert shown(editor) == "steal |bob"
    no_options = typed("zz", LineEditor(lambda before, text: []))
    assert no_options.press("tab") == Effect() and shown(no_options) == "zz|"
    assert typed("x", LineEditor()).press("tab") == Effect()  # no completer: nothing


@pytest.mark.parametrize(("line", "cursor", "completed"), [("ste", 3, "steal "), ("ste bob", 3, "steal")])
def test_line_mode_completes_a_word_mid_line_with_no_second_space(
    monkeypatch: pytest.MonkeyPatch, line: str, cursor: int, completed: str
) -> None:
    """readline put 'steal ' for 'ste' before ' bob': 'steal  bob', where the full screen's editor
    makes 'steal bob'. A whole word is followed by one space, the one after it if it has one."""
    import readline

    from client import terminal

    monkeypatch.setattr(terminal, "typed_so_far", lambda: line)
    monkeypatch.setattr(readline, "get_begidx", lambda: 0)
    monkeypatch.setattr(readline, "get_endidx", lambda: cursor)
    complete = terminal._completer(_session_at_a_table())
    assert (complete(line[:cursor], 0), complete(line[:cursor], 1)) == (completed, None)
    editor = typed(line, LineEditor(_session_at_a_table().completions))
    for _ in range(len(line) - cursor):
        editor.press("left")
    editor.press("tab")
    assert editor.text == "steal " + line[cursor:].lstrip()  # one space, as in line mode


def test_a_prefix_completed_mid_line_leaves_the_cursor_in_the_word() -> None:
    """Completing as far as the options agree, mid-line, is not a whole word: the cursor stays at
    its end, for the rest of it to be typed, not past the space after it."""
    editor = typed("dr x", LineEditor(lambda before, text: ["draw1", "draw2"]))
    for _ in range(2):
        editor.press("left")
    assert editor.press("tab") == Effect(options=("draw1", "draw2"))
    assert shown(editor) == "draw| x"
    typed("2", editor)
    assert shown(editor) == "draw2| x"


def test_a_long_line_scrolls_to_keep_the_cursor_in_view() -> None:
    editor = typed("discard R1 R2 R3")
    assert editor.visible(40) == ("discard R1 R2 R3", 16)
    assert editor.visible(10) == (" R1 R2 R3", 9)  # the cursor after the last character, in view
    editor.press("home")
    assert editor.visible(10) == ("discard R1", 0)


def test_common_prefix() -> None:
    assert common_prefix(["R3", "R1", "R10"]) == "R"
    assert common_prefix(["steal", "start"]) == "st"
    assert common_prefix(["a", "B"]) == ""


def test_a_line_of_wide_characters_is_measured_in_columns() -> None:
    """Each of these takes two columns: counted as characters, the line would run past the
    screen's edge and the cursor would be drawn in the wrong place."""
    editor = typed("日本語" * 4)  # 12 characters, 24 columns
    assert editor.visible(10) == ("語日本語", 8)  # the cursor at the end, in view
    editor.press("home")
    assert editor.visible(10) == ("日本語日本", 0)
    editor.press("right")
    assert editor.visible(10)[1] == 2
    assert typed("ab日").visible(4) == ("b日", 3)  # the cursor after it: three columns in
    assert typed("e\u0301a").visible(10) == ("e\u0301a", 2)  # an accent drawn over a letter: none


ESC = "\x1b"


def keyed(keys: list[RawKey] | str, editor: LineEditor | None = None) -> LineEditor:
    """``keys`` as a terminal sends them, through an :class:`EscapeReader`, into an editor: the
    screen's way, less curses's own names for keys (a number here is a key it named)."""
    editor = editor or LineEditor()
    escapes = EscapeReader()
    for raw in keys:
        key = escapes.read(raw)
        if key is not None:
            editor.press(key if isinstance(key, str) else "")
    return editor


def test_an_escape_sequence_the_editor_does_not_know_is_dropped_whole() -> None:
    """Its characters were typed into the line: ``abc[99~def``; Alt-b typed ``b``."""
    assert shown(keyed(f"abc{ESC}[99~def")) == "abcdef|"
    assert shown(keyed(f"ab{ESC}bc")) == "abc|"  # Alt-b
    assert shown(keyed(f"a{ESC}[1;5Db")) == "ab|"  # Ctrl-Left: parameters, then the final byte
    assert shown(keyed(f"a{ESC}[?25;1 qb")) == "ab|"  # private and intermediate bytes
    assert shown(keyed(f"a{ESC}Oxb{ESC}OPc")) == "abc|"  # SS3 and one byte (F1)
    assert shown(keyed(f"a{ESC}[[Ab")) == "ab|"  # the Linux console's F1
    assert shown(keyed(f"a{ESC}[{'1;' * 40}mb")) == "ab|"  # however long it is
    assert shown(keyed(["a", ESC, 260, "b"])) == "ab|"  # ESC and a key curses named: Alt-Left
    assert shown(keyed(f"a{ESC}{ESC}[99~b")) == "ab|"  # ESC again starts anew: both dropped


def test_home_end_delete_and_the_arrows_act_as_their_raw_sequences() -> None:
    """With a TERM that does not match the terminal curses does not name them: End typed ``[4~``."""
    for home, end in [("[H", "[F"), ("[1~", "[4~"), ("OH", "OF"), ("[7~", "[8~")]:
        editor = keyed(f"bc{ESC}{home}a{ESC}{end}d")
        assert shown(editor) == "abcd|", (home, end)
    assert shown(keyed(f"abc{ESC}[D{ESC}[D{ESC}[3~")) == "a|c"
    assert shown(keyed(f"abc{ESC}OD{ESC}OD{ESC}OCx{ESC}[C")) == "abxc|"
    editor = keyed(f"one{ESC}OMtwo{ESC}[A")  # the keypad's Enter; Up
    assert editor.history == ["one"] and shown(editor) == "one|"
    assert shown(keyed(f"{ESC}OB", editor)) == "two|"  # Down: the draft back
    assert {SEQUENCES[f"{ESC}[5~"], SEQUENCES[f"{ESC}[6~"]} == {"pageup", "pagedown"}  # the screen's


def test_a_control_character_ends_a_sequence_and_acts() -> None:
    escapes = EscapeReader()
    assert [escapes.read(key) for key in [ESC, "[", "1", "\r", "x"]] == [None, None, None, "\r", "x"]
    assert [escapes.read(key) for key in [ESC, "[", "é", "x"]] == [None, None, "é", "x"]
    assert not escapes.waiting


def test_the_esc_key_alone_waits_for_more_then_swallows_nothing() -> None:
    """ESC alone may be the start of a sequence whose rest has not come yet: the reader waits for
    it, and the screen, after a pause with nothing more, gives up on it."""
    escapes = EscapeReader()
    assert escapes.read(ESC) is None and escapes.waiting
    escapes.give_up()
    assert not escapes.waiting and escapes.read("x") == "x"  # typed after a pause: typed
    assert [escapes.read(key) for key in [ESC, "["]] == [None, None] and escapes.waiting
    escapes.give_up()  # ESC [ and a pause: Alt-[, dropped
    assert escapes.read("A") == "A"
    # The rest of a sequence read apart from its start, before the pause is over: still one key.
    assert [escapes.read(key) for key in [ESC, "O", "F"]] == [None, None, "end"]
    assert escapes.read(360) == 360  # a key curses named, with no ESC before it: as it is
