"""OpenAI (or any compatible server) through the official ``openai`` SDK
(``POST /v1/chat/completions``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from jw_gen.errors import GenerationError
from jw_gen.providers._sdk import import_sdk, one_line, schema_name

__all__ = ["DEFAULT_MODEL", "OpenAIProvider"]

DEFAULT_MODEL = "gpt-4o-mini"


class OpenAIProvider:
    """Chat Completions; key from ``api_key`` else ``$OPENAI_API_KEY``, server
    from ``base_url`` else ``$OPENAI_BASE_URL`` else the SDK default. A
    ``schema`` is sent as a strict ``json_schema`` response format (named by its
    ``title``), which OpenAI and compatible servers (llama.cpp, vLLM) enforce."""

    provider_id = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 120.0,
    ) -> None:
        self.model = model or DEFAULT_MODEL
        self.api_key = api_key
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.timeout = timeout
        self._client: Any = None

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={self.base_url!r})"

    def _get_client(self) -> Any:
        if self._client is None:
            sdk = import_sdk("openai", "openai", self.provider_id)
            key = self.api_key or os.environ.get("OPENAI_API_KEY")
            if not key:
                raise GenerationError(
                    "OPENAI_API_KEY is not set: export it or pass api_key= to the provider",
                    provider=self.provider_id,
                )
            self._client = sdk.OpenAI(
                api_key=key, base_url=self.base_url, max_retries=0, timeout=self.timeout
            )
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
        sdk = import_sdk("openai", "openai", self.provider_id)
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
        }
        if seed is not None:
            kwargs["seed"] = seed
        if schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name(schema),
                    "schema": dict(schema),
                    "strict": True,
                },
            }
        where = self.base_url or "the OpenAI API"
        try:
            completion = client.chat.completions.create(**kwargs)
        except sdk.APIStatusError as exc:
            hint = (
                "check OPENAI_API_KEY"
                if exc.status_code in (401, 403)
                else "retry later or check the model name"
            )
            raise GenerationError(
                f"{where} answered HTTP {exc.status_code} ({one_line(exc.message)}): {hint}",
                provider=self.provider_id,
            ) from None
        except sdk.APIConnectionError as exc:
            raise GenerationError(
                f"cannot reach {where} ({one_line(exc, 80)}): check the server or OPENAI_BASE_URL",
                provider=self.provider_id,
            ) from None
        except Exception as exc:  # a 200 that is not JSON, a proxy's page, a protocol error
            raise GenerationError(
                f"{where} failed: {type(exc).__name__}: {one_line(exc)}: check that "
                "OPENAI_BASE_URL points at an OpenAI-compatible API",
                provider=self.provider_id,
            ) from None
        try:
            content = completion.choices[0].message.content if completion.choices else None
        except (AttributeError, IndexError, KeyError, TypeError):
            content = None
        if not isinstance(content, str):
            raise GenerationError(
                f"{where} returned no message content for model {self.model}",
                provider=self.provider_id,
            )
        return content
