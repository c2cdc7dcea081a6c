"""What a benchmark dataset is once loaded: documents, questions, and what the
loader had to repair or drop."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from jw_eval.spans import ExpectedSpan, paragraph_offsets
from jw_rag.model import PARAGRAPH_SEPARATOR, Paragraph

__all__ = ["BenchDocument", "BenchQuery", "Dataset"]


@dataclass(slots=False)
class BenchDocument:
    """One document; its text is ``paragraphs`` joined by ``"\\n\\n"``."""

    doc_id: str
    paragraphs: list[Paragraph]
    language: str | None = None
    title: str = ""

    @cached_property
    def text(self) -> str:
        return PARAGRAPH_SEPARATOR.join(p.text for p in self.paragraphs)

    @cached_property
    def offsets(self) -> list[int]:
        return paragraph_offsets(self.paragraphs)

    @cached_property
    def lengths(self) -> list[int]:
        return [len(p.text) for p in self.paragraphs]


@dataclass(frozen=True, slots=True)
class BenchQuery:
    """A question and the spans that answer it (several for multi-span evidence)."""

    id: str
    query: str
    language: str | None
    expected: tuple[ExpectedSpan, ...]

    @property
    def multi_span(self) -> bool:
        return len(self.expected) > 1


@dataclass(slots=True)
class Dataset:
    """Documents by id, questions in file order, and loader counts."""

    name: str
    format: str
    documents: dict[str, BenchDocument]
    queries: list[BenchQuery]
    stats: dict[str, int] = field(default_factory=dict)

    def languages(self) -> dict[str, int]:
        """Questions per language, most frequent first."""
        return dict(Counter(q.language or "und" for q in self.queries).most_common())

    def limited(self, limit: int | None, *, per_language: bool = False) -> Dataset:
        """The first ``limit`` questions in file order (or per language)."""
        if limit is None:
            return self
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        if per_language:
            seen: Counter[str] = Counter()
            kept = []
            for q in self.queries:
                lang = q.language or "und"
                if seen[lang] < limit:
                    seen[lang] += 1
                    kept.append(q)
        else:
            kept = self.queries[:limit]
        return Dataset(self.name, self.format, self.documents, kept, dict(self.stats))

    def for_language(self, language: str | None) -> Dataset:
        if language is None:
            return self
        kept = [q for q in self.queries if q.language == language]
        docs = {d: doc for d, doc in self.documents.items() if doc.language in (language, None)}
        return Dataset(self.name, self.format, docs, kept, dict(self.stats))
