"""A deterministic in-memory provider for tests and offline use."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jw_gen.errors import GenerationError
from jw_gen.providers._base import Provider, Request
from jw_gen.providers.defaults import DEFAULT_MODELS

__all__ = ["FakeProvider"]


class FakeProvider(Provider):
    """Answers from a list (in order) or a function of the prompt.

    ``calls`` counts :meth:`complete` calls; ``prompts`` keeps every prompt,
    ``systems`` every system text and ``schemas`` every answer schema (or None). A list that runs out raises
    :class:`GenerationError`; an answer that is an exception instance is raised.
    """

    def __init__(
        self,
        answers: Sequence[str | BaseException] | Callable[[str], str],
        *,
        model: str = DEFAULT_MODELS["fake"],
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

    def _answer(self, request: Request) -> str:
        index = self.calls
        self.calls += 1
        self.prompts.append(request.prompt)
        self.systems.append(request.system)
        self.settings.append((request.temperature, request.seed))
        self.schemas.append(request.schema)
        if self._fn is not None:
            return self._fn(request.prompt)
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
