"""A rule-based stand-in for a language model, for offline chunk refinement.

:class:`HeuristicProvider` is not a language model. It reads the numbered
chunk prompt the LLM chunker sends, applies two fixed, documented rules and
answers in the same JSON a model is asked for::

    {"actions": [{"op": "merge", "chunk_indices": [3, 4]},
                 {"op": "split", "chunk_index": 6, "after_paragraph": 2}]}

The prompt lines it reads (anything else is ignored)::

    Language: en
    Size limit: 1950 characters per chunk
    [chunk 3] (812 characters, 2 paragraphs)
    (1) first paragraph of chunk 3, on one line
    (2) second paragraph ...

Rules, in this order, each chunk taking part in at most one action:

* **merge**: chunk *j* joins the chunk (or merge run) before it when its first
  paragraph opens with a connective or a demonstrative ("This", "Moreover",
  "Además", "Esto", "Além disso", "Isso", ...) and the joined text stays
  within the size limit.
* **split**: inside a chunk left alone, the boundary before paragraph *k*
  (k >= 2) is a split when that paragraph opens with a topic-shift phrase
  ("Another", "Consider", "Otro", "Consideremos", "Outro", "Considere", ...)
  or shares under 8% of its content words (5+ letters) with the paragraphs
  before it in the chunk; the boundary with the least overlap wins. Both
  sides, and the paragraph before the boundary, must have 200+ characters
  (a heading is never split from the paragraph it introduces).

Same prompt, same answer: there is no randomness, and ``temperature``,
``seed`` and ``schema`` are accepted and ignored (its answers fit the chunker's
schema by construction).
"""

from __future__ import annotations

import json
import re

from jw_gen.providers._base import Provider, Request
from jw_gen.providers.defaults import DEFAULT_MODELS

__all__ = ["HeuristicProvider"]

_LANG = re.compile(r"^Language:\s*(\S+)", re.M)
_LIMIT = re.compile(r"^Size limit:\s*(\d+)", re.M)
_CHUNK = re.compile(r"^\[chunk (\d+)\] \((\d+) characters(?:, \d+ paragraphs?)?\)\s*$")
_PARA = re.compile(r"^\((\d+)\) (.*)$")
_WORD = re.compile(r"[^\W\d_]{5,}")

_LINKING = {
    "en": (
        "this", "these", "that", "those", "such", "thus", "also", "moreover",
        "furthermore", "besides", "likewise", "similarly", "in addition",
        "for example", "for instance", "in fact", "indeed", "in the same way",
    ),
    "es": (
        "esto", "este", "esta", "estos", "estas", "eso", "esa", "ese", "esos", "esas",
        "así", "además", "también", "asimismo", "igualmente", "de igual modo",
        "del mismo modo", "por ejemplo", "de hecho", "en efecto", "tal", "tales",
    ),
    "pt": (
        "isso", "isto", "este", "esta", "estes", "estas", "esse", "essa", "esses",
        "essas", "assim", "além disso", "também", "igualmente", "da mesma forma",
        "do mesmo modo", "por exemplo", "de fato", "na verdade", "tal", "tais",
    ),
}  # fmt: skip
_SHIFT = {
    "en": ("another", "consider", "next", "turning to", "what about", "now let us"),
    "es": ("otro", "otra", "consideremos", "pasemos", "ahora bien", "¿y qué"),
    "pt": ("outro", "outra", "considere", "passemos", "agora vejamos", "e quanto"),
}
_OVERLAP_MIN = 0.08
_MIN_SIDE = 200  # never split off a heading or a stub


def _opens_with(text: str, phrases: tuple[str, ...]) -> bool:
    head = text.lstrip("\"'“‘¿¡(«— ").lower()
    for phrase in phrases:
        if head.startswith(phrase):
            rest = head[len(phrase) : len(phrase) + 1]
            if not rest or not (rest.isalnum() or rest == "-"):
                return True
    return False


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _parse(prompt: str) -> tuple[str, int | None, list[tuple[int, int, list[str]]]]:
    lang_m = _LANG.search(prompt)
    limit_m = _LIMIT.search(prompt)
    language = lang_m.group(1).lower()[:2] if lang_m else "en"
    limit = int(limit_m.group(1)) if limit_m else None
    chunks: list[tuple[int, int, list[str]]] = []
    for line in prompt.splitlines():
        head = _CHUNK.match(line)
        if head:
            chunks.append((int(head.group(1)), int(head.group(2)), []))
            continue
        para = _PARA.match(line)
        if para and chunks:
            chunks[-1][2].append(para.group(2))
    return language, limit, chunks


def _best_split(paras: list[str], shift: tuple[str, ...]) -> int | None:
    best: tuple[float, int] | None = None
    seen = _words(paras[0])
    sizes = [len(p) for p in paras]
    for k in range(1, len(paras)):
        words = _words(paras[k])
        if sum(sizes[:k]) < _MIN_SIDE or sum(sizes[k:]) < _MIN_SIDE or sizes[k - 1] < _MIN_SIDE:
            seen |= words
            continue
        overlap = len(words & seen) / len(words) if words else 1.0
        score = -1.0 if _opens_with(paras[k], shift) else overlap
        if score < _OVERLAP_MIN and (best is None or score < best[0]):
            best = (score, k)
        seen |= words
    return best[1] if best else None


def _first_index(action: dict[str, object]) -> int:
    indices = action.get("chunk_indices")
    if isinstance(indices, list):
        return int(indices[0])
    return int(str(action["chunk_index"]))


class HeuristicProvider(Provider):
    """Deterministic rules that answer the LLM chunker's prompt (see module doc)."""

    provider_id = "heuristic"

    def __init__(self, model: str | None = None) -> None:
        self.model = model or DEFAULT_MODELS[self.provider_id]
        self.calls = 0

    def __repr__(self) -> str:
        return f"HeuristicProvider(model={self.model!r})"

    def _answer(self, request: Request) -> str:
        self.calls += 1
        language, limit, chunks = _parse(request.prompt)
        linking = _LINKING.get(language, ())
        shift = _SHIFT.get(language, ())
        runs: list[list[int]] = []
        run_size = 0
        used: set[int] = set()
        for pos in range(1, len(chunks)):
            index, size, paras = chunks[pos]
            prev_index, prev_size, _ = chunks[pos - 1]
            if not paras or not _opens_with(paras[0], linking) or prev_index != index - 1:
                continue
            if runs and runs[-1][-1] == prev_index:
                total = run_size + 2 + size
                if limit is None or total <= limit:
                    runs[-1].append(index)
                    run_size = total
                    used.add(index)
                continue
            total = prev_size + 2 + size
            if limit is None or total <= limit:
                runs.append([prev_index, index])
                run_size = total
                used.update((prev_index, index))
        actions: list[dict[str, object]] = [{"op": "merge", "chunk_indices": run} for run in runs]
        for index, _size, paras in chunks:
            if index in used or len(paras) < 2:
                continue
            k = _best_split(paras, shift)
            if k is not None:
                actions.append({"op": "split", "chunk_index": index, "after_paragraph": k})
        actions.sort(key=_first_index)
        return json.dumps({"actions": actions}, ensure_ascii=False)
