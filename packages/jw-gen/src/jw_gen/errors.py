"""Errors raised by the generation providers.

    GenerationError          a provider could not produce an answer
    └── UnknownProviderError an unknown provider name (also a ValueError)

Every message is one line naming the problem and the fix. ``jw_gen`` does not
depend on ``jw_rag``; this is the toolkit's one ``GenerationError``: the LLM
chunker raises it as it is, and ``jw_rag.errors.GenerationError`` is this class.
"""

from __future__ import annotations

__all__ = ["GenerationError", "UnknownProviderError"]


class GenerationError(Exception):
    """A provider failed: SDK missing, key missing, server unreachable, bad status."""

    def __init__(self, message: str, *, provider: str | None = None) -> None:
        super().__init__(message)
        self.provider = provider


class UnknownProviderError(GenerationError, ValueError):
    """``resolve`` was given a name no provider has."""
