"""Where the toolkit keeps its files, and the environment variables that move them.

=====================  ==============================================  ============
variable               meaning                                         default
=====================  ==============================================  ============
``JW_HOME``            base directory                                  ``~/.jw-agent-toolkit``
``JW_CACHE_DIR``       embedding cache directory                       ``$JW_HOME/cache``
``JW_CHUNK_CACHE_DIR`` LLM chunker cache directory                     ``$JW_HOME/chunk-cache``
``JW_STORE``           store: a SQLite path or a ``postgresql://`` DSN ``$JW_HOME/store.sqlite``
``JW_CHUNKER``         default chunker name                            ``paragraph``
``JW_EMBEDDER``        default embedder name                           ``use``
=====================  ==============================================  ============
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from jw_rag.errors import StoreError

__all__ = [
    "cache_dir",
    "chunk_cache_dir",
    "default_store",
    "existing_store",
    "home_dir",
    "is_postgres_dsn",
    "shown_store",
]

#: Store locations that name a PostgreSQL database as a URL.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")

#: libpq connection keywords a ``key=value`` DSN is made of (the common ones).
_LIBPQ_KEYWORDS = frozenset(
    "host hostaddr port dbname user password passfile service options connect_timeout "
    "client_encoding application_name fallback_application_name keepalives keepalives_idle "
    "keepalives_interval keepalives_count tcp_user_timeout sslmode sslcert sslkey sslrootcert "
    "sslcrl sslpassword sslnegotiation sslcompression requiressl require_auth channel_binding "
    "gssencmode krbsrvname target_session_attrs load_balance_hosts".split()
)
#: Where a key=value DSN must say which server or database it means.
_LIBPQ_NAMING = frozenset({"host", "hostaddr", "port", "dbname", "user", "service"})
_KEY_VALUE = re.compile(r"\s*([A-Za-z_]+)\s*=\s*(?:'(?:[^'\\]|\\.)*'|[^\s']+)\s*")


def home_dir() -> Path:
    """``$JW_HOME``, else ``~/.jw-agent-toolkit``."""
    env = os.environ.get("JW_HOME")
    return Path(env).expanduser() if env else Path.home() / ".jw-agent-toolkit"


def cache_dir() -> Path:
    """``$JW_CACHE_DIR``, else ``$JW_HOME/cache``."""
    env = os.environ.get("JW_CACHE_DIR")
    return Path(env).expanduser() if env else home_dir() / "cache"


def chunk_cache_dir() -> Path:
    """``$JW_CHUNK_CACHE_DIR``, else ``$JW_HOME/chunk-cache``."""
    env = os.environ.get("JW_CHUNK_CACHE_DIR")
    return Path(env).expanduser() if env else home_dir() / "chunk-cache"


def default_store() -> str:
    """``$JW_STORE``, else ``$JW_HOME/store.sqlite``."""
    return os.environ.get("JW_STORE") or str(home_dir() / "store.sqlite")


#: A URI's password (``://user:password@``, up to the host: libpq reads the
#: credentials up to an '@' before any '/', so they may hold '?' or '#') and a
#: ``password=`` (or ``sslpassword=``) value of a libpq ``key=value`` string or a
#: URI's query.
_URI_PASSWORD = re.compile(r"(://[^:/@]*:)[^/]*@")
_KEY_PASSWORD = re.compile(r"(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&']*)")


def shown_store(location: str) -> str:
    """``location`` as help and messages show it: a PostgreSQL DSN without its
    password (``***`` in its place), anything else as it is."""
    if not is_postgres_dsn(location):
        return location
    return _KEY_PASSWORD.sub(r"\1***", _URI_PASSWORD.sub(r"\1***@", location))


def is_postgres_dsn(location: str) -> bool:
    """Whether a store location names a PostgreSQL database: a ``postgresql://``
    or ``postgres://`` URL, or a libpq ``key=value`` string made only of libpq
    keywords, one of which names the server or database (``host=db
    dbname=library``). Anything else is a SQLite file path."""
    if location.startswith(POSTGRES_SCHEMES):
        return True
    keys, at = [], 0
    while at < len(location):
        found = _KEY_VALUE.match(location, at)
        if found is None:
            return False
        keys.append(found.group(1))
        at = found.end()
    return bool(keys) and set(keys) <= _LIBPQ_KEYWORDS and bool(set(keys) & _LIBPQ_NAMING)


def existing_store(location: str) -> str:
    """``location`` when it names a store that exists: a server DSN (``scheme://...``,
    checked when opened) or a SQLite file on disk. Commands that only read a
    store call this first, so a mistyped path is an error instead of a new,
    empty store answering "no hits"."""
    if "://" in location or is_postgres_dsn(location):
        return location
    path = Path(location).expanduser()
    if path.exists() and not path.is_file():
        kind = "a directory" if path.is_dir() else "not a regular file (a FIFO, device or socket)"
        raise StoreError(f"store path {path} is {kind}: give a file path")
    if not path.is_file():
        raise StoreError(
            f"no store at {path}: check the path (--store or $JW_STORE), or ingest a source "
            "there first"
        )
    return location
