"""The bundled corpus format: a YAML list of questions citing paragraph ids
(``data-pid``) of HTML/Markdown articles under a corpus directory.

Each item: ``id``, ``language``, ``query``, ``expected_citations: [{doc, pids}]``
where ``doc`` is the article's path under the corpus directory without its
extension. Each cited pid is one expected span: the whole paragraph content.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from jw_core import normalize_language
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.spans import ExpectedSpan
from jw_rag.errors import IngestError
from jw_rag.model import content_bounds

__all__ = ["ARTICLE_SUFFIXES", "load_yaml_queries"]

ARTICLE_SUFFIXES = (".html", ".htm", ".xhtml", ".md", ".markdown")


def _find_article(corpus_dir: Path, doc: str) -> Path | None:
    for suffix in ARTICLE_SUFFIXES:
        candidate = corpus_dir / f"{doc}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def _load_document(corpus_dir: Path, doc: str, language: str | None) -> BenchDocument:
    from jw_rag.ingest import parse_article

    path = _find_article(corpus_dir, doc)
    if path is None:
        raise IngestError(
            f"article {doc!r} not found under {corpus_dir} (tried {', '.join(ARTICLE_SUFFIXES)})"
        )
    parsed = parse_article(path)
    lang = parsed.language or language or (doc.split("/")[0] if "/" in doc else None)
    return BenchDocument(doc, list(parsed.paragraphs), lang, parsed.title)


def _items(path: Path) -> list[Mapping[str, Any]]:
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise IngestError(f"cannot read queries file {path}: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(i, Mapping) for i in data):
        raise IngestError(f"{path} must be a YAML list of question objects")
    return data


def load_yaml_queries(
    queries: str | Path, corpus_dir: str | Path | None = None, *, include_unused: bool = True
) -> Dataset:
    """Load the questions and every article they cite (and, with
    ``include_unused``, every other article under ``corpus_dir`` too, so
    distractors are indexed)."""
    queries = Path(queries)
    corpus = Path(corpus_dir) if corpus_dir is not None else queries.parent / "corpus"
    if not corpus.is_dir():
        raise IngestError(f"corpus directory {corpus} does not exist: pass corpus_dir")
    documents: dict[str, BenchDocument] = {}
    out: list[BenchQuery] = []
    for n, item in enumerate(_items(queries), 1):
        qid = str(item.get("id") or f"q{n}")
        text = item.get("query")
        cites = item.get("expected_citations")
        if (
            not isinstance(text, str)
            or not text.strip()
            or not isinstance(cites, list)
            or not cites
        ):
            raise IngestError(f"{queries}: question {qid!r} needs 'query' and 'expected_citations'")
        language = normalize_language(str(item["language"])) if item.get("language") else None
        spans: list[ExpectedSpan] = []
        for cite in cites:
            if not isinstance(cite, Mapping) or "doc" not in cite or "pids" not in cite:
                raise IngestError(f"{queries}: question {qid!r} has a citation without doc/pids")
            doc_id = str(cite["doc"])
            if doc_id not in documents:
                documents[doc_id] = _load_document(corpus, doc_id, language)
            doc = documents[doc_id]
            index = {p.id: i for i, p in enumerate(doc.paragraphs) if p.id is not None}
            for pid in cite["pids"]:
                i = index.get(str(pid))
                if i is None:
                    raise IngestError(
                        f"{queries}: question {qid!r} cites pid {pid} missing from {doc_id!r}"
                    )
                lo, hi = content_bounds(doc.paragraphs[i].text)
                spans.append(ExpectedSpan(doc_id, doc.offsets[i] + lo, doc.offsets[i] + hi))
        out.append(
            BenchQuery(qid, text, language or documents[spans[0].doc_id].language, tuple(spans))
        )
    if include_unused:
        for f in sorted(corpus.rglob("*")):
            if f.is_file() and f.suffix in ARTICLE_SUFFIXES:
                doc_id = f.relative_to(corpus).with_suffix("").as_posix()
                if doc_id not in documents:
                    documents[doc_id] = _load_document(corpus, doc_id, None)
    if not out:
        raise IngestError(f"{queries} has no questions")
    return Dataset(queries.stem, "yaml", documents, out, {"questions": len(out)})
