"""Every link to a section of a page in docs/ (``#anchor`` or ``page.md#anchor``)
names a heading that page has."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _slugs(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {_slug(title) for title in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_every_section_link_of_the_docs_names_a_heading() -> None:
    broken = []
    for page in sorted((REPO / "docs").glob("*.md")):
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
            linked = page.parent / target if target else page
            if not linked.is_file() or anchor not in _slugs(linked):
                broken.append(f"{page.name}: {target}#{anchor}")
    assert broken == []
