"""Parent–child chunking: search small children, deliver their parents.

``ParentChildChunker`` chunks a source twice: with a *parent* chunker (large
units such as sections) and a *child* chunker (small units such as
paragraphs). Only children are embedded and searched; each child names its
parent in ``metadata["parent_id"]``, and retrieval with ``expand="parent"``
delivers the parent instead (see :mod:`jw_rag.retrieve`).

Both sides carry ``source_hash`` (a hash of the source paragraphs) and the
parent's ``chunker_version`` so retrieval can tell when a parent changed after
its children were indexed.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Mapping
from typing import Any

from jw_rag.chunkers.protocol import Chunker, identity
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk, ParagraphInput, as_paragraphs

__all__ = ["ParentChildChunker", "source_hash"]

VERSION = "1"


def source_hash(paragraphs: ParagraphInput) -> str:
    """A hash of the paragraphs' texts and ids: changes whenever the source does."""
    h = hashlib.sha256()
    for p in as_paragraphs(paragraphs):
        h.update(f"{p.id}\x1f{p.page}\x1f{p.text}\x1e".encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:16]


def _resolve(role: str, chunker: str | Chunker, options: Mapping[str, Any] | None) -> Chunker:
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(f"{role}_options must be a mapping of options, got {options!r}")
    if isinstance(chunker, str):
        from jw_rag.chunkers.registry import get_chunker, parse_chunker_spec

        if parse_chunker_spec(chunker)[0] == ParentChildChunker.name:
            # its parents would be lost: only its children come out of chunk()
            raise ConfigError(
                f"the {role} of a parent-child chunker cannot be another parent-child "
                f"chunker: name one such as {'structure' if role == 'parent' else 'paragraph'}"
            )
        return get_chunker(chunker, **dict(options or {}))
    if not callable(getattr(chunker, "chunk", None)) or not getattr(chunker, "name", None):
        raise ConfigError(f"{role} must be a chunker name or a Chunker, got {chunker!r}")
    return chunker


class ParentChildChunker:
    """Children from ``child`` (searched), parents from ``parent`` (delivered).

    Defaults: parents are sections (``structure``, up to 8,000 characters, about
    2,000 tokens), children are paragraphs (``paragraph``, up to 1,000
    characters, about 250 tokens).
    """

    name = "parent-child"
    version = VERSION

    def __init__(
        self,
        *,
        parent: str | Chunker = "structure",
        child: str | Chunker = "paragraph",
        parent_options: Mapping[str, Any] | None = None,
        child_options: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(parent, str) and parent_options is None:
            parent_options = {"max_chars": 8000}
        if isinstance(child, str) and child_options is None:
            child_options = {"max_chars": 1000}
        self.parent = _resolve("parent", parent, parent_options)
        self.child = _resolve("child", child, child_options)

    def params(self) -> dict[str, Any]:
        """The identities of both parts (see :func:`~jw_rag.chunkers.protocol.identity`)."""
        return {"parent": identity(self.parent), "child": identity(self.child)}

    def __repr__(self) -> str:
        return f"ParentChildChunker(parent={self.parent!r}, child={self.child!r})"

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        """The children (what gets embedded), each naming its parent."""
        return self.chunk_hierarchy(paragraphs, source_id, metadata=metadata)[0]

    def chunk_hierarchy(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> tuple[list[Chunk], list[Chunk]]:
        """``(children, parents)``; every child lies in the parent whose span holds its start."""
        paras = as_paragraphs(paragraphs)
        digest = source_hash(paras)
        parents = self.parent.chunk(paras, source_id, metadata=metadata)
        children = self.child.chunk(paras, source_id, metadata=metadata)
        starts = []
        for p in parents:
            s = p.span
            p.id = f"{p.id}:parent"
            p.metadata.update(
                role="parent", source_hash=digest, parent_chunker=self.parent.name, child_ids=[]
            )
            starts.append((s.start_para, s.start_char))
        for p in parents:
            for key in ("prev_id", "next_id"):
                if p.metadata.get(key):
                    p.metadata[key] = f"{p.metadata[key]}:parent"
        for c in children:
            s = c.span
            c.metadata.update(chunker=self.name, role="child", source_hash=digest)
            c.metadata["child_chunker"] = self.child.name
            c.metadata["chunker_version"] = (
                f"{self.version}/{self.child.name}-{_version(self.child)}"
            )
            at = bisect_right(starts, (s.start_para, s.start_char)) - 1
            if at < 0:
                continue
            parent = parents[at]
            c.metadata["parent_id"] = parent.id
            c.metadata["parent_version"] = parent.metadata["chunker_version"]
            parent.metadata["child_ids"].append(c.id)
        return children, parents


def _version(chunker: Chunker) -> str:
    return str(getattr(chunker, "version", "?"))
