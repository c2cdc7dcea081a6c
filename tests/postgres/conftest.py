"""PostgreSQL store fixtures: a real server (see ``pg_harness``)."""

from __future__ import annotations

from tests.postgres.pg_harness import pg08_database, pg_database  # noqa: F401  (fixtures)
