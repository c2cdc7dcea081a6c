"""Options shared by every ``jw`` command: the chosen chunker and store.

The root callback parses ``--chunker`` and ``--store`` once into a
:class:`GlobalOptions` kept on the click context; commands read it with
:func:`global_options` and may override either value with their own option.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from rich.markup import escape

from jw_rag.chunkers import available_chunkers, parse_chunker_spec
from jw_rag.config import default_store, existing_store, shown_store
from jw_rag.embed import available_embedders, get_embedder
from jw_rag.errors import ConfigError, shown_value
from jw_rag.ingest.pipeline import SUPPORTED_LANGUAGES
from jw_rag.store import Store, open_store

__all__ = [
    "CHUNKER_HELP",
    "EMBEDDER_HELP",
    "STORE_HELP",
    "STORE_NOW",
    "ChunkerOpt",
    "EmbedderOpt",
    "GlobalOptions",
    "LanguageOpt",
    "StoreOpt",
    "check_choice",
    "check_chunker",
    "choices_metavar",
    "global_options",
    "opened_store",
    "text_only",
]

#: The store a command opens when given none, as help texts show it (password masked).
STORE_NOW = escape(shown_store(default_store()))
STORE_HELP = (
    "Store: a SQLite file path or a postgresql:// DSN "
    f"(default: $JW_STORE, else $JW_HOME/store.sqlite, now {STORE_NOW})."
)
EMBEDDER_HELP = (
    f"Embedder: {' | '.join(available_embedders())} (default: $JW_EMBEDDER, else the one "
    "the store was built with, else use); a different one than the store's is refused."
)
CHUNKER_HELP = (
    f"Chunker: {' | '.join(available_chunkers())}, with options as name:key=value[,key=value] "
    "(e.g. semantic:target_chars=800); default: $JW_CHUNKER, else paragraph."
)

ChunkerOpt = Annotated[
    str | None,
    typer.Option(
        "--chunker",
        metavar="SPEC",
        help="Chunker for this command; overrides jw --chunker. " + CHUNKER_HELP,
    ),
]
EmbedderOpt = Annotated[
    str | None,
    typer.Option("--embedder", metavar="NAME", help="Overrides jw --embedder. " + EMBEDDER_HELP),
]
StoreOpt = Annotated[
    str | None,
    typer.Option("--store", metavar="PATH|DSN", help="Overrides jw --store. " + STORE_HELP),
]


def text_only(noun: str) -> Any:
    """The callback of an option or argument that must be text (an id, a
    query, a language), named ``noun`` in its error: bytes that are not UTF-8
    on the command line (a terminal or file name in another encoding) reach
    Python as lone surrogates, which no store can encode; they are one line
    naming the option, not a codec's message from deep inside a store. File
    paths do not use it: a path may be any bytes the system allows."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        values = value if isinstance(value, list | tuple) else [value]
        for v in values:
            if isinstance(v, str) and not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    name = max(param.opts, key=len) if param.opts else param.name or noun
                    if not name.startswith("-"):
                        name = name.upper()
                    raise ConfigError(
                        f"{name} holds bytes that are not UTF-8 ({shown_value(_raw(v))}): pass "
                        f"the {noun} in UTF-8 (a terminal or file name in another encoding?)"
                    ) from None
        return value

    return check


def _raw(value: str) -> bytes | str:
    """The command-line bytes ``value`` was decoded from (``surrogateescape``)."""
    try:
        return value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte decodes to
        return value


LanguageOpt = Annotated[
    str | None,
    typer.Option(
        "--language",
        metavar="LANG",
        callback=text_only("language"),
        help=f"Language ({', '.join(SUPPORTED_LANGUAGES)}) overriding the source's own; "
        "auto detects it from the text.",
    ),
]


@dataclass(frozen=True, slots=True)
class GlobalOptions:
    """``chunker`` None means: the library default ($JW_CHUNKER, else paragraph)."""

    chunker: str | None = None
    store: str | None = None
    embedder: str | None = None

    def chunker_for(self, override: str | None) -> str | None:
        return check_chunker(override) if override is not None else self.chunker

    def store_for(self, override: str | None) -> str:
        return override or self.store or default_store()

    def embedder_for(self, override: str | None) -> str | None:
        """The command's ``--embedder``, else the root's (None: the store's own)."""
        chosen = override.strip() if override is not None else ""
        return chosen or self.embedder


def choices_metavar(values: tuple[str, ...]) -> str:
    """How help lists an option's choices: ``<a|b|c>``."""
    return f"<{'|'.join(values)}>"


def check_choice(value: str, valid: tuple[str, ...], option: str) -> str:
    """``value`` lowercased when it is one of ``valid``, else a one-line :class:`ConfigError`."""
    chosen = value.strip().lower()
    if chosen not in valid:
        raise ConfigError(f"{option} {value!r} is not one of {', '.join(valid)}")
    return chosen


def check_chunker(spec: str) -> str:
    """``spec`` (a name or ``name:key=value,...``) stripped, once its name is
    known; else a one-line :class:`ConfigError` listing the valid names."""
    valid = available_chunkers()
    if parse_chunker_spec(spec)[0] not in valid:
        typed = spec.partition(":")[0].strip()
        raise ConfigError(f"unknown chunker {typed!r}; valid names: {', '.join(valid)}")
    return spec.strip()


def global_options(ctx: typer.Context) -> GlobalOptions:
    """The root command's options (defaults when a sub-app runs on its own)."""
    root = ctx.find_root()
    obj = root.obj
    return obj if isinstance(obj, GlobalOptions) else GlobalOptions()


@contextmanager
def opened_store(
    location: str, *, existing: bool = False, embedder: str | None = None, read_only: bool = False
) -> Iterator[Store]:
    """The store at ``location``, closed on exit; ``existing=True`` refuses a
    location that holds no store (a SQLite path, a database), ``read_only=True`` (commands that only
    read) also never creates or changes anything in it. ``embedder`` names the
    embedder (None: $JW_EMBEDDER, else the default)."""
    chosen = get_embedder(embedder) if embedder is not None else None
    where = existing_store(location) if existing or read_only else location
    store = open_store(where, embedder=chosen, read_only=read_only, create=not existing)
    try:
        yield store
    finally:
        store.close()
