"""A chunker's identity (``version`` + ``params()``) decides whether a
re-ingest is skipped: every option that can change the chunks must change
``content_hash``, and running a chunker must not."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from jw_rag.chunkers import available_chunkers, get_chunker
from jw_rag.chunkers.fakes import FakeChunker
from jw_rag.chunkers.protocol import Chunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.ingest.pipeline import content_hash
from jw_rag.model import Document, Paragraph

DOC = Document(
    source_id="lamps",
    title="Lamps",
    language="en",
    paragraphs=[
        Paragraph(text="The lamp gives light to all in the house. " * 4, id="p1"),
        Paragraph(text="However, a lamp under a basket gives none. " * 4, id="p2"),
        Paragraph(text="Let your light shine before men. " * 4, id="p3"),
    ],
)

#: Options that cannot change the chunks, so they do not take part in identity.
NOT_IDENTITY = {
    "llm": {
        "cache": "where answers are cached, not what they are",
        "cache_dir": "where answers are cached, not what they are",
        "cache_max_bytes": "where answers are cached, not what they are",
        "provider_options": "how the model is reached (host, key, timeout), not which model",
    },
}

#: Per chunker: options every variant starts from, and a non-default value for each option.
BASE: dict[str, dict[str, Any]] = {
    "embedding": {"embedder": FakeEmbedder(32)},
    "llm": {"provider": "heuristic", "cache": False},
}
CHANGED: dict[str, dict[str, Any]] = {
    "paragraph": {"max_chars": 900, "min_chars": 20},
    "semantic": {
        "max_chars": 900,
        "min_chars": 20,
        "overflow": 0.1,
        "max_continuations": 3,
        "target_chars": 700,
        "markers_path": "custom-markers.json",
    },
    "structure": {"max_chars": 900, "min_chars": 20, "prefix_headings": False, "separator": " / "},
    "page": {"max_chars": 900, "min_chars": 20, "overlap": False, "overlap_chars": 100},
    "embedding": {
        "embedder": FakeEmbedder(16),
        "window": 2,
        "top_percent": 20.0,
        "min_chars": 20,
        "max_chars": 900,
    },
    "parent-child": {
        "parent": "page",
        "child": "semantic",
        "parent_options": {"max_chars": 6000},
        "child_options": {"max_chars": 700},
    },
    "llm": {
        "provider": "ollama",
        "model": "rules-v2",
        "max_chars": 900,
        "min_chars": 20,
        "overflow": 0.1,
        "max_continuations": 3,
        "markers_path": "custom-markers.json",
        "max_prompt_chars": 5000,
        "strict": True,
    },
}


def _options(factory: Callable[..., Chunker]) -> set[str]:
    target = factory.__init__ if isinstance(factory, type) else factory  # type: ignore[misc]
    return {
        name
        for name, p in inspect.signature(target).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def _class_of(name: str) -> type:
    return type(get_chunker(name, **BASE.get(name, {})))


def test_every_option_of_every_registered_chunker_is_covered() -> None:
    for name in available_chunkers():
        covered = set(CHANGED[name]) | set(NOT_IDENTITY.get(name, {}))
        assert covered == _options(_class_of(name)), name


@pytest.mark.parametrize(
    ("name", "option"), [(n, o) for n in sorted(CHANGED) for o in sorted(CHANGED[n])]
)
def test_changing_an_option_changes_the_hash(name: str, option: str) -> None:
    base = BASE.get(name, {})
    default = get_chunker(name, **base)
    changed = get_chunker(name, **{**base, option: CHANGED[name][option]})
    assert content_hash(DOC, changed) != content_hash(DOC, default)


@pytest.mark.parametrize("option", ["group", "language"])
def test_changing_an_option_of_a_fake_changes_the_hash(option: str) -> None:
    changed = FakeChunker(**{option: {"group": 2, "language": "es"}[option]})
    assert content_hash(DOC, changed) != content_hash(DOC, FakeChunker())


def test_nested_options_of_a_composite_chunker_change_the_hash() -> None:
    a = get_chunker("parent-child", child_options={"max_chars": 700})
    b = get_chunker("parent-child", child_options={"max_chars": 700, "min_chars": 10})
    assert content_hash(DOC, a) != content_hash(DOC, b)


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_running_a_chunker_does_not_change_its_hash(name: str) -> None:
    chunker = get_chunker(name, **BASE.get(name, {}))
    before = content_hash(DOC, chunker)
    for _ in range(2):
        chunker.chunk(DOC.paragraphs, "lamps", metadata={"language": "en"})
    assert content_hash(DOC, chunker) == before
    assert content_hash(DOC, get_chunker(name, **BASE.get(name, {}))) == before


def test_every_registered_chunker_states_its_identity() -> None:
    for name in available_chunkers():
        chunker = get_chunker(name, **BASE.get(name, {}))
        assert isinstance(chunker, Chunker)
        assert isinstance(chunker.version, str) and chunker.version
        params = chunker.params()
        assert isinstance(params, dict) and params, name


#: Hashes the previous releases stored for ``DOC``: sources ingested with these
#: chunkers are still recognised as unchanged, so an upgrade re-ingests nothing.
STORED_HASHES = {
    "paragraph": "3a744d99db0a1e24dcc07da4e6109302dcce40a6a8479534ac9f19982ea242db",
    "semantic": "344cb5beafe29d86f45ed0dbf50c848cfdd3dadd53adb88c0d3f4635bc4722b5",
    "structure": "918553df33934a8ccccab4e5a7775becbd35d1f1289eec7337ffaec413e090d5",
    "page": "94cf33ed43a7c4294324c6c77df93c716346ae058265f90a08ce59e465d7e6b4",
}


@pytest.mark.parametrize("name", sorted(STORED_HASHES))
def test_hashes_stored_by_earlier_ingests_still_hold(name: str) -> None:
    assert content_hash(DOC, get_chunker(name)) == STORED_HASHES[name]


def test_a_chunker_without_identity_is_refused_with_the_fix() -> None:
    class Bare:
        name = "bare"

        def chunk(self, paragraphs, source_id, *, metadata=None):  # noqa: ANN001, ANN202
            return []

    with pytest.raises(
        ConfigError, match="'bare' does not state its identity: give it a `version`"
    ):
        content_hash(DOC, Bare())  # type: ignore[arg-type]
