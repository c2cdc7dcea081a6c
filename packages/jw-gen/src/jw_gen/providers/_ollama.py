"""Ollama through the official ``ollama`` SDK (``POST /api/chat``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from jw_gen.errors import GenerationError
from jw_gen.providers._sdk import import_sdk, one_line

__all__ = ["DEFAULT_HOST", "DEFAULT_MODEL", "OllamaProvider"]

DEFAULT_MODEL = "llama3.1:8b"
DEFAULT_HOST = "http://127.0.0.1:11434"


class OllamaProvider:
    """A local Ollama server; ``host`` else ``$OLLAMA_HOST`` else 127.0.0.1:11434.

    The SDK is imported and the client built on the first :meth:`complete`, so
    constructing the provider never touches the network. A ``schema`` is sent
    as ``format``: the server constrains the answer to it.
    """

    provider_id = "ollama"

    def __init__(
        self, model: str | None = None, *, host: str | None = None, timeout: float = 120.0
    ) -> None:
        self.model = model or DEFAULT_MODEL
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
        self.timeout = timeout
        self._client: Any = None

    def __repr__(self) -> str:
        return f"OllamaProvider(model={self.model!r}, host={self.host!r})"

    def _get_client(self) -> Any:
        if self._client is None:
            sdk = import_sdk("ollama", "ollama", self.provider_id)
            self._client = sdk.Client(host=self.host, timeout=self.timeout)
        return self._client

    def complete(
        self,
        prompt: str,
        *,
        system: str | None = None,
        temperature: float = 0.0,
        seed: int | None = 0,
        schema: Mapping[str, Any] | None = None,
    ) -> str:
        client = self._get_client()
        sdk = import_sdk("ollama", "ollama", self.provider_id)
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        options: dict[str, Any] = {"temperature": temperature}
        if seed is not None:
            options["seed"] = seed
        extra: dict[str, Any] = {"format": dict(schema)} if schema is not None else {}
        try:
            response = client.chat(model=self.model, messages=messages, options=options, **extra)
        except sdk.ResponseError as exc:
            hint = (
                f"pull the model with `ollama pull {self.model}`"
                if exc.status_code == 404
                else "check the server log"
            )
            raise GenerationError(
                f"Ollama at {self.host} answered HTTP {exc.status_code} "
                f"({one_line(exc.error)}): {hint}",
                provider=self.provider_id,
            ) from None
        except (ConnectionError, OSError) as exc:
            raise GenerationError(
                f"cannot reach Ollama at {self.host} ({one_line(exc, 80)}): start it with "
                "`ollama serve` or set OLLAMA_HOST",
                provider=self.provider_id,
            ) from None
        except Exception as exc:  # httpx timeouts and protocol errors
            raise GenerationError(
                f"Ollama at {self.host} failed: {type(exc).__name__}: {one_line(exc)}",
                provider=self.provider_id,
            ) from None
        content = response.message.content if response.message else None
        if not isinstance(content, str):
            raise GenerationError(
                f"Ollama at {self.host} returned no message content for model {self.model}",
                provider=self.provider_id,
            )
        return content
