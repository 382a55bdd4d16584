"""docs/PROTOCOL.md documents every message, field, state and error code the code defines."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from protocol import DEFAULT_PORT, MAX_FRAME, MESSAGES, PROTOCOL_VERSION, ConnectionState
from server.engine import Rule

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def _codes_raised_in(*paths: str) -> set[str]:
    codes: set[str] = set()
    for path in paths:
        source = (ROOT / path).read_text(encoding="utf-8")
        codes.update(re.findall(r'ProtocolError\(\s*"([a-z-]+)"', source))
        codes.update(re.findall(r'_fail\(\s*"([a-z-]+)"', source))
        codes.update(re.findall(r'ProtocolError\("([a-z-]+)"', source))
    return codes


@pytest.mark.parametrize(("sender", "kind"), sorted((s.value, t) for s, t in MESSAGES))
def test_every_message_and_field_is_documented(sender: str, kind: str) -> None:
    cls = next(c for (s, t), c in MESSAGES.items() if s.value == sender and t == kind)
    assert f"| `{kind}` |" in DOC
    for attribute in attrs.fields(cls):
        assert f"`{attribute.name}`" in DOC, f"{kind}.{attribute.name} is not documented"


def test_every_error_code_is_documented() -> None:
    codes = _codes_raised_in(
        "protocol/_framing.py", "protocol/_fields.py", "protocol/_messages.py", "protocol/_connection.py"
    )
    assert {"frame-too-large", "too-much-data", "bad-frame", "bad-message", "not-now", "version"} <= codes
    for code in codes:
        assert f"| `{code}` |" in DOC, f"error code {code} is not documented"


def test_every_game_rule_is_documented() -> None:
    for rule in Rule:
        assert f"| `{rule.value}` |" in DOC, f"rule {rule.value} is not documented"


def test_every_state_and_constant_is_documented() -> None:
    for state in ConnectionState:
        assert f"| `{state.value}` |" in DOC
    assert f"port **{DEFAULT_PORT}**" in DOC
    assert f"{MAX_FRAME:,} bytes" in DOC
    assert f"version {PROTOCOL_VERSION}" in DOC


def test_every_server_refusal_is_documented() -> None:
    source = (ROOT / "server" / "host.py").read_text(encoding="utf-8") + (
        ROOT / "server" / "net.py"
    ).read_text(encoding="utf-8")
    codes = set(re.findall(r'(?:Refusal|Error)\(\s*"([a-z-]+)"', source))
    assert {"no-such-table", "seat-taken", "illegal-action", "internal-error"} <= codes
    for code in codes:
        assert f"| `{code}` |" in DOC, f"server error code {code} is not documented"
