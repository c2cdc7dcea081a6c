"""Type checks for chunker options, run by every built-in chunker's constructor.

Options arrive from Python, from a spec string (``semantic:max_chars=800``,
typed by :func:`jw_rag.chunkers.parse_chunker_spec`) or from JSON (MCP
``chunker_options``). Each check returns the value when it has the option's
type and range, else raises a one-line :class:`~jw_rag.errors.ConfigError`
naming the option, the value and what it takes: ``100.5`` for a character
count, ``1e9`` for a sentence count or ``nan`` for a fraction never reach the
chunking code.
"""

from __future__ import annotations

import math
from pathlib import Path

from jw_rag.errors import ConfigError, shown_value
from jw_rag.limits import MAX_SIZE

__all__ = ["flag", "optional_path", "real", "text", "whole"]


def whole(name: str, value: object, *, low: int = 0, high: int = MAX_SIZE) -> int:
    """``value`` when it is an ``int`` (not a bool) from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        hint = " (write it without a decimal point or exponent)" if isinstance(value, float) else ""
        raise ConfigError(f"{name} must be a whole number{hint}, got {shown_value(value)}")
    if not low <= value <= high:
        raise ConfigError(f"{name} must be from {low} to {high}, got {shown_value(value)}")
    return value


def real(name: str, value: object, *, low: float, high: float, include_low: bool = True) -> float:
    """``value`` as a float when it is a finite number (not a bool) in
    ``[low, high]`` (``(low, high]`` without ``include_low``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{name} must be a number, got {shown_value(value)}")
    number = float(value)
    above = number >= low if include_low else number > low
    if not (math.isfinite(number) and above and number <= high):
        bracket = "[" if include_low else "("
        raise ConfigError(
            f"{name} must be in {bracket}{low:g}, {high:g}], got {shown_value(value)}"
        )
    return number


def flag(name: str, value: object) -> bool:
    """``value`` when it is a bool (``true``/``false`` in a spec)."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {shown_value(value)}")
    return value


def text(name: str, value: object) -> str:
    """``value`` when it is a string."""
    if not isinstance(value, str):
        raise ConfigError(f"{name} must be text, got {shown_value(value)}")
    return value


def optional_path(name: str, value: object) -> str | Path | None:
    """``value`` when it is None, a non-empty string or a path."""
    if value is None or isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{name} must be a file or directory path, got {shown_value(value)}")
    return value
