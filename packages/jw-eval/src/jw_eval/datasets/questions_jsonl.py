"""Questions as JSON lines with a corpus folder (the ``argument`` layout).

``questions.jsonl`` holds one question per line: ``id``, ``language``,
``doc_id``, ``question`` and ``references`` (``start``/``end`` Python
character offsets into the document file read as UTF-8). Each document is
``<corpus>/<language>/<doc_id>.md`` (or ``.txt``), or ``<corpus>/<doc_id>.md``,
split into paragraphs at blank lines like the Chroma layout. ``corpus``
defaults to the ``corpus/`` folder beside the questions file. A ``language``
given to the loader keeps only that language's questions and documents.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from jw_eval.datasets.chroma import _Mapper, given_language, read_corpus_file
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_rag.errors import IngestError, shown_value

__all__ = ["load_questions_jsonl"]

_SUFFIXES = (".md", ".txt")


def _records(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"cannot read questions file {path}: {exc}") from exc
    out = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise IngestError(f"{path} line {no}: not JSON: {exc}") from exc
        if not isinstance(rec, dict) or any(
            k not in rec for k in ("doc_id", "question", "references")
        ):
            raise IngestError(f"{path} line {no}: a question needs doc_id, question, references")
        _check_record(rec, f"{path} line {no}")
        out.append(rec)
    return out


def _check_record(rec: dict[str, Any], where: str) -> None:
    """One line naming the field of a question that has the wrong type."""
    for key in ("doc_id", "question"):
        if not isinstance(rec[key], str) or not rec[key].strip():
            raise IngestError(f"{where}: {key} must be non-empty text, got {shown_value(rec[key])}")
    if rec.get("language") is not None and not isinstance(rec["language"], str):
        raise IngestError(
            f"{where}: language must be a code such as en, got {shown_value(rec['language'])}"
        )
    refs = rec["references"]
    if not isinstance(refs, list) or not all(
        isinstance(r, dict)
        and all(isinstance(r.get(k), int) and not isinstance(r.get(k), bool) for k in _OFFSETS)
        for r in refs
    ):
        raise IngestError(
            f'{where}: references must be a list of {{"start": N, "end": N}} character '
            f"offsets (whole numbers), got {shown_value(refs)}"
        )


_OFFSETS = ("start", "end")


def _find_document(corpus: Path, doc_id: str, language: str | None) -> Path | None:
    folders = [corpus / language, corpus] if language else [corpus]
    for folder in folders:
        for suffix in _SUFFIXES:
            if (candidate := folder / f"{doc_id}{suffix}").is_file():
                return candidate
    return None


def load_questions_jsonl(
    path: str | Path, corpus_dir: str | Path | None = None, *, language: str | None = None
) -> Dataset:
    """Load ``path`` (a ``questions.jsonl`` file, or a folder holding one and
    ``corpus/``); questions whose document is missing are dropped and counted."""
    path = Path(path)
    if path.is_dir():
        path = path / "questions.jsonl"
    if not path.is_file():
        raise IngestError(f"no questions file at {path}: give a questions.jsonl file")
    corpus = Path(corpus_dir) if corpus_dir is not None else path.parent / "corpus"
    only = given_language(language)
    stats: Counter[str] = Counter()
    documents: dict[str, BenchDocument] = {}
    mappers: dict[str, _Mapper] = {}
    queries: list[BenchQuery] = []
    for rec in _records(path):
        doc_id, lang = str(rec["doc_id"]), given_language(rec.get("language"))
        if only is not None and lang not in (only, None):
            continue
        if doc_id not in documents:
            found = _find_document(corpus, doc_id, lang)
            if found is None:
                stats["questions_without_corpus"] += 1
                continue
            documents[doc_id], mappers[doc_id] = read_corpus_file(found, lang or only)
        doc = documents[doc_id]
        pairs = [(int(r["start"]), int(r["end"])) for r in rec["references"]]
        spans = mappers[doc_id].spans(pairs, stats)
        if not spans:
            stats["questions_dropped"] += 1
            continue
        qid = str(rec.get("id", f"{doc_id}-{len(queries) + 1}"))
        queries.append(BenchQuery(qid, str(rec["question"]), doc.language, tuple(spans)))
    if not queries:
        raise IngestError(f"{path} has no usable questions (corpus folder {corpus})")
    return Dataset(path.parent.name, "jsonl", documents, queries, dict(stats))
