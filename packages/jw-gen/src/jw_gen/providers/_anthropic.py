"""Anthropic through the official ``anthropic`` SDK (``POST /v1/messages``)."""

from __future__ import annotations

import json
from typing import Any

from jw_gen.providers._base import KeyedProvider, Request
from jw_gen.providers._sdk import schema_name
from jw_gen.providers.defaults import DEFAULT_MODELS

__all__ = ["DEFAULT_MODEL", "AnthropicProvider"]

DEFAULT_MODEL = DEFAULT_MODELS["anthropic"]


class AnthropicProvider(KeyedProvider):
    """The Messages API; key from ``api_key`` else ``$ANTHROPIC_API_KEY``.

    ``base_url`` (else ``$ANTHROPIC_BASE_URL``, else the SDK default) points it
    at a compatible server. The Messages API takes no seed: ``seed`` is ignored.
    A ``schema`` becomes the one tool offered (its ``input_schema``, named by
    the schema's ``title``) and the model is made to call it; the answer is the
    tool call's input as JSON text. ``max_tokens`` caps the answer (default
    1024: the API requires a limit).
    """

    provider_id = "anthropic"
    client_class = "Anthropic"
    default_max_tokens = 1024
    env_prefix = "ANTHROPIC"
    api_kind = "the Anthropic Messages API"

    def _send(self, client: Any, request: Request) -> Any:
        kwargs = self._body(
            messages=[{"role": "user", "content": request.prompt}],
            # SDK 2.x dropped ``temperature`` from the typed signature; the API takes it.
            extra_body={"temperature": request.temperature},
        )
        if request.system:
            kwargs["system"] = request.system
        if request.schema is not None:
            name = schema_name(request.schema)
            kwargs["tools"] = [
                {
                    "name": name,
                    "description": "Record the answer, which must match this schema.",
                    "input_schema": dict(request.schema),
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": name}
        return client.messages.create(**kwargs)

    def _text(self, response: Any) -> str | None:
        blocks = getattr(response, "content", None)
        blocks = blocks if isinstance(blocks, list) else []
        for block in blocks:
            if getattr(block, "type", None) == "tool_use":
                return json.dumps(getattr(block, "input", None), ensure_ascii=False)
        parts = [b.text for b in blocks if isinstance(getattr(b, "text", None), str)]
        return "".join(parts) if parts else None
