"""Chunks, search hits and store stats as JSON-ready dicts and rich tables.

Every cell and title holding a source's id or text is a :class:`rich.text.Text`,
so brackets in it (``Notes [draft]``, BBCode's ``[/b]``) are shown as they are,
never read as rich markup."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from jw_rag.hits import hit_record, hit_records, para_id, para_ids
from jw_rag.model import Chunk
from jw_rag.retrieve import Delivery
from jw_rag.store.protocol import SearchHit

__all__ = [
    "chunk_dict",
    "chunks_table",
    "context_count",
    "delivery_dicts",
    "hit_dict",
    "hits_table",
    "joined",
    "no_hits_line",
    "para_label",
    "para_labels",
    "plural",
    "shown_id",
    "snippet",
    "stats_table",
]

SNIPPET_CHARS = 160


def snippet(text: str, width: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def shown_id(source_id: str) -> str:
    """A source id in a line or a table: as it is when printable, else escaped
    (``'odd/new\\nline'``), so that a newline, a tab or a terminal escape
    sequence taken from a file name neither breaks the line nor reaches the
    terminal. JSON keeps the id as it is."""
    return source_id if source_id.isprintable() else repr(source_id)


def joined(values: Iterable[Any] | None, sep: str = ",") -> str:
    return sep.join(str(v) for v in values or ())


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 hit"``, ``"2 hits"`` (``many``: the plural when it is not ``word + "s"``)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def para_label(value: Any) -> str:
    """A paragraph id as shown to people and in JSON (:func:`jw_rag.hits.para_id`):
    a source id (``data-pid``) as is, a position (a paragraph without an id) as ``#N``."""
    return para_id(value)


def para_labels(values: Iterable[Any] | None) -> str:
    return ",".join(para_label(v) for v in values or ())


def chunk_dict(chunk: Chunk) -> dict[str, Any]:
    """The chunk's id, source, text, size and full provenance metadata
    (``para_ids`` as strings, as everywhere: :func:`jw_rag.hits.para_ids`)."""
    meta = dict(chunk.metadata)
    if "para_ids" in meta:
        meta["para_ids"] = para_ids(meta["para_ids"])
    return {
        "id": chunk.id,
        "source_id": chunk.source_id,
        "chars": len(chunk.text),
        "text": chunk.text,
        "metadata": meta,
    }


def context_count(hit: SearchHit) -> int:
    """How many delivered chunks are context: ``expanded`` minus the hit's own chunk."""
    return sum(c.id != hit.chunk.id for c in hit.expanded)


def hit_dict(hit: SearchHit, folded: Sequence[str] = ()) -> dict[str, Any]:
    """A delivered hit as ``jw rag search --json`` and the MCP server give it
    (:func:`jw_rag.hits.hit_record`)."""
    return hit_record(hit, folded)


def delivery_dicts(delivery: Delivery) -> list[dict[str, Any]]:
    return hit_records(delivery)


def _hit_note(hit: SearchHit, folded: Sequence[str]) -> Text:
    parts = []
    if context_count(hit):
        parts.append(f"+{plural(context_count(hit), 'context chunk')}")
    if folded:
        parts.append(f"holding {plural(len(folded), 'more hit')}: {', '.join(folded)}")
    return Text(f"\n({'; '.join(parts)})", style="dim") if parts else Text()


def no_hits_line(query: str, sources: int, filtered: bool) -> str:
    """What a search that found nothing says: where it looked, and what to do
    when the store holds nothing yet."""
    if sources == 0:
        return f"0 hits for {query!r}: the store holds no source yet; ingest one (jw rag ingest -h)"
    where = f"{plural(sources, 'source')}, as filtered" if filtered else plural(sources, "source")
    return f"0 hits for {query!r} in {where}"


def hits_table(delivery: Delivery, query: str) -> Table:
    title = f"{plural(len(delivery), 'hit')} for {query!r}"
    if delivery.folded:
        title += f" ({plural(len(delivery.folded), 'more hit')} folded into their context)"
    table = Table(title=Text(title), show_lines=True)
    table.add_column("rank", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("source", overflow="fold")
    for name in ("paragraphs", "pages", "heading path"):
        table.add_column(name, overflow="fold")
    table.add_column("snippet", overflow="fold", ratio=3)
    for hit in delivery:
        meta = hit.chunk.metadata
        table.add_row(
            str(hit.rank),
            f"{hit.score:.4f}",
            Text(shown_id(hit.chunk.source_id)),
            Text(para_labels(meta.get("para_ids"))),
            joined(meta.get("pages")),
            Text(joined(meta.get("heading_path"), " > ")),
            Text(snippet(hit.chunk.text)) + _hit_note(hit, delivery.folded_into(hit.rank)),
        )
    return table


def chunks_table(chunks: Sequence[Chunk], title: str) -> Table:
    table = Table(title=Text(title), show_lines=True)
    for name in ("#", "chars"):
        table.add_column(name, justify="right")
    for name in ("paragraphs", "pages", "heading path", "merge", "closure", "snippet"):
        table.add_column(name, overflow="fold")
    for c in chunks:
        m = c.metadata
        table.add_row(
            str(m.get("chunk_index", "")),
            str(len(c.text)),
            Text(para_labels(m.get("para_ids"))),
            joined(m.get("pages")),
            Text(joined(m.get("heading_path"), " > ")),
            m.get("merge_reason") or "",
            Text(m.get("closure_marker") or ""),
            Text(snippet(c.text, 100)),
        )
    return table


def stats_table(stats: dict[str, Any]) -> Table:
    table = Table(title="store", show_header=False)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in stats.items():
        table.add_row(key.replace("_", " "), Text(_stat_value(value)))
    return table


def _stat_value(value: Any) -> str:
    """A stats value as people read it: ``a: 1, b: 2``, nested maps in
    parentheses (``semantic (version 1: 6)``), an empty map as ``-``."""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            key = shown_id(str(k))
            parts.append(f"{key} ({_stat_value(v)})" if isinstance(v, dict) else f"{key}: {v}")
        return ", ".join(parts) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "-"
    return "-" if value is None else str(value)
