"""docs/PROTOCOL.md documents every message, field, nested key, state, error code and game-data bound
the code defines, and Notty's part of it (its options, bots, view body, events, hint and rules)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from games import GAMES
from games.notty import CLASSIC, parse_cards
from games.notty.engine import Rule
from games.notty.game import make_hint
from protocol import (
    DEFAULT_PORT,
    MAX_CLIENT_FRAME,
    MAX_CLIENT_ITEMS,
    MAX_FRAME,
    MAX_ITEMS,
    MAX_SEATS,
    MESSAGES,
    PROTOCOL_VERSION,
    Connection,
    ConnectionState,
    Hello,
    Sender,
)
from protocol._fields import Data, List, Map, Optional, Spec

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def _codes_raised_in(*paths: Path) -> set[str]:
    codes: set[str] = set()
    for path in paths:
        source = path.read_text(encoding="utf-8")
        codes.update(re.findall(r'ProtocolError\(\s*"([a-z-]+)"', source))
        codes.update(re.findall(r'_fail\(\s*"([a-z-]+)"', source))
    return codes


def _specs() -> Iterator[tuple[str, Spec]]:
    """Every spec inside every message field, with its path (``tables.tables[].options``)."""
    stack: list[tuple[str, Spec]] = [
        (f"{cls.TYPE}.{attribute.name}", attribute.metadata["spec"])
        for cls in MESSAGES.values()
        for attribute in attrs.fields(cls)
    ]
    while stack:
        path, spec = stack.pop()
        yield path, spec
        if isinstance(spec, Optional):
            stack.append((path, spec.inner))
        elif isinstance(spec, List):
            stack.append((f"{path}[]", spec.item))
        elif isinstance(spec, Map):
            stack.extend((f"{path}.{key}", inner) for key, inner in spec.fields.items())


@pytest.mark.parametrize(("sender", "kind"), sorted((s.value, t) for s, t in MESSAGES))
def test_every_message_and_field_is_documented(sender: str, kind: str) -> None:
    cls = next(c for (s, t), c in MESSAGES.items() if s.value == sender and t == kind)
    assert f"| `{kind}` |" in DOC
    for attribute in attrs.fields(cls):
        assert f"`{attribute.name}`" in DOC, f"{kind}.{attribute.name} is not documented"


def test_every_key_of_every_nested_map_is_documented() -> None:
    """The table, seat, view, result, event, game, variant and option maps: "The maps" names every key."""
    maps = [(path, spec) for path, spec in _specs() if isinstance(spec, Map)]
    assert {path for path, _ in maps} >= {
        "tables.tables[]", "tables.tables[].seats[]", "state.view", "state.view.result", "state.events[]",
        "welcome.games[]", "welcome.games[].variants[]", "welcome.games[].options[]",
    }  # fmt: skip
    section = DOC.split("### The maps", 1)[1].split("\n## ", 1)[0]
    for path, spec in maps:
        for key in spec.fields:
            assert re.search(rf"`{key}`|\b{key}\b[:,?}}]", section), f"{path}.{key} is not documented"


def test_every_game_data_field_and_its_bounds_are_documented() -> None:
    """Each place game data goes has its row in the game-data table, with the bounds the code holds it to."""
    found = {path: spec for path, spec in _specs() if isinstance(spec, Data)}
    assert set(found) == {
        "create_table.options", "welcome.games[].options[].default", "tables.tables[].options",
        "state.view.body", "state.events[].data", "hint.data",
    }  # fmt: skip
    rows = re.findall(r"^\| `([a-z_.\[\]]+)` \| (a map|any) \| (\d+) \| ([\d,]+) \| ([\d,]+) \|$", DOC, re.M)
    documented = {
        path: (top, int(depth), int(most.replace(",", "")), int(text.replace(",", "")))
        for path, top, depth, most, text in rows
    }
    for path, spec in found.items():
        expected = ("a map" if spec.mapping else "any", spec.depth, spec.most, spec.text)
        assert documented.get(path) == expected, (
            f"{path}: the document says {documented.get(path)}, the code {expected}"
        )
    assert set(documented) == set(found)


def test_every_error_code_is_documented() -> None:
    codes = _codes_raised_in(*sorted((ROOT / "protocol").glob("*.py")))
    assert {"frame-too-large", "too-much-data", "bad-frame", "bad-message", "not-now", "version"} <= codes
    for code in codes:
        assert f"| `{code}` |" in DOC, f"error code {code} is not documented"


def test_every_server_refusal_is_documented() -> None:
    source = "".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "server").glob("*.py")))
    codes = set(re.findall(r'\b(?:Refusal|Error)\(\s*"([a-z-]+)"', source))
    assert {"no-such-table", "seat-taken", "internal-error"} <= codes
    for code in codes:
        assert f"| `{code}` |" in DOC, f"server error code {code} is not documented"


def test_every_refusal_a_game_can_give_is_documented() -> None:
    """Settings and actions a game refuses become errors with the game's code."""
    paths = [ROOT / "games" / "_interface.py", *sorted((ROOT / "games").glob("*/game.py"))]
    source = "".join(path.read_text(encoding="utf-8") for path in paths)
    codes = set(re.findall(r'\b(?:SettingsError|ActionError)\(\s*"([a-z-]+)"', source))
    assert {"unknown-variant", "bad-seats", "bad-option", "bad-action", "illegal-action"} <= codes
    for code in codes:
        assert f"| `{code}` |" in DOC, f"game error code {code} is not documented"


def test_every_state_and_constant_is_documented() -> None:
    for state in ConnectionState:
        assert f"| `{state.value}` |" in DOC
    assert f"port **{DEFAULT_PORT}**" in DOC
    assert f"{MAX_FRAME:,} bytes" in DOC
    assert f"**{MAX_CLIENT_FRAME:,} bytes** ({MAX_CLIENT_FRAME // 1024} KiB) from a client" in DOC
    assert f"at most **{MAX_ITEMS:,}** items in a server's frame" in DOC
    assert f"at most **{MAX_CLIENT_ITEMS}** in a client's" in DOC
    assert f"# The notty wire protocol, version {PROTOCOL_VERSION}" in DOC
    assert f"This is version {PROTOCOL_VERSION}." in DOC
    assert f"| `seats` | int 1..{MAX_SEATS}:" in DOC
    assert f"| `seat` (optional) | int 0..{MAX_SEATS - 1}," in DOC


def test_the_documented_hello_frame_is_what_a_client_sends() -> None:
    block = DOC.split("The first frame of `hello`", 1)[1].split("```", 2)[1]
    assert bytes.fromhex(block) == Connection(Sender.CLIENT).send(Hello(version=PROTOCOL_VERSION, name="ann"))
    assert f'"version": {PROTOCOL_VERSION}, "name": "ann"' in DOC


# --------------------------------------------------------------------------- Notty, the worked example


def _notty_section() -> str:
    return DOC.split("## Notty, the worked example", 1)[1].split("\n## ", 1)[0]


def test_every_notty_rule_is_documented() -> None:
    for rule in Rule:
        assert f"| `{rule.value}` |" in _notty_section(), f"rule {rule.value} is not documented"


def test_notty_variants_bots_and_options_are_documented() -> None:
    notty = GAMES["notty"]
    section = _notty_section()
    for variant in notty.variants.values():
        assert f"`{variant.name}`" in section
        assert (variant.min_players, variant.max_players) == (2, 3)  # "each for 2 or 3 players"
    assert f"`{next(iter(notty.variants))}` (the default" in section
    for bot in notty.bots:
        assert f"`{bot}`" in section, f"bot {bot} is not documented"
    for option in notty.options.values():
        assert f"`{option.name}`" in section
        assert f"`{option.default}` (default)" in section or f"{option.default}, the default" in section
        for choice in option.choices:
            assert f"`{choice}`" in section
        if not option.choices:
            assert f"int {option.low}..{option.high}" in section


def test_notty_view_body_events_and_hint_are_documented() -> None:
    section = _notty_section()
    notty = GAMES["notty"]
    match = notty.new_match(notty.settings(None, 2, {}), ["ann", "bob"], random.Random(3))
    for key in match.view(0):
        assert f"`{key}`" in section, f"view body key {key} is not documented"
    kinds = set()
    rng = random.Random(3)
    events = list(match.opening)
    for _ in range(300):
        for event in events:
            wire = match.event(event, 0)
            kinds.add(wire["kind"])
            row = next(line for line in section.splitlines() if line.startswith(f"| `{wire['kind']}` |"))
            for key in wire["data"]:
                assert f"`{key}`" in row, f"{wire['kind']}.data.{key} is not documented"
        if match.over:
            break
        legal = match.legal_actions(match.current)
        events = list(match.apply(match.current, match.parse_action(rng.choice(legal))).events)
    assert {"game-started", "drew", "turn-ended"} <= kinds
    wire_source = (ROOT / "games" / "notty" / "wire.py").read_text(encoding="utf-8")
    for kind in re.findall(r'"kind": "([a-z-]+)"', wire_source):
        assert f"| `{kind}` |" in section, f"event kind {kind} is not documented"
    hint = make_hint(parse_cards("R3 R4 R5 Y6 Y7 G7 B7"), CLASSIC)
    for key in hint.data:
        assert f"`{key}`" in section, f"hint data key {key} is not documented"
    assert "{card, gain}" in section and hint.data["outs"]
    assert set(hint.data["outs"][0]) == {"card", "gain"}


def test_the_version_the_document_gives_in_its_tables_and_examples_is_the_one_spoken() -> None:
    said = re.findall(r"the protocol version, (\d+)", DOC)
    said += re.findall(
        r'"type": "(?:hello|welcome)", "version": (\d+)', DOC.split("A version 2 client, turned away")[0]
    )
    assert len(said) >= 4 and set(said) == {str(PROTOCOL_VERSION)}, said
