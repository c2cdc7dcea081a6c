"""Lazy import of an optional SDK with an install hint."""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from jw_gen.errors import GenerationError

__all__ = ["import_sdk", "one_line", "schema_name"]


def import_sdk(module: str, extra: str, provider: str) -> ModuleType:
    """Import ``module`` or raise a GenerationError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise GenerationError(
            f"the {provider} provider needs the '{module}' package: install it with "
            f"`pip install 'jw-gen[{extra}]'` (in a checkout: "
            f"`uv sync --all-packages --extra {extra}` at the repository root)",
            provider=provider,
        ) from exc


def one_line(value: object, limit: int = 200) -> str:
    """``value`` as a single line of at most ``limit`` characters."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def schema_name(schema: Mapping[str, Any]) -> str:
    """A name for an answer schema the APIs accept (letters, digits, ``_``, ``-``,
    at most 64): its ``title``, else ``"answer"``."""
    title = re.sub(r"[^A-Za-z0-9_-]+", "_", str(schema.get("title") or "")).strip("_")
    return title[:64] or "answer"
