"""Ollama through the official ``ollama`` SDK (``POST /api/chat``)."""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

from jw_gen.providers._base import Request, SDKErrors, SDKProvider
from jw_gen.providers.defaults import DEFAULT_MODELS

__all__ = ["DEFAULT_HOST", "DEFAULT_MODEL", "OllamaProvider"]

DEFAULT_MODEL = DEFAULT_MODELS["ollama"]
DEFAULT_HOST = "http://127.0.0.1:11434"


class OllamaProvider(SDKProvider):
    """A local Ollama server; ``host`` else ``$OLLAMA_HOST`` else 127.0.0.1:11434.

    The SDK is imported and the client built on the first :meth:`complete`, so
    constructing the provider never touches the network. A ``schema`` is sent
    as ``format``: the server constrains the answer to it.
    """

    provider_id = "ollama"

    def __init__(
        self, model: str | None = None, *, host: str | None = None, timeout: float = 120.0
    ) -> None:
        super().__init__(model, timeout=timeout)
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST

    def __repr__(self) -> str:
        return f"OllamaProvider(model={self.model!r}, host={self.host!r})"

    @property
    def where(self) -> str:
        return f"Ollama at {self.host}"

    def _connect(self, sdk: ModuleType) -> Any:
        return sdk.Client(host=self.host, timeout=self.timeout)

    def _send(self, client: Any, request: Request) -> Any:
        options: dict[str, Any] = {"temperature": request.temperature}
        if request.seed is not None:
            options["seed"] = request.seed
        extra = {"format": dict(request.schema)} if request.schema is not None else {}
        return client.chat(
            model=self.model, messages=request.chat_messages(), options=options, **extra
        )

    def _text(self, response: Any) -> str | None:
        return response.message.content if response.message else None

    def _errors(self, sdk: ModuleType) -> SDKErrors:
        return SDKErrors(
            status=(sdk.ResponseError,), connection=(ConnectionError, OSError), detail="error"
        )

    def _status_fix(self, status: int) -> str:
        if status == 404:
            return f"pull the model with `ollama pull {self.model}`"
        return "check the server log"

    def _unreachable_fix(self) -> str:
        return "start it with `ollama serve` or set OLLAMA_HOST"

    def _server_fix(self) -> str:
        return "check that OLLAMA_HOST points at an Ollama server"
