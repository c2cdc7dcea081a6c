"""The LLM chunker: a language model reviews the semantic chunks.

The document is first chunked by :class:`~jw_rag.chunkers.SemanticChunker`
(same size parameters). The model is shown those chunks, numbered from 0, with
the paragraphs of each chunk numbered from 1 (the part of a paragraph a chunk
holds counts as one paragraph; :mod:`~jw_rag.chunkers.llm_prompt`), and answers
JSON (:mod:`~jw_rag.chunkers.llm_answer`)::

    {"actions": [{"op": "split", "chunk_index": C, "after_paragraph": P},
                 {"op": "merge", "chunk_indices": [C, C + 1]}]}

Each call also hands the provider the answer's JSON schema
(:func:`~jw_rag.chunkers.llm_answer.actions_schema`, bounded to the chunks of
that call); providers that can constrain their output to it do (a provider
object whose ``complete`` takes no ``schema`` keyword is asked without it).

Validation (any failure rejects the whole answer: ``invalid_answer: ...``):
the answer holds one JSON object with an ``actions`` list (prose around it and
a `````json`` fence are tolerated) with no more actions than chunks shown
(the schema's ``maxItems``); every index is in range; a merge names two
or more consecutive indices in increasing order; a split names a chunk with
``n >= 2`` paragraphs and ``1 <= after_paragraph <= n - 1``.

Conflicts: each chunk takes part in at most one action. Actions are taken in
the order given; one that names a chunk an earlier kept action already named
is dropped (the first action wins) and recorded in ``llm_rejected`` of the
chunks it named, as is a merge whose text would exceed ``max_chars * (1 +
overflow)``. Every action refers to the original chunk numbers; the new
boundaries are computed in one pass over the original list, so no action
shifts another's indices. Output chunks are rebuilt from the source
paragraphs, so the provenance invariant holds.

Metadata added to every chunk: ``llm_status`` (``"ok"``, ``"cached"``,
``"no_actions"``, ``"provider_error: ..."`` or ``"invalid_answer: ..."``),
``llm_actions`` (the actions that shaped this chunk, possibly ``[]``),
``llm_provider`` and ``llm_model``; ``llm_rejected`` when an action naming it
was dropped. A provider failure or an invalid answer returns the semantic
chunks with the status saying why, is logged once per kind of reason, and is
never cached; an answer with dropped conflicting actions is applied but not
cached. Long documents are sent in several calls, each holding consecutive
chunks whose text fits ``max_prompt_chars``; a merge cannot cross two calls.
When a later call fails (a provider error such as HTTP 429, or an invalid
answer), the document falls back, and the valid answers of the calls before it
are cached as a partial entry: the next run asks only from the failed call on.
A
call whose chunks allow no action (one paragraph each, no merge within the size
cap: a one-paragraph document, say) is not made; its chunks are ``no_actions``.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jw_rag.chunkers._options import flag, optional_path, whole
from jw_rag.chunkers._pieces import Piece
from jw_rag.chunkers.base import ChunkerBase, ChunkInput
from jw_rag.chunkers.chunk_cache import DEFAULT_MAX_BYTES, ChunkCache, cache_key
from jw_rag.chunkers.llm_answer import (
    InvalidAnswer,
    LLMAction,
    Merge,
    Split,
    actions_schema,
    parse_answer,
)
from jw_rag.chunkers.llm_prompt import PROMPT_VERSION, SYSTEM_PROMPT, build_prompt, shown_size
from jw_rag.chunkers.protocol import identity
from jw_rag.chunkers.semantic_chunker import SemanticChunker
from jw_rag.errors import ConfigError, llm_extra_missing, shown_value
from jw_rag.model import (
    Chunk,
    Paragraph,
    ParagraphInput,
    Span,
    as_paragraphs,
    content_bounds,
    rebuild_text,
)

try:  # jw-gen is the `llm` extra: without it this module cannot be used at all
    from jw_gen.errors import GenerationError
    from jw_gen.providers import resolve
except ModuleNotFoundError as _missing:
    if _missing.name != "jw_gen":  # jw-gen is there but broken: say what is missing
        raise
    raise llm_extra_missing() from None

__all__ = [
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "InvalidAnswer",
    "LLMAction",
    "LLMChunker",
    "Merge",
    "Split",
    "actions_schema",
    "build_prompt",
    "parse_answer",
]

log = logging.getLogger(__name__)

VERSION = f"1+prompt{PROMPT_VERSION}"
_KEPT_META = ("merge_reason", "closure_marker", "fallback", "mixed_language")
_warned: set[str] = set()
#: The answer recorded for a call not made: chunks of one paragraph each, none of
#: which fits a merge (a single-paragraph document, say), leave nothing to propose.
_NOTHING_TO_ASK = '{"actions": []}'


@dataclass(frozen=True, slots=True)
class _Rejected:
    """An action dropped by the plan, and why."""

    action: LLMAction
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.action.as_dict(), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class _ParaPart:
    """The part of source paragraph ``para`` a chunk holds: ``[start, end)``."""

    para: int
    start: int
    end: int


def _para_parts(chunk: Chunk, paras: Sequence[Paragraph]) -> list[_ParaPart]:
    span = chunk.span
    out: list[_ParaPart] = []
    for k in range(span.start_para, span.end_para + 1):
        lo, hi = content_bounds(paras[k].text)
        a = span.start_char if k == span.start_para else lo
        b = span.end_char if k == span.end_para else hi
        if b > a and paras[k].text[a:b].strip():
            out.append(_ParaPart(k, a, b))
    return out


def _takes_schema(provider: Any) -> bool:
    """Whether ``provider.complete`` accepts a ``schema`` keyword."""
    try:
        params = inspect.signature(provider.complete).parameters
    except (TypeError, ValueError):
        return False
    return "schema" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _warn_once(source_id: str, status: str) -> None:
    kind = re.sub(r"\d+", "N", status)
    if kind not in _warned:
        _warned.add(kind)
        log.warning("LLM chunker fell back to semantic chunks (%s): %s", source_id, status)


class LLMChunker(ChunkerBase):
    """Semantic chunks, then merges and splits proposed by a generation provider.

    ``provider`` is a name for :func:`jw_gen.providers.resolve` (else
    ``$JW_GEN_PROVIDER``, else ``"ollama"``) or a provider object; ``model``
    else ``$JW_GEN_MODEL`` else the provider's default. Answers are cached under
    ``cache_dir`` (else ``$JW_CHUNK_CACHE_DIR``), capped at ``cache_max_bytes``.
    With ``strict=True`` a provider failure raises
    :class:`~jw_gen.errors.GenerationError` (also importable as
    ``jw_rag.errors.GenerationError``) instead of falling back.
    """

    name = "llm"
    version = VERSION

    def __init__(
        self,
        *,
        provider: Any = None,
        model: str | None = None,
        max_chars: int = 1500,
        min_chars: int = 80,
        overflow: float = 0.30,
        max_continuations: int = 2,
        markers_path: str | Path | None = None,
        cache: bool = True,
        cache_dir: str | Path | None = None,
        cache_max_bytes: int = DEFAULT_MAX_BYTES,
        max_prompt_chars: int = 12000,
        strict: bool = False,
        provider_options: Mapping[str, Any] | None = None,
    ) -> None:
        max_prompt_chars = whole("max_prompt_chars", max_prompt_chars, low=1)
        cache = flag("cache", cache)
        strict = flag("strict", strict)
        cache_dir = optional_path("cache_dir", cache_dir)
        if provider_options is not None and (
            not isinstance(provider_options, Mapping)
            or not all(isinstance(key, str) for key in provider_options)
        ):
            raise ConfigError(
                "provider_options must be a mapping of the provider's option names to "
                f"values (such as {{'template': 'chatml'}}), got {shown_value(provider_options)}"
            )
        self.semantic = SemanticChunker(
            max_chars=max_chars,
            min_chars=min_chars,
            overflow=overflow,
            max_continuations=max_continuations,
            markers_path=markers_path,
        )
        self.provider = self._resolve(provider, model, dict(provider_options or {}))
        self.cache = ChunkCache(cache_dir, max_bytes=cache_max_bytes) if cache else None
        self.max_prompt_chars = max_prompt_chars
        self.strict = strict
        self.stats = {"documents": 0, "cache_hits": 0, "cache_misses": 0, "provider_calls": 0}

    @staticmethod
    def _resolve(provider: Any, model: str | None, options: dict[str, Any]) -> Any:
        if provider is not None and not isinstance(provider, str):
            if not (hasattr(provider, "complete") and hasattr(provider, "provider_id")):
                raise ConfigError(
                    f"provider must be a name or an object with provider_id, model and "
                    f"complete(), got {type(provider).__name__}"
                )
            return provider
        try:
            return resolve(provider, model=model, **options)
        except GenerationError as exc:
            raise ConfigError(str(exc)) from None

    @property
    def cap(self) -> int:
        return self.semantic.cap

    def params(self) -> dict[str, Any]:
        """The options that shape the chunks (see :class:`~jw_rag.chunkers.Chunker`):
        the semantic chunker's identity, the model, the prompt and its limits.
        Cache options and how the model is reached (``provider_options``) do not."""
        return {
            "semantic": identity(self.semantic),
            "provider": str(self.provider.provider_id),
            "model": str(self.provider.model),
            "prompt_version": PROMPT_VERSION,
            "max_prompt_chars": self.max_prompt_chars,
            "strict": self.strict,
        }

    def _answer_params(self) -> dict[str, Any]:
        """The parameters that shape a provider's answer (part of the cache key)."""
        s = self.semantic
        return {
            "chunker_version": self.version,
            "semantic_version": s.version,
            "max_chars": s.max_chars,
            "min_chars": s.min_chars,
            "overflow": s.overflow,
            "max_continuations": s.max_continuations,
            "max_prompt_chars": self.max_prompt_chars,
        }

    def __repr__(self) -> str:
        return f"LLMChunker(provider={self.provider!r}, {self.semantic!r})"

    def _batches(self, texts: list[list[str]]) -> list[tuple[int, int]]:
        """The calls a document needs: ``(first, end)`` chunk ranges whose text
        fits ``max_prompt_chars`` (one chunk at least)."""
        batches: list[tuple[int, int]] = []
        start, size = 0, 0
        for i, chunk_texts in enumerate(texts):
            n = sum(len(t) for t in chunk_texts) + 40 * len(chunk_texts)
            if i > start and size + n > self.max_prompt_chars:
                batches.append((start, i))
                start, size = i, 0
            size += n
        batches.append((start, len(texts)))
        return batches

    def prompts(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """The prompts a cold cache would send for this document (one per call)."""
        paras = as_paragraphs(paragraphs)
        base = self.semantic.chunk(paras, source_id, metadata=metadata)
        texts = self._texts(base, paras)
        language = base[0].metadata.get("language") if base else None
        return [
            build_prompt(
                texts[a:b], first_index=a, total=len(texts), language=language, size_limit=self.cap
            )
            for a, b in self._batches(texts)
        ]

    @staticmethod
    def _texts(base: list[Chunk], paras: list[Paragraph]) -> list[list[str]]:
        return [[paras[s.para].text[s.start : s.end] for s in _para_parts(c, paras)] for c in base]

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        paras = as_paragraphs(paragraphs)
        base = self.semantic.chunk(paras, source_id, metadata=metadata)
        if not base:
            return base
        self.stats["documents"] += 1
        language = base[0].metadata.get("language")
        parts = [_para_parts(c, paras) for c in base]
        texts = [[paras[s.para].text[s.start : s.end] for s in held] for held in parts]
        counts = [len(t) for t in texts]
        key = cache_key(
            source_id=source_id,
            paragraphs=[(p.id, p.text) for p in paras],
            provider_id=str(self.provider.provider_id),
            model=str(self.provider.model),
            prompt_version=PROMPT_VERSION,
            params=self._answer_params(),
            language=language,
        )
        batches = self._batches(texts)
        actions: list[LLMAction] | None = None
        status = "ok"
        answers: list[str] = []
        if self.cache is not None:
            entry = self.cache.get(key)
            if entry is not None:
                actions = self._from_entry(entry, batches, counts)
                if actions is not None:
                    status = "cached"
                    self.stats["cache_hits"] += 1
                else:
                    answers = self._partial(entry, batches, counts)
            if actions is None:
                self.stats["cache_misses"] += 1
        if actions is None:
            try:
                actions = self._ask(texts, batches, counts, language, answers)
            except (GenerationError, InvalidAnswer) as exc:
                if self.cache is not None and answers:
                    partial = self._entry(source_id, language, answers, [])
                    self._remember(key, {**partial, "partial": True})
                if isinstance(exc, InvalidAnswer):
                    return self._fallback(base, f"invalid_answer: {exc}", source_id)
                if self.strict:
                    raise
                return self._fallback(base, f"provider_error: {exc}", source_id)
            if not actions:
                status = "no_actions"
        kept, rejected = self._plan(actions, parts, paras)
        if status in ("ok", "no_actions") and self.cache is not None:
            if not any(r.reason.startswith("conflict") for r in rejected):
                self._remember(key, self._entry(source_id, language, answers, actions))
        return self._apply(base, parts, paras, kept, rejected, status, source_id, metadata)

    def _remember(self, key: str, entry: dict[str, Any]) -> None:
        """Cache an answer; a cache that cannot be written (full disk, no
        permission) costs the next run a call, never this one its chunks."""
        assert self.cache is not None
        try:
            self.cache.put(key, entry)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            if f"cache:{reason}" not in _warned:
                _warned.add(f"cache:{reason}")
                log.warning(
                    "LLM chunker cache %s cannot be written (%s): answers are not cached; "
                    "free space or give a writable cache_dir",
                    self.cache.directory,
                    reason,
                )

    def _ask(
        self,
        texts: list[list[str]],
        batches: list[tuple[int, int]],
        counts: list[int],
        language: str | None,
        answers: list[str],
    ) -> list[LLMAction]:
        """The actions of every call, appending each usable answer to ``answers``;
        the calls whose answers ``answers`` already holds (valid answers kept from
        an earlier run that failed later on) are not made again."""
        actions: list[LLMAction] = []
        for (a, b), answer in zip(batches, answers, strict=False):
            actions.extend(parse_answer(answer, counts[a:b], first_index=a))
        takes_schema = _takes_schema(self.provider)
        for a, b in batches[len(answers) :]:
            prompt = build_prompt(
                texts[a:b], first_index=a, total=len(texts), language=language, size_limit=self.cap
            )
            schema = actions_schema(
                counts[a:b],
                first_index=a,
                sizes=[shown_size(t) for t in texts[a:b]],
                size_limit=self.cap,
            )
            if schema["properties"]["actions"]["maxItems"] == 0:
                answers.append(_NOTHING_TO_ASK)  # no split or merge possible: nothing to ask
                continue
            self.stats["provider_calls"] += 1
            options: dict[str, Any] = {"system": SYSTEM_PROMPT, "temperature": 0.0, "seed": 0}
            if takes_schema:
                options["schema"] = schema
            answer = self.provider.complete(prompt, **options)
            if not isinstance(answer, str):
                raise InvalidAnswer(f"the provider returned {type(answer).__name__}, not text")
            actions.extend(parse_answer(answer, counts[a:b], first_index=a))
            answers.append(answer)
        return actions

    def _from_entry(
        self, entry: Mapping[str, Any], batches: list[tuple[int, int]], counts: list[int]
    ) -> list[LLMAction] | None:
        answers = entry.get("answers")
        if entry.get("partial") or not isinstance(answers, list) or len(answers) != len(batches):
            return None
        actions: list[LLMAction] = []
        try:
            for (a, b), answer in zip(batches, answers, strict=True):
                actions.extend(parse_answer(str(answer), counts[a:b], first_index=a))
        except InvalidAnswer:
            return None
        return actions

    @staticmethod
    def _partial(
        entry: Mapping[str, Any], batches: list[tuple[int, int]], counts: list[int]
    ) -> list[str]:
        """The valid answers a partial entry holds for the first calls (else none)."""
        answers = entry.get("answers")
        if not entry.get("partial") or not isinstance(answers, list):
            return []
        if len(answers) >= len(batches) or not all(isinstance(x, str) for x in answers):
            return []
        try:
            for (a, b), answer in zip(batches, answers, strict=False):
                parse_answer(answer, counts[a:b], first_index=a)
        except InvalidAnswer:
            return []
        return list(answers)

    def _entry(
        self,
        source_id: str,
        language: str | None,
        answers: list[str],
        actions: list[LLMAction],
    ) -> dict[str, Any]:
        return {
            "source_id": source_id,
            "language": language,
            "provider_id": self.provider.provider_id,
            "model": self.provider.model,
            "prompt_version": PROMPT_VERSION,
            "params": self._answer_params(),
            "answers": answers,
            "actions": [a.as_dict() for a in actions],
        }

    def _fallback(self, base: list[Chunk], status: str, source_id: str) -> list[Chunk]:
        _warn_once(source_id, status)
        for c in base:
            self._stamp(c.metadata, status, [])
        return base

    def _stamp(self, meta: dict[str, Any], status: str, shaped: list[dict[str, Any]]) -> None:
        meta["chunker"] = self.name
        meta["chunker_version"] = self.version
        meta["llm_status"] = status
        meta["llm_actions"] = shaped
        meta["llm_provider"] = self.provider.provider_id
        meta["llm_model"] = self.provider.model

    def _plan(
        self, actions: list[LLMAction], parts: list[list[_ParaPart]], paras: list[Paragraph]
    ) -> tuple[dict[int, LLMAction], list[_Rejected]]:
        """Kept actions by the first chunk they name, and the dropped ones with a reason."""
        claimed: set[int] = set()
        kept: dict[int, LLMAction] = {}
        rejected: list[_Rejected] = []
        for action in actions:
            named = action.named
            if claimed.intersection(named):
                reason = "conflict: a chunk it names is in an earlier action"
                if any(action == k for k in kept.values()):
                    reason = "conflict: duplicate of an earlier action"
                rejected.append(_Rejected(action, reason))
                continue
            if isinstance(action, Merge):
                first, last = parts[named[0]][0], parts[named[-1]][-1]
                size = len(rebuild_text(paras, Span(first.para, first.start, last.para, last.end)))
                if size > self.cap:
                    rejected.append(_Rejected(action, f"too_long: {size} > {self.cap} characters"))
                    continue
            claimed.update(named)
            kept[named[0]] = action
        return kept, rejected

    def _apply(
        self,
        base: list[Chunk],
        parts: list[list[_ParaPart]],
        paras: list[Paragraph],
        kept: dict[int, LLMAction],
        rejected: list[_Rejected],
        status: str,
        source_id: str,
        metadata: Mapping[str, Any] | None,
    ) -> list[Chunk]:
        """The chunks the kept actions make of ``base``, rebuilt from ``paras``."""
        pieces, origin = _reshape(base, parts, kept)
        _note_rejected(pieces, origin, rejected)
        language = base[0].metadata.get("language")
        doc = ChunkInput(source_id, [p.text for p in paras], paras, language, metadata)
        chunks = self._build(doc, pieces)
        for c in chunks:
            self._stamp(c.metadata, status, c.metadata.get("llm_actions", []))
        return chunks


def _reshape(
    base: list[Chunk], parts: list[list[_ParaPart]], kept: dict[int, LLMAction]
) -> tuple[list[Piece], list[list[int]]]:
    """The pieces the kept actions (by the first chunk they name) make of the
    ``base`` chunks, each with the original chunks behind it."""
    pieces: list[Piece] = []
    origin: list[list[int]] = []
    i = 0
    while i < len(base):
        action = kept.get(i)
        kept_meta = {k: base[i].metadata[k] for k in _KEPT_META if k in base[i].metadata}
        if action is None:
            pieces.append(Piece(base[i].span, {**kept_meta, "llm_actions": []}))
            origin.append([i])
            i += 1
        elif isinstance(action, Merge):
            last = action.chunk_indices[-1]
            pieces.append(_merged(base, parts, i, last, action))
            origin.append(list(range(i, last + 1)))
            i = last + 1
        else:
            for piece in _split(parts[i], kept_meta, action):
                pieces.append(piece)
                origin.append([i])
            i += 1
    return pieces, origin


def _merged(
    base: list[Chunk], parts: list[list[_ParaPart]], first: int, last: int, action: Merge
) -> Piece:
    a, b = parts[first][0], parts[last][-1]
    extra = {
        "merge_reason": "llm_merge",
        "closure_marker": base[last].metadata.get("closure_marker"),
        "llm_actions": [action.as_dict()],
    }
    return Piece(Span(a.para, a.start, b.para, b.end), extra)


def _split(parts: list[_ParaPart], kept_meta: dict[str, Any], action: Split) -> list[Piece]:
    """The two pieces of a split chunk: the closure marker stays with the tail."""
    k = action.after_paragraph
    shaped = action.as_dict()
    out: list[Piece] = []
    for part, closure in ((parts[:k], None), (parts[k:], kept_meta.get("closure_marker"))):
        extra = {
            **kept_meta,
            "merge_reason": kept_meta.get("merge_reason") if len(part) > 1 else None,
            "closure_marker": closure,
            "llm_actions": [shaped],
        }
        s, e = part[0], part[-1]
        out.append(Piece(Span(s.para, s.start, e.para, e.end), extra))
    return out


def _note_rejected(pieces: list[Piece], origin: list[list[int]], rejected: list[_Rejected]) -> None:
    """Record each dropped action in ``llm_rejected`` of the pieces from the chunks it named."""
    for r in rejected:
        named = set(r.action.named)
        record = r.as_dict()
        for piece, src in zip(pieces, origin, strict=True):
            if named.intersection(src):
                piece.extra.setdefault("llm_rejected", []).append(record)
