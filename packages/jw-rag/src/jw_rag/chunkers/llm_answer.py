"""The LLM chunker's answer format: its JSON schema, its actions and their validation.

An answer about the chunks ``first .. first + n - 1`` of a document::

    {"actions": [{"op": "split", "chunk_index": C, "after_paragraph": P},
                 {"op": "merge", "chunk_indices": [C, C + 1]}]}

:func:`actions_schema` is the one definition of that format as a JSON schema;
every provider that can constrain its output is given it (bounded to the chunks
of the call), and :func:`parse_answer` checks the same rules on whatever comes
back, plus the one a schema cannot say (a merge names consecutive chunks).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_MERGE",
    "SCHEMA_NAME",
    "InvalidAnswer",
    "LLMAction",
    "Merge",
    "Split",
    "actions_schema",
    "parse_answer",
]

#: The longest run of chunks the schema offers to merge (:func:`parse_answer`
#: accepts longer runs from a provider that does not constrain its output).
MAX_MERGE = 4

#: The schema's title: the name providers give it (OpenAI ``json_schema.name``,
#: the Anthropic tool's name).
SCHEMA_NAME = "chunk_actions"

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


class InvalidAnswer(ValueError):
    """The model's answer breaks the format or names impossible changes."""


@dataclass(frozen=True, slots=True)
class Split:
    """Split chunk ``chunk_index`` after its paragraph ``after_paragraph`` (from 1)."""

    chunk_index: int
    after_paragraph: int

    @property
    def named(self) -> tuple[int, ...]:
        """The chunks this action takes part in."""
        return (self.chunk_index,)

    def as_dict(self) -> dict[str, Any]:
        """The action as the model writes it (and as chunk metadata records it)."""
        return {
            "op": "split",
            "chunk_index": self.chunk_index,
            "after_paragraph": self.after_paragraph,
        }


@dataclass(frozen=True, slots=True)
class Merge:
    """Merge the consecutive chunks ``chunk_indices`` into one."""

    chunk_indices: tuple[int, ...]

    @property
    def named(self) -> tuple[int, ...]:
        """The chunks this action takes part in."""
        return self.chunk_indices

    def as_dict(self) -> dict[str, Any]:
        """The action as the model writes it (and as chunk metadata records it)."""
        return {"op": "merge", "chunk_indices": list(self.chunk_indices)}


#: One change the model proposes.
LLMAction = Split | Merge


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def actions_schema(
    counts: Sequence[int],
    *,
    first_index: int = 0,
    sizes: Sequence[int] | None = None,
    size_limit: int | None = None,
) -> dict[str, Any]:
    """The JSON schema of an answer about chunks ``first_index ..
    first_index + len(counts) - 1``, where ``counts[i]`` is how many paragraphs
    chunk ``first_index + i`` has.

    One split alternative per paragraph count ``k >= 2`` (the chunks with ``k``
    paragraphs, ``after_paragraph`` in ``1..k-1``) and one merge alternative
    whose ``chunk_indices`` is one of the runs of 2 to :data:`MAX_MERGE`
    consecutive chunks (with ``sizes`` and ``size_limit``: only the runs whose
    joined text, two characters between chunks, fits the limit); at most one
    action per chunk. Its size grows linearly with the chunks shown.
    Properties are listed in the order the answer writes them; every object is
    closed. Every answer that parses against it also passes :func:`parse_answer`.
    """
    if not counts:
        raise ValueError("an answer schema needs at least one chunk")
    n = len(counts)
    by_count: dict[int, list[int]] = {}
    for i, k in enumerate(counts):
        if k >= 2:
            by_count.setdefault(k, []).append(first_index + i)
    alternatives: list[dict[str, Any]] = [
        _object(
            {
                "op": {"type": "string", "enum": ["split"]},
                "chunk_index": {"type": "integer", "enum": indices},
                "after_paragraph": {"type": "integer", "minimum": 1, "maximum": k - 1},
            }
        )
        for k, indices in sorted(by_count.items())
    ]
    runs: list[list[int]] = []
    for i in range(n):
        size = sizes[i] if sizes is not None else 0
        for j in range(i + 1, min(n, i + MAX_MERGE)):
            if sizes is not None and size_limit is not None:
                size += 2 + sizes[j]
                if size > size_limit:
                    break
            runs.append(list(range(first_index + i, first_index + j + 1)))
    if runs:
        alternatives.append(
            _object(
                {
                    "op": {"type": "string", "enum": ["merge"]},
                    "chunk_indices": {"type": "array", "items": {"type": "integer"}, "enum": runs},
                }
            )
        )
    actions: dict[str, Any] = {"type": "array", "maxItems": n if alternatives else 0}
    if alternatives:
        actions["items"] = alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}
    return {"title": SCHEMA_NAME, **_object({"actions": actions})}


def _json_object(text: str) -> Any:
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    lo, hi = text.find("{"), text.rfind("}")
    if 0 <= lo < hi:
        candidates.append(text[lo : hi + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):  # incl. an integer too long to convert
            continue
    raise InvalidAnswer("no JSON object found in the answer")


def _int(value: Any, what: str, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidAnswer(f"action {n}: {what} must be an integer, got {value!r:.40}")
    return value


def parse_answer(text: str, counts: Sequence[int], *, first_index: int = 0) -> list[LLMAction]:
    """Validated actions of an answer about chunks ``first_index ..
    first_index + len(counts) - 1``; ``counts[i]`` is how many paragraphs the
    model saw in chunk ``first_index + i``. Raises :class:`InvalidAnswer`."""
    data = _json_object(text)
    if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
        raise InvalidAnswer('the answer is not an object with an "actions" list')
    if len(data["actions"]) > len(counts):
        raise InvalidAnswer(
            f"the answer has {len(data['actions'])} actions for {len(counts)} chunk(s); "
            "each chunk takes part in at most one"
        )
    out: list[LLMAction] = []
    for n, action in enumerate(data["actions"]):
        if not isinstance(action, dict):
            raise InvalidAnswer(f"action {n} is not an object")
        op = action.get("op")
        if op == "split":
            out.append(_parse_split(action, n, counts, first_index))
        elif op == "merge":
            out.append(_parse_merge(action, n, len(counts), first_index))
        else:
            raise InvalidAnswer(f'action {n}: op must be "split" or "merge", got {op!r:.40}')
    return out


def _check_index(index: int, n: int, count: int, first_index: int) -> None:
    last = first_index + count - 1
    if not first_index <= index <= last:
        raise InvalidAnswer(f"action {n}: chunk {index} is outside {first_index}..{last}")


def _parse_split(
    action: Mapping[str, Any], n: int, counts: Sequence[int], first_index: int
) -> Split:
    index = _int(action.get("chunk_index"), "chunk_index", n)
    after = _int(action.get("after_paragraph"), "after_paragraph", n)
    _check_index(index, n, len(counts), first_index)
    paras = counts[index - first_index]
    if not 1 <= after <= paras - 1:
        raise InvalidAnswer(
            f"action {n}: chunk {index} has {paras} paragraph(s); "
            f"after_paragraph must be in 1..{paras - 1}, got {after}"
        )
    return Split(index, after)


def _parse_merge(action: Mapping[str, Any], n: int, count: int, first_index: int) -> Merge:
    raw = action.get("chunk_indices")
    if not isinstance(raw, list) or len(raw) < 2:
        raise InvalidAnswer(f"action {n}: chunk_indices must list 2 or more chunks")
    indices = [_int(v, "chunk_indices", n) for v in raw]
    for index in indices:
        _check_index(index, n, count, first_index)
    if any(b != a + 1 for a, b in zip(indices, indices[1:], strict=False)):
        raise InvalidAnswer(f"action {n}: merge {indices} is not a run of adjacent chunks in order")
    return Merge(tuple(indices))
