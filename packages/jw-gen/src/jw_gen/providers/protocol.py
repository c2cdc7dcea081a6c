"""The generation provider protocol: one ``complete`` method."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["GenerationProvider"]


@runtime_checkable
class GenerationProvider(Protocol):
    """Turns a prompt into text.

    ``provider_id`` names the backend ("ollama", "anthropic", "openai", "fake",
    "heuristic"), ``model`` the model it asks. Callers pass ``temperature=0``
    and a fixed ``seed`` so that answers repeat; backends whose API has no seed
    ignore it. Failures raise :class:`jw_gen.errors.GenerationError`.
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
    ) -> str: ...
