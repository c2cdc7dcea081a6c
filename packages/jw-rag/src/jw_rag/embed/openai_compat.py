"""Embeddings from OpenAI or any server speaking its API (``POST {base_url}/embeddings``)."""

from __future__ import annotations

import os
from typing import Any

from jw_rag.embed._http import JsonPoster
from jw_rag.embed._remote import RemoteEmbedder
from jw_rag.errors import ConfigError, EmbeddingError

__all__ = ["DEFAULT_OPENAI_BASE_URL", "DEFAULT_OPENAI_MODEL", "OpenAIEmbedder"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
_KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedder(RemoteEmbedder):
    """An OpenAI-compatible embeddings endpoint; ``model_id`` is ``"openai:<model>"``
    (``"openai:<model>:<dimensions>d"`` when ``dimensions`` shortens the vectors).

    ``base_url`` defaults to ``$OPENAI_BASE_URL``, else the OpenAI API; ``api_key``
    to ``$OPENAI_API_KEY`` (required: servers that do not check keys accept any value).
    """

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        dim: int | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        model = model.strip() or DEFAULT_OPENAI_MODEL
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ConfigError(
                "the OpenAI embedder needs an API key: set OPENAI_API_KEY "
                "(any value for a local server that does not check it)"
            )
        if dimensions is not None and dimensions < 1:
            raise ConfigError(f"dimensions must be positive, got {dimensions}")
        known = dimensions if dimensions is not None else _KNOWN_DIMS.get(model)
        super().__init__(dim=dim, known_dim=known, batch_size=batch_size)
        self.model = model
        self.dimensions = dimensions
        self.model_id = f"openai:{model}" + (f":{dimensions}d" if dimensions else "")
        self.base_url = (
            base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL
        ).rstrip("/")
        self._poster = JsonPoster(
            self.base_url,
            label="the OpenAI-compatible server",
            unreachable_hint="check the network, or set OPENAI_BASE_URL to a server that runs",
            headers={"Authorization": f"Bearer {key}"},
            timeout=timeout,
            retries=retries,
            backoff=backoff,
        )

    @staticmethod
    def _describe(status: int, body: str) -> str | None:
        if status in (401, 403):
            return "check OPENAI_API_KEY"
        if status == 404:
            return (
                "check the model name and OPENAI_BASE_URL (it should end in /v1 for most servers)"
            )
        if status == 429:
            return "rate limited or out of quota: wait, or lower batch_size"
        return None

    def _request(self, texts: list[str]) -> Any:
        payload: dict[str, Any] = {"model": self.model, "input": texts}
        if self.dimensions is not None:
            payload["dimensions"] = self.dimensions
        answer = self._poster.post("/embeddings", payload, describe_status=self._describe)
        data = answer.get("data") if isinstance(answer, dict) else None
        try:
            rows = sorted(data, key=lambda item: item["index"])  # type: ignore[arg-type]
            return [row["embedding"] for row in rows]
        except (TypeError, KeyError) as exc:
            raise EmbeddingError(
                f"{self.base_url}/embeddings answered without a 'data' list of "
                f"{{'embedding', 'index'}} items (got {str(answer)[:80]!r})"
            ) from exc

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.model!r}, base_url={self.base_url!r})"
