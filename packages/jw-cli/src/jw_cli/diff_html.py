"""A self-contained HTML page comparing how chunkers split the same documents.

One column per chunker; each chunk is a box (alternating colours) headed by
its index, size in characters, paragraph ids (a paragraph without an id shows
its position in parentheses), pages, and badges for
``merge_reason`` and ``closure_marker``. A header row gives each chunker's
totals (chunks, mean size). CSS is inline; the page needs no JavaScript and
loads nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from jw_cli.views import para_labels
from jw_rag.model import PARAGRAPH_SEPARATOR, Chunk, Document

__all__ = ["render_chunk_diff"]

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
 margin:0;padding:18px 22px;background:#f4f5f7;color:#1d232b}
h1{font-size:20px;margin:0 0 4px}
.src{color:#5b6470;font-size:13px;margin:0 0 14px;word-break:break-all}
.grid{display:grid;gap:14px;align-items:start}
.docs{margin-top:12px}
.total{background:#1f3a5f;color:#fff;border-radius:6px;padding:8px 12px}
.total b{font-size:16px}
.total span{display:block;font-size:13px;opacity:.9}
h2{font-size:16px;margin:20px 0 8px;border-bottom:2px solid #c8ced6;padding-bottom:3px}
.chunk{border:2px solid;border-radius:6px;padding:6px 10px;margin:0 0 8px}
.c0{background:#e6f0fb;border-color:#7aa7d9}
.c1{background:#fdf1dc;border-color:#e0a84f}
.head{font-size:12px;color:#39424d;margin-bottom:4px;display:flex;flex-wrap:wrap;gap:4px 8px}
.badge{border-radius:9px;padding:0 7px;font-size:11px;font-weight:600;color:#fff}
.merge{background:#2f7d4f}
.closure{background:#a3367a}
.chunk p{margin:0 0 6px;font-size:13.5px}
.chunk p:last-child{margin-bottom:0}
"""


def _mean(values: Sequence[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def _chunk_box(chunk: Chunk, position: int) -> str:
    meta = chunk.metadata
    ids = para_labels(meta.get("para_ids"))
    head = [
        f"<b>#{meta.get('chunk_index', position)}</b>",
        f"<span>{len(chunk.text)} chars</span>",
        f"<span>¶ {escape(ids)}</span>",
    ]
    pages = meta.get("pages")
    if pages:
        head.append(f"<span>p. {escape(','.join(str(p) for p in pages))}</span>")
    if meta.get("merge_reason"):
        head.append(f'<span class="badge merge">merge: {escape(str(meta["merge_reason"]))}</span>')
    if meta.get("closure_marker"):
        head.append(
            f'<span class="badge closure">closure: {escape(str(meta["closure_marker"]))}</span>'
        )
    body = "".join(
        f"<p>{escape(part)}</p>" for part in chunk.text.split(PARAGRAPH_SEPARATOR) if part.strip()
    )
    return f'<div class="chunk c{position % 2}"><div class="head">{"".join(head)}</div>{body}</div>'


def render_chunk_diff(
    docs: Sequence[Document],
    columns: Mapping[str, Sequence[Sequence[Chunk]]],
    *,
    source: str = "",
) -> str:
    """The page for ``docs``; ``columns[name][i]`` are chunker ``name``'s chunks of ``docs[i]``."""
    names = list(columns)
    for name, per_doc in columns.items():
        if len(per_doc) != len(docs):
            raise ValueError(f"chunker {name!r} has {len(per_doc)} documents, expected {len(docs)}")
    style = f"grid-template-columns:repeat({len(names)},minmax(0,1fr))"
    grid = f'<div class="grid" style="{style}">'
    title = docs[0].title if len(docs) == 1 and docs[0].title else source or "chunk diff"
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{escape(docs[0].language or "en") if docs else "en"}"><head>',
        '<meta charset="utf-8">',
        f"<title>Chunk diff: {escape(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Chunk diff: {escape(title)}</h1>",
        f'<p class="src">{escape(source)} · {len(docs)} document(s) · '
        f"{escape(', '.join(names))} · ¶ paragraph ids, (n) = position of a paragraph "
        "without an id</p>",
        grid,
    ]
    for name in names:
        sizes = [len(c.text) for per_doc in columns[name] for c in per_doc]
        parts.append(
            f'<div class="total"><b>{escape(name)}</b>'
            f"<span>{len(sizes)} chunks · mean {_mean(sizes):.0f} chars</span></div>"
        )
    parts.append("</div>")
    for i, doc in enumerate(docs):
        if len(docs) > 1:
            parts.append(f"<h2>{escape(doc.source_id)}: {escape(doc.title)}</h2>")
        parts.append(f'<div class="grid docs" style="{style}">')
        for name in names:
            boxes = "".join(_chunk_box(c, j) for j, c in enumerate(columns[name][i]))
            parts.append(f"<div>{boxes}</div>")
        parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)
