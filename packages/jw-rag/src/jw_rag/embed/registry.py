"""``get_embedder``: an embedder from a name such as ``"use"`` or ``"ollama:bge-m3"``.

=================================  =================================================
name                               embedder
=================================  =================================================
``use`` (default)                  :class:`USEEmbedder` (USE multilingual v3, offline)
``e5`` / ``e5:enpt``                :class:`E5Embedder` (multilingual-e5-small, 4-bit,
                                   offline, needs ``jw-rag[e5]``); ``enpt`` is the
                                   English+Portuguese pruned variant
``fake`` / ``fake:<dim>``          :class:`FakeEmbedder` (hashed bag of words)
``sentence-transformers[:<m>]``    :class:`SentenceTransformerEmbedder`; ``st:`` is an
                                   alias; ``<m>`` a Hub model name or a local directory
``ollama[:<model>]``               :class:`OllamaEmbedder` (``nomic-embed-text``)
``openai[:<model>]``               :class:`OpenAIEmbedder` (``text-embedding-3-small``)
=================================  =================================================
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from jw_rag.defaults import DEFAULT_EMBEDDER
from jw_rag.embed.cache import EmbeddingCache
from jw_rag.embed.cached import CachedEmbedder
from jw_rag.embed.e5 import E5_VARIANTS, E5Embedder
from jw_rag.embed.fake import FakeEmbedder
from jw_rag.embed.ollama import DEFAULT_OLLAMA_MODEL, OllamaEmbedder
from jw_rag.embed.openai_compat import DEFAULT_OPENAI_MODEL, OpenAIEmbedder
from jw_rag.embed.protocol import Embedder
from jw_rag.embed.sentence_transformer import DEFAULT_ST_MODEL, SentenceTransformerEmbedder
from jw_rag.embed.use import USEEmbedder
from jw_rag.errors import ConfigError, check_flag

__all__ = [
    "DEFAULT_EMBEDDER",
    "ENV_VAR",
    "available_embedders",
    "embedder_name",
    "get_embedder",
]

ENV_VAR = "JW_EMBEDDER"


def _use(arg: str | None, kwargs: dict[str, Any]) -> Embedder:
    if arg:
        raise ConfigError(f"the 'use' embedder takes no model name (got 'use:{arg}')")
    return USEEmbedder(**kwargs)


def _e5(arg: str | None, kwargs: dict[str, Any]) -> Embedder:
    if arg:
        kwargs.setdefault("variant", arg)
    return E5Embedder(**kwargs)


def _fake(arg: str | None, kwargs: dict[str, Any]) -> Embedder:
    if arg:
        if not arg.isdigit():
            raise ConfigError(
                f"'fake:{arg}': the part after 'fake:' is the dimension, e.g. fake:64"
            )
        kwargs.setdefault("dim", int(arg))
    return FakeEmbedder(**kwargs)


def _st(arg: str | None, kwargs: dict[str, Any]) -> Embedder:
    return SentenceTransformerEmbedder(arg or DEFAULT_ST_MODEL, **kwargs)


def _ollama(arg: str | None, kwargs: dict[str, Any]) -> Embedder:
    return OllamaEmbedder(arg or DEFAULT_OLLAMA_MODEL, **kwargs)


def _openai(arg: str | None, kwargs: dict[str, Any]) -> Embedder:
    return OpenAIEmbedder(arg or DEFAULT_OPENAI_MODEL, **kwargs)


_KINDS: dict[str, Callable[[str | None, dict[str, Any]], Embedder]] = {
    "use": _use,
    "e5": _e5,
    "fake": _fake,
    "sentence-transformers": _st,
    "st": _st,
    "ollama": _ollama,
    "openai": _openai,
}
_VALID = (
    "use",
    "e5[:enpt]",
    "fake[:<dim>]",
    "sentence-transformers[:<model-or-dir>] (alias st:)",
    "ollama[:<model>]",
    "openai[:<model>]",
)


def embedder_name(model_id: str) -> str | None:
    """The name ``get_embedder`` takes for the offline model ``model_id``
    (``"use-multilingual-v3"`` -> ``"use"``), or None for other models."""
    if model_id == USEEmbedder.model_id:
        return DEFAULT_EMBEDDER
    for variant, known in E5_VARIANTS.items():
        if model_id == known:
            return "e5" if variant == "original" else f"e5:{variant}"
    dim = model_id.removeprefix("fake-")
    return f"fake:{dim}" if model_id.startswith("fake-") and dim.isdigit() else None


def available_embedders() -> tuple[str, ...]:
    """The name patterns ``get_embedder`` accepts."""
    return _VALID


def get_embedder(name: str | None = None, *, cache: bool = True, **kwargs: Any) -> Embedder:
    """The embedder called ``name``, else ``$JW_EMBEDDER``, else ``"use"``.

    Keyword arguments go to the embedder's constructor. With ``cache=True`` (the
    default) it is wrapped in a :class:`CachedEmbedder` over the default
    :class:`EmbeddingCache`. Nothing is loaded or contacted until the first ``embed``.
    An unknown name raises :class:`~jw_rag.errors.ConfigError` (a ``ValueError``).
    """
    check_flag("cache", cache)
    chosen = name if name is not None else (os.environ.get(ENV_VAR) or DEFAULT_EMBEDDER)
    chosen = chosen.strip()
    kind, sep, arg = chosen.partition(":")
    kind = kind.strip().lower()
    factory = _KINDS.get(kind)
    if factory is None:
        source = f" (from ${ENV_VAR})" if name is None else ""
        raise ConfigError(f"unknown embedder {chosen!r}{source}; valid names: {', '.join(_VALID)}")
    try:
        embedder = factory(arg.strip() if sep else None, dict(kwargs))
    except TypeError as exc:
        raise ConfigError(f"bad options for embedder {chosen!r}: {exc}") from exc
    return CachedEmbedder(embedder, EmbeddingCache()) if cache else embedder
