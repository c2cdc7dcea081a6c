"""The help of ``jw``, ``jw rag`` and each command names the store in use. It
printed a PostgreSQL DSN from ``$JW_STORE`` with its password, and read a path
as rich markup: a ``$JW_HOME`` holding ``[/]`` stopped ``jw rag --help`` with
"unexpected MarkupError", one holding ``[bold]`` was shown without it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jw_rag.config import shown_store


def help_of(env: dict[str, str], *argv: str) -> str:
    """The help of ``jw argv...`` in a fresh process (help is made at import),
    on one line."""
    env = {**{k: v for k, v in os.environ.items() if k != "JW_STORE"}, "COLUMNS": "400", **env}
    done = subprocess.run(
        [sys.executable, "-m", "jw_cli.app", *argv, "-h"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    return " ".join(done.stdout.replace("│", " ").split())


@pytest.mark.parametrize(
    ("dsn", "shown"),
    [
        ("postgresql://alice:s3cret@db.example/lib", "postgresql://alice:***@db.example/lib"),
        (
            "postgres://alice:s3:cr@t@db/lib?sslmode=require",
            "postgres://alice:***@db/lib?sslmode=require",
        ),
        (
            "postgresql://db/lib?user=alice&password=s3cret",
            "postgresql://db/lib?user=alice&password=***",
        ),
        (
            "host=db dbname=lib password=s3cret user=alice",
            "host=db dbname=lib password=*** user=alice",
        ),
        ("host=db password='s3 cret' dbname=lib", "host=db password=*** dbname=lib"),
        ("postgresql://alice@db/lib", "postgresql://alice@db/lib"),
        # libpq reads the credentials up to the first '@' (before any '/'): a
        # password or user name holding '?' or '#' is still one
        ("postgresql://alice:s3c?ret@db/lib", "postgresql://alice:***@db/lib"),
        (
            "postgresql://alice:s3c#ret@db/lib?sslmode=require",
            "postgresql://alice:***@db/lib?sslmode=require",
        ),
        ("postgresql://al?ice:s3cret@db/lib", "postgresql://al?ice:***@db/lib"),
        ("postgresql://[::1]:5432/lib?password=s3cret", "postgresql://[::1]:5432/lib?password=***"),
        ("/home/me/store.sqlite", "/home/me/store.sqlite"),
    ],
)
def test_a_dsn_is_shown_without_its_password(dsn: str, shown: str) -> None:
    assert shown_store(dsn) == shown


def test_help_never_prints_the_password_of_jw_store() -> None:
    env = {"JW_STORE": "postgresql://alice:s3cret@db.example/lib"}
    for argv in (("rag",), ("rag", "search")):
        out = help_of(env, *argv)
        assert "s3cret" not in out and "postgresql://alice:***@db.example/lib" in out


@pytest.mark.parametrize("name", ["home[/]x", "home[bold]y"])
def test_help_shows_a_store_path_with_brackets_as_it_is(tmp_path: Path, name: str) -> None:
    env = {"JW_HOME": str(tmp_path / name)}
    for argv in (("rag",), ("rag", "search")):
        out = help_of(env, *argv)
        assert f"{tmp_path / name}/store.sqlite" in out
