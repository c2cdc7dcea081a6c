"""Anthropic through the official ``anthropic`` SDK (``POST /v1/messages``)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from jw_gen.errors import GenerationError
from jw_gen.providers._sdk import import_sdk, one_line, schema_name

__all__ = ["DEFAULT_MODEL", "AnthropicProvider"]

#: A small, inexpensive model alias; pass ``model=`` (or $JW_GEN_MODEL) for another.
DEFAULT_MODEL = "claude-3-5-haiku-latest"


class AnthropicProvider:
    """The Messages API; key from ``api_key`` else ``$ANTHROPIC_API_KEY``.

    ``base_url`` (else ``$ANTHROPIC_BASE_URL``, else the SDK default) points it
    at a compatible server. The Messages API takes no seed: ``seed`` is ignored.
    A ``schema`` becomes the one tool offered (its ``input_schema``, named by
    the schema's ``title``) and the model is made to call it; the answer is the
    tool call's input as JSON text.
    """

    provider_id = "anthropic"

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 1024,
        timeout: float = 120.0,
    ) -> None:
        self.model = model or DEFAULT_MODEL
        self.api_key = api_key
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        self.max_tokens = max_tokens
        self.timeout = timeout
        self._client: Any = None

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def _get_client(self) -> Any:
        if self._client is None:
            sdk = import_sdk("anthropic", "anthropic", self.provider_id)
            key = self.api_key or os.environ.get("ANTHROPIC_API_KEY")
            if not key:
                raise GenerationError(
                    "ANTHROPIC_API_KEY is not set: export it or pass api_key= to the provider",
                    provider=self.provider_id,
                )
            self._client = sdk.Anthropic(
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
        sdk = import_sdk("anthropic", "anthropic", self.provider_id)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": [{"role": "user", "content": prompt}],
            # SDK 2.x dropped ``temperature`` from the typed signature; the API takes it.
            "extra_body": {"temperature": temperature},
        }
        if system:
            kwargs["system"] = system
        if schema is not None:
            name = schema_name(schema)
            kwargs["tools"] = [
                {
                    "name": name,
                    "description": "Record the answer, which must match this schema.",
                    "input_schema": dict(schema),
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": name}
        where = self.base_url or "the Anthropic API"
        try:
            message = client.messages.create(**kwargs)
        except sdk.APIStatusError as exc:
            hint = (
                "check ANTHROPIC_API_KEY"
                if exc.status_code in (401, 403)
                else "retry later or check the model name"
            )
            raise GenerationError(
                f"{where} answered HTTP {exc.status_code} ({one_line(exc.message)}): {hint}",
                provider=self.provider_id,
            ) from None
        except sdk.APIConnectionError as exc:
            raise GenerationError(
                f"cannot reach {where} ({one_line(exc, 80)}): check the network or base_url",
                provider=self.provider_id,
            ) from None
        except Exception as exc:  # a 200 that is not JSON, a proxy's page, a protocol error
            raise GenerationError(
                f"{where} failed: {type(exc).__name__}: {one_line(exc)}: check that "
                "base_url points at the Anthropic Messages API",
                provider=self.provider_id,
            ) from None
        blocks = getattr(message, "content", None)
        blocks = blocks if isinstance(blocks, list) else []
        for block in blocks:
            if getattr(block, "type", None) == "tool_use":
                return json.dumps(getattr(block, "input", None), ensure_ascii=False)
        parts = [b.text for b in blocks if isinstance(getattr(b, "text", None), str)]
        if not parts:
            raise GenerationError(
                f"{where} returned no text for model {self.model}", provider=self.provider_id
            )
        return "".join(parts)
