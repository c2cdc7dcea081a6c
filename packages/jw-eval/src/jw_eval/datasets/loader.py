"""``load_dataset``: pick the loader from the path's content (or a forced format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from jw_eval.datasets.chroma import load_chroma
from jw_eval.datasets.model import Dataset
from jw_eval.datasets.questions_jsonl import load_questions_jsonl
from jw_eval.datasets.squad import load_squad
from jw_eval.datasets.yaml_queries import load_yaml_queries
from jw_rag.errors import ConfigError, IngestError

__all__ = ["FORMATS", "DatasetFormat", "detect_format", "load_dataset"]

DatasetFormat = Literal["yaml", "squad", "chroma", "jsonl"]
FORMATS: tuple[str, ...] = ("yaml", "squad", "chroma", "jsonl")


def _yaml_in(directory: Path) -> Path | None:
    found = sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml"))
    return found[0] if found else None


def detect_format(path: Path) -> DatasetFormat:
    """``chroma`` for a directory with questions_df.csv, ``jsonl`` for a
    ``.jsonl`` file (or a directory holding ``questions.jsonl``), ``yaml`` for
    a YAML file (or a directory holding one), ``squad`` for JSON with a
    ``data`` list."""
    if path.is_dir():
        if (path / "questions_df.csv").is_file():
            return "chroma"
        if (path / "questions.jsonl").is_file():
            return "jsonl"
        if _yaml_in(path) is not None:
            return "yaml"
        raise IngestError(f"cannot tell the format of directory {path}: give its format")
    if not path.is_file():
        raise IngestError(f"dataset {path} does not exist")
    if path.suffix == ".jsonl":
        return "jsonl"
    head = path.read_text("utf-8", errors="replace")[:4096].lstrip()
    if head.startswith("{"):
        try:
            data = json.loads(path.read_text("utf-8"))
        except ValueError as exc:
            raise IngestError(f"{path} is not valid JSON: {exc}") from exc
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            return "squad"
        raise IngestError(f"{path} is JSON but not SQuAD (no 'data' list): give its format")
    if path.suffix in (".yaml", ".yml") or head.startswith("- "):
        return "yaml"
    raise IngestError(f"cannot tell the format of {path}: give format= one of {', '.join(FORMATS)}")


def load_dataset(
    path: str | Path,
    *,
    format: str | None = None,
    language: str | None = None,
    corpus_dir: str | Path | None = None,
) -> Dataset:
    """Load a benchmark dataset from ``path`` (a file or directory)."""
    path = Path(path)
    if format is not None and format not in FORMATS:
        raise ConfigError(f"unknown dataset format {format!r}: use one of {', '.join(FORMATS)}")
    fmt = format or detect_format(path)
    if fmt == "squad":
        return load_squad(path, language=language)
    if fmt == "chroma":
        return load_chroma(path, language=language)
    if fmt == "jsonl":
        return load_questions_jsonl(path, corpus_dir, language=language)
    queries = path
    if path.is_dir():
        found = _yaml_in(path)
        if found is None:
            raise IngestError(f"no .yaml queries file in {path}")
        queries = found
        corpus_dir = corpus_dir or path / "corpus"
    ds = load_yaml_queries(queries, corpus_dir)
    return ds.for_language(language) if language else ds
