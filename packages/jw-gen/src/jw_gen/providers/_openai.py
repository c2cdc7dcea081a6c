"""OpenAI (or any compatible server) through the official ``openai`` SDK
(``POST /v1/chat/completions``)."""

from __future__ import annotations

from typing import Any

from jw_gen.providers._base import KeyedProvider, Request
from jw_gen.providers._sdk import schema_name
from jw_gen.providers.defaults import DEFAULT_MODELS

__all__ = ["DEFAULT_MODEL", "OpenAIProvider"]

DEFAULT_MODEL = DEFAULT_MODELS["openai"]


class OpenAIProvider(KeyedProvider):
    """Chat Completions; key from ``api_key`` else ``$OPENAI_API_KEY``, server
    from ``base_url`` else ``$OPENAI_BASE_URL`` else the SDK default. A
    ``schema`` is sent as a strict ``json_schema`` response format (named by its
    ``title``), which OpenAI and compatible servers (llama.cpp, vLLM) enforce.
    ``max_tokens`` (default: none sent) caps the answer's length."""

    provider_id = "openai"
    client_class = "OpenAI"
    env_prefix = "OPENAI"
    api_kind = "an OpenAI-compatible API"

    def _send(self, client: Any, request: Request) -> Any:
        kwargs = self._body(messages=request.chat_messages(), temperature=request.temperature)
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name(request.schema),
                    "schema": dict(request.schema),
                    "strict": True,
                },
            }
        return client.chat.completions.create(**kwargs)

    def _text(self, response: Any) -> str | None:
        return response.choices[0].message.content if response.choices else None
