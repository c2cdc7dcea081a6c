"""Hostile and edge input: the JWPUB / backup writers come from tests/jwpub, the
MCP client from tests/mcp."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres.pg_harness import pg_database  # noqa: F401  (a fixture)

GARDEN = "Gardens need water every morning.\n\nThe soil keeps it for the roots.\n"


@pytest.fixture
def garden_store(tmp_path: Path) -> Path:
    """A SQLite store (fake 16-dimension embedder) holding one English source,
    ``garden``: two paragraphs, one chunk."""
    from jw_rag.embed import FakeEmbedder
    from jw_rag.ingest import ingest_text
    from jw_rag.store import SQLiteStore

    (tmp_path / "garden.txt").write_text(GARDEN, "utf-8")
    path = tmp_path / "store.sqlite"
    with SQLiteStore(path, FakeEmbedder(dim=16)) as store:
        ingest_text(store, tmp_path / "garden.txt", language="en")
    return path


@pytest.fixture(scope="module")
def fuzz_sandbox(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The surface fuzz's files (tests/robust/fuzz_support.py), one tree per module."""
    from tests.robust.fuzz_support import build_sandbox

    return build_sandbox(tmp_path_factory.mktemp("fuzz"))


@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[str]:
    """The misbehaving local server the surface fuzz fetches from."""
    from tests.robust.fuzz_support import hostile_pages

    with hostile_pages() as url:
        yield url


def pytest_terminal_summary(terminalreporter: object) -> None:
    """The surface fuzz's seed, case count and peak resident sizes, with or without ``-s``."""
    from tests.robust.fuzz_support import TALLY

    for line in TALLY.lines():
        terminalreporter.write_line(line)  # type: ignore[attr-defined]
