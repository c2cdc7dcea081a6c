"""PDF (pypdf): paragraphs from the text of each page, each with its page number.

Lines come from the text positions pypdf reports. A new paragraph starts
where the vertical gap between two lines is clearly larger than the line
spacing (more than 1.3 x the normal spacing, itself the median gap capped at
1.3 x the font size), or where the font size changes. Lines set clearly
larger than the body text (>= 1.2 x) and shorter than 120 characters are
headings (``kind="heading"``; bigger type is a higher level) and form the
heading path. A line that is only a number (a page number) is dropped. A
line wrapped at the margin is joined to the next with a space, and a word
hyphenated at a line end is re-joined ("para-" + "graph" -> "paragraph"); a
line of its own (a table row, a list item, a short line: the rules of
:func:`jw_rag._lines.line_breaks`) keeps its line break. Paragraphs never cross pages. An
encrypted PDF that needs a password, a broken PDF, or one without
extractable text is refused, as is one encrypted with a certificate or another
handler than the password one (pypdf reads only that).
"""

from __future__ import annotations

import io
import logging
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from jw_rag._lines import line_breaks
from jw_rag.errors import IngestError
from jw_rag.ingest._html import clean_text
from jw_rag.ingest._source import Loaded, clean_controls, read_source
from jw_rag.model import Document, Paragraph

__all__ = ["dehyphenate_join", "parse_pdf", "parse_pdf_bytes"]

_HYPHEN_END = re.compile(r"[^\W\d_]-$")
_PAGE_NUMBER = re.compile(r"^\s*(?:-\s*)?\d{1,4}(?:\s*-)?\s*$")


@dataclass(slots=True)
class _Line:
    y: float
    size: float
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return clean_text("".join(self.parts))


def dehyphenate_join(lines: list[str]) -> str:
    """Lines joined by spaces; ``"word-"`` + ``"lower..."`` become one word."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if out and _HYPHEN_END.search(out) and line[0].islower():
            out = out[:-1] + line
        else:
            out = f"{out} {line}" if out else line
    return out


def _join_block(lines: list[str]) -> str:
    """One paragraph's lines: wraps joined (:func:`dehyphenate_join`), a line of
    its own after a ``"\\n"``."""
    kept = [line.strip() for line in lines if line.strip()]
    if not kept:
        return ""
    runs: list[list[str]] = [[kept[0]]]
    for line, structure in zip(kept[1:], line_breaks(kept), strict=True):
        if structure:
            runs.append([line])
        else:
            runs[-1].append(line)
    return "\n".join(dehyphenate_join(run) for run in runs)


def _page_lines(page) -> list[_Line]:  # noqa: ANN001 - pypdf PageObject
    lines: list[_Line] = []
    state = {"newline": True}

    def visit(text: str, cm, tm, _font, size) -> None:  # noqa: ANN001
        text = clean_controls(text)
        if not text:
            return
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = abs(cm[3]) or 1.0
        eff_size = float(size or 12) * abs(tm[3] or 1.0) * scale
        for k, piece in enumerate(text.split("\n")):
            if k:
                state["newline"] = True
            if not piece.strip():
                continue
            cur = lines[-1] if lines else None
            if cur is None or state["newline"] or abs(cur.y - y) > 0.5 * max(eff_size, 1.0):
                lines.append(_Line(y=y, size=eff_size, parts=[piece]))
            else:
                cur.parts.append(piece)
            state["newline"] = False

    page.extract_text(visitor_text=visit)
    return [ln for ln in lines if ln.text and not _PAGE_NUMBER.match(ln.text)]


def _body_size(all_lines: list[_Line]) -> float:
    weights: Counter[float] = Counter()
    for ln in all_lines:
        weights[round(ln.size, 1)] += len(ln.text)
    return weights.most_common(1)[0][0] if weights else 12.0


def _page_paragraphs(
    lines: list[_Line],
    page: int,
    body: float,
    levels: dict[float, int],
    path: list[tuple[int, str]],
) -> list[Paragraph]:
    gaps = [a.y - b.y for a, b in zip(lines, lines[1:], strict=False) if a.y - b.y > 0]
    normal = min(statistics.median(gaps), 1.3 * body) if gaps else 1.3 * body
    out: list[Paragraph] = []
    block: list[str] = []

    def flush() -> None:
        text = _join_block(block)
        if text:
            out.append(Paragraph(text, page=page, heading_path=tuple(t for _, t in path)))
        block.clear()

    prev: _Line | None = None
    for ln in lines:
        level = levels.get(round(ln.size, 1))
        if level is not None and len(ln.text) < 120:
            flush()
            if out and out[-1].kind == "heading" and prev is not None and prev.size == ln.size:
                merged = f"{out[-1].text} {ln.text}"  # a heading set on two lines
                path[-1] = (level, merged)
                out[-1] = Paragraph(
                    merged, page=page, heading_path=tuple(t for _, t in path), kind="heading"
                )
            else:
                while path and path[-1][0] >= level:
                    path.pop()
                path.append((level, ln.text))
                out.append(
                    Paragraph(
                        ln.text, page=page, heading_path=tuple(t for _, t in path), kind="heading"
                    )
                )
            prev = ln
            continue
        if prev is not None and (
            prev.y - ln.y > 1.3 * normal
            or ln.y > prev.y + 0.5 * ln.size  # moved up: a new column or block
            or abs(prev.size - ln.size) > 0.5
        ):
            flush()
        block.append(ln.text)
        prev = ln
    flush()
    return out


def _open(loaded: Loaded):  # -> pypdf.PdfReader
    import pypdf
    from pypdf.errors import PyPdfError

    if b"%PDF" not in loaded.data[:1024]:
        raise IngestError(f"{loaded.name} is not a PDF (no %PDF header); check the file")
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = pypdf.PdfReader(io.BytesIO(loaded.data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception:  # noqa: BLE001 - unsupported algorithm, missing crypto lib
                opened = 0
            if not opened:
                raise IngestError(
                    f"{loaded.name} is encrypted (password-protected); decrypt it first, "
                    "e.g. `qpdf --password=... --decrypt in.pdf out.pdf`"
                )
        _ = len(reader.pages)
    except IngestError:
        raise
    except RecursionError as exc:
        raise _too_deep(loaded) from exc
    except NotImplementedError as exc:  # pypdf reads only the password (Standard) handler
        raise IngestError(
            f"{loaded.name} is encrypted in a way this reader cannot open "
            f"({_reason(exc)}: a certificate or another security handler); decrypt it with "
            "the tool that made it, or print it to a new PDF, then ingest that"
        ) from exc
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise IngestError(
            f"{loaded.name} is a broken PDF ({_reason(exc)}); check the file"
        ) from exc
    return reader


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _too_deep(loaded: Loaded) -> IngestError:
    return IngestError(
        f"{loaded.name}: its objects nest too deeply to read (a damaged or hostile PDF); "
        "check the file"
    )


def parse_pdf_bytes(loaded: Loaded) -> Document:
    from pypdf.errors import PyPdfError

    reader = _open(loaded)
    try:
        pages = [_page_lines(page) for page in reader.pages]
    except RecursionError as exc:
        raise _too_deep(loaded) from exc
    except (PyPdfError, ValueError, KeyError, TypeError, NotImplementedError) as exc:
        raise IngestError(f"{loaded.name}: cannot read the page text ({_reason(exc)})") from exc
    all_lines = [ln for lines in pages for ln in lines]
    if not all_lines:
        raise IngestError(
            f"{loaded.name} has no extractable text (a scanned PDF?); run OCR on it first"
        )
    body = _body_size(all_lines)
    big = sorted({round(ln.size, 1) for ln in all_lines if ln.size >= 1.2 * body}, reverse=True)
    levels = {size: i + 1 for i, size in enumerate(big)}
    path: list[tuple[int, str]] = []
    paragraphs: list[Paragraph] = []
    for number, lines in enumerate(pages, start=1):
        paragraphs.extend(_page_paragraphs(lines, number, body, levels, path))
    meta_title = ""
    try:
        meta_title = clean_controls(str((reader.metadata or {}).get("/Title") or "")).strip()
    except PyPdfError:
        pass
    headings = [p.text for p in paragraphs if p.kind == "heading"]
    return Document(
        source_id=loaded.stem,
        paragraphs=paragraphs,
        title=meta_title or (headings[0] if headings else loaded.stem),
        metadata={"source": loaded.url or loaded.name, "format": "pdf", "pages": len(pages)},
    )


def parse_pdf(path: str | Path) -> Document:
    """The PDF at ``path`` (a file or an http(s) URL) as a :class:`Document`; every
    paragraph has its page (1-based)."""
    return parse_pdf_bytes(read_source(path))
