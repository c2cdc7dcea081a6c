"""Generation providers: Ollama, Anthropic, OpenAI (each SDK imported on first
use), a local GGUF model through llama.cpp (``llamacpp``), a fake for tests and
a rule-based heuristic stand-in.

>>> from jw_gen.providers import resolve
>>> provider = resolve("heuristic")          # or $JW_GEN_PROVIDER, else "ollama"
>>> provider.complete("Language: en\\n[chunk 0] (5 characters)\\n(1) Hello")
'{"actions": []}'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jw_gen.providers.fake import FakeProvider
from jw_gen.providers.heuristic import HeuristicProvider
from jw_gen.providers.protocol import GenerationProvider
from jw_gen.providers.registry import (
    DEFAULT_MODELS,
    DEFAULT_PROVIDER,
    provider_names,
    resolve,
)

if TYPE_CHECKING:
    from jw_gen.providers._anthropic import AnthropicProvider
    from jw_gen.providers._llamacpp import LlamaCppProvider
    from jw_gen.providers._ollama import OllamaProvider
    from jw_gen.providers._openai import OpenAIProvider

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_PROVIDER",
    "AnthropicProvider",
    "FakeProvider",
    "GenerationProvider",
    "HeuristicProvider",
    "LlamaCppProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "provider_names",
    "resolve",
]

_LAZY = {
    "AnthropicProvider": "jw_gen.providers._anthropic",
    "LlamaCppProvider": "jw_gen.providers._llamacpp",
    "OllamaProvider": "jw_gen.providers._ollama",
    "OpenAIProvider": "jw_gen.providers._openai",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jw_gen.providers' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
