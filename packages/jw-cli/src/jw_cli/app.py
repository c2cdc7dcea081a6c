"""The ``jw`` command: a Typer app with one sub-app per command group.

Each group lives in its own module and is attached here. The root options
``--chunker``, ``--store`` and ``--embedder`` set the defaults every command
uses; the commands that use one also take it after the subcommand.

Errors end as one line on stderr (``error: <message>``, see
:func:`jw_rag.errors.error_line`), never a traceback: bad option values
(:class:`~jw_rag.errors.ConfigError`, ``ValueError``, a number out of range)
and usage errors exit 2; every other failure (library errors, unreadable
files, exceptions nobody expected) exits 1. Warnings (a cache that cannot be
used, say) are one ``warning:`` line each, and so is an old option name that
still works for one release (:class:`~jw_rag.renames.RenamedWarning`, naming
the new one).
"""

from __future__ import annotations

import sys
import warnings
from importlib.metadata import version
from typing import Annotated, Any

import typer
import typer.main

from jw_cli.eval_commands import eval_app
from jw_cli.help_text import tidy
from jw_cli.options import CHUNKER_HELP, EMBEDDER_HELP, STORE_HELP, GlobalOptions, check_chunker
from jw_cli.rag_commands import rag_app
from jw_rag.errors import capped_line, error_line
from jw_rag.renames import RenamedWarning

__all__ = ["app", "main"]

app = typer.Typer(
    name="jw",
    help="Chunking, retrieval and evaluation over long multilingual publications.\n\n"
    "--store, --embedder and --chunker go before the command, and the rag commands "
    "that use them also take them after it.\n\n"
    'Example: jw --store /tmp/jw.sqlite rag search "does the soul die?" -k 3',
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(eval_app, name="eval")
app.add_typer(rag_app, name="rag")


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"jw {version('jw-cli')}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    chunker: Annotated[
        str | None,
        typer.Option(
            "--chunker", metavar="SPEC", help="Default chunker for the command. " + CHUNKER_HELP
        ),
    ] = None,
    store: Annotated[
        str | None, typer.Option("--store", metavar="PATH|DSN", help=STORE_HELP)
    ] = None,
    embedder: Annotated[
        str | None, typer.Option("--embedder", metavar="NAME", help=EMBEDDER_HELP)
    ] = None,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            metavar="",
            callback=_show_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Chunking, retrieval and evaluation over long multilingual publications."""
    ctx.obj = GlobalOptions(
        chunker=check_chunker(chunker) if chunker is not None else None,
        store=store or None,
        embedder=embedder.strip() or None if embedder is not None else None,
    )


def _fail(message: object, code: int) -> int:
    text = " ".join(str(message).split()) or "unexpected error"
    typer.echo(f"error: {text}", err=True)
    return code


def _warn(message: object, *_: object, **__: object) -> None:
    """A warning from the library (a cache left out, a file moved aside) as one line."""
    typer.echo(f"warning: {capped_line(' '.join(str(message).split()))}", err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    with warnings.catch_warnings():
        warnings.showwarning = _warn
        warnings.simplefilter("default", RenamedWarning)  # a DeprecationWarning, hidden otherwise
        return _run(argv)


_COMMAND: list[Any] = []


def command() -> Any:
    """The click command ``main`` runs: :data:`app` with help written for
    people (:func:`jw_cli.help_text.tidy`), built once."""
    if not _COMMAND:
        _COMMAND.append(tidy(typer.main.get_command(app)))
    return _COMMAND[0]


def _run(argv: list[str] | None) -> int:
    try:
        rv = command().main(args=argv, prog_name="jw", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.TyperException as exc:  # usage errors (exit 2), shown the way Typer does
        if isinstance(getattr(exc, "message", None), str):  # an unknown --option of 1 MB
            exc.message = capped_line(exc.message)
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            typer.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code
    except typer.Abort:
        typer.echo("aborted", err=True)
        return 130
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else 1
    except Exception as exc:  # noqa: BLE001 - every failure ends in one line, never a traceback
        return _fail(error_line(exc), 2 if isinstance(exc, ValueError | OverflowError) else 1)
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
