"""Open a store from a location string: a SQLite path or a PostgreSQL DSN."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from jw_rag.config import POSTGRES_SCHEMES, default_store, existing_store, is_postgres_dsn
from jw_rag.errors import ConfigError, StoreError, check_flag
from jw_rag.store.protocol import Store
from jw_rag.store.sqlite_store import SQLiteStore

if TYPE_CHECKING:  # the embed package is only needed for its types here
    from jw_rag.embed.protocol import Embedder

__all__ = ["POSTGRES_SCHEMES", "check_store", "open_store"]


def check_store(store: object, method: str) -> None:
    """A one-line ConfigError when ``store`` is not a store (has no ``method``,
    the one the caller uses), naming how to open one from a path or DSN."""
    if not callable(getattr(store, method, None)):
        raise ConfigError(
            f"store must be an open store, got {type(store).__name__}: open one with "
            "jw_rag.store.open_store(path or postgresql:// DSN)"
        )


def _postgres(dsn: str, embedder: Embedder | None, read_only: bool, create: bool) -> Store:
    try:
        module = importlib.import_module("jw_rag.store.postgres")
    except ModuleNotFoundError as exc:
        if exc.name == "jw_rag.store.postgres":
            raise ConfigError(
                "PostgreSQL support is not installed in this jw-rag: "
                "use a SQLite store path instead, or upgrade jw-rag"
            ) from None
        raise
    store: Store = module.PostgresStore(dsn, embedder=embedder, read_only=read_only, create=create)
    return store


def open_store(
    location: str | Path | None = None,
    *,
    embedder: Embedder | None = None,
    read_only: bool = False,
    create: bool = True,
) -> Store:
    """The store at ``location`` (default: :func:`jw_rag.config.default_store`).

    ``postgresql://`` or ``postgres://`` DSNs, and libpq ``key=value`` strings
    (:func:`jw_rag.config.is_postgres_dsn`), open a PostgreSQL store; any other
    string is a SQLite file path (its parent directories are created, unless
    ``read_only``: then the file must hold a store, and nothing is created or
    changed, see :class:`~jw_rag.store.SQLiteStore`; a database read-only
    likewise, see :class:`~jw_rag.store.postgres.PostgresStore`).
    ``create=False`` refuses, in one line, a location that holds no store
    (a missing SQLite file, a database without the store's tables) instead
    of creating one.
    """
    check_flag("read_only", read_only)
    check_flag("create", create)
    loc = default_store() if location is None else location
    if not isinstance(loc, str | os.PathLike) or isinstance(os.fspath(loc), bytes):
        raise ConfigError(
            "the store location must be a SQLite file path or a postgresql:// DSN (a str or "
            f"pathlib.Path), got {type(loc).__name__}"
        )
    if isinstance(loc, str) and is_postgres_dsn(loc):
        return _postgres(loc, embedder, read_only, create)
    text = str(loc)
    if not text.strip():
        raise ConfigError("store location is empty: give a SQLite file path or a postgresql:// DSN")
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise ConfigError(
            f"unknown store scheme {scheme!r} in {text!r}: use a SQLite file path or a "
            "postgresql:// DSN"
        )
    if not create:
        existing_store(text)
    path = Path(text).expanduser()
    if read_only:
        return SQLiteStore(path, embedder=embedder, read_only=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create the folder for store {path} ({exc}): pick another path"
        ) from None
    return SQLiteStore(path, embedder=embedder, create=create)
