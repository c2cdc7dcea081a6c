"""``resolve``: a provider by name, with environment defaults."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from jw_gen.errors import UnknownProviderError
from jw_gen.providers.defaults import DEFAULT_MODELS, DEFAULT_PROVIDER
from jw_gen.providers.protocol import GenerationProvider

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_PROVIDER",
    "MODEL_ENV",
    "PROVIDER_ENV",
    "provider_names",
    "resolve",
]

PROVIDER_ENV = "JW_GEN_PROVIDER"
MODEL_ENV = "JW_GEN_MODEL"


def _ollama(**kw: Any) -> GenerationProvider:
    from jw_gen.providers._ollama import OllamaProvider

    return OllamaProvider(**kw)


def _anthropic(**kw: Any) -> GenerationProvider:
    from jw_gen.providers._anthropic import AnthropicProvider

    return AnthropicProvider(**kw)


def _openai(**kw: Any) -> GenerationProvider:
    from jw_gen.providers._openai import OpenAIProvider

    return OpenAIProvider(**kw)


def _llamacpp(**kw: Any) -> GenerationProvider:
    from jw_gen.providers._llamacpp import LlamaCppProvider

    return LlamaCppProvider(**kw)


def _heuristic(**kw: Any) -> GenerationProvider:
    from jw_gen.providers.heuristic import HeuristicProvider

    return HeuristicProvider(**kw)


def _fake(**kw: Any) -> GenerationProvider:
    from jw_gen.providers.fake import FakeProvider

    if "answers" not in kw:
        raise UnknownProviderError(
            "the fake provider needs its answers (resolve('fake', answers=[...]) or "
            "FakeProvider(answers) in Python); for an offline stand-in from the command "
            "line use provider=heuristic"
        )
    return FakeProvider(**kw)


_FACTORIES: dict[str, Callable[..., GenerationProvider]] = {
    "ollama": _ollama,
    "anthropic": _anthropic,
    "openai": _openai,
    "llamacpp": _llamacpp,
    "heuristic": _heuristic,
    "fake": _fake,
}


def provider_names() -> tuple[str, ...]:
    """Every name :func:`resolve` accepts, sorted."""
    return tuple(sorted(_FACTORIES))


def resolve(name: str | None = None, *, model: str | None = None, **kw: Any) -> GenerationProvider:
    """The provider ``name``, else ``$JW_GEN_PROVIDER``, else :data:`DEFAULT_PROVIDER`.

    ``model`` else ``$JW_GEN_MODEL`` else :data:`DEFAULT_MODELS`. Other keywords
    go to the provider's constructor (``host=``, ``api_key=``, ``base_url=``,
    ``timeout=``; ``threads=``, ``n_ctx=``, ``max_tokens=``, ``template=`` for
    ``"llamacpp"``; ``answers=`` for ``"fake"``). Nothing connects until the first
    ``complete`` call. An unknown name raises :class:`UnknownProviderError`.
    """
    chosen = name if name is not None else (os.environ.get(PROVIDER_ENV) or DEFAULT_PROVIDER)
    chosen = chosen.strip().lower()
    factory = _FACTORIES.get(chosen)
    if factory is None:
        source = f" (from ${PROVIDER_ENV})" if name is None else ""
        raise UnknownProviderError(
            f"unknown generation provider {chosen!r}{source}; valid names: "
            f"{', '.join(provider_names())}"
        )
    chosen_model = model or os.environ.get(MODEL_ENV) or DEFAULT_MODELS[chosen]
    try:
        return factory(model=chosen_model, **kw)
    except TypeError as exc:
        raise UnknownProviderError(f"bad options for provider {chosen!r}: {exc}") from None
