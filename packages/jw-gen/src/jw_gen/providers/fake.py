"""A deterministic in-memory provider for tests and offline use."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jw_gen.errors import GenerationError

__all__ = ["FakeProvider"]


class FakeProvider:
    """Answers from a list (in order) or a function of the prompt.

    ``calls`` counts :meth:`complete` calls; ``prompts`` keeps every prompt,
    ``systems`` every system text and ``schemas`` every answer schema (or None). A list that runs out raises
    :class:`GenerationError`; an answer that is an exception instance is raised.
    """

    def __init__(
        self,
        answers: Sequence[str | BaseException] | Callable[[str], str],
        *,
        model: str = "fake",
        provider_id: str = "fake",
    ) -> None:
        self.provider_id = provider_id
        self.model = model
        self._fn = answers if callable(answers) else None
        self._answers = [] if callable(answers) else list(answers)
        self.calls = 0
        self.prompts: list[str] = []
        self.systems: list[str | None] = []
        self.settings: list[tuple[float, int | None]] = []
        self.schemas: list[Mapping[str, Any] | None] = []

    def __repr__(self) -> str:
        return f"FakeProvider(model={self.model!r}, calls={self.calls})"

    def complete(
        self,
        prompt: str,
        *,
        system: str | None = None,
        temperature: float = 0.0,
        seed: int | None = 0,
        schema: Mapping[str, Any] | None = None,
    ) -> str:
        index = self.calls
        self.calls += 1
        self.prompts.append(prompt)
        self.systems.append(system)
        self.settings.append((temperature, seed))
        self.schemas.append(schema)
        if self._fn is not None:
            return self._fn(prompt)
        if index >= len(self._answers):
            raise GenerationError(
                f"FakeProvider has {len(self._answers)} answers and was asked a "
                f"{index + 1}th time: give it more answers or a function",
                provider=self.provider_id,
            )
        answer = self._answers[index]
        if isinstance(answer, BaseException):
            raise answer
        return answer
