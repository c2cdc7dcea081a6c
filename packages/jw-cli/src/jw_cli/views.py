"""Chunks, search hits and store stats as JSON-ready dicts and rich tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.table import Table

from jw_rag.model import Chunk
from jw_rag.store.protocol import SearchHit

__all__ = [
    "chunk_dict",
    "chunks_table",
    "hit_dict",
    "hits_table",
    "joined",
    "para_label",
    "para_labels",
    "snippet",
    "stats_table",
]

SNIPPET_CHARS = 160


def snippet(text: str, width: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def joined(values: Iterable[Any] | None, sep: str = ",") -> str:
    return sep.join(str(v) for v in values or ())


def para_label(value: Any) -> str:
    """A paragraph id as shown to people: a source id (``data-pid``) as is, a
    position (a paragraph without an id) in parentheses."""
    return f"({value})" if isinstance(value, int) else str(value)


def para_labels(values: Iterable[Any] | None) -> str:
    return ",".join(para_label(v) for v in values or ())


def chunk_dict(chunk: Chunk) -> dict[str, Any]:
    """The chunk's id, source, text, size and full provenance metadata."""
    return {
        "id": chunk.id,
        "source_id": chunk.source_id,
        "chars": len(chunk.text),
        "text": chunk.text,
        "metadata": dict(chunk.metadata),
    }


def hit_dict(hit: SearchHit) -> dict[str, Any]:
    """A hit with its chunk and the delivered (expanded) context chunks."""
    out = {"rank": hit.rank, "score": hit.score, **chunk_dict(hit.chunk)}
    out["expanded"] = [{"id": c.id, "source_id": c.source_id, "text": c.text} for c in hit.expanded]
    return out


def hits_table(hits: Sequence[SearchHit], query: str) -> Table:
    table = Table(title=f"{len(hits)} hits for {query!r}", show_lines=True)
    table.add_column("rank", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("source", overflow="fold")
    for name in ("paragraphs", "pages", "heading path"):
        table.add_column(name, overflow="fold")
    table.add_column("snippet", overflow="fold", ratio=3)
    for hit in hits:
        meta = hit.chunk.metadata
        text = hit.chunk.text
        if len(hit.expanded) > 1:
            text = "\n\n".join(c.text for c in hit.expanded)
        table.add_row(
            str(hit.rank),
            f"{hit.score:.4f}",
            hit.chunk.source_id,
            para_labels(meta.get("para_ids")),
            joined(meta.get("pages")),
            joined(meta.get("heading_path"), " > "),
            snippet(text)
            + (
                f"\n[dim](+{len(hit.expanded) - 1} context chunks)[/dim]"
                if len(hit.expanded) > 1
                else ""
            ),
        )
    return table


def chunks_table(chunks: Sequence[Chunk], title: str) -> Table:
    table = Table(title=title, show_lines=True)
    for name in ("#", "chars"):
        table.add_column(name, justify="right")
    for name in ("paragraphs", "pages", "heading path", "merge", "closure", "snippet"):
        table.add_column(name, overflow="fold")
    for c in chunks:
        m = c.metadata
        table.add_row(
            str(m.get("chunk_index", "")),
            str(len(c.text)),
            para_labels(m.get("para_ids")),
            joined(m.get("pages")),
            joined(m.get("heading_path"), " > "),
            m.get("merge_reason") or "",
            m.get("closure_marker") or "",
            snippet(c.text, 100),
        )
    return table


def stats_table(stats: dict[str, Any]) -> Table:
    table = Table(title="store", show_header=False)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in stats.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}: {v}" for k, v in value.items()) or "-"
        table.add_row(key, str(value))
    return table
