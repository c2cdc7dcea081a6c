"""A real PostgreSQL server with pgvector for the store tests, started once
per test process from the ``pgserver`` wheel (which runs it as an unprivileged
system user when the tests run as root), with one fresh database per store.

Imported by path from the store conftests, so keep it dependency-light."""

from __future__ import annotations

import atexit
import itertools
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_server: Any = None
_failure: str | None = None
_names = itertools.count()


def _shutdown(server: Any, base: Path) -> None:
    """Stop the server and delete its data (at interpreter exit)."""
    from pgserver._commands import pg_ctl

    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _start() -> Any:
    """The process's server (started at the first call), or skip with the reason.

    Its data lives in its own temporary folder, not under pytest's base
    folder: pytest keeps that one private (mode 0700) and prunes old ones,
    while the server's system user must be able to reach its data."""
    global _server, _failure
    if _server is None and _failure is None:
        try:
            import pgserver
            import psycopg

            base = Path(tempfile.mkdtemp(prefix="jw-rag-pg-"))
            base.chmod(0o755)
            server = pgserver.get_server(base / "pgdata", cleanup_mode=None)
            atexit.register(_shutdown, server, base)
            with psycopg.connect(server.get_uri(), autocommit=True) as conn:
                # Test data is disposable: skip the flushes that make commits slow.
                for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                    conn.execute(f"ALTER SYSTEM SET {setting} = off")
                conn.execute("SELECT pg_reload_conf()")
            _server = server
        except Exception as exc:  # any failure to start means: no server on this machine
            _failure = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    if _server is None:
        pytest.skip(f"the bundled PostgreSQL (pgserver) could not start here: {_failure}")
    return _server


PgDatabase = Callable[[], str]


@pytest.fixture
def pg_database() -> Iterator[PgDatabase]:
    """``pg_database()`` -> the DSN of a new, empty database (dropped after the test)."""
    import psycopg

    server = _start()
    made: list[str] = []

    def make() -> str:
        name = f"jw_test_{next(_names)}"
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        made.append(name)
        return server.get_uri(name)

    yield make
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        for name in made:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
