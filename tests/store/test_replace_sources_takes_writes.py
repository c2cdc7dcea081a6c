"""``replace_sources`` given something else than SourceWrite objects (a dict of
chunks by source, a tuple) is one line naming what it takes; nothing is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.embed import get_embedder
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk
from jw_rag.store import SourceWrite, SQLiteStore


@pytest.mark.parametrize(
    ("writes", "got"),
    [
        ({"a": [Chunk("a:1", "text", "a")]}, "str"),
        ([("a", [Chunk("a:1", "text", "a")])], "tuple"),
        ([SourceWrite("b", [Chunk("b:1", "text", "b")]), None], "NoneType"),
    ],
)
def test_what_is_not_a_source_write_is_one_line(tmp_path: Path, writes: object, got: str) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", embedder=get_embedder("fake:16"))
    try:
        with pytest.raises(ConfigError) as err:
            store.replace_sources(writes)  # type: ignore[arg-type]
        line = str(err.value)
        assert "\n" not in line and f"got a {got} in it" in line and "SourceWrite(" in line
        assert store.stats()["chunks"] == 0
    finally:
        store.close()
