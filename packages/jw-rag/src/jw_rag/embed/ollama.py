"""Embeddings from an Ollama server (``POST /api/embed``)."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from jw_rag.embed._http import JsonPoster
from jw_rag.embed._remote import RemoteEmbedder
from jw_rag.errors import ConfigError, EmbeddingError

__all__ = ["DEFAULT_OLLAMA_HOST", "DEFAULT_OLLAMA_MODEL", "OllamaEmbedder", "ollama_host"]

DEFAULT_OLLAMA_MODEL = "nomic-embed-text"
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
_KNOWN_DIMS = {
    "nomic-embed-text": 768,
    "mxbai-embed-large": 1024,
    "all-minilm": 384,
    "bge-m3": 1024,
    "snowflake-arctic-embed": 1024,
}


def ollama_host() -> str:
    """``$OLLAMA_HOST`` as a URL, else ``http://127.0.0.1:11434``.

    Like Ollama's own clients: a bare ``host[:port]`` means ``http://``, a missing
    port is 11434 for http (443 for https), and ``0.0.0.0`` means this machine.
    """
    raw = (os.environ.get("OLLAMA_HOST") or "").strip()
    if not raw:
        return DEFAULT_OLLAMA_HOST
    parts = urlsplit(raw if "://" in raw else f"http://{raw}")
    host = parts.hostname or "127.0.0.1"
    if host == "0.0.0.0":
        host = "127.0.0.1"
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"OLLAMA_HOST={raw!r} has an invalid port: use host:port") from exc
    if port is None and parts.scheme == "http":
        port = 11434
    netloc = f"{host}:{port}" if port is not None else host
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def _model_key(model: str) -> str:
    return model.removesuffix(":latest")


class OllamaEmbedder(RemoteEmbedder):
    """An embedding model served by Ollama; ``model_id`` is ``"ollama:<model>"``.

    ``host`` defaults to :func:`ollama_host`. Construction sends nothing.
    """

    def __init__(
        self,
        model: str = DEFAULT_OLLAMA_MODEL,
        *,
        host: str | None = None,
        dim: int | None = None,
        batch_size: int = 64,
        timeout: float = 120.0,
        retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        model = model.strip() or DEFAULT_OLLAMA_MODEL
        super().__init__(
            dim=dim, known_dim=_KNOWN_DIMS.get(_model_key(model)), batch_size=batch_size
        )
        self.model = model
        self.model_id = f"ollama:{_model_key(model)}"
        self.host = (host or ollama_host()).rstrip("/")
        self._poster = JsonPoster(
            self.host,
            label="Ollama",
            unreachable_hint=(
                "start it with `ollama serve` (and `ollama pull "
                f"{model}`), or set OLLAMA_HOST to where it runs"
            ),
            timeout=timeout,
            retries=retries,
            backoff=backoff,
        )

    def _describe(self, status: int, body: str) -> str | None:
        if status == 404 or "not found" in body.lower():
            return f"pull the model with `ollama pull {self.model}`"
        return None

    def _request(self, texts: list[str]) -> Any:
        answer = self._poster.post(
            "/api/embed", {"model": self.model, "input": texts}, describe_status=self._describe
        )
        if not isinstance(answer, dict) or not isinstance(answer.get("embeddings"), list):
            raise EmbeddingError(
                f"Ollama at {self.host} answered without an 'embeddings' list "
                f"(got {str(answer)[:80]!r}); it needs Ollama 0.3.4 or newer for /api/embed"
            )
        return answer["embeddings"]

    def __repr__(self) -> str:
        return f"OllamaEmbedder({self.model!r}, host={self.host!r})"
