"""What the LLM chunker says to the model: the system prompt and the user prompt.

The user prompt lists the chunks of one call, each under a header
``[chunk C] (S characters, N paragraphs)`` with its paragraphs on the lines
``(P) text``: ``C`` and ``P`` are exactly the numbers an answer cites
(``chunk_index`` / ``chunk_indices`` and ``after_paragraph``). Neither prompt
holds a concrete index: the answer's shape is shown with placeholders, so a
model that copies it writes no action that looks valid by accident.
:data:`PROMPT_VERSION` is part of every cache key: change it with the text.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PROMPT_VERSION", "SYSTEM_PROMPT", "build_prompt", "shown_size"]

PROMPT_VERSION = "2"

SYSTEM_PROMPT = (
    "You review how a document was cut into chunks for search. A good chunk holds one "
    "complete argument or topic: an argument's premise, its turn (however, but, yet) and "
    "its conclusion (therefore, so) belong in one chunk, and a chunk should not mix two "
    "unrelated topics.\n"
    "Each chunk is shown under a header [chunk C] with its paragraphs numbered (1), (2), ... "
    "Propose only changes that clearly help:\n"
    "- merge: adjacent chunks C, C+1, ... that continue one argument (the later one opens "
    "with a connective or refers back to the earlier one), if the merged text stays within "
    "the size limit;\n"
    "- split: chunk C between its paragraphs P and P+1, where a new topic starts.\n"
    "Answer with one JSON object and nothing else:\n"
    '{"actions": [ACTION, ...]}\n'
    'where each ACTION is {"op": "merge", "chunk_indices": [C, C+1]} '
    'or {"op": "split", "chunk_index": C, "after_paragraph": P}.\n'
    "C is a chunk number from a header shown, P a paragraph number of that chunk below its "
    "last one. Each chunk takes part in at most one action. Most chunks need no change: "
    'answer {"actions": []} when none clearly helps.'
)


def shown_size(texts: Sequence[str]) -> int:
    """The size a chunk header states: its paragraphs' characters, two between each."""
    return sum(len(t) for t in texts) + 2 * (len(texts) - 1)


def build_prompt(
    chunks: Sequence[Sequence[str]],
    *,
    first_index: int,
    total: int,
    language: str | None,
    size_limit: int,
) -> str:
    """The user prompt: each chunk's header and its numbered paragraphs, one per line."""
    last = first_index + len(chunks) - 1
    lines = [
        f"Language: {language or 'unknown'}",
        f"Size limit: {size_limit} characters per chunk",
        f"Chunks shown: {first_index} to {last} (of {total} in the document)",
        "",
    ]
    for offset, texts in enumerate(chunks):
        size = shown_size(texts)
        noun = "paragraph" if len(texts) == 1 else "paragraphs"
        lines.append(f"[chunk {first_index + offset}] ({size} characters, {len(texts)} {noun})")
        for n, text in enumerate(texts, 1):
            lines.append(f"({n}) {' '.join(text.split())}")
        lines.append("")
    lines.append(f"Answer with the JSON object only; chunk numbers are {first_index} to {last}.")
    return "\n".join(lines)
