"""The ``jw`` command: a Typer app with one sub-app per command group.

Each group lives in its own module and is attached here. The root options
``--chunker`` and ``--store`` set the defaults every command uses.

Errors end as one line on stderr (``error: <message>``), never a traceback:
bad option values (:class:`~jw_rag.errors.ConfigError`, ``ValueError``) and
usage errors exit 2; other library errors
(:class:`~jw_rag.errors.JwRagError`) and unreadable files (``OSError``) exit 1.
"""

from __future__ import annotations

import sqlite3
import sys
import warnings
from importlib.metadata import version
from typing import Annotated, Any

import typer

from jw_cli.eval_commands import eval_app
from jw_cli.options import CHUNKER_HELP, EMBEDDER_HELP, STORE_HELP, GlobalOptions, check_chunker
from jw_cli.rag_commands import rag_app
from jw_rag.errors import JwRagError, JwRagWarning

__all__ = ["app", "main"]

app = typer.Typer(
    name="jw",
    help="Chunking, retrieval and evaluation over long multilingual publications.\n\n"
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


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code. The toolkit's own
    warnings print as one line (``warning: ...``); others as Python shows them."""
    with warnings.catch_warnings():
        python_way = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: Any = None,
            line: str | None = None,
        ) -> None:
            if issubclass(category, JwRagWarning):
                typer.echo(f"warning: {' '.join(str(message).split())}", err=True)
            else:
                python_way(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        return _run(argv)


def _run(argv: list[str] | None) -> int:
    try:
        rv = app(args=argv, prog_name="jw", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.TyperException as exc:  # usage errors (exit 2), shown the way Typer does
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
    except (JwRagError, ValueError) as exc:
        return _fail(exc, 2 if isinstance(exc, ValueError) else 1)
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        return _fail(f"{where}{exc.strerror or exc}", 1)
    except RecursionError:
        return _fail("the input nests too deeply to read; check the file", 1)
    except MemoryError:
        return _fail("not enough memory for this input; split it or free memory", 1)
    except OverflowError as exc:
        return _fail(f"a number is out of range ({exc}); use a smaller value", 2)
    except sqlite3.DatabaseError as exc:
        return _fail(
            f"the store cannot be read ({exc}); restore it from a copy or use a new one", 1
        )
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
