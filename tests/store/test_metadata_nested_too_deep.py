"""A chunk whose metadata refers to itself or is nested thousands deep is
refused in one line naming the chunk, with nothing stored: it stopped
store.add with Python's RecursionError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk
from jw_rag.store.sqlite_store import SQLiteStore


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"k": [value]}
    return value


def _circular() -> Any:
    value: list[Any] = ["x"]
    value.append({"back": value})
    return value


@pytest.mark.parametrize("value", [_deep(5000), _circular()], ids=["deep", "circular"])
def test_metadata_nested_without_end_is_one_line(tmp_path: Path, value: Any) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", embedder=FakeEmbedder(16))
    store.add([Chunk(id="ok:1", text="kept", source_id="ok", metadata={})])
    bad = Chunk(id="bad:1", text="t", source_id="bad", metadata={"tree": value})
    for write in (lambda: store.add([bad]), lambda: store.replace_source("bad", [bad])):
        with pytest.raises(ConfigError) as caught:
            write()
        assert str(caught.value) == (
            "chunk 'bad:1': its metadata refers to itself or is nested too deeply; "
            "give it plain dicts and lists a few levels deep"
        )
    assert store.stats()["per_source"] == {"ok": 1}
