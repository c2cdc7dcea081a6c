"""The public surface is explicit: every name in __all__ exists, and the façade
re-exports the one Chunk definition."""

from __future__ import annotations

import importlib

import pytest

MODULES = [
    "jw_core",
    "jw_rag",
    "jw_rag.chunker",
    "jw_rag.chunkers",
    "jw_rag.model",
    "jw_rag.errors",
]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__all__, name
    for member in module.__all__:
        assert hasattr(module, member), f"{name}.{member}"


def test_one_chunk_definition() -> None:
    from jw_rag import chunker, chunkers, model

    assert chunker.Chunk is chunkers.Chunk is model.Chunk
    assert chunker.chunk_paragraphs is chunkers.chunk_paragraphs


def test_packages_are_typed() -> None:
    from importlib import resources

    for pkg in ("jw_core", "jw_rag"):
        assert resources.files(pkg).joinpath("py.typed").is_file()
