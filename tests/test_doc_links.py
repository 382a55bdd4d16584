"""Every relative link in README.md and docs/*.md leads to a file of this repository: a reader of a
clone, or of an archive of it, never meets a link to something beside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: ``[text](target)`` and ``[text](target#anchor)``: the target, without its anchor.
LINK = re.compile(r"\]\(([^)#\s]*)(?:#[^)\s]*)?\)")


def _relative_links(document: Path) -> list[str]:
    text = document.read_text(encoding="utf-8")
    return [link for link in LINK.findall(text) if link and ":" not in link.split("/")[0]]  # no scheme


def test_there_are_documents_and_links_to_check() -> None:
    assert len(DOCUMENTS) > 1 and sum(len(_relative_links(document)) for document in DOCUMENTS) > 5


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(document: Path) -> None:
    for link in _relative_links(document):
        target = (document.parent / link).resolve()
        assert target.is_relative_to(ROOT), f"{document.name} links outside the repository: {link}"
        assert target.exists(), f"{document.name} links to a missing file: {link}"


def test_links_with_anchors_are_checked_too() -> None:
    assert LINK.findall("see [limits](SERVER.md#limits) and [up](../../x.md)") == ["SERVER.md", "../../x.md"]
