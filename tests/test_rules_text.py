"""The rules the client prints (``rules``) say what the server plays and what the rules documents say:
the numbers in them are the presets' own, and the documents' tables hold the same numbers."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from conftest import ROW_START
from test_client_session import welcomed

from client.sgr import columns, reflow
from games import GAMES
from games._ui import GameUI
from games.huxxy.ui import rules_text as huxxy_rules_text
from games.notty import PRESETS
from games.notty.ui import rules_text
from games.ochos_locos import rules as ochos_rules
from games.ochos_locos.ui import rules_text as ochos_rules_text

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
OCHOS_MD = (ROOT / "docs" / "OCHOS-LOCOS.md").read_text(encoding="utf-8")


def _preset_row(label: str) -> list[str]:
    """A row of docs/RULES.md's preset table, one cell per preset in the table's order."""
    found = re.search(rf"^\| {re.escape(label)} \|(.*)\|$", RULES_MD, flags=re.MULTILINE)
    assert found, f"docs/RULES.md has no preset row {label!r}"
    return [cell.strip() for cell in found.group(1).split("|")]


def test_the_documents_preset_table_names_the_presets_in_order() -> None:
    header = re.search(r"^\| field \|(.*)\|$", RULES_MD, flags=re.MULTILINE)
    assert header
    names = [cell.strip().removesuffix(" (default)").strip("`") for cell in header.group(1).split("|")]
    assert names == list(PRESETS)


@pytest.mark.parametrize("name", list(PRESETS))
def test_notty_rules_say_the_presets_numbers_as_the_document_does(name: str) -> None:
    rules = PRESETS[name]
    column = list(PRESETS).index(name)
    text = rules_text(name)
    assert f"hand limit {rules.hand_limit}" in text
    assert _preset_row("hand limit")[column] == str(rules.hand_limit)
    assert f"a run: {rules.shortest_run}+ cards" in text
    assert _preset_row("shortest run")[column] == str(rules.shortest_run)
    assert f"a set: {rules.smallest_set}+ cards" in text
    assert _preset_row("smallest set")[column] == str(rules.smallest_set)
    assert f"{rules.hand_size} dealt to each" in text
    assert _preset_row("cards dealt to each player")[column] == str(rules.hand_size)
    assert f"{rules.deck_size} cards" in text
    assert _preset_row("deck")[column] == f"{rules.deck_size} cards"
    assert ("draw-and-discard" in text) == rules.draw_and_discard
    assert _preset_row("draw-and-discard action")[column] == ("yes" if rules.draw_and_discard else "no")


@pytest.mark.parametrize("name", list(PRESETS))
def test_notty_rules_say_a_stolen_last_card_wins_as_the_document_does(name: str) -> None:
    rules = PRESETS[name]
    assert rules.last_card_stolen_wins
    assert "if your last card is stolen, you win (not the thief)" in rules_text(name)
    assert _preset_row("a player whose last card is stolen wins")[list(PRESETS).index(name)] == "yes"
    assert "the thief does not win by stealing a last card — the victim does" in RULES_MD


def test_notty_rules_say_what_a_hints_outs_are_and_where_the_whole_rules_are() -> None:
    text = rules_text(None)
    assert "its outs are the cards that, if you drew" in text and "would let you discard more" in text
    assert '"outs"' in RULES_MD  # the document's word for them
    assert "docs/RULES.md" in text and (ROOT / "docs" / "RULES.md").exists()
    assert all(f"{name}:" in text for name in PRESETS)  # no table: every preset's numbers


def test_notty_rules_are_short() -> None:
    for name in [*PRESETS, None]:
        lines = rules_text(name).splitlines()
        assert len(lines) <= 18 and max(map(len, lines)) <= 110  # fits a small terminal


@pytest.mark.parametrize("name", list(ochos_rules.PRESETS))
def test_ochos_locos_rules_say_each_variants_switches_and_players(name: str) -> None:
    rules = ochos_rules.PRESETS[name]
    text = ochos_rules_text(name)
    assert ("  2s: a 2 must be answered with a 2 if you hold one;" in text) == rules.twos
    assert ("  8s: an 8, not as your last card, names a colour" in text) == rules.eights
    variant = GAMES["ochos-locos"].variants[name]
    players = (
        str(variant.min_players)
        if variant.min_players == variant.max_players
        else f"{variant.min_players}-{variant.max_players}"
    )
    assert f"players: {players}" in text
    assert f"{ochos_rules.HAND_SIZE} dealt to each player" in text
    assert "docs/OCHOS-LOCOS.md" in text


def test_ochos_locos_rules_say_take_two_only_when_you_hold_no_2() -> None:
    """A play-test read "a 2 must be answered with a 2, or you 'take two'" as a free choice; 'take two'
    is refused while you hold a 2 (docs/OCHOS-LOCOS.md), as the summary now says."""
    assert "`take two` is refused while you hold one" in OCHOS_MD
    for name in [None, "part2"]:
        text = ochos_rules_text(name)
        assert "a 2 must be answered with a 2 if you hold one;\n    only with no 2 do you 'take two'" in text
        assert ", or you 'take two'" not in text
        assert max(map(len, text.splitlines())) <= 80
    summary = GAMES["ochos-locos"].variants["part2"].summary
    assert summary == "a 2 must be answered with a 2 if the next player holds one, else they take two"


def test_ochos_locos_rules_agree_with_the_document() -> None:
    assert f"Each player gets {ochos_rules.HAND_SIZE} cards" in OCHOS_MD
    assert f"{ochos_rules.MIN_PLAYERS}–{ochos_rules.MAX_PLAYERS}\nplayers" in OCHOS_MD
    assert "the drawn card is not played on the same turn" in OCHOS_MD
    assert "the card drawn is not played this turn" in ochos_rules_text(None)
    assert "An 8 played as the last card names nothing" in OCHOS_MD


RULES = [
    ("notty", "classic"),
    ("notty", None),
    ("huxxy", "huxxy-jokers"),
    ("huxxy", None),
    ("ochos-locos", None),
]


@pytest.mark.parametrize(("game", "variant"), RULES)
@pytest.mark.parametrize("width", [40, 60, 79])
def test_rules_reflowed_for_a_narrow_terminal_keep_every_word_and_fill_their_rows(
    game: str, variant: str | None, width: int
) -> None:
    """At 60 columns each item of the rules showed as a long row and a short one ('hand limit' / '20'),
    wrapped line by line: its lines are joined, then wrapped, each row filled but the item's last."""
    text = describe_ui(game).rules(variant)
    rows = reflow(text, width).split("\n")
    assert " ".join(text.split()) == " ".join(" ".join(rows).split())  # every word, in order
    assert all(columns(row) <= width for row in rows)
    for row, below in itertools.pairwise(rows):
        if _indent(row) >= 2 and _indent(below) > _indent(row) and not row.endswith(":"):  # goes on below
            first = ROW_START.match(below.lstrip())  # its next word, or what is kept whole, did not fit
            assert first is not None
            assert columns(row) + 1 + columns(first.group()) >= width, (row, below)


def test_rules_typed_in_a_narrow_terminal_are_reflowed_and_at_80_columns_kept_as_laid_out() -> None:
    session = welcomed()
    laid_out = session.typed("rules classic").say
    assert laid_out == rules_text("classic")  # a pipe: laid out for 80 columns
    session.layout_width = lambda: 60
    assert session.typed("rules classic").say == reflow(rules_text("classic"), 60)
    assert "hand limit 20; 5 dealt to each" in " ".join(session.typed("rules classic").say.split())
    session.layout_width = lambda: 80
    assert session.typed("rules classic").say == rules_text("classic")


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def describe_ui(game: str) -> GameUI:
    from games.huxxy.ui import UI as HUXXY_UI
    from games.notty.ui import UI as NOTTY_UI
    from games.ochos_locos.ui import UI as OCHOS_UI

    return {"notty": NOTTY_UI, "huxxy": HUXXY_UI, "ochos-locos": OCHOS_UI}[game]


def test_the_rules_texts_say_what_a_rules_audit_found_missing() -> None:
    """An audit against the rules documents found these left out of what the client prints."""
    assert "draw-and-discard (once, five-colour; not at the limit)" in rules_text("five-colour")
    assert "draw-and-discard" not in rules_text("classic")
    assert "ties share a place" in huxxy_rules_text(None)
    part2 = ochos_rules_text("part2")
    assert "the penalty never\n    builds up" in part2
    assert "a 2 turned up to start the pile asks for nothing" in part2
    assert "penalty" not in ochos_rules_text("part1")
