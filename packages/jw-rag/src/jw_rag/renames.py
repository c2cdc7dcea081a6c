"""Public names that changed, and how an old name keeps working for one release.

One word, one meaning:

- ``window_chars``: the size of window units, in characters (set at ingestion,
  :class:`~jw_rag.units.UnitRules`, ``jw eval chunker-bench`` variants);
- ``reach``: how many chunks each way a delivery may add around a hit
  (:func:`jw_rag.retrieve.retrieve`, ``jw eval chunker-bench`` variants);
- a bare ``window`` is left to the ``embedding`` chunker's sentence window.

:data:`RENAMED` lists every old public name with its new one. An old name
still works until the next release: it does what the new name does and
raises a :class:`RenamedWarning` (a ``DeprecationWarning``) naming the new
one, once per call; the ``jw`` command prints it as one line on stderr. Old
and new name given together with different values is a one-line
:class:`~jw_rag.errors.ConfigError`, never a silent pick of one.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TypeVar

from jw_rag.errors import ConfigError, shown_value

__all__ = ["RENAMED", "Renamed", "RenamedWarning", "renamed", "warn_renamed"]

T = TypeVar("T")


class RenamedWarning(DeprecationWarning):
    """An old public name was used; the message names the new one."""


@dataclass(frozen=True, slots=True)
class Renamed:
    """``old`` became ``new`` in ``where``; ``meaning`` says what it counts."""

    old: str
    new: str
    where: str
    meaning: str


#: Every public name renamed in this release (the old ones go in the next).
RENAMED: tuple[Renamed, ...] = (
    Renamed("window", "reach", "retrieve(), expand_hits(), jw_eval.bench.expansion.deliver()",
            "chunks each way a delivery may add around a hit"),
    Renamed("MAX_WINDOW", "MAX_REACH", "jw_rag.retrieve", "the largest reach"),
    Renamed("MAX_UNIT_CHARS", "jw_rag.limits.MAX_SIZE", "jw_rag.units",
            "the largest size option, in characters"),
    Renamed("windows", "window_chars", "ingest_document(), ingest_documents()",
            "size of window units in characters (0: none)"),
    Renamed("windows", "window_chars", "jw eval chunker-bench variant option (name:windows=N)",
            "size of window units in characters (0: none)"),
    Renamed("windows", "window_chars", "jw_eval.bench.variants.VariantSpec",
            "size of window units in characters (None: the run's)"),
    Renamed("windows", "window_chars_for", "jw_eval.bench.runner.BenchConfig",
            "window size a variant indexes"),
)  # fmt: skip


def warn_renamed(where: str, old: str, new: str, *, stacklevel: int = 3) -> None:
    """Raise the :class:`RenamedWarning` for ``old`` used in ``where``."""
    warnings.warn(
        f"{where}: {old} is renamed {new}; use {new} ({old} stops working in the next release)",
        RenamedWarning,
        stacklevel=stacklevel,
    )


def renamed(
    where: str, old: str, old_value: T | None, new: str, new_value: T | None, *, stacklevel: int = 3
) -> T | None:
    """The value of an argument renamed from ``old`` to ``new`` (``None``: not given).

    ``new_value`` when the old name was not given; else the old name's value
    with a :class:`RenamedWarning` naming ``new``; both given with different
    values is a :class:`~jw_rag.errors.ConfigError`. ``stacklevel`` points the
    warning at the caller's caller (the default suits a call from the
    function that takes the argument)."""
    if old_value is None:
        return new_value
    if new_value is not None and new_value != old_value and not _both_nan(old_value, new_value):
        raise ConfigError(
            f"{where}: {old}={shown_value(old_value)} and {new}={shown_value(new_value)} disagree; "
            f"{old} is the old "
            f"name of {new}: pass {new} only"
        )
    warn_renamed(where, old, new, stacklevel=stacklevel + 1)
    return old_value


def _both_nan(a: object, b: object) -> bool:
    """True when ``a`` and ``b`` are both NaN: the same value, which the new
    name's own check then refuses (it is not a disagreement)."""
    return isinstance(a, float) and isinstance(b, float) and a != a and b != b
