"""The generation provider protocol: one ``complete`` method."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["GenerationProvider"]


@runtime_checkable
class GenerationProvider(Protocol):
    """Turns a prompt into text.

    ``provider_id`` names the backend ("ollama", "anthropic", "openai", "fake",
    "heuristic"), ``model`` the model it asks. Callers pass ``temperature=0``
    and a fixed ``seed`` so that answers repeat; backends whose API has no seed
    ignore it. ``schema``, when given, is a JSON schema the answer must match
    (the answer is then that JSON as text): a backend that can constrain its
    output sends or enforces it (Ollama ``format``, OpenAI ``response_format``,
    an Anthropic tool, llama.cpp constrained decoding); the caller still
    validates. Failures raise :class:`jw_gen.errors.GenerationError`.
    """

    provider_id: str
    model: str

    def complete(
        self,
        prompt: str,
        *,
        system: str | None = None,
        temperature: float = 0.0,
        seed: int | None = 0,
        schema: Mapping[str, Any] | None = None,
    ) -> str: ...
