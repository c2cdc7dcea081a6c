"""Local sentence-transformers models (optional extra ``local-embeddings``).

Models load offline only: from a local directory, or from the Hugging Face cache
when the model was downloaded beforehand (``huggingface-cli download <model>`` on
a connected machine). Nothing is fetched at run time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jw_rag.embed._vectors import as_texts, empty, normalise_rows
from jw_rag.embed.protocol import Vectors
from jw_rag.errors import ConfigError, EmbeddingError, MissingDependencyError

__all__ = ["DEFAULT_ST_MODEL", "SentenceTransformerEmbedder"]

DEFAULT_ST_MODEL = "paraphrase-multilingual-MiniLM-L12-v2"
_KNOWN_DIMS = {
    "paraphrase-multilingual-MiniLM-L12-v2": 384,
    "paraphrase-multilingual-mpnet-base-v2": 768,
    "all-MiniLM-L6-v2": 384,
    "all-mpnet-base-v2": 768,
    "multilingual-e5-small": 384,
    "multilingual-e5-base": 768,
    "multilingual-e5-large": 1024,
    "LaBSE": 768,
}


def _hub_id(model: str) -> str:
    return model if "/" in model else f"sentence-transformers/{model}"


class SentenceTransformerEmbedder:
    """A sentence-transformers model named on the Hub or stored in a local directory.

    ``model_id`` is ``"st:<model>"`` (a directory is named by its absolute path).
    ``dim`` is known without loading for common models; otherwise reading it
    loads the model. Pass ``dim=`` to avoid that.
    """

    def __init__(
        self,
        model: str = DEFAULT_ST_MODEL,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        dim: int | None = None,
    ) -> None:
        if not model or not model.strip():
            raise ConfigError("sentence-transformers needs a model name or a local directory")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        model = model.strip()
        path = Path(model).expanduser()
        self._local_dir = path.resolve() if path.is_dir() else None
        self.model = str(self._local_dir) if self._local_dir else model
        self.model_id = f"st:{self.model}"
        self.device = device
        self.batch_size = batch_size
        self._dim = dim if dim is not None else _KNOWN_DIMS.get(model.rsplit("/", 1)[-1])
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._load().get_sentence_embedding_dimension())
        return self._dim

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._open()
            return self._model

    def _open(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import sentence_transformers
        except ImportError as exc:
            raise MissingDependencyError(
                "sentence-transformers", "local-embeddings", "the sentence-transformers embedder"
            ) from exc
        target = str(self._local_dir) if self._local_dir else _hub_id(self.model)
        try:
            return sentence_transformers.SentenceTransformer(
                target, device=self.device, local_files_only=True
            )
        except (OSError, ValueError) as exc:
            if self._local_dir:
                raise EmbeddingError(
                    f"{self._local_dir} is not a loadable sentence-transformers model ({exc}); "
                    "point to the directory that holds its modules.json"
                ) from exc
            raise EmbeddingError(
                f"sentence-transformers model {self.model!r} is not on this machine: run "
                f"`huggingface-cli download {_hub_id(self.model)}` on a connected machine "
                "(then copy ~/.cache/huggingface), or pass a local model directory"
            ) from exc

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = as_texts(texts)
        if not items:
            return empty(self.dim)
        model = self._load()
        try:
            raw = model.encode(
                items,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except Exception as exc:  # the library's failures become one clear error
            raise EmbeddingError(
                f"{self.model_id} failed to embed {len(items)} texts: {exc}"
            ) from exc
        return normalise_rows(raw, len(items), self.dim, self.model_id)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.model!r}, device={self.device!r})"
