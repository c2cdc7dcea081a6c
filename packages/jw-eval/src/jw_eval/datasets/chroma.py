"""Chroma's chunking-evaluation layout: ``corpora/*.md`` plus ``questions_df.csv``.

Each corpus file is one document (id = file stem). It is split into
paragraphs at blank lines; references (Python character offsets into the
file) are mapped into document-text coordinates through each paragraph's
offset in the file, so every reference keeps its exact characters. A
reference boundary inside a blank-line separator moves to the nearest
paragraph edge within the reference.
"""

from __future__ import annotations

import csv
import json
import re
from bisect import bisect_right
from collections import Counter
from pathlib import Path

from jw_core import detect_language, normalize_language
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.spans import ExpectedSpan
from jw_rag.errors import ConfigError, IngestError
from jw_rag.model import Paragraph

__all__ = ["load_chroma", "read_corpus_file", "split_blank_lines"]

#: Characters of a document read to detect its language.
_DETECT_CHARS = 3000

_BLANK = re.compile(r"\n(?:[ \t\r\f\v]*\n)+")


def split_blank_lines(text: str) -> list[tuple[int, str]]:
    """``(offset, paragraph)`` for each non-blank run of lines between blank lines."""
    out: list[tuple[int, str]] = []
    pos = 0
    for m in _BLANK.finditer(text):
        if text[pos : m.start()].strip():
            out.append((pos, text[pos : m.start()]))
        pos = m.end()
    if text[pos:].strip():
        out.append((pos, text[pos:]))
    return out


class _Mapper:
    """File offsets -> document-text offsets for one corpus file."""

    def __init__(self, doc_id: str, pieces: list[tuple[int, str]]) -> None:
        self.doc_id = doc_id
        self.file_starts = [p for p, _ in pieces]
        self.lengths = [len(t) for _, t in pieces]
        self.doc_starts: list[int] = []
        pos = 0
        for n in self.lengths:
            self.doc_starts.append(pos)
            pos += n + 2

    def span(self, start: int, end: int) -> ExpectedSpan | None:
        i = max(0, bisect_right(self.file_starts, start) - 1)
        off = start - self.file_starts[i]
        if off >= self.lengths[i]:  # in a separator: next paragraph
            i, off = i + 1, 0
            if i >= len(self.lengths):
                return None
        off = max(off, 0)
        j = max(0, bisect_right(self.file_starts, end - 1) - 1)
        end_off = min(end - self.file_starts[j], self.lengths[j])
        a = self.doc_starts[i] + off
        b = self.doc_starts[j] + end_off
        return ExpectedSpan(self.doc_id, a, b) if b > a else None

    def spans(self, pairs: list[tuple[int, int]], stats: Counter[str]) -> list[ExpectedSpan]:
        """Each ``(start, end)`` file range as a span; ranges that map to
        nothing are counted as ``references_unmappable`` and left out."""
        out = []
        for start, end in pairs:
            s = self.span(start, end)
            if s is None:
                stats["references_unmappable"] += 1
            else:
                out.append(s)
        return out


def given_language(language: str | None) -> str | None:
    """``language`` normalised (``None`` or ``"auto"``: detect per document)."""
    if language is None or language.strip().lower() == "auto":
        return None
    code = normalize_language(language)
    if code is None:
        raise ConfigError(f"unknown language {language!r}: use a code such as en, es, pt, or auto")
    return code


def read_corpus_file(path: Path, language: str | None) -> tuple[BenchDocument, _Mapper]:
    """One corpus file as a document (paragraphs at blank lines; the language
    given, else detected from its text) and its offset mapper."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"cannot read corpus file {path}: {exc}") from exc
    pieces = split_blank_lines(text)
    paragraphs = [Paragraph(t, id=str(i)) for i, (_, t) in enumerate(pieces)]
    lang = language or detect_language(text[:_DETECT_CHARS]) or "und"
    return BenchDocument(path.stem, paragraphs, lang, path.stem), _Mapper(path.stem, pieces)


def load_chroma(root: str | Path, *, language: str | None = None) -> Dataset:
    """Load ``root/corpora/*.md`` and ``root/questions_df.csv`` (questions whose
    corpus file is absent are dropped and counted). The layout carries no
    language: ``language`` labels every document and question, else each
    document's language is detected and its questions take it."""
    root = Path(root)
    csv_path = root / "questions_df.csv"
    corpora = root / "corpora"
    if not csv_path.is_file() or not corpora.is_dir():
        raise IngestError(f"{root} is not a Chroma dataset: expected corpora/ and questions_df.csv")
    lang = given_language(language)
    documents: dict[str, BenchDocument] = {}
    mappers: dict[str, _Mapper] = {}
    for f in sorted(corpora.iterdir()):
        if f.is_file() and f.suffix in (".md", ".txt"):
            documents[f.stem], mappers[f.stem] = read_corpus_file(f, lang)
    stats: Counter[str] = Counter()
    queries: list[BenchQuery] = []
    with csv_path.open(encoding="utf-8", newline="") as fh:
        for row_no, row in enumerate(csv.DictReader(fh), 1):
            corpus_id = row.get("corpus_id", "")
            if corpus_id not in mappers:
                stats["questions_without_corpus"] += 1
                continue
            try:
                refs = json.loads(row["references"])
            except (KeyError, ValueError) as exc:
                raise IngestError(f"{csv_path} row {row_no}: bad references JSON: {exc}") from exc
            pairs = [(int(r["start_index"]), int(r["end_index"])) for r in refs]
            spans = mappers[corpus_id].spans(pairs, stats)
            if not spans:
                stats["questions_dropped"] += 1
                continue
            doc_lang = documents[corpus_id].language
            queries.append(
                BenchQuery(f"{corpus_id}-{row_no}", row["question"], doc_lang, tuple(spans))
            )
    if not queries:
        raise IngestError(f"{csv_path} has no usable questions")
    return Dataset(root.name, "chroma", documents, queries, dict(stats))
