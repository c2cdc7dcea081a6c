"""SQuAD v1.1 / v2.0 JSON (XQuAD, FaQuAD, ...).

Each article is a document whose paragraphs are its contexts in file order;
each question's evidence is the first of its gold answers that can be
located: at ``answer_start`` when the text is there, else re-found in the
context (the occurrence nearest the given offset, then case-insensitively).
Answers with a negative offset or no letter/digit are unusable; questions
with no locatable answer are dropped and counted; ``is_impossible`` ones are
skipped.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from jw_core import detect_language, normalize_language
from jw_eval.datasets.model import BenchDocument, BenchQuery, Dataset
from jw_eval.spans import ExpectedSpan
from jw_rag.errors import IngestError, shown_value
from jw_rag.model import Paragraph

__all__ = ["load_squad", "locate_answer"]

_WORDY = re.compile(r"[^\W_]")


def locate_answer(context: str, text: str, start: int) -> tuple[int, str] | None:
    """``(start, how)`` of the answer in ``context``; ``how`` is ``"offset"``,
    ``"refound"`` or ``"refound_ci"``; ``None`` when it is not there."""
    if context[start : start + len(text)] == text:
        return start, "offset"
    exact = [m.start() for m in re.finditer(re.escape(text), context)]
    if exact:
        return min(exact, key=lambda s: (abs(s - start), s)), "refound"
    folded = [m.start() for m in re.finditer(re.escape(text), context, re.IGNORECASE)]
    if folded:
        return min(folded, key=lambda s: (abs(s - start), s)), "refound_ci"
    return None


def _read(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise IngestError(f"cannot read SQuAD JSON {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise IngestError(f"{path} is not SQuAD JSON: expected an object with a 'data' list")
    return data["data"]


_SHAPE = "SQuAD holds data: [{title, paragraphs: [{context, qas: [{id, question, answers}]}]}]"


def _objects(value: Any, path: Path, where: str) -> list[dict[str, Any]]:
    """``value`` when it is a list of objects (``None``: none), else one line naming it."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise IngestError(f"{path}: {where} must be a list of objects, got {shown_value(value)}")
    return value


def load_squad(path: str | Path, *, language: str | None = None) -> Dataset:
    """Load a SQuAD-format file; ``language`` defaults to detection per article."""
    path = Path(path)
    lang_given = normalize_language(language) if language else None
    stats: Counter[str] = Counter()
    documents: dict[str, BenchDocument] = {}
    queries: list[BenchQuery] = []
    for a_index, article in enumerate(_read(path)):
        if not isinstance(article, dict):
            raise IngestError(f"{path}: data[{a_index}] is not an article object: {_SHAPE}")
        title = str(article.get("title") or f"article-{a_index + 1}")
        doc_id = title if title not in documents else f"{title}#{a_index + 1}"
        paras = _objects(article.get("paragraphs"), path, f"data[{a_index}].paragraphs")
        contexts = [str(p.get("context", "")) for p in paras]
        paragraphs = [Paragraph(c, id=str(i)) for i, c in enumerate(contexts)]
        doc_lang = lang_given or detect_language(" ".join(contexts)[:3000])
        doc = BenchDocument(doc_id, paragraphs, doc_lang, title)
        documents[doc_id] = doc
        for p_index, para in enumerate(paras):
            context = contexts[p_index]
            for qa in _objects(para.get("qas"), path, f"data[{a_index}].paragraphs[{p_index}].qas"):
                if qa.get("is_impossible"):
                    stats["skipped_impossible"] += 1
                    continue
                span = None
                where = f"data[{a_index}].paragraphs[{p_index}].qas[{qa.get('id', '?')}]"
                for n, answer in enumerate(_objects(qa.get("answers"), path, f"{where}.answers")):
                    text = str(answer.get("text", ""))
                    try:
                        start = int(answer.get("answer_start", -1))
                    except (TypeError, ValueError, OverflowError):
                        raise IngestError(
                            f"{path}: {where}: answer_start must be a whole number, got "
                            f"{shown_value(answer.get('answer_start'))}"
                        ) from None
                    if start < 0 or not _WORDY.search(text):
                        stats["answers_unusable"] += 1
                        continue
                    found = locate_answer(context, text, start)
                    if found is None:
                        stats["answers_not_found"] += 1
                        continue
                    stats[f"answers_{found[1]}"] += 1
                    if n:
                        stats["questions_using_later_answer"] += 1
                    s = doc.offsets[p_index] + found[0]
                    span = ExpectedSpan(doc_id, s, s + len(text))
                    break
                if span is None:
                    stats["questions_dropped"] += 1
                    continue
                question = qa.get("question")
                if not isinstance(question, str) or not question.strip():
                    raise IngestError(
                        f"{path}: {where}: question must be non-empty text, got "
                        f"{shown_value(question)}"
                    )
                queries.append(
                    BenchQuery(str(qa.get("id", len(queries))), question, doc_lang, (span,))
                )
    for key in ("answers_offset", "answers_refound", "answers_refound_ci", "questions_dropped"):
        stats.setdefault(key, 0)
    if not queries:
        raise IngestError(f"{path} has no answerable questions")
    return Dataset(path.stem, "squad", documents, queries, dict(stats))
