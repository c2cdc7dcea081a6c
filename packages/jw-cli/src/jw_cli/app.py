"""The ``jw`` command: a Typer app with one sub-app per command group.

Each group lives in its own module and is attached here; library errors
(:class:`~jw_rag.errors.JwRagError`) become a one-line message and exit 2.
"""

from __future__ import annotations

import sys

import typer

from jw_cli.eval_commands import eval_app
from jw_rag.errors import JwRagError

__all__ = ["app", "main"]

app = typer.Typer(
    name="jw",
    help="Chunking, retrieval and evaluation over long multilingual publications.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(eval_app, name="eval")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        rv = app(args=argv, prog_name="jw", standalone_mode=False)
    except JwRagError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except SystemExit as exc:  # click's own usage errors
        return int(exc.code or 0) if isinstance(exc.code, int) else 1
    except Exception as exc:
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            return exc.exit_code
        if isinstance(exc, click.exceptions.Abort):
            typer.echo("aborted", err=True)
            return 130
        raise
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
