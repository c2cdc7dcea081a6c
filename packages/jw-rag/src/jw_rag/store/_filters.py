"""Search filters, validated once and rendered as a SQL condition by each backend's dialect."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jw_core import normalize_language
from jw_rag.errors import ConfigError, shown_value
from jw_rag.store._rows import check_id

__all__ = ["FILTER_KEYS", "Clause", "SqlFilter", "build_filter", "parse_filters"]

#: Filter keys every store accepts; values are a scalar or a list of accepted values.
FILTER_KEYS: tuple[str, ...] = ("source_id", "language", "chunker", "page")


@dataclass(frozen=True, slots=True)
class SqlFilter:
    """``where`` is a condition on table alias ``c`` (``"1"`` or ``"TRUE"`` when unfiltered);
    ``empty`` is true when some key was given an empty list (nothing matches)."""

    where: str = "1"
    params: tuple[Any, ...] = ()
    empty: bool = False

    @property
    def active(self) -> bool:
        """Whether the filter restricts anything: every condition a filter
        adds carries its values as parameters, whatever the SQL dialect."""
        return bool(self.params) or self.empty


#: The largest page number a filter takes (SQLite's largest integer).
_MAX_PAGE = 2**63 - 1


def _values(key: str, value: Any) -> list[Any]:
    values = list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
    for v in values:
        if key == "page":
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"filter 'page' takes page numbers (int), got {v!r}")
            if not -_MAX_PAGE - 1 <= v <= _MAX_PAGE:  # past what SQLite binds: no page is
                raise ConfigError(
                    f"filter 'page' takes page numbers up to {_MAX_PAGE}, got {shown_value(v)}"
                )
        elif not isinstance(v, str):
            raise ConfigError(f"filter {key!r} takes strings, got {shown_value(v)}")
        else:
            check_id(v, f"filter {key!r} value")
    if key == "language":  # "E", "es-ES" and "spa" all mean what chunkers store
        values = [normalize_language(v) or v for v in values]
    return values


#: Renders one filter key as SQL: ``clause(key, values, names)`` -> the condition
#: and its parameters (``names`` yields fresh placeholder names for dialects
#: with named parameters).
Clause = Callable[[str, list[Any], Iterator[str]], tuple[str, list[Any]]]


def build_filter(filters: Mapping[str, Any] | None, clause: Clause, true: str) -> SqlFilter:
    """Validate ``filters`` (unknown keys and wrong value types are rejected)
    and join ``clause``'s condition for each key; ``true`` is the dialect's
    always-true condition."""
    if not filters:
        return SqlFilter(true)
    unknown = sorted(set(filters) - set(FILTER_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown search filter {', '.join(map(repr, unknown))}: use {', '.join(FILTER_KEYS)}"
        )
    names = (f"f{i}" for i in itertools.count())
    clauses: list[str] = []
    params: list[Any] = []
    empty = False
    for key in FILTER_KEYS:
        if key not in filters:
            continue
        values = _values(key, filters[key])
        if not values:
            empty = True
            continue
        sql, bound = clause(key, values, names)
        clauses.append(sql)
        params.extend(bound)
    return SqlFilter(" AND ".join(clauses) or true, tuple(params), empty)


def _sqlite_clause(key: str, values: list[Any], names: Iterator[str]) -> tuple[str, list[Any]]:
    marks = ", ".join("?" * len(values))
    if key == "page":
        return (
            "EXISTS (SELECT 1 FROM json_each(c.metadata, '$.pages') AS p "
            f"WHERE p.value IN ({marks}))",
            values,
        )
    return f"c.{key} IN ({marks})", values


def parse_filters(filters: Mapping[str, Any] | None) -> SqlFilter:
    """``filters`` as a SQLite condition on alias ``c`` with ``?`` parameters."""
    return build_filter(filters, _sqlite_clause, "1")
